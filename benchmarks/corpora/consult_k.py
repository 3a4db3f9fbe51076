"""Held-out test corpus K for Chinese text de-identification: long narratives of online consultations.

Provenance: a blind generator, written from the category definitions alone (the ``text.policy`` block of
``conf/deid/default.yaml`` with its comments, and the module docstrings of ``benchmarks/corpora/consult_b.py``
to ``consult_i.py``), without reading the detector, its rules, lexicons, statistical layer, policy module,
tests, tools, benchmark scripts or the code of the other corpora, and without ever running a detector (or
anything from ``medrealmm``) on it.  Frozen: measurement only, never tuning.  If a rule is changed because of
a message in this corpus, the corpus no longer measures anything; write a new one instead.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only, no
set/dict iteration order or hash randomisation).  The corpus for seed 0 / 3000 messages is frozen by
``CORPUS_SHA256`` (sha256 of ``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``);
``verify()`` regenerates it and raises if a single character moved.  For seed 0 / 3000 messages: about 240
consultations, about 59 % of the messages carry an identifier, about 140 messages have 500 characters or more.
``python benchmarks/corpora/consult_k.py`` prints the counts per category and keep kind, the share of messages with an identifier, the number of
consultations and a few marked samples (``--verify`` checks the hash).

Each message::

    {"text": str, "role": "patient" | "doctor",
     "consultation": int,                        # index of the consultation; its messages are consecutive
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` (code point) offsets, end exclusive, sorted; spans never overlap each other or a
keep span; no span or keep span starts or ends with whitespace.  ``generate(seed, n)`` returns the first ``n``
messages of an endless stream of whole consultations, so a shorter corpus is a prefix of a longer one.  An
internal check (``_check``) enforces these invariants on every message and raises on a violation.

Design (unlike B's fixed scenarios, C's slot grammar, D's case-then-turns co-reference, E's per-message case
record, F's platform flows, G's writers with habits, H's regions and I's pasted paperwork): the unit is a
consultation built around LONG NARRATIVES.  A case is drawn first: a patient (adult, elder with a child
writing, child with a parent writing, a spouse writing), an illness storyline of one of a dozen kinds
(diabetes turning into kidney disease, hepatitis B to cirrhosis or liver cancer, thyroid nodules, coronary
disease with stents, lung nodules, lumbar disc, stroke and Parkinsonism, breast cancer, a child's Kawasaki
disease or epilepsy, gastric cancer, rheumatoid arthritis, infertility), a home chain (province, city,
county, town, village and group or a compound), the city where the writer works and the one the family
moved to, a ladder of hospitals (village clinic, town health centre, place-named county hospital, city
hospital and its short form, a famous provincial or national hospital with its nickname, a private clinic),
the doctors met on the way, relatives, a neighbour, the colleague or friend who recommended a doctor, a
timeline of several years and the record numbers.  The consultation then runs: (1) the patient's or
relative's written illness history (病情自述 / 求医经历), several paragraphs that walk through the years
(onset, the first hospital, referral, operation, insurance and reimbursement, moving between cities, work
and family, the latest tests), with time written every way people write it (absolute, year + month,
two-digit years, relative years 去年/前年 with months and lunar months, a year with a festival, lunar days,
ranges, a year alone, "术后第3天", "两年前"), with lab values over time, doses, sizes and durations; sometimes
split over two messages; (2) the doctor's questions and long written replies: a structured summary
(主诉/现病史/既往史/个人史/家族史/婚育史/辅助检查/诊断/建议), a retelling of a discharge summary, a referral
note to a named colleague at a named hospital, a follow-up plan with dates (numbered 1. 2. 3. or 一、二、三、);
(3) follow-up turns that refer back to the narrative ("您上面说的那位…", "我爸在那边的医院…"), short
clinical questions, supplements, thanks.  Writing quality varies per consultation (Chinese punctuation,
ASCII punctuation, spaces for punctuation, run-on text without paragraphs).  Hard negatives sit in the
same narratives: brand medicines (立普妥, 波立维, 拜新同, 格华止, 博路定, 优甲乐, 赫赛汀, 云南白药, 片仔癀 ...),
eponym and place-named diseases (桥本甲状腺炎, 帕金森病, 川崎病, 克罗恩病, 阿尔茨海默病, 克山病, 香港脚),
place-named foods, words beginning with a surname character (白细胞, 马上, 高血压, 周一, 常规), everyday
words that are also names (夏天, 平安, 文静, 高峰期), generic forms of address (阿姨, 大爷, 师傅, 老乡,
大姐), titles without a name (主任, 教授, 主治医生), platforms (好大夫在线, 微医), generic hospital phrases
(当地医院, 县医院, 市医院, 省医, 大医院, 三甲医院, 市人民医院), a province alone (老家是河南的), service
numbers (120, 12320, 12345), money amounts, reimbursement shares, bed numbers and clinical numbers (keep).

Annotation conventions (those of corpora B-I, which define the categories; choices this corpus had to make
are marked "choice"):

* NAME: the name only, never the kinship word or title ("我爸【李德明】", "【陈】教授", "邻居【张】婶");
  bare given names, nicknames with 小/老/阿 whole (【小陈】, 【老孙】), staff names in signatures and
  referral headings, compound and rare surnames.  哥 / 姐 / 婶 / 叔 after a name stay outside (corpus H).
* PHONE: mobiles (plain, 3-4-4 with dashes or spaces, +86), landlines with area code (转 extension inside).
  120 / 12320 / 12345 plain.
* ID: 18-digit resident IDs with a valid GB 11643 check digit, social security card numbers after 社保卡号;
  the cue outside.  EMAIL; URL (links, WeChat IDs, QQ numbers given as contacts; the cue outside).
* ADDRESS: every unit below the province, alone or chained (a city alone, district, county, town, village
  and group, road and number, compound with building / unit / room); a province written in front is
  inside; a province alone is plain.  Province-level municipalities occur only with a district behind them
  (inside the span).  Place names inside hospital names belong to the HOSPITAL span.
* HOSPITAL: named institutions and their short forms (华西, 协和, 浙一, 301, 市二院, 省肿瘤医院, 郸城县人民
  医院, 吴台镇卫生院, 王庄村卫生室, 刘氏诊所); the department after it is plain.  Level + ordinal or
  specialty forms (市一院, 市三院, 市中医院, 省肿瘤医院, 省儿童医院) are HOSPITAL (policy ``level_hospitals``).
  Choice: a city's 中心医院 is written with its place (周口中心医院, 周口市中心医院), never as a bare
  市中心医院, which would be ambiguous between the policy's two cases.  Generic back-references
  (县医院, 市医院, 省医, 省人医, 省立医院, 市人民医院, 当地医院, 大医院, 三甲医院, 卫生院, 诊所) are plain.
* DATE: every calendar date finer than a year: 2024年3月5日, 2024.3.5, 2024-03-05, 3月5号, year + month
  (2019年5月, 2019年5月份), 今年/去年/前年 + month (+ day) whole, 去年腊月, 农历八月初三.
  Choice: a two-digit year with a month ("19年5月") is DATE like 2019年5月.  Choice: a year with a festival
  ("2019年国庆", "去年春节", "前年中秋") names one day of the person's life and is DATE (the words after it,
  后 / 前后 / 那会儿, are plain); a festival alone stays plain.  Choice: a year with a season or with
  年底 / 年初 / 下半年 ("2019年底", "2020年夏天") is coarser than a month: the year is keep "time", the rest
  plain.  Choice: in a range written "2020年3月到6月" the second end inherits the year and is DATE as well
  (two spans), as is "3月5日至20日" ("20日", a day of a known month).  Bare M/D or M.D only after 复查/预约.
  A lunar day without 农历 ("九月十二那天") is DATE.  A year alone (also "今年", "去年" alone), relative days and
  weeks (两周前, 上个月, 四年前, 今年年初), weekdays, clock times (7点), the day count of 术后第3天 ("3天") and
  advice intervals (1个月后, 术后1个月) are keep "time".
* MRN: 住院号, 门诊号, 病理号, 报告编号, 医保卡号 (cue outside).  ORDER_ID: 挂号单号, 转诊单号, 预约码, 加号码,
  结算单号 (cue outside).  Choice: the number on a referral slip (转诊单号) and the reimbursement settlement
  number (结算单号) are ORDER_ID, like a registration number; a case mentioned both as a shortened and as a
  full number gives two ORDER_ID spans in different messages.  Bed numbers (47床), counts of admissions
  (住了5次院), money amounts (花了28万多) and reimbursement shares (报了61%) are plain.
* PHONE also covers a hospital's appointment line and a department's landline given in a doctor's reply
  (corpus I's choice); EMAIL also a department's mailbox; URL also a doctor's page on a platform and a
  cloud-drive link with the patient's films.
* Keep: "age" (68岁, 六十八岁, 5岁半), "duration" (3年, 两个月, 10天, 13分钟, 3个小时), "dose" (amount +
  unit only, frequency plain), "lab" (test + value + unit with its separator, sizes, a percentage of
  stenosis or EF, a reference range alone).  Choice: when a narrative names the test and then writes words
  before the value ("血沉又涨到了37mm/h", "C14呼气试验还是1311左右"), only the value (with its unit when
  written) is the lab keep span.
  "vital" (sign + value: 血压160/100mmHg, 体温39.2℃, 体重65kg, 心率108次/分), "time".
"""

import hashlib
import json
import random
import sys

CORPUS_SHA256 = "0166f045fffd46de79a44d138cbc05596cd190c6771d42cd2dfd48d46b0e4b2b"

CATEGORIES = ("NAME", "ADDRESS", "HOSPITAL", "DATE", "PHONE", "ID", "EMAIL", "URL", "MRN", "ORDER_ID")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")

# ----------------------------------------------------------------------------------------------- parts
# A message is a list of parts: a plain ``str`` or a tuple (text, tag) with tag a CATEGORY or "~kind".


def S(text, cat):
    return (text, cat)


def K(text, kind):
    return (text, "~" + kind)


def _flatten(parts, out):
    for p in parts:
        if isinstance(p, list):
            _flatten(p, out)
        else:
            out.append(p)
    return out


def _render(parts, style):
    flat = _flatten(parts, [])
    text = []
    spans = []
    keep = []
    pos = 0
    for p in flat:
        if isinstance(p, str):
            t = _restyle(p, style)
            text.append(t)
            pos += len(t)
            continue
        t, tag = p
        if not t:
            continue
        if tag is None:
            text.append(t)
            pos += len(t)
            continue
        if tag.startswith("~"):
            keep.append([pos, pos + len(t), tag[1:]])
        else:
            spans.append([pos, pos + len(t), tag])
        text.append(t)
        pos += len(t)
    return "".join(text), spans, keep


def _restyle(t, style):
    if style == "ascii":
        return (t.replace("，", ",").replace("。", ".").replace("：", ":").replace("？", "?")
                .replace("！", "!").replace("（", "(").replace("）", ")").replace("；", ";"))
    if style == "space":
        return t.replace("，", " ").replace("。", " ").replace("；", " ").replace("、", " ")
    if style == "runon":
        return t.replace("\n\n", "").replace("\n", "").replace("。", "，")
    return t


def _check(msg):
    text = msg["text"]
    n = len(text)
    allspans = [(s, e, c, "span") for s, e, c in msg["spans"]] + [(s, e, k, "keep") for s, e, k in msg["keep"]]
    for lst, names in ((msg["spans"], CATEGORIES), (msg["keep"], KEEP_KINDS)):
        prev = -1
        for s, e, c in lst:
            if c not in names:
                raise ValueError("unknown label %r" % c)
            if not (0 <= s < e <= n):
                raise ValueError("bad offsets %r in %r" % ((s, e), text))
            if s < prev:
                raise ValueError("unsorted")
            prev = s
            frag = text[s:e]
            if frag != frag.strip():
                raise ValueError("whitespace at span edge %r" % frag)
    allspans.sort()
    for a, b in zip(allspans, allspans[1:]):
        if b[0] < a[1]:
            raise ValueError("overlap %r %r in %r" % (a, b, text))
    if msg["role"] not in ("patient", "doctor"):
        raise ValueError("role")


# ----------------------------------------------------------------------------------------------- pools

SURNAMES = (
    ("王", 9), ("李", 9), ("张", 8), ("刘", 7), ("陈", 6), ("杨", 5), ("黄", 4), ("赵", 4), ("吴", 3), ("周", 3),
    ("徐", 3), ("孙", 3), ("马", 2), ("朱", 2), ("胡", 2), ("郭", 2), ("何", 2), ("林", 2), ("罗", 2), ("高", 2),
    ("郑", 2), ("梁", 2), ("谢", 1), ("宋", 1), ("唐", 1), ("许", 1), ("韩", 1), ("冯", 1), ("邓", 1), ("曹", 1),
    ("彭", 1), ("曾", 1), ("肖", 1), ("田", 1), ("董", 1), ("潘", 1), ("袁", 1), ("蔡", 1), ("蒋", 1), ("余", 1),
    ("于", 1), ("杜", 1), ("叶", 1), ("程", 1), ("魏", 1), ("苏", 1), ("吕", 1), ("丁", 1), ("任", 1), ("卢", 1),
    ("姚", 1), ("沈", 1), ("钟", 1), ("姜", 1), ("崔", 1), ("谭", 1), ("陆", 1), ("范", 1), ("汪", 1), ("廖", 1),
    ("石", 1), ("金", 1), ("韦", 1), ("贾", 1), ("夏", 1), ("付", 1), ("方", 1), ("邹", 1), ("熊", 1), ("白", 1),
    ("孟", 1), ("秦", 1), ("邱", 1), ("侯", 1), ("江", 1), ("尹", 1), ("薛", 1), ("闫", 1), ("段", 1), ("雷", 1),
    ("龙", 1), ("史", 1), ("陶", 1), ("贺", 1), ("毛", 1), ("郝", 1), ("顾", 1), ("龚", 1), ("邵", 1), ("万", 1),
    ("覃", 1), ("武", 1), ("钱", 1), ("戴", 1), ("严", 1), ("欧阳", 1), ("司马", 1), ("诸葛", 1), ("上官", 1),
    ("禚", 1), ("仉", 1), ("逄", 1), ("訾", 1), ("佘", 1), ("隗", 1),
)
_SUR_LIST = []
for _s, _w in SURNAMES:
    _SUR_LIST.extend([_s] * _w)
