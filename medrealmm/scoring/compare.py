"""Comparing models on the same cases: a paired bootstrap of the difference, and worst-of-k.

Input is the case-score table of :func:`medrealmm.scoring.score.score_cases` (columns ``model``,
``mode``, ``judge``, ``sample``, ``case_id``, ``score``, ``status``). A case with ``score = null``
(``status != "scored"``) is excluded, never read as 0.

**Paired bootstrap** (:func:`paired_bootstrap_diff`). Two models answered the same cases, so
their scores are correlated case by case; resampling the per-case differences
``d_i = score_a(i) - score_b(i)`` (rather than each model's cases independently) gives the much
narrower, correct interval of ``mean(a) - mean(b)``. Cases are sorted by ``case_id`` and the
replicates are the rows of :func:`medrealmm.scoring.bootstrap.resample_indices` (seeded
``numpy.random.default_rng``), the same draws the benchmark intervals use for that many cases,
so a result depends only on the cases, their scores and the seed. When ``by`` leaves out
``sample``, a model's score on a case is the mean over its scored samples, which keeps the
resampled unit the case.

**Worst-of-k** (:func:`worst_of_k`). HealthBench (Arora et al. 2025) reports reliability as
"worst-at-k": the score of the worst of k responses to the same example, averaged over examples,
for k = 1..16 from 16 sampled responses per example. With ``m >= k`` scored samples of a case we
take the exact expectation of the minimum over all ``C(m, k)`` subsets of k samples drawn without
replacement -- the unbiased estimator (a U-statistic) of the expected minimum of k independent
replies -- through order statistics: with the scores sorted ascending, the i-th smallest is the
minimum of ``C(m - i, k - 1)`` of the subsets. No Monte Carlo is involved. The case scores are
MedRealMM's clipped per-case scores.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from medrealmm.scoring.bootstrap import bootstrap_mean_ci, resample_counts
from medrealmm.scoring.score import check_columns

log = logging.getLogger(__name__)

_ROW_KEY: tuple[str, ...] = ("model", "mode", "judge", "sample", "case_id")


def _check_columns(df: pl.DataFrame, required: Sequence[str]) -> None:
    check_columns(df, required, "case_scores", "pass the output of score_cases")


def _scored(case_scores: pl.DataFrame, key: Sequence[str]) -> pl.DataFrame:
    """The scored rows, after checking that no (run, case) appears twice."""
    key = [c for c in dict.fromkeys([*_ROW_KEY, *key]) if c in case_scores.columns]
    dup = case_scores.filter(pl.struct(*key).is_duplicated())
    if dup.height:
        r = dup.row(0, named=True)
        raise ValueError(f"case_scores repeats {({c: r[c] for c in key})} ({dup.height} rows)")
    keep = pl.col("score").is_not_null()
    if "status" in case_scores.columns:
        keep = keep & (pl.col("status") == "scored")
    return case_scores.filter(keep)


def _check_ci(n_boot: int, ci: float) -> None:
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")


def _boot_diff(d: npt.NDArray[np.float64], n_boot: int, seed: int, ci: float) -> tuple[float, float, float]:
    """Percentile interval of the mean of ``d`` and the share of replicate means <= 0."""
    counts = resample_counts(d.size, n_boot, seed)   # (n_boot, n): draws of case i in replicate b
    reps = counts @ d / d.size
    alpha = (1.0 - ci) / 2.0
    low, high = np.quantile(reps, [alpha, 1.0 - alpha])
    return float(low), float(high), float(np.mean(reps <= 0.0))


_DIFF_SCHEMA: dict[str, pl.DataType] = {
    "model_a": pl.String(), "model_b": pl.String(), "n_cases": pl.Int64(), "n_only_a": pl.Int64(),
    "n_only_b": pl.Int64(), "mean_a": pl.Float64(), "mean_b": pl.Float64(), "diff": pl.Float64(),
    "ci_low": pl.Float64(), "ci_high": pl.Float64(), "share_le_0": pl.Float64(),
}


def paired_bootstrap_diff(case_scores: pl.DataFrame, model_a: str, model_b: str, *,
                          by: Sequence[str] = ("mode", "judge", "sample"), n_boot: int = 1000,
                          seed: int = 0, ci: float = 0.95, column: str = "model") -> pl.DataFrame:
    """``mean(a) - mean(b)`` over the cases both models scored, per ``by`` group, with a paired CI.

    One row per group that either model has: ``by`` columns, ``model_a``, ``model_b``,
    ``n_cases`` (scored by both; the pairs), ``n_only_a``/``n_only_b`` (scored by one model only,
    left out), ``mean_a``, ``mean_b``, ``diff``, the percentile interval ``ci_low``/``ci_high``
    and ``share_le_0``: the share of replicates whose difference is <= 0. A small share says a
    beats b on nearly every resample of the cases; it is a one-sided bootstrap indication, not a
    calibrated p-value (near 0.5 when the models differ only by chance; 1 when they score the same
    on every case, since a replicate difference of exactly 0 counts). Statistics are null when
    ``n_cases == 0``.

    ``column`` names what is compared: ``"model"`` by default; ``column="mode"`` with
    ``model_a="multimodal", model_b="text"`` and ``by=("model", "judge")`` is the image ablation.
    The output then names ``mode_a``/``mode_b`` instead of ``model_a``/``model_b``.
    """
    by = list(by)
    _check_pair_inputs(case_scores, model_a, model_b, by=by, n_boot=n_boot, ci=ci, column=column)
    groups = _paired_groups(case_scores, model_a, model_b, by=by, column=column)
    rows: list[dict[str, Any]] = []
    for g in groups.iter_rows(named=True):
        row: dict[str, Any] = {c: g[c] for c in by}
        row.update(model_a=model_a, model_b=model_b, **_paired_stats(g["case_id"], g["a"], g["b"], n_boot, seed, ci))
        rows.append(row)
    schema = {c: case_scores.schema[c] for c in by} | _DIFF_SCHEMA
    out = pl.DataFrame(rows, schema=schema)
    if column != "model":
        out = out.rename({"model_a": f"{column}_a", "model_b": f"{column}_b"})
    return out.sort(by) if by else out


def _check_pair_inputs(case_scores: pl.DataFrame, model_a: str, model_b: str, *, by: list[str], n_boot: int,
                       ci: float, column: str) -> None:
    if model_a == model_b:
        raise ValueError(f"compare two different models, got {model_a!r} twice")
    _check_ci(n_boot, ci)
    if column in by or "case_id" in by:
        raise ValueError(f"by must not contain {column!r} or 'case_id', got {by}")
    _check_columns(case_scores, [column, "case_id", "score", *by])
    present = set(case_scores[column].unique().to_list())
    absent = [m for m in (model_a, model_b) if m not in present]
    if absent:
        raise ValueError(f"{column}(s) {absent} not in case_scores; it has {sorted(present, key=str)}")


def _paired_groups(case_scores: pl.DataFrame, model_a: str, model_b: str, *, by: list[str],
                   column: str) -> pl.DataFrame:
    """Per ``by`` group, the lists ``case_id``, ``a`` and ``b``: each case's (sample-mean) score of the two
    models, null where one did not score it."""
    scored = _scored(case_scores.filter(pl.col(column).is_in([model_a, model_b])), by)
    per_case = scored.group_by([column, *by, "case_id"]).agg(
        pl.col("score").cast(pl.Float64).mean(), pl.len().alias("_n_samples"))
    if "sample" not in by and "sample" in case_scores.columns and (per_case["_n_samples"] > 1).any():
        log.debug("paired_bootstrap_diff: averaging samples per case (by=%s)", by)
    a = per_case.filter(pl.col(column) == model_a).select(*by, "case_id", pl.col("score").alias("a"))
    b = per_case.filter(pl.col(column) == model_b).select(*by, "case_id", pl.col("score").alias("b"))
    pairs = a.join(b, on=[*by, "case_id"], how="full", coalesce=True, nulls_equal=True)
    return pairs.group_by(by, maintain_order=False).agg(pl.all()) if by else pairs.select(pl.all().implode())


def _paired_stats(case_ids: list[Any], a: list[Any], b: list[Any], n_boot: int, seed: int,
                  ci: float) -> dict[str, Any]:
    """One group's pair counts and, when some case has both scores, the means, the difference and its
    paired bootstrap interval (cases in ``case_id`` order)."""
    order = np.argsort(np.asarray(case_ids, dtype=object), kind="stable")
    sa = np.array([np.nan if v is None else v for v in a], dtype=np.float64)[order]
    sb = np.array([np.nan if v is None else v for v in b], dtype=np.float64)[order]
    both = ~np.isnan(sa) & ~np.isnan(sb)
    out: dict[str, Any] = {"n_cases": int(both.sum()), "n_only_a": int((~np.isnan(sa) & np.isnan(sb)).sum()),
                           "n_only_b": int((np.isnan(sa) & ~np.isnan(sb)).sum())}
    if both.any():
        d = sa[both] - sb[both]
        low, high, share = _boot_diff(d, n_boot, seed, ci)
        out.update(mean_a=float(sa[both].mean()), mean_b=float(sb[both].mean()),
                   diff=float(d.mean()), ci_low=low, ci_high=high, share_le_0=share)
    return out


# --- worst-of-k ----------------------------------------------------------------------------------

@lru_cache(maxsize=256)
def min_weights(m: int, k: int) -> npt.NDArray[np.float64]:
    """``w[i]`` = P(the (i+1)-th smallest of m values is the minimum of a random k-subset).

    ``C(m - 1 - i, k - 1) / C(m, k)`` in exact integer arithmetic, then one rounding; sums to 1.
    """
    if not 1 <= k <= m:
        raise ValueError(f"need 1 <= k <= m, got k={k}, m={m}")
    total = math.comb(m, k)
    w = np.array([math.comb(m - 1 - i, k - 1) / total for i in range(m)], dtype=np.float64)
    w.flags.writeable = False
    return w


def expected_min(scores: npt.ArrayLike, k: int) -> float:
    """The exact mean, over all k-subsets of ``scores``, of the subset's minimum."""
    s = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    return float(s @ min_weights(s.size, k))


