"""Development corpus G for Chinese text de-identification: consultations written in the voices of the people.

Provenance: a development generator, written from the category definitions alone (the ``text.policy``
block of ``conf/deid/default.yaml`` with its comments, and the module docstrings of
``benchmarks/corpora/consult_b.py``, ``consult_c.py``, ``consult_d.py`` and ``consult_e.py``), without
reading the detector, its rules, lexicons, statistical layer, tests, benchmark script or the code of the
other corpora, and without ever running a detector on it.  It is open to tuning: its misses may be read
to find failure classes, and once that has happened it no longer measures anything held-out.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only,
no set/dict iteration order or hash randomisation).  The corpus for seed 0 / 3000 messages is frozen by
``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python
benchmarks/corpora/consult_g.py`` prints the counts per category and keep kind, the share of messages
with an identifier, the number of consultations and a few marked samples.

Each message::

    {"text": str, "role": "patient" | "doctor",
     "consultation": int,                        # index of the consultation; its messages are consecutive
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or
a keep span; no span or keep span starts or ends with whitespace.  ``generate(seed, n)`` returns the first
``n`` messages of an endless stream of whole consultations, so a shorter corpus is a prefix of a longer one.

Design (unlike B's fixed scenarios, C's per-message slot grammar, D's case-then-turns co-reference and
E's per-message case record rendered through scenarios): the unit is a consultation WRITTEN BY A PERSON
WITH HABITS.  A consultation first draws its writer -- an elderly patient typing with one finger or
dictating (dialect words 俺/咋/大夫, spaces or nothing for punctuation, numbers in Chinese numerals,
full-width digits from a phone keyboard), a worried parent (question marks, emoji, pet names, the
kindergarten teacher and the other children), a migrant worker (run-on sentences without punctuation,
the factory town, the foreman and workmates, the train home, the social-security card), a student
(pinyin abbreviations, internet slang, the counsellor and room-mates, the student number, school e-mail),
an office worker back from abroad (English mixed in: pinyin names, "Dr. Wang", English addresses and
hospital names, English dates), an adult child writing for a parent (pasted discharge summaries and lab
sheets), a pregnant woman (the antenatal record, the due date) -- and then a doctor who answers between
clinics (terse, templated, a form to fill in, the colleague to see, the number of the ward).  The writer's
life supplies the identifiers: family members by kinship word, pet name or bare given name, neighbours
and workmates, the doctor seen last time, the village doctor, where they live, work, study and travel
from, hospitals by full, short, colloquial or English name, dates of every shape, phones and numbers.
Pools are broad and drawn per consultation: all 31 provinces with their cities and counties, invented
towns, villages, roads and compounds composed from syllables, surnames by rough frequency including rare
and compound ones, given names by generation and region, minority names, hospitals of every level.
Hard negatives appear in the same voices: brand drugs, eponym and place-named diseases, place-named foods
and drinks, words beginning with a surname character, everyday words that are also names, platforms,
generic hospital phrases, a province alone, service numbers, clinical numbers (keep spans).

Annotation conventions (those of corpora B-E, which define the categories; choices this corpus had to
make are marked "choice"):

* NAME: the name only, never the kinship word or title ("俺闺女【李娟】", "【王】大夫", "隔壁【刘】婶").
  Bare given names, nicknames (【老陈】, 【阿芳】, 【小敏】, doubled 【朵朵】, 【Coco】), minority names
  whole, staff names in pasted record footers.  Choice: a name written in pinyin or English
  ("my mom 【Wang Xiuying】", "Dr. 【Chen】", "【Li】 laoshi") is NAME, the English title outside.
  A name after an @ in a pasted group chat is NAME without the @.
* PHONE: mobiles in any grouping, +86, read out in Chinese numerals, landlines with area code (转NNN
  inside).  120 / 110 / 12320 / 12345 / 10086 / 114 are plain.
* ID: 18-digit resident IDs with a valid GB 11643 check digit, passports, social security card numbers
  after a 社保卡 cue.  Choice: student numbers (学号) and staff numbers (工号) identify one person in
  an institution and are ID; the cue stays outside.
* EMAIL (incl. student mail on edu.cn); URL: links, WeChat IDs, QQ numbers, Douyin / Xiaohongshu IDs, the
  cue outside.
* ADDRESS: every geographic unit below the province, alone or chained (a city alone, district, county,
  town, village + group, road + number, compound + building / unit / room, a dormitory block); a province
  written directly in front is inside; a province alone is plain.  Choices: an address written in English
  ("Room 1202, Building 5, ... Nanshan District, Shenzhen") is one ADDRESS span; a railway or bus
  station named after a place ("郑州东站", "周口汽车站", "温州高铁站") is ADDRESS whole -- it tells where the person travels from; in a school named after its place
  ("郸城一中", "光山县实验中学") only the place ("郸城", "光山县") is ADDRESS, the rest plain; an industrial
  park or factory area named after a place ("长安镇上沙工业区") is ADDRESS whole.  Place names inside food,
  drug, disease, brand and hospital names are not ADDRESS.
* HOSPITAL: named institutions and short forms (协和, 华西, 301, 浙一, 郑大一附院, 市二院, 省肿瘤医院,
  县中医院, 第一人民医院), place-named ones whole (郸城县人民医院, 郸城县医院), health centres, village
  clinics, community centres, private clinics, named chains; English names and abbreviations (PUMCH,
  West China Hospital) are HOSPITAL.  The department after it is plain.  Generic phrases stay plain
  (当地医院, 大医院, 三甲医院, 社区医院, 县医院, 市医院, 市人民医院, 县人民医院, 镇上卫生院, 村卫生室,
  校医院, 私人诊所, 药店).
* DATE: every date finer than a year, whatever it dates, in every form, incl. year + month, 今年/去年 +
  month (+ day) whole, lunar dates, Chinese numerals, English dates ("Mar 5", "5 March 2024").
  Choice: a day of a month named relatively ("上个月15号", "这个月8号") is one DATE span, and a bare day
  of the month ("15号那天", "28号去复查") is DATE: both resolve to one calendar day of the person's life.
  Bare M/D and M.D only after 预约/复查 or before 那天.  A year alone, a month alone, weekdays, relative
  days and clock times are keep "time".  Festivals (春节, 国庆) are plain.
* MRN: 门诊号, 住院号, 病案号, 病历号, ID号, 就诊卡号, 医保卡号, 建档号, 条码号, 标本号, 报告编号, 影像号,
  病理号.  Bed numbers are plain.  ORDER_ID: platform orders, payment transaction numbers, prescription,
  registration, appointment and consultation numbers, courier waybills.  The cue is outside the span.
* Keep: "age" (68岁, 六十八岁, 8个月, a bare age answering a form's 年龄 item), "duration", "dose"
  (amount + unit), "lab" (test + value + unit; lesion sizes), "vital" (sign + value), "time".
"""

from __future__ import annotations

import datetime
import hashlib
import json
import random
import re
import sys

CATEGORIES = ["NAME", "PHONE", "ID", "EMAIL", "URL", "ADDRESS", "HOSPITAL", "DATE", "MRN", "ORDER_ID"]
KEEP_KINDS = ["age", "duration", "dose", "lab", "vital", "time"]

CORPUS_SHA256 = "0f680c175c41045753c6f71cf820ba3d1d71a9306c263920cbd7c3dde6f037c3"

# ----------------------------------------------------------------------------------------------------
# pools: people
# ----------------------------------------------------------------------------------------------------

_COMMON_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
_RARE_SURNAMES = "佘禚隗仉单区种訾逄靳亓蒯郗眭宓冼甄晏闵扈鞠邝滕栾尉麻豆才折寇笪揭蔺璩厍暨乜竺芮阚"
_COMPOUND_SURNAMES = ["欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "慕容", "令狐", "尉迟", "公孙", "端木",
                      "夏侯", "轩辕", "申屠", "长孙", "西门"]

_GIVEN = {
    ("old", "m"): ["建国", "德明", "福贵", "国华", "振华", "志刚", "富贵", "长顺", "金山", "玉林", "守田", "保国",
                   "树林", "永福", "德胜", "宝山", "庆余", "满仓", "铁柱", "有才", "广发", "学文", "来福", "明山"],
    ("old", "f"): ["秀英", "桂兰", "玉兰", "淑珍", "凤英", "秀兰", "桂英", "玉梅", "金花", "翠花", "素芬", "月娥",
                   "爱华", "兰芳", "惠珍", "招娣", "玉珍", "秀珍", "桂芝", "凤琴", "淑芬", "巧云", "银凤", "润英"],
    ("mid", "m"): ["伟", "军", "勇", "强", "磊", "涛", "斌", "建华", "志强", "海涛", "晓东", "红军", "卫东", "立新",
                   "文斌", "国强", "春生", "小平", "永刚", "俊峰", "家豪", "伟雄", "振宇", "光辉", "锦华"],
    ("mid", "f"): ["丽", "红", "艳", "敏", "静", "娟", "燕", "海燕", "丽娟", "春梅", "晓燕", "秀芳", "美玲",
                   "丽萍", "雪梅", "翠萍", "玉芳", "慧敏", "彩霞", "淑仪", "嘉欣", "丽华", "桂香", "小琴"],
    ("young", "m"): ["浩然", "子轩", "宇轩", "俊熙", "梓豪", "一鸣", "子墨", "浩宇", "铭泽", "博文", "嘉豪", "天佑",
                     "思远", "睿", "轩", "奕辰", "锦程", "沐阳", "梓睿", "承泽", "皓轩", "煜祺", "家乐", "俊杰"],
    ("young", "f"): ["子涵", "梓萱", "欣怡", "诗涵", "雨桐", "一诺", "可馨", "若曦", "语嫣", "佳怡", "思彤", "梦瑶",
                     "依依", "芷若", "沐晴", "婉清", "书瑶", "安琪", "雨萱", "嘉怡", "晓彤", "颖", "琪", "悦"],
}
_GIVEN_CHARS = {
    ("old", "m"): "德福贵国华振志富长金玉守保树永宝庆满有广学明山田林海发财顺成兴旺",
    ("old", "f"): "秀英桂兰玉淑珍凤梅金花翠素芬月娥爱芝琴巧云银润香荣莲菊",
    ("mid", "m"): "伟军勇强磊涛斌建志海晓红卫立文国春小永俊锋辉宏刚波鹏飞",
    ("mid", "f"): "丽红艳敏静娟燕梅芳玲萍霞慧琴莉娜婷洁雪倩晶",
    ("young", "m"): "浩然子轩宇俊熙梓豪鸣墨铭泽博嘉佑思远睿奕辰锦程沐阳皓煜祺杰",
    ("young", "f"): "涵萱欣怡诗雨桐诺馨若曦语嫣佳彤梦瑶依芷晴婉清书琪悦可",
}
_MINORITY = [
    "阿依古丽·买买提", "艾力·吐尔逊", "古丽娜尔·艾山", "买买提江·阿不都", "热依拉·阿不力孜", "努尔兰·托合提",
    "扎西顿珠", "次仁卓玛", "格桑曲珍", "央金拉姆", "多吉次仁", "尼玛扎西", "巴桑", "卓嘎",
    "巴特尔", "乌云其其格", "苏日娜", "额尔敦", "宝音图", "阿拉坦仓",
    "吉克阿依", "阿呷莫", "沙马日体", "海来阿木",
]
_DOUBLED = ["乐乐", "朵朵", "豆豆", "果果", "糖糖", "贝贝", "甜甜", "壮壮", "妞妞", "琪琪", "元宝", "嘟嘟",
            "悠悠", "团团", "点点", "阳阳", "毛毛", "月月", "笑笑", "安安"]
_LATIN_NICK = ["Amy", "Coco", "Kevin", "Lucas", "Eric", "Cindy", "Tony", "Vivian", "Jason", "Lily"]

# pinyin for a subset of surnames and given names, used where a person writes names in English
_PY_SUR = [("王", "Wang"), ("李", "Li"), ("张", "Zhang"), ("刘", "Liu"), ("陈", "Chen"), ("杨", "Yang"),
           ("黄", "Huang"), ("赵", "Zhao"), ("吴", "Wu"), ("周", "Zhou"), ("徐", "Xu"), ("孙", "Sun"),
           ("马", "Ma"), ("朱", "Zhu"), ("胡", "Hu"), ("郭", "Guo"), ("林", "Lin"), ("何", "He"),
           ("高", "Gao"), ("罗", "Luo"), ("郑", "Zheng"), ("谢", "Xie"), ("宋", "Song"), ("唐", "Tang"),
           ("韩", "Han"), ("冯", "Feng"), ("邓", "Deng"), ("曹", "Cao"), ("彭", "Peng"), ("沈", "Shen"),
           ("欧阳", "Ouyang"), ("叶", "Ye"), ("蒋", "Jiang"), ("邱", "Qiu")]
_PY_GIVEN = [("秀英", "Xiuying"), ("建国", "Jianguo"), ("桂兰", "Guilan"), ("德明", "Deming"),
             ("丽娟", "Lijuan"), ("志强", "Zhiqiang"), ("海燕", "Haiyan"), ("晓东", "Xiaodong"),
             ("伟", "Wei"), ("静", "Jing"), ("敏", "Min"), ("磊", "Lei"), ("子涵", "Zihan"),
             ("浩然", "Haoran"), ("欣怡", "Xinyi"), ("雨桐", "Yutong"), ("一诺", "Yinuo"), ("玉兰", "Yulan"),
             ("淑珍", "Shuzhen"), ("国华", "Guohua"), ("春梅", "Chunmei"), ("俊杰", "Junjie")]

# ----------------------------------------------------------------------------------------------------
# pools: places.  province|short|id-code|city:county,county;city:...   (municipalities: one "city")
# ----------------------------------------------------------------------------------------------------

