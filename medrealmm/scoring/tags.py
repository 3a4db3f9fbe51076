"""HealthBench's tag breakdowns: scores per example-level tag (themes) and per rubric-level tag (axes).

HealthBench (Arora et al., 2025; ``healthbench_eval.py`` in openai/simple-evals) reports, next
to the overall score, one score per tag:

- an **example-level tag** (``theme:*``, ``physician_agreed_category:*``, in ``example_tags``)
  scores an example with its overall score, so the tag score is the mean case score over the
  examples carrying the tag (:func:`example_tag_scores`);
- a **rubric-level tag** (``axis:*``, ``level:*``, ``cluster:*``, on rubric items) scores an
  example with the same formula restricted to the items carrying the tag,
  ``Σ points of met items / Σ positive points`` over those items; an example whose tagged items
  have no positive points has no score for the tag; the tag score averages over the examples that
  have one (:func:`rubric_tag_scores`).

Both functions give two columns, as the summary does: ``score`` clips each example to [0, 1] and
then averages (MedRealMM's convention), ``score_clip_mean_only`` averages the unclipped ratios and
clips the mean (what HealthBench's reference code reports). Every ratio and clip is built from
:mod:`medrealmm.scoring.score`, where the formula lives.

Unscored verdicts: for rubric-level tags an unscored item leaves both numerator and denominator
(``drop_criteria`` semantics, whatever the run's policy) and is counted in ``n_unscored``; an
example whose positive tagged items were all unscored is counted in ``n_excluded``. Example-level
tags take the case scores as they are, so there the run's unscored policy applies (excluded cases
are counted in ``n_excluded``, never averaged as 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

from medrealmm.schema import Case
from medrealmm.scoring.score import (
    RUN_KEY,
    STATUS_SCORED,
    VERDICT_SCHEMA,
    check_columns,
    validate_verdicts,
    clip_score,
    points_earned,
    points_possible,
    raw_ratio,
)

LEVEL_EXAMPLE = "example"
LEVEL_RUBRIC = "rubric"
DEFAULT_PREFIXES: tuple[str, ...] = ("theme:", "axis:")
"""HealthBench's headline breakdowns: themes (example level) and axes (rubric level)."""

CRITERION_TAGS_SCHEMA: dict[str, pl.DataType] = {
    "case_id": pl.String(), "criterion_id": pl.String(), "tag": pl.String()}
CASE_TAGS_SCHEMA: dict[str, pl.DataType] = {"case_id": pl.String(), "tag": pl.String()}
TAG_SCORES_SCHEMA: dict[str, pl.DataType] = {
    **{k: VERDICT_SCHEMA[k] for k in RUN_KEY}, "tag": pl.String(), "score": pl.Float64(),
    "score_clip_mean_only": pl.Float64(), "n_cases": pl.UInt32(), "n_excluded": pl.UInt32(),
    "n_unscored": pl.Int64()}


def criterion_tags(cases: Iterable[Case]) -> pl.DataFrame:
    """One row per (case_id, criterion_id, tag) of the rubric items (a Dataset is iterable)."""
    rows = [(c.id, cr.id, t) for c in cases for cr in c.rubric for t in dict.fromkeys(cr.tags)]
    return pl.DataFrame(rows, schema=CRITERION_TAGS_SCHEMA, orient="row")


def case_tags(cases: Iterable[Case]) -> pl.DataFrame:
    """One row per (case_id, tag) of ``meta["example_tags"]`` (HealthBench's example tags).

    Cases without example tags (e.g. MedRealMM cases) have no rows.
    """
    rows = [(c.id, str(t)) for c in cases for t in dict.fromkeys(c.meta.get("example_tags") or ())]
    return pl.DataFrame(rows, schema=CASE_TAGS_SCHEMA, orient="row")


def _with_prefixes(tags: pl.DataFrame, prefixes: Sequence[str] | None) -> pl.DataFrame:
    if prefixes is None:
        return tags
    keep = pl.lit(False)
    for p in prefixes:
        keep = keep | pl.col("tag").str.starts_with(p)
    return tags.filter(keep)


def _finish(df: pl.DataFrame) -> pl.DataFrame:
    return df.select([pl.col(k).cast(t) for k, t in TAG_SCORES_SCHEMA.items()]).sort([*RUN_KEY, "tag"])


