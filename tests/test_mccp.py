"""Phase 2 (MCCP): candidates, selection, agents, instances, annotation, validation sheets.

Most tests script the model (a backend double); ``test_mccp_on_the_tiny_vllm_models`` runs the
real vLLM CPU engine (``engine`` marker) on the tiny random text and VL models in a child process.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from medrealmm.corpus.schema import Consultation, Event
from medrealmm.inference.base import ChatRequest, Completion
from medrealmm.mccp import run_mccp
from medrealmm.mccp.agents import AGENT_SCHEMA, UNPARSEABLE, CandidateRef, ChallengeAgents, parse_agent_output
from medrealmm.mccp.annotate import (DEFAULT_INTENTS, DEFAULT_STAGES, DEFINITIONS, Annotator, check_labels,
                                     label_lines, label_schema, parse_label, validate_label)
from medrealmm.mccp.instances import (Instance, InstanceError, ValidationSheetError, build_instance,
                                      export_validation, import_validation, merge_turns, next_reply, read_instances,
                                      to_case, write_instances)
from medrealmm.mccp.select import (NO_CANDIDATE, NO_POSITIVE, UNSCORED, AgentScore, candidate_positions,
                                   select_challenge_point)
from medrealmm.schema import Case, CaseError

ROOT = Path(__file__).resolve().parents[1]
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
       b"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
SECRET = "左前臂环形红斑伴瘙痒两周"


def P(text: str = "", **kw) -> Event:
    return Event(speaker="patient", content=text, **kw)


def D(text: str = "", **kw) -> Event:
    return Event(speaker="doctor", content=text, **kw)


def S(text: str = "系统提示") -> Event:
    return Event(speaker="system", content=text)


def IMG(path: str, origin: str = "patient_upload", speaker: str = "patient") -> Event:
    return Event(speaker=speaker, modality="image", content=path, origin=origin)


def consultation(cid: str, events: list[Event], **kw) -> Consultation:
    return Consultation(id=cid, department=kw.pop("department", "皮肤科"), events=tuple(events), **kw)


def sc(label: int, score: float) -> AgentScore:
    return AgentScore(label, score)


# --- candidate positions ---------------------------------------------------------------------------

def test_candidates_need_a_medical_image_before() -> None:
    ev = [P("医生你好"), D("您好"), P("这是照片"), IMG("a.png"), P("您看看"), D("像湿疹"), D("用药膏"), P("谢谢"),
          D("不客气")]
    assert candidate_positions(ev) == [4, 7]          # index 0 precedes the image; consecutive doctor events = 1 run


def test_candidates_image_after_and_non_medical_images() -> None:
    assert candidate_positions([P("你好"), D("您好"), IMG("a.png")]) == []            # image after every reply
    assert candidate_positions([IMG("s.png", "sticker"), P("在吗"), D("在")]) == []   # a sticker is not medical
    assert candidate_positions([IMG("d.png", "doctor_upload", "doctor"), P("看到了"), D("好")]) == []
    assert candidate_positions([IMG("a.png")]) == []                                  # no doctor reply


def test_candidates_skip_system_events_and_image_only_replies() -> None:
    ev = [IMG("a.png"), S("患者已付款"), S("医生已接诊"), D("您好"), P("帮我看看"), S("系统"), D("好的"), S("x"),
          D("是湿疹"), P("那怎么办"), IMG("rx.png", "doctor_upload", "doctor"), P("还有呢"), D("")]
    # index 0 is a patient image followed (through system events) by a doctor reply: a candidate itself
    assert candidate_positions(ev) == [0, 4]   # run at 10 is an image only; run at 12 has blank text only
    assert next_reply(ev, 4) == "好的\n是湿疹"


def test_doctor_opening_gives_no_candidate() -> None:
    assert candidate_positions([D("您好，请描述病情"), IMG("a.png"), D("收到")]) == [1]


# --- selection -----------------------------------------------------------------------------------

def test_select_argmax_of_summed_scores() -> None:
    sel = select_challenge_point([2, 5, 9], {2: sc(1, .9), 5: sc(1, .8), 9: sc(1, .5)},
                                 {2: sc(1, .2), 5: sc(1, .9), 9: sc(1, .9)})
    assert sel.t_star == 5 and sel.reason is None and sel.n_kept == 3 and sel.kept == (2, 5, 9)
    assert sel.scores == pytest.approx({"s_a": .8, "s_m": .9, "sum": 1.7})


def test_select_tie_goes_to_the_earliest() -> None:
    a = {3: sc(1, .5), 7: sc(1, .7), 9: sc(1, .7)}
    m = {3: sc(1, .9), 7: sc(1, .7), 9: sc(1, .7)}
    assert select_challenge_point([9, 7, 3], a, m).t_star == 3        # 1.4 == 1.4 == 1.4 (floats) -> earliest


def test_select_one_label_zero_is_dropped() -> None:
    sel = select_challenge_point([1, 4], {1: sc(0, 1.0), 4: sc(1, .1)}, {1: sc(1, 1.0), 4: sc(1, .1)})
    assert sel.t_star == 4 and sel.kept == (4,)
    sel = select_challenge_point([1], {1: sc(1, 1.0)}, {1: sc(0, .9)})
    assert sel.t_star is None and sel.reason == NO_POSITIVE


def test_select_no_candidate_and_unscored() -> None:
    assert select_challenge_point([], {}, {}).reason == NO_CANDIDATE
    sel = select_challenge_point([1, 4], {1: None, 4: sc(0, .9)}, {1: sc(1, .9), 4: sc(1, .9)})
    assert sel.t_star is None and sel.reason == UNSCORED and sel.n_unscored == 1
    sel = select_challenge_point([1, 4], {1: None, 4: sc(1, .2)}, {4: sc(1, .2)})    # missing M entry = unscored
    assert sel.t_star == 4 and sel.n_unscored == 1


def test_agent_score_checks() -> None:
    for bad in ((2, .5), (1, 1.5), (0, -0.1), (True, .5)):
        with pytest.raises(ValueError):
            AgentScore(*bad)


# --- agents with a scripted backend --------------------------------------------------------------

class ScriptedBackend:
    name = "scripted"

    def __init__(self, answer: Callable[[ChatRequest, int], Completion]):
        self.answer = answer
        self.calls: list[list[ChatRequest]] = []
        self.attempt = 0

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        self.calls.append(requests)
        return [self.answer(r, len(self.calls) - 1) for r in requests]

    def describe(self) -> dict:
        return {}

    def close(self) -> None:
        pass


def _text_of(req: ChatRequest) -> str:
    c = req.messages[-1]["content"]
    return c if isinstance(c, str) else "".join(p.get("text", "") for p in c)


@pytest.mark.parametrize(("out", "expect"), [
    ('{"label": 1, "score": 0.8, "reason": "需要读化验单"}', (1, .8)),
    ('```json\n{"label": "0", "score": "0.3"}\n```', (0, .3)),
    ('<think>想一想</think>结论：{"label": true, "score": 1}', (1, 1.0)),
    ('{"label": 1, "score": 1.7}', None), ('{"label": 2, "score": .5}', None), ("是的", None), (None, None),
    ('{"label": 1, "score": .5} {"label": 0, "score": .5}', None),
])
def test_parse_agent_output(out: str | None, expect: tuple[int, float] | None) -> None:
    got = parse_agent_output(out)
    assert (None if got is None else (got.label, got.score)) == expect


def _consultations() -> list[Consultation]:
    return [
        consultation("c1", [P("医生你好"), D("您好"), P(SECRET), IMG("img/c1-1.png"), P("您看看"), D("像体癣"),
                            P("怎么用药"), D("外用抗真菌药")], patient={"age": 28, "sex": "女"}),
        consultation("c2", [IMG("img/c2-1.png"), P("化验单"), S("医生已接诊"), D("血红蛋白偏低"), D("补铁")]),
        consultation("c3", [P("你好"), D("您好")]),
    ]


def test_agents_batch_all_candidates_and_leave_unreadable_unscored(tmp_path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    (tmp_path / "img").mkdir()
    for n in ("c1-1", "c2-1"):
        (tmp_path / "img" / f"{n}.png").write_bytes(PNG)

    def answer(req: ChatRequest, call: int) -> Completion:
        text = _text_of(req)
        if "c2" in text or "化验单" in text and "医生：[" not in text:
            return Completion(f"无法判断：{text}")                                   # unreadable, quotes the text
        return Completion(json.dumps({"label": 1, "score": .6 if "怎么用药" in text else .9, "reason": "r"}))

    backend = ScriptedBackend(answer)
    agents = ChallengeAgents(backend, image_bytes=lambda p: (tmp_path / p).read_bytes(), chunk_size=3, max_retries=1,
                             a_view="prefix")
    cands = [CandidateRef(c, t) for c in _consultations() for t in candidate_positions(c.events)]
    assert [(c.consultation.id, c.t) for c in cands] == [("c1", 4), ("c1", 6), ("c2", 1)]
    out = agents.score(cands)
    assert len(out) == 6
    assert [len(c) for c in backend.calls[:2]] == [3, 3]                       # 6 requests in chunks of 3
    assert all(r.json_schema == AGENT_SCHEMA for c in backend.calls for r in c)
    m_req = next(r for r in backend.calls[0] if "图片" in r.messages[0]["content"] and not isinstance(
        r.messages[-1]["content"], str))
    assert any(p["type"] == "image_url" and p["image_url"]["url"].startswith("data:image/png")
               for p in m_req.messages[-1]["content"])
    assert out[("c1", 4, "A")].value == AgentScore(1, .9) and out[("c1", 6, "A")].value == AgentScore(1, .6)
    assert out[("c2", 1, "A")].value is None and out[("c2", 1, "A")].error == UNPARSEABLE
    assert out[("c2", 1, "A")].attempts == 2
    retry = backend.calls[-1][0]
    assert retry.sampling.temperature == 0.7 and retry.sampling.seed != backend.calls[0][0].sampling.seed
    assert agents.stats["unscored_A"] == 1 and agents.stats["unscored_M"] == 1
    assert SECRET not in caplog.text and "化验单" not in caplog.text
    text_agents = ChallengeAgents(ScriptedBackend(answer), mode="text", structured=False)
    text_agents.score(cands[:1])
    assert all(isinstance(r.messages[-1]["content"], str) and r.json_schema is None
               for c in text_agents.backend.calls for r in c)


def test_agent_a_sees_the_whole_trajectory_and_agent_m_only_the_prefix(tmp_path) -> None:
    (tmp_path / "img").mkdir()
    for n in ("c1-1", "c2-1"):
        (tmp_path / "img" / f"{n}.png").write_bytes(PNG)
    backend = ScriptedBackend(lambda r, c: Completion('{"label": 1, "score": 1, "reason": ""}'))
    agents = ChallengeAgents(backend, image_bytes=lambda p: (tmp_path / p).read_bytes())   # default: trajectory
    c1 = _consultations()[0]
    agents.score([CandidateRef(c1, 4)])
    a_req, m_req = backend.calls[0]
    later = next(e.content for e in c1.events[5:] if e.modality == "text" and e.content.strip())
    assert "【候选时刻】" in _text_of(a_req) and later in _text_of(a_req)          # the real reply and after
    assert later not in _text_of(m_req)                                            # M: up to t only
    with pytest.raises(ValueError, match="agent_a_view"):
        ChallengeAgents(backend, image_bytes=lambda p: b"", a_view="future")


def test_unreadable_image_leaves_candidate_unscored(tmp_path) -> None:
    backend = ScriptedBackend(lambda r, c: Completion('{"label": 1, "score": 1, "reason": ""}'))
    agents = ChallengeAgents(backend, image_bytes=lambda p: (tmp_path / p).read_bytes())
    out = agents.score([CandidateRef(_consultations()[1], 1)])
    assert out[("c2", 1, "A")].value == AgentScore(1, 1.0) and out[("c2", 1, "M")].value is None


# --- instances -----------------------------------------------------------------------------------

def test_instance_is_x_up_to_t_star_and_the_next_reply() -> None:
    c = consultation("c1", [P("医生你好"), D("您好"), P("这是手臂的照片"), IMG("img/a.png"), IMG("s.gif", "sticker"),
                            P("您看看"), S("提示"), D("像体癣"), D("能否拍近一点"), P("好的"), IMG("img/b.png"),
                            D("确实是体癣")], patient={"age": 28, "sex": "女"}, department_detail="皮肤病")
    pos = candidate_positions(c.events)
    assert pos == [5, 10]
    sel = select_challenge_point(pos, {5: sc(1, .9), 10: sc(1, .5)}, {5: sc(1, .9), 10: sc(1, .5)})
    inst = build_instance(c, sel)
    assert isinstance(inst, Instance) and [t.role for t in inst.turns] == ["patient", "doctor", "patient"]
    assert inst.turns[2].text == "这是手臂的照片\n您看看" and [i.path for i in inst.turns[2].images] == ["img/a.png"]
    assert inst.y_orig == "像体癣\n能否拍近一点"
    assert inst.patient.sex == "female" and inst.patient.age == 28 and inst.meta["department_detail"] == "皮肤病"
    assert inst.meta["mccp"]["t_star"] == 5 and inst.meta["mccp"]["scores"]["sum"] == pytest.approx(1.8)
    case = to_case(inst, [{"id": "c1", "text": "指出体癣可能", "weight": 5}, {"id": "c2", "text": "乱开药", "weight": -3}])
    assert isinstance(case, Case) and case.n_images == 1 and case.y_orig == inst.y_orig and case.intent is None
    with pytest.raises(CaseError):
        to_case(inst, [{"id": "c1", "text": "负面", "weight": -2}])
    with pytest.raises(CaseError):
        to_case(inst, [])


def test_instance_errors_and_paths(tmp_path) -> None:
    sel = select_challenge_point([0], {0: sc(1, 1)}, {0: sc(1, 1)})
    with pytest.raises(InstanceError):
        build_instance(consultation("bad", [IMG("/etc/a.png"), D("好")]), sel)
    with pytest.raises(InstanceError):
        build_instance(consultation("bad", [IMG("../a.png"), D("好")]), sel)
    with pytest.raises(InstanceError):
        build_instance(consultation("bad", [IMG("a.png"), D("好")]), select_challenge_point([], {}, {}))
    inst = build_instance(consultation("ok", [IMG("x\\a.png"), D("好")]), sel)
    assert inst.turns[0].images[0].path == "x/a.png" and inst.turns[0].text == ""
    write_instances([inst], tmp_path / "i.jsonl")
    assert read_instances(tmp_path / "i.jsonl") == [inst]
    assert "rubric" not in json.loads((tmp_path / "i.jsonl").read_text())
    assert merge_turns([S(), IMG("e.png", "emoji")]) == []


# --- annotation ----------------------------------------------------------------------------------

def test_default_labels_match_the_sample_dataset() -> None:
    rows = [json.loads(x) for x in (ROOT / "medrealmm/data/sample/cases.jsonl").read_text().splitlines() if x.strip()]
    assert {r["intent"] for r in rows} <= set(DEFAULT_INTENTS) and {r["stage"] for r in rows} == set(DEFAULT_STAGES)
    assert len(DEFAULT_INTENTS) == 7 and DEFAULT_INTENTS[0] == "症状咨询"
    # the paper's stage names; no intent is a stage name
    assert {"病史采集", "患者问答", "治疗建议", "诊断与解释及治疗建议"} <= set(DEFAULT_STAGES)
    assert not set(DEFAULT_INTENTS) & set(DEFAULT_STAGES)
    assert set(DEFINITIONS["intent"]) == set(DEFAULT_INTENTS) and set(DEFINITIONS["stage"]) == set(DEFAULT_STAGES)


def test_annotator_prompt_carries_the_definitions() -> None:
    inst = build_instance(consultation("p1", [IMG("a.png"), P("问题"), D("好")]),
                          select_challenge_point([1], {1: sc(1, 1)}, {1: sc(1, 1)}))
    ann = Annotator(ScriptedBackend(lambda r, c: Completion("")))
    for task, labels in (("intent", DEFAULT_INTENTS), ("stage", DEFAULT_STAGES)):
        system = ann.messages(inst, task)[0]["content"]
        for lab in labels:
            assert f"- {lab}：{DEFINITIONS[task][lab]}" in system
    assert "意图" in ann.messages(inst, "intent")[0]["content"]
    assert "意图" not in ann.messages(inst, "stage")[0]["content"]
    # a dataset's own labels (labels_from) without a definition are listed bare
    other = Annotator(ScriptedBackend(lambda r, c: Completion("")), stages=["治疗建议", "术后随访"])
    system = other.messages(inst, "stage")[0]["content"]
    assert f"- 治疗建议：{DEFINITIONS['stage']['治疗建议']}" in system and "\n- 术后随访\n" in system
    assert label_lines(["x"], "intent") == "- x"


def test_label_parsing_and_validation() -> None:
    labels = DEFAULT_INTENTS
    assert parse_label('{"label": "用药咨询"}', labels) == "用药咨询"
    assert parse_label("<think>…</think>检查结果解读。", labels) == "检查结果解读"
    assert parse_label('{"label": "闲聊"}', labels) is None
    assert parse_label('{"label": "用药咨询"} {"label": "治疗咨询"}', labels) is None
    assert parse_label("可能是用药咨询也可能是治疗咨询", labels) is None
    assert validate_label(" “疾病咨询” ", labels) == "疾病咨询" and validate_label(3, labels) is None
    stages = DEFAULT_STAGES        # 诊断与解释 and 治疗建议 are inside the combined stage's name
    assert parse_label("阶段：诊断与解释及治疗建议。", stages) == "诊断与解释及治疗建议"
    assert parse_label('{"label": "诊断与解释及治疗建议"}', stages) == "诊断与解释及治疗建议"
    assert parse_label("诊断与解释", stages) == "诊断与解释"
    assert parse_label("可能是诊断与解释，也可能是治疗建议", stages) is None
    assert label_schema(labels)["properties"]["label"]["enum"] == list(labels)
    with pytest.raises(ValueError):
        check_labels([], "intent")
    with pytest.raises(ValueError):
        check_labels(["a", "a"], "stage")


def test_annotator_sets_labels_or_null_with_reason() -> None:
    sel = select_challenge_point([1], {1: sc(1, 1)}, {1: sc(1, 1)})
    insts = [build_instance(consultation(f"i{k}", [IMG("a.png"), P(f"问题{k}"), D("好")]), sel) for k in range(3)]

    def answer(req: ChatRequest, call: int) -> Completion:
        if "问题2" in _text_of(req):
            return Completion("不知道")
        return Completion('{"label": "用药咨询"}' if "意图" in req.messages[0]["content"] else '{"label": "治疗建议"}')

    backend = ScriptedBackend(answer)
    out = Annotator(backend, max_retries=1, chunk_size=2).annotate(insts)
    assert [(i.intent, i.stage) for i in out] == [("用药咨询", "治疗建议")] * 2 + [(None, None)]
    assert out[2].meta["mccp"]["annotation"]["intent"] == {"status": "null", "error": UNPARSEABLE, "attempts": 2}
    assert out[2].meta["mccp"]["t_star"] == 1
    assert all(r.json_schema["properties"]["label"]["enum"] in (list(DEFAULT_INTENTS), list(DEFAULT_STAGES))
               for c in backend.calls for r in c)
    assert [len(c) for c in backend.calls] == [2, 1, 1, 2, 1, 1]


# --- physician validation ------------------------------------------------------------------------

def test_validation_export_and_import(tmp_path) -> None:
    (tmp_path / "a.png").write_bytes(PNG)
    sel = select_challenge_point([1], {1: sc(1, 1)}, {1: sc(1, 1)})
    insts = [build_instance(consultation(f"v{k:02d}", [IMG("a.png"), P("<b>看看</b>"), D("好")]), sel) for k in range(30)]
    out = export_validation(insts, tmp_path / "val", n=10, seed=1, image_bytes=lambda p: (tmp_path / p).read_bytes())
    assert out["n"] == 10
    page = Path(out["html"]).read_text()
    assert page.count("<section") == 10 and "data:image/png;base64" in page and "&lt;b&gt;" in page
    rows = Path(out["csv"]).read_text().splitlines()
    assert rows[0] == "id,accept,comment" and len(rows) == 11
    again = export_validation(insts, tmp_path / "val2", n=10, seed=1)
    assert Path(again["csv"]).read_text() == Path(out["csv"]).read_text()
    ids = [r.split(",")[0] for r in rows[1:]]
    filled = tmp_path / "f.csv"
    filled.write_text("id,accept,comment\n" + "\n".join(f"{i},{'no' if k == 0 else 'yes'}," for k, i in enumerate(ids)))
    assert import_validation(filled, ids=[i.id for i in insts]) == pytest.approx(0.9)
    for body, msg in [("id,comment\nv01,x", "missing column"), ("id,accept\nv01,maybe", "row 2"),
                      ("id,accept\nv01,yes\nv01,no", "duplicate"), ("id,accept\nzz,yes", "unknown id"),
                      ("id,accept\n", "no reviewed rows"), ("id,accept\nv01,", "row 2")]:
        filled.write_text(body)
        with pytest.raises(ValidationSheetError, match=msg):
            import_validation(filled, ids=[i.id for i in insts])


# --- run_mccp with a scripted engine --------------------------------------------------------------

def test_run_mccp_writes_instances_and_discards(tmp_path, monkeypatch) -> None:
    data = tmp_path / "data"
    (data / "img").mkdir(parents=True)
    for n in ("c1-1", "c2-1"):
        (data / "img" / f"{n}.png").write_bytes(PNG)
    (data / "kept.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in _consultations()))

    def answer(req: ChatRequest, call: int) -> Completion:
        if req.json_schema is not None and "enum" in json.dumps(req.json_schema["properties"]["label"]) \
                and req.json_schema["properties"]["label"].get("type") == "string":
            labels = req.json_schema["properties"]["label"]["enum"]
            return Completion(json.dumps({"label": labels[0]}, ensure_ascii=False))
        return Completion('{"label": 1, "score": 0.5, "reason": ""}' if "c2" not in _text_of(req) else "??")

    import medrealmm.inference.engines as engines
    monkeypatch.setattr(engines, "make_backend", lambda role, backend, **kw: ScriptedBackend(answer))
    cfg = {"mccp": {"input": str(data / "kept.jsonl"), "out_dir": str(tmp_path / "out"), "max_retries": 0,
                    "validation": {"n": 5}},
           "model": {"name": "scripted", "modality": "multimodal"}, "backend": {"kind": "scripted"},
           "paths": {"cache": str(tmp_path / "cache")}, "run": {"seed": 0}}
    counts = run_mccp(cfg)
    assert counts["consultations"] == 3 and counts["candidates"] == 3
    assert counts["instances"] == 2 and counts["discard_reasons"] == {"no_candidate": 1}
    insts = read_instances(tmp_path / "out" / "instances.jsonl")
    assert [(i.id, i.meta["mccp"]["t_star"], i.intent, i.stage) for i in insts] == [
        ("c1", 4, DEFAULT_INTENTS[0], DEFAULT_STAGES[0]), ("c2", 1, DEFAULT_INTENTS[0], DEFAULT_STAGES[0])]
    assert [json.loads(x)["reason"] for x in (tmp_path / "out" / "discarded.jsonl").read_text().splitlines()] == [
        "no_candidate"]
    assert (tmp_path / "out" / "validation" / "validation.csv").exists()
    assert json.loads((tmp_path / "out" / "counts.json").read_text())["instances"] == 2


# --- the real engine -----------------------------------------------------------------------------

SCRIPT = r"""
import json, sys
from pathlib import Path

