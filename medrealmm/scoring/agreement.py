"""Agreement between raters of binary criterion verdicts: judges with each other and with physicians.

Two-rater statistics (:func:`raw_agreement`, :func:`gwet_ac1`, :func:`cohen_kappa`,
:func:`macro_f1`) take two equally long 1-D ratings -- a Polars Series, a numpy array or a
sequence of 0/1 or booleans -- where null (``None``, Polars null, NaN) means *unscored*. An item
counts only when both raters scored it ("pairwise deletion"); the others are counted
(:func:`paired_counts`, ``AC1Result.n_dropped``, the ``n_unscored`` column), never read as 0 or 1.
A statistic that is undefined on the data (no items; κ when both raters are constant and equal;
a macro-F1 class that one side never uses) is NaN rather than a made-up 0 or 1.

- **Gwet's AC1** (Gwet 2008, *Br J Math Stat Psychol* 61:29-48) for two raters and two categories:
  ``pa`` = share of agreeing items, ``pi`` = mean share of "met" over both raters,
  ``pe = 2 pi (1 - pi)``, ``AC1 = (pa - pe) / (1 - pe)``. Its variance is Gwet's linearised
  estimator exactly as irrCAC's ``CAC(...).gwet()`` computes it (no finite-population correction)
  and the interval is ``AC1 ± t_{n-1, (1+confidence)/2} · se``, Student's t with ``n - 1`` degrees
  of freedom as in irrCAC. Like irrCAC the upper bound is capped at 1; unlike irrCAC the lower
  bound is also capped at -1 (AC1 cannot go below -1 for two categories), and a zero standard
  error gives the degenerate interval ``(AC1, AC1)`` instead of irrCAC's ``se = 1e-15``. Where
  irrCAC is given items rated by one rater only, it uses them in the chance term; here they are
  dropped, so compare with irrCAC on the pairwise-complete items. The t quantile is computed here
  (exact series for Student's t with integer df, Cornish-Fisher from 1000 df on) so that the package
  does not need scipy at run time.
- **Cohen's κ**: ``(po - pe) / (1 - pe)`` with ``pe`` from the two raters' own marginals; the same
  number as scikit-learn's ``cohen_kappa_score``. NaN when ``pe = 1``.
- **Macro-F1** as in HealthBench's meta-evaluation (``healthbench_meta_eval.py`` in openai's
  simple-evals, "pairwise_model_f1_balanced"): F1 of the "met" class and F1 of the "not met"
  class of a judge against a reference, averaged. HealthBench leaves a class's F1 undefined
  (``None``) when its precision or recall is -- the judge never predicts that class, or the
  reference never has it -- and then the average is undefined too; here that is NaN. Otherwise
  it equals scikit-learn's ``f1_score(reference, judge, average="macro")``. The statistic is
  symmetric in its two arguments. (HealthBench pools every physician's label separately; here the
  reference is one rater per item, e.g. the physicians' majority from :func:`physician_labels`.)

:func:`agreement_table` computes all of these for every pair of raters of a verdict table, overall
and by criterion polarity (positive weight: a desirable behaviour; negative weight: an undesirable
one), since judges often agree well on one kind and poorly on the other.

**Physician labels CSV** (:func:`physician_labels`): UTF-8, a header row, one row per physician and
criterion verdict. Required columns: ``case_id``, ``criterion_id``, ``physician_id``, ``verdict``
(case-insensitive, surrounding spaces ignored: ``1``/``true``/``met``/``yes`` or
``0``/``false``/``not_met``/``no``). Optional columns ``model``, ``mode``, ``sample`` say which reply
the physicians graded; ones the file lacks can be given once for all rows through
``item_defaults``. Example::

    case_id,criterion_id,physician_id,verdict
    derm-001,c1,dr_a,met
    derm-001,c1,dr_b,not_met
    derm-001,c1,dr_c,yes

Several physicians on one item are combined by majority; a tie gives ``met = null``
(``status = "unscored"``), counted in ``n_unscored`` by :func:`agreement_table` and logged.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from medrealmm.scoring.score import check_columns

log = logging.getLogger(__name__)

ITEM_COLS: tuple[str, ...] = ("model", "mode", "sample", "case_id", "criterion_id")
"""What one rated item is: a criterion of one reply (model, mode, sample) to a case."""

PHYSICIAN = "physician"
POLARITIES: tuple[str, ...] = ("all", "positive", "negative")

_TRUE = frozenset({"1", "true", "met", "yes"})
_FALSE = frozenset({"0", "false", "not_met", "no"})
_CSV_REQUIRED: tuple[str, ...] = ("case_id", "criterion_id", "physician_id", "verdict")
_CSV_OPTIONAL: tuple[str, ...] = ("model", "mode", "sample")

RatingsLike = pl.Series | npt.ArrayLike


# --- inputs --------------------------------------------------------------------------------------

def _as_ratings(x: RatingsLike, name: str) -> npt.NDArray[np.float64]:
    """1-D float array of 0.0/1.0 with NaN for unscored; anything else is an error."""
    if isinstance(x, pl.Series):
        arr = x.cast(pl.Float64).to_numpy()
    else:
        arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"ratings {name} must be 1-D, got shape {arr.shape}")
    bad = ~np.isnan(arr) & (arr != 0.0) & (arr != 1.0)
    if bad.any():
        raise ValueError(f"ratings {name} must be 0/1 or null; found {np.unique(arr[bad])[:5].tolist()}")
    return arr


def _paired(a: RatingsLike, b: RatingsLike) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], int]:
    """The items both raters scored, as booleans, and how many items were dropped."""
    x, y = _as_ratings(a, "a"), _as_ratings(b, "b")
    if x.shape != y.shape:
        raise ValueError(f"the two raters have {x.size} and {y.size} items; they must rate the same items")
    keep = ~np.isnan(x) & ~np.isnan(y)
    return x[keep] == 1.0, y[keep] == 1.0, int(keep.size - keep.sum())


@dataclass(frozen=True)
class PairCounts:
    """The 2x2 table of two raters; ``n11`` = both met, ``n10`` = a met and b not, ..."""

    n11: int
    n10: int
    n01: int
    n00: int
    n_dropped: int

    @property
    def n(self) -> int:
        return self.n11 + self.n10 + self.n01 + self.n00


def paired_counts(a: RatingsLike, b: RatingsLike) -> PairCounts:
    """Cross-tabulate two raters over the items both scored; ``n_dropped`` counts the rest."""
    return _counts(*_paired(a, b))


def _counts(x: npt.NDArray[np.bool_], y: npt.NDArray[np.bool_], n_dropped: int) -> PairCounts:
    n11 = int(np.count_nonzero(x & y))
    n10 = int(np.count_nonzero(x & ~y))
    n01 = int(np.count_nonzero(~x & y))
    return PairCounts(n11, n10, n01, int(x.size) - n11 - n10 - n01, n_dropped)


# --- two-rater statistics ------------------------------------------------------------------------

def raw_agreement(a: RatingsLike, b: RatingsLike) -> float:
    """Share of the items both raters scored on which they agree; NaN without such items."""
    c = paired_counts(a, b)
    return (c.n11 + c.n00) / c.n if c.n else math.nan


def cohen_kappa(a: RatingsLike, b: RatingsLike) -> float:
    """Cohen's κ; NaN when there are no items or chance agreement is 1 (both constant, equal).

    Computed from integer counts, so a degenerate table is detected exactly, not up to rounding.
    """
    c = paired_counts(a, b)
    n = c.n
    a1, b1 = c.n11 + c.n10, c.n11 + c.n01
    chance = a1 * b1 + (n - a1) * (n - b1)  # n^2 * pe
    if n == 0 or chance == n * n:
        return math.nan
    return (n * (c.n11 + c.n00) - chance) / (n * n - chance)


def _f1(tp: int, fp: int, fn: int) -> float:
    # HealthBench: undefined when precision (tp + fp = 0) or recall (tp + fn = 0) is undefined.
    if tp + fp == 0 or tp + fn == 0:
        return math.nan
    return 2 * tp / (2 * tp + fp + fn)


def f1_by_class(judge: RatingsLike, reference: RatingsLike) -> tuple[float, float]:
    """``(F1 of "met", F1 of "not met")`` of ``judge`` against ``reference``, NaN where undefined."""
    c = paired_counts(judge, reference)
    return _f1(c.n11, c.n10, c.n01), _f1(c.n00, c.n01, c.n10)


def macro_f1(judge: RatingsLike, reference: RatingsLike) -> float:
    """HealthBench's balanced F1: the mean of both classes' F1; NaN when either is undefined."""
    pos, neg = f1_by_class(judge, reference)
    return (pos + neg) / 2.0


@dataclass(frozen=True)
class AC1Result:
    """Gwet's AC1 of two raters with its variance and t interval (see the module docstring)."""

    ac1: float
    variance: float
    se: float
    ci_low: float
    ci_high: float
    n: int
    n_dropped: int = 0
    pa: float = math.nan
    pe: float = math.nan


