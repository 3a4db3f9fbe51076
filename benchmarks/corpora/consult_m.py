"""DEVELOPMENT corpus M for Chinese text de-identification: identifiers SPOKEN, DISGUISED, and typed.

Status: DEVELOPMENT material from the start.  The detector's developers may read its misses and tune on it;
it measures nothing held out.  (A corpus of a similar kind is held out from them; this one was written
separately, with its own templates, pools and phrasing.)

Provenance: written from the category definitions alone (the ``text.policy`` block of
``conf/deid/default.yaml`` with its comments, and the MODULE DOCSTRINGS ONLY of ``benchmarks/corpora/consult_b.py``
to ``consult_l.py``), without reading the detector, its rules, lexicons, statistical layer, tests, tools, benchmark
scripts or the code of any other corpus, and without running a detector on it.

Pure standard library; deterministic given a seed (one ``random.Random(seed)``, lists and tuples only; dicts are
only looked up).  The corpus for seed 0 / 3000 messages is frozen by ``CORPUS_SHA256`` (sha256 of
``json.dumps(generate(0, 3000), ensure_ascii=False, sort_keys=True)``); ``verify()`` regenerates it and raises if
a single character moved.  ``python benchmarks/corpora/consult_m.py`` prints the counts per category and keep
kind, the share of messages with an identifier, the number of consultations and a few marked samples
(``--verify`` checks the hash).

Each message::

    {"text": str, "role": "patient" | "doctor",
     "consultation": int,                        # index of the consultation; its messages are consecutive
     "spans": [[start, end, CATEGORY], ...],     # identifiers that must be masked
     "keep":  [[start, end, kind], ...]}         # clinical numbers that must NOT be masked

Offsets are Python ``str`` code-point offsets, end exclusive, sorted; spans never overlap each other or a keep
span; no span starts or ends with whitespace.  ``generate(seed, n)`` returns the first ``n`` messages of an endless
stream of whole consultations (a shorter corpus is a prefix of a longer one).  ``_check`` raises on any broken
invariant.

Design: every consultation draws a case (patient, the writer -- the patient or a relative --, the doctor, a nurse,
a customer-service agent, a home place in one of ten provinces (江西, 广西, 云南, 黑龙江, 甘肃, 山西, 福建, 安徽,
吉林, 贵州) with real cities, districts and counties and invented towns, villages, roads and compounds, a famous
hospital of that province with the short forms people say, a local hospital, phones, a resident ID, WeChat / QQ /
e-mail, record and order numbers, dates) and a CHANNEL that fixes how identifiers are written:

* ``voice``: voice messages the platform transcribed (a "[语音转文字]" or "[语音 12秒]" tag on some), no or
  comma-only punctuation, fillers (呃, 那个, 就是, 对对); numbers read digit by digit in Chinese (幺 / 一, 零 / 〇 /
  洞, 两, 拐), in groups, half Arabic, with self-corrections; the ID's check letter as 叉 / X / 埃克斯; dates spoken
  (三月十五号, 二三年十一月二号, 农历八月初三, 上个月二十号); names spelled by component (弓长张, 耳东陈, 口天吴,
  立早章, 草头黄, 双木林, 古月胡, "伟是伟大的伟"); e-mails and WeChat IDs spelled letter by letter;
* ``call``: transcripts of a phone call (电话回访记录 / 通话记录) with speaker labels, the staff reading numbers
  back for confirmation;
* ``dodge``: typed messages that try to get a contact past the platform's filter: digits as 壹贰叁, ①②③,
  full-width, 〇一二, homophones, mixed per group, with separators, letters, emoji or words between groups; cues
  加薇 / V信 / vx / 绿泡泡 / 扣扣 / 企鹅 / 球球; "at" / "圈a" / "#" for @ and "点" / "dian" for dots; names in pinyin,
  initials, partly starred or spaced; the platform's own warnings and auto-starred numbers as hard negatives;
* ``typed``: ordinary typed consultations with plain identifiers and many typed clinical numbers.

Clinical numbers, spoken or typed, are keep spans (血压一百四十五 九十, 体温三十八度五, 空腹血糖7.8mmol/L,
两片, 六十八岁, 三天).  Hard negatives in every channel: service numbers (幺二零, 120, 12320, 10086), a phone's last
four digits (尾号), all-star numbers, a province alone, brand medicines (云南白药, 片仔癀, 999感冒灵), eponym and
place-named diseases (桥本, 帕金森, 川崎病), foods named after places (桂林米粉, 兰州拉面), surname-initial words
(马上, 白细胞, 黄疸), generic hospitals (当地医院, 县医院, 市人民医院), bed and queue numbers, internet number
slang (666, 520), HPV16, N95.

Annotation conventions (those of corpora B-L; the choices of J and L for spoken and disguised identifiers):

* NAME: the name only (never kinship word, title, speaker label); nicknames with 小 / 老 whole; every spelling
  phrase of a name its own NAME span ("【张伟】 【弓长张】 【伟大的伟】"), a denied one too; a surname after 姓 is
  NAME; pinyin names, initials that stand for a person, partly starred (【张*伟】) and spaced (【张 伟】) names are
  NAME; a name starred completely is plain.
* PHONE / ID / MRN / ORDER_ID / URL (QQ, WeChat, links): one span from the first to the last digit-group,
  whatever lies between the groups (spaces, commas, fillers, letters, words, emoji); the cue outside.  In a
  self-correction the misspoken full number is a span too; a false start of three digits or fewer is plain.  A
  mobile given as a WeChat ID is URL.  A number partly starred with seven or more digits left is a span; a tail
  of four digits alone is plain.
* EMAIL: spelled or disguised, one span from its first letter to the end of the domain.
* ADDRESS: every unit below the province; a province in front inside; where a filler interrupts a spoken
  address the pieces are separate spans.  HOSPITAL: named institutions and their spoken / short forms; the
  department plain; generic phrases plain.
* DATE: finer than a year, spoken or typed, incl. "上个月二十号"; a year alone, a month alone, weekdays,
  relative days and clock times are keep "time".
* Keep kinds: age, duration, dose, lab, vital, time.
* Role: patient and relative -> "patient"; doctor, nurse, customer service, platform system -> "doctor"; a call
  transcript chunk takes the role of its first speaker.
"""

import hashlib
import json
import random
import sys

CATEGORIES = ("NAME", "ADDRESS", "HOSPITAL", "DATE", "PHONE", "ID", "EMAIL", "URL", "MRN", "ORDER_ID")
KEEP_KINDS = ("age", "duration", "dose", "lab", "vital", "time")

CORPUS_SHA256 = "753bec33e5503064031bb945e0d5e4ea3d308d92b2f7905847823fe3e80515f3"

# ----------------------------------------------------------------------------------------------- pools

