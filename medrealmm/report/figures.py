"""The figures of the HTML report, as PNG bytes to embed (:func:`png_data_uri`).

Every function takes the Polars tables the scoring step writes and returns a finished PNG: the report
is a single self-contained HTML file, so nothing is written to disk here. Figures are built with
:class:`matplotlib.figure.Figure` and the Agg canvas directly, not pyplot, so that rendering inside
a long-running process (or in parallel with a user's own plots) neither leaks figures nor depends on
the interactive backend. Text is drawn in the CJK font from :func:`~medrealmm.common.fonts.cjk_font`
because model and department names are Chinese; titles and axis labels are English.

Figure sizes grow with the number of rows/panels so labels never overlap. An empty table raises
``ValueError`` (the caller logs it and leaves the figure out).
"""

from __future__ import annotations

import base64
import logging
import math
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import numpy.typing as npt
import polars as pl
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, Normalize, to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator, PercentFormatter

from medrealmm.common.plotting import (
    NEG_COLOUR,
    POS_COLOUR,
    figure_style,
    label_inches,
    new_figure,
    png_areas,
    render_png,
)

log = logging.getLogger(__name__)

#: Label of the physician reference row (``anchor`` is True) in legends.
ANCHOR_LABEL = "online physician"
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_MODE_COLOURS = ("#4C72B0", "#DD8452", "#55A868", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C", "#CCB974")
_ANCHOR_HATCH = "///"
_LINESTYLES = ("-", "--", ":", "-.")


# --------------------------------------------------------------------------------------------------
# shared plumbing


def _check(df: pl.DataFrame | None, what: str, columns: Sequence[str]) -> pl.DataFrame:
    if df is None or df.height == 0:
        raise ValueError(f"{what}: the table is empty, nothing to draw")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing} (has {df.columns})")
    return df


def _uniques(df: pl.DataFrame, col: str) -> list[Any]:
    """Distinct values in order of first appearance (the caller's sort order)."""
    return df.get_column(col).unique(maintain_order=True).to_list()


def _mode_colours(modes: Sequence[Any]) -> dict[Any, str]:
    return {m: _MODE_COLOURS[i % len(_MODE_COLOURS)] for i, m in enumerate(modes)}


def _series_colours(n: int) -> list[Any]:
    cmap = mpl.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _num(value: Any) -> float:
    """A float, with None as NaN (nullable columns)."""
    return math.nan if value is None else float(value)


def _ink(colour: Any) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b, _ = to_rgba(colour)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def _anchor_mask(df: pl.DataFrame) -> list[bool]:
    if "anchor" not in df.columns:
        return [False] * df.height
    return [bool(a) for a in df.get_column("anchor").fill_null(False).to_list()]


def _panel_key(parts: Sequence[tuple[str, Any]]) -> str:
    return ", ".join(f"{name}: {value}" for name, value in parts)


# --------------------------------------------------------------------------------------------------
# leaderboard


