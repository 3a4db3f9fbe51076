"""A batched, structured LLM pass with bounded retries: the shape every agent here shares.

The de-identification agent, the challenge-point agents and annotators, and the rubric writer all
send many small prompts whose answers must parse (JSON). :func:`ask_batched` sends them in chunks
(one ``backend.chat`` per chunk), asks again for the unreadable ones at a warmer temperature with
fresh seeds, and leaves what is still unreadable as ``None`` with an error code — never a guess.
Error codes never carry an engine's message: it may quote the prompt (patient text).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from medrealmm.inference.base import ENGINE_ERROR, Backend, ChatRequest, Completion, Sampling, engine_error_code
from medrealmm.inference.generate import chunks, derived_seed

__all__ = ["ENGINE_ERROR", "UNPARSEABLE", "Outcome", "ask_batched", "ask_rounds", "engine_error_code"]

UNPARSEABLE = "unparseable"


@dataclass
class Outcome:
    """The read answer of one request, or ``None`` with the error code; ``attempts`` sent."""

    value: Any = None
    attempts: int = 0
    error: str | None = None
    completion: Completion | None = field(default=None, repr=False)   # the last one received


def ask_rounds(backend: Backend, items: Sequence[tuple[str, list[dict[str, Any]]]], *,
               parse: Callable[[str | None], Any], sampling: Sampling, json_schema: dict[str, Any] | None,
               max_retries: int, retry_temperature: float, seed: int,
               chat_template_kwargs: dict[str, Any] | None, tally: Counter[str], desc: str,
               retry_engine_errors: bool = True) -> list[Outcome]:
    """The one retry loop: ask every ``(key, messages)`` item in one ``chat`` per round.

    Round 0 samples with ``sampling``; each later round asks again for the answers ``parse`` could not
    read (``None``), at ``max(temperature, retry_temperature)`` with a seed derived from the key and the
    round. An engine error is asked again only with ``retry_engine_errors`` (an HTTP backend has already
    retried its transport errors). ``tally`` counts ``requests``, ``chat_calls``, ``retries`` (requests
    after the first round), ``prompt_tokens`` and ``cached_tokens``. Each outcome keeps its last
    completion; its ``error`` is :data:`UNPARSEABLE` or :func:`engine_error_code` — never engine text."""
    outcomes = [Outcome() for _ in items]
    todo = list(range(len(items)))
    for attempt in range(max_retries + 1):
        if not todo:
            break
        temperature = max(sampling.temperature, retry_temperature) if attempt else sampling.temperature
        reqs = [ChatRequest(items[i][1], replace(sampling, temperature=temperature,
                                                 seed=derived_seed(seed, items[i][0], attempt)),
                            json_schema=json_schema, chat_template_kwargs=dict(chat_template_kwargs or {}))
                for i in todo]
        outs = backend.chat(reqs, desc=desc + (f" retry {attempt}" if attempt else ""))
        if len(outs) != len(reqs):
            raise RuntimeError(f"backend returned {len(outs)} completions for {len(reqs)} requests")
        tally["requests"] += len(reqs)
        tally["chat_calls"] += 1
        tally["prompt_tokens"] += sum(o.prompt_tokens or 0 for o in outs)
        tally["cached_tokens"] += sum(o.cached_tokens or 0 for o in outs)
        if attempt:
            tally["retries"] += len(reqs)
        again = []
        for i, out in zip(todo, outs, strict=True):
            o = outcomes[i]
            o.attempts += 1
            o.completion = out
            value = parse(out.text) if out.error is None else None
            if value is None:
                o.value = None
                o.error = engine_error_code(out.error) if out.error is not None else UNPARSEABLE
                if out.error is None or retry_engine_errors:
                    again.append(i)
            else:
                o.value, o.error = value, None
        todo = again
    return outcomes


def ask_batched(backend: Backend, items: Sequence[tuple[str, list[dict[str, Any]]]], *,
                parse: Callable[[str | None], Any], sampling: Sampling, json_schema: dict[str, Any] | None,
                max_retries: int, retry_temperature: float, chunk_size: int, seed: int,
                chat_template_kwargs: dict[str, Any] | None, stats: Counter[str], desc: str) -> list[Outcome]:
    """Ask every ``(key, messages)`` item; one ``chat`` per chunk (and per retry round of that chunk).

    Shared by the agents and the annotators: a ``parse`` result of ``None`` is retried and finally
    left as ``None`` with error ``unparseable`` (or the engine error's exception name). ``stats`` counts
    ``requests``, ``chat_calls`` and ``retries``."""
    if chunk_size < 1 or max_retries < 0:
        raise ValueError("chunk_size must be >= 1 and max_retries >= 0")
    outcomes: list[Outcome] = []
    for chunk in chunks(list(range(len(items))), chunk_size):
        tally: Counter[str] = Counter()
        done = ask_rounds(backend, [items[i] for i in chunk], parse=parse, sampling=sampling,
                          json_schema=json_schema, max_retries=max_retries, retry_temperature=retry_temperature,
                          seed=seed, chat_template_kwargs=chat_template_kwargs, tally=tally, desc=desc)
        for o in done:
            o.completion = None   # the read value is what the agents keep: a long run holds no raw texts
        outcomes += done
        for k in ("requests", "chat_calls", "retries"):
            if tally[k]:
                stats[k] += tally[k]
    return outcomes
