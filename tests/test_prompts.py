"""Prompt building for the evaluated model and the judge."""

from __future__ import annotations

import io

from PIL import Image

from medrealmm.inference.prompts import (DEFAULT_IMAGE_MARKER, DEFAULT_OPENING, PromptConfig, data_url,
                                        generation_messages, image_identity, inline_images)
from medrealmm.judge.prompts import JudgePromptConfig, judge_messages
from medrealmm.schema import Case


def png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 10, 10)).save(buf, "PNG")
    return buf.getvalue()


CASE = Case.parse({
    "id": "x1", "department": "皮肤科", "patient": {"age": 30, "sex": "female"},
    "turns": [{"role": "patient", "text": "医生好", "images": [{"path": "a.png"}]},
              {"role": "patient", "text": "还有一张", "images": [{"path": "b.png"}]},
              {"role": "doctor", "text": "多久了？"},
              {"role": "patient", "text": "三天"}],
    "y_orig": "考虑湿疹。",
    "rubric": [{"id": "c1", "text": "询问过敏史", "weight": 5}, {"id": "c2", "text": "建议抗生素", "weight": -4}]})


def _bytes(_ref) -> bytes:
    return png()


read = inline_images(_bytes)


def test_roles_alternate_and_images_are_data_urls() -> None:
    msgs = generation_messages(CASE, "multimodal", PromptConfig(), read)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert "性别：女" in msgs[0]["content"] and "30岁" in msgs[0]["content"]
    parts = msgs[1]["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    assert len(images) == 2 and images[0]["image_url"]["url"] == data_url(png())
    assert msgs[2]["content"] == "多久了？"


def test_text_mode_replaces_every_image_with_the_marker() -> None:
    msgs = generation_messages(CASE, "text", PromptConfig(), read)
    flat = str(msgs)
    assert "image_url" not in flat
    assert msgs[1]["content"].count(DEFAULT_IMAGE_MARKER) == 2


def test_dialogue_ending_with_doctor_gets_a_user_turn() -> None:
    case = CASE.model_copy(update={"turns": CASE.turns[:3]})
    msgs = generation_messages(case, "text", PromptConfig(), read)
    assert msgs[-1]["role"] == "user"


def test_judge_prompt_puts_criterion_last_and_shares_the_prefix() -> None:
    cfg = JudgePromptConfig()
    a = judge_messages(CASE, "回复", CASE.rubric[0], cfg, read)
    b = judge_messages(CASE, "回复", CASE.rubric[1], cfg, read)
    ta, tb = a[1]["content"][-1]["text"], b[1]["content"][-1]["text"]
    common = len(__import__("os").path.commonprefix([ta, tb]))
    assert "询问过敏史" in ta[common:] and "建议抗生素" in tb[common:]
    assert "【待评估的医生回复】\n回复" in ta[:common]
    assert "加分项" in ta[common - 10:] and "扣分项" in tb[common - 10:]
    assert "image_url" not in str(a)  # judge does not see images by default


def test_judge_can_see_images_and_criterion_first_layout() -> None:
    m = judge_messages(CASE, "回复", CASE.rubric[0], JudgePromptConfig(sees_images=True), read)
    assert sum(p["type"] == "image_url" for p in m[1]["content"]) == 2
    first = judge_messages(CASE, "回复", CASE.rubric[0], JudgePromptConfig(layout="criterion_first"), read)
    assert first[1]["content"][0]["text"].startswith("【评分标准】")


def test_dialogue_opening_with_the_doctor_starts_with_a_user_turn() -> None:
    case = CASE.model_copy(update={"turns": (CASE.turns[2], *CASE.turns)})
    msgs = generation_messages(case, "text", PromptConfig(), read)
    assert [m["role"] for m in msgs[:3]] == ["system", "user", "assistant"]
    assert msgs[1]["content"] == DEFAULT_OPENING


def test_images_in_keys_are_their_content_hash() -> None:
    ref = CASE.turns[0].images[0]
    assert image_identity(ref) == "path:a.png"
    assert image_identity(ref.model_copy(update={"sha256": "ab" * 32})) == "sha256:" + "ab" * 32
    msgs = generation_messages(CASE, "multimodal", PromptConfig(), image_identity)
    assert msgs[1]["content"][1]["image_url"]["url"] == "path:a.png"
