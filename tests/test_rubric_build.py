"""``medrealmm rubric`` actions that need no LLM: revise with direct edits only, early stop, the round
limit, idempotent feedback, approval (lint errors block), export, and the evaluation core's
requirement of an approved rubric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medrealmm.config import compose
from medrealmm.data import load_dataset, sample_dir
from medrealmm.mccp import Instance
from medrealmm.rubric.build import RubricFailed, run_rubric
from medrealmm.rubric.model import RubricRecord, RubricVersion
from medrealmm.rubric.settings import RubricSettings
from medrealmm.rubric.store import read_records, write_records
from medrealmm.rubric.writer import keep_locked
from medrealmm.schema import CaseError, Criterion

try:
    from tests.conftest import cli
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]

IDS = ("cardio-001", "derm-001", "endo-001")


def _setup(tmp_path: Path) -> tuple[dict, Path]:
    """Instances from the sample cases (rubric removed) and their sample rubrics imported as R(0)."""
    src = sample_dir()
    mccp = tmp_path / "mccp"
    mccp.mkdir()
    records, lines = [], []
    for line in (src / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        if raw["id"] not in IDS:
            continue
        rubric = [Criterion(**c) for c in raw.pop("rubric")]
        raw["meta"] = {}
        inst = Instance.model_validate(raw)
        lines.append(inst.model_dump_json())
        records.append(RubricRecord(id=inst.id, instance=inst,
                                    versions=(RubricVersion(round=0, criteria=tuple(rubric), source="imported"),)))
    (mccp / "instances.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (mccp / "counts.json").write_text(json.dumps({"dataset_root": str(src)}), encoding="utf-8")
    out = tmp_path / "outputs"
    cfg = compose([f"paths.outputs={out}", f"rubric.input={mccp / 'instances.jsonl'}", "rubric.figures=false"])
    write_records(records, Path(cfg["rubric"]["out_dir"]))
    return cfg, Path(cfg["rubric"]["out_dir"])


def _feedback(path: Path, rows: list[str]) -> Path:
    path.write_text("case_id,criterion_id,action,text,weight,comment\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _by_id(out: Path) -> dict[str, RubricRecord]:
    return {r.id: r for r in read_records(out)}


def test_direct_edits_make_round_one_exactly_and_other_cases_stop(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    before = _by_id(out)
    fb = _feedback(tmp_path / "feedback_0_001.csv", [
        "cardio-001,c2,delete,,,",
        "cardio-001,c1,reweight,,4,",
        "cardio-001,c3,split,建议完善动态心电图||说明需抗凝评估,4||3,",
        "cardio-001,,add,询问是否有晕厥,2,",
        "derm-001,c1,keep,,,",                   # an untouched template row: says nothing
        "endo-001,,accept,,,",                   # signed off as it is
    ])
    cfg["rubric"]["feedback"] = str(fb)
    stats = run_rubric("revise", cfg)
    assert stats["with_feedback"] == 1 and stats["direct_only"] == 1 and stats["llm"] == 0
    assert stats["signed_off"] == 1 and stats["not_reviewed"] == 1   # endo-001 accepted; derm-001 not reviewed
    after = _by_id(out)
    old = {c.id: c for c in before["cardio-001"].criteria}
    new = after["cardio-001"]
    assert new.round == 1 and new.current.source == "feedback" and new.current.model is None
    ids = [c.id for c in new.criteria]
    assert "c2" not in ids and ids[:3] == ["c1", "c3.1", "c3.2"] and ids[-1] == f"c{len(old) + 1}"
    assert {c.id: c.weight for c in new.criteria}["c1"] == 4
    assert [c.text for c in new.criteria if c.id.startswith("c3.")] == ["建议完善动态心电图", "说明需抗凝评估"]
    assert all(c == old[c.id] for c in new.criteria if c.id not in ("c1", "c3.1", "c3.2", ids[-1]))
    assert after["derm-001"].round == 0 and "signed_off_round" not in after["derm-001"].meta
    assert after["endo-001"].round == 0 and after["endo-001"].meta["signed_off_round"] == 0
    diffs = [json.loads(x) for x in (out / "diffs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert diffs == [{"case_id": "cardio-001", "round": 1, "source": "feedback", "added": ["c3.1", "c3.2", ids[-1]],
                      "removed": ["c2", "c3"], "changed": [{"id": "c1", "fields": ["weight"]}]}]
    changes = [json.loads(x) for x in (out / "changes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(c["action"] for c in changes) == ["add", "delete", "reweight", "split"]
    assert (out / "review" / "round_1").is_dir() and (out / "report" / "rubric_report.md").is_file()

    again = run_rubric("revise", cfg)                                 # the same file twice: applied once
    assert again["other_round"] == 1 and again["with_feedback"] == 0    # a round-0 file, the case is at round 1
    assert _by_id(out)["cardio-001"].versions == new.versions


def test_feedback_for_a_later_round_and_the_round_limit(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    cfg["rubric"]["rounds"] = 1
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "a.csv", ["endo-001,c1,reweight,,3,"]))
    assert run_rubric("revise", cfg)["direct_only"] == 1
    assert run_rubric("revise", cfg)["already_applied"] == 1          # no round hint: same rows, not again
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "b.csv", ["endo-001,c1,reweight,,5,"]))
    assert run_rubric("revise", cfg)["at_max_round"] == 1
    assert _by_id(out)["endo-001"].round == 1


def test_bad_feedback_names_the_problem_and_changes_nothing(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    before = (out / "rubrics.jsonl").read_bytes()
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "f.csv", ["cardio-001,c99,delete,,,"]))
    with pytest.raises(ValueError, match="c99"):
        run_rubric("revise", cfg)
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "g.csv", ["nope-1,c1,delete,,,"]))
    with pytest.raises(RubricFailed, match="nope-1"):
        run_rubric("revise", cfg)
    assert (out / "rubrics.jsonl").read_bytes() == before


def test_approve_blocks_lint_errors_exports_and_the_core_requires_approval(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    records = read_records(out)
    bad = records[2]                                                  # endo-001 with only two criteria
    two = RubricVersion(round=1, criteria=bad.criteria[:2], source="feedback")
    write_records([*records[:2], bad.with_version(two)], out)
    stats = run_rubric("approve", cfg)                                # nothing signed off yet: nothing approved
    assert stats["approved_now"] == 0 and stats["not_signed_off"] == 2 and stats["blocked"] == 1  # endo: own edit
    cfg["rubric"]["approve"]["all"] = True
    stats = run_rubric("approve", cfg)
    assert stats["approved_now"] == 2 and stats["blocked"] == 1 and stats["exported"] == 2
    bench = out / "benchmark"
    cases = [json.loads(x) for x in (bench / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [c["id"] for c in cases] == ["cardio-001", "derm-001"]
    assert all(c["meta"]["rubric"]["status"] == "approved" for c in cases)
    assert all((bench / im["path"]).is_file() for c in cases for t in c["turns"] for im in t["images"])
    ds = load_dataset({"name": "x", "format": "jsonl", "path": str(bench), "strict": True})
    assert len(ds.cases) == 2

    cfg["rubric"]["export"]["status"] = "any"                        # research use: drafts exported as drafts
    assert run_rubric("export", cfg)["exported"] == 3
    with pytest.raises(CaseError, match="meta.rubric.status"):
        load_dataset({"name": "x", "format": "jsonl", "path": str(bench), "strict": True})
    ds = load_dataset({"name": "x", "format": "jsonl", "path": str(bench), "require_approved_rubric": False})
    assert len(ds.cases) == 3 and not ds.errors


def test_keep_locked_restores_physician_criteria() -> None:
    cur = (Criterion(id="c1", text="甲", weight=3), Criterion(id="c2", text="乙", weight=2),
           Criterion(id="c3", text="丙", weight=-4))
    revised = (Criterion(id="c1", text="甲改", weight=5), Criterion(id="c4", text="丁", weight=2))
    out, n = keep_locked(revised, cur, ["c2", "c1"])
    assert [c.id for c in out] == ["c1", "c2", "c4"] and out[0] == cur[0] and out[1] == cur[1] and n == 2
    assert keep_locked(cur, cur, ["c1"]) == (cur, 0)


def test_cli_actions_fail_clearly(tmp_path: Path) -> None:
    r = cli(["rubric", "revise", f"paths.outputs={tmp_path}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "rubric.feedback is not set" in r.stderr
    r = cli(["rubric"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "usage: medrealmm rubric" in r.stderr
    r = cli(["rubric", "approve", f"paths.outputs={tmp_path}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "run `medrealmm rubric generate` (or `import`) first" in r.stderr


def test_lint_any_dataset_from_the_cli(tmp_path: Path) -> None:
    cli(["rubric", "lint", f"paths.outputs={tmp_path}"], cwd=tmp_path)
    findings = (tmp_path / "rubric" / "sample" / "lint" / "findings.csv").read_text(encoding="utf-8")
    assert findings.startswith("case_id,criterion_id,rule,severity,message")
    assert ",error," not in findings                                  # the sample's rubrics pass the bounds


class _Pool:
    def __init__(self, *a, **k) -> None:
        pass

    def close(self) -> None:
        pass


def test_generate_resumes_after_a_crash_and_retries_failures(tmp_path: Path, monkeypatch) -> None:
    """A crash in the middle (test double: the backend raises on its 2nd call) keeps the finished
    chunk; the rerun asks only for the rest; a case that failed is asked again on the next run."""
    import medrealmm.inference.engines as engines
    import medrealmm.rubric.build as build
    from medrealmm.inference.base import Completion
    from medrealmm.rubric.writer import RubricWriter

    cfg, out = _setup(tmp_path)
    (out / "rubrics.jsonl").unlink()
    cfg["rubric"]["chunk_cases"] = 1
    good = json.dumps({"criteria": [{"text": "说明主要异常", "weight": 5, "tags": []},
                                    {"text": "建议复诊", "weight": 3, "tags": []},
                                    {"text": "漏掉危险信号", "weight": -4, "tags": []}]}, ensure_ascii=False)

    class Backend:
        def __init__(self, answers: list[str], crash_on: int | None = None):
            self.answers, self.crash_on, self.asked = answers, crash_on, []

        def chat(self, requests, desc=""):
            if self.crash_on is not None and len(self.asked) + 1 == self.crash_on:
                raise RuntimeError("engine died")
            self.asked.append(len(requests))
            return [Completion(self.answers.pop(0)) for _ in requests]

    def use(backend):
        monkeypatch.setattr(engines, "EnginePool", _Pool)
        monkeypatch.setattr(build, "_writer", lambda cfg, pool: (RubricWriter(backend, RubricSettings(max_retries=0), mode="text"),
                                                                 {"name": "scripted"}))

    use(Backend([good], crash_on=2))
    with pytest.raises(RuntimeError, match="engine died"):
        run_rubric("generate", cfg)
    assert [r.id for r in read_records(out)] == [IDS[0]]
    second = Backend([good, "乱码"])
    use(second)
    stats = run_rubric("generate", cfg)
    assert second.asked == [1, 1] and stats["draft"] == 2 and stats["failed"] == 1
    records = _by_id(out)
    assert records[IDS[2]].status == "failed" and records[IDS[2]].failure == "unparseable"
    third = Backend([good])
    use(third)
    assert run_rubric("generate", cfg)["draft"] == 3 and third.asked == [1]


def test_import_an_existing_dataset_then_refine_and_approve(tmp_path: Path) -> None:
    out = tmp_path / "outputs"
    common = [f"paths.outputs={out}", "rubric.figures=false", "data.case_ids=[derm-001,cardio-001]"]
    cli(["rubric", "import", *common], cwd=tmp_path)
    folder = out / "rubric" / "sample"
    records = _by_id(folder)
    assert set(records) == {"derm-001", "cardio-001"}
    assert all(r.current.source == "imported" and r.round == 0 and r.status == "draft" for r in records.values())
    assert (folder / "review" / "round_0" / "feedback_0_001.csv").is_file()
    again = cli(["rubric", "import", *common], cwd=tmp_path, check=False)
    assert again.returncode == 2 and "already holds rubrics" in again.stderr
    inputs = [f"rubric.input={folder / 'instances.jsonl'}"]            # the images were copied beside it
    fb = _feedback(tmp_path / "feedback_0_001.csv", ["derm-001,c1,reweight,,9,"])
    cli(["rubric", "revise", *common, *inputs, f"rubric.feedback={fb}"], cwd=tmp_path)
    cli(["rubric", "approve", *common, *inputs], cwd=tmp_path)
    ds = load_dataset({"name": "x", "format": "jsonl", "path": str(folder / "benchmark"), "strict": True})
    weights = {c.id: c.weight for c in next(c for c in ds.cases if c.id == "derm-001").rubric}
    assert weights["c1"] == 9 and len(ds.cases) == 1                  # cardio-001 was not reviewed: not approved


def test_sheets_never_overwrite_a_template_and_later_batches_take_new_numbers(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    run_rubric("sheets", cfg)
    folder = out / "review" / "round_0"
    template = folder / "feedback_0_001.csv"
    filled = template.read_text(encoding="utf-8-sig").replace("cardio-001,c1,keep,,,", "cardio-001,c1,reweight,,2,")
    template.write_text(filled, encoding="utf-8-sig")
    run_rubric("sheets", cfg)                                         # nothing new: the filled file stays
    assert template.read_text(encoding="utf-8-sig") == filled
    # two physicians' files applied one after the other: round 1 gets batch 001, then 002
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "a" / "feedback_0_001.csv", ["cardio-001,c1,reweight,,2,"]))
    run_rubric("revise", cfg)
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "b" / "feedback_0_002.csv", ["derm-001,c1,reweight,,2,"]))
    run_rubric("revise", cfg)
    names = sorted(p.name for p in (out / "review" / "round_1").glob("feedback_1_*.csv"))
    assert names == ["feedback_1_001.csv", "feedback_1_002.csv"]
    index = (out / "review" / "round_1" / "index.html").read_text(encoding="utf-8")
    assert "review_1_001.html" in index and "review_1_002.html" in index


def test_the_same_feedback_from_another_path_is_not_applied_again(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    rows = ["endo-001,,add,询问甲状腺家族史,2,"]
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "notes.csv", rows))
    run_rubric("revise", cfg)
    (tmp_path / "copy").mkdir()
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "copy" / "notes.csv", rows))
    assert run_rubric("revise", cfg)["already_applied"] == 1
    assert _by_id(out)["endo-001"].round == 1


def test_llm_failure_leaves_the_case_at_its_round_and_the_rerun_tries_again(tmp_path: Path, monkeypatch) -> None:
    import medrealmm.inference.engines as engines
    import medrealmm.rubric.build as build
    from medrealmm.inference.base import Completion
    from medrealmm.rubric.writer import RubricWriter

    cfg, out = _setup(tmp_path)
    before = _by_id(out)["derm-001"]

    class Backend:
        def __init__(self, answer: str):
            self.answer = answer

        def chat(self, requests, desc=""):
            return [Completion(self.answer) for _ in requests]

    monkeypatch.setattr(engines, "EnginePool", _Pool)
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "f.csv", ["derm-001,c1,reweight,,2,",
                                                                    "derm-001,,comment,,,补充复诊时间"]))
    monkeypatch.setattr(build, "_writer", lambda cfg, pool: (RubricWriter(Backend("不是JSON"), RubricSettings(max_retries=1),
                                                                          mode="text"), {}))
    stats = run_rubric("revise", cfg)
    after = _by_id(out)["derm-001"]
    assert stats["llm_failed"] == 1 and after.versions == before.versions
    assert after.meta["revision_failures"] == {"1": "unparseable"}
    good = {"criteria": [{"id": c.id, "text": c.text, "weight": c.weight, "tags": []} for c in before.criteria]
            + [{"id": None, "text": "说明复诊时间", "weight": 2, "tags": []}]}
    monkeypatch.setattr(build, "_writer", lambda cfg, pool: (RubricWriter(Backend(json.dumps(good, ensure_ascii=False)),
                                                                          mode="text"), {}))
    assert run_rubric("revise", cfg)["llm"] == 1
    now = _by_id(out)["derm-001"]
    assert now.round == 1 and now.current.source == "revised" and now.criteria[0].weight == 2   # the edit kept
    assert now.criteria[-1].text == "说明复诊时间"


def test_stale_records_edited_rubrics_and_moved_images_are_refused(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    inst = Path(cfg["rubric"]["input"])
    lines = inst.read_text(encoding="utf-8").splitlines()
    inst.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")      # endo-001 left mccp (e.g. rejected)
    cfg["rubric"]["approve"]["all"] = True
    assert run_rubric("approve", cfg)["exported"] == 2
    bench = out / "benchmark" / "cases.jsonl"
    rows = [json.loads(x) for x in bench.read_text(encoding="utf-8").splitlines()]
    rows[0]["rubric"][0]["weight"] += 1                              # edited after approval
    bench.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(CaseError, match="differs from the one that was approved"):
        load_dataset({"name": "x", "format": "jsonl", "path": str(bench), "strict": True})
    (inst.parent / "counts.json").write_text(json.dumps({"dataset_root": str(tmp_path / "gone")}), encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="rubric.image_root"):
        run_rubric("export", cfg)


def test_comments_name_criteria_as_they_are_after_the_direct_edits() -> None:
    from medrealmm.rubric.build import _comments_now
    from medrealmm.rubric.feedback import FeedbackItem, apply_feedback

    crit = (Criterion(id="c1", text="说明病因", weight=3), Criterion(id="c2", text="建议复诊", weight=2),
            Criterion(id="c3", text="说明用药并提醒副作用", weight=4))
    items = [FeedbackItem(case_id="x", action="split", criterion_id="c3", parts=(("说明用药", 2), ("提醒副作用", 2))),
             FeedbackItem(case_id="x", action="comment", criterion_id="c3", comment="副作用要具体"),
             FeedbackItem(case_id="x", action="delete", criterion_id="c2", comment="多余")]
    res = apply_feedback(crit, items, case_id="x")
    assert _comments_now(res) == (("c3（已拆分为 c3.1、c3.2）", "副作用要具体"), ("c2（已删除）", "多余"))


def _fill(template: Path, edits: dict[str, str], extra: list[str] = ()) -> Path:
    """A physician's copy of a template: some rows replaced (by their first three cells), rows added."""
    lines = template.read_text(encoding="utf-8-sig").splitlines()
    out = [edits.get(",".join(x.split(",")[:3]), x) for x in lines] + list(extra)
    return _feedback(template.with_name("filled_" + template.name), out[1:])


