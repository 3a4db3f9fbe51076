"""`medrealmm corpus` with de-identification inside the funnel (``corpus.deid.enabled=true``): the
masked consultations come out, nothing identifying is written (outputs, logs), the unmasked image
copies go (and never sit under the outputs, even when the stage fails), a rerun reuses the deid output,
reviewer rejections come back as the ``review`` stage, and a changed rerun refuses to undo reviewer decisions."""

from __future__ import annotations

import copy
import json
import os
import tempfile
from pathlib import Path

import pytest
from PIL import Image

from medrealmm.config import compose
from medrealmm.corpus import REVIEW_REASON
from medrealmm.deid.funnel_step import _private_dir, deid_stamp, reviewer_marks, run_corpus
from medrealmm.corpus.schema import Consultation
from medrealmm.deid.review import apply_decisions

try:
    from tests.conftest import cli
    from tests.test_deid_stage import ID
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]
    from test_deid_stage import ID  # type: ignore[no-redef]

NAME, PHONE, HOSPITAL = "王建国", "13812345678", "北京协和医院"
DOCTOR, USER_ID, TIME = "李秀英", "wx_user_88231", "2024-03-01T10:00:00"
SECRETS = (NAME, PHONE, ID, HOSPITAL, DOCTOR, USER_ID, TIME)
IDS = ["log-0", "log-1", "log-2"]
DEID_FLAGS = ["corpus.deid.enabled=true", "deid.image.detectors.face.enabled=false"]   # no YuNet model file here
STAGE_INPUT = Path("deid") / "input" / "consultations.jsonl"   # the stage's (unmasked) input copy
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp")


def raw_logs(folder: Path, n: int = 3) -> Path:
    """Consultations that pass the funnel's rules, with identifiers in the patient's and the doctor's text,
    in event ``time``/``meta``, in the consultation's ``meta`` and in ``patient.name``."""
    (folder / "images").mkdir(parents=True)
    lines = []
    for i in range(n):
        Image.new("RGB", (64, 48), (200, 40 * (i % 5), 90)).save(folder / "images" / f"r{i}.png")
        Image.new("RGB", (32, 32), "yellow").save(folder / "images" / f"sticker{i}.png")
        events = [
            {"speaker": "system", "content": "您已进入问诊"},
            {"speaker": "patient", "time": TIME, "meta": {"uid": USER_ID},
             "content": f"医生您好，我叫{NAME}，电话{PHONE}，身份证{ID}，昨天在{HOSPITAL}看过，皮肤起红疹{i + 2}天了，很痒。"},
            {"speaker": "doctor", "meta": {"doctor": DOCTOR},
             "content": f"您好，我是{DOCTOR}医生。请问皮疹在什么部位？有没有发烧？"},
            {"speaker": "patient", "content": "在手臂上，没有发烧。这是照片。"},
            {"speaker": "patient", "modality": "image", "content": f"images/r{i}.png", "origin": "patient_upload",
             "time": TIME},
            {"speaker": "patient", "modality": "image", "content": f"images/sticker{i}.png", "origin": "sticker"},
            {"speaker": "doctor", "content": "看起来像湿疹，最近有没有接触新的洗涤剂或者化妆品？"},
            {"speaker": "patient", "content": "换了一种洗衣液。需要吃药吗？"},
            {"speaker": "doctor", "content": "建议先停用新洗衣液，外用炉甘石洗剂，一周后不好转再来复诊。"},
        ]
        lines.append({"id": f"log-{i}", "department": "皮肤科",
                      "patient": {"age": 30 + i, "sex": "male", "name": NAME},
                      "events": events, "meta": {"platform_user": USER_ID}})
    for x in lines:
        Consultation.model_validate(x)
    path = folder / "logs.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def leaks(root: Path, skip: tuple[Path, ...] = ()) -> dict[str, list[str]]:
    """secret -> files under ``root`` (any file, read as bytes) that contain it, ``skip`` aside."""
    found: dict[str, list[str]] = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file() or any(p == s for s in skip):
            continue
        data = p.read_bytes()
        for s in SECRETS:
            if s.encode("utf-8") in data:
                found.setdefault(s, []).append(str(p.relative_to(root)))
    return found


