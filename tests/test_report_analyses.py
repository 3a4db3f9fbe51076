"""The report's tables on small hand-made runs, against values computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from medrealmm.report.analyses import (
    ReportOptions,
    build_tables,
    heatmap_cells,
    judge_health,
    judge_scores,
    leaderboard,
    physician_verdicts,
    pool_samples,
    primary_judge,
)
from medrealmm.report.runs import RunsNotFound, find_runs, load_runs
from medrealmm.scoring import paired_bootstrap_diff, score_cases

CASES = pl.DataFrame({"case_id": ["a", "b", "c"], "department": ["皮肤科", "眼科", "皮肤科"],
                      "intent": ["x", "y", "x"], "stage": ["s", "s", "t"], "n_images": [1, 2, 3],
                      "n_turns": [2, 6, 10]})
# two criteria per case: c1 (+2), c2 (-1)
CRITERIA = [("c1", 2), ("c2", -1)]


def verdicts(model: str, mode: str, judge: str, met: dict[tuple[str, str], bool | None], sample: int = 0,
             attempts: int = 1) -> pl.DataFrame:
    rows = []
    for case in CASES["case_id"]:
        for cid, w in CRITERIA:
            m = met.get((case, cid), False)
            rows.append({"case_id": case, "model": model, "mode": mode, "sample": sample, "judge": judge,
                         "criterion_id": cid, "weight": w, "met": m,
                         "status": "unscored" if m is None else "scored", "attempts": attempts})
    return pl.DataFrame(rows)


def write_run(root: Path, name: str, v: pl.DataFrame, created: str) -> Path:
    d = root / name
    d.mkdir(parents=True)
    cs = score_cases(v, CASES)
    v.write_parquet(d / "verdicts.parquet")
    cs.write_parquet(d / "case_scores.parquet")
    cs.head(1).write_parquet(d / "summary.parquet")
    (d / "manifest.json").write_text(json.dumps({"created": created, "config": {"model": {"name": name}}}))
    return d


ALL_MET = {(c, "c1"): True for c in "abc"}


@pytest.fixture
def runs_root(tmp_path: Path) -> Path:
    root = tmp_path / "runs" / "sample"
    # model m1: case a full (1.0), b met+triggered (0.5), c nothing (0.0) -> mean 0.5
    m1 = {("a", "c1"): True, ("b", "c1"): True, ("b", "c2"): True}
    write_run(root, "m1__j1", pl.concat([verdicts("m1", "multimodal", "j1", m1),
                                         verdicts("m1", "text", "j1", {("a", "c1"): True})]), "2026-01-01")
    write_run(root, "online__j1", verdicts("online", "multimodal", "j1", ALL_MET), "2026-01-01")
    # m2 with 2 samples: sample 0 all met (1.0 each), sample 1 only a (1, 0, 0)
    write_run(root, "m2__j1", pl.concat([verdicts("m2", "multimodal", "j1", ALL_MET, sample=0),
                                         verdicts("m2", "multimodal", "j1", {("a", "c1"): True}, sample=1)]),
              "2026-01-01")
    # a second judge on m1 multimodal: disagrees on b/c2, one unscored verdict (case c), one retry
    j2 = {("a", "c1"): True, ("b", "c1"): True, ("c", "c1"): None}
    write_run(root, "m1__j2", verdicts("m1", "multimodal", "j2", j2, attempts=2), "2026-01-01")
    return root


def test_pool_samples_means_over_scored_samples(runs_root: Path) -> None:
    runs = load_runs([runs_root])
    pooled = pool_samples(runs.case_scores.filter(pl.col("model") == "m2"))
    assert pooled.height == 3 and set(pooled["sample"]) == {0}
    by_case = dict(zip(pooled["case_id"], pooled["score"], strict=True))
    assert by_case == {"a": 1.0, "b": 0.5, "c": 0.5}
    assert pooled["n_samples"].to_list() == [2, 2, 2]


def test_pool_samples_excludes_a_case_only_when_no_sample_is_scored() -> None:
    v = pl.concat([verdicts("m", "multimodal", "j", {("a", "c1"): None}, sample=0),
                   verdicts("m", "multimodal", "j", {("a", "c1"): True, ("b", "c1"): None}, sample=1)])
    pooled = pool_samples(score_cases(v, CASES)).sort("case_id")
    assert pooled["status"].to_list() == ["scored", "scored", "scored"]
    assert pooled["score"].to_list() == [1.0, 0.0, 0.0]   # a from sample 1 only, b from sample 0 only
    v2 = verdicts("m", "multimodal", "j", {("a", "c1"): None})
    assert pool_samples(score_cases(v2, CASES)).sort("case_id")["status"][0] == "excluded_unscored"


def test_leaderboard_ranks_models_not_the_anchor(runs_root: Path) -> None:
    runs = load_runs([runs_root])
    board = leaderboard(pool_samples(runs.case_scores), ReportOptions(n_boot=50))
    mm = board.filter((pl.col("judge") == "j1") & (pl.col("mode") == "multimodal"))
    rows = {r["model"]: r for r in mm.iter_rows(named=True)}
    assert rows["online"]["anchor"] and rows["online"]["rank"] is None and rows["online"]["score"] == 1.0
    assert rows["m2"]["rank"] == 1 and rows["m2"]["score"] == pytest.approx(2 / 3)
    assert rows["m1"]["rank"] == 2 and rows["m1"]["score"] == pytest.approx(0.5)
    assert rows["m2"]["samples"] == 2
    # Figure 4 decomposition for m1: positives met 2 of 3 cases' c1, negatives triggered 1 of 3
    assert rows["m1"]["mean_pos_met"] == pytest.approx(2 / 3)
    assert rows["m1"]["mean_neg_triggered"] == pytest.approx(1 / 3)
    assert rows["m1"]["pos_met_rate"] == pytest.approx(2 / 3)
    assert rows["m1"]["neg_triggered_rate"] == pytest.approx(1 / 3)
    assert rows["m1"]["ci_low"] <= 0.5 <= rows["m1"]["ci_high"]


def test_ablation_is_the_paired_difference_of_modes(runs_root: Path) -> None:
    runs = load_runs([runs_root])
    tables = build_tables(runs, ReportOptions(n_boot=200, primary_judge="j1"))
    ab = tables["ablation"]
    assert ab["model"].to_list() == ["m1"]
    r = ab.row(0, named=True)
    # multimodal 1, 0.5, 0 ; text 1, 0, 0 -> diff mean (0 + 0.5 + 0) / 3
    assert (r["mean_a"], r["mean_b"]) == (pytest.approx(0.5), pytest.approx(1 / 3))
    assert r["diff"] == pytest.approx(1 / 6) and r["mode_a"] == "multimodal" and r["mode_b"] == "text"
    assert r["ci_low"] <= r["diff"] <= r["ci_high"]


def test_paired_diff_along_mode_matches_a_model_relabelling(runs_root: Path) -> None:
    cs = load_runs([runs_root]).case_scores.filter((pl.col("model") == "m1") & (pl.col("judge") == "j1"))
    by_mode = paired_bootstrap_diff(cs, "multimodal", "text", column="mode", by=("judge",), n_boot=300, seed=3)
    relabelled = cs.with_columns(model=pl.col("mode"), mode=pl.lit("x"))
    by_model = paired_bootstrap_diff(relabelled, "multimodal", "text", by=("judge",), n_boot=300, seed=3)
    for c in ("diff", "ci_low", "ci_high", "share_le_0", "n_cases"):
        assert by_mode[c].to_list() == by_model[c].to_list()


def test_build_tables_sections_and_primary_judge(runs_root: Path) -> None:
    runs = load_runs([runs_root])
    assert primary_judge(runs.case_scores, None) == "j1"   # most runs
    with pytest.raises(ValueError, match="primary_judge='nope'"):
        primary_judge(runs.case_scores, "nope")
    t = build_tables(runs, ReportOptions(n_boot=50, min_n=2, dims=("department", "n_turns"),
                                         edges={"n_turns": [1, 5, 9]}))
    assert {"leaderboard", "ablation", "by_department", "by_n_turns", "histogram", "paired", "worst_of_k",
            "judge_health", "judge_agreement", "judge_scores"} <= set(t)
    dept = t["by_department"].filter((pl.col("model") == "m1") & (pl.col("mode") == "multimodal"))
    assert dict(zip(dept["department"], dept["n_scored"], strict=True)) == {"皮肤科": 2, "眼科": 1}
    assert dict(zip(dept["department"], dept["small_n"], strict=True)) == {"皮肤科": False, "眼科": True}
    assert sorted(t["by_n_turns"]["n_turns"].unique()) == ["1-4", "5-8", "9+"]
    # worst-of-2 of m2: case a min(1,1)=1, b min(1,0)=0, c 0 -> 1/3
    wk = t["worst_of_k"].filter((pl.col("model") == "m2") & (pl.col("k") == 2))
    assert wk["worst_at_k"][0] == pytest.approx(1 / 3)
    pairs = t["paired"]
    assert {(a, b) for a, b in pairs.select("model_a", "model_b").iter_rows()} == {
        ("online", "m2"), ("online", "m1"), ("m2", "m1")}


def test_judge_health_counts_by_polarity(runs_root: Path) -> None:
    v = load_runs([runs_root]).verdicts
    h = judge_health(v).filter(pl.col("judge") == "j2")
    rows = {r["polarity"]: r for r in h.iter_rows(named=True)}
    assert rows["all"]["n_verdicts"] == 6 and rows["all"]["n_unscored"] == 1
    assert rows["positive"]["unscored_rate"] == pytest.approx(1 / 3)
    assert rows["all"]["retry_rate"] == 1.0 and rows["all"]["mean_attempts"] == 2.0
    assert rows["positive"]["met_rate"] == 1.0          # a and b met; c unscored, not counted
    assert rows["negative"]["met_rate"] == 0.0


def test_judge_agreement_and_scores_on_common_items(runs_root: Path, tmp_path: Path) -> None:
    runs = load_runs([runs_root])
    csv = tmp_path / "phys.csv"
    csv.write_text("case_id,criterion_id,physician_id,verdict\n"
                   "a,c1,d1,met\na,c2,d1,no\nb,c1,d1,met\n", encoding="utf-8")   # b lacks c2: incomplete
    from medrealmm.scoring import physician_labels

    labels = physician_labels(csv, item_defaults={"model": "m1", "mode": "multimodal", "sample": 0})
    pv = physician_verdicts(labels, runs.verdicts)
    assert sorted(set(pv["case_id"])) == ["a"]
    t = build_tables(runs, ReportOptions(n_boot=50, primary_judge="j1"), labels=labels)
    ag = t["judge_agreement"]
    j = ag.filter((pl.col("rater_a") == "j1") & (pl.col("rater_b") == "j2") & (pl.col("polarity") == "all"))
    # j1 vs j2 on m1 multimodal: 6 items, 1 unscored (c/c1), of 5 disagree only on b/c2
    assert j["n"][0] == 5 and j["n_unscored"][0] == 1 and j["raw_agreement"][0] == pytest.approx(4 / 5)
    p = ag.filter((pl.col("rater_a") == "j1") & (pl.col("rater_b") == "physician") & (pl.col("polarity") == "all"))
    assert p["n"][0] == 3 and p["raw_agreement"][0] == 1.0
    scores = t["judge_scores"]
    assert set(scores["judge"]) == {"j1", "j2", "physician"}
    assert scores["n_cases"].to_list() == [1, 1, 1]         # only case a is scored by all three
    assert scores["score"].to_list() == [1.0, 1.0, 1.0]


def test_judge_scores_needs_two_raters(runs_root: Path) -> None:
    cs = load_runs([runs_root]).case_scores.filter(pl.col("judge") == "j1")
    assert judge_scores(cs, None).height == 0


def test_newest_run_wins_overlaps(runs_root: Path) -> None:
    newer = verdicts("m1", "multimodal", "j1", ALL_MET)
    write_run(runs_root, "m1__j1__again", newer, "2026-02-01")
    runs = load_runs([runs_root])
    m1 = runs.case_scores.filter((pl.col("model") == "m1") & (pl.col("mode") == "multimodal")
                                 & (pl.col("judge") == "j1"))
    assert m1.height == 3 and set(m1["run"]) == {"m1__j1__again"} and m1["score"].to_list() == [1.0] * 3
    assert runs.superseded == {"m1__j1": 3}
    assert runs.verdicts.filter(pl.col("run") == "m1__j1")["mode"].unique().to_list() == ["text"]


def test_find_runs_errors_and_skips_shards(tmp_path: Path, runs_root: Path) -> None:
    with pytest.raises(RunsNotFound, match="does not exist"):
        find_runs([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunsNotFound, match="no finished run"):
        find_runs([tmp_path / "empty"])
    shard = runs_root / "m1__j1" / "shards" / "0-of-2"
    shard.mkdir(parents=True)
    (runs_root / "m1__j1" / "summary.parquet").rename(shard / "summary.parquet")
    found = {p.name for p in find_runs([runs_root])}
    assert "m1__j1" not in found and "0-of-2" not in found and "m2__j1" in found


def test_heatmap_cells_order(runs_root: Path) -> None:
    t = build_tables(load_runs([runs_root]), ReportOptions(n_boot=10, dims=("department", "n_images"),
                                                           primary_judge="j1"))
    order = ["m2", "m1 (multimodal)", "m1 (text)"]
    cells = heatmap_cells(t["by_department"], "department", ["online (multimodal)", "m2 (multimodal)",
                                                              "m1 (multimodal)", "m1 (text)"])
    entries = cells["entry"].unique(maintain_order=True).to_list()
    assert entries == ["online (multimodal)", "m2 (multimodal)", "m1 (multimodal)", "m1 (text)"]
    assert cells["department"].unique(maintain_order=True).to_list() == ["皮肤科", "眼科"]   # bigger first
    buckets = heatmap_cells(t["by_n_images"], "n_images", order, bucketed=True)
    assert buckets["n_images"].unique(maintain_order=True).to_list() == ["1", "2", "3", "4+"][:3]
    assert np.isfinite(cells["score"].to_numpy()).all()
