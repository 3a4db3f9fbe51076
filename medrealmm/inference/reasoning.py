"""Keeping a model's reasoning apart from its reply.

Reasoning models write ``<think>…</think>`` before the answer (or the server returns it in a
separate field). The judge must grade the reply a patient would read, so reasoning is stored
but stripped before judging.
"""

from __future__ import annotations

import re

_THINK = re.compile(r"<think>(.*?)</think>", re.S)


def split_reasoning(text: str | None, reasoning: str | None = None) -> tuple[str | None, str | None]:
    """Return ``(reply, reasoning)``; an unclosed ``<think>`` means the model never answered."""
    if text is None:
        return None, reasoning
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
