"""Reading a verdict out of whatever the judge wrote.

With structured outputs the text is already JSON; servers and engines that cannot constrain
write fences, prose or reasoning around it. Anything we cannot read is ``None`` — the caller
retries and finally records the verdict as unscored, never as met or not met.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from medrealmm.inference.reasoning import split_reasoning

_TRUE = {"true", "yes", "met", "1", "是", "满足", "符合", "达到", "出现"}
_FALSE = {"false", "no", "not_met", "not met", "unmet", "0", "否", "不满足", "不符合", "未达到", "未出现"}
_KEYS = ("met", "criteria_met", "verdict", "判定", "结果")
_LOOSE = re.compile(r'"(?:met|criteria_met|verdict)"\s*:\s*"?(true|false|met|not_met)"?', re.I)


@dataclass(frozen=True)
class ParsedVerdict:
    met: bool
    rationale: str


def _truth(value: object) -> bool | None:
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


def json_values(text: str, starts: str = "{["):
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


def json_objects(text: str):
    """Every JSON object that starts at some ``{`` of the text (nested ones included)."""
    return (v for v in json_values(text, "{") if isinstance(v, dict))


def _verdict_of(obj: dict) -> ParsedVerdict | None:
    for key in _KEYS:
        if key in obj and (met := _truth(obj[key])) is not None:
            rationale = obj.get("rationale") or obj.get("explanation") or obj.get("理由") or ""
            return ParsedVerdict(met, str(rationale))
    return None


def parse_verdict(text: str | None) -> ParsedVerdict | None:
    """The verdict in ``text``; ``None`` when there is none, or when several disagree (an example
    quoted before the real answer must not decide it)."""
    if not text:
        return None
    reply, _ = split_reasoning(text)
    reply = reply or ""
    found = [v for obj in json_objects(reply) if (v := _verdict_of(obj)) is not None]
    if not found:
        loose = {t for m in _LOOSE.finditer(reply) if (t := _truth(m.group(1))) is not None}
        return ParsedVerdict(loose.pop(), "") if len(loose) == 1 else None
    if len({v.met for v in found}) > 1:
        return None
    return found[-1]
