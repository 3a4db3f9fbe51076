"""Patient intent and consultation stage of each instance, by LLM classifiers.

One request per (instance, task), all batched (one ``chat`` per chunk); the answer is constrained
to ``{"label": <one of the configured labels>}`` (a JSON-schema enum) where the engine can, and
read robustly otherwise. An answer that names no configured label after the retries leaves the
field ``null`` and is counted — it is never guessed. Default label sets follow the paper (7
intents) and the bundled sample dataset (``medrealmm/data/sample/cases.jsonl``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from medrealmm.inference.ask import ask_batched
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.reasoning import split_reasoning
from medrealmm.judge.parse import json_objects
from medrealmm.mccp.instances import Instance
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

DEFAULT_INTENTS: tuple[str, ...] = ("症状咨询", "治疗建议", "患者问答", "病史采集", "诊断与解释", "检查结果解读",
                                    "用药咨询")
DEFAULT_STAGES: tuple[str, ...] = ("初诊问询", "病史采集", "检查解读", "诊断讨论", "治疗方案", "随访复诊")
TASKS = ("intent", "stage")

_SYSTEM = {
    "intent": ("你是一名临床医生，负责给中文在线问诊记录做标注。请根据截至患者最新一条消息的对话，判断患者此刻的主要意图，"
               "从给定类别中选且只选一个：{labels}。\n"
               '只输出 JSON：{{"label": "类别"}}'),
    "stage": ("你是一名临床医生，负责给中文在线问诊记录做标注。请根据截至患者最新一条消息的对话，判断问诊此刻所处的阶段，"
              "从给定类别中选且只选一个：{labels}。\n"
              '只输出 JSON：{{"label": "类别"}}'),
}
_KEYS = ("label", "intent", "stage", "类别", "意图", "阶段")


def check_labels(labels: Sequence[str], task: str) -> tuple[str, ...]:
    """A usable label set: non-empty, distinct, non-blank strings."""
    out = tuple(str(x).strip() for x in labels)
    if not out or any(not x for x in out) or len(set(out)) != len(out):
        raise ValueError(f"mccp.annotate.{task}s must be a non-empty list of distinct labels")
    return out


def label_schema(labels: Sequence[str]) -> dict[str, Any]:
    return {"type": "object", "properties": {"label": {"type": "string", "enum": list(labels)}},
            "required": ["label"], "additionalProperties": False}


def validate_label(value: Any, labels: Sequence[str]) -> str | None:
    """``value`` when it is one of ``labels`` (surrounding spaces/quotes/punctuation ignored), else None."""
    if not isinstance(value, str):
        return None
    v = value.strip().strip("\"'“”「」[]。.，, ")
    return v if v in labels else None


def parse_label(text: str | None, labels: Sequence[str]) -> str | None:
    """The label in a model's output: a JSON ``label`` (last readable wins, disagreeing answers → None),
    else the only configured label named in the text (none or several → None)."""
    if not text:
        return None
    reply, _ = split_reasoning(text)
    reply = reply or ""
    found = []
    for obj in json_objects(reply):
        for k in _KEYS:
            if (v := validate_label(obj.get(k), labels)) is not None:
                found.append(v)
                break
    if found:
        return found[-1] if len(set(found)) == 1 else None
    bare = validate_label(reply, labels)
    if bare is not None:
        return bare
    # a label contained in a longer one (病史采集 is in no other, but guard anyway): keep the longest matches
    named = {lab for lab in labels if lab in reply}
    named = {lab for lab in named if not any(lab != o and lab in o for o in named)}
    return named.pop() if len(named) == 1 else None


def _dialogue(inst: Instance) -> str:
    lines = []
    for t in inst.turns:
        who = "患者" if t.role == "patient" else "医生"
        body = t.text.strip()
        if t.images:
            body = (body + " " if body else "") + "[图片]" * len(t.images)
        lines.append(f"{who}：{body}")
    return "\n".join(lines)


class Annotator:
    """Intent and stage classifiers over instances (text only: the dialogue with image markers)."""

    def __init__(self, backend: Backend, *, intents: Sequence[str] = DEFAULT_INTENTS,
                 stages: Sequence[str] = DEFAULT_STAGES, sampling: Sampling | None = None, max_retries: int = 2,
                 retry_temperature: float = 0.7, chunk_size: int = 64, structured: bool = True,
                 chat_template_kwargs: dict[str, Any] | None = None, seed: int = 0):
        self.backend = backend
        self.labels = {"intent": check_labels(intents, "intent"), "stage": check_labels(stages, "stage")}
        self.sampling = sampling or Sampling(temperature=0.0, max_tokens=64, seed=seed)
        self.max_retries, self.retry_temperature = max_retries, retry_temperature
        self.chunk_size, self.structured, self.seed = chunk_size, structured, seed
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.stats: Counter[str] = Counter()

    def messages(self, inst: Instance, task: str) -> list[dict[str, Any]]:
        labels = "、".join(self.labels[task])
        return [{"role": "system", "content": _SYSTEM[task].format(labels=labels)},
                {"role": "user", "content": f"科室：{inst.department}\n对话：\n{_dialogue(inst)}"}]

    def annotate(self, instances: Sequence[Instance]) -> list[Instance]:
        """The instances with ``intent`` and ``stage`` set (``None`` where unreadable, counted in
        ``stats["null_intent"]`` / ``stats["null_stage"]``, reasons in ``meta.mccp.annotation``)."""
        result = list(instances)
        for task in TASKS:
            labels = self.labels[task]
            parse: Callable[[str | None], str | None] = lambda text, labels=labels: parse_label(text, labels)
            items = [(stable_hash([inst.id, task, labels]), self.messages(inst, task)) for inst in result]
            outs = ask_batched(self.backend, items, parse=parse, sampling=self.sampling,
                               json_schema=label_schema(labels) if self.structured else None,
                               max_retries=self.max_retries, retry_temperature=self.retry_temperature,
                               chunk_size=self.chunk_size, seed=self.seed,
                               chat_template_kwargs=self.chat_template_kwargs, stats=self.stats,
                               desc=f"mccp {task}")
            updated = []
            for inst, o in zip(result, outs, strict=True):
                meta = dict(inst.meta)
                mccp = dict(meta.get("mccp") or {})
                ann = dict(mccp.get("annotation") or {})
                ann[task] = {"status": "ok" if o.value is not None else "null", "error": o.error,
                             "attempts": o.attempts}
                mccp["annotation"] = ann
                meta["mccp"] = mccp
                if o.value is None:
                    self.stats[f"null_{task}"] += 1
                updated.append(inst.model_copy(update={task: o.value, "meta": meta}))
            result = updated
            dist = Counter(i.intent if task == "intent" else i.stage for i in result)
            log.info("mccp %s: %d instances, %d null, labels %s", task, len(result), self.stats[f"null_{task}"],
                     {k: v for k, v in sorted(dist.items(), key=lambda kv: str(kv[0])) if k is not None})
        return result
