"""Places below the township that the gazetteer cannot list: the tail of an address and rural units.

An address goes on after its township, street or village with units no gazetteer holds, named by the
generic words of China's countryside (the way people write them on a parcel, not a corpus's list):
natural villages and hamlets — 屯, 寨, 庄, 堡, 坝, 沟, 湾, 岭, 坪, 洼, 岗, 滩, 塘, 垸, 圩, 峪, 塬, 冲, 垌,
岙, 畈, 埔, 寮, 厝 (Fujian), 埭, 浜, 泾 (Jiangnan), 坊 and 围 (Guangdong), 甸子, 营子, 窝棚, 窝堡 (the
north-east and Inner Mongolia), 嘎查 and 苏木 (Mongolian villages and townships), 定居点 (herders'
settlements); work units — 农场, 林场, 牧场, 工业区, 开发区, and the Xinjiang corps' 第八师一三三团4连; the
village's own subdivisions — 村民小组, 3组, 9社, 2队, 经济社; and a house number in the southern form 11号之1.
Such a unit counts as a place right after an administrative unit (…镇林埔7号之3, …乡新发甸子11队), with a
number after it (高峰坝5组), in the 〈surname〉家〈generic〉 form of a village named after a clan (何家营子,
冯家窝棚, 白家湾), or after a word of living there (一直在…, 老家…, 从…到). Also: a road crossing
(迎宾大道与和平街交叉口), a compound's building numbers (万科城2期12栋, 阳光花园3号楼1门403), and the place
in a self-introduction 我是〈place〉的〈name〉 when the gazetteer knows it (我是化州的阿海).
"""

from __future__ import annotations

import re

from medrealmm.deid.spans import Span
from medrealmm.deid.text_gazetteer import Gazetteer
from medrealmm.deid.text_lexicons import SURNAMES

DETECTOR = "stat"

_CJK = r"[\u4e00-\u9fff]"
_NUM = r"[\d０-９一二三四五六七八九十百零〇]{1,4}"
_DIGITS = r"[\d０-９]{1,5}"
# generic words of rural places (see the module doc), longest first inside the alternation
_RURAL = (r"(?:村民委员会|村委会|居委会|村民小组|定居点|甸子|营子|窝棚|窝堡|嘎查|苏木|农场|林场|牧场|渔场|工业区|开发区|工业园|"
          r"新村|村|屯|寨|庄|堡|坝|沟|湾|岭|坪|洼|岗|滩|塘|垸|圩|峪|塬|冲|垌|岙|畈|埔|寮|厝|埭|浜|泾|坊|围|窑|营)")
_SUBUNIT = r"(?:村民小组|经济社|小组|组|社|队|连|排|巷|号之[\d０-９]{1,3}|号)"
_HOUSE = r"(?:" + _NUM + r"\s?" + _SUBUNIT + r")"
_ADMIN_BEFORE = r"(?<=[\u4e00-\u9fff]{2}[镇乡村区县市旗])|(?<=街道|苏木|嘎查|社区)|(?<=村委会)"
# 1) the tail right after an administrative unit: (spaces) a named unit and/or a house number
_TAIL = re.compile(r"(?:" + _ADMIN_BEFORE + r")(?P<t>\s?(?:" + _CJK + r"{1,5}?" + _RURAL + r"(?:\s?" + _HOUSE + r"){0,2}"
                   r"|" + _CJK + r"{2,4}?" + _DIGITS + r"号(?:之[\d０-９]{1,3})?"
                   r"|" + _HOUSE + r"))(?![\u4e00-\u9fff]{0,1}(?:医院|卫生院|卫生室|诊所|中心|人民|政府|派出所|小学|中学|学校))")
# 2) a rural unit with its number, or named after a clan (何家营子, 冯家窝棚), anywhere
_NUMBERED = re.compile(r"(?P<t>" + _CJK + r"{1,5}?" + _RURAL + r"\s?" + _HOUSE + r")")
_CLAN = re.compile(r"(?P<s>[\u4e00-\u9fff])家(?P<g>村|屯|寨|庄|堡|坝|沟|湾|岭|坪|洼|岗|滩|塘|垸|圩|峪|冲|岙|埔|厝|埭|浜|坊|围|窑|"
                   r"营子|甸子|窝棚|窝堡)(?![\u4e00-\u9fff]{0,1}(?:医院|卫生院|卫生室|诊所|人|里|的人))")
# 3) the Xinjiang Production and Construction Corps: division, regiment, company
_CORPS = re.compile(r"第" + _NUM + r"师(?:" + _NUM + r"团(?:\s?" + _NUM + r"连)?)?")
# 4) a road crossing
_CROSSING = re.compile(_CJK + r"{2,8}?(?:大道|大街|路|街|巷)与" + _CJK + r"{2,8}?(?:大道|大街|路|街|巷)(?:交叉口|交汇处|路口|十字路口)")
# 5) a compound with building numbers (万科城2期12栋, 阳光花园3号楼1门403, 金科花园23幢4-1)
_BUILDING = re.compile(r"(?P<c>" + _CJK + r"{2,8})\s?(?:[\d０-９]{1,2}期\s?)?[\d０-９A-Za-z]{1,3}\s?(?:号楼|栋|幢|座)"
                       r"(?:\s?[\d０-９]{1,2}\s?(?:单元|门|号|楼|层))?(?:\s?[\d０-９]{1,2}(?:楼|层))?(?:\s?[\d０-９\-]{1,6}(?:室|号|房)?)?")
