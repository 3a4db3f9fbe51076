"""Case scores: the one MedRealMM score formula and its application to a verdict table.

The paper's case score is ``S = clip(sum_j w_j v_j / sum_j max(w_j, 0), 0, 1)`` with ``v_j = 1`` when
the judge says criterion ``j`` applies (for a negative weight: the undesirable behaviour is there).
The formula is written once, as Polars expressions (:func:`points_earned`, :func:`points_possible`,
:func:`raw_ratio`, :func:`clip_score`, composed by :func:`case_score_expr`). The scalar
:func:`case_score` evaluates that very expression on a one-case frame, and :func:`score_cases`
builds its columns from the same functions, so the two cannot drift apart.

Unscored verdicts (the judge gave no usable answer) are never read as 0 or 1. ``score_cases``
takes one policy:

- ``"exclude_case"`` (default): a case with any unscored criterion gets ``score = null`` and
  ``status = "excluded_unscored"``; it is left out of every mean and counted in ``n_excluded``.
- ``"drop_criteria"``: unscored criteria leave both numerator and denominator; a case left with no
  positive criterion is excluded as above.
- ``"fail"``: raise :class:`UnscoredVerdictError` naming the cases and criteria.

A verdict is unscored when its ``status`` is ``"unscored"``; ``status`` is authoritative, so a
``met`` value on an unscored verdict is ignored, and a scored verdict with ``met = null`` is an error.
Only cases that have verdicts for a run key get a row; checking that every case of the benchmark
was judged belongs to the caller (it knows the case list of each run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import polars as pl

UnscoredPolicy = Literal["exclude_case", "drop_criteria", "fail"]
POLICIES: tuple[str, ...] = get_args(UnscoredPolicy)

RUN_KEY: tuple[str, ...] = ("model", "mode", "judge", "sample")
"""One evaluated run: a model in a mode, graded by a judge, for one sample index."""

CASE_ATTRIBUTES: tuple[str, ...] = ("department", "intent", "stage", "n_images", "n_turns")

VERDICT_SCHEMA: dict[str, pl.DataType] = {
    "case_id": pl.String(), "model": pl.String(), "mode": pl.String(), "sample": pl.Int64(),
    "judge": pl.String(), "criterion_id": pl.String(), "weight": pl.Int64(), "met": pl.Boolean(),
    "status": pl.String(),
}

STATUS_SCORED = "scored"
STATUS_EXCLUDED = "excluded_unscored"


class UnscoredVerdictError(ValueError):
    """Raised by the ``"fail"`` policy; ``unscored`` lists (run key..., case_id, criterion_id)."""

    def __init__(self, unscored: pl.DataFrame):
        self.unscored = unscored
        n_cases = unscored.select([*RUN_KEY, "case_id"]).n_unique()
        shown = unscored.head(10).iter_rows(named=True)
        items = "; ".join(
            f"case {r['case_id']!r} criterion {r['criterion_id']!r} "
            f"({r['model']}/{r['mode']}/{r['judge']}/sample {r['sample']})" for r in shown)
        more = f" and {unscored.height - 10} more" if unscored.height > 10 else ""
        super().__init__(f"{unscored.height} unscored verdict(s) in {n_cases} case(s) under "
                         f"policy 'fail': {items}{more}")


# --- the formula: every score in this package is built from these four functions --------------

def points_earned(weight: pl.Expr, met: pl.Expr) -> pl.Expr:
    """Sum of w_j * v_j. ``met`` must hold no nulls: callers remove unscored criteria first."""
    return (weight * met.cast(pl.Int64)).sum()


def points_possible(weight: pl.Expr) -> pl.Expr:
    """Sum of max(w_j, 0): the points of a reply that meets every positive criterion and no negative."""
    return weight.clip(lower_bound=0).sum()


def raw_ratio(earned: pl.Expr, possible: pl.Expr) -> pl.Expr:
    """The unclipped ratio; HealthBench averages this before clipping, MedRealMM clips per case."""
    return earned.cast(pl.Float64) / possible.cast(pl.Float64)


def clip_score(ratio: pl.Expr) -> pl.Expr:
    """Clip to [0, 1]: negative criteria cannot push a case below 0."""
    return ratio.clip(lower_bound=0.0, upper_bound=1.0)


def case_score_expr(weight: pl.Expr | None = None, met: pl.Expr | None = None) -> pl.Expr:
    """The case score as one aggregation over a case's criteria rows."""
    w = pl.col("weight") if weight is None else weight
    v = pl.col("met") if met is None else met
    return clip_score(raw_ratio(points_earned(w, v), points_possible(w)))


