from __future__ import annotations

from medrealmm.inference.reasoning import split_reasoning


def test_think_block_is_split_off() -> None:
    assert split_reasoning("<think>先分析</think>\n您好，建议复查。") == ("您好，建议复查。", "先分析")


def test_template_opened_think() -> None:
    assert split_reasoning("分析中</think>回复") == ("回复", "分析中")


def test_unclosed_think_means_no_reply() -> None:
    assert split_reasoning("<think>一直在想") == ("", "一直在想")


def test_engine_reasoning_field_is_kept() -> None:
    assert split_reasoning("回复", "服务器给的推理") == ("回复", "服务器给的推理")


def test_plain_text_and_none() -> None:
    assert split_reasoning(" 回复 ") == ("回复", None)
    assert split_reasoning(None, None) == (None, None)
