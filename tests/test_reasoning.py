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


# --- truncation: a reply is never judged when the model did not finish answering --------------------------

from medrealmm.inference.reasoning import reasoning_settings, template_opens_think, truncated  # noqa: E402


def test_template_opened_think_without_close_is_all_reasoning() -> None:
    assert split_reasoning("一直在分析", opened_by_template=True) == ("", "一直在分析")
    assert split_reasoning("分析</think>回复", opened_by_template=True) == ("回复", "分析")
    assert split_reasoning("回复", "服务器分离的推理", opened_by_template=True) == ("回复", "服务器分离的推理")


def test_truncated_says_why() -> None:
    assert truncated("<think>还在想", "stop") == "reasoning_unclosed"
    assert truncated("还在想", "stop", opened_by_template=True) == "reasoning_unclosed"
    assert truncated("想好了</think>回复", "stop", opened_by_template=True) is None
    assert truncated("回复到一半", "length") == "max_tokens"
    assert truncated("<think>a</think>完整回复", "stop") is None
    assert truncated("回复", "stop", opened_by_template=True, reasoning="服务器分离的推理") is None
    assert truncated(None, "length") == "max_tokens" and truncated("", "stop") is None


def test_reasoning_defaults_and_template_detection() -> None:
    assert reasoning_settings(None) == {"thinks": False, "opened_by_template": "auto", "length_is_truncation": True}
    assert reasoning_settings({"thinks": True, "opened_by_template": None})["opened_by_template"] == "auto"

    class Opens:
        def generation_prompt(self, kwargs):
            return "<|im_start|>assistant\n<think>\n" if kwargs.get("enable_thinking", True) else "<|im_start|>assistant\n"

    assert template_opens_think(Opens(), {}) is True
    assert template_opens_think(Opens(), {"enable_thinking": False}) is False
    assert template_opens_think(object(), {}) is False   # a server: its reasoning parser separates the thought
