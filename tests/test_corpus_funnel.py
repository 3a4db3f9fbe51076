"""Phase 1 funnel: each rule at its thresholds, the importers, department balance, the real CMtMedQA file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
import yaml

from medrealmm.corpus.funnel import (
    department_balance,
    department_quotas,
    dialogue_quality,
    image_availability,
    run_funnel,
    write_funnel,
)
from medrealmm.corpus.importers import UNKNOWN, read_cmtmedqa, read_consultations
from medrealmm.corpus.schema import Consultation, Event
from medrealmm.schema import CaseError

try:
    from tests.conftest import shared_dir
except ImportError:  # pragma: no cover - run from tests/
    from conftest import shared_dir

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = yaml.safe_load((ROOT / "conf" / "corpus" / "default.yaml").read_text(encoding="utf-8"))


def P(text: str = "医生您好，我想咨询一下") -> Event:
    return Event(speaker="patient", content=text)


def D(text: str = "您好，请描述一下具体症状和持续时间") -> Event:
    return Event(speaker="doctor", content=text)


def img(origin: str = "patient_upload", speaker: str = "patient") -> Event:
    return Event(speaker=speaker, modality="image", content="a.jpg", origin=origin)


def cons(events: list[Event], cid: str = "c1", dept: str = "皮肤科") -> Consultation:
    return Consultation(id=cid, department=dept, events=tuple(events))


def alternating(turns: int) -> list[Event]:
    """``turns`` alternating turns starting with the patient, one message each."""
    return [P() if i % 2 == 0 else D() for i in range(turns)]


def quality(c: Consultation, **over) -> str | None:
    cfg = {**DEFAULT["dialogue_quality"], **over}
    res = dialogue_quality([c], cfg)
    return res.dropped[0][1] if res.dropped else None


# ------------------------------------------------------------------------------------------------
# image availability


def test_image_availability_counts_only_patient_uploads():
    upload = cons([P(), img("patient_upload"), D()], "up")
    sticker = cons([P(), img("sticker"), img("emoji"), img("platform", "system"), D()], "st")
    doctor_img = cons([P(), img("patient_upload", "doctor"), D()], "doc")  # origin says upload, speaker is doctor
    unknown = cons([P(), img("unknown"), D()], "unk")
    res = image_availability([upload, sticker, doctor_img, unknown], DEFAULT["image_availability"])
    assert [c.id for c in res.kept] == ["up", "doc"]  # is_medical_image goes by origin (the schema's rule)
    reasons = dict(res.dropped)
    assert reasons["st"] == "patient images 0 < 1 (other images: emoji 1, platform 1, sticker 1)"
    assert reasons["unk"].startswith("patient images 0 < 1")
    assert image_availability([sticker], {"enabled": True, "min_images": 0}).kept


def test_image_availability_can_be_skipped():
    res = image_availability([cons([P(), D()])], {"enabled": False})
    assert res.skipped and len(res.kept) == 1 and not res.dropped


# ------------------------------------------------------------------------------------------------
# dialogue quality


def test_turn_bounds_are_inclusive():
    assert quality(cons(alternating(4))) == "turns 4 < 5"
    assert quality(cons(alternating(5))) is None
    assert quality(cons(alternating(30))) is None
    assert quality(cons(alternating(31))) == "turns 31 > 30"


def test_a_turn_is_a_run_of_one_side_and_system_messages_do_not_split_it():
    events = [P(), P(), img(), Event(speaker="system", content="系统提示：医生已接诊"), P(),  # 1 patient turn
              D(), P(), D(), P(), D()]  # 6 turns; doctor 3 of 9 messages
    c = cons(events)
    assert quality(c) is None
    assert quality(cons(events[:6] + [D()])) == "turns 2 < 5"


def test_text_length_at_4000_chars():
    base = alternating(6)
    used = sum(len(e.content) for e in base[1:])
    exact = cons([P("字" * (4000 - used))] + base[1:])
    over = cons([P("字" * (4001 - used))] + base[1:])
    system_text = cons([P("字" * (4000 - used))] + base[1:] + [Event(speaker="system", content="广告" * 100)])
    assert quality(exact) is None
    assert quality(over) == "text 4001 chars > 4000"
    assert quality(system_text) is None  # platform text does not count


def test_doctor_share_cap_at_one_half():
    half = cons([P(), D(), P(), D(), P(), D(), D(), P()])  # doctor 4/8 = 0.5: kept
    above = cons([P(), D(), P(), D(), P(), D(), D()])        # doctor 4/7 > 0.5
    assert quality(half) is None
    assert quality(above) == "doctor sends 4/7 messages (0.57 > 0.50)"
    patient_heavy = cons([P(), P(), P(), D(), P(), D(), P(), D(), P()])
    assert quality(patient_heavy) is None  # the patient cap is off by default
    assert quality(patient_heavy, max_side_share={"doctor": 0.5, "patient": 0.6}).startswith("patient sends 6/9")
    assert quality(above, max_side_share=0.6) is None         # a number: the doctor's cap alone
    assert quality(above, max_side_share=None) is None        # no cap


def test_refund_close_with_and_without_diagnostic_exchange():
    greet = "您好"  # too short to be diagnostic
    no_exchange = cons([P(), D(greet), P("在吗"), D(greet), P("算了不问了，申请退款")])
    assert quality(no_exchange) == ("patient closed with cancellation/refund (phrase '退款') after 0 diagnostic "
                                    "doctor message(s) < 2")
    one = cons([P(), D(), P("在吗"), D(greet), P("申请退款")])
    assert "after 1 diagnostic" in quality(one)
    exchanged = cons([P(), D(), P("好的"), D(), P("谢谢，我申请退款吧")])
    assert quality(exchanged) is None
    not_last = cons([P("能退款吗"), D(greet), P("好吧继续问"), D(greet), P("谢谢")])
    assert quality(not_last) is None  # only the patient's last turn counts
    assert quality(no_exchange, cancel_phrases=["投诉"]) is None


def test_llm_hook_is_off_unless_given():
    c = cons(alternating(6))
    assert dialogue_quality([c], DEFAULT["dialogue_quality"]).kept
    res = dialogue_quality([c], DEFAULT["dialogue_quality"], llm_check=lambda xs: ["not a consultation"] * len(xs))
    assert res.dropped == [("c1", "llm check: not a consultation")]


# ------------------------------------------------------------------------------------------------
# department balance


def _corpus(sizes: dict[str, int]) -> list[Consultation]:
    return [cons(alternating(6), f"{d}-{i}", d) for d, n in sizes.items() for i in range(n)]


def test_quotas_floor_cap_and_target():
    q = department_quotas({"a": 1000, "b": 300, "c": 20, "d": 5}, 200, floor=30, cap=120)
    assert q["c"] == 20 and q["d"] == 5            # long tail: all kept
    assert sum(q.values()) == 200
    assert q["a"] <= 120 and q["a"] >= q["b"] >= 30
    assert department_quotas({"a": 500, "b": 10}, 1000, floor=30, cap=100) == {"a": 100, "b": 10}  # caps below target
    assert department_quotas({"a": 50, "b": 50}, 10, floor=30) == {"a": 30, "b": 30}  # floor beats the target


def test_department_balance_is_deterministic_and_seeded():
    items = _corpus({"皮肤科": 300, "外科": 120, "心理科": 8})
    cfg = {"target_size": 100, "floor": 10, "max_per_department": 60, "seed": 0}
    a = department_balance(items, cfg)
    b = department_balance(list(reversed(items)), cfg)
    assert {c.id for c in a.kept} == {c.id for c in b.kept}
    counts = Counter(c.department for c in a.kept)
    assert counts["心理科"] == 8 and counts["皮肤科"] <= 60 and sum(counts.values()) == 100
    assert [c.id for c in a.kept] == [c.id for c in items if c.id in {x.id for x in a.kept}]  # input order
    other = department_balance(items, {**cfg, "seed": 1})
    assert {c.id for c in other.kept} != {c.id for c in a.kept}
    assert len(a.dropped) == len(items) - 100
    assert all(r.startswith(("department 皮肤科: quota", "department 外科: quota")) for _, r in a.dropped)
    bigger = department_balance(items, {**cfg, "target_size": 150})
    assert {c.id for c in a.kept} <= {c.id for c in bigger.kept}  # nested across sizes


def test_max_share_caps():
    items = _corpus({"a": 100, "b": 100})
    res = department_balance(items, {"target_size": 200, "max_share": 0.25})
    assert Counter(c.department for c in res.kept) == {"a": 50, "b": 50}


# ------------------------------------------------------------------------------------------------
# importers


def test_identity_jsonl_roundtrip(tmp_path):
    c = Consultation(id="x1", department="儿科", patient={"age": 3}, events=(P(), img(), D()))
    path = tmp_path / "logs.jsonl"
    path.write_text(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) + "\n\n", encoding="utf-8")
    assert list(read_consultations(path)) == [c]


def test_mapped_export_with_value_maps_and_bad_records(tmp_path):
    mapping = {
        "fields": {"id": "consult_id", "department": "dept.name", "events": "msgs"},
        "event_fields": {"speaker": "role", "modality": "type", "content": "body", "time": "ts", "origin": "src"},
        "values": {"speaker": {"1": "patient", "2": "doctor", "0": "system"},
                   "modality": {"txt": "text", "pic": "image"},
                   "origin": {"upload": "patient_upload", "sticker": "sticker"}},
    }
    good = {"consult_id": 7, "dept": {"name": "皮肤科"}, "msgs": [
        {"role": 1, "type": "txt", "body": "手上起疹子", "ts": 1714557600},
        {"role": 1, "type": "pic", "body": "a.jpg", "src": "upload"},
        {"role": 1, "type": "pic", "body": "s.gif", "src": "sticker"},
        {"role": "0", "type": "txt", "body": "医生已接诊"},
        {"role": 2, "type": "txt", "body": "多久了？"}]}
    bad_speaker = {"consult_id": "b1", "dept": {"name": "儿科"}, "msgs": [{"role": 9, "type": "txt", "body": "x"}]}
    no_events = {"consult_id": "b2", "dept": {"name": "儿科"}, "msgs": []}
    no_dept = {"consult_id": "b3", "msgs": [{"role": 1, "type": "txt", "body": "x"}]}
    lines = [json.dumps(good, ensure_ascii=False), "{not json", "[1, 2]", json.dumps(bad_speaker),
             json.dumps(no_events), json.dumps(no_dept)]
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = list(read_consultations(path, mapping))
    c = out[0]
    assert isinstance(c, Consultation) and c.id == "7" and c.department == "皮肤科"
    assert [e.speaker for e in c.events] == ["patient", "patient", "patient", "system", "doctor"]
    assert [e.origin for e in c.events] == [None, "patient_upload", "sticker", None, None]
    assert c.events[0].time == "2024-05-01T10:00:00+00:00"
    assert sum(e.is_medical_image for e in c.events) == 1
    errors = out[1:]
    assert all(isinstance(e, CaseError) for e in errors) and len(errors) == 5
    assert errors[0].file == f"{path}:2" and "not valid JSON" in errors[0].reason
    assert errors[1].file == f"{path}:3"
    assert (errors[2].case_id, errors[2].field) == ("b1", "events[0].speaker")
    assert (errors[3].case_id, errors[3].field) == ("b2", "events")
    assert (errors[4].case_id, errors[4].field) == ("b3", "department")
    with pytest.raises(ValueError, match="unknown field"):
        list(read_consultations(path, {"fields": {"speaker": "role"}}))


def test_cmtmedqa_shape(tmp_path):
    recs = [{"id": "j1", "cate1": "外科", "cate2": "骨科", "instruction": "还要复查吗？", "input": "",
             "output": "建议两周后复查。", "history": [["膝盖疼", "多久了？"], ["一周", "拍个片子看看"]]},
            {"instruct": "问题", "output": "回答"},
            {"id": "j3", "cate1": "nan", "cate2": "", "instruction": "q", "output": "a", "history": "bad"}]
    path = tmp_path / "d.json"
    path.write_text(json.dumps(recs, ensure_ascii=False), encoding="utf-8")
    a, b, err = list(read_cmtmedqa(path))
    assert a.department == "外科" and a.department_detail == "骨科" and a.meta["source_id"] == "j1"
    assert [e.speaker for e in a.events] == ["patient", "doctor"] * 3
    assert a.events[-2].content == "还要复查吗？" and a.id.startswith("cmtmedqa-00000-")
    assert b.department == UNKNOWN and len(b.events) == 2
    assert isinstance(err, CaseError) and err.field == "history" and err.case_id == "j3"
    assert [x.id for x in read_cmtmedqa(path) if isinstance(x, Consultation)] == [a.id, b.id]  # stable


# ------------------------------------------------------------------------------------------------
# the funnel


def test_run_funnel_records_every_stage_and_hooks(tmp_path):
    items = [cons([P(), img(), D(), P(), D(), P()], f"ok{i}", "皮肤科") for i in range(4)]
    items += [cons([P(), img("sticker"), D(), P(), D(), P()], "sticker", "儿科"),
              cons([P(), img(), D()], "short", "儿科")]
    cfg = {**DEFAULT, "department_balance": {**DEFAULT["department_balance"], "target_size": 3, "floor": 1}}
    res = run_funnel(items + [CaseError("bad", case_id="e1")], cfg,
                     deid={"ok0": "face is the evidence"}, review=None)
    assert res.stages == ["input", "image_availability", "dialogue_quality", "department_balance", "deid"]
    overall = {r["stage"]: (r["kept"], r["dropped"]) for r in res.overall().iter_rows(named=True)}
    assert overall["input"] == (6, 0) and overall["image_availability"] == (5, 1)
    assert overall["dialogue_quality"] == (4, 1) and overall["department_balance"][0] == 3
    assert len(res.errors) == 1
    kept_ids = {c.id for c in res.kept}
    assert "ok0" not in kept_ids or overall["deid"] == (3, 0)
    assert {d.stage for d in res.dropped} >= {"image_availability", "dialogue_quality", "department_balance"}
    # review from a deid out_dir's removed.jsonl: only reviewer rejections
    deid_dir = tmp_path / "deid"
    deid_dir.mkdir()
    (deid_dir / "removed.jsonl").write_text(
        "\n".join(json.dumps(r) for r in [{"id": "ok1", "reason": "face share 0.4 > 0.3"},
                                          {"id": "ok2", "reason": "rejected by reviewer"}]) + "\n")
    res2 = run_funnel(items, {**DEFAULT, "department_balance": {"enabled": False}}, deid=deid_dir, review=deid_dir)
    stages = {d.id: (d.stage, d.reason) for d in res2.dropped}
    assert stages["ok1"] == ("deid", "face share 0.4 > 0.3") and stages["ok2"] == ("review", "rejected by reviewer")
    assert "department_balance" in res2.skipped
    out = write_funnel(res2, tmp_path / "out")
    kept = [Consultation.model_validate_json(line) for line in (out / "consultations.jsonl").read_text().splitlines()]
    assert [c.id for c in kept] == [c.id for c in res2.kept]
    dropped = [json.loads(line) for line in (out / "dropped.jsonl").read_text().splitlines()]
    assert {d["id"] for d in dropped} == set(stages) and all(d["reason"] for d in dropped)
    counts = pl.read_parquet(out / "funnel_counts.parquet")
    assert counts.equals(pl.read_csv(out / "funnel_counts.csv", schema=counts.schema))
    assert counts.group_by("stage").agg(pl.col("kept").sum()).height == len(res2.stages)


# ------------------------------------------------------------------------------------------------
# the real CMtMedQA file


@pytest.fixture(scope="module")
def cmtmedqa_result():
    path = shared_dir() / "fixtures" / "dialogues" / "CMtMedQA_test.json"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    cfg = {**DEFAULT, "image_availability": {"enabled": False}}
    return run_funnel(read_cmtmedqa(path), cfg)


def test_cmtmedqa_funnel_counts_are_stable(cmtmedqa_result):
    res = cmtmedqa_result
    overall = [(r["stage"], r["kept"], r["dropped"]) for r in res.overall().iter_rows(named=True)]
    assert overall == [("input", 1144, 0), ("image_availability", 1144, 0),
                       ("dialogue_quality", 951, 193), ("department_balance", 897, 54)]
    assert res.skipped == ["image_availability"] and not res.errors
    assert Counter(d.reason for d in res.dropped if d.stage == "dialogue_quality") == {
        "turns 2 < 5": 167, "turns 4 < 5": 26}
    by_dept = {r["department"]: r["kept"] for r in
               res.counts.filter(pl.col("stage") == "department_balance").iter_rows(named=True)}
    assert by_dept["皮肤科"] == 150 and by_dept["外科"] == 150 and by_dept["心理科"] == 27
    assert all(d.reason and d.stage for d in res.dropped)
    assert len({d.id for d in res.dropped}) == len(res.dropped) == 1144 - len(res.kept)


def test_funnel_report_renders(cmtmedqa_result, tmp_path):
    from medrealmm.corpus.funnel_report import department_table, funnel_figure, funnel_markdown, write_report
    md = funnel_markdown(cmtmedqa_result)
    assert "| dialogue_quality | 951 | 193 |" in md and "皮肤科" in md
    assert department_table(cmtmedqa_result, 5).height == 5
    png = funnel_figure(cmtmedqa_result)
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    written = write_report(cmtmedqa_result, tmp_path)
    assert set(written) == {"markdown", "overall", "departments", "figure"}


def test_run_corpus_from_config(tmp_path):
    from medrealmm.corpus import run_corpus

    logs = tmp_path / "logs.jsonl"
    rows = [cons([P(), img(), D(), P(), D(), P()], f"c{i}", "皮肤科") for i in range(3)]
    logs.write_text("\n".join(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) for c in rows) + "\n",
                    encoding="utf-8")
    cfg = {"paths": {"outputs": str(tmp_path / "outputs")}, "data": {"name": "toy"},
           "corpus": {**DEFAULT, "input": str(logs)}}
    res = run_corpus(cfg)
    out = tmp_path / "outputs" / "corpus" / "toy"
    assert len(res.kept) == 3 and (out / "consultations.jsonl").is_file() and (out / "funnel.md").is_file()
    with pytest.raises(ValueError, match="corpus.input"):
        run_corpus({**cfg, "corpus": {**DEFAULT}})


def test_the_bundled_raw_logs_walk_through_the_funnel(tmp_path) -> None:
    """`medrealmm corpus corpus.input=sample`: the sample's consultations kept, the planted noise dropped."""
    import json

    from medrealmm.config import compose
    from medrealmm.corpus import run_corpus

    res = run_corpus(compose(["corpus.input=sample", f"paths.outputs={tmp_path}"]))
    dropped = {d.id: d.stage for d in res.dropped}
    assert dropped == {"log-sticker-only": "image_availability", "log-refund": "dialogue_quality",
                       "log-too-short": "dialogue_quality"}
    assert "log-identifiers" in {c.id for c in res.kept} and len(res.kept) == 20
    kept = [json.loads(x) for x in (tmp_path / "corpus" / "sample" / "consultations.jsonl").read_text().splitlines()]
    assert len(kept) == 20 and all((tmp_path / "corpus" / "sample" / e["content"]).is_file()
                                   for c in kept for e in c["events"] if e.get("modality") == "image")
