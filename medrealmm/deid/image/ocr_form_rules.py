"""Identifiers in OCR'd text lines of report and prescription forms: the form-aware rules.

Report forms print identifiers as label-value pairs; OCR often reads the label without any cue
the free-text rules would need, or puts the value in the next box. The labels below mask the value;
hospital titles, dates, phones and long numbers are found by pattern. These rules complement
:func:`medrealmm.deid.text_rules.find_identifiers` (the free-text rules, :func:`default_find_spans`)
and work on text only: where a span lies on the page is :mod:`.ocr_geometry`'s business.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from medrealmm.deid.spans import Span, merge_spans

SpanFinder = Callable[[str], Sequence[Span]]
"""Any ``str -> spans`` callable: the free-text rules, or a replacement injected by a caller."""

_NAME_LABELS = (
    "病人姓名", "患者姓名", "姓名", "送检医生", "送检医师", "申请医生", "申请医师", "开单医生", "开单医师", "开方医生",
    "主治医生", "主治医师", "经治医生", "经治医师", "检查医生", "检查医师", "报告医生", "报告医师", "审核医生",
    "审核医师", "诊断医生", "诊断医师", "检验医师", "检验医生", "操作医生", "检验者", "检验员", "检验人", "审核者",
    "审核人", "核对者", "核对人", "复核者", "复核人", "报告者", "报告人", "书写人员", "书写者", "记录者", "记录人",
    "操作者", "操作员", "采样者", "采样人", "采集者", "采集人", "收费员", "收款员", "收款人", "开票人", "就诊人",
    "受检者", "监护人", "联系人", "签名", "签字")
_NAME_WEAK = ("医师", "医生", "药师", "护士", "患者", "病人", "审核", "核对", "复核", "调配", "发药", "配药", "家属", "用户",
              "用户名", "昵称")
_MRN_LABELS = (
    "门诊号", "住院号", "病历号", "病案号", "ID号", "病人ID", "患者ID", "患者编号", "病人编号", "登记号", "就诊号",
    "就诊卡号", "诊疗卡号", "健康卡号", "床号", "标本号", "样本号", "样本编号", "标本编号", "条码号", "条形码", "检查号",
    "影像号", "超声号", "放射号", "病理号", "检验号", "申请号", "档案号")
_MRN_WEAK = ("卡号", "编号", "ID", "设备号")
_ID_LABELS = ("身份证号码", "身份证号", "身份证", "证件号码", "证件号", "医保卡号", "医保号", "医保编号", "社保卡号",
              "社保号", "护照号")
_ORDER_LABELS = ("发票号码", "发票号", "票据号码", "票据号", "流水号", "申请单号", "检验单号", "订单号", "交易号")
_ORDER_WEAK = ("单号", "No", "NO", "No.")
_PHONE_LABELS = ("联系电话", "电话号码", "手机号码", "手机号", "联系方式")
_PHONE_WEAK = ("电话", "手机")
_ADDRESS_LABELS = ("家庭住址", "现住址", "家庭地址", "工作单位")
_ADDRESS_WEAK = ("住址", "地址")
_HOSPITAL_LABELS = ("医疗机构编码", "医疗机构名称", "医疗机构", "机构编码", "医院名称", "就诊机构", "检测机构")
_HOSPITAL_WEAK = ("机构", "医院")
_URL_LABELS = ("微信号", "QQ号", "账号", "帐号")
_FIELD_LABELS = (   # not identifying: they only end the value of the label before them
    "性别", "年龄", "科室", "科别", "送检科室", "申请科室", "病区", "病室", "样本类型", "标本类型", "标本种类", "标本状态",
    "样本状态", "临床诊断", "诊断", "备注", "费别", "药房", "检查部位", "检查项目", "检验项目", "机型", "仪器", "结果",
    "参考范围", "参考值", "金额", "民族", "婚姻")

_LABELS: dict[str, tuple[str, bool]] = {}
for _cat, _strong, _weak in (("NAME", _NAME_LABELS, _NAME_WEAK), ("MRN", _MRN_LABELS, _MRN_WEAK),
                             ("ID", _ID_LABELS, ()), ("ORDER_ID", _ORDER_LABELS, _ORDER_WEAK),
                             ("PHONE", _PHONE_LABELS, _PHONE_WEAK), ("ADDRESS", _ADDRESS_LABELS, _ADDRESS_WEAK),
                             ("HOSPITAL", _HOSPITAL_LABELS, _HOSPITAL_WEAK), ("URL", _URL_LABELS, ())):
    for _l in _strong:
        _LABELS[_l] = (_cat, True)
    for _l in _weak:
        _LABELS[_l] = (_cat, False)
for _l in _FIELD_LABELS:
    _LABELS.setdefault(_l, ("", True))


def _label_pattern(label: str) -> str:
    return r"\s*".join(re.escape(c) for c in label)


_DATE_PREFIXES = ("接收", "检验", "打印", "报告", "采样", "采集", "采血", "送检", "检查", "审核", "申请", "开单", "开具", "就诊",
                  "入院", "出院", "手术", "收样", "核收", "签收", "登记", "收费", "挂号", "预约", "复诊", "发病", "出生",
                  "签发", "确认", "留样", "送达", "上机", "实验")
_DATE_LABEL = ("(?:" + "|".join(_label_pattern(x) for x in _DATE_PREFIXES) + r")?\s*(?:日\s*期|时\s*间)"
               r"|出\s*生(?:\s*年\s*月)?")
_LABEL_RE = re.compile(
    "(?P<label>" + _DATE_LABEL + "|" + "|".join(_label_pattern(lb) for lb in sorted(_LABELS, key=len, reverse=True)) + ")")
_SEP = " \t:：;；,，.。、/|·-_=()（）[]【】"
_HOSPITAL_RE = re.compile(r"[\u4e00-\u9fff（）()]{2,24}?(?:医院|卫生院|保健院|卫生服务中心|卫生服务站|医疗中心|医学中心|"
                          r"体检中心|检验中心|检测中心|门诊部|诊所|医科大学|医学院)")
_PROSE_CHARS = frozenset("不请到去在的替往或了是能需应该您我你他她")
_DATE_RE = re.compile(r"(?<!\d)(?:19|20)\d{2}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}(?:\s*日)?"
                      r"(?:\s*\d{1,2}\s*[:：]\s*\d{2}(?:\s*[:：]\s*\d{2})?)?")
_LONG_NUMBER_RE = re.compile(r"(?<![\d.])[A-Za-z]{0,4}\d{6,}[A-Za-z0-9\-]*")
_PHONE_RE = re.compile(r"(?<!\d)(?:1[3-9]\d{9}|0\d{2,3}-?\d{7,8})(?!\d)")
_LINE_START = re.compile(r"^[\s\d.、()（）【】\[\]※*#]*")


@dataclass(frozen=True)
class LabelHit:
    """A label found in a line: which category its value is, and where that value is."""

    category: str
    label_start: int
    value_start: int
    value_end: int          # == value_start: the label has no value on its own line


def _label_hits(text: str) -> list[tuple[int, int, str]]:
    """Every label (identifying or not) in a line: (start, end, category; "" for a non-identifying
    field label). Short, ambiguous labels (医生, 审核, 电话, No …) count only at the start of the
    line, before a colon or before a space; "No"/"ID" never inside a Latin word."""
    hits: list[tuple[int, int, str]] = []
    for m in _LABEL_RE.finditer(text):
        raw = re.sub(r"\s+", "", m.group("label"))
        cat, strong = _LABELS.get(raw, ("DATE", True))     # not in the table: a date label
        if not strong:
            at_start = _LINE_START.match(text).end() == m.start()
            after = text[m.end():m.end() + 2]
            if not (at_start or after[:1] in (":", "：", " ", "\t") or after.strip() == ""):
                continue
            if raw.isascii():                 # "No"/"ID": not inside a word ("Normal", "IDH"), value alphanumeric
                before = text[m.start() - 1] if m.start() > 0 else " "
                nxt = text[m.end()] if m.end() < len(text) else " "
                rest = text[m.end():].lstrip(" \t:：.#")
                inside_word = any(c.isascii() and c.isalpha() for c in (before, nxt))
                if inside_word or (rest and not (rest[0].isascii() and rest[0].isalnum())):
                    continue
        hits.append((m.start(), m.end(), cat))
    return hits


def find_labels(text: str) -> list[LabelHit]:
    """Identifying labels in one OCR line and the extent of their values on that line.

    A value runs from the label to the next label (identifying or not: 性别, 年龄 end a name) or
    to the end of the line; date labels (…时间, …日期) count only before a digit.
    """
    hits = _label_hits(text)
    out: list[LabelHit] = []
    for i, (s, e, cat) in enumerate(hits):
        if not cat:
            continue
        nxt = hits[i + 1][0] if i + 1 < len(hits) else len(text)
        v0 = e
        while v0 < nxt and text[v0] in _SEP:
            v0 += 1
        v1 = nxt
        while v1 > v0 and text[v1 - 1] in " \t":
            v1 -= 1
        if cat == "DATE" and v1 > v0 and not text[v0].isdigit():
            continue            # "检查时间较长…" is prose, not a field
        out.append(LabelHit(cat, s, v0, v1))
    return out


def form_spans(text: str) -> list[Span]:
    """Spans the form-aware rules find in one OCR line (label values, hospital names, dates, long
    numbers, phones) — complementary to :func:`medrealmm.deid.text_rules.find_identifiers`."""
    spans: list[Span] = []
    for h in find_labels(text):
        if h.value_end > h.value_start:
            spans.append(Span(h.value_start, h.value_end, h.category, "form"))
    for m in _HOSPITAL_RE.finditer(text):
        if not _PROSE_CHARS.intersection(m.group(0)):      # "不能替代医院", "请到医院" name no hospital
            spans.append(Span(m.start(), m.end(), "HOSPITAL", "form"))
    for m in _DATE_RE.finditer(text):
        spans.append(Span(m.start(), m.end(), "DATE", "form"))
    for m in _PHONE_RE.finditer(text):
        spans.append(Span(m.start(), m.end(), "PHONE", "form"))
    for m in _LONG_NUMBER_RE.finditer(text):
        spans.append(Span(m.start(), m.end(), "MRN", "form"))
    return merge_spans(spans)


def label_only(text: str) -> str | None:
    """The category of a line that is an identifying label with nothing after it ("姓名：")."""
    hits = find_labels(text)
    if hits and hits[-1].value_end == hits[-1].value_start and hits[-1].value_start >= len(text.rstrip(_SEP)):
        return hits[-1].category
    return None


def starts_with_label(text: str) -> bool:
    """Whether a line begins with any field label, identifying or not (姓名, 性别, 科室 …)."""
    hits = _label_hits(text)
    return bool(hits) and hits[0][0] == _LINE_START.match(text).end()


def default_find_spans() -> SpanFinder:
    """The free-text rules (:func:`medrealmm.deid.text_rules.find_identifiers`)."""
    try:
        from medrealmm.deid.text_rules import find_identifiers
    except ImportError as e:     # pragma: no cover - only before the text rules exist
        raise RuntimeError("medrealmm.deid.text_rules is not available: pass find_spans= "
                           "or build the detector with text_rules: false") from e
    return find_identifiers