_WORST_SCHEMA: dict[str, pl.DataType] = {
    "k": pl.Int64(), "worst_at_k": pl.Float64(), "ci_low": pl.Float64(), "ci_high": pl.Float64(),
    "mean_score": pl.Float64(), "n_cases": pl.Int64(), "n_cases_short": pl.Int64(),
}


def worst_of_k(case_scores: pl.DataFrame, k: int | Sequence[int], *,
               group: Sequence[str] = ("model", "mode", "judge"), n_boot: int = 1000, seed: int = 0,
               ci: float = 0.95) -> pl.DataFrame:
    """Expected worst case score among k samples per case, averaged over cases (see module doc).

    ``k`` may be a list (HealthBench plots k = 1..16). One row per ``group`` x k: ``worst_at_k``
    over the ``n_cases`` cases with at least k scored samples, its percentile bootstrap interval
    over those cases (``ci_low``/``ci_high``, null when ``n_boot == 0``), ``mean_score`` (the mean
    over the same cases of their mean sample score, what worst-at-k is compared with; equal to
    ``worst_at_k`` for k = 1) and ``n_cases_short``: cases with some but fewer than k scored
    samples, left out. ``worst_at_k`` is null when no case has k scored samples.
    """
    ks = [k] if isinstance(k, int) else list(k)
    if not ks or any(not isinstance(x, int) or x < 1 for x in ks):
        raise ValueError(f"k must be a positive integer or a list of them, got {k!r}")
    if n_boot:
        _check_ci(n_boot, ci)
    group = list(group)
    _check_columns(case_scores, [*group, "case_id", "sample", "score"])
    scored = _scored(case_scores, group)
    per_case = (scored.group_by([*group, "case_id"])
                .agg(pl.col("score").cast(pl.Float64).sort().alias("_s"), pl.len().alias("_m"))
                .sort([*group, "case_id"]))
    rows: list[dict[str, Any]] = []
    keys = per_case.select(group).unique(maintain_order=True)
    for key in keys.iter_rows(named=True):
        cases = per_case.filter(pl.all_horizontal([pl.col(c) == v for c, v in key.items()]))
        m = cases["_m"].to_numpy()
        sorted_scores = cases["_s"].to_list()
        for kk in ks:
            eligible = np.flatnonzero(m >= kk)
            worst = np.empty(eligible.size)
            means = np.empty(eligible.size)
            for mm in np.unique(m[eligible]):        # one matrix product per sample count
                at = eligible[m[eligible] == mm]
                pos = np.searchsorted(eligible, at)
                s = np.array([sorted_scores[i] for i in at], dtype=np.float64)   # (cases, mm), sorted
                worst[pos] = s @ min_weights(int(mm), kk)
                means[pos] = s.mean(axis=1)
            row: dict[str, Any] = {**key, "k": kk, "n_cases": int(eligible.size),
                                   "n_cases_short": int(m.size - eligible.size)}
            if eligible.size:
                row.update(worst_at_k=float(worst.mean()), mean_score=float(means.mean()))
                if n_boot:
                    row["ci_low"], row["ci_high"] = bootstrap_mean_ci(worst, n_boot=n_boot, seed=seed,
                                                                      ci=ci)
            rows.append(row)
    schema = {c: case_scores.schema[c] for c in group} | _WORST_SCHEMA
    return pl.DataFrame(rows, schema=schema).sort([*group, "k"])