def leaderboard_figure(board: pl.DataFrame, *, font: str | None = None) -> bytes:
    """Scores per model with bootstrap CIs, against the online-physician reference.

    Columns: model, mode, judge, score, ci_low, ci_high (nullable), anchor. One panel per judge,
    models sorted by their best score, one colour per mode; the anchor is hatched and its score drawn
    as a dashed line so every model can be read against it.
    """
    board = _check(board, "leaderboard_figure", ["model", "mode", "judge", "score", "ci_low", "ci_high"])
    board = board.with_columns(anchor=pl.Series(_anchor_mask(board))).filter(pl.col("score").is_not_null())
    if board.height == 0:
        raise ValueError("leaderboard_figure: no row has a score")
    judges = _uniques(board, "judge")
    modes = _uniques(board, "mode")
    colours = _mode_colours(modes)
    per_judge = [board.filter(pl.col("judge") == j) for j in judges]
    n_models = [d.get_column("model").n_unique() for d in per_judge]
    max_modes = max(int(_num(d.group_by("model").len().get_column("len").max())) for d in per_judge)
    row_h = 0.22 + 0.2 * max_modes
    label_w = label_inches(board.get_column("model").to_list())

    with figure_style(font):
        fig = new_figure(6.0 + label_w, sum(n * row_h + 0.8 for n in n_models) + 0.9)
        axes = fig.subplots(len(judges), 1, squeeze=False, height_ratios=[n * row_h + 0.8 for n in n_models],
                            sharex=True)[:, 0]
        for ax, judge, df in zip(axes, judges, per_judge, strict=True):
            _leaderboard_panel(ax, df, colours, bar_h=0.8 / max_modes)
            title = f"judge: {judge}" if len(judges) > 1 else f"Leaderboard (judge: {judge})"
            ax.set_title(title, loc="left", pad=16 if bool(df.get_column("anchor").any()) else 6)
        axes[-1].set_xlabel("score")
        handles: list[Any] = [Patch(facecolor=colours[m], label=str(m)) for m in modes]
        if bool(board.get_column("anchor").any()):
            handles.append(Patch(facecolor="white", edgecolor="0.3", hatch=_ANCHOR_HATCH, label=ANCHOR_LABEL))
            handles.append(Line2D([], [], color="0.25", ls="--", lw=1.2, label=f"{ANCHOR_LABEL} score"))
        handles.append(Line2D([], [], color="0.2", marker="|", ls="", markersize=8, label="95% CI"))
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5), frameon=False)
        return render_png(fig)


