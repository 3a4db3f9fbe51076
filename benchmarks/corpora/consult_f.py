"""Held-out test corpus F for text de-identification: consultations as runs of a platform's service flow.

Provenance: a sixth generator, written from the category definitions alone (the ``text.policy`` block of
``conf/deid/default.yaml`` and its comments, and the module docstrings of ``benchmarks/corpora/consult_b.py``,
``consult_c.py``, ``consult_d.py`` and ``consult_e.py``), without reading the detector, its rules, its
lexicons, its statistical layer, its own synthetic generator, the benchmark script, the tests or the code of
the other corpora, and without ever running a detector on it.  Frozen: measurement only, never tuning.  If
a rule is changed because of a message in this corpus, the corpus no longer measures anything; write a new
one.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only, no
set/dict iteration order or hash randomisation involved).  The corpus for seed 0 / 3000 messages is frozen
by ``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  ``python
benchmarks/corpora/consult_f.py`` prints the counts per category and keep kind, the share of messages with
an identifier, the number of consultations and a few marked samples.

Each message::

    {"text": str, "role": "patient" | "doctor", "consultation": int,
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or a
keep span; no span or keep span starts or ends with whitespace.  ``generate(seed, n)`` returns the first
``n`` messages of an endless stream of whole consultations (``consultation`` numbers them; the messages of
one consultation are consecutive), so a shorter corpus is a prefix of a longer one.  For seed 0 / 3000
messages: 267 consultations, about 57 % of the messages carry an identifier.

Design (unlike B's fixed scenarios, C's per-message slot grammar, D's case-then-turns conversations and
E's per-message fake case record): a consultation is a RUN OF A PLATFORM'S SERVICE FLOW.  A flow is drawn
first and fixes who writes, in which order and which identifiers the workflow itself asks for:

* 好大夫-style 图文问诊: greeting burst, the platform's 病情描述 card, pictures, an OCR'd lab report pasted
  with its header and staff footer, the doctor's reading, the doctor's assistant asking for 姓名/身份证/手机
  to 加号, a bare reply, the 加号 confirmation (date, hospital + campus, 加号码), sometimes the assistant's
  WeChat, sometimes a later session (pathology number, new values);
* 互联网医院 复诊续方: a 复诊续方 card (phone, hospital, last visit, 社保卡号), the record number of the
  offline visit, a prescription card (处方编号, prescribing doctor), the pharmacist's audit line, a delivery
  slip (收货人/电话/所在地区/详细地址 as separate fields, or one sentence), the courier number;
* 京东健康-style 买药问诊: a 用药需求 card (用药人, sometimes 身份证号), a short check, then after-sales
  (order and waybill numbers, double payment with WeChat/Alipay transaction and refund numbers, a corrected
  delivery address);
* 平安好医生-style quick triage: mostly clinical, then "我在某地，去哪家医院好" and the doctor naming
  hospitals, sometimes a patient pushing a WeChat/QQ contact and the doctor declining;
* a hospital WeChat account's online service (客服): report look-up by name + card/registration number,
  an appointment change (the bare 3/15 or 3.15 shape only after 预约), posting a copy of the record
  (ID number, addressee, address, e-mail), e-invoices (payment numbers, a hospital landline or 400 line);
* a nurse's discharge follow-up (name check, discharge date, 复查 date, 住院号, the ward's landline,
  a questionnaire link);
* a long-term 患者报到 thread (the date of the operation, the record number, one to three later sessions of
  dated results, how to book again, a shared article link);
* a parent with a sick child, where the child's nickname carries the conversation.

Inside a flow each turn is an utterance of parts (plain / category / keep kind); patient utterances carry
soft break points and are cut into several messages the way people hit send mid-thought (a chain split
there becomes two spans, a name never is); in the WeChat-based flows a reply may quote the previous
staff message (「张主任：…」 plus the dashed line) and so repeat its identifiers.  A case under the flow
gives the people (patient, the relative who writes, doctor, assistant, nurse, pharmacist, lab staff), a
home place, two hospitals and the numbers; the writing habits are per consultation: voice-input
transcripts (no punctuation, fillers, ages/dates/phones in Chinese numerals), ASCII / space / mixed /
emphatic punctuation, full-width digits everywhere or only in identifiers, colloquial typos, emoji.
Staff turns and the platform's cards keep Chinese punctuation; a card filled in by the patient side
(病情描述, 复诊续方, 用药需求) is a "patient" message, one issued for the doctor side (处方, 审核, 物流) is a
"doctor" message, and so are the assistant's, the nurse's, the pharmacist's and customer service's turns.

Pools are this module's own: surnames weighted by rough census shares with rare (禚, 隗, 仉, 逄, 訾 ...) and
compound ones (欧阳, 万俟, 澹台 ...); given names by decade of birth (1930s to 2010s) with Cantonese and
Minnan flavours and Uyghur, Tibetan, Mongolian and Yi names in their regions; all 31 provincial units with
several prefectures each and their districts / counties / banners; generated towns (镇/乡/街道), villages
(王家湾村, 石门村) with 组/队, roads, compounds and 栋/单元/室; famous hospitals with their short forms and
generated city, county, town and village institutions.

Annotation conventions (those of corpora B-E, which define the categories, plus the choices below):

* NAME: the name only, never the title, kinship word or role ("我妈", "主任", "护士", "助理" are outside):
  patients, relatives, doctors, assistants (助理【小靳】), nurses, pharmacists, lab staff in report
  footers, the doctor's name heading a quoted message; a surname with a title (【王】主任) is the name
  part; nicknames (【老李】, 【小于】, 【阿娟】, doubled 【豆豆】, a child's pet name also in "【航航】妈妈")
  and minority names (【阿依古丽·买买提】, 【扎西顿珠】) are whole.  A name is NAME in every message it
  recurs in, quotes included.
* PHONE: mobiles plain, 3-4-4 with dashes or spaces, +86 / (+86), read out in Chinese numerals (幺);
  landlines with area code (brackets, dash, space, none) and 转/- extension inside the span; 400 lines.
  120 / 110 / 114 / 12320 / 12345 and the 5-digit 95xxx service lines are plain (they reach a service,
  not a person).
* ID: 18-digit resident IDs with a valid GB 11643 check digit (also 6-8-4 with spaces, lower-case x),
  passports (E + 8 digits) and Hong Kong-Macau permits (C + 8) after their cue, social security card
  numbers after 社保卡号 or 证件号码; the cue is outside.
* EMAIL (incl. ``#``, ``(at)`` and full-width ＠ for ``@``); URL: links (a doctor's page, articles, short
  links, questionnaires, cloud drives), WeChat IDs and QQ numbers given as contacts.  Choice: a mobile
  number given as one's WeChat ("我微信是139…") is URL, as the cue says what it is used as (corpus D's
  choice).
* ADDRESS: every unit below the province: a city alone (绵阳, 绵阳市), a district / county / banner alone
  or in short form (番禺, 上蔡), a town with or without its county, a village with its 组/队, a road and
  number, a compound with building/unit/room, and whole chains; a province written in front is inside;
  a delivery slip's "所在地区：浙江省 宁波市 象山县" (spaced) is one span and its 详细地址 a second one.
  A province alone (我是河南的, 在广东打工, 医保是四川的) is plain, and so are place names in food,
  drug and disease names (兰州拉面, 云南白药, 日本脑炎) and inside hospital names (HOSPITAL).  Choice: a
  place inside a hospital (门诊楼3楼, 12床) is plain.
* HOSPITAL: named institutions and their short forms (华西, 浙一, 301, 吉大一院, 市一院, 市二院, 市中医院,
  市妇幼, 省肿瘤医院, 省儿童医院, 伊川县医院, 昌吉人民医院), campuses written after the name
  (…西院区, inside the span), town health centres, village clinics, 某氏诊所, community health centres
  named by their 街道.  Generic back-references are plain even after the full name (县医院, 市医院, 区医院,
  省人民医院, 省人医, 市人民医院, 当地医院, 社区医院, 三甲医院, 大医院, 那边医院, 卫生院, 诊所); the
  department after a hospital is plain.  Platforms (好大夫, 京东健康, 平安好医生 ...) are plain.
* DATE: every calendar date finer than a year, whatever it dates (onset, visits, operations, discharge,
  reports, payments, appointments): 2024年3月5日, 2024-03-05, 2024/3/5, 2024.03.05, 24.3.5, 20240305,
  3月5号, 3月5日, 3月5, 3.5号, 今年/去年 + month + day, year + month (2023年5月, 2023年5月份, 去年5月),
  voice forms (三月五号), bare 3/5 and 3.5 only after 预约.  A clock time after a date is a separate keep
  "time"; a year alone and a month alone are keep "time"; relative days and weekdays are keep "time".
* MRN: 门诊号, 住院号, 病案号, 病历号, ID号, 登记号, 就诊卡号, 医保卡号, 检查号, 报告编号, 病理号 (the
  cue outside).  ORDER_ID: platform orders, prescription numbers, 加号码 / 预约码, WeChat Pay and Alipay
  transaction numbers, 缴费 / 挂号单号, refund numbers, courier waybills.
* Keep spans: "age" (58岁, 38周岁, 三十三岁, 2岁半, 1岁5个月, 8个月), "duration", "dose" (amount + unit:
  20mg, 1片, 半片, 5ml, 薄薄一层; the frequency is plain), "lab" (test name + value + unit as written,
  with its separator; reference ranges alone; lesion sizes), "vital" (sign + value: 血压150/95mmHg,
  高压160, BP 145/90mmHg, 体温38.5℃, 心率102次/分, 脉搏80, 体重19kg, 身高156cm, 血氧95%; a bare
  temperature after 最高烧到), "time" (relative days, times of day, clock times, a year alone, a month
  alone, "下周" / "三个月后" in advice).
"""

import datetime
import hashlib
import json
import random
import re

CORPUS_SHA256 = "d75b915b6ca512abc5b09094dd9b7ed33288b3812d030baface08aadbc52949c"

# ----------------------------------------------------------------------------------------------- pools
CATS = ("NAME", "PHONE", "ID", "EMAIL", "URL", "ADDRESS", "HOSPITAL", "DATE", "MRN", "ORDER_ID")
KEEPS = ("age", "duration", "dose", "lab", "vital", "time")
BRK = "\u00a6"  # a place where a patient may hit "send" and go on in a new message

# surname, weight (per mille, roughly the census shares; rare and compound ones at the tail)
_SURNAMES = (
    "王70 李70 张68 刘54 陈45 杨31 黄22 赵20 吴20 周19 徐14 孙13 马12 朱12 胡11 郭11 何10 林10 高10 罗9 "
    "郑9 梁8 谢7 宋7 唐7 许6 韩6 邓6 冯6 曹6 彭6 曾5 肖5 田5 董5 潘4 袁4 蔡4 蒋4 余4 于4 杜4 叶4 程4 "
    "魏4 苏3 吕3 丁3 任3 卢3 姚3 沈3 钟3 姜3 崔3 谭3 陆3 范2 汪2 廖2 石2 金2 韦2 贾2 夏2 付2 方2 邹2 "
    "熊2 白2 孟2 秦2 邱2 侯2 江2 尹2 薛2 闫2 段2 雷2 龙2 黎2 史2 陶2 贺2 毛2 郝2 顾2 龚2 邵2 万1 覃1 "
    "武1 钱1 戴1 严1 莫1 孔1 向1 常1 汤1 康1 易1 乔1 赖1 文1 施1 洪1 牛1 樊1 葛1 邢1 安1 齐1 伍1 庞1 "
    "颜1 倪1 温1 聂1 章1 鲁1 岳1 翟1 殷1 詹1 申1 欧1 耿1 关1 兰1 焦1 俞1 左1 柳1 甘1 祝1 包1 宁1 尚1 "
    "符1 舒1 阮1 柯1 纪1 梅1 童1 凌1 毕1 单1 季1 裴1 霍1 涂1 成1 苗1 谷1 盛1 曲1 翁1 冉1 骆1 蓝1 路1 "
    "游1 辛1 靳1 管1 柴1 蒙1 鲍1 华1 喻1 祁1 蒲1 房1 滕1 屈1 饶1 解1 牟1 艾1 尤1 阳1 时1 穆1 农1 司1 "
    "卓1 古1 吉1 缪1 简1 车1 项1 连1 麦1 褚1 娄1 窦1 戚1 岑1 景1 党1 宫1 费1 卜1 冷1 晏1 席1 卫1 米1 "
    "柏1 宗1 瞿1 桂1 全1 佟1 应1 臧1 闵1 苟1 邬1 边1 卞1 姬1 师1 仇1 栾1 隋1 商1 刁1 沙1 荣1 巫1 寇1 "
    "桑1 郎1 甄1 丛1 仲1 虞1 敖1 巩1 佘1 池1 查1 麻1 苑1 迟1 邝1 禚1 隗1 仉1 亓1 逄1 笪1 厍1 訾1 蹇1 "
    "郗1 眭1 乜1 昝1 璩1 阚1 揭1 剡1 逯1 芮1 扈1 郦1 鄢1 阎1 铁1 暴1 植1 满1 欧阳1 司马1 上官1 诸葛1 "
    "东方1 皇甫1 令狐1 慕容1 尉迟1 端木1 公孙1 夏侯1 万俟1 呼延1 长孙1 宇文1 司徒1 澹台1"
)
SURNAMES = []
SURNAME_W = []
for _tok in _SURNAMES.split():
    _i = len(_tok.rstrip("0123456789"))
    SURNAMES.append(_tok[:_i])
    SURNAME_W.append(int(_tok[_i:]))

