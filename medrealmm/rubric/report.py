"""The rubric construction report: how the rubrics looked round by round, and what feedback changed.

The paper describes the final rubrics by their size (3–19 criteria, 2–17 positive, 0–7 negative per
case) and weights; this report gives those numbers for every round, so a drift out of the bounds
or a round where feedback changed nothing is visible. Counts only: no dialogue, criterion text or
lint message is written (they may quote the consultation).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.ticker import MaxNLocator

from medrealmm import atomic
from medrealmm.common.plotting import NEG_COLOUR, POS_COLOUR, figure_style, new_figure, render_png
from medrealmm.common.fonts import NoCJKFont
from medrealmm.common.tables import markdown_table
from medrealmm.rubric.model import RubricRecord
from medrealmm.csvsafe import write_csv

log = logging.getLogger(__name__)

#: The paper's per-case bounds (inclusive) on the final rubrics.
BOUNDS: dict[str, tuple[int, int]] = {"criteria": (3, 19), "positive": (2, 17), "negative": (0, 7)}
OUT_MD, OUT_WEIGHTS, OUT_CRITERIA = "rubric_report.md", "weights.png", "criteria_per_round.png"

_SCHEMAS: dict[str, dict[str, Any]] = {
    "per_case": {"case_id": pl.String, "round": pl.Int64, "criteria": pl.Int64, "positive": pl.Int64,
                 "negative": pl.Int64},
    "rounds": {"round": pl.Int64, "cases": pl.UInt32, "criteria_mean": pl.Float64,
               "criteria_median": pl.Float64, "criteria_min": pl.Int64, "criteria_max": pl.Int64,
               "positive_mean": pl.Float64, "negative_mean": pl.Float64,
               "share_criteria_in_bounds": pl.Float64,
               "share_positive_in_bounds": pl.Float64, "share_negative_in_bounds": pl.Float64,
               "share_all_in_bounds": pl.Float64},
    "weights": {"round": pl.Int64, "weight": pl.Int64, "n": pl.UInt32},
    "feedback_actions": {"round": pl.Int64, "action": pl.String, "n": pl.UInt32, "cases": pl.UInt32},
    "version_diffs": {"round": pl.Int64, "cases": pl.Int64, "cases_changed": pl.Int64, "added": pl.Int64,
                      "removed": pl.Int64, "changed": pl.Int64, "unchanged": pl.Int64},
    "findings": {"rule": pl.String, "severity": pl.String, "n": pl.UInt32, "cases": pl.UInt32},
    "status": {"status": pl.String, "failure": pl.String, "n": pl.UInt32},
}


def _get(row: Any, key: str) -> Any:
    """A field of a dict-like row or an attribute of an object row (changes, findings)."""
    return row.get(key) if isinstance(row, Mapping) else getattr(row, key, None)


def _empty(name: str) -> pl.DataFrame:
    return pl.DataFrame(schema=_SCHEMAS[name])


def case_counts(records: Iterable[RubricRecord]) -> pl.DataFrame:
    """One row per (case, round) version: criteria, positive and negative counts."""
    rows = [{"case_id": r.id, "round": v.round, "criteria": len(v.criteria),
             "positive": sum(c.weight > 0 for c in v.criteria),
             "negative": sum(c.weight < 0 for c in v.criteria)}
            for r in records for v in r.versions]
    return pl.DataFrame(rows, schema=_SCHEMAS["per_case"]) if rows else _empty("per_case")


def _in(col: str, bounds: tuple[int, int]) -> pl.Expr:
    return pl.col(col).is_between(*bounds)


def round_table(per_case: pl.DataFrame) -> pl.DataFrame:
    """Per round: cases, criteria per case (mean/median/min/max), mean ±, shares within the paper bounds."""
    if per_case.height == 0:
        return _empty("rounds")
    inside = [_in(k, b) for k, b in BOUNDS.items()]
    return (per_case.group_by("round").agg(
        cases=pl.len(), criteria_mean=pl.col("criteria").mean(), criteria_median=pl.col("criteria").median(),
        criteria_min=pl.col("criteria").min(), criteria_max=pl.col("criteria").max(),
        positive_mean=pl.col("positive").mean(), negative_mean=pl.col("negative").mean(),
        share_criteria_in_bounds=inside[0].mean(), share_positive_in_bounds=inside[1].mean(),
        share_negative_in_bounds=inside[2].mean(),
        share_all_in_bounds=(inside[0] & inside[1] & inside[2]).mean())
        .sort("round").cast(_SCHEMAS["rounds"]))


def weight_table(records: Iterable[RubricRecord]) -> pl.DataFrame:
    """Per round and weight value: how many criteria carry it."""
    rows = [{"round": v.round, "weight": c.weight} for r in records for v in r.versions for c in v.criteria]
    if not rows:
        return _empty("weights")
    return pl.DataFrame(rows).group_by("round", "weight").agg(n=pl.len()).sort("round", "weight") \
        .cast(_SCHEMAS["weights"])


def feedback_table(changes: Iterable[Any] | None) -> pl.DataFrame:
    """Per round and action: feedback rows (n) and the cases they touch."""
    rows = [{"round": int(_get(c, "round")), "action": str(_get(c, "action")),
             "case_id": str(_get(c, "case_id"))}
            for c in changes or ()]
    if not rows:
        return _empty("feedback_actions")
    return (pl.DataFrame(rows).group_by("round", "action").agg(n=pl.len(), cases=pl.col("case_id").n_unique())
            .sort("round", "action").cast(_SCHEMAS["feedback_actions"]))


def diff_table(records: Iterable[RubricRecord]) -> pl.DataFrame:
    """Per round k ≥ 1, comparing R(k-1) with R(k) by criterion id: added, removed, changed (text,
    weight or tags differ) and unchanged criteria, over the cases that have both versions."""
    acc: dict[int, dict[str, int]] = {}
    for r in records:
        by_round = {v.round: {c.id: c for c in v.criteria} for v in r.versions}
        for k, now in by_round.items():
            before = by_round.get(k - 1)
            if before is None:
                continue
            a = acc.setdefault(k, dict.fromkeys(("cases", "cases_changed", "added", "removed", "changed",
                                                 "unchanged"), 0))
            added, removed = len(now.keys() - before.keys()), len(before.keys() - now.keys())
            common = now.keys() & before.keys()
            changed = sum(now[i] != before[i] for i in common)
            a["cases"] += 1
            a["cases_changed"] += int(bool(added or removed or changed))
            a["added"] += added
            a["removed"] += removed
            a["changed"] += changed
            a["unchanged"] += len(common) - changed
    if not acc:
        return _empty("version_diffs")
    return pl.DataFrame([{"round": k, **v} for k, v in sorted(acc.items())], schema=_SCHEMAS["version_diffs"])


def findings_table(findings: Iterable[Any] | None) -> pl.DataFrame:
    """Per lint rule and severity: findings (n) and the cases they concern (messages left out)."""
    rows = [{"rule": str(_get(f, "rule")), "severity": str(_get(f, "severity")),
             "case_id": str(_get(f, "case_id"))}
            for f in findings or ()]
    if not rows:
        return _empty("findings")
    return (pl.DataFrame(rows).group_by("rule", "severity")
            .agg(n=pl.len(), cases=pl.col("case_id").n_unique())
            .sort(["n", "rule", "severity"], descending=[True, False, False]).cast(_SCHEMAS["findings"]))


def status_table(records: Iterable[RubricRecord]) -> pl.DataFrame:
    """Per status (and failure code, for failed records): how many cases."""
    rows = [{"status": r.status, "failure": r.failure if r.status == "failed" else None} for r in records]
    if not rows:
        return _empty("status")
    return (pl.DataFrame(rows, schema={"status": pl.String, "failure": pl.String})
            .group_by("status", "failure").agg(n=pl.len())
            .sort(["status", "failure"], nulls_last=True).cast(_SCHEMAS["status"]))


def rubric_tables(records: Iterable[RubricRecord], findings: Iterable[Any] | None = None,
                  changes: Iterable[Any] | None = None) -> dict[str, pl.DataFrame]:
    """All report tables: rounds, weights, feedback_actions, version_diffs, findings, status."""
    recs = list(records)
    return {"rounds": round_table(case_counts(recs)), "weights": weight_table(recs),
            "feedback_actions": feedback_table(changes), "version_diffs": diff_table(recs),
            "findings": findings_table(findings), "status": status_table(recs)}


# --- figures -------------------------------------------------------------------------------------

def weights_figure(weights: pl.DataFrame, *, font: str | None = None) -> bytes:
    """PNG: one panel per round, criteria per weight value, positive and negative in their colours."""
    if weights.height == 0:
        raise ValueError("weights_figure: no criteria, nothing to draw")
    rounds = weights.get_column("round").unique().sort().to_list()
    values = weights.get_column("weight").to_list()
    lo, hi = min(values), max(values)
    with figure_style(font):
        fig = new_figure(min(3.2 * len(rounds), 16.0), 3.0)
        axes = np.atleast_1d(fig.subplots(1, len(rounds), sharey=True, squeeze=False)[0])
        for ax, k in zip(axes, rounds, strict=True):
            d = weights.filter(pl.col("round") == k)
            w, n = d.get_column("weight").to_numpy(), d.get_column("n").to_numpy()
            ax.bar(w, n, width=0.8, color=[POS_COLOUR if x > 0 else NEG_COLOUR for x in w])
            ax.axvline(0, color="#888", linewidth=0.6)
            ax.set_xlim(min(lo, -1) - 0.8, max(hi, 1) + 0.8)
            ax.set_title(f"R({k})", loc="left")
            ax.set_xlabel("weight")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0].set_ylabel("criteria")
        return render_png(fig)


def criteria_figure(per_case: pl.DataFrame, *, font: str | None = None) -> bytes:
    """PNG: criteria per case by round (box plot, paper bounds shaded) and mean ± criteria (bars)."""
    if per_case.height == 0:
        raise ValueError("criteria_figure: no rubric versions, nothing to draw")
    rounds = per_case.get_column("round").unique().sort().to_list()
    data = [per_case.filter(pl.col("round") == k).get_column("criteria").to_numpy() for k in rounds]
    means = round_table(per_case)
    x = np.arange(len(rounds))
    with figure_style(font):
        fig = new_figure(3.0 + 1.4 * len(rounds), 3.4)
        left, right = fig.subplots(1, 2)
        left.axhspan(*BOUNDS["criteria"], color="#dddddd", alpha=0.5, label="paper bounds (3–19)")
        left.boxplot(data, positions=x, widths=0.5)
        left.set_xticks(x, [f"R({k})" for k in rounds])
        left.yaxis.set_major_locator(MaxNLocator(integer=True))
        left.set_ylabel("criteria per case")
        left.set_title("Criteria per case", loc="left")
        left.set_ylim(0, max(BOUNDS["criteria"][1], *(int(d.max()) for d in data)) + 1)
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), frameon=False)
        pos, neg = means.get_column("positive_mean").to_numpy(), means.get_column("negative_mean").to_numpy()
        right.bar(x, pos, width=0.6, color=POS_COLOUR, label="positive")
        right.bar(x, neg, width=0.6, bottom=pos, color=NEG_COLOUR, label="negative")
        right.set_xticks(x, [f"R({k})" for k in rounds])
        right.set_ylabel("mean criteria per case")
        right.set_title("Positive vs negative", loc="left")
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
        return render_png(fig)


# --- the report ----------------------------------------------------------------------------------

_SECTIONS = (
    ("rounds", "Rubric size per round",
     f"Criteria per case; shares are of cases within the paper's bounds ({BOUNDS['criteria'][0]}–"
     f"{BOUNDS['criteria'][1]} criteria, {BOUNDS['positive'][0]}–{BOUNDS['positive'][1]} positive, "
     f"{BOUNDS['negative'][0]}–{BOUNDS['negative'][1]} negative)."),
    ("version_diffs", "What changed between rounds", "R(k-1) against R(k) by criterion id."),
    ("feedback_actions", "Physician feedback per round",
     "Feedback rows per action, and the cases they touch."),
    ("findings", "Lint findings", "Per rule and severity (messages are not reproduced)."),
    ("status", "Status", "Cases per status; failed cases by failure code."),
    ("weights", "Weights per round", "Criteria per weight value."),
)


def write_rubric_report(records: Iterable[RubricRecord], out_dir: str | Path, *,
                        findings: Iterable[Any] | None = None, changes: Iterable[Any] | None = None,
                        font: str | None = None, figures: bool = True) -> Path:
    """Write ``rubric_report.md``, every table as CSV and Parquet under ``tables/``, and (with a CJK
    font) ``weights.png`` and ``criteria_per_round.png``; returns the Markdown path."""
    recs = list(records)
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    tables = rubric_tables(recs, findings, changes)
    for name, df in tables.items():
        write_csv(df, out / "tables" / f"{name}.csv")
        atomic.write_parquet(out / "tables" / f"{name}.parquet", df)
    drawn: list[str] = []
    if figures:
        for name, draw in ((OUT_WEIGHTS, lambda: weights_figure(tables["weights"], font=font)),
                           (OUT_CRITERIA, lambda: criteria_figure(case_counts(recs), font=font))):
            try:
                atomic.write_bytes(out / name, draw())
            except (NoCJKFont, ValueError) as e:
                log.warning("rubric report: figure %s left out: %s", name, e)
            else:
                drawn.append(name)
    n_versions = sum(len(r.versions) for r in recs)
    lines = ["# Rubric construction report", "",
             f"- cases: {len(recs)}; rubric versions: {n_versions}; rounds: "
             f"{', '.join(str(k) for k in tables['rounds'].get_column('round').to_list()) or '—'}", ""]
    for key, title, note in _SECTIONS:
        df = tables[key]
        lines += [f"## {title}", "", note, "", markdown_table(df) if df.height else "_none_", ""]
    if drawn:
        lines += ["## Figures", ""] + [f"![{n}]({n})" for n in drawn] + [""]
    lines += ["## Files", "", "tables/: " + ", ".join(f"{k}.csv/.parquet" for k in tables), ""]
    md = out / OUT_MD
    atomic.write_text(md, "\n".join(lines))
    log.info("rubric report: %d case(s), %d version(s), %d figure(s) in %s",
             len(recs), n_versions, len(drawn), out)
    return md