def _leaderboard_panel(ax: Axes, df: pl.DataFrame, colours: dict[Any, str], *, bar_h: float) -> None:
    order = (df.group_by("model", maintain_order=True).agg(best=pl.col("score").max())
             .sort("best", descending=True, maintain_order=True).get_column("model").to_list())
    rows = {m: i for i, m in enumerate(order)}
    for model in order:
        sub = df.filter(pl.col("model") == model)
        k = sub.height
        for j, r in enumerate(sub.iter_rows(named=True)):
            y = rows[model] + (j - (k - 1) / 2) * bar_h
            score, lo, hi = _num(r["score"]), _num(r["ci_low"]), _num(r["ci_high"])
            anchor = bool(r["anchor"])
            ax.barh(y, score, height=bar_h * 0.92, color=colours[r["mode"]],
                    hatch=_ANCHOR_HATCH if anchor else None, edgecolor="0.25" if anchor else "none",
                    linewidth=0.8 if anchor else 0)
            end = score
            if not (math.isnan(lo) or math.isnan(hi)):
                ax.errorbar(score, y, xerr=[[max(score - lo, 0.0)], [max(hi - score, 0.0)]], fmt="none",
                            ecolor="0.15", elinewidth=1.0, capsize=2.5)
                end = max(score, hi)
            if end <= 0.88:
                ax.text(end + 0.012, y, f"{score:.2f}", va="center", ha="left", fontsize=8)
            else:
                ax.text(score - 0.012, y, f"{score:.2f}", va="center", ha="right", fontsize=8,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
            if anchor:
                # One line per anchor row, in its mode's colour when there are several (one per mode).
                several = int(df.get_column("anchor").sum()) > 1
                ax.axvline(score, color=colours[r["mode"]] if several else "0.25", ls="--", lw=1.2, zorder=0.5)
            if anchor and not several:
                # Above the plotting area (the title is padded to make room): never on top of a bar.
                ax.annotate(ANCHOR_LABEL, xy=(score, 1.0), xycoords=("data", "axes fraction"),
                            xytext=(0, 2), textcoords="offset points", va="bottom", ha="center",
                            fontsize=8, color="0.25", style="italic")
    ax.set_yticks(range(len(order)), [str(m) for m in order])
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.set_xlim(0, 1)
    ax.grid(axis="x", color="0.9", lw=0.6)
    ax.set_axisbelow(True)
    ax.tick_params(axis="x", labelbottom=True)


# --------------------------------------------------------------------------------------------------
# positive / negative decomposition (the paper's Figure 4)


def decomposition_figure(board: pl.DataFrame, *, font: str | None = None) -> bytes:
    """Why a score is what it is: positive criteria met vs negative criteria triggered per case.

    Columns: model, mode, judge, mean_pos_met, mean_neg_triggered, anchor. One panel per judge x mode,
    models sorted by (met - triggered); the physician anchor is hatched.
    """
    board = _check(board, "decomposition_figure",
                   ["model", "mode", "judge", "mean_pos_met", "mean_neg_triggered"])
    board = board.with_columns(anchor=pl.Series(_anchor_mask(board)))
    panels = board.select("judge", "mode").unique(maintain_order=True).rows()
    frames = [board.filter((pl.col("judge") == j) & (pl.col("mode") == m)) for j, m in panels]
    heights = [d.height * 0.5 + 0.7 for d in frames]
    label_w = label_inches(board.get_column("model").to_list())
    peaks = [_num(board.get_column(c).max()) for c in ("mean_pos_met", "mean_neg_triggered")]
    vmax = max([p for p in peaks if not math.isnan(p)], default=0.0) or 1.0

    with figure_style(font):
        fig = new_figure(6.0 + label_w, sum(heights) + 1.0)
        axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=heights, sharex=True)[:, 0]
        for ax, (judge, mode), df in zip(axes, panels, frames, strict=True):
            df = df.sort(pl.col("mean_pos_met").fill_null(0) - pl.col("mean_neg_triggered").fill_null(0),
                         descending=True, maintain_order=True)
            y = np.arange(df.height)
            h = 0.38
            for offset, col, colour in ((-h / 2, "mean_pos_met", POS_COLOUR),
                                        (h / 2, "mean_neg_triggered", NEG_COLOUR)):
                values = [_num(v) for v in df.get_column(col).to_list()]
                for yi, v, anchor in zip(y, values, df.get_column("anchor").to_list(), strict=True):
                    if math.isnan(v):
                        continue
                    ax.barh(yi + offset, v, height=h * 0.95, color=colour,
                            hatch=_ANCHOR_HATCH if anchor else None,
                            edgecolor="0.2" if anchor else "none", linewidth=0.8 if anchor else 0)
                    ax.text(v + vmax * 0.01, yi + offset, f"{v:.2f}", va="center", ha="left", fontsize=7.5)
            ax.set_yticks(y, [str(m) for m in df.get_column("model").to_list()])
            ax.set_ylim(df.height - 0.5, -0.5)
            ax.set_xlim(0, vmax * 1.12)
            ax.grid(axis="x", color="0.9", lw=0.6)
            ax.set_axisbelow(True)
            ax.tick_params(axis="x", labelbottom=True)
            title = _panel_key([("judge", judge), ("mode", mode)])
            ax.set_title(title if len(panels) > 1 else f"Criteria per case ({title})", loc="left")
        axes[-1].set_xlabel("criteria per case (mean)")
        handles: list[Any] = [Patch(color=POS_COLOUR, label="positive criteria met"),
                              Patch(color=NEG_COLOUR, label="negative criteria triggered")]
        if bool(board.get_column("anchor").any()):
            handles.append(Patch(facecolor="white", edgecolor="0.3", hatch=_ANCHOR_HATCH, label=ANCHOR_LABEL))
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
        return render_png(fig)


# --------------------------------------------------------------------------------------------------
# multimodal vs text-only ablation