_SUR_LIST = tuple(_SUR_LIST)

GIVEN_M_OLD = ("建国", "德明", "国华", "卫东", "春生", "红军", "立新", "学军", "振华", "玉林", "长海", "福生",
               "守成", "广田", "金贵", "永福", "树森", "保国", "庆丰", "连生", "德胜", "有才", "清河", "俊山")
GIVEN_F_OLD = ("秀英", "桂兰", "玉珍", "淑芬", "凤霞", "玉兰", "秀珍", "桂芳", "翠花", "素梅", "金凤", "兰英",
               "春梅", "淑华", "月娥", "爱华", "秀云", "桂香", "美玲", "银花")
GIVEN_M_MID = ("志强", "海涛", "永刚", "文斌", "明辉", "晓东", "鹏飞", "建华", "卫国", "红兵", "立军", "国强",
               "伟", "强", "磊", "军", "勇", "斌", "涛", "刚", "德华", "振宇", "志刚", "少华", "光辉")
GIVEN_F_MID = ("丽娟", "红梅", "海燕", "晓琳", "雪梅", "丽", "芳", "娟", "敏", "燕", "霞", "萍", "红", "慧",
               "晓燕", "春燕", "丽萍", "小红", "玉梅", "秀梅", "艳", "美华")
GIVEN_M_YOUNG = ("浩然", "子轩", "宇航", "俊杰", "家豪", "梓豪", "博文", "一鸣", "皓宇", "天佑", "思远", "宇轩",
                 "睿", "昊天", "铭泽", "俊熙", "浩宇", "子墨")
GIVEN_F_YOUNG = ("欣怡", "梓涵", "雨桐", "思琪", "诗涵", "可欣", "紫萱", "梦瑶", "佳怡", "一诺", "若曦", "语嫣",
                 "雨萱", "子涵", "婉清", "心怡")
PET = ("豆豆", "乐乐", "朵朵", "果果", "糖糖", "皮皮", "航航", "妞妞", "贝贝", "壮壮")

# province, ID prefix, [(city, area code, [counties/districts])], famous hospitals [(full, short)]
REGIONS = (
    ("河南", "41", (("周口", "0394", ("郸城县", "太康县", "川汇区", "沈丘县")),
                    ("驻马店", "0396", ("上蔡县", "汝南县", "驿城区", "正阳县")),
                    ("郑州", "0371", ("金水区", "中原区", "新郑市", "二七区"))),
     (("郑州大学第一附属医院", "郑大一附院"), ("河南省肿瘤医院", "省肿瘤医院"), ("河南省胸科医院", "省胸科医院"))),
    ("四川", "51", (("成都", "028", ("武侯区", "双流区", "郫都区", "金牛区")),
                    ("绵阳", "0816", ("涪城区", "三台县", "江油市", "盐亭县")),
                    ("南充", "0817", ("顺庆区", "仪陇县", "南部县", "营山县"))),
     (("四川大学华西医院", "华西"), ("四川省肿瘤医院", "省肿瘤医院"), ("四川省人民医院", "四川省人民医院"))),
    ("湖南", "43", (("长沙", "0731", ("岳麓区", "望城区", "浏阳市", "雨花区")),
                    ("邵阳", "0739", ("邵东市", "隆回县", "新邵县", "洞口县")),
                    ("常德", "0736", ("武陵区", "桃源县", "澧县", "汉寿县"))),
     (("中南大学湘雅医院", "湘雅"), ("中南大学湘雅二医院", "湘雅二院"), ("湖南省肿瘤医院", "湖南肿瘤医院"))),
    ("山东", "37", (("济南", "0531", ("历下区", "章丘区", "平阴县", "槐荫区")),
                    ("临沂", "0539", ("兰山区", "沂南县", "费县", "郯城县")),
                    ("菏泽", "0530", ("牡丹区", "曹县", "郓城县", "单县"))),
     (("山东大学齐鲁医院", "齐鲁医院"), ("山东省立医院", "山东省立医院"), ("山东省肿瘤医院", "省肿瘤医院"))),
    ("浙江", "33", (("杭州", "0571", ("西湖区", "余杭区", "萧山区", "拱墅区")),
                    ("温州", "0577", ("鹿城区", "瑞安市", "苍南县", "乐清市")),
                    ("金华", "0579", ("婺城区", "义乌市", "东阳市", "永康市"))),
     (("浙江大学医学院附属第一医院", "浙一"), ("浙江大学医学院附属邵逸夫医院", "邵逸夫"),
      ("浙江省肿瘤医院", "浙江省肿瘤医院"))),
    ("广东", "44", (("广州", "020", ("天河区", "番禺区", "白云区", "海珠区")),
                    ("湛江", "0759", ("霞山区", "雷州市", "廉江市", "徐闻县")),
                    ("梅州", "0753", ("梅江区", "兴宁市", "五华县", "大埔县"))),
     (("中山大学附属第一医院", "中山一院"), ("南方医科大学南方医院", "南方医院"),
      ("中山大学肿瘤防治中心", "中山肿瘤"))),
    ("安徽", "34", (("合肥", "0551", ("蜀山区", "肥西县", "长丰县", "包河区")),
                    ("阜阳", "0558", ("颍州区", "临泉县", "太和县", "阜南县")),
                    ("六安", "0564", ("金安区", "霍邱县", "舒城县", "金寨县"))),
     (("安徽医科大学第一附属医院", "安医大一附院"), ("安徽省胸科医院", "省胸科医院"), ("安徽省儿童医院", "省儿童医院"))),
    ("湖北", "42", (("武汉", "027", ("洪山区", "江夏区", "武昌区", "汉阳区")),
                    ("荆州", "0716", ("沙市区", "监利市", "洪湖市", "公安县")),
                    ("黄冈", "0713", ("黄州区", "麻城市", "蕲春县", "浠水县"))),
     (("华中科技大学同济医学院附属协和医院", "武汉协和"), ("华中科技大学同济医学院附属同济医院", "同济"),
      ("湖北省肿瘤医院", "省肿瘤医院"))),
    ("江苏", "32", (("南京", "025", ("鼓楼区", "江宁区", "浦口区", "秦淮区")),
                    ("徐州", "0516", ("云龙区", "沛县", "邳州市", "睢宁县")),
                    ("盐城", "0515", ("亭湖区", "阜宁县", "东台市", "射阳县"))),
     (("江苏省人民医院", "江苏省人民医院"), ("南京鼓楼医院", "鼓楼医院"), ("江苏省肿瘤医院", "省肿瘤医院"))),
    ("河北", "13", (("石家庄", "0311", ("长安区", "正定县", "晋州市", "新华区")),
                    ("邯郸", "0310", ("丛台区", "魏县", "武安市", "大名县")),
                    ("保定", "0312", ("竞秀区", "涿州市", "清苑区", "高阳县"))),
     (("河北医科大学第二医院", "河北医大二院"), ("河北医科大学第四医院", "河北医大四院"),
      ("河北省儿童医院", "省儿童医院"))),
    ("黑龙江", "23", (("哈尔滨", "0451", ("南岗区", "道里区", "双城区", "香坊区")),
                      ("齐齐哈尔", "0452", ("龙沙区", "讷河市", "克山县", "依安县")),
                      ("绥化", "0455", ("北林区", "海伦市", "望奎县", "青冈县"))),
     (("哈尔滨医科大学附属第一医院", "哈医大一院"), ("哈尔滨医科大学附属第二医院", "哈医大二院"),
      ("哈尔滨医科大学附属肿瘤医院", "哈医大肿瘤医院"))),
    ("陕西", "61", (("西安", "029", ("雁塔区", "未央区", "长安区", "碑林区")),
                    ("宝鸡", "0917", ("渭滨区", "岐山县", "凤翔区", "眉县")),
                    ("渭南", "0913", ("临渭区", "蒲城县", "富平县", "大荔县"))),
     (("空军军医大学西京医院", "西京"), ("西安交通大学第一附属医院", "西交大一附院"), ("陕西省肿瘤医院", "省肿瘤医院"))),
    ("江西", "36", (("南昌", "0791", ("东湖区", "南昌县", "进贤县", "青山湖区")),
                    ("赣州", "0797", ("章贡区", "于都县", "宁都县", "信丰县")),
                    ("上饶", "0793", ("信州区", "鄱阳县", "余干县", "玉山县"))),
     (("南昌大学第一附属医院", "南大一附院"), ("江西省肿瘤医院", "省肿瘤医院"), ("江西省儿童医院", "省儿童医院"))),
    ("甘肃", "62", (("兰州", "0931", ("城关区", "七里河区", "榆中县", "安宁区")),
                    ("天水", "0938", ("秦州区", "甘谷县", "秦安县", "武山县")),
                    ("定西", "0932", ("安定区", "通渭县", "陇西县", "岷县"))),
     (("兰州大学第一医院", "兰大一院"), ("兰州大学第二医院", "兰大二院"), ("甘肃省肿瘤医院", "省肿瘤医院"))),
    ("辽宁", "21", (("沈阳", "024", ("和平区", "铁西区", "浑南区", "皇姑区")),
                    ("大连", "0411", ("甘井子区", "金州区", "瓦房店市", "庄河市")),
                    ("锦州", "0416", ("古塔区", "凌海市", "黑山县", "义县"))),
     (("中国医科大学附属第一医院", "医大一院"), ("中国医科大学附属盛京医院", "盛京医院"), ("辽宁省肿瘤医院", "省肿瘤医院"))),
    ("云南", "53", (("昆明", "0871", ("五华区", "官渡区", "呈贡区", "盘龙区")),
                    ("曲靖", "0874", ("麒麟区", "宣威市", "会泽县", "陆良县")),
                    ("昭通", "0870", ("昭阳区", "镇雄县", "彝良县", "鲁甸县"))),
     (("昆明医科大学第一附属医院", "昆医附一院"), ("云南省第一人民医院", "云南省第一人民医院"),
      ("云南省肿瘤医院", "省肿瘤医院"))),
)
NATIONAL = (("北京协和医院", "协和"), ("中国人民解放军总医院", "301"), ("复旦大学附属中山医院", "中山医院"),
            ("上海交通大学医学院附属瑞金医院", "瑞金医院"), ("复旦大学附属肿瘤医院", "复旦肿瘤医院"),
            ("中国医学科学院阜外医院", "阜外"), ("首都医科大学附属北京天坛医院", "天坛医院"),
            ("中国医学科学院肿瘤医院", "医科院肿瘤医院"), ("北京大学第一医院", "北大医院"),
            ("上海交通大学医学院附属仁济医院", "仁济"), ("复旦大学附属儿科医院", "复旦儿科"))
MUNI = (("北京", ("朝阳区", "海淀区", "丰台区", "昌平区", "大兴区")),
        ("上海", ("闵行区", "浦东新区", "松江区", "宝山区", "嘉定区")),
        ("天津", ("河西区", "南开区", "西青区", "滨海新区")),
        ("重庆", ("渝北区", "江北区", "九龙坡区", "万州区")))

TOWN_ROOTS = ("吴台", "石桥", "关庙", "白马", "清水", "李楼", "黄集", "双河", "汪桥", "南湖", "龙口", "新店",
              "高店", "柳林", "大王庄", "杨湖", "马头", "三里河", "东岳", "青龙", "花园", "铁佛", "官桥", "孙铺")
VILLAGE_ROOTS = ("王庄", "李家湾", "张营", "后刘", "前进", "石门", "红旗", "东高", "小寨", "陈楼", "双庙", "河湾",
                 "赵洼", "杨树林", "黄泥坝", "周堂", "吴庄", "大柳树", "新华", "马道")
ROAD_ROOTS = ("建设", "人民", "解放", "文化", "中州", "光明", "迎宾", "新华", "胜利", "长江", "滨河", "和平",
              "工农", "育才", "朝阳", "兴业")
COMPOUND_ROOTS = ("幸福家园", "锦绣花园", "阳光小区", "翡翠城", "名门世家", "东方明珠小区", "惠民小区", "金色港湾",
                  "水岸华庭", "世纪花园", "建业森林半岛", "碧桂园", "万科城", "教师家属院", "电业局家属院", "龙湖春江郦城")
DEPTS = ("内分泌科", "肝胆外科", "感染科", "甲状腺外科", "心内科", "胸外科", "骨科", "神经内科", "乳腺外科", "儿科",
         "胃肠外科", "风湿免疫科", "生殖中心", "肾内科", "肿瘤内科", "消化内科", "脊柱外科", "介入科")
