"""One consultation, one set of identifiers: what is found once is masked wherever it recurs.

Detectors read one message at a time, but people write a consultation: a relative introduced with a
cue (``我哥李德华``) is later ``德华``; an order number given after ``订单号`` comes back bare as the whole
reply; a village named in a delivery slip is named again in passing; a hospital named in full is named
again. Each of those later mentions is as identifying as the first, and it is the one without a cue.
This pass takes every identifier the detectors found anywhere in a consultation, adds the forms a
reader would recognise as the same identifier (a full name's given name; 老/小 + its surname; its
surname before a title such as 医生; an address's own units and their short names: 金凤区 → 金凤), and
masks their occurrences in every message of that consultation — before and after the first.

It never reaches beyond one consultation (a name in one patient's chat says nothing about another's),
never overrides the policy (a city is spread only when ``deid.text.policy.city`` says a city alone
identifies, a surname before a title only with ``staff_names``; a province or municipality never), and
never logs what it spreads: counts only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from medrealmm.deid.spans import Span, merge_spans
from medrealmm.deid.text_lexicons import AMBIGUOUS_SURNAMES, COMMON_WORDS, COMPOUND_SURNAMES, SURNAMES
from medrealmm.deid.text_policy import TextPolicy
from medrealmm.deid.text_rules import normalize

__all__ = ["DETECTOR", "consultation_terms", "propagate", "spread_by_consultation"]

log = logging.getLogger(__name__)

DETECTOR = "consult"

SPREAD = ("NAME", "ADDRESS", "HOSPITAL", "PHONE", "ID", "EMAIL", "URL", "MRN", "ORDER_ID")
"""Categories spread through a consultation. Dates are not: a bare date shape recurs as a lab value."""

MIN_LENGTH = {"NAME": 2, "ADDRESS": 3, "HOSPITAL": 2}
"""Shortest term spread per category; the number-like categories need 5 characters (a 4-digit run
recurs by chance as a lab value or a year)."""
MIN_NUMBER_LENGTH = 5

WORD_MAX_FREQUENCY = 1000
"""A derived two-character form (a full name's given name, a hospital's proper part) is spread unless
it is an everyday word this common in the segmenter's dictionary (李平安 → 平安, 王建国 → 建国, 和平医院 →
和平 stay: they are written far more often as words)."""

_UNIT = re.compile(r"[^\s,，;；、:：]+?(?:自治区|特别行政区|自治州|地区|省|市|盟|街道|社区|小区|花园|公寓|大厦|大道|胡同|"
                   r"区|县|旗|镇|乡|村|屯|路|街|巷|弄|苑)")
"""An address read unit by unit, left to right (浙江省 杭州市 西湖区 三墩镇 王庄村)."""
_ABOVE_CITY = ("自治区", "特别行政区", "自治州", "地区", "省", "市", "盟")
"""Units the pass does not spread on their own: a province is not identifying, and whether a city is
is the policy's call (``deid.text.policy.city``), made by the detectors."""

_ADMIN = ("区", "县", "旗", "镇", "乡")
_SHORTENED = ("市", "区", "县", "旗", "镇")
"""Units people name without their suffix (东莞市 → 东莞, 金凤区 → 金凤, 疏附县 → 疏附, 三墩镇 → 三墩)."""
_PROVINCE_LEVEL = ("北京", "天津", "上海", "重庆", "香港", "澳门")
"""Municipalities and special regions: a province alone, which the policy keeps."""
_TITLE = r"(?:医生|大夫|医师|主任|教授|院长|护士|老师|药师)"
"""Titles after which a surname alone names a person (崔医生): spread with ``staff_names``."""
_HOSPITAL_SUFFIX = re.compile(r"(?:第?[一二三四五六七八九十\d]+)?(?:中心|人民|中西医结合|中)?"
                              r"(?:医院|卫生院|卫生室|妇幼保健院|保健院|诊所)$")
"""What ends a hospital's name after its proper part (the part before it is spread)."""
_GENERIC_HEAD = re.compile(r"科|儿童|妇女|妇产|妇幼|肿瘤|口腔|骨伤|传染|精神|康复|中医|西医|人民|中心|胸|眼|耳鼻喉|皮肤|结核|"
                           r"职业|老年|整形|美容|疗养|保健|急救|社区|附属|大学|学院|总|第|军|武警|部队")
