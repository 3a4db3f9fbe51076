"""Turning a case into the chat the evaluated model answers.

Patient turns become ``user`` messages and doctor turns ``assistant`` messages, so the model
continues the consultation as the physician. Consecutive turns of one side are merged because
most chat templates require alternating roles. In text-only mode every image becomes a marker,
as in the paper's ablation.

Two prompt styles (``run.prompt.style``; ``auto`` picks ``healthbench`` for HealthBench data, else
``medrealmm``, see :func:`resolve_prompt_style`):

- ``medrealmm``: our Chinese physician system prompt with the patient-info line, then the dialogue,
  opened and closed with a user line where needed. Its rendering must never change: the result
  store keys on the rendered messages (tests/test_healthbench_prompts.py pins it).
- ``paper``: as the paper describes its evaluation — no system prompt, persona, safety nudge or
  patient-info line, nothing asking the model to read images; the dialogue only (patient turns as
  ``user``, doctor turns as ``assistant``; a neutral image marker ``[图片]`` in the text-only mode).
- ``healthbench``: the conversation as is, as HealthBench samples it: the case's own system
  message (``meta["system"]``, or ``run.prompt.system`` when set, which wins), or none at all,
  then the turns as user/assistant messages, with no added instructions, patient line, opening or
  "continue" line.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from medrealmm.schema import Case, ImageRef, Mode

DEFAULT_SYSTEM = (
    "你是一名在互联网医院提供在线问诊服务的执业医生。下面是你与患者的对话，患者可能上传了检查报告、处方、"
    "皮肤照片或影像等图片。请仔细阅读对话和图片，以医生的身份用中文写出你接下来的一条回复："
    "回应患者的问题，解读相关图片信息，给出专业、安全、可执行的建议，必要时说明需要线下就医或进一步检查。"
)
DEFAULT_IMAGE_MARKER = "[患者上传了一张图片，当前无法查看图片内容]"
DEFAULT_CONTINUE = "（患者暂无新消息，请继续以医生身份回复。）"
DEFAULT_OPENING = "（患者发起了在线问诊。）"
SEX_ZH = {"male": "男", "female": "女"}
HEALTHBENCH_IMAGE_MARKER = "[The user shared an image that cannot be shown here.]"
PAPER_IMAGE_MARKER = "[图片]"

PromptStyle = Literal["medrealmm", "healthbench", "paper"]
PROMPT_STYLES: tuple[str, ...] = ("auto", *get_args(PromptStyle))


def resolve_prompt_style(style: str | None, data_format: str | None) -> PromptStyle:
    """``run.prompt.style`` made concrete: ``auto`` (or unset) is ``healthbench`` for HealthBench data
    (``data.format``), ``medrealmm`` for everything else."""
    style = style or "auto"
    if style == "auto":
        return "healthbench" if data_format == "healthbench" else "medrealmm"
    if style not in PROMPT_STYLES:
        raise ValueError(f"run.prompt.style: unknown style {style!r}; use one of {', '.join(PROMPT_STYLES)}")
    return style  # type: ignore[return-value]


@dataclass(frozen=True)
class PromptConfig:
    """``system`` None (healthbench style only) means the case's own system message, or none."""
    system: str | None = DEFAULT_SYSTEM
    image_marker: str = DEFAULT_IMAGE_MARKER
    continue_text: str = DEFAULT_CONTINUE
    opening_text: str = DEFAULT_OPENING
    include_patient_info: bool = True
    style: PromptStyle = "medrealmm"

    @classmethod
    def from_config(cls, cfg: Any | None, *, data_format: str | None = None) -> PromptConfig:
        """From ``run.prompt`` (nulls already dropped). The style's defaults fill what is not set:
        for ``healthbench`` no fixed system prompt (the case's own) and an English image marker."""
        kwargs = dict(cfg or {})
        style = resolve_prompt_style(kwargs.pop("style", None), data_format)
        if style == "healthbench":
            kwargs.setdefault("system", None)
            kwargs.setdefault("image_marker", HEALTHBENCH_IMAGE_MARKER)
        if style == "paper":
            kwargs.setdefault("system", None)
            kwargs.setdefault("image_marker", PAPER_IMAGE_MARKER)
            kwargs.setdefault("include_patient_info", False)
        return cls(style=style, **kwargs)


ImageUrl = Callable[[ImageRef], str]


def image_identity(ref: ImageRef) -> str:
    """What stands for an image in result keys: its content hash (its path when not loaded)."""
    return f"sha256:{ref.sha256}" if ref.sha256 else f"path:{ref.path}"


def inline_images(read: Callable[[ImageRef], bytes]) -> ImageUrl:
    """Images as data URLs, understood by vLLM, transformers (qwen-vl-utils) and HTTP servers."""
    return lambda ref: data_url(read(ref))


def image_mime(data: bytes) -> str:
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] in (b"GIF8",):
        return "image/gif"
    if data[:2] == b"BM":
        return "image/bmp"
    raise ValueError("not a JPEG, PNG, WEBP, GIF or BMP image")


def data_url(data: bytes) -> str:
    return f"data:{image_mime(data)};base64,{base64.b64encode(data).decode()}"


