"""Patient intent and consultation stage of each instance, by LLM classifiers.

One request per (instance, task), all batched (one ``chat`` per chunk); the answer is constrained
to ``{"label": <one of the configured labels>}`` (a JSON-schema enum) where the engine can, and
read robustly otherwise. An answer that names no configured label after the retries leaves the
field ``null`` and is counted — it is never guessed.

Default label sets (:data:`DEFINITIONS`, one line each, carried in the prompt): the paper (MedRealMM
§3.5, §4.4) names seven patient-goal intents led by symptom inquiry (症状咨询) and stages including
history taking (病史采集), patient Q&A (患者问答), treatment recommendation (治疗建议) and a combined
diagnosis-with-explanation + treatment-recommendation stage (诊断与解释及治疗建议), but prints neither
list; the other labels are our reading. An intent is what the patient wants; a stage is where the
challenge point sits in the physician's work. The bundled sample (``medrealmm/data/sample``) uses
these sets; ``mccp.annotate.labels_from`` takes a released benchmark's instead.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from medrealmm.inference.ask import ask_batched
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.reasoning import split_reasoning
from medrealmm.common.llm_json import json_objects
from medrealmm.mccp.instances import Instance
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

#: One-line definition of every default label, given to the annotator so that it labels consistently.
#: (paper) marks a name the paper uses; the others are our reading of its unprinted lists.
DEFINITIONS: dict[str, dict[str, str]] = {
    "intent": {  # the patient's goal in the dialogue so far (none is a stage name)
        "症状咨询": ("患者以身体不适为主诉（可附症状照片或家用设备自测记录），"  # (paper) the most common
                     "想知道是什么问题、严不严重、怎么处理"),
        "检查结果解读": "患者主要请医生解读在医院或体检做的化验、影像、心电图、量表等检查报告的结果",
        "用药咨询": ("患者围绕某个具体药物提问：用法用量、能否加量减量或停换、副作用、相互作用、"
                     "过敏禁忌"),
        "治疗咨询": "患者询问病该怎么治：治疗方案的选择，要不要手术或住院，保守还是积极治疗",
        "疾病咨询": ("患者想了解某种已知或疑似疾病本身：是不是这个病、病因、对自身或胎儿的影响、"
                     "预后、传染性、饮食起居"),
        "就医指导": "患者想知道要不要去医院、多紧急、挂哪个科、去做哪些检查或怎样就诊",
        "复诊随访": "患者此前已就诊或已开始治疗，回来反馈疗效或新出现的情况，想知道下一步怎么办",
    },
    "stage": {  # where the challenge point sits: what the physician's next reply has to do
        "病史采集": ("信息还不足以判断，医生此刻应先追问缺失的症状、病史、用药或检查条件等信息，"  # (paper)
                     "而不是直接下结论"),
        "患者问答": ("诊断和治疗方向已基本明确或不是重点，医生此刻主要是回答患者提出的具体问题"  # (paper)
                     "（能不能、会不会、要不要、怎么做）"),
        "诊断与解释": "医生此刻主要是给出或排除诊断、解释检查结果和病情，治疗方案不是重点",  # (paper: combined)
        "治疗建议": ("问题已基本明确，医生此刻主要是推荐、选择或调整治疗"  # (paper)
                     "（药物与剂量、手术或保守、生活方式）"),
        "诊断与解释及治疗建议": ("医生此刻要同时给出诊断与解释并据此提出治疗建议，"  # (paper) the hardest
                                 "几个临床决策需要一起推理"),
        "检查建议": "医生此刻主要是决定下一步做哪些检查、何时复查或转诊以明确性质，而不是直接诊断或治疗",
        "随访复诊": "患者已在治疗中，医生此刻要评估疗效和不良反应，决定继续、调整还是停止原方案",
    },
}
DEFAULT_INTENTS: tuple[str, ...] = tuple(DEFINITIONS["intent"])
DEFAULT_STAGES: tuple[str, ...] = tuple(DEFINITIONS["stage"])
TASKS = ("intent", "stage")

_SYSTEM = {
    "intent": ("你是一名临床医生，负责给中文在线问诊记录做标注。请根据截至患者最新一条消息的对话，判断患者此刻的主要意图"
               "（患者想达到的目的），从下列类别中选且只选一个：\n{labels}\n"
               '只输出 JSON：{{"label": "类别"}}'),
    "stage": ("你是一名临床医生，负责给中文在线问诊记录做标注。请根据截至患者最新一条消息的对话，判断问诊此刻所处的阶段"
              "（医生接下来的回复要完成什么），从下列类别中选且只选一个：\n{labels}\n"
              '只输出 JSON：{{"label": "类别"}}'),
}
_KEYS = ("label", "intent", "stage", "类别", "意图", "阶段")


def check_labels(labels: Sequence[str], task: str) -> tuple[str, ...]:
    """A usable label set: non-empty, distinct, non-blank strings."""
    out = tuple(str(x).strip() for x in labels)
    if not out or any(not x for x in out) or len(set(out)) != len(out):
        raise ValueError(f"mccp.annotate.{task}s must be a non-empty list of distinct labels")
    return out


def label_lines(labels: Sequence[str], task: str) -> str:
    """The prompt's list of labels, one a line, each with its definition where :data:`DEFINITIONS` has
    one (a dataset's own labels from ``labels_from`` may have none: they are listed bare)."""
    defs = DEFINITIONS.get(task, {})
    return "\n".join(f"- {lab}：{defs[lab]}" if lab in defs else f"- {lab}" for lab in labels)


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
    # a label inside a longer one (诊断与解释, 治疗建议 in 诊断与解释及治疗建议): keep the longest matches
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
        labels = label_lines(self.labels[task], task)
        return [{"role": "system", "content": _SYSTEM[task].format(labels=labels)},
                {"role": "user", "content": f"科室：{inst.department}\n对话：\n{_dialogue(inst)}"}]

    def annotate(self, instances: Sequence[Instance]) -> list[Instance]:
        """The instances with ``intent`` and ``stage`` set (``None`` where unreadable, counted in
        ``stats["null_intent"]`` / ``stats["null_stage"]``, reasons in ``meta.mccp.annotation``)."""
        result = list(instances)
        for task in TASKS:
            labels = self.labels[task]

            def parse(text: str | None, labels: tuple[str, ...] = labels) -> str | None:
                return parse_label(text, labels)

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