def gwet_ac1(a: RatingsLike, b: RatingsLike, *, confidence: float = 0.95) -> AC1Result:
    """Gwet's AC1 for two raters and two categories, variance and CI as irrCAC's ``gwet()``.

    The per-item terms follow irrCAC: ``ac1_i = (pa_i - pe)/(1 - pe)``, ``pe_i`` the item's
    chance term, ``ac1*_i = ac1_i - 2 (1 - AC1)(pe_i - pe)/(1 - pe)``, and
    ``var = sum((ac1*_i - AC1)^2) / (n (n - 1))``. ``n < 2`` leaves the variance NaN.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x, y, n_dropped = _paired(a, b)
    n = int(x.size)
    if n == 0:
        return AC1Result(math.nan, math.nan, math.nan, math.nan, math.nan, 0, n_dropped)
    s = x.astype(np.float64) + y.astype(np.float64)       # "met" ratings per item: 0, 1 or 2
    pi1 = float(s.mean()) / 2.0
    pi0 = 1.0 - pi1
    pa_i = (s != 1.0).astype(np.float64)
    pa = float(pa_i.mean())
    pe = pi1 * (1.0 - pi1) + pi0 * (1.0 - pi0)            # = 2 pi (1 - pi) <= 1/2, so 1 - pe > 0
    ac1 = (pa - pe) / (1.0 - pe)
    if n < 2:
        return AC1Result(ac1, math.nan, math.nan, math.nan, math.nan, n, n_dropped, pa, pe)
    ac1_i = (pa_i - pe) / (1.0 - pe)
    pe_i = (s * pi0 + (2.0 - s) * pi1) / 2.0              # sum_k r_ik (1 - pi_k) / r_i, r_i = 2
    ac1_star = ac1_i - 2.0 * (1.0 - ac1) * (pe_i - pe) / (1.0 - pe)
    variance = float(np.sum((ac1_star - ac1) ** 2)) / (n * (n - 1))
    se = math.sqrt(variance)
    half = t_quantile((1.0 + confidence) / 2.0, n - 1) * se
    return AC1Result(ac1, variance, se, max(-1.0, ac1 - half), min(1.0, ac1 + half), n, n_dropped,
                     pa, pe)


def gwet_ac1_raters(ratings: Any, *, categories: Sequence[Any] | None = None,
                    confidence: float = 0.95) -> AC1Result:
    """Gwet's AC1 for any number of raters (a physician panel), unweighted, missing ratings allowed:
    ``ratings`` is items x raters (NaN or None = not rated), as irrCAC's ``CAC(...).gwet()``.

    With ``r_ik`` raters putting item i in category k and ``r_i`` raters of item i: ``pa`` averages
    ``sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))`` over the ``n'`` items with ``r_i >= 2``; ``pi_k`` is the
    mean of ``r_ik / r_i`` over the ``n`` items with a rating; ``pe = sum_k pi_k (1 - pi_k) / (q - 1)``.
    The variance follows irrCAC (items with one rating contribute to the chance term only); ``categories``
    fixes the category set (default: the values seen), which changes ``q``.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    arr = np.asarray(ratings, dtype=object)
    if arr.ndim != 2:
        raise ValueError(f"ratings must be items x raters, got shape {arr.shape}")
    missing = np.vectorize(lambda v: v is None or (isinstance(v, float) and math.isnan(v)))(arr) if arr.size else \
        np.zeros(arr.shape, dtype=bool)
    keep = ~missing.all(axis=1)
    n_dropped = int((~keep).sum())
    arr, missing = arr[keep], missing[keep]
    cats = list(categories) if categories is not None else sorted({v for v, m in zip(arr.ravel(), missing.ravel(),
                                                                                     strict=True) if not m})
    n, q = arr.shape[0], len(cats)
    if n == 0 or q < 2:
        return AC1Result(math.nan, math.nan, math.nan, math.nan, math.nan, n, n_dropped)
    counts = np.zeros((n, q))
    for k, c in enumerate(cats):
        counts[:, k] = ((arr == c) & ~missing).sum(axis=1)
    r_i = counts.sum(axis=1)
    two = r_i >= 2
    n2 = int(two.sum())
    if n2 == 0:
        return AC1Result(math.nan, math.nan, math.nan, math.nan, math.nan, n, n_dropped)
    sum_q = (counts * (counts - 1)).sum(axis=1)
    den = r_i * (r_i - 1)
    pa_i = np.where(two, sum_q / np.where(two, den, 1.0), 0.0)
    pa = float(pa_i[two].mean())
    pi = (counts / np.where(r_i > 0, r_i, 1.0)[:, None]).sum(axis=0) / n
    pe = float((pi * (1 - pi)).sum()) / (q - 1)
    ac1 = (pa - pe) / (1 - pe)
    if n < 2:
        return AC1Result(ac1, math.nan, math.nan, math.nan, math.nan, n, n_dropped, pa, pe)
    ac1_i = (n / n2) * (pa_i - pe * two) / (1 - pe)
    pe_i = (counts @ (1 - pi)) / (q - 1) / np.where(r_i > 0, r_i, 1.0)
    ac1_star = ac1_i - 2 * (1 - ac1) * (pe_i - pe) / (1 - pe)
    variance = float(((ac1_star - ac1) ** 2).sum()) / (n * (n - 1))
    se = math.sqrt(variance)
    half = t_quantile((1.0 + confidence) / 2.0, n - 1) * se
    return AC1Result(ac1, variance, se, max(-1.0, ac1 - half), min(1.0, ac1 + half), n, n_dropped, pa, pe)


