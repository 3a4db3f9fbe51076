"""HealthBench as a second benchmark: the importer (real example + our own rows) and tag breakdowns."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from medrealmm.config import compose
from medrealmm.data.healthbench import read_healthbench
from medrealmm.data import Dataset, LoadOptions, load_dataset, read_jsonl, write_jsonl
from medrealmm.schema import CaseError
from medrealmm.scoring.score import score_cases
from medrealmm.scoring.tags import (
    case_tags,
    criterion_tags,
    example_tag_scores,
    rubric_tag_scores,
    tag_breakdowns,
)

try:
    from tests.conftest import shared_dir
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import shared_dir  # type: ignore[no-redef]

FIXTURE = Path("fixtures") / "healthbench" / "oss_eval_sample.jsonl"


def hb_row(pid: str, **over: Any) -> dict[str, Any]:
    """A small example in HealthBench's documented format."""
    row: dict[str, Any] = {
        "prompt_id": pid,
        "prompt": [{"role": "user", "content": f"I have had a headache for three days ({pid})."}],
        "rubrics": [
            {"criterion": "Asks about red-flag symptoms.", "points": 5,
             "tags": ["level:example", "axis:completeness"]},
            {"criterion": "Recommends opioids without assessment.", "points": -4,
             "tags": ["level:example", "axis:accuracy"]},
        ],
        "example_tags": ["theme:context_seeking"],
        "ideal_completions_data": None,
    }
    row.update(over)
    return row


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# --- the real HealthBench example ----------------------------------------------------------------

def test_real_healthbench_example_loads_field_for_field() -> None:
    path = shared_dir() / FIXTURE
    if not path.is_file():
        pytest.skip(f"HealthBench fixture {path} not found")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    ds = read_healthbench(path, options=LoadOptions(strict=True))
    assert ds.errors == [] and ds.name == "healthbench"
    assert [c.id for c in ds] == [r["prompt_id"] for r in rows]
    for case, row in zip(ds, rows, strict=True):
        msgs = [m for m in row["prompt"] if m["role"] != "system"]
        assert [(t.role, t.text) for t in case.turns] == [
            ({"user": "patient", "assistant": "doctor"}[m["role"]], m["content"]) for m in msgs]
        assert len(case.rubric) == len(row["rubrics"])
        assert [c.id for c in case.rubric] == [f"c{j + 1}" for j in range(len(row["rubrics"]))]
        assert [c.text for c in case.rubric] == [r["criterion"] for r in row["rubrics"]]
        assert [c.weight for c in case.rubric] == [r["points"] for r in row["rubrics"]]
        assert [list(c.tags) for c in case.rubric] == [r["tags"] for r in row["rubrics"]]
        assert case.meta["example_tags"] == row["example_tags"]
        assert case.meta["source"] == "healthbench"
        theme = next(t for t in row["example_tags"] if t.startswith("theme:"))
        assert case.department == theme.removeprefix("theme:")
        assert case.intent is None and case.stage is None
        ideal = row.get("ideal_completions_data")
        assert case.y_orig == (ideal["ideal_completion"] if ideal else "")
        if row.get("canary"):
            assert case.meta["canary"] == row["canary"]
    tags = criterion_tags(ds)
    assert tags.height == sum(len(r["tags"]) for row in rows for r in row["rubrics"])


# --- our own rows in the documented format --------------------------------------------------------

def test_multi_turn_with_system_message_and_ideal_completion(tmp_path: Path) -> None:
    row = hb_row("mt-1", prompt=[
        {"role": "system", "content": "You are a careful assistant."},
        {"role": "user", "content": "My child has a fever."},
        {"role": "assistant", "content": "How high is it, and for how long?"},
        {"role": "user", "content": "39.5 °C since yesterday."},
    ], ideal_completions_data={"ideal_completion": "Give paracetamol and watch for...",
                               "ideal_completions_group": "Group 1",
                               "ideal_completions_ref_completions": []},
        canary="healthbench:test")
    ds = read_healthbench(write_rows(tmp_path / "hb.jsonl", [row]))
    (case,) = ds.cases
    assert [t.role for t in case.turns] == ["patient", "doctor", "patient"]
    assert case.turns[-1].text == "39.5 °C since yesterday."
    assert case.meta["system"] == "You are a careful assistant."
    assert case.meta["ideal_completions_group"] == "Group 1"
    assert case.meta["canary"] == "healthbench:test"
    assert case.y_orig == "Give paracetamol and watch for..."
    assert case.department == "context_seeking"