_NOT_COMPOUND_CHARS = "在住到寄址我你他她的了是从家里和与收离送去至，,：:；;、"
_STOP = frozenset("的了是在我你他她它这那有跟与到去从看说想要会能就也都还很吃喝打几多少个次天年月日时")
_CLINICAL = frozenset("病药医院疼痛烧咳诊")
_NOT_CLAN = frozenset("国家 全家 管家 商家 东家 农家 万家 千家 百家 一家 卖家 买家 店家 船家 酒家 亲家 大家 老家 回家".split())
_NOT_BUILDING_END = ("院", "部", "楼", "中心", "门诊", "病房", "学校", "医院", "大厦", "酒店", "宾馆")
# 6) a village or its committee standing alone at a clause's start (大槐树村委会的，…; 李家寨村的，离县城远)
_VILLAGE = re.compile(r"(?:^|(?<=[\s，,。；;：:、！!？?]))(?P<t>(?P<n>" + _CJK + r"{2,6}?)(?:村民委员会|村委会|居委会|嘎查|村)"
                      r"(?:" + _NUM + r"组)?)(?=[的滴，,\s]|$)")
_NOT_VILLAGE_END = ("农村", "乡村", "山村", "渔村", "城中村", "本村", "全村", "邻村", "外村", "我村", "该村")
# 7) where one is from, before one's name
_INTRO = re.compile(r"我是(?P<p>" + _CJK + r"{2,4}?)[的滴]")

_TAIL_GATE = re.compile(r"[镇乡村区县市旗道木查会]\s?[\u4e00-\u9fff\d０-９]")
_HOUSE_RX = re.compile(_HOUSE)
_GATE = re.compile(r"[镇乡村区县市旗道木查会]\s?[\u4e00-\u9fff\d０-９]|[组社队连号]|家|师|交叉|[栋幢座]|号楼|我是")


def _compound_start(t: str, s: int, e: int) -> int:
    """Where a compound's name starts inside ``t[s:e]``: after the last word of living or sending."""
    last = max((i for i in range(s, e) if t[i] in _NOT_COMPOUND_CHARS), default=s - 1)
    return last + 1


def places(t: str, gaz: Gazetteer) -> list[Span]:
    """ADDRESS spans of this module's forms in the normalised text ``t``."""
    if _GATE.search(t) is None:
        return []
    out: list[Span] = []
    for m in _TAIL.finditer(t) if _TAIL_GATE.search(t) else ():
        s, e = m.span("t")
        if e < len(t) and t[e] in "省市县区州盟旗镇乡":
            continue                                  # 西藏自治区 + 台湾省: the next division, the gazetteer's
        if not any(c in _STOP or c in _CLINICAL for c in t[s:e]) and not any(c in _STOP for c in t[max(0, s - 3):s]):
            out.append(Span(s, e, "ADDRESS", DETECTOR))
    for m in _NUMBERED.finditer(t) if _HOUSE_RX.search(t) else ():
        s, e = m.span("t")
        s = _compound_start(t, s, e)
        s = max((i + 1 for i in range(s, e) if t[i] in _STOP or t[i] in _CLINICAL), default=s)
        if e - s >= 4:
            out.append(Span(s, e, "ADDRESS", DETECTOR))
    if "家" in t:
        for m in _CLAN.finditer(t):
            if m.group("s") in SURNAMES and t[m.start():m.start() + 2] not in _NOT_CLAN:
                out.append(Span(m.start(), m.end(), "ADDRESS", DETECTOR))
    if "师" in t:
        out += [Span(*m.span(), "ADDRESS", DETECTOR) for m in _CORPS.finditer(t) if "团" in m.group()]
    if "交叉" in t or "路口" in t or "交汇" in t:
        for m in _CROSSING.finditer(t):
            cut = t.find("与", m.start())
            s = max((i + 1 for i in range(m.start(), cut) if t[i] in _NOT_COMPOUND_CHARS or t[i] in _STOP), default=m.start())
            out.append(Span(s, m.end(), "ADDRESS", DETECTOR))
    for m in _BUILDING.finditer(t) if "栋" in t or "幢" in t or "座" in t or "号楼" in t else ():
        s = _compound_start(t, m.start("c"), m.end("c"))
        s = max((i + 1 for i in range(s, m.end("c")) if t[i] in _STOP), default=s)
        if m.end("c") - s >= 2 and not t[s:m.end("c")].endswith(_NOT_BUILDING_END):
            out.append(Span(s, m.end(), "ADDRESS", DETECTOR))
    if "村" in t or "会" in t or "嘎查" in t:
        for m in _VILLAGE.finditer(t):
            v = m.group("t")
            if not v.endswith(_NOT_VILLAGE_END) and not any(c in _STOP or c in _CLINICAL for c in m.group("n")):
                out.append(Span(*m.span("t"), "ADDRESS", DETECTOR))
    if "我是" in t:
        for m in _INTRO.finditer(t):
            p = m.group("p")
            if p not in gaz.provinces and (gaz.level(p) in ("city", "district") or gaz.full_level(p) or any(
                    p + suffix in gaz.districts or p + suffix in gaz.cities for suffix in "区县市")):
                out.append(Span(*m.span("p"), "ADDRESS", DETECTOR))
    return out
