"""A batched, structured LLM pass with bounded retries: the shape every agent here shares.

The de-identification agent, the challenge-point agents and annotators, and the rubric writer all
send many small prompts whose answers must parse (JSON). :func:`ask_batched` sends them in chunks
(one ``backend.chat`` per chunk), asks again for the unreadable ones at a warmer temperature with
fresh seeds, and leaves what is still unreadable as ``None`` with an error code — never a guess.
Error codes never carry an engine's message: it may quote the prompt (patient text).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from medrealmm.inference.base import Backend, ChatRequest, Sampling
from medrealmm.inference.generate import chunks, derived_seed

UNPARSEABLE = "unparseable"
ENGINE_ERROR = "engine_error"


@dataclass
class Outcome:
    """The read answer of one request, or ``None`` with the error code; ``attempts`` sent."""

    value: Any = None
    attempts: int = 0
    error: str | None = None


def engine_error_code(error: str) -> str:
    """An engine error reduced to its exception name: the message may quote the prompt."""
    head = error.split(":", 1)[0].strip()
    return f"{ENGINE_ERROR}:{head}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,60}", head) else ENGINE_ERROR


def ask_batched(backend: Backend, items: Sequence[tuple[str, list[dict[str, Any]]]], *,
                parse: Callable[[str | None], Any], sampling: Sampling, json_schema: dict[str, Any] | None,
                max_retries: int, retry_temperature: float, chunk_size: int, seed: int,
                chat_template_kwargs: dict[str, Any] | None, stats: Counter[str], desc: str) -> list[Outcome]:
    """Ask every ``(key, messages)`` item; one ``chat`` per chunk (and per retry round of that chunk).

    Shared by the agents and the annotators: a ``parse`` result of ``None`` is retried and finally
    left as ``None`` with error ``unparseable`` (or the engine error's exception name)."""
    if chunk_size < 1 or max_retries < 0:
        raise ValueError("chunk_size must be >= 1 and max_retries >= 0")
    outcomes = [Outcome() for _ in items]
    for chunk in chunks(list(range(len(items))), chunk_size):
        todo = list(chunk)
        for attempt in range(max_retries + 1):
            if not todo:
                break
            temperature = max(sampling.temperature, retry_temperature) if attempt else sampling.temperature
            reqs = [ChatRequest(items[i][1],
                                Sampling(temperature=temperature, top_p=sampling.top_p, top_k=sampling.top_k,
                                         max_tokens=sampling.max_tokens,
                                         seed=derived_seed(seed, items[i][0], attempt),
                                         repetition_penalty=sampling.repetition_penalty,
                                         presence_penalty=sampling.presence_penalty, stop=sampling.stop),
                                json_schema=json_schema, chat_template_kwargs=dict(chat_template_kwargs or {}))
                    for i in todo]
            outs = backend.chat(reqs, desc=desc + (f" retry {attempt}" if attempt else ""))
            if len(outs) != len(reqs):
                raise RuntimeError(f"backend returned {len(outs)} completions for {len(reqs)} requests")
            stats["requests"] += len(reqs)
            stats["chat_calls"] += 1
            if attempt:
                stats["retries"] += len(reqs)
            again = []
            for i, out in zip(todo, outs, strict=True):
                o = outcomes[i]
                o.attempts += 1
                value = parse(out.text) if out.error is None else None
                if value is None:
                    o.error = engine_error_code(out.error) if out.error is not None else UNPARSEABLE
                    again.append(i)
                else:
                    o.value, o.error = value, None
            todo = again
    return outcomes
