"""Synthetic QR-code and barcode photos of documents, in YOLO format, to train the code detector offline.

No public photo set of Chinese medical reports with codes can be shipped or downloaded here, so the
detector learns from pages we draw: paper, fake report text, table rules, QR codes (``segno``) and
1-D barcodes (Code 128 and EAN-13, encoded below), then rotated, perspective-warped, blurred,
relit, binarised and JPEG-compressed the way phone photos are. Every code is placed through a
homography and its label is the bounding box of its *transformed* corners, so boxes follow the warp
exactly. Class ids: 0 ``qr``, 1 ``barcode``. Generation is deterministic: image ``i`` of a split
depends only on ``(seed, split, i)``.

cv2 and segno are imported inside functions so importing this module stays cheap.
"""

from __future__ import annotations

import functools
import json
import logging
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

CLASS_NAMES: tuple[str, ...] = ("qr", "barcode")
QR, BARCODE = 0, 1
SPLITS: dict[str, int] = {"train": 0, "val": 1, "test": 2}

# --------------------------------------------------------------------------------------------------
# 1-D symbologies, encoded here (no dependency): a run of modules, 1 = bar, 0 = space.

# Code 128 bar/space widths for values 0..105 (start A/B/C are 103/104/105), and the stop pattern.
_C128 = (
    "212222 222122 222221 121223 121322 131222 122213 122312 132212 221213 221312 231212 112232 122132 "
    "122231 113222 123122 123221 223211 221132 221231 213212 223112 312131 311222 321122 321221 312212 "
    "322112 322211 212123 212321 232121 111323 131123 131321 112313 132113 132311 211313 231113 231311 "
    "112133 112331 132131 113123 113321 133121 313121 211331 231131 213113 213311 213131 311123 311321 "
    "331121 312113 312311 332111 314111 221411 431111 111224 111422 121124 121421 141122 141221 112214 "
    "112412 122114 122411 142112 142211 241211 221114 413111 241112 134111 111242 121142 121241 114212 "
    "124112 124211 411212 421112 421211 212141 214121 412121 111143 111341 131141 114113 114311 411113 "
    "411311 113141 114131 311141 411131 211412 211214 211232"
).split()
_C128_STOP = "2331112"
_START_B, _START_C = 104, 105


def _widths_to_modules(widths: str) -> list[int]:
    out: list[int] = []
    for i, w in enumerate(widths):
        out += [1 - i % 2] * int(w)
    return out


def code128_values(data: str) -> list[int]:
    """Symbol values (start, data, checksum; no stop) of ``data`` in Code 128: set C for an even run of
    digits (as ID numbers usually are), otherwise set B (printable ASCII)."""
    if data.isdigit() and len(data) % 2 == 0 and data:
        values = [_START_C] + [int(data[i:i + 2]) for i in range(0, len(data), 2)]
    else:
        bad = [c for c in data if not 32 <= ord(c) <= 126]
        if bad or not data:
            raise ValueError(f"Code 128 set B encodes printable ASCII only, got {data!r}")
        values = [_START_B] + [ord(c) - 32 for c in data]
    check = (values[0] + sum(i * v for i, v in enumerate(values[1:], start=1))) % 103
    return values + [check]


def code128_modules(data: str) -> np.ndarray:
    """Bars of ``data`` as Code 128 modules (no quiet zone)."""
    mods: list[int] = []
    for v in code128_values(data):
        mods += _widths_to_modules(_C128[v])
    mods += _widths_to_modules(_C128_STOP)
    return np.array(mods, dtype=np.uint8)


_EAN_L = ("0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111",
          "0001011")
_EAN_PARITY = ("LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "GLLLGG", "GLGLGL",
               "GGLLLG")


def ean13_check_digit(digits12: str) -> str:
    s = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits12))
    return str((10 - s % 10) % 10)


