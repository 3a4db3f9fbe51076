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


def _json_objects(text: str):
    """Every balanced ``{...}`` substring, outermost first, ignoring braces inside strings."""
    starts = [i for i, ch in enumerate(text) if ch == "{"]
    for s in starts:
        depth, in_str, esc = 0, False, False
        for j in range(s, len(text)):
            ch = text[j]
            if in_str:
                esc = (ch == "\\") and not esc
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    yield text[s:j + 1]
                    break


def parse_verdict(text: str | None) -> ParsedVerdict | None:
    if not text:
        return None
    reply, _ = split_reasoning(text)
    reply = reply or ""
    for chunk in _json_objects(reply):
        try:
            obj = json.loads(chunk, strict=False)
        except json.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        for key in _KEYS:
            if key in obj and (met := _truth(obj[key])) is not None:
                rationale = obj.get("rationale") or obj.get("explanation") or obj.get("理由") or ""
                return ParsedVerdict(met, str(rationale))
    m = _LOOSE.search(reply)
    if m:
        met = _truth(m.group(1))
        if met is not None:
            return ParsedVerdict(met, "")
    return None
