"""Judge agreement statistics, checked against irrCAC, scikit-learn, scipy and hand computation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.stats as stats
import sklearn.metrics as skm
from irrCAC import raw as irr

from medrealmm.scoring.agreement import (
    AC1Result,
    agreement_table,
    cohen_kappa,
    f1_by_class,
    gwet_ac1,
    macro_f1,
    paired_counts,
    physician_labels,
    raw_agreement,
    t_quantile,
)


def irrcac_gwet(a: np.ndarray, b: np.ndarray, confidence: float = 0.95) -> dict:
    """irrCAC's two-rater AC1 on binary ratings, unrounded (categories fixed to 0/1)."""
    frame = pd.DataFrame({"a": np.asarray(a, dtype=float), "b": np.asarray(b, dtype=float)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irr.CAC(frame, categories=[0.0, 1.0], confidence_level=confidence, digits=15).gwet()["est"]


def assert_matches_irrcac(a, b, confidence: float = 0.95) -> AC1Result:
    ours = gwet_ac1(a, b, confidence=confidence)
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = ~np.isnan(x) & ~np.isnan(y)
    ref = irrcac_gwet(x[keep], y[keep], confidence)
    assert ours.n == int(keep.sum())
    assert ours.ac1 == pytest.approx(ref["coefficient_value"], abs=1e-12)
    assert ours.pa == pytest.approx(ref["pa"], abs=1e-12)
    assert ours.pe == pytest.approx(ref["pe"], abs=1e-12)
    # irrCAC replaces a zero standard error by 1e-15 and does not cap the lower bound at -1.
    assert ours.se == pytest.approx(ref["se"], abs=2e-15)
    assert ours.variance == pytest.approx(ours.se ** 2, rel=1e-12, abs=1e-30)
    low, high = ref["confidence_interval"]
    assert ours.ci_low == pytest.approx(max(-1.0, low), abs=1e-10)
    assert ours.ci_high == pytest.approx(high, abs=1e-10)
    return ours


def random_pair(rng: np.random.Generator, n: int, prevalence: float, agree: float):
    a = (rng.random(n) < prevalence).astype(int)
    b = np.where(rng.random(n) < agree, a, 1 - a)
    return a, b


@pytest.mark.parametrize("seed", range(8))
def test_ac1_equals_irrcac_on_random_ratings(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([4, 12, 60, 400]))
    a, b = random_pair(rng, n, prevalence=rng.uniform(0.05, 0.95), agree=rng.uniform(0.3, 1.0))
    res = assert_matches_irrcac(a, b, confidence=float(rng.choice([0.9, 0.95, 0.99])))
    assert res.ci_low <= res.ac1 <= res.ci_high


def test_ac1_hand_made_and_degenerate_sets():
    # 10 items: 4 both met, 3 both not, 2 a-only, 1 b-only. pa = 0.7; pi = (6 + 5) / 20 = 0.55;
    # pe = 2 * 0.55 * 0.45 = 0.495; AC1 = (0.7 - 0.495) / 0.505.
    a = [1, 1, 1, 1, 0, 0, 0, 1, 1, 0]
    b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1]
    res = assert_matches_irrcac(a, b)
    assert res.ac1 == pytest.approx((0.7 - 0.495) / 0.505, abs=1e-14)

    perfect = [1, 0, 1, 1, 0, 1, 0, 0]
    res = assert_matches_irrcac(perfect, perfect)
    assert (res.ac1, res.se, res.ci_low, res.ci_high) == (1.0, 0.0, 1.0, 1.0)

    ones = [1] * 9
    res = assert_matches_irrcac(ones, ones)           # one category only: pe = 0, AC1 = 1
    assert res.ac1 == 1.0 and res.pe == 0.0

    res = assert_matches_irrcac([1] * 9, [0] * 9)     # total disagreement
    assert res.ac1 == -1.0

    res = assert_matches_irrcac([1, 1, 0], [1, 0, 0])  # tiny n: the t interval is wide
    assert res.ci_low == -1.0 and res.ci_high == 1.0


def test_ac1_drops_unscored_items_pairwise():
    rng = np.random.default_rng(7)
    a, b = random_pair(rng, 80, prevalence=0.6, agree=0.8)
    a, b = a.astype(float), b.astype(float)
    a[[1, 5, 9]] = np.nan
    b[[5, 20]] = np.nan
    res = assert_matches_irrcac(a, b)
    assert (res.n, res.n_dropped) == (76, 4)
    # The same ratings as a Polars Series with nulls and as Python lists with None.
    sa = pl.Series([None if np.isnan(v) else bool(v) for v in a], dtype=pl.Boolean)
    lb = [None if np.isnan(v) else int(v) for v in b]
    assert gwet_ac1(sa, lb) == res
    # irrCAC itself keeps one-rater items in the chance term, so it differs on the raw frame.
    assert irrcac_gwet(a, b)["coefficient_value"] != pytest.approx(res.ac1, abs=1e-9)


def test_ac1_small_and_empty():
    assert gwet_ac1([1], [1]).n == 1 and math.isnan(gwet_ac1([1], [1]).se)
    empty = gwet_ac1([None, 1], [0, None])
    assert empty.n == 0 and empty.n_dropped == 2 and math.isnan(empty.ac1)
    with pytest.raises(ValueError, match="0/1"):
        gwet_ac1([0, 2], [0, 1])
    with pytest.raises(ValueError, match="same items"):
        gwet_ac1([0, 1], [0, 1, 1])


def test_t_quantile_equals_scipy():
    for df in (1, 2, 3, 4, 7, 30, 199, 999, 1000, 1001, 10**5, 10**7):
        for p in (0.05, 0.3, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995):
            assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-11, abs=1e-13)
    assert t_quantile(0.5, 3) == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_kappa_and_macro_f1_equal_sklearn(seed):
    rng = np.random.default_rng(100 + seed)
    a, b = random_pair(rng, int(rng.integers(10, 300)), rng.uniform(0.1, 0.9), rng.uniform(0.4, 0.95))
    a[:2], b[:2] = [0, 1], [0, 1]  # both classes used by both raters, so every F1 is defined
    assert cohen_kappa(a, b) == pytest.approx(skm.cohen_kappa_score(a, b), abs=1e-12)
    assert macro_f1(a, b) == pytest.approx(skm.f1_score(b, a, average="macro"), abs=1e-12)
    assert raw_agreement(a, b) == pytest.approx(skm.accuracy_score(b, a), abs=1e-15)