def ean13_modules(digits: str) -> np.ndarray:
    """Bars of an EAN-13 number (12 digits, check digit added; or 13 with a correct check digit)."""
    if not digits.isdigit() or len(digits) not in (12, 13):
        raise ValueError(f"EAN-13 needs 12 or 13 digits, got {digits!r}")
    if len(digits) == 12:
        digits += ean13_check_digit(digits)
    elif digits[12] != ean13_check_digit(digits[:12]):
        raise ValueError(f"bad EAN-13 check digit in {digits!r}")
    bits = "101"
    for d, p in zip(digits[1:7], _EAN_PARITY[int(digits[0])], strict=True):
        left = _EAN_L[int(d)]
        bits += left if p == "L" else "".join("1" if c == "0" else "0" for c in left)[::-1]
    bits += "01010"
    for d in digits[7:]:
        bits += "".join("1" if c == "0" else "0" for c in _EAN_L[int(d)])
    bits += "101"
    return np.array([int(c) for c in bits], dtype=np.uint8)


# --------------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class SynthConfig:
    """How pages are drawn and degraded; probabilities are per image unless said otherwise."""

    size_range: tuple[int, int] = (320, 640)    # long side of the page, pixels
    p_negative: float = 0.15                    # pages without any code
    max_codes: int = 3
    p_barcode: float = 0.4                      # per code: 1-D barcode instead of QR
    p_closeup: float = 0.3                      # one large code filling much of the frame
    code_frac: tuple[float, float] = (0.12, 0.45)  # code side / page short side, normal pages
    closeup_frac: tuple[float, float] = (0.55, 0.95)  # phone photos of a code: it fills most of the frame
    p_rotate: float = 0.6                       # per code: in-plane rotation
    max_rotation: float = 180.0                 # degrees
    p_perspective: float = 0.5                  # per code: corner jitter
    perspective: float = 0.12                   # corner jitter / code side
    p_page_warp: float = 0.45                   # whole page photographed at an angle on a dark surface
    page_warp: float = 0.12
    p_text: float = 0.9
    p_table: float = 0.5
    p_distractor: float = 0.35                  # code-like clutter that is not a code (dot grids, stripes)
    p_blur: float = 0.35
    p_noise: float = 0.4
    p_light: float = 0.6                        # brightness/contrast and a lighting gradient
    p_binarize: float = 0.15                    # thresholded scans/photos
    p_jpeg: float = 0.6
    jpeg_quality: tuple[int, int] = (25, 90)

    @classmethod
    def clean(cls) -> SynthConfig:
        """Upright, unwarped, sharp pages: labels can be checked by decoding the code inside its box."""
        return cls(p_rotate=0.0, p_perspective=0.0, p_page_warp=0.0, p_blur=0.0, p_noise=0.0, p_light=0.0,
                   p_binarize=0.0, p_jpeg=0.0, p_distractor=0.0, p_closeup=0.0)


@dataclass(frozen=True)
class SynthObject:
    """One drawn code: class id, symbology, its content, its corners (TL, TR, BR, BL of the symbol
    without quiet zone, after every warp) and the axis-aligned box ``(x0, y0, x1, y1)`` of those corners."""

    cls: int
    symbology: str                    # "qr", "code128", "ean13"
    payload: str
    modules: int                      # modules across the symbol (QR side, barcode length)
    module_px: int                    # pixels per module before warping
    corners: tuple[tuple[float, float], ...]
    box: tuple[float, float, float, float]

    def to_json(self) -> dict[str, Any]:
        return {"cls": self.cls, "name": CLASS_NAMES[self.cls], "symbology": self.symbology,
                "payload": self.payload, "modules": self.modules, "module_px": self.module_px,
                "corners": [[round(x, 2), round(y, 2)] for x, y in self.corners],
                "box": [round(v, 2) for v in self.box]}


@dataclass
class SynthSample:
    image: np.ndarray                 # RGB uint8
    objects: list[SynthObject]
    jpeg_quality: int | None          # quality to save with (None: lossless PNG)


# --------------------------------------------------------------------------------------------------
# Fonts and text