PROFESSIONS = ("在家种地", "在工地干活", "开大货车", "退休前是小学老师", "在纺织厂上班", "做点小生意", "在乡政府上班",
               "当会计", "送快递", "在饭店当厨师", "跑出租", "在电子厂流水线", "开理发店", "在超市做收银")
PROF_OLD = ("在家种地", "退休前是小学老师", "以前在纺织厂上班", "退休工人", "在家带孙子", "年轻时当过村干部",
            "以前在供销社", "一直在家养鸡")
KIN_ELDER = (("我爸", "M"), ("我妈", "F"), ("我父亲", "M"), ("我母亲", "F"), ("我公公", "M"), ("我婆婆", "F"),
             ("我岳父", "M"), ("我丈母娘", "F"), ("我奶奶", "F"), ("我爷爷", "M"), ("我姥姥", "F"))
KIN_SPOUSE = (("我老公", "M"), ("我爱人", "M"), ("我老婆", "F"), ("我媳妇", "F"), ("我丈夫", "M"), ("我妻子", "F"))
KIN_CHILD = (("我儿子", "M"), ("我女儿", "F"), ("孩子", "M"), ("孩子", "F"), ("我家宝宝", "M"), ("我闺女", "F"))
SIBLING_M = ("我二哥", "我弟弟", "我表哥", "我大舅哥", "我姐夫", "我堂弟", "我小叔子")
SIBLING_F = ("我大姐", "我妹妹", "我堂姐", "我小姑子", "我表妹", "我嫂子")
# kinship word of the patient -> the writer's relation to the patient and the writer's sex
WRITER_OF = (("我爸", (("儿子", "M"), ("女儿", "F"))), ("我妈", (("儿子", "M"), ("女儿", "F"))),
             ("我父亲", (("儿子", "M"), ("女儿", "F"))), ("我母亲", (("儿子", "M"), ("女儿", "F"))),
             ("我公公", (("儿媳", "F"),)), ("我婆婆", (("儿媳", "F"),)), ("我岳父", (("女婿", "M"),)),
             ("我丈母娘", (("女婿", "M"),)), ("我奶奶", (("孙子", "M"), ("孙女", "F"))),
             ("我爷爷", (("孙子", "M"), ("孙女", "F"))), ("我姥姥", (("外孙", "M"), ("外孙女", "F"))),
             ("我老公", (("妻子", "F"),)), ("我爱人", (("妻子", "F"),)), ("我丈夫", (("妻子", "F"),)),
             ("我老婆", (("丈夫", "M"),)), ("我媳妇", (("丈夫", "M"),)), ("我妻子", (("丈夫", "M"),)))
ADDRESS_TERMS = ("阿姨", "大爷", "师傅", "老乡", "大姐", "大哥", "小伙子", "老师", "美女", "大叔")
PLATFORMS = ("好大夫在线", "微医", "丁香医生", "京东健康", "平安好医生")
GENERIC_HOSP = ("当地医院", "县医院", "市医院", "省医", "大医院", "三甲医院", "市人民医院", "县人民医院", "省人医",
                "社区医院", "那边的医院", "卫生院", "小诊所", "省立医院")
FOODS = ("兰州拉面", "沙县小吃", "柳州螺蛳粉", "北京烤鸭", "金华火腿", "重庆火锅", "新疆大盘鸡", "武汉热干面")
PINYIN = ("li", "wang", "zhang", "liu", "chen", "yang", "zhao", "huang", "zhou", "wu", "xu", "sun", "hu", "zhu",
          "gao", "lin", "he", "guo", "ma", "luo", "liang", "song", "zheng", "xie", "han", "tang", "feng", "yu")