def test_kappa_with_a_constant_rater_equals_sklearn():
    a = [1, 1, 1, 1, 1, 1]
    b = [1, 0, 1, 1, 0, 1]
    assert cohen_kappa(a, b) == pytest.approx(skm.cohen_kappa_score(a, b), abs=1e-12)
    assert cohen_kappa([1, 1, 1], [0, 0, 0]) == pytest.approx(0.0)
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))  # chance agreement 1: undefined


def test_macro_f1_by_hand_and_healthbench_undefined_cases():
    # judge a vs reference b: n11 = 3, n10 = 1, n01 = 2, n00 = 4
    a = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    b = [1, 1, 1, 0, 1, 1, 0, 0, 0, 0]
    c = paired_counts(a, b)
    assert (c.n11, c.n10, c.n01, c.n00) == (3, 1, 2, 4)
    pos, neg = f1_by_class(a, b)
    assert pos == pytest.approx(6 / 9) and neg == pytest.approx(8 / 11)
    assert macro_f1(a, b) == pytest.approx((6 / 9 + 8 / 11) / 2)
    assert macro_f1(a, b) == pytest.approx(macro_f1(b, a))  # symmetric
    # A judge that never says "met": HealthBench's positive precision is undefined, so is the F1.
    never = [0] * 10
    assert math.isnan(f1_by_class(never, b)[0]) and not math.isnan(f1_by_class(never, b)[1])
    assert math.isnan(macro_f1(never, b))


