from __future__ import annotations

import pytest

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
    assert reasoning_settings(None) == {"thinks": False, "opened_by_template": "auto", "length_is_truncation": True,
                                        "effort": None, "effort_kwarg": None}
    assert reasoning_settings({"thinks": True, "opened_by_template": None})["opened_by_template"] == "auto"

    class Opens:
        def generation_prompt(self, kwargs):
            return "<|im_start|>assistant\n<think>\n" if kwargs.get("enable_thinking", True) else "<|im_start|>assistant\n"

    assert template_opens_think(Opens(), {}) is True
    assert template_opens_think(Opens(), {"enable_thinking": False}) is False
    assert template_opens_think(object(), {}) is False   # a server: its reasoning parser separates the thought


# --- thinking effort: passed to the template variable the model reads it from, checked on the real template ----

from medrealmm.inference.reasoning import effort_applied, template_kwargs  # noqa: E402


def test_effort_goes_into_the_named_template_variable_only() -> None:
    r = {"effort": "max", "effort_kwarg": "reasoning_effort"}
    assert template_kwargs({"enable_thinking": True}, r) == {"enable_thinking": True, "reasoning_effort": "max"}
    assert template_kwargs({"reasoning_effort": "low"}, r) == {"reasoning_effort": "low"}   # an explicit value wins
    assert template_kwargs({}, {"effort": "on", "effort_kwarg": "reasoning_effort"}) == {}   # "on": thinks, no level
    assert template_kwargs({}, {"effort": "high"}) == {}                                      # nowhere to pass it
    assert template_kwargs(None, None) == {}


def test_effort_applied_is_unknown_without_a_level_a_variable_or_a_template() -> None:
    class Reads:
        def generation_prompt(self, kwargs):
            return "assistant\n" + (f"effort: {kwargs['reasoning_effort']}" if "reasoning_effort" in kwargs else "")

    r = {"effort": "max", "effort_kwarg": "reasoning_effort"}
    assert effort_applied(Reads(), {"reasoning_effort": "max"}, r) is True
    assert effort_applied(Reads(), {}, r) is None                           # nothing was passed
    assert effort_applied(Reads(), {"reasoning_effort": "on"}, {"effort": "on", "effort_kwarg": "reasoning_effort"}) is None
    assert effort_applied(object(), {"reasoning_effort": "max"}, r) is None  # a server: its template is not ours to render


@pytest.mark.engine
def test_effort_applied_is_read_off_the_real_template(tiny_cache, tmp_path, caplog) -> None:
    """The tiny model through transformers, once with a template that reads ``reasoning_effort`` and once
    with one that ignores it: the stats say which, and the second run warns."""
    from medrealmm.schema import Case, Criterion, Turn
    from medrealmm.inference.generate import plan_generations, run_generations
    from medrealmm.inference.prompts import PromptConfig
    from medrealmm.inference.transformers_backend import TransformersBackend
    from medrealmm.store import Store
    from medrealmm.inference.tiny_models import CHAT_TEMPLATE, ensure_tiny_model

    reads = CHAT_TEMPLATE.replace("'<|im_start|>assistant\\n'",
                                  "'<|im_start|>assistant\\n' + ('effort: ' + reasoning_effort + '\\n' "
                                  "if reasoning_effort is defined else '')")
    case = Case(id="c1", department="皮肤科", turns=[Turn(role="patient", text="手臂起红疹三天")], y_orig="建议面诊",
                rubric=[Criterion(id="r1", text="建议就医", weight=5)])
    reasoning = {"effort": "high", "effort_kwarg": "reasoning_effort"}
    path = str(ensure_tiny_model("text", tiny_cache))
    for i, (template, applied) in enumerate(((reads, 1), (CHAT_TEMPLATE, 0))):
        items = plan_generations([case], model_name="tiny", model_spec=f"s{i}", modes=["text"], samples=1,
                                 prompt=PromptConfig(), seed=0)
        caplog.clear()
        stats = run_generations(
            items, model_name="tiny", store=Store(tmp_path, f"g{i}"), chunk_size=4,
            backend_factory=lambda t=template: TransformersBackend("tiny", path, chat_template=t),
            sampling_cfg={"max_tokens": 4, "temperature": 0.0}, chat_template_kwargs={}, prompt=PromptConfig(),
            image_bytes=lambda ref: b"", reasoning_cfg=reasoning)
        assert stats["effort_applied"] == applied
        assert ("template ignores it" in caplog.text) == (not applied)