"""A part that names a kind of hospital, not one hospital (眼科医院, 儿童医院, 附属医院): never spread."""
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_WORD_CHAR = re.compile(r"[A-Za-z0-9]")


def _given_name(name: str) -> str | None:
    """The two-character given name of a full Han name (李德华 → 德华, 欧阳子轩 → 子轩), when it is
    not an everyday word (see :data:`WORD_MAX_FREQUENCY`)."""
    if not _CJK.fullmatch(name):
        return None
    if len(name) == 4 and name[:2] in COMPOUND_SURNAMES:
        given = name[2:]
    elif len(name) == 3 and name[0] in SURNAMES:
        given = name[1:]
    else:
        return None
    return given if _rare(given) else None


def _hospital_head(name: str) -> str | None:
    """The proper part of a hospital's name, the form people use for it (湘雅医院 → 湘雅, 瑞金医院 → 瑞金,
    梅冲庄卫生室 → 梅冲庄), unless it is an administrative unit (the detectors and the policy decide
    on 福州市 and 疏附县) or too short to be a name."""
    m = _HOSPITAL_SUFFIX.search(name)
    if m is None:
        return None
    from medrealmm.deid.text_statistical import word_frequency

    head = name[:m.start()]
    if (len(head) < 2 or not _CJK.fullmatch(head) or head.endswith(_ABOVE_CITY + _ADMIN) or _GENERIC_HEAD.search(head)
            or head[0] in "省市县区镇乡" or (len(head) == 2 and word_frequency(head) >= WORD_MAX_FREQUENCY)):
        return None
    return head


def _rare(word: str) -> bool:
    """Not an everyday word (see :data:`WORD_MAX_FREQUENCY`): safe to spread as a derived form."""
    from medrealmm.deid.text_statistical import word_frequency

    return word not in COMMON_WORDS and word_frequency(word) < WORD_MAX_FREQUENCY


def _surname(name: str) -> str | None:
    if not _CJK.fullmatch(name) or not 2 <= len(name) <= 4:
        return None
    if name[:2] in COMPOUND_SURNAMES and len(name) >= 3:
        return name[:2]
    return name[0] if name[0] in SURNAMES else None


def _ends_word(text: str, end: int) -> bool:
    """The surname before a title closes an everyday word (谢谢医生, 感谢医生, 多谢大夫): not a name."""
    return end >= 2 and not _rare(text[end - 2:end])


def _address_units(term: str, policy: TextPolicy) -> list[str]:
    """An address's units below the province (a city only when the policy masks a city alone), each
    also by its short name when that is not an everyday word (安定区 → 安定 is not spread)."""
    forms = []
    for m in _UNIT.finditer(term):
        unit = m.group()
        is_city = unit.endswith("市") and not unit.endswith(("超市", "城市", "门市"))
        if unit.endswith(_ABOVE_CITY) and not (is_city and policy.city):
            continue
        short = unit[:-2] if unit.endswith("新区") else unit[:-1]
        if short in _PROVINCE_LEVEL or short.endswith(_PROVINCE_LEVEL):
            continue
        if len(unit) >= MIN_LENGTH["ADDRESS"] or is_city:
            forms.append(unit)
        if (unit.endswith(_SHORTENED) and len(short) >= 2 and _CJK.fullmatch(short) and not short.endswith("自治")
                and _rare(short)):
            forms.append(short)
    return forms


def _forms(term: str, category: str, policy: TextPolicy) -> list[str]:
    """The term and the other forms of the same identifier a reader would recognise."""
    forms = [term]
    if category == "NAME":
        forms += [p for p in term.split("·") if len(p) >= 2] if "·" in term else []
        given = _given_name(term)
        if given:
            forms.append(given)
        surname = _surname(term)
        if surname and len(surname) == 1:
            forms += [f for f in ("老" + surname, "小" + surname) if _rare(f)]
    elif category == "ADDRESS":
        forms += _address_units(term, policy)
    elif category == "HOSPITAL":
        head = _hospital_head(term)
        if head:
            forms.append(head)
    return forms