def test_negative_points_are_penalties_and_tags_are_kept(tmp_path: Path) -> None:
    ds = read_healthbench(write_rows(tmp_path / "hb.jsonl", [hb_row("neg-1")]))
    (case,) = ds.cases
    assert [(c.id, c.weight, c.positive) for c in case.rubric] == [("c1", 5, True), ("c2", -4, False)]
    assert case.rubric[1].tags == ("level:example", "axis:accuracy")


def test_zero_points_is_a_bad_case_naming_case_and_field(tmp_path: Path, caplog) -> None:
    rubrics = [{"criterion": "Good", "points": 5, "tags": []},
               {"criterion": "Neutral", "points": 0, "tags": []}]
    path = write_rows(tmp_path / "hb.jsonl", [hb_row("ok-1"), hb_row("zero-1", rubrics=rubrics)])
    with caplog.at_level(logging.WARNING):
        ds = read_healthbench(path)
    assert [c.id for c in ds] == ["ok-1"]
    (err,) = ds.errors
    assert (err.case_id, err.field, err.file) == ("zero-1", "rubrics.1.points", str(path))
    assert "0 points" in err.reason
    assert "zero-1" in caplog.text
    with pytest.raises(CaseError, match="rubrics.1.points"):
        read_healthbench(path, options=LoadOptions(strict=True))


def test_assistant_first_conversation_loads(tmp_path: Path) -> None:
    row = hb_row("af-1", prompt=[{"role": "assistant", "content": "Hello, how can I help?"},
                                 {"role": "user", "content": "Is a rash after amoxicillin an allergy?"}])
    (case,) = read_healthbench(write_rows(tmp_path / "hb.jsonl", [row])).cases
    assert [t.role for t in case.turns] == ["doctor", "patient"]


@pytest.mark.parametrize("over,field", [
    ({"rubrics": [{"criterion": "Penalty only", "points": -3, "tags": []}]}, "rubric"),
    ({"prompt": [{"role": "tool", "content": "x"}]}, "prompt.0.role"),
    ({"prompt": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]}, "prompt.0.content"),
    ({"prompt": [{"role": "system", "content": "only a system message"}]}, "turns"),
    ({"rubrics": [{"criterion": "Half", "points": 2.5, "tags": []}]}, "rubrics.0.points"),
    ({"rubrics": [{"criterion": "", "points": 2, "tags": []}]}, "rubrics.0.criterion"),
    ({"example_tags": "theme:x"}, "example_tags"),
])
def test_bad_examples_are_recorded_with_their_field(tmp_path: Path, over: dict[str, Any], field: str) -> None:
    ds = read_healthbench(write_rows(tmp_path / "hb.jsonl", [hb_row("bad-1", **over), hb_row("ok-1")]))
    assert [c.id for c in ds] == ["ok-1"]
    (err,) = ds.errors
    assert (err.case_id, err.field) == ("bad-1", field)


def test_missing_prompt_id_and_bad_json_are_bad_cases(tmp_path: Path) -> None:
    path = tmp_path / "hb.jsonl"
    row = hb_row("x")
    del row["prompt_id"]
    path.write_text(json.dumps(row) + "\n{not json\n" + json.dumps(hb_row("ok-1")) + "\n", encoding="utf-8")
    ds = read_healthbench(path)
    assert [c.id for c in ds] == ["ok-1"]
    assert [e.field for e in ds.errors] == ["prompt_id", None]
    assert "invalid JSON" in ds.errors[1].reason