if __name__ == "__main__":
    import yaml
    from medrealmm.testing.logs import capture_package_log

    buf = capture_package_log()
    from medrealmm.corpus.schema import Consultation
    from medrealmm.inference.base import Sampling
    from medrealmm.inference.engines import make_backend
    from medrealmm.mccp.agents import CandidateRef, ChallengeAgents
    from medrealmm.mccp.annotate import Annotator
    from medrealmm.mccp.instances import build_instance, to_case
    from medrealmm.mccp.select import candidate_positions, select_challenge_point, AgentScore

    cache, root, data = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    cons = [Consultation.model_validate_json(x) for x in (data / "kept.jsonl").read_text().splitlines()]
    from medrealmm.inference.tiny_models import tiny_engine_config
    out = {}
    for kind, mode in (("text", "text"), ("vl", "multimodal")):
        role, backend_cfg = tiny_engine_config(kind)
        backend = make_backend(role, backend_cfg, cache_dir=cache, seed=0)
        calls = []
        chat = backend.chat
        def counted(reqs, desc="", _chat=chat):
            calls.append(len(reqs))
            return _chat(reqs, desc=desc)
        backend.chat = counted
        agents = ChallengeAgents(backend, image_bytes=lambda p: (data / p).read_bytes(), mode=mode, chunk_size=4,
                                 max_retries=1, sampling=Sampling(temperature=1.0, max_tokens=200, seed=0))
        cands = [CandidateRef(c, t) for c in cons for t in candidate_positions(c.events)]
        outcomes = agents.score(cands)
        sels, insts = {}, []
        for c in cons:
            pos = candidate_positions(c.events)
            s = select_challenge_point(pos, {t: outcomes[(c.id, t, "A")].value for t in pos},
                                       {t: outcomes[(c.id, t, "M")].value for t in pos})
            sels[c.id] = [s.t_star, s.reason, s.n_unscored]
            # random weights rarely answer 1/1: build instances at the first candidate as well, for the plumbing
            forced = select_challenge_point(pos, {t: AgentScore(1, .5) for t in pos}, {t: AgentScore(1, .5) for t in pos})
            if forced.selected:
                insts.append(build_instance(c, forced))
        ann = Annotator(backend, chunk_size=3, max_retries=1, sampling=Sampling(temperature=1.0, max_tokens=32, seed=0))
        annotated = ann.annotate(insts)
        case = to_case(annotated[0], [{"id": "p1", "text": "x", "weight": 1}])
        out[kind] = {"calls": calls, "n_candidates": len(cands), "stats": dict(agents.stats), "ann": dict(ann.stats),
                     "values": [[k[0], k[1], k[2], None if o.value is None else [o.value.label, o.value.score], o.error]
                                for k, o in outcomes.items()],
                     "selections": sels, "labels": [[i.intent, i.stage] for i in annotated],
                     "case_images": case.n_images}
        if kind == "text":   # without constrained decoding a random model writes no JSON: unscored, counted
            plain = ChallengeAgents(backend, mode="text", structured=False, max_retries=0, chunk_size=8,
                                    sampling=Sampling(temperature=1.0, max_tokens=48, seed=0))
            plain.score(cands)
            out[kind]["plain"] = dict(plain.stats)
        backend.close()
    from medrealmm.mccp import run_mccp
    role, backend_cfg = tiny_engine_config("vl")
    mccp = yaml.safe_load((root / "conf/mccp/default.yaml").read_text())
    mccp.update(input=str(data / "kept.jsonl"), out_dir=str(data.parent / "out"))
    mccp["agents"]["sampling"].update(temperature=1.0, max_tokens=200)
    out["run_mccp"] = run_mccp({"mccp": mccp, "model": role, "backend": backend_cfg, "paths": {"cache": cache},
                                "run": {"seed": 0}})
    print("RESULT", json.dumps(out, ensure_ascii=False))
    print("OURLOG", json.dumps(buf.getvalue(), ensure_ascii=False))
