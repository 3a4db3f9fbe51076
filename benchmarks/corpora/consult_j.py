"""Held-out test corpus J for Chinese text de-identification: consultations held by VOICE.

Provenance: a tenth generator, written blind from the category definitions alone (the ``text.policy``
block of ``conf/deid/default.yaml`` with its comments, and the module docstrings of
``benchmarks/corpora/consult_b.py`` to ``consult_i.py``), without reading the detector, its rules, its
lexicons, its statistical layer, its policy module, the tests, the tools, the benchmark scripts or the code
of the other corpora, and without ever running a detector (or anything from ``medrealmm``) on it.  Frozen:
measurement only, never tuning.  If a rule is changed because of a message in this corpus, the corpus no
longer measures anything; write a new one.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only, no
set/dict iteration order or hash randomisation).  The corpus for seed 0 / 3000 messages is frozen by
``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python
benchmarks/corpora/consult_j.py`` prints the counts per category and keep kind, the share of messages with
an identifier, the number of consultations and a few marked samples (``--verify`` checks the hash).

Each message::

    {"text": str, "role": "patient" | "doctor",
     "consultation": int,                        # index of the consultation; its messages are consecutive
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or a
keep span; no span or keep span starts or ends with whitespace (a span may contain spaces: numbers and
e-mail addresses read out in groups).  ``generate(seed, n)`` returns the first ``n`` messages of an endless
stream of whole consultations, so a shorter corpus is a prefix of a longer one.  An internal check
(``_check``) raises on any broken invariant.  For seed 0 / 3000 messages: 257 consultations, 3843
identifiers, about 60 % of the messages carry an identifier.

Design (unlike B's fixed scenarios, C's slot grammar, D's case-then-turns co-reference, E's per-message case
record, F's platform flows, G's writers with habits, H's regions and I's documents): the consultation is
held by SPEECH.  Two modes per consultation:

* voice messages the platform turned into text (语音转文字): the patient side (patient or a relative)
  speaks, the doctor replies typed or by voice too; ASR-style punctuation (none, commas only, spaces),
  run-on sentences, fillers (嗯, 那个, 就是说, 然后呢, 呃), self-corrections ("幺三八…不对是幺三九…"),
  homophone recognition errors in ordinary words (将压药, 复差, 头包) and in names, places and hospitals
  (李娟 -> 李涓, 郸城 -> 单城, 湘雅 -> 香雅); a tag "[语音转文字]" or a duration "[语音 23秒]" in front
  of some messages;
* transcripts of phone or video consultations (电话问诊 / 视频问诊 记录) with speaker labels (医生： /
  患者： / 家属： / 护士： / 客服：), several turns per message, interruptions (a turn cut with "——"
  and taken over), the doctor confirming details back ("您是说……对吧", "我重复一遍").

Identifiers are given as people say them: mobiles and landlines read digit by digit in Chinese (幺 or
一, 零 / 〇 / 洞, 两 now and then, 拐 for 7 in a few mouths), in 3-4-4 groups, half Arabic half
characters, or as ASR turned them into digits; resident IDs read out with 叉 / X / 埃克斯 for the check
digit; dates spoken (三月十五号, 二四年三月十五, 农历八月初三, 上个月二十号, 去年腊月, 八五年三月十二号
出生); names spelled by component to clarify (弓长张, 立早章, 耳东陈, 木子李, 口天吴, 伟大的伟);
addresses spoken with landmarks and fillers ("金水区那个花园路 就是二七广场往北 建业小区三号楼二单元
五零二"); hospitals by the names people say aloud (华西, 湘雅, 郑大一附院, 三零幺, 市二院, 县中医院);
WeChat IDs and e-mail addresses spelled out letter by letter ("z h a n g 一九八五 at 一六三点com");
record and order numbers read out.  Clinical numbers are spoken as well and are keep spans (血压一百四十五
九十, 空腹血糖七点八, 吃了两片, 六十八岁, 烧到三十八度五).  People: the patient, a relative who speaks for
them, the doctor, a nurse calling back, the platform's customer service; 14 provinces with their cities,
districts and counties, invented towns, villages, roads and compounds, famous and local hospitals.
Hard negatives in the same voices: a province alone, service numbers spoken (幺二零, 一二零, 幺二三二零,
幺幺零), brand medicines (云南白药, 片仔癀, 同仁堂), eponym and place-named diseases (桥本, 帕金森,
川崎病, 香港脚), place-named foods (兰州拉面, 沙县小吃), words beginning with a surname character (马上,
白细胞, 黄疸, 华法林), everyday words that are also names (高峰期, 平安, 国庆), generic forms of address
(大夫, 师傅, 美女, 小姑娘, 阿姨, 老师), generic hospital phrases (当地医院, 县医院, 大医院, 社区医院,
市人民医院, 省人医), chain landmarks (万达广场, 肯德基), platforms, bed and queue numbers (三十二床, 排到八十七号),
clock times and relative days.

Annotation conventions (those of corpora B-I, which define the categories; choices this corpus had to make
are marked "choice"):

* NAME: the name only, never the kinship word, title or speaker label ("我爸【李德明】", "【王】主任",
  "护士【小刘】").  Nicknames with 小/老 and doubled pet names are whole.  Choice: a name the ASR
  misrecognised (【李涓】 for 李娟) is still NAME, one span.  Choice: when a speaker spells a name by its
  components, every spelling phrase is a NAME span of its own ("【张伟】 【弓长张】 【伟大的伟】"), also a
  phrase the speaker denies ("不是【立早章】 是【弓长张】"): the phrase spells the person's name, and
  masking only the character inside it would leave the name readable.  A surname after 姓 ("我姓【张】")
  is NAME.  Generic forms of address (大夫, 师傅, 美女, 阿姨, 小姑娘) are plain; speaker labels are plain.
* PHONE: mobiles and landlines in any spoken form, one span per number even with spaces, commas or
  "…" between the groups.  Choice: in a self-correction the misspoken full number is PHONE too (it differs
  from the real one in one digit); a false start of three digits or fewer ("幺三八…不对") and a corrected
  tail of two digits ("最后两位是八二") are plain: they identify no one.  Service numbers (120, 110, 12320,
  12345, spoken or written) are plain.
* ID: 18-digit resident IDs with a valid GB 11643 check digit, however read out (Chinese digits, Arabic,
  groups, 叉 / X / 埃克斯 for the check digit); the cue outside.
* EMAIL: an address spelled out ("z h a n g w e i 八五 at 一六三 点 com", "艾特", "圈a") is one span from
  its first letter to the end of the domain.  URL: WeChat IDs (spelled, with 下划线 / 杠), QQ numbers and
  links; choice: a mobile given as one's WeChat is URL (corpus D's choice).
* ADDRESS: every unit below the province, alone or chained, spoken with Chinese numerals for buildings and
  rooms; a province in front is inside; a province alone is plain.  Choice: where a filler or a comment
  interrupts a spoken address ("金水区 嗯 那个 花园路") the pieces are separate spans and the filler plain.
  Choice: a landmark named after a place (二七广场, 郑州东站, 五一广场, 春熙路) that locates the person is
  ADDRESS (corpus G's choice for stations); a chain or generic landmark (万达广场, 肯德基, 那个超市,
  小学门口) is plain.  A place name misrecognised by the ASR (单城 for 郸城) is still ADDRESS.
* HOSPITAL: named institutions and the names said aloud (华西, 湘雅二院, 郑大一附院, 三零幺医院, 市二院,
  县中医院, {county}人民医院, {town}卫生院, X氏诊所), misrecognised forms (香雅) included; the department
  after it plain; generic phrases (县医院, 市医院, 省人医, 市人民医院, 当地医院, 大医院, 社区医院) plain.
* DATE: every calendar date finer than a year tied to the person, spoken or written: 三月十五号, 3月15号,
  二零二四年三月十五号, 二四年三月十五, 农历八月初三, 正月十五 (as a birthday), 今年/去年 + month (+ day)
  whole, 去年腊月 (E's choice).  Choice: a day named relative to the current month ("上个月二十号",
  "这个月八号") is one DATE span (corpus G's choice), and so is "二十号那天" (the span is "二十号").
  A year alone (八五年), a month alone (三月份), weekdays, relative days (前天, 上礼拜三) and clock times
  (下午三点) are keep "time".  Festivals plain.
* MRN: 门诊号, 住院号, 病案号, 就诊卡号, 医保卡号, 检查号, 报告编号 read out; bed numbers plain.
  ORDER_ID: platform orders, refunds, payment transactions, 挂号单号, 预约码, courier waybills read out.
  The cue is outside every span.
* Keep: "age" (六十八岁, 68岁, 八个月), "duration" (三天, 半个月, 两年多), "dose" (amount + unit only:
  两片, 一粒, 十毫升, 半片; the frequency plain), "lab" (test + value with its unit when spoken: 空腹血糖
  七点八, 糖化六点九, 肌酐一百二十三), "vital" (sign + value: 血压一百四十五 九十, 高压一百六, 心率一百一,
  体温三十八度五, a bare temperature after 烧到, 体重六十五公斤), "time" (relative days, clock times,
  a year alone, a month alone, weekdays).
* Choice: role.  A voice message is the role of its speaker (patient and relative: "patient"; doctor,
  nurse, customer service: "doctor").  A transcript chunk with several labelled turns takes the role of
  its first speaker.
"""

import hashlib
import json
import random
import sys

CORPUS_SHA256 = "20dacef2306c54d26acc4ee974ef029ea81c2476a31ae158525037c83bd61a33"

