"""rapidocr's three ONNX models (detection, direction classifier, recognition), driven directly.

Why we drive them ourselves instead of calling ``RapidOCR()(img)``:

- speed: the stock recogniser pads every batch to at least 320 px, and a report has dozens of
  short cells ("0.49", "171"); padding only to the widest crop in the batch cut recognition time
  by ~40 % with the same text on the real reports;
- geometry: we need, per character, *where* it is on the line so that only the identifier is
  masked (a name, not the lab value next to it). The CTC time step at which each character is
  emitted gives its position; we keep it instead of throwing it away;
- detection resolution: a tilted page is detected again at a higher resolution
  (:func:`medrealmm.deid.image.ocr_geometry.tilt_redetect_limit`), on the same shared model.

This module knows rapidocr's internals (written against rapidocr 3.10) and nothing about pages,
rows or identifiers. Recognised text may be an identifier: nothing here logs it.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

REC_HEIGHT = 48
"""The recogniser's fixed input height (PP-OCR rec models)."""

DEFAULT_PARAMS: dict[str, Any] = {"Det.limit_type": "max", "Det.limit_side_len": 960, "Global.log_level": "warning"}
"""rapidocr settings for a 1280x960 report photo (DESIGN.md: ~2.5 s with the stock pipeline)."""

Recognition = tuple[str, float, np.ndarray]
"""One recognised crop: text, mean character probability, each character's centre as a fraction of
the crop width (the CTC time step that emitted it)."""

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

    for part in engine_parts(engine):
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


def engine_parts(engine: Any) -> tuple[Any, Any, Any]:
    """The engine's detection, direction-classification and recognition parts."""
    try:
        return engine._load_det_model(), engine._load_cls_model(), engine._load_rec_model()
    except AttributeError as e:     # pragma: no cover - guards a rapidocr API change
        raise RuntimeError("unsupported rapidocr version: expected RapidOCR._load_{det,cls,rec}_model "
                           "(written against rapidocr 3.10)") from e


def _no_quads() -> np.ndarray:
    return np.zeros((0, 4, 2), np.float32)


class OcrModels:
    """The three parts of one shared engine, with the calls the detector makes on them.

    ``map_fn`` runs a function over a list (the detector's thread pool: onnxruntime releases the GIL).
    """

    def __init__(self, params: Mapping[str, Any], *, threads: int | None, spin: bool | None,
                 map_fn: Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]) -> None:
        self.engine = rapidocr_engine(params, threads=threads, spin=spin)
        self.det, self.cls, self.rec = engine_parts(self.engine)
        self.chars: list[str] = list(self.rec.postprocess_op.character)
        self._map = map_fn

    def detect(self, bgr: np.ndarray) -> np.ndarray:
        """Line quadrilaterals (n, 4, 2) at the engine's own detection limit."""
        det = self.det(bgr)
        return _no_quads() if det.boxes is None else np.asarray(det.boxes, np.float32)

    def detect_at(self, bgr: np.ndarray, limit: int) -> np.ndarray:
        """rapidocr's detection with another max-side limit (its own detector keeps one fixed limit,
        and pages run on several threads: the limit cannot be changed on the shared object)."""
        from rapidocr.ch_ppocr_det.utils import DetPreProcess

        det = self.det
        pre = DetPreProcess(limit, "max", det.mean, det.std)(bgr)
        if pre is None:
            return _no_quads()
        boxes, _ = det.postprocess_op(det.session(pre), bgr.shape[:2])
        if len(boxes) < 1:
            return _no_quads()
        return np.asarray(det.sorted_boxes(np.asarray(boxes)), np.float32).reshape(-1, 4, 2)

    def classify(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """The direction classifier's (label, score) per upright crop ("180": upside down)."""
        return list(self.cls(crops).cls_res)

    def recognise(self, crops: list[np.ndarray], batch: int, min_width: int) -> list[Recognition]:
        """Batched CTC recognition, widths sorted so a batch pads little; keeps character positions.

        Batches go to the workers widest first: the last batches to start are then the cheapest, and
        no worker is left alone with a wide batch at the end (the batches themselves, and so the text,
        are the same as in ascending order)."""
        out: list[Recognition] = [("", 0.0, np.zeros(0))] * len(crops)
        order = np.argsort([c.shape[1] for c in crops], kind="stable")
        batches = [order[b0:b0 + batch] for b0 in range(0, len(order), batch)][::-1]
        results = self._map(lambda ix: self._recognise_batch(crops, ix, min_width), batches)
        for idx, res in zip(batches, results, strict=True):
            for i, r in zip(idx, res, strict=True):
                out[int(i)] = r
        return out

    def _recognise_batch(self, crops: list[np.ndarray], idx: np.ndarray, min_width: int) -> list[Recognition]:
        width = max(min_width, max(crops[i].shape[1] for i in idx))
        width = int(math.ceil(width / 8.0) * 8)
        batch = np.zeros((len(idx), 3, REC_HEIGHT, width), np.float32)
        for k, i in enumerate(idx):
            c = crops[i]
            batch[k, :, :, : c.shape[1]] = c.transpose(2, 0, 1).astype(np.float32) / 127.5 - 1.0
        preds = np.asarray(self.rec.session(batch))
        return [self._ctc_decode(preds[k], width, crops[i].shape[1]) for k, i in enumerate(idx)]

    def _ctc_decode(self, pred: np.ndarray, width: int, crop_width: int) -> Recognition:
        """Greedy CTC: drop blanks and repeats; each character's position is its time step's centre."""
        stride = width / float(pred.shape[0])
        ids = pred.argmax(axis=1)
        prob = pred.max(axis=1)
        keep = ids != 0
        keep[1:] &= ids[1:] != ids[:-1]
        t = np.nonzero(keep)[0]
        text = "".join(self.chars[c] if c < len(self.chars) else "" for c in ids[t])
        score = float(prob[t].mean()) if len(t) else 0.0
        pos = (t + 0.5) * stride / float(crop_width)
        return text, score, np.clip(pos, 0.0, 1.0)
