"""Reading a verdict out of whatever the judge wrote.

With structured outputs the text is already JSON; servers and engines that cannot constrain
write fences, prose or reasoning around it. Anything we cannot read is ``None`` — the caller
retries and finally records the verdict as unscored, never as met or not met.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from medrealmm.common.llm_json import json_objects, truth
from medrealmm.inference.reasoning import split_reasoning

_KEYS = ("met", "criteria_met", "verdict", "判定", "结果")
_LOOSE = re.compile(r'"(?:met|criteria_met|verdict)"\s*:\s*"?(true|false|met|not_met)"?', re.I)


@dataclass(frozen=True)
class ParsedVerdict:
    met: bool
    rationale: str


def _verdict_of(obj: dict) -> ParsedVerdict | None:
    for key in _KEYS:
        if key in obj and (met := truth(obj[key])) is not None:
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
        loose = {t for m in _LOOSE.finditer(reply) if (t := truth(m.group(1))) is not None}
        return ParsedVerdict(loose.pop(), "") if len(loose) == 1 else None
    if len({v.met for v in found}) > 1:
        return None
    return found[-1]
