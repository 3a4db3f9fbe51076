"""Case and benchmark scores: the MedRealMM formula, Polars aggregation and bootstrap intervals.

Pure code: no GPU, no engine imports. ``score_cases`` turns verdicts into case scores,
``summarize`` / ``breakdowns`` / ``histogram`` turn those into the reported tables.
"""

from medrealmm.scoring.aggregate import (
    DEFAULT_DIMS,
    DEFAULT_EDGES,
    breakdown,
    breakdowns,
    bucket_expr,
    bucket_labels,
    histogram,
    summarize,
)
from medrealmm.scoring.agreement import (
    AC1Result,
    agreement_table,
    cohen_kappa,
    gwet_ac1,
    gwet_ac1_raters,
    macro_f1,
    physician_labels,
    raw_agreement,
)
from medrealmm.scoring.compare import paired_bootstrap_diff, worst_of_k
from medrealmm.scoring.bootstrap import (
    bootstrap_mean_ci,
    resample_counts,
    resample_indices,
    stratified_bootstrap_ci,
)
from medrealmm.scoring.score import (
    CASE_ATTRIBUTES,
    POLICIES,
    RUN_KEY,
    UnscoredPolicy,
    UnscoredVerdictError,
    case_score,
    case_score_expr,
    clip_score,
    points_earned,
    points_possible,
    raw_ratio,
    score_cases,
)

__all__ = [
    "AC1Result", "agreement_table", "cohen_kappa", "gwet_ac1", "gwet_ac1_raters", "macro_f1", "paired_bootstrap_diff",
    "physician_labels", "raw_agreement", "worst_of_k",
    "CASE_ATTRIBUTES", "DEFAULT_DIMS", "DEFAULT_EDGES", "POLICIES", "RUN_KEY", "UnscoredPolicy",
    "UnscoredVerdictError", "bootstrap_mean_ci", "breakdown", "breakdowns", "bucket_expr",
    "bucket_labels", "case_score", "case_score_expr", "clip_score", "histogram", "points_earned",
    "points_possible", "raw_ratio", "resample_counts", "resample_indices", "score_cases",
    "stratified_bootstrap_ci", "summarize",
]