_TEXT_CJK = ("姓名性别年龄科室门诊号住院号床号检验报告单白细胞计数红细胞血红蛋白血小板中性粒细胞淋巴细胞参考范围结果单位"
             "送检医师审核日期采样时间临床诊断标本类型血清尿液处方药品规格用法用量每日三次口服注射复查医院人民第一附属")
_TEXT_LATIN = string.ascii_letters + string.digits + "    .:-/()%"


@functools.lru_cache(maxsize=1)
def _font_paths() -> tuple[str | None, str]:
    """(a CJK font file or None, matplotlib's DejaVu Sans): what the fake report text is drawn with."""
    import matplotlib
    from matplotlib import font_manager

    dejavu = str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
    cjk = None
    try:
        from medrealmm.common.fonts import KNOWN_FAMILIES
    except ImportError:  # pragma: no cover - the report package is part of the project
        KNOWN_FAMILIES = ("Noto Sans CJK SC", "WenQuanYi Zen Hei")
    by_name = {f.name: f.fname for f in font_manager.fontManager.ttflist}
    for family in KNOWN_FAMILIES:
        if family in by_name and Path(by_name[family]).is_file():
            cjk = by_name[family]
            break
    return cjk, dejavu


@functools.lru_cache(maxsize=64)
def _font(path: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def _random_line(rng: np.random.Generator, cjk: bool, n: int) -> str:
    pool = _TEXT_CJK + string.digits * 2 + ":  " if cjk else _TEXT_LATIN
    return "".join(pool[i] for i in rng.integers(0, len(pool), n))


# --------------------------------------------------------------------------------------------------
# Drawing


def _paper(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Off-white paper with a low-frequency texture and grain (float32 RGB, 0..255)."""
    import cv2

    tint = rng.uniform(225, 255) - rng.uniform(0, 18, size=3) * rng.random()
    low = cv2.resize(rng.normal(0, 1, (max(2, h // 40), max(2, w // 40))).astype(np.float32), (w, h),
                     interpolation=cv2.INTER_CUBIC)
    img = np.empty((h, w, 3), np.float32)
    img[:] = tint
    img += low[..., None] * rng.uniform(0, 6)
    img += rng.normal(0, rng.uniform(0, 4), (h, w, 1)).astype(np.float32)
    return img


def _draw_text_and_tables(rng: np.random.Generator, img: np.ndarray, cfg: SynthConfig) -> np.ndarray:
    from PIL import Image, ImageDraw

    h, w = img.shape[:2]
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(pil)
    cjk_path, dejavu = _font_paths()
    ink = tuple(int(v) for v in rng.integers(0, 70, 3))
    if rng.random() < cfg.p_text:
        use_cjk = cjk_path is not None and rng.random() < 0.8
        path = cjk_path if use_cjk else dejavu
        size = int(rng.integers(max(8, h // 60), max(10, h // 22)))
        y = int(rng.integers(2, max(3, size)))
        if rng.random() < 0.6:  # a title
            title = _random_line(rng, use_cjk, int(rng.integers(4, 12)))
            ts = int(size * rng.uniform(1.3, 2.0))
            draw.text((int(rng.integers(0, max(1, w // 3))), y), title, fill=ink, font=_font(path, ts))
            y += int(ts * 1.6)
        while y < h - size:
            if rng.random() < 0.85:
                x = int(rng.integers(0, max(1, w // 6)))
                n = int(rng.integers(3, max(4, (w - x) // max(size, 1))))
                draw.text((x, y), _random_line(rng, use_cjk, n), fill=ink, font=_font(path, size))
            y += int(size * rng.uniform(1.3, 2.2))
    if rng.random() < cfg.p_table:
        x0, x1 = sorted(rng.integers(0, w, 2))
        y0, y1 = sorted(rng.integers(0, h, 2))
        if x1 - x0 > w // 4 and y1 - y0 > h // 6:
            lw = int(rng.integers(1, 3))
            rows = int(rng.integers(2, 12))
            for yy in np.linspace(y0, y1, rows):
                draw.line([(x0, int(yy)), (x1, int(yy))], fill=ink, width=lw)
            if rng.random() < 0.6:
                for xx in np.linspace(x0, x1, int(rng.integers(2, 6))):
                    draw.line([(int(xx), y0), (int(xx), y1)], fill=ink, width=lw)
    return np.asarray(pil).astype(np.float32)


def _draw_distractor(rng: np.random.Generator, img: np.ndarray) -> None:
    """Clutter that real reports carry and that is not a code: a red seal, a scribbled signature, a
    solid logo block. (Code-like clutter such as stripes or dot grids would teach the model to skip
    real codes, and a missed code is worse than an extra black box.)"""
    import cv2

    h, w = img.shape[:2]
    side = int(rng.uniform(0.08, 0.25) * min(h, w))
    if side < 10:
        return
    cx, cy = int(rng.integers(side // 2, w - side // 2)), int(rng.integers(side // 2, h - side // 2))
    kind = rng.random()
    if kind < 0.4:  # seal
        color = (float(rng.uniform(170, 240)), float(rng.uniform(0, 60)), float(rng.uniform(0, 60)))
        cv2.circle(img, (cx, cy), side // 2, color, max(1, side // 25))
        cv2.drawMarker(img, (cx, cy), color, cv2.MARKER_STAR, side // 3, max(1, side // 30))
    elif kind < 0.75:  # signature
        t = np.linspace(0, 1, 60)
        xs = cx - side // 2 + t * side
        ys = cy + np.cumsum(rng.normal(0, side / 40, t.size)) + np.sin(t * rng.uniform(6, 20)) * side / 8
        pts = np.stack([xs, ys], 1).astype(np.int32)
        cv2.polylines(img, [pts], False, tuple(float(v) for v in rng.uniform(0, 80, 3)), max(1, side // 40))
    else:  # logo block
        color = tuple(float(v) for v in rng.uniform(0, 200, 3))
        cv2.rectangle(img, (cx - side // 3, cy - side // 4), (cx + side // 3, cy + side // 4), color, -1)


def _qr_symbol(rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """A QR matrix (1 = dark, no quiet zone) with a random payload like those on reports and receipts."""
    import segno

    kind = rng.random()
    if kind < 0.35:
        host = "".join(rng.choice(list(string.ascii_lowercase), int(rng.integers(3, 10))))
        path = "".join(rng.choice(list(string.ascii_letters + string.digits), int(rng.integers(4, 40))))
        payload = f"https://{host}.{rng.choice(['com', 'cn', 'com.cn', 'org'])}/{path}"
    elif kind < 0.6:
        payload = "".join(rng.choice(list(string.digits), int(rng.integers(6, 30))))
    elif kind < 0.8:
        alphabet = list(string.ascii_uppercase + string.digits + "-:;")
        payload = "".join(rng.choice(alphabet, int(rng.integers(4, 60))))
    else:
        payload = "".join(rng.choice(list(_TEXT_CJK), int(rng.integers(2, 16))))
    error = str(rng.choice(["L", "M", "Q", "H"]))
    if payload.isascii():
        qr = segno.make_qr(payload, error=error, boost_error=False)
    else:  # UTF-8 bytes, as Chinese QR codes carry them (segno would pick Shift-JIS kanji mode)
        qr = segno.make_qr(payload, error=error, boost_error=False, mode="byte", encoding="utf-8")
    return np.array([list(row) for row in qr.matrix], dtype=np.uint8), payload


def _barcode_symbol(rng: np.random.Generator) -> tuple[np.ndarray, str, str]:
    if rng.random() < 0.55:
        if rng.random() < 0.5:
            payload = "".join(rng.choice(list(string.digits), 2 * int(rng.integers(3, 9))))
        else:
            alphabet = list(string.ascii_uppercase + string.digits)
            payload = "".join(rng.choice(alphabet, int(rng.integers(4, 16))))
        return code128_modules(payload), payload, "code128"
    digits = "".join(rng.choice(list(string.digits), 12))
    digits += ean13_check_digit(digits)
    return ean13_modules(digits), digits, "ean13"


def _render_code(rng: np.random.Generator, closeup: bool, want_barcode: bool, target: float
                 ) -> tuple[np.ndarray, np.ndarray, int, str, str, int, int]:
    """The code as a darkness image (1 = ink) with quiet zone, about ``target`` pixels wide; the
    symbol's corners in it (TL, TR, BR, BL); class id, symbology, payload, modules, pixels per module."""
    if want_barcode:
        mods, payload, symb = _barcode_symbol(rng)
        n = len(mods)
        m = max(1, int(round(target / n)))
        quiet = int(rng.integers(6, 12))
        height_mods = max(8, int(n * rng.uniform(0.15, 0.45)))
        row = np.concatenate([np.zeros(quiet, np.uint8), mods, np.zeros(quiet, np.uint8)])
        dark = np.repeat(row, m)[None, :].repeat(height_mods * m, axis=0)
        pad = quiet * m // 2
        dark = np.pad(dark, ((pad, pad), (0, 0)))
        x0, y0 = quiet * m, pad
        x1, y1 = x0 + n * m, pad + height_mods * m
        cls = BARCODE
    else:
        mat, payload = _qr_symbol(rng)
        symb = "qr"
        n = mat.shape[0]
        m = max(1, int(round(target / n)))
        quiet = int(rng.integers(0, 3)) if closeup else int(rng.integers(2, 5))
        dark = np.pad(np.kron(mat, np.ones((m, m), np.uint8)), quiet * m)
        x0 = y0 = quiet * m
        x1 = y1 = x0 + n * m
        cls = QR
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return dark, corners, cls, symb, payload, n, m


def _place_code(rng: np.random.Generator, img: np.ndarray, placed: list[np.ndarray], cfg: SynthConfig,
                closeup: bool) -> SynthObject | None:
    """Draw one code onto ``img`` through a random homography; None when it did not fit."""
    import cv2

    h, w = img.shape[:2]
    short = min(h, w)
    frac = cfg.closeup_frac if closeup else cfg.code_frac
    want_barcode = (not closeup or rng.random() < 0.3) and rng.random() < cfg.p_barcode
    side = rng.uniform(*frac) * short * (1.6 if want_barcode else 1.0)
    dark, sym_corners, cls, symb, payload, n_mod, m_px = _render_code(rng, closeup, want_barcode, side)
    sh, sw = dark.shape
    ink = rng.uniform(0, 60, 3) if rng.random() < 0.8 else rng.uniform(0, 90) * np.ones(3)
    src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32)
    for _ in range(12):
        scale = side / max(sym_corners[1, 0] - sym_corners[0, 0], 1)
        rotate = rng.random() < cfg.p_rotate
        theta = np.deg2rad(rng.uniform(-cfg.max_rotation, cfg.max_rotation)) if rotate else 0.0
        rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]], np.float32)
        dst = ((src - [sw / 2, sh / 2]) * scale) @ rot.T
        if rng.random() < cfg.p_perspective:
            dst = dst + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * cfg.perspective * side
        lo, hi = dst.min(0), dst.max(0)
        if (hi - lo)[0] >= w or (hi - lo)[1] >= h:
            side *= 0.9
            continue
        off = np.array([rng.uniform(-lo[0], w - hi[0]), rng.uniform(-lo[1], h - hi[1])], np.float32)
        dst = (dst + off).astype(np.float32)
        bb = np.array([*dst.min(0), *dst.max(0)])
        if any(bb[0] < p[2] and p[0] < bb[2] and bb[1] < p[3] and p[1] < bb[3] for p in placed):
            continue
        H = cv2.getPerspectiveTransform(src, dst)
        darkness = cv2.warpPerspective(dark.astype(np.float32), H, (w, h), flags=cv2.INTER_LINEAR)
        cover = cv2.warpPerspective(np.ones((sh, sw), np.float32), H, (w, h), flags=cv2.INTER_LINEAR)
        paper = np.median(img[int(bb[1]):int(bb[3]) + 1, int(bb[0]):int(bb[2]) + 1].reshape(-1, 3), axis=0)
        paper = np.maximum(paper, 200)  # codes are printed on a light patch
        code_rgb = paper * (1 - darkness[..., None]) + ink * darkness[..., None]
        img[:] = img * (1 - cover[..., None]) + code_rgb * cover[..., None]
        corners = cv2.perspectiveTransform(sym_corners[None], H)[0]
        placed.append(bb)
        return _object(cls, symb, payload, n_mod, m_px, corners)
    return None