def overall(out: Path) -> dict[str, tuple[int, int]]:
    import polars as pl

    counts = pl.read_parquet(out / "funnel_counts.parquet")
    agg = counts.group_by("stage_index", "stage", maintain_order=True).agg(pl.col("kept").sum(),
                                                                          pl.col("dropped").sum())
    return {r["stage"]: (r["kept"], r["dropped"]) for r in agg.sort("stage_index").iter_rows(named=True)}


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory) -> tuple[Path, Path, Path, str]:
    """``medrealmm corpus ... corpus.deid.enabled=true`` as a user runs it: (tmp, logs, out_dir, stdout+stderr)."""
    tmp = tmp_path_factory.mktemp("corpus-deid")
    logs = raw_logs(tmp / "raw")
    outputs = tmp / "outputs"
    r = cli(["corpus", f"corpus.input={logs}", f"paths.outputs={outputs}", *DEID_FLAGS, "hydra.verbose=true"],
            cwd=tmp)
    return tmp, logs, outputs / "corpus" / "sample", r.stdout + r.stderr


def compose_cfg(logs: Path, outputs: Path, *extra: str) -> dict:
    return compose([f"corpus.input={logs}", f"paths.outputs={outputs}", *DEID_FLAGS, *extra])


# --- the CLI run ------------------------------------------------------------------------------------------

