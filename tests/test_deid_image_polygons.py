"""Tilted text is masked as the OCR quadrilateral, not its axis-aligned rectangle.

On a photo tilted ~40 degrees the bounding rectangle of a text line reaches into the rows above
and below it (a report title's rectangle blacked out sex, department and reference ranges). These
tests check the geometry (quad padding along its own edges, pixel coverage, sub-line quads along
the line's direction), the audit (polygons, never text), and, end to end with the real OCR on a
synthetic tilted form, that the name is covered while the department under it stays readable.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from medrealmm.deid.image.base import Box, offset_quad
from medrealmm.deid.image.mask import coverage, mask_boxes, quad_pixels
from medrealmm.deid.image.pipeline import ImagePipeline


def _rotated_rect(cx: float, cy: float, length: float, height: float, degrees: float) -> np.ndarray:
    """A length x height rectangle centred on (cx, cy), turned counter-clockwise on screen (y down),
    in reading order: start-top, end-top, end-bottom, start-bottom."""
    a = math.radians(degrees)
    u = np.array([math.cos(a), -math.sin(a)])          # along the line (up-right on screen)
    n = np.array([math.sin(a), math.cos(a)])           # across it (down)
    c = np.array([cx, cy])
    hl, hh = length / 2, height / 2
    return np.array([c - hl * u - hh * n, c + hl * u - hh * n, c + hl * u + hh * n, c - hl * u + hh * n])


def _edge_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    return abs(float(d[0] * (p[1] - a[1]) - d[1] * (p[0] - a[0]))) / float(np.hypot(*d))


# --------------------------------------------------------------------------------------- geometry


@pytest.mark.parametrize("degrees", [0.0, 40.0, -35.0, 180.0])
def test_padding_moves_every_edge_of_a_tilted_quad_outward_by_the_pad(degrees):
    q = _rotated_rect(200, 150, 120, 30, degrees)
    grown = offset_quad(q, 4.0)
    for i in range(4):                                   # each new edge is 4 px from the old one, outside
        assert _edge_distance(grown[i], q[i], q[(i + 1) % 4]) == pytest.approx(4.0, abs=1e-6)
        assert _edge_distance(grown[(i + 1) % 4], q[i], q[(i + 1) % 4]) == pytest.approx(4.0, abs=1e-6)
    assert np.linalg.norm(grown[1] - grown[0]) == pytest.approx(128.0)
    assert np.linalg.norm(grown[3] - grown[0]) == pytest.approx(38.0)
    assert np.allclose(offset_quad(q[::-1], 4.0), grown[::-1])     # either winding grows outward

    box = Box.from_quad(q, "NAME", "ocr", 0.9)
    padded = box.pad(4)
    assert padded.quad is not None and np.allclose(np.asarray(padded.quad), grown, atol=0.01)
    assert (padded.x0, padded.y0) == tuple(np.floor(grown.min(axis=0)).astype(int))
    assert padded.category == "NAME" and padded.score == 0.9
    assert Box(2, 2, 4, 4, "QR", "t").pad(3) == Box(-1, -1, 7, 7, "QR", "t")    # rectangles: as before


def test_quad_coverage_fills_the_polygon_not_its_rectangle():
    q = _rotated_rect(100, 100, 160, 24, 40.0)
    box = Box.from_quad(q, "NAME", "ocr")
    cover = coverage([box], 220, 220)
    area = 160 * 24
    assert area <= cover.sum() <= 1.2 * area                    # the polygon, plus its boundary pixels
    rect_area = (box.x1 - box.x0) * (box.y1 - box.y0)
    assert cover.sum() < 0.45 * rect_area                        # at 40 degrees the rectangle is > 2x bigger
    ys, xs = np.mgrid[0:220, 0:220]
    rel = np.stack([xs - 100.0, ys - 100.0], axis=-1)
    a = math.radians(40.0)
    along = rel @ np.array([math.cos(a), -math.sin(a)])
    across = rel @ np.array([math.sin(a), math.cos(a)])
    inside = (np.abs(along) <= 80) & (np.abs(across) <= 12)
    outside = (np.abs(along) >= 81.5) | (np.abs(across) >= 13.5)
    assert cover[inside].all() and not cover[outside].any()

    img = np.full((220, 220, 3), 200, np.uint8)
    out = mask_boxes(img, [box, Box(0, 0, 10, 10, "QR", "qr")])
    expected = cover.copy()
    expected[:10, :10] = True                                    # a code keeps its rectangle
    assert (out[expected] == 0).all() and (out[~expected] == 200).all()
    folded = Box(0, 0, 20, 20, "NAME", "ocr", quad=((0, 0), (20, 20), (20, 0), (0, 20)))
    assert quad_pixels(folded).all()                             # a non-convex quad: the whole rectangle


def test_sub_line_identifier_quad_follows_the_line_direction():
    """The value after 姓名: on a tilted line: its quad lies on the line's own edges, between the
    value's first and last character — not the rectangle around it."""
    from medrealmm.deid.image.ocr_engine import REC_HEIGHT
    from medrealmm.deid.image.ocr_geometry import OcrLine

    text = "姓名张三丰性别男"
    q = _rotated_rect(300, 300, 8 * 40, 40, 40.0)
    pos = (np.arange(len(text)) + 0.5) / len(text)
    line = OcrLine(q, text, 0.99, pos, crop_width=len(text) * REC_HEIGHT)
    t0, t1 = line.span_fraction(2, 5)
    assert t0 == pytest.approx(0.25) and t1 == pytest.approx(0.625)
    sub = line.sub_quad(t0, t1, 0.0, 0.0)
    top, bottom = q[1] - q[0], q[2] - q[3]
    for p, a, d in ((sub[0], q[0], top), (sub[1], q[0], top), (sub[2], q[3], bottom), (sub[3], q[3], bottom)):
        assert abs(float(d[0] * (p[1] - a[1]) - d[1] * (p[0] - a[0]))) / np.hypot(*d) < 1e-6   # on the edge
    assert np.allclose(sub[0], q[0] + 0.25 * top) and np.allclose(sub[2], q[3] + 0.625 * bottom)
    box = Box.from_quad(sub, "NAME", "ocr")
    assert coverage([box], 600, 600).sum() < 0.5 * (box.x1 - box.x0) * (box.y1 - box.y0)