# --- Student's t quantile (no scipy at run time) --------------------------------------------------

_CF_MIN_DF = 1000


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for integer df, by the finite series of Abramowitz & Stegun 26.7.3-4."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 0:
        k = np.arange(1, df // 2, dtype=np.float64)
        coef = np.concatenate(([1.0], np.cumprod((2 * k - 1) / (2 * k) * c2)))
        return math.sin(theta) * float(coef.sum())
    if df == 1:
        return 2.0 * theta / math.pi
    k = np.arange(1, (df - 1) // 2, dtype=np.float64)
    coef = np.concatenate(([1.0], np.cumprod((2 * k) / (2 * k + 1) * c2)))
    return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * float(coef.sum()))


def _t_cornish_fisher(p: float, df: int) -> float:
    """Abramowitz & Stegun 26.7.5 to 1/df^4; error O(df^-5): below 1e-12 from 1000 df on for p <= 0.9995."""
    z = NormalDist().inv_cdf(p)
    z2 = z * z
    g1 = z * (z2 + 1) / 4
    g2 = z * ((5 * z2 + 16) * z2 + 3) / 96
    g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384
    g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with integer ``df >= 1`` (as ``scipy.stats.t.ppf``)."""
    if df < 1 or int(df) != df:
        raise ValueError(f"df must be a positive integer, got {df}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    df = int(df)
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    if df >= _CF_MIN_DF:
        return _t_cornish_fisher(p, df)
    level = 2.0 * p - 1.0                     # P(|T| < t) = 2p - 1 for the upper quantile
    lo, hi = 0.0, 1.0
    while _t_two_sided(hi, df) < level:
        lo, hi = hi, hi * 2.0
    for _ in range(200):                      # bisection to the last bit
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if _t_two_sided(mid, df) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


# --- tables --------------------------------------------------------------------------------------

def _rater_values(verdicts: pl.DataFrame, rater_col: str, item_cols: Sequence[str]) -> pl.DataFrame:
    """rater, item columns and ``_v``: 1/0 for met/not met, null for unscored."""
    met = pl.col("met").cast(pl.Int8)
    if "status" in verdicts.columns:
        met = pl.when(pl.col("status") == "unscored").then(None).otherwise(met)
    return verdicts.select(pl.col(rater_col).cast(pl.String), *item_cols, met.alias("_v"))


def _polarity(verdicts: pl.DataFrame, item_cols: Sequence[str], polarity_from: str) -> pl.DataFrame:
    """One polarity per item from any rater's non-null weight; conflicting weights are an error."""
    weights = (verdicts.filter(pl.col(polarity_from).is_not_null())
               .group_by(item_cols).agg(pl.col(polarity_from).unique().alias("_w")))
    clash = weights.filter(pl.col("_w").list.len() > 1)
    if clash.height:
        r = clash.row(0, named=True)
        raise ValueError(f"{clash.height} item(s) have conflicting {polarity_from!r} values between "
                         f"raters, e.g. {({c: r[c] for c in item_cols})}: {r['_w']}")
    w = pl.col("_w").list.first()
    return weights.select(
        *item_cols,
        pl.when(w > 0).then(pl.lit("positive")).when(w < 0).then(pl.lit("negative")).alias("_polarity"))


_AGREEMENT_SCHEMA: dict[str, pl.DataType] = {
    "rater_a": pl.String(), "rater_b": pl.String(), "polarity": pl.String(), "n": pl.Int64(),
    "n_unscored": pl.Int64(), "met_rate_a": pl.Float64(), "met_rate_b": pl.Float64(),
    "raw_agreement": pl.Float64(), "ac1": pl.Float64(), "ac1_se": pl.Float64(),
    "ac1_ci_low": pl.Float64(), "ac1_ci_high": pl.Float64(), "kappa": pl.Float64(),
    "macro_f1": pl.Float64(),
}


def _pair_row(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], confidence: float) -> dict[str, Any]:
    xs, ys, n_unscored = _paired(x, y)
    ac = gwet_ac1(x, y, confidence=confidence)
    n = int(xs.size)
    return {
        "n": n, "n_unscored": n_unscored,
        "met_rate_a": float(xs.mean()) if n else None, "met_rate_b": float(ys.mean()) if n else None,
        "raw_agreement": raw_agreement(x, y), "ac1": ac.ac1, "ac1_se": ac.se,
        "ac1_ci_low": ac.ci_low, "ac1_ci_high": ac.ci_high,
        "kappa": cohen_kappa(x, y), "macro_f1": macro_f1(x, y),
    }


