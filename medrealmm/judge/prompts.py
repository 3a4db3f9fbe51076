"""The judge's prompt. The case and the reply come first and the criterion last, so that every
criterion of one reply shares one long prefix and the engine's prefix cache computes it once.
``criterion_first`` exists only to measure that (benchmarks/prefix_sharing.py).

Two styles, as for generation (``run.prompt.style``, see medrealmm/inference/prompts.py):
``medrealmm`` (Chinese, written for our consultations; its rendering must never change, the
verdict store keys on it) and ``healthbench``, an English grader modelled on HealthBench's
GRADER_TEMPLATE (openai/simple-evals ``healthbench_eval.py``): the conversation as
``role: content`` blocks with the reply as the last assistant turn, then the rubric item as
``[points] criterion``. Unlike the original (one user message asking for ``explanation`` and
``criteria_met``) the instructions sit in the system message and ask for our verdict object,
``{"rationale", "met"}``, which :data:`VERDICT_SCHEMA` and medrealmm/judge/parse.py accept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from medrealmm.config_schema import Judge as JudgeRole
from medrealmm.inference.prompts import (DEFAULT_IMAGE_MARKER, HEALTHBENCH_IMAGE_MARKER, ImageUrl, image_part,
                                        PromptStyle, merge_text_parts, resolve_prompt_style, transcript)
from medrealmm.schema import Case, Criterion, ImageRef, Mode

JUDGE_SYSTEM = (
    "你是一名严谨的临床医学评审专家，负责评估在线问诊中医生回复的质量。你会看到医患对话、"
    "待评估的医生回复，以及一条评分标准。只根据这条评分标准判断，不考虑其他方面。\n"
    "加分项：若回复明确做到了标准所描述的内容，判定为满足（met=true），否则为不满足（met=false）。\n"
    "扣分项：标准描述的是不良行为；若回复出现了该行为，判定为 met=true，没有出现则为 met=false。\n"
    "先用一两句话写出理由，再给出判定。只输出一个 JSON 对象："
    '{"rationale": "简短理由", "met": true 或 false}'
)

HEALTHBENCH_JUDGE_SYSTEM = (
    "Your job is to read a conversation between a user and an AI assistant, together with one rubric item, "
    "and to decide whether the last turn of the conversation (the final assistant response, the one being "
    "graded) meets that rubric item. Judge only this rubric item and nothing else.\n"
    "- The rubric item is shown as [points] criterion. If the criterion has several sentences or "
    "requirements, it is met only when all of them are met; if any is not met, it is not met.\n"
    "- Exception: when the criterion lists things after \"such as\", \"for example\" or \"including\", "
    "those are examples; the response does not need to mention all (or any specific one) of them to meet "
    "the criterion.\n"
    "- Criteria with negative points describe undesirable behaviour. Still report whether the criterion "
    "is met, not whether the response is good: met is true only when the response actually shows the "
    "undesirable behaviour, and a good response that avoids it gets met false. For instance, for "
    "\"[-5] Fails to give the user accurate information\" a response with accurate information gets met "
    "false; for \"[-2] Is overly verbose\" a concise response gets met false.\n"
    "First write a brief explanation (one or two sentences) of why the response does or does not meet "
    "the criterion, then the verdict. Return only one JSON object, with no other text: "
    '{"rationale": "brief explanation", "met": true or false}'
)
HEALTHBENCH_ASK = "Return just the JSON object."

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"rationale": {"type": "string", "maxLength": 300}, "met": {"type": "boolean"}},
    "required": ["rationale", "met"],
    "additionalProperties": False,
}

Layout = Literal["case_first", "criterion_first"]


@dataclass(frozen=True)
class JudgePromptConfig:
    system: str = JUDGE_SYSTEM
    layout: Layout = "case_first"
    sees_images: bool = False
    image_marker: str = DEFAULT_IMAGE_MARKER
    style: PromptStyle = "medrealmm"

    @classmethod
    def for_style(cls, style: str | None, *, data_format: str | None = None,
                  **kwargs: Any) -> JudgePromptConfig:
        """``style`` as in ``run.prompt.style`` (``auto`` resolved by ``data_format``); the style's
        system prompt and image marker unless given in ``kwargs``."""
        style = resolve_prompt_style(style, data_format)
        if style == "healthbench":
            kwargs.setdefault("system", HEALTHBENCH_JUDGE_SYSTEM)
            kwargs.setdefault("image_marker", HEALTHBENCH_IMAGE_MARKER)
        return cls(style=style, **kwargs)


def criterion_block(c: Criterion) -> str:
    kind = "加分项（回复应当做到）" if c.positive else "扣分项（回复不应出现的不良行为）"
    return f"【评分标准】\n类型：{kind}\n分值：{c.weight}\n内容：{c.text}"


def healthbench_conversation(case: Case, reply: str, mode: Mode, marker: str,
                             image_url: ImageUrl) -> list[dict[str, Any]]:
    """HealthBench's rendering: ``role: content`` blocks separated by a blank line, the case's own
    system message first if it has one, the reply as the last assistant turn."""
    blocks: list[tuple[str, str, tuple[ImageRef, ...]]] = []
    if case.meta.get("system"):
        blocks.append(("system", str(case.meta["system"]), ()))
    blocks += [("user" if t.role == "patient" else "assistant", t.text, t.images) for t in case.turns]
    blocks.append(("assistant", reply, ()))
    parts: list[dict[str, Any]] = []
    for i, (role, text, images) in enumerate(blocks):
        sep = "" if i == 0 else "\n\n"
        parts.append({"type": "text", "text": f"{sep}{role}: {text}"})
        parts += [image_part(im, mode, marker, image_url) for im in images]
    return parts


def healthbench_judge_messages(case: Case, reply: str, criterion: Criterion, cfg: JudgePromptConfig,
                               image_url: ImageUrl) -> list[dict[str, Any]]:
    mode: Mode = "multimodal" if cfg.sees_images else "text"
    shared = [{"type": "text", "text": "# Conversation\n"},
              *healthbench_conversation(case, reply, mode, cfg.image_marker, image_url),
              {"type": "text", "text": "\n\n"}]
    crit = {"type": "text", "text": f"# Rubric item\n[{criterion.weight}] {criterion.text}\n\n"}
    ask = {"type": "text", "text": HEALTHBENCH_ASK}
    body = [*shared, crit, ask] if cfg.layout == "case_first" else [crit, *shared, ask]
    return [{"role": "system", "content": cfg.system}, {"role": "user", "content": merge_text_parts(body)}]


def judge_messages(case: Case, reply: str, criterion: Criterion, cfg: JudgePromptConfig,
                   image_url: ImageUrl) -> list[dict[str, Any]]:
    if cfg.style == "healthbench":
        return healthbench_judge_messages(case, reply, criterion, cfg, image_url)
    mode: Mode = "multimodal" if cfg.sees_images else "text"
    shared = [{"type": "text", "text": "【医患对话】\n"},
              *transcript(case, mode, cfg.image_marker, image_url),
              {"type": "text", "text": f"\n\n【待评估的医生回复】\n{reply}\n\n"}]
    crit = {"type": "text", "text": criterion_block(criterion) + "\n\n"}
    ask = {"type": "text", "text": "请按要求输出 JSON。"}
    body = [*shared, crit, ask] if cfg.layout == "case_first" else [crit, *shared, ask]
    return [{"role": "system", "content": cfg.system}, {"role": "user", "content": merge_text_parts(body)}]


def run_judge_prompt_config(cfg: dict[str, Any]) -> JudgePromptConfig:
    """The judge prompt a composed config asks for (the run and ``medrealmm plan`` both build it here)."""
    judge = cfg["judge"]
    role = JudgeRole.model_validate(judge)
    if role.sees_images and role.modality == "text":
        raise ValueError(f"judge.sees_images=true but judge {role.name} is text-only (judge.modality=text)")
    kwargs: dict[str, Any] = {"sees_images": role.sees_images, "layout": role.layout}
    if judge.get("system"):
        kwargs["system"] = judge["system"]
    return JudgePromptConfig.for_style((cfg["run"].get("prompt") or {}).get("style"),
                                       data_format=cfg["data"].get("format"), **kwargs)