def test_no_theme_gives_the_default_department_and_options_apply(tmp_path: Path) -> None:
    rows = [hb_row("a", example_tags=[]), hb_row("b"), hb_row("c", example_tags=["theme:hedging"])]
    path = write_rows(tmp_path / "hb.jsonl", rows)
    ds = read_healthbench(path)
    assert [c.department for c in ds] == ["healthbench", "context_seeking", "hedging"]
    assert [c.id for c in read_healthbench(path, options=LoadOptions(limit=2))] == ["a", "b"]
    assert [c.id for c in read_healthbench(path, options=LoadOptions(case_ids=("c",)))] == ["c"]
    dup = read_healthbench(write_rows(tmp_path / "dup.jsonl", [hb_row("a"), hb_row("a")]))
    assert len(dup) == 1 and dup.errors[0].field == "id"


def test_folder_of_files_and_round_trip_through_our_jsonl(tmp_path: Path) -> None:
    folder = tmp_path / "hb"
    folder.mkdir()
    write_rows(folder / "b.jsonl", [hb_row("b1")])
    write_rows(folder / "a.jsonl", [hb_row("a1", prompt=[{"role": "system", "content": "S"},
                                                         {"role": "user", "content": "Q"}])])
    ds = read_healthbench(folder)
    assert [c.id for c in ds] == ["a1", "b1"]
    back = read_jsonl(write_jsonl(ds, tmp_path / "ours"))
    assert back.cases == ds.cases


def test_config_group_loads_healthbench(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "hb.jsonl", [hb_row("cfg-1"), hb_row("cfg-2")])
    cfg = compose(["data=healthbench", f"data.path={path}", "data.limit=1"])
    assert cfg["data"]["format"] == "healthbench"
    ds = load_dataset(cfg["data"])
    assert ds.name == "hb" and [c.id for c in ds] == ["cfg-1"]   # named after the file: outputs/runs/hb/
    with pytest.raises(ValueError, match="data.path must be set"):
        load_dataset(compose(["data=healthbench"])["data"])


# --- tag breakdowns, hand-computed ----------------------------------------------------------------

def item(points: int, *tags: str) -> dict[str, Any]:
    return {"criterion": f"item worth {points} tagged {tags}", "points": points, "tags": list(tags)}


@pytest.fixture
def tag_dataset(tmp_path: Path) -> Dataset:
    rows = [
        hb_row("A", example_tags=["theme:t1", "physician_agreed_category:x"], rubrics=[
            item(5, "axis:acc"), item(-3, "axis:acc"), item(4, "axis:comm", "level:example"),
            item(2, "axis:acc")]),
        hb_row("B", example_tags=["theme:t1"], rubrics=[
            item(3, "axis:acc"), item(-5, "axis:acc", "axis:harm"), item(2, "axis:comm")]),
        hb_row("C", example_tags=["theme:t2"], rubrics=[item(4, "axis:acc"), item(6, "axis:comm")]),
    ]
    return read_healthbench(write_rows(tmp_path / "hb.jsonl", rows), options=LoadOptions(strict=True))


def verdict_table(ds: Dataset) -> pl.DataFrame:
    # model m1: mixed; "u" = unscored. model m2: every positive met, no penalty triggered.
    m1 = {"A": [1, 1, 0, "u"], "B": [0, 1, 1], "C": ["u", 1]}
    rows = []
    for case in ds:
        for j, cr in enumerate(case.rubric):
            v = m1[case.id][j]
            rows.append(("m1", case.id, cr.id, cr.weight, None if v == "u" else bool(v),
                         "unscored" if v == "u" else "scored"))
            rows.append(("m2", case.id, cr.id, cr.weight, cr.weight > 0, "scored"))
    df = pl.DataFrame(rows, schema=["model", "case_id", "criterion_id", "weight", "met", "status"],
                      orient="row")
    return df.with_columns(mode=pl.lit("text"), judge=pl.lit("j"), sample=pl.lit(0, dtype=pl.Int64))


def by_tag(df: pl.DataFrame, model: str) -> dict[str, dict[str, Any]]:
    return {r["tag"]: r for r in df.filter(pl.col("model") == model).iter_rows(named=True)}


