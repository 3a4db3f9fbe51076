"""Prompt styles: HealthBench cases are sampled as is and graded by an English HealthBench-style
grader; MedRealMM cases render exactly as before (the result store keys on the rendering)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from medrealmm.config import compose
from medrealmm.data.healthbench import read_healthbench
from medrealmm.data import LoadOptions
from medrealmm.inference.prompts import (
    HEALTHBENCH_IMAGE_MARKER,
    PromptConfig,
    generation_messages,
    image_identity,
    resolve_prompt_style,
)
from medrealmm.judge.parse import parse_verdict
from medrealmm.judge.prompts import (HEALTHBENCH_JUDGE_SYSTEM, VERDICT_SCHEMA, JudgePromptConfig,
                                    judge_messages)
from medrealmm.pipeline import Context, judge_prompt_config, prompt_config
from medrealmm.schema import Case, ImageRef, Turn, stable_hash

try:
    from tests.conftest import shared_dir
    from tests.test_healthbench import FIXTURE, hb_row, write_rows
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import shared_dir  # type: ignore[no-redef]
    from test_healthbench import FIXTURE, hb_row, write_rows  # type: ignore[no-redef]

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
SYSTEM = "You are a careful assistant. Answer the user's health question."


def has_cjk(obj: Any) -> bool:
    return bool(CJK.search(json.dumps(obj, ensure_ascii=False)))


def ctx_for(overrides: list[str]) -> Context:
    """Just enough of a run context for the prompt-config functions (they read only the config)."""
    return Context(cfg=compose(overrides), dataset=None, out_dir=Path("."),  # type: ignore[arg-type]
                   store_root=Path("."), pool=None)  # type: ignore[arg-type]


def load_one(tmp_path: Path, row: dict[str, Any]) -> Case:
    path = write_rows(tmp_path / "hb.jsonl", [row])
    (case,) = read_healthbench(path, options=LoadOptions(strict=True)).cases
    return case


@pytest.fixture
def with_system(tmp_path: Path) -> Case:
    return load_one(tmp_path, hb_row("sys-1", prompt=[
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "My child has a fever."},
        {"role": "assistant", "content": "How high is it, and for how long?"},
        {"role": "user", "content": "39.5 °C since yesterday. Should I worry?"},
    ]))


@pytest.fixture
def without_system(tmp_path: Path) -> Case:
    return load_one(tmp_path, hb_row("plain-1"))


HB = PromptConfig.from_config({}, data_format="healthbench")


# --- generation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["multimodal", "text"])
def test_generation_starts_with_the_cases_own_system_message_and_has_no_chinese(with_system: Case,
                                                                               mode: str) -> None:
    cfg = prompt_config(ctx_for(["data=healthbench"]))
    assert cfg.style == "healthbench" and cfg.system is None
    msgs = generation_messages(with_system, mode, cfg, image_identity)  # type: ignore[arg-type]
    assert msgs == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "My child has a fever."},
        {"role": "assistant", "content": "How high is it, and for how long?"},
        {"role": "user", "content": "39.5 °C since yesterday. Should I worry?"},
    ]
    assert not has_cjk(msgs)


def test_without_a_system_message_there_is_none(without_system: Case) -> None:
    msgs = generation_messages(without_system, "text", HB, image_identity)
    assert msgs == [{"role": "user", "content": "I have had a headache for three days (plain-1)."}]
    assert not has_cjk(msgs)


def test_conversation_is_sent_as_is_without_opening_or_continue_lines(tmp_path: Path) -> None:
    case = load_one(tmp_path, hb_row("asis-1", prompt=[
        {"role": "assistant", "content": "Hello, how can I help?"},
        {"role": "user", "content": "Is a rash after amoxicillin an allergy?"},
        {"role": "assistant", "content": "Can you describe the rash?"},
    ]))
    msgs = generation_messages(case, "text", HB, image_identity)
    assert [(m["role"], m["content"]) for m in msgs] == [
        ("assistant", "Hello, how can I help?"), ("user", "Is a rash after amoxicillin an allergy?"),
        ("assistant", "Can you describe the rash?")]


def test_explicit_run_prompt_system_wins(with_system: Case, without_system: Case) -> None:
    cfg = prompt_config(ctx_for(["data=healthbench", "run.prompt.system=Be brief."]))
    assert cfg.style == "healthbench"
    for case in (with_system, without_system):
        msgs = generation_messages(case, "text", cfg, image_identity)
        assert msgs[0] == {"role": "system", "content": "Be brief."}
        assert sum(m["role"] == "system" for m in msgs) == 1 and SYSTEM not in str(msgs)
    # an explicit empty system prompt: no system message at all, even where the case has one
    empty = PromptConfig.from_config({"system": ""}, data_format="healthbench")
    assert [m["role"] for m in generation_messages(with_system, "text", empty, image_identity)] == [
        "user", "assistant", "user"]


def test_images_are_handled_as_before_with_an_english_marker(without_system: Case) -> None:
    turn = Turn(role="patient", text="Here is the rash.", images=(ImageRef(path="a.png"),))
    case = without_system.model_copy(update={"turns": (*without_system.turns, turn)})
    text = generation_messages(case, "text", HB, image_identity)
    assert text == [{"role": "user", "content": "I have had a headache for three days (plain-1).\n"
                                                "Here is the rash.\n" + HEALTHBENCH_IMAGE_MARKER}]
    multi = generation_messages(case, "multimodal", HB, image_identity)
    assert multi[0]["content"][-1] == {"type": "image_url", "image_url": {"url": "path:a.png"}}
    assert not has_cjk(text) and not has_cjk(multi)


# --- style resolution -----------------------------------------------------------------------------

@pytest.mark.parametrize("overrides,style", [
    (["data=healthbench"], "healthbench"),
    (["data=sample"], "medrealmm"),
    (["data=jsonl", "data.path=/tmp/x"], "medrealmm"),
    (["data=healthbench", "run.prompt.style=medrealmm"], "medrealmm"),
    (["data=sample", "run.prompt.style=healthbench"], "healthbench"),
    (["data=sample", "run.prompt.style=auto"], "medrealmm"),
])
def test_auto_resolves_by_data_format_and_explicit_styles_win(overrides: list[str], style: str) -> None:
    ctx = ctx_for(overrides)
    assert compose([])["run"]["prompt"]["style"] == "auto"
    assert prompt_config(ctx).style == style
    assert judge_prompt_config(ctx).style == style
    want_system = HEALTHBENCH_JUDGE_SYSTEM if style == "healthbench" else JudgePromptConfig().system
    assert judge_prompt_config(ctx).system == want_system


def test_unknown_style_is_an_error() -> None:
    with pytest.raises(ValueError, match="run.prompt.style"):
        prompt_config(ctx_for(["run.prompt.style=chatml"]))
    with pytest.raises(ValueError, match="run.prompt.style"):
        judge_prompt_config(ctx_for(["run.prompt.style=chatml"]))
    assert resolve_prompt_style(None, "healthbench") == "healthbench"
    assert resolve_prompt_style(None, None) == "medrealmm"


# --- judging --------------------------------------------------------------------------------------

def test_judge_prompt_for_a_penalty_is_english_with_criterion_and_points(with_system: Case) -> None:
    cfg = judge_prompt_config(ctx_for(["data=healthbench"]))
    penalty = with_system.rubric[1]
    assert penalty.weight == -4
    reply = "Give paracetamol; see a doctor if the fever lasts beyond three days."
    msgs = judge_messages(with_system, reply, penalty, cfg, image_identity)
    assert not has_cjk(msgs)
    assert msgs[0] == {"role": "system", "content": HEALTHBENCH_JUDGE_SYSTEM}
    (body,) = msgs[1]["content"]
    text = body["text"]
    assert "[-4] Recommends opioids without assessment." in text
    assert "negative points" in msgs[0]["content"]
    # HealthBench's rendering: role-labelled blocks, own system message first, the reply last
    assert text.startswith(f"# Conversation\nsystem: {SYSTEM}\n\nuser: My child has a fever.\n\n")
    assert f"user: 39.5 °C since yesterday. Should I worry?\n\nassistant: {reply}\n\n# Rubric item\n" in text
    # the verdict format is the one our schema constrains and our parser reads
    for key in VERDICT_SCHEMA["properties"]:
        assert f'"{key}"' in msgs[0]["content"]
    assert parse_verdict('{"rationale": "No opioids are recommended.", "met": false}').met is False


def test_judge_prompt_puts_the_criterion_last_after_a_shared_prefix(with_system: Case) -> None:
    cfg = JudgePromptConfig.for_style("healthbench")
    a, b = (judge_messages(with_system, "reply", c, cfg, image_identity)[1]["content"][0]["text"]
            for c in with_system.rubric)
    common = os.path.commonprefix([a, b])
    assert common.endswith("assistant: reply\n\n# Rubric item\n[")
    assert a[len(common) - 1:].startswith("[5] Asks about red-flag symptoms.")
    first = JudgePromptConfig.for_style("healthbench", layout="criterion_first")
    msgs = judge_messages(with_system, "reply", with_system.rubric[0], first, image_identity)
    text = msgs[1]["content"][0]["text"]
    assert text.startswith("# Rubric item\n[5] Asks about red-flag symptoms.\n\n# Conversation\n")


def test_judge_system_from_the_judge_config_still_wins() -> None:
    cfg = judge_prompt_config(ctx_for(["data=healthbench", "+judge.system=Grade strictly."]))
    assert cfg.style == "healthbench" and cfg.system == "Grade strictly."


# --- the real HealthBench example -----------------------------------------------------------------

def test_real_example_renders_as_is_and_grades_in_english() -> None:
    path = shared_dir() / FIXTURE
    if not path.is_file():
        pytest.skip(f"HealthBench fixture {path} not found")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    ctx = ctx_for(["data=healthbench", f"data.path={path}"])
    gen, judge = prompt_config(ctx), judge_prompt_config(ctx)
    cases = read_healthbench(path, options=LoadOptions(strict=True)).cases
    for case, row in zip(cases, rows, strict=True):
        msgs = generation_messages(case, "text", gen, image_identity)
        systems = [m["content"] for m in row["prompt"] if m["role"] == "system"]
        want = ([{"role": "system", "content": "\n\n".join(systems)}] if systems else []) + [
            {"role": m["role"], "content": m["content"]} for m in row["prompt"] if m["role"] != "system"]
        assert msgs == want
        assert generation_messages(case, "multimodal", gen, image_identity) == want
        reply = "Some supplements interact with blood pressure drugs; please share the product name."
        for c, item in zip(case.rubric, row["rubrics"], strict=True):
            text = judge_messages(case, reply, c, judge, image_identity)[1]["content"][0]["text"]
            assert text.endswith(f"# Rubric item\n[{item['points']}] {item['criterion']}\n\n"
                                 "Return just the JSON object.")
            assert f"assistant: {reply}\n\n" in text
            assert not has_cjk(text)


# --- the medrealmm style is unchanged -------------------------------------------------------------

PIN_CASES = [
    Case.parse({
        "id": "pin-1", "department": "皮肤科", "patient": {"age": 30, "sex": "female"},
        "turns": [{"role": "patient", "text": "医生好", "images": [{"path": "a.png"}]},
                  {"role": "patient", "text": "还有一张", "images": [{"path": "b.png", "sha256": "ab" * 32}]},
                  {"role": "doctor", "text": "多久了？"},
                  {"role": "patient", "text": "三天"}],
        "y_orig": "考虑湿疹。",
        "rubric": [{"id": "c1", "text": "询问过敏史", "weight": 5}, {"id": "c2", "text": "建议抗生素", "weight": -4}]}),
    Case.parse({
        "id": "pin-2", "department": "内科",
        "turns": [{"role": "doctor", "text": "您好，请描述症状。"},
                  {"role": "patient", "text": "", "images": [{"path": "c.jpg"}]},
                  {"role": "doctor", "text": "需要复查血常规。"}],
        "y_orig": "建议复查。",
        "rubric": [{"id": "c1", "text": "建议复查", "weight": 3}]}),
    Case.parse({
        "id": "pin-3", "department": "context_seeking", "patient": {"sex": "male"},
        "turns": [{"role": "patient", "text": "I have had a headache for three days."}],
        "y_orig": "",
        "rubric": [{"id": "c1", "text": "Asks about red flags.", "weight": 5},
                   {"id": "c2", "text": "Recommends opioids.", "weight": -4}],
        "meta": {"source": "healthbench", "system": SYSTEM}}),
]


def render_medrealmm(gen_messages, gen_config, judge_msgs, judge_config) -> dict[str, str]:
    """Every medrealmm-style rendering of PIN_CASES, hashed. Takes the builders as arguments so that
    the pins below could be computed with the code before prompt styles existed."""
    gen_cfgs = [gen_config(), gen_config(system="自定义提示", include_patient_info=False, image_marker="[图]",
                                         continue_text="继续", opening_text="开始")]
    judge_cfgs = [judge_config(), judge_config(sees_images=True), judge_config(layout="criterion_first"),
                  judge_config(system="评审", image_marker="[图片]")]
    gen = [gen_messages(c, m, cfg, image_identity) for c in PIN_CASES for m in ("multimodal", "text")
           for cfg in gen_cfgs]
    jud = [judge_msgs(c, "回复内容", cr, cfg, image_identity) for c in PIN_CASES for cr in c.rubric
           for cfg in judge_cfgs]
    return {"generation": stable_hash(gen), "judge": stable_hash(jud)}


# Computed with the builders as they were before prompt styles (a verbatim copy of the old code).
PINNED = {"generation": "47a52f22c36789d0732cc26f73c39cb2ffd304b1757a6b5cfaee6baaa79e2e38",
          "judge": "2a3324df76db44c053d4491b0be5f4c4e9990593453f7cf1ffff773a648c92e1"}


def test_medrealmm_style_renders_byte_identical_to_before() -> None:
    assert render_medrealmm(generation_messages, PromptConfig, judge_messages, JudgePromptConfig) == PINNED


def test_medrealmm_configs_from_the_pipeline_are_the_old_defaults() -> None:
    for overrides in (["data=sample"], ["data=healthbench", "run.prompt.style=medrealmm"]):
        ctx = ctx_for(overrides)
        assert prompt_config(ctx) == PromptConfig()
        assert judge_prompt_config(ctx) == JudgePromptConfig()
    custom = prompt_config(ctx_for(["data=sample", "run.prompt.system=X",
                                    "run.prompt.include_patient_info=false"]))
    assert custom == PromptConfig(system="X", include_patient_info=False)
    # the medrealmm style never shows a case's own system message
    msgs = generation_messages(PIN_CASES[2], "text", PromptConfig(), image_identity)
    assert SYSTEM not in str(msgs)
    assert msgs[0]["content"].startswith(PromptConfig().system)  # type: ignore[arg-type]
