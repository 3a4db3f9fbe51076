"""The one interface every image detector implements, and the registry that builds them from config.

Detectors take a batch of RGB images (``numpy`` uint8 arrays, H x W x 3, EXIF orientation already
applied) and return, per image, the boxes to mask. A :class:`Box` holds no identifying content —
only where, what kind and which detector — so it can go to logs and to the audit trail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

IMAGE_CATEGORIES: tuple[str, ...] = ("FACE", "QR", "BARCODE")
"""Box categories of the visual detectors; OCR boxes use the text categories of
:data:`medrealmm.deid.spans.CATEGORIES` (NAME, ID, MRN, HOSPITAL, DATE, ...) plus ``SIGNATURE``."""


@dataclass(frozen=True)
class Box:
    x0: int
    y0: int
    x1: int            # exclusive
    y1: int            # exclusive
    category: str
    detector: str
    score: float = 1.0

    def __post_init__(self) -> None:
        if not (self.x1 > self.x0 and self.y1 > self.y0):
            raise ValueError(f"empty box {self.x0},{self.y0},{self.x1},{self.y1}")

    @property
    def area(self) -> int:
        return (self.x1 - self.x0) * (self.y1 - self.y0)

    def clip(self, width: int, height: int) -> Box | None:
        """The box inside a width x height image, or None when nothing of it is inside."""
        x0, y0 = max(0, self.x0), max(0, self.y0)
        x1, y1 = min(width, self.x1), min(height, self.y1)
        if x1 <= x0 or y1 <= y0:
            return None
        return Box(x0, y0, x1, y1, self.category, self.detector, self.score)

    def pad(self, pixels: int) -> Box:
        return Box(self.x0 - pixels, self.y0 - pixels, self.x1 + pixels, self.y1 + pixels, self.category,
                   self.detector, self.score)

    def audit(self) -> dict[str, Any]:
        return {"box": [self.x0, self.y0, self.x1, self.y1], "category": self.category,
                "detector": self.detector, "score": round(float(self.score), 4)}


class ImageDetector(Protocol):
    """Finds what to mask. ``detect`` is batched: one list of boxes per input image, in order."""

    name: str

    def detect(self, images: Sequence[np.ndarray]) -> list[list[Box]]: ...


DetectorFactory = Callable[[Mapping[str, Any]], ImageDetector]
_REGISTRY: dict[str, DetectorFactory] = {}


def register(kind: str) -> Callable[[DetectorFactory], DetectorFactory]:
    """Decorator: make a detector buildable from config as ``{kind: <kind>, ...}``."""
    def deco(factory: DetectorFactory) -> DetectorFactory:
        if kind in _REGISTRY:
            raise ValueError(f"image detector kind {kind!r} registered twice")
        _REGISTRY[kind] = factory
        return factory
    return deco


def make_detector(cfg: Mapping[str, Any]) -> ImageDetector:
    """Build the detector a config entry describes (its ``kind`` picks the class)."""
    _load_builtin()
    kind = cfg.get("kind")
    if kind not in _REGISTRY:
        raise ValueError(f"unknown image detector kind {kind!r}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[kind](cfg)


def _load_builtin() -> None:
    """Import the modules that register the built-in detectors (lazily: they import cv2, torch...)."""
    import importlib

    for module in ("opencv_detectors", "ocr", "yolo"):
        try:
            importlib.import_module(f"medrealmm.deid.image.{module}")
        except ModuleNotFoundError as e:
            if e.name != f"medrealmm.deid.image.{module}":
                raise