def test_agreement_table_pairs_and_polarity_split():
    # Criteria c1..c4 positive (weight > 0), n1..n4 negative; one reply (model m, sample 0).
    items = ["c1", "c2", "c3", "c4", "n1", "n2", "n3", "n4"]
    weights = [5, 3, 2, 1, -4, -2, -1, -3]
    j1 = [1, 0, 1, 1, 0, 0, 1, 0]
    j2 = [1, 0, 1, 1, 1, 1, 1, 0]   # agrees with j1 on every positive, on 2 of 4 negatives
    j2_status = ["scored"] * 7 + ["unscored"]     # j2 left n4 unscored

    def rows(judge, met, status=None):
        return pl.DataFrame({
            "judge": judge, "model": "m", "mode": "multimodal", "sample": 0, "case_id": "k1",
            "criterion_id": items, "weight": weights, "met": [bool(v) for v in met],
            "status": status or ["scored"] * len(items)})

    verdicts = pl.concat([rows("j2", j2, j2_status), rows("j1", j1)])
    physicians = pl.DataFrame({
        "judge": "physician", "model": "m", "mode": "multimodal", "sample": 0, "case_id": "k1",
        "criterion_id": ["c1", "c2", "c3", "n1", "n2", "n3"],   # c4, n4 not labelled
        "met": [True, True, True, False, None, False], "status": ["scored"] * 4 + ["unscored", "scored"]})
    table = agreement_table(pl.concat([verdicts, physicians], how="diagonal_relaxed"))

    assert table.select("rater_a", "rater_b").unique(maintain_order=True).rows() == [
        ("j1", "j2"), ("j1", "physician"), ("j2", "physician")]
    got = {(r["rater_a"], r["rater_b"], r["polarity"]): r for r in table.iter_rows(named=True)}
    assert len(got) == 9

    pos = got[("j1", "j2", "positive")]
    assert (pos["n"], pos["n_unscored"], pos["raw_agreement"]) == (4, 0, 1.0)
    assert pos["ac1"] == pytest.approx(gwet_ac1(j1[:4], j2[:4]).ac1)
    neg = got[("j1", "j2", "negative")]
    assert (neg["n"], neg["n_unscored"]) == (3, 1)
    assert neg["raw_agreement"] == pytest.approx(1 / 3)
    assert neg["met_rate_a"] == pytest.approx(1 / 3) and neg["met_rate_b"] == 1.0
    assert neg["kappa"] == pytest.approx(cohen_kappa(j1[4:7], j2[4:7]))
    allr = got[("j1", "j2", "all")]
    assert (allr["n"], allr["n_unscored"]) == (7, 1)
    assert allr["raw_agreement"] == pytest.approx(5 / 7)
    ac = gwet_ac1(j1[:7], j2[:7])
    assert (allr["ac1"], allr["ac1_se"], allr["ac1_ci_low"], allr["ac1_ci_high"]) == pytest.approx(
        (ac.ac1, ac.se, ac.ci_low, ac.ci_high))

    phys_pos = got[("j1", "physician", "positive")]       # c1..c3: j1 = 1,0,1 vs 1,1,1
    assert (phys_pos["n"], phys_pos["raw_agreement"]) == (3, pytest.approx(2 / 3))
    assert math.isnan(phys_pos["macro_f1"])              # the physicians never say "not met"
    # n1, n3 scored by the physicians (not met); n2 is a physician tie. j1 = 0, 1; j2 = 1, 1.
    phys_neg = got[("j1", "physician", "negative")]
    assert (phys_neg["n"], phys_neg["n_unscored"], phys_neg["raw_agreement"]) == (2, 1, 0.5)
    assert got[("j2", "physician", "negative")]["raw_agreement"] == 0.0


def test_agreement_table_rejects_bad_input():
    base = pl.DataFrame({"judge": ["a", "a"], "case_id": ["k", "k"], "criterion_id": ["c", "c"],
                         "weight": [1, 1], "met": [True, False]})
    with pytest.raises(ValueError, match="repeat"):
        agreement_table(base, item_cols=("case_id", "criterion_id"))
    with pytest.raises(ValueError, match="lacks column"):
        agreement_table(base)
    clash = pl.DataFrame({"judge": ["a", "b"], "case_id": ["k", "k"], "criterion_id": ["c", "c"],
                          "weight": [1, -1], "met": [True, False]})
    with pytest.raises(ValueError, match="conflicting"):
        agreement_table(clash, item_cols=("case_id", "criterion_id"))


def write(tmp_path, text: str):
    p = tmp_path / "labels.csv"
    p.write_text(text, encoding="utf-8")
    return p


def test_physician_labels_majority_ties_and_spellings(tmp_path):
    path = write(tmp_path, "case_id,criterion_id,physician_id,verdict\n"
                           "k1,c1,dr_a,met\n"
                           "k1,c1,dr_b, NOT_MET \n"
                           "k1,c1,dr_c,Yes\n"
                           "k1,c2,dr_a,1\n"
                           "k1,c2,dr_b,false\n"
                           "k2,c1,dr_a,no\n")
    out = physician_labels(path, item_defaults={"model": "m", "mode": "text", "sample": 0})
    assert out.columns == ["judge", "model", "mode", "sample", "case_id", "criterion_id", "met",
                           "status", "n_physicians", "n_met"]
    assert out.select("case_id", "criterion_id", "met", "status", "n_physicians", "n_met").rows() == [
        ("k1", "c1", True, "scored", 3, 2),
        ("k1", "c2", None, "unscored", 2, 1),      # tie
        ("k2", "c1", False, "scored", 1, 0)]
    assert out["judge"].unique().to_list() == ["physician"]
    assert out["sample"].dtype == pl.Int64 and out["sample"].to_list() == [0, 0, 0]


def test_physician_labels_errors_name_file_and_row(tmp_path):
    path = write(tmp_path, "case_id,criterion_id,physician_id,verdict\nk1,c1,a,met\nk1,c2,a,maybe\n")
    with pytest.raises(ValueError, match=r"labels\.csv: row 2: verdict 'maybe'"):
        physician_labels(path)
    path = write(tmp_path, "case_id,criterion_id,verdict\nk1,c1,met\n")
    with pytest.raises(ValueError, match="physician_id"):
        physician_labels(path)
    path = write(tmp_path, "case_id,criterion_id,physician_id,verdict\nk1,c1,a,met\nk1,c1,a,no\n")
    with pytest.raises(ValueError, match="row 1: physician 'a' labels case 'k1' criterion 'c1' more"):
        physician_labels(path)
    path = write(tmp_path, "case_id,criterion_id,physician_id,verdict,sample\nk1,c1,a,met,x\n")
    with pytest.raises(ValueError, match="row 1: sample 'x'"):
        physician_labels(path)