# given names by the decade of birth (and a few regional flavours); none of them is an everyday word
GIVEN = {
    "1930": "德福 秀英 桂兰 淑珍 玉兰 凤英 德胜 振华 桂英 秀兰 明德 金凤 玉珍 素芬 淑英 永福 春生 福海 兰英 "
            "招娣 有才 宝山 凤兰 玉芬 守仁 德贵 翠英 长庚 秀珍 荣华 桂芝 殿臣 文彬",
    "1955": "卫东 建华 红梅 丽华 志强 国强 建军 秀芳 爱华 桂芳 向东 红霞 丽萍 建平 晓红 德明 永刚 春梅 玉霞 "
            "美玲 建国 国庆 跃进 援朝 卫红 胜利 东升 学军 秀琴 淑华 立新 爱民 凤琴 金花 庆华 国华 建设",
    "1975": "伟 磊 静 敏 丽娟 晓燕 海涛 鹏 军 勇 婷 杰 丹 亮 艳 辉 晓东 志刚 雪梅 春燕 俊杰 小军 海燕 "
            "文杰 红艳 丽丽 建伟 晓丽 永红 秀梅 德华 立军 海军 玉梅 凤霞 丽君 春雷 国栋",
    "1990": "婷婷 佳琪 子豪 浩 宇 晨 欣 思雨 梦瑶 雨欣 嘉怡 俊豪 雅琪 梦琪 文博 天宇 佳怡 诗涵 鑫 博 "
            "倩 琳 帅 超 娜 慧敏 晓彤 佳慧 宇航 子健 梦洁 一帆 心怡 雪莹 俊熙 晨曦 思琪 明轩",
    "2008": "子涵 梓轩 一诺 浩然 欣怡 雨桐 梓萱 宇轩 沐宸 若汐 思彤 奕辰 锦程 语嫣 可馨 梓睿 芊芊 "
            "子墨 梓涵 一鸣 皓轩 诗琪 依诺 嘉懿 沐阳 晨阳 语桐 书瑶 明哲 昊然 安琪 煜祺 景行 知夏",
    "yue": "嘉欣 家豪 志豪 咏诗 伟明 锦辉 丽芬 少华 惠玲 卓贤 嘉敏 振邦 凯琳 炜杰 泳怡 绮雯",
    "min": "雅婷 淑芬 志明 俊宏 美玲 宗翰 怡君 建宏 惠美 文雄 秀凤 金枝 阿水",
}
MINORITY = {
    "新疆": "阿依古丽·买买提 艾力·吐尔逊 古丽娜尔·阿不都 买买提江·艾山 热依拉·艾则孜 努尔买买提·吐逊 帕提古丽·热合曼",
    "西藏": "扎西顿珠 次仁卓玛 格桑 央金拉姆 达瓦次仁 边巴 拉巴次仁 德吉央宗",
    "青海": "才让 卓玛 索南才让 仁青措 多杰 更登",
    "内蒙古": "巴特尔 其其格 乌兰图雅 苏日娜 哈斯朝鲁 额尔敦 娜仁高娃",
    "四川": "吉克曲布 阿木呷 沙马阿各 曲比阿果 阿说木呷 吉伍阿呷",
}
CHILD_NICK = "豆豆 乐乐 果果 糖糖 朵朵 小宝 多多 团团 妞妞 航航 西西 安安 甜甜 壮壮 可可 贝贝 宁宁 轩轩 笑笑 毛毛".split()

# province | short | city[=full]:county,county;...
_PLACES = """
浙江省|浙江|杭州:西湖区,余杭区,萧山区,临安区,桐庐县,淳安县;宁波:鄞州区,海曙区,慈溪市,余姚市,宁海县,象山县;温州:鹿城区,瑞安市,乐清市,苍南县,永嘉县;金华:婺城区,义乌市,东阳市,永康市,兰溪市;台州:椒江区,温岭市,临海市,天台县;丽水:莲都区,龙泉市,缙云县,遂昌县
江苏省|江苏|南京:鼓楼区,玄武区,江宁区,浦口区,六合区;苏州:姑苏区,吴中区,昆山市,常熟市,张家港市;徐州:云龙区,铜山区,沛县,睢宁县,邳州市;南通:崇川区,如皋市,海门区,启东市;盐城:亭湖区,东台市,建湖县,阜宁县;淮安:清江浦区,涟水县,盱眙县
广东省|广东|广州:天河区,越秀区,海珠区,番禺区,白云区,花都区;深圳:南山区,福田区,宝安区,龙岗区,龙华区;佛山:禅城区,南海区,顺德区;湛江:赤坎区,雷州市,廉江市,遂溪县;梅州:梅江区,兴宁市,五华县,大埔县;汕头:金平区,潮阳区,澄海区;茂名:茂南区,信宜市,化州市,高州市
河南省|河南|郑州:金水区,二七区,中原区,新郑市,巩义市,中牟县;洛阳:涧西区,西工区,伊川县,偃师区,栾川县,嵩县;周口:川汇区,郸城县,太康县,鹿邑县,沈丘县;南阳:卧龙区,宛城区,邓州市,唐河县,镇平县;信阳:浉河区,固始县,潢川县,光山县;商丘:梁园区,永城市,夏邑县,柘城县;驻马店:驿城区,确山县,汝南县,上蔡县
四川省|四川|成都:武侯区,锦江区,青羊区,金牛区,成华区,双流区,郫都区,都江堰市;绵阳:涪城区,江油市,三台县,盐亭县;南充:顺庆区,阆中市,南部县,营山县;宜宾:翠屏区,南溪区,江安县,长宁县;凉山=凉山彝族自治州:西昌市,会理市,盐源县,昭觉县;达州:通川区,宣汉县,渠县,大竹县
山东省|山东|济南:历下区,市中区,槐荫区,章丘区,平阴县;青岛:市南区,崂山区,黄岛区,即墨区,胶州市,平度市;临沂:兰山区,罗庄区,沂水县,费县,平邑县;潍坊:奎文区,寿光市,诸城市,青州市,昌乐县;菏泽:牡丹区,曹县,单县,郓城县;聊城:东昌府区,临清市,阳谷县,茌平区
湖北省|湖北|武汉:武昌区,洪山区,江汉区,汉阳区,江夏区,黄陂区;宜昌:西陵区,夷陵区,宜都市,当阳市,秭归县;襄阳:襄城区,樊城区,枣阳市,老河口市,谷城县;荆州:沙市区,荆州区,洪湖市,监利市,公安县;黄冈:黄州区,麻城市,武穴市,蕲春县,浠水县;恩施=恩施土家族苗族自治州:恩施市,利川市,建始县,巴东县
湖南省|湖南|长沙:岳麓区,芙蓉区,天心区,雨花区,开福区,浏阳市,宁乡市;株洲:天元区,醴陵市,攸县,茶陵县;衡阳:蒸湘区,耒阳市,常宁市,衡东县,祁东县;邵阳:双清区,武冈市,邵东市,隆回县,新邵县;常德:武陵区,津市市,澧县,桃源县;怀化:鹤城区,洪江市,沅陵县,芷江侗族自治县
河北省|河北|石家庄:长安区,桥西区,裕华区,正定县,藁城区,辛集市;保定:竞秀区,莲池区,涿州市,定州市,安国市,易县;邯郸:丛台区,复兴区,武安市,涉县,魏县;唐山:路北区,路南区,迁安市,遵化市,滦州市;沧州:运河区,任丘市,黄骅市,泊头市,献县;张家口:桥东区,宣化区,张北县,蔚县
山西省|山西|太原:小店区,迎泽区,杏花岭区,尖草坪区,清徐县;大同:平城区,云冈区,阳高县,天镇县,浑源县;运城:盐湖区,永济市,河津市,临猗县,芮城县;长治:潞州区,上党区,襄垣县,沁县;临汾:尧都区,侯马市,霍州市,洪洞县
陕西省|陕西|西安:雁塔区,碑林区,未央区,长安区,临潼区,蓝田县,周至县;宝鸡:渭滨区,金台区,陈仓区,凤翔区,岐山县;咸阳:秦都区,兴平市,彬州市,礼泉县,乾县;汉中:汉台区,南郑区,城固县,洋县;榆林:榆阳区,神木市,府谷县,靖边县
甘肃省|甘肃|兰州:城关区,七里河区,安宁区,西固区,榆中县,皋兰县;天水:秦州区,麦积区,甘谷县,秦安县,武山县;张掖:甘州区,山丹县,临泽县,民乐县;庆阳:西峰区,庆城县,宁县,镇原县;定西:安定区,通渭县,陇西县,岷县
青海省|青海|西宁:城东区,城西区,城北区,湟中区,大通回族土族自治县;海东:乐都区,平安区,民和回族土族自治县,互助土族自治县;海西=海西蒙古族藏族自治州:格尔木市,德令哈市,都兰县
宁夏回族自治区|宁夏|银川:兴庆区,金凤区,西夏区,永宁县,贺兰县;石嘴山:大武口区,惠农区,平罗县;固原:原州区,西吉县,隆德县,泾源县;吴忠:利通区,青铜峡市,盐池县,同心县
新疆维吾尔自治区|新疆|乌鲁木齐:天山区,沙依巴克区,新市区,水磨沟区,米东区;喀什=喀什地区:喀什市,疏附县,疏勒县,莎车县,叶城县;伊犁=伊犁哈萨克自治州:伊宁市,奎屯市,霍城县,察布查尔锡伯自治县;阿克苏=阿克苏地区:阿克苏市,库车市,温宿县,沙雅县;昌吉=昌吉回族自治州:昌吉市,阜康市,呼图壁县,玛纳斯县
内蒙古自治区|内蒙古|呼和浩特:新城区,回民区,赛罕区,土默特左旗,托克托县;包头:昆都仑区,青山区,东河区,固阳县,达尔罕茂明安联合旗;赤峰:红山区,松山区,宁城县,敖汉旗,巴林左旗;锡林郭勒=锡林郭勒盟:锡林浩特市,二连浩特市,正蓝旗,多伦县;鄂尔多斯:东胜区,康巴什区,准格尔旗,伊金霍洛旗
辽宁省|辽宁|沈阳:和平区,沈河区,皇姑区,铁西区,浑南区,新民市,法库县;大连:中山区,西岗区,沙河口区,甘井子区,金州区,瓦房店市,庄河市;鞍山:铁东区,立山区,海城市,台安县,岫岩满族自治县;锦州:古塔区,凌河区,凌海市,北镇市,黑山县;丹东:振兴区,东港市,凤城市,宽甸满族自治县
吉林省|吉林|长春:朝阳区,南关区,绿园区,二道区,九台区,榆树市,农安县;吉林:船营区,丰满区,蛟河市,桦甸市,磐石市;四平:铁西区,双辽市,梨树县,伊通满族自治县;延边=延边朝鲜族自治州:延吉市,图们市,敦化市,珲春市,龙井市;通化:东昌区,梅河口市,集安市,辉南县
黑龙江省|黑龙江|哈尔滨:南岗区,道里区,香坊区,松北区,呼兰区,五常市,尚志市,巴彦县;齐齐哈尔:龙沙区,建华区,讷河市,龙江县,克山县;牡丹江:东安区,爱民区,海林市,宁安市,穆棱市;佳木斯:前进区,向阳区,富锦市,同江市,桦南县;绥化:北林区,安达市,肇东市,海伦市,望奎县
安徽省|安徽|合肥:蜀山区,包河区,庐阳区,瑶海区,肥西县,肥东县,长丰县,庐江县;芜湖:镜湖区,鸠江区,无为市,南陵县;阜阳:颍州区,颍泉区,界首市,临泉县,太和县,阜南县;安庆:迎江区,桐城市,潜山市,怀宁县,太湖县;六安:金安区,裕安区,霍邱县,舒城县,金寨县;宿州:埇桥区,砀山县,萧县,灵璧县,泗县
江西省|江西|南昌:东湖区,西湖区,青山湖区,红谷滩区,南昌县,进贤县;赣州:章贡区,南康区,瑞金市,于都县,兴国县,信丰县;九江:浔阳区,濂溪区,瑞昌市,庐山市,都昌县,修水县;上饶:信州区,广丰区,鄱阳县,余干县,玉山县;吉安:吉州区,井冈山市,泰和县,永丰县
福建省|福建|福州:鼓楼区,台江区,仓山区,晋安区,长乐区,福清市,闽侯县,连江县;厦门:思明区,湖里区,集美区,海沧区,同安区,翔安区;泉州:鲤城区,丰泽区,晋江市,石狮市,南安市,安溪县,惠安县;漳州:芗城区,龙海区,漳浦县,云霄县,平和县;莆田:城厢区,荔城区,仙游县;龙岩:新罗区,永定区,长汀县,上杭县
广西壮族自治区|广西|南宁:青秀区,兴宁区,西乡塘区,江南区,武鸣区,横州市,宾阳县;柳州:城中区,鱼峰区,柳江区,柳城县,融安县,三江侗族自治县;桂林:秀峰区,象山区,七星区,临桂区,阳朔县,全州县;玉林:玉州区,北流市,容县,陆川县,博白县;百色:右江区,田阳区,靖西市,平果市,凌云县
海南省|海南|海口:龙华区,秀英区,美兰区,琼山区;三亚:吉阳区,天涯区,海棠区,崖州区;儋州:那大镇,白马井镇,和庆镇;琼海:嘉积镇,博鳌镇,长坡镇
云南省|云南|昆明:五华区,盘龙区,官渡区,西山区,呈贡区,安宁市,宜良县,嵩明县;曲靖:麒麟区,宣威市,陆良县,会泽县,罗平县;大理=大理白族自治州:大理市,祥云县,宾川县,鹤庆县,剑川县;红河=红河哈尼族彝族自治州:蒙自市,个旧市,开远市,建水县,弥勒市;昭通:昭阳区,镇雄县,彝良县,威信县;普洱:思茅区,宁洱哈尼族彝族自治县,景东彝族自治县
贵州省|贵州|贵阳:南明区,云岩区,花溪区,观山湖区,白云区,清镇市,修文县;遵义:红花岗区,汇川区,仁怀市,赤水市,湄潭县,桐梓县;毕节:七星关区,大方县,黔西市,威宁彝族回族苗族自治县,织金县;黔东南=黔东南苗族侗族自治州:凯里市,雷山县,黎平县,从江县;六盘水:钟山区,盘州市,水城区
西藏自治区|西藏|拉萨:城关区,堆龙德庆区,达孜区,林周县,墨竹工卡县;日喀则:桑珠孜区,江孜县,定日县,拉孜县;林芝:巴宜区,米林市,波密县,工布江达县;昌都:卡若区,江达县,贡觉县,芒康县
北京市|北京|北京:朝阳区,海淀区,丰台区,西城区,东城区,昌平区,大兴区,通州区,顺义区,房山区,密云区,延庆区
上海市|上海|上海:浦东新区,徐汇区,黄浦区,静安区,长宁区,普陀区,闵行区,宝山区,嘉定区,松江区,青浦区,奉贤区,崇明区
天津市|天津|天津:和平区,河西区,南开区,河北区,红桥区,滨海新区,西青区,津南区,北辰区,武清区,宝坻区,蓟州区
重庆市|重庆|重庆:渝中区,江北区,沙坪坝区,九龙坡区,南岸区,渝北区,巴南区,万州区,涪陵区,永川区,合川区,开州区,云阳县,奉节县,巫山县,秀山土家族苗族自治县
"""
PROVINCES = []  # (full, short, [(city_short, city_full, [county,...]), ...], municipality?)
for _line in _PLACES.strip().splitlines():
    _pf, _ps, _rest = _line.split("|")
    _cities = []
    for _c in _rest.split(";"):
        _name, _cs = _c.split(":")
        _short, _, _full = _name.partition("=")
        _cities.append((_short, _full or _short + "市", _cs.split(",")))
    PROVINCES.append((_pf, _ps, _cities, _pf.endswith("市")))
PROV_W = [5, 5, 6, 6, 5, 6, 4, 4, 4, 3, 3, 2, 1, 1, 2, 2, 3, 2, 3, 4, 3, 3, 3, 1, 3, 2, 1, 3, 3, 2, 2]

AREA_CODES = ("010 021 022 023 0571 0574 0577 0579 025 0512 0516 0513 020 0755 0757 0759 0371 0379 0394 0377 "
              "028 0816 0817 0531 0532 0539 027 0717 0716 0731 0733 0734 0311 0312 0310 0351 0352 029 0917 0931 "
              "0938 0971 0951 0991 0998 0471 0472 024 0411 0412 0431 0432 0451 0452 0551 0553 0558 0791 0797 0591 "
              "0592 0595 0771 0772 0898 0871 0874 0851 0852 0891").split()
