"""The judging stage: one verdict per (reply, criterion), all sent to the engine in large batches.

Requests are ordered reply by reply with a reply's criteria adjacent, so the shared prefix
(case + reply) is computed once by the engine's prefix cache. A verdict that cannot be read is
asked again (bounded, with a new seed); one that still fails is stored as ``unscored`` with the
raw text — never as met or not met — and is asked again by the next run (so a run with more
``judge.max_retries`` can rescue it). Retries sample at ``retry_temperature`` because a greedy
judge would only repeat itself.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from medrealmm.inference.ask import UNPARSEABLE as ASK_UNPARSEABLE
from medrealmm.inference.ask import ask_rounds
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.generate import chunks
from medrealmm.config_schema import Judge as JudgeRole
from medrealmm.inference.prompts import image_identity, inline_images
from medrealmm.inference.reasoning import template_kwargs
from medrealmm.judge.parse import parse_verdict
from medrealmm.judge.prompts import VERDICT_SCHEMA, JudgePromptConfig, judge_messages
from medrealmm.schema import Case, Criterion, ImageRef, stable_hash
from medrealmm.store import Store

UNPARSEABLE = "unparseable verdict"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JudgeItem:
    key: str
    generation: dict[str, Any]
    case: Case
    criterion: Criterion
    judge_spec: str = ""   # the judge's settings hash, carried into the verdict record


def plan_verdicts(generations: list[dict[str, Any]], cases: dict[str, Case], *, judge_name: str,
                  judge_spec: str, prompt: JudgePromptConfig, structured: bool) -> list[JudgeItem]:
    """One item per (reply, criterion), keyed by the exact judge prompt (images by content hash),
    the criterion's weight, the judge's spec and the verdict schema."""
    items = []
    schema = VERDICT_SCHEMA if structured else None
    for g in generations:
        case = cases[g["case_id"]]
        for c in case.rubric:
            key = stable_hash({"generation": g["key"], "criterion": c.id, "weight": c.weight,
                               "messages": judge_messages(case, g["text"], c, prompt, image_identity),
                               "judge": judge_spec, "judge_name": judge_name, "schema": schema})
            items.append(JudgeItem(key, g, case, c, judge_spec))
    return items


def _record(it: JudgeItem, judge: str, *, met: bool | None, rationale: str | None, raw: str | None,
            attempts: int, error: str | None) -> dict[str, Any]:
    g = it.generation
    return {"key": it.key, "generation_key": g["key"], "case_id": it.case.id, "model": g["model"],
            "mode": g["mode"], "sample": g["sample"], "judge": judge, "criterion_id": it.criterion.id,
            "weight": it.criterion.weight, "met": met, "status": "unscored" if met is None else "scored",
            "rationale": rationale, "raw": raw, "attempts": attempts, "error": error,
            "judge_spec": it.judge_spec or None, "criterion": it.criterion.text}


@dataclass(frozen=True)
class JudgeSettings:
    """How one judge is asked: read once from the composed config (:meth:`of_config`) and passed whole to
    :func:`run_judging` and :func:`judge_chunk`."""

    judge: str                             # the judge's name, on every verdict record
    sampling: Sampling                     # round 0; retries sample at max(temperature, retry_temperature)
    prompt: JudgePromptConfig
    structured: bool                       # constrain the verdict to VERDICT_SCHEMA where the engine can
    max_retries: int = 2                   # re-asks of an unreadable verdict, then it is stored as unscored
    retry_temperature: float = 0.7
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    chunk_size: int = 1024                 # verdict requests per engine call and per atomic store write

    @classmethod
    def of_config(cls, judge: dict[str, Any], *, prompt: JudgePromptConfig, structured: bool, seed: int,
                  chunk_size: int) -> JudgeSettings:
        """The settings of the ``judge`` group (checked by its typed model, defaults filled there)."""
        role = JudgeRole.model_validate(judge)
        return cls(judge=role.name, sampling=Sampling.from_config(judge.get("sampling")), prompt=prompt,
                   structured=structured, max_retries=role.max_retries, retry_temperature=role.retry_temperature,
                   chat_template_kwargs=template_kwargs(judge.get("chat_template_kwargs"), judge.get("reasoning")),
                   seed=seed, chunk_size=chunk_size)


def judge_chunk(backend: Backend, items: list[JudgeItem], settings: JudgeSettings, *,
                image_bytes: Callable[[ImageRef], bytes], stats: dict[str, int]) -> list[dict[str, Any]]:
    """Judge a chunk; retry unreadable verdicts up to ``settings.max_retries`` times with fresh seeds.

    An engine error is not asked again here: the backend has retried it already, and asking again
    would multiply its retries. It is stored by its exception name only (its message may quote the
    prompt: patient text)."""
    s = settings
    image_url = inline_images(image_bytes)
    asks = [(it.key, judge_messages(it.case, it.generation["text"], it.criterion, s.prompt, image_url))
            for it in items]
    tally: Counter[str] = Counter()
    outcomes = ask_rounds(backend, asks, parse=parse_verdict, sampling=s.sampling,
                          json_schema=VERDICT_SCHEMA if s.structured else None, max_retries=s.max_retries,
                          retry_temperature=s.retry_temperature, seed=s.seed,
                          chat_template_kwargs=s.chat_template_kwargs, tally=tally, desc=f"judge {s.judge}",
                          retry_engine_errors=False)
    for k in ("requests", "retries", "prompt_tokens", "cached_tokens"):
        stats[k] += tally[k]
    records = []
    for it, o in zip(items, outcomes, strict=True):
        v = o.value
        if v is None:
            stats["unscored"] += 1
        error = None if v else (UNPARSEABLE if o.error == ASK_UNPARSEABLE else o.error)
        records.append(_record(it, s.judge, met=None if v is None else v.met,
                               rationale=None if v is None else v.rationale,
                               raw=o.completion.text if o.completion else None, attempts=o.attempts, error=error))
    return records


def run_judging(items: list[JudgeItem], settings: JudgeSettings, *, store: Store,
                backend_factory: Callable[[], Backend], image_bytes: Callable[[ImageRef], bytes]) -> dict[str, Any]:
    """Fill ``store`` with a verdict for every item (asked in chunks of ``settings.chunk_size``); the counts."""
    judge = settings.judge
    todo = set(store.missing(it.key for it in items))
    stats = {"planned": len(items), "cached": len(items) - len(todo), "requests": 0, "retries": 0,
             "unscored": 0, "prompt_tokens": 0, "cached_tokens": 0}
    log.info("judge %s: %d criteria on %d replies, %d in the store, %d to ask", judge, len(items),
             len({it.generation["key"] for it in items}), stats["cached"], len(todo))
    if not todo:
        return stats
    backend = backend_factory()
    all_chunks = list(chunks(items, settings.chunk_size))
    for chunk in tqdm(all_chunks, desc=f"judge {judge}", unit="chunk", disable=len(all_chunks) < 2):
        pending = [it for it in chunk if it.key in todo]
        if pending:
            store.put_many(judge_chunk(backend, pending, settings, image_bytes=image_bytes, stats=stats))
    return stats