_PROVINCES_RAW = [
    "北京市|北京|11|北京市:朝阳区,海淀区,丰台区,昌平区,通州区,大兴区,顺义区,房山区",
    "天津市|天津|12|天津市:和平区,南开区,河西区,滨海新区,武清区,宝坻区",
    "上海市|上海|31|上海市:浦东新区,徐汇区,闵行区,宝山区,松江区,嘉定区,杨浦区",
    "重庆市|重庆|50|重庆市:渝北区,九龙坡区,万州区,涪陵区,江北区,巫山县,开州区,云阳县",
    "河北省|河北|13|石家庄市:长安区,正定县,藁城区,赵县;保定市:莲池区,涿州市,定州市,安国市,易县;"
    "邯郸市:丛台区,武安市,涉县,魏县;沧州市:任丘市,黄骅市,献县",
    "山西省|山西|14|太原市:小店区,迎泽区,清徐县;大同市:平城区,浑源县;运城市:盐湖区,永济市,临猗县;长治市:潞州区,襄垣县",
    "内蒙古自治区|内蒙古|15|呼和浩特市:赛罕区,土默特左旗;包头市:昆都仑区,青山区;赤峰市:红山区,宁城县,敖汉旗;"
    "通辽市:科尔沁区,开鲁县",
    "辽宁省|辽宁|21|沈阳市:和平区,皇姑区,新民市;大连市:甘井子区,金州区,瓦房店市,庄河市;鞍山市:铁东区,海城市;"
    "锦州市:凌海市,黑山县",
    "吉林省|吉林|22|长春市:南关区,农安县,榆树市;四平市:铁西区,梨树县;延边州:延吉市,珲春市",
    "黑龙江省|黑龙江|23|哈尔滨市:南岗区,道里区,香坊区,五常市,双城区;齐齐哈尔市:龙沙区,讷河市;"
    "牡丹江市:东安区,宁安市;佳木斯市:富锦市,桦南县",
    "江苏省|江苏|32|南京市:鼓楼区,江宁区,浦口区;苏州市:姑苏区,昆山市,常熟市,吴江区,张家港市;"
    "徐州市:铜山区,沛县,邳州市,睢宁县;盐城市:亭湖区,东台市,阜宁县;南通市:如皋市,海门区,启东市",
    "浙江省|浙江|33|杭州市:西湖区,余杭区,萧山区,拱墅区,桐庐县;宁波市:鄞州区,余姚市,慈溪市,象山县;"
    "温州市:鹿城区,瑞安市,乐清市,苍南县;金华市:婺城区,义乌市,东阳市,永康市;台州市:温岭市,临海市,天台县",
    "安徽省|安徽|34|合肥市:蜀山区,包河区,肥东县,长丰县;阜阳市:颍州区,临泉县,太和县,界首市;六安市:金安区,霍邱县,舒城县;"
    "安庆市:怀宁县,桐城市,太湖县",
    "福建省|福建|35|福州市:鼓楼区,仓山区,闽侯县,福清市,长乐区;厦门市:思明区,湖里区,集美区;"
    "泉州市:晋江市,南安市,安溪县,惠安县;莆田市:仙游县,涵江区",
    "江西省|江西|36|南昌市:东湖区,红谷滩区,进贤县;赣州市:章贡区,于都县,瑞金市,兴国县;上饶市:信州区,鄱阳县,余干县;"
    "九江市:都昌县,修水县",
    "山东省|山东|37|济南市:历下区,历城区,章丘区,平阴县;青岛市:市南区,黄岛区,即墨区,胶州市,平度市;"
    "临沂市:兰山区,沂南县,费县,沂水县;菏泽市:牡丹区,曹县,单县,郓城县;潍坊市:寿光市,诸城市,青州市",
    "河南省|河南|41|郑州市:金水区,二七区,中原区,中牟县,新郑市,登封市;周口市:川汇区,郸城县,项城市,鹿邑县,太康县;"
    "南阳市:卧龙区,邓州市,唐河县,镇平县;信阳市:浉河区,光山县,固始县,潢川县;驻马店市:驿城区,汝南县,确山县,泌阳县;"
    "商丘市:睢县,永城市,虞城县",
    "湖北省|湖北|42|武汉市:江汉区,武昌区,洪山区,江夏区,黄陂区;襄阳市:襄城区,枣阳市,宜城市;"
    "黄冈市:黄州区,麻城市,蕲春县,红安县;荆州市:沙市区,监利市,洪湖市;宜昌市:夷陵区,当阳市",
    "湖南省|湖南|43|长沙市:岳麓区,雨花区,开福区,浏阳市,宁乡市;衡阳市:蒸湘区,衡阳县,耒阳市,祁东县;"
    "邵阳市:双清区,邵东市,隆回县,洞口县;常德市:武陵区,澧县,桃源县;怀化市:鹤城区,沅陵县",
    "广东省|广东|44|广州市:天河区,白云区,番禺区,海珠区,花都区;深圳市:南山区,宝安区,龙华区,龙岗区,福田区;"
    "东莞市:长安镇,虎门镇,塘厦镇,樟木头镇;佛山市:南海区,顺德区,禅城区;汕头市:潮阳区,澄海区,潮南区;"
    "湛江市:雷州市,廉江市,徐闻县;梅州市:梅县区,兴宁市",
    "广西壮族自治区|广西|45|南宁市:青秀区,西乡塘区,横州市,宾阳县;柳州市:柳北区,柳江区,融安县;"
    "桂林市:七星区,临桂区,阳朔县,全州县;玉林市:北流市,博白县,陆川县",
    "海南省|海南|46|海口市:美兰区,龙华区,秀英区;三亚市:吉阳区,天涯区;儋州市:那大镇,白马井镇",
    "四川省|四川|51|成都市:武侯区,锦江区,双流区,郫都区,金堂县,都江堰市;绵阳市:涪城区,江油市,三台县;"
    "南充市:顺庆区,阆中市,南部县,营山县;达州市:通川区,宣汉县,大竹县,渠县;凉山州:西昌市,会理市,布拖县",
    "贵州省|贵州|52|贵阳市:云岩区,南明区,花溪区,清镇市;遵义市:红花岗区,仁怀市,湄潭县,桐梓县;毕节市:七星关区,威宁县,织金县",
    "云南省|云南|53|昆明市:五华区,盘龙区,官渡区,呈贡区,宜良县;曲靖市:麒麟区,宣威市,会泽县;大理州:大理市,宾川县,祥云县;"
    "红河州:蒙自市,个旧市",
    "西藏自治区|西藏|54|拉萨市:城关区,堆龙德庆区,林周县;日喀则市:桑珠孜区,江孜县;林芝市:巴宜区",
    "陕西省|陕西|61|西安市:雁塔区,碑林区,未央区,长安区,临潼区,鄠邑区;宝鸡市:渭滨区,岐山县,凤翔区;"
    "汉中市:汉台区,城固县,勉县;渭南市:临渭区,富平县,蒲城县;榆林市:神木市,府谷县",
    "甘肃省|甘肃|62|兰州市:城关区,七里河区,榆中县;天水市:秦州区,甘谷县,秦安县;定西市:安定区,通渭县,陇西县;"
    "庆阳市:镇原县,环县",
    "青海省|青海|63|西宁市:城东区,城西区,湟中区,大通县;海东市:乐都区,互助县",
    "宁夏回族自治区|宁夏|64|银川市:兴庆区,金凤区,永宁县;固原市:原州区,西吉县;吴忠市:利通区,同心县",
    "新疆维吾尔自治区|新疆|65|乌鲁木齐市:天山区,沙依巴克区,新市区;喀什地区:喀什市,疏附县,莎车县;"
    "伊犁州:伊宁市,霍城县;阿克苏地区:库车市,温宿县",
]


def _parse_provinces():
    out = []
    for raw in _PROVINCES_RAW:
        full, short, code, rest = raw.split("|")
        cities = []
        for chunk in rest.split(";"):
            city, counties = chunk.split(":")
            cities.append((city, counties.split(",")))
        out.append((full, short, code, cities))
    return out


_PROVINCES = _parse_provinces()
_MUNICIPAL = ["北京", "天津", "上海", "重庆"]

_PLACE_A = "王李张刘陈杨黄赵周新老石白龙凤金马牛柳桃梅枫松竹清青双三大小高南北东西上下官黄土沙"
_PLACE_B = "集庄店桥河沟坝湖塘营寨岭山坪湾口铺屯埠堡林洼岗园冲湾"
_TOWN_FIXED = ["城关", "王集", "李庄", "柳河", "新店", "石桥", "黄土", "马头", "白沙", "龙泉", "青山", "双河",
               "大营", "三合", "太平", "永安", "高桥", "杨湖", "清水", "古城", "长岭", "桃园", "枫林", "梅溪",
               "金鸡", "凤凰", "东坡", "西坝", "南塘", "北关", "吴台", "丁村", "胡集", "汪桥"]
_ROADS = ["人民路", "解放路", "建设路", "中山路", "文化路", "农业路", "花园路", "东风路", "和平路", "迎宾大道",
          "黄河路", "长江路", "滨江路", "工业大道", "学院路", "光明街", "胜利街", "新华街", "朝阳路", "健康路",
          "纬五路", "经三路", "环城北路", "育才街", "振兴大道", "桂花巷", "青年路", "府前街"]
_COMPOUND_A = ["锦绣", "阳光", "金色", "幸福", "和谐", "翡翠", "御景", "香榭", "紫荆", "丽景", "滨江", "世纪",
               "东方", "盛世", "书香", "名门", "水岸", "康桥", "春晖", "怡和", "翠湖", "天悦", "枫丹", "铂悦",
               "丰泽", "瑞景", "华侨", "电力", "教师", "供销社"]
_COMPOUND_B = ["小区", "花园", "苑", "家园", "新村", "华府", "公馆", "嘉园", "城", "雅居", "家属院", "宿舍"]
_EN_STREETS = [("Xinghe Garden", "Nanshan District", "Shenzhen"), ("Jinxiu Huafu", "Tianhe District", "Guangzhou"),
               ("Yangguang Xincun", "Xihu District", "Hangzhou"), ("Binjiang Jiayuan", "Wuhou District", "Chengdu"),
               ("Cuihu Yayuan", "Haidian District", "Beijing"), ("Donghu Mingmen", "Wuchang District", "Wuhan"),
               ("Ziijing Gongguan", "Pudong New Area", "Shanghai"), ("Ruijing Huayuan", "Yuelu District", "Changsha"),
               ("Fengdan Baili", "Jinshui District", "Zhengzhou"), ("Huaqiao Xincun", "Siming District", "Xiamen")]

_AREA_CODES = ["010", "021", "022", "023", "020", "024", "025", "027", "028", "029", "0371", "0394", "0376",
               "0377", "0396", "0311", "0312", "0351", "0471", "0431", "0451", "0512", "0516", "0571", "0574",
               "0577", "0551", "0558", "0591", "0592", "0595", "0791", "0797", "0531", "0532", "0539", "0530",
               "0731", "0734", "0755", "0769", "0757", "0771", "0772", "0773", "0898", "0851", "0871", "0891",
               "0931", "0971", "0951", "0991"]

# ----------------------------------------------------------------------------------------------------
# pools: hospitals
# ----------------------------------------------------------------------------------------------------

# (province short or "", full name, short forms, English form or "")
_FAMOUS = [
    ("北京", "北京协和医院", ["协和", "协和医院"], "PUMCH"),
    ("四川", "四川大学华西医院", ["华西", "华西医院"], "West China Hospital"),
    ("湖南", "中南大学湘雅医院", ["湘雅", "湘雅医院"], "Xiangya Hospital"),
    ("湖南", "中南大学湘雅二医院", ["湘雅二", "湘雅二院"], ""),
    ("浙江", "浙江大学医学院附属第一医院", ["浙一", "浙大一院"], ""),
    ("浙江", "浙江大学医学院附属邵逸夫医院", ["邵逸夫", "邵逸夫医院"], "Sir Run Run Shaw Hospital"),
    ("河南", "郑州大学第一附属医院", ["郑大一附院", "郑大一"], ""),
    ("湖北", "华中科技大学同济医学院附属同济医院", ["同济医院", "武汉同济"], "Tongji Hospital"),
    ("湖北", "华中科技大学同济医学院附属协和医院", ["武汉协和"], ""),
    ("广东", "中山大学附属第一医院", ["中山一院"], ""),
    ("北京", "中国人民解放军总医院", ["301", "301医院"], "Chinese PLA General Hospital"),
    ("北京", "首都医科大学附属北京天坛医院", ["天坛医院", "天坛"], ""),
    ("上海", "上海交通大学医学院附属瑞金医院", ["瑞金医院", "瑞金"], "Ruijin Hospital"),
    ("上海", "复旦大学附属华山医院", ["华山医院"], "Huashan Hospital"),
    ("上海", "复旦大学附属中山医院", ["中山医院"], "Zhongshan Hospital"),
    ("北京", "北京大学第三医院", ["北医三院"], "Peking University Third Hospital"),
    ("山东", "山东大学齐鲁医院", ["齐鲁医院", "齐鲁"], "Qilu Hospital"),
    ("陕西", "空军军医大学西京医院", ["西京医院"], ""),
    ("广东", "南方医科大学南方医院", ["南方医院"], ""),
    ("辽宁", "中国医科大学附属盛京医院", ["盛京医院"], ""),
    ("黑龙江", "哈尔滨医科大学附属第一医院", ["哈医大一院"], ""),
    ("新疆", "新疆医科大学第一附属医院", ["新医大一附院"], ""),
    ("重庆", "重庆医科大学附属第一医院", ["重医附一院"], ""),
    ("北京", "首都医科大学附属北京儿童医院", ["北京儿童医院"], "Beijing Children's Hospital"),
    ("上海", "复旦大学附属儿科医院", ["复旦儿科"], ""),
    ("北京", "中国医学科学院阜外医院", ["阜外医院", "阜外"], "Fuwai Hospital"),
    ("北京", "北京积水潭医院", ["积水潭"], ""),
    ("广东", "中山大学肿瘤防治中心", ["中山肿瘤"], ""),
    ("陕西", "西安交通大学第一附属医院", ["交大一附院"], ""),
    ("甘肃", "兰州大学第一医院", ["兰大一院"], ""),
    ("吉林", "吉林大学白求恩第一医院", ["吉大一院"], ""),
    ("安徽", "安徽医科大学第一附属医院", ["安医大一附院"], ""),
    ("福建", "福建医科大学附属协和医院", ["福建协和"], ""),
    ("广西", "广西医科大学第一附属医院", ["广西医大一附院"], ""),
    ("云南", "昆明医科大学第一附属医院", ["昆医附一院"], ""),
    ("贵州", "贵州医科大学附属医院", ["贵医附院"], ""),
    ("青海", "青海大学附属医院", ["青大附院"], ""),
    ("宁夏", "宁夏医科大学总医院", ["宁医总院"], ""),
    ("河北", "河北医科大学第二医院", ["河北医大二院"], ""),
    ("山西", "山西医科大学第一医院", ["山医大一院"], ""),
    ("江苏", "江苏省人民医院", ["江苏省人医"], ""),
    ("江西", "南昌大学第一附属医院", ["南昌大学一附院"], ""),
    ("天津", "天津医科大学总医院", ["天津总医院"], ""),
    ("内蒙古", "内蒙古医科大学附属医院", ["内医附院"], ""),
    ("海南", "海南医学院第一附属医院", ["海医一附院"], ""),
    ("西藏", "西藏自治区人民医院", ["西藏自治区人民医院"], ""),
]
_CHAINS = ["爱尔眼科", "美年大健康", "普瑞眼科", "瑞慈体检", "慈铭体检", "通策口腔", "拜博口腔"]
_LEVEL_SHORT = ["市一院", "市二院", "市三院", "市中医院", "市妇幼", "省肿瘤医院", "省儿童医院", "省妇幼",
                "县中医院", "第一人民医院", "第二人民医院", "附一院", "附二院", "省胸科医院", "市传染病医院",
                "市精神卫生中心", "省中医院", "市儿童医院"]
