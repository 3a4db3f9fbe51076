"""Build the bundled synthetic sample benchmark: ``cases.jsonl`` plus the images its patients upload.

Why this exists: MedRealMM's real consultations cannot be redistributed, yet every stage of the
pipeline (prompt building, inference, per-criterion judging, scoring, reports) needs a small set of
realistic multimodal cases to run end to end and in tests. This module writes such a set. Every
case and every image is SYNTHETIC, written and drawn by the medrealmm authors: there are no real
patients here. The images imitate what patients upload in Chinese online consultations (lab
reports, prescriptions, skin photos, tongue photos, an ECG strip, ultrasound and CT pictures,
medicine boxes, a questionnaire screenshot) with identifiers already blacked out, as Phase 1
de-identification would leave them.

The output is deterministic: fixed seeds derived from file names, PNGs without timestamps and
JPEGs without EXIF saved with fixed parameters, so a rebuild gives the same bytes in the same
rendering environment (same font file, FreeType, libjpeg-turbo and zlib; see
:func:`render_environment`). The generated files are committed, so nothing at runtime needs the
CJK font that drawing Chinese text requires.

Run ``python -m medrealmm.data.sample_builder [--out DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont, features

log = logging.getLogger(__name__)

DEFAULT_OUT = Path(__file__).resolve().parent / "sample"
SOURCE = "medrealmm sample"
MAX_SIDE = 768
JPEG_QUALITY = 85
FONT_ENV = "MEDREALMM_CJK_FONT"

# (path, face index inside a .ttc). The first entry is the font the committed files were drawn with.
FONT_CANDIDATES: tuple[tuple[str, int], ...] = (
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),  # Debian/Ubuntu fonts-wqy-zenhei
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),  # Debian fonts-noto-cjk (SC face)
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),  # Debian fonts-wqy-microhei
    ("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 2),  # Arch noto-fonts-cjk
    ("/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc", 2),  # Fedora
    ("/usr/share/fonts/wenquanyi/wqy-zenhei/wqy-zenhei.ttc", 0),  # Fedora wqy-zenhei
    ("/System/Library/Fonts/PingFang.ttc", 0),  # macOS
    ("C:/Windows/Fonts/msyh.ttc", 0),  # Windows
)

# The environment the committed sample was rendered in. A rebuild elsewhere is still a valid
# sample, but only this environment reproduces the committed bytes exactly.
REFERENCE_ENV: dict[str, str] = {
    "font": "wqy-zenhei.ttc",  # Debian fonts-wqy-zenhei 0.9.45-8
    "font_sha256": "79c18ebe7b811951e8311bad7103ebeae8c337ed9988ea69e8a78a66cfe029b9",
    "freetype2": "2.14.3",
    "libjpeg_turbo": "3.2.0",
    "zlib": "1.2.13",
}

INTENTS = ("症状咨询", "治疗建议", "检查结果解读", "用药咨询", "病史采集", "诊断与解释", "患者问答")
STAGES = ("初诊问询", "检查解读", "诊断讨论", "治疗方案", "随访复诊")

RGB = tuple[int, int, int]
INK: RGB = (20, 20, 20)
BLACK: RGB = (0, 0, 0)
PAPER: RGB = (252, 251, 247)


# --------------------------------------------------------------------------------------------------
# Fonts and the rendering environment
# --------------------------------------------------------------------------------------------------


class FontNotFoundError(RuntimeError):
    """No CJK font is installed, so Chinese text cannot be drawn."""


def find_cjk_font() -> tuple[Path, int] | None:
    """The first CJK font found: ``$MEDREALMM_CJK_FONT`` (``path`` or ``path:index``), then the usual paths."""
    env = os.environ.get(FONT_ENV)
    if env:
        path, _, index = env.rpartition(":") if env.rpartition(":")[2].isdigit() else (env, "", "0")
        if Path(path).is_file():
            return Path(path), int(index)
        log.warning("%s=%s is not a font file; searching the usual paths", FONT_ENV, env)
    for path, index in FONT_CANDIDATES:
        if Path(path).is_file():
            return Path(path), index
    return None


def require_cjk_font() -> tuple[Path, int]:
    found = find_cjk_font()
    if found is None:
        raise FontNotFoundError(
            "no CJK font found to draw the sample images' Chinese text. On Debian/Ubuntu install one with "
            "`apt-get install fonts-wqy-zenhei` (the font the committed sample was drawn with) or "
            f"`fonts-noto-cjk`, or point {FONT_ENV} at a .ttf/.ttc file. Searched: "
            + ", ".join(p for p, _ in FONT_CANDIDATES)
        )
    return found


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def render_environment(font: tuple[Path, int] | None = None) -> dict[str, str]:
    """What decides the output bytes: the font file and the libraries Pillow draws/encodes with."""
    font = font or find_cjk_font()
    return {
        "font": font[0].name if font else "",
        "font_sha256": _file_sha256(font[0]) if font else "",
        "freetype2": str(features.version("freetype2")),
        "libjpeg_turbo": str(features.version("libjpeg_turbo")),
        "zlib": str(features.version("zlib")),
    }


def environment_differences(env: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """``{key: (reference, here)}`` for every way this environment differs from the reference one."""
    env = env or render_environment()
    return {k: (v, env.get(k, "")) for k, v in REFERENCE_ENV.items() if env.get(k, "") != v}


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


def blend(arr: np.ndarray, color: Sequence[float], alpha: np.ndarray) -> np.ndarray:
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
    d.text((200, y), f"标本：{header.specimen}", font=f, fill=INK)
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
    x = field_with_mask(d, (24, y), "采样时间：", f, 118)
    field_with_mask(d, (max(x + 20, 330), y), "报告时间：", f, 118)
    y += 26
    x = field_with_mask(d, (24, y), "检验者：", f, 60)
    field_with_mask(d, (max(x + 20, 330), y), "审核者：", f, 60)
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
    n_lines = len(items) * 2 + (math.ceil(len(herbs) / 3) + len(wrap(herb_usage, fonts(15), width - 90)) if herbs else 0)
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


def phq9_screenshot(fonts: Fonts, scores: Sequence[int], *, width: int = 432, height: int = 768) -> Image.Image:
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


def _tongue_outline(cx: float, top: float, tip: float, half: float, tooth_marks: bool) -> list[tuple[float, float]]:
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


def eye_keratitis(name: str, *, w: int = 640, h: int = 400) -> Image.Image:
    """A red eye of a contact-lens wearer: ciliary flush around the limbus and a white corneal infiltrate."""
    rng = rng_for(name)
    arr = skin_background(rng, w, h, tone=(220, 176, 150))
    cx, cy = w / 2, h / 2 + 10
    upper = [(cx + 250 * math.cos(a), cy - 120 * math.sin(a)) for a in np.linspace(0, math.pi, 40)]
    lower = [(cx + 250 * math.cos(a), cy + 95 * math.sin(a)) for a in np.linspace(math.pi, 2 * math.pi, 40)]
    eye, de = mask_image(w, h)
    de.polygon(upper + lower, fill=255)
    ea = as_alpha(eye, 2)
    sclera = np.ones_like(arr) * np.asarray((236, 214, 206), np.float32)
    sclera += low_frequency(rng, w, h, 30, 10)[..., None]
    arr = arr * (1 - ea) + sclera * ea
    vessels, dv = mask_image(w, h)
    r_iris = 78
    for _ in range(70):  # tortuous vessels running from the fornix toward the limbus
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
            pts.append((cx + r * math.cos(a) + rng.normal(0, 2), cy + r * 0.55 * math.sin(a) + rng.normal(0, 2)))
        dv.line(pts, fill=int(150 + 100 * rng.random()), width=int(rng.integers(1, 3)))
    arr = blend(arr, (178, 34, 40), as_alpha(vessels, 0.8) * 0.9 * ea)
    flush, dfl = mask_image(w, h)
    dfl.ellipse((cx - r_iris - 30, cy - r_iris - 30, cx + r_iris + 30, cy + r_iris + 30), outline=255, width=30)
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
    lids, dli = mask_image(w, h)
    dli.line(upper, fill=255, width=6)
    for x, y in upper[4:-4:2]:
        dli.line([(x, y), (x + (x - cx) * 0.06, y - 16)], fill=255, width=2)
    arr = blend(arr, (40, 28, 24), as_alpha(lids, 0.8) * 0.85)
    tear, dtr = mask_image(w, h)
    dtr.line(lower, fill=255, width=4)
    arr = blend(arr, (240, 225, 200), as_alpha(tear, 1.5) * 0.4)
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
    """Rayleigh-like speckle, slightly elongated laterally like a real B-mode image."""
    re = rng.normal(0, 1, (h // 2, w // 3)).astype(np.float32)
    im = rng.normal(0, 1, (h // 2, w // 3)).astype(np.float32)
    mag = np.hypot(re, im) / 1.25
    return np.asarray(Image.fromarray(mag, mode="F").resize((w, h), Image.Resampling.BILINEAR), np.float32)


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
    """Linear-probe transverse thyroid scan: a solid hypoechoic, well-defined, wider-than-tall nodule."""
    rng = rng_for(name)
    x0, x1, y0, y1 = 70, w - 60, 60, h - 70
    iw, ih = x1 - x0, y1 - y0
    tissue = np.full((ih, iw), 0.42, np.float32)  # subcutaneous layer
    tissue[:40] = 0.6
    tissue[40:75] = 0.28  # strap muscles
    lobe = _ellipse_field(iw, ih, iw * 0.45, ih * 0.45, iw * 0.33, ih * 0.27, soft=6)
    tissue = tissue * (1 - lobe) + 0.72 * lobe  # normal thyroid is brighter than muscle
    carotid = _ellipse_field(iw, ih, iw * 0.86, ih * 0.5, 34, 32, soft=2)
    tissue = tissue * (1 - carotid) + 0.03 * carotid
    trachea = _ellipse_field(iw, ih, iw * 0.06, ih * 0.42, 60, 48, soft=3)
    tissue = tissue * (1 - trachea) + 0.12 * trachea
    nx, ny, nrx, nry = iw * 0.46, ih * 0.47, 52, 39  # 0.82 x 0.61 cm at 64 px/cm
    nodule = _ellipse_field(iw, ih, nx, ny, nrx, nry, soft=2.5)
    tissue = tissue * (1 - nodule) + 0.2 * nodule
    depth = np.linspace(1.0, 0.75, ih, dtype=np.float32)[:, None]
    img_arr = np.clip(tissue * _speckle(rng, iw, ih) * depth * 235, 0, 255)
    ring = np.clip(_ellipse_field(iw, ih, iw * 0.06, ih * 0.42, 62, 50, soft=2) - trachea, 0, 1)
    img_arr = np.maximum(img_arr, ring * 230)  # tracheal ring echo
    canvas = np.zeros((h, w), np.float32)
    canvas[y0:y1, x0:x1] = img_arr
    img = Image.fromarray(canvas.astype(np.uint8), mode="L").filter(ImageFilter.GaussianBlur(0.6)).convert("RGB")
    d = ImageDraw.Draw(img)
    _us_overlay(d, fonts, w, h, "L12-5  12MHz  Gn 58  DR 60", ["THY  R-LOBE  TRANS", "Depth 4.0cm"],
                ["D1  0.82 cm", "D2  0.61 cm"])
    _caliper(d, (x0 + nx - nrx, y0 + ny), (x0 + nx + nrx, y0 + ny), "1", fonts)
    _caliper(d, (x0 + nx, y0 + ny - nry), (x0 + nx, y0 + ny + nry), "2", fonts)
    for k in range(5):  # depth ticks, 1 cm
        yk = y0 + k * 64
        d.line((x1 + 4, yk, x1 + 12, yk), fill=(200, 200, 200))
    return img


def ultrasound_kidney(name: str, fonts: Fonts, *, w: int = 640, h: int = 500) -> Image.Image:
    """Convex-probe fan of the right kidney: dilated pelvis (hydronephrosis), a proximal ureteric stone with shadow."""
    rng = rng_for(name)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ax, ay = w / 2, -60.0  # virtual apex above the image
    r = np.hypot(xx - ax, yy - ay)
    theta = np.arctan2(xx - ax, yy - ay)
    r0, r1, half = 120.0, 540.0, math.radians(36)
    sector = ((r > r0) & (r < r1) & (np.abs(theta) < half)).astype(np.float32)
    tissue = np.full((h, w), 0.45, np.float32)  # liver window
    kidney = _ellipse_field(w, h, w * 0.5, h * 0.52, 170, 92, soft=5)
    tissue = tissue * (1 - kidney) + 0.36 * kidney  # cortex
    sinus = _ellipse_field(w, h, w * 0.5, h * 0.53, 105, 46, soft=6)
    tissue = tissue * (1 - sinus) + 0.85 * sinus  # echogenic sinus fat
    pelvis = _ellipse_field(w, h, w * 0.52, h * 0.54, 62, 28, soft=2)  # ~1.5 cm separation
    for cx, cy in ((w * 0.4, h * 0.5), (w * 0.62, h * 0.49), (w * 0.47, h * 0.6)):  # dilated calyces
        pelvis = np.maximum(pelvis, _ellipse_field(w, h, cx, cy, 20, 14, soft=2))
    ureter = np.clip(1 - np.abs(yy - (h * 0.58 + (xx - w * 0.58) * 0.55)) / 9, 0, 1) * (xx > w * 0.58) * (xx < w * 0.72)
    pelvis = np.maximum(pelvis, ureter)
    tissue = tissue * (1 - pelvis) + 0.03 * pelvis
    sx, sy = w * 0.73, h * 0.665
    stone = _ellipse_field(w, h, sx, sy, 19, 12, soft=1.5)  # 0.6 cm at ~32 px/cm
    theta_s, r_s = math.atan2(sx - ax, sy - ay), math.hypot(sx - ax, sy - ay)
    shadow = np.clip(1 - np.abs(theta - theta_s) * r / 18, 0, 1) * (r > r_s + 10)
    tissue = tissue * (1 - 0.85 * shadow)
    arr = tissue * _speckle(rng, w, h) * np.clip(1.1 - (r - r0) / (r1 - r0) * 0.45, 0.4, 1.1) * 230
    arr = np.maximum(arr, stone * 250)
    arr *= sector
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), mode="L")
    img = img.filter(ImageFilter.GaussianBlur(0.7)).convert("RGB")
    d = ImageDraw.Draw(img)
    _us_overlay(d, fonts, w, h, "C5-1  3.5MHz  Gn 62  DR 66", ["RT KIDNEY  LONG", "Depth 16cm"],
                ["D1  0.60 cm", "D2  1.52 cm"])
    _caliper(d, (sx - 19, sy), (sx + 19, sy), "1", fonts)
    _caliper(d, (w * 0.52, h * 0.54 - 26), (w * 0.52, h * 0.54 + 26), "2", fonts)
    return img


def ct_film_photo(name: str, fonts: Fonts, *, w: int = 600, h: int = 560) -> Image.Image:
    """A phone photo of one axial lung-window CT frame: a 9 mm lobulated, spiculated nodule in the right upper lobe.

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
    trachea = _ellipse_field(w, h, cx + 5, cy - 95, 14, 12, soft=2)
    arr = arr * (1 - trachea) + 0.05 * trachea
    nod, dn = mask_image(w, h)
    nx, ny = cx - 120, cy - 95  # right upper lobe, apicoposterior
    dn.polygon(jitter_polygon(rng, nx, ny, 11, 9, rough=0.25), fill=255)
    for k in range(7):  # short spicules
        a = 2 * math.pi * k / 7 + 0.3 * rng.random()
        dn.line([(nx + 10 * math.cos(a), ny + 9 * math.sin(a)), (nx + 19 * math.cos(a), ny + 17 * math.sin(a))],
                fill=160, width=1)
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
# The images of the sample, by file name (the name also seeds the drawing)
# --------------------------------------------------------------------------------------------------