def patient_line(case: Case) -> str:
    parts = []
    if case.patient.sex:
        parts.append(f"性别：{SEX_ZH[case.patient.sex]}")
    if case.patient.age is not None:
        parts.append(f"年龄：{case.patient.age}岁")
    parts.append(f"就诊科室：{case.department}")
    return "患者信息：" + "，".join(parts)


def image_part(im: ImageRef, mode: Mode, marker: str, image_url: ImageUrl) -> dict[str, Any]:
    """The image itself (multimodal) or the text marker that stands for it (the text-only ablation)."""
    if mode == "multimodal":
        return {"type": "image_url", "image_url": {"url": image_url(im)}}
    return {"type": "text", "text": marker}


def content_parts(text: str, images: tuple[ImageRef, ...], mode: Mode, marker: str,
                  image_url: ImageUrl) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if text.strip():
        parts.append({"type": "text", "text": text})
    parts += [image_part(im, mode, marker, image_url) for im in images]
    return parts


def turn_messages(case: Case, mode: Mode, cfg: PromptConfig, image_url: ImageUrl) -> list[dict[str, Any]]:
    """The turns as user/assistant messages of content parts; consecutive turns of one side merged
    (most chat templates require alternating roles)."""
    messages: list[dict[str, Any]] = []
    for turn in case.turns:
        role = "user" if turn.role == "patient" else "assistant"
        parts = content_parts(turn.text, turn.images, mode, cfg.image_marker, image_url)
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(parts)
        else:
            messages.append({"role": role, "content": parts})
    return messages


def plain_text_contents(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Assistant turns and text-only turns as plain strings: widest template support."""
    for m in messages:
        if all(p["type"] == "text" for p in m["content"]):
            m["content"] = "\n".join(p["text"] for p in m["content"])
    return messages


def dialogue_messages(case: Case, mode: Mode, cfg: PromptConfig, image_url: ImageUrl) -> list[dict[str, Any]]:
    """The consultation as alternating user/assistant messages, starting and ending with the user
    (several chat templates, e.g. Gemma's, refuse anything else)."""
    messages = turn_messages(case, mode, cfg, image_url)
    if messages[0]["role"] != "user":
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": cfg.opening_text}]})
    if messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": [{"type": "text", "text": cfg.continue_text}]})
    return plain_text_contents(messages)


def medrealmm_messages(case: Case, mode: Mode, cfg: PromptConfig,
                       image_url: ImageUrl) -> list[dict[str, Any]]:
    """Our Chinese physician system prompt (with the patient line), then the dialogue."""
    base = DEFAULT_SYSTEM if cfg.system is None else cfg.system
    system = base + ("\n" + patient_line(case) if cfg.include_patient_info else "")
    return [{"role": "system", "content": system}, *dialogue_messages(case, mode, cfg, image_url)]


def healthbench_messages(case: Case, mode: Mode, cfg: PromptConfig,
                         image_url: ImageUrl) -> list[dict[str, Any]]:
    """The conversation as is: ``cfg.system`` when set (an empty one: no system message), else the
    case's own system message (``meta["system"]``) if it has one, then the turns. Nothing is added;
    ``opening_text``, ``continue_text`` and ``include_patient_info`` do not apply."""
    system = cfg.system if cfg.system is not None else case.meta.get("system")
    head = [{"role": "system", "content": system}] if system else []
    return [*head, *plain_text_contents(turn_messages(case, mode, cfg, image_url))]


def paper_messages(case: Case, mode: Mode, cfg: PromptConfig, image_url: ImageUrl) -> list[dict[str, Any]]:
    """The dialogue alone (``run.prompt.system`` only when a user sets one): no persona or instructions."""
    head = [{"role": "system", "content": cfg.system}] if cfg.system else []
    return [*head, *dialogue_messages(case, mode, cfg, image_url)]


def generation_messages(case: Case, mode: Mode, cfg: PromptConfig, image_url: ImageUrl) -> list[dict[str, Any]]:
    build = {"healthbench": healthbench_messages, "paper": paper_messages}.get(cfg.style, medrealmm_messages)
    return build(case, mode, cfg, image_url)


def transcript(case: Case, mode: Mode, marker: str, image_url: ImageUrl) -> list[dict[str, Any]]:
    """The consultation as one block of labelled text (with image parts inline), for the judge."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": patient_line(case)}]
    for i, turn in enumerate(case.turns, 1):
        who = "患者" if turn.role == "patient" else "医生"
        parts.append({"type": "text", "text": f"\n[{i}] {who}：{turn.text}"})
        for im in turn.images:
            if mode == "multimodal":
                parts.append({"type": "image_url", "image_url": {"url": image_url(im)}})
            else:
                parts.append({"type": "text", "text": marker})
    return merge_text_parts(parts)


def merge_text_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in parts:
        if p["type"] == "text" and out and out[-1]["type"] == "text":
            out[-1] = {"type": "text", "text": out[-1]["text"] + p["text"]}
        else:
            out.append(p)
    return out


def run_prompt_config(cfg: dict[str, Any]) -> PromptConfig:
    """The generation prompt a composed config asks for: ``run.prompt`` without its nulls, style ``auto``
    resolved by ``data.format`` (the run and ``medrealmm plan`` both build it here)."""
    given = {k: v for k, v in (cfg["run"].get("prompt") or {}).items() if v is not None}
    return PromptConfig.from_config(given, data_format=cfg["data"].get("format"))
