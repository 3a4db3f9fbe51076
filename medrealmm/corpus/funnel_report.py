"""The funnel report: how many consultations each Phase 1 stage kept, overall and per department.

The paper reports the corpus construction as a funnel with counts; this module turns a
:class:`~medrealmm.corpus.funnel.FunnelResult` into tables (Markdown for the README/paper, CSV for
anything else) and one PNG — a funnel bar chart of the overall counts next to a stage × department
heatmap of the largest departments — drawn in the report's style and CJK font
(:mod:`medrealmm.common.plotting`), as bytes ready to embed.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import polars as pl

from medrealmm.atomic import write_bytes, write_text
from medrealmm.common.fonts import NoCJKFont
from medrealmm.common.plotting import figure_style, label_inches, new_figure, render_png
from medrealmm.corpus.funnel import FunnelResult
from medrealmm.csvsafe import write_csv

log = logging.getLogger(__name__)

OUT_MD, OUT_OVERALL, OUT_DEPTS, OUT_PNG = "funnel.md", "funnel_overall.csv", "funnel_departments.csv", "funnel.png"


def funnel_table(result: FunnelResult) -> pl.DataFrame:
    """Per stage: kept, dropped and the share of the input still kept (%)."""
    overall = result.overall()
    first = int(overall.get_column("kept")[0]) if overall.height else 0
    return overall.with_columns(
        kept_pct=(pl.col("kept") * 100.0 / first).round(1) if first else pl.lit(None, pl.Float64),
        skipped=pl.col("stage").is_in(result.skipped),
    )


def department_table(result: FunnelResult, top: int | None = None) -> pl.DataFrame:
    """Departments as rows (largest input first), one column of kept counts per stage."""
    wide = result.counts.pivot(on="stage", index="department", values="kept", aggregate_function="sum",
                               sort_columns=False)
    wide = wide.select("department", *[s for s in result.stages if s in wide.columns])
    wide = wide.sort([pl.col(result.stages[0]), pl.col("department")], descending=[True, False])
    return wide.head(top) if top is not None else wide


def _md_cell(value: object) -> str:
    return "" if value is None else str(value).replace("|", "\\|")


def _markdown(df: pl.DataFrame) -> str:
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "|".join("---" for _ in df.columns) + "|"]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in df.iter_rows()]
    return "\n".join(lines)


def funnel_markdown(result: FunnelResult, top: int = 20) -> str:
    """The overall table, the top departments' table, and the most frequent drop reasons."""
    depts = department_table(result)
    parts = ["## Corpus funnel", "", _markdown(funnel_table(result)), "",
             f"## Kept per department ({min(top, depts.height)} of {depts.height}, largest first)", "",
             _markdown(depts.head(top))]
    if result.dropped:
        reasons = (pl.DataFrame({"stage": [d.stage for d in result.dropped],
                                 "rule": [d.reason.split(" ")[0] for d in result.dropped]})
                   .group_by("stage", "rule").len("dropped").sort(["dropped", "stage", "rule"],
                                                                  descending=[True, False, False]))
        parts += ["", "## Drops by stage and rule (first word of the reason)", "", _markdown(reasons)]
    if result.errors:
        parts += ["", f"{len(result.errors)} record(s) could not be read (see errors.jsonl)."]
    return "\n".join(parts) + "\n"


def funnel_figure(result: FunnelResult, *, top: int = 15, font: str | None = None) -> bytes:
    """PNG: overall funnel bars (left) and a stage × department heatmap of kept counts (right)."""
    overall = funnel_table(result)
    if overall.height == 0 or int(overall.get_column("kept")[0]) == 0:
        raise ValueError("funnel_figure: the funnel has no consultations, nothing to draw")
    depts = department_table(result, top)
    stages = [s for s in result.stages]
    labels = [f"{s} (skipped)" if s in result.skipped else s for s in stages]
    kept = overall.get_column("kept").to_list()
    dropped = overall.get_column("dropped").to_list()
    names = depts.get_column("department").to_list()
    grid = depts.select(stages).to_numpy().astype(float)
    label_w = max(label_inches(labels), label_inches(names))
    with figure_style(font):
        fig = new_figure(5.0 + 0.75 * len(stages) + 2 * label_w, max(2.8, 0.28 * len(names) + 1.6))
        left, right = fig.subplots(1, 2, width_ratios=[1.0, 0.25 + 0.2 * len(stages)])
        y = np.arange(len(stages))
        left.barh(y, kept, color="#4C72B0", label="kept")
        left.barh(y, dropped, left=kept, color="#C8553D", alpha=0.55, label="dropped at this stage")
        for yi, k, d in zip(y, kept, dropped, strict=True):
            left.text(k + d, yi, f" {k:,}" + (f"  (−{d:,})" if d else ""), va="center", ha="left", fontsize=8)
        left.set_yticks(y, labels)
        left.invert_yaxis()
        left.set_xlim(0, max(kept[0], 1) * 1.35)
        left.set_xlabel("consultations")
        left.set_title("Corpus funnel (overall)", loc="left")
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
        vmax = float(np.nanmax(grid)) if grid.size else 1.0
        im = right.imshow(grid, aspect="auto", cmap="Blues", vmin=0, vmax=max(vmax, 1.0))
        right.set_xticks(np.arange(len(stages)), labels, rotation=35, ha="right")
        right.set_yticks(np.arange(len(names)), names)
        for (i, j), v in np.ndenumerate(grid):
            right.text(j, i, f"{int(v)}", ha="center", va="center", fontsize=7,
                       color="white" if v > 0.6 * vmax else "black")
        right.spines[:].set_visible(False)
        right.set_title(f"Kept per department (top {len(names)})", loc="left")
        fig.colorbar(im, ax=right, shrink=0.6, label="kept")
        return render_png(fig)


def write_report(result: FunnelResult, out_dir: str | Path, *, font: str | None = None, top: int = 20
                 ) -> dict[str, Path]:
    """Write funnel.md, the two CSV tables and funnel.png (left out, with a warning, without a CJK font)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {"markdown": out / OUT_MD, "overall": out / OUT_OVERALL, "departments": out / OUT_DEPTS}
    write_text(written["markdown"], funnel_markdown(result, top))
    write_csv(funnel_table(result), written["overall"])
    write_csv(department_table(result), written["departments"])
    try:
        png = funnel_figure(result, top=min(top, 15), font=font)
    except (NoCJKFont, ValueError) as e:
        log.warning("funnel figure left out: %s", e)
    else:
        written["figure"] = out / OUT_PNG
        write_bytes(written["figure"], png)
    return written
