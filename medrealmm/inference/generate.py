"""The generation stage: every (case, mode, sample) gets one reply from the evaluated model.

Work is cut into fixed chunks over the full plan, so a resumed run sends the same chunks to the
engine as an uninterrupted one, and each finished chunk is stored atomically. ``model=online``
needs no engine: its reply is the physician's real reply, scored like any model's.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from medrealmm.inference.base import Backend, ChatRequest, Sampling, engine_error_code
from medrealmm.inference.prompts import PromptConfig, generation_messages, image_identity, inline_images
from medrealmm.inference.reasoning import (effort_applied, reasoning_settings, split_reasoning, template_kwargs,
                                           template_opens_think, truncated)
from medrealmm.schema import Case, ImageRef, Mode, stable_hash
from medrealmm.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GenItem:
    key: str
    case: Case
    mode: Mode
    sample: int
    model_spec: str = ""   # the model's settings hash, carried into the reply record


def derived_seed(*parts: Any) -> int:
    """A per-request seed that does not depend on batch composition or resume state."""
    return int(stable_hash(list(parts))[:8], 16)


def plan_generations(cases: list[Case], *, model_name: str, model_spec: str, modes: list[Mode],
                     samples: int, prompt: PromptConfig, seed: int, online: bool = False) -> list[GenItem]:
    """One item per (case, mode, sample), keyed by the case id, the exact prompt the model would see
    (images by content hash), the model's spec and the seed: a new prompt or setting is new work, a
    typo fixed in a field the prompt does not show is not. The case id is in the key so that two
    cases that render the same prompt (a duplicated dialogue; with ``online``, equal physician
    replies) each get their own reply and verdicts."""
    items = []
    for case in cases:
        for mode in modes:
            shown = ({"online": case.y_orig} if online
                     else {"messages": generation_messages(case, mode, prompt, image_identity)})
            for s in range(samples):
                key = stable_hash({**shown, "case": case.id, "mode": mode, "sample": s, "seed": seed,
                                   "model": model_spec, "model_name": model_name})
                items.append(GenItem(key, case, mode, s, model_spec))
    return items


def chunks(items: list, size: int) -> Iterator[list]:
    size = max(1, size)
    for i in range(0, len(items), size):
        yield items[i:i + size]


def image_reference(ref: ImageRef) -> str:
    """How an image stands in a recorded prompt: its path and content hash (the bytes are in the dataset)."""
    return f"image:{ref.path}" + (f"#sha256={ref.sha256}" if ref.sha256 else "")


def recorded_prompt(item: GenItem, prompt: PromptConfig) -> str:
    """The exact messages sent for ``item`` as JSON, images by path and sha256."""
    return json.dumps(generation_messages(item.case, item.mode, prompt, image_reference), ensure_ascii=False)


def _record(item: GenItem, model: str, **fields: Any) -> dict[str, Any]:
    return {"key": item.key, "case_id": item.case.id, "model": model, "mode": item.mode,
            "sample": item.sample, "model_spec": item.model_spec or None, **fields}


def run_generations(items: list[GenItem], *, model_name: str, store: Store, chunk_size: int,
                    backend_factory: Callable[[], Backend] | None, sampling_cfg: Any,
                    chat_template_kwargs: dict[str, Any], prompt: PromptConfig,
                    image_bytes: Callable[[ImageRef], bytes], online: bool = False, seed: int = 0,
                    precheck: Callable[[GenItem], str | None] | None = None,
                    reasoning_cfg: dict[str, Any] | None = None, retry_truncated: int = 0) -> dict[str, Any]:
    """Fill the store with a reply for every item; returns counts for the run summary. ``precheck``
    names why the engine would refuse an item (e.g. too many images): such an item is recorded as
    failed without being sent, so it cannot fail its whole batch. A truncated reply (reasoning not
    closed, or stopped at ``max_tokens``) is recorded with ``truncated`` set; with ``retry_truncated``
    it is asked again that many times with fresh seeds first."""
    rcfg = reasoning_settings(reasoning_cfg)
    chat_template_kwargs = template_kwargs(chat_template_kwargs, reasoning_cfg)
    todo = store.missing(it.key for it in items)
    stats = {"planned": len(items), "cached": len(items) - len(todo), "generated": 0, "errors": 0,
             "truncated": 0, "truncated_retries": 0}
    cases = len({it.case.id for it in items})
    log.info("generate %s: %d replies for %d cases, %d in the store, %d to %s", model_name, len(items), cases,
             stats["cached"], len(todo), "copy" if online else "run")
    if not todo:
        return stats
    todo_set = set(todo)
    all_chunks = list(chunks(items, chunk_size))
    run = _Replies(model_name=model_name, sampling_cfg=sampling_cfg, chat_template_kwargs=chat_template_kwargs,
                   prompt=prompt, image_url=inline_images(image_bytes), seed=seed, reasoning_cfg=reasoning_cfg,
                   rcfg=rcfg, retry_truncated=int(retry_truncated), stats=stats)
    for chunk in tqdm(all_chunks, desc=f"generate {model_name}", unit="chunk", disable=len(all_chunks) < 2):
        pending = [it for it in chunk if it.key in todo_set]
        if not pending:
            continue
        if online:
            store.put_many([_record(it, model_name, text=it.case.y_orig, reasoning=None,
                                    finish_reason="stop", error=None, prompt=recorded_prompt(it, prompt))
                            for it in pending])
            stats["generated"] += len(pending)
            continue
        pending = _refuse(pending, precheck, store=store, model_name=model_name, stats=stats)
        if not pending:
            continue
        if run.backend is None:
            assert backend_factory is not None
            run.open(backend_factory())
        store.put_many(run.chunk(pending))
    return stats


def _refuse(pending: list[GenItem], precheck: Callable[[GenItem], str | None] | None, *, store: Store,
            model_name: str, stats: dict[str, Any]) -> list[GenItem]:
    """Record the items ``precheck`` says the engine would refuse (not sent); the others, to send."""
    refused = {it.key: why for it in pending if precheck and (why := precheck(it))}
    if not refused:
        return pending
    for it in pending:
        if it.key in refused:
            log.warning("case %s (%s) not sent: %s", it.case.id, it.mode, refused[it.key])
    store.put_many([_record(it, model_name, text=None, reasoning=None, finish_reason=None,
                            error=f"refused before the engine: {refused[it.key]}")
                    for it in pending if it.key in refused])
    stats["errors"] += len(refused)
    return [it for it in pending if it.key not in refused]


@dataclass
class _Replies:
    """One run's generation settings and its engine (opened on the first chunk that needs it)."""

    model_name: str
    sampling_cfg: Any
    chat_template_kwargs: dict[str, Any]
    prompt: PromptConfig
    image_url: Callable[[ImageRef], str]
    seed: int
    reasoning_cfg: dict[str, Any] | None
    rcfg: dict[str, Any]
    retry_truncated: int
    stats: dict[str, Any]
    backend: Backend | None = None
    opened: bool | None = None

    def open(self, backend: Backend) -> None:
        """Start on ``backend``: does its template open ``<think>``, does it apply the reasoning effort."""
        self.backend = backend
        rcfg, stats = self.rcfg, self.stats
        self.opened = None if rcfg["opened_by_template"] == "auto" else bool(rcfg["opened_by_template"])
        if self.opened is None:
            self.opened = template_opens_think(backend, self.chat_template_kwargs)
            if self.opened:
                log.info("the chat template of %s opens <think>: a reply without </think> never answered",
                         self.model_name)
        stats["template_opens_think"] = int(self.opened)
        applied = effort_applied(backend, self.chat_template_kwargs, self.reasoning_cfg)
        if applied is not None:
            stats["effort_applied"] = int(applied)
            if not applied:
                log.warning("%s: reasoning.effort=%s is passed as the chat-template variable %r, but the model's "
                            "template ignores it (the prompt is unchanged): the model thinks at its default "
                            "effort. Check reasoning.effort_kwarg against the model card.", self.model_name,
                            rcfg["effort"], rcfg["effort_kwarg"])

    def chunk(self, pending: list[GenItem]) -> list[dict[str, Any]]:
        """The records of one chunk: asked, truncated replies asked again (``retry_truncated``), counted."""
        final: dict[str, dict[str, Any]] = {}
        ask = list(pending)
        for attempt in range(max(0, self.retry_truncated) + 1):
            ask = self._round(ask, attempt, final)
            if not ask:
                break
        stats = self.stats
        records = []
        for it in pending:
            rec = final[it.key]
            if rec["error"]:
                stats["errors"] += 1
                log.warning("generation failed for case %s (%s): %s", it.case.id, it.mode, rec["error"])
            elif rec["truncated"]:
                stats["truncated"] += 1
            else:
                stats["generated"] += 1
            records.append(rec)
        if any(r["truncated"] for r in records):
            log.warning("%d of %d replies in this chunk are truncated (reasoning not closed or max_tokens "
                        "reached): recorded, not judged", sum(bool(r["truncated"]) for r in records), len(records))
        return records

    def _round(self, ask: list[GenItem], attempt: int, final: dict[str, dict[str, Any]]) -> list[GenItem]:
        """One ``chat`` over ``ask``; their records into ``final``; returns the truncated ones to ask again."""
        assert self.backend is not None
        stats, opened, prompt = self.stats, bool(self.opened), self.prompt
        reqs = [ChatRequest(generation_messages(it.case, it.mode, prompt, self.image_url),
                            Sampling.from_config(self.sampling_cfg,
                                                 seed=derived_seed(self.seed, it.key, *([attempt] if attempt else []))),
                            chat_template_kwargs=dict(self.chat_template_kwargs or {})) for it in ask]
        t_batch = time.perf_counter()
        outs = self.backend.chat(reqs, desc=f"{self.model_name} replies"
                                 + (f" (truncated, try {attempt + 1})" if attempt else ""))
        batch_s = round(time.perf_counter() - t_batch, 4)
        stats["prompt_tokens"] = stats.get("prompt_tokens", 0) + sum(o.prompt_tokens or 0 for o in outs)
        stats["completion_tokens"] = stats.get("completion_tokens", 0) + sum(o.completion_tokens or 0 for o in outs)
        again = []
        for it, out in zip(ask, outs, strict=True):
            reply, reasoning = split_reasoning(out.text, out.reasoning, opened_by_template=opened)
            error = (engine_error_code(out.error) if out.error is not None
                     else None if reply is not None else "the engine returned no text")
            cut = None if error else truncated(out.text, out.finish_reason, opened_by_template=opened,
                                               reasoning=out.reasoning)
            if cut == "max_tokens" and not self.rcfg["length_is_truncation"]:
                cut = None
            final[it.key] = _record(it, self.model_name, text=reply, reasoning=reasoning,
                                    finish_reason=out.finish_reason, error=error, truncated=cut,
                                    prompt_tokens=out.prompt_tokens, completion_tokens=out.completion_tokens,
                                    prompt=recorded_prompt(it, prompt), latency_s=out.latency_s,
                                    batch_s=batch_s, batch_size=len(ask), attempt=attempt)
            if cut and attempt < self.retry_truncated:
                again.append(it)
        stats["truncated_retries"] += len(again) if again else 0
        return again