class _Fixed:
    name = "fixed"

    def __init__(self, boxes: list[Box]):
        self.boxes = boxes

    def detect(self, images):
        return [list(self.boxes) for _ in images]


def test_pipeline_masks_quads_and_the_audit_records_polygons_never_text():
    q = _rotated_rect(60, 60, 80, 16, 40.0)
    name = Box.from_quad(q, "NAME", "ocr", 0.97)
    code = Box(100, 100, 118, 118, "QR", "qr_opencv")
    buf = io.BytesIO()
    Image.new("RGB", (140, 130), (210, 210, 210)).save(buf, "PNG")
    pipe = ImagePipeline([_Fixed([name, code])], pad=3)
    (res,) = pipe.process([buf.getvalue()])
    arr = np.full((130, 140, 3), 210, np.uint8)
    masked, boxes = pipe.mask(arr, pipe.detect([arr])[0])
    assert res.boxes == boxes and np.array_equal(res.image, masked)
    poly, rect = res.boxes
    assert poly.quad is not None and rect.quad is None
    assert np.allclose(np.asarray(poly.quad), offset_quad(q, 3.0), atol=0.01)
    cover = coverage(res.boxes, 140, 130)
    assert (res.image[cover] == 0).all() and (res.image[~cover] == 210).all()
    assert res.masked_share == pytest.approx(cover.mean())
    axis_aligned = coverage([replace(b, quad=None) for b in res.boxes], 140, 130)
    assert res.masked_share < 0.6 * axis_aligned.mean()
    audit = json.loads(json.dumps(res.audit()))
    ocr_box, qr_box = audit["boxes"]
    assert len(ocr_box["polygon"]) == 4 and all(len(p) == 2 for p in ocr_box["polygon"])
    assert ocr_box["box"] == [poly.x0, poly.y0, poly.x1, poly.y1] and "polygon" not in qr_box
    assert set(ocr_box) == {"box", "polygon", "category", "detector", "score"}


# --------------------------------------------------------------------------------------- real OCR

_CJK_FONTS = ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
              "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
              "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", "/System/Library/Fonts/PingFang.ttc",
              "C:/Windows/Fonts/msyh.ttc")


def _cjk_font(size: int) -> ImageFont.FreeTypeFont:
    for path in _CJK_FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size)
    pytest.skip(f"no CJK font to draw a synthetic report (looked for {', '.join(_CJK_FONTS)})")


