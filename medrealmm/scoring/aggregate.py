"""Benchmark scores from case scores: per run, per group (department, intent, ...), histograms.

Input is the frame from :func:`medrealmm.scoring.score.score_cases`. Means are over scored cases
only (``status == "scored"``); excluded cases are counted, never averaged in as 0.

Samples: each ``sample`` index is its own run key, so with k samples per case a model has k rows
in :func:`summarize`, each a full benchmark score with its own interval. Averaging across samples
is left to the report, which can state how it pools them.

Confidence intervals are seeded percentile bootstraps over cases (see
:mod:`medrealmm.scoring.bootstrap`): each replicate resamples the distinct ``case_id`` values of
the table (sorted, so input row order does not matter), and every run and group mean is
recomputed on it, so runs are compared on the same replicates. An interval therefore depends on
the table's set of cases and the seed, not on which other runs are in it. With ``n_boot=0`` the
interval columns are null. Rows are sorted by the run key, then the group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

import numpy as np
import polars as pl

from medrealmm.scoring.bootstrap import stratified_bootstrap_ci
from medrealmm.scoring.score import RUN_KEY, STATUS_SCORED, check_columns, clip_score

DEFAULT_DIMS: tuple[str, ...] = ("department", "intent", "stage", "n_images", "n_turns")
DEFAULT_EDGES: dict[str, tuple[int, ...]] = {
    "n_images": (1, 2, 3, 4),   # 1, 2, 3, 4+
    "n_turns": (1, 5, 9, 13),   # 01-04, 05-08, 09-12, 13+
}

_SCORED = pl.col("status") == STATUS_SCORED
_NEEDED = (*RUN_KEY, "case_id", "score", "raw_ratio", "status", "n_pos_met", "n_neg_triggered",
           "n_unscored")


def _check_columns(df: pl.DataFrame, required: Sequence[str]) -> None:
    check_columns(df, required, "case_scores", "pass the output of score_cases")


# --- buckets -------------------------------------------------------------------------------------

def bucket_labels(edges: Sequence[int]) -> list[str]:
    """Labels of the buckets starting at each edge, zero-padded so that they sort as strings.

    ``(1, 5, 9, 13)`` gives ``["01-04", "05-08", "09-12", "13+"]``. Values below the first edge get
    one more label, ``0..edges[0]-1`` in the same format (see :func:`bucket_expr`).
    """
    edges = list(edges)
    if not edges or any(e < 0 for e in edges) or any(b <= a for a, b in pairwise(edges)):
        raise ValueError(f"bucket edges must be non-negative and strictly increasing, got {edges}")
    width = len(str(edges[-1]))

    def span(lo: int, hi: int | None) -> str:
        if hi is None:
            return f"{lo:0{width}d}+"
        return f"{lo:0{width}d}" if hi == lo else f"{lo:0{width}d}-{hi:0{width}d}"

    return [span(lo, edges[i + 1] - 1 if i + 1 < len(edges) else None) for i, lo in enumerate(edges)]


def bucket_expr(column: str, edges: Sequence[int]) -> pl.Expr:
    """Map a non-negative integer column to its bucket label; null and negative values stay null."""
    labels = bucket_labels(edges)
    width = len(str(edges[-1]))
    col = pl.col(column)
    expr: pl.Expr = pl.lit(None, dtype=pl.String)
    # Each edge wraps the previous chain, so the highest lower bound is tested first.
    for lo, label in zip(edges, labels, strict=True):
        expr = pl.when(col >= lo).then(pl.lit(label)).otherwise(expr)
    if edges[0] > 0:
        below = f"{0:0{width}d}" if edges[0] == 1 else f"{0:0{width}d}-{edges[0] - 1:0{width}d}"
        expr = pl.when((col >= 0) & (col < edges[0])).then(pl.lit(below)).otherwise(expr)
    return expr.alias(column)


# --- intervals -----------------------------------------------------------------------------------

def _intervals(case_scores: pl.DataFrame, group: str | None, n_boot: int, seed: int,
               ci: float) -> pl.DataFrame:
    """Bootstrap interval of the mean score per run key (x group), resampling the table's cases."""
    keys = [*RUN_KEY] if group is None else [*RUN_KEY, group]
    runs = case_scores.select(RUN_KEY).unique().sort(list(RUN_KEY)).with_row_index("_run")
    case_level = case_scores.select(["case_id", *([group] if group else [])]).unique()
    if case_level["case_id"].is_duplicated().any():
        raise ValueError(f"column {group!r} takes several values for one case_id")
    case_level = case_level.sort("case_id").with_row_index("_case")
    if group is None:
        labels = pl.DataFrame({"_stratum": [0]}, schema={"_stratum": pl.UInt32})
        strata = np.zeros(case_level.height, dtype=np.int64)
    else:
        labels = case_level.select(group).unique().sort(group, nulls_last=True).with_row_index("_stratum")
        strata = case_level.join(labels, on=group, how="left", nulls_equal=True).sort("_case")[
            "_stratum"].to_numpy().astype(np.int64)
    cells = (case_scores.select([*RUN_KEY, "case_id", "score"])
             .join(runs, on=list(RUN_KEY), how="left")
             .join(case_level.select(["case_id", "_case"]), on="case_id", how="left"))
    run_idx = cells["_run"].to_numpy().astype(np.int64)
    case_idx = cells["_case"].to_numpy().astype(np.int64)
    if np.bincount(case_idx * runs.height + run_idx).max(initial=0) > 1:
        raise ValueError("case_scores has several rows for one run key and case_id")
    values = np.full((case_level.height, runs.height), np.nan)
    values[case_idx, run_idx] = cells["score"].fill_null(np.nan).to_numpy()
    if n_boot == 0 or values.size == 0:
        low = high = np.full((labels.height, runs.height), np.nan)
    else:
        low, high = stratified_bootstrap_ci(values, strata, n_boot=n_boot, seed=seed, ci=ci)
    stratum = np.repeat(np.arange(labels.height), runs.height)
    run = np.tile(np.arange(runs.height), labels.height)
    out = pl.DataFrame({"_stratum": stratum.astype(np.uint32), "_run": run.astype(np.uint32),
                        "ci_low": low[stratum, run], "ci_high": high[stratum, run]})
    out = (out.join(labels, on="_stratum", how="left").join(runs, on="_run", how="left")
           .with_columns(pl.col("ci_low", "ci_high").fill_nan(None)))
    return out.select([*keys, "ci_low", "ci_high"])