def test_physician_team_workflow(tmp_path: Path, monkeypatch) -> None:
    """Untouched sheets are not reviewed, a template beside its filled copy is skipped, a sheet corrected
    after its round was applied is reported (not applied), rows of an unnamed file are applied once, a
    repeated comment on the next round's sheet is new feedback, approval keeps every record, revoke reopens."""
    import medrealmm.inference.engines as engines
    import medrealmm.rubric.build as build
    from medrealmm.inference.base import Completion
    from medrealmm.rubric.writer import RubricWriter

    cfg, out = _setup(tmp_path)
    cfg["rubric"]["review"]["batch_size"] = 1
    run_rubric("sheets", cfg)
    r0 = out / "review" / "round_0"
    templates = sorted(r0.glob("feedback_0_*.csv"))
    assert len(templates) == 3 and (r0 / "sheets.json").is_file()
    # cardio's sheet filled as a copy beside its template; the other two untouched
    cardio = next(t for t in templates if "cardio-001" in t.read_text(encoding="utf-8-sig"))
    _fill(cardio, {"cardio-001,c2,keep": "cardio-001,c2,delete,,,"})
    cfg["rubric"]["feedback"] = str(r0)
    stats = run_rubric("revise", cfg)
    assert stats["with_feedback"] == 1 and stats["not_reviewed"] == 2 and stats["signed_off"] == 0
    # the physician corrects the round-0 copy afterwards: reported, not applied
    filled = r0 / f"filled_{cardio.name}"
    filled.write_text(filled.read_text(encoding="utf-8") + "cardio-001,c3,delete,,,\n", encoding="utf-8")
    assert run_rubric("revise", cfg)["changed_after_applied"] == 1
    assert "c3" in {c.id for c in _by_id(out)["cardio-001"].criteria}
    assert run_rubric("approve", cfg)["approved_now"] == 1                   # cardio R1: the physician's own edit
    assert len(read_records(out)) == 3

    # rows of an unnamed file: applied once, even when mixed with new rows later
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "notes.csv", ["derm-001,,add,询问家人是否有类似皮损,3,"]))
    run_rubric("revise", cfg)
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "notes.csv", ["derm-001,,add,询问家人是否有类似皮损,3,",
                                                                       "derm-001,c1,reweight,,4,"]))
    stats = run_rubric("revise", cfg)
    derm = _by_id(out)["derm-001"]
    assert stats["already_applied"] == 1 and derm.round == 2
    assert [c.text for c in derm.criteria].count("询问家人是否有类似皮损") == 1

    # an LLM failure keeps a physician-edited round from counting as signed off
    monkeypatch.setattr(engines, "EnginePool", _Pool)

    class Backend:
        def __init__(self, answer: str):
            self.answer = answer

        def chat(self, requests, desc=""):
            return [Completion(self.answer) for _ in requests]

    monkeypatch.setattr(build, "_writer", lambda cfg, pool: (RubricWriter(Backend("乱码"), RubricSettings(max_retries=0),
                                                                          mode="text"), {}))
    comment = "derm-001,,comment,,,整体缺少对复诊时间的要求"
    (tmp_path / "r2").mkdir()
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "r2" / "feedback_2_001.csv", [comment]))
    assert run_rubric("revise", cfg)["llm_failed"] == 1
    cfg["rubric"]["approve"]["ids"] = None
    assert run_rubric("approve", cfg)["approved_now"] == 0                    # derm R2 has a pending revision
    # the same comment on the next round's sheet is new feedback, not "already applied"
    good = json.dumps({"criteria": [{"id": c.id, "text": c.text, "weight": c.weight, "tags": []}
                                    for c in derm.criteria]}, ensure_ascii=False)
    monkeypatch.setattr(build, "_writer", lambda cfg, pool: (RubricWriter(Backend(good), mode="text"), {}))
    assert run_rubric("revise", cfg)["llm"] == 1 and _by_id(out)["derm-001"].round == 3
    (tmp_path / "r3").mkdir()
    cfg["rubric"]["rounds"] = 5
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "r3" / "feedback_3_001.csv", [comment]))
    stats = run_rubric("revise", cfg)
    assert stats["llm"] == 1 and stats["already_applied"] == 0 and _by_id(out)["derm-001"].round == 4

    # approved cases ignore feedback until revoked
    cfg["rubric"]["approve"]["revoke"] = ["cardio-001"]
    run_rubric("approve", cfg)
    assert _by_id(out)["cardio-001"].status == "draft"


