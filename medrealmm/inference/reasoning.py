"""Keeping a model's reasoning apart from its reply.

Reasoning models write ``<think>…</think>`` before the answer (or the server returns it in a
separate field). The judge must grade the reply a patient would read, so reasoning is stored
but stripped before judging. Some chat templates open ``<think>`` themselves (the reply then holds
only ``</think>``): the model config says so (``reasoning.opened_by_template``), because without
``</think>`` such a reply is all thought and no answer. A reply whose reasoning never closed, or that
stopped at ``max_tokens``, is *truncated*: recorded, counted, never judged as an answer.
"""

from __future__ import annotations

import re

_THINK = re.compile(r"<think>(.*?)</think>", re.S)


def split_reasoning(text: str | None, reasoning: str | None = None, *,
                    opened_by_template: bool = False) -> tuple[str | None, str | None]:
    """Return ``(reply, reasoning)``; an unclosed ``<think>`` means the model never answered.

    ``opened_by_template``: the prompt ended with ``<think>``, so text without ``</think>`` is
    reasoning that never closed (reply ``""``)."""
    if text is None:
        return None, reasoning
    if opened_by_template and "</think>" not in text and "<think>" not in text and not reasoning:
        return "", (text.strip() or None)
    found = [m.strip() for m in _THINK.findall(text)]
    reply = _THINK.sub("", text)
    if "</think>" in reply and "<think>" not in reply:  # template opened <think> in the prompt
        head, _, reply = reply.partition("</think>")
        found.insert(0, head.strip())
    elif "<think>" in reply:  # cut off mid-thought: no reply at all
        head, _, tail = reply.partition("<think>")
        found.append(tail.strip())
        reply = head
    pieces = [p for p in ([reasoning.strip()] if reasoning else []) + found if p]
    return reply.strip(), ("\n\n".join(pieces) or None)


def reasoning_unclosed(text: str | None, *, opened_by_template: bool = False, reasoning: str | None = None) -> bool:
    """Whether the model was still thinking when it stopped (no answer was given)."""
    if not text:
        return False
    opened = text.count("<think>") + (1 if opened_by_template and not reasoning else 0)
    return opened > text.count("</think>")


def truncated(text: str | None, finish_reason: str | None, *, opened_by_template: bool = False,
              reasoning: str | None = None) -> str | None:
    """Why a reply is truncated (``None``: it is a whole answer): the reasoning never closed, or the
    engine stopped at ``max_tokens`` (``finish_reason == "length"``)."""
    if reasoning_unclosed(text, opened_by_template=opened_by_template, reasoning=reasoning):
        return "reasoning_unclosed"
    if finish_reason == "length":
        return "max_tokens"
    return None


#: A model config's ``reasoning`` block, with these defaults where it says nothing.
REASONING_DEFAULTS = {"thinks": False, "opened_by_template": "auto", "length_is_truncation": True,
                      "effort": None, "effort_kwarg": None}

#: Effort values that only say whether the model thinks (Table 4's "on" and "–"): nothing to pass on.
_NO_LEVEL = (None, "on", "off", "")


def reasoning_settings(role_reasoning: dict | None) -> dict:
    return {**REASONING_DEFAULTS, **{k: v for k, v in (role_reasoning or {}).items() if v is not None}}


def template_kwargs(chat_template_kwargs: dict | None, role_reasoning: dict | None) -> dict:
    """The chat-template variables a request carries: the config's own, plus the thinking effort
    (``reasoning.effort``) under the variable the model's template reads it from
    (``reasoning.effort_kwarg``, e.g. ``reasoning_effort``) when both are given."""
    out = dict(chat_template_kwargs or {})
    r = reasoning_settings(role_reasoning)
    if r["effort_kwarg"] and r["effort"] not in _NO_LEVEL and r["effort_kwarg"] not in out:
        out[str(r["effort_kwarg"])] = r["effort"]
    return out


def effort_applied(backend: object, kwargs: dict, role_reasoning: dict | None) -> bool | None:
    """Whether the template turns the effort into a different prompt (``None``: there is no effort to
    pass, or the backend is a server whose template we cannot render). A template that ignores the
    variable leaves the model at its default effort: the caller warns and records it."""
    r = reasoning_settings(role_reasoning)
    name = r["effort_kwarg"]
    render = getattr(backend, "generation_prompt", None)
    if not name or r["effort"] in _NO_LEVEL or name not in kwargs or render is None:
        return None
    without = {k: v for k, v in kwargs.items() if k != name}
    try:
        return str(render(kwargs)) != str(render(without))
    except Exception:  # noqa: BLE001  a template that cannot render a plain message: unknown
        return None


def template_opens_think(backend: object, chat_template_kwargs: dict | None) -> bool:
    """Whether the backend's chat template ends the generation prompt with ``<think>`` (a server,
    which separates reasoning with its own parser, is taken not to)."""
    render = getattr(backend, "generation_prompt", None)
    if render is None:
        return False
    try:
        return str(render(chat_template_kwargs or {})).rstrip().endswith("<think>")
    except Exception:  # noqa: BLE001  a template that cannot render a plain message: leave it to the tags
        return False
