"""Drawing the bundled sample's images: the documents, photos and device pictures its patients upload.

Every picture is SYNTHETIC, drawn from parameters (the entries under ``images:`` in
``tools/sample/cases.yaml``) by the functions below; :func:`paint` is the one entry point the sample builder
(:mod:`tools.sample.builder`) calls. Identifiers are already blacked out, as Phase 1
de-identification would leave them. Seeds come from the file name, so a drawing is deterministic; the
exact bytes also depend on the font and libraries (see ``tools.sample.builder.render_environment``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

MAX_SIDE = 768
RGB = tuple[int, int, int]
INK: RGB = (20, 20, 20)
BLACK: RGB = (0, 0, 0)
PAPER: RGB = (252, 251, 247)


class Fonts:
    """Sized faces of one CJK font, with the basic layout engine so output does not depend on libraqm."""

    def __init__(self, path: Path, index: int = 0):
        self.path, self.index = path, index

    @lru_cache(maxsize=64)  # noqa: B019 - a handful of sizes per build
    def __call__(self, size: int) -> ImageFont.FreeTypeFont:
        return ImageFont.truetype(str(self.path), size, index=self.index,
                                  layout_engine=ImageFont.Layout.BASIC)


# --------------------------------------------------------------------------------------------------
# Small helpers shared by all image kinds
# --------------------------------------------------------------------------------------------------


def seed_for(name: str) -> int:
    """A seed from a name, stable across Python runs (unlike ``hash``)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng(seed_for(name))


def text_width(font: ImageFont.FreeTypeFont, text: str) -> int:
    return int(math.ceil(font.getlength(text)))