def _object(cls: int, symb: str, payload: str, modules: int, module_px: int, corners: np.ndarray
            ) -> SynthObject:
    lo, hi = corners.min(0), corners.max(0)
    return SynthObject(cls, symb, payload, modules, module_px,
                       tuple((float(x), float(y)) for x, y in corners),
                       (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))


def _page_warp(rng: np.random.Generator, img: np.ndarray, objects: list[SynthObject], cfg: SynthConfig
               ) -> tuple[np.ndarray, list[SynthObject]]:
    """Photograph the page at an angle on a darker surface; codes must stay wholly in frame."""
    import cv2

    h, w = img.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    surface = rng.uniform(0, 120, 3) if rng.random() < 0.7 else rng.uniform(120, 255, 3)
    for _ in range(6):
        jitter = rng.uniform(-0.3, 1.0, (4, 2)) * cfg.page_warp * np.array([w, h])
        dst = (src + jitter * np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]])).astype(np.float32)
        H = cv2.getPerspectiveTransform(src, dst)
        moved = [cv2.perspectiveTransform(np.array([o.corners], np.float32), H)[0] for o in objects]
        if all(c.min() >= 0 and c[:, 0].max() <= w and c[:, 1].max() <= h for c in moved):
            out = cv2.warpPerspective(img, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                      borderValue=tuple(float(v) for v in surface))
            return out, [_object(o.cls, o.symbology, o.payload, o.modules, o.module_px, c)
                         for o, c in zip(objects, moved, strict=True)]
    return img, objects