def ablation_figure(ablation: pl.DataFrame, *, font: str | None = None) -> bytes:
    """Does seeing the images help? Paired multimodal - text-only difference per model, with its CI.

    Columns: model, judge, mean_a (multimodal), mean_b (text-only), diff, ci_low, ci_high. A CI that
    excludes 0 is coloured (blue: images help, red: they hurt); one panel per judge.
    """
    ablation = _check(ablation, "ablation_figure",
                      ["model", "judge", "mean_a", "mean_b", "diff", "ci_low", "ci_high"])
    judges = _uniques(ablation, "judge")
    frames = [ablation.filter(pl.col("judge") == j).sort("diff", descending=True, nulls_last=True,
                                                         maintain_order=True) for j in judges]
    heights = [d.height * 0.42 + 0.8 for d in frames]
    label_w = label_inches(ablation.get_column("model").to_list())
    spread = [abs(_num(v)) for c in ("diff", "ci_low", "ci_high") for v in ablation.get_column(c).to_list()]
    spread = [v for v in spread if not math.isnan(v)]
    lim = max(max(spread, default=0.0) * 1.15, 0.05)

    with figure_style(font):
        fig = new_figure(5.5 + label_w + 1.4, sum(heights) + 1.0)
        axes = fig.subplots(len(judges), 1, squeeze=False, height_ratios=heights, sharex=True)[:, 0]
        for ax, judge, df in zip(axes, judges, frames, strict=True):
            ax.axvline(0, color="0.35", lw=1.0, zorder=0.5)
            for yi, r in enumerate(df.iter_rows(named=True)):
                d, lo, hi = _num(r["diff"]), _num(r["ci_low"]), _num(r["ci_high"])
                colour = "0.45"
                if not (math.isnan(lo) or math.isnan(hi)):
                    colour = "#2E6DB4" if lo > 0 else "#C0392B" if hi < 0 else "0.45"
                    ax.plot([lo, hi], [yi, yi], color=colour, lw=1.6, solid_capstyle="butt")
                    ax.plot([lo, hi], [yi, yi], color=colour, ls="", marker="|", markersize=7)
                if not math.isnan(d):
                    ax.plot([d], [yi], "o", color=colour, markersize=6, zorder=3)
                ax.annotate(f"mm {_num(r['mean_a']):.2f} / text {_num(r['mean_b']):.2f}",
                            xy=(1.0, yi), xycoords=("axes fraction", "data"), xytext=(6, 0),
                            textcoords="offset points", va="center", ha="left", fontsize=8, color="0.2")
            ax.set_yticks(range(df.height), [str(m) for m in df.get_column("model").to_list()])
            ax.set_ylim(df.height - 0.5, -0.5)
            ax.set_xlim(-lim, lim)
            ax.grid(axis="x", color="0.9", lw=0.6)
            ax.set_axisbelow(True)
            ax.tick_params(axis="x", labelbottom=True)
            title = "Multimodal vs text-only (paired bootstrap 95% CI)"
            ax.set_title(f"judge: {judge}" if len(judges) > 1 else f"{title}, judge: {judge}", loc="left")
        if len(judges) > 1:
            fig.suptitle("Multimodal vs text-only (paired bootstrap 95% CI)")
        axes[-1].set_xlabel("score difference: multimodal - text-only")
        handles = [Line2D([], [], color="#2E6DB4", marker="o", label="images help (CI > 0)"),
                   Line2D([], [], color="#C0392B", marker="o", label="images hurt (CI < 0)"),
                   Line2D([], [], color="0.45", marker="o", label="CI includes 0")]
        fig.legend(handles=handles, loc="outside lower center", ncols=3, frameon=False)
        return render_png(fig)


# --------------------------------------------------------------------------------------------------
# heatmaps (score by department / intent / stage ...)


def small_cells(cells: pl.DataFrame, *, row: str, col: str, count: str = "n_scored", min_n: int = 10,
                value: str | None = None) -> list[tuple[Any, Any]]:
    """The (row, col) cells whose sample is too small to trust: ``count`` < ``min_n`` or null.

    With ``value``, cells without a value are left out (they are drawn blank, not marked).
    """
    df = cells
    if value is not None:
        df = df.filter(pl.col(value).is_not_null() & ~pl.col(value).cast(pl.Float64).is_nan())
    small = df.filter(pl.col(count).is_null() | (pl.col(count) < min_n))
    return [(r, c) for r, c in small.select(row, col).iter_rows()]