def test_physician_labels_feed_agreement_table(tmp_path):
    path = write(tmp_path, "case_id,criterion_id,physician_id,verdict\n"
                           "k1,c1,a,met\nk1,c1,b,met\nk1,c2,a,not_met\nk1,c2,b,not_met\n")
    judge = pl.DataFrame({"judge": "j", "model": "m", "mode": "text", "sample": 0, "case_id": "k1",
                          "criterion_id": ["c1", "c2"], "weight": [2, -1], "met": [True, True],
                          "status": "scored"})
    with pytest.raises(ValueError, match="null item column"):
        agreement_table(pl.concat([judge, physician_labels(path)], how="diagonal_relaxed"))
    labels = physician_labels(path, item_defaults={"model": "m", "mode": "text", "sample": 0})
    table = agreement_table(pl.concat([judge, labels], how="diagonal_relaxed"))
    got = {r["polarity"]: r for r in table.iter_rows(named=True)}
    assert (got["all"]["rater_a"], got["all"]["rater_b"]) == ("j", "physician")
    assert (got["positive"]["raw_agreement"], got["negative"]["raw_agreement"]) == (1.0, 0.0)


# --- three or more raters (a physician panel) ---------------------------------------------------------

from medrealmm.scoring import gwet_ac1_raters  # noqa: E402


def _irr_multi(frame, categories=None, confidence=0.95) -> dict:
    kw = {"categories": categories} if categories is not None else {}
    return irr.CAC(frame, confidence_level=confidence, digits=15, **kw).gwet()["est"]


@pytest.mark.parametrize("name", ["raw_4raters", "raw_5observers", "raw_gender", "raw_ben_gerry"])
def test_multi_rater_ac1_equals_irrcac_on_its_golden_sets(name: str) -> None:
    import irrCAC.datasets as golden

    frame = getattr(golden, name)()
    ref = _irr_multi(frame)
    cats = sorted({v for v in frame.to_numpy().ravel() if v is not None and v == v})
    got = gwet_ac1_raters(frame.to_numpy(dtype=object), categories=cats)
    assert got.ac1 == pytest.approx(float(ref["coefficient_value"]), abs=1e-9)
    assert got.pa == pytest.approx(float(ref["pa"]), abs=1e-9) and got.pe == pytest.approx(float(ref["pe"]), abs=1e-9)
    assert got.se == pytest.approx(float(ref["se"]), abs=1e-9)
    assert got.ci_low == pytest.approx(max(-1.0, float(ref["confidence_interval"][0])), abs=1e-9)


def test_raw_4raters_matches_gwets_published_value() -> None:
    import irrCAC.datasets as golden

    frame = golden.raw_4raters()
    got = gwet_ac1_raters(frame.to_numpy(dtype=object), categories=[1.0, 2.0, 3.0, 4.0, 5.0])
    assert round(got.ac1, 5) == 0.77544 and round(got.se, 5) == 0.14295   # Gwet (2014), Table 2.x / irrCAC docs


@pytest.mark.parametrize("seed", range(6))
def test_multi_rater_ac1_on_random_binary_panels(seed: int) -> None:
    import pandas as pd

    rng = np.random.default_rng(seed)
    n, r = int(rng.integers(5, 60)), int(rng.integers(3, 7))
    truth = rng.random(n) < 0.6
    panel = np.where(rng.random((n, r)) < 0.8, truth[:, None], ~truth[:, None]).astype(float)
    panel[rng.random((n, r)) < 0.15] = np.nan                      # some physicians skipped some items
    ref = _irr_multi(pd.DataFrame(panel), categories=[0.0, 1.0])
    got = gwet_ac1_raters(panel.astype(object), categories=[0.0, 1.0])
    assert got.ac1 == pytest.approx(float(ref["coefficient_value"]), abs=1e-9)
    assert got.se == pytest.approx(float(ref["se"]), abs=1e-9)


def test_two_raters_agree_with_the_two_rater_function() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.random(40) < 0.5, rng.random(40) < 0.6
    two = gwet_ac1(a, b)
    many = gwet_ac1_raters(np.column_stack([a, b]).astype(float).astype(object), categories=[0.0, 1.0])
    assert many.ac1 == pytest.approx(two.ac1, abs=1e-12) and many.se == pytest.approx(two.se, abs=1e-12)