CN_NUM = "零一二三四五六七八九"
LUNAR_M = ("正月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "冬月", "腊月")
LUNAR_D = ("初一", "初二", "初三", "初五", "初六", "初八", "初十", "十二", "十五", "十六", "十八", "二十", "二十三",
           "二十六", "廿八")
FESTIVALS = ("春节", "国庆", "中秋", "元旦", "五一", "端午", "清明")


def cn_int(n):
    """Chinese numerals for 0-99."""
    if n < 10:
        return CN_NUM[n]
    if n < 20:
        return "十" + (CN_NUM[n - 10] if n > 10 else "")
    t, u = divmod(n, 10)
    return CN_NUM[t] + "十" + (CN_NUM[u] if u else "")


DIGIT_WORDS = ("两", "三", "四", "五", "六", "七", "八", "九", "十")

# storylines: key, label, dept index, symptoms, diagnoses, tests (name, unit, lo, hi, decimals),
# procedures, drugs (generic, dose choices, brand or None), negatives
STORIES = (
    ("dm", "adult", "内分泌科", ("口干、多饮、多尿", "体重掉得厉害", "脚麻"),
     ("2型糖尿病", "糖尿病肾病", "糖尿病周围神经病变"),
     (("空腹血糖", "mmol/L", 6.5, 16.0, 1), ("糖化血红蛋白", "%", 6.2, 11.8, 1), ("肌酐", "μmol/L", 70, 320, 0),
      ("尿微量白蛋白", "mg/L", 30, 600, 0), ("甘油三酯", "mmol/L", 1.2, 6.5, 2)),
     ("肾穿刺活检", "眼底激光", "动态血糖监测"),
     (("二甲双胍", ("0.5g", "0.85g", "1片"), "格华止"), ("门冬胰岛素", ("8单位", "10单位", "6单位"), "诺和锐"),
      ("甘精胰岛素", ("12单位", "16单位", "20单位"), "来得时"), ("达格列净", ("10mg",), "安达唐")),
     ("克山病", "桥本甲状腺炎")),
    ("hbv", "adult", "感染科", ("乏力、没胃口", "右上腹隐痛", "眼睛发黄"),
     ("慢性乙型病毒性肝炎", "乙肝肝硬化", "原发性肝癌"),
     (("ALT", "U/L", 40, 380, 0), ("AST", "U/L", 35, 300, 0), ("HBV-DNA", "IU/ml", 1000, 900000, 0),
      ("AFP", "ng/ml", 8, 1200, 1), ("总胆红素", "μmol/L", 15, 80, 1)),
     ("TACE介入", "肝部分切除术", "射频消融"),
     (("恩替卡韦", ("0.5mg", "1片"), "博路定"), ("富马酸丙酚替诺福韦", ("25mg", "1片"), "韦立德"),
      ("水飞蓟宾", ("2粒", "70mg"), None)),
     ("片仔癀", "香港脚")),
    ("thy", "adult", "甲状腺外科", ("脖子摸到一个包", "心慌、手抖", "声音有点哑"),
     ("甲状腺结节", "甲状腺乳头状癌", "桥本甲状腺炎"),
     (("TSH", "mIU/L", 0.02, 8.5, 2), ("FT4", "pmol/L", 9.0, 28.0, 1), ("甲状腺球蛋白抗体", "IU/ml", 20, 900, 0),
      ("结节大小", "mm", 5, 32, 0)),
     ("细针穿刺", "甲状腺右叶切除术", "甲状腺全切+中央区淋巴结清扫"),
     (("左甲状腺素钠片", ("50μg", "75μg", "100μg", "半片"), "优甲乐"), ("甲巯咪唑", ("10mg", "5mg"), "赛治")),
     ("桥本甲状腺炎", "格雷夫斯病")),
    ("cad", "adult", "心内科", ("胸口闷、压着疼", "爬楼梯就喘", "后背疼"),
     ("冠心病", "不稳定型心绞痛", "急性心肌梗死"),
     (("低密度脂蛋白", "mmol/L", 1.4, 5.2, 2), ("肌钙蛋白I", "ng/ml", 0.01, 12.0, 2), ("射血分数", "%", 35, 65, 0),
      ("前降支狭窄", "%", 50, 95, 0), ("BNP", "pg/ml", 50, 1800, 0)),
     ("冠脉造影", "支架植入术", "冠脉搭桥"),
     (("阿司匹林", ("100mg", "1片"), "拜阿司匹灵"), ("氯吡格雷", ("75mg",), "波立维"), ("阿托伐他汀", ("20mg", "40mg"), "立普妥"),
      ("硝苯地平控释片", ("30mg",), "拜新同")),
     ("川崎病", "阿尔茨海默病")),
    ("lung", "adult", "胸外科", ("咳嗽老不好", "体检发现肺上有结节", "痰里带血丝"),
     ("肺结节", "肺腺癌", "原位腺癌"),
     (("结节", "mm", 4, 28, 0), ("CEA", "ng/ml", 1.2, 48.0, 1), ("CYFRA21-1", "ng/ml", 1.0, 12.0, 1),
      ("磨玻璃结节", "mm", 5, 18, 0)),
     ("胸腔镜下肺叶切除", "CT引导下穿刺", "楔形切除"),
     (("吉非替尼", ("250mg", "1片"), "易瑞沙"), ("奥希替尼", ("80mg",), "泰瑞沙"), ("乙酰半胱氨酸", ("0.6g",), "富露施")),
     ("克罗恩病", "香港脚")),
    ("spine", "adult", "脊柱外科", ("腰疼，左腿发麻", "走路走不了远", "脚背没知觉"),
     ("腰椎间盘突出症", "腰椎管狭窄", "腰椎滑脱"),
     (("L4/5椎间盘突出", "mm", 4, 11, 0), ("体重", "kg", 55, 95, 0), ("VAS评分", "分", 3, 9, 0)),
     ("椎间孔镜", "腰椎融合内固定术", "射频消融"),
     (("塞来昔布", ("200mg", "1粒"), "西乐葆"), ("甲钴胺", ("0.5mg", "1片"), "弥可保"), ("乙哌立松", ("50mg",), "妙纳")),
     ("强直性脊柱炎", "克罗恩病")),
    ("neuro", "elder", "神经内科", ("右手发抖", "说话不利索", "走路往一边偏"),
     ("脑梗死", "帕金森病", "血管性痴呆"),
     (("同型半胱氨酸", "μmol/L", 10, 45, 1), ("低密度脂蛋白", "mmol/L", 1.6, 4.8, 2), ("MMSE评分", "分", 12, 28, 0),
      ("颈动脉斑块", "mm", 3, 18, 1)),
     ("溶栓", "颈动脉支架", "脑深部电刺激"),
     (("多巴丝肼", ("0.125g", "半片", "1片"), "美多芭"), ("普拉克索", ("0.25mg", "0.125mg"), "森福罗"),
      ("阿司匹林", ("100mg",), "拜阿司匹灵")),
     ("帕金森病", "阿尔茨海默病")),
    ("breast", "woman", "乳腺外科", ("摸到乳房有个硬块", "腋下有个疙瘩", "乳头有点凹进去"),
     ("乳腺癌", "浸润性导管癌", "乳腺纤维腺瘤"),
     (("肿块", "cm", 1.0, 5.5, 1), ("Ki-67", "%", 10, 80, 0), ("CA153", "U/ml", 8, 85, 1), ("CEA", "ng/ml", 1.0, 15.0, 1)),
     ("改良根治术", "保乳手术", "新辅助化疗"),
     (("他莫昔芬", ("10mg", "1片"), "三苯氧胺"), ("来曲唑", ("2.5mg",), "弗隆"), ("曲妥珠单抗", ("440mg",), "赫赛汀")),
     ("桥本甲状腺炎",)),
    ("kid", "child", "儿科", ("发烧好几天不退", "眼睛红、嘴唇干裂", "抽搐了一次"),
     ("川崎病", "热性惊厥", "癫痫"),
     (("体温", "℃", 38.5, 40.6, 1), ("白细胞", "×10^9/L", 11.0, 24.0, 1), ("血小板", "×10^9/L", 300, 780, 0),
      ("CRP", "mg/L", 12, 160, 0), ("血沉", "mm/h", 20, 110, 0)),
     ("丙种球蛋白冲击", "脑电图", "心脏彩超"),
     (("丙种球蛋白", ("10g", "15g"), None), ("阿司匹林", ("50mg", "100mg"), None), ("左乙拉西坦", ("2.5ml", "5ml"), "开浦兰")),
     ("川崎病", "手足口病")),
    ("gastric", "adult", "胃肠外科", ("胃胀、反酸", "吃饭吃不下", "大便发黑"),
     ("慢性萎缩性胃炎", "胃癌", "胃窦腺癌"),
     (("C14呼气试验", "dpm/mmol", 100, 1500, 0), ("CEA", "ng/ml", 1.0, 30.0, 1), ("血红蛋白", "g/L", 68, 130, 0),
      ("CA199", "U/ml", 5, 300, 1)),
     ("胃镜活检", "腹腔镜胃癌根治术", "内镜下黏膜剥离术"),
     (("奥美拉唑", ("20mg", "1粒"), "洛赛克"), ("雷贝拉唑", ("10mg", "20mg"), "波利特"), ("替吉奥", ("40mg", "2粒"), None)),
     ("克罗恩病", "幽门螺杆菌")),
    ("ra", "woman", "风湿免疫科", ("手指关节肿疼", "早上起来手僵", "膝盖肿"),
     ("类风湿关节炎", "干燥综合征", "骨关节炎"),
     (("类风湿因子", "IU/ml", 20, 480, 0), ("血沉", "mm/h", 15, 95, 0), ("CRP", "mg/L", 5, 80, 1),
      ("抗CCP抗体", "U/ml", 25, 500, 0)),
     ("关节腔注射", "关节镜清理", "骨密度检查"),
     (("甲氨蝶呤", ("10mg", "7.5mg", "4片"), None), ("来氟米特", ("10mg", "20mg"), "爱若华"), ("叶酸", ("5mg", "1片"), None)),
     ("干燥综合征", "强直性脊柱炎")),
    ("ivf", "woman", "生殖中心", ("结婚几年一直没怀上", "月经不规律", "胎停过一次"),
     ("继发不孕", "多囊卵巢综合征", "输卵管梗阻"),
     (("AMH", "ng/ml", 0.4, 9.0, 2), ("孕酮", "ng/ml", 0.5, 28.0, 1), ("促卵泡生成素", "mIU/ml", 4.0, 15.0, 1),
      ("子宫内膜", "mm", 5, 13, 1)),
     ("输卵管造影", "宫腔镜", "取卵移植"),
     (("地屈孕酮", ("10mg", "1片"), "达芙通"), ("来曲唑", ("2.5mg",), "弗隆"), ("二甲双胍", ("0.5g",), "格华止")),
     ("多囊卵巢综合征",)),
)

# ----------------------------------------------------------------------------------------------- helpers


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def chance(rng, p):
    return rng.random() < p


def fmt_val(v, dec):
    if dec == 0:
        return str(int(round(v)))
    return ("%." + str(dec) + "f") % v


def id_check(body17):
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    s = sum(int(c) * x for c, x in zip(body17, w))
    return "10X98765432"[s % 11]


def make_id(rng, prefix, y, m, d, sex):
    region = prefix + "%02d%02d" % (rng.randint(1, 17), rng.randint(1, 30))
    seq = rng.randint(0, 99) * 10 + (rng.choice((1, 3, 5, 7, 9)) if sex == "M" else rng.choice((0, 2, 4, 6, 8)))
    body = "%s%04d%02d%02d%03d" % (region, y, m, d, seq)
    return body + id_check(body)


def make_mobile(rng):
    p = pick(rng, ("139", "138", "137", "136", "135", "158", "159", "150", "151", "152", "186", "185", "187",
                   "188", "177", "176", "180", "181", "189", "133", "153", "199", "191", "173"))
    rest = "%08d" % rng.randrange(100000000)
    style = rng.randrange(6)
    if style == 0:
        return p + "-" + rest[:4] + "-" + rest[4:]
    if style == 1:
        return p + " " + rest[:4] + " " + rest[4:]
    if style == 2:
        return "+86 " + p + rest
    return p + rest


def make_landline(rng, code):
    n = str(rng.randint(2, 8)) + "%06d" % rng.randrange(1000000)
    if len(code) == 3:
        n = n + str(rng.randrange(10))
    s = pick(rng, ("%s-%s", "(%s)%s", "%s %s", "%s%s"))
    out = s % (code, n)
    if chance(rng, 0.3):
        out += "转" + str(rng.randint(100, 899))
    return out


def digits(rng, n):
    return str(rng.randint(1, 9)) + "".join(str(rng.randrange(10)) for _ in range(n - 1))


class Person(object):
    def __init__(self, sur, given, sex):
        self.sur = sur
        self.given = given
        self.sex = sex

    @property
    def full(self):
        return self.sur + self.given


def make_person(rng, sex, gen):
    sur = pick(rng, _SUR_LIST)
    if gen == "old":
        g = pick(rng, GIVEN_M_OLD if sex == "M" else GIVEN_F_OLD)
    elif gen == "young":
        g = pick(rng, GIVEN_M_YOUNG if sex == "M" else GIVEN_F_YOUNG)
    else:
        g = pick(rng, GIVEN_M_MID if sex == "M" else GIVEN_F_MID)
    return Person(sur, g, sex)


# ----------------------------------------------------------------------------------------------- case


class Case(object):
    pass


def _writer_of(kin):
    for k, opts in WRITER_OF:
        if k == kin:
            return opts
    raise KeyError(kin)


def make_case(rng):
    c = Case()
    st = pick(rng, STORIES)
    c.st = st
    kind = st[1]
    c.cy = pick(rng, (2024, 2025, 2025))
    ri = rng.randrange(len(REGIONS))
    c.prov, c.idp, cities, c.famous_local = REGIONS[ri]
    c.city, c.code, counties = pick(rng, cities)
    c.county = pick(rng, counties)
    c.town = pick(rng, TOWN_ROOTS) + pick(rng, ("镇", "镇", "乡", "街道"))
    c.village = pick(rng, VILLAGE_ROOTS) + "村"
    c.group = "%d组" % rng.randint(1, 12) if chance(rng, 0.7) else cn_int(rng.randint(1, 9)) + "组"
    c.road = pick(rng, ROAD_ROOTS) + pick(rng, ("路", "街", "大道")) + "%d号" % rng.randint(1, 399)
    c.compound = pick(rng, COMPOUND_ROOTS)
    c.room = "%d号楼%d单元%d" % (rng.randint(1, 30), rng.randint(1, 6), rng.randint(1, 28) * 100 + rng.randint(1, 4))
    # second region: where somebody works / moved to
    r2 = REGIONS[(ri + rng.randint(1, len(REGIONS) - 1)) % len(REGIONS)]
    c.prov2 = r2[0]
    c.city2, c.code2, cs2 = pick(rng, r2[2])
    c.county2 = pick(rng, cs2)
    c.muni, mds = pick(rng, MUNI)
    c.muni_d = pick(rng, mds)
    # hospitals
    c.h_village = c.village + "卫生室"
    c.h_town = c.town.replace("街道", "") + ("卫生院" if not c.town.endswith("街道") else "社区卫生服务中心")
    c.h_county = c.county + pick(rng, ("人民医院", "人民医院", "中医院", "第二人民医院"))
    cityh = pick(rng, (("市中心医院", c.city + "中心医院"), ("市第一人民医院", "市一院"), ("市第二人民医院", "市二院"),
                       ("市中医院", "市中医院"), ("市第三人民医院", "市三院")))
    c.h_city = c.city + cityh[0]
    c.h_city_short = cityh[1]
    tumour = st[0] in ("hbv", "lung", "breast", "gastric", "thy")
    locs = [h for h in c.famous_local if ("肿瘤" not in h[0] or tumour) and ("儿童" not in h[0] or kind == "child")]
    c.h_prov, c.h_prov_short = pick(rng, locs or [c.famous_local[0]])
    nats = [h for h in NATIONAL if ("肿瘤" not in h[0] or tumour) and ("儿科" not in h[0] or kind == "child")
            and ("阜外" not in h[0] or st[0] == "cad") and ("天坛" not in h[0] or st[0] == "neuro")]
    c.h_nat, c.h_nat_short = pick(rng, nats)
    c.h_city2 = c.city2 + pick(rng, ("市人民医院", "市中心医院", "市第一人民医院", "市妇幼保健院"))
    c.dept = st[2]
    # people
    if kind == "child":
        c.age = rng.randint(1, 12)
        c.patient = make_person(rng, rng.choice(("M", "F")), "young")
        c.pet = pick(rng, PET)
        c.writer_kin = pick(rng, (("孩子", None), ("我儿子", "M"), ("我女儿", "F"), ("我家宝宝", None)))
        c.writer_role = pick(rng, ("妈妈", "爸爸", "妈妈"))
        c.writer = make_person(rng, "F" if c.writer_role == "妈妈" else "M", "mid")
        c.patient = Person(c.writer.sur if c.writer_role == "爸爸" or chance(rng, 0.3) else pick(rng, _SUR_LIST),
                           c.patient.given, c.writer_kin[1] or c.patient.sex)
        c.kin = c.writer_kin[0]
    elif kind == "elder" or (kind == "adult" and chance(rng, 0.45)):
        c.age = rng.randint(58, 86)
        k = pick(rng, KIN_ELDER)
        c.kin = k[0]
        c.patient = make_person(rng, k[1], "old")
        c.writer_role, wsex = pick(rng, _writer_of(c.kin))
        c.writer = make_person(rng, wsex, "mid")
    elif kind == "woman":
        c.age = rng.randint(26, 62)
        c.patient = make_person(rng, "F", "mid" if c.age > 38 else "young")
        if chance(rng, 0.3):
            c.kin = pick(rng, ("我老婆", "我媳妇", "我爱人", "我妻子"))
            c.writer = make_person(rng, "M", "mid")
            c.writer_role = "丈夫"
        else:
            c.kin = "我"
            c.writer = c.patient
            c.writer_role = "本人"
    else:
        c.age = rng.randint(30, 66)
        if chance(rng, 0.35):
            k = pick(rng, KIN_SPOUSE)
            c.kin = k[0]
            c.patient = make_person(rng, k[1], "mid")
            c.writer_role, wsex = pick(rng, _writer_of(c.kin))
            c.writer = make_person(rng, wsex, "mid")
        else:
            c.patient = make_person(rng, rng.choice(("M", "F")), "mid")
            c.kin = "我"
            c.writer = c.patient
            c.writer_role = "本人"
    c.kind = kind
    c.by = c.cy - c.age
    ssex = rng.choice(("M", "F"))
    c.sibling_word = pick(rng, SIBLING_M if ssex == "M" else SIBLING_F)
    c.sibling = make_person(rng, ssex, "mid")
    c.sibling.sur = c.patient.sur if chance(rng, 0.5) else c.sibling.sur
    c.neighbour = make_person(rng, rng.choice(("M", "F")), "old")
    c.colleague = make_person(rng, rng.choice(("M", "F")), "mid")
    c.colleague_nick = pick(rng, ("小", "老", "小", "阿")) + c.colleague.sur if len(c.colleague.sur) == 1 else c.colleague.sur
    c.village_doc = make_person(rng, "M", "old")
    c.doc_county = make_person(rng, rng.choice(("M", "F")), "mid")
    c.doc_city = make_person(rng, rng.choice(("M", "F")), "mid")
    c.doc_famous = make_person(rng, rng.choice(("M", "F")), "mid")
    c.doc_now = make_person(rng, rng.choice(("M", "F")), "mid")
    c.colleague_doc = make_person(rng, rng.choice(("M", "F")), "mid")
    c.nurse = make_person(rng, "F", "young")
    c.doc_nat = make_person(rng, rng.choice(("M", "F")), "mid")
    c.my_level = pick(rng, ("city", "city", "prov"))
    c.spouse = make_person(rng, "F" if c.writer.sex == "M" else "M", "mid")
    c.prof = pick(rng, PROF_OLD if c.age >= 62 else PROFESSIONS)
    c.fu_deck = []
    c.ds_deck = []
    # timeline
    y0 = c.cy - rng.randint(2, 8)
    ds = []
    for _ in range(8):
        y = rng.randint(y0, c.cy)
        ds.append((y, rng.randint(1, 12), rng.randint(1, 28)))
    ds.sort()
    c.dates = ds
    c.y0 = y0
    # numbers
    c.phone = make_mobile(rng)
    c.phone2 = make_mobile(rng)
    c.landline = make_landline(rng, c.code)
    c.idno = make_id(rng, c.idp, c.by, rng.randint(1, 12), rng.randint(1, 28), c.patient.sex)
    c.mrn_zy = pick(rng, ("", "ZY", "", "")) + digits(rng, rng.randint(6, 10))
    c.mrn_mz = digits(rng, rng.randint(8, 12))
    c.mrn_bl = pick(rng, ("", "P", "BL")) + str(c.cy - rng.randint(0, 3)) + digits(rng, 5)
    c.mrn_yb = digits(rng, rng.randint(10, 16))
    c.order = digits(rng, rng.randint(12, 20))
    c.code6 = digits(rng, 6)
    py = pick(rng, PINYIN)
    c.email = py + pick(rng, ("", ".", "_")) + pick(rng, PINYIN) + str(rng.randint(60, 2005)) + "@" + \
        pick(rng, ("163.com", "qq.com", "126.com", "sina.com", "foxmail.com"))
    c.wechat = pick(rng, ("wxid_", "", "", py + "_")) + pick(rng, PINYIN) + str(rng.randint(1, 99999))
    c.qq = digits(rng, rng.randint(8, 10))
    c.style = pick(rng, ("plain", "plain", "plain", "ascii", "space", "runon"))
    return c


# ----------------------------------------------------------------------------------------------- renderers


def name_ref(rng, p, allow_bare=True):
    """A reference to a person by full name or bare given name."""
    if allow_bare and len(p.given) == 2 and chance(rng, 0.2):
        return [S(p.given, "NAME")]
    return [S(p.full, "NAME")]


def doc_ref(rng, p, titles=("主任", "医生", "教授", "大夫")):
    t = pick(rng, titles)
    if chance(rng, 0.55):
        return [S(p.sur, "NAME"), t]
    return [S(p.full, "NAME"), t]


def date_parts(rng, c, ymd, forms=None):
    y, m, d = ymd
    cy = c.cy
    opts = ["ymd", "ymd", "ymd_dot", "ymd_dash", "ym", "ym", "ym_fen", "yym", "year", "year", "fest", "md"]
    if cy - y in (0, 1, 2):
        opts += ["rel", "rel", "rel"]
    if forms:
        opts = list(forms)
    f = pick(rng, opts)
    suf = pick(rng, ("日", "号"))
    if f == "ymd":
        return [S("%d年%d月%d%s" % (y, m, d, suf), "DATE")]
    if f == "ymd_dot":
        return [S("%d.%d.%d" % (y, m, d), "DATE")]
    if f == "ymd_dash":
        return [S("%d-%02d-%02d" % (y, m, d), "DATE")]
    if f == "ym":
        return [S("%d年%d月" % (y, m), "DATE")]
    if f == "ym_fen":
        return [S("%d年%d月份" % (y, m), "DATE")]
    if f == "yym":
        return [S("%02d年%d月" % (y % 100, m), "DATE")]
    if f == "year":
        return [K("%d年" % y, "time"), pick(rng, ("的时候", "底", "初", "夏天", "下半年", "上半年", "冬天", "那会儿", ""))]
    if f == "fest":
        return [S("%d年%s" % (y, pick(rng, FESTIVALS)), "DATE"), pick(rng, ("后", "前后", "那会儿", "前", "过后"))]
    if f == "md":
        return [S("%d月%d%s" % (m, d, suf), "DATE")]
    if f == "ymd_full":
        return [S("%d年%02d月%02d日" % (y, m, d), "DATE")]
    # relative
    rel = {0: "今年", 1: "去年", 2: "前年"}.get(cy - y, "")
    if not rel:
        return [S("%d年%d月" % (y, m), "DATE")]
    r = rng.randrange(5)
    if r == 0:
        return [S("%s%d月%d%s" % (rel, m, d, suf), "DATE")]
    if r == 1:
        return [S("%s%s" % (rel, LUNAR_M[m - 1]), "DATE"), pick(rng, ("", "里", "底"))]
    if r == 2:
        return [S("%s%s" % (rel, pick(rng, FESTIVALS)), "DATE"), pick(rng, ("后", "前后", "那几天"))]
    if r == 3:
        return [S("%s%d月" % (rel, m), "DATE"), pick(rng, ("", "中旬", "底", "初"))]
    return [K(rel, "time"), pick(rng, ("", "的时候", "年底", "夏天"))]


def lunar_parts(rng):
    return [S("%s%s%s" % (pick(rng, ("农历", "阴历", "")), pick(rng, LUNAR_M), pick(rng, LUNAR_D)), "DATE")]


def lab_parts(rng, test, v=None, sep=None):
    name, unit, lo, hi, dec = test
    if v is None:
        v = rng.uniform(lo, hi)
    val = fmt_val(v, dec)
    if sep is None:
        sep = pick(rng, ("", "", "：", " ", ":"))
    if sep == "" and name[-1] in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
        sep = pick(rng, (" ", "：", "="))
    if name.endswith("狭窄") or unit == "%" and name in ("射血分数",):
        return [K("%s%s%s%s" % (name, sep, val, unit), "lab")]
    if name in ("体温",):
        return [K("%s%s%s%s" % (name, sep, val, unit), "vital")]
    if name == "体重":
        return [K("%s%s%s%s" % (name, sep, val, unit), "vital")]
    return [K("%s%s%s%s" % (name, sep, val, unit), "lab")]


def lab_value_only(rng, test, v=None):
    name, unit, lo, hi, dec = test
    if v is None:
        v = rng.uniform(lo, hi)
    val = fmt_val(v, dec)
    verb = pick(rng, ("又涨到了", "降到了", "一直在", "最高到过", "还是"))
    kind = "vital" if name in ("体温", "体重") else "lab"
    return [name + verb, K(val + (unit if chance(rng, 0.7) else ""), kind), pick(rng, ("", "左右", "多"))]


def labs(rng, c, n=2, sep=None):
    tests = list(c.st[5])
    rng.shuffle(tests)
    out = []
    for i, t in enumerate(tests[:n]):
        if i:
            out.append(pick(rng, ("，", "，", "、", "；")))
        out.append(lab_parts(rng, t, sep=sep))
    return out


def dose_parts(rng, c, brand=None):
    g, doses, b = pick(rng, c.st[7])
    nm = g
    if b and (brand or (brand is None and chance(rng, 0.4))):
        nm = b if chance(rng, 0.5) else "%s（%s）" % (g, b)
    freq = pick(rng, ("一天一次", "一天两次", "每天早上", "每晚", "一日三次", "隔天一次", "每周一次", "qd", "bid"))
    return [nm, pick(rng, ("", " ")), K(pick(rng, doses), "dose"), pick(rng, (" ", "，", "")), freq]


def age_parts(rng, c):
    if c.kind == "child" and chance(rng, 0.3):
        return [K("%d岁半" % c.age, "age")]
    if chance(rng, 0.3):
        return [K(cn_int(c.age) + "岁", "age")]
    return [K("%d岁" % c.age, "age")]


def dur(rng, unit=None):
    u = unit or pick(rng, ("年", "个月", "天", "周", "年多", "个多月"))
    if chance(rng, 0.5):
        n = pick(rng, DIGIT_WORDS) if u != "天" else pick(rng, ("两", "三", "五", "七", "十"))
    else:
        n = str(rng.randint(2, 12))
    return K(n + u, "duration")


def home_addr(rng, c, depth=None):
    """The home address chain at a drawn depth."""
    d = depth if depth is not None else rng.randrange(7)
    pv = c.prov + pick(rng, ("省", "省", "")) if chance(rng, 0.4) else ""
    if c.prov in ("黑龙江",) and pv == "黑龙江":
        pv = "黑龙江省"
    city = c.city + pick(rng, ("市", ""))
    if d == 0:
        return [S(city, "ADDRESS")]
    if d == 1:
        return [S(c.county, "ADDRESS")]
    if d == 2:
        return [S(pv + city + c.county, "ADDRESS")]
    if d == 3:
        return [S(c.county + c.town, "ADDRESS")]
    if d == 4:
        return [S(pv + city + c.county + c.town + c.village + c.group, "ADDRESS")]
    if d == 5:
        return [S(c.town + c.village, "ADDRESS")]
    return [S(pv + city + c.county + c.road + c.compound + c.room + "室", "ADDRESS")]


def hosp(rng, c, level, short=None):
    if level == "village":
        return [S(c.h_village, "HOSPITAL")]
    if level == "town":
        return [S(c.h_town, "HOSPITAL")]
    if level == "county":
        return [S(c.h_county, "HOSPITAL")]
    if level == "city":
        if short or (short is None and chance(rng, 0.35)):
            return [S(c.h_city_short, "HOSPITAL")]
        return [S(c.h_city, "HOSPITAL")]
    if level == "prov":
        if short or (short is None and chance(rng, 0.5)):
            return [S(c.h_prov_short, "HOSPITAL")]
        return [S(c.h_prov, "HOSPITAL")]
    if level == "nat":
        if short or (short is None and chance(rng, 0.5)):
            return [S(c.h_nat_short, "HOSPITAL")]
        return [S(c.h_nat, "HOSPITAL")]
    if level == "city2":
        return [S(c.h_city2, "HOSPITAL")]
    if level == "clinic":
        return [S(c.village_doc.sur + "氏诊所", "HOSPITAL")] if len(c.village_doc.sur) == 1 else \
            [S(c.village_doc.full + "诊所", "HOSPITAL")]
    raise ValueError(level)


def negative(rng, c):
    """A hard-negative sentence: looks identifying, is not."""
    r = rng.randrange(16)
    if r == 0:
        return ["我们老家是", c.prov, "的，", pick(rng, ("说话可能有口音", "离大城市远", "看病不方便")), "。"]
    if r == 1:
        return ["有天半夜疼得受不了，差点打了120。"]
    if r == 2:
        return ["打过12320问，说", pick(rng, ("要先在", "得先去")), pick(rng, GENERIC_HOSP), "开转诊单。"]
    if r == 3:
        neg = pick(rng, c.st[8])
        return ["之前也怀疑过", neg, "，后来查了排除了。"]
    if r == 4:
        return ["也吃过", pick(rng, ("云南白药", "片仔癀", "马应龙", "东阿阿胶", "同仁堂的六味地黄丸", "江中健胃消食片", "999感冒灵")),
                "，没啥用。"]
    if r == 5:
        return [pick(rng, ("每年夏天都会加重", "一到夏天就好一些", "早高峰挤地铁就心慌", "孩子性格比较文静", "图个平安")), "。"]
    if r == 6:
        return ["在", pick(rng, PLATFORMS), "上也问过", pick(rng, ("几个医生", "一个主任", "别的大夫")), "，说法不一样。"]
    if r == 7:
        return [pick(rng, ADDRESS_TERMS), "们都说", pick(rng, ("这个病得去大医院", "要早点做手术", "别拖")), "。"]
    if r == 8:
        return ["白细胞", pick(rng, ("正常", "偏低一点", "有点高")), "，", pick(rng, ("马上", "周一")), "还要再抽一次血。"]
    if r == 9:
        return ["平时爱吃", pick(rng, FOODS), "，", pick(rng, ("口味重", "也不忌口", "现在不敢吃了")), "。"]
    if r == 10:
        return ["住院的时候住", "%d床" % rng.randint(1, 60),
                "，同病房的", pick(rng, ADDRESS_TERMS), "也是这个病。"]
    if r == 11:
        return ["家里人都有高血压，", pick(rng, ("常规", "平时")), "在吃药。"]
    if r == 12:
        return ["主治医生说", pick(rng, ("问题不大", "要观察", "可以先吃药看看")), "，主任也看过片子。"]
    if r == 13:
        return ["前后花了", "%d万多" % rng.randint(2, 30), "，新农合报了", "%d%%" % rng.randint(40, 75), "左右。"]
    if r == 14:
        return ["医保是", pick(rng, (c.prov, c.prov2)), "的，", pick(rng, ("异地报销要备案", "跨省报销比例低一些")), "。"]
    return ["有什么问题可以打12345投诉，不过我们也没去。"]


# ----------------------------------------------------------------------------------------------- patient narrative


def para_intro(rng, c):
    p = []
    greet = pick(rng, ("医生您好，", "医生你好！", "您好，", "主任好，", "大夫您好。", "", "打扰了医生，"))
    p.append(greet)
    if c.kin == "我":
        r = rng.randrange(4)
        if r == 0:
            p += ["我叫", S(c.patient.full, "NAME"), "，", age_parts(rng, c), "，", c.prof, "。"]
        elif r == 1:
            p += ["我今年", age_parts(rng, c), "，老家",
                  home_addr(rng, c, rng.choice((1, 2, 3))), "的，现在在", S(c.city2 + pick(rng, ("", "市")), "ADDRESS"),
                  pick(rng, ("打工", "上班", "做生意")), "。"]
        elif r == 2:
            p += ["本人", S(c.patient.full, "NAME"), "，", c.prov, "人，", age_parts(rng, c), "。"]
        else:
            p += ["想把我这几年的情况写清楚一点，比较长，麻烦您耐心看完。我", age_parts(rng, c), "，", c.prof, "。"]
    elif c.kind == "child":
        nm = pick(rng, ([S(c.patient.full, "NAME")], [S(c.pet, "NAME")], [S(c.patient.given, "NAME")]))
        p += ["我是", "孩子", "的", c.writer_role, "，孩子叫", nm, "，", age_parts(rng, c), "，",
              pick(rng, ("在上幼儿园", "上小学", "还没上学", "在老家跟奶奶带")), "。"]
    else:
        r = rng.randrange(4)
        if r == 0:
            p += ["我替", c.kin, "问的，", c.kin, S(c.patient.full, "NAME"), "，今年", age_parts(rng, c), "，", c.prof, "。"]
        elif r == 1:
            p += [c.kin, "（", S(c.patient.full, "NAME"), "）", age_parts(rng, c), "，家住", home_addr(rng, c, rng.choice((4, 5, 6, 2))),
                  "，我在", S(c.city2, "ADDRESS"), "上班，没法一直陪着。"]
        elif r == 2:
            p += ["我是患者的", c.writer_role, S(c.writer.full, "NAME"), "，",
                  c.kin if chance(rng, 0.5) else "病人", "今年", age_parts(rng, c), "。"]
        else:
            p += [c.kin, age_parts(rng, c), "，", c.prov, "农村的，", c.prof, "，", pick(rng, ("身体一直挺好", "以前没生过大病", "有高血压")), "。"]
    return p


def para_onset(rng, c):
    sym = pick(rng, c.st[3])
    d = c.dates[0]
    p = []
    r = rng.randrange(4)
    if r == 0:
        p += ["事情要从", date_parts(rng, c, d), "说起，那时候", c.kin if c.kin != "我" else "我", "开始", sym, "，",
              "一开始以为是", pick(rng, ("累的", "上火", "年纪大了", "着凉了", "胃病")), "，在村里", pick(rng, ("", "的")),
              hosp(rng, c, pick(rng, ("village", "clinic"))), "拿了点药，", S(c.village_doc.sur if len(c.village_doc.sur) == 1 else c.village_doc.full, "NAME"),
              pick(rng, ("大夫", "医生")), "说没事。"]
    elif r == 1:
        p += [date_parts(rng, c, d, ("ymd", "ym", "yym", "ymd_dot", "rel", "md")), "左右，", sym, "，持续了", dur(rng, pick(rng, ("天", "周", "个月"))), "，",
              "去", hosp(rng, c, "town"), "看了，", "查", lab_parts(rng, pick(rng, c.st[5])), "，医生让去", pick(rng, GENERIC_HOSP), "。"]
    elif r == 2:
        ago = c.cy - d[0]
        p += [K("%s年前" % ("两" if ago == 2 else cn_int(ago)), "time") if ago >= 1 else K("今年年初", "time"), "（大概是",
              date_parts(rng, c, d, ("ym", "yym", "fest", "year")),
              "）开始", sym, "。当时在", S(c.city2, "ADDRESS"), pick(rng, ("打工", "带孙子", "陪读")), "，",
              "就近去了", hosp(rng, c, "city2"), "，", negative(rng, c)]
    else:
        p += ["最早是", lunar_parts(rng), "那天", pick(rng, ("干活的时候", "吃完饭", "晚上睡觉前")), "突然", sym, "，",
              S(c.neighbour.sur, "NAME"), pick(rng, ("叔", "大爷") if c.neighbour.sex == "M" else ("婶", "奶奶", "大娘")), "帮忙叫车送到了", hosp(rng, c, "county"), "。"]
    return p


def para_county(rng, c):
    d1, d2 = c.dates[1], c.dates[2]
    dx = c.st[4][0]
    p = []
    r = rng.randrange(3)
    if r == 0:
        p += [date_parts(rng, c, d1), "去", hosp(rng, c, "county"), "住院，查了", labs(rng, c, rng.randint(2, 3)),
              "，诊断", dx, "。住了", dur(rng, "天"), "，出院带药", dose_parts(rng, c), "。",
              "管床的是", doc_ref(rng, c.doc_county, ("医生", "大夫")), "，人挺好的。"]
    elif r == 1:
        p += ["在", hosp(rng, c, "county"), c.dept, "看的，接诊的", doc_ref(rng, c.doc_county), "说是", dx,
              "，开了", dose_parts(rng, c), "。吃了", dur(rng, pick(rng, ("个月", "周"))), "，复查", labs(rng, c, 2), "。"]
    else:
        p += ["然后就一直在", pick(rng, ("县医院", "我们县里")), "拿药，", date_parts(rng, c, d1, ("ym", "ymd", "rel", "ym_fen")),
              "到",
              date_parts(rng, c, d2, ("md", "ym", "ymd")), "期间", lab_value_only(rng, pick(rng, c.st[5])), "，",
              pick(rng, ("医生说控制得还行", "时好时坏", "效果一般")), "。"]
    return p


def range_parts(rng, c):
    y, m, d = c.dates[3]
    m2 = min(12, m + rng.randint(1, 4))
    if chance(rng, 0.5) and m2 > m:
        return [S("%d年%d月" % (y, m), "DATE"), pick(rng, ("到", "至", "-", "～")), S("%d月" % m2, "DATE")]
    d2 = min(28, d + rng.randint(3, 20))
    return [S("%d月%d日" % (m, d), "DATE"), pick(rng, ("至", "到")), S("%d日" % d2, "DATE")]


def para_referral(rng, c):
    proc = pick(rng, c.st[6])
    d = c.dates[3]
    p = []
    r = rng.randrange(4)
    if r == 0:
        p += ["后来", c.sibling_word, name_ref(rng, c.sibling), "的同事", S(c.colleague_nick, "NAME"),
              "介绍，说", hosp(rng, c, "prov"), "的", doc_ref(rng, c.doc_famous, ("教授", "主任")), "看这个病很厉害，",
              date_parts(rng, c, d), "我们", pick(rng, ("坐高铁", "坐大巴", "坐火车", "自己开车")), "去了",
              "，挂了", pick(rng, ("专家号", "特需号", "加号")), "，做了", proc, "。"]
    elif r == 1:
        p += [range_parts(rng, c), "在", hosp(rng, c, "prov"), c.dept, "住院，", pick(rng, ("主刀的是", "主管医生是", "主任是")),
              doc_ref(rng, c.doc_famous, ("主任", "教授", "医生")), "，做了", proc, "，术后", lab_parts(rng, pick(rng, c.st[5])),
              "。住院号", S(c.mrn_zy, "MRN"), "，出院小结我都留着。"]
    elif r == 2:
        p += ["我单位同事", S(c.colleague.full, "NAME"), "的爱人也是这个病，她推荐我们去", hosp(rng, c, "nat"), "找",
              doc_ref(rng, c.doc_famous, ("教授", "主任")), "。在", S(c.muni + c.muni_d, "ADDRESS"), "租了", dur(rng, "个月"),
              "房子，", date_parts(rng, c, d), "做的", proc, "，", labs(rng, c, 2), "。"]
    else:
        p += ["县里说看不了，转到了", hosp(rng, c, "city"), "（转诊单号", S(c.order[:12], "ORDER_ID"), "），",
              "找的", doc_ref(rng, c.doc_city), "，", date_parts(rng, c, d), "做了", proc, "，",
              "术后第", K("%d天" % rng.randint(2, 7), "time"), "就下床了。"]
    return p


def para_family(rng, c):
    who = c.kin if c.kin != "我" else "我"
    r = rng.randrange(4)
    if r == 0:
        return [who, "年轻的时候在", S(pick(rng, (c.city2 + c.county2, c.muni + c.muni_d, c.prov2 + "省" + c.city2 + "市")), "ADDRESS"),
                pick(rng, ("打工", "当兵", "跑运输", "开饭馆")), "，干了", dur(rng, "年"), "，", date_parts(rng, c, (c.y0 - rng.randint(1, 6), rng.randint(1, 12), 1), ("year", "ym", "fest")),
                "才回的老家。", c.sibling_word, name_ref(rng, c.sibling), "现在在", S(c.city2, "ADDRESS"), "，",
                pick(rng, ("每个月寄点钱回来", "帮忙联系的医院", "只能周末回来")), "。"]
    if r == 1:
        spouse_word = "我老公" if c.writer.sex == "F" else "我媳妇"
        return ["我们", pick(rng, ("姊妹三个", "兄妹两个", "姐弟四个")), "，", c.sibling_word, name_ref(rng, c.sibling),
                "白天陪护，我晚上去换，", spouse_word, S(c.spouse.given if len(c.spouse.given) == 2 and chance(rng, 0.3) else c.spouse.full, "NAME"),
                pick(rng, ("在家带孩子", "请了长假", "跑前跑后办手续")), "。", negative(rng, c)]
    if r == 2:
        return [date_parts(rng, c, c.dates[2], ("fest", "rel", "ym")), "病情加重，正好", c.sibling_word, "从", S(c.city2, "ADDRESS"),
                "回来，连夜送到", hosp(rng, c, "county"), "急诊，", K("体温%.1f℃" % rng.uniform(37.5, 40.2), "vital") if c.kind == "child" else
                K("血压%d/%dmmHg" % (rng.randint(150, 210), rng.randint(90, 125)), "vital"), "，在抢救室待了", dur(rng, "天"), "。"]
    return ["那段时间我们在", S(c.city + "市" + pick(rng, (c.road, c.compound + c.room + "室", c.compound)), "ADDRESS"),
            "租了个房子，离", hosp(rng, c, "city"), "近，", pick(rng, ("走路", "骑电动车")), K("%d分钟" % rng.randint(5, 25), "duration"),
            "，", pick(rng, ("房租一个月1500", "房东阿姨人很好", "邻居大爷也是来看病的")), "。"]


def para_second(rng, c):
    d = c.dates[5]
    return [pick(rng, ("不放心，", "为了保险起见，", "家里人商量了一下，")), date_parts(rng, c, d), "又带着片子去", hosp(rng, c, "nat"),
            "看了", pick(rng, ("专家门诊", "特需门诊", "线上复诊")), "（挂号单号", S(c.order[-12:] if len(c.order) > 13 else digits(rng, 12), "ORDER_ID"),
            "），", doc_ref(rng, c.doc_nat, ("教授", "主任")), "看了", K("%d分钟" % rng.randint(3, 15), "duration"),
            "，说跟", hosp(rng, c, "prov", short=True), "的意见", pick(rng, ("一样", "差不多", "不太一样")), "，", pick(rng, (
            "建议先吃药观察", "建议尽快手术", "让我们回当地治疗")), "。", pick(rng, ("来回路费加住宿花了", "光检查就花了")), "%d千多。" % rng.randint(2, 9)]


def para_money(rng, c):
    p = []
    r = rng.randrange(4)
    if r == 0:
        p += ["报销的事也折腾了很久：医保是", c.prov, "的，在外地看病要先备案，", pick(rng, ("跑了三趟", "打了好多电话")),
              "。医保卡号", S(c.mrn_yb, "MRN"), "，结算单号", S(c.order, "ORDER_ID"), "，最后报了", "%d%%" % rng.randint(40, 80), "。"]
    elif r == 1:
        p += ["为了看病，", date_parts(rng, c, c.dates[4], ("ym", "fest", "rel", "year")), "全家搬到了",
              S(pick(rng, (c.city2 + pick(rng, ("市", "")), c.city2 + c.county2, c.muni + c.muni_d)), "ADDRESS"),
              "，", pick(rng, ("我在那边找了个活", "孩子也转了学", "租的房子离医院近")), "。", negative(rng, c)]
    elif r == 2:
        p += [negative(rng, c), "家里", pick(rng, ("就我一个孩子", "我哥在外地", "老人不会用手机")), "，",
              "跑医院、报销都是我，", pick(rng, ("单位请假都请不下来了", "工作也丢了", "压力很大")), "。"]
    else:
        p += ["社保卡号", S(c.idno, "ID"), "，", pick(rng, ("药店刷卡刷不了", "门诊慢病一直没办下来")), "，",
              "打12345问了也没说清楚。"]
    return p


def para_recent(rng, c):
    d = c.dates[-1]
    p = []
    r = rng.randrange(4)
    if r == 0:
        p += ["最近一次是", date_parts(rng, c, d, ("rel", "ymd", "md", "ymd_dot")), "在", hosp(rng, c, pick(rng, ("city", "county", "prov"))),
              "复查：", labs(rng, c, rng.randint(2, 4)), "。现在吃", dose_parts(rng, c), "。"]
    elif r == 1:
        p += ["现在的情况：", pick(rng, c.st[3]), "又出现了，", K("血压%d/%dmmHg" % (rng.randint(120, 185), rng.randint(70, 110)), "vital"),
              "，", lab_value_only(rng, pick(rng, c.st[5])), "。", K("上个月", "time"), "在", pick(rng, GENERIC_HOSP), "查的。"]
    elif r == 2:
        p += [K("两周前", "time"), "复查，", labs(rng, c, 3, sep=pick(rng, ("：", " "))), "，医生说要", pick(rng, c.st[6]), "，",
              "我们有点犹豫。"]
    else:
        p += ["这", dur(rng, "年"), "一共住了", "%d次" % rng.randint(3, 9),
              "院，最近的是", date_parts(rng, c, d), "，", labs(rng, c, 2), "。"]
    return p


def para_question(rng, c):
    p = [pick(rng, ("想问一下：", "我的问题是：", "请问医生：", "主要想咨询：", "麻烦您帮忙看看："))]
    qs = ["下一步是继续吃药还是手术？", "现在的药量要不要调？", "能不能在当地复查，不想来回跑？", "这个病会不会遗传给孩子？",
          "平时饮食要注意什么？", "还需要做什么检查？", "有没有必要去北京上海再看看？"]
    rng.shuffle(qs)
    k = rng.randint(1, 3)
    if chance(rng, 0.5) and k > 1:
        for i in range(k):
            p += ["\n", "%d." % (i + 1) if chance(rng, 0.6) else "%s、" % CN_NUM[i + 1], qs[i]]
    else:
        p += qs[:k]
    if chance(rng, 0.3):
        p += ["\n", pick(rng, ("我电话", "有事可以打我电话", "联系电话：")), S(c.phone, "PHONE")]
    elif chance(rng, 0.15):
        p += ["\n", "报告太多发不全，我加您微信", S(c.wechat, "URL"), "行吗？"]
    elif chance(rng, 0.1):
        p += ["\n", "片子可以发邮箱：", S(c.email, "EMAIL")]
    return p


def narrative(rng, c):
    paras = [para_intro(rng, c), para_onset(rng, c), para_county(rng, c)]
    if chance(rng, 0.5):
        paras.append(para_family(rng, c))
    if chance(rng, 0.85):
        paras.append(para_referral(rng, c))
    if chance(rng, 0.45):
        paras.append(para_second(rng, c))
    if chance(rng, 0.6):
        paras.append(para_money(rng, c))
    if chance(rng, 0.4):
        paras.append(negative(rng, c))
    paras.append(para_recent(rng, c))
    paras.append(para_question(rng, c))
    return paras


def join_paras(paras, sep="\n"):
    out = []
    for i, p in enumerate(paras):
        if i:
            out.append(sep)
        out.append(p)
    return out


# ----------------------------------------------------------------------------------------------- doctor texts


def doc_questions(rng, c):
    p = [pick(rng, ("您好，", "你好，", "")), pick(rng, ("您写得很详细。", "看了您的描述，", "收到。")), "还需要补充几点：\n"]
    qs = ["最近一次的化验单能拍照发一下吗？", "现在每天的药具体怎么吃的？", "有没有药物过敏史？", "家里有没有人有类似的病？",
          "出院小结上的诊断原文是什么？", "最近体重有没有明显下降？", "血压平时控制在多少？", "夜里能不能睡好？"]
    rng.shuffle(qs)
    numer = pick(rng, ("num", "cn", "none"))
    for i in range(rng.randint(2, 4)):
        if numer == "num":
            p += ["%d. " % (i + 1), qs[i], "\n"]
        elif numer == "cn":
            p += ["%s、" % CN_NUM[i + 1], qs[i], "\n"]
        else:
            p += [qs[i]]
    return p


def doc_summary(rng, c):
    st = c.st
    p = [pick(rng, ("根据您提供的资料，整理病情摘要如下：", "【病情摘要】", "先帮您把病史捋一下：", "病历摘要（供线下就诊参考）：")), "\n"]
    sec = []
    sec.append(["主诉：", pick(rng, st[3]), dur(rng, pick(rng, ("年", "年余", "个月") if c.kind != "child" else ("天", "周", "个月"))),
                "，", pick(rng, ("加重", "复发")),
                dur(rng, pick(rng, ("周", "天", "个月"))), "。"])
    xb = ["现病史：患者", ("男" if c.patient.sex == "M" else "女"), "，", age_parts(rng, c), "。",
          date_parts(rng, c, c.dates[0], ("ym", "ymd", "yym", "year")), "无明显诱因出现", pick(rng, st[3]), "，于",
          hosp(rng, c, pick(rng, ("county", "town", "city"))), "就诊，查", labs(rng, c, 2), "，诊断“", st[4][0], "”，予",
          dose_parts(rng, c), "治疗。"]
    if chance(rng, 0.8):
        xb += [date_parts(rng, c, c.dates[3], ("ymd", "ymd_dash", "ym")), "于", hosp(rng, c, pick(rng, ("prov", "nat", "city"))), "行",
               pick(rng, st[6]), "，术后病理/结果：", pick(rng, st[4]), "。"]
    xb += [date_parts(rng, c, c.dates[-1], ("ymd", "ymd_dot", "md", "rel")), "复查", labs(rng, c, 2), "。"]
    sec.append(xb)
    if c.kind == "child":
        sec.append(["既往史：既往体健，", pick(rng, ("否认药物过敏史", "头孢过敏")), "。"])
    else:
        sec.append(["既往史：", pick(rng, ("高血压病史", "糖尿病史", "胆囊结石病史", "慢性胃炎病史")), dur(rng, "年"), "，",
                    pick(rng, ("规律服药", "未规律治疗")), "。否认肝炎、结核等传染病史，", pick(rng, ("否认药物过敏史", "青霉素过敏")), "。"])
    gr = ["个人史：生于", home_addr(rng, c, rng.choice((1, 2, 3, 4))), "，"]
    if chance(rng, 0.5):
        gr += ["久居", S(c.city2 + "市" if chance(rng, 0.5) else c.city2 + c.county2, "ADDRESS"), "，"]
    if c.kind == "child":
        gr += [pick(rng, ("散居儿童", "幼儿园在读", "小学在读")), "，无烟酒嗜好接触史。"]
    else:
        gr += [c.prof.replace("在家", ""), "。", pick(rng, ("吸烟", "饮酒")), dur(rng, "年"), "，", pick(rng, ("已戒", "未戒")), "。"]
    sec.append(gr)
    if chance(rng, 0.6):
        fam = ["家族史：", pick(rng, ("父亲", "母亲", "其兄", "其姐")), pick(rng, ("有", "患")), pick(rng, st[4]), "。"]
        if chance(rng, 0.3):
            fam = ["家族史：", pick(rng, ("其兄", "其姐", "其弟")), S(c.sibling.full, "NAME"), "有类似病史。"]
        sec.append(fam)
    if c.patient.sex == "F" and c.kind != "child":
        hy = ["婚育史：已婚，孕", str(rng.randint(1, 4)), "产", str(rng.randint(0, 2)), "。"]
        if c.age < 52 and chance(rng, 0.6):
            hy += ["末次月经", date_parts(rng, c, (c.cy, rng.randint(1, 12), rng.randint(1, 28)), ("md", "ymd", "ymd_dot")), "。"]
        sec.append(hy)
    else:
        sec.append(["婚育史：", pick(rng, ("已婚，育有1子1女", "已婚，育1子", "未婚")) if c.kind != "child" else "（患儿）足月顺产，按时接种疫苗", "。"])
    fz = ["辅助检查：\n"]
    for i in range(rng.randint(2, 3)):
        dd = c.dates[min(len(c.dates) - 1, 2 + i * 2)]
        fz += ["%d）" % (i + 1) if chance(rng, 0.5) else "%d. " % (i + 1), date_parts(rng, c, dd, ("ymd_dash", "ymd", "ymd_dot")), " ",
               hosp(rng, c, pick(rng, ("county", "city", "prov", "nat"))), "：", labs(rng, c, 2), "\n"]
    sec.append(fz)
    sec.append(["诊断：1. ", st[4][1 if chance(rng, 0.6) else 0], "  2. ", pick(rng, ("高血压病2级", "高脂血症", "轻度贫血", "脂肪肝")), "。"])
    jy = ["建议：\n", "1. ", dose_parts(rng, c), "，", pick(rng, ("继续", "暂不调整", "逐渐减量")), "；\n",
          "2. ", K(pick(rng, ("1个月后", "3个月后", "两周后", "半年后")), "time"), "复查", pick(rng, st[5])[0], "；\n"]
    if chance(rng, 0.6):
        jy += ["3. 可预约", date_parts(rng, c, (c.cy, rng.randint(1, 12), rng.randint(1, 28)), ("md", "ymd")), "我的门诊（周",
               pick(rng, ("一", "三", "四")), "上午），", pick(rng, ("挂号后报预约码", "加号码")), S(c.code6, "ORDER_ID"), "；\n"]
    jy += ["如有", pick(rng, ("胸痛加重", "高热不退", "呕血黑便", "抽搐")), "请立即拨打120或就近到", pick(rng, GENERIC_HOSP), "急诊。"]
    sec.append(jy)
    p += join_paras(sec)
    if chance(rng, 0.4):
        p += ["\n", hosp(rng, c, c.my_level, short=chance(rng, 0.3)), c.dept, " ", S(c.doc_now.full, "NAME")]
    return p


def doc_discharge(rng, c):
    d_in = c.dates[3]
    d_out = (d_in[0], d_in[1], min(28, d_in[2] + rng.randint(4, 20)))
    p = [pick(rng, ("您发的出院记录我看了，给您简单说一下：", "我把出院小结的要点复述一下，您核对：")), "\n"]
    p += [c.kin.replace("我", "") if c.kin != "我" else "您", "是", date_parts(rng, c, d_in, ("ymd", "md", "ymd_dash")), "入院、",
          date_parts(rng, c, d_out, ("md", "ymd", "ymd_dash")), "出院，住了", K("%d天" % (d_out[2] - d_in[2]), "duration"), "，住院号",
          S(c.mrn_zy, "MRN"), "。入院诊断是", c.st[4][0], "，住院期间在", hosp(rng, c, pick(rng, ("prov", "city", "nat"))), "做了",
          pick(rng, c.st[6]), "，", "病理号", S(c.mrn_bl, "MRN"), "，结果是", pick(rng, c.st[4]), "。\n"]
    p += ["出院时：", labs(rng, c, 2), "，", K("体温%.1f℃" % rng.uniform(36.2, 37.4), "vital"), "。\n"]
    p += ["出院带药：", dose_parts(rng, c), "；", dose_parts(rng, c), "。\n"]
    p += ["主管医生是", doc_ref(rng, c.doc_famous if chance(rng, 0.5) else c.doc_city, ("医生", "主任")), "，医嘱写的是",
          K(pick(rng, ("2周后", "1个月后", "出院后一周")), "time"), "复查，", pick(rng, ("这个建议是合理的", "可以按这个来", "我同意"))]
    p += ["。"]
    return p


def doc_referral(rng, c):
    col = c.colleague_doc
    hp = hosp(rng, c, pick(rng, ("prov", "nat")), short=False)
    p = [pick(rng, ("我给您写个推荐信，您打印出来带上：", "转诊推荐：", "可以去找我的同学，我写了几句话您带过去：")), "\n"]
    p += [S(col.full, "NAME") if chance(rng, 0.6) else S(col.sur, "NAME"), pick(rng, ("主任", "教授", "老师")), "：\n"]
    p += ["您好！现有患者", S(c.patient.full, "NAME"), "，", "男" if c.patient.sex == "M" else "女", "，", age_parts(rng, c), "，"]
    if chance(rng, 0.5):
        p += ["住址", home_addr(rng, c, rng.choice((4, 6))), "，"]
    p += ["因“", c.st[4][0], "”", dur(rng, "年"), "在", hosp(rng, c, pick(rng, ("county", "city"))), "治疗（", pick(rng, ("住院号", "门诊号")),
          S(c.mrn_mz, "MRN"), "）。近期", labs(rng, c, 2), "，考虑", pick(rng, c.st[4]), "，", pick(rng, ("拟行", "需评估")),
          pick(rng, c.st[6]), "。特推荐至", hp, c.dept, "，烦请拨冗诊治。\n"]
    if chance(rng, 0.6):
        p += ["患者家属", S(c.writer.full, "NAME") if c.writer is not c.patient else S(c.sibling.full, "NAME"), "，电话",
              S(c.phone, "PHONE"), "。\n"]
    p += ["此致\n敬礼\n", hosp(rng, c, c.my_level, short=False), c.dept, " ",
          S(c.doc_now.full, "NAME"), "\n", date_parts(rng, c, (c.cy, rng.randint(1, 12), rng.randint(1, 28)), ("ymd", "ymd_full", "ymd_dot"))]
    if chance(rng, 0.4):
        p += ["\n", S(col.sur, "NAME"), pick(rng, ("主任", "教授")), "门诊是周", pick(rng, ("二", "四", "五")), "，科室电话",
              S(make_landline(rng, c.code), "PHONE"), "。"]
    return p


def doc_followup_plan(rng, c):
    p = [pick(rng, ("后续随访安排如下（请截图保存）：", "随访计划：", "接下来这么安排：")), "\n"]
    y = c.cy
    m = rng.randint(1, 8)
    numer = pick(rng, ("cn", "num"))
    items = []
    items.append([date_parts(rng, c, (y, m, rng.randint(1, 28)), ("ymd", "md")), "（", K(pick(rng, ("术后1个月", "1个月后", "两周后")), "time"),
                  "）复查", pick(rng, c.st[5])[0], "、血常规，", pick(rng, ("空腹", "不用空腹")), "；"])
    items.append([date_parts(rng, c, (y, m + 2, rng.randint(1, 28)), ("md", "ymd", "ymd_dot")), "前后复查", pick(rng, ("B超", "CT", "核磁", "心电图", "彩超")),
                  "，", pick(rng, ("可以在", "就在")), hosp(rng, c, pick(rng, ("county", "city"))), "做，把报告发给我；"])
    items.append([dose_parts(rng, c), "，", pick(rng, ("先吃", "连续吃")), dur(rng, pick(rng, ("个月", "周"))), "；"])
    if chance(rng, 0.5):
        items.append(["挂号预约码", S(digits(rng, 8), "ORDER_ID"), "，", pick(rng, ("到时候直接取号", "过期作废")), "；"])
    if chance(rng, 0.5):
        items.append(["预约", S("%d/%d" % (m + 4, rng.randint(1, 28)), "DATE"),
                      "的", pick(rng, ("专家门诊", "多学科会诊")), "；"])
    items.append(["有问题随时在这里留言，", pick(rng, ("紧急情况打120", "周末我也会看", "我尽量当天回复")), "。"])
    for i, it in enumerate(items):
        mark = "%s、" % CN_NUM[i + 1] if numer == "cn" else "%d. " % (i + 1)
        p += [mark, it, "\n"]
    if chance(rng, 0.3):
        p += ["助理", S(c.nurse.given if chance(rng, 0.5) else "小" + c.nurse.sur, "NAME"), "会提前", K("一天", "time"),
              "电话提醒您。"]
    return p


# ----------------------------------------------------------------------------------------------- short turns


def _deal(rng, deck, n):
    """Draw from a per-consultation deck so that a turn is not repeated word for word."""
    if not deck:
        deck.extend(range(n))
        rng.shuffle(deck)
    return deck.pop()


def pt_followup(rng, c):
    r = _deal(rng, c.fu_deck, 12)
    if r == 0:
        return ["您上面说的那位", S(c.colleague_doc.sur, "NAME"), pick(rng, ("主任", "教授")), "，是在", hosp(rng, c, pick(rng, ("prov", "nat")), short=True),
                "吗？需要挂什么号？"]
    if r == 1:
        return [c.kin if c.kin != "我" else "我", "在那边的医院（", hosp(rng, c, pick(rng, ("prov", "city", "nat"))), "）的住院号是",
                S(c.mrn_zy, "MRN"), "，", pick(rng, ("您能查到吗？", "需要的话我把出院记录发您。"))]
    if r == 2:
        return ["对，就是", S(c.colleague_nick, "NAME"), "介绍的，", pick(rng, ("她婆婆", "他丈人", "她妈")), "也在",
                hosp(rng, c, "prov", short=True), "看的，", "找的也是", doc_ref(rng, c.doc_famous, ("教授", "主任")), "。"]
    if r == 3:
        return ["补充一下，", date_parts(rng, c, c.dates[-2]), "那次在", hosp(rng, c, "county"), "查的", labs(rng, c, 2), "，我刚找到单子。"]
    if r == 4:
        return ["医生，", pick(rng, ("那个", "")), dose_parts(rng, c, brand=True), "还要继续吃吗？"]
    if r == 5:
        return [pick(rng, ("好的，谢谢医生！", "明白了，太感谢了", "好的好的", "收到，谢谢您这么详细", "嗯嗯知道了"))]
    if r == 6:
        return ["我们家在", home_addr(rng, c, rng.choice((1, 3, 5))), "，到", S(c.city + "市", "ADDRESS") if chance(rng, 0.5) else S(c.city, "ADDRESS"),
                "坐车要", K("%d个小时" % rng.randint(1, 5), "duration"), "，能不能在", pick(rng, GENERIC_HOSP), "复查？"]
    if r == 7:
        return ["最近", K("血压%d/%dmmHg" % (rng.randint(110, 180), rng.randint(65, 105)), "vital"), "，",
                K("心率%d次/分" % rng.randint(58, 112), "vital"), "，", pick(rng, ("正常吗？", "要紧吗？"))]
    if r == 8:
        return ["刚才说漏了：", pick(rng, ("我爸", "我妈", "我", "孩子")), "对", pick(rng, ("青霉素", "头孢", "磺胺")), "过敏。"]
    if r == 9:
        return ["报告编号", S(digits(rng, 10), "MRN"), "，", pick(rng, ("您在系统里能看到吗", "这是昨天出的")), "？"]
    if r == 10:
        return [negative(rng, c), "这个会影响吗？"]
    return ["还有个事，", c.sibling_word, S(c.sibling.given if len(c.sibling.given) == 2 else c.sibling.full, "NAME"),
            "在", S(c.city2, "ADDRESS"), "，也想让您看看，", pick(rng, ("能单独开一个问诊吗？", "可以吗？"))]


def pt_supplement(rng, c):
    """A second long patient message: the rest of the history."""
    paras = [[pick(rng, ("接上条，", "字数超了，接着说：", "补充一下之前没写的：", "再说说这两年的情况："))]]
    paras.append(para_money(rng, c))
    if chance(rng, 0.6):
        paras.append(["另外", S(c.neighbour.sur, "NAME"), pick(rng, ("叔", "大爷") if c.neighbour.sex == "M" else ("婶", "大娘")), "说", S(c.town, "ADDRESS") if chance(rng, 0.5) else "镇上",
                      "有个", hosp(rng, c, "clinic"), "用偏方治好过，我们没敢去。", negative(rng, c)])
    paras.append(para_recent(rng, c))
    return join_paras(paras)


def doc_short(rng, c):
    r = _deal(rng, c.ds_deck, 8)
    if r == 0:
        return ["这个", labs(rng, c, 1), "不算太高，不用太紧张。"]
    if r == 1:
        return ["可以在", pick(rng, GENERIC_HOSP), "复查，不用专门跑", hosp(rng, c, "prov", short=True), "。"]
    if r == 2:
        return [dose_parts(rng, c), "，先别停。"]
    if r == 3:
        return [pick(rng, ("不客气，祝早日康复。", "好的，有问题再联系。", "嗯，按计划来就行。"))]
    if r == 4:
        return ["您说的", doc_ref(rng, c.doc_famous, ("教授", "主任")), "我认识，", pick(rng, ("水平很高", "是这方面的专家")), "，听", "他" if c.doc_famous.sex == "M" else "她", "的没错。"]
    if r == 5:
        return ["我是", hosp(rng, c, c.my_level, short=False), c.dept, "的", S(c.doc_now.sur, "NAME"), "医生，", pick(rng, ("周三上午", "周一全天")), "有门诊。"]
    if r == 6:
        return ["血压控制目标", K("130/80mmHg", "vital"), "以下，", pick(rng, ("每天早晚各量一次", "记录下来下次给我看")), "。"]
    return [pick(rng, ("不会直接遗传，但有家族聚集倾向。", "饮食清淡，少油少盐，戒烟限酒。", "这个检查不是必须的。"))]


def alnum(rng, n):
    return "".join(pick(rng, "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))


def pt_contact(rng, c):
    r = rng.randrange(5)
    if r == 0:
        return ["片子太大传不上来，我传到网盘了：", S("https://pan.baidu.com/s/1" + alnum(rng, 22), "URL"), " 您方便时看一下。"]
    if r == 1:
        return ["扫描件我发您邮箱了吗？我这边的邮箱是", S(c.email, "EMAIL"), "，", pick(rng, ("没收到的话跟我说", "您回信也行"))]
    if r == 2:
        return ["挂号要填身份证号，", c.kin if c.kin != "我" else "我", "的是", S(c.idno, "ID"), "，", pick(rng, ("这样填对吗？", "帮忙看下有没有错"))]
    if r == 3:
        return [pick(rng, ("加个微信方便发报告吗？", "我微信号是")), S(c.wechat, "URL"), pick(rng, ("", "，备注了姓名"))]
    return ["我的QQ是", S(c.qq, "URL"), "，", pick(rng, ("微信不常用", "电脑上传片子方便")), "。"]


def doc_contact(rng, c):
    r = rng.randrange(3)
    if r == 0:
        return ["我的主页上有这个病的科普文章：", S("https://www.haodf.com/doctor/%s.html" % digits(rng, 9), "URL"), "，可以先看看。"]
    if r == 1:
        return ["完整的资料可以发到科室邮箱", S(pick(rng, PINYIN) + pick(rng, ("ke", "wk", "nk", "zx")) + str(rng.randint(1, 99)) + "@" +
                                        pick(rng, ("163.com", "126.com", "qq.com")), "EMAIL"), "，标题写清楚姓名和病种。"]
    return ["门诊预约可以打医院预约电话", S(make_landline(rng, c.code), "PHONE"), "，或者在公众号上挂号，不要打12320排队。"]


def pt_diary(rng, c):
    """A clinical-only patient message: a symptom and measurement diary with hard negatives."""
    p = [pick(rng, ("这几天的情况记了一下：", "按您说的记录了：", "最近一周：")), "\n"]
    days = ["前天", "昨天", "今天"] if chance(rng, 0.5) else ["周一", "周三", "周五"]
    for dname in days:
        tod = pick(rng, (("早上", 6, 9), ("中午", 11, 13), ("晚上", 7, 10), ("下午", 2, 5)))
        p += [K(dname, "time"), tod[0], K("%d点" % rng.randint(tod[1], tod[2]), "time"), "，",
              K("血压%d/%dmmHg" % (rng.randint(115, 178), rng.randint(68, 108)), "vital"), "，",
              lab_parts(rng, pick(rng, c.st[5])), "，", pick(rng, ("感觉还行", "有点头晕", "睡得不好", "胃口一般")), "\n"]
    p += [dose_parts(rng, c, brand=True), "一直按时吃。", negative(rng, c) if chance(rng, 0.6) else "", "\n", pick(rng, (
        "这样正常吗？", "需要调药吗？", "是不是要提前复查？"))]
    return p


def doc_explain(rng, c):
    """A long clinical-only reply: no identifier at all."""
    st = c.st
    cn = chance(rng, 0.5)
    mk = (lambda i: "%s、" % CN_NUM[i]) if cn else (lambda i: "%d. " % i)
    p = [pick(rng, ("关于您的问题，分几点说：", "我综合您发的资料，说一下我的看法：", "详细回复如下：")), "\n"]
    p += [mk(1), "检查结果：", labs(rng, c, 2), "，", pick(rng, ("比上次有好转", "比上次略高", "波动不大")), "，"]
    t0 = st[5][0]
    if st[0] in ("dm", "hbv", "thy", "cad", "neuro", "ra", "ivf"):
        p += [t0[0], pick(rng, ("的参考范围是", "正常应该在")),
              K("%s-%s%s" % (fmt_val(t0[2] * 0.5, t0[4]), fmt_val(t0[2] * 0.9, t0[4]), t0[1]), "lab"), "，"]
    p += ["不用太焦虑。\n"]
    g, doses, b = pick(rng, st[7])
    p += [mk(2), "用药：", dose_parts(rng, c), "，继续；", b or g, K(doses[0], "dose"), "这个", pick(rng, ("可以减到", "暂时维持", "加到")),
          K(pick(rng, doses), "dose"), "。不要自行停药，", pick(rng, ("也不要听信偏方", "保健品不能代替药物")), "。\n"]
    p += [mk(3), "生活方式：", pick(rng, ("每天走路", "适当运动")), K("%d分钟" % pick(rng, (20, 30, 40, 60)), "duration"), "，",
          pick(rng, ("控制体重", "戒烟限酒", "低盐低脂饮食")), "，", pick(rng, (
          "夏天出汗多注意补水", "冬天注意保暖", "避开早高峰出门")), "。\n"]
    p += [mk(4), "复查：", K(pick(rng, ("1个月后", "3个月后", "半年后")), "time"), "复查", st[5][rng.randrange(len(st[5]))][0], "，",
          pick(rng, ("在当地医院做就行", "县医院就可以做", "社区医院也能查")), "，报告拍照发我。\n"]
    p += ["如果出现", pick(rng, ("胸痛持续不缓解", "高热不退", "呕血黑便", "意识不清")), "，直接打120，不要等。"]
    return p


# ----------------------------------------------------------------------------------------------- consultation


def consultation(rng, cid):
    c = make_case(rng)
    msgs = []

    def add(role, parts, style=None):
        st = style if style is not None else (c.style if role == "patient" else "plain")
        text, spans, keep = _render(parts, st)
        msg = {"text": text, "role": role, "consultation": cid, "spans": spans, "keep": keep}
        _check(msg)
        msgs.append(msg)

    paras = narrative(rng, c)
    if len(paras) >= 6 and chance(rng, 0.3):
        cut = rng.randint(3, len(paras) - 2)
        add("patient", join_paras(paras[:cut], pick(rng, ("\n", "\n\n"))))
        add("patient", [pick(rng, ("（接上条）", "接着说：", "")), join_paras(paras[cut:])])
    else:
        add("patient", join_paras(paras, pick(rng, ("\n", "\n\n", "\n"))))
    add("doctor", doc_questions(rng, c))
    for _ in range(rng.randint(1, 3)):
        add("patient", pt_followup(rng, c))
    if chance(rng, 0.55):
        add("patient", pt_diary(rng, c))
    if chance(rng, 0.6):
        add("doctor", doc_explain(rng, c))
    if chance(rng, 0.3):
        add("patient", pt_contact(rng, c))
        if chance(rng, 0.4):
            add("doctor", doc_contact(rng, c))
    if chance(rng, 0.5):
        add("patient", pt_supplement(rng, c))
    if chance(rng, 0.4):
        add("doctor", doc_short(rng, c))
    longs = [doc_summary, doc_discharge, doc_referral, doc_followup_plan]
    rng.shuffle(longs)
    for fn in longs[:rng.randint(1, 3)]:
        add("doctor", fn(rng, c))
        if chance(rng, 0.7):
            add("patient", pt_followup(rng, c))
        if chance(rng, 0.3):
            add("doctor", doc_short(rng, c))
    for _ in range(rng.randint(0, 2)):
        add("patient", pt_followup(rng, c))
        add("doctor", doc_short(rng, c))
    return msgs


def generate(seed, n):
    rng = random.Random(seed)
    out = []
    cid = 0
    while len(out) < n:
        out.extend(consultation(rng, cid))
        cid += 1
    return out[:n]


def corpus_sha256(seed=0, n=3000):
    return hashlib.sha256(json.dumps(generate(seed, n), ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify():
    got = corpus_sha256()
    if got != CORPUS_SHA256:
        raise RuntimeError("consult_k corpus changed: %s != %s" % (got, CORPUS_SHA256))
    return True


def _mark(msg):
    t = msg["text"]
    out = []
    pos = 0
    for s, e, c in msg["spans"]:
        out.append(t[pos:s])
        out.append("【" + t[s:e] + "】")
        pos = e
    out.append(t[pos:])
    return "".join(out)


def main(argv):
    if "--verify" in argv:
        verify()
        print("consult_k: hash ok")
        return
    msgs = generate(0, 3000)
    cats = [0] * len(CATEGORIES)
    kinds = [0] * len(KEEP_KINDS)
    with_id = 0
    for m in msgs:
        if m["spans"]:
            with_id += 1
        for s, e, c in m["spans"]:
            cats[CATEGORIES.index(c)] += 1
        for s, e, k in m["keep"]:
            kinds[KEEP_KINDS.index(k)] += 1
    print("messages: %d, consultations: %d" % (len(msgs), msgs[-1]["consultation"] + 1))
    print("identifiers: %d" % sum(cats))
    for c, n in zip(CATEGORIES, cats):
        print("  %-9s %d" % (c, n))
    print("keep spans: %d" % sum(kinds))
    for k, n in zip(KEEP_KINDS, kinds):
        print("  %-9s %d" % (k, n))
    print("messages with an identifier: %.1f%%" % (100.0 * with_id / len(msgs)))
    lens = sorted(len(m["text"]) for m in msgs)
    print("length: median %d, 90th pct %d, max %d, >=500 chars: %d" % (
        lens[len(lens) // 2], lens[len(lens) * 9 // 10], lens[-1], sum(1 for x in lens if x >= 500)))
    rng = random.Random(7)
    for i in range(6):
        m = msgs[rng.randrange(len(msgs))]
        print("---- [%s #%d]" % (m["role"], m["consultation"]))
        print(_mark(m))


if __name__ == "__main__":
    main(sys.argv[1:])
