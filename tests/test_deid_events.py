"""`medrealmm deid` on event-format consultations (the corpus funnel's raw logs): texts and images of
every origin masked, time/meta dropped by name only, the output still a valid ``Consultation``,
bad events named by case/field/file, resume, review sheets and decisions on events."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from medrealmm.corpus.schema import Consultation
from medrealmm.deid.image.base import Box
from medrealmm.deid.records import ImageSlot, read_records
from medrealmm.deid.removal import RemovalRule

try:
    from tests.conftest import cli
    from tests.test_deid_records import write_records
    from tests.test_deid_stage import HOSPITAL, ID, NAME, PHONE, report_image
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]
    from test_deid_records import write_records  # type: ignore[no-redef]
    from test_deid_stage import HOSPITAL, ID, NAME, PHONE, report_image  # type: ignore[no-redef]

DOCTOR, DOCTOR_PHONE, USER_ID = "李秀英", "13587654321", "wx_user_88231"
REPORT_FILE = "report_王建国.jpg"
SECRETS = (NAME, ID, PHONE, HOSPITAL, DOCTOR, DOCTOR_PHONE, USER_ID, REPORT_FILE)
OUT_FLAGS = ["deid.image.detectors.face.enabled=false"]


def sticker(path: Path) -> None:
    """A transparent PNG sticker: an image event the stage must still clean (origin does not matter)."""
    img = Image.new("RGBA", (96, 96), (0, 0, 0, 0))
    ImageDraw.Draw(img).ellipse((8, 8, 88, 88), fill=(255, 200, 0, 255))
    img.save(path)


def event_rows() -> list[dict]:
    return [
        {"id": "log-1", "department": "血液科", "department_detail": "血液内科",
         "patient": {"age": 34, "sex": "male", "name": NAME},
         "events": [
             {"speaker": "patient", "modality": "text", "time": "2024-03-01T10:00:00",
              "content": f"医生您好，我叫{NAME}，电话{PHONE}，身份证{ID}，昨天在{HOSPITAL}查了血，白细胞6.5，发烧3天了。"},
             {"speaker": "system", "modality": "text", "content": "患者已上传图片"},
             {"speaker": "patient", "modality": "image", "content": f"images/{REPORT_FILE}",
              "origin": "patient_upload", "time": "2024-03-01T10:01:00", "meta": {"uploader": USER_ID}},
             {"speaker": "doctor", "modality": "text", "meta": {"doctor": DOCTOR},
              "content": f"您好，我是{DOCTOR}医生，有问题可以打我电话{DOCTOR_PHONE}。白细胞正常，建议多喝水，3天后复查。"},
             {"speaker": "patient", "modality": "image", "content": "images/sticker.png", "origin": "sticker"},
             {"speaker": "patient", "modality": "text", "content": "谢谢医生"},
         ],
         "meta": {"platform_user": USER_ID, "source": "export"}},
        {"id": "log-2", "department": "儿科", "events": [
            {"speaker": "patient", "content": "孩子咳嗽两周了，体温38.5℃。"},
            {"speaker": "doctor", "content": "建议查血常规。"}]},
        {"id": "log-bad", "department": "内科", "events": [
            {"speaker": "patient", "content": "x"}, {"speaker": "nurse", "content": "y"}]},
    ]


def write_input(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    report_image(folder / "images" / REPORT_FILE)
    sticker(folder / "images" / "sticker.png")
    rows = event_rows()
    for r in rows[:2]:
        Consultation.model_validate(r)          # the input is what the funnel holds
    path = folder / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def events_run(tmp_path_factory) -> tuple[Path, Path, Path, str]:
    tmp = tmp_path_factory.mktemp("deid-events")
    src = write_input(tmp / "in")
    out = tmp / "out"
    r = cli(["deid", f"deid.input={src}", f"deid.out_dir={out}", *OUT_FLAGS, "hydra.verbose=true"], cwd=tmp)
    return tmp, src, out, r.stdout + r.stderr


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def written_text(root: Path, skip: Path | None = None) -> str:
    """Every text file the run wrote under ``root`` (outputs, Hydra logs), the input folder aside."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*")
                     if p.is_file() and (skip is None or not p.is_relative_to(skip))
                     and p.suffix in (".jsonl", ".json", ".html", ".csv", ".log", ".yaml", ".txt"))