def _heatmap_grid(cells: pl.DataFrame, *, row: str, col: str, value: str,
                  count: str) -> tuple[list[Any], list[Any], np.ndarray, dict[tuple[int, int], Any]]:
    """Row and column labels (in order of first appearance), the value grid (NaN: no cell) and each
    cell's count; a cell given twice is an error."""
    dup = cells.group_by(row, col).len().filter(pl.col("len") > 1)
    if dup.height:
        r0, c0, n0 = dup.row(0)
        raise ValueError(f"heatmap_figure: {dup.height} ({row}, {col}) cell(s) have several rows, e.g. "
                         f"({r0!r}, {c0!r}) x{n0}; filter the table to one value per cell first")
    rows, cols = _uniques(cells, row), _uniques(cells, col)
    ri, ci = {r: i for i, r in enumerate(rows)}, {c: j for j, c in enumerate(cols)}
    grid = np.full((len(rows), len(cols)), np.nan)
    counts: dict[tuple[int, int], Any] = {}
    for r, c, v, n in cells.select(row, col, value, count).iter_rows():
        grid[ri[r], ci[c]] = _num(v)
        counts[ri[r], ci[c]] = n
    return rows, cols, grid, counts


def _grid_axes(ax: Any, rows: list[Any], cols: list[Any], *, rotate: bool, xlabel: str, ylabel: str,
               title: str) -> None:
    """A heatmap's axes: a label per row and column (columns slanted when ``rotate``), white cell borders,
    no ticks or frame."""
    ax.set_xticks(range(len(cols)), [str(c) for c in cols])
    ax.set_yticks(range(len(rows)), [str(r) for r in rows])
    if rotate:
        ax.tick_params(axis="x", labelrotation=45)
        for lab in ax.get_xticklabels():
            lab.set_horizontalalignment("right")
            lab.set_rotation_mode("anchor")
    ax.set_xticks(np.arange(len(cols) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(rows) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, loc="left")


def heatmap_figure(cells: pl.DataFrame, *, row: str, col: str, value: str = "score", count: str = "n_scored",
                   min_n: int = 10, title: str = "", font: str | None = None,
                   areas: list[tuple[dict[str, Any], tuple[float, float, float, float]]] | None = None) -> bytes:
    """A ``row`` x ``col`` grid of ``value`` (0..1) where small samples are visibly marked.

    Rows and columns keep their order of first appearance in ``cells`` (the caller sorts). Cells with
    ``count`` < ``min_n`` are greyed, hatched and annotated in italics with a "*" so a striking
    value from a handful of cases is not over-read; missing cells stay blank. With ``areas`` (a list to
    fill) every drawn cell's row of ``cells`` and its place in the image are appended (see :func:`_areas`).
    """
    cells = _check(cells, "heatmap_figure", [row, col, value, count])
    rows, cols, grid, counts = _heatmap_grid(cells, row=row, col=col, value=value, count=count)
    ri, ci = {r: i for i, r in enumerate(rows)}, {c: j for j, c in enumerate(cols)}
    small = {(ri[r], ci[c]) for r, c in small_cells(cells, row=row, col=col, count=count, min_n=min_n,
                                                     value=value)}

    col_w = label_inches(cols)
    rotate = len(cols) > 6 or col_w > 0.7
    row_w = label_inches(rows)
    cell_w, cell_h = 0.62, 0.46
    extra_h = (col_w * 0.75 + 0.3) if rotate else 0.3
    cmap: Colormap = mpl.colormaps["YlGnBu"].with_extremes(bad="white")
    norm = Normalize(0.0, 1.0)

    with figure_style(font):
        fig = new_figure(cell_w * len(cols) + row_w + 1.6, cell_h * len(rows) + extra_h + 1.3)
        ax = fig.add_subplot()
        im = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        for (i, j), n in counts.items():
            v = grid[i, j]
            if math.isnan(v):
                continue
            is_small = (i, j) in small
            if is_small:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=(0.85, 0.85, 0.85, 0.75),
                                       edgecolor="0.55", hatch="///", linewidth=0))
            ink = "0.15" if is_small else _ink(cmap(norm(v)))
            n_txt = "n=?" if n is None else f"n={int(n)}"
            ax.text(j, i, f"{v:.2f}{'*' if is_small else ''}\n{n_txt}", ha="center", va="center",
                    fontsize=7.5, color=ink, style="italic" if is_small else "normal", linespacing=1.15)
        _grid_axes(ax, rows, cols, rotate=rotate, xlabel=col, ylabel=row, title=title)
        cbar = fig.colorbar(im, ax=ax, shrink=1.0 if len(rows) <= 8 else max(0.3, 8 / len(rows)),
                            aspect=20, pad=0.02)
        cbar.set_label(value)
        if small:
            fig.text(0.01, 0.0, f"* n < {min_n}: small sample (hatched)", fontsize=8, style="italic",
                     color="0.3", ha="left", va="bottom")
            fig.get_layout_engine().set(h_pad=0.12)  # type: ignore[union-attr]
        if areas is not None:
            drawn = [(r, (ri[r[row]], ci[r[col]])) for r in cells.iter_rows(named=True)
                     if not math.isnan(grid[ri[r[row]], ci[r[col]]])]
            places = png_areas(fig, ax, [(j - 0.5, i - 0.5, j + 0.5, i + 0.5) for _, (i, j) in drawn])
            areas.extend((r, place) for (r, _), place in zip(drawn, places, strict=True))
        return render_png(fig)


