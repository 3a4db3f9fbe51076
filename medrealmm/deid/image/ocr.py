"""Identifiers printed in images (report and prescription photos): rapidocr lines, text rules, boxes.

Why we drive rapidocr's three models ourselves instead of calling ``RapidOCR()(img)``:

- speed: the stock recogniser pads every batch to at least 320 px, and a report has dozens of
  short cells ("0.49", "171"); padding only to the widest crop in the batch cut recognition time
  by ~40 % with the same text on the real reports;
- geometry: we need, per character, *where* it is on the line so that only the identifier is
  masked (a name, not the lab value next to it). The CTC time step at which each character is
  emitted gives its position; we keep it instead of throwing it away;
- orientation: a page photographed sideways or upside down is decided once per page (dominant
  line direction, then the direction classifier's vote over the longest lines), so short cells
  ("20", "男") are read the right way up too, which per-line classification gets wrong.

Recognised text is an identifier candidate: it never goes to logs; :class:`OcrLine` hides it from
``repr``. Boxes (no text) are what the detector returns; each carries its quadrilateral — the line's,
or for an identifier inside a line (the value after 姓名:) the part of it between the identifier's
first and last character, interpolated along the line's own direction — and the mask fills that
quadrilateral, so a tilted photo loses only the identifier, not the rows around it.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from medrealmm.deid.image.base import Box, register
from medrealmm.deid.spans import Span, merge_spans

log = logging.getLogger(__name__)

REC_HEIGHT = 48
"""The recogniser's fixed input height (PP-OCR rec models)."""

DEFAULT_PARAMS: dict[str, Any] = {"Det.limit_type": "max", "Det.limit_side_len": 960, "Global.log_level": "warning"}
"""rapidocr settings for a 1280x960 report photo (DESIGN.md: ~2.5 s with the stock pipeline)."""

SpanFinder = Callable[[str], Sequence[Span]]

# ------------------------------------------------------------------------------------------- engine

_ENGINES: dict[tuple[tuple[str, str], ...], Any] = {}
_ENGINES_LOCK = threading.Lock()


def rapidocr_engine(params: Mapping[str, Any] | None = None, *, threads: int | None = None,
                    spin: bool | None = None) -> Any:
    """One shared ``RapidOCR`` per distinct settings (loading the three ONNX models takes ~1 s).

    ``threads``/``spin`` rebuild its onnxruntime sessions with that many intra-op threads and
    thread-pool spinning on or off (None: rapidocr's own sessions, onnxruntime defaults). Spinning
    threads busy-wait between operators: on a shared or oversubscribed machine that halved
    throughput here (measured: 1.75 s -> 1.07 s per report photo with spinning off).
    """
    merged = {**DEFAULT_PARAMS, **(params or {})}
    key = (tuple(sorted((k, repr(v)) for k, v in merged.items())), threads, spin)
    with _ENGINES_LOCK:
        eng = _ENGINES.get(key)
        if eng is None:
            from rapidocr import RapidOCR

            eng = RapidOCR(params=dict(merged))
            if threads is not None or spin is not None:
                _rebuild_sessions(eng, threads, spin)
            _ENGINES[key] = eng
    return eng


def _rebuild_sessions(engine: Any, threads: int | None, spin: bool | None) -> None:
    import onnxruntime as ort

    for part in _parts(engine):
        inner = part.session                      # rapidocr's OrtInferSession
        old = inner.session
        path = getattr(old, "_model_path", None)
        if not path:                              # pragma: no cover - guards an onnxruntime change
            log.warning("cannot rebuild the onnxruntime session (no model path); keeping rapidocr's")
            continue
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.log_severity_level = 4
        if threads:
            so.intra_op_num_threads = int(threads)
        so.inter_op_num_threads = 1
        if spin is not None:
            so.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        inner.session = ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])


def _parts(engine: Any) -> tuple[Any, Any, Any]:
    try:
        return engine._load_det_model(), engine._load_cls_model(), engine._load_rec_model()
    except AttributeError as e:     # pragma: no cover - guards a rapidocr API change
        raise RuntimeError("unsupported rapidocr version: expected RapidOCR._load_{det,cls,rec}_model "
                           "(written against rapidocr 3.10)") from e


# ------------------------------------------------------------------------------------------- lines

