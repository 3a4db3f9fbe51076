"""Hospitals by the nicknames people use for them, in the words that show a hospital is meant.

Patients name the big hospitals of their region by nickname, not by the name on the gate: the
military general hospital of a region (西藏军总, 新疆军总, 军区总医院), a province's or a city's tumour
hospital (哈肿瘤, 中肿, 浙肿), a medical university's general or affiliated hospital (宁医总院, 西医附院),
a university's hospital (北大人民, 北大三院), a provincial hospital by its province (山东省立), a campus
after a short name (中山一院东院), and famous hospitals by their first two characters (长庚, 唐都, 仁济,
瑞金, 阜外, 协和, 湘雅). Such a form is a hospital where a hospital is meant: after a word of going or
being there (到, 转到, 在, 找) or at a clause's start, and before what is said of a hospital (…也行,
…的王医生, …肾内科, …和省医哪个好, 到…还得倒车, …是不是就是…).
"""

from __future__ import annotations

import re

from medrealmm.deid.spans import Span
from medrealmm.deid.text_lexicons import HOSPITAL_ABBREVIATIONS

DETECTOR = "stat"

# famous hospitals' short names beyond the lexicon's list (general knowledge, not a corpus's list)
_MORE_FAMOUS = ("长庚", "唐都", "西京", "北儿", "首儿", "中肿", "北肿", "浙肿", "哈肿瘤", "北大人民", "北大医院", "北大三院",
                "北医三院", "北大六院", "东直门", "广安门", "西苑", "安贞", "宣武", "天坛", "友谊", "中日", "儿研所", "邵逸夫",
                "浙一", "浙二", "浙四", "苏大附一", "附一", "附二", "湘雅", "湘雅二", "湘雅三", "华西", "协和", "同济", "瑞金",
                "仁济", "阜外", "齐鲁", "千佛山", "盛京", "积水潭", "长海", "西京", "301")
# short names that are also ordinary words or places (中山 a city, 朝阳 a district, 南方 the south): left to
# the token-based pass of text_statistical, which needs more evidence
_AMBIGUOUS = frozenset("中山 朝阳 华山 南方 新华 长征 鼓楼 龙华 曙光 宁夏 中南 西南 珠江 省立 友谊 中日 天坛 同济".split())
_NAMES = sorted((set(HOSPITAL_ABBREVIATIONS) | set(_MORE_FAMOUS)) - _AMBIGUOUS, key=len, reverse=True)

_CJK = r"[\u4e00-\u9fff]"
_PROVINCE_ONE = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼哈中北"
_FORMS = (r"(?:" + _CJK + r"{1,4}?军总(?:医院)?|(?:" + _CJK + r"{2,4}?)??军区总医院"
          r"|[" + _PROVINCE_ONE + r"]肿(?:瘤)?(?![瘤块物胀大痛])"
          r"|" + _CJK + r"医总院|" + _CJK + r"{1,2}?医附院"
          r"|北大(?:人民|第一|第三|第六|口腔|肿瘤)(?:医院)?"
          r"|(?:山东|广东|福建|安徽|江西|湖南|湖北|河南|河北|山西|陕西|甘肃|四川|云南|贵州|浙江|江苏|辽宁|吉林|青海)省立(?:医院)?)")
_CAMPUS = r"(?:[东西南北]院(?:区)?|总院|分院)?"
_BEFORE = r"(?:^|(?<=[\s，,。；;！!？?、：:（(]|在|去|到|找|是|和|或|跟|比|住))"
_AFTER = (r"(?=\s?(?:也行|也可以|的" + _CJK + r"{1,4}?(?:大夫|医生|主任|教授|老师)|的号|" + _CJK + r"{0,5}科|还得倒车|那边|"
          r"和" + _CJK + r"{2,12}?哪个好|哪个好|是不是就是|看过|住了|住院|做的|做个|排队|能做|就诊|说是|挂号|门诊|复查|"
          r"[，,。！!？?]))")
_FAMOUS_RX = re.compile(_BEFORE + r"(?P<h>(?:" + "|".join(map(re.escape, _NAMES)) + r")" + _CAMPUS + r")" + _AFTER)
_FORMS_RX = re.compile(_BEFORE + r"(?P<h>" + _FORMS + _CAMPUS + r")" + _AFTER)
_FAMOUS_GATE = re.compile("|".join(map(re.escape, _NAMES)))
_FORMS_GATE = re.compile(r"军总|军区总|肿|医总院|医附院|北大|省立")
_SHORT_CAMPUS = re.compile(_CJK + r"{2,4}?[一二三四五六七八九]院[东西南北]院(?:区)?")
_LEAD_STOP = frozenset("在去到找是和或跟比住我你他她的了从转与及院以可")
_CAMPUS_GATE = re.compile(r"[一二三四五六七八九]院[东西南北]院")
_GATE = re.compile(r"军|肿|医总院|医附院|北大|省立|[东西南北]院|" + "|".join(map(re.escape, _NAMES)))


def hospitals(t: str) -> list[Span]:
    """HOSPITAL spans of this module's nicknames in the normalised text ``t``."""
    if _GATE.search(t) is None:
        return []
    out = []
    found = [m.span("h") for m in _FAMOUS_RX.finditer(t)] if _FAMOUS_GATE.search(t) else []
    found += [m.span("h") for m in _FORMS_RX.finditer(t)] if _FORMS_GATE.search(t) else []
    found += [m.span() for m in _SHORT_CAMPUS.finditer(t)] if _CAMPUS_GATE.search(t) else []
    for s, e in found:
        s = max((i + 1 for i in range(s, e - 2) if t[i] in _LEAD_STOP), default=s)   # 我去 + 西藏军总
        out.append(Span(s, e, "HOSPITAL", DETECTOR))
    return out