SURNAMES = (  # (surname, spelling phrases)
    ("张", ("弓长张",)), ("陈", ("耳东陈",)), ("吴", ("口天吴",)), ("章", ("立早章",)), ("黄", ("草头黄",)),
    ("林", ("双木林",)), ("胡", ("古月胡",)), ("李", ("木子李",)), ("杨", ("木易杨",)), ("徐", ("双人徐",)),
    ("许", ("言午许",)), ("刘", ("文刀刘",)), ("赵", ("走肖赵",)), ("杜", ("木土杜",)), ("何", ("单人何", "人可何")),
    ("叶", ("口十叶",)), ("程", ("禾呈程",)), ("邹", ("刍耳邹",)), ("邱", ("丘耳邱",)), ("蒋", ("草头蒋",)),
    ("罗", ("四夕罗",)), ("钟", ("金中钟",)), ("潘", ("三点水的潘",)), ("曾", ("曾经的曾",)), ("汪", ("三点水的汪",)),
    ("冯", ("两点水的冯",)), ("谢", ("感谢的谢",)), ("郭", ("城郭的郭",)), ("覃", ("西早覃",)), ("韦", ("韦小宝的韦",)),
)
GIVEN_CHARS = (  # (char, spelling phrase)
    ("伟", "伟大的伟"), ("明", "明天的明"), ("华", "中华的华"), ("丽", "美丽的丽"), ("芳", "芬芳的芳"),
    ("军", "军人的军"), ("红", "红色的红"), ("强", "坚强的强"), ("秀", "优秀的秀"), ("英", "英雄的英"),
    ("静", "安静的静"), ("海", "大海的海"), ("建", "建设的建"), ("国", "国家的国"), ("玉", "玉石的玉"),
    ("兰", "兰花的兰"), ("春", "春天的春"), ("梅", "梅花的梅"), ("涛", "波涛的涛"), ("鹏", "大鹏的鹏"),
    ("晨", "早晨的晨"), ("雪", "雪花的雪"), ("峰", "山峰的峰"), ("宇", "宇宙的宇"), ("杰", "杰出的杰"),
    ("慧", "智慧的慧"), ("燕", "燕子的燕"), ("霞", "彩霞的霞"), ("桂", "桂花的桂"), ("琴", "钢琴的琴"),
    ("志", "志气的志"), ("文", "文化的文"), ("德", "道德的德"), ("永", "永远的永"), ("婉", "婉转的婉"),
    ("凤", "凤凰的凤"), ("斌", "文武斌"), ("淑", "淑女的淑"), ("勇", "勇敢的勇"), ("波", "波浪的波"),
)
PINYIN = {
    "张": "zhang", "陈": "chen", "吴": "wu", "章": "zhang", "黄": "huang", "林": "lin", "胡": "hu", "李": "li",
    "杨": "yang", "徐": "xu", "许": "xu", "刘": "liu", "赵": "zhao", "杜": "du", "何": "he", "叶": "ye",
    "程": "cheng", "邹": "zou", "邱": "qiu", "蒋": "jiang", "罗": "luo", "钟": "zhong", "潘": "pan", "曾": "zeng",
    "汪": "wang", "冯": "feng", "谢": "xie", "郭": "guo", "覃": "qin", "韦": "wei",
    "伟": "wei", "明": "ming", "华": "hua", "丽": "li", "芳": "fang", "军": "jun", "红": "hong", "强": "qiang",
    "秀": "xiu", "英": "ying", "静": "jing", "海": "hai", "建": "jian", "国": "guo", "玉": "yu", "兰": "lan",
    "春": "chun", "梅": "mei", "涛": "tao", "鹏": "peng", "晨": "chen", "雪": "xue", "峰": "feng", "宇": "yu",
    "杰": "jie", "慧": "hui", "燕": "yan", "霞": "xia", "桂": "gui", "琴": "qin", "志": "zhi", "文": "wen",
    "德": "de", "永": "yong", "婉": "wan", "凤": "feng", "斌": "bin", "淑": "shu", "勇": "yong", "波": "bo",
}

# province, (city, area code, districts, counties), famous hospital (full, short forms)
PLACES = (
    ("江西省", (("南昌市", "0791", ("东湖区", "青山湖区", "红谷滩区", "西湖区"), ("进贤县", "南昌县")),
               ("九江市", "0792", ("浔阳区", "濂溪区"), ("都昌县", "湖口县")),
               ("上饶市", "0793", ("信州区", "广丰区"), ("鄱阳县", "余干县"))),
     (("南昌大学第一附属医院", ("南大一附院", "一附院")), ("江西省人民医院", ("江西省人民医院",)))),
    ("广西壮族自治区", (("南宁市", "0771", ("青秀区", "西乡塘区", "江南区"), ("宾阳县", "横州市")),
                       ("柳州市", "0772", ("城中区", "鱼峰区"), ("柳城县", "融安县")),
                       ("桂林市", "0773", ("七星区", "象山区"), ("阳朔县", "全州县"))),
     (("广西医科大学第一附属医院", ("广西医大一附院", "医大一附院")), ("广西壮族自治区人民医院", ("广西区人民医院",)))),
    ("云南省", (("昆明市", "0871", ("五华区", "盘龙区", "官渡区"), ("宜良县", "石林县")),
               ("曲靖市", "0874", ("麒麟区", "沾益区"), ("陆良县", "宣威市")),
               ("大理白族自治州", "0872", ("大理市",), ("祥云县", "宾川县"))),
     (("昆明医科大学第一附属医院", ("昆医附一院", "昆医大一附院")), ("云南省第一人民医院", ("云南省一院",)))),
    ("黑龙江省", (("哈尔滨市", "0451", ("南岗区", "道里区", "香坊区"), ("五常市", "巴彦县")),
                 ("齐齐哈尔市", "0452", ("龙沙区", "建华区"), ("讷河市", "龙江县")),
                 ("牡丹江市", "0453", ("东安区", "爱民区"), ("宁安市", "林口县"))),
     (("哈尔滨医科大学附属第一医院", ("哈医大一院", "哈医大一")), ("哈尔滨医科大学附属第二医院", ("哈医大二院",)))),
    ("甘肃省", (("兰州市", "0931", ("城关区", "七里河区", "安宁区"), ("榆中县", "皋兰县")),
               ("天水市", "0938", ("秦州区", "麦积区"), ("甘谷县", "秦安县"))),
     (("兰州大学第一医院", ("兰大一院",)), ("兰州大学第二医院", ("兰大二院",)))),
    ("山西省", (("太原市", "0351", ("小店区", "迎泽区", "杏花岭区"), ("清徐县", "阳曲县")),
               ("大同市", "0352", ("平城区", "云冈区"), ("阳高县", "天镇县")),
               ("晋中市", "0354", ("榆次区",), ("平遥县", "祁县"))),
     (("山西医科大学第一医院", ("山医大一院", "山大一院")), ("山西白求恩医院", ("山西白求恩医院",)))),
    ("福建省", (("福州市", "0591", ("鼓楼区", "仓山区", "晋安区"), ("闽侯县", "连江县")),
               ("厦门市", "0592", ("思明区", "湖里区", "集美区"), ("同安区",)),
               ("泉州市", "0595", ("丰泽区", "鲤城区"), ("安溪县", "惠安县", "晋江市"))),
     (("福建医科大学附属协和医院", ("福建协和", "福州协和")), ("厦门大学附属中山医院", ("厦门中山医院", "厦大中山")))),
    ("安徽省", (("合肥市", "0551", ("蜀山区", "包河区", "庐阳区"), ("肥东县", "长丰县")),
               ("芜湖市", "0553", ("镜湖区", "鸠江区"), ("南陵县",)),
               ("安庆市", "0556", ("迎江区", "大观区"), ("枞阳县", "怀宁县"))),
     (("安徽医科大学第一附属医院", ("安医大一附院", "安医一附院")), ("安徽省立医院", ("省立医院", "安徽省立")))),
    ("吉林省", (("长春市", "0431", ("朝阳区", "南关区", "绿园区"), ("农安县", "德惠市")),
               ("吉林市", "0432", ("船营区", "丰满区"), ("永吉县", "桦甸市"))),
     (("吉林大学第一医院", ("吉大一院",)), ("吉林大学中日联谊医院", ("中日联谊", "吉大三院")))),
    ("贵州省", (("贵阳市", "0851", ("云岩区", "南明区", "观山湖区"), ("开阳县", "修文县")),
               ("遵义市", "0851", ("红花岗区", "汇川区"), ("湄潭县", "绥阳县"))),
     (("贵州医科大学附属医院", ("贵医附院", "贵医大附院")), ("遵义医科大学附属医院", ("遵医附院",)))),
)
REGION_CODES = ("360102", "360111", "450103", "450107", "530102", "530103", "230103", "230102", "620102",
                "620103", "140105", "140106", "350102", "350203", "340104", "340111", "220104", "220102",
                "520102", "520103", "360121", "451122", "530322", "230184", "350524", "340122", "220122")
TOWN_STEMS = ("石桥", "柳塘", "白沙", "青岗", "马坪", "龙泉", "桃源", "双溪", "河口", "新街", "大坝", "高岭",
              "沙湾", "太平", "永兴", "黄土坡", "梅林", "松林", "塘头", "长乐")
VILLAGE_STEMS = ("上湾", "下坝", "枫树", "杨柳", "石门", "后山", "前进", "东岭", "新屋", "凉水井", "碾盘", "茶园")
ROADS = ("滨江路", "解放西路", "胜利街", "北京东路", "民主路", "人民中路", "新华街", "文化路", "建设南路", "光明巷",
         "南湖大道", "长征路", "学府路", "东风大街")
COMPOUNDS = ("金桂苑", "翠湖花园", "锦绣华庭", "阳光新城", "春晖家园", "碧水湾", "御景湾", "幸福里小区",
             "电力小区", "粮食局宿舍", "铁路新村", "紫荆园", "南苑小区", "世纪花城")