ID_REGIONS = ("330106 330110 330282 410102 410303 410329 411627 511324 510104 510107 513401 440305 440106 440883 "
              "320102 320582 321081 370102 370212 371302 420106 420111 421182 430104 430181 130102 130682 140105 "
              "140202 610113 610302 620102 620521 630102 640104 650102 653101 150102 150203 210102 210281 220104 "
              "222401 230103 231084 340104 341204 360102 360721 350102 350582 450103 450881 460106 530102 532901 "
              "520102 522601 540102 110105 110108 310104 310115 120101 500103 500235").split()

ROADS = ("人民路 解放路 建设路 中山路 文化路 新华路 胜利路 和平路 健康路 光明路 朝阳路 长江路 黄河路 工农路 团结路 "
         "幸福路 青年路 东风路 红旗路 迎宾大道 滨江路 学院路 府前街 北大街 南关街 西环路 东环路 站前路 车站路 "
         "育才路 振兴路 友谊路 复兴路 民主路 公园路 花园路 桂花巷 槐树街 柳荫街 石板巷 河西路 环城北路 工业大道 "
         "开发区大道 纬二路 经三路 金水路 五一路 八一路 中兴路 太平街").split()
COMPOUNDS = ("阳光花园 锦绣华庭 幸福家园 金色水岸 翠湖苑 御景湾 东方明珠苑 滨河小区 书香门第 万象新城 紫荆苑 "
             "丽景湾 桂园小区 枫林绿洲 新世纪花园 龙湖春江 和谐家园 盛世华府 梧桐苑 碧水蓝天 南湖一品 "
             "玫瑰园 怡景苑 香榭丽舍 金桂苑 学府名邸 铁路新村 纺织厂家属院 教育局宿舍 烟厂小区 电力小区 "
             "供销社家属楼 机械厂生活区 农行宿舍 红星小区 安居苑 康乐新村 天鹅湖小区").split()
_T1 = list("东西南北大小新老高龙石白马黄青柳杨桥河沙金凤梅桃花松莲双三五七长清平安永太和兴富庆官仁")
_T2 = list("坪河桥集店庄岭湾塘口山溪坝沟铺营寨圩岗冲湖阳港城埠头田堡台洼")
_V2 = ("家庄 庄 家湾 家村 营 楼 寨 家坝 屯 洼 家岭 家沟 家店 家圩").split()
_V1 = ("东坪 石门 大河 柳树 枣林 杏花 双井 新建 红光 前进 团结 桃园 黄土 白沙 青山 龙泉 凤凰 长岭 "
       "槐树 三合 五星 胜利 永安 安乐 丰收 金鸡 望江 荷塘 梨园").split()

# famous hospitals: full | short forms | city (the short forms are names too: they identify one institution)
_FAMOUS = """北京协和医院|协和|北京
中国人民解放军总医院|301,301医院|北京
北京大学第一医院|北大医院,北大一院|北京
北京大学人民医院|北大人民医院|北京
首都医科大学附属北京天坛医院|天坛,天坛医院|北京
首都医科大学附属北京儿童医院|北京儿童医院,北京儿研所|北京
中国医学科学院阜外医院|阜外,阜外医院|北京
北京积水潭医院|积水潭|北京
首都医科大学附属北京安贞医院|安贞,安贞医院|北京
首都医科大学宣武医院|宣武,宣武医院|北京
复旦大学附属中山医院|中山医院|上海
复旦大学附属华山医院|华山,华山医院|上海
上海交通大学医学院附属瑞金医院|瑞金,瑞金医院|上海
复旦大学附属肿瘤医院|复旦肿瘤|上海
上海市第六人民医院|六院,上海六院|上海
复旦大学附属儿科医院|复旦儿科|上海
上海长海医院|长海,长海医院|上海
浙江大学医学院附属第一医院|浙一,浙大一院|杭州
浙江大学医学院附属第二医院|浙二,浙大二院|杭州
浙江大学医学院附属邵逸夫医院|邵逸夫,邵逸夫医院|杭州
浙江大学医学院附属儿童医院|浙大儿院,浙大儿童医院|杭州
四川大学华西医院|华西,华西医院|成都
四川大学华西第二医院|华西二院|成都
中南大学湘雅医院|湘雅,湘雅医院|长沙
中南大学湘雅二医院|湘雅二院,湘雅二|长沙
华中科技大学同济医学院附属同济医院|同济,同济医院|武汉
华中科技大学同济医学院附属协和医院|武汉协和|武汉
武汉大学人民医院|武大人民医院|武汉
中山大学附属第一医院|中山一院|广州
中山大学孙逸仙纪念医院|孙逸仙,中山二院|广州
南方医科大学南方医院|南方医院|广州
广州市妇女儿童医疗中心|广州妇儿|广州
郑州大学第一附属医院|郑大一附院,郑大一|郑州
河南省肿瘤医院|河南肿瘤医院|郑州
山东大学齐鲁医院|齐鲁,齐鲁医院|济南
青岛大学附属医院|青大附院|青岛
西安交通大学第一附属医院|西交一附院,交大一附院|西安
空军军医大学西京医院|西京,西京医院|西安
南京鼓楼医院|鼓楼医院|南京
苏州大学附属第一医院|苏大附一院|苏州
安徽医科大学第一附属医院|安医大一附院|合肥
福建医科大学附属协和医院|福建协和|福州
厦门大学附属第一医院|厦大一院|厦门
南昌大学第一附属医院|南大一附院|南昌
广西医科大学第一附属医院|广西医大一附院|南宁
重庆医科大学附属第一医院|重医附一院,重医一院|重庆
重庆医科大学附属儿童医院|重医儿童医院|重庆
陆军军医大学第一附属医院|西南医院|重庆
天津医科大学总医院|天医总医院|天津
河北医科大学第四医院|河北四院|石家庄
山西医科大学第一医院|山医大一院|太原
中国医科大学附属盛京医院|盛京医院,盛京|沈阳
吉林大学白求恩第一医院|吉大一院|长春
哈尔滨医科大学附属第一医院|哈医大一院|哈尔滨
昆明医科大学第一附属医院|昆医附一院|昆明
贵州医科大学附属医院|贵医附院|贵阳
兰州大学第一医院|兰大一院|兰州
新疆医科大学第一附属医院|新医大一附院|乌鲁木齐
宁夏医科大学总医院|宁医总院|银川
内蒙古医科大学附属医院|内医附院|呼和浩特
西藏自治区人民医院|藏医院|拉萨
海南医学院第一附属医院|海医附一院|海口"""
FAMOUS = [(a, b.split(","), c) for a, b, c in (ln.split("|") for ln in _FAMOUS.splitlines())]
CAMPUS = ("东院区 西院区 南院区 北院区 本部 新院区 滨江院区 光谷院区 余杭院区 天府院区 郑东院区 江北院区").split()

PLATFORMS = ("好大夫 微医 京东健康 平安好医生 丁香医生 阿里健康 春雨医生 医鹿 美团买药 叮当快药").split()
GENERIC_HOSP = ("当地医院 社区医院 三甲医院 大医院 县医院 市医院 市人民医院 县人民医院 省人民医院 私立医院 "
                "门口的诊所 药店 乡卫生院 镇上的卫生院 专科医院 区医院").split()
KIN_OLD = (("我爸", "M"), ("我妈", "F"), ("我父亲", "M"), ("我母亲", "F"), ("我爷爷", "M"), ("我奶奶", "F"),
           ("我外婆", "F"), ("我姥姥", "F"), ("我公公", "M"), ("我婆婆", "F"), ("我岳父", "M"), ("我姥爷", "M"))
KIN_KID = (("孩子", "?"), ("我儿子", "M"), ("我女儿", "F"), ("宝宝", "?"), ("我家闺女", "F"), ("我家小孩", "?"))
KIN_MID = (("我老公", "M"), ("我媳妇", "F"), ("我爱人", "?"), ("我老婆", "F"), ("我姐", "F"), ("我哥", "M"),
           ("我弟", "M"), ("我妹", "F"))
EMOJI = ("[捂脸]", "[抱拳]", "🙏", "😭", "[微笑]", "[流泪]", "👍", "[愉快]", "😊", "[难过]", "~")
CN_DIG = "零一二三四五六七八九"
# clinical scenarios: disease, department, complaints, labs (name, low, high, decimals, unit, reference),
# drugs (name, doses), examination, procedure, ages
SCEN = (
    dict(dz="甲状腺结节", dept="甲状腺外科", ages=(25, 70), exam="甲状腺彩超", proc="甲状腺穿刺",
         sym=("脖子右边摸到一个包块", "体检发现甲状腺结节", "吞咽的时候有点异物感"),
         labs=(("TSH", 0.3, 9.5, 2, "mIU/L", "0.27-4.2"), ("FT4", 9.0, 24.0, 1, "pmol/L", "12-22"),
               ("TPOAb", 5, 600, 0, "IU/mL", "<34")),
         size=True, drugs=(("优甲乐", ("25μg", "50μg", "半片", "1片")),),
         negs=("医生说可能是桥本甲状腺炎", "海带紫菜这些还能吃吗", "同事说碘盐要换成无碘盐")),
    dict(dz="高血压", dept="心内科", ages=(40, 85), exam="动态血压", proc="",
         sym=("最近头晕，早上起来后脑勺发胀", "量血压一直偏高", "晚上睡不好，心慌"),
         labs=(("肌酐", 55, 140, 0, "μmol/L", "57-111"), ("血钾", 3.1, 5.2, 1, "mmol/L", "3.5-5.3")),
         bp=True, drugs=(("拜新同", ("30mg", "1片")), ("络活喜", ("5mg", "1片")), ("倍他乐克", ("25mg", "半片"))),
         negs=("早高峰挤地铁的时候血压最高", "平时爱吃咸菜，东北人口重", "我妈让我喝芹菜汁降压")),
    dict(dz="2型糖尿病", dept="内分泌科", ages=(35, 80), exam="糖耐量试验", proc="",
         sym=("口干，喝水多，一个月瘦了好几斤", "体检空腹血糖高", "脚有点麻"),
         labs=(("空腹血糖", 5.8, 14.5, 1, "mmol/L", "3.9-6.1"), ("糖化血红蛋白", 5.9, 11.8, 1, "%", "4-6"),
               ("餐后2小时血糖", 7.5, 19.0, 1, "mmol/L", "<7.8")),
         drugs=(("二甲双胍", ("0.5g", "1片")), ("拜糖平", ("50mg", "1片")), ("诺和锐", ("6单位", "8单位")),
                ("来得时", ("10单位", "12单位"))),
         negs=("过年那几天吃多了", "中午吃了碗兰州拉面血糖就上去了", "白米饭要不要换成杂粮")),
    dict(dz="冠心病", dept="心内科", ages=(45, 85), exam="冠脉CTA", proc="支架手术",
         sym=("爬楼梯胸口闷", "半夜胸口压着疼，持续几分钟", "活动以后气短"),
         labs=(("低密度脂蛋白", 1.4, 4.9, 2, "mmol/L", "<3.4"), ("肌钙蛋白", 0.01, 0.09, 2, "ng/mL", "<0.04")),
         hr=True, drugs=(("波立维", ("75mg", "1片")), ("立普妥", ("20mg", "10mg")), ("阿司匹林", ("100mg", "1片"))),
         negs=("听说支架放了就不能停阿司匹林", "单位体检说心电图有T波改变", "上次发作是在早高峰的公交上")),
    dict(dz="乙肝", dept="感染科", ages=(20, 65), exam="肝脏彩超", proc="肝穿刺",
         sym=("体检查出来小三阳", "最近乏力，没胃口", "家里人都有乙肝"),
         labs=(("ALT", 25, 260, 0, "U/L", "9-50"), ("AST", 20, 180, 0, "U/L", "15-40"),
               ("HBV-DNA", 1.2, 7.9, 1, "log10IU/mL", "<20IU/mL")),
         drugs=(("恩替卡韦", ("0.5mg", "1片")), ("韦立德", ("25mg", "1片"))),
         negs=("白酒一点都不能喝了吗", "一起吃饭会不会传染给孩子", "上次问过丁香医生上的医生")),
    dict(dz="小儿发热", dept="儿科", ages=(0, 8), exam="血常规", proc="",
         sym=("发烧两天了，最高39度多", "咳嗽有痰，晚上咳得厉害", "手心脚心有小红点"),
         labs=(("白细胞", 3.2, 19.8, 1, "×10^9/L", "4-10"), ("C反应蛋白", 1, 88, 0, "mg/L", "<10"),
               ("中性粒细胞百分比", 35, 88, 1, "%", "40-75")),
         temp=True, kid=True, drugs=(("美林", ("5ml", "7ml", "4ml")), ("泰诺林", ("3ml", "5ml")),
                                     ("阿莫西林", ("125mg", "半包")), ("奥司他韦", ("30mg", "45mg"))),
         negs=("担心是川崎病", "幼儿园里好几个小朋友都发烧", "马上要打疫苗了能打吗")),
    dict(dz="早孕", dept="妇产科", ages=(22, 42), exam="B超", proc="",
         sym=("停经40多天，见红了一点", "测了两道杠", "小肚子有点坠"),
         labs=(("HCG", 500, 58000, 0, "mIU/mL", ""), ("孕酮", 9.5, 38.0, 1, "ng/mL", ">25"),
               ("孕囊", 0.8, 3.2, 1, "cm", "")),
         drugs=(("叶酸", ("0.4mg", "1片")), ("地屈孕酮", ("10mg", "1片")), ("黄体酮胶囊", ("100mg", "2粒"))),
         negs=("婆婆说要喝老母鸡汤", "唐氏筛查什么时候做", "同事介绍了个月子中心")),
    dict(dz="肺结节", dept="胸外科", ages=(30, 78), exam="胸部CT", proc="胸腔镜手术",
         sym=("体检CT发现肺上有个结节", "咳嗽一个多月不好", "以前抽烟二十多年"),
         labs=(("CEA", 0.8, 9.6, 1, "ng/mL", "<5"),), size=True,
         drugs=(("头孢克洛", ("0.25g", "1粒")), ("苏黄止咳胶囊", ("3粒",))),
         negs=("磨玻璃结节是不是就是早癌", "住得离化工厂近", "网上说要做PET-CT")),
    dict(dz="胃炎", dept="消化内科", ages=(18, 75), exam="胃镜", proc="胃镜下息肉切除",
         sym=("饭后胃胀、反酸烧心", "吃一点就饱，老打嗝", "大便发黑"),
         labs=(("C13呼气试验DOB值", 2.1, 38.0, 1, "", "<4"), ("血红蛋白", 78, 150, 0, "g/L", "115-150")),
         drugs=(("奥美拉唑", ("20mg", "1粒")), ("雷贝拉唑", ("10mg", "20mg")), ("江中健胃消食片", ("2片",)),
                ("吗丁啉", ("10mg", "1片"))),
         negs=("前天吃了一碗柳州螺蛳粉", "家里常备马应龙和云南白药", "幽门螺杆菌会不会传染给家里人")),
    dict(dz="湿疹", dept="皮肤科", ages=(0, 70), exam="过敏原检测", proc="",
         sym=("手上起了一片红疹子，很痒", "脚趾缝脱皮", "晚上痒得睡不着"),
         labs=(("总IgE", 20, 900, 0, "IU/mL", "<100"),),
         drugs=(("丁酸氢化可的松乳膏", ("薄薄一层",)), ("达克宁", ("1支",)), ("氯雷他定", ("10mg", "1片"))),
         negs=("以为是香港脚", "夏天会严重一点", "用了同仁堂的一个药膏不管用")),
    dict(dz="痛风", dept="风湿免疫科", ages=(25, 75), exam="双能CT", proc="",
         sym=("大脚趾关节又红又肿", "晚上喝了啤酒第二天脚就疼", "膝盖也开始疼了"),
         labs=(("尿酸", 380, 720, 0, "μmol/L", "208-428"), ("肌酐", 60, 150, 0, "μmol/L", "57-111")),
         drugs=(("非布司他", ("20mg", "40mg")), ("秋水仙碱", ("0.5mg", "1片")), ("依托考昔", ("60mg", "1片"))),
         negs=("海鲜火锅还能吃吗", "朋友推荐了汤臣倍健的一个产品", "是不是跟高嘌呤饮食有关")),
    dict(dz="帕金森病", dept="神经内科", ages=(55, 88), exam="头颅核磁", proc="",
         sym=("手抖，拿筷子都抖", "走路越来越慢，小碎步", "最近便秘很厉害"),
         labs=(("同型半胱氨酸", 8, 32, 1, "μmol/L", "<15"),),
         drugs=(("美多芭", ("62.5mg", "半片", "1片")), ("森福罗", ("0.25mg", "0.125mg"))),
         negs=("担心是阿尔茨海默", "老人以前在石膏厂上班", "邻居说是帕金森，让我们来问问")),
    dict(dz="乳腺结节", dept="乳腺外科", ages=(22, 68), exam="乳腺彩超", proc="微创旋切",
         sym=("左边乳房摸到一个硬块", "月经前胀痛", "体检彩超说BI-RADS 3类"),
         labs=(("CA153", 4, 38, 1, "U/mL", "<25"),), size=True,
         drugs=(("乳癖消", ("3片",)), ("逍遥丸", ("8丸",))),
         negs=("网上说吃豆浆不好", "我妈以前得过乳腺癌", "是不是跟熬夜生气有关")),
    dict(dz="慢性肾病", dept="肾内科", ages=(30, 80), exam="肾脏彩超", proc="肾穿刺",
         sym=("尿里泡沫多", "脚踝有点肿", "体检尿蛋白两个加号"),
         labs=(("肌酐", 110, 420, 0, "μmol/L", "57-111"), ("尿素氮", 6.8, 22.0, 1, "mmol/L", "2.9-8.2"),
               ("24小时尿蛋白", 0.4, 4.8, 2, "g", "<0.15")),
         bp=True, drugs=(("厄贝沙坦", ("150mg", "1片")), ("碳酸氢钠片", ("1g", "2片"))),
         negs=("听说克山病跟这个有关吗", "我们是河南农村的，看病不方便")),
)