def test_outputs_validate_as_consultations(events_run) -> None:
    _, _, out, _ = events_run
    lines = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    cases = {c.id: c for c in (Consultation.model_validate(json.loads(line)) for line in lines)}
    assert list(cases) == ["log-1", "log-2"]
    c = cases["log-1"]
    assert c.patient == {"age": 34, "sex": "male"} and c.meta == {}
    assert (c.department, c.department_detail) == ("血液科", "血液内科")
    assert [(e.speaker, e.modality, e.origin) for e in c.events] == [
        ("patient", "text", None), ("system", "text", None), ("patient", "image", "patient_upload"),
        ("doctor", "text", None), ("patient", "image", "sticker"), ("patient", "text", None)]
    assert all(e.time is None for e in c.events)
    images = [e for e in c.events if e.modality == "image"]
    for e in images:
        path = out / e.content                  # relative to the deid out_dir, like turn images
        assert path.is_file() and "王" not in path.name
        assert e.meta == {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    assert [e.content for e in images] == ["images/log-1/event-2.jpg", "images/log-1/event-4.png"]
    assert all(not e.meta for e in c.events if e.modality == "text")
    errors = read_lines(out / "errors.jsonl")
    assert len(errors) == 1
    assert errors[0]["case_id"] == "log-bad" and errors[0]["field"] == "events.1.speaker"
    assert errors[0]["file"].endswith("cases.jsonl")


def test_patient_and_doctor_texts_are_masked(events_run) -> None:
    _, _, out, _ = events_run
    case = read_lines(out / "cases.jsonl")[0]
    patient, system, _, doctor, _, thanks = (e["content"] for e in case["events"])
    for ph in ("[NAME]", "[PHONE]", "[ID]", "[HOSPITAL]"):
        assert ph in patient, ph
    assert "[NAME]" in doctor and "[PHONE]" in doctor
    for keep in ("白细胞6.5", "3天", "昨天"):
        assert keep in patient
    assert "建议多喝水" in doctor and system == "患者已上传图片" and thanks == "谢谢医生"


def test_nothing_identifying_in_outputs_or_logs(events_run) -> None:
    tmp, src, out, logs = events_run
    text = written_text(tmp, skip=src.parent) + logs
    for secret in SECRETS:
        assert secret not in text, secret
    audit = read_lines(out / "audit.jsonl")
    assert audit[0]["dropped_fields"] == ["events.*.meta", "events.*.time", "meta", "patient.name"]
    assert audit[1]["dropped_fields"] == []
    fields = [t["field"] for t in audit[0]["texts"]]
    assert fields == ["events.0.content", "events.1.content", "events.3.content", "events.5.content"]
    cats = {s["category"] for t in audit[0]["texts"] for s in t["spans"]}
    assert {"NAME", "PHONE", "ID", "HOSPITAL"} <= cats
    assert [{k: im[k] for k in ("event", "path")} for im in audit[0]["images"]] == [
        {"event": 2, "path": "images/log-1/event-2.jpg"}, {"event": 4, "path": "images/log-1/event-4.png"}]
    assert all("turn" not in im for im in audit[0]["images"])
    report = audit[0]["images"][0]
    assert {b["category"] for b in report["boxes"]} & {"NAME", "ID", "HOSPITAL"}
    assert "EXIF" in report["metadata_removed"]
    with Image.open(out / report["path"]) as im:
        assert not im.getexif() and "exif" not in im.info


def test_rerun_resumes_from_parts(events_run, tmp_path: Path) -> None:
    _, src, out, _ = events_run
    before = (out / "cases.jsonl").read_bytes()
    parts = {p.name: p.stat().st_mtime_ns for p in (out / "parts").iterdir()}
    r = cli(["deid", f"deid.input={src}", f"deid.out_dir={out}", *OUT_FLAGS], cwd=tmp_path)
    assert r.returncode == 0
    assert (out / "cases.jsonl").read_bytes() == before
    assert {p.name: p.stat().st_mtime_ns for p in (out / "parts").iterdir()} == parts    # reused, not rewritten
    for case in read_lines(out / "cases.jsonl"):
        for e in case["events"]:
            if e["modality"] == "image":
                assert (out / e["content"]).is_file()


def test_review_sheets_and_decisions_on_events(events_run, tmp_path: Path) -> None:
    _, _, done, _ = events_run
    out = tmp_path / "out"
    shutil.copytree(done, out)              # decisions change the outputs in place; keep the run intact
    cli(["deid-review", f"deid.out_dir={out}", "deid.review.share=1.0"], cwd=tmp_path)
    sheet = sorted((out / "review").glob("batch-*.html"))[0].read_text(encoding="utf-8")
    assert "3 doctor</span>" in sheet and "1 system</span>" in sheet
    assert "[image patient_upload: images/log-1/event-2.jpg]" in sheet and "[image sticker:" in sheet
    assert "<mark>[NAME]</mark>" in sheet and "data:image/png;base64," in sheet
    with open(out / "review" / "decisions_template.csv", encoding="utf-8") as fh:
        assert [r["case_id"] for r in csv.DictReader(fh)] == ["log-1", "log-2"]

    case = read_lines(out / "cases.jsonl")[0]
    text = case["events"][5]["content"]         # "谢谢医生": pretend 医生 were a name left in
    start = text.index("医生")
    img = case["events"][2]["content"]
    decisions = tmp_path / "decisions.csv"
    decisions.write_text("case_id,decision,field,start,end,category,image,x0,y0,x1,y1\n"
                         f"log-1,remask,events.5.content,{start},{start + 2},NAME,,,,,\n"
                         f"log-1,remask,,,,NAME,{img},0,0,50,50\n"
                         "log-2,reject,,,,,,,,,\n", encoding="utf-8")
    cli(["deid-review", f"deid.out_dir={out}", f"deid.review.decisions={decisions}"], cwd=tmp_path)
    lines = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert [Consultation.model_validate(json.loads(line)).id for line in lines] == ["log-1"]
    case = json.loads(lines[0])
    assert case["events"][5]["content"] == "谢谢[NAME]"
    assert case["events"][2]["content"] == img
    assert case["events"][2]["meta"] == {"sha256": hashlib.sha256((out / img).read_bytes()).hexdigest()}
    assert np.asarray(Image.open(out / img).convert("L"))[:44, :44].max() <= 12    # black, up to JPEG noise

    bad = tmp_path / "bad.csv"      # an image event's content is a path, not a text to remask
    bad.write_text("case_id,decision,field,start,end,category,image,x0,y0,x1,y1\n"
                   "log-1,remask,events.2.content,0,3,NAME,,,,,\n", encoding="utf-8")
    r = cli(["deid-review", f"deid.out_dir={out}", f"deid.review.decisions={bad}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "row 1" in r.stderr and "events.2.content" in r.stderr
    assert json.loads((out / "cases.jsonl").read_text(encoding="utf-8").splitlines()[0])["events"][2]["content"] == img


# --- reading event records, without running the stage ------------------------------------------------

def test_event_record_is_whitelisted_and_has_event_slots(tmp_path: Path) -> None:
    path = write_records(tmp_path, [{
        "id": "e1", "department": "皮肤科", "patient": {"age": 30, "name": "张三"}, "phone": "13800138000",
        "meta": {"uid": "u1"}, "y_orig": "您好",
        "events": [{"speaker": "patient", "content": "你好", "time": "2024-01-01", "read": True},
                   {"speaker": "patient", "modality": "image", "content": "images/a.jpg"},
                   {"speaker": "doctor", "modality": "text", "content": ""},
                   {"speaker": "doctor", "modality": "text", "content": "请描述"}]}])
    [(rec, slots, err)] = list(read_records(path))
    assert err is None and rec is not None and rec.shape == "events"
    assert rec.dropped == ["events.*.read", "events.*.time", "meta", "patient.name", "phone", "y_orig"]
    assert rec.raw["patient"] == {"age": 30}
    assert rec.raw["events"][1] == {"speaker": "patient", "modality": "image", "content": "", "origin": "unknown"}
    assert [(s.turn, s.index, s.event, s.shape, s.source.name) for s in slots] == [(1, 0, 1, "events", "a.jpg")]
    assert slots[0].audit() == {"event": 1} and slots[0].stem() == "event-1"
    assert [t.path for t in rec.texts()] == ["events.0.content", "events.3.content"]
    assert rec.get_text("events.3.content") == "请描述"
    rec.set_text("events.3.content", "[NAME]")
    rec.set_image(slots[0], "images/e1/event-1.jpg", "ab" * 32)
    assert rec.raw["events"][1]["content"] == "images/e1/event-1.jpg"
    assert rec.raw["events"][1]["meta"] == {"sha256": "ab" * 32}
    assert rec.find_image("images/e1/event-1.jpg", tmp_path).event == 1
    assert rec.find_image("images/a.jpg", tmp_path) is None
    c = Consultation.model_validate(json.loads(json.dumps(rec.raw)))
    assert c.events[3].content == "[NAME]"


def test_turn_slots_keep_their_shape(tmp_path: Path) -> None:
    path = write_records(tmp_path, [{"id": "t1", "turns": [
        {"role": "patient", "text": "x", "images": [{"path": "images/a.jpg"}, {"path": "images/a.jpg"}]}]}])
    [(rec, slots, _)] = list(read_records(path))
    assert rec is not None and rec.shape == "turns"
    assert [(s.turn, s.index, s.event, s.stem()) for s in slots] == [(0, 0, None, "0-0"), (0, 1, None, "0-1")]
    assert slots[1].audit() == {"turn": 0, "index": 1}
    rec.set_image(slots[1], "images/t1/0-1.jpg", "cd" * 32)
    assert rec.raw["turns"][0]["images"][1] == {"path": "images/t1/0-1.jpg", "sha256": "cd" * 32}
    assert rec.get_text("turns.0.text") == "x"


@pytest.mark.parametrize(("row", "field"), [
    ({"id": "b1", "department": "内科", "events": []}, "events"),
    ({"id": "b2", "events": [{"speaker": "patient", "content": "x"}]}, "department"),
    ({"id": "b3", "department": "内科", "events": [{"speaker": "patient", "content": "x"}, "hi"]}, "events.1"),
    ({"id": "b4", "department": "内科", "events": [{"speaker": "nurse", "content": "x"}]}, "events.0.speaker"),
    ({"id": "b5", "department": "内科", "events": [{"speaker": "patient", "modality": "video", "content": "x"}]},
     "events.0.modality"),
    ({"id": "b6", "department": "内科", "events": [{"speaker": "patient", "content": 3}]}, "events.0.content"),
    ({"id": "b7", "department": "内科", "events": [{"speaker": "patient", "content": "x", "origin": "sticker"}]},
     "events.0.origin"),
    ({"id": "b8", "department": "内科", "events": [
        {"speaker": "patient", "modality": "image", "content": "images/a.jpg", "origin": "camera"}]},
     "events.0.origin"),
    ({"id": "b9", "department": "内科", "events": [
        {"speaker": "doctor", "content": "x"}, {"speaker": "patient", "modality": "image", "content": ""}]},
     "events.1.content"),
    ({"id": "b10", "department": "内科", "events": [
        {"speaker": "patient", "modality": "image", "content": "images/missing_王建国.jpg"}]}, "events.0.content"),
    ({"id": "b11", "department": "内科", "events": [
        {"speaker": "patient", "modality": "image", "content": "../王建国/passwd"}]}, "events.0.content"),
])
def test_bad_event_records_name_case_field_and_file(tmp_path: Path, row: dict, field: str) -> None:
    path = write_records(tmp_path, [row])
    [(rec, _, err)] = list(read_records(path))
    assert rec is None and err is not None
    assert (err.case_id, err.field, err.file) == (row["id"], field, str(path))
    assert "王建国" not in str(err)         # a file name can hold a patient's name: errors are logged


def test_removal_names_the_event(tmp_path: Path) -> None:
    path = write_records(tmp_path, [{"id": "e1", "department": "皮肤科", "events": [
        {"speaker": "patient", "content": "看看"},
        {"speaker": "patient", "modality": "image", "content": "images/a.jpg", "origin": "patient_upload"}]}])
    [(rec, slots, _)] = list(read_records(path))
    assert isinstance(slots[0], ImageSlot)
    rule = RemovalRule(face_area_share=0.2, masked_area_share=0.5)
    reason = rule.reason(rec, [(slots[0], [Box(0, 0, 50, 25, "FACE", "yunet")], (100, 50))])
    assert reason is not None and "the image of event 2" in reason and "face_area_share" in reason
    assert rule.reason(rec, [(slots[0], [Box(0, 0, 10, 10, "FACE", "yunet")], (100, 50))]) is None