DEPTS = ("心内科", "内分泌科", "消化内科", "神经内科", "呼吸科", "肾内科", "妇科", "儿科", "骨科", "皮肤科")
KIN = (("我妈", "我妈"), ("我爸", "我爸"), ("我老公", "他"), ("我爱人", "她"), ("我婆婆", "老人家"),
       ("我外公", "老爷子"), ("我儿子", "孩子"), ("我闺女", "孩子"), ("我岳父", "老人家"), ("我奶奶", "老太太"))
MAIL_DOMAINS = (("163", "com"), ("qq", "com"), ("126", "com"), ("sina", "com"), ("foxmail", "com"),
                ("outlook", "com"), ("yeah", "net"), ("139", "com"))
MOBILE_PREFIX = ("130", "131", "132", "133", "135", "136", "137", "138", "139", "150", "151", "152", "155",
                 "157", "158", "159", "166", "173", "177", "180", "181", "183", "185", "187", "188", "189", "199")
CS_NICK = ("小雨", "小禾", "阿青", "小满", "小鹿", "阿蓓")

CN = "零一二三四五六七八九"
CAP = "零壹贰叁肆伍陆柒捌玖"
CIR = "⓪①②③④⑤⑥⑦⑧⑨"
FW = "０１２３４５６７８９"
CN0 = "〇一二三四五六七八九"

# ------------------------------------------------------------------------------------------- builder


class Msg:
    def __init__(self, role):
        self.role = role
        self.parts = []  # (text, None | ("S", cat) | ("K", kind))

    def t(self, s):
        self.parts.append((s, None))
        return self

    def s(self, s, cat):
        self.parts.append((s, ("S", cat)))
        return self

    def k(self, s, kind):
        self.parts.append((s, ("K", kind)))
        return self

    def extend(self, parts):
        self.parts.extend(parts)
        return self

    def build(self, cid):
        text, spans, keep, pos = [], [], [], 0
        for s, tag in self.parts:
            if tag is not None:
                if tag[0] == "S":
                    spans.append([pos, pos + len(s), tag[1]])
                else:
                    keep.append([pos, pos + len(s), tag[1]])
            text.append(s)
            pos += len(s)
        return {"text": "".join(text), "role": self.role, "consultation": cid, "spans": spans, "keep": keep}


def P(s):
    return [(s, None)]


def S(s, cat):
    return [(s, ("S", cat))]


def K(s, kind):
    return [(s, ("K", kind))]


# --------------------------------------------------------------------------------------- numbers