# --------------------------------------------------------------------------------------------- pools
# surname, pinyin, spelling phrases said to clarify it, homophone the ASR writes
SURNAMES = (
    ("张", "zhang", ("弓长张",), "章"), ("章", "zhang", ("立早章",), "张"), ("陈", "chen", ("耳东陈",), "沉"),
    ("李", "li", ("木子李",), "里"), ("吴", "wu", ("口天吴",), "无"), ("胡", "hu", ("古月胡",), "湖"),
    ("杨", "yang", ("木易杨",), "阳"), ("徐", "xu", ("双人徐",), "许"), ("许", "xu", ("言午许",), "徐"),
    ("程", "cheng", ("禾呈程",), "成"), ("黄", "huang", ("草头黄", "大肚子黄"), "王"),
    ("王", "wang", ("三横王", "大王的王"), "汪"), ("刘", "liu", ("文刀刘",), "柳"), ("周", "zhou", ("周末的周",), "州"),
    ("林", "lin", ("双木林",), "琳"), ("孙", "sun", ("子小孙",), "森"), ("赵", "zhao", ("走肖赵",), "照"),
    ("何", "he", ("人可何",), "河"), ("高", "gao", ("高低的高",), "郜"), ("马", "ma", ("马路的马",), "麻"),
    ("朱", "zhu", ("朱红的朱",), "诸"), ("罗", "luo", ("四维罗",), "骆"), ("郑", "zheng", ("关耳郑",), "正"),
    ("谢", "xie", ("言身寸谢",), "解"), ("宋", "song", ("宝盖宋",), "送"), ("冯", "feng", ("两点水冯",), "封"),
    ("邓", "deng", ("又耳邓",), "等"), ("蒋", "jiang", ("草头蒋",), "江"), ("江", "jiang", ("三点水工的江",), "姜"),
    ("汪", "wang", ("三点水王",), "王"), ("田", "tian", ("田地的田",), "甜"), ("姚", "yao", ("女兆姚",), "尧"),
    ("杜", "du", ("木土杜",), "度"), ("苏", "su", ("苏州的苏",), "素"), ("叶", "ye", ("树叶的叶",), "业"),
    ("韩", "han", ("韩国的韩",), "寒"), ("曹", "cao", ("曹操的曹",), "草"), ("彭", "peng", ("三撇彭",), "朋"),
    ("闫", "yan", ("门三闫",), "严"), ("贾", "jia", ("西贝贾",), "假"), ("付", "fu", ("单人付",), "傅"),
    ("欧阳", "ouyang", ("欧洲的欧 太阳的阳",), "欧杨"), ("司马", "sima", ("司令的司 马路的马",), "斯马"),
)
SURNAME_W = (10, 2, 8, 10, 3, 3, 6, 3, 3, 2, 4, 10, 8, 4, 3, 3, 4, 2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 1, 1, 2, 1,
             2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
# given-name character, pinyin, spelling, ASR homophone
GIVEN = (
    ("伟", "wei", "伟大的伟", "威"), ("建", "jian", "建设的建", "健"), ("国", "guo", "国家的国", "果"),
    ("华", "hua", "中华的华", "花"), ("明", "ming", "明天的明", "鸣"), ("芳", "fang", "芬芳的芳", "方"),
    ("丽", "li", "美丽的丽", "莉"), ("军", "jun", "军人的军", "君"), ("强", "qiang", "强大的强", "墙"),
    ("红", "hong", "红色的红", "宏"), ("英", "ying", "英雄的英", "鹰"), ("秀", "xiu", "优秀的秀", "修"),
    ("兰", "lan", "兰花的兰", "蓝"), ("娟", "juan", "女字旁的娟", "涓"), ("静", "jing", "安静的静", "敬"),
    ("敏", "min", "敏感的敏", "民"), ("平", "ping", "平安的平", "萍"), ("文", "wen", "文化的文", "雯"),
    ("海", "hai", "大海的海", "还"), ("玲", "ling", "王字旁的玲", "零"), ("霞", "xia", "彩霞的霞", "侠"),
    ("梅", "mei", "梅花的梅", "玫"), ("燕", "yan", "燕子的燕", "艳"), ("涛", "tao", "波涛的涛", "桃"),
    ("磊", "lei", "三个石头的磊", "雷"), ("勇", "yong", "勇敢的勇", "永"), ("杰", "jie", "杰出的杰", "洁"),
    ("婷", "ting", "女字旁的婷", "亭"), ("浩", "hao", "浩大的浩", "好"), ("宇", "yu", "宇宙的宇", "雨"),
    ("鑫", "xin", "三个金的鑫", "新"), ("淑", "shu", "淑女的淑", "书"), ("桂", "gui", "桂花的桂", "贵"),
    ("珍", "zhen", "珍珠的珍", "真"), ("凤", "feng", "凤凰的凤", "峰"), ("志", "zhi", "志向的志", "智"),
    ("德", "de", "道德的德", "得"), ("春", "chun", "春天的春", "纯"), ("玉", "yu", "玉石的玉", "育"),
    ("成", "cheng", "成功的成", "诚"), ("辉", "hui", "光辉的辉", "慧"), ("刚", "gang", "刚才的刚", "钢"),
    ("欣", "xin", "欣赏的欣", "心"), ("怡", "yi", "心旷神怡的怡", "宜"), ("子", "zi", "孩子的子", "紫"),
    ("涵", "han", "三点水的涵", "含"), ("俊", "jun", "英俊的俊", "骏"), ("晨", "chen", "早晨的晨", "辰"),
)
PROVINCES = (
    ("河南", "河南省", (("郑州", "4101", "0371", ("金水区", "二七区", "中原区", "新郑市"), ("二七广场", "郑州东站", "紫荆山公园")),
                      ("洛阳", "4103", "0379", ("涧西区", "老城区", "伊川县", "偃师区"), ("洛阳龙门站", "王城公园")),
                      ("周口", "4116", "0394", ("川汇区", "郸城县", "鹿邑县", "淮阳区"), ("周口汽车站",)))),
    ("四川", "四川省", (("成都", "5101", "028", ("武侯区", "锦江区", "郫都区", "双流区"), ("春熙路", "天府广场", "成都东站")),
                      ("绵阳", "5107", "0816", ("涪城区", "游仙区", "江油市", "三台县"), ("绵阳火车站",)))),
    ("湖南", "湖南省", (("长沙", "4301", "0731", ("岳麓区", "雨花区", "开福区", "浏阳市"), ("五一广场", "长沙南站", "橘子洲")),
                      ("衡阳", "4304", "0734", ("蒸湘区", "衡阳县", "耒阳市", "祁东县"), ("衡阳火车站",)))),
    ("浙江", "浙江省", (("杭州", "3301", "0571", ("西湖区", "拱墅区", "余杭区", "萧山区"), ("武林广场", "杭州东站")),
                      ("温州", "3303", "0577", ("鹿城区", "瑞安市", "乐清市", "苍南县"), ("温州南站",)))),
    ("山东", "山东省", (("济南", "3701", "0531", ("历下区", "槐荫区", "章丘区", "商河县"), ("泉城广场", "大明湖", "济南西站")),
                      ("临沂", "3713", "0539", ("兰山区", "罗庄区", "沂南县", "费县"), ("临沂北站",)))),
    ("湖北", "湖北省", (("武汉", "4201", "027", ("江汉区", "洪山区", "武昌区", "黄陂区"), ("江汉路", "光谷广场", "汉口火车站")),
                      ("襄阳", "4206", "0710", ("樊城区", "襄州区", "枣阳市", "谷城县"), ("襄阳东站",)))),
    ("广东", "广东省", (("广州", "4401", "020", ("天河区", "海珠区", "白云区", "番禺区"), ("天河城", "珠江新城", "广州南站")),
                      ("佛山", "4406", "0757", ("禅城区", "南海区", "顺德区", "高明区"), ("佛山西站", "祖庙")))),
    ("河北", "河北省", (("石家庄", "1301", "0311", ("长安区", "桥西区", "正定县", "藁城区"), ("石家庄站",)),
                      ("保定", "1306", "0312", ("竞秀区", "莲池区", "涿州市", "清苑区"), ("保定东站",)))),
    ("陕西", "陕西省", (("西安", "6101", "029", ("雁塔区", "碑林区", "未央区", "长安区"), ("钟楼", "小寨", "大雁塔")),
                      ("宝鸡", "6103", "0917", ("渭滨区", "金台区", "凤翔区", "岐山县"), ("宝鸡南站",)))),
    ("江苏", "江苏省", (("南京", "3201", "025", ("鼓楼区", "玄武区", "江宁区", "浦口区"), ("新街口", "夫子庙", "南京南站")),
                      ("徐州", "3203", "0516", ("云龙区", "泉山区", "沛县", "邳州市"), ("徐州东站",)))),
    ("安徽", "安徽省", (("合肥", "3401", "0551", ("蜀山区", "包河区", "庐阳区", "肥西县"), ("三孝口", "合肥南站")),
                      ("阜阳", "3412", "0558", ("颍州区", "颍泉区", "临泉县", "太和县"), ("阜阳西站",)))),
    ("辽宁", "辽宁省", (("沈阳", "2101", "024", ("和平区", "铁西区", "皇姑区", "浑南区"), ("中街", "太原街", "沈阳北站")),)),
    ("黑龙江", "黑龙江省", (("哈尔滨", "2301", "0451", ("道里区", "南岗区", "香坊区", "呼兰区"), ("中央大街", "哈尔滨西站")),)),
    ("江西", "江西省", (("南昌", "3601", "0791", ("东湖区", "青山湖区", "红谷滩区", "南昌县"), ("八一广场", "南昌西站")),
                      ("赣州", "3607", "0797", ("章贡区", "南康区", "瑞金市", "于都县"), ("赣州西站",)))),
)
# misrecognised place names (written form -> what the ASR wrote)
PLACE_ASR = (("郸城", "单城"), ("郑州", "正州"), ("绵阳", "棉阳"), ("衡阳", "恒阳"), ("临沂", "临一"), ("襄阳", "香阳"),
             ("涿州", "卓州"), ("耒阳", "雷阳"), ("沂南", "一南"), ("颍州", "影州"), ("赣州", "干州"), ("鹿邑", "路易"),
             ("涪城", "福城"), ("岐山", "奇山"))
# famous hospitals per province: (full name, forms said aloud, ASR slip or "")
FAMOUS = (
    ("河南", (("郑州大学第一附属医院", ("郑大一附院", "郑大一", "郑大一附院"), "正大一附院"), ("河南省肿瘤医院", ("省肿瘤医院", "省肿瘤"), ""),
              ("河南省人民医院", ("河南省人民医院",), ""))),
    ("四川", (("四川大学华西医院", ("华西", "华西医院"), "花西"), ("四川省人民医院", ("四川省人民医院",), ""))),
    ("湖南", (("中南大学湘雅医院", ("湘雅", "湘雅医院"), "香雅"), ("中南大学湘雅二医院", ("湘雅二院", "湘雅二"), "香雅二院"))),
    ("浙江", (("浙江大学医学院附属第一医院", ("浙一", "浙大一院"), "这一"), ("浙江大学医学院附属邵逸夫医院", ("邵逸夫", "邵逸夫医院"), "邵一夫"))),
    ("山东", (("山东大学齐鲁医院", ("齐鲁医院", "齐鲁"), "奇鲁医院"), ("山东省立医院", ("山东省立医院",), ""))),
    ("湖北", (("华中科技大学同济医学院附属同济医院", ("同济", "武汉同济"), "同机"), ("武汉大学人民医院", ("武大人民医院",), ""))),
    ("广东", (("中山大学附属第一医院", ("中山一院", "中山一"), "中山医院"), ("广东省人民医院", ("广东省人民医院",), ""))),
    ("河北", (("河北医科大学第二医院", ("河北医大二院", "省二院"), ""), ("河北医科大学第四医院", ("河北医大四院",), ""))),
    ("陕西", (("空军军医大学西京医院", ("西京医院", "西京"), "西经医院"), ("西安交通大学第一附属医院", ("交大一附院",), "交大一付院"))),
    ("江苏", (("江苏省人民医院", ("江苏省人民医院",), ""), ("南京鼓楼医院", ("鼓楼医院",), "古楼医院"))),
    ("安徽", (("安徽医科大学第一附属医院", ("安医大一附院", "安医一附院"), ""), ("中国科学技术大学附属第一医院", ("科大一附院",), ""))),
    ("辽宁", (("中国医科大学附属第一医院", ("医大一院", "中国医大一院"), ""), ("中国医科大学附属盛京医院", ("盛京医院", "盛京"), "胜京医院"))),
    ("黑龙江", (("哈尔滨医科大学附属第一医院", ("哈医大一院", "哈医大"), ""),)),
    ("江西", (("南昌大学第一附属医院", ("南大一附院", "省一附"), ""),)),
)
NATIONAL = (("北京协和医院", ("协和", "北京协和"), "谐和"), ("中国人民解放军总医院", ("三零幺", "三零一医院", "301医院"), ""),
            ("北京大学第三医院", ("北医三院",), ""), ("复旦大学附属华山医院", ("华山医院", "华山"), "花山医院"),
            ("上海交通大学医学院附属瑞金医院", ("瑞金医院", "瑞金"), "瑞今医院"), ("复旦大学附属肿瘤医院", ("上海肿瘤医院", "复旦肿瘤"), ""),
            ("北京天坛医院", ("天坛医院", "天坛"), ""), ("北京儿童医院", ("北京儿童医院", "北儿"), ""))
DEPTS = ("心内科", "内分泌科", "神经内科", "消化内科", "呼吸科", "肾内科", "儿科", "妇科", "骨科", "普外科", "泌尿外科",
         "眼科", "皮肤科", "甲乳外科", "肿瘤科", "风湿免疫科", "中医科")
TOWN_ROOT = ("城关", "王店", "高庙", "李集", "石桥", "新安", "黄庄", "柳河", "双塔", "白马", "清水", "龙门", "杨湖", "太平",
             "东风", "马头", "三里", "金山", "长岭", "南岗")
VILLAGE_ROOT = ("王庄", "李楼", "张湾", "刘营", "陈家", "赵洼", "后周", "前马", "大杨", "小宋", "孙寨", "杜店", "胡桥", "高台")
ROAD_ROOT = ("花园", "建设", "人民", "解放", "文化", "中山", "胜利", "和平", "迎宾", "朝阳", "黄河", "长江", "光明", "东风",
             "农业", "工业", "滨河", "金桥")
COMPOUND_ROOT = ("建业", "碧桂园", "金色家园", "阳光", "幸福", "锦绣", "翠苑", "绿地", "名门", "恒大", "万科", "水岸", "世纪",
                 "书香", "康桥", "御景")
COMPOUND_SUFFIX = ("小区", "花园", "家园", "新村", "苑", "家属院", "城")
KIN = (("我爸", "他", "m"), ("我妈", "她", "f"), ("我老公", "他", "m"), ("我媳妇", "她", "f"), ("我爱人", "他", "m"),
       ("我儿子", "他", "m"), ("我闺女", "她", "f"), ("我婆婆", "她", "f"), ("我岳父", "他", "m"), ("我奶奶", "她", "f"),
       ("我爷爷", "他", "m"), ("我姐", "她", "f"), ("我哥", "他", "m"), ("孩子", "他", "m"))
FILLERS = ("嗯", "那个", "就是说", "然后呢", "呃", "就是", "这个", "对", "哎", "嗯嗯", "那个那个", "怎么说呢", "啊")
PLATFORMS = ("好大夫", "平安好医生", "京东健康", "微医", "丁香医生", "医鹿")
COURIERS = ("顺丰", "京东", "中通", "圆通", "EMS", "韵达")

# ordinary words the ASR mishears (only in plain text of voice messages)
ASR_WORDS = (("降压药", "将压药"), ("复查", "复差"), ("头孢", "头包"), ("检查", "见查"), ("挂号", "挂好"), ("甲状腺", "甲壮腺"),
             ("布洛芬", "不洛芬"), ("胸闷", "兄闷"), ("拉肚子", "拉度子"), ("输液", "输叶"), ("咳嗽", "可嗽"), ("报告", "抱告"),
             ("医生", "一生"), ("大夫", "代夫"), ("发烧", "发骚"), ("吃药", "迟药"), ("片子", "骗子"), ("住院", "驻院"))

CN_DIG = "零一二三四五六七八九"


# --------------------------------------------------------------------------------------------- speech of numbers
def cn_int(n, colloquial=False):
    """0..99999 read as a Chinese number (一百四十五, 两千, 一百六 when colloquial)."""
    if n == 0:
        return "零"
    units = ((10000, "万"), (1000, "千"), (100, "百"), (10, "十"))
    out = []
    rest = n
    zero_pending = False
    started = False
    for val, name in units:
        d = rest // val
        rest = rest % val
        if d:
            if zero_pending:
                out.append("零")
                zero_pending = False
            if val == 10 and d == 1 and not started:
                out.append("十")
            else:
                digit = "两" if (d == 2 and val >= 1000) else CN_DIG[d]
                out.append(digit + name)
            started = True
        elif started:
            zero_pending = True
    if rest:
        if zero_pending:
            out.append("零")
        out.append(CN_DIG[rest])
    s = "".join(out)
    if colloquial and n >= 110 and n < 1000 and n % 10 == 0 and (n // 10) % 10:
        s = s[:-1]                         # 一百六十 -> 一百六
    return s


def cn_dec(x, unit_word="点"):
    """7.8 -> 七点八; 38.5 with unit_word 度 -> 三十八度五."""
    s = "%.1f" % x
    a, b = s.split(".")
    if b == "0":
        return cn_int(int(a))
    return cn_int(int(a)) + unit_word + CN_DIG[int(b)]


class Voice(object):
    """How one speaker reads digits."""

    def __init__(self, rng):
        self.one = rng.choice(("幺", "幺", "一"))
        self.zero = rng.choice(("零", "零", "〇", "洞"))
        self.seven = "拐" if rng.random() < 0.08 else "七"
        self.two = "两" if rng.random() < 0.12 else "二"
        self.arabic = rng.random()          # share of numbers the ASR writes in Arabic digits
        self.sep = rng.choice((" ", "，", "", " ", "…", "、"))

    def digit(self, d):
        if d == "1":
            return self.one
        if d == "0":
            return self.zero
        if d == "7":
            return self.seven
        if d == "2":
            return self.two
        return CN_DIG[int(d)]

    def read(self, s, groups=None, mode=None, rng=None):
        """Read a digit string; mode: 'cn', 'ar', 'half'."""
        if mode is None:
            mode = "cn"
        if groups is None:
            groups = (len(s),)
        parts = []
        i = 0
        for gi, g in enumerate(groups):
            chunk = s[i:i + g]
            i += g
            if mode == "ar" or (mode == "half" and gi % 2 == 0):
                parts.append(chunk)
            else:
                parts.append("".join(self.digit(c) if c.isdigit() else c for c in chunk))
        if i < len(s):
            parts.append(s[i:])
        return self.sep.join(parts) if len(groups) > 1 else "".join(parts)


# --------------------------------------------------------------------------------------------- identifiers
ID_W = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
ID_C = "10X98765432"


def resident_id(rng, prefix4, birth):
    body = prefix4 + "%02d" % rng.choice((1, 2, 3, 4, 5, 21, 22, 23, 24, 25, 26)) + birth + "%03d" % rng.randrange(1, 1000)
    s = sum(int(body[i]) * ID_W[i] for i in range(17))
    return body + ID_C[s % 11]


def mobile(rng):
    return rng.choice(("13", "15", "18", "17", "19", "13", "18")) + str(rng.randrange(0, 10)) + "%08d" % rng.randrange(10 ** 8)


def make_person(rng, sex=None):
    si = rng.choices(range(len(SURNAMES)), weights=SURNAME_W)[0]
    sur = SURNAMES[si]
    if sex is None:
        sex = rng.choice(("m", "f"))
    k = 1 if rng.random() < 0.3 else 2
    given = []
    for _ in range(k):
        g = rng.choice(GIVEN)
        while given and g[0] == given[-1][0]:
            g = rng.choice(GIVEN)
        given.append(g)
    return {"sur": sur, "given": tuple(given), "sex": sex,
            "name": sur[0] + "".join(g[0] for g in given)}


# --------------------------------------------------------------------------------------------- parts
# a part is (text, label): label None plain, UPPER an identifier category, lower a keep kind.
def pl(t):
    return (t, None)


def filler(rng, p=0.5):
    if rng.random() < p:
        return [pl(rng.choice(FILLERS) + rng.choice((" ", "，", "", " ")))]
    return []


def fil(rng):
    return rng.choice(FILLERS)


class Case(object):
    pass


def make_case(rng, cid):
    c = Case()
    c.cid = cid
    c.mode = "voice" if rng.random() < 0.55 else "call"
    c.video = rng.random() < 0.35
    p = rng.choice(PROVINCES)
    c.prov, c.prov_full = p[0], p[1]
    c.city = rng.choice(p[2])
    c.cname, c.idpre, c.area, c.districts, c.landmarks = c.city
    c.district = rng.choice(c.districts)
    c.town = rng.choice(TOWN_ROOT) + rng.choice(("镇", "镇", "乡", "街道"))
    c.village = rng.choice(VILLAGE_ROOT) + "村"
    c.road = rng.choice(ROAD_ROOT) + rng.choice(("路", "路", "街", "大道"))
    c.compound = rng.choice(COMPOUND_ROOT) + rng.choice(COMPOUND_SUFFIX)
    c.rural = rng.random() < 0.4
    c.patient = make_person(rng)
    c.age = rng.choice((rng.randrange(2, 14), rng.randrange(25, 60), rng.randrange(55, 88), rng.randrange(55, 88)))
    c.by_relative = rng.random() < 0.55
    if c.age < 14:
        c.by_relative = True
    if c.by_relative:
        kins = [k for k in KIN if k[0] != "孩子"] if c.age >= 14 else [k for k in KIN if k[0] in ("孩子", "我儿子", "我闺女")]
        if c.age > 55:
            kins = [k for k in kins if k[0] in ("我爸", "我妈", "我婆婆", "我岳父", "我奶奶", "我爷爷")]
        c.kin = rng.choice(kins)
        c.patient = make_person(rng, c.kin[2])
        c.relative = make_person(rng)
        if rng.random() < 0.5 and c.kin[0] in ("我爸", "我儿子", "我闺女", "孩子", "我爷爷"):
            c.relative["sur"] = c.patient["sur"]
            c.relative["name"] = c.patient["sur"][0] + "".join(g[0] for g in c.relative["given"])
    else:
        c.kin = None
        c.relative = None
    c.speaker = c.relative if c.by_relative else c.patient
    c.sp_label = "家属" if c.by_relative else "患者"
    c.doctor = make_person(rng)
    c.doc_title = rng.choice(("主任", "医生", "大夫", "主任", "教授"))
    c.nurse = make_person(rng, "f")
    c.cs = make_person(rng)
    c.dept = rng.choice(DEPTS)
    fam = [h for h in FAMOUS if h[0] == c.prov][0][1]
    c.big = rng.choice(fam + NATIONAL[:2]) if rng.random() < 0.75 else rng.choice(NATIONAL)
    county = c.district
    local = (county[:-1] if len(county) > 2 else county) + rng.choice(("人民医院", "中医院", "第二人民医院"))
    if county.endswith("县") and rng.random() < 0.4:
        local = county + "人民医院"
    c.local = (local, (local,), "")
    c.level = (c.cname + "市第二人民医院", ("市二院", "市中医院", "市妇幼", "市一院"), "")
    c.clinic = rng.choice((c.town + "卫生院", c.village + "卫生室", c.patient["sur"][0] + "氏诊所"))
    c.voice_sp = Voice(rng)
    c.voice_doc = Voice(rng)
    c.phone = mobile(rng)
    c.phone2 = mobile(rng)
    c.land = c.area + str(rng.randrange(2, 9)) + "%06d" % rng.randrange(10 ** 6)
    by = 2024 - c.age
    c.year = rng.choice((2023, 2024, 2025))
    c.birth = (by, rng.randrange(1, 13), rng.randrange(1, 29))
    c.idnum = resident_id(rng, c.idpre, "%04d%02d%02d" % c.birth)
    c.mrn = "%08d" % rng.randrange(10 ** 7, 10 ** 8)
    c.card = "%010d" % rng.randrange(10 ** 9, 10 ** 10)
    c.order = str(rng.choice((2024, 2025))) + "%012d" % rng.randrange(10 ** 11, 10 ** 12)
    c.code = "%06d" % rng.randrange(10 ** 5, 10 ** 6)
    c.waybill = rng.choice(("SF", "JD", "7", "YT")) + "%012d" % rng.randrange(10 ** 11, 10 ** 12)
    c.qq = str(rng.randrange(10 ** 7, 3 * 10 ** 9))
    c.wx_digits = rng.choice(("%02d" % (by % 100), str(by), c.phone[-4:], "%03d" % rng.randrange(1000)))
    c.wx_kind = rng.choice(("pinyin", "pinyin", "phone", "initials"))
    c.mail_dom = rng.choice(("163", "qq", "126", "sina", "foxmail"))
    c.month = rng.randrange(1, 13)
    return c


# --------------------------------------------------------------------------------------------- spoken identifiers
def say_phone(rng, c, v, number=None, allow_mode=True):
    s = number or c.phone
    mode = "ar" if (allow_mode and rng.random() < v.arabic * 0.6) else rng.choice(("cn", "cn", "half"))
    groups = rng.choice(((3, 4, 4), (3, 4, 4), (11,), (3, 8), (3, 3, 5)))
    return v.read(s, groups, mode)


def phone_parts(rng, c, v, correct=True):
    """'我电话' clause body with optional self-correction; returns parts."""
    out = []
    r = rng.random()
    if correct and r < 0.2:
        wrong = c.phone[:2] + str((int(c.phone[2]) + rng.choice((1, 9))) % 10)
        out.append(pl(v.read(wrong)))
        out.append(pl(rng.choice(("…不对不对 是", " 哦不对 ", "，不是，是", " 说错了 是"))))
        out.append((say_phone(rng, c, v), "PHONE"))
    elif correct and r < 0.32:
        real = c.phone
        wrong = real[:-1] + str((int(real[-1]) + 3) % 10)
        out.append((say_phone(rng, c, v, wrong), "PHONE"))
        out.append(pl(rng.choice(("…哎不对 最后一位是", " 不对不对 最后是", "，说错了，尾数是"))))
        out.append(pl(v.digit(real[-1])))
    elif correct and r < 0.4:
        out.append((say_phone(rng, c, v), "PHONE"))
        out.append(pl(rng.choice((" 最后两位是", " 尾号是", "，后两位"))))
        out.append(pl(v.read(c.phone[-2:])))
        out.append(pl(rng.choice((" 别记错了", " 对", ""))))
    else:
        out.append((say_phone(rng, c, v), "PHONE"))
    return out


def say_id(rng, c, v):
    s = c.idnum
    x = rng.choice(("叉", "X", "x", "埃克斯", "叉")) if s[-1] == "X" else None
    mode = "ar" if rng.random() < v.arabic * 0.5 else rng.choice(("cn", "cn", "half"))
    groups = rng.choice(((6, 8, 4), (18,), (6, 4, 4, 4), (3, 3, 4, 4, 4)))
    body = v.read(s[:-1] + "#", groups, mode)
    i = body.index("#")
    arabic_before = i > 0 and body[i - 1] in "0123456789"
    return body.replace("#", x if x else (s[-1] if (mode == "ar" or arabic_before) else v.digit(s[-1])))


def say_date(rng, y, m, d, forms=None):
    f = rng.choice(forms or ("md", "md", "md_ri", "ymd", "yymd", "ar_md", "ymd_ar"))
    if f == "md":
        return cn_int(m) + "月" + cn_int(d) + "号"
    if f == "md_ri":
        return cn_int(m) + "月" + cn_int(d) + "日"
    if f == "ymd":
        return "".join(CN_DIG[int(ch)] for ch in str(y)) + "年" + cn_int(m) + "月" + cn_int(d) + "号"
    if f == "yymd":
        return "".join(CN_DIG[int(ch)] for ch in str(y)[2:]) + "年" + cn_int(m) + "月" + cn_int(d)
    if f == "ar_md":
        return "%d月%d号" % (m, d)
    return "%d年%d月%d日" % (y, m, d)


LUNAR_M = ("正月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "冬月", "腊月")
LUNAR_D = ("初一", "初二", "初三", "初五", "初八", "初十", "十二", "十五", "十八", "二十", "二十三", "二十六", "廿八")


def name_parts(rng, person, asr=False, spell=False, full=True):
    """A person's name, perhaps misrecognised; spelled components as separate NAME spans."""
    sur = person["sur"]
    giv = person["given"]
    if asr and rng.random() < 0.5:
        g = list(giv)
        j = rng.randrange(len(g))
        txt = sur[0] + "".join(x[3] if i == j else x[0] for i, x in enumerate(g))
    elif asr:
        txt = sur[3] + "".join(x[0] for x in giv)
    else:
        txt = person["name"]
    out = [(txt if full else sur[0], "NAME")]
    if spell:
        sep = rng.choice((" ", "，", " 就是", "，"))
        out.append(pl(sep))
        out.append((rng.choice(sur[2]), "NAME"))
        if full:
            for g in giv:
                if rng.random() < 0.75:
                    out.append(pl(rng.choice((" ", "，", " "))))
                    out.append((g[2], "NAME"))
    return out


def nick(rng, person, child=False):
    g = person["given"][-1][0]
    if child:
        return g + g
    return rng.choice(("小" + g, "老" + person["sur"][0], "小" + person["sur"][0]))


def hosp(rng, h, asr=False):
    full, forms, slip = h
    if asr and slip:
        return slip
    return rng.choice((full,) + forms + forms)


def address_parts(rng, c, depth=None, asr=False, landmark=True):
    """A spoken address; fillers between pieces make separate spans."""
    out = []
    chain = []
    if rng.random() < 0.3:
        chain.append(c.prov_full if rng.random() < 0.5 else c.prov)
    city = c.cname
    if asr:
        for a, b in PLACE_ASR:
            if a == city:
                city = b
    chain.append(city + rng.choice(("市", "", "市")))
    dist = c.district
    if asr:
        for a, b in PLACE_ASR:
            if dist.startswith(a):
                dist = b + dist[len(a):]
    chain.append(dist)
    pieces = ["".join(chain)]
    if c.rural:
        pieces.append(c.town)
        pieces.append(c.village + rng.choice(("", cn_int(rng.randrange(1, 12)) + "组", cn_int(rng.randrange(1, 9)) + "队")))
    else:
        pieces.append(c.road + rng.choice(("", "", cn_int(rng.randrange(1, 300)) + "号")))
        pieces.append(c.compound + cn_int(rng.randrange(1, 25)) + rng.choice(("号楼", "栋", "号院")) +
                      rng.choice(("", cn_int(rng.randrange(1, 6)) + "单元")) +
                      rng.choice(("", "".join(CN_DIG[int(ch)] for ch in str(rng.randrange(1, 30) * 100 + rng.randrange(1, 5))))))
    if depth is not None:
        pieces = pieces[:depth]
    # join with either nothing / space (one span) or a filler (separate spans)
    cur = pieces[0]
    for i, pc in enumerate(pieces[1:]):
        r = rng.random()
        if r < 0.45:
            cur += pc
        elif r < 0.6:
            cur += " " + pc
        else:
            out.append((cur, "ADDRESS"))
            if landmark and i == 0 and rng.random() < 0.5:
                lm = rng.choice(c.landmarks)
                out.append(pl(rng.choice((" 就是", "，就在", " 那个", " 挨着"))))
                if rng.random() < 0.6:
                    out.append((lm, "ADDRESS"))
                else:
                    out.append(pl(rng.choice(("万达广场", "肯德基", "那个大超市", "小学门口", "加油站", "菜市场"))))
                out.append(pl(rng.choice(("旁边 ", "往北一点 ", "对面那个", "后边 "))))
            else:
                out.append(pl(rng.choice((" 嗯 ", " 那个", "，就是", " 然后是", "…"))))
            cur = pc
    out.append((cur, "ADDRESS"))
    return out


def spell_latin(rng, s):
    return rng.choice((" ", " ", "")).join(s) if rng.random() < 0.7 else s


def wechat_parts(rng, c, v):
    p = c.speaker
    kind = c.wx_kind
    if kind == "phone":
        return [(say_phone(rng, c, v), "URL")]
    py = p["sur"][1] + "".join(g[1] for g in p["given"])
    if kind == "initials":
        py = p["sur"][1][0] + "".join(g[1][0] for g in p["given"])
    letters = spell_latin(rng, py)
    mid = rng.choice(("", " 下划线 ", " 杠 ", "_", " "))
    dig = v.read(c.wx_digits) if rng.random() < 0.7 else c.wx_digits
    return [(letters + mid + dig, "URL")]


def email_parts(rng, c, v):
    p = c.speaker
    if c.mail_dom == "qq" and rng.random() < 0.6:
        local = v.read(c.qq) if rng.random() < 0.6 else c.qq
    else:
        py = p["sur"][1] + "".join(g[1] for g in p["given"])
        local = spell_latin(rng, py) + rng.choice((" ", "")) + (v.read(c.wx_digits) if rng.random() < 0.6 else c.wx_digits)
    at = rng.choice((" at ", " 艾特 ", "@", " 圈a ", " at "))
    dom = c.mail_dom
    if dom.isdigit() and rng.random() < 0.6:
        dom = v.read(dom)
    dot = rng.choice((" 点 ", "点", ".", " 点"))
    return [(local + at + dom + dot + "com", "EMAIL")]


# --------------------------------------------------------------------------------------------- clinical (keep)
def k_bp(rng):
    hi = rng.randrange(110, 185)
    lo = rng.randrange(65, 110)
    f = rng.random()
    if f < 0.35:
        return [(rng.choice(("血压", "量的血压", "血压是")) + cn_int(hi, True) + rng.choice((" ", "的", "，", " 低的")) + cn_int(lo), "vital")]
    if f < 0.65:
        return [("高压" + cn_int(hi, True), "vital"), pl(rng.choice((" ", "，", " 然后"))), ("低压" + cn_int(lo), "vital")]
    return [("血压%d/%d" % (hi, lo), "vital")]


def k_lab(rng):
    items = (("空腹血糖", lambda: cn_dec(rng.randrange(48, 160) / 10.0)), ("餐后两小时血糖", lambda: cn_dec(rng.randrange(70, 210) / 10.0)),
             ("糖化", lambda: cn_dec(rng.randrange(55, 110) / 10.0)), ("肌酐", lambda: cn_int(rng.randrange(50, 300))),
             ("尿酸", lambda: cn_int(rng.randrange(300, 620)) + rng.choice(("", "多"))), ("甘油三酯", lambda: cn_dec(rng.randrange(8, 60) / 10.0)),
             ("低密度", lambda: cn_dec(rng.randrange(18, 55) / 10.0)), ("血红蛋白", lambda: cn_int(rng.randrange(70, 160))),
             ("白细胞", lambda: cn_dec(rng.randrange(25, 180) / 10.0)), ("转氨酶", lambda: cn_int(rng.randrange(20, 200))),
             ("TSH", lambda: cn_dec(rng.randrange(1, 150) / 10.0)), ("血糖", lambda: cn_dec(rng.randrange(48, 200) / 10.0)))
    name, fn = rng.choice(items)
    unit = rng.choice(("", "", "", " 毫摩尔")) if "糖" in name and name != "糖化" else ""
    if name == "糖化":
        unit = rng.choice(("", "%"))
    return [(name + rng.choice(("", "是", "", "有")) + fn() + unit, "lab")]


def k_dose(rng):
    return [(rng.choice(("一片", "两片", "半片", "一粒", "两粒", "十毫升", "五毫升", "一袋", "八个单位", "十二个单位", "一支", "两颗")), "dose")]


def k_age(rng, c=None):
    a = c.age if c else rng.randrange(20, 85)
    if a < 2:
        return [(cn_int(rng.randrange(3, 12)) + "个月", "age")]
    return [(cn_int(a) + rng.choice(("岁", "岁", "周岁")) if rng.random() < 0.8 else "%d岁" % a, "age")]


def k_dur(rng):
    return [(rng.choice(("三天", "两天", "一个礼拜", "半个月", "两年多", "三个多月", "十来天", "一年", "五六天", "两周", "半年")), "duration")]


def k_time(rng):
    return [(rng.choice(("昨天", "前天", "今天早上", "上礼拜三", "昨天晚上", "下午三点", "早上七点", "前两天", "今天", "晚上十点多",
                         "大前天", "三月份", "去年", "周一")), "time")]


def k_temp(rng):
    t = cn_dec(rng.randrange(373, 402) / 10.0, "度")
    if rng.random() < 0.5:
        return [pl(rng.choice(("烧到", "最高烧到", "最高"))), (t, "vital")]
    return [("体温" + t, "vital")]


def k_hr(rng):
    return [(rng.choice(("心率", "心跳", "脉搏")) + cn_int(rng.randrange(55, 130), True), "vital")]


def k_wt(rng):
    return [("体重" + cn_int(rng.randrange(40, 95)) + rng.choice(("公斤", "公斤", "kg")), "vital")]


HARD = (
    "我是河南的 在外地打工", "老家四川的", "我们是山东那边的", "当时疼得不行差点打一二零", "那天都想打幺二零了", "医保的事可以打幺二三二零问问",
    "吃过云南白药", "家里有片仔癀", "同仁堂的安宫牛黄丸能吃吗", "之前查出来桥本", "我爸以前有帕金森", "孩子小时候得过川崎病",
    "有点香港脚", "早上吃了碗兰州拉面", "楼下沙县小吃吃的", "下班高峰期不好挂号", "平安就好", "国庆放假那几天", "马上就去",
    "白细胞高一点", "黄疸退了没有", "在吃华法林", "阿莫西林过敏吗", "大夫您说", "美女医生您好", "师傅我问一下", "那个护士小姑娘说的",
    "阿姨让我问问", "老师您好", "当地医院说没事", "县医院看过了", "去大医院看看", "社区医院开的药", "市人民医院也去过", "省人医排不上号",
    "在药店买的", "网上说的", "报警电话幺幺零", "打过幺二三四五", "立普妥还吃吗", "波立维要停吗", "马应龙的药膏", "江中健胃消食片",
    "陈皮泡水喝", "住在三十二床", "排队排到八十七号了", "三楼二号诊室", "高血压好多年了", "周一能挂上号吗", "万一是不好的东西", "叶酸在吃", "石膏打了一个月",
)
SYMPTOMS = ("头晕", "胸口闷", "咳嗽", "肚子疼", "拉肚子", "发烧", "腿肿", "睡不着", "心慌", "腰疼", "嗓子疼", "起疹子", "手麻",
            "尿频", "血糖高", "血压高", "恶心想吐", "胃反酸")
DRUGS = ("氨氯地平", "二甲双胍", "阿司匹林", "布洛芬", "头孢", "奥美拉唑", "厄贝沙坦", "阿托伐他汀", "优甲乐", "胰岛素", "蒙脱石散",
         "硝苯地平", "美托洛尔", "氯雷他定")


def clinical_patient(rng, c):
    r = rng.randrange(9)
    out = []
    if r == 0:
        out += [pl(rng.choice(("我", "他", "她", "病人")) + "今年")] + k_age(rng, c) + [pl(" " + fil(rng) + " " + rng.choice(SYMPTOMS) + "有")] + k_dur(rng) + [pl("了")]
    elif r == 1:
        out += k_time(rng) + [pl(rng.choice(("量了一下 ", "在家量的 ", "测了 ")))] + k_bp(rng) + [pl(rng.choice((" 高不高", " 这个正常吗", " 有点吓人")))]
    elif r == 2:
        out += [pl(rng.choice(("查了个血 ", "化验单出来了 ", "就是说 那个报告上 ")))] + k_lab(rng) + [pl(rng.choice((" 还有", " 然后", "，")))] + k_lab(rng) + [pl(rng.choice((" 要紧吗", " 这个高吗", "")))]
    elif r == 3:
        out += [pl(rng.choice(DRUGS) + rng.choice((" 一天吃一次 一次", " 每天早上", " 吃了")))] + k_dose(rng) + [pl(rng.choice((" 吃了", " 已经吃了", " 持续")))] + k_dur(rng) + [pl(rng.choice((" 没啥效果", " 好点了", "")))]
    elif r == 4:
        out += [pl(rng.choice(("孩子", "他", "她", "我")))] + k_time(rng) + [pl(rng.choice(("开始发烧 ", "晚上又烧了 ")))] + k_temp(rng) + [pl(rng.choice((" 吃了退烧药", " 一直不退")))]
    elif r == 5:
        out += [pl(rng.choice(HARD) + rng.choice((" ", "，", " 然后呢 ")) + rng.choice(HARD))]
    elif r == 6:
        out += [pl(fil(rng) + " " + rng.choice(SYMPTOMS) + " ")] + k_hr(rng) + [pl(rng.choice((" 正常吗", " 有点快")))]
    elif r == 7:
        out += [pl("现在")] + k_wt(rng) + [pl(rng.choice((" 瘦了不少", " 胖了", "")) + " " + rng.choice(HARD))]
    else:
        out += [pl(rng.choice(("就是说 ", "然后呢 ", "")) + rng.choice(SYMPTOMS) + " " + rng.choice(SYMPTOMS) + " ")] + k_time(rng) + [pl(rng.choice(("又犯了", "开始的", "加重了")))]
    return out


def clinical_doctor(rng, c):
    r = rng.randrange(7)
    if r == 0:
        return [pl("您这个" + rng.choice(("血压", "血糖", "情况")) + "还需要调整 " + rng.choice(DRUGS) + "每天一次 每次")] + k_dose(rng) + [pl(" 先吃")] + k_dur(rng) + [pl("看看")]
    if r == 1:
        return [pl("您是说")] + k_bp(rng) + [pl(rng.choice(("对吧", " 是吧", " 对不对")) + " 这个偏高")]
    if r == 2:
        return [pl("报告上")] + k_lab(rng) + [pl(" 不算太高 " + rng.choice(("注意饮食", "清淡饮食 少吃甜的", "多喝水")))]
    if r == 3:
        return [pl(rng.choice(HARD) + "？" + rng.choice(("这个不影响", "问题不大", "这个要注意")))]
    if r == 4:
        return [pl(rng.choice(("孩子", "病人", "")) + "现在")] + k_temp(rng) + [pl(" 的话 可以吃布洛芬 " + rng.choice(("混悬液 ", "按体重 ", "")))] + \
            [(rng.choice(("五毫升", "八毫升", "半片", "一片", "十毫升")), "dose")] + [pl(" 间隔")] + [(rng.choice(("六个小时", "四到六小时")), "duration")]
    if r == 5:
        return [pl("先观察")] + k_dur(rng) + [pl("，" + rng.choice(("不好的话去医院", "有情况随时说", "如果加重打一二零")))]
    return [pl(rng.choice(("嗯 明白了", "好的", "您别着急", "我看一下")) + " " + rng.choice(("多大年纪了", "之前查过吗", "还有别的症状吗", "吃的什么药")))]


# --------------------------------------------------------------------------------------------- identifier turns
def t_intro(rng, c, v):
    out = []
    if c.by_relative:
        out += [pl(rng.choice(("大夫您好 ", "医生 ", "您好 ", "喂 ")) + fil(rng) + " 我是帮" + c.kin[0][1:] + "问的 " + c.kin[0])]
        out += name_parts(rng, c.patient, asr=rng.random() < 0.15, spell=rng.random() < 0.35)
        out += [pl(rng.choice((" ", "，")))] + k_age(rng, c) + [pl(" " + rng.choice(SYMPTOMS) + "好几天了")]
    else:
        out += [pl(rng.choice(("医生你好 我叫", "喂 您好 我是", "大夫 嗯 我叫", "你好 那个 我叫")))]
        out += name_parts(rng, c.patient, asr=rng.random() < 0.15, spell=rng.random() < 0.4)
        out += [pl(" 今年")] + k_age(rng, c)
    return out


def t_surname(rng, c, v):
    p = c.patient
    out = [pl(rng.choice(("我姓", "病人姓", "他姓", "登记的时候姓")))]
    out += [(p["sur"][0], "NAME"), pl(rng.choice((" ", "，")))]
    if rng.random() < 0.35:
        wrong = [s for s in SURNAMES if s[1] == p["sur"][1] and s[0] != p["sur"][0]]
        if wrong:
            out += [pl("不是"), (wrong[0][2][0], "NAME"), pl(" 是")]
    out += [(rng.choice(p["sur"][2]), "NAME")]
    if rng.random() < 0.6:
        out += [pl(rng.choice((" 名字叫", "，叫", " 全名")))] + name_parts(rng, p, spell=rng.random() < 0.5)
    return out


def t_phone(rng, c, v):
    out = [pl(rng.choice(("我电话是", "手机号", "你记一下我电话", "电话号码是", "联系电话 ", "那个 我手机是")))]
    out += filler(rng, 0.3)
    out += phone_parts(rng, c, v)
    if rng.random() < 0.25:
        out += [pl(rng.choice((" 还有我家里座机", " 座机也行", "，家里电话")))]
        land = c.land
        out += [(v.read(land, (len(c.area), len(land) - len(c.area)), rng.choice(("cn", "ar", "half"))), "PHONE")]
    return out


def t_id(rng, c, v):
    out = [pl(rng.choice(("身份证号是", "身份证 ", "我念一下身份证号啊 ", "他身份证号码是")))]
    out += filler(rng, 0.3)
    out += [(say_id(rng, c, v), "ID")]
    if rng.random() < 0.3:
        out += [pl(rng.choice((" 最后一位是叉", " 最后是个X")) if c.idnum.endswith("X") else rng.choice((" 对 没错", " 您记一下", "")))]
    return out


def t_address(rng, c, v):
    out = [pl(rng.choice(("我家住在", "我们是", "地址是 ", "住的地方是", "快递寄到", "家在", "就是说 我们家在")))]
    out += address_parts(rng, c, asr=rng.random() < 0.15)
    out += [pl(rng.choice((" 离医院挺远的", " 这边", "", " 您看能寄吗", " 那块")))]
    return out


def t_hospital(rng, c, v):
    h = rng.choice((c.big, c.big, c.local, c.level, (c.clinic, (c.clinic,), "")))
    out = k_time(rng) if rng.random() < 0.4 else [(say_date(rng, c.year, rng.randrange(1, 13), rng.randrange(1, 29)), "DATE")]
    out += [pl(rng.choice(("在", "去", "到")))]
    out += [(hosp(rng, h, asr=rng.random() < 0.2), "HOSPITAL")]
    out += [pl(rng.choice(("看过", "住过院", "查过", "做的检查", "拍的片子")))]
    if rng.random() < 0.5:
        out += [pl(" " + rng.choice(("是", "找的", "挂的")))]
        if rng.random() < 0.5:
            out += [(c.doctor["sur"][0], "NAME"), pl(c.doc_title)]
        else:
            out += name_parts(rng, c.doctor, asr=rng.random() < 0.2) + [pl(c.doc_title)]
        out += [pl(rng.choice(("给看的", "的号", "")))]
    if rng.random() < 0.3:
        out += [pl(rng.choice((" 当地医院说", " 县医院说", " 后来社区医院")) + rng.choice(("没事", "让转院", "开了点药")))]
    return out


def t_dates(rng, c, v):
    r = rng.randrange(6)
    m, d = rng.randrange(1, 13), rng.randrange(1, 29)
    if r == 0:
        return [pl(rng.choice(("他是", "我是", "病人是")))] + [("".join(CN_DIG[int(ch)] for ch in str(c.birth[0])[2:]) + "年" + cn_int(c.birth[1]) + "月" + cn_int(c.birth[2]) + "号", "DATE")] + [pl("出生的")]
    if r == 1:
        return [pl("生日是")] + [("农历" + rng.choice(LUNAR_M) + rng.choice(LUNAR_D), "DATE")] + [pl(" 身份证上是")] + [(say_date(rng, c.birth[0], c.birth[1], c.birth[2], ("ymd", "ymd_ar")), "DATE")]
    if r == 2:
        return [(rng.choice(("上个月", "这个月")) + cn_int(d) + "号", "DATE"), pl(rng.choice(("开始", "那天")) + rng.choice(SYMPTOMS))]
    if r == 3:
        return [pl("就是")] + [(cn_int(d) + "号", "DATE"), pl("那天 " + rng.choice(("做的手术", "出的院", "复查的")))] + [pl(" 然后")] + k_time(rng) + [pl("又" + rng.choice(SYMPTOMS))]
    if r == 4:
        return [(rng.choice(("去年", "今年")) + rng.choice(("腊月", cn_int(m) + "月", cn_int(m) + "月" + cn_int(d) + "号")), "DATE"), pl(rng.choice(("查出来的", "做的手术", "住的院")))]
    return [pl("我是")] + [("".join(CN_DIG[int(ch)] for ch in str(c.birth[0])[2:]) + "年", "time")] + [pl("的 ")] + [(say_date(rng, c.year, m, d), "DATE")] + [pl(rng.choice((" 做的胃镜", " 开始吃的药", " 住院的")))]


def t_contact(rng, c, v):
    if rng.random() < 0.55:
        out = [pl(rng.choice(("我加您微信吧 微信号是", "您加我微信 ", "微信号 ", "我微信是")))]
        out += wechat_parts(rng, c, v)
        if rng.random() < 0.3:
            out += [pl(rng.choice((" 全是小写", " 中间有个下划线", " 搜不到就搜手机号")))]
    else:
        out = [pl(rng.choice(("报告发我邮箱吧 ", "邮箱是 ", "您发到我邮箱 ", "邮箱 我念一下 ")))]
        out += email_parts(rng, c, v)
        if rng.random() < 0.3:
            out += [pl(" QQ号是"), (v.read(c.qq), "URL")]
    return out


def t_numbers(rng, c, v):
    r = rng.choice((0, 0, 1, 1, 2, 3, 4))
    if r == 0:
        return [pl(rng.choice(("住院号是", "他住院号 ", "病案号 ", "门诊号是", "检查号 "))), (v.read(c.mrn, rng.choice(((8,), (4, 4))), rng.choice(("cn", "ar"))), "MRN")]
    if r == 1:
        return [pl(rng.choice(("就诊卡号", "就诊卡上的号是", "医保卡号 "))), (v.read(c.card, rng.choice(((10,), (3, 3, 4))), rng.choice(("cn", "ar", "half"))), "MRN")]
    if r == 2:
        return [pl(rng.choice(("订单号是", "我那个订单号 ", "订单编号 "))), (v.read(c.order, rng.choice(((16,), (4, 4, 4, 4))), rng.choice(("ar", "cn", "half"))), "ORDER_ID")]
    if r == 3:
        return [pl(rng.choice(("预约码是", "取号的预约码 "))), (v.read(c.code, (3, 3), "cn"), "ORDER_ID"), pl(rng.choice((" 对吧", " 是这个吗")))]
    return [pl(rng.choice(("快递单号 ", "药寄过来没有 单号是"))), (c.waybill[:2] + v.read(c.waybill[2:], (4, 4, 4), "cn") if c.waybill[0].isalpha() else v.read(c.waybill, (4, 4, 5), "cn"), "ORDER_ID")]


def t_relative_talk(rng, c, v):
    # the relative names themselves and the patient by nickname
    out = [pl(rng.choice(("我是他家属 我叫", "我是家属 叫我", "我是病人" + rng.choice(("女儿", "儿子", "爱人")) + " ")))]
    out += name_parts(rng, c.speaker, spell=rng.random() < 0.3)
    pron = c.kin[1] if c.kin else "他"
    out += [pl(rng.choice((" 平时都叫" + pron, " 我们家里叫" + pron, " 小名叫" if c.age < 14 else " 我们都叫" + pron)))]
    out += [(nick(rng, c.patient, child=c.age < 14), "NAME")]
    return out


PATIENT_ID_TURNS = (t_intro, t_surname, t_phone, t_id, t_address, t_hospital, t_dates, t_contact, t_numbers)
PATIENT_ID_W = (2, 2, 4, 2, 4, 4, 4, 2, 4)


def d_confirm(rng, c, v):
    r = rng.randrange(5)
    lead = pl(rng.choice(("您是说", "我重复一遍 ", "我确认一下 ", "是")))
    tail = pl(rng.choice(("对吧", " 对吗", " 是吧", " 没错吧")))
    if r == 0:
        return [lead] + phone_parts(rng, c, c.voice_doc, correct=False) + [tail]
    if r == 1:
        return [lead] + name_parts(rng, c.patient, spell=rng.random() < 0.4) + [pl(" ")] + k_age(rng, c) + [tail]
    if r == 2:
        return [lead] + address_parts(rng, c, depth=rng.randrange(1, 4), landmark=False) + [tail]
    if r == 3:
        return [lead, pl("身份证 "), (say_id(rng, c, c.voice_doc), "ID"), tail]
    return [lead, pl(rng.choice(("在", "之前是在"))), (hosp(rng, c.big), "HOSPITAL"), pl("做的检查 "), (say_date(rng, c.year, rng.randrange(1, 13), rng.randrange(1, 29)), "DATE"), tail]


def d_appoint(rng, c, v):
    m, d = rng.randrange(1, 13), rng.randrange(1, 29)
    out = [pl(rng.choice(("那我给您加个号 ", "您来门诊吧 ", "这样吧 ")))]
    out += [(say_date(rng, c.year, m, d, ("md", "ar_md", "md_ri")), "DATE")]
    out += [pl(" ")] + [(rng.choice(("上午", "下午", "上午八点", "下午两点半")), "time")] + [pl(" 到")]
    out += [(hosp(rng, c.big), "HOSPITAL"), pl(c.dept + rng.choice(("门诊", "", "二楼")) + " 找我 我姓"), (c.doctor["sur"][0], "NAME")]
    if rng.random() < 0.4:
        out += [pl(" 预约码是"), (c.code, "ORDER_ID")]
    return out


def d_nurse(rng, c, v):
    out = [pl(rng.choice(("您好 我是", "喂 您好 这边是")))]
    out += [(hosp(rng, rng.choice((c.big, c.local, c.level))), "HOSPITAL")]
    out += [pl(c.dept + rng.choice(("的护士", "护士站的")))]
    out += [(rng.choice((c.nurse["name"], "小" + c.nurse["sur"][0])), "NAME")]
    out += [pl(" 请问是")] + [(c.patient["name"], "NAME")] + [pl(rng.choice(("的家属吗", "本人吗", "吗")) + " 做个出院回访")]
    if rng.random() < 0.5:
        out += [pl(" 您是")] + [(say_date(rng, c.year, rng.randrange(1, 13), rng.randrange(1, 29), ("md", "md_ri")), "DATE")] + [pl("出院的")]
    return out


def d_cs(rng, c, v):
    plat = rng.choice(PLATFORMS)
    out = [pl("您好 这里是" + plat + "客服 " + rng.choice(("我叫", "工号就不说了 我是")))]
    out += [(c.cs["name"] if rng.random() < 0.5 else "小" + c.cs["given"][-1][0], "NAME")]
    out += [pl(rng.choice((" 您的订单", " 您那个退款 单号", " 查到您的订单了 订单号")))]
    out += [(v.read(c.order, (4, 4, 4, 4), rng.choice(("cn", "ar"))), "ORDER_ID")]
    out += [pl(rng.choice((" 药已经用" + rng.choice(COURIERS) + "发出了", " 退款三到五个工作日到账", " 收货电话是")))]
    if out[-1][0].endswith("电话是"):
        out += [(say_phone(rng, c, v), "PHONE")]
    return out


def d_refer(rng, c, v):
    other = make_person(rng)
    out = [pl(rng.choice(("这个建议您去", "最好到", "您可以去")))]
    out += [(hosp(rng, rng.choice((c.big,) + NATIONAL)), "HOSPITAL")]
    out += [pl(rng.choice(("找", "挂")))]
    out += [(other["name"] if rng.random() < 0.5 else other["sur"][0], "NAME"), pl(rng.choice(("主任", "教授", "医生")) + rng.choice(("的号", "看看", "")))]
    if rng.random() < 0.4:
        out += [pl(" 科室电话"), (c.area + "-" + c.land[len(c.area):] if rng.random() < 0.5 else c.voice_doc.read(c.land), "PHONE")]
    return out


def d_contact(rng, c, v):
    doc = c.doctor
    if rng.random() < 0.5:
        py = doc["sur"][1] + "".join(g[1][0] for g in doc["given"])
        return [pl("报告可以发我助理微信 "), (py + "_" + str(rng.randrange(10, 99)), "URL"), pl(" 备注一下" + rng.choice(("病人名字", "姓名和年龄")))]
    return [pl("片子发我邮箱 "), (doc["sur"][1] + "".join(g[1] for g in doc["given"]) + rng.choice(("@163.com", "@126.com", "@qq.com")), "EMAIL"),
            pl(rng.choice(("", " 写上名字")))]


DOCTOR_ID_TURNS = (d_confirm, d_appoint, d_nurse, d_cs, d_refer, d_contact)
DOCTOR_ID_W = (5, 3, 2, 1, 2, 1)


# --------------------------------------------------------------------------------------------- styles
PUNCT = "，。？！、"


def voicify(rng, parts, style):
    """ASR styling of plain parts only: punctuation, misheard words."""
    out = []
    for t, lab in parts:
        if lab is None:
            if style == "none":
                t = "".join(ch for ch in t if ch not in PUNCT)
            elif style == "space":
                t = "".join(" " if ch in PUNCT else ch for ch in t)
            elif style == "comma":
                t = t.replace(" ", "，").replace("。", "，")
                while "，，" in t:
                    t = t.replace("，，", "，")
            for a, b in ASR_WORDS:
                if a in t and rng.random() < 0.25:
                    t = t.replace(a, b, 1)
        out.append((t, lab))
    return out


def finish_parts(parts):
    """Merge adjacent plain parts, trim whitespace at the message's ends."""
    merged = []
    for t, lab in parts:
        if not t:
            continue
        if lab is None and merged and merged[-1][1] is None:
            merged[-1] = (merged[-1][0] + t, None)
        else:
            merged.append((t, lab))
    while merged and merged[0][1] is None and not merged[0][0].strip():
        merged.pop(0)
    if merged and merged[0][1] is None:
        merged[0] = (merged[0][0].lstrip(" ，"), None)
    while merged and merged[-1][1] is None and not merged[-1][0].strip():
        merged.pop()
    if merged and merged[-1][1] is None:
        merged[-1] = (merged[-1][0].rstrip(" ，"), None)
    return [p for p in merged if p[0]]


def render(parts, role, cid):
    text = []
    spans = []
    keep = []
    pos = 0
    for t, lab in parts:
        if lab is not None:
            if lab.isupper():
                spans.append([pos, pos + len(t), lab])
            else:
                keep.append([pos, pos + len(t), lab])
        text.append(t)
        pos += len(t)
    return {"text": "".join(text), "role": role, "consultation": cid, "spans": spans, "keep": keep}


# --------------------------------------------------------------------------------------------- consultations
def patient_turn(rng, c, p_id):
    if rng.random() < p_id:
        f = rng.choices(PATIENT_ID_TURNS, weights=PATIENT_ID_W)[0]
        if c.by_relative and rng.random() < 0.12:
            f = t_relative_talk
        parts = f(rng, c, c.voice_sp)
    else:
        parts = clinical_patient(rng, c)
    if rng.random() < 0.35:
        parts = filler(rng, 1.0) + parts
    if rng.random() < 0.2:
        parts = parts + [pl(rng.choice(("，", " ")) + rng.choice(("然后呢", "就是说", "嗯", "那个")) + " ")] + clinical_patient(rng, c)
    return parts


def doctor_turn(rng, c, p_id, doctor_only=False):
    if rng.random() < p_id:
        turns = (DOCTOR_ID_TURNS[:2] + DOCTOR_ID_TURNS[4:]) if doctor_only else DOCTOR_ID_TURNS
        weights = (DOCTOR_ID_W[:2] + DOCTOR_ID_W[4:]) if doctor_only else DOCTOR_ID_W
        f = rng.choices(turns, weights=weights)[0]
        return f(rng, c, c.voice_doc)
    return clinical_doctor(rng, c)


def voice_consultation(rng, c):
    msgs = []
    n = rng.randrange(8, 20)
    pstyle = rng.choice(("none", "space", "comma", "comma", "none"))
    doc_voice = rng.random() < 0.4
    first = True
    for i in range(n):
        side = "patient" if (i % 2 == 0 or rng.random() < 0.2) else "doctor"
        if side == "patient":
            parts = t_intro(rng, c, c.voice_sp) if first else patient_turn(rng, c, 0.5)
            first = False
            parts = voicify(rng, parts, pstyle)
            r = rng.random()
            if r < 0.2:
                parts = [pl("[语音转文字] ")] + parts
            elif r < 0.3:
                parts = [pl("[语音 %d秒]\n" % rng.randrange(3, 59))] + parts
        else:
            parts = doctor_turn(rng, c, 0.45)
            if doc_voice:
                parts = voicify(rng, parts, "comma")
            elif rng.random() < 0.5:
                parts = parts + [pl(rng.choice(("。", "？", "")))]
        msgs.append((parts, side))
    return msgs


def call_consultation(rng, c):
    msgs = []
    n = rng.randrange(6, 15)
    header = "【%s问诊记录】" % ("视频" if c.video else "电话")
    for i in range(n):
        turns = rng.randrange(1, 4)
        parts = []
        if i == 0:
            parts.append(pl(header + rng.choice(("\n", " ", "\n"))))
            first_side = "doctor"
        else:
            first_side = rng.choice(("patient", "doctor"))
        side = first_side
        staff = "医生"
        if rng.random() < 0.08:
            staff = rng.choice(("护士", "客服"))
        for j in range(turns):
            lab = c.sp_label if side == "patient" else staff
            if j:
                parts.append(pl("\n"))
            parts.append(pl(lab + "："))
            if side == "patient":
                body = patient_turn(rng, c, 0.5) if i else t_intro(rng, c, c.voice_sp)
                body = voicify(rng, body, "comma") if rng.random() < 0.5 else body
            else:
                if i == 0 and j == 0:
                    body = [pl(rng.choice(("喂 您好 能听到吗", "您好 我是", "喂")))]
                    if body[0][0] == "您好 我是":
                        body += [(c.doctor["sur"][0], "NAME"), pl(c.doc_title + " 您说一下情况")]
                elif staff == "护士" and j == 0:
                    body = d_nurse(rng, c, c.voice_doc)
                elif staff == "客服" and j == 0:
                    body = d_cs(rng, c, c.voice_doc)
                elif staff != "医生":
                    body = [pl(rng.choice(("好的 记下了", "嗯嗯 好的", "好 我这边登记一下", "您稍等 我查一下")))]
                else:
                    body = doctor_turn(rng, c, 0.45, doctor_only=True)
            if j < turns - 1 and rng.random() < 0.2:
                # interruption: the turn is cut and the other side takes over
                body = [body[0]] if body and body[0][1] is None else [pl(rng.choice(("我那个", "就是", "他那个")))]
                body = body + [pl("——")]
            parts.extend(body)
            side = "doctor" if side == "patient" else "patient"
        msgs.append((parts, first_side))
    return msgs


def consultation(rng, cid):
    c = make_case(rng, cid)
    raw = voice_consultation(rng, c) if c.mode == "voice" else call_consultation(rng, c)
    out = []
    for parts, side in raw:
        parts = finish_parts(parts)
        if not parts:
            continue
        out.append(render(parts, side, cid))
    return out


def _check(m):
    t = m["text"]
    if not t or t != t.strip():
        raise ValueError("message text empty or padded: %r" % t)
    allsp = [(s, e, k, "span") for s, e, k in m["spans"]] + [(s, e, k, "keep") for s, e, k in m["keep"]]
    for lst in (m["spans"], m["keep"]):
        if lst != sorted(lst):
            raise ValueError("unsorted")
    allsp.sort()
    last = 0
    for s, e, k, w in allsp:
        if not (0 <= s < e <= len(t)):
            raise ValueError("bad offsets %r in %r" % ((s, e, k), t))
        if s < last:
            raise ValueError("overlap %r in %r" % ((s, e, k), t))
        seg = t[s:e]
        if seg != seg.strip():
            raise ValueError("span padded %r in %r" % (seg, t))
        if w == "span" and k not in CATEGORIES:
            raise ValueError("category %r" % k)
        if w == "keep" and k not in KEEP_KINDS:
            raise ValueError("keep kind %r" % k)
        last = e
    if m["role"] not in ("patient", "doctor"):
        raise ValueError("role")


CATEGORIES = ("NAME", "ADDRESS", "HOSPITAL", "DATE", "PHONE", "ID", "EMAIL", "URL", "MRN", "ORDER_ID")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")


def generate(seed=0, n=3000):
    rng = random.Random(seed)
    out = []
    cid = 0
    while len(out) < n:
        for m in consultation(rng, cid):
            _check(m)
            out.append(m)
        cid += 1
    return out[:n]


def corpus_sha256(msgs):
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify():
    got = corpus_sha256(generate(0, 3000))
    if got != CORPUS_SHA256:
        raise RuntimeError("consult_j corpus changed: %s != %s" % (got, CORPUS_SHA256))
    return True


def _mark(m):
    t = m["text"]
    out = []
    pos = 0
    for s, e, k in m["spans"]:
        out.append(t[pos:s] + "【" + t[s:e] + "】")
        pos = e
    out.append(t[pos:])
    return "".join(out)


def main(argv):
    msgs = generate(0, 3000)
    if "--verify" in argv:
        verify()
        print("verified", CORPUS_SHA256)
    cats = [0] * len(CATEGORIES)
    kinds = [0] * len(KEEP_KINDS)
    with_id = 0
    for m in msgs:
        for s, e, k in m["spans"]:
            cats[CATEGORIES.index(k)] += 1
        for s, e, k in m["keep"]:
            kinds[KEEP_KINDS.index(k)] += 1
        if m["spans"]:
            with_id += 1
    print("messages", len(msgs), "consultations", msgs[-1]["consultation"] + 1)
    for k, n in zip(CATEGORIES, cats):
        print("  %-9s %5d" % (k, n))
    print("  identifiers", sum(cats))
    for k, n in zip(KEEP_KINDS, kinds):
        print("  keep %-9s %5d" % (k, n))
    print("share of messages with an identifier: %.1f %%" % (100.0 * with_id / len(msgs)))
    print("sha256", corpus_sha256(msgs))
    rng = random.Random(7)
    for m in rng.sample(msgs, 10):
        print("---", m["role"], m["consultation"])
        print(_mark(m))


if __name__ == "__main__":
    main(sys.argv[1:])
