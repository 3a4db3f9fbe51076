"""Seeded percentile bootstrap over cases, vectorised with numpy.

A replicate resamples the benchmark's cases with replacement: row b of the ``(n_boot, n)`` index
matrix drawn from ``np.random.default_rng(seed)`` lists the cases of replicate b. Every statistic
is then recomputed on the replicate: for a model (a column) and a group of cases (a stratum), the
replicate mean is ``sum(count_i * score_i) / sum(count_i)`` over the group's scored cases, where
``count_i`` is how often case i was drawn. All models and all groups share the replicates (a
paired bootstrap, so differences between models are not blurred by independent draws), and the
whole computation is one matrix product per stratum instead of a Python loop per group.

With one stratum and no missing scores this is exactly the textbook bootstrap of a mean
(``sum(count_i * v_i) / n``), which is what :func:`bootstrap_mean_ci` computes. For a small
stratum, replicates that draw none of its cases carry no information about it and are skipped;
if all are, its interval is NaN.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def _check(n_boot: int, ci: float) -> None:
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")


def resample_indices(n: int, n_boot: int, seed: int) -> npt.NDArray[np.int64]:
    """The ``(n_boot, n)`` matrix of resampled case positions; row b is replicate b."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


@functools.lru_cache(maxsize=1)
def resample_counts(n: int, n_boot: int, seed: int) -> FloatArray:
    """``counts[b, i]``: how often case i appears in replicate b of :func:`resample_indices`.

    Read-only and cached (the last one only): a summary and its five breakdowns resample the
    same cases, and drawing the matrix is a large share of their cost.
    """
    idx = resample_indices(n, n_boot, seed)
    idx += (np.arange(n_boot, dtype=np.int64) * n)[:, None]  # one flat bin per (replicate, case)
    counts = np.bincount(idx.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(np.float64)
    counts.flags.writeable = False
    return counts


def _percentiles(means: FloatArray, ci: float) -> tuple[FloatArray, FloatArray]:
    alpha = (1.0 - ci) / 2.0
    if not np.isnan(means).any():
        low, high = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
        return low, high
    out_low = np.full(means.shape[1], np.nan)
    out_high = np.full(means.shape[1], np.nan)
    seen = ~np.isnan(means).all(axis=0)
    if seen.any():
        out_low[seen], out_high[seen] = np.nanquantile(means[:, seen], [alpha, 1.0 - alpha], axis=0)
    return out_low, out_high


def stratified_bootstrap_ci(values: npt.ArrayLike, strata: npt.ArrayLike | None = None, *,
                            n_boot: int = 1000, seed: int = 0, ci: float = 0.95
                            ) -> tuple[FloatArray, FloatArray]:
    """Intervals of the mean per stratum x column of a ``(n_cases, n_columns)`` matrix.

    ``values[i, r]`` is case i's score in column r (a run), NaN when case i has no score there
    (excluded or not run). ``strata[i]`` is case i's group as an integer in ``0..n_strata-1``
    (``None``: one stratum). Returns ``(low, high)``, each ``(n_strata, n_columns)``.
    """
    _check(n_boot, ci)
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2:
        raise ValueError(f"values must be (n_cases, n_columns), got shape {v.shape}")
    n_cases, n_cols = v.shape
    s = np.zeros(n_cases, dtype=np.int64) if strata is None else np.asarray(strata, dtype=np.int64)
    if s.shape != (n_cases,) or (n_cases and s.min() < 0):
        raise ValueError("strata must hold one non-negative integer per case")
    n_strata = int(s.max()) + 1 if n_cases else 0
    low = np.full((n_strata, n_cols), np.nan)
    high = np.full((n_strata, n_cols), np.nan)
    if n_cases == 0:
        return low, high
    present = ~np.isnan(v)
    filled = np.where(present, v, 0.0)
    counts = resample_counts(n_cases, n_boot, seed)
    order = np.argsort(s, kind="stable")
    bounds = np.searchsorted(s[order], np.arange(n_strata + 1))
    for k in range(n_strata):
        rows = order[bounds[k]:bounds[k + 1]]
        if rows.size == 0:
            continue
        c = counts[:, rows]
        drawn = c @ present[rows].astype(np.float64)  # (n_boot, n_cols) scored cases drawn
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(drawn > 0, (c @ filled[rows]) / drawn, np.nan)
        if present[rows].any():
            # A mean lies within its values; clipping removes rounding (0.2 * 3 / 3 != 0.2), so a
            # constant group gets exactly (v, v) rather than an interval 1 ulp off its estimate.
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
                means = np.clip(means, np.nanmin(v[rows], axis=0), np.nanmax(v[rows], axis=0))
        low[k], high[k] = _percentiles(means, ci)
    return low, high


def bootstrap_mean_ci(values: Sequence[float] | npt.ArrayLike, n_boot: int = 1000, seed: int = 0,
                      ci: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval ``(low, high)`` of the mean of ``values``; NaN when empty."""
    _check(n_boot, ci)
    arr = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(arr).any():
        raise ValueError("values contain NaN; drop excluded cases before bootstrapping")
    if arr.size == 0:
        return float("nan"), float("nan")
    low, high = stratified_bootstrap_ci(arr[:, None], n_boot=n_boot, seed=seed, ci=ci)
    return float(low[0, 0]), float(high[0, 0])