def consultation_terms(texts: Sequence[str], spans: Sequence[Sequence[Span]],
                       policy: TextPolicy | None = None) -> dict[str, str]:
    """Every form to spread, with its category (the first category a form was found with wins; a
    longer form is matched before a shorter one). Texts are compared normalised (full-width → ASCII)."""
    return _terms([normalize(t) for t in texts], spans, policy or TextPolicy())[0]


def _terms(normalized: Sequence[str], spans: Sequence[Sequence[Span]],
           policy: TextPolicy) -> tuple[dict[str, str], list[str]]:
    """:func:`consultation_terms` over texts already normalised, and the surnames of the names found
    (spread before a title when the policy masks staff names)."""
    terms: dict[str, str] = {}
    surnames: list[str] = []
    for t, found in zip(normalized, spans, strict=True):
        for s in found:
            if s.category not in SPREAD:
                continue
            term = t[s.start:s.end].strip()
            if len(term) < MIN_LENGTH.get(s.category, MIN_NUMBER_LENGTH) or term.isspace():
                continue
            for form in _forms(term, s.category, policy):
                terms.setdefault(form, s.category)
            surname = _surname(term) if s.category == "NAME" and policy.staff_names else None
            if surname and surname not in surnames and surname not in AMBIGUOUS_SURNAMES:   # 向医生: "to the doctor"
                surnames.append(surname)
    return terms, surnames


def _pattern(terms: dict[str, str]) -> re.Pattern[str]:
    """One alternation, longest first; a form that starts or ends with a letter or digit must not
    be part of a longer run of them (``12345`` inside ``9123456``)."""
    parts = []
    for term in sorted(terms, key=lambda x: (-len(x), x)):
        left = r"(?<![A-Za-z0-9])" if _WORD_CHAR.match(term[0]) else ""
        right = r"(?![A-Za-z0-9])" if _WORD_CHAR.match(term[-1]) else ""
        parts.append(left + re.escape(term) + right)
    return re.compile("|".join(parts))


def propagate(texts: Sequence[str], spans: Sequence[Sequence[Span]],
              policy: TextPolicy | None = None) -> list[list[Span]]:
    """The spans of one consultation's texts, plus a span (detector ``consult``) wherever a form of
    an identifier found in any of them recurs and is not already covered (one that overlaps a span
    found there merges with it: a detector that caught part of a name is completed)."""
    normalized = [normalize(t) for t in texts]
    terms, surnames = _terms(normalized, spans, policy or TextPolicy())
    if not terms:
        return [list(s) for s in spans]
    pattern = _pattern(terms)
    titled = re.compile(f"(?:{'|'.join(map(re.escape, surnames))})(?={_TITLE})") if surnames else None
    out: list[list[Span]] = []
    added = 0
    for t, found in zip(normalized, spans, strict=True):
        hits = [(m.start(), m.end(), terms[m.group()]) for m in pattern.finditer(t)]
        hits += [(m.start(), m.end(), "NAME") for m in titled.finditer(t) if not _ends_word(t, m.end())] if titled else []
        extra = [Span(a, b, category, DETECTOR) for a, b, category in hits
                 if not any(s.start <= a and b <= s.end for s in found)]   # a partial span grows
        added += len(extra)
        out.append(merge_spans([*found, *extra]) if extra else list(found))
    if added:
        log.debug("consultation pass: %d form(s), %d span(s) added over %d text(s)", len(terms), added, len(texts))
    return out


def spread_by_consultation(texts: Sequence[str], spans: Sequence[Sequence[Span]],
                           consultations: Sequence[object], policy: TextPolicy | None = None) -> list[list[Span]]:
    """:func:`propagate` within each consultation of a batch (``consultations[i]``: the one text i
    belongs to; a batch may interleave them), the spans back in the batch's order."""
    groups: dict[object, list[int]] = {}
    for i, c in enumerate(consultations):
        groups.setdefault(c, []).append(i)
    out = [list(s) for s in spans]
    for members in groups.values():
        for i, spread in zip(members, propagate([texts[i] for i in members], [spans[i] for i in members], policy),
                             strict=True):
            out[i] = spread
    return out