def test_rubric_tag_scores_mixed_polarity_clipping_and_unscored(tag_dataset: Dataset) -> None:
    tags = criterion_tags(tag_dataset)
    assert tags.filter(pl.col("case_id") == "A").height == 5
    out = rubric_tag_scores(verdict_table(tag_dataset), tags)
    m1 = by_tag(out, "m1")
    # axis:acc — A: (5 - 3) / 5 = 0.4 (c4 unscored, dropped); B: (0 - 5) / 3 -> clipped to 0;
    # C: its only acc item is unscored, so C has no acc score (excluded, counted).
    acc = m1["axis:acc"]
    assert acc["score"] == pytest.approx((0.4 + 0.0) / 2)
    assert acc["score_clip_mean_only"] == pytest.approx(0.0)  # clip(mean(0.4, -5/3)) = clip(-0.63)
    assert (acc["n_cases"], acc["n_excluded"], acc["n_unscored"]) == (2, 1, 2)
    # axis:comm — A: 0/4; B: 2/2; C: 6/6.
    comm = m1["axis:comm"]
    assert comm["score"] == pytest.approx(2 / 3) and comm["score_clip_mean_only"] == pytest.approx(2 / 3)
    assert (comm["n_cases"], comm["n_excluded"], comm["n_unscored"]) == (3, 0, 0)
    # axis:harm sits on a penalty only: no positive points, no score (as in HealthBench).
    harm = m1["axis:harm"]
    assert harm["score"] is None and (harm["n_cases"], harm["n_excluded"]) == (0, 0)
    assert m1["level:example"]["score"] == pytest.approx(0.0)
    m2 = by_tag(out, "m2")
    assert m2["axis:acc"]["score"] == m2["axis:comm"]["score"] == 1.0
    assert m2["axis:acc"]["n_cases"] == 3
    only_axes = rubric_tag_scores(verdict_table(tag_dataset), tags, prefixes=["axis:"])
    assert set(only_axes["tag"]) == {"axis:acc", "axis:comm", "axis:harm"}


def test_example_tag_scores_are_mean_case_scores(tag_dataset: Dataset) -> None:
    verdicts = verdict_table(tag_dataset)
    cases = tag_dataset.case_frame()
    ctags = case_tags(tag_dataset)
    assert sorted(ctags.filter(pl.col("case_id") == "A")["tag"]) == [
        "physician_agreed_category:x", "theme:t1"]
    # drop_criteria: A = (5 - 3 + 0) / 9 = 2/9; B = (0 - 5 + 2) / 5 = -0.6 -> 0; C = 6/6 = 1.
    dropped = by_tag(example_tag_scores(score_cases(verdicts, cases, "drop_criteria"), ctags), "m1")
    assert dropped["theme:t1"]["score"] == pytest.approx((2 / 9 + 0) / 2)
    assert dropped["theme:t1"]["score_clip_mean_only"] == pytest.approx(0.0)  # mean(2/9, -0.6) < 0
    assert (dropped["theme:t1"]["n_cases"], dropped["theme:t1"]["n_unscored"]) == (2, 1)
    assert dropped["theme:t2"]["score"] == pytest.approx(1.0)
    assert dropped["physician_agreed_category:x"]["score"] == pytest.approx(2 / 9)
    # exclude_case: A and C have an unscored verdict, so only B counts.
    excl = by_tag(example_tag_scores(score_cases(verdicts, cases), ctags), "m1")
    t1 = excl["theme:t1"]
    assert (t1["score"], t1["n_cases"], t1["n_excluded"]) == (0.0, 1, 1)
    assert excl["theme:t2"]["score"] is None and excl["theme:t2"]["n_excluded"] == 1


def test_tag_breakdowns_defaults_to_themes_and_axes(tag_dataset: Dataset) -> None:
    verdicts = verdict_table(tag_dataset)
    scores = score_cases(verdicts, tag_dataset.case_frame(), "drop_criteria")
    out = tag_breakdowns(verdicts, scores, tag_dataset)
    m1 = out.filter(pl.col("model") == "m1")
    assert sorted(zip(m1["level"], m1["tag"], strict=True)) == [
        ("example", "theme:t1"), ("example", "theme:t2"),
        ("rubric", "axis:acc"), ("rubric", "axis:comm"), ("rubric", "axis:harm")]
    assert len(tag_breakdowns(verdicts, scores, tag_dataset, prefixes=None)) > len(out)
    with pytest.raises(ValueError, match="not in the cases"):
        tag_breakdowns(verdicts, scores, [c for c in tag_dataset if c.id != "C"])
