"""Identifiers printed in images (report and prescription photos): the OCR detector.

One page: rapidocr detection (:mod:`.ocr_engine`; a tilted page detected again at a higher
resolution, :func:`.ocr_geometry.tilt_redetect_limit`) → page orientation → recognition with
character positions → free-text + form rules per row (:mod:`.ocr_form_rules`) → one box per
identifier span, carrying the quadrilateral of the characters it covers (:mod:`.ocr_geometry`).
:mod:`.ocr_verify` checks a masked output with the stock reader.

Orientation: a page photographed sideways or upside down is decided once per page (dominant line
direction, then the direction classifier's vote over the longest lines), so short cells ("20",
"男") are read the right way up too, which per-line classification gets wrong.

Recognised text is an identifier candidate: it never goes to logs; boxes (no text) are what the
detector returns.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from medrealmm.deid.image.base import Box, register
from medrealmm.deid.image.ocr_engine import OcrModels
from medrealmm.deid.image.ocr_form_rules import (
    SpanFinder,
    default_find_spans,
    form_spans,
    label_only,
    starts_with_label,
)
from medrealmm.deid.image.ocr_geometry import (
    OcrLine,
    RowGeometry,
    crop_line,
    line_axes,
    quad_to_box,
    reading_order,
    rows_of_lines,
    tilt_redetect_limit,
)
from medrealmm.deid.settings import OcrSettings, detector_settings
from medrealmm.deid.spans import Span, merge_spans

log = logging.getLogger(__name__)

__all__ = ["OcrDetector"]


class OcrDetector:
    """Identifiers in printed text: rapidocr detection → page orientation → recognition (with
    character positions) → text rules + form rules per row → one box per identifier span.

    Settings (:class:`~medrealmm.deid.settings.OcrSettings`, every key optional): ``det_limit_side_len``
    (1280: the detection resolution; 960 missed faint lines that a full-resolution reader still reads),
    ``det_limit_type``, ``det_box_thresh``, ``det_unclip_ratio``, ``rec_batch``, ``rec_min_width``, ``threads``
    (intra-op per session), ``workers`` (pages / recognition batches in parallel; default min(4, cpus) with
    cpus/workers threads each), ``spin`` (onnxruntime thread spinning, off), ``text_rules`` (use
    ``medrealmm.deid.text_rules.find_identifiers``), ``form_rules`` (labels, hospital titles, dates,
    long numbers), ``pad_along`` / ``pad_across`` (box growth in line heights), ``neighbour_gap``
    (how far a bare label's value box may be, in line heights), ``merge_gap`` (row joining),
    ``cls_lines``, ``tilt_redetect`` / ``tilt_min_degrees`` (a page tilted at least that far from
    the axes is detected again at a resolution raised by its bounding-box growth, up to its own
    size), ``params`` (extra rapidocr settings), ``name``. ``find_spans`` (Python only)
    replaces the free-text rules with any ``str -> list[Span]`` callable.
    """

    def __init__(self, settings: OcrSettings | None = None, *, find_spans: SpanFinder | None = None) -> None:
        s = settings or OcrSettings()
        self.settings = s
        self.name = s.name
        p: dict[str, Any] = {"Det.limit_side_len": int(s.det_limit_side_len), "Det.limit_type": str(s.det_limit_type),
                             "Det.box_thresh": float(s.det_box_thresh), "Det.unclip_ratio": float(s.det_unclip_ratio)}
        p.update(s.params or {})
        self.params = p
        self.rec_batch, self.rec_min_width = max(1, int(s.rec_batch)), max(8, int(s.rec_min_width))
        self.pad_along, self.pad_across = float(s.pad_along), float(s.pad_across)
        self.neighbour_gap, self.merge_gap, self.cls_lines = float(s.neighbour_gap), float(s.merge_gap), int(s.cls_lines)
        self.form_rules = bool(s.form_rules)
        self.tilt_redetect, self.tilt_min_degrees = bool(s.tilt_redetect), float(s.tilt_min_degrees)
        if find_spans is None and s.text_rules:
            find_spans = default_find_spans()
        self.find_spans = find_spans
        # Parallel pages and recognition batches on single-threaded sessions used two cores better
        # than one page at a time on two intra-op threads (0.51 vs 0.61 s per report photo, idle 2 cores).
        cpus = os.cpu_count() or 1
        self.workers = max(1, int(s.workers)) if s.workers else min(4, cpus)
        threads = s.threads if s.threads is not None else max(1, cpus // self.workers)
        self.threads = int(threads)
        self._pool: Any = None
        self._models = OcrModels(p, threads=threads, spin=s.spin, map_fn=self._map)
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
        quads = self._models.detect(bgr)
        limit = self._tilted_limit(quads, bgr.shape[:2])
        if limit is not None:
            quads = self._models.detect_at(bgr, limit)
        t1 = time.perf_counter()
        quads, crops = self._orient(bgr, quads)
        return quads, crops, {"ocr_det": t1 - t0, "ocr_orient": time.perf_counter() - t1}

    def _tilted_limit(self, quads: np.ndarray, shape: tuple[int, ...]) -> int | None:
        """A higher detection resolution for a tilted page, or None to keep the first pass
        (:func:`.ocr_geometry.tilt_redetect_limit`; only with ``Det.limit_type`` max)."""
        if not self.tilt_redetect or len(quads) < 3 or str(self.params["Det.limit_type"]) != "max":
            return None
        return tilt_redetect_limit(quads, shape, int(self.params["Det.limit_side_len"]), self.tilt_min_degrees)

    def _read(self, images: Sequence[np.ndarray]) -> tuple[list[list[OcrLine]], list[dict[str, float]]]:
        pages_raw = self._map(self._page, list(images))
        timings = [tm for _, _, tm in pages_raw]
        all_crops: list[np.ndarray] = []
        owners: list[tuple[int, int]] = []
        for i, (_, crops, _) in enumerate(pages_raw):
            owners += [(i, j) for j in range(len(crops))]
            all_crops += crops
        t0 = time.perf_counter()
        texts = self._models.recognise(all_crops, self.rec_batch, self.rec_min_width)
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
        axes, long_len, aspect, outlier = line_axes(quads)
        ordered = np.stack([reading_order(quads[j], axes[j]) for j in range(n)])
        crops = [crop_line(bgr, q) for q in ordered]
        flip_page, flip_line = self._upside_down(crops, long_len, aspect, outlier)
        for j in range(n):
            if flip_line.get(j, flip_page if not outlier[j] else False):
                ordered[j] = np.roll(ordered[j], 2, axis=0)
                crops[j] = np.ascontiguousarray(crops[j][::-1, ::-1])
        return ordered, crops

    def _upside_down(self, crops: list[np.ndarray], long_len: np.ndarray, aspect: np.ndarray,
                     outlier: np.ndarray) -> tuple[bool, dict[int, bool]]:
        """Whether the page reads upside down (the classifier's vote over its longest lines, weighted
        by length and score), and per outlier line whether it does (score 0.9 or more)."""
        page_idx = [j for j in np.argsort(-long_len) if not outlier[j] and aspect[j] >= 2.0][: self.cls_lines]
        if not page_idx:
            page_idx = [j for j in np.argsort(-long_len) if not outlier[j]][: self.cls_lines]
        ask = list(page_idx) + [int(j) for j in np.nonzero(outlier)[0]]
        flip_line: dict[int, bool] = {}
        if not ask:
            return False, flip_line
        vote = 0.0
        for j, (label, score) in zip(ask, self._models.classify([crops[j] for j in ask]), strict=True):
            upside = "180" in str(label)
            if outlier[j]:
                flip_line[j] = upside and float(score) >= 0.9
            else:
                vote += long_len[j] * float(score) * (-1.0 if upside else 1.0)
        return vote < 0, flip_line

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
        geo = RowGeometry(lines)
        for chain in rows_of_lines(geo, self.merge_gap):
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

    def _value_box(self, lines: list[OcrLine], geo: RowGeometry, j: int) -> int | None:
        """The box right after label-only line j on the same row (in its reading direction)."""
        k = geo.next_on_row(j, self.neighbour_gap)
        if k is None:
            return None
        if starts_with_label(lines[k].text):     # the next field ("性别：女"), not this label's value
            return None
        return k


@register("ocr")
def _build_ocr(cfg: Mapping[str, Any]) -> OcrDetector:
    return OcrDetector(detector_settings(OcrSettings, cfg, "ocr"))