def _with_intervals(stats: pl.DataFrame, case_scores: pl.DataFrame, group: str | None,
                    n_boot: int, seed: int, ci: float) -> pl.DataFrame:
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0 (0 = no intervals), got {n_boot}")
    keys = [*RUN_KEY] if group is None else [*RUN_KEY, group]
    cis = _intervals(case_scores, group, n_boot, seed, ci)
    out = stats.join(cis, on=keys, how="left", nulls_equal=True)
    return out.sort(keys, nulls_last=True)


# --- public aggregations -------------------------------------------------------------------------

def summarize(case_scores: pl.DataFrame, *, n_boot: int = 1000, seed: int = 0,
              ci: float = 0.95) -> pl.DataFrame:
    """One row per run key: the benchmark score, its interval and the counts behind it.

    ``score`` is the mean of per-case clipped scores (MedRealMM). ``score_clip_mean_only`` is
    HealthBench's convention, the mean of the unclipped per-case ratios clipped once at the end;
    it is reported beside the benchmark score so the two conventions can be compared.
    ``mean_pos_met``/``mean_neg_triggered`` average over scored cases; ``n_unscored_verdicts``
    counts unscored verdicts in all cases of the run.
    """
    _check_columns(case_scores, _NEEDED)
    stats = case_scores.group_by(list(RUN_KEY)).agg(
        n_cases=pl.len(),
        n_scored=_SCORED.sum(),
        n_excluded=(~_SCORED).sum(),
        score=pl.col("score").filter(_SCORED).mean(),
        score_clip_mean_only=clip_score(pl.col("raw_ratio").filter(_SCORED).mean()),
        mean_pos_met=pl.col("n_pos_met").filter(_SCORED).mean(),
        mean_neg_triggered=pl.col("n_neg_triggered").filter(_SCORED).mean(),
        n_unscored_verdicts=pl.col("n_unscored").sum(),
    )
    out = _with_intervals(stats, case_scores, None, n_boot, seed, ci)
    return out.select([*RUN_KEY, "n_cases", "n_scored", "n_excluded", "score", "ci_low", "ci_high",
                       "score_clip_mean_only", "mean_pos_met", "mean_neg_triggered",
                       "n_unscored_verdicts"])


