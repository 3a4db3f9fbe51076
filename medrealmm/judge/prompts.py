"""The judge's prompt. The case and the reply come first and the criterion last, so that every
criterion of one reply shares one long prefix and the engine's prefix cache computes it once.
``criterion_first`` exists only to measure that (benchmarks/prefix_sharing.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from medrealmm.inference.prompts import DEFAULT_IMAGE_MARKER, ImageUrl, merge_text_parts, transcript
from medrealmm.schema import Case, Criterion

JUDGE_SYSTEM = (
    "你是一名严谨的临床医学评审专家，负责评估在线问诊中医生回复的质量。你会看到医患对话、"
    "待评估的医生回复，以及一条评分标准。只根据这条评分标准判断，不考虑其他方面。\n"
    "加分项：若回复明确做到了标准所描述的内容，判定为满足（met=true），否则为不满足（met=false）。\n"
    "扣分项：标准描述的是不良行为；若回复出现了该行为，判定为 met=true，没有出现则为 met=false。\n"
    "先用一两句话写出理由，再给出判定。只输出一个 JSON 对象："
    '{"rationale": "简短理由", "met": true 或 false}'
)

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


def criterion_block(c: Criterion) -> str:
    kind = "加分项（回复应当做到）" if c.positive else "扣分项（回复不应出现的不良行为）"
    return f"【评分标准】\n类型：{kind}\n分值：{c.weight}\n内容：{c.text}"


def judge_messages(case: Case, reply: str, criterion: Criterion, cfg: JudgePromptConfig,
                   image_url: ImageUrl) -> list[dict[str, Any]]:
    mode = "multimodal" if cfg.sees_images else "text"
    shared = [{"type": "text", "text": "【医患对话】\n"},
              *transcript(case, mode, cfg.image_marker, image_url),
              {"type": "text", "text": f"\n\n【待评估的医生回复】\n{reply}\n\n"}]
    crit = {"type": "text", "text": criterion_block(criterion) + "\n\n"}
    ask = {"type": "text", "text": "请按要求输出 JSON。"}
    body = [*shared, crit, ask] if cfg.layout == "case_first" else [crit, *shared, ask]
    return [{"role": "system", "content": cfg.system}, {"role": "user", "content": merge_text_parts(body)}]