def wrap(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """Greedy character wrap (Chinese has no spaces), keeping explicit newlines."""
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for ch in para:
            if line and font.getlength(line + ch) > width and ch not in "，。；、：）%":
                lines.append(line)
                line = ch
            else:
                line += ch
        lines.append(line)
    return lines


def redact(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    """A solid black rectangle where an identifier was: what image de-identification leaves."""
    draw.rectangle(box, fill=BLACK)


def field_with_mask(draw: ImageDraw.ImageDraw, xy: tuple[int, int], label: str,
                    font: ImageFont.FreeTypeFont, mask_w: int) -> int:
    """Draw ``label`` followed by a masked value; return the x after the mask."""
    x, y = xy
    draw.text((x, y), label, font=font, fill=INK)
    x += text_width(font, label)
    size = font.size
    redact(draw, (x + 2, y - 1, x + 2 + mask_w, y + size + 3))
    return x + mask_w + 4


def low_frequency(rng: np.random.Generator, w: int, h: int, cell: int, amp: float) -> np.ndarray:
    """Smooth random field in [-amp, amp], for uneven lighting and skin mottling."""
    small = rng.random((h // cell + 2, w // cell + 2)).astype(np.float32)
    field = Image.fromarray(small, mode="F").resize((w, h), Image.Resampling.BICUBIC)
    arr = np.asarray(field, dtype=np.float32)
    return (arr - 0.5) * 2 * amp


def mask_image(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    m = Image.new("L", (w, h), 0)
    return m, ImageDraw.Draw(m)


def as_alpha(mask: Image.Image, blur: float = 0.0) -> np.ndarray:
    if blur:
        mask = mask.filter(ImageFilter.GaussianBlur(blur))
    return np.asarray(mask, dtype=np.float32)[..., None] / 255.0


def blend(arr: np.ndarray, color: Sequence[float] | np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Paint ``color`` over ``arr`` with per-pixel ``alpha`` (h, w, 1) in [0, 1]."""
    return arr * (1 - alpha) + np.asarray(color, dtype=np.float32) * alpha


def to_image(arr: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), mode="RGB")


def jitter_polygon(rng: np.random.Generator, cx: float, cy: float, rx: float, ry: float,
                   rough: float = 0.12, n: int = 48, rot: float = 0.0) -> list[tuple[float, float]]:
    """An irregular closed outline around an ellipse: the shape of most real lesions."""
    k = rng.integers(2, 5)
    phases = rng.random(3) * 2 * math.pi
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        r = 1 + rough * (0.6 * math.sin(k * t + phases[0]) + 0.3 * math.sin((k + 2) * t + phases[1])
                         + 0.2 * math.sin((k + 5) * t + phases[2]))
        x, y = rx * r * math.cos(t), ry * r * math.sin(t)
        pts.append((cx + x * math.cos(rot) - y * math.sin(rot), cy + x * math.sin(rot) + y * math.cos(rot)))
    return pts


# --------------------------------------------------------------------------------------------------
# Documents: lab reports, prescriptions, imaging reports, a questionnaire screenshot (saved as PNG)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One result line: item name, value, flag (↑, ↓, 阳性(+) …), unit, reference range."""

    name: str
    value: str
    flag: str = ""
    unit: str = ""
    ref: str = ""


@dataclass(frozen=True)
class ReportHeader:
    title: str  # e.g. "检验报告单"
    subtitle: str  # e.g. "甲状腺功能"
    sex: str
    age: str
    department: str
    specimen: str
    diagnosis: str
    specimen_label: str = "标本"
    footer: tuple[str, str, str, str] = ("采样时间：", "报告时间：", "检验者：", "审核者：")


def _doc_title(draw: ImageDraw.ImageDraw, fonts: Fonts, width: int, title: str, y: int) -> None:
    """Hospital name (masked) followed by the document title, centred."""
    f = fonts(26)
    mask_w = 210
    total = mask_w + 10 + text_width(f, title)
    x0 = (width - total) // 2
    redact(draw, (x0, y, x0 + mask_w, y + 32))
    draw.text((x0 + mask_w + 10, y + 1), title, font=f, fill=INK)


def lab_report(fonts: Fonts, header: ReportHeader, rows: Sequence[Row], *, notes: Sequence[str] = (),
               width: int = 640, columns: Sequence[tuple[str, int]] | None = None) -> Image.Image:
    """A hospital lab report: masked hospital/name/MRN/barcode/signatures, a results table with arrows."""
    cols = list(columns or (("No", 24), ("项目", 56), ("结果", 318), ("", 392), ("单位", 452), ("参考区间", 530)))
    row_h, f_row = 27, fonts(14)
    height = 196 + row_h * len(rows) + 96 + 20 * len(notes)
    img = Image.new("RGB", (width, height), PAPER)
    d = ImageDraw.Draw(img)
    _doc_title(d, fonts, width, header.title, 14)
    f_sub = fonts(16)
    d.text(((width - text_width(f_sub, header.subtitle)) // 2, 54), header.subtitle, font=f_sub, fill=INK)
    redact(d, (width - 150, 50, width - 24, 78))  # specimen barcode
    f = fonts(14)
    y = 88
    field_with_mask(d, (24, y), "姓名：", f, 64)
    d.text((200, y), f"性别：{header.sex}", font=f, fill=INK)
    d.text((300, y), f"年龄：{header.age}", font=f, fill=INK)
    field_with_mask(d, (420, y), "门诊号：", f, 128)
    y += 26
    d.text((24, y), f"科室：{header.department}", font=f, fill=INK)
    d.text((200, y), f"{header.specimen_label}：{header.specimen}", font=f, fill=INK)
    field_with_mask(d, (420, y), "送检医生：", f, 64)
    y += 26
    d.text((24, y), f"临床诊断：{header.diagnosis}", font=f, fill=INK)
    field_with_mask(d, (420, y), "标本号：", f, 96)
    y += 28
    d.line((20, y, width - 20, y), fill=INK, width=2)
    d.line((20, y + 4, width - 20, y + 4), fill=INK, width=1)
    y += 10
    for label, x in cols:
        d.text((x, y), label, font=f, fill=INK)
    y += 24
    d.line((20, y, width - 20, y), fill=INK, width=1)
    y += 6
    for i, r in enumerate(rows, 1):
        cells = (str(i), r.name, r.value, r.flag, r.unit, r.ref)
        for (_, x), cell in zip(cols, cells, strict=True):
            colour = (170, 0, 0) if cell in ("↑", "↓") else INK
            d.text((x, y), cell, font=f_row, fill=colour)
        y += row_h
    d.line((20, y, width - 20, y), fill=INK, width=2)
    y += 10
    t_sample, t_report, who, checker = header.footer
    x = field_with_mask(d, (24, y), t_sample, f, 118)
    field_with_mask(d, (max(x + 20, 330), y), t_report, f, 118)
    y += 26
    x = field_with_mask(d, (24, y), who, f, 60)
    field_with_mask(d, (max(x + 20, 330), y), checker, f, 60)
    y += 30
    f_note = fonts(12)
    for note in ("* 本报告仅对本次送检标本负责，结果请结合临床。", *notes):
        d.text((24, y), note, font=f_note, fill=(70, 70, 70))
        y += 20
    return img


@dataclass(frozen=True)
class RxItem:
    name: str  # "阿莫西林胶囊  0.5g×40粒"
    usage: str  # "用法：每次1.0g，每日2次，餐后口服"


def prescription(fonts: Fonts, *, department: str, sex: str, age: str, diagnosis: str,
                 items: Sequence[RxItem] = (), herbs: Sequence[str] = (), herb_usage: str = "",
                 fee: str, kind: str = "普通", title: str = "处方笺", width: int = 560) -> Image.Image:
    """A prescription slip (西药 items or a 中药 herb grid) with hospital, name, MRN and signatures masked."""
    n_lines = len(items) * 2
    if herbs:
        n_lines += math.ceil(len(herbs) / 3) + len(wrap(herb_usage, fonts(15), width - 90))
    height = min(MAX_SIDE, 300 + 28 * n_lines + 110)
    img = Image.new("RGB", (width, height), PAPER)
    d = ImageDraw.Draw(img)
    d.rectangle((8, 8, width - 9, height - 9), outline=(60, 60, 60), width=1)
    _doc_title(d, fonts, width, title, 18)
    f_kind = fonts(16)
    d.rectangle((width - 78, 16, width - 22, 44), outline=INK, width=2)
    d.text((width - 50 - text_width(f_kind, kind) // 2, 20), kind, font=f_kind, fill=INK)
    f = fonts(15)
    y = 66
    d.text((24, y), "费别：自费", font=f, fill=INK)
    field_with_mask(d, (170, y), "门诊号：", f, 118)
    field_with_mask(d, (390, y), "日期：", f, 96)
    y += 28
    field_with_mask(d, (24, y), "姓名：", f, 64)
    d.text((170, y), f"性别：{sex}", font=f, fill=INK)
    d.text((270, y), f"年龄：{age}", font=f, fill=INK)
    d.text((390, y), f"科别：{department}", font=f, fill=INK)
    y += 28
    for line in wrap(f"临床诊断：{diagnosis}", f, width - 48):
        d.text((24, y), line, font=f, fill=INK)
        y += 24
    y += 4
    d.line((18, y, width - 18, y), fill=INK, width=2)
    y += 8
    d.text((24, y), "Rp", font=fonts(30), fill=INK)
    y += 44
    for i, item in enumerate(items, 1):
        d.text((48, y), f"{i}. {item.name}", font=f, fill=INK)
        y += 26
        d.text((72, y), item.usage, font=fonts(14), fill=(40, 40, 40))
        y += 30
    if herbs:
        col_w = (width - 96) // 3
        for i, herb in enumerate(herbs):
            d.text((48 + (i % 3) * col_w, y + (i // 3) * 30), herb, font=f, fill=INK)
        y += math.ceil(len(herbs) / 3) * 30 + 8
        for line in wrap(herb_usage, f, width - 90):
            d.text((48, y), line, font=f, fill=INK)
            y += 26
    y = height - 96
    d.line((18, y, width - 18, y), fill=INK, width=1)
    y += 12
    x = field_with_mask(d, (24, y), "医师：", f, 70)
    d.text((max(x + 30, 280), y), f"金额：{fee}", font=f, fill=INK)
    y += 30
    x = field_with_mask(d, (24, y), "审核：", f, 60)
    x = field_with_mask(d, (x + 20, y), "调配：", f, 60)
    field_with_mask(d, (x + 20, y), "核对/发药：", f, 60)
    return img


def imaging_report(fonts: Fonts, *, title: str, sex: str, age: str, department: str, exam: str,
                   findings: str, impression: str, findings_label: str, impression_label: str,
                   width: int = 600) -> Image.Image:
    """A text imaging report (ultrasound/CT): findings and impression, identifiers masked."""
    f = fonts(15)
    body_w = width - 64
    f_lines = wrap(findings, f, body_w)
    i_lines = wrap(impression, f, body_w)
    height = min(MAX_SIDE, 230 + 26 * (len(f_lines) + len(i_lines)) + 120)
    img = Image.new("RGB", (width, height), PAPER)
    d = ImageDraw.Draw(img)
    _doc_title(d, fonts, width, title, 16)
    y = 64
    field_with_mask(d, (24, y), "姓名：", f, 64)
    d.text((190, y), f"性别：{sex}", font=f, fill=INK)
    d.text((290, y), f"年龄：{age}", font=f, fill=INK)
    field_with_mask(d, (400, y), "检查号：", f, 100)
    y += 28
    d.text((24, y), f"申请科室：{department}", font=f, fill=INK)
    d.text((290, y), f"检查项目：{exam}", font=f, fill=INK)
    y += 30
    d.line((20, y, width - 20, y), fill=INK, width=2)
    y += 12
    f_h = fonts(17)
    d.text((24, y), findings_label, font=f_h, fill=INK)
    y += 30
    for line in f_lines:
        d.text((40, y), line, font=f, fill=INK)
        y += 26
    y += 10
    d.text((24, y), impression_label, font=f_h, fill=INK)
    y += 30
    for line in i_lines:
        d.text((40, y), line, font=f, fill=INK)
        y += 26
    y = height - 70
    d.line((20, y, width - 20, y), fill=INK, width=1)
    y += 12
    x = field_with_mask(d, (24, y), "报告医师：", f, 64)
    x = field_with_mask(d, (x + 18, y), "审核医师：", f, 64)
    field_with_mask(d, (x + 18, y), "日期：", f, 90)
    d.text((24, y + 28), "本报告仅供临床参考。", font=fonts(12), fill=(70, 70, 70))
    return img


PHQ9_ITEMS = (
    "做事时提不起劲或没有兴趣",
    "感到心情低落、沮丧或绝望",
    "入睡困难、睡不安稳或睡眠过多",
    "感觉疲倦或没有活力",
    "食欲不振或吃太多",
    "觉得自己很糟，或觉得自己很失败，或让自己或家人失望",
    "对事物专注有困难，例如阅读报纸或看电视时",
    "动作或说话速度缓慢到别人已经察觉？或正好相反，烦躁或坐立不安、动来动去的情况更胜于平常",
    "有不如死掉或用某种方式伤害自己的念头",
)
PHQ9_ANSWERS = ("完全不会", "好几天", "一半以上的天数", "几乎每天")


def phq9_screenshot(fonts: Fonts, scores: Sequence[int], *, width: int = 432,
                    height: int = 768) -> Image.Image:
    """A phone screenshot of a hospital app's PHQ-9 result: item answers, total, band; name masked."""
    assert len(scores) == 9
    total = sum(scores)
    img = Image.new("RGB", (width, height), (243, 244, 247))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, width, 24), fill=(250, 250, 250))
    d.text((14, 4), "10:15", font=fonts(13), fill=INK)
    d.text((width - 54, 4), "87%", font=fonts(13), fill=INK)
    d.rectangle((0, 24, width, 68), fill=(46, 125, 196))
    d.text((14, 34), "<", font=fonts(20), fill=(255, 255, 255))
    t = "心理测评报告"
    d.text(((width - text_width(fonts(19), t)) // 2, 34), t, font=fonts(19), fill=(255, 255, 255))
    # card with identity (masked)
    d.rounded_rectangle((10, 78, width - 10, 160), radius=8, fill=(255, 255, 255))
    f = fonts(13)
    field_with_mask(d, (22, 88), "姓名：", f, 52)
    d.text((170, 88), "性别：女    年龄：24", font=f, fill=INK)
    d.text((22, 110), "量表：PHQ-9 患者健康问卷（抑郁）", font=f, fill=INK)
    x = field_with_mask(d, (22, 132), "测评时间：", f, 118)
    field_with_mask(d, (x + 12, 132), "机构：", f, 120)
    # items: lay them out first to size the card
    f_item, f_ans = fonts(12), fonts(12)
    layout = [wrap(f"{i}. {item}", f_item, width - 150) for i, item in enumerate(PHQ9_ITEMS, 1)]
    items_h = 30 + sum(16 * len(lines) + 10 for lines in layout)
    d.rounded_rectangle((10, 170, width - 10, 170 + items_h + 8), radius=8, fill=(255, 255, 255))
    d.text((22, 178), "过去两周内，以下问题困扰你的频率", font=fonts(13), fill=(90, 90, 90))
    y = 200
    for i, (lines, s) in enumerate(zip(layout, scores, strict=True), 1):
        for j, line in enumerate(lines):
            d.text((22 if j == 0 else 36, y + j * 16), line, font=f_item, fill=INK)
        ans = f"{PHQ9_ANSWERS[s]}  {s}分"
        colour = (200, 40, 40) if (i == 9 and s > 0) else (46, 100, 170)
        d.text((width - 22 - text_width(f_ans, ans), y), ans, font=f_ans, fill=colour)
        y += 16 * len(lines) + 10
        d.line((22, y - 5, width - 22, y - 5), fill=(230, 230, 230))
    # result card
    y = 170 + items_h + 20
    d.rounded_rectangle((10, y, width - 10, y + 146), radius=8, fill=(255, 255, 255))
    d.text((22, y + 10), "总分", font=fonts(15), fill=INK)
    d.text((70, y + 2), f"{total}", font=fonts(30), fill=(200, 40, 40))
    d.text((120, y + 14), "分（满分27分）", font=fonts(13), fill=(90, 90, 90))
    band = ("无抑郁症状" if total < 5 else "轻度抑郁症状" if total < 10 else "中度抑郁症状" if total < 15
            else "中重度抑郁症状" if total < 20 else "重度抑郁症状")
    d.text((22, y + 50), f"结果解释：{band}", font=fonts(14), fill=INK)
    d.text((22, y + 74), "分级：0–4 无  5–9 轻度  10–14 中度  15–19 中重度  20–27 重度", font=fonts(11),
           fill=(90, 90, 90))
    d.text((22, y + 98), "本结果仅供参考，不能作为诊断依据，请以专科医生面诊为准。", font=fonts(11), fill=(90, 90, 90))
    d.text((22, y + 118), "如有自伤想法，请立即寻求专业帮助。", font=fonts(11), fill=(90, 90, 90))
    return img.crop((0, 0, width, min(height, y + 158)))


# --------------------------------------------------------------------------------------------------
# Photos: skin, child rash, tongue, eye, medicine boxes (saved as JPEG)
# --------------------------------------------------------------------------------------------------


def skin_background(rng: np.random.Generator, w: int, h: int, tone: RGB = (226, 184, 158)) -> np.ndarray:
    """Skin under indoor light: a lighting gradient, low-frequency mottling, pores/noise and a few hairs."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = w * (0.3 + 0.4 * rng.random()), h * (0.3 + 0.3 * rng.random())
    light = 1.08 - 0.22 * ((xx - cx) ** 2 + (yy - cy) ** 2) / float(w * w + h * h)
    mottle = low_frequency(rng, w, h, 40, 0.05) + low_frequency(rng, w, h, 9, 0.02)
    arr = np.asarray(tone, dtype=np.float32) * (light * (1 + mottle))[..., None]
    arr += rng.normal(0, 2.5, (h, w, 1)).astype(np.float32)
    return arr


def add_hairs(arr: np.ndarray, rng: np.random.Generator, n: int, colour: RGB = (90, 60, 45)) -> np.ndarray:
    h, w, _ = arr.shape
    m, d = mask_image(w, h)
    for _ in range(n):
        x, y = rng.random() * w, rng.random() * h
        ang = 0.5 + 0.5 * rng.random()
        length = 12 + 18 * rng.random()
        pts = [(x + t * length * math.cos(ang) / 4, y + t * length * math.sin(ang) / 4 + 1.5 * math.sin(t))
               for t in range(5)]
        d.line(pts, fill=110, width=1)
    return blend(arr, colour, as_alpha(m, 0.4))


def skin_annular(name: str, *, w: int = 640, h: int = 480, radius: float = 120) -> Image.Image:
    """Tinea corporis: an annular plaque with a raised red scaly edge and partial central clearing."""
    rng = rng_for(name)
    arr = add_hairs(skin_background(rng, w, h), rng, 40)
    cx, cy = w * 0.52, h * 0.5
    outer = jitter_polygon(rng, cx, cy, radius, radius * 0.85, rough=0.08, rot=0.3)
    inner = jitter_polygon(rng, cx + 4, cy - 3, radius * 0.74, radius * 0.6, rough=0.1, rot=0.3)
    ring, d = mask_image(w, h)
    d.polygon(outer, fill=255)
    d.polygon(inner, fill=0)
    centre, dc = mask_image(w, h)
    dc.polygon(inner, fill=255)
    arr = blend(arr, (205, 140, 128), as_alpha(centre, 8) * 0.35)  # faint residual erythema/pigment
    arr = blend(arr, (196, 82, 78), as_alpha(ring, 4) * 0.85)
    arr = blend(arr, (150, 45, 50), as_alpha(ring, 1.5) * 0.25)
    scale, ds = mask_image(w, h)  # white scale sits on the active border
    for _ in range(260):
        t = 2 * math.pi * rng.random()
        rr = radius * (0.78 + 0.2 * rng.random())
        x, y = cx + rr * math.cos(t), cy + rr * 0.85 * math.sin(t)
        s = 1 + 2.5 * rng.random()
        ds.ellipse((x - s, y - s * 0.6, x + s, y + s * 0.6), fill=int(150 + 100 * rng.random()))
    arr = blend(arr, (245, 232, 225), as_alpha(scale, 0.6) * 0.8)
    # a small satellite papule outside the ring
    sat, dsat = mask_image(w, h)
    sx, sy = cx + radius * 1.35, cy - radius * 0.6
    dsat.ellipse((sx - 9, sy - 7, sx + 9, sy + 7), fill=255)
    arr = blend(arr, (196, 90, 85), as_alpha(sat, 2.5) * 0.7)
    return to_image(arr).filter(ImageFilter.GaussianBlur(0.6))


def skin_wheals(name: str, *, w: int = 640, h: int = 480) -> Image.Image:
    """Acute urticaria: several raised pale-centred wheals with a red flare, irregular and partly merging."""
    rng = rng_for(name)
    arr = add_hairs(skin_background(rng, w, h, tone=(222, 180, 150)), rng, 25)
    flare, df = mask_image(w, h)
    wheal, dw = mask_image(w, h)
    centres = [(0.25, 0.3, 60), (0.6, 0.25, 45), (0.45, 0.62, 85), (0.8, 0.7, 50), (0.15, 0.75, 35),
               (0.72, 0.45, 30)]
    for fx, fy, size in centres:
        cx, cy = fx * w, fy * h
        for _ in range(int(rng.integers(2, 5))):
            ox, oy = rng.normal(0, size * 0.35, 2)
            poly = jitter_polygon(rng, cx + ox, cy + oy, size * (0.6 + 0.4 * rng.random()),
                                  size * (0.4 + 0.3 * rng.random()), rough=0.2, rot=rng.random() * math.pi)
            df.polygon([(x, y) for x, y in poly], fill=255)
            dw.polygon([(cx + ox + (x - cx - ox) * 0.72, cy + oy + (y - cy - oy) * 0.72) for x, y in poly],
                       fill=255)
    arr = blend(arr, (214, 96, 92), as_alpha(flare, 9) * 0.75)
    arr = blend(arr, (240, 196, 182), as_alpha(wheal, 5) * 0.75)  # oedematous, paler centre
    # soft highlight on the raised surface
    arr = blend(arr, (250, 228, 218), as_alpha(wheal, 14) * 0.18)
    # scratch marks
    sc, ds = mask_image(w, h)
    for _ in range(5):
        x, y = rng.random() * w, rng.random() * h
        ds.line([(x, y), (x + 40 + 40 * rng.random(), y + 10 + 30 * rng.random())], fill=200, width=2)
    arr = blend(arr, (185, 70, 70), as_alpha(sc, 0.8) * 0.5)
    return to_image(arr).filter(ImageFilter.GaussianBlur(0.7))


def child_trunk_rash(name: str, *, w: int = 600, h: int = 600) -> Image.Image:
    """Roseola-like exanthem: many small rose-pink blanching macules/papules over a toddler's abdomen."""
    rng = rng_for(name)
    sheet = np.ones((h, w, 3), np.float32) * np.asarray((196, 214, 230), np.float32)
    sheet += low_frequency(rng, w, h, 60, 12)[..., None]
    skin = skin_background(rng, w, h, tone=(238, 200, 178))
    body, db = mask_image(w, h)
    db.rounded_rectangle((40, -40, w - 40, h + 40), radius=140, fill=255)
    arr = blend(sheet, (0, 0, 0), np.zeros((h, w, 1), np.float32))
    alpha = as_alpha(body, 6)
    arr = arr * (1 - alpha) + skin * alpha
    # navel and the lower rib shadows place it as an abdomen
    nav, dn = mask_image(w, h)
    dn.ellipse((w / 2 - 13, h * 0.66 - 9, w / 2 + 13, h * 0.66 + 9), fill=255)
    arr = blend(arr, (150, 100, 90), as_alpha(nav, 2.5) * 0.8)
    ribs, dr = mask_image(w, h)
    dr.arc((60, -260, w - 60, h * 0.38), 20, 160, fill=255, width=14)
    arr = blend(arr, (190, 150, 130), as_alpha(ribs, 14) * 0.25)
    spots, ds = mask_image(w, h)
    for _ in range(170):
        x, y = 70 + (w - 140) * rng.random(), 20 + (h - 60) * rng.random()
        if math.hypot(x - w / 2, y - h * 0.66) < 30:
            continue
        r = 2.5 + 4.5 * rng.random()
        ds.ellipse((x - r, y - r * 0.85, x + r, y + r * 0.85), fill=int(140 + 115 * rng.random()))
    arr = blend(arr, (222, 112, 120), as_alpha(spots, 1.6) * 0.8 * alpha)
    return to_image(arr).filter(ImageFilter.GaussianBlur(0.5))


def _tongue_outline(cx: float, top: float, tip: float, half: float,
                    tooth_marks: bool) -> list[tuple[float, float]]:
    """Left-to-right outline of a protruded tongue: slight lateral bulge, rounded tip, optional scalloping."""
    def half_width(s: float) -> float:
        hw = half * (0.86 + 0.14 * math.sin(math.pi * s * 0.9)) * math.sqrt(max(0.0, 1 - s ** 4))
        if tooth_marks and 0.12 < s < 0.85:  # shallow indentations left by the teeth
            hw -= 7 * (0.5 + 0.5 * math.cos(2 * math.pi * s * 9)) ** 3
        return hw

    ss = np.linspace(0, 1, 120)
    left = [(cx - half_width(s), top + (tip - top) * s) for s in ss]
    right = [(cx + half_width(s), top + (tip - top) * s) for s in ss[::-1]]
    return left + right


def tongue_photo(name: str, *, body: RGB, coating: RGB, coating_alpha: float, swollen: bool,
                 tooth_marks: bool, w: int = 520, h: int = 600) -> Image.Image:
    """A tongue stuck out for 舌诊: body colour, coating colour/thickness, swelling and tooth marks."""
    rng = rng_for(name)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    arr = skin_background(rng, w, h, tone=(214, 170, 146))
    cx = w / 2
    mouth, dm = mask_image(w, h)
    dm.ellipse((90, 40, w - 90, 250), fill=255)
    arr = blend(arr, (62, 22, 28), as_alpha(mouth, 3))
    lips, dl = mask_image(w, h)
    dl.arc((78, 26, w - 78, 262), 180, 360, fill=255, width=22)  # upper lip
    dl.arc((78, 26, w - 78, 262), 0, 180, fill=255, width=26)  # lower lip
    arr = blend(arr, (176, 92, 94), as_alpha(lips, 4) * 0.9)
    teeth, dt = mask_image(w, h)
    for i in range(-3, 3):  # upper incisors following the arch
        x = cx + i * 34 + 2
        y = 58 + 0.9 * abs(i + 0.5) ** 2
        dt.rounded_rectangle((x, y, x + 31, y + 34), radius=7, fill=255)
    arr = blend(arr, (232, 226, 208), as_alpha(teeth, 1.0))
    half = 178 if swollen else 150
    poly = _tongue_outline(cx, 95, 575, half, tooth_marks)
    tongue, dtg = mask_image(w, h)
    dtg.polygon(poly, fill=255)
    ta = as_alpha(tongue, 1.5)
    tex = np.asarray(body, np.float32) * (1 + low_frequency(rng, w, h, 14, 0.05))[..., None]
    tex += rng.normal(0, 5, (h, w, 1)).astype(np.float32)  # papillae
    shade = 1 - 0.22 * (np.abs(xx - cx) / half) ** 3  # the tongue is convex: darker at the borders
    tex *= np.clip(shade, 0.6, 1)[..., None]
    tex *= np.clip(0.35 + (yy - 95) / 150, 0.35, 1)[..., None]  # the root is in the shadow of the mouth
    arr = arr * (1 - ta) + tex * ta
    coat, dc = mask_image(w, h)
    dc.ellipse((cx - half * 0.6, 80, cx + half * 0.6, 470), fill=255)
    root_to_tip = np.clip(1.25 - (yy - 95) / 480, 0, 1)[..., None]  # coating thickest at the root
    grain = 0.7 + 0.6 * np.asarray(Image.fromarray(rng.random((h // 3, w // 3)).astype(np.float32), mode="F")
                                   .resize((w, h), Image.Resampling.BILINEAR), np.float32)[..., None]
    coat_a = np.clip(as_alpha(coat, 28) * coating_alpha * root_to_tip * grain, 0, 0.95)
    arr = blend(arr, coating, coat_a * ta)
    fissure, df = mask_image(w, h)
    df.line([(cx, 170), (cx + 2, 260), (cx - 1, 350)], fill=255, width=3)
    arr = blend(arr, np.asarray(body, np.float32) * 0.65, as_alpha(fissure, 2.5) * 0.45)
    glare, dg = mask_image(w, h)
    dg.ellipse((cx - 70, 300, cx - 10, 330), fill=255)
    arr = blend(arr, (255, 250, 245), as_alpha(glare, 10) * 0.22)
    return to_image(arr).filter(ImageFilter.GaussianBlur(0.8))


def _eye_vessels(rng: np.random.Generator, w: int, h: int, cx: float, cy: float, r_iris: float) -> Image.Image:
    """The mask of tortuous conjunctival vessels running from the fornix toward the limbus."""
    vessels, dv = mask_image(w, h)
    for _ in range(70):
        a = 2 * math.pi * rng.random()
        r = 240 + 30 * rng.random()
        x, y = cx + r * math.cos(a), cy + r * 0.5 * math.sin(a)
        pts = [(x, y)]
        for _ in range(14):
            da = rng.normal(0, 0.25)
            r -= 12
            a += da * 0.15
            if r < r_iris + 6:
                break
            jx, jy = rng.normal(0, 0.8, 2)
            pts.append((cx + r * math.cos(a) + jx, cy + r * 0.55 * math.sin(a) + jy))
        dv.line(pts, fill=int(150 + 100 * rng.random()), width=int(rng.integers(1, 3)))
    return vessels


def _eyelid_margins(arr: np.ndarray, upper: list[tuple[float, float]], lower: list[tuple[float, float]],
                    cx: float) -> np.ndarray:
    """The upper lid margin with its lashes, and the tear film along the lower lid."""
    h, w, _ = arr.shape
    lids, dli = mask_image(w, h)
    dli.line(upper, fill=255, width=6)
    for x, y in (upper[i] for i in range(3, len(upper) - 3)):
        lean = (x - cx) / 250
        dli.line([(x, y), (x + 6 * lean, y - 8), (x + 14 * lean + 3, y - 14)], fill=255, width=1)
    arr = blend(arr, (40, 28, 24), as_alpha(lids, 0.8) * 0.85)
    tear, dtr = mask_image(w, h)
    dtr.line(lower, fill=255, width=4)
    return blend(arr, (240, 225, 200), as_alpha(tear, 1.5) * 0.4)


def eye_keratitis(name: str, *, w: int = 640, h: int = 400) -> Image.Image:
    """A red eye of a contact-lens wearer: ciliary flush around the limbus and a white corneal infiltrate."""
    rng = rng_for(name)
    arr = skin_background(rng, w, h, tone=(220, 176, 150))
    cx, cy = w / 2, h / 2 + 10
    upper = [(cx + 250 * math.cos(a), cy - 100 * math.sin(a)) for a in np.linspace(0, math.pi, 60)]
    lower = [(cx + 250 * math.cos(a), cy - 90 * math.sin(a)) for a in np.linspace(math.pi, 2 * math.pi, 60)]
    eye, de = mask_image(w, h)
    de.polygon(upper + lower, fill=255)
    ea = as_alpha(eye, 2)
    sclera = np.ones_like(arr) * np.asarray((236, 214, 206), np.float32)
    sclera += low_frequency(rng, w, h, 30, 10)[..., None]
    arr = arr * (1 - ea) + sclera * ea
    r_iris = 78
    arr = blend(arr, (178, 34, 40), as_alpha(_eye_vessels(rng, w, h, cx, cy, r_iris), 0.8) * 0.9 * ea)
    flush, dfl = mask_image(w, h)
    rf = r_iris + 30
    dfl.ellipse((cx - rf, cy - rf, cx + rf, cy + rf), outline=255, width=30)
    arr = blend(arr, (190, 60, 70), as_alpha(flush, 10) * 0.65 * ea)
    iris, di = mask_image(w, h)
    di.ellipse((cx - r_iris, cy - r_iris, cx + r_iris, cy + r_iris), fill=255)
    ia = as_alpha(iris, 1.5) * ea
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    radial = np.hypot(xx - cx, yy - cy)[..., None] / r_iris
    iris_tex = np.asarray((92, 60, 38), np.float32) * (0.8 + 0.3 * radial) + rng.normal(0, 8, (h, w, 1))
    arr = arr * (1 - ia) + iris_tex * ia
    pupil, dp = mask_image(w, h)
    dp.ellipse((cx - 22, cy - 22, cx + 22, cy + 22), fill=255)
    arr = blend(arr, (12, 10, 10), as_alpha(pupil, 1.2))
    haze, dhz = mask_image(w, h)  # corneal oedema/haze around the infiltrate
    ix, iy = cx - 30, cy + 24
    dhz.ellipse((ix - 34, iy - 28, ix + 34, iy + 28), fill=255)
    arr = blend(arr, (196, 192, 186), as_alpha(haze, 10) * 0.45)
    infil, dinf = mask_image(w, h)
    dinf.polygon(jitter_polygon(rng, ix, iy, 13, 10, rough=0.25), fill=255)
    arr = blend(arr, (238, 236, 228), as_alpha(infil, 1.5) * 0.95)
    glint, dg = mask_image(w, h)
    dg.ellipse((cx + 18, cy - 40, cx + 34, cy - 26), fill=255)
    arr = blend(arr, (255, 255, 255), as_alpha(glint, 1.5) * 0.9)
    arr = _eyelid_margins(arr, upper, lower, cx)
    return to_image(arr).filter(ImageFilter.GaussianBlur(0.7))


@dataclass(frozen=True)
class BoxLabel:
    """What is printed on a medicine box's front face."""

    name: str
    spec: str
    band: RGB
    badge: str  # "OTC" or "Rx"
    lines: tuple[str, ...] = ()


def medicine_box(name: str, fonts: Fonts, label: BoxLabel, *, w: int = 640, h: int = 480,
                 angle: float = -5.0) -> Image.Image:
    """A medicine box photographed on a wooden table, slightly rotated, front face readable."""
    rng = rng_for(name)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    grain = np.sin(yy / 7 + 3 * np.sin(xx / 90)) * 6 + low_frequency(rng, w, h, 50, 14)
    table = np.asarray((168, 122, 84), np.float32) + grain[..., None]
    table += rng.normal(0, 2, (h, w, 1)).astype(np.float32)
    bg = to_image(table)
    bw, bh = 470, 300
    box = Image.new("RGBA", (bw, bh), (250, 250, 248, 255))
    d = ImageDraw.Draw(box)
    d.rectangle((0, 0, bw - 1, 54), fill=label.band + (255,))
    d.rectangle((0, bh - 26, bw - 1, bh - 1), fill=label.band + (255,))
    d.text((18, 12), label.name, font=fonts(30), fill=(255, 255, 255))
    if label.badge == "OTC":
        d.ellipse((bw - 88, 10, bw - 16, 46), fill=(0, 150, 80))
        d.text((bw - 74, 16), "OTC", font=fonts(20), fill=(255, 255, 255))
    else:
        d.text((bw - 60, 12), "Rx", font=fonts(28), fill=(255, 255, 255))
    d.text((18, 70), label.spec, font=fonts(24), fill=(30, 30, 30))
    y = 112
    for line in label.lines:
        for sub in wrap(line, fonts(14), bw - 36):
            d.text((18, y), sub, font=fonts(14), fill=(50, 50, 50))
            y += 20
    d.text((18, bh - 22), "某某制药有限公司（示例）", font=fonts(13), fill=(255, 255, 255))
    shadow = Image.new("RGBA", (bw + 40, bh + 40), (0, 0, 0, 0))
    ImageDraw.Draw(shadow).rectangle((20, 20, bw + 20, bh + 20), fill=(40, 25, 15, 130))
    shadow = shadow.filter(ImageFilter.GaussianBlur(9)).rotate(angle, resample=Image.Resampling.BICUBIC,
                                                               expand=True)
    box = box.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    ox, oy = (w - box.width) // 2, (h - box.height) // 2
    bg.paste(shadow, (ox - 8, oy + 2), shadow)
    bg.paste(box, (ox, oy), box)
    arr = np.asarray(bg, np.float32)
    arr *= (1.05 - 0.15 * ((xx - w * 0.35) ** 2 + (yy - h * 0.3) ** 2) / float(w * w))[..., None]
    return to_image(arr).filter(ImageFilter.GaussianBlur(0.6))


# --------------------------------------------------------------------------------------------------
# Device pictures: ECG strip (PNG), ultrasound and CT pictures (JPEG)
# --------------------------------------------------------------------------------------------------


def _ecg_af_signal(rng: np.random.Generator, seconds: float, fs: int) -> np.ndarray:
    """Atrial fibrillation in lead II, in mV: no P waves, fibrillatory baseline, irregularly irregular QRS."""
    t = np.arange(int(seconds * fs)) / fs
    sig = np.zeros_like(t)
    for _ in range(4):  # f waves, 350-450/min with drifting amplitude
        f = 5.5 + 2 * rng.random()
        sig += 0.035 * (0.6 + 0.8 * rng.random()) * np.sin(2 * math.pi * f * t + 2 * math.pi * rng.random())
    sig += 0.04 * np.sin(2 * math.pi * 0.25 * t)  # respiratory wander
    beat = 0.35 + 0.2 * rng.random()
    while beat < seconds - 0.3:
        def g(mu: float, sd: float, a: float) -> np.ndarray:
            return a * np.exp(-((t - mu) ** 2) / (2 * sd ** 2))
        sig += g(beat - 0.025, 0.008, -0.12) + g(beat, 0.011, 1.25) + g(beat + 0.028, 0.01, -0.28)
        sig += g(beat + 0.26, 0.05, 0.22)
        beat += 0.36 + 0.42 * rng.random()  # RR 0.36-0.78 s, no pattern
    return sig + rng.normal(0, 0.008, t.shape)


def ecg_strip(name: str, fonts: Fonts, *, w: int = 760, h: int = 330) -> Image.Image:
    """A home single-lead ECG recording as exported by the app: pink grid, 25 mm/s, 10 mm/mV, lead II."""
    rng = rng_for(name)
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    f = fonts(14)
    d.text((16, 10), "单导联心电记录（Ⅱ导联）", font=fonts(17), fill=INK)
    field_with_mask(d, (16, 38), "用户：", f, 70)
    field_with_mask(d, (200, 38), "设备号：", f, 110)
    field_with_mask(d, (440, 38), "记录时间：", f, 150)
    d.text((16, 62), "平均心率：112 次/分    走纸速度：25 mm/s    增益：10 mm/mV    时长：30 s（截取 5 s）",
           font=fonts(13), fill=INK)
    px_mm = 6
    top, bottom, left, right = 90, h - 26, 10, w - 10
    for i, x in enumerate(range(left, right + 1, px_mm)):
        d.line((x, top, x, bottom), fill=(240, 170, 170) if i % 5 == 0 else (252, 222, 222), width=1)
    for i, y in enumerate(range(top, bottom + 1, px_mm)):
        d.line((left, y, right, y), fill=(240, 170, 170) if i % 5 == 0 else (252, 222, 222), width=1)
    px_s, px_mv = 25 * px_mm, 10 * px_mm
    base = top + (bottom - top) * 0.62
    cal_x = left + 6  # 1 mV calibration pulse
    d.line([(cal_x, base), (cal_x + 6, base), (cal_x + 6, base - px_mv), (cal_x + 6 + 30, base - px_mv),
            (cal_x + 36, base), (cal_x + 48, base)], fill=INK, width=2)
    x0 = cal_x + 48
    seconds = (right - x0) / px_s
    fs = 500
    sig = _ecg_af_signal(rng, seconds, fs)
    pts = [(x0 + i / fs * px_s, base - v * px_mv) for i, v in enumerate(sig)]
    d.line(pts, fill=INK, width=2, joint="curve")
    d.text((left + 4, bottom + 4), "Ⅱ", font=f, fill=INK)
    d.text((right - 200, bottom + 4), "仅供参考，不能替代医院心电图", font=fonts(12), fill=(100, 100, 100))
    return img


def _speckle(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Fully developed speckle (Rayleigh amplitude), a little elongated laterally like real B-mode."""
    sw, sh = w // 2, int(h / 1.4)
    re = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    im = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    mag = np.hypot(re, im) / 1.25
    return np.asarray(Image.fromarray(mag, mode="F").resize((w, h), Image.Resampling.BICUBIC), np.float32)


def _log_compress(echo: np.ndarray, gain: float = 235.0) -> np.ndarray:
    """Echo amplitude to grey level the way a scanner's dynamic-range compression does."""
    return gain * np.log1p(6 * np.clip(echo, 0, None)) / math.log1p(6)


def _ellipse_field(w: int, h: int, cx: float, cy: float, rx: float, ry: float, soft: float = 3) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.sqrt(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2)
    return np.clip((1 - r) * min(rx, ry) / soft + 0.5, 0, 1)


def _us_overlay(d: ImageDraw.ImageDraw, fonts: Fonts, w: int, h: int, probe: str, labels: Sequence[str],
                measures: Sequence[str]) -> None:
    """The machine's burnt-in text: hospital/name/ID (masked), probe settings, body marker, measurements."""
    f = fonts(13)
    light = (225, 225, 225)
    redact(d, (8, 6, 190, 26))  # hospital
    redact(d, (w - 230, 6, w - 8, 26))  # patient name + ID
    redact(d, (w - 150, 30, w - 8, 48))  # date/time
    d.text((10, 32), probe, font=f, fill=light)
    for i, line in enumerate(labels):
        d.text((10, 52 + 18 * i), line, font=f, fill=light)
    for i, line in enumerate(measures):
        d.text((10, h - 24 - 18 * (len(measures) - 1 - i)), line, font=fonts(14), fill=(250, 250, 160))
    for k in range(6):  # grey-scale bar
        d.rectangle((w - 22, 70 + k * 24, w - 10, 94 + k * 24), fill=(255 - k * 45,) * 3)


def _caliper(d: ImageDraw.ImageDraw, p: tuple[float, float], q: tuple[float, float], tag: str,
             fonts: Fonts) -> None:
    col = (250, 250, 160)
    for x, y in (p, q):
        d.line((x - 6, y, x + 6, y), fill=col, width=1)
        d.line((x, y - 6, x, y + 6), fill=col, width=1)
    n = 14
    for i in range(0, n, 2):
        a = (p[0] + (q[0] - p[0]) * i / n, p[1] + (q[1] - p[1]) * i / n)
        b = (p[0] + (q[0] - p[0]) * (i + 1) / n, p[1] + (q[1] - p[1]) * (i + 1) / n)
        d.line((a, b), fill=col, width=1)
    d.text((q[0] + 6, q[1] - 8), tag, font=fonts(12), fill=col)


def ultrasound_thyroid(name: str, fonts: Fonts, *, w: int = 640, h: int = 480) -> Image.Image:
    """Linear-probe transverse scan of the right lobe: a solid hypoechoic, well-defined, wider-than-tall
    nodule.

    Convention: the patient's right is on the image left, so the carotid (lateral) is on the left and
    the trachea (medial) on the right.
    """
    rng = rng_for(name)
    x0, x1, y0, y1 = 70, w - 60, 92, h - 56
    iw, ih = x1 - x0, y1 - y0
    yy, xx = np.mgrid[0:ih, 0:iw].astype(np.float32)
    tissue = np.full((ih, iw), 0.34, np.float32)  # deep neck soft tissue
    tissue[yy < 14] = 0.75  # skin
    tissue[(yy >= 14) & (yy < 38)] = 0.45  # subcutaneous fat
    tissue[(yy >= 38) & (yy < 70)] = 0.2  # strap muscles, hypoechoic
    tissue += 0.05 * np.sin(yy / 3.5) * ((yy >= 38) & (yy < 70))  # muscle fibre striation
    lobe = _ellipse_field(iw, ih, iw * 0.5, ih * 0.43, iw * 0.3, ih * 0.25, soft=8)
    tissue = tissue * (1 - lobe) + 0.62 * lobe  # normal thyroid is brighter than muscle
    carotid = _ellipse_field(iw, ih, iw * 0.13, ih * 0.48, 36, 34, soft=2)
    tissue = tissue * (1 - carotid) + 0.02 * carotid  # anechoic lumen
    tx, ty = iw * 0.93, ih * 0.36
    shadow = np.clip((52 - np.abs(xx - tx)) / 8, 0, 1) * np.clip((yy - ty) / 6, 0, 1)
    tissue *= 1 - 0.75 * shadow  # air in the trachea: shadow with reverberation lines
    tissue += 0.22 * shadow * np.clip((np.sin((yy - ty) / 7) - 0.85) * 6, 0, 1)
    nx, ny, nrx, nry = iw * 0.5, ih * 0.45, 52, 39  # 0.82 x 0.61 cm at 64 px/cm
    nodule = _ellipse_field(iw, ih, nx, ny, nrx, nry, soft=2.5)
    tissue = tissue * (1 - nodule) + 0.22 * nodule
    depth = np.linspace(1.0, 0.7, ih, dtype=np.float32)[:, None]
    echo = tissue * _speckle(rng, iw, ih) * depth
    wall = np.clip(1 - np.abs(np.hypot((xx - tx) / 52, (yy - ty - 30) / 30) - 1) * 12, 0, 1) * (yy < ty + 30)
    echo = np.maximum(echo, 0.95 * wall)  # bright anterior tracheal ring
    canvas = np.zeros((h, w), np.float32)
    canvas[y0:y1, x0:x1] = _log_compress(echo)
    canvas[:28] = 38  # the scanner's info bar
    img = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8), mode="L")
    img = img.filter(ImageFilter.GaussianBlur(0.7)).convert("RGB")
    d = ImageDraw.Draw(img)
    _us_overlay(d, fonts, w, h, "L12-5  12MHz  Gn 58  DR 60", ["THY  R-LOBE  TRANS", "Depth 4.0cm"],
                ["D1  0.82 cm", "D2  0.61 cm"])
    _caliper(d, (x0 + nx - nrx, y0 + ny), (x0 + nx + nrx, y0 + ny), "1", fonts)
    _caliper(d, (x0 + nx, y0 + ny - nry), (x0 + nx, y0 + ny + nry), "2", fonts)
    for k in range(6):  # depth ticks, 1 cm
        yk = y0 + k * 64
        d.line((x1 + 4, yk, x1 + 12, yk), fill=(200, 200, 200))
    return img


def ultrasound_kidney(name: str, fonts: Fonts, *, w: int = 640, h: int = 500) -> Image.Image:
    """Convex-probe fan of the right kidney: hydronephrosis and a proximal ureteric stone with its shadow."""
    rng = rng_for(name)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ax, ay = w / 2, -60.0  # virtual apex above the image
    r = np.hypot(xx - ax, yy - ay)
    theta = np.arctan2(xx - ax, yy - ay)
    r0, r1, half = 120.0, 540.0, math.radians(36)
    sector = ((r > r0) & (r < r1) & (np.abs(theta) < half)).astype(np.float32)
    tissue = np.full((h, w), 0.5, np.float32)  # liver as the acoustic window
    kx, ky = w * 0.5, h * 0.52
    capsule = np.clip(1 - np.abs(np.hypot((xx - kx) / 172, (yy - ky) / 94) - 1) * 40, 0, 1)
    kidney = _ellipse_field(w, h, kx, ky, 170, 92, soft=5)
    tissue = tissue * (1 - kidney) + 0.24 * kidney  # cortex, less echogenic than liver
    sinus = _ellipse_field(w, h, kx, ky + 3, 110, 48, soft=8)
    tissue = tissue * (1 - sinus) + 0.8 * sinus  # echogenic sinus fat
    pelvis = _ellipse_field(w, h, w * 0.52, h * 0.54, 62, 26, soft=2)  # ~1.5 cm separation
    for cx, cy in ((w * 0.4, h * 0.5), (w * 0.62, h * 0.49), (w * 0.47, h * 0.6)):  # dilated calyces
        pelvis = np.maximum(pelvis, _ellipse_field(w, h, cx, cy, 19, 13, soft=2))
    line = h * 0.58 + (xx - w * 0.58) * 0.55
    ureter = np.clip(1 - np.abs(yy - line) / 8, 0, 1) * np.clip((xx - w * 0.58) / 4, 0, 1) * (xx < w * 0.71)
    pelvis = np.maximum(pelvis, ureter)
    tissue = tissue * (1 - pelvis) + 0.02 * pelvis
    tissue = np.maximum(tissue, 0.7 * capsule)
    sx, sy = w * 0.73, h * 0.665
    stone = _ellipse_field(w, h, sx, sy, 19, 12, soft=1.5)  # 0.6 cm at ~32 px/cm
    stone *= np.clip(1.2 - (yy - (sy - 12)) / 20, 0.3, 1)  # bright leading surface
    theta_s, r_s = math.atan2(sx - ax, sy - ay), math.hypot(sx - ax, sy - ay)
    shadow = np.clip((19 - np.abs(theta - theta_s) * r) / 4, 0, 1) * np.clip((r - r_s - 6) / 6, 0, 1)
    tissue = tissue * (1 - 0.92 * shadow)  # clean posterior acoustic shadow
    echo = tissue * _speckle(rng, w, h) * np.clip(1.05 - (r - r0) / (r1 - r0) * 0.45, 0.4, 1.1)
    arr = _log_compress(np.maximum(echo, stone * 1.0)) * sector
    arr[:28] = 38  # the scanner's info bar
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), mode="L")
    img = img.filter(ImageFilter.GaussianBlur(0.7)).convert("RGB")
    d = ImageDraw.Draw(img)
    _us_overlay(d, fonts, w, h, "C5-1  3.5MHz  Gn 62  DR 66", ["RT KIDNEY  LONG", "Depth 16cm"],
                ["D1  0.60 cm", "D2  1.52 cm"])
    _caliper(d, (sx - 19, sy), (sx + 19, sy), "1", fonts)
    _caliper(d, (w * 0.52, h * 0.54 - 26), (w * 0.52, h * 0.54 + 26), "2", fonts)
    return img


def ct_film_photo(name: str, fonts: Fonts, *, w: int = 600, h: int = 560) -> Image.Image:
    """A phone photo of one axial lung-window CT frame: a 9 mm lobulated, spiculated nodule in the right
    upper lobe.

    Radiological convention: the patient's right is on the image left.
    """
    rng = rng_for(name)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = w / 2, h / 2 + 10
    body = _ellipse_field(w, h, cx, cy, 250, 185, soft=3)
    arr = 0.04 + 0.66 * body  # soft tissue bright-grey in lung window
    lungs = np.maximum(_ellipse_field(w, h, cx - 110, cy - 8, 95, 140, soft=4),
                       _ellipse_field(w, h, cx + 110, cy - 8, 92, 138, soft=4))
    arr = arr * (1 - lungs) + 0.07 * lungs
    vessels = np.zeros((h, w), np.float32)
    for _ in range(90):  # branching vessels seen end-on and in-plane
        side = -1 if rng.random() < 0.5 else 1
        vx, vy = cx + side * (40 + 150 * rng.random()), cy - 120 + 230 * rng.random()
        rad = 1.2 + 2.5 * rng.random() * (1 - abs(vx - cx) / 220)
        vessels = np.maximum(vessels, _ellipse_field(w, h, vx, vy, rad, rad, soft=1))
    arr = np.maximum(arr, 0.5 * vessels * lungs)
    spine = _ellipse_field(w, h, cx, cy + 140, 30, 26, soft=2)
    arr = np.maximum(arr, 0.95 * spine)
    for k in range(12):  # rib cross-sections around the chest wall
        a = math.pi * (0.12 + 0.76 * k / 11)
        for side in (-1, 1):
            rx = cx + side * 224 * math.sin(a)
            ry = cy - 165 * math.cos(a)
            arr = np.maximum(arr, 0.92 * _ellipse_field(w, h, rx, ry, 9, 6, soft=1.5))
    aorta = _ellipse_field(w, h, cx + 32, cy + 110, 17, 17, soft=2)
    arr = np.maximum(arr, 0.74 * aorta)
    trachea = _ellipse_field(w, h, cx + 5, cy - 95, 14, 12, soft=2)
    arr = arr * (1 - trachea) + 0.05 * trachea
    nod, dn = mask_image(w, h)
    nx, ny = cx - 120, cy - 95  # right upper lobe, apicoposterior
    dn.polygon(jitter_polygon(rng, nx, ny, 11, 9, rough=0.25), fill=255)
    for k in range(7):  # short spicules
        a = 2 * math.pi * k / 7 + 0.3 * rng.random()
        ca, sa = math.cos(a), math.sin(a)
        dn.line([(nx + 10 * ca, ny + 9 * sa), (nx + 19 * ca, ny + 17 * sa)], fill=160, width=1)
    arr = np.maximum(arr, 0.75 * np.asarray(nod.filter(ImageFilter.GaussianBlur(0.8)), np.float32) / 255)
    arr = arr + rng.normal(0, 0.015, arr.shape)
    film = np.stack([arr * 235 + 8, arr * 238 + 10, arr * 245 + 16], axis=-1).astype(np.float32)
    glare = 28 * np.exp(-(((xx - w * 0.75) / 160) ** 2 + ((yy - h * 0.2) / 120) ** 2))  # light box reflection
    film += glare[..., None]
    img = to_image(film)
    d = ImageDraw.Draw(img)
    f = fonts(13)
    light = (210, 215, 225)
    redact(d, (10, 8, 200, 28))
    redact(d, (w - 200, 8, w - 10, 28))
    d.text((12, 34), "Se:3  Im:42", font=f, fill=light)
    d.text((12, h - 42), "W:1500  L:-600", font=f, fill=light)
    d.text((12, h - 24), "ST 1.25mm", font=f, fill=light)
    d.text((w - 26, h // 2 - 8), "L", font=fonts(16), fill=light)
    d.text((12, h // 2 - 8), "R", font=fonts(16), fill=light)
    return img.filter(ImageFilter.GaussianBlur(0.5))



# --------------------------------------------------------------------------------------------------
# From a data-file entry to a picture
# --------------------------------------------------------------------------------------------------


def _photo(fn: Callable[..., Image.Image]) -> Callable[..., Image.Image]:
    return lambda name, fonts, **p: fn(name, **p)


def _device(fn: Callable[..., Image.Image]) -> Callable[..., Image.Image]:
    return lambda name, fonts, **p: fn(name, fonts, **p)


def _document(fn: Callable[..., Image.Image]) -> Callable[..., Image.Image]:
    return lambda name, fonts, **p: fn(fonts, **p)


def _lab_report(name: str, fonts: Fonts, *, header: dict[str, Any], rows: Sequence[Sequence[str]],
                **p: Any) -> Image.Image:
    footer = {"footer": tuple(header["footer"])} if "footer" in header else {}
    return lab_report(fonts, ReportHeader(**{**header, **footer}), [Row(*r) for r in rows], **p)


def _prescription(name: str, fonts: Fonts, *, items: Sequence[Sequence[str]] = (), **p: Any) -> Image.Image:
    return prescription(fonts, items=[RxItem(*i) for i in items], **p)


def _medicine_box(name: str, fonts: Fonts, *, label: dict[str, Any], **p: Any) -> Image.Image:
    box = BoxLabel(**{**label, "band": tuple(label["band"]), "lines": tuple(label.get("lines", ()))})
    return medicine_box(name, fonts, box, **p)


def _tongue_photo(name: str, fonts: Fonts, *, body: Sequence[int], coating: Sequence[int],
                  **p: Any) -> Image.Image:
    return tongue_photo(name, body=(body[0], body[1], body[2]), coating=(coating[0], coating[1], coating[2]), **p)


#: ``kind`` of a data-file entry -> ``painter(name, fonts, **params)``.
PAINTERS: dict[str, Callable[..., Image.Image]] = {
    "lab_report": _lab_report,
    "prescription": _prescription,
    "imaging_report": _document(imaging_report),
    "phq9_screenshot": _document(phq9_screenshot),
    "skin_annular": _photo(skin_annular),
    "skin_wheals": _photo(skin_wheals),
    "child_trunk_rash": _photo(child_trunk_rash),
    "tongue_photo": _tongue_photo,
    "eye_keratitis": _photo(eye_keratitis),
    "medicine_box": _medicine_box,
    "ecg_strip": _device(ecg_strip),
    "ultrasound_thyroid": _device(ultrasound_thyroid),
    "ultrasound_kidney": _device(ultrasound_kidney),
    "ct_film_photo": _device(ct_film_photo),
}


def paint(name: str, fonts: Fonts, spec: dict[str, Any]) -> Image.Image:
    """Draw the image ``name`` from its data-file entry: ``kind`` picks the drawing, the other keys are its
    parameters, and the name without its suffix seeds the random parts."""
    params = dict(spec)
    kind = params.pop("kind", None)
    if kind not in PAINTERS:
        raise ValueError(f"{name}: unknown image kind {kind!r} (known: {', '.join(sorted(PAINTERS))})")
    return PAINTERS[kind](Path(name).stem, fonts, **params)