def breakdown(case_scores: pl.DataFrame, by: str, *, edges: Sequence[int] | None = None,
              n_boot: int = 1000, seed: int = 0, ci: float = 0.95) -> pl.DataFrame:
    """Mean score, counts and interval per run key x value of ``by``.

    ``n_images`` and ``n_turns`` are bucketed with :data:`DEFAULT_EDGES` unless ``edges`` is given;
    ``edges`` also buckets any other integer column. The ``by`` column of the result then holds
    the bucket label (a sortable string).
    """
    _check_columns(case_scores, [*_NEEDED, by])
    edges = edges if edges is not None else DEFAULT_EDGES.get(by)
    frame = case_scores.with_columns(bucket_expr(by, edges)) if edges is not None else case_scores
    keys = [*RUN_KEY, by]
    stats = frame.group_by(keys).agg(
        n_cases=pl.len(),
        n_scored=_SCORED.sum(),
        n_excluded=(~_SCORED).sum(),
        score=pl.col("score").filter(_SCORED).mean(),
    )
    out = _with_intervals(stats, frame, by, n_boot, seed, ci)
    return out.select([*keys, "n_cases", "n_scored", "n_excluded", "score", "ci_low", "ci_high"])


def breakdowns(case_scores: pl.DataFrame, dims: Sequence[str] = DEFAULT_DIMS, *,
               edges: Mapping[str, Sequence[int]] | None = None, n_boot: int = 1000, seed: int = 0,
               ci: float = 0.95) -> dict[str, pl.DataFrame]:
    """:func:`breakdown` for each dimension; ``edges`` overrides the bucket edges per dimension."""
    edges = dict(edges or {})
    return {d: breakdown(case_scores, d, edges=edges.get(d), n_boot=n_boot, seed=seed, ci=ci)
            for d in dims}


def histogram(case_scores: pl.DataFrame, *, bin_width: float = 0.05) -> pl.DataFrame:
    """Per-case score histogram per run key (the paper uses 5% bins); every bin is listed.

    Bins are [low, high) except the last, which includes 1.0. ``fraction`` is over scored cases.
    """
    _check_columns(case_scores, _NEEDED)
    n_bins = round(1.0 / bin_width)
    if n_bins < 1 or abs(n_bins * bin_width - 1.0) > 1e-9:
        raise ValueError(f"bin_width must divide 1 into whole bins, got {bin_width}")
    scored = case_scores.filter(_SCORED)
    # The epsilon keeps 0.29 * 100 = 28.999... in bin 29, where a score of exactly 29/100 belongs.
    binned = scored.with_columns(
        bin=(pl.col("score") * n_bins + 1e-9).floor().cast(pl.Int64).clip(0, n_bins - 1))
    counts = binned.group_by([*RUN_KEY, "bin"]).agg(n=pl.len())
    totals = scored.group_by(list(RUN_KEY)).agg(_total=pl.len())
    bins = pl.DataFrame({"bin": np.arange(n_bins, dtype=np.int64)})
    grid = totals.join(bins, how="cross")
    out = grid.join(counts, on=[*RUN_KEY, "bin"], how="left").with_columns(
        pl.col("n").fill_null(0).cast(pl.UInt32),
        bin_low=pl.col("bin") / n_bins,
        bin_high=(pl.col("bin") + 1) / n_bins,
    ).with_columns(fraction=pl.col("n") / pl.col("_total"))
    return out.select([*RUN_KEY, "bin", "bin_low", "bin_high", "n", "fraction"]).sort([*RUN_KEY, "bin"])
