"""The one interface every engine implements: a batch of chat requests in, completions out.

Messages use the OpenAI chat format; images are ``{"type": "image_url", "image_url": {"url":
"data:image/png;base64,..."}}`` parts, so the same request works for vLLM, transformers and HTTP
servers. A backend never raises for one bad request: it returns a completion with ``error`` set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol


ENGINE_ERROR = "engine_error"


def engine_error_code(error: str) -> str:
    """An engine error reduced to its head, the text before the first colon: the exception name
    (``engine_error:ValueError``) or a server's status (``engine_error:HTTP 400``). The message after it may
    quote the prompt (patient text), so no stored record or log line carries it; a head that is not a short
    ASCII label (letters, digits, ``_``, ``.``, spaces) is dropped too."""
    head = error.split(":", 1)[0].strip()
    return f"{ENGINE_ERROR}:{head}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_. ]{0,59}", head) else ENGINE_ERROR


@dataclass(frozen=True)
class Sampling:
    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = -1
    max_tokens: int = 1024
    seed: int | None = 0
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    stop: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, cfg: Any, **overrides: Any) -> Sampling:
        d = dict(cfg or {})
        d.update({k: v for k, v in overrides.items() if v is not None})
        if "stop" in d:
            d["stop"] = tuple(d["stop"] or ())
        return cls(**d)


@dataclass
class ChatRequest:
    messages: list[dict[str, Any]]
    sampling: Sampling
    json_schema: dict[str, Any] | None = None  # constrain the output where the engine can
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Completion:
    text: str | None
    reasoning: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None
    latency_s: float | None = None   # this request's own wall time, where the backend can tell (servers)


class Backend(Protocol):
    """An inference engine loaded for one model."""

    name: str

    def chat(self, requests: list[ChatRequest], desc: str = "") -> list[Completion]:
        """Run the whole batch; the i-th completion answers the i-th request."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the manifest records about this engine (versions, settings, hashes)."""
        ...

    def close(self) -> None:
        ...


def describe_backend(backend: Backend) -> dict[str, Any]:
    """``backend.describe()`` for a manifest; a failure is recorded by its exception name only (its
    message may quote a prompt) and never fails the run."""
    try:
        return dict(backend.describe())
    except Exception as e:  # noqa: BLE001  describing must never fail a run
        return {"describe_error": type(e).__name__}
