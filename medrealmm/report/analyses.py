"""Every table of the report, computed from the pooled runs: pure Polars and numpy, no files.

Statistics come from :mod:`medrealmm.scoring` (one score formula, one bootstrap); this module only
decides what is compared with what:

- *Samples.* With k replies per case (``run.samples=k``) a model's case score is the mean over its
  scored samples (:func:`pool_samples`); worst-of-k uses the samples themselves.
- *Judges.* Model tables (ablation, breakdowns, histograms, paired comparisons) use one judge, the
  ``primary_judge`` (by default the judge with the most runs); the leaderboard lists every judge;
  the judge section compares judges on the replies they all graded.
- *Anchor.* ``model=online`` (the physician's real reply, scored like a model) is an anchor row:
  shown, not ranked.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from medrealmm.report.runs import RunSet
from medrealmm.scoring import (
    DEFAULT_DIMS,
    DEFAULT_EDGES,
    agreement_table,
    breakdown,
    histogram,
    paired_bootstrap_diff,
    score_cases,
    summarize,
    worst_of_k,
)
from medrealmm.scoring.agreement import ITEM_COLS, PHYSICIAN
from medrealmm.scoring.score import STATUS_EXCLUDED, STATUS_SCORED

log = logging.getLogger(__name__)

MULTIMODAL, TEXT = "multimodal", "text"
SPECIALTY = "specialty"


@dataclass(frozen=True)
class ReportOptions:
    """What the report computes; built from the ``report`` and ``run.scoring`` config."""

    anchor: str = "online"
    primary_judge: str | None = None
    min_n: int = 10
    n_boot: int = 1000
    seed: int = 0
    ci: float = 0.95
    dims: tuple[str, ...] = (SPECIALTY, *DEFAULT_DIMS)
    edges: Mapping[str, Sequence[int]] = field(default_factory=lambda: dict(DEFAULT_EDGES))
    histogram_bin: float = 0.05
    worst_k: tuple[int, ...] | None = None
    pairs: tuple[tuple[str, str], ...] | None = None
    max_pairs: int = 45

    def __post_init__(self) -> None:
        if self.n_boot < 1:
            raise ValueError(f"the report needs bootstrap intervals: run.scoring.bootstrap must be >= 1, "
                             f"got {self.n_boot}")
        if self.min_n < 0 or self.max_pairs < 0:
            raise ValueError(f"report.min_n and report.max_pairs must be >= 0, got {self.min_n}, {self.max_pairs}")

    @property
    def boot(self) -> dict[str, Any]:
        return {"n_boot": self.n_boot, "seed": self.seed, "ci": self.ci}


# --- pooling ---------------------------------------------------------------------------------------

def attribute_columns(case_scores: pl.DataFrame) -> list[str]:
    """Case-level columns (department, specialty, ...) that travel with every pooled row."""
    score_cols = {"model", "mode", "judge", "sample", "case_id", "score", "raw_ratio", "status",
                  "n_criteria", "n_pos", "n_pos_met", "n_neg", "n_neg_triggered", "n_unscored",
                  "points_earned", "points_possible", "run"}
    return [c for c in case_scores.columns if c not in score_cols]


def pool_samples(case_scores: pl.DataFrame) -> pl.DataFrame:
    """One row per model x mode x judge x case: means over the case's scored samples.

    The result has the columns of ``score_cases`` (``sample`` = 0), so every aggregation of
    :mod:`medrealmm.scoring` applies; a case is excluded only when none of its samples is scored.
    """
    scored = pl.col("status") == STATUS_SCORED
    attrs = attribute_columns(case_scores)
    pooled = case_scores.group_by(["model", "mode", "judge", "case_id", *attrs]).agg(
        n_samples=pl.len(),
        n_scored_samples=scored.sum(),
        score=pl.col("score").filter(scored).mean(),
        raw_ratio=pl.col("raw_ratio").filter(scored).mean(),
        n_criteria=pl.col("n_criteria").max(),
        n_pos=pl.col("n_pos").max(),
        n_neg=pl.col("n_neg").max(),
        n_pos_met=pl.col("n_pos_met").filter(scored).mean(),
        n_neg_triggered=pl.col("n_neg_triggered").filter(scored).mean(),
        n_unscored=pl.col("n_unscored").sum(),
    )
    return pooled.with_columns(
        sample=pl.lit(0, dtype=pl.Int64),
        status=pl.when(pl.col("n_scored_samples") > 0).then(pl.lit(STATUS_SCORED))
        .otherwise(pl.lit(STATUS_EXCLUDED)),
    ).sort(["model", "mode", "judge", "case_id"])


def primary_judge(case_scores: pl.DataFrame, wanted: str | None) -> str:
    judges = case_scores["judge"].unique().sort().to_list()
    if wanted is not None:
        if wanted not in judges:
            raise ValueError(f"report.primary_judge={wanted!r} graded none of the runs; judges: {judges}")
        return wanted
    counts = case_scores.select("judge", "model", "mode").unique().group_by("judge").len()
    return counts.sort(["len", "judge"], descending=[True, False])["judge"][0]


def entry_labels(frame: pl.DataFrame) -> pl.Expr:
    """``model`` alone when the frame has one mode, else ``model (mode)``: the row label of a figure."""
    if frame["mode"].n_unique() <= 1:
        return pl.col("model").alias("entry")
    return pl.format("{} ({})", pl.col("model"), pl.col("mode")).alias("entry")


# --- the tables ------------------------------------------------------------------------------------

def leaderboard(pooled: pl.DataFrame, opts: ReportOptions) -> pl.DataFrame:
    """Score with its interval per model x mode x judge, the Figure-4 decomposition, and a rank
    within judge x mode that leaves the anchor out."""
    summary = summarize(pooled, **opts.boot).drop("sample")
    scored = pl.col("status") == STATUS_SCORED
    extra = pooled.group_by(["model", "mode", "judge"]).agg(
        samples=pl.col("n_samples").max(),
        mean_n_pos=pl.col("n_pos").filter(scored).mean(),
        mean_n_neg=pl.col("n_neg").filter(scored).mean(),
        pos_met_rate=pl.col("n_pos_met").filter(scored).sum() / pl.col("n_pos").filter(scored).sum(),
        neg_triggered_rate=pl.col("n_neg_triggered").filter(scored).sum()
        / pl.col("n_neg").filter(scored).sum(),
    ).with_columns(pl.col("pos_met_rate", "neg_triggered_rate").fill_nan(None))
    board = summary.join(extra, on=["model", "mode", "judge"], how="left")
    board = board.with_columns(anchor=pl.col("model") == opts.anchor)
    ranks = (board.filter(~pl.col("anchor"))
             .with_columns(rank=pl.col("score").rank(method="min", descending=True).over(["judge", "mode"])
                           .cast(pl.Int64))
             .select("model", "mode", "judge", "rank"))
    board = board.join(ranks, on=["model", "mode", "judge"], how="left")
    cols = ["judge", "mode", "rank", "model", "anchor", "score", "ci_low", "ci_high", "n_cases", "n_scored",
            "n_excluded", "samples", "mean_pos_met", "mean_n_pos", "pos_met_rate", "mean_neg_triggered",
            "mean_n_neg", "neg_triggered_rate", "score_clip_mean_only", "n_unscored_verdicts"]
    return board.select(cols).sort(["judge", "mode", "score"], descending=[False, False, True], nulls_last=True)


def overall(board: pl.DataFrame) -> pl.DataFrame:
    """The paper's Figure 4(a): every model once, at its best available modality (multimodal when it
    ran with images, else text-only), ranked within each judge; the anchor is shown, not ranked."""
    pick = (board.with_columns(_pref=(pl.col("mode") == MULTIMODAL).cast(pl.Int8))
            .sort(["judge", "model", "_pref"], descending=[False, False, True])
            .unique(subset=["judge", "model"], keep="first", maintain_order=True).drop("_pref"))
    ranks = (pick.filter(~pl.col("anchor"))
             .with_columns(overall_rank=pl.col("score").rank(method="min", descending=True).over("judge").cast(pl.Int64))
             .select("judge", "model", "overall_rank"))
    out = pick.join(ranks, on=["judge", "model"], how="left")
    cols = ["judge", "overall_rank", "model", "mode", "anchor", "score", "ci_low", "ci_high", "n_scored", "n_excluded"]
    return out.select(cols).sort(["judge", "score"], descending=[False, True], nulls_last=True)


def dataset_stats(case_scores: pl.DataFrame) -> pl.DataFrame:
    """The paper's Figure 3 for the cases of this report: how many cases per department, intent and
    stage, and the distribution of images, turns and criteria (positive/negative) per case."""
    cases = case_scores.unique(subset=["case_id"], keep="first").sort("case_id")
    n = cases.height
    rows: list[dict[str, object]] = []
    for dim in ("department", "intent", "stage", "n_images", "n_turns", "n_criteria", "n_pos", "n_neg"):
        if dim not in cases.columns:
            continue
        counts = cases.group_by(dim).len().sort(["len", dim], descending=[True, False], nulls_last=True)
        for value, k in counts.iter_rows():
            rows.append({"dimension": dim, "value": "–" if value is None else str(value), "cases": int(k),
                         "share": k / n if n else None})
    for dim in ("n_images", "n_turns", "n_criteria", "n_pos", "n_neg"):
        if dim in cases.columns and n:
            col = cases[dim]
            rows.append({"dimension": f"{dim} (mean, min-max)", "value": f"{col.mean():.2f} ({col.min()}-{col.max()})",
                         "cases": n, "share": None})
    return pl.DataFrame(rows, schema={"dimension": pl.String, "value": pl.String, "cases": pl.Int64,
                                      "share": pl.Float64})


def ablation(case_scores: pl.DataFrame, opts: ReportOptions) -> pl.DataFrame:
    """Multimodal minus text-only per model, on the cases both modes scored, with a paired interval."""
    modes = set(case_scores["mode"].unique().to_list())
    if not {MULTIMODAL, TEXT} <= modes:
        return pl.DataFrame()
    out = paired_bootstrap_diff(case_scores, MULTIMODAL, TEXT, column="mode", by=("model", "judge"),
                                **opts.boot)
    return out.filter(pl.col("n_cases") > 0)


def breakdown_tables(pooled: pl.DataFrame, opts: ReportOptions) -> dict[str, pl.DataFrame]:
    out: dict[str, pl.DataFrame] = {}
    for dim in opts.dims:
        if dim not in pooled.columns or pooled[dim].null_count() == pooled.height:
            log.info("breakdown by %s skipped: no case has a value", dim)
            continue
        edges = opts.edges.get(dim)
        table = breakdown(pooled, dim, edges=list(edges) if edges else None, **opts.boot).drop("sample")
        out[dim] = table.with_columns(small_n=pl.col("n_scored") < opts.min_n)
    return out


def heatmap_cells(table: pl.DataFrame, dim: str, order: Sequence[str], *, bucketed: bool = False) -> pl.DataFrame:
    """The cells of a model x ``dim`` heatmap: rows in leaderboard order (``order`` of entry labels),
    columns by descending case count (the biggest groups first), or in bucket order when ``bucketed``."""
    cells = table.with_columns(entry_labels(table), pl.col(dim).cast(pl.String).fill_null("(none)"))
    rank = {e: i for i, e in enumerate(order)}
    cells = cells.with_columns(_r=pl.col("entry").replace_strict(rank, default=len(rank), return_dtype=pl.Int64))
    if bucketed:
        col_order = cells.select(dim).unique().sort(dim)
    else:
        col_order = (cells.group_by(dim).agg(_n=pl.col("n_cases").max())
                     .sort(["_n", dim], descending=[True, False]).select(dim))
    col_rank = {v: i for i, v in enumerate(col_order[dim].to_list())}
    cells = cells.with_columns(_c=pl.col(dim).replace_strict(col_rank, return_dtype=pl.Int64))
    return cells.sort(["_r", "entry", "_c"]).drop("_r", "_c")


def model_pairs(board: pl.DataFrame, opts: ReportOptions) -> list[tuple[str, str]]:
    """Pairs to compare: configured, or every pair in leaderboard order (better model first)."""
    if opts.pairs:
        return [tuple(p) for p in opts.pairs]  # type: ignore[misc]
    order = (board.group_by("model").agg(pl.col("score").max()).sort(["score", "model"], descending=[True, False],
                                                                      nulls_last=True)["model"].to_list())
    pairs = list(itertools.combinations(order, 2))
    if len(pairs) > opts.max_pairs:
        log.info("comparing the first %d of %d model pairs (report.max_pairs)", opts.max_pairs, len(pairs))
    return pairs[:opts.max_pairs]


def paired_comparisons(case_scores: pl.DataFrame, pairs: Sequence[tuple[str, str]],
                       opts: ReportOptions) -> pl.DataFrame:
    present = set(case_scores["model"].unique().to_list())
    frames = []
    for a, b in pairs:
        missing = [m for m in (a, b) if m not in present]
        if missing:
            raise ValueError(f"report.pairs names model(s) {missing} that no run of the report has; "
                             f"models: {sorted(present)}")
        frames.append(paired_bootstrap_diff(case_scores, a, b, by=("mode", "judge"), **opts.boot))
    if not frames:
        return pl.DataFrame()
    return pl.concat(frames).filter(pl.col("n_cases") > 0)


def worst_k_table(case_scores: pl.DataFrame, opts: ReportOptions) -> pl.DataFrame:
    k_max = int(case_scores.group_by(["model", "mode", "judge", "case_id"]).len()["len"].max() or 0)
    if k_max < 2:
        return pl.DataFrame()
    ks = list(opts.worst_k) if opts.worst_k else list(range(1, k_max + 1))
    return worst_of_k(case_scores, ks, **opts.boot)


# --- judges -----------------------------------------------------------------------------------------

_JUDGE_COLS = ["judge", *ITEM_COLS, "met", "status", "weight"]


def judge_health(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Per judge and criterion polarity: how often it gave no usable verdict, needed retries, and
    said "met" -- a judge that says "met" to nearly everything is as suspect as one that never does."""
    polarity = pl.when(pl.col("weight") > 0).then(pl.lit("positive")).otherwise(pl.lit("negative"))
    frame = verdicts.with_columns(polarity=polarity,
                                  _attempts=pl.col("attempts") if "attempts" in verdicts.columns else pl.lit(1))
    scored = pl.col("status") == STATUS_SCORED
    aggs = dict(
        n_verdicts=pl.len(),
        n_unscored=(~scored).sum(),
        unscored_rate=(~scored).mean(),
        n_retried=(pl.col("_attempts") > 1).sum(),
        retry_rate=(pl.col("_attempts") > 1).mean(),
        mean_attempts=pl.col("_attempts").mean(),
        met_rate=pl.col("met").filter(scored).cast(pl.Float64).mean(),
    )
    by_pol = frame.group_by(["judge", "polarity"]).agg(**aggs)
    overall = frame.group_by("judge").agg(**aggs).with_columns(polarity=pl.lit("all"))
    out = pl.concat([overall.select(by_pol.columns), by_pol])
    order = {"all": 0, "positive": 1, "negative": 2}
    return out.with_columns(_o=pl.col("polarity").replace_strict(order, return_dtype=pl.Int64)).sort(
        ["judge", "_o"]).drop("_o")