def _photometric(rng: np.random.Generator, img: np.ndarray, cfg: SynthConfig) -> np.ndarray:
    import cv2

    h, w = img.shape[:2]
    if rng.random() < cfg.p_light:
        img = img * rng.uniform(0.6, 1.25) + rng.uniform(-40, 30)
        gx, gy = rng.uniform(-0.35, 0.35, 2)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        img = img * (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))[..., None]
    if rng.random() < cfg.p_blur:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 1.6)))
    if rng.random() < cfg.p_noise:
        img = img + rng.normal(0, rng.uniform(2, 12), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < cfg.p_binarize:
        gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        block = int(rng.integers(8, 30)) * 2 + 1
        bw = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block,
                                   float(rng.uniform(2, 12)))
        img = np.repeat(bw[..., None], 3, axis=2)
    return img


def render_sample(rng: np.random.Generator, cfg: SynthConfig | None = None) -> SynthSample:
    """One page: an RGB image and the codes on it (maybe none)."""
    cfg = cfg or SynthConfig()
    long_side = int(rng.integers(cfg.size_range[0], cfg.size_range[1] + 1))
    aspect = rng.uniform(0.7, 1.45)
    w, h = (long_side, int(long_side / aspect)) if aspect >= 1 else (int(long_side * aspect), long_side)
    img = _draw_text_and_tables(rng, _paper(rng, h, w), cfg)
    if rng.random() < cfg.p_distractor:
        for _ in range(int(rng.integers(1, 4))):
            _draw_distractor(rng, img)
    objects: list[SynthObject] = []
    placed: list[np.ndarray] = []
    if rng.random() >= cfg.p_negative:
        closeup = rng.random() < cfg.p_closeup
        n = 1 if closeup else int(rng.integers(1, cfg.max_codes + 1))
        for _ in range(n):
            obj = _place_code(rng, img, placed, cfg, closeup)
            if obj is not None:
                objects.append(obj)
    if rng.random() < cfg.p_page_warp:
        img, objects = _page_warp(rng, img, objects, cfg)
    out = _photometric(rng, img, cfg)
    quality = None
    if rng.random() < cfg.p_jpeg:
        quality = int(rng.integers(cfg.jpeg_quality[0], cfg.jpeg_quality[1] + 1))
    return SynthSample(out, objects, quality)