_GENERIC_HOSP = ["当地医院", "大医院", "三甲医院", "社区医院", "县医院", "市医院", "市人民医院", "县人民医院",
                 "镇上卫生院", "村卫生室", "校医院", "私人诊所", "小诊所", "药店", "人民医院", "医务室",
                 "正规医院", "专科医院", "公立医院"]
_DEPTS = ["心内科", "内分泌科", "儿科", "呼吸科", "消化科", "骨科", "神经内科", "肾内科", "妇产科", "皮肤科",
          "甲乳外科", "泌尿外科", "普外科", "急诊科", "发热门诊", "康复科", "风湿免疫科", "眼科", "口腔科",
          "感染科", "肿瘤科", "心理科"]

# ----------------------------------------------------------------------------------------------------
# pools: hard negatives
# ----------------------------------------------------------------------------------------------------

_BRANDS = ["立普妥", "波立维", "拜新同", "络活喜", "拜阿司匹林", "格华止", "达美康", "诺和灵", "优甲乐",
           "泰诺", "美林", "妈咪爱", "思密达", "易坦静", "开塞露", "六味地黄丸", "片仔癀", "马应龙", "云南白药",
           "同仁堂", "九芝堂", "东阿阿胶", "北京降压0号", "桂林西瓜霜", "京都念慈菴", "三九胃泰", "999感冒灵",
           "汤臣倍健", "江中健胃消食片", "连花清瘟", "藿香正气水", "金嗓子喉片", "达喜", "吗丁啉", "奥美拉唑",
           "蒲地蓝", "小儿氨酚黄那敏", "可威", "舒肝颗粒", "安宫牛黄丸"]
_DISEASES = ["桥本甲状腺炎", "帕金森", "阿尔茨海默病", "克罗恩病", "唐氏综合征", "川崎病", "格林巴利综合征",
             "雷诺综合征", "库欣综合征", "马凡综合征", "贝尔面瘫", "梅尼埃病", "克山病", "日本脑炎", "香港脚",
             "德国麻疹", "莱姆病", "寨卡病毒", "西尼罗热", "布鲁氏菌病", "亚急性甲状腺炎", "白癜风"]
_FOODS = ["兰州拉面", "沙县小吃", "柳州螺蛳粉", "重庆火锅", "北京烤鸭", "长沙臭豆腐", "武汉热干面", "金华火腿",
          "德州扒鸡", "周黑鸭", "宁夏枸杞", "新疆葡萄干", "阳澄湖大闸蟹", "西湖龙井", "安溪铁观音", "云南普洱",
          "信阳毛尖", "潮汕牛肉丸", "南京盐水鸭", "镇江香醋", "绍兴黄酒", "青岛啤酒", "天津麻花", "逍遥镇胡辣汤",
          "驴肉火烧", "桂林米粉", "东北酸菜", "四川泡菜", "过桥米线"]
# clauses with words that begin with a surname character
_SURWORDS = ["马上就去", "白细胞有点高", "周一去复查", "万一加重怎么办", "叶酸还要吃吗", "有点黄疸", "钱包都掏空了",
             "方便的话回一下", "田七粉能吃吗", "杜仲泡水行不行", "金银花泡水喝了", "陈皮泡水有用吗", "柴胡颗粒吃过",
             "黄芪能不能吃", "任何药都不想吃", "常规检查都做了", "老毛病了", "许多人都这样吗", "何况还在上班",
             "左侧疼得厉害", "牛奶能喝吗", "关节也疼", "时间长了会好吗", "宁可多跑一趟", "全身没劲", "包括晚上也疼",
             "于是就停了药", "安全吗", "康复得慢", "游泳可以吗", "尤其是晚上", "华法林要不要停", "容易易怒",
             "出门戴口罩了", "龙眼能吃吗", "石膏拆了", "苗条了不少", "高血压也有", "程序太麻烦", "江湖郎中的药不敢吃",
             "宋体字太小看不清", "严格忌口了", "雷打不动每天吃", "史上最难受"]
# clauses with everyday words that are also given names
_NAMELIKE = ["高峰期人多", "到了夏天就好点", "孩子平时挺文静的", "图个平安", "家里种了红梅", "住向阳的房间",
             "春雨绵绵的时候更疼", "秋菊开的时候犯过一次", "黎明的时候最难受", "国庆放假人多", "建军节那天开始的",
             "晓得了", "阳光好的时候多晒晒", "白雪一下就咳", "志愿者帮着挂的号", "江山易改本性难移", "天气明亮点就舒服",
             "春花开了就过敏", "一片光明"]
_PLATFORMS = ["丁香医生", "好大夫在线", "微医", "京东健康", "阿里健康", "平安好医生", "春雨医生", "小红书",
              "抖音", "美团买药", "叮当快药", "百度健康", "医鹿", "支付宝", "微信"]
_SERVICE = ["120", "110", "12320", "12345", "10086", "114", "119"]

_EMOJI = ["😭", "🙏", "😢", "😂", "🤔", "😷", "👍", "❤️", "😓", "🥺", "🙂", "😅", "[捂脸]", "[流泪]", "[抱拳]", "[OK]"]

# ----------------------------------------------------------------------------------------------------
# numerals
# ----------------------------------------------------------------------------------------------------

_CN_DIGIT = "〇一二三四五六七八九"
_CN_DIGIT_PHONE = "零幺二三四五六七八九"


def _cn_num(n: int) -> str:
    if n < 10:
        return "零一二三四五六七八九"[n]
    if n < 20:
        return "十" + ("" if n == 10 else _CN_DIGIT[n % 10])
    if n < 100:
        return _CN_DIGIT[n // 10] + "十" + ("" if n % 10 == 0 else _CN_DIGIT[n % 10])
    return str(n)


def _cn_year(y: int) -> str:
    return "".join(_CN_DIGIT[int(c)] for c in str(y))


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "0" <= c <= "9" else c for c in s)


def _id_check(body17: str) -> str:
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return "10X98765432"[sum(int(c) * x for c, x in zip(body17, w, strict=True)) % 11]