def agreement_table(verdicts: pl.DataFrame, *, rater_col: str = "judge",
                    item_cols: Sequence[str] = ITEM_COLS, polarity_from: str = "weight",
                    reference: str = PHYSICIAN, confidence: float = 0.95) -> pl.DataFrame:
    """Agreement of every pair of raters over the items both rated, overall and by polarity.

    ``verdicts`` has one row per rater and item: ``rater_col``, ``item_cols``, ``met`` and
    optionally ``status`` (``"unscored"`` makes ``met`` null) and ``polarity_from`` (the weight;
    its sign gives the polarity, read from whichever rater's rows carry it, so reference rows may
    leave it null). Physician rows come from :func:`physician_labels`; concatenate them with
    ``pl.concat([verdicts, labels], how="diagonal_relaxed")``.

    Returns one row per rater pair x ``polarity`` in ``("all", "positive", "negative")``: ``n``
    items scored by both, ``n_unscored`` items both have a row for but one left unscored,
    ``met_rate_a``/``_b``, ``raw_agreement``, ``ac1`` with ``ac1_se`` and ``ac1_ci_low``/``_high``,
    ``kappa`` and ``macro_f1`` (``rater_a`` as the judge, ``rater_b`` as the reference). Raters are
    paired in name order, except that ``reference``, when present, is always ``rater_b``. Items
    only one rater of a pair has are not part of that pair; items without a non-zero weight count
    under ``"all"`` only.
    """
    item_cols = list(item_cols)
    cols = [rater_col, *item_cols, "met"]
    if polarity_from:
        cols.append(polarity_from)
    check_columns(verdicts, cols, "verdicts")
    null_keys = verdicts.filter(pl.any_horizontal(pl.col(item_cols).is_null()))
    if null_keys.height:
        r = null_keys.row(0, named=True)
        nulls = [c for c in item_cols if r[c] is None]
        raise ValueError(f"{null_keys.height} verdict row(s) have a null item column, e.g. rater "
                         f"{r[rater_col]!r} with {nulls} null; give them values (physician_labels(..., "
                         f"item_defaults=...)) or leave those columns out of item_cols")
    values = _rater_values(verdicts, rater_col, item_cols)
    dup = values.filter(pl.struct(rater_col, *item_cols).is_duplicated())
    if dup.height:
        r = dup.row(0, named=True)
        raise ValueError(f"{dup.height} verdict rows repeat a (rater, item), e.g. "
                         f"{({c: r[c] for c in [rater_col, *item_cols]})}")
    if polarity_from:
        values = values.join(_polarity(verdicts, item_cols, polarity_from), on=item_cols, how="left")
    else:
        values = values.with_columns(_polarity=pl.lit(None, dtype=pl.String))

    raters = sorted(r for r in values[rater_col].unique().to_list() if r != reference)
    if reference in values[rater_col]:
        raters.append(reference)  # last, so every pair puts it second
    per_rater = {r: values.filter(pl.col(rater_col) == r).drop(rater_col) for r in raters}
    rows: list[dict[str, Any]] = []
    for ra, rb in itertools.combinations(raters, 2):
        both = per_rater[ra].join(per_rater[rb].drop("_polarity"), on=item_cols, how="inner",
                                  suffix="_b")
        for polarity in POLARITIES:
            sub = both if polarity == "all" else both.filter(pl.col("_polarity") == polarity)
            x = sub["_v"].cast(pl.Float64).to_numpy()
            y = sub["_v_b"].cast(pl.Float64).to_numpy()
            rows.append({"rater_a": ra, "rater_b": rb, "polarity": polarity,
                         **_pair_row(x, y, confidence)})
    log.info("agreement over %d rater(s), %d pair(s)", len(raters), len(rows) // len(POLARITIES))
    return pl.DataFrame(rows, schema=_AGREEMENT_SCHEMA)


# --- physician labels ----------------------------------------------------------------------------

def physician_labels(csv_path: str | Path, *, rater: str = PHYSICIAN, rater_col: str = "judge",
                     item_defaults: Mapping[str, Any] | None = None) -> pl.DataFrame:
    """Read physicians' criterion verdicts (format in the module docstring), one row per item.

    Returns ``rater_col`` (= ``rater``), the item columns present (``model``/``mode``/``sample``
    from the file or ``item_defaults``, then ``case_id``, ``criterion_id``), ``met`` (majority;
    null on a tie), ``status`` (``"scored"``/``"unscored"``), ``n_physicians`` and ``n_met``.
    Raises ``ValueError`` naming the file and row (data rows count from 1 after the header) for a
    missing column, an empty id, an unknown verdict or a physician labelling one item twice.
    """
    path = Path(csv_path)
    raw = pl.read_csv(path, infer_schema=False)
    defaults = _checked_defaults(path, raw, item_defaults)
    item_cols = [c for c in _CSV_OPTIONAL if c in raw.columns or c in defaults]
    df = _read_verdict_rows(path, raw, key_cols=[*[c for c in item_cols if c in raw.columns], "case_id",
                                                 "criterion_id", "physician_id"])
    for k, v in defaults.items():
        df = df.with_columns(pl.lit(v, dtype=pl.Int64 if k == "sample" else pl.String).alias(k))
    repeated = df.filter(pl.struct(*item_cols, "case_id", "criterion_id", "physician_id").is_duplicated())
    if repeated.height:
        r = repeated.row(0, named=True)
        raise ValueError(f"{path}: row {r['_row']}: physician {r['physician_id']!r} labels case "
                         f"{r['case_id']!r} criterion {r['criterion_id']!r} more than once")

    keys = [*item_cols, "case_id", "criterion_id"]
    out = (df.group_by(keys)
           .agg(n_physicians=pl.len().cast(pl.Int64), n_met=pl.col("met").sum().cast(pl.Int64))
           .with_columns(met=pl.when(pl.col("n_met") * 2 > pl.col("n_physicians")).then(True)
                         .when(pl.col("n_met") * 2 < pl.col("n_physicians")).then(False))
           .with_columns(status=pl.when(pl.col("met").is_null()).then(pl.lit("unscored"))
                         .otherwise(pl.lit("scored")),
                         **{rater_col: pl.lit(rater)})
           .select(rater_col, *keys, "met", "status", "n_physicians", "n_met")
           .sort(keys))
    n_ties = int(out["met"].is_null().sum())
    log.info("%s: %d physician label(s) on %d item(s); %d tie(s) left unscored", path, df.height,
             out.height, n_ties)
    return out


def _checked_defaults(path: Path, raw: pl.DataFrame, item_defaults: Mapping[str, Any] | None) -> dict[str, Any]:
    """The item defaults, after checking the file's required columns and that no column is given twice."""
    missing = [c for c in _CSV_REQUIRED if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; has {raw.columns} "
                         f"(need {list(_CSV_REQUIRED)})")
    defaults = dict(item_defaults or {})
    unknown = [k for k in defaults if k not in _CSV_OPTIONAL]
    if unknown:
        raise ValueError(f"item_defaults may set {list(_CSV_OPTIONAL)}, not {unknown}")
    both = [k for k in defaults if k in raw.columns]
    if both:
        raise ValueError(f"{path}: column(s) {both} are in the file and in item_defaults; give them once")
    return defaults


def _read_verdict_rows(path: Path, raw: pl.DataFrame, key_cols: list[str]) -> pl.DataFrame:
    """The file's rows numbered (``_row``, from 1) with ``met`` read from the verdict and ``sample`` as an
    integer; an empty key, an unknown verdict or a sample that is no integer stops with its row."""
    df = raw.with_row_index("_row", offset=1)
    empty = df.filter(pl.any_horizontal([pl.col(c).is_null() | (pl.col(c).str.strip_chars() == "")
                                         for c in key_cols]))
    if empty.height:
        r = empty.row(0, named=True)
        cols = [c for c in key_cols if not (r[c] or "").strip()]
        raise ValueError(f"{path}: row {r['_row']}: empty {cols}")
    verdict = pl.col("verdict").str.strip_chars().str.to_lowercase()
    df = df.with_columns(met=pl.when(verdict.is_in(list(_TRUE))).then(True)
                         .when(verdict.is_in(list(_FALSE))).then(False))
    bad = df.filter(pl.col("met").is_null())
    if bad.height:
        r = bad.row(0, named=True)
        raise ValueError(f"{path}: row {r['_row']}: verdict {r['verdict']!r} is not one of "
                         f"{sorted(_TRUE)} or {sorted(_FALSE)} ({bad.height} bad row(s) in all)")
    if "sample" in raw.columns:
        as_int = df["sample"].str.strip_chars().cast(pl.Int64, strict=False)
        if as_int.is_null().any():
            r = df.filter(as_int.is_null()).row(0, named=True)
            raise ValueError(f"{path}: row {r['_row']}: sample {r['sample']!r} is not an integer")
        df = df.with_columns(sample=as_int)
    return df


def panel_agreement(csv_path: str | Path, weights: pl.DataFrame | None = None, *, confidence: float = 0.95
                    ) -> pl.DataFrame:
    """Gwet's AC1 among the physicians of a panel (three or more raters; the CSV of
    :func:`physician_labels`, which validates it), overall and by polarity when ``weights``
    (``case_id``, ``criterion_id``, ``weight``) says which criteria are negative."""
    physician_labels(csv_path)   # same checks, same messages
    raw = pl.read_csv(Path(csv_path), infer_schema=False)
    verdict = pl.col("verdict").str.strip_chars().str.to_lowercase()
    items = [c for c in ("model", "mode", "sample", "case_id", "criterion_id") if c in raw.columns]
    df = raw.with_columns(met=pl.when(verdict.is_in(list(_TRUE))).then(1.0).otherwise(0.0))
    wide = df.pivot(on="physician_id", index=items, values="met", aggregate_function="first")
    raters = [c for c in wide.columns if c not in items]
    if weights is not None and {"case_id", "criterion_id", "weight"} <= set(weights.columns):
        w = weights.select("case_id", "criterion_id", "weight").unique(["case_id", "criterion_id"])
        wide = wide.join(w, on=["case_id", "criterion_id"], how="left")
    rows = []
    parts = [("all", wide)]
    if "weight" in wide.columns:
        parts += [("positive", wide.filter(pl.col("weight") > 0)), ("negative", wide.filter(pl.col("weight") < 0))]
    for polarity, part in parts:
        if not part.height:
            continue
        res = gwet_ac1_raters(part.select(raters).to_numpy().astype(object), categories=[0.0, 1.0],
                              confidence=confidence)
        rows.append({"polarity": polarity, "physicians": len(raters), "items": res.n, "ac1": res.ac1,
                     "ci_low": res.ci_low, "ci_high": res.ci_high, "pa": res.pa, "pe": res.pe})
    return pl.DataFrame(rows)
