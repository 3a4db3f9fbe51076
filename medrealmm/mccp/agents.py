"""Agents A (clinical engagement) and M (multimodal relevance) as batched LLM calls.

Every candidate of every consultation becomes two requests (one per agent); all requests go to
the engine in chunks of ``chunk_size`` (one ``backend.chat`` per chunk), with bounded retries of
the unreadable answers at ``retry_temperature`` and fresh seeds. An answer still unreadable is
*unscored* — counted, and never read as label 0 or 1. Answers use the JSON schema
:data:`AGENT_SCHEMA` when ``structured`` (constrained decoding where the engine can).

Logs hold counts only: never dialogue text, model output, or an engine's error message.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from medrealmm.corpus.schema import Consultation, Event
from medrealmm.inference.ask import ENGINE_ERROR, UNPARSEABLE, Outcome, ask_batched  # noqa: F401 (re-exported)
from medrealmm.inference.base import Backend, Sampling
from medrealmm.inference.prompts import data_url
from medrealmm.inference.reasoning import split_reasoning
from medrealmm.common.llm_json import json_objects, truth
from medrealmm.mccp.select import AgentScore
from medrealmm.schema import stable_hash

log = logging.getLogger(__name__)

AgentName = Literal["A", "M"]
Mode = Literal["multimodal", "text"]

AGENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "label": {"type": "integer", "enum": [0, 1]},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reason": {"type": "string", "maxLength": 100},
    },
    "required": ["label", "score", "reason"],
    "additionalProperties": False,
}

_OUTPUT = ('只输出一个 JSON 对象：{"label": 0 或 1, "score": 0 到 1 之间的小数, "reason": "一句话理由"}。'
           "label=1 表示“是”，score 表示你对“是”的把握程度。")

AGENT_A_SYSTEM = (
    "你是一名资深临床医生，正在审阅一段中文在线问诊记录，判断其中的一个时间点是否构成“临床挑战点”。\n"
    "给你的是截至某一时刻的对话（患者刚说完话，接下来轮到医生回复）。请判断：医生接下来的回复是否需要实质性的临床参与，"
    "即需要针对患者的健康问题进行医学推理——例如分析症状、解读检查、给出诊断思路、治疗或用药建议、追问关键病史、"
    "判断风险与就医紧急程度。\n"
    "以下情况判为 0：寒暄、致谢、告别；预约、挂号、缴费、快递、复诊时间等事务安排；仅确认收到；与病情无关的闲聊。\n"
    + _OUTPUT
)

AGENT_A_TRAJECTORY_SYSTEM = (
    "你是一名资深临床医生，正在审阅一段完整的中文在线问诊记录，判断其中标出的一个时间点是否构成“临床挑战点”。\n"
    "给你的是完整的问诊记录：候选时刻之前的对话，医生在该时刻的真实回复，以及之后的对话。请判断：医生在该时刻的回复是否"
    "需要实质性的临床参与，即需要针对患者的健康问题进行医学推理——例如分析症状、解读检查、给出诊断思路、治疗或用药建议、"
    "追问关键病史、判断风险与就医紧急程度。\n"
    "以下情况判为 0：寒暄、致谢、告别；预约、挂号、缴费、快递、复诊时间等事务安排；仅确认收到；与病情无关的闲聊。\n"
    + _OUTPUT
)

AGENT_M_SYSTEM = (
    "你是一名资深临床医生，正在审阅一段中文在线问诊记录，判断其中的一个时间点是否依赖患者上传的图片。\n"
    "给你的是截至某一时刻的对话（患者刚说完话，接下来轮到医生回复），以及患者到目前为止上传的图片"
    "（如化验单、检查报告、影像、皮损照片、处方、药盒等）。请判断：要给出恰当的下一条医生回复，是否必须看这些图片——"
    "即图片中的信息会实质性地改变正确的回复（例如需要读出化验数值、判断皮损形态、识别报告结论）。\n"
    "如果仅凭文字就能给出同样恰当的回复，或图片与当前问题无关，判为 0。\n"
    + _OUTPUT
)

SPEAKER_ZH = {"patient": "患者", "doctor": "医生"}
ORIGIN_ZH = {"sticker": "表情", "emoji": "表情", "platform": "平台图片", "doctor_upload": "医生发送的图片",
             "unknown": "图片", "patient_upload": "患者上传的图片"}


@dataclass(frozen=True)
class CandidateRef:
    """One candidate: the consultation and the event index t (the dialogue is ``events[: t + 1]``)."""

    consultation: Consultation
    t: int

    @property
    def key(self) -> str:
        return f"{self.consultation.id}@{self.t}"


def _score_of(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        s = float(value)
    elif isinstance(value, str):
        try:
            s = float(value.strip().rstrip("%")) / (100.0 if value.strip().endswith("%") else 1.0)
        except ValueError:
            return None
    else:
        return None
    return s if 0.0 <= s <= 1.0 else None


def _agent_score_of(obj: dict) -> AgentScore | None:
    label = truth(obj.get("label"))
    score = _score_of(obj.get("score"))
    if label is None or score is None:
        return None
    return AgentScore(int(label), score)


def parse_agent_output(text: str | None) -> AgentScore | None:
    """``{"label", "score"}`` read from a model's output (fences, prose, reasoning tolerated);
    ``None`` when absent, out of range, or when several answers disagree on the label."""
    if not text:
        return None
    reply, _ = split_reasoning(text)
    found = [s for obj in json_objects(reply or "") if (s := _agent_score_of(obj)) is not None]
    if not found or len({s.label for s in found}) > 1:
        return None
    return found[-1]


def render_dialogue(events: Sequence[Event], *, image_numbers: dict[int, int] | None = None) -> str:
    """The dialogue as ``患者：…`` / ``医生：…`` lines; images as markers (``[图片3]`` for the medical
    images numbered in ``image_numbers``), system events left out."""
    lines = []
    for i, e in enumerate(events):
        if e.speaker == "system":
            continue
        who = SPEAKER_ZH[e.speaker]
        if e.modality == "text":
            if e.content.strip():
                lines.append(f"{who}：{e.content.strip()}")
        elif image_numbers is not None and i in image_numbers:
            lines.append(f"{who}：[图片{image_numbers[i]}]")
        else:
            lines.append(f"{who}：[{ORIGIN_ZH.get(e.origin or 'unknown', '图片')}]")
    return "\n".join(lines)


def patient_header(c: Consultation) -> str:
    parts = [f"科室：{c.department}"]
    sex = {"male": "男", "female": "女"}.get(str(c.patient.get("sex")), c.patient.get("sex"))
    if sex in ("男", "女"):
        parts.append(f"性别：{sex}")
    if isinstance(c.patient.get("age"), int):
        parts.append(f"年龄：{c.patient['age']}岁")
    return "，".join(parts)


class ChallengeAgents:
    """Agents A and M over a list of candidates, through one backend.

    ``image_bytes(path)`` reads an image by its event path (relative to the log's folder);
    in ``multimodal`` mode agent M gets the last ``max_images`` medical images up to t as image
    parts, in ``text`` mode only their markers (for text-only engines)."""

    def __init__(self, backend: Backend, *, image_bytes: Callable[[str], bytes] | None = None,
                 mode: Mode = "multimodal", sampling: Sampling | None = None, max_retries: int = 2,
                 retry_temperature: float = 0.7, chunk_size: int = 64, structured: bool = True,
                 chat_template_kwargs: dict[str, Any] | None = None, seed: int = 0, max_images: int = 10,
                 a_view: str = "trajectory"):
        if mode == "multimodal" and image_bytes is None:
            raise ValueError("multimodal mode needs image_bytes to read the images")
        if chunk_size < 1 or max_retries < 0 or max_images < 1:
            raise ValueError("chunk_size and max_images must be >= 1, max_retries >= 0")
        if a_view not in ("trajectory", "prefix"):
            raise ValueError(f"mccp.agent_a_view must be trajectory or prefix, got {a_view!r}")
        self.a_view = a_view
        self.backend, self.image_bytes, self.mode = backend, image_bytes, mode
        self.sampling = sampling or Sampling(temperature=0.0, max_tokens=256, seed=seed)
        self.max_retries, self.retry_temperature = max_retries, retry_temperature
        self.chunk_size, self.structured, self.seed, self.max_images = chunk_size, structured, seed, max_images
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.stats: Counter[str] = Counter()

    def messages(self, cand: CandidateRef, agent: AgentName) -> list[dict[str, Any]]:
        c = cand.consultation
        events = c.events[: cand.t + 1]
        medical = [i for i, e in enumerate(events) if e.is_medical_image]
        numbers = {i: k + 1 for k, i in enumerate(medical)}
        dialogue = render_dialogue(events, image_numbers=numbers)
        head = f"{patient_header(c)}\n对话（截至患者最新一条消息）：\n{dialogue}\n\n"
        if agent == "A" and self.a_view == "trajectory":   # the paper's phi_A(t, C): the whole consultation
            rest = render_dialogue(c.events[cand.t + 1:])
            body = (f"{patient_header(c)}\n候选时刻之前的对话：\n{dialogue}\n\n【候选时刻】医生的真实回复及之后的对话：\n"
                    f"{rest}\n\n")
            return [{"role": "system", "content": AGENT_A_TRAJECTORY_SYSTEM},
                    {"role": "user", "content": body + "问题：医生在候选时刻的回复是否需要实质性的临床参与？"}]
        if agent == "A":
            return [{"role": "system", "content": AGENT_A_SYSTEM},
                    {"role": "user", "content": head + "问题：医生接下来的回复是否需要实质性的临床参与？"}]
        question = "问题：要恰当地回复，医生是否必须查看患者上传的图片？"
        if self.mode == "text":
            return [{"role": "system", "content": AGENT_M_SYSTEM},
                    {"role": "user", "content": head + "（图片内容无法显示，仅以标记代替。）\n" + question}]
        shown = medical[-self.max_images:]
        parts: list[dict[str, Any]] = [{"type": "text", "text": head + "患者上传的图片："}]
        for i in shown:
            assert self.image_bytes is not None
            parts.append({"type": "text", "text": f"[图片{numbers[i]}]"})
            parts.append({"type": "image_url", "image_url": {"url": data_url(self.image_bytes(events[i].content))}})
        parts.append({"type": "text", "text": question})
        return [{"role": "system", "content": AGENT_M_SYSTEM}, {"role": "user", "content": parts}]

    def score(self, candidates: Sequence[CandidateRef]) -> dict[tuple[str, int, AgentName], Outcome]:
        """Both agents' outcomes per ``(consultation id, t, agent)``: A and M requests interleaved, so
        the two prompts of a candidate (same dialogue prefix) share one chunk and the prefix cache."""
        keys: list[tuple[str, int, AgentName]] = []
        items: list[tuple[str, list[dict[str, Any]]]] = []
        for cand in candidates:
            for agent in ("A", "M"):
                try:
                    msgs = self.messages(cand, agent)  # type: ignore[arg-type]
                except (OSError, ValueError) as e:   # unreadable image: this candidate stays unscored
                    self.stats[f"image_error_{type(e).__name__}"] += 1
                    msgs = None
                keys.append((cand.consultation.id, cand.t, agent))  # type: ignore[arg-type]
                items.append((stable_hash([cand.key, agent, self.mode]), msgs))  # type: ignore[arg-type]
        ok = [k for k, (_, m) in enumerate(items) if m is not None]
        if len(ok) < len(items):
            log.warning("%d agent request(s) could not read their images (paths are relative to the input "
                        "file's folder); those candidates stay unscored", len(items) - len(ok))
        outs = ask_batched(self.backend, [items[k] for k in ok], parse=parse_agent_output, sampling=self.sampling,
                           json_schema=AGENT_SCHEMA if self.structured else None, max_retries=self.max_retries,
                           retry_temperature=self.retry_temperature, chunk_size=self.chunk_size, seed=self.seed,
                           chat_template_kwargs=self.chat_template_kwargs, stats=self.stats, desc="mccp agents")
        result = {key: Outcome(error="image_error") for key in keys}
        for k, o in zip(ok, outs, strict=True):
            result[keys[k]] = o
        unscored = Counter(key[2] for key, o in result.items() if o.value is None)
        self.stats["candidates"] += len(candidates)
        self.stats["unscored_A"] += unscored["A"]
        self.stats["unscored_M"] += unscored["M"]
        log.info("mccp agents: %d candidates, %d requests in %d chat calls, unscored A=%d M=%d",
                 len(candidates), self.stats["requests"], self.stats["chat_calls"], unscored["A"], unscored["M"])
        if unscored["A"] or unscored["M"]:
            log.warning("mccp agents: %d agent answers unreadable after %d attempts (left unscored, not 0/1)",
                        unscored["A"] + unscored["M"], self.max_retries + 1)
        return result