def yolo_label_lines(objects: Sequence[SynthObject], width: int, height: int) -> list[str]:
    """``cls cx cy w h`` lines, normalised, boxes clipped to the image."""
    lines = []
    for o in objects:
        x0, y0 = max(0.0, o.box[0]), max(0.0, o.box[1])
        x1, y1 = min(float(width), o.box[2]), min(float(height), o.box[3])
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        lines.append(f"{o.cls} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
                     f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")
    return lines


def write_split(out_dir: str | Path, split: str, n: int, *, seed: int = 0, cfg: SynthConfig | None = None
                ) -> Path:
    """Write ``n`` pages of one split under ``images/<split>`` and ``labels/<split>``, plus
    ``annotations_<split>.jsonl`` (payloads and corners, for checks). Returns the images folder."""
    import cv2

    out = Path(out_dir)
    img_dir, lbl_dir = out / "images" / split, out / "labels" / split
    img_dir.mkdir(parents=True, exist_ok=True)
    lbl_dir.mkdir(parents=True, exist_ok=True)
    split_id = SPLITS.get(split, sum(split.encode()) + 100)
    with open(out / f"annotations_{split}.jsonl", "w", encoding="utf-8") as ann:
        for i in range(n):
            rng = np.random.default_rng([seed, split_id, i])
            s = render_sample(rng, cfg)
            stem = f"{split}_{i:05d}"
            bgr = cv2.cvtColor(s.image, cv2.COLOR_RGB2BGR)
            if s.jpeg_quality is not None:
                name = f"{stem}.jpg"
                ok = cv2.imwrite(str(img_dir / name), bgr, [cv2.IMWRITE_JPEG_QUALITY, s.jpeg_quality])
            else:
                name = f"{stem}.png"
                ok = cv2.imwrite(str(img_dir / name), bgr)
            if not ok:
                raise OSError(f"could not write {img_dir / name}")
            h, w = s.image.shape[:2]
            lines = yolo_label_lines(s.objects, w, h)
            (lbl_dir / f"{stem}.txt").write_text("".join(line + "\n" for line in lines))
            ann.write(json.dumps({"image": f"images/{split}/{name}", "width": w, "height": h,
                                  "objects": [o.to_json() for o in s.objects]}, ensure_ascii=False) + "\n")
    log.info("wrote %d synthetic %s images to %s", n, split, img_dir)
    return img_dir


def generate_dataset(out_dir: str | Path, n_train: int, n_val: int, *, seed: int = 0,
                     cfg: SynthConfig | None = None, val_cfg: SynthConfig | None = None) -> Path:
    """A YOLO dataset (``images/``, ``labels/``, ``data.yaml``) of ``n_train`` + ``n_val`` pages.
    Returns the path of ``data.yaml``."""
    out = Path(out_dir).resolve()
    write_split(out, "train", n_train, seed=seed, cfg=cfg)
    write_split(out, "val", n_val, seed=seed, cfg=val_cfg or cfg)
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    data_yaml = out / "data.yaml"
    data_yaml.write_text(f"path: {json.dumps(str(out))}\ntrain: images/train\nval: images/val\n"
                         f"names:\n{names}\n")
    return data_yaml


__all__ = ["BARCODE", "CLASS_NAMES", "QR", "SynthConfig", "SynthObject", "SynthSample", "code128_modules",
           "code128_values", "ean13_check_digit", "ean13_modules", "generate_dataset", "render_sample",
           "write_split", "yolo_label_lines"]
