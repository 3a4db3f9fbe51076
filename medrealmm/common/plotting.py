"""The house style for every figure the project draws (reports, corpus funnel, rubric reports): a CJK
font, one look, PNG bytes out, and where drawn rectangles land in the PNG (for HTML links).

matplotlib is imported here, so only modules that draw import this one.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Iterator, Sequence
from typing import Any

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from medrealmm.common.fonts import cjk_font

__all__ = ["DPI", "NEG_COLOUR", "PAD_INCHES", "POS_COLOUR", "figure_style", "label_inches", "new_figure", "png_areas",
           "render_png", "text_width"]

DPI = 120
POS_COLOUR = "#4C9A5B"
NEG_COLOUR = "#C8553D"


class _QuietWeightFallback(logging.Filter):
    """Drop matplotlib's "Failed to find font weight" warning: CJK fonts often ship one weight only,
    so every bold title would log it although the text renders fine."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Failed to find font weight" not in str(record.msg)


@contextlib.contextmanager
def figure_style(font: str | None) -> Iterator[None]:
    """The report's look, applied only while one figure is built and rendered."""
    family = cjk_font(font)
    rc = {
        # DejaVu Sans after the CJK font: per-glyph fallback for the few symbols (e.g. U+2212 minus)
        # some CJK fonts lack.
        "font.family": [family, "DejaVu Sans"],
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "xtick.labelsize": 8.5,
        "ytick.labelsize": 8.5,
        "legend.fontsize": 8.5,
        "figure.titlesize": 11,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "hatch.linewidth": 0.8,
        "savefig.facecolor": "white",
        # Labels are data (model names, departments): a "$" in one must not start mathtext.
        "text.parse_math": False,
    }
    quiet = _QuietWeightFallback()
    fm_log = logging.getLogger("matplotlib.font_manager")
    fm_log.addFilter(quiet)
    try:
        with mpl.rc_context(rc):
            yield
    finally:
        fm_log.removeFilter(quiet)


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(max(width, 3.0), max(height, 2.0)), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


PAD_INCHES = 0.08


def render_png(fig: Figure) -> bytes:
    """PNG bytes of ``fig``; the figure is cleared afterwards so its artists can be freed at once."""
    buf = io.BytesIO()
    try:
        # "tight" on top of constrained layout: a safety net so no long label is ever cut off.
        fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", pad_inches=PAD_INCHES)
    finally:
        fig.clear()
    return buf.getvalue()


def png_areas(fig: Figure, ax: Any, rects: Sequence[tuple[float, float, float, float]]
           ) -> list[tuple[float, float, float, float]]:
    """Where data rectangles ``(x0, y0, x1, y1)`` land in the PNG :func:`render_png` will write, as
    (left, top, width, height) fractions of the image, so an HTML page can lay links over them at
    any display size. Draws once to fix the layout; savefig's tight box is the same box, padded."""
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(PAD_INCHES)   # inches
    out = []
    for x0, y0, x1, y1 in rects:
        (ax0, ay0), (ax1, ay1) = ax.transData.transform([(x0, y0), (x1, y1)]) / fig.dpi
        left, right = sorted((ax0, ax1))
        bottom, top = sorted((ay0, ay1))
        out.append(((left - box.x0) / box.width, (box.y1 - top) / box.height,
                    (right - left) / box.width, (top - bottom) / box.height))
    return out


def text_width(label: Any) -> float:
    """Rough printed width of a label in Latin-character units (CJK glyphs are double width)."""
    return sum(2.0 if ord(ch) > 0x2E7F else 1.0 for ch in str(label))


def label_inches(labels: Sequence[Any], size: float = 8.5) -> float:
    """Inches the longest label needs at ``size`` points."""
    widest = max((text_width(x) for x in labels), default=0.0)
    return widest * size * 0.55 / 72.0