def physician_verdicts(labels: pl.DataFrame, verdicts: pl.DataFrame) -> pl.DataFrame:
    """Physician labels as verdict rows (weights from the judges' rows), for cases whose every
    criterion the physicians labelled, so that their case scores are comparable."""
    weights = verdicts.select("case_id", "criterion_id", "weight").unique()
    rows = labels.join(weights, on=["case_id", "criterion_id"], how="inner")
    per_case = weights.group_by("case_id").len().rename({"len": "_n"})
    labelled = rows.group_by([c for c in ITEM_COLS if c != "criterion_id"]).len().join(per_case, on="case_id")
    complete = labelled.filter(pl.col("len") == pl.col("_n")).drop("len", "_n")
    return rows.join(complete, on=complete.columns, how="inner").with_columns(judge=pl.lit(PHYSICIAN))


def judge_scores(case_scores: pl.DataFrame, physician_scores: pl.DataFrame | None) -> pl.DataFrame:
    """Mean score per judge (and the physicians) on the replies every one of them scored."""
    frames = [case_scores.select("model", "mode", "judge", "sample", "case_id", "score", "status")]
    if physician_scores is not None and physician_scores.height:
        frames.append(physician_scores.select(frames[0].columns))
    frame = pl.concat(frames, how="vertical_relaxed").filter(pl.col("status") == STATUS_SCORED)
    raters = frame.group_by("model", "mode").agg(_k=pl.col("judge").n_unique())
    items = frame.group_by("model", "mode", "sample", "case_id").agg(_k=pl.col("judge").n_unique())
    common = items.join(raters, on=["model", "mode"], suffix="_all").filter(pl.col("_k") == pl.col("_k_all"))
    common = common.filter(pl.col("_k") >= 2).select("model", "mode", "sample", "case_id")
    if not common.height:
        return pl.DataFrame()
    out = frame.join(common, on=["model", "mode", "sample", "case_id"]).group_by("model", "mode", "judge").agg(
        n_cases=pl.len(), score=pl.col("score").mean())
    return out.sort(["model", "mode", "judge"])