@dataclass
class OcrLine:
    """One recognised text line. ``quad`` is in reading order (start-top, end-top, end-bottom,
    start-bottom) in image pixels; ``pos`` holds each character's centre as a fraction of the line
    length (from the CTC time step that emitted it). ``text`` may be an identifier: not in repr."""

    quad: np.ndarray
    text: str = field(repr=False)
    score: float
    pos: np.ndarray = field(repr=False)
    crop_width: int = field(default=0, repr=False)

    @property
    def height(self) -> float:
        q = self.quad
        return float(max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]), 1.0))

    @property
    def length(self) -> float:
        q = self.quad
        return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3]), 1.0))

    def bbox(self) -> tuple[int, int, int, int]:
        x0, y0 = np.floor(self.quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(self.quad.max(axis=0)).astype(int)
        return int(x0), int(y0), int(x1), int(y1)

    def span_fraction(self, start: int, end: int) -> tuple[float, float]:
        """Where characters [start, end) lie along the line, as fractions of its length.

        CTC emits a character near its glyph's centre (measured on the real reports: within ~4 px of
        the ink centre in a 48 px crop), so a boundary is the midpoint to the neighbouring character,
        or, across a gap, ``0.7`` estimated glyph widths from the centre — whichever is nearer."""
        n = len(self.text)
        start, end = max(0, start), min(n, end)
        unit = REC_HEIGHT / float(max(self.crop_width, 1))         # the crop height, as a fraction
        f = self.pos
        if len(f) != n or n == 0 or not np.all(np.isfinite(f)):
            f = _estimated_positions(self.text)
            unit = 1.0 / max(sum(_char_width(c) for c in self.text), 1e-9)
        lo = f[start] - 0.7 * _char_width(self.text[start]) * unit
        if start > 0:
            lo = max(lo, (f[start - 1] + f[start]) / 2)
        hi = f[end - 1] + 0.7 * _char_width(self.text[end - 1]) * unit
        if end < n:
            hi = min(hi, (f[end - 1] + f[end]) / 2)
        return float(lo), float(hi)

    def sub_quad(self, t0: float, t1: float, pad_along: float, pad_across: float) -> np.ndarray:
        """The part of the line between fractions t0 and t1, grown by pad_along / pad_across pixels."""
        q = self.quad.astype(np.float64)
        top0, top1 = q[0] + t0 * (q[1] - q[0]), q[0] + t1 * (q[1] - q[0])
        bot0, bot1 = q[3] + t0 * (q[2] - q[3]), q[3] + t1 * (q[2] - q[3])
        u = _unit(q[1] - q[0])
        n = _unit(q[3] - q[0])
        return np.array([top0 - pad_along * u - pad_across * n, top1 + pad_along * u - pad_across * n,
                         bot1 + pad_along * u + pad_across * n, bot0 - pad_along * u + pad_across * n])


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-9 else np.array([1.0, 0.0])


def _wide(c: str) -> bool:
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF) or (0xF900 <= o <= 0xFAFF) or (0xFF00 <= o <= 0xFF60) or (0x3000 <= o <= 0x303F)


def _char_width(c: str) -> float:
    """Rough glyph width in units of the crop height (measured on the reports: a CJK glyph is
    ~0.65 of the 48 px crop, a digit ~0.33): CJK 0.75, Latin letters and digits 0.45."""
    if _wide(c):
        return 0.75
    if c.isspace():
        return 0.3
    return 0.25 if c in ".,:;'|!il1" else 0.45


def _estimated_positions(text: str) -> np.ndarray:
    """Character centres from typical widths (used when the recogniser gave no positions)."""
    w = np.array([_char_width(c) for c in text], dtype=np.float64)
    edges = np.concatenate([[0.0], np.cumsum(w)])
    return (edges[:-1] + edges[1:]) / 2 / max(edges[-1], 1e-9)


def quad_to_box(quad: np.ndarray, category: str, detector: str, score: float = 1.0) -> Box | None:
    """The box to mask for a (sub-)line quad: its bounding rectangle *and* the quad itself, which is
    what gets filled — on a tilted page the rectangle would cover the neighbouring rows."""
    return Box.from_quad(quad, category, detector, score)


# ------------------------------------------------------------------------------------------- form rules
# Report forms print identifiers as label-value pairs; OCR often reads the label without any cue
# the free-text rules would need, or puts the value in the next box. The labels below mask the value.

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


def _default_find_spans() -> SpanFinder:
    try:
        from medrealmm.deid.text_rules import find_identifiers
    except ImportError as e:     # pragma: no cover - only before the text rules exist
        raise RuntimeError("medrealmm.deid.text_rules is not available: pass find_spans= "
                           "or build the detector with text_rules: false") from e
    return find_identifiers


# ------------------------------------------------------------------------------------------- detector