def case_score(weights: Sequence[int], met: Sequence[bool]) -> float:
    """Score one fully-scored case by evaluating :func:`case_score_expr`.

    Raises ``ValueError`` when lengths differ, a verdict is missing (``None``) or no weight is
    positive (the score is undefined then).
    """
    if len(weights) != len(met):
        raise ValueError(f"{len(weights)} weights but {len(met)} verdicts")
    if any(v is None for v in met):
        raise ValueError("a verdict is None (unscored); choose an unscored policy in score_cases")
    if not any(w > 0 for w in weights):
        raise ValueError("no positive weight: the case score is undefined")
    frame = pl.DataFrame({"weight": list(weights), "met": list(met)},
                         schema={"weight": pl.Int64, "met": pl.Boolean})
    return float(frame.select(case_score_expr()).item())


# --- the table path ------------------------------------------------------------------------------

def check_columns(df: pl.DataFrame, required: Sequence[str], what: str, hint: str | None = None) -> None:
    """A ValueError naming the missing columns of the table ``what`` (and ``hint``, else the columns it has)."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks column(s) {missing}; {hint or f'has {df.columns}'}")


def validate_verdicts(v: pl.DataFrame) -> None:
    """A ValueError for a verdict table whose status and met values do not agree."""
    bad_status = v.filter(~pl.col("status").is_in(["scored", "unscored"]) | pl.col("status").is_null())
    if bad_status.height:
        raise ValueError(f"status must be 'scored' or 'unscored'; found "
                         f"{bad_status['status'].unique().to_list()[:5]}")
    scored_null = v.filter((pl.col("status") == "scored") & pl.col("met").is_null())
    if scored_null.height:
        r = scored_null.row(0, named=True)
        raise ValueError(f"{scored_null.height} verdict(s) have status 'scored' but met = null, e.g. "
                         f"case {r['case_id']!r} criterion {r['criterion_id']!r}")
    null_weight = v.filter(pl.col("weight").is_null())
    if null_weight.height:
        raise ValueError(f"{null_weight.height} verdict(s) have no weight")


_SCORE_SCHEMA: dict[str, pl.DataType] = {
    **{k: VERDICT_SCHEMA[k] for k in RUN_KEY}, "case_id": pl.String(),
    "score": pl.Float64(), "raw_ratio": pl.Float64(), "status": pl.String(),
    "n_criteria": pl.UInt32(), "n_pos": pl.UInt32(), "n_pos_met": pl.UInt32(),
    "n_neg": pl.UInt32(), "n_neg_triggered": pl.UInt32(), "n_unscored": pl.UInt32(),
    "points_earned": pl.Int64(), "points_possible": pl.Int64()}


def _empty_scores(cases: pl.DataFrame) -> pl.DataFrame:
    return pl.DataFrame(schema=_SCORE_SCHEMA).join(cases, on="case_id", how="left")


def score_cases(verdicts: pl.DataFrame, cases: pl.DataFrame,
                policy: UnscoredPolicy = "exclude_case", *,
                attributes: Sequence[str] = CASE_ATTRIBUTES) -> pl.DataFrame:
    """One row per run key x case: the case score, its components and the case attributes.

    ``points_earned`` sums w*v over scored criteria; ``points_possible`` sums max(w, 0) over the
    criteria in the denominator under ``policy`` (all of them for ``exclude_case``, the scored ones
    for ``drop_criteria``). ``score``/``raw_ratio`` are null exactly when ``status`` is
    ``"excluded_unscored"``. Counts of positive/negative criteria cover all criteria; ``n_pos_met``
    and ``n_neg_triggered`` count scored verdicts only. ``attributes`` are the ``cases`` columns
    joined on (add e.g. ``"specialty"`` to break down by it later).
    """
    v, cases = _score_inputs(verdicts, cases, policy, attributes)
    if v.height == 0:
        return _empty_scores(cases)
    validate_verdicts(v)
    if policy == "fail":
        _raise_on_unscored(v)
    per_case = _per_case_scores(v, policy)
    unknown = per_case.select("case_id").unique().join(cases.select("case_id"), on="case_id",
                                                       how="anti")
    if unknown.height:
        ids = unknown["case_id"].sort().to_list()
        raise ValueError(f"{len(ids)} verdict case_id(s) are not in cases: {ids[:10]}")
    out = per_case.join(cases, on="case_id", how="left")
    first = [*RUN_KEY, "case_id", "score", "raw_ratio", "status"]
    return out.select([*first, *[c for c in out.columns if c not in first]]).sort([*RUN_KEY, "case_id"])


def _score_inputs(verdicts: pl.DataFrame, cases: pl.DataFrame, policy: str, attributes: Sequence[str]
                  ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The verdicts in :data:`VERDICT_SCHEMA` and the cases' id and attributes, checked."""
    if policy not in POLICIES:
        raise ValueError(f"unknown unscored policy {policy!r}; choose one of {POLICIES}")
    check_columns(verdicts, list(VERDICT_SCHEMA), "verdicts")
    check_columns(cases, ["case_id", *attributes], "cases")
    clash = [c for c in attributes if c in _SCORE_SCHEMA]
    if clash:
        raise ValueError(f"case attribute column(s) {clash} clash with score columns")
    if cases["case_id"].is_duplicated().any():
        dup = cases.filter(pl.col("case_id").is_duplicated())["case_id"].unique().sort().to_list()
        raise ValueError(f"cases has duplicate case_id(s): {dup[:10]}")
    v = verdicts.select([pl.col(k).cast(t) for k, t in VERDICT_SCHEMA.items()])
    return v, cases.select(["case_id", *attributes])