def judge_tables(runs: RunSet, labels: pl.DataFrame | None, opts: ReportOptions) -> dict[str, pl.DataFrame]:
    v = runs.verdicts
    tables = {"judge_health": judge_health(v)}
    rater_frames = [v.select(_JUDGE_COLS)]
    physician_scores = None
    if labels is not None:
        rater_frames.append(labels)
        pv = physician_verdicts(labels, v)
        if pv.height:
            case_attrs = runs.case_scores.select("case_id", *attribute_columns(runs.case_scores)).unique("case_id")
            physician_scores = score_cases(pv.select(_JUDGE_COLS), case_attrs,
                                           attributes=[c for c in case_attrs.columns if c != "case_id"])
            tables["physician_case_scores"] = physician_scores
        else:
            log.warning("no case has physician labels on every criterion; no physician score")
    n_raters = len(runs.judges) + (labels is not None)
    if n_raters >= 2:
        agree = agreement_table(pl.concat(rater_frames, how="diagonal_relaxed"), confidence=opts.ci)
        tables["judge_agreement"] = agree.filter(pl.col("n") + pl.col("n_unscored") > 0)
        scores = judge_scores(runs.case_scores, physician_scores)
        if scores.height:
            tables["judge_scores"] = scores
    return tables


# --- all ----------------------------------------------------------------------------------------------