_LUNAR_M = ["正月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "冬月", "腊月"]
_LUNAR_D = ["初一", "初二", "初三", "初五", "初六", "初八", "初九", "初十", "十一", "十二", "十三", "十六",
            "十七", "十八", "二十", "二十一", "二十三", "二十六", "二十八"]
_EN_MONTH = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_EN_MONTH_FULL = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December"]

# ----------------------------------------------------------------------------------------------------
# parts: (text, label) with label None (plain), a category (upper case) or a keep kind (lower case)
# ----------------------------------------------------------------------------------------------------


def P(text):
    return [(text, None)]


def L(text, label):
    return [(text, label)]


class _Person:
    def __init__(self, sur, given, sex, gen, full=None):
        self.sur = sur
        self.given = given
        self.sex = sex
        self.gen = gen
        self.full = full or (sur + given)
        self.minority = full is not None


class _Writer:
    """One consultation: the people, places, numbers, and the rng."""

    def __init__(self, r: random.Random):
        self.r = r
        self.persona = r.choices(
            ["elderly", "parent", "migrant", "student", "abroad", "child", "pregnant"],
            weights=[17, 19, 15, 12, 10, 17, 10])[0]
        self._places()
        self._people()
        self._hospitals()
        self._numbers()
        self.topic = self._topic()
        # habits
        self.cn = self.persona == "elderly" and r.random() < 0.6
        self.runon = {"elderly": 0.55, "migrant": 0.7, "parent": 0.2, "student": 0.25, "abroad": 0.05,
                      "child": 0.1, "pregnant": 0.15}[self.persona]
        self.emoji = {"elderly": 0.1, "migrant": 0.15, "parent": 0.55, "student": 0.5, "abroad": 0.2,
                      "child": 0.15, "pregnant": 0.4}[self.persona]
        self.fullwidth = r.random() < (0.3 if self.persona == "elderly" else 0.04)
        self.ascii_doc = r.random() < 0.3
        self.doc_style = r.choice(["terse", "between", "template", "warm"])

    # --- random helpers -------------------------------------------------------------------------
    def ch(self, seq):
        return seq[self.r.randrange(len(seq))]

    def p(self, x):
        return self.r.random() < x

    def digits(self, n):
        return "".join(str(self.r.randrange(10)) for _ in range(n))

    # --- case ------------------------------------------------------------------------------------
    def _places(self):
        r = self.r
        self.prov = self.ch(_PROVINCES)
        self.city, counties = self.ch(self.prov[3])
        self.county = self.ch(counties)
        self.town = self._town()
        self.village = self._village()
        self.road = self.ch(_ROADS) if self.p(0.5) else self.ch(_PLACE_A) + self.ch(_PLACE_B) + self.ch(["路", "街", "大道"])
        self.compound = self.ch(_COMPOUND_A) + self.ch(_COMPOUND_B)
        self.urban = r.random() < 0.5
        # a second province/city where the writer (or a child) works or studies
        self.wprov = self.ch(_PROVINCES)
        self.wcity, wcounties = self.ch(self.wprov[3])
        self.wcounty = self.ch(wcounties)
        self.wtown = self._town()

    def _town(self):
        base = self.ch(_TOWN_FIXED) if self.p(0.5) else self.ch(_PLACE_A) + self.ch(_PLACE_B)
        return base + self.ch(["镇", "镇", "乡", "街道"])

    def _village(self):
        n = self.r.randint(2, 3)
        base = "".join(self.ch(_PLACE_A) for _ in range(n - 1)) + self.ch(_PLACE_B)
        suf = self.ch(["村", "村", "村", "庄", "屯", "寨"])
        return base + ("村" if base[-1] in "庄屯寨" else suf)

    def surname(self):
        x = self.r.random()
        if x < 0.06:
            return self.ch(_RARE_SURNAMES)
        if x < 0.08:
            return self.ch(_COMPOUND_SURNAMES)
        n = len(_COMMON_SURNAMES)
        # rough Zipf: index drawn with density falling with rank
        i = int(n * (self.r.random() ** 2.2))
        return _COMMON_SURNAMES[min(i, n - 1)]

    def given(self, gen, sex):
        if self.p(0.55):
            return self.ch(_GIVEN[(gen, sex)])
        chars = _GIVEN_CHARS[(gen, sex)]
        if self.p(0.25):
            return self.ch(chars)
        a, b = self.ch(chars), self.ch(chars)
        return a + b if a != b else a + self.ch(chars[::-1])

    def person(self, gen, sex=None, sur=None):
        sex = sex or self.ch(["m", "f"])
        if sur is None and self.p(0.04 if gen != "young" else 0.02):
            return _Person(None, None, sex, gen, full=self.ch(_MINORITY))
        return _Person(sur or self.surname(), self.given(gen, sex), sex, gen)

    def _people(self):
        r = self.r
        ps = self.persona
        fam = self.surname()
        if ps == "elderly":
            self.patient = self.person("old", sur=fam if self.p(0.5) else None)
            self.age = r.randint(60, 88)
            self.writer_kin = ""
        elif ps == "parent":
            self.patient = self.person("young", sur=fam)
            self.age_months = r.choice([r.randint(1, 11), r.randint(12, 168)])
            self.age = self.age_months // 12
            self.writer_kin = self.ch(["我家", "我儿子", "我女儿", "我闺女", "我家娃", "我家宝宝", "我家崽",
                                       "我家囡囡", "二宝", "大宝", "孩子"])
        elif ps in ("migrant", "abroad", "pregnant"):
            self.patient = self.person("mid" if self.p(0.6) else "young", sex="f" if ps == "pregnant" else None)
            self.age = r.randint(22, 48)
            self.writer_kin = ""
        elif ps == "student":
            self.patient = self.person("young")
            self.age = r.randint(16, 26)
            self.writer_kin = ""
        else:  # child writing for a parent
            self.patient = self.person("old", sur=fam)
            self.age = r.randint(55, 90)
            self.writer_kin = self.ch(
                (["我爸", "我父亲", "俺爹", "我老汉儿", "我阿爸", "我家老爷子", "我公公", "我岳父", "我爷爷", "我姥爷"]
                 if self.patient.sex == "m" else
                 ["我妈", "我母亲", "俺娘", "我老妈", "我婆婆", "我丈母娘", "我外婆", "我奶奶", "我姥姥", "我阿嬷"]))
        # relatives with kinship words, from the writer's point of view
        kins = {
            "elderly": [("俺闺女", "mid", "f"), ("俺儿", "mid", "m"), ("我大儿子", "mid", "m"), ("我小女儿", "mid", "f"),
                        ("我儿媳妇", "mid", "f"), ("我女婿", "mid", "m"), ("我孙子", "young", "m"),
                        ("我外孙女", "young", "f"), ("俺家老头子", "old", "m"), ("我老伴", "old", None)],
            "parent": [("孩子他爸", "mid", "m"), ("孩子他妈", "mid", "f"), ("我老公", "mid", "m"), ("我婆婆", "old", "f"),
                       ("孩子奶奶", "old", "f"), ("孩子姥姥", "old", "f"), ("他姐姐", "young", "f"), ("哥哥", "young", "m")],
            "migrant": [("我老婆", "mid", "f"), ("我媳妇", "mid", "f"), ("我老公", "mid", "m"), ("我弟", "mid", "m"),
                        ("我姐", "mid", "f"), ("我表哥", "mid", "m"), ("我娘", "old", "f"), ("我儿子", "young", "m")],
            "student": [("我妈", "mid", "f"), ("我爸", "mid", "m"), ("我姐", "young", "f"), ("我表弟", "young", "m"),
                        ("我男朋友", "young", "m"), ("我女朋友", "young", "f")],
            "abroad": [("my mom", "old", "f"), ("my dad", "old", "m"), ("我先生", "mid", "m"), ("我太太", "mid", "f"),
                       ("我妹妹", "mid", "f"), ("my sister", "mid", "f")],
            "child": [("我哥", "mid", "m"), ("我姐", "mid", "f"), ("我弟", "mid", "m"), ("我妹", "mid", "f"),
                      ("我爱人", "mid", None), ("我舅舅", "old", "m"), ("我小姨", "mid", "f")],
            "pregnant": [("我老公", "mid", "m"), ("我婆婆", "old", "f"), ("我妈", "old", "f"), ("我闺蜜", "young", "f"),
                         ("大宝", "young", None)],
        }[ps]
        r.shuffle(kins)
        self.rels = []
        for kin, gen, sex in kins[:3]:
            same = kin in ("俺儿", "我大儿子", "我孙子", "孩子他爸", "我弟", "我儿子", "我哥", "我爸", "哥哥", "我表哥")
            self.rels.append((kin, self.person(gen, sex=sex, sur=fam if same and self.p(0.7) else None)))
        # people around
        self.neighbor = self.person(self.ch(["old", "mid"]))
        self.coworker = self.person(self.ch(["mid", "young"]))
        self.foreman = self.person("mid", sex="m")
        self.teacher = self.person(self.ch(["mid", "young"]))
        self.roommate = self.person("young")
        self.boss = self.person("mid")
        self.vdoc = self.person("old", sex="m")
        self.prevdoc = self.person(self.ch(["mid", "old"]))
        self.doc = self.person(self.ch(["mid", "mid", "old"]))
        self.colleague = self.person("mid")
        self.nurse = self.person(self.ch(["young", "mid"]), sex="f")
        self.sex = self.patient.sex

    def _hospitals(self):
        pshort = self.prov[1]
        cands = [h for h in _FAMOUS if h[0] == pshort]
        self.famous = self.ch(cands) if cands and self.p(0.7) else self.ch(_FAMOUS)
        self.famous2 = self.ch(_FAMOUS)
        cs = self.city[:-1] if self.city.endswith("市") else self.city
        self.cityshort = cs
        cm = cs + "市" if self.city.endswith("市") else cs  # 周口市 / 大理州 / 喀什地区
        self.countyshort = self.county[:-1] if len(self.county) > 2 and self.county[-1] in "县区市旗镇" else self.county
        k = self.ch(["一", "二", "三", "四", "五"])
        self.cityhosp = self.ch([
            (cm + "第" + k + "人民医院", [cm + k + "院", cs + k + "院", "市" + k + "院"]),
            (cm + "中心医院", [cs + "中心医院", cm + "中心医院"]),
            (cm + "中医院", [cs + "中医院", "市中医院"]),
            (cm + "妇幼保健院", [cs + "妇幼", "市妇幼"]),
            (cm + "儿童医院", [cs + "儿童医院", "市儿童医院"]),
        ]) if self.city not in ("北京市", "天津市", "上海市", "重庆市") else (
            self.county + "医院", [self.county + "医院"])
        self.countyhosp = self.ch([
            (self.county + "人民医院", [self.county + "医院", self.countyshort + "县医院" if self.county.endswith("县") else self.county + "医院"]),
            (self.county + "中医院", [self.countyshort + "中医院"]),
            (self.county + "妇幼保健院", [self.countyshort + "妇幼"]),
        ])
        self.townhc = self.town.replace("街道", "") + ("卫生院" if not self.town.endswith("街道") else "社区卫生服务中心")
        self.villclinic = self.village + "卫生室"
        self.clinic = self.ch([self.surname() + "氏诊所", self.person("mid").full + "诊所",
                               self.ch(_COMPOUND_A) + "诊所", self.ch(_CHAINS)])

    def _numbers(self):
        r = self.r
        self.mobile = self.ch(["13", "15", "18", "17", "19", "14", "16"]) + str(r.randrange(10)) + self.digits(8)
        self.mobile2 = self.ch(["13", "15", "18", "17", "19"]) + str(r.randrange(10)) + self.digits(8)
        self.base = datetime.date(2022, 1, 1) + datetime.timedelta(days=r.randrange(1400))
        by = self.base.year - self.age
        birth = datetime.date(by, r.randint(1, 12), r.randint(1, 28))
        self.birth = birth
        region = self.prov[2] + "%02d%02d" % (r.randint(1, 18), r.randint(1, 30))
        body = region + birth.strftime("%Y%m%d") + self.digits(3)
        self.idno = body + _id_check(body)
        pys = [x for x in _PY_SUR]
        s, spy = self.ch(pys)
        g, gpy = self.ch(_PY_GIVEN)
        self.pyname = (s + g, spy + " " + gpy, spy.lower() + gpy.lower())

    def _topic(self):
        ps = self.persona
        if ps == "parent":
            return self.ch(["fever", "cough", "diarrhea", "rash"])
        if ps == "pregnant":
            return "preg"
        if ps == "student":
            return self.ch(["anxiety", "stomach", "rash", "cough", "thyroid"])
        if ps == "migrant":
            return self.ch(["back", "injury", "stomach", "hbv", "gout"])
        if ps == "abroad":
            return self.ch(["thyroid", "stomach", "heart", "diabetes"])
        return self.ch(["bp", "diabetes", "heart", "knee", "stroke", "kidney", "bp"])

    # --- names ------------------------------------------------------------------------------------
    def nm(self, person, form="full"):
        if person.minority:
            return L(person.full, "NAME")
        if form == "full":
            return L(person.full, "NAME")
        if form == "sur":
            return L(person.sur, "NAME")
        if form == "given":
            return L(person.given if len(person.given) > 1 else person.full, "NAME")
        if form == "nick":
            g = person.given
            c = self.r.random()
            if person.gen == "young" and c < 0.5:
                return L(self.ch(_DOUBLED) if c < 0.4 else self.ch(_LATIN_NICK), "NAME")
            if c < 0.35:
                return L("老" + person.sur, "NAME") if len(person.sur) == 1 else L(person.full, "NAME")
            if c < 0.65:
                return L("小" + g[-1], "NAME")
            if c < 0.8:
                return L("阿" + g[-1], "NAME")
            return L(g[-1] * 2 if len(g) == 1 or self.p(0.5) else g, "NAME")
        return L(person.full, "NAME")

    def anyname(self, person):
        return self.nm(person, self.ch(["full", "full", "given", "nick"]))

    # --- addresses ----------------------------------------------------------------------------------
    def addr_rural(self, depth=None):
        depth = depth or self.r.randint(1, 6)
        bits = []
        if depth >= 6:
            bits.append(self.prov[0] if self.p(0.5) else self.prov[1])
        if depth >= 5 and self.city not in ("北京市", "天津市", "上海市", "重庆市"):
            bits.append(self.city if self.p(0.6) else self.cityshort)
        if depth >= 4:
            bits.append(self.county)
        if depth >= 3:
            bits.append(self.town)
        if depth >= 2:
            bits.append(self.village)
        if depth >= 1 and (depth == 1 or self.p(0.5)):
            bits.append(self.ch(["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]) + "组"
                        if depth > 1 else self.village)
        sep = " " if self.p(0.12) else ""
        return L(sep.join(bits), "ADDRESS")

    def addr_urban(self, depth=None):
        depth = depth or self.r.randint(1, 5)
        bits = []
        if depth >= 5:
            bits.append(self.prov[0] if self.p(0.5) else self.prov[1])
        if depth >= 4 and self.city not in ("北京市", "天津市", "上海市", "重庆市"):
            bits.append(self.city)
        if depth >= 3:
            bits.append(self.county)
        if depth >= 2:
            bits.append(self.road + str(self.r.randint(1, 399)) + "号")
        bits.append(self.compound + self.room())
        sep = " " if self.p(0.1) else ""
        return L(sep.join(bits), "ADDRESS")

    def room(self):
        r = self.r
        c = r.random()
        if c < 0.3:
            return "%d号楼%d单元%d%02d" % (r.randint(1, 30), r.randint(1, 6), r.randint(1, 28), r.randint(1, 4))
        if c < 0.6:
            return "%d栋%d%02d室" % (r.randint(1, 30), r.randint(1, 33), r.randint(1, 6))
        if c < 0.8:
            return "%d-%d-%d%02d" % (r.randint(1, 30), r.randint(1, 6), r.randint(1, 28), r.randint(1, 4))
        return ""

    def home(self):
        return self.addr_urban() if self.urban else self.addr_rural()

    def work_addr(self):
        c = self.r.random()
        wcs = self.wcity
        if c < 0.3:
            return L(wcs.rstrip("市") + self.wcounty, "ADDRESS")
        if c < 0.5:
            return L(self.wcounty + self.wtown, "ADDRESS")
        if c < 0.7:
            park = self.wtown.replace("街道", "").replace("乡", "").replace("镇", "") + self.ch(["工业区", "工业园", "开发区"])
            return L(self.ch([wcs, self.wcounty]) + park, "ADDRESS")
        if c < 0.85:
            return L(wcs, "ADDRESS")
        return L(self.wcounty + self.ch(_ROADS) + "%d号" % self.r.randint(1, 300), "ADDRESS")

    def station(self, home=True):
        cs = (self.cityshort if home else self.wcity.rstrip("市"))
        if cs.endswith("州") and len(cs) > 2:
            pass
        c = self.r.random()
        if c < 0.5:
            return L(cs + self.ch(["东站", "南站", "站", "北站", "西站"]), "ADDRESS")
        if c < 0.8:
            return L((self.countyshort if home else self.wcounty[:-1]) + "汽车站", "ADDRESS")
        return L(cs + "高铁站", "ADDRESS")

    def addr_en(self):
        comp, dist, city = self.ch(_EN_STREETS)
        r = self.r
        return L("Room %d%02d, Building %d, %s, %s, %s" % (r.randint(1, 30), r.randint(1, 4), r.randint(1, 20),
                                                          comp, dist, city), "ADDRESS")

    # --- hospitals ---------------------------------------------------------------------------------
    def h_famous(self, short=None):
        h = self.famous if self.p(0.75) else self.famous2
        if short is None:
            short = self.p(0.55)
        return L(self.ch(h[2]) if short else h[1], "HOSPITAL")

    def h_city(self):
        full, shorts = self.cityhosp
        return L(full if self.p(0.5) else self.ch(shorts), "HOSPITAL")

    def h_county(self):
        full, shorts = self.countyhosp
        return L(full if self.p(0.5) else self.ch(shorts), "HOSPITAL")

    def h_local(self):
        return L(self.ch([self.townhc, self.villclinic, self.clinic]), "HOSPITAL")

    def h_level(self):
        return L(self.ch(_LEVEL_SHORT), "HOSPITAL")

    def h_any(self):
        return self.ch([self.h_famous, self.h_city, self.h_county, self.h_local, self.h_level])()

    def h_en(self):
        cands = [h for h in _FAMOUS if h[3]]
        return L(self.ch(cands)[3], "HOSPITAL")

    # --- dates ------------------------------------------------------------------------------------
    def a_date(self, future=False):
        d = self.base + datetime.timedelta(days=(self.r.randint(1, 60) if future else -self.r.randint(1, 500)))
        return d

    def date(self, future=False, forms=None):
        d = self.a_date(future)
        y, m, dd = d.year, d.month, d.day
        by = self.base.year
        f = self.ch(forms or ["ymd", "ymd2", "iso", "slash", "dot", "dot2", "compact", "md", "md2", "mdot",
                              "rel", "ym", "cn", "cnmd", "lunar", "relmonth", "en"])
        if f == "ymd":
            return L("%d年%d月%d日" % (y, m, dd), "DATE")
        if f == "ymd2":
            return L("%d年%d月%d号" % (y, m, dd), "DATE")
        if f == "iso":
            return L("%d-%02d-%02d" % (y, m, dd), "DATE")
        if f == "slash":
            return L("%d/%d/%d" % (y, m, dd), "DATE")
        if f == "dot":
            return L("%d.%d.%d" % (y, m, dd), "DATE")
        if f == "dot2":
            return L("%02d.%d.%d" % (y % 100, m, dd), "DATE")
        if f == "compact":
            return L("%d%02d%02d" % (y, m, dd), "DATE")
        if f == "md":
            return L("%d月%d号" % (m, dd), "DATE")
        if f == "md2":
            return L("%d月%d日" % (m, dd), "DATE")
        if f == "mdot":
            return L("%d.%d号" % (m, dd), "DATE")
        if f == "rel":
            pre = "今年" if y == by else ("去年" if y == by - 1 else "%d年" % y)
            return L("%s%d月%d号" % (pre, m, dd), "DATE")
        if f == "ym":
            return L(("%d年%d月" % (y, m)) if self.p(0.6) else ("去年%d月" % m if y == by - 1 else "%d年%d月" % (y, m)),
                     "DATE")
        if f == "cn":
            return L("%s年%s月%s日" % (_cn_year(y), _cn_num(m), _cn_num(dd)), "DATE")
        if f == "cnmd":
            return L("%s月%s号" % (_cn_num(m), _cn_num(dd)), "DATE")
        if f == "lunar":
            s = self.ch(_LUNAR_M) + self.ch(_LUNAR_D)
            return L(self.ch(["农历", "阴历", "", ""]) + s, "DATE")
        if f == "relmonth":
            rel = ["这个月", "下个月", "下月"] if future else ["上个月", "这个月", "上月"]
            return L(self.ch(rel) + "%d号" % dd, "DATE")
        if f == "en":
            c = self.r.random()
            if c < 0.35:
                return L("%s %d" % (_EN_MONTH[m - 1], dd), "DATE")
            if c < 0.7:
                return L("%d %s %d" % (dd, _EN_MONTH_FULL[m - 1], y), "DATE")
            return L("%s %d%s" % (_EN_MONTH_FULL[m - 1], dd, {1: "st", 2: "nd", 3: "rd"}.get(dd % 10 if dd not in (11, 12, 13) else 0, "th")), "DATE")
        if f == "day":
            return L("%d号" % dd, "DATE")
        raise ValueError(f)

    def stay(self, which):
        """An admission (0) and then its discharge (1) date, in one written form."""
        if which == 0:
            a = self.a_date()
            self._stay = (a, a + datetime.timedelta(days=self.r.randint(3, 21)), self.ch(["%Y-%m-%d", "%Y年%m月%d日", "%Y/%m/%d"]))
        d = self._stay[which]
        return L(d.strftime(self._stay[2]), "DATE")

    def day_only(self):
        return L("%d号" % self.a_date(future=self.p(0.5)).day, "DATE")

    # --- numbers ------------------------------------------------------------------------------------
    def phone(self, which=None):
        m = which or self.mobile
        c = self.r.random()
        if self.cn and c < 0.3:
            return L("".join(_CN_DIGIT_PHONE[int(x)] for x in m), "PHONE")
        if c < 0.45:
            return L(m, "PHONE")
        if c < 0.6:
            return L("%s-%s-%s" % (m[:3], m[3:7], m[7:]), "PHONE")
        if c < 0.75:
            return L("%s %s %s" % (m[:3], m[3:7], m[7:]), "PHONE")
        if c < 0.85:
            return L("+86 " + m if self.p(0.5) else "+86" + m, "PHONE")
        return L("%s %s" % (m[:3], m[3:]), "PHONE")

    def landline(self):
        ac = self.ch(_AREA_CODES)
        n = self.digits(8 if len(ac) == 3 else 7)
        n = str(self.r.randint(2, 8)) + n[1:]
        ext = ("转" + self.digits(self.r.randint(3, 4))) if self.p(0.2) else ""
        return L(self.ch(["%s-%s", "(%s)%s", "%s %s", "%s%s"]) % (ac, n) + ext, "PHONE")

    def id_k(self):
        i = self.idno
        c = self.r.random()
        if c < 0.15:
            i = "%s %s %s" % (i[:6], i[6:14], i[14:])
        if i.endswith("X") and self.p(0.3):
            i = i[:-1] + "x"
        return L(i, "ID")

    def email(self, pyname=None):
        py = pyname or self.pyname[2]
        c = self.r.random()
        if c < 0.3:
            return L(self.digits(self.r.randint(6, 10)).lstrip("0") + "@qq.com", "EMAIL")
        user = self.ch([py, py + self.digits(self.r.randint(2, 4)), py[:3] + "_" + self.digits(4),
                        py + str(self.birth.year)])
        dom = self.ch(["163.com", "126.com", "gmail.com", "outlook.com", "sina.com", "foxmail.com", "hotmail.com",
                       "stu.xjtu.edu.cn", "mail.ustc.edu.cn", "yeah.net", "139.com"])
        at = "@" if self.p(0.9) else self.ch(["#", "(at)", " at "])
        return L(user + at + dom, "EMAIL")

    def wechat(self):
        c = self.r.random()
        if c < 0.3:
            return L("wxid_" + "".join(self.ch("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(12)), "URL")
        if c < 0.6:
            return L(self.pyname[2] + self.digits(self.r.randint(2, 6)), "URL")
        if c < 0.8:
            return L(self.mobile, "URL")
        return L(self.ch(["abc", "lucky", "sunny", "xiao", "happy", "mumu"]) + "_" + self.digits(5), "URL")

    def qq(self):
        return L(str(self.r.randint(10000, 3999999999)), "URL")

    def link(self):
        c = self.r.random()
        if c < 0.4:
            return L("https://" + self.ch(["mp.weixin.qq.com/s/", "v.douyin.com/", "xhslink.com/a/", "dwz.cn/",
                                             "t.cn/", "m.haodf.com/doctor/"]) +
                     "".join(self.ch("ABCDEFGHJKMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789") for _ in range(8)), "URL")
        if c < 0.7:
            return L("https://www." + self.ch(["haodf.com/doctor/", "guahao.com/expert/", "ixigua.com/"]) +
                     self.digits(9), "URL")
        return L(self.ch(["www.", ""]) + self.pyname[2] + self.ch([".cn", ".com", ".net"]), "URL")

    def mrn(self, cue=None):
        cue = cue or self.ch(["门诊号", "住院号", "病案号", "病历号", "ID号", "就诊卡号", "医保卡号", "建档号",
                              "条码号", "标本号", "报告编号", "影像号", "病理号", "登记号", "卡号"])
        c = self.r.random()
        if cue == "病理号":
            n = self.ch(["", "B", "S"]) + str(self.base.year)[2:] + "-" + self.digits(5)
        elif cue == "影像号":
            n = self.ch(["CT", "MR", "DR", "US"]) + self.digits(8)
        elif c < 0.5:
            n = self.digits(self.r.randint(6, 10))
        elif c < 0.8:
            n = str(self.base.year) + self.digits(self.r.randint(4, 8))
        else:
            n = self.ch(["M", "Z", "A", "P", "0000"]) + self.digits(self.r.randint(6, 9))
        return P(cue + self.ch(["：", ":", " ", "是", ""])) + L(n, "MRN")

    def order(self, cue=None):
        cue = cue or self.ch(["订单号", "挂号单号", "预约号", "处方号", "交易单号", "商户单号", "问诊单号", "快递单号",
                              "退款单号", "预约码", "转诊单号", "运单号"])
        if cue in ("快递单号", "运单号"):
            n = self.ch(["SF", "YT", "JD", "ZTO", "YD"]) + self.digits(12)
        elif cue in ("交易单号", "商户单号"):
            n = "42000" + self.digits(23)
        elif cue == "预约码":
            n = self.digits(self.r.choice([6, 8]))
        else:
            n = self.ch(["", "", "GH", "CF", "WZ", "DD"]) + str(self.base.year) + self.digits(self.r.randint(6, 12))
        return P(cue + self.ch(["：", ":", " ", "是"])) + L(n, "ORDER_ID")

    # --- keep -------------------------------------------------------------------------------------
    def age_k(self):
        if self.persona == "parent":
            if self.age_months < 12:
                return L("%d个月" % self.age_months if not self.cn else _cn_num(self.age_months) + "个月", "age")
            if self.age < 3 and self.p(0.4):
                return L("%d岁半" % self.age, "age")
            return L("%d岁" % self.age, "age")
        if self.cn:
            return L(_cn_num(self.age) + "岁", "age")
        return L("%d岁" % self.age if self.p(0.85) else "%d周岁" % self.age, "age")

    def dur(self, short=False):
        if short or self.persona == "parent":
            if self.cn or self.p(0.4):
                return L(self.ch(["三天", "两周", "半个月", "十来天", "两三天", "一礼拜", "四五天", "一个月"]), "duration")
            return L("%d%s" % (self.r.randint(2, 14), self.ch(["天", "天", "周"])), "duration")
        if self.cn or self.p(0.3):
            return L(self.ch(["三天", "两周", "半个月", "一个多月", "半年", "十来天", "好几年", "两三天", "一年多",
                              "三四个月", "七八年", "一礼拜"]), "duration")
        return L("%d%s" % (self.r.randint(2, 20), self.ch(["天", "周", "个月", "年", "个多月", "天"])),
                 "duration")

    def dose(self):
        return L(self.ch(["5mg", "10mg", "20mg", "25mg", "47.5mg", "0.5g", "1片", "半片", "2粒", "10ml", "5毫升",
                          "8单位", "12单位", "1袋", "两片", "100mg", "0.25g", "75mg", "50μg", "1支"]), "dose")

    def lab(self):
        r = self.r
        t = self.topic
        pools = {
            "bp": ["血钾%.1fmmol/L" % r.uniform(3.1, 5.2), "肌酐%dμmol/L" % r.randint(60, 160),
                   "总胆固醇%.2fmmol/L" % r.uniform(4, 7.5), "低密度脂蛋白%.2f" % r.uniform(2, 4.9)],
            "diabetes": ["空腹血糖%.1fmmol/L" % r.uniform(5.5, 14), "糖化血红蛋白%.1f%%" % r.uniform(5.8, 11),
                         "餐后2小时血糖%.1f" % r.uniform(8, 20), "尿糖3+"],
            "heart": ["肌钙蛋白%.3fng/ml" % r.uniform(0, 0.5), "BNP %dpg/ml" % r.randint(50, 2000),
                      "LDL-C %.2fmmol/L" % r.uniform(1.5, 4.5), "射血分数%d%%" % r.randint(35, 68)],
            "knee": ["血沉%dmm/h" % r.randint(5, 60), "C反应蛋白%.1fmg/L" % r.uniform(1, 40),
                     "尿酸%dμmol/L" % r.randint(300, 600)],
            "stroke": ["同型半胱氨酸%.1fμmol/L" % r.uniform(8, 30), "甘油三酯%.2f" % r.uniform(1, 5),
                       "斑块%.1fmm×%.1fmm" % (r.uniform(5, 20), r.uniform(1, 4))],
            "kidney": ["肌酐%dμmol/L" % r.randint(90, 500), "尿蛋白2+", "尿素氮%.1fmmol/L" % r.uniform(5, 20),
                       "结石%dmm" % r.randint(3, 15)],
            "fever": ["白细胞%.1f×10^9/L" % r.uniform(3, 22), "CRP %dmg/L" % r.randint(1, 80),
                      "中性粒细胞%d%%" % r.randint(30, 90), "淋巴细胞%.1f%%" % r.uniform(10, 60)],
            "cough": ["白细胞%.1f" % r.uniform(4, 18), "支原体抗体1:%d" % r.choice([80, 160, 320]),
                      "嗜酸性粒细胞%.1f%%" % r.uniform(1, 12)],
            "diarrhea": ["大便白细胞%d个/HP" % r.randint(0, 20), "轮状病毒阳性", "血钠%dmmol/L" % r.randint(128, 146)],
            "rash": ["IgE %dIU/ml" % r.randint(50, 900), "嗜酸性粒细胞%.1f%%" % r.uniform(1, 12)],
            "preg": ["血红蛋白%dg/L" % r.randint(90, 135), "孕酮%.1fng/ml" % r.uniform(10, 40),
                     "HCG %d" % r.randint(2000, 90000), "OGTT空腹%.1f" % r.uniform(4, 6.5), "NT %.1fmm" % r.uniform(1, 3)],
            "anxiety": ["TSH %.2fmIU/L" % r.uniform(0.5, 6), "心率变异%dms" % r.randint(20, 80)],
            "stomach": ["幽门螺杆菌C13 %.1f" % r.uniform(1, 40), "胃蛋白酶原I %.1fng/ml" % r.uniform(30, 150)],
            "thyroid": ["TSH %.2fmIU/L" % r.uniform(0.01, 12), "FT4 %.1fpmol/L" % r.uniform(8, 30),
                        "TPOAb %dIU/ml" % r.randint(5, 600), "结节%.1fcm×%.1fcm" % (r.uniform(0.3, 2.5), r.uniform(0.3, 2))],
            "back": ["椎间盘突出%dmm" % r.randint(3, 8), "血沉%dmm/h" % r.randint(5, 40)],
            "injury": ["血红蛋白%dg/L" % r.randint(90, 150), "伤口%dcm" % r.randint(2, 10)],
            "hbv": ["HBV-DNA %.1e IU/ml" % r.uniform(100, 1e7), "ALT %dU/L" % r.randint(20, 300),
                    "谷丙转氨酶%dU/L" % r.randint(20, 300), "AFP %.1fng/ml" % r.uniform(1, 30)],
            "gout": ["尿酸%dμmol/L" % r.randint(420, 700), "肌酐%d" % r.randint(60, 130)],
        }
        return L(self.ch(pools[t]), "lab")

    def vital(self):
        r = self.r
        t = self.topic
        if t in ("fever", "cough", "diarrhea", "rash") or (t in ("injury",) and self.p(0.3)):
            c = self.r.random()
            if c < 0.5:
                return L(self.ch(["体温%.1f℃", "烧到%.1f度", "体温%.1f度", "%.1f℃"]) % r.uniform(37.3, 40.2), "vital")
            return L(self.ch(["体重%.1fkg" % r.uniform(3, 40), "心率%d次/分" % r.randint(90, 160),
                              "血氧%d%%" % r.randint(90, 99)]), "vital")
        c = r.random()
        if c < 0.55:
            sys_, dia = r.randint(110, 190), r.randint(65, 115)
            return L(self.ch(["血压%d/%dmmHg", "血压%d/%d", "BP %d/%d", "高压%d低压%d"]) % (sys_, dia), "vital")
        return L(self.ch(["心率%d次/分" % r.randint(50, 120), "体重%dkg" % r.randint(45, 95),
                          "脉搏%d" % r.randint(55, 110), "体温%.1f℃" % r.uniform(36, 38.5),
                          "血氧%d%%" % r.randint(88, 99), "身高%dcm" % r.randint(150, 185)]), "vital")

    def time(self):
        r = self.r
        c = r.random()
        if c < 0.35:
            return L(self.ch(["昨天", "前天", "今天早上", "上周", "前几天", "今早", "昨晚", "大前天", "上礼拜",
                              "三天前", "上个月", "这两天"]), "time")
        if c < 0.6:
            return L(self.ch(["下午%d点" % r.randint(1, 6), "凌晨%d点" % r.randint(1, 5), "晚上%d点多" % r.randint(7, 11),
                              "%d:%02d" % (r.randint(7, 22), r.choice([0, 15, 30, 45])), "上午%d点" % r.randint(8, 11)]),
                     "time")
        if c < 0.8:
            return L(self.ch(["%d年" % r.randint(2005, 2023), "%d月份" % r.randint(1, 12), "前年", "去年"]), "time")
        return L(self.ch(["周一", "周三", "周五", "星期二", "星期四", "礼拜六", "周末"]), "time")


# ----------------------------------------------------------------------------------------------------
# templates: "{slot}" resolved by _Msg.slot; plain text otherwise
# ----------------------------------------------------------------------------------------------------

_SLOT = re.compile(r"\{(\w+)\}")


class _Msg:
    def __init__(self, w: _Writer):
        self.w = w

    def render(self, tpl):
        out = []
        bits = _SLOT.split(tpl)
        for i, b in enumerate(bits):
            if i % 2 == 0:
                if b:
                    out.append((b, None))
            else:
                out.extend(self.slot(b))
        return out

    def slot(self, name):
        w = self.w
        pt = w.patient
        rel = w.ch(w.rels)
        table = {
            # people
            "pname": lambda: w.nm(pt),
            "psur": lambda: w.nm(pt, "sur"),
            "pgiven": lambda: w.nm(pt, "given"),
            "pnick": lambda: w.nm(pt, "nick"),
            "rel": lambda: P(rel[0]) + w.nm(rel[1], w.ch(["full", "full", "given", "nick"])),
            "rel_full": lambda: P(rel[0]) + w.nm(rel[1]),
            "relname": lambda: w.anyname(rel[1]),
            "neighbor": lambda: (P(w.ch(["隔壁", "邻居", "对门", "楼下", "村里"])) +
                                 w.ch([lambda: w.nm(w.neighbor, "sur") + P(w.ch(["婶", "大爷", "奶奶", "叔", "姨", "大姐", "嫂子"])),
                                       lambda: w.nm(w.neighbor) + P(w.ch(["", "家", "他们家"])),
                                       lambda: w.nm(w.neighbor, "nick")])()),
            "coworker": lambda: P(w.ch(["工友", "同事", "一起干活的", "老乡", "室友"])) + w.anyname(w.coworker),
            "foreman": lambda: P(w.ch(["拉长", "班长", "包工头", "组长", "车间主任"])) + w.nm(w.foreman, w.ch(["nick", "full", "given"])),
            "foreman_t": lambda: w.nm(w.foreman, "sur") + P(w.ch(["工", "总", "老板", "经理", "师傅"])),
            "teacher": lambda: P(w.ch(["幼儿园", "班主任", "托班的"] if w.persona == "parent" else ["辅导员", "班主任", "导师"])) + w.nm(w.teacher, "sur") + P("老师"),
            "teacher_full": lambda: w.nm(w.teacher) + P("老师"),
            "roommate": lambda: P(w.ch(["室友", "同学", "舍友", "同桌"])) + w.anyname(w.roommate),
            "classmate": lambda: P(w.ch(["班上的", "同班的", "一个班的"])) + w.nm(w.roommate, w.ch(["full", "nick", "given"])),
            "boss": lambda: w.ch([lambda: P(w.ch(["领导", "老板", "my boss ", "主管"])) + w.nm(w.boss, w.ch(["full", "nick"])),
                                  lambda: P(w.ch(["我们", "公司的", ""])) + w.nm(w.boss, "sur") + P(w.ch(["总", "经理", "姐", "哥"]))])(),
            "vdoc": lambda: w.ch([lambda: P(w.ch(["村医", "村里的医生", "卫生室的", "村里赤脚医生"])) + w.nm(w.vdoc, w.ch(["nick", "full"])),
                                  lambda: P(w.ch(["村里的", "卫生室的", ""])) + w.nm(w.vdoc, "sur") + P(w.ch(["大夫", "医生", "先生"]))])(),
            "prevdoc": lambda: w.ch([lambda: w.nm(w.prevdoc, "sur") + P(w.ch(["医生", "大夫", "主任", "教授", "院长"])),
                                     lambda: w.nm(w.prevdoc) + P(w.ch(["医生", "主任", "教授", "大夫", ""]))])(),
            "doc": lambda: w.nm(w.doc, w.ch(["sur", "full"])) + P(w.ch(["医生", "大夫", "主任", "教授"])),
            "docfull": lambda: w.nm(w.doc),
            "docsur": lambda: w.nm(w.doc, "sur"),
            "colleague": lambda: w.ch([lambda: w.nm(w.colleague, "sur") + P(w.ch(["主任", "教授", "医生", "老师"])),
                                       lambda: w.nm(w.colleague) + P(w.ch(["主任", "副主任", "教授", "医生"]))])(),
            "nurse": lambda: P(w.ch(["护士", "助理", "随访护士", "科室秘书"])) + w.nm(w.nurse, w.ch(["full", "sur", "nick"])) +
                     P(w.ch(["", "", "老师"])),
            "pyname": lambda: L(w.pyname[1], "NAME"),
            "pysur": lambda: L(w.ch(_PY_SUR)[1], "NAME"),
            "anyperson": lambda: w.anyname(w.ch([w.neighbor, w.coworker, w.boss, w.roommate, rel[1]])),
            # places
            "home": lambda: w.home(),
            "home_short": lambda: L(w.ch([w.countyshort if w.county.endswith("县") else w.county, w.cityshort,
                                          w.county, w.town, w.village]), "ADDRESS"),
            "city": lambda: L(w.ch([w.cityshort, w.city]) if w.city not in ("北京市", "天津市", "上海市", "重庆市")
                              else w.prov[1] + w.county, "ADDRESS"),
            "county": lambda: L(w.county, "ADDRESS"),
            "cardregion": lambda: L(w.prov[1] + " " + (w.cityshort if w.prov[1] not in _MUNICIPAL else w.county), "ADDRESS"),
            "town": lambda: L(w.ch([w.town, w.county + w.town]), "ADDRESS"),
            "village": lambda: w.addr_rural(w.ch([1, 2, 3])),
            "rural": lambda: w.addr_rural(w.ch([4, 5, 6])),
            "urban": lambda: w.addr_urban(w.ch([3, 4, 5])),
            "full_home": lambda: w.addr_urban(w.ch([4, 5])) if w.urban else w.addr_rural(w.ch([5, 6])),
            "work": lambda: w.work_addr(),
            "wcity": lambda: L(w.ch([w.wcity, w.wcity.rstrip("市")]) if w.wcity not in ("北京市", "天津市", "上海市", "重庆市")
                               else w.wprov[1] + w.wcounty, "ADDRESS"),
            "station": lambda: w.station(True),
            "wstation": lambda: w.station(False),
            "school": lambda: w.ch([
                lambda: L(w.countyshort if w.county.endswith("县") else w.county, "ADDRESS") + P(w.ch(["一中", "二中", "实验中学", "一高", "职高"])),
                lambda: L(w.county, "ADDRESS") + P(w.ch(["第一高级中学", "实验小学", "第三中学", "职业技术学校"])),
                lambda: L(w.wcity, "ADDRESS") + P(w.ch(["的一所大学", "的一个大专", "那边大学"])),
            ])(),
            "addr_en": lambda: w.addr_en(),
            "prov": lambda: P(w.prov[1] if w.prov[1] not in _MUNICIPAL else w.wprov[1] if w.wprov[1] not in _MUNICIPAL else "河南"),
            "dorm": lambda: L(w.ch([w.wcounty, w.wcity.rstrip("市")]) +
                              w.ch(["学生公寓", "研究生公寓", "学生宿舍"] if w.persona == "student" else ["厂区宿舍", "员工宿舍", "城中村"]) +
                              "%d栋%d号" % (w.r.randint(1, 12), w.r.randint(101, 620)), "ADDRESS"),
            # hospitals
            "hfam": lambda: w.h_famous(),
            "hfam_full": lambda: w.h_famous(False),
            "hfam_short": lambda: w.h_famous(True),
            "hcity": lambda: w.h_city(),
            "hcounty": lambda: w.h_county(),
            "hlocal": lambda: w.h_local(),
            "htown": lambda: L(w.townhc, "HOSPITAL"),
            "hvill": lambda: L(w.villclinic, "HOSPITAL"),
            "hclinic": lambda: L(w.clinic, "HOSPITAL"),
            "hlevel": lambda: w.h_level(),
            "hany": lambda: w.h_any(),
            "hen": lambda: w.h_en(),
            "dept": lambda: P(w.ch(_DEPTS)),
            "generic": lambda: P(w.ch(_GENERIC_HOSP)),
            # dates
            "date": lambda: w.date(),
            "fdate": lambda: w.date(future=True, forms=["md", "md2", "mdot", "ymd", "iso", "relmonth", "cnmd", "day"]),
            "ndate": lambda: w.date(forms=["ymd", "iso", "slash", "dot", "compact", "ymd2"]),
            "cndate": lambda: w.date(forms=["cn", "cnmd", "lunar", "md", "lunar"]),
            "endate": lambda: w.date(forms=["en", "en", "iso", "slash"]),
            "day": lambda: w.day_only(),
            "adm": lambda: w.stay(0),
            "dis": lambda: w.stay(1),
            "birth": lambda: w.ch([lambda: L("%d年%d月%d日" % (w.birth.year, w.birth.month, w.birth.day), "DATE"),
                                   lambda: L("%d.%d.%d" % (w.birth.year, w.birth.month, w.birth.day), "DATE"),
                                   lambda: L("%d%02d%02d" % (w.birth.year, w.birth.month, w.birth.day), "DATE"),
                                   lambda: L("农历" + w.ch(_LUNAR_M) + w.ch(_LUNAR_D), "DATE")])(),
            "slashday": lambda: L("%d/%d" % (w.a_date(True).month, w.a_date(True).day), "DATE"),
            # numbers
            "phone": lambda: w.phone(),
            "phone2": lambda: w.phone(w.mobile2),
            "landline": lambda: w.landline(),
            "id": lambda: w.id_k(),
            "passport": lambda: L(w.ch(["E", "EA", "EB", "G"]) + w.digits(8 if w.p(0.5) else 7), "ID"),
            "ssn": lambda: P(w.ch(["社保卡号", "社保卡", "社保卡号码是"])) + L(w.digits(9) if w.p(0.5) else w.idno, "ID"),
            "stuid": lambda: P(w.ch(["学号", "学号：", "学号是"])) + L(str(w.base.year - w.r.randint(0, 4)) + w.digits(w.ch([6, 7, 8])), "ID"),
            "staffid": lambda: P(w.ch(["工号", "工号：", "员工号"])) + L(w.ch(["", "A", "SZ"]) + w.digits(w.ch([5, 6, 8])), "ID"),
            "email": lambda: w.email(),
            "wechat": lambda: P(w.ch(["微信", "微信号", "vx", "VX：", "wx:", "威信"])) + w.wechat(),
            "qq": lambda: P(w.ch(["QQ", "qq号", "扣扣"])) + w.qq(),
            "douyin": lambda: P(w.ch(["抖音号", "小红书号", "dy号"])) + L(w.pyname[2] + w.digits(4) if w.p(0.5) else w.digits(10), "URL"),
            "link": lambda: w.link(),
            "mrn": lambda: w.mrn(),
            "mrn_yb": lambda: w.mrn("医保卡号"),
            "mrn_card": lambda: w.mrn(w.ch(["就诊卡号", "卡号", "门诊号"])),
            "mrn_ip": lambda: w.mrn(w.ch(["住院号", "病案号"])),
            "mrn_bare": lambda: L(w.digits(w.r.randint(7, 10)), "MRN"),
            "order": lambda: w.order(),
            "order_reg": lambda: w.order(w.ch(["挂号单号", "预约号", "预约码"])),
            "order_exp": lambda: w.order(w.ch(["快递单号", "运单号"])),
            "order_pay": lambda: w.order(w.ch(["订单号", "交易单号", "问诊单号", "退款单号"])),
            # keep
            "age": lambda: w.age_k(),
            "agebare": lambda: L(str(w.age), "age"),
            "dur": lambda: w.dur(),
            "dose": lambda: w.dose(),
            "lab": lambda: w.lab(),
            "vital": lambda: w.vital(),
            "time": lambda: w.time(),
            "wd": lambda: L(w.ch(["周一", "周二", "周三", "周四", "周五", "星期一", "星期三", "礼拜四"]), "time"),
            # hard negatives
            "brand": lambda: P(w.ch(_BRANDS)),
            "disease": lambda: P(w.ch(_DISEASES)),
            "food": lambda: P(w.ch(_FOODS)),
            "surword": lambda: P(w.ch(_SURWORDS)),
            "namelike": lambda: P(w.ch(_NAMELIKE)),
            "platform": lambda: P(w.ch(_PLATFORMS)),
            "service": lambda: P(w.ch(_SERVICE)),
            "emerg": lambda: P(w.ch(["120", "120", "120急救", "12320问问"])),
            "oldage": lambda: L("%d岁" % w.r.randint(55, 86), "age"),
            "gw": lambda: L(w.ch(["%d周" % w.r.randint(6, 39), "%d周+%d" % (w.r.randint(6, 39), w.r.randint(1, 6)),
                                  "%d周%d天" % (w.r.randint(6, 39), w.r.randint(1, 6))]), "duration"),
            "sdur": lambda: w.dur(short=True),
            "kin": lambda: P(w.writer_kin or "我"),
            "emo": lambda: P(w.ch(_EMOJI)),
            "sym": lambda: P(w.ch(_SYMPTOMS[w.topic])),
            "sex": lambda: P("男" if w.sex == "m" else "女"),
        }
        return table[name]()


_SYMPTOMS = {
    "bp": ["头晕", "后脑勺发紧", "脖子发硬", "眼睛发花", "心慌"],
    "diabetes": ["口干", "老想喝水", "夜尿多", "脚发麻", "瘦了不少"],
    "heart": ["胸口闷", "心口疼", "爬楼喘", "心跳快", "晚上憋醒"],
    "knee": ["膝盖疼", "腿肿", "上下楼疼", "蹲不下去", "关节响"],
    "stroke": ["手麻", "说话不利索", "嘴歪", "走路不稳", "左手没劲"],
    "kidney": ["腰酸", "脚肿", "尿里有泡沫", "小便少", "乏力"],
    "fever": ["发烧", "不吃奶", "哭闹", "手脚冰凉", "嗜睡"],
    "cough": ["咳嗽", "有痰", "喘", "嗓子哑", "夜里咳"],
    "diarrhea": ["拉肚子", "吐奶", "蛋花样便", "尿少", "没精神"],
    "rash": ["起疹子", "痒", "身上红点", "起风团", "脸上脱皮"],
    "preg": ["见红", "肚子发紧", "孕吐", "胎动少", "腿抽筋"],
    "anxiety": ["失眠", "心慌", "焦虑", "注意力不集中", "胸闷"],
    "stomach": ["胃疼", "反酸", "烧心", "胀气", "拉肚子"],
    "thyroid": ["脖子有个包", "怕热", "手抖", "乏力", "心慌"],
    "back": ["腰疼", "腿麻", "弯不下腰", "屁股疼", "久站疼"],
    "injury": ["手被压了", "手指肿", "伤口流脓", "脚扭了", "摔伤"],
    "hbv": ["乏力", "没胃口", "肝区疼", "尿黄", "眼睛黄"],
    "gout": ["脚趾头疼", "脚背肿", "关节红", "走不了路", "痛风发作"],
}

# ---- patient-side templates by persona: identifier-bearing (ID) and clinical (CL) ------------------

_PAT_ID = {
    "elderly": [
        "大夫你好 俺是{home}的 今年{age} {sym}有{dur}了",
        "俺闺女让俺在手机上问问 她叫{relname} 在{wcity}上班 回不来",
        "{rel}说让俺来这上面问 俺不会打字 慢",
        "上回是{prevdoc}给俺看的 在{hcounty} 开的{brand}",
        "{vdoc}说让俺去{hcity}看看 俺不想跑那么远",
        "我的电话{phone} 俺不会打字 有事打电话",
        "喂 大夫 我叫{pname} {age}了 家住{full_home}",
        "药是在{htown}拿的 {brand}一天{dose}",
        "{neighbor}也是这个病 在{hfam}做的手术 你看俺用不用做",
        "我{date}在{hcounty}住了{dur}院 出院带的药吃完了",
        "医保卡号{mrn_bare} 这个能报销不",
        "俺孙子帮我弄的这个 他叫{relname} 电话{phone2}",
        "俺是{prov}的 现在跟{rel}在{wcity}住",
        "{cndate}那天开始{sym} 到现在{dur}了",
        "俺身份证{id} 大夫看看能不能给开个证明",
        "老伴{relname}走了以后俺一个人在{village}住",
        "{day}那天去{htown}量的{vital}",
        "大夫我在{hvill}打了{dur}吊瓶 {vdoc}说是{disease}",
    ],
    "parent": [
        "医生救命{emo}{kin}{pnick}{age} 昨晚{vital}",
        "孩子大名{pname} 出生日期{birth} {sym}{sdur}了",
        "我们住{urban} 离{hfam}远 {hcity}能看吗？",
        "{teacher}说班上{classmate}也是这样 要不要隔离？",
        "孩子爸爸{relname}在外地 他电话{phone2} 您有事可以打他",
        "{date}在{htown}打的疫苗 回来就{sym}",
        "{mrn_card} 昨天在{hcity}{dept}看的 医生说再观察",
        "我们在{hclinic}打了{sdur}针了不见好{emo}",
        "{rel}非要带去{hlocal}推拿 靠谱吗？？",
        "宝宝{pnick}的检查单发你了 {lab}",
        "这是{hcity}的{order_reg} 挂的{colleague}的号",
        "{pnick}妈妈 我是{pname}的妈妈 上次{fdate}复查那个",
        "刚从{station}下车 直接去{hfam}急诊可以吗",
        "我家在{home_short} 镇上只有{htown}",
        "@{relname} 你把孩子{lab}的单子发一下",
    ],
    "migrant": [
        "医生我在{work}打工 {foreman}让我来问问 {sym}{dur}了",
        "老家是{home_short}的 过年回去在{hcounty}查过 说是{disease}",
        "{coworker}也是这个 去{hcity}看了 花了好多钱",
        "下礼拜坐车从{wstation}回{station} 到了直接去{hcounty}行不行",
        "报销要身份证 我的是{id}",
        "{ssn} 这个在外地能用吗",
        "药寄到{work} {pname} {phone}",
        "我住{dorm} 厂里医务室不给开假条",
        "{foreman_t}说工伤要去{hany}鉴定 {date}那天压的手",
        "{rel}在老家{village} 她血压也高 能一起看吗",
        "我{staffid} 厂里要病历 {mrn}",
        "手机号换了 新的{phone2} 微信还是{wechat}",
        "{date}在{hclinic}打的针 收了我八百",
    ],
    "student": [
        "hi医生 我是{school}的学生 {stuid} 校医院让我来问问",
        "{teacher}让我开个证明请假 能写{date}到{fdate}吗",
        "{roommate}也有这个症状 我们宿舍是{dorm}",
        "yysy 最近{sym} 是不是ddl压力大hhh 我在{wcity}读书",
        "我妈{relname}让我问的 她说去{hcity}看看 我在学校回不去",
        "邮箱{email} 报告可以发这吗 thx",
        "dbq 我{date}去{hfam_short}看过 挂的{prevdoc}的号",
        "{rel}说是{disease} 我百度了一下好吓人{emo}",
        "能加个{wechat}吗 有问题再问您",
        "我用的是{platform}上找的您 链接{link}",
        "{roommate}陪我去的{hlocal} 我现在在{town}实习",
        "xswl 我{qq} 您方便的话加一下",
    ],
    "abroad": [
        "Hi doctor, {rel}上周在{hen}做了check, report里说{lab}",
        "my mom {pyname} 今年{oldage}, 住在{city}, 我在国外 can't go back",
        "我的地址是{addr_en}, 药可以寄吗",
        "Dr. {pysur} 建议我们来找您 second opinion",
        "report已经发到你邮箱了 {email} 也是我的",
        "我{endate}回国, 能约{fdate}的号吗",
        "{boss}推荐的您, 说{hfam}的{colleague}也很好",
        "passport number {passport}, 外籍人员能挂号吗",
        "my dad {pyname} 的 {mrn_ip}, 出院日期{ndate}",
        "我住{urban}, 最近的是{hcity}还是{hfam}?",
        "btw我先生{relname}电话{phone2}, 有事call他",
    ],
    "child": [
        "医生您好，{kin}{pname}今年{age}，{date}在{hcounty}查出来{sym}",
        "{kin}在老家{full_home}，我在{wcity}上班，只能线上问",
        "这是{kin}的出院小结，{mrn_ip}，主治是{prevdoc}",
        "{rel}陪着{kin}去的{hfam}，挂的{colleague}的号",
        "{kin}身份证号{id}，医保是{prov}的，能在{hcity}报销吗",
        "老家{vdoc}一直给{kin}开{brand}",
        "{kin}的手机{phone}，老人不会用智能机，您打我的{phone2}",
        "{time}{kin}在{htown}量了{vital}，要紧吗",
        "{kin}{cndate}那天摔了一跤，送到{hcity}拍了片",
        "我们{ndate}做的手术，{hfam}的{prevdoc}做的",
        "{neighbor}推荐的您，说您看{disease}很好",
        "我弟{relname}在{hfam_short}当护士，他说要来找您",
    ],
    "pregnant": [
        "医生您好 孕{gw} 末次月经{date} 在{hcity}建的档 {mrn}",
        "预产期是{fdate} 想转到{hfam}生可以吗",
        "我老公{relname}陪我去的{hlocal} B超医生说{lab}",
        "{rel}让我吃{brand} 孕期能吃吗",
        "我住{urban} 产检在{hcity}{dept}",
        "{date}那次产检{lab} 医生是{prevdoc}",
        "闺蜜{anyperson}推荐的{hclinic}月子中心靠谱吗{emo}",
        "{mrn_card} 复查约在{slashday} 可以吗",
        "我{age} 二胎 大宝{relname}是在{hcounty}剖的",
    ],
}

_PAT_CL = {
    "elderly": [
        "大夫 俺{sym}{dur}了 {time}量了{vital}",
        "{brand}一天吃{dose} 中不中",
        "俺是{prov}人 俺们那吃饭咸 {surword}",
        "孩子们给买的{brand} 说是{platform}上买的 能吃不",
        "{time}吃了药 {vital} 还是{sym}",
        "俺这{disease}是不是治不好了",
        "俺今年{age} 血压高{dur}了 {surword}",
        "头晕的时候要不要打{emerg} 俺家{service}都记不住",
    ],
    "parent": [
        "宝宝{age} {sym}{sdur}了 {vital}{emo}",
        "{brand}吃了{dose} {time}又烧起来了？？",
        "能吃{food}吗 孩子闹着要{emo}",
        "是不是{disease}啊 好担心{emo}",
        "{time}在{generic}查了{lab}",
        "{platform}上说要马上去医院 是吗？？ {surword}",
        "孩子{age}，体重多少合适？现在{vital}",
        "{namelike} 孩子老出汗正常吗",
    ],
    "migrant": [
        "{sym}{dur}了 吃了{brand}也不管用",
        "厂里加班 {time}还在站着 一站十几个小时 腰受不了 {namelike}",
        "我是{prov}的 在这边吃{food}多 是不是这个原因",
        "{generic}说是{disease} 要花多少钱",
        "{time}量了{vital} 正常不",
        "一天{dose}够不够 {surword}",
        "这病能不能干重活 不干没钱 {surword}",
    ],
    "student": [
        "最近{sym} {time}熬夜了 {dur}了",
        "emo了 {lab} 是不是很严重",
        "校医院给开了{brand} {dose} 一天三次 ok吗",
        "{platform}上说是{disease} 真的假的",
        "能吃{food}吗 宿舍楼下就有",
        "{time}体测{vital}",
        "挂号有点麻烦 可以先线上吗 {surword}",
    ],
    "abroad": [
        "最近{sym}, {dur}了, 要不要做个check",
        "report显示{lab}, is it serious?",
        "{brand} {dose}一天一次, 可以继续吗",
        "我家族有{disease}史, worried",
        "{time} 量了{vital}",
        "回国想吃{food}, 能吃吗 lol",
    ],
    "child": [
        "老人{age}，{sym}{dur}了，{time}量{vital}",
        "现在吃的是{brand}，每次{dose}",
        "{time}化验{lab}，需要调药吗",
        "老人是{prov}人，口味重，爱吃{food}",
        "会不会是{disease}？",
        "老人说不想去{generic}，{surword}",
        "要不要打{emerg}？老人不愿意",
    ],
    "pregnant": [
        "孕{gw} {sym} {time}开始的",
        "{lab} 这个正常吗{emo}",
        "孕期可以吃{food}吗",
        "{brand}孕妇能用吗 {dose}",
        "{time}测{vital}",
        "医生说是{disease}可能性小 还要复查吗",
    ],
}

# ---- doctor templates ----------------------------------------------------------------------------

_DOC_ID = [
    "{pgiven}你好，我是{hfam}{dept}{docfull}，你的情况我看了。",
    "{psur}{title_old}您好，建议尽快到{hcity}复查{lab}。",
    "刚下门诊。可以来{hfam}找我，我{wd}上午在{hfam_short}门诊。",
    "这个可以挂我们科{colleague}的号，他看这个更专业。",
    "请把患者姓名、身份证号和手机号发我，我帮你开住院证。",
    "科室电话{landline}，有事上班时间打这个。",
    "已为您预约{fdate}上午的号，{order_reg}，带好身份证。",
    "{date}的片子我看了，{lab}，问题不大。",
    "当地{hcounty}也能做，不用跑{hfam_short}。",
    "复查时间定在{fdate}，到时候{nurse}会联系您。",
    "您可以先到{hlocal}测一下{vital}，结果发我。",
    "{pname}家属你好，报告已出，{mrn}。",
    "处方已开，{order_pay}，药房会寄到您留的地址。",
    "手术中，稍后回复。急事请联系{nurse}，{phone}。",
    "转诊单已经开了，拿着去{hcity}找{colleague}，{order}。",
    "我的出诊时间：{wd}上午（{hfam_full}门诊楼）、{wd}下午（{hlevel}）。",
    "{pname}，{age}，{sym}{sdur}，建议查{lab}。",
    "下次复查带上{hcounty}的{mrn}和以前的片子。",
    "收到。已转给{colleague}，{nurse}会在{fdate}前联系您。",
    "药已寄出，{order_exp}，注意查收。",
    "加一下我们随访号{wechat}，以后在上面问。",
    "复查约在{slashday}，上午8点到{hcity}抽血。",
    "这个科普文章可以看看：{link}",
    "—— {docfull}，{hfam_full}{dept}，{email}",
]
_DOC_CL = [
    "血压控制目标在130/80以下，{brand}每天{dose}，{sdur}后复查。",
    "目前看{lab}，还不用太担心，先观察{sdur}。",
    "建议：1.低盐饮食，{food}之类少吃；2.{brand}{dose}，每日一次；3.{time}复查。",
    "这个不像{disease}，不用紧张。",
    "如果出现胸痛、意识不清，直接打{emerg}。",
    "网上{platform}的说法不一定对，以检查为准。",
    "{vital}偏高，药量加到{dose}。",
    "可以去{generic}先查个{lab}。",
    "注意休息，{sdur}内不要剧烈运动，{namelike}。",
    "{age}这个年纪，{lab}不算高。",
    "嗯，{brand}可以继续吃，{dose}，饭后。",
    "先别急，把{time}的检查结果发我。",
    "好的，{time}门诊结束我再详细回你。",
    "不用专门去{generic}，{sdur}后复查{lab}就行。",
]
_DOC_FORM = [
    "为了更好地帮您，请按以下格式补充：\n1.患者姓名\n2.年龄\n3.现居地\n4.病程\n5.在哪家医院看过\n6.联系电话",
    "请填写：姓名、年龄、所在城市、既往病史、就诊医院",
    "麻烦补充一下信息：①姓名 ②年龄 ③性别 ④住址 ⑤联系方式",
]
_DOC_ASK = [
    "方便留个联系电话吗？",
    "患者叫什么名字？身份证号发一下，我帮忙查报告。",
    "在哪家医院做的检查？",
    "您是哪里人？现在住哪？",
    "门诊号或住院号有吗？",
]


class _Gen:
    def __init__(self, r: random.Random):
        self.r = r

    def consultation(self):
        r = self.r
        w = _Writer(r)
        m = _Msg(w)
        n_turns = r.randint(5, 16)
        msgs = []
        role = "patient"
        pending = None  # a doctor's form or question the patient answers next
        while len(msgs) < n_turns:
            if role == "patient":
                if pending == "form":
                    parts = self.form_answer(w, m)
                elif pending == "ask":
                    parts = self.bare_answer(w, m)
                elif pending == "paste" or (len(msgs) > 0 and r.random() < 0.08):
                    parts = self.paste(w, m)
                else:
                    has_id = r.random() < (0.75 if not msgs else 0.6)
                    pool = (_PAT_ID if has_id else _PAT_CL)[w.persona]
                    parts = m.render(r.choice(pool))
                    if has_id and r.random() < 0.25:
                        parts += P(r.choice(["，", " ", "。", "\n"])) + m.render(r.choice(_PAT_CL[w.persona]))
                    if not has_id and r.random() < 0.2:
                        parts += P(r.choice(["，", " ", "。"])) + m.render(r.choice(_PAT_CL[w.persona]))
                pending = None
                msgs.append(("patient", self.style_patient(w, parts)))
                # a patient often sends two messages in a row
                role = "patient" if r.random() < 0.22 else "doctor"
            else:
                c = r.random()
                if c < 0.1 and len(msgs) < n_turns - 1:
                    parts = P(r.choice(_DOC_FORM))
                    pending = "form"
                elif c < 0.2 and len(msgs) < n_turns - 1:
                    parts = P(r.choice(_DOC_ASK))
                    pending = "ask"
                elif c < 0.25 and len(msgs) < n_turns - 1:
                    parts = P(r.choice(["把检查报告拍照或者复制发我看看。", "出院小结发我一下。", "化验单发我看看"]))
                    pending = "paste"
                elif c < 0.68:
                    t = r.choice(_DOC_ID).replace("{title_old}", r.choice(["阿姨", "大爷", "先生", "女士", "老师"]))
                    parts = m.render(t)
                else:
                    parts_t = r.choice(_DOC_CL)
                    parts = m.render(parts_t)
                    if r.random() < 0.3:
                        parts += m.render(r.choice([t for t in _DOC_CL if t != parts_t]))
                msgs.append(("doctor", self.style_doctor(w, parts)))
                role = "patient"
        return msgs

    # --- special patient moves -------------------------------------------------------------------
    def form_answer(self, w, m):
        r = self.r
        items = [
            m.render("{pname}"), m.render(r.choice(["{agebare}", "{age}"])), m.render(r.choice(["{home}", "{city}", "{home_short}"])),
            m.render("{dur}"), m.render(r.choice(["{hcounty}", "{hcity}", "{hfam}", "{hlocal}"])),
            m.render(r.choice(["{phone}", "{phone}", "{landline}"])),
        ]
        labels = ["姓名：", "年龄：", "住址：", "病程：", "医院：", "电话："]
        style = r.choice(["num", "num", "label", "space", "lines"])
        out = []
        for i, it in enumerate(items):
            if style == "num":
                out += P(("%d." % (i + 1)) if i == 0 else r.choice([" %d." % (i + 1), "，%d." % (i + 1), "\n%d." % (i + 1)]))
            elif style == "label":
                out += P(labels[i] if i == 0 else r.choice(["，", " ", "\n"]) + labels[i])
            elif style == "lines":
                out += P("" if i == 0 else "\n")
            else:
                out += P("" if i == 0 else " ")
            out += it
        return out

    def bare_answer(self, w, m):
        r = self.r
        t = r.choice(["{phone}", "{pname} {phone}", "{phone} {pname}", "{pname}，{id}", "{id} {phone}",
                      "{hcity}", "{mrn}", "{mrn_bare}", "{home}", "{pname} {id} {phone}", "就是{hcounty}",
                      "{home_short}的 现在住{urban}", "{phone} 这个是{rel_full}的"])
        return m.render(t)

    def paste(self, w, m):
        r = self.r
        kind = r.choice(["antenatal", "antenatal", "lab", "rx", "card"] if w.persona == "pregnant"
                        else ["discharge", "lab", "rx", "card"])
        nl = r.choice(["\n", " ", "  "])
        if kind == "discharge":
            t = ("【出院小结】" + nl + "姓名：{pname}" + nl + "性别：{sex}" + nl + "年龄：{age}" + nl + "科室：{dept}" + nl +
                 "床号：%d" % r.randint(1, 60) + nl + "{mrn_ip}" + nl + "入院日期：{adm}" + nl + "出院日期：{dis}" + nl +
                 "出院诊断：{sym}" + nl + "出院医嘱：{brand} {dose} 每日一次；{dur}后{hcity}复查" + nl + "主治医师：{docfull}")
        elif kind == "lab":
            t = ("{hany}检验报告单" + nl + "姓名 {pname}  性别 {sex}  年龄 {age}" + nl + "{mrn}" + nl + "{lab}" + nl + "{lab}" +
                 nl + "采样时间：{ndate} {time}" + nl + "检验者：{anyperson}  审核者：{docfull}")
        elif kind == "rx":
            t = ("{hany} 处方笺" + nl + "{order}" + nl + "姓名：{pname} 年龄：{age}" + nl + "Rp: {brand} {dose}×%d盒" % r.randint(1, 6) +
                 nl + "医师：{docfull} 日期：{ndate}")
        elif kind == "antenatal":
            t = ("孕产妇保健手册" + nl + "姓名：{pname} 出生日期：{birth}" + nl + "现住址：{full_home}" + nl + "丈夫：{relname} 电话：{phone2}"
                 + nl + "末次月经：{date}" + nl + "{mrn}")
        else:
            t = ("[名片] {pname}" + nl + "地区：{cardregion}" + nl + "{wechat}" + nl + "电话：{phone}")
        return m.render(t)

    # --- habits -----------------------------------------------------------------------------------
    def style_patient(self, w, parts):
        r = self.r
        out = []
        runon = r.random() < w.runon
        for text, lab in parts:
            if lab is None:
                if runon:
                    rep = " " if w.persona == "elderly" and r.random() < 0.6 else ""
                    text = re.sub(r"[，。！？、,.!?；]+", rep, text) if "\n" not in text or r.random() < 0.5 else text
                if w.persona == "elderly" and r.random() < 0.3:
                    text = text.replace("什么", "啥").replace("怎么", "咋").replace("医生", "大夫")
                if w.persona == "student" and r.random() < 0.4:
                    text = text.replace("的", "滴", 1).replace("这样", "酱紫").replace("谢谢", "xswl谢谢"[4:])
                if w.persona == "parent" and r.random() < 0.4:
                    text = text.replace("？", "？？？").replace("吗", "吗？")
            out.append((text, lab))
        if r.random() < w.emoji:
            out.append((r.choice(_EMOJI), None))
        if w.fullwidth:
            out = [(_fullwidth(t), lab) for t, lab in out]
        return out

    def style_doctor(self, w, parts):
        r = self.r
        out = []
        for text, lab in parts:
            if lab is None and w.ascii_doc:
                text = text.translate(str.maketrans("，：；（）！？", ",:;()!?"))
            out.append((text, lab))
        if w.doc_style == "between" and r.random() < 0.25:
            out = P(r.choice(["刚下手术，", "门诊间隙简单回一下：", "查房中，简短说：", "[语音转文字] "])) + out
        if w.doc_style == "warm" and r.random() < 0.2:
            out = out + P(r.choice(["祝早日康复！", "有问题随时问。", "别太担心哈"]))
        return out


# ----------------------------------------------------------------------------------------------------
# joining parts into a message
# ----------------------------------------------------------------------------------------------------


def _join(parts):
    # drop empty, split surrounding whitespace out of labelled parts
    clean = []
    for text, lab in parts:
        if not text:
            continue
        if lab is not None:
            s = text.strip()
            lead = text[: len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()):]
            if lead:
                clean.append((lead, None))
            clean.append((s, lab))
            if trail:
                clean.append((trail, None))
        else:
            clean.append((text, None))
    # two identifiers of one category, or two keeps / an identifier and a keep, glued: separate with a space
    fixed = []
    for text, lab in clean:
        if fixed and lab is not None and fixed[-1][1] is not None:
            prev = fixed[-1]
            if prev[1] == lab or (prev[0][-1:].isdigit() and text[:1].isdigit()) or (
                    prev[0][-1:].isascii() and prev[0][-1:].isalnum() and text[:1].isascii() and text[:1].isalnum()):
                fixed.append((" ", None))
        fixed.append((text, lab))
    text = ""
    spans, keep = [], []
    for t, lab in fixed:
        start = len(text)
        text += t
        if lab is None:
            continue
        if lab.isupper():
            spans.append([start, len(text), lab])
        else:
            keep.append([start, len(text), lab])
    # trim the message; offsets shift by the leading trim
    lead = len(text) - len(text.lstrip())
    if lead:
        spans = [[a - lead, b - lead, c] for a, b, c in spans]
        keep = [[a - lead, b - lead, c] for a, b, c in keep]
    text = text.strip()
    return text, spans, keep


def _stream(seed: int):
    r = random.Random(seed)
    g = _Gen(r)
    ci = 0
    while True:
        for role, parts in g.consultation():
            text, spans, keep = _join(parts)
            if not text:
                continue
            yield {"text": text, "role": role, "consultation": ci, "spans": spans, "keep": keep}
        ci += 1


def generate(seed: int, n: int) -> list[dict]:
    out = []
    if n <= 0:
        return out
    for msg in _stream(seed):
        out.append(msg)
        if len(out) >= n:
            break
    return out


def check(msgs) -> None:
    """Raise if a message breaks the format (offsets, edges, overlaps, labels, order)."""
    for i, m in enumerate(msgs):
        t = m["text"]
        if m["role"] not in ("patient", "doctor"):
            raise ValueError(f"{i}: role")
        allspans = [(a, b, c, "s") for a, b, c in m["spans"]] + [(a, b, c, "k") for a, b, c in m["keep"]]
        for a, b, c, k in allspans:
            if not (0 <= a < b <= len(t)):
                raise ValueError(f"{i}: bad offsets {a} {b}")
            if t[a].isspace() or t[b - 1].isspace():
                raise ValueError(f"{i}: whitespace at span edge {t[a:b]!r}")
            if (k == "s" and c not in CATEGORIES) or (k == "k" and c not in KEEP_KINDS):
                raise ValueError(f"{i}: label {c}")
        for lst in (m["spans"], m["keep"]):
            if lst != sorted(lst):
                raise ValueError(f"{i}: unsorted")
        srt = sorted(allspans)
        for x, y in zip(srt, srt[1:], strict=False):
            if y[0] < x[1]:
                raise ValueError(f"{i}: overlap {x} {y}")
    for a, b in zip(msgs, msgs[1:], strict=False):
        if not (b["consultation"] == a["consultation"] or b["consultation"] == a["consultation"] + 1):
            raise ValueError("consultation indices not consecutive")


def corpus_sha256(msgs) -> str:
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify() -> None:
    msgs = generate(0, 3000)
    check(msgs)
    got = corpus_sha256(msgs)
    if got != CORPUS_SHA256:
        raise AssertionError(f"consult_g corpus changed: {got} != {CORPUS_SHA256}")


def _mark(m) -> str:
    t = m["text"]
    marks = [(a, b, c) for a, b, c in m["spans"]] + [(a, b, c.lower()) for a, b, c in m["keep"]]
    marks.sort()
    out, pos = [], 0
    for a, b, c in marks:
        out.append(t[pos:a])
        out.append(("【%s|%s】" if c.isupper() else "〔%s|%s〕") % (t[a:b], c))
        pos = b
    out.append(t[pos:])
    return "".join(out)


def main() -> None:
    msgs = generate(0, 3000)
    check(msgs)
    cat = {c: 0 for c in CATEGORIES}
    kp = {k: 0 for k in KEEP_KINDS}
    for m in msgs:
        for _, _, c in m["spans"]:
            cat[c] += 1
        for _, _, k in m["keep"]:
            kp[k] += 1
    with_id = sum(1 for m in msgs if m["spans"])
    print("messages", len(msgs), "consultations", len({m["consultation"] for m in msgs}))
    print("identifiers", sum(cat.values()), " ".join(f"{c}={cat[c]}" for c in CATEGORIES))
    print("keep", sum(kp.values()), " ".join(f"{k}={kp[k]}" for k in KEEP_KINDS))
    print("messages with an identifier: %.1f %%" % (100.0 * with_id / len(msgs)))
    print("sha256", corpus_sha256(msgs), "(frozen)" if corpus_sha256(msgs) == CORPUS_SHA256 else "(NOT the frozen one)")
    r = random.Random(1)
    for i in sorted(r.sample(range(len(msgs)), 12)):
        print("---", i, msgs[i]["role"], "c%d" % msgs[i]["consultation"])
        print(_mark(msgs[i]))


if __name__ == "__main__":
    main()
    sys.exit(0)
