"""Phase 2 (MCCP) resume and physician write-back, with a scripted engine.

A run that stops mid-way (the scripted backend raises on the second chunk, standing in for a crash
or a Slurm time limit) resumes from its finished parts: the first chunk is not asked again and the
outputs equal an uninterrupted run's, byte for byte. A filled validation sheet is applied without
an engine: marks, ``rejected.jsonl``, ``validation/result.json``, idempotent, reapplied on rerun.
"""

from __future__ import annotations

import csv
import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from medrealmm.inference.base import ChatRequest, Completion
from medrealmm.mccp import run_mccp
from medrealmm.mccp import ValidationSheetError, read_instances

try:
    from tests.conftest import cli
    from tests.test_mccp import IMG, PNG, D, P, consultation
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]
    from test_mccp import IMG, PNG, D, P, consultation  # type: ignore[no-redef]

N = 5                      # consultations; chunks of 2 -> 3 parts
OUTPUTS = ("instances.jsonl", "discarded.jsonl", "counts.json")


class Crash(RuntimeError):
    """Stands in for the process dying (engine crash, time limit)."""


class Engine:
    """A scripted backend shared by every ``make_backend`` call: counts requests per consultation
    marker (``问题k``) and can fail on one of them."""

    def __init__(self, fail_on: str | None = None):
        self.fail_on = fail_on
        self.asked: Counter[str] = Counter()
        self.loads = 0

    def make(self, role: dict, backend: dict, **kw: Any) -> Engine:
        self.loads += 1
        return self

    name = "scripted"

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        out = []
        for r in requests:
            text = json.dumps(r.messages, ensure_ascii=False)
            marker = next((f"问题{k}" for k in range(N) if f"问题{k}" in text), "?")
            if marker == self.fail_on:
                raise Crash("engine died")
            self.asked[marker] += 1
            label = (r.json_schema or {}).get("properties", {}).get("label", {})
            if label.get("type") == "string":
                out.append(Completion(json.dumps({"label": label["enum"][0]}, ensure_ascii=False)))
            elif marker == "问题3":                       # consultation 3: agents say no -> discarded
                out.append(Completion('{"label": 0, "score": 0.2, "reason": ""}'))
            else:
                out.append(Completion('{"label": 1, "score": 0.5, "reason": ""}'))
        return out

    def describe(self) -> dict:
        return {"engine": "scripted"}

    def close(self) -> None:
        pass


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "img").mkdir(parents=True)
    cons = []
    for k in range(N):
        (data / "img" / f"{k}.png").write_bytes(PNG)
        cons.append(consultation(f"c{k}", [P("医生你好"), D("您好"), IMG(f"img/{k}.png"), P(f"问题{k}"),
                                           D(f"回复{k}"), P("谢谢")], patient={"age": 30 + k, "sex": "女"}))
    (data / "kept.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in cons), encoding="utf-8")
    return data / "kept.jsonl"


def _cfg(src: Path, out: Path, **mccp: Any) -> dict[str, Any]:
    m = {"input": str(src), "out_dir": str(out), "max_retries": 0, "chunk_consultations": 2, "chunk_size": 64,
         "validation": {"n": 3}, **mccp}
    return {"mccp": m, "model": {"name": "scripted", "modality": "multimodal"}, "backend": {"kind": "scripted"},
            "paths": {"cache": str(out.parent / "cache")}, "run": {"seed": 0}}


def _outputs(out: Path) -> dict[str, str]:
    """The output files, with the run folder's own path (in counts.json's sheet paths) neutralised."""
    return {f: (out / f).read_text(encoding="utf-8").replace(str(out), "<out>") for f in OUTPUTS}


@pytest.fixture
def engine(monkeypatch) -> Engine:
    import medrealmm.inference.engines as engines

    e = Engine()
    monkeypatch.setattr(engines, "make_backend", lambda role, backend, **kw: e.make(role, backend, **kw))
    return e


def test_a_crashed_run_resumes_from_its_parts(tmp_path, engine, caplog) -> None:
    caplog.set_level(logging.INFO)
    src = _data(tmp_path)
    ref = tmp_path / "ref"
    run_mccp(_cfg(src, ref))
    reference, asked_ref = _outputs(ref), Counter(engine.asked)
    assert len(list((ref / "parts").glob("*.json"))) == 3
    assert asked_ref["问题0"] == asked_ref["问题1"] == 4            # A, M, intent, stage
    assert json.loads(reference["counts.json"])["discard_reasons"] == {"no_positive": 1}

    out = tmp_path / "out"
    engine.asked.clear()
    engine.fail_on = "问题2"                                         # the 2nd chunk (c2, c3) dies
    with pytest.raises(Crash):
        run_mccp(_cfg(src, out))
    assert len(list((out / "parts").glob("*.json"))) == 1 and not (out / "instances.jsonl").exists()
    assert not list((out / "parts").glob("*.tmp"))

    engine.asked.clear()
    engine.fail_on = None
    caplog.clear()
    counts = run_mccp(_cfg(src, out))
    assert engine.asked["问题0"] == engine.asked["问题1"] == 0       # the finished chunk is not asked again
    assert engine.asked == asked_ref - Counter({"问题0": 4, "问题1": 4})
    assert "reused 1 of 3" in caplog.text
    assert _outputs(out) == reference                                # byte-identical to the uninterrupted run
    assert counts["agents"]["requests"] == 2 * 5 and counts["annotate"]["requests"] == 2 * 4
    assert counts["parts"] == 3

    loads = engine.loads                                             # all parts done: no engine at all
    run_mccp(_cfg(src, out))
    assert engine.loads == loads and _outputs(out) == reference

    engine.asked.clear()                                             # a setting that changes results re-asks
    changed = _cfg(src, out)
    changed["mccp"]["agents"] = {"sampling": {"temperature": 0.0, "max_tokens": 99}}
    run_mccp(changed)
    assert engine.asked == asked_ref
    engine.asked.clear()
    changed["mccp"]["annotate"] = {"intents": ["用药咨询", "症状咨询"]}
    run_mccp(changed)
    assert engine.asked == asked_ref
    engine.asked.clear()                                             # throughput settings do not
    run_mccp({**changed, "mccp": {**changed["mccp"], "chunk_size": 3}})
    assert not engine.asked


def _sheet(path: Path, rows: list[tuple[str, ...]], header: tuple[str, ...] = ("id", "accept", "comment")) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_physician_decisions_are_written_back(tmp_path, engine) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out"
    run_mccp(_cfg(src, out, validation={"n": 10}))
    before = read_instances(out / "instances.jsonl")
    assert [i.id for i in before] == ["c0", "c1", "c2", "c4"]
    exported = (out / "validation" / "validation.csv").read_text(encoding="utf-8").splitlines()
    assert exported[0] == "id,accept,comment" and len(exported) == 5

    loads = engine.loads
    sheet = _sheet(tmp_path / "filled.csv", [("c0", "yes", "清楚"), ("c1", "否", "不需要看图"), ("c2", "", ""),
                                             ("c4", "Accept", "")])
    cfg = _cfg(src, out, validation={"n": 10, "decisions": str(sheet)})
    result = run_mccp(cfg)
    assert engine.loads == loads                                     # no engine in this mode
    assert result == {"decisions_file": str(sheet), "n_decided": 3, "accepted": 2, "rejected": 1,
                      "rate": pytest.approx(2 / 3), "undecided": 1}
    stored = json.loads((out / "validation" / "result.json").read_text(encoding="utf-8"))
    assert stored["rate"] == pytest.approx(2 / 3) and set(stored["decisions"]) == {"c0", "c1", "c4"}
    kept, rejected = read_instances(out / "instances.jsonl"), read_instances(out / "rejected.jsonl")
    assert [i.id for i in kept] == ["c0", "c2", "c4"] and [i.id for i in rejected] == ["c1"]
    assert kept[0].meta["mccp"]["validation"] == {"decision": "accept", "note": "清楚"}
    assert "validation" not in kept[1].meta["mccp"]
    assert kept[2].meta["mccp"]["validation"] == {"decision": "accept", "note": None}
    assert rejected[0].meta["mccp"]["validation"] == {"decision": "reject", "note": "不需要看图"}
    assert rejected[0].meta["mccp"]["t_star"] == before[1].meta["mccp"]["t_star"]

    files = {f: (out / f).read_bytes() for f in ("instances.jsonl", "rejected.jsonl", "validation/result.json")}
    run_mccp(cfg)                                                    # the same sheet twice: nothing changes
    assert {f: (out / f).read_bytes() for f in files} == files

    run_mccp(_cfg(src, out, validation={"n": 10}))                   # a rerun keeps the physicians' decisions
    assert {f: (out / f).read_bytes() for f in files if f != "validation/result.json"} == {
        f: b for f, b in files.items() if f != "validation/result.json"}
    assert engine.loads == loads
    assert json.loads((out / "counts.json").read_text())["validation_applied"] == {
        "decisions": 3, "rejected": 1, "stale": 0}

    _sheet(sheet, [("c1", "yes", ""), ("c2", "no", "")])             # a new review: c1 back in place, c2 out
    run_mccp(cfg)
    assert [i.id for i in read_instances(out / "instances.jsonl")] == ["c0", "c1", "c4"]
    assert [i.id for i in read_instances(out / "rejected.jsonl")] == ["c2"]
    assert "validation" not in read_instances(out / "instances.jsonl")[0].meta["mccp"]   # no longer decided


def test_bad_sheets_name_file_row_and_column(tmp_path, engine) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out"
    run_mccp(_cfg(src, out))
    untouched = (out / "instances.jsonl").read_bytes()
    cases = [
        ([("c0", "yes", ""), ("c3", "no", "")], r"bad\.csv row 3: unknown id 'c3'"),      # c3 was discarded
        ([("c0", "maybe", "")], r"bad\.csv row 2, column 'accept'.*'maybe'"),
        ([("c0", "", "")], r"bad\.csv: no decided rows"),
    ]
    for rows, msg in cases:
        sheet = _sheet(tmp_path / "bad.csv", rows)
        with pytest.raises(ValidationSheetError, match=msg):
            run_mccp(_cfg(src, out, validation={"decisions": str(sheet)}))
    with pytest.raises(ValidationSheetError, match="missing column"):
        run_mccp(_cfg(src, out, validation={"decisions": str(_sheet(tmp_path / "bad.csv", [("c0",)], ("id",)))}))
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        run_mccp(_cfg(src, out, validation={"decisions": str(tmp_path / "nope.csv")}))
    assert (out / "instances.jsonl").read_bytes() == untouched and not (out / "rejected.jsonl").exists()


def test_a_filled_sheet_in_place_survives_a_rerun(tmp_path, engine) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out"
    run_mccp(_cfg(src, out, validation={"n": 10}))
    sheet = out / "validation" / "validation.csv"
    rows = list(csv.reader(sheet.open(encoding="utf-8", newline="")))
    _sheet(sheet, [(r[0], "yes", "") for r in rows[1:]])
    filled = sheet.read_bytes()
    counts = run_mccp(_cfg(src, out, validation={"n": 10}))
    assert sheet.read_bytes() == filled and counts["validation"]["kept_filled_sheet"] is True
    assert run_mccp(_cfg(src, out, validation={"decisions": str(sheet)}))["rate"] == 1.0


def test_cli_applies_a_sheet_without_an_engine(tmp_path, engine) -> None:
    src = _data(tmp_path)
    out = tmp_path / "out"
    run_mccp(_cfg(src, out))
    sheet = _sheet(tmp_path / "filled.csv", [("c0", "no", "")])
    # no model can be loaded in that process (no cache, offline): the write-back must not need one
    cli(["mccp", f"paths.cache={tmp_path / 'empty'}", f"mccp.out_dir={out}", f"mccp.validation.decisions={sheet}"],
        cwd=tmp_path)
    assert [i.id for i in read_instances(out / "rejected.jsonl")] == ["c0"]
    bad = _sheet(tmp_path / "bad.csv", [("zz", "yes", "")])
    r = cli(["mccp", f"mccp.out_dir={out}", f"mccp.validation.decisions={bad}"], cwd=tmp_path, check=False)
    assert r.returncode != 0 and "bad.csv row 2: unknown id 'zz'" in r.stderr


def test_a_replaced_image_is_asked_again_and_stale_parts_are_removed(tmp_path, engine) -> None:
    from PIL import Image

    src = _data(tmp_path)
    out = tmp_path / "out"
    run_mccp(_cfg(src, out))
    engine.asked.clear()
    Image.new("RGB", (8, 8), "blue").save(src.parent / "img" / "0.png")   # same path, new content
    run_mccp(_cfg(src, out))
    assert engine.asked["问题0"] == 4 and engine.asked["问题1"] == 4 and engine.asked["问题2"] == 0
    assert len(list((out / "parts").glob("*.json"))) == 3                  # the old part of chunk 1 is gone