"""


def _engine_data(tmp_path: Path) -> Path:
    from PIL import Image

    data = tmp_path / "data"
    (data / "img").mkdir(parents=True)
    for k, color in enumerate([(200, 30, 30), (30, 200, 30), (30, 30, 200), (220, 220, 40)]):
        Image.new("RGB", (32, 32), color).save(data / "img" / f"{k}.png")
    cons = [
        consultation("e1", [P("医生你好"), D("您好，请说"), P(SECRET), IMG("img/0.png"), P("您看看"), D("像体癣"),
                            P("需要用什么药"), D("外用药膏")], patient={"age": 28, "sex": "女"}),
        consultation("e2", [IMG("img/1.png"), IMG("img/2.png"), P("血常规化验单"), S("医生已接诊"), D("血红蛋白偏低"),
                            D("建议补铁")], department="血液科"),
        consultation("e3", [P("孩子发烧三天"), D("多少度"), P("三十九度"), IMG("img/3.png"), D("这是胸片吗")],
                     department="儿科"),
        consultation("e4", [P("在吗"), D("在"), IMG("img/3.png", "sticker"), P("谢谢"), D("不客气")]),
    ]
    (data / "kept.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in cons))
    return data


@pytest.mark.engine
def test_mccp_on_the_tiny_vllm_models(tmp_path, tiny_cache) -> None:
    """Random weights answer junk: assert the plumbing — batched calls, unscored counted, no crash,
    nothing from the dialogue in our logs."""
    data = _engine_data(tmp_path)
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tiny_cache), str(ROOT), str(data)], capture_output=True,
                       text=True, timeout=900, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(next(x for x in r.stdout.splitlines() if x.startswith("RESULT "))[len("RESULT "):])
    ourlog = json.loads(next(x for x in r.stdout.splitlines() if x.startswith("OURLOG "))[len("OURLOG "):])
    full = out.pop("run_mccp")
    assert full["consultations"] == 4 and full["candidates"] == 4 and full["mode"] == "multimodal"
    assert full["instances"] + full["discarded"] == 4 and full["discard_reasons"].get("no_candidate") == 1
    assert sum(1 for x in (tmp_path / "out" / "instances.jsonl").read_text().splitlines() if x) == full["instances"]
    plain = out["text"]["plain"]
    assert plain["requests"] == 8 and plain["chat_calls"] == 1 and plain["unscored_A"] + plain["unscored_M"] >= 4
    for kind, run in out.items():
        assert run["n_candidates"] == 4                                  # e1: 2, e2: 1, e3: 1 (the image), e4: 0
        assert run["calls"][:2] == [4, 4]                                # 8 agent requests in chunks of 4
        assert run["stats"]["requests"] >= 8 and run["stats"]["chat_calls"] >= 2
        assert run["ann"]["requests"] >= 4 and sum(run["calls"]) == (
            run["stats"]["requests"] + run["ann"]["requests"] + run.get("plain", {}).get("requests", 0))
        unscored = sum(v[3] is None for v in run["values"])
        assert run["stats"]["unscored_A"] + run["stats"]["unscored_M"] == unscored
        assert all((v[3] is None) == (v[4] is not None) for v in run["values"])
        assert all(v[3] is None or (v[3][0] in (0, 1) and 0 <= v[3][1] <= 1) for v in run["values"])
        assert run["selections"]["e4"] == [None, "no_candidate", 0]    # a sticker is not a medical image
        assert all(s[0] is not None or s[1] in ("no_positive", "unscored") for k, s in run["selections"].items()
                   if k != "e4")
        labels = [x for pair in run["labels"] for x in pair]
        assert len(run["labels"]) == 3 and all(x is None or x in DEFAULT_INTENTS + DEFAULT_STAGES for x in labels)
        assert run["case_images"] == 1
    assert "mccp agents:" in ourlog
    for secret in (SECRET, "您看看", "血常规化验单", "需要用什么药", "孩子发烧三天"):
        assert secret not in ourlog


def test_labels_from_a_dataset(tmp_path) -> None:
    from medrealmm.mccp import labels_from

    got = labels_from({"format": "sample"})
    rows = [json.loads(x) for x in (ROOT / "medrealmm/data/sample/cases.jsonl").read_text().splitlines() if x.strip()]
    assert set(got["intents"]) == {r["intent"] for r in rows} and set(got["stages"]) == {r["stage"] for r in rows}
    (tmp_path / "cases.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="distinct intent"):
        labels_from(str(tmp_path / "cases.jsonl"))


def test_the_settings_label_defaults_are_the_annotators() -> None:
    from medrealmm.mccp import AnnotateSettings
    from medrealmm.mccp.annotate import DEFAULT_INTENTS, DEFAULT_STAGES

    s = AnnotateSettings()
    assert (tuple(s.intents), tuple(s.stages)) == (DEFAULT_INTENTS, DEFAULT_STAGES)