def build_tables(runs: RunSet, opts: ReportOptions, *, labels: pl.DataFrame | None = None) -> dict[str, pl.DataFrame]:
    """Every report table by name; empty analyses (one mode, one sample, one judge) are left out."""
    judge = primary_judge(runs.case_scores, opts.primary_judge)
    pooled_all = pool_samples(runs.case_scores)
    tables: dict[str, pl.DataFrame] = {"leaderboard": leaderboard(pooled_all, opts)}
    tables["overall"] = overall(tables["leaderboard"])
    tables["dataset"] = dataset_stats(runs.case_scores)
    primary = runs.case_scores.filter(pl.col("judge") == judge)
    pooled = pooled_all.filter(pl.col("judge") == judge)
    tables["ablation"] = ablation(primary, opts)
    for dim, table in breakdown_tables(pooled, opts).items():
        tables[f"by_{dim}"] = table
    tables["histogram"] = histogram(pooled, bin_width=opts.histogram_bin).drop("sample")
    board = tables["leaderboard"].filter(pl.col("judge") == judge)
    tables["paired"] = paired_comparisons(primary, model_pairs(board, opts), opts)
    tables["worst_of_k"] = worst_k_table(runs.case_scores, opts)
    tables.update(judge_tables(runs, labels, opts))
    return {name: t for name, t in tables.items() if t.height}
