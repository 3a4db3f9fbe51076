"""The optional LLM check of dialogue quality (``corpus.dialogue_quality.llm``): reading answers, one
batched pass with retries, ``on_failure``, reasons from :data:`REASONS` only (never the model's words),
and one run of ``medrealmm corpus`` on the tiny local model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from medrealmm.corpus import run_corpus
from medrealmm.corpus.funnel import dialogue_quality
from medrealmm.corpus.quality_llm import REASONS, SCHEMA, DialogueQualityJudge, parse_quality
from medrealmm.corpus.schema import Consultation, Event
from medrealmm.inference.base import ChatRequest, Completion, Sampling

try:
    from tests.conftest import cli
    from tests.test_corpus_to_eval import raw_logs
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]
    from test_corpus_to_eval import raw_logs  # type: ignore[no-redef]

LEAK = "王建国13812345678"


# --- parse_quality -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ('{"keep": 1, "reason": "ok"}', (True, "ok")),
    ('{"keep": 1, "reason": "spam"}', (True, "ok")),                          # keep wins; the code is moot
    ('{"keep": true}', (True, "ok")),
    ('{"keep": "1", "reason": "ok"}', (True, "ok")),
    ('{"keep": 0, "reason": "spam"}', (False, "spam")),
    ('{"keep": 0, "reason": " cancelled "}', (False, "cancelled")),
    ('{"keep": false, "reason": "administrative"}', (False, "administrative")),
    *[(json.dumps({"keep": 0, "reason": code}), (False, code)) for code in REASONS],
    ('{"keep": 0, "reason": "ok"}', (False, "other")),                         # drop without a drop code
    ('{"keep": 0}', (False, "other")),
    ('{"keep": 0, "reason": "Spam"}', (False, "other")),                       # codes are exact
    (json.dumps({"keep": 0, "reason": f"患者{LEAK}要求退款"}, ensure_ascii=False), (False, "other")),
    ('好的。\n```json\n{"keep": 0, "reason": "no_medical_content"}\n```', (False, "no_medical_content")),
    ('<think>患者只是问挂号，{"keep": 1}？不对。</think>{"keep": 0, "reason": "administrative"}',
     (False, "administrative")),
    ('思考中</think>\n{"keep": 1, "reason": "ok"}', (True, "ok")),             # template opened <think>
    ('例如 {"keep": 1, "reason": "ok"}，我的答案：{"keep": 0, "reason": "incoherent"}', (False, "incoherent")),
    ('{"keep": 0, "reason": "spam"} {"note": "x"}', (False, "spam")),          # objects without keep are skipped
])
def test_parse_quality_reads_answers(text: str, expected: tuple[bool, str]) -> None:
    assert parse_quality(text) == expected


@pytest.mark.parametrize("text", [
    None, "", "   ", "garbage", "保留", "keep: 1", '{"reason": "spam"}', '{"keep": 2, "reason": "spam"}',
    '{"keep": "maybe"}', '{"keep": null}', "[1, 0]", '{"keep": 0, "reason": "spam"',
    '<think>{"keep": 0, "reason": "spam"}',                                   # cut off mid-thought: no reply
])
def test_parse_quality_unreadable_is_none(text: str | None) -> None:
    assert parse_quality(text) is None


# --- the judge with a scripted backend -----------------------------------------------------------------

class ScriptedBackend:
    """``answer(request, attempt_of_this_consultation) -> Completion``; every chat call recorded."""

    name = "scripted"

    def __init__(self, answer: Callable[[ChatRequest, int], Completion]):
        self.answer = answer
        self.calls: list[tuple[list[ChatRequest], str]] = []
        self.seen: dict[str, int] = {}

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        self.calls.append((requests, desc))
        out = []
        for r in requests:
            m = re.search(r"病例(\d+)", r.messages[-1]["content"])
            k = m.group(1) if m else r.messages[-1]["content"]
            n = self.seen.get(k, 0)
            self.seen[k] = n + 1
            out.append(self.answer(r, n))
        return out

    def describe(self) -> dict:
        return {}

    def close(self) -> None:
        pass


def marker(req: ChatRequest) -> str:
    m = re.search(r"病例(\d+)", req.messages[-1]["content"])
    assert m, req.messages[-1]["content"]
    return m.group(1)


def consultation(i: int) -> Consultation:
    return Consultation(id=f"c{i}", department="皮肤科", events=(
        Event(speaker="system", content="系统提示：医生已接诊"),
        Event(speaker="patient", content=f"病例{i}：医生您好，我叫{LEAK[:3]}，手上起疹子三天了"),
        Event(speaker="patient", modality="image", content=f"images/{LEAK[:3]}.png", origin="patient_upload"),
        Event(speaker="doctor", content="您好，请问痒不痒？"),
        Event(speaker="patient", content="很痒"),
        Event(speaker="doctor", content="建议外用炉甘石洗剂"),
        Event(speaker="patient", content="谢谢医生"),
    ))


def ok(_: ChatRequest, __: int) -> Completion:
    return Completion('{"keep": 1, "reason": "ok"}')


def test_one_chat_call_per_chunk_with_schema_and_prompt() -> None:
    backend = ScriptedBackend(ok)
    judge = DialogueQualityJudge(backend, chunk_size=2, seed=3)
    items = [consultation(i) for i in range(5)]
    assert judge(items) == [None] * 5
    assert [len(reqs) for reqs, _ in backend.calls] == [2, 2, 1]
    assert [[marker(r) for r in reqs] for reqs, _ in backend.calls] == [["0", "1"], ["2", "3"], ["4"]]
    assert all(desc == "dialogue quality check" for _, desc in backend.calls)
    req = backend.calls[0][0][0]
    assert req.json_schema == SCHEMA and req.sampling.temperature == 0.0
    system, user = req.messages
    assert system["role"] == "system" and '"keep"' in system["content"]
    assert user["content"].startswith("科室：皮肤科\n患者：病例0")
    assert "患者：[图片]" in user["content"] and "系统提示" not in user["content"]
    assert "images/" not in user["content"]                                   # no file names in the prompt
    assert judge.stats["requests"] == 5 and judge.stats["chat_calls"] == 3 and not judge.stats["unreadable"]
    seeds = [r.sampling.seed for reqs, _ in backend.calls for r in reqs]
    assert len(set(seeds)) == 5                                               # a seed per consultation
    unstructured = ScriptedBackend(ok)
    DialogueQualityJudge(unstructured, structured=False, chunk_size=64)(items)
    assert len(unstructured.calls) == 1 and all(r.json_schema is None for r in unstructured.calls[0][0])


def test_empty_input_sends_nothing() -> None:
    backend = ScriptedBackend(ok)
    assert DialogueQualityJudge(backend)([]) == []
    assert backend.calls == []


def test_unreadable_answers_are_retried_warmer() -> None:
    def answer(req: ChatRequest, attempt: int) -> Completion:
        if marker(req) == "1" and attempt == 0:
            return Completion(f"我觉得这个患者{LEAK}应该保留")                       # unreadable, quotes the text
        if marker(req) == "2" and attempt < 2:
            return Completion(None, error=f"RuntimeError: prompt too long: {LEAK}")
        return Completion('{"keep": 0, "reason": "spam"}' if marker(req) == "2" else '{"keep": 1, "reason": "ok"}')

    backend = ScriptedBackend(answer)
    judge = DialogueQualityJudge(backend, chunk_size=3, max_retries=2, sampling=Sampling(temperature=0.0, seed=0))
    assert judge([consultation(i) for i in range(3)]) == [None, None, REASONS["spam"]]
    assert [sorted(marker(r) for r in reqs) for reqs, _ in backend.calls] == [["0", "1", "2"], ["1", "2"], ["2"]]
    assert [desc for _, desc in backend.calls] == ["dialogue quality check", "dialogue quality check retry 1",
                                                   "dialogue quality check retry 2"]
    assert [r.sampling.temperature for reqs, _ in backend.calls for r in reqs] == [0.0, 0.0, 0.0, 0.7, 0.7, 0.7]
    first, retry = backend.calls[0][0][1], backend.calls[1][0][0]
    assert first.sampling.seed != retry.sampling.seed                         # fresh seed per attempt
    assert judge.stats["retries"] == 3 and judge.stats["unreadable"] == 0 and judge.stats["drop_spam"] == 1


@pytest.mark.parametrize("on_failure", ["keep", "drop"])
def test_on_failure_keep_or_drop_and_count(on_failure: str, caplog) -> None:
    def answer(req: ChatRequest, attempt: int) -> Completion:
        if marker(req) in ("1", "3"):
            return Completion(f"无法判断：{req.messages[-1]['content']}")        # never readable, quotes the prompt
        return Completion('{"keep": 1, "reason": "ok"}')

    backend = ScriptedBackend(answer)
    judge = DialogueQualityJudge(backend, chunk_size=2, max_retries=1, on_failure=on_failure)
    with caplog.at_level("INFO", logger="medrealmm.corpus.quality_llm"):
        out = judge([consultation(i) for i in range(4)])
    assert judge.stats["unreadable"] == 2
    assert backend.seen == {"0": 1, "1": 2, "2": 1, "3": 2}                   # max_retries + 1 attempts
    assert [len(reqs) for reqs, _ in backend.calls] == [2, 1, 2, 1]           # per chunk, then its retry
    if on_failure == "keep":
        assert out == [None, None, None, None]
    else:
        assert out[0] is None and out[2] is None
        assert out[1] == out[3] and out[1]
        assert LEAK not in out[1] and "病例" not in out[1]
    warning = next(r.getMessage() for r in caplog.records if "no readable answer" in r.getMessage())
    assert warning.startswith("dialogue quality check: 2 consultation(s) got no readable answer after 2 attempts; "
                              + ("kept" if on_failure == "keep" else "dropped"))
    assert LEAK[:3] not in caplog.text and "病例" not in caplog.text


def test_on_failure_must_be_keep_or_drop() -> None:
    with pytest.raises(ValueError, match="on_failure"):
        DialogueQualityJudge(ScriptedBackend(ok), on_failure="skip")


def test_reasons_are_codes_never_model_text() -> None:
    answers = {
        "0": {"keep": 0, "reason": "cancelled"},
        "1": {"keep": 0, "reason": f"患者{LEAK}只是想退款"},                           # free text with patient text
        "2": {"keep": 0, "reason": "administrative", "explanation": f"{LEAK}问挂号"},
        "3": {"keep": 1, "reason": f"{LEAK}"},
        "4": {"keep": 0, "reason": "no_medical_content"},
        "5": {"keep": 0, "reason": "spam"},
        "6": {"keep": 0, "reason": "incoherent"},
        "7": {"keep": 0},
    }
    backend = ScriptedBackend(lambda r, _: Completion(json.dumps(answers[marker(r)], ensure_ascii=False)))
    judge = DialogueQualityJudge(backend)
    items = [consultation(i) for i in range(8)]
    out = judge(items)
    assert out == [REASONS["cancelled"], REASONS["other"], REASONS["administrative"], None,
                   REASONS["no_medical_content"], REASONS["spam"], REASONS["incoherent"], REASONS["other"]]
    assert all(r is None or r in REASONS.values() for r in out)
    assert judge.stats["drop_other"] == 2 and judge.stats["unreadable"] == 0
    # through the funnel stage: "llm check: " + the REASONS value
    res = dialogue_quality(items, {"min_turns": 5}, llm_check=DialogueQualityJudge(ScriptedBackend(
        lambda r, _: Completion(json.dumps(answers[marker(r)], ensure_ascii=False)))))
    assert [c.id for c in res.kept] == ["c3"]
    for cid, reason in res.dropped:
        assert reason.startswith("llm check: ") and reason.removeprefix("llm check: ") in REASONS.values(), cid
        assert LEAK[:3] not in reason


def test_run_corpus_with_a_scripted_check(tmp_path: Path) -> None:
    """The check only sees the rules' survivors, and its drops reach dropped.jsonl and the counts."""
    logs = raw_logs(tmp_path / "raw", n=4)
    seen: list[list[str]] = []

    def answer(req: ChatRequest, _: int) -> Completion:
        return Completion('{"keep": 0, "reason": "spam"}' if "红疹3天" in req.messages[-1]["content"]
                          else '{"keep": 1, "reason": "ok"}')

    backend = ScriptedBackend(answer)
    judge = DialogueQualityJudge(backend)

    def check(xs):
        seen.append([c.id for c in xs])
        return judge(xs)

    from medrealmm.config import compose

    cfg = compose([f"corpus.input={logs}", f"paths.outputs={tmp_path / 'out'}"])
    res = run_corpus(cfg, llm_check=check)
    assert seen == [["log-0", "log-1", "log-2", "log-3"]] and len(backend.calls) == 1
    out = tmp_path / "out" / "corpus" / "sample"
    dropped = [json.loads(x) for x in (out / "dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    assert dropped == [{"id": "log-1", "stage": "dialogue_quality", "reason": "llm check: " + REASONS["spam"],
                        "department": "皮肤科"}]
    assert [c.id for c in res.kept] == ["log-0", "log-2", "log-3"]