# --------------------------------------------------------------------------------------------------
# score histograms


def histogram_figure(hist: pl.DataFrame, *, font: str | None = None) -> bytes:
    """The shape of each model's per-case score distribution (a mean hides bimodality).

    Columns: model, mode, judge, bin_low, bin_high, fraction. One small panel per model (per judge if
    several), shared axes, modes side by side within each bin.
    """
    hist = _check(hist, "histogram_figure", ["model", "mode", "judge", "bin_low", "bin_high", "fraction"])
    several_judges = hist.get_column("judge").n_unique() > 1
    panels = hist.select("model", "judge").unique(maintain_order=True).rows()
    modes = _uniques(hist, "mode")
    colours = _mode_colours(modes)
    n = len(panels)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    ymax = _num(hist.get_column("fraction").max())
    ymax = 1.0 if math.isnan(ymax) or ymax <= 0 else min(1.0, ymax * 1.12)

    with figure_style(font):
        fig = new_figure(3.0 * ncols + 0.6, 2.2 * nrows + 0.9)
        axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
        for k, (model, judge) in enumerate(panels):
            ax = axes[k // ncols, k % ncols]
            df = hist.filter((pl.col("model") == model) & (pl.col("judge") == judge))
            present = [m for m in modes if m in set(df.get_column("mode").to_list())]
            for j, mode in enumerate(present):
                sub = df.filter(pl.col("mode") == mode)
                lo = np.array([_num(v) for v in sub.get_column("bin_low").to_list()])
                width = np.array([_num(v) for v in sub.get_column("bin_high").to_list()]) - lo
                frac = np.nan_to_num(np.array([_num(v) for v in sub.get_column("fraction").to_list()]))
                ax.bar(lo + width * j / len(present), frac, width=width / len(present), align="edge",
                       color=colours[mode], linewidth=0)
            ax.set_title(f"{model} · {judge}" if several_judges else str(model), fontsize=9)
            ax.set_xlim(0, 1)
            ax.set_ylim(0, ymax)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            ax.grid(axis="y", color="0.9", lw=0.6)
            ax.set_axisbelow(True)
            if k % ncols == 0:
                ax.set_ylabel("share of cases")
        for k in range(n, nrows * ncols):
            axes[k // ncols, k % ncols].set_visible(False)
        for j in range(ncols):  # the bottom visible panel of each column carries the x axis
            last = max(k for k in range(n) if k % ncols == j)
            axes[last // ncols, j].set_xlabel("score")
            axes[last // ncols, j].tick_params(axis="x", labelbottom=True)
        fig.suptitle("Distribution of per-case scores (5% bins)" +
                     ("" if several_judges else f", judge: {panels[0][1]}"))
        fig.legend(handles=[Patch(color=colours[m], label=str(m)) for m in modes], loc="outside lower center",
                   ncols=min(len(modes), 6), frameon=False)
        return render_png(fig)


# --------------------------------------------------------------------------------------------------
# worst-of-k


def worst_of_k_figure(wk: pl.DataFrame, *, font: str | None = None) -> bytes:
    """Reliability: the expected worst score among k samples of the same case, as k grows.

    Columns: model, mode, judge, k, worst_at_k, ci_low, ci_high (nullable). One panel per judge, one
    colour per model, one line style per mode, the CI as a band where present.
    """
    wk = _check(wk, "worst_of_k_figure", ["model", "mode", "judge", "k", "worst_at_k"])
    has_ci = "ci_low" in wk.columns and "ci_high" in wk.columns
    judges = _uniques(wk, "judge")
    models = _uniques(wk, "model")
    modes = _uniques(wk, "mode")
    colours = dict(zip(models, _series_colours(len(models)), strict=True))
    styles = {m: _LINESTYLES[i % len(_LINESTYLES)] for i, m in enumerate(modes)}
    ks = sorted({int(k) for k in wk.get_column("k").drop_nulls().to_list()})
    entries = wk.select("model", "mode").unique(maintain_order=True).height
    legend_w = label_inches([f"{m} ({md})" for m in models for md in modes]) + 0.7

    with figure_style(font):
        fig = new_figure(3.2 * len(judges) + legend_w + 1.0, max(3.4, 0.2 * entries + 1.2))
        axes = fig.subplots(1, len(judges), squeeze=False, sharey=True)[0]
        handles: dict[str, Line2D] = {}
        for ax, judge in zip(axes, judges, strict=True):
            df = wk.filter(pl.col("judge") == judge)
            for (model, mode), sub in df.group_by("model", "mode", maintain_order=True):
                sub = sub.sort("k")
                k = sub.get_column("k").to_numpy().astype(float)
                y = np.array([_num(v) for v in sub.get_column("worst_at_k").to_list()])
                label = f"{model} ({mode})" if len(modes) > 1 else str(model)
                (line,) = ax.plot(k, y, color=colours[model], ls=styles[mode], marker="o", markersize=3.5,
                                  lw=1.6, label=label)
                handles.setdefault(label, line)
                if has_ci:
                    lo = np.array([_num(v) for v in sub.get_column("ci_low").to_list()])
                    hi = np.array([_num(v) for v in sub.get_column("ci_high").to_list()])
                    ok = ~(np.isnan(lo) | np.isnan(hi))
                    if ok.any():
                        ax.fill_between(k[ok], lo[ok], hi[ok], color=colours[model], alpha=0.15, lw=0)
            ax.set_title(f"judge: {judge}", loc="left")
            ax.set_xlabel("k (samples per case)")
            if len(ks) <= 12:
                ax.set_xticks(ks)
            else:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(0, 1)
            ax.grid(color="0.92", lw=0.6)
        axes[0].set_ylabel("worst-at-k score")
        fig.suptitle("Worst-of-k score (expected minimum over k samples)")
        fig.legend(handles=list(handles.values()), loc="outside right center", frameon=False)
        return render_png(fig)


# --------------------------------------------------------------------------------------------------
# inter-rater agreement


def agreement_figure(agree: pl.DataFrame, *, metric: str = "ac1", font: str | None = None) -> bytes:
    """Who agrees with whom: pairwise judge/physician agreement, overall and by criterion polarity.

    Columns: rater_a, rater_b, polarity ("all" | "positive" | "negative") and ``metric``; with an
    ``n`` column the number of items is shown too. One symmetric matrix per polarity; pairs without
    a value (NaN/null) stay blank.
    """
    agree = _check(agree, "agreement_figure", ["rater_a", "rater_b", "polarity", metric])
    found = _uniques(agree, "polarity")
    polarities = [p for p in _POLARITIES if p in found] + [p for p in found if p not in _POLARITIES]
    raters: list[Any] = []
    for a, b in agree.select("rater_a", "rater_b").iter_rows():
        raters += [x for x in (a, b) if x not in raters]
    finite = [v for v in (_num(v) for v in agree.get_column(metric).to_list()) if not math.isnan(v)]
    norm = Normalize(min(0.0, math.floor(min(finite, default=0.0) * 10) / 10), 1.0)
    cmap: Colormap = mpl.colormaps["YlGnBu"].with_extremes(bad="white")
    side = 0.7 * len(raters) + 0.4
    label_w = label_inches(raters)

    with figure_style(font):
        fig = new_figure(len(polarities) * (side + 0.45) + label_w + 1.2, side + label_w * 0.7 + 0.9)
        fig.get_layout_engine().set(wspace=0.06)  # type: ignore[union-attr]
        axes = fig.subplots(1, len(polarities), squeeze=False, sharey=True)[0]
        im = None
        for ax, pol in zip(axes, polarities, strict=True):
            grid, ns = _agreement_grid(agree.filter(pl.col("polarity") == pol), raters, metric, pol)
            im = ax.imshow(grid, cmap=cmap, norm=norm, interpolation="nearest")
            _annotate_agreement(ax, grid, ns, cmap, norm)
            _agreement_axes(ax, raters, first=ax is axes[0])
            ax.set_title(f"{pol} criteria" if pol in _POLARITIES[1:] else f"{pol}", loc="left")
        assert im is not None
        cbar = fig.colorbar(im, ax=list(axes), shrink=0.8, pad=0.02)
        cbar.set_label(metric)
        fig.suptitle(f"Inter-rater agreement ({metric})")
        return render_png(fig)


_POLARITIES = ("all", "positive", "negative")


def _agreement_grid(rows: pl.DataFrame, raters: list[Any], metric: str, pol: str
                    ) -> tuple[npt.NDArray[np.float64], dict[tuple[int, int], Any]]:
    """One polarity's symmetric rater x rater matrix of ``metric`` (NaN: no value) and the item counts."""
    idx = {r: i for i, r in enumerate(raters)}
    grid = np.full((len(raters), len(raters)), np.nan)
    ns: dict[tuple[int, int], Any] = {}
    for r in rows.iter_rows(named=True):
        i, j = idx[r["rater_a"]], idx[r["rater_b"]]
        if not math.isnan(grid[i, j]):
            log.warning("agreement_figure: several %s rows for (%s, %s, %s); keeping the first",
                        metric, r["rater_a"], r["rater_b"], pol)
            continue
        grid[i, j] = grid[j, i] = _num(r[metric])
        if "n" in rows.columns:
            ns[i, j] = ns[j, i] = r["n"]
    return grid, ns


def _annotate_agreement(ax: Axes, grid: npt.NDArray[np.float64], ns: dict[tuple[int, int], Any], cmap: Colormap,
                        norm: Normalize) -> None:
    """The diagonal greyed (a rater with itself, unlike a missing pair), every value (and n) in its cell."""
    size = grid.shape[0]
    for i in range(size):
        ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, facecolor="0.93", linewidth=0))
    for i in range(size):
        for j in range(size):
            v = grid[i, j]
            if math.isnan(v):
                continue
            n = ns.get((i, j))
            txt = f"{v:.2f}" + (f"\nn={int(n)}" if n is not None else "")
            ax.text(j, i, txt, ha="center", va="center", fontsize=7.5, color=_ink(cmap(norm(v))), linespacing=1.15)


def _agreement_axes(ax: Axes, raters: list[Any], *, first: bool) -> None:
    """Rater names on both axes (on the y axis of the first panel only), white cell borders, no spines."""
    ticks = range(len(raters))
    ax.set_xticks(ticks, [str(r) for r in raters], rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(ticks, [str(r) for r in raters])
    ax.tick_params(axis="y", labelleft=first)
    ax.set_xticks(np.arange(len(raters) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(raters) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="both", length=0)
    for s in ("top", "right", "bottom", "left"):
        ax.spines[s].set_visible(False)


# --------------------------------------------------------------------------------------------------


def png_data_uri(png: bytes) -> str:
    """The PNG as a ``data:`` URI, so the HTML report stays one self-contained file."""
    if not png.startswith(_PNG_MAGIC):
        raise ValueError("png_data_uri: the bytes are not a PNG image")
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