def test_feedback_on_a_sheet_of_a_since_regenerated_rubric_is_refused(tmp_path: Path) -> None:
    cfg, out = _setup(tmp_path)
    run_rubric("sheets", cfg)
    records = read_records(out)
    derm = next(r for r in records if r.id == "derm-001")
    fresh = RubricVersion(round=0, criteria=derm.criteria[:4], source="generated")       # as a new `generate`
    write_records([r if r.id != "derm-001" else r.model_copy(update={"versions": (fresh,)}) for r in records], out)
    (tmp_path / "fb").mkdir()
    cfg["rubric"]["feedback"] = str(_feedback(tmp_path / "fb" / "feedback_0_001.csv", ["derm-001,c1,reweight,,2,"]))
    with pytest.raises(RubricFailed, match="shows another rubric"):
        run_rubric("revise", cfg)
    assert run_rubric("sheets", cfg)["sheets"] == 1                  # the new R(0) gets its own sheet


def test_an_approved_case_without_its_hash_is_refused(tmp_path: Path) -> None:
    raw = json.loads((sample_dir() / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0])
    raw["meta"] = {"rubric": {"status": "approved"}}
    (tmp_path / "cases.jsonl").write_text(json.dumps(raw, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(CaseError, match="meta.rubric.hash"):
        load_dataset({"name": "x", "format": "jsonl", "path": str(tmp_path), "check_images": False, "strict": True})