def cn_int(n, colloquial=False):
    """Chinese reading of 0 <= n < 100000 (一百四十五, 两千, 一万二)."""
    if n == 0:
        return "零"
    if colloquial and 110 <= n < 1000 and n % 10 == 0 and n % 100 != 0:
        return CN[n // 100] + "百" + CN[(n // 10) % 10]
    units = ((10000, "万"), (1000, "千"), (100, "百"), (10, "十"))
    out, zero = "", False
    rest = n
    for u, name in units:
        d = rest // u
        rest %= u
        if d:
            if zero:
                out += "零"
                zero = False
            if u == 10 and d == 1 and not out:
                out += "十"
            else:
                out += ("两" if d == 2 and u >= 1000 else CN[d]) + name
        elif out:
            zero = True
    if rest:
        if zero:
            out += "零"
        out += CN[rest]
    return out


def cn_dec(s):
    """'7.8' -> 七点八."""
    a, _, b = s.partition(".")
    out = cn_int(int(a))
    if b:
        out += "点" + "".join(CN[int(c)] for c in b)
    return out


def voice_digits(r):
    """A speaker's way of reading digits: a mapping digit -> choices."""
    one = "幺" if r.random() < 0.7 else "一"
    zero = r.choice(("零", "零", "〇", "洞"))
    seven = "拐" if r.random() < 0.15 else "七"
    two = "两" if r.random() < 0.12 else "二"
    return (zero, one, two, "三", "四", "五", "六", seven, "八", "九")


def read_digits(r, digits, groups, voice, arabic_share=0.0, seps=(" ",)):
    out, i = [], 0
    for g in groups:
        chunk = digits[i:i + g]
        i += g
        if r.random() < arabic_share:
            out.append(chunk)
        else:
            out.append("".join(voice[int(c)] if c.isdigit() else c for c in chunk))
    if i < len(digits):
        out.append("".join(voice[int(c)] if c.isdigit() else c for c in digits[i:]))
    sep = r.choice(seps)
    res = out[0]
    for o in out[1:]:
        res += (r.choice(seps) if r.random() < 0.3 else sep) + o
    return res


def disguise_digits(r, digits, groups):
    scripts = (CAP, CIR, FW, CN0, "0123456789", "洞幺两三四五六拐八勾")
    mode = r.random()
    fixed = r.choice(scripts[:4])
    seps = ("-", ".", " ", "/", "~", "、", "a", "x", " 然后 ", "加", "🌸", "⭐", "和", "+", "|")
    sep = r.choice(seps)
    out, i = [], 0
    for g in groups:
        chunk = digits[i:i + g]
        i += g
        sc = fixed if mode < 0.5 else r.choice(scripts)
        out.append("".join(sc[int(c)] for c in chunk))
    if mode > 0.85:
        return "".join(out)
    return sep.join(out) if r.random() < 0.7 else "".join(o + (r.choice(seps) if j < len(out) - 1 else "")
                                                       for j, o in enumerate(out))


# ---------------------------------------------------------------------------------------------- case


class Case:
    pass


def rand_digits(r, n, first="123456789"):
    return r.choice(first) + "".join(r.choice("0123456789") for _ in range(n - 1))


def mobile(r):
    return r.choice(MOBILE_PREFIX) + "".join(r.choice("0123456789") for _ in range(8))


def resident_id(r, year):
    region = r.choice(REGION_CODES)
    body = region + "%04d%02d%02d" % (year, r.randint(1, 12), r.randint(1, 28)) + "%03d" % r.randint(1, 999)
    w = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body + "10X98765432"[sum(int(c) * x for c, x in zip(body, w)) % 11]


def make_person(r):
    sur = r.choice(SURNAMES)
    n = 1 if r.random() < 0.35 else 2
    given = [r.choice(GIVEN_CHARS) for _ in range(n)]
    while n == 2 and given[0][0] == given[1][0]:
        given[1] = r.choice(GIVEN_CHARS)
    return sur, given


def full(p):
    return p[0][0] + "".join(g[0] for g in p[1])


def pinyin_name(p, style):
    s = PINYIN[p[0][0]]
    g = "".join(PINYIN[c[0]] for c in p[1])
    if style == 0:
        return s + " " + g
    if style == 1:
        return s.capitalize() + " " + g.capitalize()
    if style == 2:
        return s + g
    if style == 3:
        return (s[0] + "".join(PINYIN[c[0]][0] for c in p[1])).upper()
    return p[0][0] + "".join(PINYIN[c[0]][0] for c in p[1]).upper()


def make_case(r):
    c = Case()
    c.patient = make_person(r)
    c.age = r.randint(3, 86)
    c.by_relative = r.random() < 0.5
    if c.by_relative:
        c.kin, c.pron = r.choice(KIN)
        c.writer = make_person(r)
    else:
        c.kin, c.pron = "", "我"
        c.writer = c.patient
    c.doctor = make_person(r)
    c.nurse = make_person(r)
    c.cs = r.choice(CS_NICK)
    c.dept = r.choice(DEPTS)
    prov = r.choice(PLACES)
    c.province = prov[0]
    city = r.choice(prov[1])
    c.city, c.area, c.district = city[0], city[1], r.choice(city[2])
    c.county = r.choice(city[3])
    c.town = r.choice(TOWN_STEMS) + r.choice(("镇", "乡", "镇"))
    c.village = r.choice(VILLAGE_STEMS) + "村"
    c.group = r.randint(1, 9)
    c.road = r.choice(ROADS)
    c.road_no = r.randint(3, 388)
    c.compound = r.choice(COMPOUNDS)
    c.bld, c.unit, c.room = r.randint(1, 28), r.randint(1, 4), r.randint(1, 26) * 100 + r.randint(1, 6)
    big = r.choice(prov[2])
    c.big_full, c.big_short = big[0], r.choice(big[1])
    cty = c.county
    c.local = r.choice((cty + "人民医院", cty + "中医院", c.town + "卫生院", c.patient[0][0] + "氏诊所",
                        "市二院", "市第三人民医院", "市妇幼", cty[:-1] + "县医院" if cty.endswith("县") else cty + "医院"))
    c.phone = mobile(r)
    c.phone2 = mobile(r)
    c.landline = c.area + rand_digits(r, 8 if c.area in ("0791", "0871", "0451", "0931", "0351", "0591", "0551",
                                                             "0431", "0851", "0771") else 7, "2345678")
    c.birth_year = 2024 - c.age
    c.idno = resident_id(r, c.birth_year)
    c.id2 = resident_id(r, r.randint(1955, 1995))
    py = PINYIN[c.writer[0][0]] + "".join(PINYIN[g[0]] for g in c.writer[1])
    c.mail_user = r.choice((py, py + str(r.randint(70, 99)), py[:1] + py[1:] + "_" + str(r.randint(1, 999)),
                            PINYIN[c.writer[0][0]] + str(r.randint(1000, 9999))))
    c.mail_dom = r.choice(MAIL_DOMAINS)
    c.wx = r.choice((py + "_" + str(r.randint(10, 99)), "wx" + py[:4] + str(r.randint(100, 999)),
                     py[:3] + "-" + str(r.randint(1980, 2005)), "a" + py + str(r.randint(1, 99))))
    c.qq = rand_digits(r, r.choice((9, 10)))
    c.mrn = rand_digits(r, r.choice((7, 8, 10)))
    c.inpatient = rand_digits(r, 7)
    c.card = rand_digits(r, 12)
    c.order = "2024" + rand_digits(r, r.choice((12, 14)), "0123456789")
    c.refund = "TK" + rand_digits(r, 12)
    c.reg = rand_digits(r, 8)
    c.waybill = r.choice(("SF", "YT", "JD")) + rand_digits(r, 12)
    c.pending = ""
    return c


# --------------------------------------------------------------------------------------- pieces


def name_p(c, who="patient"):
    return S(full(getattr(c, who)), "NAME")


def name_ref(r, c):
    """The patient as the doctor calls them later: full name, given name, 老/小 + surname."""
    p = c.patient
    x = r.random()
    if x < 0.5 or len(p[1]) < 2:
        return S(full(p), "NAME")
    if x < 0.75:
        return S("".join(g[0] for g in p[1]), "NAME")
    return S(("老" if c.age >= 50 else "小") + p[0][0], "NAME")


def spoken_name(r, c, who):
    """我叫张伟 弓长张 伟大的伟 -- every spelling phrase its own span."""
    p = getattr(c, who)
    out = S(full(p), "NAME")
    sep = r.choice((" ", "，", " 就是 ", "，那个"))
    form = r.random()
    if form < 0.35:
        out += P(sep) + S(p[0][1][0] if len(p[0][1]) == 1 else r.choice(p[0][1]), "NAME")
        for g in p[1]:
            out += P(r.choice((" ", "，"))) + S(g[1], "NAME")
    elif form < 0.6:
        out += P(sep + "姓是") + S(r.choice(p[0][1]), "NAME") + P("那个") + S(p[0][0], "NAME")
    elif form < 0.8:
        g = r.choice(p[1])
        out += P(sep) + S(g[0], "NAME") + P("是") + S(g[1], "NAME")
    else:
        wrong = r.choice(("立早章", "弓长张", "耳东陈", "口天吴", "木子李"))
        right = p[0][1][0]
        if wrong == right:
            wrong = "古月胡" if right != "古月胡" else "双木林"
        out += P(sep + "不是") + S(wrong, "NAME") + P(" 是") + S(right, "NAME")
    return out


def spoken_phone(r, c, num=None):
    num = num or c.phone
    v = voice_digits(r)
    form = r.random()
    seps = (" ", "，", "…", " 嗯 ", "、")
    if form < 0.55:
        return S(read_digits(r, num, (3, 4, 4), v, 0.0, seps), "PHONE")
    if form < 0.75:
        return S(read_digits(r, num, (3, 4, 4), v, 0.45, seps), "PHONE")
    if form < 0.88:  # false start of three digits, then the number
        wrong = num[:2] + str((int(num[2]) + 1) % 10)
        return (P("".join(v[int(x)] for x in wrong) + r.choice(("…不对不对 ", "，呃说错了，", " 不是 ")))
                + S(read_digits(r, num, (3, 4, 4), v, 0.0, seps), "PHONE"))
    # misspoken full number then corrected
    bad = num[:-1] + str((int(num[-1]) + 3) % 10)
    return (S(read_digits(r, bad, (3, 4, 4), v, 0.0, (" ",)), "PHONE") + P(r.choice(("…哎不对 是", " 不对不对 最后一个错了 是")))
            + S(read_digits(r, num, (3, 4, 4), v, 0.0, (" ",)), "PHONE"))


def spoken_landline(r, c):
    v = voice_digits(r)
    num = c.landline
    a = len(c.area)
    return S(read_digits(r, num, (a, len(num) - a), v, 0.2, (" ", "，", " 杠 ")), "PHONE")


def spoken_id(r, c, idno=None):
    idno = idno or c.idno
    v = voice_digits(r)
    body = idno[:-1]
    last = idno[-1]
    groups = r.choice(((6, 8, 3), (6, 4, 4, 3), (3, 3, 4, 4, 3), (6, 8, 3)))
    s = read_digits(r, body, groups, v, 0.25 if r.random() < 0.4 else 0.0, (" ", "，", " 然后 ", "…"))
    if last == "X":
        s += r.choice(("叉", " X", " 埃克斯", "大写的X", " 叉"))
    else:
        s += v[int(last)]
    return S(s, "ID")


def spoken_number(r, digits, cat):
    v = voice_digits(r)
    n = len(digits)
    groups = (4,) * (n // 4) if n >= 8 else (3,) * (n // 3)
    if digits[:2].isalpha():
        head = digits[:2]
        spelled = " ".join(head) + " "
        return S(spelled + read_digits(r, digits[2:], (4,) * ((n - 2) // 4), v, 0.2, (" ", "，")), cat)
    return S(read_digits(r, digits, groups or (n,), v, 0.2, (" ", "，", "…")), cat)


def spoken_date(r, year=None, kind=None):
    m, d = r.randint(1, 12), r.randint(1, 28)
    kind = kind if kind is not None else r.randint(0, 6)
    if kind == 0:
        return cn_int(m) + "月" + cn_int(d) + r.choice(("号", "日", "号"))
    if kind == 1:
        y = year or r.choice((2022, 2023, 2024))
        return "".join(CN[int(x)] for x in str(y)) + "年" + cn_int(m) + "月" + cn_int(d) + "号"
    if kind == 2:
        y = year or r.choice((2022, 2023, 2024))
        return "".join(CN[int(x)] for x in str(y)[2:]) + "年" + cn_int(m) + "月" + cn_int(d)
    if kind == 3:
        lm = ("正", "二", "三", "四", "五", "六", "七", "八", "九", "十", "冬", "腊")[m - 1]
        dd = ("初" + CN[d] if d <= 9 else ("初十" if d == 10 else cn_int(d)))
        return "农历" + lm + "月" + dd
    if kind == 4:
        return r.choice(("上个月", "这个月")) + cn_int(d) + "号"
    if kind == 5:
        return r.choice(("今年", "去年")) + cn_int(m) + "月" + cn_int(d) + "号"
    return "%d月%d号" % (m, d)


def typed_date(r, year=None):
    y = year or r.choice((2023, 2024))
    m, d = r.randint(1, 12), r.randint(1, 28)
    f = r.randint(0, 5)
    if f == 0:
        return "%d年%d月%d日" % (y, m, d)
    if f == 1:
        return "%d-%02d-%02d" % (y, m, d)
    if f == 2:
        return "%d.%d.%d" % (y, m, d)
    if f == 3:
        return "%d月%d号" % (m, d)
    if f == 4:
        return "%d/%d/%d" % (y, m, d)
    return "%d年%d月" % (y, m)


def birth_spoken(r, c):
    y = str(c.birth_year)
    return "".join(CN[int(x)] for x in y[2:]) + "年" + cn_int(r.randint(1, 12)) + "月" + cn_int(r.randint(1, 28)) + "号"


def address_typed(r, c, depth=None):
    depth = depth if depth is not None else r.randint(0, 5)
    head = c.province if r.random() < 0.35 else ""
    if depth == 0:
        return S(c.city, "ADDRESS")
    if depth == 1:
        return S(head + c.city + c.district, "ADDRESS")
    if depth == 2:
        return S(head + c.city + c.district + c.road + str(c.road_no) + "号", "ADDRESS")
    if depth == 3:
        return S(c.city + c.district + c.compound + "%d栋%d单元%d" % (c.bld, c.unit, c.room), "ADDRESS")
    if depth == 4:
        return S(head + c.city + c.county + c.town + c.village + "%d组" % c.group, "ADDRESS")
    return S(c.county + c.town, "ADDRESS")


def address_spoken(r, c):
    form = r.randint(0, 3)
    if form == 0:
        return (S(c.city + c.district, "ADDRESS") + P(r.choice((" 嗯 那个 ", " 就是 ", "，呃，")))
                + S(c.road, "ADDRESS") + P(" 那边 ") + S(c.compound + cn_int(c.bld) + "栋" + cn_int(c.unit) + "单元"
                                                         + "".join(CN[int(x)] for x in str(c.room)), "ADDRESS"))
    if form == 1:
        return (S(c.county, "ADDRESS") + P(r.choice((" 下面的 ", " 那个 "))) + S(c.town + c.village, "ADDRESS")
                + P(" ") + S(cn_int(c.group) + "组", "ADDRESS"))
    if form == 2:
        return S(c.city + c.district + c.road + cn_int(c.road_no) + "号", "ADDRESS")
    return S(c.district, "ADDRESS") + P("，就") + S(c.compound, "ADDRESS") + P("那一块")


# ---------------------------------------------------------------------------------- clinical keeps


def keep_clin(r, spoken):
    """One clinical clause with keep spans; spoken or typed numbers."""
    f = r.randint(0, 13)
    if spoken:
        if f == 0:
            s, d = r.randint(118, 186), r.randint(62, 110)
            return P(r.choice(("早上量的", "刚量了", "在家测的"))) + K("血压" + cn_int(s) + r.choice((" ", "，", "到")) + cn_int(d), "vital")
        if f == 1:
            t = "%d.%d" % (r.randint(37, 39), r.randint(1, 9))
            return P(r.choice(("昨晚", "半夜", "一直"))) + P("烧到") + K(cn_dec(t).replace("点", "度"), "vital")
        if f == 2:
            return K("体温" + cn_dec("%d.%d" % (r.randint(36, 39), r.randint(1, 9))).replace("点", "度"), "vital")
        if f == 3:
            return K("空腹血糖" + cn_dec("%d.%d" % (r.randint(5, 14), r.randint(0, 9))), "lab")
        if f == 4:
            return K("心率" + cn_int(r.choice((88, 96, 100, 110, 120, 58, 62)), True), "vital")
        if f == 5:
            return P("一次吃") + K(r.choice(("两片", "一片", "半片", "一粒", "两粒", "十毫升", "五毫升")), "dose") + P("，一天" + r.choice(("两次", "三次", "一次")))
        if f == 6:
            return P("老人今年") + K(cn_int(r.randint(55, 90)) + "岁", "age")
        if f == 7:
            return P("咳了") + K(r.choice(("三天", "一个礼拜", "半个月", "两个多月", "快一年")), "duration") + P("了")
        if f == 8:
            return K("高压" + cn_int(r.choice((150, 160, 170, 140, 180)), True), "vital") + P(" ") + K("低压" + cn_int(r.choice((90, 95, 100))), "vital")
        if f == 9:
            return K("糖化" + cn_dec("%d.%d" % (r.randint(6, 10), r.randint(0, 9))), "lab") + P(" 医生说偏高")
        if f == 10:
            return K("肌酐" + cn_int(r.randint(70, 260)), "lab") + P(" 尿酸") + P("也高")
        if f == 11:
            return K("体重" + cn_int(r.randint(45, 95)) + r.choice(("公斤", "斤")), "vital")
        if f == 12:
            return P("孩子") + K(cn_int(r.randint(2, 11)) + "个月", "age") + P("大")
        return P("吃了") + K(r.choice(("三天", "五天", "一个礼拜")), "duration") + P("还不见好")
    if f == 0:
        return K("血压%d/%d" % (r.randint(118, 186), r.randint(62, 110)), "vital") + P("mmHg" if r.random() < 0.3 else "")
    if f == 1:
        return P("最高烧到") + K("%d.%d℃" % (r.randint(37, 39), r.randint(1, 9)), "vital")
    if f == 2:
        return K("空腹血糖%d.%dmmol/L" % (r.randint(5, 14), r.randint(0, 9)), "lab")
    if f == 3:
        return K("糖化血红蛋白%d.%d%%" % (r.randint(6, 10), r.randint(0, 9)), "lab")
    if f == 4:
        return K("ALT %dU/L" % r.randint(40, 220), "lab") + P("，") + K("AST %dU/L" % r.randint(35, 150), "lab")
    if f == 5:
        return P("每次") + K(r.choice(("1片", "2片", "0.5片", "500mg", "10ml", "1粒", "25mg")), "dose") + P("，" + r.choice(("bid", "tid", "qd", "一天两次")))
    if f == 6:
        return K("%d岁" % r.randint(18, 88), "age") + P(r.choice(("，男", "，女", "")))
    if f == 7:
        return P("症状") + K(r.choice(("3天", "2周", "1个多月", "半年", "10天")), "duration") + P("了")
    if f == 8:
        return K("TSH %d.%d" % (r.randint(4, 20), r.randint(0, 9)), "lab") + P("，") + K("FT4 %d.%d" % (r.randint(8, 20), r.randint(0, 9)), "lab")
    if f == 9:
        return K("心率%d次/分" % r.randint(55, 125), "vital")
    if f == 10:
        return K("血红蛋白%dg/L" % r.randint(70, 150), "lab")
    if f == 11:
        return K("尿酸%dμmol/L" % r.randint(380, 620), "lab")
    if f == 12:
        return K("血氧%d%%" % r.randint(88, 99), "vital")
    return K("结节%d.%dcm" % (r.randint(0, 3), r.randint(1, 9)), "lab")


def doc_keep(r, spoken):
    f = r.randint(0, 6)
    if f == 0:
        return P("血压控制在") + K(("一百三 八十" if spoken else "130/80"), "vital") + P("以下")
    if f == 1:
        return P("每次") + K(r.choice(("半片", "一片", "两粒")) if spoken else r.choice(("0.5片", "1片", "25mg", "47.5mg", "10ml")), "dose")
    if f == 2:
        return P("先吃") + K(r.choice(("两周", "一个月", "三个月")) if spoken else r.choice(("2周", "1个月", "3个月", "7天")), "duration") + P("再看")
    if f == 3:
        v = "%d.%d" % (r.randint(5, 12), r.randint(0, 9))
        return P("你这个") + K(("空腹血糖" + cn_dec(v)) if spoken else ("空腹血糖" + v), "lab") + P("偏高")
    if f == 4:
        return P("正常是") + K(r.choice(("3.9-6.1mmol/L", "0.27-4.2mIU/L", "<40U/L")), "lab")
    if f == 5:
        return K(("心率一百" if spoken else "心率100次/分"), "vital") + P("以下就行")
    return P("糖化目标") + K(("糖化七" if spoken else "HbA1c 7%"), "lab") + P("以内")


NEG_SPOKEN = ("不行就打幺二零", "实在不行打一二零", "我打过幺二三二零问过", "家里备着云南白药", "上次医生说可能是桥本",
              "马上就去拿药", "白细胞有点高", "孩子有点黄疸", "早高峰不好挂号", "当地医院看过了没用",
              "县医院说看不了", "我是江西的", "他有帕金森好几年了", "排到八十七号了", "住三十二床",
              "大夫您别嫌我啰嗦", "师傅说要空腹", "吃了片仔癀也没用", "阿姨您好")
NEG_TYPED = ("手机尾号%04d的那个不用了", "我在市人民医院做的", "家里有999感冒灵", "隔壁床说是川崎病", "HPV16阳性",
             "戴N95口罩", "今天不吃桂林米粉了", "社区医院开的药", "10086发短信说欠费", "12320说让问医生",
             "666 医生太厉害了", "520那天开始疼的", "在大医院查过", "老家是广西的", "号码已被平台隐藏：***********",
             "华法林还在吃", "周一复查")


def neg(r, spoken):
    s = r.choice(NEG_SPOKEN if spoken else NEG_TYPED)
    if "%04d" in s:
        s = s % r.randint(1000, 9999)
    return P(s)


def time_keep(r, spoken):
    if spoken:
        return K(r.choice(("前天", "昨天晚上", "下午三点", "礼拜三", "上个礼拜", "八五年", "三月份", "早上七点多")), "time")
    return K(r.choice(("前天", "昨晚", "下午3点", "周三", "上周", "2019年", "5月份", "今早8点")), "time")


# ------------------------------------------------------------------------------- message templates

FILL = ("呃", "那个", "就是", "嗯", "然后呢", "对对")


def voice_tag(r):
    x = r.random()
    if x < 0.3:
        return "[语音转文字] "
    if x < 0.5:
        return "[语音 %d秒] " % r.randint(4, 59)
    return ""


def vsep(r):
    return r.choice((" ", "，", " ", " " + r.choice(FILL) + " "))


def pat_voice_ident(r, c):
    """A patient-side voice message with identifiers."""
    m = Msg("patient")
    m.t(voice_tag(r))
    f = r.randint(0, 11)
    if f == 0:
        m.t(r.choice(("医生你好", "喂 大夫", "您好医生")) + vsep(r) + "我叫").extend(spoken_name(r, c, "writer"))
        if c.by_relative:
            m.t(vsep(r) + "我是帮" + c.kin + "问的" + vsep(r) + c.kin[1:] + "叫").extend(name_p(c))
    elif f == 1:
        m.t("我电话是").extend(spoken_phone(r, c)).t(vsep(r) + "有事您打这个")
    elif f == 2:
        m.t(r.choice(("身份证号", "身份证号码我念一下", "身份证是"))).t(vsep(r)).extend(spoken_id(r, c))
    elif f == 3:
        m.t("我们住在").extend(address_spoken(r, c)).t(vsep(r)).extend(keep_clin(r, True))
    elif f == 4:
        m.t("上次是在").s(r.choice((c.big_short, c.big_full)), "HOSPITAL").t("看的" + vsep(r) + r.choice(("挂的", "看的")) + c.dept + vsep(r) + "门诊号是").extend(spoken_number(r, c.mrn, "MRN"))
    elif f == 5:
        m.t(c.kin or "我").t("是").s(spoken_date(r), "DATE").t("住的院" + vsep(r) + "住院号").extend(spoken_number(r, c.inpatient, "MRN"))
    elif f == 6:
        u, (d1, d2) = c.mail_user, c.mail_dom
        spelled = " ".join(ch if ch.isalpha() or ch == "_" else CN[int(ch)] for ch in u).replace("_", "下划线")
        dom = ("".join(CN[int(x)] for x in d1) if d1.isdigit() else " ".join(d1))
        m.t("邮箱是").s(spelled + r.choice((" at ", " 艾特 ", " 圈a ")) + dom + r.choice((" 点 ", "点")) + d2, "EMAIL").t(vsep(r) + "报告发这个就行")
    elif f == 7:
        wx = " ".join(ch if ch.isalpha() else ("下划线" if ch == "_" else ("杠" if ch == "-" else CN[int(ch)])) for ch in c.wx)
        m.t("微信号我说一下" + vsep(r)).s(wx, "URL").t(vsep(r) + "都是小写")
    elif f == 8:
        m.t("订单号是").extend(spoken_number(r, c.order, "ORDER_ID")).t(vsep(r) + "钱扣了但是没看到医生回复")
    elif f == 9:
        m.t(c.kin or "我").t("是").s(birth_spoken(r, c), "DATE").t("出生的" + vsep(r) + "今年").k(cn_int(c.age) + "岁", "age")
    elif f == 10:
        m.t("我们").extend(S(c.county, "ADDRESS")).t("的" + vsep(r) + "先在").s(c.local, "HOSPITAL").t("看了" + vsep(r) + "又转到").s(c.big_short, "HOSPITAL")
    else:
        m.t("家里座机").extend(spoken_landline(r, c)).t(vsep(r) + "手机是").extend(spoken_phone(r, c, c.phone2))
    if r.random() < 0.35:
        m.t(vsep(r)).extend(extra_voice(r, c))
    if r.random() < 0.4:
        m.t(vsep(r)).extend(keep_clin(r, True))
    if r.random() < 0.2:
        m.t(vsep(r)).extend(neg(r, True))
    return m


def extra_voice(r, c):
    """A second identifier appended to a voice message."""
    f = r.randint(0, 6)
    if f == 0:
        return P("病人叫") + spoken_name(r, c, "patient")
    if f == 1:
        return P("是") + S(spoken_date(r), "DATE") + P("开始不舒服的")
    if f == 2:
        return P("身份证") + spoken_id(r, c)
    if f == 3:
        return P("我们是") + S(c.city, "ADDRESS") + P("的")
    if f == 4:
        return P("就是在") + S(c.big_short, "HOSPITAL") + P("查的")
    if f == 5:
        return P("医保卡号") + spoken_number(r, c.card, "MRN")
    return P("你打") + spoken_phone(r, c) + P("也行")


def doc_voice_ident(r, c):
    m = Msg("doctor")
    f = r.randint(0, 6)
    if f == 0:
        m.t(voice_tag(r) + "我是" + c.dept + "的").s(c.doctor[0][0], "NAME").t("医生" + vsep(r) + "您说的是").extend(spoken_name(r, c, "patient")).t("对吧")
    elif f == 1:
        m.t(voice_tag(r) + "我重复一遍电话" + vsep(r)).extend(spoken_phone(r, c)).t(vsep(r) + "对不对")
    elif f == 2:
        m.t("您").s(spoken_date(r, kind=r.choice((0, 4, 6))), "DATE").t("上午来复查" + vsep(r) + "到").s(c.big_short, "HOSPITAL").t("门诊三楼找我")
    elif f == 3:
        m.t("护士").s(r.choice(("小", "")) + c.nurse[0][0] if r.random() < 0.5 else full(c.nurse), "NAME").t("会给您回电话" + vsep(r) + "号码是").extend(spoken_landline(r, c))
    elif f == 4:
        m.t("好的").extend(name_ref(r, c)).t(vsep(r)).extend(doc_keep(r, True)).t(vsep(r) + "这个要注意")
    elif f == 5:
        m.t("检查单上的名字写错了" + vsep(r) + "应该是").extend(spoken_name(r, c, "patient"))
    else:
        m.t("报告编号").extend(spoken_number(r, c.mrn, "MRN")).t(vsep(r) + "您去自助机打印")
    return m


def call_chunk(r, c):
    """A phone-call transcript chunk with labelled turns."""
    staff = r.choice(("医生", "护士", "客服"))
    side = "家属" if c.by_relative else "患者"
    start_staff = r.random() < 0.6
    m = Msg("doctor" if start_staff else "patient")
    if r.random() < 0.3:
        m.t(r.choice(("【电话回访记录】\n", "【通话记录 %d分%d秒】\n" % (r.randint(1, 12), r.randint(0, 59)))))
    f = r.randint(0, 5)
    nl = r.choice(("\n", " ", "\n"))
    turns = []
    if f == 0:
        turns.append((staff, P("您好 这边是") + S(r.choice((c.big_full, c.big_short)), "HOSPITAL") + P("随访的 请问是") + name_p(c) + P("家吗")))
        turns.append((side, P("对对 我是" + ("病人家属" if c.by_relative else "本人"))))
        turns.append((staff, P("我核对一下 身份证") + spoken_id(r, c) + P(" 对吗")))
    elif f == 1:
        turns.append((side, P("喂 我想改一下联系电话")))
        turns.append((staff + ("" if r.random() < 0.5 else ""), P("您说")))
        turns.append((side, spoken_phone(r, c, c.phone2)))
        turns.append((staff, P("好 我念一遍 ") + S(read_digits(r, c.phone2, (3, 4, 4), voice_digits(r), 0.0, (" ",)), "PHONE") + P(" 没错吧")))
    elif f == 2:
        turns.append((staff, P("您住哪儿 药给您寄过去")))
        turns.append((side, address_spoken(r, c)))
        turns.append((staff, P("收件人写谁")))
        turns.append((side, P("写我 ") + spoken_name(r, c, "writer")))
    elif f == 3:
        turns.append((staff, P("上次") + doc_keep(r, True) + P(" 这次复查怎么样")))
        turns.append((side, keep_clin(r, True) + P(" ") + keep_clin(r, True)))
        turns.append((staff, P("那") + S(spoken_date(r, kind=r.choice((0, 6))), "DATE") + P("再来 ——")))
        turns.append((side, P("——那天上班 能不能") + time_keep(r, True)))
    elif f == 4:
        turns.append((staff, P("您的退款单号我报一下 ") + spoken_number(r, c.refund, "ORDER_ID")))
        turns.append((side, P("好的 我记下了 谢谢")))
        turns.append((staff, P("我是客服") + S(c.cs, "NAME") + P(" 有问题再打过来")))
    else:
        turns.append((side, P("我们在") + S(c.town, "ADDRESS") + P(" 去") + S(c.local, "HOSPITAL") + P("方便点")))
        turns.append((staff, P("可以 先去那边查个" + r.choice(("血常规", "肝功能", "尿常规")) + " ") + doc_keep(r, True)))
        turns.append((side, neg(r, True)))
    if not start_staff:
        if turns[0][0] != side:
            turns = [(side, P(r.choice(("喂 您好", "喂 是医院吗"))))] + turns
    else:
        if turns[0][0] == side:
            turns = [(staff, P("您好 请讲"))] + turns
    for i, (who, parts) in enumerate(turns):
        if i:
            m.t(nl)
        m.t(who + "：").extend(parts)
    return m


def dodge_phone(r, c, num=None):
    num = num or c.phone
    if r.random() < 0.12:  # partly starred, eight or nine digits left
        return S(num[:4] + "**" + num[6:] if r.random() < 0.5 else num[:3] + "***" + num[6:], "PHONE")
    return S(disguise_digits(r, num, r.choice(((3, 4, 4), (3, 4, 4), (4, 4, 3), (3, 3, 5), (11,)))), "PHONE")


def pat_dodge_ident(r, c):
    m = Msg("patient")
    if c.pending:
        m.t(r.choice(("接上条 ", "后面是 ", "剩下的："))).s(c.pending, "PHONE")
        c.pending = ""
        return m
    f = r.randint(0, 11)
    cue_wx = r.choice(("加薇", "V信", "vx", "绿泡泡", "威❤", "wei信", "薇"))
    cue_qq = r.choice(("扣扣", "企鹅", "球球", "Q", "q号"))
    if f == 0:
        m.t(r.choice(("医生能加个", "方便的话加下", "平台太贵了 加")) + cue_wx + r.choice(("：", " ", "嘛 "))).extend(dodge_phone(r, c) if r.random() < 0.5 else S(c.wx, "URL"))
        if m.parts[-1][1] == ("S", "PHONE"):
            m.parts[-1] = (m.parts[-1][0], ("S", "URL"))
            m.t(r.choice(("（同手机号）", " 手机号就是")))
    elif f == 1:
        m.t(cue_qq + r.choice(("：", " ", "是"))).s(disguise_digits(r, c.qq, (len(c.qq),) if r.random() < 0.4 else (3, 3, len(c.qq) - 6)), "URL")
    elif f == 2:
        m.t(r.choice(("电话", "手机", "号码", "打我"))).t(r.choice(("：", " ", "→"))).extend(dodge_phone(r, c)).t(r.choice(("", " 怕被屏蔽这样写", " 看得懂吧")))
    elif f == 3:
        u, (d1, d2) = c.mail_user, c.mail_dom
        at = r.choice((" at ", "#", "圈a", "（at）", "艾特", "＠"))
        dot = r.choice(("点", " dian ", "(.)", "。", "点"))
        m.t("报告发我邮箱 ").s(u + at + d1 + dot + d2, "EMAIL")
    elif f == 4:
        style = r.randint(0, 4)
        m.t(r.choice(("我叫", "患者", "名字"))).s(pinyin_name(c.patient if not c.by_relative else c.writer, style), "NAME").t(r.choice(("", "，拼音写的", " 平台不让打全名")))
    elif f == 5:
        p = c.patient
        nm = full(p)
        if len(nm) == 3:
            sv = r.choice((nm[0] + "*" + nm[2], nm[0] + "**", nm[0] + "x" + nm[2], nm[0] + " " + nm[1] + " " + nm[2]))
        else:
            sv = r.choice((nm[0] + "*", nm[0] + " " + nm[1], nm[0] + "x"))
        m.t((c.kin or "我") + "叫").s(sv, "NAME").t(r.choice(("，", " ")) + "在").extend(address_typed(r, c, r.choice((1, 4, 5))))
    elif f == 6:
        m.t("身份证 ").s(disguise_digits(r, c.idno[:-1], (6, 8, 3)) + c.idno[-1], "ID")
    elif f == 7:
        m.t("挂号单号").s(disguise_digits(r, c.reg, (4, 4)), "ORDER_ID").t(" 就诊卡").s(disguise_digits(r, c.card, (4, 4, 4)), "MRN")
    elif f == 8:
        m.t("主页在 ").s(r.choice(("www点", "http://")) + r.choice(("doc", "health", "zx")) + c.wx.replace("_", "").replace("-", "")[:6] + r.choice(("点cn", ".cn/a", "点com")), "URL").t(" 上面有我联系方式")
    elif f == 9:
        m.t("医生你是").s(c.doctor[0][0] + r.choice(("*", "x", "")) + ("*" if r.random() < 0.5 else ""), "NAME").t("主任吗 在").s(c.big_short, "HOSPITAL").t("坐诊那个")
    elif f == 10:
        m.t("之前的号码不用了 新的 ").extend(dodge_phone(r, c, c.phone2)).t(r.choice(("", "（中间加了字 别介意）")))
    else:
        cut = r.choice((3, 4, 5))
        m.t(r.choice(("拆开发 ", "分开说 "))).s(disguise_digits(r, c.phone[:cut], (cut,)), "PHONE").t(r.choice((" 剩下的下条发", " 后面的等下")))
        c.pending = disguise_digits(r, c.phone[cut:], (11 - cut,) if r.random() < 0.5 else (4, 7 - cut))
    if r.random() < 0.3:
        g = r.randint(0, 3)
        if g == 0:
            m.t(" 我是").s(c.city[:2] if r.random() < 0.5 else c.city, "ADDRESS").t("的")
        elif g == 1:
            m.t(" 名字").s(pinyin_name(c.writer, r.randint(0, 4)), "NAME")
        elif g == 2:
            m.t(" 也可以打").extend(dodge_phone(r, c, c.phone2))
        else:
            m.t(" 去年在").s(c.local, "HOSPITAL").t("做过胃镜")
    if r.random() < 0.35:
        m.t("。").extend(keep_clin(r, False))
    if r.random() < 0.15:
        m.t(" ").extend(neg(r, False))
    return m


def doc_dodge(r, c):
    m = Msg("doctor")
    f = r.randint(0, 4)
    if f == 0:
        m.t("【系统提示】为保护您的隐私，请勿在问诊中发送手机号、微信等联系方式")
    elif f == 1:
        m.t("您好，我是").s(c.doctor[0][0], "NAME").t("医生助理" + r.choice(("", "，")) + "平台规定不能加私人联系方式哦")
    elif f == 2:
        m.t("【订单通知】患者").s(c.patient[0][0] + "*" * len(c.patient[1]), "NAME").t("，订单").s(c.order[:6] + "****" + c.order[-4:], "ORDER_ID").t("已支付")
    elif f == 3:
        m.t("号码已被自动隐藏：*********** 请在平台内沟通。").extend(keep_clin(r, False)).t("先按这个吃")
    else:
        m.t("复查可以约").s(c.big_short if r.random() < 0.5 else c.big_full, "HOSPITAL").t("的" + c.dept + "，").s(typed_date(r, 2024), "DATE").t("那周我有门诊")
    return m


def pat_typed_ident(r, c):
    m = Msg("patient")
    f = r.randint(0, 9)
    if f == 0:
        m.t("医生您好，" + (c.kin if c.by_relative else "我") + "叫").extend(name_p(c)).t("，").extend(keep_clin(r, False))
    elif f == 1:
        m.t("联系电话" + r.choice(("：", " ", ":"))).s(c.phone if r.random() < 0.6 else c.phone[:3] + " " + c.phone[3:7] + " " + c.phone[7:], "PHONE")
    elif f == 2:
        m.t("身份证号：").s(c.idno, "ID").t("，出生日期").s("%d年%s月%s日" % (c.birth_year, int(c.idno[10:12]), int(c.idno[12:14])), "DATE")
    elif f == 3:
        m.t("地址：").extend(address_typed(r, c, r.choice((2, 3, 4)))).t("，收件人").extend(name_p(c, "writer"))
    elif f == 4:
        m.t("在").s(c.local, "HOSPITAL").t("查的，门诊号").s(c.mrn, "MRN").t("，").extend(keep_clin(r, False))
    elif f == 5:
        m.t("订单号").s(c.order, "ORDER_ID").t("，退款单").s(c.refund, "ORDER_ID")
    elif f == 6:
        m.t(r.choice(("上次是", "之前"))).s(typed_date(r), "DATE").t("在").s(c.big_full, "HOSPITAL").t("做的手术")
    elif f == 7:
        m.t("邮箱").s(c.mail_user + "@" + c.mail_dom[0] + "." + c.mail_dom[1], "EMAIL").t(" 微信").s(c.wx, "URL")
    elif f == 8:
        m.t("药寄到").extend(address_typed(r, c, 3)).t("，快递单号").s(c.waybill, "ORDER_ID")
    else:
        m.t(c.kin or "我").t("在").extend(S(c.city, "ADDRESS")).t("工作，").extend(keep_clin(r, False)).t("，").extend(neg(r, False))
    if r.random() < 0.3:
        g = r.randint(0, 3)
        if g == 0:
            m.t("。身份证").s(c.idno[:6] + " " + c.idno[6:14] + " " + c.idno[14:] if r.random() < 0.3 else c.idno, "ID")
        elif g == 1:
            m.t("，生日").s(typed_date(r, c.birth_year), "DATE")
        elif g == 2:
            m.t("，备用号码").s(c.phone2, "PHONE")
        else:
            m.t("，之前在").s(c.local, "HOSPITAL").t("看过")
    return m


def doc_typed_ident(r, c):
    m = Msg("doctor")
    f = r.randint(0, 4)
    if f == 0:
        m.extend(name_ref(r, c)).t(r.choice(("您好，", "，"))).extend(doc_keep(r, False)).t("，建议复查")
    elif f == 1:
        m.t("我是").s(full(c.doctor), "NAME").t("，").s(c.big_full, "HOSPITAL").t(c.dept + "，").s(typed_date(r, 2024), "DATE").t("上午门诊")
    elif f == 2:
        m.t("住院号").s(c.inpatient, "MRN").t("的报告出来了，").extend(keep_clin(r, False))
    elif f == 3:
        m.t("护士").s(c.nurse[0][0], "NAME").t("会联系您，科室电话").s(c.landline[:len(c.area)] + "-" + c.landline[len(c.area):], "PHONE")
    else:
        m.t("预约码").s(c.reg, "ORDER_ID").t("，").s("%d月%d日" % (r.randint(1, 12), r.randint(1, 28)), "DATE").t("来")
    return m


CLIN_OPEN_P = ("医生", "大夫", "您好", "请问", "还有", "另外", "对了")
CLIN_MID = ("这个严重吗", "需要换药吗", "要不要住院", "饭前吃还是饭后吃", "能不能喝酒", "要做什么检查", "会不会遗传",
            "晚上睡不着", "头晕得厉害", "脚有点肿", "胃口不好")
DOC_ADVICE = ("先别停药", "注意低盐饮食", "建议查个甲功", "多喝水", "一周后复查", "这个不用太担心", "需要做个彩超",
              "如果加重马上去急诊", "药量先不变", "可以加一片")


def clin_msg(r, c, role, spoken):
    m = Msg(role)
    if spoken and role == "patient":
        m.t(voice_tag(r))
    if role == "patient":
        m.t(r.choice(CLIN_OPEN_P) + (vsep(r) if spoken else "，")).extend(keep_clin(r, spoken))
        for _ in range(r.randint(0, 2)):
            m.t(vsep(r) if spoken else "，").extend(keep_clin(r, spoken))
        if r.random() < 0.4:
            m.t(vsep(r) if spoken else "，").extend(time_keep(r, spoken)).t(r.choice(("开始的", "加重的", "去查的")))
        m.t((vsep(r) if spoken else "，") + r.choice(CLIN_MID))
        if r.random() < 0.35:
            m.t(vsep(r) if spoken else "。").extend(neg(r, spoken))
    else:
        m.t(r.choice(DOC_ADVICE) + ("，" if not spoken else vsep(r))).extend(doc_keep(r, spoken))
        if r.random() < 0.5:
            second = doc_keep(r, spoken)
            if second != m.parts[-len(second):]:
                m.t("，").extend(second)
        m.t(r.choice(("。", "", "，有问题再问我")))
        if r.random() < 0.2:
            m.t(("。" if m.parts[-1][0] != "。" else "") + r.choice(("县医院也能做", "当地医院就能查", "马上停药不行", "市人民医院也可以")))
    return m


def consultation(r, cid):
    c = make_case(r)
    channel = r.choice(("voice", "voice", "voice", "call", "dodge", "dodge", "dodge", "typed", "typed"))
    n = r.randint(7, 15)
    out = []
    role = "patient"
    for i in range(n):
        ident = r.random() < (0.62 if role == "patient" else 0.4)
        if channel == "call" and r.random() < 0.6:
            m = call_chunk(r, c)
        elif channel in ("voice", "call"):
            if ident:
                m = pat_voice_ident(r, c) if role == "patient" else doc_voice_ident(r, c)
            else:
                m = clin_msg(r, c, role, True if role == "patient" or r.random() < 0.4 else False)
        elif channel == "dodge":
            if ident:
                m = pat_dodge_ident(r, c) if role == "patient" else doc_dodge(r, c)
            else:
                m = clin_msg(r, c, role, False)
        else:
            if ident:
                m = pat_typed_ident(r, c) if role == "patient" else doc_typed_ident(r, c)
            else:
                m = clin_msg(r, c, role, r.random() < 0.15)
        out.append(m.build(cid))
        if r.random() < 0.8:
            role = "doctor" if role == "patient" else "patient"
    return out


# ------------------------------------------------------------------------------------------ corpus


def _check(msgs):
    prev = -1
    for i, m in enumerate(msgs):
        t = m["text"]
        if m["role"] not in ("patient", "doctor"):
            raise ValueError("role %d" % i)
        cid = m["consultation"]
        if cid != prev and cid != prev + 1:
            raise ValueError("consultation numbering %d" % i)
        prev = cid
        allsp = [(a, b, "S", c) for a, b, c in m["spans"]] + [(a, b, "K", c) for a, b, c in m["keep"]]
        for lst, cats in ((m["spans"], CATEGORIES), (m["keep"], KEEP_KINDS)):
            if lst != sorted(lst):
                raise ValueError("unsorted %d" % i)
            for a, b, c in lst:
                if c not in cats:
                    raise ValueError("category %r in %d" % (c, i))
                if not (0 <= a < b <= len(t)):
                    raise ValueError("bounds %d" % i)
                if t[a].isspace() or t[b - 1].isspace():
                    raise ValueError("whitespace at edge of %r in %d" % (t[a:b], i))
        allsp.sort()
        for x, y in zip(allsp, allsp[1:]):
            if y[0] < x[1]:
                raise ValueError("overlap %r %r in %d: %r" % (x, y, i, t))
    return msgs


def generate(seed, n):
    r = random.Random(seed)
    out = []
    cid = 0
    while len(out) < n:
        out.extend(consultation(r, cid))
        cid += 1
    return _check(out[:n])


def corpus_hash(msgs):
    return hashlib.sha256(json.dumps(msgs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def verify():
    h = corpus_hash(generate(0, 3000))
    if h != CORPUS_SHA256:
        raise AssertionError("consult_m corpus changed: %s != %s" % (h, CORPUS_SHA256))
    return h


def _mark(m):
    t = m["text"]
    for a, b, c in sorted(m["spans"], reverse=True):
        t = t[:a] + "【" + t[a:b] + "】" + t[b:]
    return t


def main(argv):
    if "--verify" in argv:
        print("ok", verify())
        return
    msgs = generate(0, 3000)
    cats, kinds = {}, {}
    for m in msgs:
        for _, _, c in m["spans"]:
            cats[c] = cats.get(c, 0) + 1
        for _, _, k in m["keep"]:
            kinds[k] = kinds.get(k, 0) + 1
    print("messages", len(msgs), "consultations", msgs[-1]["consultation"] + 1)
    for c in CATEGORIES:
        print("  %-9s %5d" % (c, cats.get(c, 0)))
    print("  identifiers", sum(cats.values()))
    for k in KEEP_KINDS:
        print("  keep %-9s %5d" % (k, kinds.get(k, 0)))
    print("  keep total", sum(kinds.values()))
    share = sum(1 for m in msgs if m["spans"]) / len(msgs)
    print("share of messages with an identifier %.1f%%" % (100 * share))
    print("sha256", corpus_hash(msgs))
    r = random.Random(1)
    for m in [msgs[r.randrange(len(msgs))] for _ in range(12)]:
        print("-", m["role"], "|", _mark(m).replace("\n", " / "))


if __name__ == "__main__":
    main(sys.argv[1:])