DATE_TAIL = ("那天", "的时候", "开始", "做的", "查的", "去的", "住的院")
# ----------------------------------------------------------------------------------------------- helpers
def _cn(n):
    """0..199 in Chinese numerals, the way a voice input writes an age or a day."""
    if n < 10:
        return CN_DIG[n]
    if n < 20:
        return "十" + (CN_DIG[n % 10] if n % 10 else "")
    if n < 100:
        return CN_DIG[n // 10] + "十" + (CN_DIG[n % 10] if n % 10 else "")
    return "一百" + (("零" + CN_DIG[n % 10]) if n % 100 < 10 and n % 10 else (_cn(n % 100) if n % 100 else ""))


def _lunar(m, d):
    mon = ("正月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "冬月", "腊月")[m - 1]
    if d <= 10:
        day = "初" + ("十" if d == 10 else CN_DIG[d])
    elif d < 20:
        day = "十" + CN_DIG[d - 10]
    elif d == 20:
        day = "二十"
    elif d < 30:
        day = "廿" + CN_DIG[d - 20]
    else:
        day = "三十"
    return mon + day


def _id_check(body):
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return "10X98765432"[sum(int(a) * b for a, b in zip(body, w, strict=True)) % 11]


def P(text, label=None):
    return (text, label)


_FEMALE = set("英兰珍凤芬梅霞娟燕丽艳婷静敏琪怡萱涵桐瑶彤馨汐嫣雯诗芳红琴花娜倩琳慧洁莹曦欣玲君娣芝枝美姑懿夏雪")


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    # ---------------------------------------------------------------- random helpers
    def ch(self, seq):
        return seq[self.r.randrange(len(seq))]

    def p(self, x):
        return self.r.random() < x

    def wch(self, seq, weights):
        return self.r.choices(seq, weights=weights, k=1)[0]

    def digits(self, n, first="123456789"):
        return self.ch(first) + "".join(self.ch("0123456789") for _ in range(n - 1))

    # ---------------------------------------------------------------- people
    def person(self, birth_year, sex, prov_short="", surname=None):
        sur = surname or self.wch(SURNAMES, SURNAME_W)
        if prov_short in ("新疆", "西藏", "内蒙古", "青海") and self.p(0.45) or (prov_short == "四川" and self.p(0.06)):
            full = self.ch(MINORITY[prov_short].split())
            return dict(sur="", giv=full, full=full, sex=sex, by=birth_year, minority=True)
        era = "1930" if birth_year < 1950 else "1955" if birth_year < 1970 else "1975" if birth_year < 1988 \
            else "1990" if birth_year < 2004 else "2008"
        if prov_short == "广东" and self.p(0.3):
            era = "yue"
        elif prov_short == "福建" and self.p(0.3):
            era = "min"
        pool = GIVEN[era].split()
        want_f = sex == "F"
        fit = [g for g in pool if (any(c in _FEMALE for c in g)) == want_f] or pool
        giv = self.ch(fit)
        return dict(sur=sur, giv=giv, full=sur + giv, sex=sex, by=birth_year, minority=False)

    def nick(self, pe, age):
        if pe["minority"]:
            return pe["giv"][:2]
        if age < 12:
            return self.ch(CHILD_NICK)
        if len(pe["sur"]) == 1 and age >= 45 and self.p(0.6):
            return "老" + pe["sur"]
        if len(pe["sur"]) == 1 and age < 45 and self.p(0.5):
            return "小" + pe["sur"]
        if len(pe["giv"]) == 2 and self.p(0.5):
            return "阿" + pe["giv"][-1]
        return pe["giv"] if len(pe["giv"]) == 2 else pe["full"]

    # ---------------------------------------------------------------- places
    def place(self):
        pv = self.wch(PROVINCES, PROV_W)
        city = self.ch(pv[2])
        county = self.ch(city[2])
        t = self.ch(_T1) + self.ch(_T2)
        town = t + self.wch(("镇", "乡", "街道"), (6, 2, 2))
        vil = (self.wch(SURNAMES[:80], SURNAME_W[:80]) + self.ch(_V2) if self.p(0.55) else self.ch(_V1)) + "村"
        grp = self.ch(("一组", "二组", "三组", "4组", "5组", "六组", "七队", "3队", "八组", "12组"))
        road = self.ch(ROADS)
        no = str(self.r.randint(1, 399)) + "号"
        comp = self.ch(COMPOUNDS)
        b, u, rm = self.r.randint(1, 32), self.r.randint(1, 6), self.r.randint(1, 28) * 100 + self.r.randint(1, 4)
        room = self.ch((f"{b}栋{u}单元{rm}", f"{b}号楼{u}单元{rm}室", f"{b}幢{rm}室", f"{b}-{u}-{rm}",
                        f"{b}栋{rm}", f"{b}号楼{rm}"))
        return dict(pf=pv[0], ps=pv[1], muni=pv[3], cs=city[0], cf=city[1], county=county, town=town,
                    vil=vil, grp=grp, road=road, no=no, comp=comp, room=room, rural=self.p(0.45))

    def county_short(self, k):
        for suf in ("土家族苗族自治县", "回族土族自治县", "满族自治县", "侗族自治县", "自治县", "县", "区", "市"):
            if k.endswith(suf) and len(k) - len(suf) >= 2:
                return k[: -len(suf)]
        return k

    def addr(self, h, form):
        """one ADDRESS string at the requested depth."""
        pre = ""
        if form in ("full", "spaced") or self.p(0.35):
            pre = h["pf"] if self.p(0.7) else h["ps"]
        city = "" if h["muni"] else h["cf"]
        if h["muni"] and pre == "":
            pre = h["pf"]
        if form == "city":
            if h["muni"]:  # a municipality alone would be a province alone: name its district instead
                return h["county"]
            return h["cs"] if self.p(0.5) else h["cf"]
        if form == "county":
            return h["county"] if self.p(0.6) else self.county_short(h["county"])
        if form == "town":
            return (self.county_short(h["county"]) if self.p(0.4) else "") + h["town"]
        if form == "village":
            return h["town"] + h["vil"] + (h["grp"] if self.p(0.6) else "")
        if form == "compound":
            return h["comp"] + h["room"]
        if form == "street":
            return h["road"] + h["no"] + (h["comp"] if self.p(0.5) else "")
        if form == "spaced":
            return " ".join(x for x in (pre, city, h["county"]) if x)
        # full / delivery
        if h["rural"]:
            tail = h["county"] + h["town"] + h["vil"] + (h["grp"] if self.p(0.7) else "")
        else:
            tail = h["county"] + h["road"] + h["no"] + h["comp"] + h["room"]
        if form == "nocity":
            return tail
        return pre + city + tail

    # ---------------------------------------------------------------- hospitals
    def hosp_local(self, h):
        """(full, [short HOSPITAL forms], [generic plain back-references])"""
        cs, k = h["cs"], h["county"]
        ks = self.county_short(k)
        kind = self.wch(("county", "city1", "city2", "cityzy", "fy", "town", "vil", "clinic", "comm"),
                        (6, 4, 3, 2, 2, 2, 1, 1, 1))
        if h["muni"]:
            kind = self.ch(("city2", "cityzy", "comm", "clinic", "dist"))
        if kind == "county" and k.endswith(("县", "市", "旗")):
            return (k + "人民医院", [ks + "县医院" if k.endswith("县") else ks + "人民医院", ks + "人民医院"],
                    ["县医院", "县人民医院", "那边医院"] if k.endswith("县") else ["市医院", "那边医院"])
        if kind == "dist":
            return (h["pf"] + k + "人民医院", [k + "医院", k + "人民医院"], ["区医院", "那家医院"])
        if kind in ("city1", "county"):
            return (h["cf"] + "第一人民医院", [cs + "一院", "市一院", cs + "市一院"], ["市医院", "那边医院"])
        if kind == "city2":
            return (h["cf"] + "第二人民医院", ["市二院", cs + "二院"], ["市医院", "那家医院"])
        if kind == "cityzy":
            return (h["cf"] + "中医院", ["市中医院", cs + "中医院"], ["中医院那边", "那家医院"])
        if kind == "fy":
            return (h["cf"] + "妇幼保健院", ["市妇幼", cs + "妇幼"], ["妇幼那边", "那家医院"])
        if kind == "town":
            return (h["town"] + "卫生院", [h["town"][:2] + "卫生院"], ["镇上卫生院", "卫生院"])
        if kind == "vil":
            return (h["vil"] + "卫生室", [h["vil"] + "卫生室"], ["村卫生室", "村里诊所"])
        if kind == "clinic":
            s = self.wch(SURNAMES[:60], SURNAME_W[:60])
            return (s + "氏诊所", [s + "氏诊所"], ["诊所", "那个诊所"])
        street = h["town"] if h["town"].endswith("街道") else h["town"][:2] + "街道"
        return (street + "社区卫生服务中心", [street + "社区医院"], ["社区医院", "社区"])

    def hosp_big(self, h):
        if self.p(0.65):
            near = [f for f in FAMOUS if f[2] in (h["cs"], h["ps"])]
            f = self.ch(near) if near and self.p(0.6) else self.ch(FAMOUS)
            return (f[0], list(f[1]), ["大医院", "那边", "省城的医院"])
        ps = h["ps"]
        kind = self.ch(("zl", "et", "fy", "rm"))
        if kind == "zl":
            return (ps + "省肿瘤医院" if not h["muni"] else ps + "市肿瘤医院", ["省肿瘤医院", ps + "肿瘤医院"],
                    ["肿瘤医院", "大医院"])
        if kind == "et":
            return (ps + "省儿童医院" if not h["muni"] else ps + "市儿童医院", ["省儿童医院", ps + "儿童医院"],
                    ["儿童医院", "大医院"])
        if kind == "fy":
            return (ps + "省妇幼保健院" if not h["muni"] else ps + "市妇幼保健院", ["省妇幼", ps + "妇幼"],
                    ["妇幼", "大医院"])
        return (h["pf"] + "人民医院", [h["pf"] + "人民医院"], ["省人民医院", "省人医", "省医"])

    # ---------------------------------------------------------------- numbers
    def mobile(self):
        pre = self.ch(("130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151", "152", "155",
                       "156", "157", "158", "159", "166", "173", "176", "177", "180", "181", "182", "183", "185",
                       "186", "187", "188", "189", "191", "198", "199"))
        return pre + self.digits(8, "0123456789")

    def fmt_mobile(self, m, voice=False):
        if voice and self.p(0.6):
            return "".join(("幺" if self.p(0.7) else "一") if c == "1" else CN_DIG[int(c)] for c in m)
        f = self.wch(("plain", "dash", "space", "86", "86b"), (10, 2, 3, 1, 1))
        if f == "dash":
            return f"{m[:3]}-{m[3:7]}-{m[7:]}"
        if f == "space":
            return f"{m[:3]} {m[3:7]} {m[7:]}"
        if f == "86":
            return "+86" + self.ch(("", " ")) + m
        if f == "86b":
            return "(+86)" + m
        return m

    def landline(self, ext=True):
        ac = self.ch(AREA_CODES)
        n = self.digits(8 if len(ac) == 3 else self.ch((7, 8)), "2345678")
        s = self.ch((f"{ac}-{n}", f"({ac}){n}", f"{ac}{n}", f"{ac} {n}", f"（{ac}）{n}"))
        if ext and self.p(0.3):
            s += self.ch(("转", "-")) + str(self.r.randint(100, 8999))
        return s

    def idno(self, birth):
        body = self.ch(ID_REGIONS) + f"{birth.year:04d}{birth.month:02d}{birth.day:02d}" + self.digits(3, "0123456789")
        s = body + _id_check(body)
        if s.endswith("X") and self.p(0.3):
            s = s[:-1] + "x"
        if self.p(0.12):
            s = f"{s[:6]} {s[6:14]} {s[14:]}"
        return s

    def wxid(self, pe):
        py = self.ch(("zhang", "wang", "li", "liu", "chen", "yang", "huang", "zhao", "wu", "zhou", "xu", "sun",
                      "ma", "hu", "guo", "lin", "he", "gao", "luo", "zheng", "xiaoyu", "tiantian", "happy",
                      "sunny", "momo", "lucky", "baobao", "ljy", "zxm", "whf", "cqq", "lily"))
        f = self.wch(("wxid", "py", "pyd", "mix"), (2, 3, 3, 2))
        if f == "wxid":
            return "wxid_" + "".join(self.ch("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(14))
        if f == "py":
            return py + self.ch(("_", "", "-")) + str(self.r.randint(1960, 2015))
        if f == "pyd":
            return py + str(self.r.randint(10, 99999))
        return self.ch(("a", "w", "x", "z", "L", "Y")) + self.digits(self.r.randint(7, 10), "0123456789")

    def email(self):
        dom = self.ch(("qq.com", "163.com", "126.com", "sina.com", "foxmail.com", "outlook.com", "hotmail.com",
                       "gmail.com", "139.com", "yeah.net", "sohu.com", "aliyun.com"))
        if dom == "qq.com" and self.p(0.6):
            user = self.digits(self.r.randint(7, 10))
        else:
            user = self.ch(("zhang", "wang", "li", "liuyang", "chenjing", "yangfan", "huanglei", "zhaomin",
                            "wuxia", "zhouyi", "xuhui", "sunli", "mahong", "hujun", "guoqiang", "linfang",
                            "ljh", "wxy", "zyq", "cxl", "dr.li", "nurse_he")) + self.ch(("", "", "_", "."))
            user += str(self.r.randint(1, 2023))
        at = self.wch(("@", "#", "(at)", "＠"), (14, 1, 1, 1))
        return user + at + dom

    def url(self):
        f = self.ch(("doc", "art", "short", "wxa", "form", "up"))
        a = "".join(self.ch("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
        if f == "doc":
            return self.ch(("https://www.haodf.com/doctor/", "https://m.haodf.com/doctor/")) + \
                self.digits(9) + ".html"
        if f == "art":
            return "https://mp.weixin.qq.com/s/" + a + self.ch(("Xk", "Qp", "9Tz")) + a[::-1]
        if f == "short":
            return self.ch(("t.cn/", "https://dwz.cn/", "url.cn/", "https://b23.tv/")) + a[:7]
        if f == "wxa":
            return "https://wy.guahao.com/" + self.ch(("expert/", "consult/", "pre/")) + self.digits(12)
        if f == "form":
            return "https://www.wjx.cn/vm/" + a[:7] + ".aspx"
        return "https://pan.baidu.com/s/1" + a + a[:4]

    def num(self, kind):
        """record and order numbers, with a cue and a shape per kind"""
        if kind == "门诊号":
            return self.ch(("", "MZ", "00")) + self.digits(self.r.randint(7, 10))
        if kind == "住院号":
            return self.ch(("", "", "ZY")) + self.digits(self.r.randint(6, 9))
        if kind in ("病案号", "病历号", "ID号", "登记号"):
            return self.digits(self.r.randint(6, 10))
        if kind == "就诊卡号":
            return self.ch(("", "", "JZ", "0")) + self.digits(self.r.randint(8, 12))
        if kind == "医保卡号":
            return self.ch(("", "A", "B")) + self.digits(self.r.randint(9, 11))
        if kind in ("条码号", "标本号"):
            return self.digits(self.r.randint(10, 13))
        if kind in ("报告编号", "检查号", "影像号"):
            return self.ch(("CT", "MR", "US", "DR", "")) + str(self.day.year) + self.digits(self.r.randint(5, 7))
        if kind == "病理号":
            return self.ch(("B", "F", "")) + str(self.day.year)[2:] + "-" + self.digits(5, "0123456789")
        if kind == "订单号":
            return self.digits(self.ch((12, 16, 18, 19)))
        if kind == "处方编号":
            return self.ch(("RX", "CF", "")) + f"{self.day.year}{self.day.month:02d}{self.day.day:02d}" + \
                self.digits(self.r.randint(4, 6), "0123456789")
        if kind == "问诊单号":
            return self.ch(("WZ", "")) + self.digits(self.r.randint(10, 14))
        if kind in ("挂号单号", "预约码", "加号码"):
            return self.digits(self.ch((6, 8, 10)))
        if kind == "交易单号":
            return "42000" + self.digits(23, "0123456789")
        if kind == "支付宝交易号":
            return f"{self.day.year}{self.day.month:02d}{self.day.day:02d}22001" + self.digits(15, "0123456789")
        if kind == "退款单号":
            return "50" + self.digits(self.r.randint(16, 20), "0123456789")
        if kind == "快递单号":
            return self.ch(("SF", "JD", "YT", "JT", "")) + self.digits(self.r.randint(12, 15))
        raise ValueError(kind)

    # ---------------------------------------------------------------- dates
    def dago(self, lo, hi):
        return self.day - datetime.timedelta(days=self.r.randint(lo, hi))

    def dahead(self, lo, hi):
        return self.day + datetime.timedelta(days=self.r.randint(lo, hi))

    def dt(self, d, reg="chat"):
        y, m, dd = d.year, d.month, d.day
        rel = "今年" if y == self.day.year else "去年" if y == self.day.year - 1 else f"{y}年"
        if reg == "voice":
            return self.ch((f"{_cn(m)}月{_cn(dd)}号", f"{rel}{_cn(m)}月{_cn(dd)}号", f"{_cn(m)}月{_cn(dd)}日"))
        if reg == "form":
            return self.ch((f"{y}-{m:02d}-{dd:02d}", f"{y}/{m}/{dd}", f"{y}年{m}月{dd}日", f"{y}.{m:02d}.{dd:02d}",
                            f"{y}{m:02d}{dd:02d}", f"{y}-{m:02d}-{dd:02d}"))
        if reg == "doc":
            return self.ch((f"{m}月{dd}日", f"{y}年{m}月{dd}日", f"{m}月{dd}号", f"{y}-{m:02d}-{dd:02d}"))
        return self.wch((f"{m}月{dd}号", f"{m}月{dd}日", f"{m}.{dd}号", f"{rel}{m}月{dd}号", f"{y % 100}.{m}.{dd}",
                         f"{y}年{m}月{dd}日", f"{y}.{m}.{dd}", f"{m}月{dd}", f"{rel}{m}月{dd}日"),
                        (8, 4, 3, 3, 1, 2, 1, 2, 1))

    def ym(self, d):
        rel = "去年" if d.year == self.day.year - 1 else f"{d.year}年"
        return self.ch((f"{d.year}年{d.month}月", f"{rel}{d.month}月", f"{d.year}年{d.month}月份"))

    # ---------------------------------------------------------------- parts
    def T(self, tpl, **kw):
        out = []
        for i, seg in enumerate(re.split(r"\{(\w+)\}", tpl)):
            if i % 2 == 0:
                if seg:
                    out.append((seg, None))
            else:
                v = kw[seg]
                if isinstance(v, str):
                    if v:
                        out.append((v, None))
                elif isinstance(v, tuple):
                    out.append(v)
                else:
                    out.extend(v)
        return out

    # ---------------------------------------------------------------- keep spans
    def k_age(self, c, voice=False):
        a = c["age"]
        if a == 0:
            return P(f"{self.r.randint(2, 11)}个月", "age")
        if a < 3 and self.p(0.4):
            return P(f"{a}岁{self.r.randint(1, 11)}个月" if self.p(0.5) else f"{a}岁半", "age")
        if voice:
            return P(_cn(a) + "岁", "age")
        return P(self.ch((f"{a}岁", f"{a}岁", f"{a}周岁")), "age")

    def k_dur(self, voice=False):
        return P(self.ch(("3天", "两天", "两周", "半年", "一个多月", "十来天", "两三天", "一年多", "20多天",
                          "3个月", "五六年", "一个星期", "半个月", "40多天", "七八年", "2年")), "duration")

    def k_time(self):
        t = self.ch(("昨天", "前天", "今天早上", "三天前", "上周", "上午9点", "晚上10点多", "14:30", "周三", "半夜",
                     "上个月", "今天下午", "大前天", "早上7点", "下午3点半", "前几天", "Y", "M"))
        if t == "Y":
            t = f"{self.day.year - self.r.randint(1, 12)}年"
        elif t == "M":
            t = f"{self.r.randint(1, 12)}月份"
        return P(t, "time")

    def k_lab(self, lab, ref=False):
        name, lo, hi, dec, unit, rng = lab
        v = self.r.uniform(lo, hi)
        val = f"{v:.{dec}f}" if dec else str(int(round(v)))
        sep = self.ch(("", " ", "：", ":", " "))
        out = [P(f"{name}{sep}{val}{unit}", "lab")]
        if ref and rng and self.p(0.6):
            out += [P("（参考值"), P(rng, "lab"), P("）")]
        return out

    def k_size(self):
        a, b = self.r.randint(3, 35), self.r.randint(3, 30)
        return P(self.ch((f"{a}×{b}mm", f"{a / 10:.1f}×{b / 10:.1f}cm", f"{a}mm", f"{a}*{b}mm")), "lab")

    def k_vital(self, c):
        sc = c["sc"]
        opts = []
        if sc.get("bp") or c["age"] > 50:
            s, d = self.r.randint(118, 186), self.r.randint(68, 112)
            opts += [f"血压{s}/{d}mmHg", f"血压{s}/{d}", f"高压{s}", f"BP {s}/{d}mmHg", f"血压 {s}/{d}"]
        if sc.get("temp") or self.p(0.3):
            t = self.r.randint(365, 402) / 10
            opts += [f"体温{t}℃", f"体温{t}度", f"{t}℃", f"最高烧到{t}度"]
        if sc.get("hr") or self.p(0.3):
            opts += [f"心率{self.r.randint(52, 128)}次/分", f"心跳{self.r.randint(55, 120)}", f"脉搏{self.r.randint(60, 110)}"]
        if c["age"] < 12:
            kg = 2 * c["age"] + 8 + self.r.randint(-1, 2)
            opts += [f"体重{kg}kg", f"体重{2 * kg}斤"]
        else:
            opts += [f"体重{self.r.randint(42, 98)}kg", f"体重{self.r.randint(90, 190)}斤", f"身高{self.r.randint(150, 185)}cm",
                     f"血氧{self.r.randint(90, 99)}%"]
        v = self.ch(opts)
        if v.startswith("最高烧到"):
            return [P("最高烧到"), P(v[4:], "vital")]
        return [P(v, "vital")]

    def k_dose(self, c):
        name, doses = self.ch(c["sc"]["drugs"])
        return name, P(self.ch(doses), "dose")

    # ---------------------------------------------------------------- hard negatives (plain text)
    def hardneg(self, c):
        pv = [x for x in PROVINCES if not x[3]]
        a, b = self.ch(pv), self.ch(pv)
        k = self.r.randrange(32)
        if k == 0:
            return self.T("之前在{x}上也问过，说让去医院看看", x=self.ch(PLATFORMS))
        if k == 1:
            return self.T("{x}说没什么事，我还是不放心", x=self.ch(GENERIC_HOSP[:9]))
        if k == 2:
            return self.T("我是{a}的，现在在{b}打工，回去看病不方便", a=a[1], b=b[1])
        if k == 3:
            return self.T("老家{a}的，{x}排不上号", a=self.ch((a[1], a[0])), x=self.ch(("三甲医院", "大医院", "省人民医院")))
        if k == 4:
            return self.T("半夜不舒服差点打{n}", n=self.ch(("120", "120急救")))
        if k == 5:
            return self.T("打{n}问过，他们说让挂专科", n=self.ch(("12320", "12345", "114", "95120")))
        if k == 6:
            return [P(self.ch(("马上就要过年了，想年前弄好", "万一是不好的东西怎么办", "白细胞和血小板都正常吗",
                               "周一到周五要上班，只能周末去", "叶酸还要不要继续吃", "孩子性格比较文静，不爱说话",
                               "夏天的时候症状轻一点", "早高峰的时候最难受", "一家人就图个平安健康",
                               "网上挂不上号，黄牛要三百", "石膏拆了以后还是肿", "黄疸指数高吗",
                               "常规检查都做了", "何时能出结果", "金银花泡水喝有用吗", "高血压家族史有的",
                               "江湖郎中的偏方能信吗", "房子装修完刚搬进去", "宋体字太小看不清报告")))]
        if k == 7:
            return [P(self.ch(("中午吃了碗兰州拉面", "晚上吃了柳州螺蛳粉", "早上吃了武汉热干面", "吃了重庆火锅就拉肚子",
                               "北京烤鸭能吃吗", "朋友送了金华火腿", "买了点德州扒鸡", "喝了点绍兴黄酒",
                               "天津麻花太油了吧", "新疆大盘鸡有点辣", "东北酸菜能吃吗", "长沙臭豆腐还能吃吗",
                               "西湖醋鱼算不算发物")))]
        if k == 8:
            return [P(self.ch(("以前得过日本脑炎", "爷爷有阿尔茨海默症", "担心是桥本甲状腺炎", "查了说不是帕金森",
                               "医生怀疑是克罗恩病", "小时候得过川崎病", "排除了唐氏综合征", "说有点像格林巴利",
                               "以前得过香港脚", "有马凡综合征的可能吗", "查过没有克山病")))]
        if k == 9:
            return [P(self.ch(("家里有云南白药能用吗", "吃过同仁堂的安宫牛黄丸", "片仔癀能一起吃吗", "喝了两包999感冒灵",
                               "马应龙痔疮膏涂了几天", "一直在吃汤臣倍健的钙片", "东阿阿胶能补血吗", "用过江中健胃消食片",
                               "白云山的板蓝根冲剂有用吗", "修正的斯达舒吃了也没用", "立普妥和波立维能一起吃吗",
                               "拜新同是早上吃还是晚上吃", "仁和的药便宜点能换吗")))]
        if k == 10:
            return self.T("住在{n}床，靠窗那边", n=str(self.r.randint(1, 60)))
        if k == 11:
            return self.T("B超室在门诊楼{n}楼，排了好久", n=str(self.r.randint(1, 6)))
        if k == 12:
            return self.T("是{x}，还是要去{y}", x=self.ch(("挂普通号就行", "先在社区医院开药吗", "先去县医院看看")),
                          y=self.ch(("大医院", "三甲医院", "省城的医院", "专科医院")))
        if k == 13:
            return self.T("医保是{a}的，异地能报销吗", a=a[1])
        if k == 14:
            return [P("今年"), self.k_age(c), P("了，"), P("从来没住过院")]
        if k == 15:
            return [P("抽血查了"), P(self.ch(("血常规", "肝功能", "甲功", "肾功能")), None), P("，"), self.k_time(), P("出结果")]
        sc = c["sc"]
        return [P(self.ch(sc["negs"]))]

    # ---------------------------------------------------------------- clinical turns
    def clin_p(self, c, voice=False, n=None):
        sc = c["sc"]
        who = c["who"]
        n = n or self.ch((1, 2, 2, 3))
        out = []
        for i in range(n):
            k = self.r.randrange(13)
            if k == 12:
                k = 2
            if i:
                out.append(P(self.ch(("，", "，¦", "。¦", "。", "，还有"))))
            if k == 0:
                out += self.T("{w}{s}，有{d}了", w=who, s=self.ch(sc["sym"]), d=self.k_dur(voice))
            elif k == 1:
                out += [P(self.ch(("化验单上", "报告上写着", "查的结果：", "检查结果", "单子上"))), *self.k_lab(self.ch(sc["labs"]), True)]
                if self.p(0.5):
                    out += [P("，"), *self.k_lab(self.ch(sc["labs"]))]
            elif k == 2:
                out += [self.k_time(), P(self.ch(("量的", "测的", "在家量了一下，"))), *self.k_vital(c)]
            elif k == 3:
                name, dose = self.k_dose(c)
                out += self.T("现在吃的{d}，一次{x}，{f}", d=name, x=dose,
                              f=self.ch(("一天两次", "一天一次", "早晚各一次", "一天三次", "睡前吃")))
            elif k == 4:
                out += self.hardneg(c)
            elif k == 5:
                out += [P(self.ch(("这个严重吗？", "要不要手术？", "需要住院吗？", "能不能先保守治疗？", "还要做什么检查？",
                                   "会不会是癌？", "平时要注意什么？", "药要吃多久？")))]
            elif k == 6 and sc.get("size"):
                out += [P(self.ch(("结节大小", "彩超说有个", "CT上"))), self.k_size()]
            elif k == 7:
                out += [P("病人今年" if c["self"] is False else "我今年"), self.k_age(c, voice), P("，"), P(self.ch(sc["sym"]))]
            elif k == 9:
                out += self.T("从{d}开始{s}", d=P(self.dt(c["onset"], "voice" if voice else "chat"), "DATE"), s=self.ch(sc["sym"]))
            elif k == 10:
                name, dose = self.k_dose(c)
                out += self.T("在{h}开了{n}，{x}", h=self.h(c, "hl", self.ch(("full", "short", "back"))), n=name,
                              x=self.ch(("吃了没效果", "吃了好一点", "还要继续吃吗", "一次吃多少")))
            elif k == 11:
                out += self.T("我们{a}{x}", a=P(self.addr(c["home"], self.ch(("county", "town", "city", "village"))), "ADDRESS"),
                              x=self.ch(("这边看不了", "这边的医院水平一般", "这里没有这个科", "这边医生说要去大医院")))
            elif c["age"] < 3:
                out += [P("出生的时候"), P(self.ch(("查过", "做过")) + sc["exam"])]
            else:
                when = P(self.ym(self.dago(60, max(61, min(900, c['age'] * 365)))), "DATE") if self.p(0.4) else \
                    P(f"{self.day.year - self.r.randint(1, min(9, c['age']))}年", "time")
                out += [P(self.ch(("之前", "以前"))), when,
                        P(self.ch(("做过", "查过"))), P(sc["exam"]), P(self.ch(("，说没事", "，当时说要观察"))),
                        ]
        return out

    def clin_d(self, c, n=None):
        sc = c["sc"]
        n = n or self.ch((1, 2, 2, 3))
        out = []
        for i in range(n):
            if i:
                out.append(P("" if out[-1][0].endswith(("？", "。")) else self.ch(("。", "；", "，", "。\n"))))
            k = self.r.randrange(10)
            if k == 0:
                out += [*self.k_lab(self.ch(sc["labs"])), P(self.ch(("偏高", "轻度升高", "在正常范围", "偏低一点", "明显高了")))]
            elif k == 1:
                name, dose = self.k_dose(c)
                out += self.T("{d}每次{x}，{f}，先{u}{t}", d=name, x=dose, u="用" if "乳膏" in name or name == "达克宁" else "吃", f=self.ch(("每天一次", "每天两次", "早饭后", "睡前")),
                              t=P(self.ch(("3天", "一周", "两周", "一个月", "三个月", "5到7天")), "duration"))
            elif k == 2:
                out += self.T("建议{t}复查{e}", t=self.ch((P("一个月后", "time"), P("三个月后", "time"), P("下周", "time"),
                                                         P("半年后", "time"))), e=sc["exam"])
            elif k == 3:
                out += [P(self.ch(("目前看问题不大", "不用太紧张", "这个情况比较常见", "需要进一步检查",
                                   "最好来门诊当面看一下", "先按我说的调整用药")))]
            elif k == 4:
                sign = "体温" if sc.get("temp") else "血压" if sc.get("bp") or c["age"] > 50 else "体重"
                out += [P(self.ch(("现在", "目前", "最近"))), P(sign),
                        P(self.ch(("多少？", "怎么样？", "有没有变化？")))]
            elif k == 5 and (sc.get("bp") or c["age"] > 50):
                out += [P("血压控制在"), P(self.ch(("130/80mmHg", "140/90mmHg", "130/80")), "vital"), P("以下")]
            elif k == 8:
                out += self.T("{d}{x}的{e}我看了", d=P(self.dt(c["visit"], "doc"), "DATE"), x=self.ch(("做", "在外院做", "查")),
                              e=sc["exam"])
            elif k == 9:
                out += self.T("{h}的{x}可以参考", h=self.h(c, self.ch(("hl", "hb")), self.ch(("full", "short", "short", "back"))),
                              x=self.ch(("检查结果", "诊断", "报告")))
            elif k == 6:
                out += [P(self.ch(("有没有过敏史？", "家里有没有人有类似的病？", "以前有没有高血压、糖尿病？",
                                   "症状是持续的还是一阵一阵的？", "吃药以后有没有好转？", "还有其他不舒服吗？")))]
            else:
                out += [P(self.ch(("少吃辛辣油腻", "注意休息，别熬夜", "戒烟限酒", "多喝水", "适当运动")))]
        return out
    # ---------------------------------------------------------------- the case behind one consultation
    def case(self):
        self.day = datetime.date(2019, 1, 1) + datetime.timedelta(days=self.r.randint(0, 2370))
        sc = self.ch(SCEN)
        age = self.r.randint(*sc["ages"])
        sex = "F" if sc["dz"] in ("早孕", "乳腺结节") else self.ch("MF")
        home = self.place()
        birth = self.day - datetime.timedelta(days=age * 365 + self.r.randint(0, 364))
        pt = self.person(birth.year, sex, home["ps"])
        c = dict(sc=sc, age=age, home=home, birth=birth, pt=pt, self=True, kin="")
        c["pnick"] = self.nick(pt, age)
        writer = None
        if age < 14:
            kin = self.ch([k for k in KIN_KID if k[1] in ("?", sex)])
            c.update(self=False, kin=kin[0])
            wsex = self.ch("MFF")
            wy = birth.year - self.r.randint(22, 38)
            writer = self.person(wy, wsex, home["ps"], surname=pt["sur"] if wsex == "M" and pt["sur"] else None)
        elif age >= 58 and self.p(0.7):
            kin = self.ch([k for k in KIN_OLD if k[1] == sex])
            c.update(self=False, kin=kin[0])
            writer = self.person(birth.year + self.r.randint(22, 34), self.ch("MF"), home["ps"])
        elif age >= 20 and self.p(0.2):
            kin = self.ch([k for k in KIN_MID if k[1] in ("?", sex)])
            c.update(self=False, kin=kin[0])
            writer = self.person(birth.year + self.r.randint(-4, 4), "F" if sex == "M" else "M", home["ps"])
        c["writer"] = writer or pt
        c["who"] = P("我") if c["self"] else P(c["kin"])
        wage = self.day.year - c["writer"]["by"]
        c["voice"] = (wage >= 62 and self.p(0.6)) or self.p(0.07)
        dby = self.r.randint(1958, 1990)
        c["doc"] = self.person(dby, self.ch("MF"))
        c["title"] = self.ch(("主任", "主任", "医生", "大夫", "教授", "老师"))
        c["asst"] = self.person(self.r.randint(1990, 2001), self.ch("FFM"))
        c["nurse"] = self.person(self.r.randint(1975, 2001), "F")
        c["hl"] = self.hosp_local(home)
        c["hb"] = self.hosp_big(home)
        c["phone"] = self.mobile()
        c["wphone"] = self.mobile()
        c["mrn_kind"] = self.ch(("门诊号", "住院号", "病案号", "就诊卡号", "ID号", "登记号", "病历号", "医保卡号"))
        c["mrn"] = self.num(c["mrn_kind"])
        c["onset"] = self.dago(5, 200)
        c["visit"] = self.dago(2, 60)
        # writing style of the patient side, fixed for the consultation (a person keeps their habits)
        c["punct"] = "none" if c["voice"] else self.wch(("cn", "ascii", "space", "mixed", "tail"), (10, 3, 2, 2, 2))
        c["fw"] = self.wch(("no", "all", "ids"), (16, 2, 1))
        c["typo"] = (not c["voice"]) and self.p(0.35)
        c["burst"] = 0.15 if c["voice"] else self.ch((0.1, 0.35, 0.6, 0.8))
        c["emoji"] = self.ch((0, 0.05, 0.2, 0.4))
        c["dpunct"] = self.wch(("cn", "ascii"), (9, 1))
        return c

    # ---------------------------------------------------------------- referring expressions
    def pt_name(self, c, form="full"):
        pe = c["pt"]
        if form == "giv" and not pe["minority"] and len(pe["giv"]) == 2:
            return P(pe["giv"], "NAME")
        if form == "nick":
            return P(c["pnick"], "NAME")
        return P(pe["full"], "NAME")

    def pt_ref(self, c, named=False):
        """how the patient side names the patient in running text"""
        if c["self"]:
            if named:
                return [P("我是"), self.pt_name(c), P("，")]
            return [P("我")]
        if named:
            return [P(c["kin"]), P(self.ch(("", "", "叫"))), self.pt_name(c, "nick" if c["age"] < 12 and self.p(0.3) else "full")]
        return [P(c["kin"])]

    def doc_ref(self, c, form=None):
        d = c["doc"]
        form = form or self.wch(("sur", "full", "bare"), (6, 2, 2))
        if d["minority"] or form == "full":
            return [P(d["full"], "NAME"), P(c["title"])]
        if form == "sur":
            return [P(d["sur"], "NAME"), P(c["title"])]
        return [P(self.ch(("医生", "大夫", "主任")))]

    def h(self, c, which, form=None):
        full, shorts, back = c[which]
        form = form or self.wch(("full", "short", "back"), (4, 4, 2))
        if form == "full":
            return P(full, "HOSPITAL")
        if form == "short":
            return P(self.ch(shorts), "HOSPITAL")
        return P(self.ch(back))

    def dform(self, c, d, who="pt"):
        if who == "pt":
            return P(self.dt(d, "voice" if c["voice"] else "chat"), "DATE")
        return P(self.dt(d, "doc"), "DATE")

    def phone_p(self, c, num=None):
        return P(self.fmt_mobile(num or c["wphone"], c["voice"]), "PHONE")

    def thanks(self, c):
        if self.p(0.5):
            return [P(self.ch(("谢谢", "感谢", "好的，谢谢", "辛苦"))), *self.doc_ref(c, self.ch(("sur", "sur", "full"))),
                    P(self.ch(("！", "🙏", "", "了")))]
        return [P(self.ch(("谢谢医生！", "好的，谢谢您", "明白了，麻烦您了", "感谢耐心解答🙏", "好的", "谢谢")))]

    def greet_pt(self, c):
        """how a doctor opens a reply: now and then with the patient's name"""
        if self.p(0.22):
            pe = c["pt"]
            if c["self"]:
                return [P(pe["full"] if self.p(0.6) or pe["minority"] else pe["giv"], "NAME"), P("您好，")]
            return [self.pt_name(c, "nick" if c["age"] < 12 else "full"), P(self.ch(("家属您好，", "的家属，你好，")))]
        return []

    def sex_word(self, c):
        return "男" if c["pt"]["sex"] == "M" else "女"

    # ---------------------------------------------------------------- flows
    def f_haodf(self, c):
        sc, t = c["sc"], []
        t.append(("pt", [*self.doc_ref(c), P(self.ch(("您好，¦", "你好¦", "，您好¦", "在吗？¦"))),
                         *(self.T("{x}{a}的，", x=self.ch(("我们是", "我是", "我们这边是", "老家")),
                                  a=P(self.addr(c["home"], self.ch(("city", "county", "town", "village"))), "ADDRESS"))
                           if self.p(0.4) else []),
                         *self.T("{w}{s}，{x}", w=self.pt_ref(c, named=self.p(0.35)), s=P(self.ch(sc["sym"])),
                                 x=self.ch(("想请您看看", "想咨询一下", "麻烦您帮忙看看报告")))]))
        if self.p(0.75):
            card = [P("【病情描述】\n患者："), self.pt_name(c), P(f"  {self.sex_word(c)}  "), self.k_age(c),
                    P(f"\n疾病：{sc['dz']}\n病情描述："), P(self.ch(sc["sym"])),
                    P("\n患病多久："), self.k_dur(), P("\n已就诊医院：")]
            card += [self.h(c, "hl", self.ch(("full", "short")))]
            card += [P(f" {sc['dept']}\n首次发病时间："), P(self.dt(c["onset"], "form"), "DATE")]
            if self.p(0.5):
                name, dose = self.k_dose(c)
                card += [P(f"\n用药情况：{name} "), dose, P(self.ch((" 每日一次", " 每日两次", " bid", " qd")))]
            card += [P("\n希望获得的帮助：" + self.ch(("是否需要手术", "下一步怎么治疗", "报告怎么看", "用药是否合适")))]
            t.append(("sys_p", card))
        intro = [P("您好，我是"), self.h(c, "hb", "full"), P(sc["dept"]), P(c["doc"]["full"], "NAME"), P("医生，") ]
        t.append(("doc", (intro if self.p(0.5) else []) + self.T("{q}", q=self.ch((
            "资料已经看了。", "请问症状持续多久了？", "检查报告方便上传一下吗？", "您说的情况我了解了。")))
            + self.clin_d(c, 1)))
        t.append(("pt", [P("[图片]")]))
        if self.p(0.6):
            t.append(("pt", [P("[图片]")]))
        rep = [P(self.ch(("检查报告单\n", "【检验报告】\n", "", "报告上的字：\n"))), P("姓名："), self.pt_name(c),
               P(f"  性别：{self.sex_word(c)}  年龄："), self.k_age(c), P("\n")]
        if self.p(0.7):
            rep += [P(c["mrn_kind"] + "："), P(c["mrn"], "MRN"), P("  ")]
        rep += [P("科室：" + sc["dept"] + "\n" + "采样时间："), P(self.dt(c["visit"], "form"), "DATE"), P(" "),
                P(f"{self.r.randint(7, 11)}:{self.r.randint(0, 59):02d}", "time"), P("\n")]
        for lab in sc["labs"]:
            rep += [*self.k_lab(lab, True), P("\n")]
        if self.p(0.6):
            rep += [P("检验者："), P(self.person(self.r.randint(1970, 1998), self.ch("MF"))["full"], "NAME"),
                    P("  审核者："), P(self.person(self.r.randint(1965, 1990), self.ch("MF"))["full"], "NAME")]
        t.append(("pt", rep))
        t.append(("doc", self.greet_pt(c) + self.clin_d(c, 2)))
        t.append(("pt", self.T("{d}在{h}{x}，¦", d=self.dform(c, c["onset"]), h=self.h(c, "hl"),
                               x=self.ch(("查出来的", "看的", "住了几天院", "做的检查"))) + self.clin_p(c, c["voice"])))
        t.append(("doc", self.clin_d(c)))
        if self.p(0.35):
            t.append(("pt", self.T("片子太大传不上来，{x}", x=self.ch(("能发您邮箱吗", "怎么发给您")))))
            t.append(("doc", self.T("发到{e}，注明患者姓名", e=P(self.email(), "EMAIL"))))
        if self.p(0.65):
            a = c["asst"]
            nick = self.ch(("小" + a["sur"], a["full"])) if a["sur"] else a["full"]
            t.append(("asst", self.T("您好，我是{d}{ti}的助理{n}，{ti}让我帮您加号。¦请提供就诊人姓名、身份证号和手机号。",
                                     d=P(c["doc"]["sur"] or c["doc"]["full"], "NAME"), ti=c["title"], n=P(nick, "NAME"))))
            sep = self.ch((" ", "\n", "，", "  ", " "))
            idn = self.idno(c["birth"])
            if self.p(0.07):
                idn = self.ch(("护照", "港澳通行证")) + self.ch(("", "：", " "))
                idn = [P(idn), P(("E" if idn.startswith("护") else "C") + self.digits(8, "0123456789"), "ID")]
            else:
                idn = [P(idn, "ID")]
            bare = [self.pt_name(c), P(sep), *idn, P(sep), self.phone_p(c)]
            if self.p(0.3):
                bare = [P("姓名：")] + bare[:2] + ([P("身份证：")] if len(idn) == 1 else []) + bare[2:]
            t.append(("pt", bare))
            vd = self.dahead(3, 20)
            t.append(("asst", self.T("已为您加号成功：{d} {tm}，{h}{dep}，加号码：{n}，请携带身份证提前到{x}取号。",
                                     d=self.dform(c, vd, "doc"), tm=P(self.ch(("上午", "下午", "上午8:00-11:30")), "time"),
                                     h=P(c["hb"][0] + (self.ch(CAMPUS) if self.p(0.3) else ""), "HOSPITAL"),
                                     dep=sc["dept"] + self.ch(("", "专家门诊", "门诊")), n=P(self.num("加号码"), "ORDER_ID"),
                                     x=self.ch(("自助机", "人工窗口", "分诊台")))))
            if self.p(0.35):
                t.append(("pt", [P(self.ch(("能加一下助理的微信吗？", "有微信吗？方便后面联系", "后面有问题怎么联系你们？")))]))
                t.append(("asst", self.T("可以，{c}{w}，{x}", c=self.ch(("我的微信：", "助理微信号", "加我微信", "QQ也可以：")),
                                         w=P(self.wxid(c["asst"]), "URL"), x=self.ch(("备注患者姓名", "加的时候说一下是哪位患者", "工作时间回复")))))
            t.append(("pt", self.T("收到，{x}", x=self.ch(("谢谢！", "谢谢主任和助理", "好的，到时候准时去", "那天要空腹吗？")))))
        if self.p(0.4):
            d2 = self.dahead(8, 40)
            self.day, old = d2, self.day
            t.append(("pt", [*self.doc_ref(c, "sur"), P("，¦我们"), self.dform(c, old + datetime.timedelta(days=self.r.randint(2, 6))),
                             P("做了" + (sc["proc"] or sc["exam"]) + "，¦"), P(self.ch(("病理号", "报告编号", "检查号"))),
                             P(self.num("病理号"), "MRN"), P("，"), *self.clin_p(c, c["voice"], 1)]))
            t.append(("doc", self.clin_d(c)))
            self.day = old
        t.append(("pt", self.thanks(c)))
        return t

    def f_refill(self, c):
        sc, t = c["sc"], []
        name, dose = self.k_dose(c)
        card = [P("【复诊续方】\n就诊人："), self.pt_name(c), P(f"\n性别：{self.sex_word(c)}  年龄："), self.k_age(c),
                P("\n手机号："), P(c["phone"] if c["self"] else c["wphone"], "PHONE"), P("\n线下确诊医院："),
                self.h(c, "hb", "full"), P(f"\n确诊疾病：{sc['dz']}\n上次就诊时间："), P(self.dt(c["visit"], "form"), "DATE"),
                P(f"\n续开药品：{name} "), dose, P(" ×" + str(self.r.randint(1, 4)) + "盒")]
        if self.p(0.35):
            card += [P(self.ch(("\n医保类型：职工医保  社保卡号：", "\n社保卡号：", "\n证件号码："))), P(self.idno(c["birth"]), "ID")]
        t.append(("sys_p", card))
        t.append(("doc", [P(self.ch(("您好，", "你好，"))), P(self.ch(("请上传最近一次的门诊病历或处方。", "请问目前用药后有不舒服吗？",
                                                               "最近一次复查是什么时候？")))]))
        t.append(("pt", [P("[图片]")]))
        t.append(("pt", self.T("{c}{n}，{d}在{dep}{dr}那开的", c=c["mrn_kind"] + self.ch(("是", "：", "")), n=P(c["mrn"], "MRN"),
                               d=self.dform(c, c["visit"]), dep=sc["dept"], dr=self.doc_ref(c, "sur")[0:1] + [P(self.ch(("医生", "主任")))])))
        t.append(("doc", self.clin_d(c, 1)))
        t.append(("pt", self.clin_p(c, c["voice"])))
        rx = self.num("处方编号")
        t.append(("sys_d", self.T("【处方已开具】处方编号：{n}\n开方医生：{d}\n请在24小时内完成支付，逾期处方失效。",
                                  n=P(rx, "ORDER_ID"), d=P(c["doc"]["full"], "NAME"))))
        if self.p(0.5):
            t.append(("sys_d", self.T("审核药师：{n}  审核结果：通过", n=P(self.person(self.r.randint(1975, 1998), self.ch("MF"))["full"], "NAME"))))
        rcv = c["writer"]
        if self.p(0.55):
            t.append(("pt", [P("收货人："), P(rcv["full"], "NAME"), P("\n电话："), P(self.fmt_mobile(c["wphone"]), "PHONE"),
                             P("\n所在地区："), P(self.addr(c["home"], "spaced"), "ADDRESS"), P("\n详细地址："),
                             P(self.addr(c["home"], "nocity") if not c["home"]["muni"] else self.addr(c["home"], "street"), "ADDRESS")]))
        else:
            t.append(("pt", self.T("药寄到{a}，¦电话{p}，{n}收", a=P(self.addr(c["home"], "full"), "ADDRESS"),
                                   p=self.phone_p(c), n=P(rcv["full"] if self.p(0.6) else c["pnick"], "NAME"))))
        t.append(("cs", self.T("您好，药品已{x}发出，运单号：{n}，{t}可送达。", x=self.ch(("由顺丰", "由京东物流", "由中通", "")),
                               n=P(self.num("快递单号"), "ORDER_ID"), t=P(self.ch(("预计明天", "预计后天", "预计2-3天")), None))))
        t.append(("pt", [P(self.ch(("请问", "医生，", "还想问下，"))), P(name), P(self.ch(("是饭前吃还是饭后吃？", "漏吃了一次怎么办？",
                                                                               "能和降压药一起吃吗？")))]))
        t.append(("doc", [P(self.ch(("饭后吃就行，", "漏服不用补，下次按时吃，", "可以一起吃，间隔一小时，", "按原来的量吃，"))),
                          *self.clin_d(c, 1)]))
        t.append(("pt", [P(self.ch(("好的谢谢", "收到", "明白了，谢谢医生！")))]))
        return t

    def f_jd(self, c):
        t = []
        name, dose = self.k_dose(c)
        t.append(("sys_p", [P(f"【用药需求】{name}×{self.r.randint(1, 3)}盒\n用药人："), self.pt_name(c), P(f"（{self.sex_word(c)}，"),
                            self.k_age(c), P("）\n")] + ([P("身份证号："), P(self.idno(c["birth"]), "ID"), P("\n")] if self.p(0.45) else [])
            + [P("线下已确诊：是  过敏史：无  肝肾功能异常：否")]))
        t.append(("doc", [P(self.ch(("您好，", ""))), P(name), P(self.ch(("以前吃过吗？有没有不良反应？", "是医生开过的吗？",
                                                                     "用药多久了？")))]))
        t.append(("pt", self.clin_p(c, c["voice"])))
        t.append(("doc", self.clin_d(c) + [P("。处方已开具，请按说明书服用。")]))
        k = self.r.randrange(3)
        if k == 0:
            t.append(("pt", self.T("订单号{n}，下单{d}了还没发货", n=P(self.num("订单号"), "ORDER_ID"), d=self.k_dur())))
            t.append(("cs", self.T("亲，已为您查询，订单已由京东物流配送，运单号{n}，预计{t}送达哦", n=P(self.num("快递单号"), "ORDER_ID"),
                                   t=P(self.ch(("明天", "今天下午", "后天")), "time"))))
        elif k == 1:
            t.append(("pt", self.T("付款的时候扣了两次钱，交易单号{n}", n=P(self.num(self.ch(("交易单号", "支付宝交易号"))), "ORDER_ID"))))
            t.append(("cs", self.T("非常抱歉，已为您申请退款，退款单号{n}，1-3个工作日原路退回。", n=P(self.num("退款单号"), "ORDER_ID"))))
        else:
            t.append(("pt", self.T("收货地址填错了，¦应该是{a}，电话{p}", a=P(self.addr(c["home"], self.ch(("full", "nocity", "street"))), "ADDRESS"),
                                   p=self.phone_p(c))))
            t.append(("cs", [P("好的，已为您修改收货地址，订单号"), P(self.num("订单号"), "ORDER_ID"), P("。")]))
        t.append(("pt", [P(self.ch(("好的", "谢谢", "麻烦快点哈", "ok")))]))
        return t

    def f_pingan(self, c):
        t = []
        t.append(("pt", [P(self.ch(("医生你好，", "你好，", "在吗¦", ""))), *self.clin_p(c, c["voice"], 2)]))
        t.append(("doc", self.greet_pt(c) + self.clin_d(c, 1)))
        t.append(("pt", self.clin_p(c, c["voice"], 2)))
        t.append(("doc", self.clin_d(c) + self.T("。建议到{x}就诊。", x=self.ch(("当地医院", "正规医院", "三甲医院", "附近医院")))))
        t.append(("pt", self.T("我在{a}，¦去哪家医院好？", a=P(self.addr(c["home"], self.ch(("city", "county", "town"))), "ADDRESS"))))
        t.append(("doc", self.T("可以去{a}，或者{b}", a=self.h(c, "hl", self.ch(("full", "short"))), b=self.h(c, "hb", self.ch(("full", "short"))))))
        if self.p(0.4):
            cue = self.ch(("能加您微信吗，我微信是", "方便加个微信吗？", "我QQ", "这是我微信号："))
            v = self.ch((self.wxid(c["writer"]), c["wphone"])) if "QQ" not in cue else self.digits(self.r.randint(8, 10))
            t.append(("pt", [P(cue), P(v, "URL")]))
            t.append(("doc", [P("平台规定不能私下联系，有问题可以在"), P(self.ch(PLATFORMS)), P("上继续问我。")]))
        t.append(("pt", self.hardneg(c) + [P("，¦")] + self.thanks(c)))
        if self.p(0.4):
            t.append(("pt", [P(self.ch(("好的", "嗯嗯", "谢谢医生", "👍")))]))
        return t

    def f_wechat(self, c):
        sc, t = c["sc"], []
        cue = self.ch(("就诊卡号", "登记号", "门诊号", "ID号"))
        t.append(("pt", [P(self.ch(("你好¦", "您好，", "在吗¦", ""))), P("想查一下"), *self.pt_ref(c), P("的" + sc["exam"] + "报告出来没有")]))
        t.append(("cs", self.T("您好，这里是{h}在线客服，请提供就诊人姓名和{c}。", h=self.h(c, "hl", "full") if self.p(0.5) else self.h(c, "hb", "full"), c=cue)))
        num = self.num("就诊卡号" if cue == "就诊卡号" else "门诊号")
        if self.p(0.5):
            t.append(("pt", [self.pt_name(c), P(self.ch(("，", " ", "\n"))), P(num, "MRN")]))
        else:
            t.append(("pt", [P("姓名："), self.pt_name(c), P(f"\n{cue}："), P(num, "MRN"), P("\n手机号："), self.phone_p(c)]))
        t.append(("cs", self.T("查询到{n}的{e}报告已于{d} {tm}发布，报告编号{r}，可在公众号“报告查询”中查看或到自助机打印。",
                               n=self.pt_name(c), e=sc["exam"], d=P(self.dt(self.dago(0, 3), "form"), "DATE"),
                               tm=P(f"{self.r.randint(8, 17)}:{self.r.randint(0, 59):02d}", "time"), r=P(self.num("报告编号"), "MRN"))))
        k = self.r.randrange(3)
        if k == 0:
            vd = self.dahead(2, 20)
            t.append(("pt", self.T("那预约{d}的复查能改到下周吗？预约码{n}", d=P(f"{vd.month}/{vd.day}" if self.p(0.5) else f"{vd.month}.{vd.day}", "DATE"),
                                   n=P(self.num("预约码"), "ORDER_ID"))))
            nd = vd + datetime.timedelta(days=7)
            t.append(("cs", self.T("已为您改约至{d} {tm}，{dep}在门诊楼{f}楼。", d=P(self.dt(nd, "doc"), "DATE"),
                                   tm=P(self.ch(("上午9:30", "下午2:00", "上午")), "time"), dep=sc["dept"], f=str(self.r.randint(2, 6)))))
        elif k == 1:
            t.append(("pt", self.T("出院了想复印病历报销用，¦{c}{n}，能邮寄吗？", c=self.ch(("住院号", "病案号")),
                                   n=P(self.num("住院号"), "MRN"))))
            t.append(("cs", [P("可以的，请提供患者身份证号、收件人、收件地址和电话，也可以留个邮箱接收电子版。")]))
            t.append(("pt", [P("身份证"), P(self.idno(c["birth"]), "ID"), P("\n收件人："), P(c["writer"]["full"], "NAME"), P("\n地址："),
                             P(self.addr(c["home"], "full"), "ADDRESS"), P("\n电话："), self.phone_p(c),
                             *([P("\n邮箱："), P(self.email(), "EMAIL")] if self.p(0.4) else [])]))
            t.append(("cs", self.T("已受理，{x}工作日内寄出，快递单号会短信通知。", x=P(self.ch(("3个", "5个", "7个")), None))))
        else:
            t.append(("pt", self.T("{x}电子发票开错了抬头，¦缴费单号{n}", x=self.ch(("上次", "")),
                                   n=P(self.num(self.ch(("交易单号", "挂号单号"))), "ORDER_ID"))))
            t.append(("cs", self.T("请把正确的抬头和邮箱发给我们，或者拨打{p}咨询。", p=P(self.ch((self.landline(), "400-" + self.digits(3, "0123456789") + "-" + self.digits(4, "0123456789"))), "PHONE"))))
            t.append(("pt", [P("邮箱"), P(self.email(), "EMAIL")]))
        t.append(("pt", [P(self.ch(("好的谢谢", "收到", "好", "谢谢啦")))]))
        return t

    def f_nurse(self, c):
        sc, t = c["sc"], []
        dis = self.dago(3, 20)
        n = c["nurse"]
        greet = [P("您好，请问是"), self.pt_name(c), P(self.ch(("吗？", "的家属吗？") if not c["self"] else ("吗？", "本人吗？")))]
        t.append(("nurse", greet + self.T("我是{h}{dep}的护士{n}，{x}是{d}出院的，现在恢复得怎么样？",
                                           h=self.h(c, "hb", self.ch(("full", "short"))), dep=sc["dept"],
                                           n=P("小" + n["sur"] if self.p(0.3) and n["sur"] else n["full"], "NAME"),
                                           x=self.ch(("您", "病人", "患者")), d=self.dform(c, dis, "doc"))))
        t.append(("pt", [P(self.ch(("挺好的，", "还行，", "您好，"))), *self.clin_p(c, c["voice"], 2)]))
        rv = self.dahead(5, 30)
        t.append(("nurse", self.T("记得{d}回来复查，挂{dr}的号，带上出院小结，{c}{n}。", d=self.dform(c, rv, "doc"),
                                  dr=self.doc_ref(c, self.ch(("sur", "full"))), c=self.ch(("住院号", "病案号")), n=P(self.num("住院号"), "MRN"))))
        t.append(("pt", self.T("好的。¦{dr}那天出诊吗？", dr=self.doc_ref(c, self.ch(("sur", "bare"))))))
        t.append(("nurse", self.T("出诊的，有问题可以打科室电话{p}，{t}都有人。", p=P(self.landline(), "PHONE"),
                                  t=P(self.ch(("白天", "8点到17点", "工作日")), None))))
        if self.p(0.5):
            t.append(("pt", self.T("{x}，{w}", x=self.ch(("伤口这两天有点红", "伤口有点渗液", "刀口有点痒")) if sc["proc"]
                                   else self.ch(("这两天还是有点不舒服", "回家以后又有点反复")), w=self.clin_p(c, c["voice"], 1))))
            t.append(("nurse", [P(self.ch(("拍个照片发过来看看。", "先别碰水，明天来换药。", "这个正常，注意保持干燥。")))]))
        if self.p(0.3):
            t.append(("nurse", self.T("这是出院随访问卷，麻烦填一下：{u}", u=P(self.url(), "URL"))))
        t.append(("pt", [P(self.ch(("好的，谢谢", "谢谢护士", "辛苦了", "收到")))]))
        return t

    def f_follow(self, c):
        sc, t = c["sc"], []
        op = self.dago(60, 500)
        t.append(("pt", [*self.doc_ref(c, "sur"), P("您好，¦我是"), self.dform(c, op),
                         P("在您那" + self.ch(("做" + (sc["proc"] or "检查"), "住院", "看病"))), P("的"), *([self.pt_name(c)] if c["self"] else [self.pt_name(c), P("的家属")]),
                         P("，"), P(c["mrn_kind"]), P(c["mrn"], "MRN"), P("，¦今天来报到")]))
        t.append(("doc", [P(self.ch(("你好，", "您好，"))), P(self.ch(("恢复得怎么样？最近复查了吗？", "最近情况怎么样？", "记得你，复查结果发我看看。")))]))
        sessions = self.ch((1, 2, 2, 3))
        base = self.day
        for s in range(sessions):
            d = op + datetime.timedelta(days=(s + 1) * self.r.randint(25, 100))
            if d > base:
                d = base - datetime.timedelta(days=sessions - s)
            parts = [self.dform(c, d), P(self.ch(("复查的：", "在", "查的，"))), ]
            if parts[-1][0] == "在":
                parts += [self.h(c, self.ch(("hl", "hb")), self.ch(("full", "short", "back"))), P("查的：")]
            for lab in sc["labs"][: self.r.randint(1, len(sc["labs"]))]:
                parts += [*self.k_lab(lab), P("，")]
            parts += [P(self.ch(("您看要调药吗？", "要紧吗？", "这样可以吗？")))]
            if s:
                parts = [P(self.ch(("主任，又来打扰您了。¦", "医生，¦", ""))), *parts]
            t.append(("pt", parts))
            t.append(("doc", self.greet_pt(c) + self.clin_d(c)))
        if self.p(0.5):
            t.append(("pt", self.T("下次复查还是挂您的号吗？{h}网上挂不到", h=self.h(c, "hb", self.ch(("short", "back"))))))
            t.append(("doc", self.T("可以在{pl}上预约，或者打{p}", pl=self.ch(PLATFORMS[:4]),
                                    p=P(self.landline(False), "PHONE"))))
        if self.p(0.3):
            t.append(("pt", self.T("网上看到这篇{x}：{u} 说的对吗？", x=self.ch(("文章", "科普")), u=P(self.url(), "URL"))))
            t.append(("doc", [P(self.ch(("不太准确，按我们说的来。", "可以参考，但每个人情况不同。")))]))
        t.append(("pt", self.thanks(c)))
        return t

    def f_kid(self, c):
        """a parent with a sick child on a consultation app: the nickname carries the conversation"""
        t = []
        nick = c["pnick"]
        t.append(("pt", [P(self.ch(("医生您好，", "你好医生，", "在吗¦"))), P(c["kin"]), P(self.ch(("", "小名叫"))),
                         P(nick, "NAME"), P("，"), self.k_age(c), P("，¦"), *self.clin_p(c, c["voice"], 2)]))
        t.append(("doc", self.clin_d(c, 2)))
        t.append(("pt", [P(nick, "NAME"), P(self.ch(("现在", "刚才"))), *self.k_vital(c), P("，¦"), *self.clin_p(c, c["voice"], 1)]))
        t.append(("doc", self.clin_d(c)))
        if self.p(0.6):
            t.append(("pt", self.T("{d}在{h}看过，说是{x}", d=self.dform(c, self.dago(1, 10)), h=self.h(c, "hl", self.ch(("full", "short", "back"))),
                                   x=self.ch(("病毒感染", "支原体", "疱疹性咽峡炎", "积食")))))
            t.append(("doc", self.clin_d(c, 1)))
        if self.p(0.4):
            t.append(("pt", [P("我们在"), P(self.addr(c["home"], self.ch(("city", "county", "town", "street"))), "ADDRESS"),
                             P("，"), self.h(c, "hb", self.ch(("full", "short"))), P("离得远，要不要带过去？")]))
            t.append(("doc", [P(self.ch(("暂时不用，观察体温变化。", "如果持续高热建议去看急诊。", "可以先在附近医院复查血常规。")))]))
        t.append(("pt", [P(self.ch(("谢谢医生！", "好的，", "嗯嗯，")))] + ([P(nick, "NAME"), P(self.ch(("妈妈谢谢您", "爸爸谢谢您")))] if self.p(0.4) else [])))
        return t
    # ---------------------------------------------------------------- from turns to messages
    FLOWS = ("f_haodf", "f_refill", "f_jd", "f_pingan", "f_wechat", "f_nurse", "f_follow")
    FLOW_W = (26, 14, 10, 10, 15, 11, 14)

    def consultation(self):
        c = self.case()
        if c["age"] < 12 and self.p(0.55):
            name = "f_kid"
        else:
            name = self.wch(self.FLOWS, self.FLOW_W)
        turns = getattr(self, name)(c)
        msgs = []
        last_doc = None
        for who, parts in turns:
            side = "patient" if who in ("pt", "sys_p") else "doctor"
            if who == "pt" and last_doc is not None and name in ("f_wechat", "f_nurse") and self.p(0.25) \
                    and not parts[0][0].startswith(("[", "姓名", "【", "身份证", "收货")):
                parts = self.quote(c, last_doc) + parts
            if who == "pt":
                segs = self.split(parts, c["burst"])
            else:
                segs = self.split(parts, 0.0)
            for seg in segs:
                m = self.render(c, who, seg)
                if m is not None:
                    msgs.append(m)
            if side == "doctor":
                last_doc = (who, parts)
        return msgs

    def quote(self, c, last):
        """a WeChat quote-reply: the quoted message is copied with its identifiers, cut after about 24 chars"""
        who, parts = last
        if who == "doc":
            head = [P(c["doc"]["full"] if c["doc"]["minority"] else c["doc"]["sur"], "NAME"), P(c["title"] + "：")]
        elif who == "nurse":
            head = [P(c["nurse"]["full"], "NAME"), P("：")]
        else:
            head = [P(self.ch(("在线客服", "客服", "医院客服")) + "：")]
        body, n = [], 0
        for txt, lab in parts:
            txt = txt.replace(BRK, "")
            if n >= 24:
                break
            if lab is None and n + len(txt) > 24:
                txt = txt[: max(1, 24 - n)].rstrip() + "…"
            if txt:
                body.append((txt, lab))
            n += len(txt)
        return [P("「")] + head + body + [P("」\n- - - - - - - - - - - - - - -\n")]

    def split(self, parts, burst):
        segs = [[]]
        for txt, lab in parts:
            if lab is None and BRK in txt:
                pieces = txt.split(BRK)
                for i, pc in enumerate(pieces):
                    if i and self.p(burst):
                        segs.append([])
                    if pc:
                        segs[-1].append((pc, None))
            else:
                segs[-1].append((txt, lab))
        return [s for s in segs if s]

    _ASCII = str.maketrans({"，": ",", "。": ".", "？": "?", "！": "!", "：": ":", "（": "(", "）": ")", "；": ";", "、": ","})
    _SPACE = str.maketrans({"，": " ", "。": " ", "；": " ", "、": " "})
    _NONE = str.maketrans({"，": " ", "。": " ", "；": " ", "、": " ", "？": "", "！": "", "：": " "})
    _FW = str.maketrans("0123456789", "０１２３４５６７８９")
    _TYPO = (("怎么", "咋"), ("已经", "以经"), ("什么", "啥"), ("没有", "没得"), ("需要", "须要"), ("是不是", "是布是"),
             ("在吗", "在么"), ("谢谢", "谢谢了"), ("吗？", "嘛？"), ("一下", "一哈"), ("厉害", "利害"), ("现在", "线在"),
             ("这个", "这个"), ("好的", "好滴"), ("觉得", "觉的"), ("做的", "作的"), ("严重", "言重"))

    def plain(self, c, who, txt):
        side_p = who in ("pt",)
        mode = c["punct"] if side_p else (c["dpunct"] if who in ("doc", "asst", "nurse") else "cn")
        if side_p and c["voice"]:
            txt = txt.replace("\n", " ")
        if side_p and c["typo"]:
            for a, b in self._TYPO:
                if a in txt and self.p(0.4):
                    txt = txt.replace(a, b, 1)
        if mode == "ascii":
            txt = txt.translate(self._ASCII)
        elif mode == "space":
            txt = txt.translate(self._SPACE)
        elif mode == "none":
            txt = txt.translate(self._NONE)
        elif mode == "mixed":
            txt = "".join(ch.translate(self._ASCII) if self.p(0.5) else ch for ch in txt)
        elif mode == "tail":
            txt = txt.replace("。", self.ch(("。。", "~", "...", "。", "！")))
        return txt

    def render(self, c, who, parts):
        # tidy the edges of a burst piece
        parts = list(parts)
        while parts and parts[0][1] is None and parts[0][0].lstrip("，,。；、 \n") == "":
            parts.pop(0)
        while parts and parts[-1][1] is None and parts[-1][0].rstrip("，,；、 \n") == "":
            parts.pop()
        if not parts:
            return None
        if parts[0][1] is None:
            parts[0] = (parts[0][0].lstrip("，,。；、 \n"), None)
        if parts[-1][1] is None:
            parts[-1] = (parts[-1][0].rstrip("，,；、 \n"), None)
        side = "patient" if who in ("pt", "sys_p") else "doctor"
        fw = c["fw"] if who in ("pt", "sys_p") else "no"
        if who == "pt" and c["voice"] and parts[0][1] is None and not parts[0][0].startswith(("[", "【", "姓名")) \
                and self.p(0.35):
            parts[0] = (self.ch(("那个", "就是", "嗯", "就是说", "喂")) + parts[0][0], None)
        out = []
        for txt, lab in parts:
            if lab is None:
                txt = self.plain(c, who, txt)
                if fw == "all":
                    txt = txt.translate(self._FW)
            elif fw == "all" or (fw == "ids" and lab in CATS):
                txt = txt.translate(self._FW)
            out.append((txt, lab))
        if who == "pt" and self.p(c["emoji"]):
            out.append((self.ch(EMOJI), None))
        text, spans, keep = "", [], []
        for txt, lab in out:
            if lab is not None:
                assert txt and txt == txt.strip(), (txt, lab)
                (spans if lab in CATS else keep).append([len(text), len(text) + len(txt), lab])
            text += txt
        lead = len(text) - len(text.lstrip())
        if lead:
            text = text[lead:]
            spans = [[a - lead, b - lead, k] for a, b, k in spans]
            keep = [[a - lead, b - lead, k] for a, b, k in keep]
        text = text.rstrip()
        if not text:
            return None
        return {"text": text, "role": side, "spans": spans, "keep": keep}


def generate(seed: int, n: int) -> list[dict]:
    """the first ``n`` messages of the endless stream of consultations for ``seed``"""
    g = _Gen(seed)
    out, cid = [], 0
    while len(out) < n:
        for m in g.consultation():
            m["consultation"] = cid
            out.append(m)
        cid += 1
    return out[:n]


def _digest(msgs):
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify():
    got = _digest(generate(0, 3000))
    if got != CORPUS_SHA256:
        raise RuntimeError(f"consult_f drifted: {got} != {CORPUS_SHA256}")


def _main():
    msgs = generate(0, 3000)
    cats = {k: 0 for k in CATS}
    kinds = {k: 0 for k in KEEPS}
    for m in msgs:
        for _, _, k in m["spans"]:
            cats[k] += 1
        for _, _, k in m["keep"]:
            kinds[k] += 1
    print(f"messages {len(msgs)}  consultations {len({m['consultation'] for m in msgs})}")
    print("identifiers", sum(cats.values()), "  " + "  ".join(f"{k} {v}" for k, v in cats.items()))
    print("keep", sum(kinds.values()), "  " + "  ".join(f"{k} {v}" for k, v in kinds.items()))
    share = sum(1 for m in msgs if m["spans"]) / len(msgs)
    print(f"messages with an identifier: {share:.1%}   patient {sum(m['role'] == 'patient' for m in msgs)}")
    r = random.Random(1)
    for m in r.sample(msgs, 8):
        t = m["text"]
        marks = sorted([(a, b, k) for a, b, k in m["spans"]] + [(a, b, "~" + k) for a, b, k in m["keep"]])
        s, pos = "", 0
        for a, b, k in marks:
            s += t[pos:a] + "【" + t[a:b] + "|" + k + "】"
            pos = b
        print(f"--- #{m['consultation']} {m['role']}: {s + t[pos:]}")
    try:
        verify()
        print("sha256 ok")
    except RuntimeError as e:
        print(e)


if __name__ == "__main__":
    _main()