class OcrDetector:
    """Identifiers in printed text: rapidocr detection → page orientation → recognition (with
    character positions) → text rules + form rules per row → one box per identifier span.

    Config keys (all optional): ``det_limit_side_len`` (1280: the detection resolution; 960 missed
    faint lines that a full-resolution reader still reads), ``det_limit_type``, ``det_box_thresh``,
    ``det_unclip_ratio``, ``rec_batch``, ``rec_min_width``, ``threads`` (intra-op per session),
    ``workers`` (pages / recognition batches in parallel; default min(4, cpus) with cpus/workers
    threads each), ``spin`` (onnxruntime thread spinning, off), ``text_rules`` (use
    ``medrealmm.deid.text_rules.find_identifiers``), ``form_rules`` (labels, hospital titles, dates,
    long numbers), ``pad_along`` / ``pad_across`` (box growth in line heights), ``neighbour_gap``
    (how far a bare label's value box may be, in line heights), ``merge_gap`` (row joining),
    ``cls_lines``, ``tilt_redetect`` / ``tilt_min_degrees`` (a page tilted at least that far from
    the axes is detected again at a resolution raised by its bounding-box growth, up to its own
    size), ``params`` (extra rapidocr settings), ``name``. ``find_spans`` (Python only)
    replaces the free-text rules with any ``str -> list[Span]`` callable.
    """

    def __init__(self, *, det_limit_side_len: int = 1280, det_limit_type: str = "max",
                 det_box_thresh: float = 0.5, det_unclip_ratio: float = 1.6, rec_batch: int = 8,
                 rec_min_width: int = 64, threads: int | None = None, spin: bool = False,
                 workers: int | None = None, find_spans: SpanFinder | None = None, text_rules: bool = True,
                 form_rules: bool = True, pad_along: float = 0.12, pad_across: float = 0.0,
                 neighbour_gap: float = 8.0, merge_gap: float = 2.0, cls_lines: int = 24,
                 tilt_redetect: bool = True, tilt_min_degrees: float = 10.0,
                 params: Mapping[str, Any] | None = None, name: str = "ocr") -> None:
        self.name = name
        p: dict[str, Any] = {"Det.limit_side_len": int(det_limit_side_len), "Det.limit_type": str(det_limit_type),
                             "Det.box_thresh": float(det_box_thresh), "Det.unclip_ratio": float(det_unclip_ratio)}
        p.update(params or {})
        self.params = p
        self.rec_batch, self.rec_min_width = max(1, int(rec_batch)), max(8, int(rec_min_width))
        self.pad_along, self.pad_across = float(pad_along), float(pad_across)
        self.neighbour_gap, self.merge_gap, self.cls_lines = float(neighbour_gap), float(merge_gap), int(cls_lines)
        self.form_rules = bool(form_rules)
        self.tilt_redetect, self.tilt_min_degrees = bool(tilt_redetect), float(tilt_min_degrees)
        if find_spans is None and text_rules:
            find_spans = _default_find_spans()
        self.find_spans = find_spans
        # Parallel pages and recognition batches on single-threaded sessions used two cores better
        # than one page at a time on two intra-op threads (0.51 vs 0.61 s per report photo, idle 2 cores).
        cpus = os.cpu_count() or 1
        self.workers = max(1, int(workers)) if workers else min(4, cpus)
        if threads is None:
            threads = max(1, cpus // self.workers)
        self.threads = int(threads)
        self._pool: Any = None
        self._engine = rapidocr_engine(p, threads=threads, spin=spin)
        self._det, self._cls, self._rec = _parts(self._engine)
        self._chars: list[str] = list(self._rec.postprocess_op.character)
        self.last_timings: list[dict[str, float]] = []

    # -- public ---------------------------------------------------------------------------------

    def detect(self, images: Sequence[np.ndarray]) -> list[list[Box]]:
        return self.detect_with_lines(images)[0]

    def read(self, images: Sequence[np.ndarray]) -> list[list[OcrLine]]:
        """The recognised lines (text included: for tests and audits by a person, never for logs)."""
        lines, timings = self._read(images)
        self.last_timings = timings
        return lines

    def detect_with_lines(self, images: Sequence[np.ndarray]) -> tuple[list[list[Box]], list[list[OcrLine]]]:
        pages, timings = self._read(images)
        out: list[list[Box]] = []
        for lines, tm in zip(pages, timings, strict=True):
            t0 = time.perf_counter()
            out.append(self.boxes_from_lines(lines))
            tm["ocr_rules"] = time.perf_counter() - t0
        self.last_timings = timings
        if log.isEnabledFor(logging.DEBUG):        # counts only: recognised text may be an identifier
            for i, (lines, boxes) in enumerate(zip(pages, out, strict=True)):
                cats: dict[str, int] = {}
                for b in boxes:
                    cats[b.category] = cats.get(b.category, 0) + 1
                log.debug("ocr page %d/%d: %d lines, %d boxes %s", i + 1, len(pages), len(lines), len(boxes),
                          dict(sorted(cats.items())))
        return out, pages

    # -- reading --------------------------------------------------------------------------------

    def _map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """``fn`` over ``items``, on ``workers`` threads (onnxruntime and OpenCV release the GIL)."""
        if self.workers <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="ocr")
        return list(self._pool.map(fn, items))

    def _page(self, img: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], dict[str, float]]:
        bgr = np.ascontiguousarray(img[:, :, ::-1])
        t0 = time.perf_counter()
        det = self._det(bgr)
        quads = np.zeros((0, 4, 2), np.float32) if det.boxes is None else np.asarray(det.boxes, np.float32)
        limit = self._tilted_limit(quads, bgr.shape[:2])
        if limit is not None:
            quads = self._detect_at(bgr, limit)
        t1 = time.perf_counter()
        quads, crops = self._orient(bgr, quads)
        return quads, crops, {"ocr_det": t1 - t0, "ocr_orient": time.perf_counter() - t1}

    def _tilted_limit(self, quads: np.ndarray, shape: tuple[int, ...]) -> int | None:
        """A higher detection resolution for a tilted page, or None to keep the first pass.

        At 40 degrees a page's bounding box is ~1.4x its upright size, so the same text reaches the
        detector ~0.7x smaller, and close diagonal lines merge in its probability map (measured on a
        report photo turned 40 degrees: the line with the receipt time was lost at 1280 px, found at
        1600). The limit grows by that bounding-box factor, never past the image's own size."""
        if not self.tilt_redetect or len(quads) < 3 or str(self.params["Det.limit_type"]) != "max":
            return None
        phi = _page_angle(quads)[0]
        tilt = abs(phi) % (math.pi / 2)
        tilt = min(tilt, math.pi / 2 - tilt)
        if tilt < math.radians(self.tilt_min_degrees):
            return None
        base = int(self.params["Det.limit_side_len"])
        limit = min(max(shape), round(base * (math.cos(tilt) + math.sin(tilt))))
        return limit if limit > base * 1.05 else None

    def _detect_at(self, bgr: np.ndarray, limit: int) -> np.ndarray:
        """rapidocr's detection with another max-side limit (its own detector keeps one fixed limit,
        and pages run on several threads: the limit cannot be changed on the shared object)."""
        from rapidocr.ch_ppocr_det.utils import DetPreProcess

        det = self._det
        pre = DetPreProcess(limit, "max", det.mean, det.std)(bgr)
        if pre is None:
            return np.zeros((0, 4, 2), np.float32)
        boxes, _ = det.postprocess_op(det.session(pre), bgr.shape[:2])
        if len(boxes) < 1:
            return np.zeros((0, 4, 2), np.float32)
        return np.asarray(det.sorted_boxes(np.asarray(boxes)), np.float32).reshape(-1, 4, 2)

    def _read(self, images: Sequence[np.ndarray]) -> tuple[list[list[OcrLine]], list[dict[str, float]]]:
        pages_raw = self._map(self._page, list(images))
        timings = [tm for _, _, tm in pages_raw]
        all_crops: list[np.ndarray] = []
        owners: list[tuple[int, int]] = []
        for i, (_, crops, _) in enumerate(pages_raw):
            owners += [(i, j) for j in range(len(crops))]
            all_crops += crops
        t0 = time.perf_counter()
        texts = self._recognise(all_crops)
        rec_total = time.perf_counter() - t0
        widths = [c.shape[1] for c in all_crops]
        total_w = float(sum(widths)) or 1.0
        pages: list[list[OcrLine]] = [[] for _ in images]
        share = [0.0] * len(images)
        for (i, j), (text, score, pos), w in zip(owners, texts, widths, strict=True):
            share[i] += w / total_w
            if text.strip():
                pages[i].append(OcrLine(pages_raw[i][0][j].astype(np.float64), text, score, pos, w))
        for i, tm in enumerate(timings):
            tm["ocr_rec"] = rec_total * share[i]          # one batched pass: shared out by crop width
        return pages, timings

    def _orient(self, bgr: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Reorder each quad into reading order and crop it upright (height REC_HEIGHT).

        The page's text direction is the dominant long-axis direction of its lines; which way along
        it the text reads is the direction classifier's weighted vote over the longest lines. Lines
        at a right angle to the page (a sideways stamp) get their own axis and their own vote.
        """
        n = len(quads)
        if n == 0:
            return quads, []
        phi, long_len, aspect, theta = _page_angle(quads)
        u_page = np.array([math.cos(phi), math.sin(phi)])
        if u_page[0] < -1e-6 or (abs(u_page[0]) <= 1e-6 and u_page[1] < 0):
            u_page = -u_page
        # lines whose own axis is more than 45 degrees off the page axis keep their own axis
        dev = np.abs(np.cos(theta - phi))
        outlier = (aspect >= 1.5) & (dev < math.cos(math.radians(45)))
        axes = np.tile(u_page, (n, 1))
        for j in np.nonzero(outlier)[0]:
            v = np.array([math.cos(theta[j]), math.sin(theta[j])])
            axes[j] = v if (v[0] > 1e-6 or (abs(v[0]) <= 1e-6 and v[1] > 0)) else -v
        ordered = np.stack([_reading_order(quads[j], axes[j]) for j in range(n)])
        crops = [_crop(bgr, q) for q in ordered]
        # vote: the longest page lines, and every outlier line on its own
        page_idx = [j for j in np.argsort(-long_len) if not outlier[j] and aspect[j] >= 2.0][: self.cls_lines]
        if not page_idx:
            page_idx = [j for j in np.argsort(-long_len) if not outlier[j]][: self.cls_lines]
        ask = list(page_idx) + [int(j) for j in np.nonzero(outlier)[0]]
        flip_page = False
        flip_line: dict[int, bool] = {}
        if ask:
            res = self._cls([crops[j] for j in ask]).cls_res
            vote = 0.0
            for j, (label, score) in zip(ask, res, strict=True):
                upside = "180" in str(label)
                if outlier[j]:
                    flip_line[j] = upside and float(score) >= 0.9
                else:
                    vote += long_len[j] * float(score) * (-1.0 if upside else 1.0)
            flip_page = vote < 0
        for j in range(n):
            if flip_line.get(j, flip_page if not outlier[j] else False):
                ordered[j] = np.roll(ordered[j], 2, axis=0)
                crops[j] = np.ascontiguousarray(crops[j][::-1, ::-1])
        return ordered, crops

    def _recognise(self, crops: list[np.ndarray]) -> list[tuple[str, float, np.ndarray]]:
        """Batched CTC recognition, widths sorted so a batch pads little; keeps character positions."""
        out: list[tuple[str, float, np.ndarray]] = [("", 0.0, np.zeros(0))] * len(crops)
        order = np.argsort([c.shape[1] for c in crops], kind="stable")
        batches = [order[b0:b0 + self.rec_batch] for b0 in range(0, len(order), self.rec_batch)]
        for idx, res in zip(batches, self._map(lambda ix: self._rec_batch(crops, ix), batches), strict=True):
            for i, r in zip(idx, res, strict=True):
                out[int(i)] = r
        return out

    def _rec_batch(self, crops: list[np.ndarray], idx: np.ndarray) -> list[tuple[str, float, np.ndarray]]:
        width = max(self.rec_min_width, max(crops[i].shape[1] for i in idx))
        width = int(math.ceil(width / 8.0) * 8)
        batch = np.zeros((len(idx), 3, REC_HEIGHT, width), np.float32)
        for k, i in enumerate(idx):
            c = crops[i]
            batch[k, :, :, : c.shape[1]] = c.transpose(2, 0, 1).astype(np.float32) / 127.5 - 1.0
        preds = np.asarray(self._rec.session(batch))
        stride = width / float(preds.shape[1])
        best = preds.argmax(axis=2)
        prob = preds.max(axis=2)
        res = []
        for k, i in enumerate(idx):
            ids = best[k]
            keep = ids != 0                                 # CTC: drop blanks and repeats
            keep[1:] &= ids[1:] != ids[:-1]
            t = np.nonzero(keep)[0]
            text = "".join(self._chars[c] if c < len(self._chars) else "" for c in ids[t])
            score = float(prob[k][t].mean()) if len(t) else 0.0
            pos = (t + 0.5) * stride / float(crops[i].shape[1])
            res.append((text, score, np.clip(pos, 0.0, 1.0)))
        return res

    # -- boxes ----------------------------------------------------------------------------------

    def _spans(self, text: str) -> list[Span]:
        spans: list[Span] = []
        if self.find_spans is not None:
            spans += list(self.find_spans(text))
        if self.form_rules:
            spans += form_spans(text)
        return merge_spans(s for s in spans if 0 <= s.start < s.end <= len(text))

    def boxes_from_lines(self, lines: list[OcrLine]) -> list[Box]:
        """Rules run on *rows*: lines on one row with a small gap are joined (with a space), because
        detection splits "姓" from "名孟丁" or a label from its value; each span found in the row is
        cut back into the lines it covers. A row that ends in a bare label ("送检医生：") also masks
        the next box along the row, up to ``neighbour_gap`` line heights away."""
        boxes: list[Box] = []
        whole: dict[int, str] = {}
        if not lines:
            return boxes
        geo = _RowGeometry(lines)
        for chain in _rows(geo, self.merge_gap):
            parts = [lines[j].text for j in chain]
            text = " ".join(parts)
            offsets = np.cumsum([0] + [len(p) + 1 for p in parts])
            for sp in self._spans(text):
                for j, off, part in zip(chain, offsets[:-1], parts, strict=True):
                    a, b = max(sp.start, off) - off, min(sp.end, off + len(part)) - off
                    if b > a:
                        t0, t1 = lines[j].span_fraction(a, b)
                        box = self._box(lines[j], t0, t1, sp.category)
                        if box is not None:
                            boxes.append(box)
            if self.form_rules:
                cat = label_only(text)
                if cat is not None:
                    k = self._value_box(lines, geo, chain[-1])
                    if k is not None:
                        whole[k] = cat
        for k, cat in whole.items():
            box = self._box(lines[k], 0.0, 1.0, cat)
            if box is not None:
                boxes.append(box)
        return boxes

    def _box(self, line: OcrLine, t0: float, t1: float, category: str) -> Box | None:
        h = line.height
        q = line.sub_quad(max(t0, -0.05), min(t1, 1.05), self.pad_along * h, self.pad_across * h)
        return quad_to_box(q, category, self.name, line.score)

    def _value_box(self, lines: list[OcrLine], geo: _RowGeometry, j: int) -> int | None:
        """The box right after label-only line j on the same row (in its reading direction)."""
        k = geo.next_on_row(j, self.neighbour_gap)
        if k is None:
            return None
        if starts_with_label(lines[k].text):     # the next field ("性别：女"), not this label's value
            return None
        return k


class _RowGeometry:
    """Per-line reading direction, normal, start/end/mid points and height, as arrays (vectorised:
    a lab report has 150 lines and every line looks for its right-hand neighbour)."""

    def __init__(self, lines: list[OcrLine]) -> None:
        q = np.array([ln.quad for ln in lines], dtype=np.float64).reshape(-1, 4, 2)
        self.u = _units(q[:, 1] - q[:, 0])
        self.h = np.array([ln.height for ln in lines], dtype=np.float64)
        # A short line's own angle is noisy (a few degrees), and over a gap of several line heights
        # that tilt moves the row by more than half a line. Lines within 15 degrees of the page's
        # length-weighted direction use that direction instead.
        length = np.array([ln.length for ln in lines], dtype=np.float64)
        if len(lines):
            ang = np.arctan2(self.u[:, 1], self.u[:, 0])
            w = length * (length >= 2 * self.h)
            if w.sum() <= 0:
                w = length
            phi = math.atan2(float((w * np.sin(ang)).sum()), float((w * np.cos(ang)).sum()))
            page = np.array([math.cos(phi), math.sin(phi)])
            near = self.u @ page >= math.cos(math.radians(15))
            self.u[near] = page
        self.n = np.stack([-self.u[:, 1], self.u[:, 0]], axis=1) if len(lines) else self.u.copy()
        self.start = (q[:, 0] + q[:, 3]) / 2
        self.end = (q[:, 1] + q[:, 2]) / 2
        self.mid = q.mean(axis=1)

    def next_on_row(self, j: int, max_gap: float) -> int | None:
        """The nearest line that starts after line j ends, on the same row, within max_gap heights."""
        if len(self.h) < 2:
            return None
        u, n, h = self.u[j], self.n[j], self.h[j]
        same_dir = self.u @ u >= 0.9
        ratio = self.h / h
        across = np.abs((self.mid - self.mid[j]) @ n)
        gap = (self.start - self.end[j]) @ u
        ok = same_dir & (ratio >= 0.6) & (ratio <= 1.6) & (across < 0.5 * h) & (gap > -0.6 * h) & (gap < max_gap * h)
        ok[j] = False
        if not ok.any():
            return None
        idx = np.nonzero(ok)[0]
        return int(idx[np.argmin(gap[idx])])


def _units(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.where(norm > 1e-9, v / np.maximum(norm, 1e-9), np.array([1.0, 0.0]))


def _rows(geo: _RowGeometry, merge_gap: float) -> list[list[int]]:
    """Chains of line indices that read as one row (each line in exactly one chain)."""
    n = len(geo.h)
    nxt: dict[int, int] = {}
    prev: dict[int, int] = {}
    for j in range(n):
        k = geo.next_on_row(j, merge_gap)
        if k is not None and k not in prev:
            nxt[j], prev[k] = k, j
    chains: list[list[int]] = []
    seen: set[int] = set()
    for j in range(n):
        if j in prev or j in seen:
            continue
        chain = [j]
        seen.add(j)
        while chain[-1] in nxt and nxt[chain[-1]] not in seen:
            chain.append(nxt[chain[-1]])
            seen.add(chain[-1])
        chains.append(chain)
    chains += [[j] for j in range(n) if j not in seen]     # a cycle cannot happen; never drop a line
    return chains


def _page_angle(quads: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """The page's text axis (radians, modulo pi): the length-weighted mean long-axis direction of
    its elongated lines; with each line's long side, aspect ratio and own axis angle."""
    e01 = quads[:, 1] - quads[:, 0]
    e03 = quads[:, 3] - quads[:, 0]
    l01, l03 = np.linalg.norm(e01, axis=1), np.linalg.norm(e03, axis=1)
    long_vec = np.where((l01 >= l03)[:, None], e01, e03)
    long_len = np.maximum(l01, l03)
    aspect = long_len / np.maximum(np.minimum(l01, l03), 1.0)
    theta = np.arctan2(long_vec[:, 1], long_vec[:, 0])
    w = long_len * (aspect >= 2.0)
    if w.sum() <= 0:
        w = long_len
    phi = 0.5 * math.atan2(float((w * np.sin(2 * theta)).sum()), float((w * np.cos(2 * theta)).sum()))
    return phi, long_len, aspect, theta


def _reading_order(q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The cyclic order of quad ``q`` whose first edge runs along ``u`` and second across it (down)."""
    n = np.array([-u[1], u[0]])
    best, score = q, -math.inf
    for r in range(4):
        c = np.roll(q, -r, axis=0)
        s = float(np.dot(c[1] - c[0], u) + np.dot(c[3] - c[0], n))
        if s > score:
            best, score = c, s
    return best.astype(np.float32)


def _crop(bgr: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The line straightened to height REC_HEIGHT (one warp instead of crop + resize)."""
    import cv2

    w = float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3]), 1.0))
    h = float(max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]), 1.0))
    if h > 2 * REC_HEIGHT:                      # big text: warp at native size, then area-downsample
        nw, nh = max(1, round(w)), max(1, round(h))
        m = cv2.getPerspectiveTransform(q.astype(np.float32),
                                        np.float32([[0, 0], [nw, 0], [nw, nh], [0, nh]]))
        native = cv2.warpPerspective(bgr, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        ow = max(8, round(nw * REC_HEIGHT / nh))
        return cv2.resize(native, (ow, REC_HEIGHT), interpolation=cv2.INTER_AREA)
    ow = max(8, round(w * REC_HEIGHT / h))
    m = cv2.getPerspectiveTransform(q.astype(np.float32),
                                    np.float32([[0, 0], [ow, 0], [ow, REC_HEIGHT], [0, REC_HEIGHT]]))
    return cv2.warpPerspective(bgr, m, (ow, REC_HEIGHT), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)


_KEYS = {"kind", "name", "det_limit_side_len", "det_limit_type", "det_box_thresh", "det_unclip_ratio", "rec_batch",
         "rec_min_width", "threads", "spin", "workers", "text_rules", "form_rules", "pad_along", "pad_across", "neighbour_gap", "merge_gap",
         "cls_lines", "tilt_redetect", "tilt_min_degrees", "params"}


@register("ocr")
def _build_ocr(cfg: Mapping[str, Any]) -> OcrDetector:
    unknown = set(cfg) - _KEYS
    if unknown:
        raise ValueError(f"ocr detector: unknown keys {sorted(unknown)}; known: {sorted(_KEYS - {'kind'})}")
    kw = {k: v for k, v in cfg.items() if k not in ("kind",)}
    if "params" in kw and kw["params"] is not None:
        kw["params"] = dict(kw["params"])
    return OcrDetector(**kw)


# ------------------------------------------------------------------------------------------- verification
# A residual-identifier check for masked outputs (tests, benchmarks, the human review's residual-PII
# pass): read the original and the masked image with the *stock* rapidocr pipeline at full
# resolution — not our detector — and look for identifier-shaped tokens from the original in the
# masked output. The token patterns are deliberately simpler than the rules and independent of them.

_V_DATE = re.compile(r"(?<!\d)((?:19|20)\d{2})\D{1,2}(\d{1,2})\D{1,2}(\d{1,2})(?!\d)")
_V_NUMBER = re.compile(r"(?<![\d.~^\-])\d{5,}(?![.]\d|\^)")     # not a glued lab range "100~30010^9/L"
_V_ALNUM = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9]*\d{4})(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{8,}")
_V_NAME_LABELS = ("姓名", "送检医生", "申请医生", "审核者", "检验者", "报告者", "审核医生", "检查医师", "报告医生",
                  "书写人员", "医师[:：]", "医生[:：]")
_V_NAME = re.compile("(?:" + "|".join(_V_NAME_LABELS) + r")[\s:：]*([\u4e00-\u9fff]{2,4})")
_V_NOT_NAME = frozenset({"性别", "科室", "年龄", "检验", "审核", "时间", "送检", "检查", "书写", "报告", "动态", "门诊", "住院",
                         "患者", "申请", "临床", "标本", "样本", "日期", "医师", "医生", "人员", "编号", "姓名", "签名"})
_V_HOSPITAL = re.compile(r"[\u4e00-\u9fff]{2,20}医院")
_V_LAB = re.compile(r"\d+\.\d+\s*[~\-—]\s*\d+(?:\.\d+)?|\d+\.\d+")


def identifier_tokens(texts: Sequence[str]) -> dict[str, set[str]]:
    """Identifier-shaped tokens in OCR lines: DATE (digits), NUMBER (5+ digits, letter-digit IDs),
    NAME (2-3 characters after a name label, also across two consecutive lines), HOSPITAL (…医院).
    For verification only: never log them."""
    out: dict[str, set[str]] = {"DATE": set(), "NUMBER": set(), "NAME": set(), "HOSPITAL": set()}
    for t in texts:
        s = re.sub(r"\s+", "", t)
        for m in _V_DATE.finditer(t):
            out["DATE"].add(f"{m.group(1)}{int(m.group(2)):02d}{int(m.group(3)):02d}")
        for m in _V_NUMBER.finditer(s):
            out["NUMBER"].add(m.group(0))
        for m in _V_ALNUM.finditer(s):
            out["NUMBER"].add(m.group(0))
        for m in _V_HOSPITAL.finditer(s):
            out["HOSPITAL"].add(m.group(0))
    # a label and its value are often read as two lines ("姓" | "名孟丁"): also look across pairs
    squeezed = [re.sub(r"\s+", "", t) for t in texts]
    pairs = [(a + b, len(a)) for a, b in itertools.pairwise(squeezed)]
    for s, cut in [(x, -1) for x in squeezed] + pairs:
        for m in _V_NAME.finditer(s):
            if cut >= 0 and not m.start() < cut < m.end():
                continue                          # a pair only adds matches across its boundary
            if m.group(1)[:2] not in _V_NOT_NAME:
                out["NAME"].add(m.group(1)[:3])
    for s in squeezed:                            # "名孟丁": the "姓" of "姓名" read as a line of its own
        m = re.fullmatch(r"名[:：]?([\u4e00-\u9fff]{2,3})", s)
        if m and m.group(1)[:2] not in _V_NOT_NAME:
            out["NAME"].add(m.group(1))
    return out


def readable_tokens(tokens: Mapping[str, set[str]], texts: Sequence[str]) -> dict[str, set[str]]:
    """The tokens still readable in ``texts`` — or any telling part of them: 6 consecutive digits
    of a date or number (5 for a 5-digit one), a name, 4 consecutive characters of a hospital."""
    lines = [re.sub(r"\s+", "", t) for t in texts]
    digits = [re.sub(r"\D", "", t) for t in texts]
    alnum = [re.sub(r"[^A-Za-z0-9]", "", t).upper() for t in texts]
    found: dict[str, set[str]] = {k: set() for k in tokens}
    for cat, toks in tokens.items():
        for tok in toks:
            if cat in ("DATE", "NUMBER"):
                d = re.sub(r"\D", "", tok)
                k = min(6, len(d))
                windows = {d[i:i + k] for i in range(len(d) - k + 1)} if len(d) >= 5 else set()
                hit = any(w in s for w in windows for s in digits)
                if not d.isdigit() or tok != d:      # a letter-digit ID: also the whole ID
                    hit = hit or any(tok.upper() in s for s in alnum)
            elif cat == "HOSPITAL":
                core = tok[:-2] if len(tok) > 5 else tok
                k = min(4, len(core))
                hit = any(core[i:i + k] in s for i in range(len(core) - k + 1) for s in lines)
            else:
                hit = any(tok in s for s in lines)
            if hit:
                found[cat].add(tok)
    return found


def lab_values(texts: Sequence[str]) -> list[str]:
    """Decimal lab values and reference ranges ("12.70", "4.00~10.00") in OCR lines, for utility checks."""
    return [re.sub(r"\s+", "", m.group(0)) for t in texts for m in _V_LAB.finditer(t)]


@dataclass
class Verification:
    """Per-category counts of identifier tokens read on the original and still readable after
    masking, and the share of lab values still readable. ``leaked`` holds the tokens themselves:
    show it to a reviewer, never log it."""

    before: dict[str, int]
    after: dict[str, int]
    lab_before: int
    lab_after: int
    leaked: dict[str, set[str]] = field(repr=False)

    @property
    def ok(self) -> bool:
        return sum(self.after.values()) == 0

    @property
    def lab_share(self) -> float:
        return self.lab_after / self.lab_before if self.lab_before else 1.0


def stock_read(image: np.ndarray, params: Mapping[str, Any] | None = None) -> list[str]:
    """Text lines read by the stock rapidocr pipeline (full resolution unless ``params`` say otherwise)."""
    return stock_read_quads(image, params)[0]


def stock_read_quads(image: np.ndarray,
                     params: Mapping[str, Any] | None = None) -> tuple[list[str], list[np.ndarray]]:
    """:func:`stock_read` with each line's quadrilateral (image pixels): where a lab value was read."""
    eng = rapidocr_engine({"Det.limit_type": "min", "Det.limit_side_len": 736, **(params or {})}, spin=False)
    res = eng(np.ascontiguousarray(image[:, :, ::-1]))
    if getattr(res, "txts", None) is None:
        return [], []
    quads = np.zeros((0, 4, 2)) if res.boxes is None else np.asarray(res.boxes, dtype=np.float64).reshape(-1, 4, 2)
    return list(res.txts or ()), list(quads)


def verify(original: np.ndarray | None, masked: np.ndarray, params: Mapping[str, Any] | None = None, *,
           before: Sequence[str] | None = None, reference: Sequence[str] | None = None) -> Verification:
    """Read both images with the stock pipeline; count identifier tokens before and after masking.
    ``before``: the original's lines when already read (then ``original`` is not read again).
    ``reference``: lines whose identifier tokens are looked for instead of the original's — the
    upright photo's, when ``original`` is that photo turned: the stock reader misreads turned
    table cells into identifier-shaped strings ("1281131112", 超声提示 after 医师) that are none."""
    if before is None and original is None:
        raise ValueError("verify needs the original image or its lines")
    before_txt = list(before) if before is not None else stock_read(original, params)
    after_txt = stock_read(masked, params)
    tokens = identifier_tokens(before_txt if reference is None else list(reference))
    leaked = readable_tokens(tokens, after_txt)
    labs_before = lab_values(before_txt)
    after_labs = lab_values(after_txt)
    pool: dict[str, int] = {}
    for v in after_labs:
        pool[v] = pool.get(v, 0) + 1
    joined = "".join(re.sub(r"\s+", "", t) for t in after_txt)
    kept = 0
    for v in labs_before:            # OCR glues or splits cells differently on the two images
        if pool.get(v, 0) > 0:
            pool[v] -= 1
            kept += 1
        elif v in joined:
            kept += 1
    return Verification(before={k: len(v) for k, v in tokens.items()}, after={k: len(v) for k, v in leaked.items()},
                        lab_before=len(labs_before), lab_after=kept, leaked=leaked)