def test_llm_check_closes_its_engine_and_checks_on_failure_first(tmp_path: Path, monkeypatch) -> None:
    """The check's engine is closed as soon as the check returns (the deid agent may load its own next), and a
    bad ``on_failure`` is refused before any engine loads."""
    import medrealmm.inference.engines
    from medrealmm.config import compose
    from medrealmm.corpus.build import _llm_check
    from medrealmm.corpus.settings import CorpusSettings

    def llm(cfg: dict) -> object:         # corpus.dialogue_quality.llm, read (and checked) once at the entry
        return CorpusSettings.of(cfg["corpus"], "corpus").dialogue_quality.llm

    events: list[str] = []

    class FakePool:
        def __init__(self, cache_dir: str, seed: int):
            events.append("pool")

        def get(self, role, backend):
            events.append("load")
            return ScriptedBackend(ok)

        def close(self) -> None:
            events.append("close")

    monkeypatch.setattr(medrealmm.inference.engines, "EnginePool", FakePool)
    cfg = compose([f"paths.outputs={tmp_path}", "corpus.dialogue_quality.llm.enabled=true"])
    pools: list = []
    check = _llm_check(cfg, llm(cfg), pools)
    assert check is not None and len(pools) == 1 and events == ["pool"]
    assert check([consultation(i) for i in range(3)]) == [None] * 3
    assert events == ["pool", "load", "close"]
    bad = compose([f"paths.outputs={tmp_path}", "corpus.dialogue_quality.llm.enabled=true",
                   "corpus.dialogue_quality.llm.on_failure=skip"])
    events.clear()
    with pytest.raises(ValueError, match=r"corpus\.dialogue_quality\.llm\.on_failure"):
        _llm_check(bad, llm(bad), pools)
    assert events == [] and len(pools) == 1