def example_tag_scores(case_scores: pl.DataFrame, tags: pl.DataFrame, *,
                       prefixes: Sequence[str] | None = None) -> pl.DataFrame:
    """Per run key and example-level tag: the mean case score over the cases carrying the tag.

    HealthBench gives every example tag the example's overall score and averages per tag.
    ``case_scores`` is :func:`~medrealmm.scoring.score.score_cases`' output; cases it excluded
    (unscored verdicts under ``exclude_case``) are counted in ``n_excluded`` and left out of the
    means. ``tags`` is :func:`case_tags`; ``prefixes`` keeps only tags starting with one of them.
    """
    check_columns(case_scores, [*RUN_KEY, "case_id", "score", "raw_ratio", "status", "n_unscored"],
                   "case_scores")
    check_columns(tags, list(CASE_TAGS_SCHEMA), "case tags")
    tags = _with_prefixes(tags.select(list(CASE_TAGS_SCHEMA)).unique(), prefixes)
    scored = pl.col("status") == STATUS_SCORED
    out = case_scores.join(tags, on="case_id", how="inner").group_by([*RUN_KEY, "tag"]).agg(
        score=pl.col("score").filter(scored).mean(),
        score_clip_mean_only=clip_score(pl.col("raw_ratio").filter(scored).mean()),
        n_cases=scored.sum(),
        n_excluded=(~scored).sum(),
        n_unscored=pl.col("n_unscored").cast(pl.Int64).sum(),
    )
    return _finish(out)


def rubric_tag_scores(verdicts: pl.DataFrame, tags: pl.DataFrame, *,
                      prefixes: Sequence[str] | None = None) -> pl.DataFrame:
    """Per run key and rubric-level tag: HealthBench's score over only the items carrying the tag.

    Per example, ``Σ w·met / Σ max(w, 0)`` over its scored items with the tag
    (:func:`~medrealmm.scoring.score.raw_ratio` of ``points_earned``/``points_possible``), clipped
    to [0, 1]; averaged over the examples whose tagged scored items have a positive point (the
    others have no score for the tag, as in HealthBench). Unscored items leave numerator and
    denominator and are counted (``n_unscored``); an example left without a positive scored item
    only because of them is counted in ``n_excluded``. ``tags`` is :func:`criterion_tags`.
    A tag whose examples all lack a positive item has ``score`` null and ``n_cases`` 0.
    """
    check_columns(verdicts, list(VERDICT_SCHEMA), "verdicts")
    check_columns(tags, list(CRITERION_TAGS_SCHEMA), "criterion tags")
    v = verdicts.select([pl.col(k).cast(t) for k, t in VERDICT_SCHEMA.items()])
    if v.height == 0:
        return pl.DataFrame(schema=TAG_SCORES_SCHEMA)
    validate_verdicts(v)
    dup = v.filter(pl.struct([*RUN_KEY, "case_id", "criterion_id"]).is_duplicated())
    if dup.height:
        r = dup.row(0, named=True)
        raise ValueError(f"duplicate verdicts for one run and criterion, e.g. case {r['case_id']!r} "
                         f"criterion {r['criterion_id']!r}")
    tags = _with_prefixes(tags.select(list(CRITERION_TAGS_SCHEMA)).unique(), prefixes)

    scored = pl.col("status") == STATUS_SCORED
    w, met = pl.col("weight"), pl.col("met")
    per_case = v.join(tags, on=["case_id", "criterion_id"], how="inner").group_by(
        [*RUN_KEY, "case_id", "tag"]).agg(
        earned=points_earned(w.filter(scored), met.filter(scored)),
        possible=points_possible(w.filter(scored)),
        possible_all=points_possible(w),
        n_unscored=(~scored).sum().cast(pl.Int64),
    )
    has_score = pl.col("possible") > 0
    ratio = raw_ratio(pl.col("earned"), pl.col("possible"))
    out = per_case.group_by([*RUN_KEY, "tag"]).agg(
        score=clip_score(ratio).filter(has_score).mean(),
        score_clip_mean_only=clip_score(ratio.filter(has_score).mean()),
        n_cases=has_score.sum(),
        n_excluded=(~has_score & (pl.col("possible_all") > 0)).sum(),
        n_unscored=pl.col("n_unscored").sum(),
    )
    return _finish(out)


def tag_breakdowns(verdicts: pl.DataFrame, case_scores: pl.DataFrame, cases: Iterable[Case], *,
                   prefixes: Sequence[str] | None = DEFAULT_PREFIXES) -> pl.DataFrame:
    """Both kinds in one table with a ``level`` column (``"example"`` or ``"rubric"``).

    ``cases`` is the Dataset (or its cases) the verdicts were judged on; ``prefixes`` defaults to
    HealthBench's headline breakdowns (themes and axes), ``None`` keeps every tag.
    """
    cases = list(cases)
    known = pl.DataFrame({"case_id": [c.id for c in cases]}, schema={"case_id": pl.String})
    unknown = verdicts.select(pl.col("case_id").cast(pl.String)).unique().join(known, on="case_id",
                                                                                how="anti")
    if unknown.height:
        ids = unknown["case_id"].sort().to_list()
        raise ValueError(f"{len(ids)} verdict case_id(s) are not in the cases given: {ids[:10]}")
    ex = example_tag_scores(case_scores, case_tags(cases), prefixes=prefixes)
    rb = rubric_tag_scores(verdicts, criterion_tags(cases), prefixes=prefixes)
    return pl.concat([ex.select(pl.lit(LEVEL_EXAMPLE).alias("level"), pl.all()),
                      rb.select(pl.lit(LEVEL_RUBRIC).alias("level"), pl.all())])