def test_consultations_are_masked_and_validate(cli_run) -> None:
    _, _, out, _ = cli_run
    lines = (out / "consultations.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [Consultation.model_validate_json(line) for line in lines]
    assert [c.id for c in cases] == IDS
    for c in cases:
        assert c.patient == {"age": c.patient["age"], "sex": "male"} and c.meta == {}
        assert all(e.time is None for e in c.events)
        patient_text = c.events[1].content
        for ph in ("[NAME]", "[PHONE]", "[ID]", "[HOSPITAL]"):
            assert ph in patient_text, ph
        assert "[NAME]" in c.events[2].content
        assert "皮肤起红疹" in patient_text and "炉甘石洗剂" in c.events[-1].content      # clinical text stays
        images = [e for e in c.events if e.modality == "image"]
        assert [e.origin for e in images] == ["patient_upload", "sticker"]
        for e in images:            # masked copies next to consultations.jsonl, named by position only
            assert e.content.startswith(f"images/{c.id}/event-") and (out / e.content).is_file()
            assert (out / e.content).read_bytes() == (out / "deid" / "output" / e.content).read_bytes()
            assert set(e.meta) == {"sha256"}


def test_nothing_identifying_is_written_or_logged(cli_run) -> None:
    tmp, _, out, logs_text = cli_run
    for s in SECRETS:
        assert s not in logs_text, s
    assert not leaks(tmp / "outputs")
    dropped = (out / "dropped.jsonl").read_text(encoding="utf-8")
    assert dropped == ""


def test_stage_input_copies_are_deleted(cli_run) -> None:
    """The stage's unmasked input (consultations and image copies) exists only while it runs."""
    _, _, out, _ = cli_run
    assert not (out / "deid" / "input").exists()


def test_funnel_counts_have_deid_and_review(cli_run) -> None:
    _, _, out, _ = cli_run
    assert overall(out) == {"input": (3, 0), "image_availability": (3, 0), "dialogue_quality": (3, 0),
                            "department_balance": (3, 0), "deid": (3, 0), "review": (3, 0)}
    assert (out / "deid" / "output" / "funnel_input.sha256").is_file()
    md = (out / "funnel.md").read_text(encoding="utf-8")
    assert "deid" in md and "review" in md


def test_deid_enabled_and_deid_dir_is_an_error(cli_run, tmp_path: Path) -> None:
    _, logs, _, _ = cli_run
    outputs = tmp_path / "outputs"
    r = cli(["corpus", f"corpus.input={logs}", f"paths.outputs={outputs}", *DEID_FLAGS,
             f"corpus.deid_dir={tmp_path / 'earlier-deid'}"], cwd=tmp_path, check=False)
    assert r.returncode != 0
    assert "corpus.deid.enabled" in r.stderr and "corpus.deid_dir" in r.stderr and "only one" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (outputs / "corpus" / "sample" / "consultations.jsonl").exists()
    with pytest.raises(ValueError, match="set only one of them"):
        run_corpus(compose_cfg(logs, outputs, f"corpus.deid_dir={tmp_path / 'earlier-deid'}"))


# --- in process: rerun, review -----------------------------------------------------------------------------

@pytest.fixture()
def first_run(tmp_path: Path) -> tuple[Path, Path, Path]:
    logs = raw_logs(tmp_path / "raw")
    outputs = tmp_path / "outputs"
    res = run_corpus(compose_cfg(logs, outputs))
    assert [c.id for c in res.kept] == IDS and not res.dropped
    assert res.stages[-2:] == ["deid", "review"]
    return logs, outputs, outputs / "corpus" / "sample"


def test_rerun_reuses_the_deid_output(first_run, caplog) -> None:
    logs, outputs, out = first_run
    deid_out = out / "deid" / "output"
    watched = ["cases.jsonl", "removed.jsonl", "audit.jsonl", "funnel_input.sha256"]
    before = {f: (deid_out / f).stat().st_mtime_ns for f in watched}
    kept_before = (out / "consultations.jsonl").read_bytes()
    os.utime(logs)                                      # touched, same content: still the same input
    with caplog.at_level("INFO", logger="medrealmm.deid.funnel_step"):
        res = run_corpus(compose_cfg(logs, outputs))
    assert "reusing" in caplog.text
    assert {f: (deid_out / f).stat().st_mtime_ns for f in watched} == before
    assert (out / "consultations.jsonl").read_bytes() == kept_before
    assert [c.id for c in res.kept] == IDS
    stage_in = out / "deid" / "input"
    assert not [p for p in stage_in.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]


def test_changed_deid_config_rebuilds(first_run) -> None:
    logs, outputs, out = first_run
    stamp = (out / "deid" / "output" / "funnel_input.sha256").read_text()
    run_corpus(compose_cfg(logs, outputs, "deid.image.pad=6"))
    assert (out / "deid" / "output" / "funnel_input.sha256").read_text() != stamp


def _decisions(path: Path, rows: str) -> Path:
    path.write_text("case_id,decision,field,start,end,category,image,x0,y0,x1,y1\n" + rows, encoding="utf-8")
    return path


def test_reviewer_rejection_is_the_review_stage_in_process(first_run, tmp_path: Path) -> None:
    logs, outputs, out = first_run
    deid_out = out / "deid" / "output"
    apply_decisions(deid_out, _decisions(tmp_path / "d.csv", "log-1,reject,,,,,,,,,\nlog-0,accept,,,,,,,,,\n"))
    res = run_corpus(compose_cfg(logs, outputs))
    assert [c.id for c in res.kept] == ["log-0", "log-2"]
    assert [(d.id, d.stage, d.reason) for d in res.dropped] == [("log-1", "review", REVIEW_REASON)]
    assert overall(out)["deid"] == (3, 0) and overall(out)["review"] == (2, 1)


def test_reviewer_rejection_reaches_the_output_and_reuses_deid(first_run, tmp_path: Path) -> None:
    """What holds today even with the bug above: the rejected case is dropped (at some stage), the deid
    output is reused (the decision survives the rerun), and the rejection is in removed.jsonl."""
    logs, outputs, out = first_run
    deid_out = out / "deid" / "output"
    apply_decisions(deid_out, _decisions(tmp_path / "d.csv", "log-1,reject,,,,,,,,,\n"))
    cases_mtime = (deid_out / "cases.jsonl").stat().st_mtime_ns
    res = run_corpus(compose_cfg(logs, outputs))
    assert (deid_out / "cases.jsonl").stat().st_mtime_ns == cases_mtime          # not rebuilt
    assert {"id": "log-1", "reason": REVIEW_REASON} in read_lines(deid_out / "removed.jsonl")
    assert [c.id for c in res.kept] == ["log-0", "log-2"]
    assert [d.id for d in res.dropped] == ["log-1"]
    kept = read_lines(out / "consultations.jsonl")
    assert [c["id"] for c in kept] == ["log-0", "log-2"]
    assert [d["id"] for d in read_lines(out / "dropped.jsonl")] == ["log-1"]


def test_deid_review_cli_then_corpus_records_the_review_stage(first_run, tmp_path: Path) -> None:
    logs, outputs, out = first_run
    deid_out = out / "deid" / "output"
    d = _decisions(tmp_path / "d.csv", "log-2,reject,,,,,,,,,\n")
    cli(["deid-review", f"deid.out_dir={deid_out}", f"deid.review.decisions={d}"], cwd=tmp_path)
    r = cli(["corpus", f"corpus.input={logs}", f"paths.outputs={outputs}", *DEID_FLAGS], cwd=tmp_path)
    for s in SECRETS:
        assert s not in r.stdout + r.stderr, s
    dropped = read_lines(out / "dropped.jsonl")
    assert dropped == [{"id": "log-2", "stage": "review", "reason": REVIEW_REASON, "department": "皮肤科"}]
    assert [c["id"] for c in read_lines(out / "consultations.jsonl")] == ["log-0", "log-1"]


# --- reviewer decisions are never undone silently ----------------------------------------------------------

REMASK = "log-0,remask,events.3.content,1,3,NAME,,,,,\n"      # "在手臂上，…": the reviewer masks 手臂


@pytest.mark.parametrize("rows", [REMASK, "log-1,reject,,,,,,,,,\n"], ids=["remask", "reject"])
def test_changed_rerun_refuses_to_undo_reviewer_decisions(first_run, tmp_path: Path, rows: str) -> None:
    logs, outputs, out = first_run
    deid_out = out / "deid" / "output"
    apply_decisions(deid_out, _decisions(tmp_path / "d.csv", rows))
    assert reviewer_marks(deid_out)
    run_corpus(compose_cfg(logs, outputs))                 # same input and config: reused, decisions applied
    if rows == REMASK:
        assert read_lines(out / "consultations.jsonl")[0]["events"][3]["content"].startswith("在[NAME]上")
    watched = {f: (deid_out / f).read_bytes() for f in ("cases.jsonl", "audit.jsonl", "removed.jsonl")}
    kept = (out / "consultations.jsonl").read_bytes()
    with pytest.raises(ValueError, match="discard_review") as e:
        run_corpus(compose_cfg(logs, outputs, "deid.image.pad=6"))
    assert "deid config" in str(e.value) and "keep the old input and config" in str(e.value)
    assert (out / "consultations.jsonl").read_bytes() == kept
    assert {f: (deid_out / f).read_bytes() for f in watched} == watched
    r = cli(["corpus", f"corpus.input={logs}", f"paths.outputs={outputs}", *DEID_FLAGS, "deid.image.pad=6"],
            cwd=tmp_path, check=False)
    assert r.returncode == 2 and "corpus.deid.discard_review=true" in r.stderr and "Traceback" not in r.stderr
    assert (out / "consultations.jsonl").read_bytes() == kept


def test_discard_review_rebuilds_with_a_warning(first_run, tmp_path: Path, caplog) -> None:
    logs, outputs, out = first_run
    deid_out = out / "deid" / "output"
    apply_decisions(deid_out, _decisions(tmp_path / "d.csv", REMASK))
    stamp = (deid_out / "funnel_input.sha256").read_text()
    with caplog.at_level("WARNING", logger="medrealmm.deid.funnel_step"):
        res = run_corpus(compose_cfg(logs, outputs, "deid.image.pad=6", "corpus.deid.discard_review=true"))
    assert "discard_review=true" in caplog.text and "review again" in caplog.text
    assert (deid_out / "funnel_input.sha256").read_text() != stamp
    assert not reviewer_marks(deid_out)                    # rebuilt: to be reviewed again
    assert [c.id for c in res.kept] == IDS
    assert read_lines(out / "consultations.jsonl")[0]["events"][3]["content"].startswith("在手臂上")


def test_deid_stamp_includes_the_agent_model(tmp_path: Path) -> None:
    cfg = compose_cfg(tmp_path / "logs.jsonl", tmp_path / "outputs")
    other = copy.deepcopy(cfg)
    other["model"] = {**other["model"], "name": "another-model", "path": "org/another-model"}
    body = '{"id": "log-0"}\n'
    assert deid_stamp(body, cfg) == deid_stamp(body, other)          # rules only: the model plays no part
    for c in (cfg, other):
        c["deid"]["text"]["agent"] = True
    assert deid_stamp(body, cfg) != deid_stamp(body, other)
    assert deid_stamp(body, cfg) != deid_stamp(body + "x", cfg)


# --- the unmasked stage input never sits under the outputs -------------------------------------------------

@pytest.fixture()
def private_tmp(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_failing_stage_leaves_no_unmasked_input(tmp_path: Path, private_tmp: Path, monkeypatch) -> None:
    import medrealmm.deid.funnel_step

    logs = raw_logs(tmp_path / "raw")
    outputs = tmp_path / "outputs"
    out = outputs / "corpus" / "sample"
    stale = out / "deid" / "input"                         # what an older version left after a kill
    (stale / "images").mkdir(parents=True)
    (stale / "consultations.jsonl").write_bytes(logs.read_bytes())
    (stale / "images" / "r0.png").write_bytes((logs.parent / "images" / "r0.png").read_bytes())
    seen: list[Path] = []

    def crash(cfg: dict) -> dict:
        stage_in = Path(cfg["deid"]["input"])
        seen.append(stage_in)
        assert stage_in.is_file() and stage_in.parent.parent == private_tmp
        assert not stage_in.is_relative_to(outputs)
        assert (stage_in.parent.stat().st_mode & 0o777) == 0o700
        for c in read_lines(stage_in):          # image paths resolve next to the stage's JSONL, as deid reads them
            for e in c["events"]:
                if e.get("modality") == "image":
                    assert (stage_in.parent / e["content"]).is_file()
        raise RuntimeError("killed")

    monkeypatch.setattr(medrealmm.deid.funnel_step, "run_deid", crash)
    with pytest.raises(RuntimeError, match="killed"):
        run_corpus(compose_cfg(logs, outputs))
    assert len(seen) == 1 and not seen[0].parent.exists() and not list(private_tmp.iterdir())
    assert not stale.exists()
    assert not leaks(outputs)
    assert not [p for p in outputs.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]


def test_private_dir_is_private_and_stable(private_tmp: Path) -> None:
    a = _private_dir("k" * 64)
    assert a.parent == private_tmp and (a.stat().st_mode & 0o777) == 0o700 and not list(a.iterdir())
    (a / "left-by-a-kill.jsonl").write_text(NAME, encoding="utf-8")
    b = _private_dir("k" * 64)                    # same key: same path (deid's parts resume), emptied
    assert b == a and not list(b.iterdir())
    b.chmod(0o755)                                # not private: not reused
    c = _private_dir("k" * 64)
    assert c != b and c.parent == private_tmp and (c.stat().st_mode & 0o777) == 0o700


def test_run_leaves_no_stage_input_and_no_temp_folder(first_run, private_tmp: Path) -> None:
    logs, outputs, out = first_run
    run_corpus(compose_cfg(logs, outputs, "deid.image.pad=7"))       # rebuilt: the stage ran again
    assert not (out / "deid" / "input").exists() and not list(private_tmp.iterdir())
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert str(private_tmp) not in json.dumps(manifest)


def test_unmasked_images_of_an_earlier_run_are_removed(tmp_path: Path) -> None:
    logs = raw_logs(tmp_path / "raw")
    outputs = tmp_path / "outputs"
    out = outputs / "corpus" / "sample"
    run_corpus(compose([f"corpus.input={logs}", f"paths.outputs={outputs}"]))       # no deid: raw copies
    assert (out / "images" / "r0.png").read_bytes() == (logs.parent / "images" / "r0.png").read_bytes()
    (out / "images" / "note.txt").write_text("kept without deid", encoding="utf-8")
    run_corpus(compose([f"corpus.input={logs}", f"paths.outputs={outputs}"]))       # without deid: left alone
    assert (out / "images" / "note.txt").is_file()
    run_corpus(compose_cfg(logs, outputs))
    referenced = {e["content"] for c in read_lines(out / "consultations.jsonl") for e in c["events"]
                  if e.get("modality") == "image"}
    present = {p.relative_to(out).as_posix() for p in (out / "images").rglob("*") if p.is_file()}
    assert present == referenced and all(p.startswith("images/log-") for p in present)
    assert (logs.parent / "images" / "r0.png").is_file()              # the input's images are untouched


def test_out_dir_holding_the_input_images_is_refused(tmp_path: Path) -> None:
    logs = raw_logs(tmp_path / "raw")
    with pytest.raises(ValueError, match="choose another out_dir"):
        run_corpus(compose_cfg(logs, tmp_path / "outputs", f"corpus.out_dir={logs.parent}"))
    assert (logs.parent / "images" / "r0.png").is_file()