def _tilted_form(degrees: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A three-row form (name / department / a lab value) drawn upright and turned ``degrees``;
    and, per word of interest, which pixels of the turned image are that word's ink."""
    font = _cjk_font(36)
    rows = [("姓名：", "张三丰", "  性别：男", "name"), ("科室：", "心内科", "  年龄：56岁", "dept"),
            ("白细胞 12.70", "", "  参考范围 3.50-10.00", "")]
    size = (760, 260)
    page = Image.new("L", size, 255)
    layers = {key: Image.new("L", size, 0) for *_, key in rows if key}
    y = 30
    for label, word, rest, key in rows:
        ImageDraw.Draw(page).text((30, y), label + word + rest, font=font, fill=0)
        if key:
            ImageDraw.Draw(layers[key]).text((30 + font.getlength(label), y), word, font=font, fill=255)
        y += 64
    turned = page.convert("RGB").rotate(degrees, resample=Image.Resampling.BICUBIC, expand=True,
                                        fillcolor=(255, 255, 255))
    arr = np.array(turned)
    ink = arr.min(axis=2) < 128
    words = {k: ink & (np.array(v.rotate(degrees, resample=Image.Resampling.NEAREST, expand=True)) > 0)
             for k, v in layers.items()}
    return arr, words


@pytest.fixture(scope="module")
def ocr():
    pytest.importorskip("rapidocr", reason="rapidocr is not installed")
    from medrealmm.deid.image.ocr import OcrDetector

    return OcrDetector()


def test_tilted_form_masks_the_name_and_leaves_the_department_below_readable(ocr):
    arr, words = _tilted_form(40.0)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "PNG")
    pipe = ImagePipeline([ocr], pad=4)
    (res,) = pipe.process([buf.getvalue()])
    assert res.categories() == {"NAME": 1}
    (box,) = res.boxes
    assert box.quad is not None
    h, w = arr.shape[:2]
    polygon = coverage(res.boxes, w, h)
    rectangle = coverage([replace(b, quad=None) for b in res.boxes], w, h)
    name, dept = words["name"], words["dept"]
    assert name.sum() > 300 and dept.sum() > 300
    assert polygon[name].all(), f"{int((~polygon[name]).sum())} name pixels left unmasked"
    assert not polygon[dept].any()                                  # the department under it stays
    assert rectangle[dept].mean() > 0.25                            # ... which the rectangle would cover
    other_ink = (arr.min(axis=2) < 128) & ~name
    assert polygon[other_ink].mean() < 0.01 < rectangle[other_ink].mean()

    after = " ".join(ln.text for ln in ocr.read([res.image])[0])
    assert "张三丰" not in after and "三丰" not in after
    assert "心内科" in after and re.search(r"3\.50\s*-\s*10\.00", after)
    axis_aligned = mask_boxes(arr, [replace(b, quad=None) for b in res.boxes])
    boxed = " ".join(ln.text for ln in ocr.read([axis_aligned])[0])
    assert "心内科" not in boxed                                    # today's axis-aligned mask hid it

    audit = json.dumps(res.audit(), ensure_ascii=False)
    assert '"polygon"' in audit and not re.search(r"[\u4e00-\u9fff]", audit)


def test_a_tilted_page_is_detected_again_at_a_higher_resolution(ocr):
    """At 40 degrees a page's bounding box is ~1.4x its size: the detection limit grows by that
    factor (never past the image's own size); an upright or small page keeps the first pass."""
    base = int(ocr.params["Det.limit_side_len"])
    lines = [_rotated_rect(400 + 30 * i, 400 + 40 * i, 300, 30, 40.0) for i in range(6)]
    tilted = np.array(lines, np.float32)
    upright = np.array([_rotated_rect(400, 100 + 50 * i, 300, 30, 0.0) for i in range(6)], np.float32)
    factor = math.cos(math.radians(40)) + math.sin(math.radians(40))
    assert ocr._tilted_limit(tilted, (4000, 3000, 3)) == round(base * factor)
    assert ocr._tilted_limit(tilted, (1598, 1560, 3)) == 1598               # up to the image's own size
    assert ocr._tilted_limit(tilted, (base, base, 3)) is None               # already at native resolution
    assert ocr._tilted_limit(upright, (4000, 3000, 3)) is None
    assert ocr._tilted_limit(np.array([q[[1, 2, 3, 0]] for q in tilted]), (4000, 3000, 3)) == round(base * factor)
