"""Geometry of OCR text lines: quadrilaterals, reading order, rows, page tilt, character positions.

A line's quadrilateral is kept in reading order (start-top, end-top, end-bottom, start-bottom) in
image pixels; an identifier inside a line (the value after 姓名:) is the part of that quadrilateral
between its first and last character, interpolated along the line's own direction, so a tilted
photo loses only the identifier, not the rows around it. Pure numpy (OpenCV only to straighten a
crop); no OCR model and no identifier rules here.

Recognised text is an identifier candidate: :class:`OcrLine` hides it from ``repr``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from medrealmm.deid.image.base import Box
from medrealmm.deid.image.ocr_engine import REC_HEIGHT

# ------------------------------------------------------------------------------------------- one line

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


# ------------------------------------------------------------------------------------------- rows

class RowGeometry:
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


def rows_of_lines(geo: RowGeometry, merge_gap: float) -> list[list[int]]:
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


# ------------------------------------------------------------------------------------------- page

def page_angle(quads: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
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


def reading_order(q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The cyclic order of quad ``q`` whose first edge runs along ``u`` and second across it (down)."""
    n = np.array([-u[1], u[0]])
    best, score = q, -math.inf
    for r in range(4):
        c = np.roll(q, -r, axis=0)
        s = float(np.dot(c[1] - c[0], u) + np.dot(c[3] - c[0], n))
        if s > score:
            best, score = c, s
    return best.astype(np.float32)


def crop_line(bgr: np.ndarray, q: np.ndarray) -> np.ndarray:
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


def line_axes(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each line's reading axis (unit vectors, pointing right or down; n x 2) — the page's text
    direction, except for lines more than 45 degrees off it (a sideways stamp), which keep their own
    — with each line's long side, aspect ratio, and whether it is such an outlier."""
    n = len(quads)
    phi, long_len, aspect, theta = page_angle(quads)
    u_page = np.array([math.cos(phi), math.sin(phi)])
    if u_page[0] < -1e-6 or (abs(u_page[0]) <= 1e-6 and u_page[1] < 0):
        u_page = -u_page
    dev = np.abs(np.cos(theta - phi))
    outlier = (aspect >= 1.5) & (dev < math.cos(math.radians(45)))
    axes = np.tile(u_page, (n, 1))
    for j in np.nonzero(outlier)[0]:
        v = np.array([math.cos(theta[j]), math.sin(theta[j])])
        axes[j] = v if (v[0] > 1e-6 or (abs(v[0]) <= 1e-6 and v[1] > 0)) else -v
    return axes, long_len, aspect, outlier


def tilt_redetect_limit(quads: np.ndarray, shape: tuple[int, ...], base: int, min_degrees: float) -> int | None:
    """A higher detection resolution for a page tilted at least ``min_degrees`` from the axes, or
    None to keep the first pass (detected at max side ``base``).

    At 40 degrees a page's bounding box is ~1.4x its upright size, so the same text reaches the
    detector ~0.7x smaller, and close diagonal lines merge in its probability map (measured on a
    report photo turned 40 degrees: the line with the receipt time was lost at 1280 px, found at
    1600). The limit grows by that bounding-box factor, never past the image's own size."""
    phi = page_angle(quads)[0]
    tilt = abs(phi) % (math.pi / 2)
    tilt = min(tilt, math.pi / 2 - tilt)
    if tilt < math.radians(min_degrees):
        return None
    limit = min(max(shape), round(base * (math.cos(tilt) + math.sin(tilt))))
    return limit if limit > base * 1.05 else None