# --- the real engine -----------------------------------------------------------------------------------

@pytest.mark.engine
def test_corpus_llm_check_on_the_tiny_model(tmp_path: Path, tiny_cache: Path) -> None:
    import polars as pl

    logs = raw_logs(tmp_path / "raw")
    n = len(logs.read_text(encoding="utf-8").splitlines())
    out = tmp_path / "outputs"
    r = cli(["corpus", "preset=smoke", f"paths.outputs={out}", f"paths.cache={tiny_cache}", f"corpus.input={logs}",
             "corpus.dialogue_quality.llm.enabled=true"], cwd=tmp_path)
    folder = out / "corpus" / "sample"
    kept = [Consultation.model_validate_json(x) for x in
            (folder / "consultations.jsonl").read_text(encoding="utf-8").splitlines()]
    dropped = [json.loads(x) for x in (folder / "dropped.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(kept) + len(dropped) == n
    assert {c.id for c in kept}.isdisjoint(d["id"] for d in dropped)
    assert {c.id for c in kept} | {d["id"] for d in dropped} == {f"log-{i}" for i in range(n)}
    for d in dropped:       # the rules keep every one of these logs: only the model can drop them
        assert d["stage"] == "dialogue_quality", d
        assert d["reason"].startswith("llm check: ") and d["reason"].removeprefix("llm check: ") in REASONS.values(), d
    counts = pl.read_parquet(folder / "funnel_counts.parquet")
    agg = {row["stage"]: (row["kept"], row["dropped"]) for row in
           counts.group_by("stage").agg(pl.col("kept").sum(), pl.col("dropped").sum()).iter_rows(named=True)}
    assert agg["input"] == (n, 0) and agg["image_availability"] == (n, 0)
    assert agg["dialogue_quality"] == (len(kept), len(dropped))
    assert agg["department_balance"] == (len(kept), 0)
    assert "dialogue quality check" in r.stderr
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["corpus"]["dialogue_quality"]["llm"]["enabled"] is True
