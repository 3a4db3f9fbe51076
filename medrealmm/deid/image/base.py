"""The one interface every image detector implements, and the registry that builds them from config.

Detectors take a batch of RGB images (``numpy`` uint8 arrays, H x W x 3, EXIF orientation already
applied) and return, per image, the boxes to mask. A :class:`Box` holds no identifying content —
only where, what kind and which detector — so it can go to logs and to the audit trail.

OCR boxes also carry the text line's quadrilateral (``quad``): on a tilted photo the axis-aligned
rectangle around a line covers the rows above and below it (a report title at 40 degrees blacked out
sex, department and reference ranges), so the mask fills the quadrilateral instead. Codes and faces
keep plain rectangles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]

IMAGE_CATEGORIES: tuple[str, ...] = ("FACE", "QR", "BARCODE")
"""Box categories of the visual detectors; OCR boxes use the text categories of
:data:`medrealmm.deid.spans.CATEGORIES` (NAME, ID, MRN, HOSPITAL, DATE, ...) plus ``SIGNATURE``."""


@dataclass(frozen=True)
class Box:
    """Where to mask. ``x0..y1`` is the axis-aligned rectangle; ``quad`` (OCR lines only) is the
    convex quadrilateral actually masked, in reading order (start-top, end-top, end-bottom,
    start-bottom), image pixels; the rectangle then bounds it (clipped to the image; the quad is not
    clipped — filling clips it)."""

    x0: int
    y0: int
    x1: int            # exclusive
    y1: int            # exclusive
    category: str
    detector: str
    score: float = 1.0
    quad: Quad | None = None

    def __post_init__(self) -> None:
        if not (self.x1 > self.x0 and self.y1 > self.y0):
            raise ValueError(f"empty box {self.x0},{self.y0},{self.x1},{self.y1}")
        if self.quad is not None and len(self.quad) != 4:
            raise ValueError(f"a quad has 4 points, got {len(self.quad)}")

    @classmethod
    def from_quad(cls, quad: np.ndarray | Sequence[Sequence[float]], category: str, detector: str,
                  score: float = 1.0) -> Box | None:
        """The box of a quadrilateral (its bounding rectangle plus the quad), None when degenerate."""
        q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        if not np.all(np.isfinite(q)):
            return None
        x0, y0 = np.floor(q.min(axis=0)).astype(int)
        x1, y1 = np.ceil(q.max(axis=0)).astype(int)
        if x1 <= x0 or y1 <= y0:
            return None
        return cls(int(x0), int(y0), int(x1), int(y1), category, detector, float(score), _as_quad(q))

    @property
    def area(self) -> int:
        return (self.x1 - self.x0) * (self.y1 - self.y0)

    def clip(self, width: int, height: int) -> Box | None:
        """The box inside a width x height image, or None when nothing of it is inside."""
        x0, y0 = max(0, self.x0), max(0, self.y0)
        x1, y1 = min(width, self.x1), min(height, self.y1)
        if x1 <= x0 or y1 <= y0:
            return None
        return Box(x0, y0, x1, y1, self.category, self.detector, self.score, self.quad)

    def pad(self, pixels: int) -> Box:
        """Grown by ``pixels`` on every side: a rectangle along x and y, a quad along its own edges
        (each edge moved outward by ``pixels``), so padding a tilted line does not widen it sideways."""
        if self.quad is None:
            return Box(self.x0 - pixels, self.y0 - pixels, self.x1 + pixels, self.y1 + pixels, self.category,
                       self.detector, self.score)
        q = offset_quad(np.asarray(self.quad, dtype=np.float64), float(pixels))
        grown = Box.from_quad(q, self.category, self.detector, self.score)
        return grown if grown is not None else self

    def audit(self) -> dict[str, Any]:
        """Geometry, category, detector and score — never text. ``polygon`` when a quad is masked."""
        out: dict[str, Any] = {"box": [self.x0, self.y0, self.x1, self.y1], "category": self.category,
                               "detector": self.detector, "score": round(float(self.score), 4)}
        if self.quad is not None:
            out["polygon"] = [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad]
        return out


def _as_quad(q: np.ndarray) -> Quad:
    """A hashable quad (frozen Box), rounded to 1/100 px so equal geometry compares equal."""
    pts = [(round(float(x), 2), round(float(y), 2)) for x, y in q.reshape(4, 2)]
    return (pts[0], pts[1], pts[2], pts[3])


def offset_quad(q: np.ndarray, pixels: float) -> np.ndarray:
    """Quad ``q`` with every edge moved ``pixels`` outward (negative: inward), corners re-intersected.

    Exact for rectangles and parallelograms; for a convex quad each edge ends up ``pixels`` from
    the old one, so a pad means the same margin on every side whatever the tilt. A corner sharper
    than ~40 degrees (not an OCR line's) has its miter limited to twice the pad instead of running away.
    """
    q = np.asarray(q, dtype=np.float64).reshape(4, 2)
    if pixels == 0:
        return q.copy()
    area2 = sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4))
    sign = 1.0 if area2 >= 0 else -1.0                  # image coords (y down): area2 > 0 is clockwise
    normals = []
    for i in range(4):
        d = q[(i + 1) % 4] - q[i]
        n = float(np.hypot(*d))
        normals.append(np.zeros(2) if n < 1e-9 else sign * np.array([d[1], -d[0]]) / n)   # outward
    out = np.empty_like(q)
    for i in range(4):
        n_prev, n_next = normals[i - 1], normals[i]
        m = n_prev + n_next
        denom = 1.0 + float(n_prev @ n_next)             # 1 + cos(angle between the two normals)
        if denom >= 0.25:
            out[i] = q[i] + pixels * m / denom           # the miter: `pixels` from both edges
        elif float(np.hypot(*m)) > 1e-9:                 # sharp corner: miter limited to 2x the pad
            out[i] = q[i] + 2.0 * pixels * m / float(np.hypot(*m))
        else:                                            # a zero-length or folded edge
            out[i] = q[i] + pixels * (n_next if n_next.any() else n_prev)
    return out


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
