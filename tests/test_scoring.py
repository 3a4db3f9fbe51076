"""The scoring core: the formula, unscored policies, aggregation, bootstrap and buckets."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from medrealmm.scoring import (
    UnscoredVerdictError,
    bootstrap_mean_ci,
    breakdown,
    breakdowns,
    bucket_expr,
    bucket_labels,
    case_score,
    case_score_expr,
    clip_score,
    histogram,
    resample_counts,
    resample_indices,
    score_cases,
    stratified_bootstrap_ci,
    summarize,
)

RUN = {"model": "m", "mode": "multimodal", "judge": "j", "sample": 0}


def verdicts(rows: list[tuple], **run: object) -> pl.DataFrame:
    """Rows of (case_id, criterion_id, weight, met); met None means unscored."""
    key = {**RUN, **run}
    return pl.DataFrame(
        [{**key, "case_id": c, "criterion_id": k, "weight": w, "met": m,
          "status": "unscored" if m is None else "scored"} for c, k, w, m in rows],
        schema={"model": pl.String, "mode": pl.String, "judge": pl.String, "sample": pl.Int64,
                "case_id": pl.String, "criterion_id": pl.String, "weight": pl.Int64,
                "met": pl.Boolean, "status": pl.String})


def cases_for(ids: list[str], **cols: list) -> pl.DataFrame:
    n = len(ids)
    base = {"case_id": ids, "department": ["derm"] * n, "intent": ["diagnosis"] * n,
            "stage": ["assessment"] * n, "n_images": [1] * n, "n_turns": [6] * n}
    base.update(cols)
    return pl.DataFrame(base)


def reference_score(weights: list[int], met: list[bool]) -> float:
    """Independent oracle: the paper's formula written out in plain Python."""
    earned = sum(w for w, v in zip(weights, met, strict=True) if v)
    possible = sum(w for w in weights if w > 0)
    return min(1.0, max(0.0, earned / possible))


# --- the formula ---------------------------------------------------------------------------------

@pytest.mark.parametrize("weights, met, expected", [
    ([3, 2], [True, True], 1.0),                       # all positive met
    ([5, 5, -2], [True, True, True], 0.8),             # all met, including a negative
    ([5, 3, -2], [True, False, True], 0.375),          # partial: (5 - 2) / 8
    ([5, -8], [False, True], 0.0),                     # negative only: -8/5 clipped at 0
    ([5, -8], [True, True], 0.0),                      # -3/5 clipped at 0
    ([4, 4, -2], [True, False, False], 0.5),
    ([2, 3, -1], [False, False, False], 0.0),
    ([7], [True], 1.0),
])
def test_case_score_hand_computed(weights: list[int], met: list[bool], expected: float) -> None:
    assert case_score(weights, met) == pytest.approx(expected, abs=1e-12)


def test_clip_bounds_ratio_to_unit_interval() -> None:
    # A ratio above 1 cannot come from valid verdicts, so the upper clip is tested on the expression.
    out = pl.DataFrame({"r": [1.3, -0.4, 0.25]}).select(clip_score(pl.col("r")))["r"].to_list()
    assert out == [1.0, 0.0, 0.25]


def test_case_score_never_exceeds_one_when_all_positive_met() -> None:
    assert case_score([10, 1, -3], [True, True, False]) == 1.0


