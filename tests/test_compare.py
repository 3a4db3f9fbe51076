"""Paired model comparison and worst-of-k, against naive loops and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest

from medrealmm.scoring.compare import expected_min, min_weights, paired_bootstrap_diff, worst_of_k


def scores_frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"model": pl.String, "mode": pl.String, "judge": pl.String,
                                      "sample": pl.Int64, "case_id": pl.String, "score": pl.Float64,
                                      "status": pl.String})


def row(model, case, score, *, judge="j", sample=0, mode="multimodal"):
    status = "scored" if score is not None else "excluded_unscored"
    return {"model": model, "mode": mode, "judge": judge, "sample": sample, "case_id": case,
            "score": score, "status": status}


def two_models(rng: np.random.Generator, n: int = 40) -> tuple[pl.DataFrame, dict, dict]:
    """Models a and b on n shared cases (b worse), plus a case each only one has, and an exclusion."""
    base = rng.random(n)
    a = {f"case-{i:03d}": float(np.clip(base[i] + 0.1 * rng.standard_normal(), 0, 1)) for i in range(n)}
    b = {f"case-{i:03d}": float(np.clip(base[i] - 0.15 + 0.1 * rng.standard_normal(), 0, 1))
         for i in range(n)}
    b["case-005"] = None             # excluded for b: not a pair
    a["only-a"] = 0.9
    b["only-b"] = 0.1
    rows = [row("a", c, s) for c, s in a.items()] + [row("b", c, s) for c, s in b.items()]
    rows.reverse()                   # input order must not matter
    return scores_frame(rows), a, b


def naive_paired(a: dict, b: dict, n_boot: int, seed: int, ci: float):
    cases = sorted(c for c in a if c in b and a[c] is not None and b[c] is not None)
    d = np.array([a[c] - b[c] for c in cases])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(d), size=(n_boot, len(d)))
    reps = np.array([d[idx[r]].mean() for r in range(n_boot)])
    alpha = (1 - ci) / 2
    low, high = np.quantile(reps, [alpha, 1 - alpha])
    return len(cases), float(d.mean()), float(low), float(high), float(np.mean(reps <= 0))


def test_paired_bootstrap_matches_naive_loop_and_is_seeded():
    df, a, b = two_models(np.random.default_rng(3))
    out = paired_bootstrap_diff(df, "a", "b", n_boot=500, seed=11, ci=0.9)
    assert out.height == 1
    r = out.row(0, named=True)
    n, diff, low, high, share = naive_paired(a, b, 500, 11, 0.9)
    assert (r["n_cases"], r["n_only_a"], r["n_only_b"]) == (n, 2, 1) == (39, 2, 1)
    assert r["diff"] == pytest.approx(diff, abs=1e-12)
    assert r["diff"] == pytest.approx(r["mean_a"] - r["mean_b"], abs=1e-12)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert r["share_le_0"] == share
    assert r["ci_low"] < r["diff"] < r["ci_high"]
    assert r["diff"] > 0 and r["share_le_0"] < 0.05          # b was built worse
    assert (r["mode"], r["judge"], r["sample"]) == ("multimodal", "j", 0)

    again = paired_bootstrap_diff(df.sample(fraction=1.0, shuffle=True, seed=1), "a", "b",
                                  n_boot=500, seed=11, ci=0.9)
    assert again.equals(out)
    other = paired_bootstrap_diff(df, "a", "b", n_boot=500, seed=12, ci=0.9).row(0, named=True)
    assert other["diff"] == r["diff"] and other["ci_low"] != r["ci_low"]
    swapped = paired_bootstrap_diff(df, "b", "a", n_boot=500, seed=11, ci=0.9).row(0, named=True)
    assert swapped["diff"] == pytest.approx(-r["diff"])


def test_paired_bootstrap_groups_and_sample_averaging():
    rows = []
    for judge, shift in (("j1", 0.2), ("j2", -0.1)):
        for i in range(10):
            for s in range(2):
                rows.append(row("a", f"c{i}", 0.5 + shift + 0.01 * s, judge=judge, sample=s))
                rows.append(row("b", f"c{i}", 0.5, judge=judge, sample=s))
    df = scores_frame(rows)
    per_sample = paired_bootstrap_diff(df, "a", "b", n_boot=200)
    assert per_sample.select("judge", "sample").rows() == [("j1", 0), ("j1", 1), ("j2", 0), ("j2", 1)]
    assert per_sample["diff"].to_list() == pytest.approx([0.2, 0.21, -0.1, -0.09])
    assert per_sample["share_le_0"].to_list() == [0.0, 0.0, 1.0, 1.0]
    pooled = paired_bootstrap_diff(df, "a", "b", by=("judge",), n_boot=200)
    assert pooled["n_cases"].to_list() == [10, 10]          # cases, not case x sample
    assert pooled["diff"].to_list() == pytest.approx([0.205, -0.095])
    # A constant difference has a zero-width interval.
    assert (pooled["ci_low"] - pooled["diff"]).abs().max() < 1e-12
    overall = paired_bootstrap_diff(df, "a", "b", by=(), n_boot=200)
    assert overall.columns[0] == "model_a" and overall["n_cases"].to_list() == [10]


def test_paired_bootstrap_counts_zero_differences_as_le_0():
    # Differences 1, -1, 0, 0, 0: many replicates have a mean of exactly 0, which share_le_0 counts.
    a = {f"c{i}": v for i, v in enumerate([1.0, 0.0, 0.5, 0.5, 0.2])}
    b = {f"c{i}": v for i, v in enumerate([0.0, 1.0, 0.5, 0.5, 0.2])}
    df = scores_frame([row("a", c, s) for c, s in a.items()] + [row("b", c, s) for c, s in b.items()])
    r = paired_bootstrap_diff(df, "a", "b", n_boot=400, seed=2).row(0, named=True)
    n, diff, low, high, share = naive_paired(a, b, 400, 2, 0.95)
    assert r["share_le_0"] == share and 0.5 < share < 1.0
    assert r["diff"] == diff == 0.0
    same = paired_bootstrap_diff(df.filter(pl.col("model") == "a").vstack(
        df.filter(pl.col("model") == "a").with_columns(model=pl.lit("b"))), "a", "b").row(0, named=True)
    assert (same["diff"], same["ci_low"], same["ci_high"], same["share_le_0"]) == (0.0, 0.0, 0.0, 1.0)


def test_paired_bootstrap_no_shared_cases_and_errors():
    df = scores_frame([row("a", "x", 0.5), row("b", "y", 0.4)])
    r = paired_bootstrap_diff(df, "a", "b").row(0, named=True)
    assert (r["n_cases"], r["n_only_a"], r["n_only_b"], r["diff"]) == (0, 1, 1, None)
    with pytest.raises(ValueError, match=r"\['c'\] not in case_scores"):
        paired_bootstrap_diff(df, "a", "c")
    with pytest.raises(ValueError, match="two different"):
        paired_bootstrap_diff(df, "a", "a")
    dup = scores_frame([row("a", "x", 0.5), row("a", "x", 0.6), row("b", "x", 0.4)])
    with pytest.raises(ValueError, match="repeats"):
        paired_bootstrap_diff(dup, "a", "b")


def brute_force_worst(scores: list[float], k: int) -> float:
    subsets = list(itertools.combinations(scores, k))
    return sum(min(s) for s in subsets) / len(subsets)


def test_min_weights_and_expected_min_by_brute_force():
    rng = np.random.default_rng(0)
    for m in range(1, 8):
        for k in range(1, m + 1):
            w = min_weights(m, k)
            assert w.sum() == pytest.approx(1.0, abs=1e-15)
            vals = rng.choice([0.0, 0.25, 0.5, 1.0], size=m).tolist()   # with ties
            assert expected_min(vals, k) == pytest.approx(brute_force_worst(vals, k), abs=1e-14)
    assert expected_min([0.3, 0.9, 0.1], 3) == 0.1
    with pytest.raises(ValueError):
        min_weights(3, 4)


@pytest.mark.parametrize("seed", range(4))
def test_worst_of_k_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    rows, by_case = [], {}
    for model in ("a", "b"):
        for i in range(12):
            m = int(rng.integers(1, 7))
            for s in range(m):
                sc = None if rng.random() < 0.1 else float(rng.choice([0.0, 0.2, 0.5, 0.8, 1.0]))
                rows.append(row(model, f"c{i:02d}", sc, sample=s))
                if sc is not None:
                    by_case.setdefault((model, f"c{i:02d}"), []).append(sc)
    df = scores_frame(rows)
    out = worst_of_k(df, [1, 2, 3, 4], n_boot=200, seed=5)
    assert out.select("model", "k").rows() == [(m, k) for m in ("a", "b") for k in (1, 2, 3, 4)]
    for r in out.iter_rows(named=True):
        cases = {c: v for (m, c), v in by_case.items() if m == r["model"]}
        eligible = [v for v in cases.values() if len(v) >= r["k"]]
        assert (r["n_cases"], r["n_cases_short"]) == (len(eligible), len(cases) - len(eligible))
        if not eligible:
            assert r["worst_at_k"] is None
            continue
        expect = float(np.mean([brute_force_worst(v, r["k"]) for v in eligible]))
        assert r["worst_at_k"] == pytest.approx(expect, abs=1e-12)
        assert r["mean_score"] == pytest.approx(float(np.mean([np.mean(v) for v in eligible])), abs=1e-12)
        assert r["worst_at_k"] <= r["mean_score"] + 1e-12
        assert r["ci_low"] <= r["worst_at_k"] <= r["ci_high"]
        if r["k"] == 1:
            assert r["worst_at_k"] == pytest.approx(r["mean_score"], abs=1e-12)
    again = worst_of_k(df.sample(fraction=1.0, shuffle=True, seed=3), [1, 2, 3, 4], n_boot=200, seed=5)
    assert again.equals(out)


def test_worst_of_k_with_k1_is_the_plain_mean():
    rng = np.random.default_rng(9)
    rows = [row("a", f"c{i}", float(rng.random()), sample=s) for i in range(20) for s in range(4)]
    df = scores_frame(rows)
    r1 = worst_of_k(df, 1, n_boot=0).row(0, named=True)
    assert r1["worst_at_k"] == pytest.approx(df["score"].mean(), abs=1e-12)
    assert r1["ci_low"] is None
    r4 = worst_of_k(df, 4, n_boot=0).row(0, named=True)
    mins = df.group_by("case_id").agg(pl.col("score").min())["score"].mean()
    assert r4["worst_at_k"] == pytest.approx(mins, abs=1e-12)   # k = m: the plain minimum
    assert r4["worst_at_k"] < r1["worst_at_k"]
    r5 = worst_of_k(df, 5, n_boot=0).row(0, named=True)
    assert (r5["n_cases"], r5["n_cases_short"], r5["worst_at_k"]) == (0, 20, None)
    with pytest.raises(ValueError, match="positive integer"):
        worst_of_k(df, 0)
    assert not math.isnan(r1["mean_score"])
