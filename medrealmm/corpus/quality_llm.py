"""The optional LLM check of dialogue quality: what phrase lists cannot see.

A cancelled consultation phrased without any listed phrase, a chat that never gets past
logistics, spam or a wrong-department exchange: the rules keep them, a model reading the dialogue
does not. The check runs after the rules, on their survivors only, as one batched pass through
:func:`~medrealmm.inference.ask.ask_batched` (JSON answer ``{"keep": 0|1, "reason": code}``).

The drop reason is one of :data:`REASONS` (a code the model picks), never the model's own words,
which could quote the dialogue. An answer that cannot be read after the retries does not decide:
``on_failure`` says whether such consultations are kept (default) or dropped; either way they are
counted and logged.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from medrealmm.corpus.schema import Consultation
from medrealmm.inference.ask import ask_batched
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.reasoning import split_reasoning
from medrealmm.common.llm_json import json_objects, truth
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

REASONS = {
    "cancelled": "cancelled before any diagnostic exchange",
    "administrative": "only logistics (booking, payment, delivery), no clinical exchange",
    "no_medical_content": "no medical question",
    "spam": "spam or advertising",
    "incoherent": "incoherent or broken dialogue",
    "other": "not a usable consultation",
}

UNREADABLE = "no readable answer from the model (on_failure=drop)"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"keep": {"type": "integer", "enum": [0, 1]},
                   "reason": {"type": "string", "enum": ["ok", *REASONS]}},
    "required": ["keep", "reason"],
    "additionalProperties": False,
}

SYSTEM = (
    "你是一名资深临床医生，正在筛选中文在线问诊记录，用于构建医学评测数据集。请判断这段对话是否是一次真实、有效的医疗咨询："
    "患者提出了健康问题，医生进行了实质性的临床交流（询问病情、分析、解释、建议等）。\n"
    "以下情况判为不保留（keep=0），并给出原因代码：cancelled（患者在任何诊疗交流之前就取消或要求退款）、"
    "administrative（只有预约、缴费、快递等事务）、no_medical_content（没有医学问题）、spam（广告或垃圾信息）、"
    "incoherent（对话残缺或无法理解）、other（其他不适合的情况）。保留时 reason 填 ok。\n"
    '只输出一个 JSON 对象：{"keep": 0 或 1, "reason": "原因代码"}。'
)


def _render(c: Consultation, max_chars: int) -> str:
    lines = [f"科室：{c.department}"]
    for e in c.events:
        if e.speaker == "system":
            continue
        who = "患者" if e.speaker == "patient" else "医生"
        lines.append(f"{who}：{e.content.strip()}" if e.modality == "text" else f"{who}：[图片]")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[:max_chars] + "\n……（后略）"


def parse_quality(text: str | None) -> tuple[bool, str] | None:
    """``(keep, reason code)`` from a model's answer, or ``None`` when it cannot be read."""
    if not text:
        return None
    reply, _ = split_reasoning(text)
    for obj in reversed(list(json_objects(reply or ""))):
        keep = truth(obj.get("keep"))
        reason = str(obj.get("reason") or "").strip()
        if keep is None:
            continue
        if keep:
            return True, "ok"
        return False, reason if reason in REASONS else "other"
    return None


class DialogueQualityJudge:
    """``judge(consultations) -> [reason | None]``: the funnel's batched ``llm_check``."""

    def __init__(self, backend: Backend, *, sampling: Sampling | None = None, max_retries: int = 2,
                 retry_temperature: float = 0.7, chunk_size: int = 64, structured: bool = True,
                 chat_template_kwargs: dict[str, Any] | None = None, seed: int = 0, max_chars: int = 6000,
                 on_failure: str = "keep"):
        if on_failure not in ("keep", "drop"):
            raise ValueError(f"on_failure must be 'keep' or 'drop', not {on_failure!r}")
        self.backend, self.on_failure, self.max_chars = backend, on_failure, max_chars
        self.sampling = sampling or Sampling(temperature=0.0, max_tokens=64, seed=seed)
        self.max_retries, self.retry_temperature = max_retries, retry_temperature
        self.chunk_size, self.structured, self.seed = chunk_size, structured, seed
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.stats: Counter[str] = Counter()

    def messages(self, c: Consultation) -> list[dict[str, Any]]:
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": _render(c, self.max_chars)}]

    def __call__(self, consultations: Sequence[Consultation]) -> list[str | None]:
        items = [(stable_hash(["quality", c.id]), self.messages(c)) for c in consultations]
        outs = ask_batched(self.backend, items, parse=parse_quality, sampling=self.sampling,
                           json_schema=SCHEMA if self.structured else None, max_retries=self.max_retries,
                           retry_temperature=self.retry_temperature, chunk_size=self.chunk_size, seed=self.seed,
                           chat_template_kwargs=self.chat_template_kwargs, stats=self.stats,
                           desc="dialogue quality check")
        reasons: list[str | None] = []
        unreadable = 0
        for o in outs:
            if o.value is None:
                unreadable += 1
                reasons.append(UNREADABLE if self.on_failure == "drop" else None)
            elif o.value[0]:
                reasons.append(None)
            else:
                self.stats[f"drop_{o.value[1]}"] += 1
                reasons.append(REASONS[o.value[1]])
        self.stats["unreadable"] += unreadable
        if unreadable:
            log.warning("dialogue quality check: %d consultation(s) got no readable answer after %d attempts; "
                        "%s (corpus.dialogue_quality.llm.on_failure)", unreadable, self.max_retries + 1,
                        "dropped" if self.on_failure == "drop" else "kept")
        log.info("dialogue quality check: %d consultation(s), %d dropped", len(consultations),
                 sum(r is not None for r in reasons))
        return reasons