Painter = Callable[[Fonts], Image.Image]

UP, DOWN = "↑", "↓"


def image_specs() -> dict[str, Painter]:
    """Every image of the sample: file name -> painter. ``.png`` are documents, ``.jpg`` photos."""
    return {
        "derm-001-1.jpg": lambda f: skin_annular("derm-001-1", radius=95),
        "derm-001-2.jpg": lambda f: skin_annular("derm-001-2", radius=150),
        "derm-002-1.jpg": lambda f: skin_wheals("derm-002-1"),
        "derm-002-2.jpg": lambda f: medicine_box("derm-002-2", f, BoxLabel(
            "氯雷他定片", "10mg×6片", (38, 110, 170), "OTC",
            ("【适应症】用于缓解过敏性鼻炎有关的症状及慢性荨麻疹、瘙痒性皮肤病。",
             "【用法用量】口服。成人及12岁以上儿童：一日1次，一次1片（10mg）。",
             "【规格】10mg"))),
        "peds-001-1.jpg": lambda f: child_trunk_rash("peds-001-1"),
        "peds-001-2.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "血常规 + C反应蛋白", "男", "2岁", "儿科门诊", "末梢全血", "发热待查"), [
            Row("白细胞计数(WBC)", "4.82", "", "×10^9/L", "4.40–11.90"),
            Row("中性粒细胞百分比(NEUT%)", "20.1", DOWN, "%", "22.0–65.0"),
            Row("淋巴细胞百分比(LYM%)", "71.5", UP, "%", "23.0–69.0"),
            Row("单核细胞百分比(MONO%)", "7.6", "", "%", "2.0–11.0"),
            Row("中性粒细胞绝对值(NEUT#)", "0.97", DOWN, "×10^9/L", "1.20–7.00"),
            Row("淋巴细胞绝对值(LYM#)", "3.45", "", "×10^9/L", "1.80–6.30"),
            Row("红细胞计数(RBC)", "4.52", "", "×10^12/L", "4.00–5.50"),
            Row("血红蛋白(HGB)", "121", "", "g/L", "112–149"),
            Row("血小板计数(PLT)", "236", "", "×10^9/L", "188–472"),
            Row("C反应蛋白(CRP)", "3.2", "", "mg/L", "0–10"),
        ]),
        "peds-002-1.jpg": lambda f: medicine_box("peds-002-1", f, BoxLabel(
            "布洛芬混悬液", "100ml:2g（儿童用）", (226, 110, 40), "OTC",
            ("【用法用量】口服，需要时每6~8小时可重复使用，24小时不超过4次。",
             "1~3岁 10~15kg 一次4ml；4~6岁 16~21kg 一次5ml；",
             "7~9岁 22~27kg 一次8ml；10~12岁 28~32kg 一次10ml。",
             "用前摇匀，请使用随附量杯。")), angle=4.0),
        "tcm-001-1.jpg": lambda f: tongue_photo("tcm-001-1", body=(214, 150, 150), coating=(246, 243, 236),
                                                coating_alpha=0.75, swollen=True, tooth_marks=True),
        "tcm-002-1.png": lambda f: prescription(
            f, title="中药处方笺", department="中医科", sex="男", age="55岁",
            diagnosis="畏寒（脾肾阳虚证）", fee="356.40元", herbs=(
                "制附子 15g（先煎）", "干姜 10g", "肉桂 6g（后下）", "党参 15g", "炒白术 15g", "熟地黄 20g",
                "山茱萸 12g", "淫羊藿 15g", "炙甘草 6g"),
            herb_usage="共14剂，每日1剂，水煎取汁400ml，分早晚两次温服。制附子先煎60分钟，再入他药。"),
        "tcm-002-2.jpg": lambda f: tongue_photo("tcm-002-2", body=(196, 62, 62), coating=(214, 182, 84),
                                                coating_alpha=0.9, swollen=False, tooth_marks=False),
        "psy-001-1.png": lambda f: phq9_screenshot(f, (3, 3, 3, 2, 1, 3, 2, 0, 2)),
        "psy-002-1.jpg": lambda f: medicine_box("psy-002-1", f, BoxLabel(
            "盐酸舍曲林片", "50mg×14片", (90, 70, 150), "Rx",
            ("【用法用量】口服，每日1次，早或晚服用均可，请遵医嘱。",
             "【规格】50mg（按C17H17Cl2N计）",
             "【贮藏】密封，在30℃以下保存。"))),
        "endo-001-1.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "甲状腺功能 + 甲状腺抗体", "女", "32岁", "内分泌科", "血清", "心悸、消瘦待查"), [
            Row("游离三碘甲状腺原氨酸(FT3)", "14.82", UP, "pmol/L", "3.10–6.80"),
            Row("游离甲状腺素(FT4)", "46.20", UP, "pmol/L", "12.00–22.00"),
            Row("促甲状腺激素(TSH)", "<0.005", DOWN, "mIU/L", "0.27–4.20"),
            Row("总三碘甲状腺原氨酸(TT3)", "4.91", UP, "nmol/L", "1.30–3.10"),
            Row("总甲状腺素(TT4)", "238.0", UP, "nmol/L", "66.0–181.0"),
            Row("促甲状腺素受体抗体(TRAb)", "12.60", UP, "IU/L", "0–1.75"),
            Row("甲状腺过氧化物酶抗体(TPOAb)", "86.3", UP, "IU/mL", "0–34.0"),
            Row("甲状腺球蛋白抗体(TgAb)", "62.0", "", "IU/mL", "0–115.0"),
        ]),
        "endo-002-1.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "生化 + 糖化血红蛋白 + 尿微量白蛋白", "男", "58岁", "体检中心", "血清/全血/尿",
            "2型糖尿病"), [
            Row("空腹血糖(GLU)", "9.8", UP, "mmol/L", "3.9–6.1"),
            Row("糖化血红蛋白(HbA1c)", "8.6", UP, "%", "4.0–6.0"),
            Row("丙氨酸氨基转移酶(ALT)", "28", "", "U/L", "9–50"),
            Row("尿素(UREA)", "6.9", "", "mmol/L", "3.1–8.0"),
            Row("肌酐(CREA)", "128", UP, "μmol/L", "57–111"),
            Row("估算肾小球滤过率(eGFR)", "52", DOWN, "mL/min/1.73m²", "≥90"),
            Row("尿酸(UA)", "452", UP, "μmol/L", "208–428"),
            Row("甘油三酯(TG)", "2.31", UP, "mmol/L", "<1.70"),
            Row("低密度脂蛋白胆固醇(LDL-C)", "3.62", UP, "mmol/L", "<3.40"),
            Row("尿白蛋白/肌酐比(UACR)", "86", UP, "mg/g", "<30"),
            Row("血钾(K)", "4.6", "", "mmol/L", "3.5–5.3"),
        ], notes=("* eGFR按CKD-EPI公式计算。",),
            columns=(("No", 24), ("项目", 56), ("结果", 300), ("", 356), ("单位", 386), ("参考区间", 540)))
        ,
        "endo-002-2.png": lambda f: prescription(
            f, department="全科（社区）", sex="男", age="58岁", diagnosis="2型糖尿病；高血压病", fee="86.20元",
            items=(RxItem("盐酸二甲双胍片  0.5g×60片", "用法：每次0.5g，每日2次，随餐口服"),
                   RxItem("苯磺酸氨氯地平片  5mg×28片", "用法：每次5mg，每日1次，口服"))),
        "endo-003-1.jpg": lambda f: ultrasound_thyroid("endo-003-1", f),
        "endo-003-2.png": lambda f: imaging_report(
            f, title="超声检查报告单", sex="女", age="45岁", department="体检中心", exam="甲状腺及颈部淋巴结",
            findings_label="超声所见：", impression_label="超声提示：",
            findings=("甲状腺左右叶大小形态正常，包膜完整，实质回声均匀。右叶中部可见一低回声结节，大小约"
                      "0.82cm×0.61cm，边界清晰，形态规则，纵横比<1，内部回声均匀，未见明显钙化，后方回声无"
                      "改变。CDFI：结节周边可见少许点状血流信号。左叶及峡部未见明显占位。\n双侧颈部未见明显"
                      "异常肿大淋巴结。"),
            impression="甲状腺右叶实性低回声结节（C-TIRADS 3类），建议定期复查。"),
        "cardio-001-1.png": lambda f: ecg_strip("cardio-001-1", f),
        "gi-001-1.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "肝功能", "男", "40岁", "体检中心", "血清", "健康体检"), [
            Row("丙氨酸氨基转移酶(ALT)", "186", UP, "U/L", "9–50"),
            Row("天门冬氨酸氨基转移酶(AST)", "98", UP, "U/L", "15–40"),
            Row("γ-谷氨酰转移酶(GGT)", "96", UP, "U/L", "10–60"),
            Row("碱性磷酸酶(ALP)", "88", "", "U/L", "45–125"),
            Row("总胆红素(TBIL)", "18.6", "", "μmol/L", "0–26.0"),
            Row("直接胆红素(DBIL)", "5.2", "", "μmol/L", "0–8.0"),
            Row("总蛋白(TP)", "72.4", "", "g/L", "65.0–85.0"),
            Row("白蛋白(ALB)", "43.5", "", "g/L", "40.0–55.0"),
            Row("球蛋白(GLB)", "28.9", "", "g/L", "20.0–40.0"),
        ]),
        "gi-001-2.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "乙型肝炎病毒血清标志物（定量）", "男", "40岁", "体检中心", "血清", "健康体检"), [
            Row("乙肝表面抗原(HBsAg)", "2356.80", "阳性(+)", "IU/mL", "<0.05"),
            Row("乙肝表面抗体(抗-HBs)", "0.80", "阴性(-)", "mIU/mL", "<10.00"),
            Row("乙肝e抗原(HBeAg)", "86.20", "阳性(+)", "S/CO", "<1.00"),
            Row("乙肝e抗体(抗-HBe)", "28.50", "阴性(-)", "S/CO", ">1.00"),
            Row("乙肝核心抗体(抗-HBc)", "9.81", "阳性(+)", "S/CO", "<1.00"),
        ], notes=("* 抗-HBe为竞争法检测，S/CO>1.00为阴性。",),
            columns=(("No", 24), ("项目", 56), ("结果", 260), ("", 334), ("单位", 420), ("参考区间", 520))),
        "gi-002-1.png": lambda f: prescription(
            f, department="消化内科", sex="女", age="47岁", diagnosis="慢性胃炎；幽门螺杆菌感染", fee="412.60元",
            items=(RxItem("艾司奥美拉唑镁肠溶片  20mg×28片", "用法：每次20mg，每日2次，早、晚餐前半小时口服"),
                   RxItem("枸橼酸铋钾胶囊  0.3g×56粒", "用法：每次0.6g（2粒），每日2次，早、晚餐前半小时口服"),
                   RxItem("阿莫西林胶囊  0.5g×56粒", "用法：每次1.0g（2粒），每日2次，餐后口服"),
                   RxItem("克拉霉素片  0.25g×56片", "用法：每次0.5g（2片），每日2次，餐后口服"))),
        "obgyn-001-1.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "75g口服葡萄糖耐量试验(OGTT)", "女", "31岁", "产科门诊", "静脉血浆", "孕25周，产前检查"), [
            Row("空腹血糖(0h)", "5.3", UP, "mmol/L", "<5.1"),
            Row("服糖后1小时血糖(1h)", "10.6", UP, "mmol/L", "<10.0"),
            Row("服糖后2小时血糖(2h)", "8.2", "", "mmol/L", "<8.5"),
        ], notes=("* 妊娠期OGTT：任一时点血糖达到或超过界值即为异常。",)),
        "uro-001-1.jpg": lambda f: ultrasound_kidney("uro-001-1", f),
        "uro-001-2.png": lambda f: lab_report(f, ReportHeader(
            "检验报告单", "尿液分析", "男", "38岁", "急诊科", "中段尿", "腰痛待查"), [
            Row("颜色(COL)", "淡红色", "", "", "淡黄色"),
            Row("浊度(TUR)", "微浑", "", "", "清"),
            Row("酸碱度(pH)", "6.0", "", "", "4.5–8.0"),
            Row("比重(SG)", "1.025", "", "", "1.003–1.030"),
            Row("隐血(BLD)", "3+", UP, "", "阴性"),
            Row("蛋白质(PRO)", "±", "", "", "阴性"),
            Row("亚硝酸盐(NIT)", "阴性", "", "", "阴性"),
            Row("白细胞酯酶(LEU)", "阴性", "", "", "阴性"),
            Row("红细胞(镜检)", "186", UP, "/μL", "0–17"),
            Row("白细胞(镜检)", "9", "", "/μL", "0–28"),
        ]),
        "ortho-001-1.png": lambda f: lab_report(f, ReportHeader(
            "骨密度检测报告", "双能X线吸收法(DXA)", "女", "67岁", "体检中心", "—", "绝经后女性骨量评估"), [
            Row("腰椎 L1–L4", "0.712", "", "-3.2", "-1.6"),
            Row("股骨颈（左）", "0.598", "", "-2.6", "-1.1"),
            Row("全髋（左）", "0.701", "", "-2.2", "-0.9"),
            Row("大转子（左）", "0.552", "", "-1.9", "-0.6"),
        ], notes=("WHO诊断标准：T值≥-1.0 正常；-2.5<T值<-1.0 骨量减少；T值≤-2.5 骨质疏松。",
                  "诊断参考：骨质疏松（以最低T值部位为准）。"),
            columns=(("No", 24), ("部位", 56), ("BMD(g/cm²)", 250), ("", 360), ("T值", 400), ("Z值", 500))),
        "eye-001-1.jpg": lambda f: eye_keratitis("eye-001-1"),
        "resp-001-1.jpg": lambda f: ct_film_photo("resp-001-1", f),
        "resp-001-2.png": lambda f: imaging_report(
            f, title="CT检查报告单", sex="男", age="56岁", department="体检中心", exam="胸部低剂量CT平扫",
            findings_label="影像所见：", impression_label="诊断意见：",
            findings=("胸廓对称，气管居中。右肺上叶尖段见一实性结节，大小约9mm×7mm，边缘可见浅分叶及短毛刺，"
                      "邻近胸膜未见凹陷，内部未见空泡及钙化。两肺另见少许纤维条索影。余肺野未见明显实变。"
                      "纵隔及双肺门未见明显肿大淋巴结。心脏大小正常。双侧胸腔未见积液。"),
            impression="1. 右肺上叶实性结节，伴分叶及毛刺，建议结合临床并短期随访复查。\n2. 两肺少许纤维灶。"),
    }