def _raise_on_unscored(v: pl.DataFrame) -> None:
    """The ``"fail"`` policy: any unscored verdict is an error naming them all."""
    unscored = v.filter(pl.col("status") != "scored")
    if unscored.height:
        raise UnscoredVerdictError(
            unscored.select([*RUN_KEY, "case_id", "criterion_id"]).sort([*RUN_KEY, "case_id", "criterion_id"]))


def _per_case_scores(v: pl.DataFrame, policy: str) -> pl.DataFrame:
    """The score formula applied per run key x case under ``policy``: counts, points, ratio, status, score."""
    scored = pl.col("status") == "scored"
    w, met = pl.col("weight"), pl.col("met")
    w_scored, met_scored = w.filter(scored), met.filter(scored)
    denominator_w = w if policy == "exclude_case" else w_scored
    per_case = v.group_by([*RUN_KEY, "case_id"]).agg(
        n_criteria=pl.len(),
        n_distinct=pl.col("criterion_id").n_unique(),
        n_pos=(w > 0).sum(),
        n_pos_met=((w > 0) & scored & met).sum(),
        n_neg=(w < 0).sum(),
        n_neg_triggered=((w < 0) & scored & met).sum(),
        n_unscored=(~scored).sum(),
        points_earned=points_earned(w_scored, met_scored),
        points_possible=points_possible(denominator_w),
    )
    _check_case_criteria(per_case)
    if policy == "drop_criteria":
        excluded = pl.col("points_possible") <= 0  # every positive criterion was unscored
    else:
        excluded = pl.col("n_unscored") > 0
    ratio = raw_ratio(pl.col("points_earned"), pl.col("points_possible"))
    return per_case.drop("n_distinct").with_columns(
        raw_ratio=pl.when(~excluded).then(ratio),
        status=pl.when(excluded).then(pl.lit(STATUS_EXCLUDED)).otherwise(pl.lit(STATUS_SCORED)),
    ).with_columns(score=clip_score(pl.col("raw_ratio")))


def _check_case_criteria(per_case: pl.DataFrame) -> None:
    """Errors for a case with two verdicts on one criterion of a run, or without a positive criterion."""
    dups = per_case.filter(pl.col("n_distinct") != pl.col("n_criteria"))
    if dups.height:
        r = dups.row(0, named=True)
        raise ValueError(f"{dups.height} case(s) have duplicate criterion verdicts for one run, e.g. "
                         f"case {r['case_id']!r} ({r['model']}/{r['mode']}/{r['judge']}/"
                         f"sample {r['sample']})")
    no_pos = per_case.filter(pl.col("n_pos") == 0)
    if no_pos.height:
        ids = no_pos["case_id"].unique().sort().to_list()
        raise ValueError(f"case(s) without a positive criterion have no defined score: {ids[:10]}")
