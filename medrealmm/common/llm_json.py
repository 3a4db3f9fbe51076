"""Structured answers read out of what a language model wrote: JSON inside prose, fences or reasoning,
and yes/no words in English or Chinese.

Every phase that asks a model for JSON (corpus quality, MCCP, de-identification agent, rubric writer,
judge) reads it the same way; a value that cannot be read is ``None`` and the caller decides what
that means (retry, unscored) — never a guess.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["json_objects", "json_values", "truth"]

_TRUE = {"true", "yes", "met", "1", "是", "满足", "符合", "达到", "出现"}
_FALSE = {"false", "no", "not_met", "not met", "unmet", "0", "否", "不满足", "不符合", "未达到", "未出现"}


def truth(value: object) -> bool | None:
    """A yes/no value (bool, 0/1, or a word such as true/是/不满足); ``None`` when it is neither."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().strip("。.").lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
    return None


def json_values(text: str, starts: str = "{[") -> Iterator[Any]:
    """Every JSON value that starts at some character of ``starts`` in the text (nested ones
    included): how every structured answer here is read out of prose, fences or reasoning."""
    decoder = json.JSONDecoder(strict=False)
    for i, ch in enumerate(text):
        if ch in starts:
            try:
                value, _ = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                continue
            yield value


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object that starts at some ``{`` of the text (nested ones included)."""
    return (v for v in json_values(text, "{") if isinstance(v, dict))
