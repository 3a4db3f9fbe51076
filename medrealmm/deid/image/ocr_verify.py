"""Residual-identifier check for masked images (tests, benchmarks, the human review's residual-PII pass).

Read the original and the masked image with the *stock* rapidocr pipeline at full resolution — not
our detector — and look for identifier-shaped tokens from the original in the masked output. The
token patterns are deliberately simpler than the rules (:mod:`.ocr_form_rules`) and independent of
them. Tokens are identifiers: never log them.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from medrealmm.deid.image.ocr_engine import rapidocr_engine

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