@pytest.mark.parametrize("weights, met, match", [
    ([3, 2], [True, None], "unscored"),
    ([-3, -2], [True, False], "no positive"),
    ([3, 2], [True], "2 weights but 1"),
])
def test_case_score_rejects_undefined_input(weights: list, met: list, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        case_score(weights, met)


def test_scalar_and_polars_agree_on_1000_random_cases() -> None:
    rng = random.Random(1234)
    rows, expected = [], {}
    for i in range(1000):
        k = rng.randint(1, 19)
        weights = [rng.choice([-1, 1]) * rng.randint(1, 10) for _ in range(k)]
        weights[rng.randrange(k)] = rng.randint(1, 10)  # at least one positive
        met = [rng.random() < 0.5 for _ in range(k)]
        cid = f"c{i:04d}"
        rows += [(cid, f"k{j}", w, v) for j, (w, v) in enumerate(zip(weights, met, strict=True))]
        expected[cid] = (case_score(weights, met), reference_score(weights, met))
    table = score_cases(verdicts(rows), cases_for(list(expected)))
    got = dict(zip(table["case_id"], table["score"], strict=True))
    assert len(got) == 1000
    for cid, (scalar, oracle) in expected.items():
        assert got[cid] == pytest.approx(scalar, abs=1e-12), cid
        assert scalar == pytest.approx(oracle, abs=1e-12), cid
    # The random cases hit both clips and the interior, so the comparison covers every branch.
    scores = np.array(list(got.values()))
    assert (scores == 0).sum() > 10 and (scores == 1).sum() > 10 and ((scores > 0) & (scores < 1)).sum() > 100


def test_case_score_expr_matches_score_cases_columns() -> None:
    v = verdicts([("a", "1", 5, True), ("a", "2", 3, False), ("a", "3", -4, True)])
    direct = v.select(case_score_expr()).item()
    row = score_cases(v, cases_for(["a"])).row(0, named=True)
    assert direct == row["score"] == pytest.approx(1 / 8)
    assert (row["points_earned"], row["points_possible"]) == (1, 8)
    assert (row["n_pos"], row["n_pos_met"], row["n_neg"], row["n_neg_triggered"]) == (2, 1, 1, 1)


# --- unscored policies ---------------------------------------------------------------------------

MIXED = [("a", "1", 4, True), ("a", "2", 4, False),           # 0.5
         ("b", "1", 2, True), ("b", "2", 4, None), ("b", "3", 2, False),  # one unscored positive
         ("c", "1", 3, True), ("c", "2", -1, False)]          # 1.0


def test_exclude_case_counts_the_case_and_averages_the_others() -> None:
    cs = score_cases(verdicts(MIXED), cases_for(["a", "b", "c"]))
    b = cs.filter(pl.col("case_id") == "b").row(0, named=True)
    assert b["score"] is None and b["raw_ratio"] is None
    assert b["status"] == "excluded_unscored" and b["n_unscored"] == 1
    s = summarize(cs, n_boot=50).row(0, named=True)
    assert (s["n_cases"], s["n_scored"], s["n_excluded"], s["n_unscored_verdicts"]) == (3, 2, 1, 1)
    assert s["score"] == pytest.approx(0.75)


def test_drop_criteria_recomputes_without_reading_unscored_as_0_or_1() -> None:
    cs = score_cases(verdicts(MIXED), cases_for(["a", "b", "c"]), policy="drop_criteria")
    b = cs.filter(pl.col("case_id") == "b").row(0, named=True)
    # Dropping gives 2/4; reading the unscored verdict as 0 would give 2/8, as 1 would give 6/8.
    assert b["score"] == pytest.approx(0.5)
    assert (b["points_earned"], b["points_possible"], b["status"]) == (2, 4, "scored")
    assert summarize(cs, n_boot=0)["score"].item() == pytest.approx((0.5 + 0.5 + 1.0) / 3)


def test_drop_criteria_excludes_a_case_with_no_scored_positive() -> None:
    v = verdicts([("a", "1", 4, None), ("a", "2", -2, True), ("b", "1", 1, True)])
    cs = score_cases(v, cases_for(["a", "b"]), policy="drop_criteria")
    assert cs["status"].to_list() == ["excluded_unscored", "scored"]
    assert cs["score"].to_list() == [None, 1.0]
    s = summarize(cs, n_boot=0).row(0, named=True)
    # Per-case criterion counts average over the scored case only, like the score.
    assert (s["mean_pos_met"], s["mean_neg_triggered"], s["n_excluded"]) == (1.0, 0.0, 1)


def test_unscored_status_wins_over_a_stray_met_value() -> None:
    v = verdicts([("a", "1", 4, True), ("a", "2", 4, None)]).with_columns(met=pl.lit(True))
    cs = score_cases(v, cases_for(["a"]), policy="drop_criteria")
    assert cs["points_earned"].item() == 4 and cs["points_possible"].item() == 4
    assert cs["n_unscored"].item() == 1 and cs["n_pos_met"].item() == 1


def test_fail_policy_names_case_and_criterion() -> None:
    with pytest.raises(UnscoredVerdictError, match=r"case 'b' criterion '2'") as err:
        score_cases(verdicts(MIXED), cases_for(["a", "b", "c"]), policy="fail")
    assert err.value.unscored["case_id"].to_list() == ["b"]


def test_fail_policy_passes_when_everything_is_scored() -> None:
    v = verdicts([r for r in MIXED if r[0] != "b"])
    assert score_cases(v, cases_for(["a", "c"]), policy="fail")["score"].to_list() == [0.5, 1.0]


@pytest.mark.parametrize("mutate, match", [
    (lambda v: v.with_columns(status=pl.lit("pending")), "status must be"),
    (lambda v: v.with_columns(met=pl.lit(None, pl.Boolean), status=pl.lit("scored")), "met = null"),
    (lambda v: pl.concat([v, v.head(1)]), "duplicate criterion"),
    (lambda v: v.with_columns(case_id=pl.lit("zzz")), "not in cases"),
    (lambda v: v.with_columns(weight=-pl.col("weight").abs()), "without a positive"),
])
def test_bad_verdict_tables_raise(mutate, match: str) -> None:
    v = verdicts([("a", "1", 4, True), ("a", "2", -1, False)])
    with pytest.raises(ValueError, match=match):
        score_cases(mutate(v), cases_for(["a"]))


def test_unknown_policy_raises() -> None:
    with pytest.raises(ValueError, match="unknown unscored policy"):
        score_cases(verdicts(MIXED), cases_for(["a", "b", "c"]), policy="zero")  # type: ignore[arg-type]


def test_empty_verdicts_give_empty_scores() -> None:
    cs = score_cases(verdicts([]), cases_for(["a"]))
    assert cs.height == 0 and {"score", "status", "department"} <= set(cs.columns)


# --- summaries -----------------------------------------------------------------------------------

def test_healthbench_convention_differs_from_per_case_clip() -> None:
    # Case a: -8/5 = -1.6 (clipped to 0); case b: 1.0. Per-case clip: 0.5; HealthBench: clip(-0.3) = 0.
    v = verdicts([("a", "1", 5, False), ("a", "2", -8, True), ("b", "1", 2, True)])
    s = summarize(score_cases(v, cases_for(["a", "b"])), n_boot=0).row(0, named=True)
    assert s["score"] == pytest.approx(0.5)
    assert s["score_clip_mean_only"] == pytest.approx(0.0)
    assert s["mean_pos_met"] == pytest.approx(0.5) and s["mean_neg_triggered"] == pytest.approx(0.5)


def test_samples_and_models_are_separate_run_keys_sorted() -> None:
    rows = [("a", "1", 2, True), ("b", "1", 2, False)]
    v = pl.concat([verdicts(rows, model="z", sample=1), verdicts(rows, model="z", sample=0),
                   verdicts(rows[:1], model="y")])
    s = summarize(score_cases(v, cases_for(["a", "b"])), n_boot=0)
    assert s.select("model", "sample").rows() == [("y", 0), ("z", 0), ("z", 1)]
    assert s["score"].to_list() == [1.0, 0.5, 0.5]


def random_table(seed: int, n_cases: int = 60, models: tuple[str, ...] = ("m1", "m2")
                 ) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(seed)
    rows_by_model: dict[str, list[tuple]] = {m: [] for m in models}
    for i in range(n_cases):
        k = rng.randint(3, 8)
        weights = [rng.randint(1, 9)] + [rng.choice([-1, 1]) * rng.randint(1, 9) for _ in range(k - 1)]
        for m in models:
            rows_by_model[m] += [(f"c{i:03d}", f"k{j}", w, rng.random() < 0.6) for j, w in enumerate(weights)]
    v = pl.concat([verdicts(r, model=m) for m, r in rows_by_model.items()])
    cases = cases_for([f"c{i:03d}" for i in range(n_cases)],
                      department=[rng.choice(["derm", "ent", "peds"]) for _ in range(n_cases)],
                      n_images=[rng.randint(1, 6) for _ in range(n_cases)],
                      n_turns=[rng.randint(2, 20) for _ in range(n_cases)])
    return v, cases


def test_outputs_do_not_depend_on_input_row_order() -> None:
    v, cases = random_table(7)
    cs1 = score_cases(v, cases)
    cs2 = score_cases(v.sample(fraction=1.0, shuffle=True, seed=3), cases.reverse())
    assert_frame_equal(cs1, cs2)
    assert_frame_equal(summarize(cs1, n_boot=200, seed=5), summarize(cs2, n_boot=200, seed=5))
    for dim, frame in breakdowns(cs1, n_boot=200, seed=5).items():
        assert_frame_equal(frame, breakdown(cs2, dim, n_boot=200, seed=5))


def test_summary_interval_is_the_bootstrap_of_the_case_scores() -> None:
    v, cases = random_table(11, models=("m1",))
    cs = score_cases(v, cases)
    s = summarize(cs, n_boot=300, seed=9, ci=0.9).row(0, named=True)
    low, high = bootstrap_mean_ci(cs.sort("case_id")["score"].to_numpy(), n_boot=300, seed=9, ci=0.9)
    assert (s["ci_low"], s["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert s["ci_low"] < s["score"] < s["ci_high"]


# --- bootstrap -----------------------------------------------------------------------------------

def test_bootstrap_is_stable_for_a_seed_and_contains_the_mean() -> None:
    values = np.random.default_rng(0).beta(2, 3, size=400)
    a = bootstrap_mean_ci(values, n_boot=1000, seed=42)
    assert a == bootstrap_mean_ci(values, n_boot=1000, seed=42)
    assert a != bootstrap_mean_ci(values, n_boot=1000, seed=43)
    assert a[0] < values.mean() < a[1]
    # A 95% interval of a mean of 400 values with sd ~0.2 is about +-0.02 wide; neither degenerate nor huge.
    assert 0.01 < a[1] - a[0] < 0.06
    narrower = bootstrap_mean_ci(values, n_boot=1000, seed=42, ci=0.5)
    assert a[0] < narrower[0] < narrower[1] < a[1]


def test_vectorised_bootstrap_matches_the_index_matrix_definition() -> None:
    values = np.random.default_rng(1).random(57)
    idx = resample_indices(57, 500, seed=3)
    assert idx.shape == (500, 57)
    means = values[idx].mean(axis=1)
    expected = np.quantile(means, [0.025, 0.975])
    assert bootstrap_mean_ci(values, n_boot=500, seed=3) == pytest.approx(tuple(expected), abs=1e-12)
    counts = resample_counts(57, 500, seed=3)
    assert (counts.sum(axis=1) == 57).all()
    assert (counts[7] == np.bincount(idx[7], minlength=57)).all()


def test_bootstrap_edge_cases() -> None:
    assert bootstrap_mean_ci([0.3], n_boot=100) == (0.3, 0.3)
    low, high = bootstrap_mean_ci([], n_boot=100)
    assert np.isnan(low) and np.isnan(high)
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_mean_ci([0.1, float("nan")])
    with pytest.raises(ValueError, match="ci must be"):
        bootstrap_mean_ci([0.1, 0.2], ci=1.5)


def test_stratified_bootstrap_strata_and_missing_columns() -> None:
    vals = np.array([[0.2, np.nan], [0.2, np.nan], [0.9, 0.5], [0.1, 0.7], [0.5, 0.6]])
    strata = np.array([0, 0, 1, 1, 1])
    low, high = stratified_bootstrap_ci(vals, strata, n_boot=400, seed=0)
    assert low.shape == (2, 2)
    assert (low[0, 0], high[0, 0]) == (0.2, 0.2)           # constant stratum
    assert np.isnan(low[0, 1]) and np.isnan(high[0, 1])    # no scores in that stratum/column
    assert 0.1 <= low[1, 0] < high[1, 0] <= 0.9


# --- breakdowns and buckets ----------------------------------------------------------------------

def test_bucket_labels_defaults_and_sorting() -> None:
    assert bucket_labels((1, 2, 3, 4)) == ["1", "2", "3", "4+"]
    assert bucket_labels((1, 5, 9, 13)) == ["01-04", "05-08", "09-12", "13+"]
    labels = bucket_labels((2, 10, 100))
    assert labels == ["002-009", "010-099", "100+"] and sorted(labels) == labels
    with pytest.raises(ValueError, match="strictly increasing"):
        bucket_labels((3, 3))


def test_bucket_edges_assign_the_boundaries() -> None:
    df = pl.DataFrame({"n_images": [0, 1, 2, 3, 4, 9, None],
                       "n_turns": [1, 4, 5, 8, 9, 12, 13]})
    got = df.select(bucket_expr("n_images", (1, 2, 3, 4)), bucket_expr("n_turns", (1, 5, 9, 13)))
    assert got["n_images"].to_list() == ["0", "1", "2", "3", "4+", "4+", None]
    assert got["n_turns"].to_list() == ["01-04", "01-04", "05-08", "05-08", "09-12", "09-12", "13+"]


def test_breakdown_by_buckets_and_custom_edges() -> None:
    v = verdicts([("a", "1", 2, True), ("b", "1", 2, False), ("c", "1", 2, True), ("d", "1", 2, True)])
    cases = cases_for(["a", "b", "c", "d"], n_images=[1, 4, 7, 2], n_turns=[4, 5, 13, 30])
    cs = score_cases(v, cases)
    img = breakdown(cs, "n_images", n_boot=100)
    assert img.select("n_images", "n_cases", "score").rows() == [("1", 1, 1.0), ("2", 1, 1.0),
                                                               ("4+", 2, 0.5)]
    turns = breakdown(cs, "n_turns", n_boot=0)
    assert turns.select("n_turns", "score").rows() == [("01-04", 1.0), ("05-08", 0.0), ("13+", 1.0)]
    custom = breakdowns(cs, dims=("n_turns",), edges={"n_turns": (1, 10)}, n_boot=0)["n_turns"]
    assert custom.select("n_turns", "n_cases").rows() == [("01-09", 2), ("10+", 2)]


def test_breakdown_means_and_intervals_per_group() -> None:
    v, cases = random_table(3)
    cs = score_cases(v, cases)
    dept = breakdown(cs, "department", n_boot=300, seed=1)
    assert dept.height == 2 * 3
    direct = cs.group_by("model", "department").agg(pl.col("score").mean()).sort("model", "department")
    assert dept["score"].to_list() == pytest.approx(direct["score"].to_list(), abs=1e-12)
    assert (dept["ci_low"] <= dept["score"]).all() and (dept["score"] <= dept["ci_high"]).all()
    assert dept["n_cases"].sum() == cs.height


def test_histogram_bins() -> None:
    v = verdicts([("a", "1", 20, True), ("a", "2", 80, False),   # 0.2 -> bin 4
                  ("b", "1", 3, True), ("b", "2", 17, False),    # 0.15 -> bin 3
                  ("c", "1", 1, True)])                          # 1.0 -> last bin
    h = histogram(score_cases(v, cases_for(["a", "b", "c"])))
    assert h.height == 20
    assert h.filter(pl.col("n") > 0)["bin"].to_list() == [3, 4, 19]
    assert h["fraction"].sum() == pytest.approx(1.0)


def test_histogram_puts_exact_bin_edges_in_the_upper_bin() -> None:
    # 29/100 * 100 is 28.999... in floating point; the score belongs in bin 29 of 1% bins.
    v = verdicts([("a", "1", 29, True), ("a", "2", 71, False)])
    h = histogram(score_cases(v, cases_for(["a"])), bin_width=0.01)
    assert h.height == 100 and h.filter(pl.col("n") > 0)["bin"].to_list() == [29]
    with pytest.raises(ValueError, match="whole bins"):
        histogram(score_cases(v, cases_for(["a"])), bin_width=0.3)
