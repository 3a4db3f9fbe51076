"""The one batched retry loop (``inference.ask.ask_rounds``) and its two callers: the judge and the agents.

Both retry unreadable answers at a warmer temperature with fresh seeds, and both store an engine error by
its exception name only: the engine's message may quote the prompt (patient text).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from medrealmm.inference.ask import ENGINE_ERROR, UNPARSEABLE, ask_batched, engine_error_code
from medrealmm.inference.base import ChatRequest, Completion, Sampling
from medrealmm.judge.grader import JudgeSettings, judge_chunk, plan_verdicts
from medrealmm.judge.prompts import JudgePromptConfig
from medrealmm.schema import Case, Criterion, Turn

SECRET = "患者张三 13800138000"


class Scripted:
    """Answers from a script, one list per round; records what it was sent."""

    name = "scripted"

    def __init__(self, rounds: list[list[Completion]]):
        self.rounds, self.sent = list(rounds), []

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        self.sent.append((desc, requests))
        return self.rounds.pop(0)[: len(requests)]

    def describe(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        pass


def leak() -> Completion:
    return Completion(text=None, error=f"ValueError: prompt too long: {SECRET}")


def test_ask_batched_retries_warmer_with_fresh_seeds_and_redacts_engine_errors() -> None:
    backend = Scripted([[Completion("x"), leak(), Completion("1")], [Completion("y"), leak()], [Completion("2"), leak()]])
    stats: Counter[str] = Counter()
    items = [(k, [{"role": "user", "content": k}]) for k in ("a", "b", "c")]
    out = ask_batched(backend, items, parse=lambda t: int(t) if t and t.isdigit() else None,
                      sampling=Sampling(temperature=0.0, seed=0), json_schema=None, max_retries=2,
                      retry_temperature=0.7, chunk_size=8, seed=3, chat_template_kwargs=None, stats=stats, desc="t")
    assert [(o.value, o.attempts, o.error) for o in out] == [
        (2, 3, None), (None, 3, f"{ENGINE_ERROR}:ValueError"), (1, 1, None)]
    assert all(SECRET not in (o.error or "") for o in out)
    assert dict(stats) == {"requests": 7, "chat_calls": 3, "retries": 4}
    (_, first), (desc, second) = backend.sent[:2]
    assert desc == "t retry 1" and {r.sampling.temperature for r in second} == {0.7}
    assert first[0].sampling.seed != second[0].sampling.seed


def test_judge_chunk_redacts_engine_errors_and_does_not_multiply_their_retries() -> None:
    case = Case(id="c1", department="皮肤科", turns=(Turn(role="patient", text="医生您好"),), y_orig="您好",
                rubric=(Criterion(id="r1", text="问候", weight=2), Criterion(id="r2", text="建议", weight=1),
                        Criterion(id="r3", text="面诊", weight=-1)))
    gen = {"key": "g1", "case_id": "c1", "model": "m", "mode": "text", "sample": 0, "text": "建议面诊"}
    prompt = JudgePromptConfig()
    items = plan_verdicts([gen], {"c1": case}, judge_name="j", judge_spec="s", prompt=prompt, structured=False)
    backend = Scripted([[Completion('{"rationale": "有", "met": true}'), leak(), Completion("?")],
                        [Completion("still not json")]])
    stats = {"requests": 0, "retries": 0, "unscored": 0, "prompt_tokens": 0, "cached_tokens": 0}
    settings = JudgeSettings(judge="j", sampling=Sampling(temperature=0.0), prompt=prompt, structured=False,
                             max_retries=1, retry_temperature=0.5, seed=0)
    records = judge_chunk(backend, items, settings, image_bytes=lambda ref: b"", stats=stats)
    assert [(r["met"], r["status"], r["attempts"], r["error"]) for r in records] == [
        (True, "scored", 1, None), (None, "unscored", 1, f"{ENGINE_ERROR}:ValueError"),
        (None, "unscored", 2, "unparseable verdict")]
    assert all(SECRET not in str(r) for r in records)
    assert records[2]["raw"] == "still not json"
    assert stats == {"requests": 4, "retries": 1, "unscored": 2, "prompt_tokens": 0, "cached_tokens": 0}
    assert len(backend.sent[1][1]) == 1 and backend.sent[1][0] == "j retry 1".replace("j", "judge j", 1)
    assert UNPARSEABLE == "unparseable"


def test_generation_stores_an_engine_error_by_its_name_and_asks_a_truncated_reply_again(tmp_path, caplog) -> None:
    """The generation stage's truncation retry records an engine error like the agents and the judge do:
    ``engine_error:<ExceptionName>``, never the engine's message (it may quote the patient's text)."""
    from medrealmm.inference.generate import plan_generations, run_generations
    from medrealmm.inference.prompts import PromptConfig
    from medrealmm.store import Store

    cases = [Case(id=f"c{i}", department="皮肤科", turns=(Turn(role="patient", text=f"手臂起红疹{i}天"),), y_orig="您好",
                  rubric=(Criterion(id="r1", text="建议就医", weight=5),)) for i in range(3)]
    items = plan_generations(cases, model_name="m", model_spec="s", modes=["text"], samples=1,
                             prompt=PromptConfig(), seed=0)
    backend = Scripted([[Completion("好", finish_reason="stop"), leak(), Completion("建", finish_reason="length")],
                        [Completion("建议面诊", finish_reason="stop")]])
    store = Store(tmp_path, "generations")
    stats = run_generations(items, model_name="m", store=store, chunk_size=8, backend_factory=lambda: backend,
                            sampling_cfg={"temperature": 0.0}, chat_template_kwargs={}, prompt=PromptConfig(),
                            image_bytes=lambda ref: b"", reasoning_cfg={"opened_by_template": False},
                            retry_truncated=1)
    records = [store.get(it.key) for it in items]
    assert [(r["text"], r["error"], r["truncated"], r["attempt"]) for r in records] == [
        ("好", None, None, 0), (None, f"{ENGINE_ERROR}:ValueError", None, 0), ("建议面诊", None, None, 1)]
    assert all(SECRET not in str(r) for r in records) and SECRET not in caplog.text
    assert (stats["generated"], stats["errors"], stats["truncated"], stats["truncated_retries"]) == (2, 1, 0, 1)
    assert len(backend.sent) == 2 and len(backend.sent[1][1]) == 1


def test_an_engine_error_keeps_its_exception_name_or_http_status_and_drops_the_message() -> None:
    assert engine_error_code(f"ValueError: prompt too long: {SECRET}") == f"{ENGINE_ERROR}:ValueError"
    assert engine_error_code(f"HTTP 400: bad request: {SECRET}") == f"{ENGINE_ERROR}:HTTP 400"
    assert engine_error_code(f"{SECRET}: x") == engine_error_code("(500) x") == ENGINE_ERROR
