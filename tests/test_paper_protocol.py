"""preset=paper pins the paper's protocol; the report names the judge and ranks every model once."""

from __future__ import annotations

import polars as pl

from medrealmm.config import compose
from medrealmm.data.loader import load_dataset
from medrealmm.inference.prompts import DEFAULT_SYSTEM, PromptConfig, generation_messages, image_identity

SAMPLE = load_dataset({"format": "sample"})


def test_preset_paper_bundle() -> None:
    cfg = compose(["preset=paper", "model=qwen3_6_27b"])
    assert cfg["judge"]["name"] == "kimi-k2.5" and cfg["judge"]["sees_images"] is True
    assert cfg["judge"]["max_retries"] >= 5 and cfg["judge"]["max_unscored_share"] == 0.0
    assert cfg["run"]["prompt"]["style"] == "paper"
    assert cfg["run"]["scoring"]["unscored_policy"] == "fail"
    assert cfg["run"]["max_missing_share"] == 0.0 and cfg["run"]["max_truncated_share"] == 0.0
    assert cfg["model"]["engine"]["limit_mm_per_prompt"]["image"] == 10
    assert cfg["model"]["engine"]["mm_processor_kwargs"] is None
    assert cfg["model"]["reasoning"]["thinks"] and cfg["model"]["reasoning"]["effort"] == "on"
    med = compose(["preset=paper", "model=medgemma_27b"])["model"]["sampling"]
    assert (med["temperature"], med["top_p"], med["top_k"]) == (0.7, 0.95, 32)   # the paper's one exception
    assert compose(["model=glm_5_1"])["model"]["reasoning"]["effort"] == "max"
    assert compose(["model=deepseek_v4_pro"])["model"]["reasoning"]["effort"] == "high"
    gem = compose(["preset=paper_gemini"])
    assert gem["judge"]["name"] == "gemini-3-pro-preview" and gem["judge_backend"]["kind"] == "openai"
    assert gem["judge"]["needs_network"] is True and gem["run"]["prompt"]["style"] == "paper"


def test_paper_prompt_has_no_persona_and_no_image_instructions() -> None:
    case = next(c for c in SAMPLE.cases if c.n_images)
    cfg = PromptConfig.from_config({"style": "paper"})
    for mode in ("multimodal", "text"):
        msgs = generation_messages(case, mode, cfg, image_identity)
        assert msgs[0]["role"] == "user" and not any(m["role"] == "system" for m in msgs)
        text = str(msgs)
        assert DEFAULT_SYSTEM[:20] not in text and "患者信息" not in text and "无法查看" not in text
    text_msgs = str(generation_messages(case, "text", cfg, image_identity))
    assert "[图片]" in text_msgs and "sha256:" not in text_msgs


def test_overall_ranking_takes_each_model_at_its_best_modality() -> None:
    from medrealmm.report.analyses import overall

    board = pl.DataFrame({
        "judge": ["j"] * 5, "model": ["vlm", "vlm", "textonly", "online", "online"],
        "mode": ["multimodal", "text", "text", "multimodal", "text"], "anchor": [False, False, False, True, True],
        "score": [0.5, 0.3, 0.4, 0.6, 0.55], "ci_low": [0.4] * 5, "ci_high": [0.6] * 5,
        "n_scored": [10] * 5, "n_excluded": [0] * 5})
    t = overall(board)
    assert t.select("model", "mode", "overall_rank").rows() == [
        ("online", "multimodal", None), ("vlm", "multimodal", 1), ("textonly", "text", 2)]


def test_report_header_says_whether_the_judge_is_the_papers() -> None:
    from medrealmm.report.build import judge_provenance

    assert "the paper's judge" in judge_provenance(["gemini-3-pro-preview"])
    assert "validated by the paper" in judge_provenance(["kimi-k2.5"])
    assert "not comparable" in judge_provenance(["qwen2.5-vl-3b"])


def test_dataset_statistics_count_each_case_once() -> None:
    from medrealmm.report.analyses import dataset_stats

    cs = pl.DataFrame({"case_id": ["a", "a", "b"], "department": ["皮肤科", "皮肤科", "儿科"], "intent": ["x", "x", None],
                       "stage": ["s", "s", "s"], "n_images": [1, 1, 3], "n_turns": [2, 2, 4], "n_criteria": [5, 5, 7],
                       "n_pos": [4, 4, 5], "n_neg": [1, 1, 2]})
    t = dataset_stats(cs)
    dept = {r["value"]: r["cases"] for r in t.filter(pl.col("dimension") == "department").iter_rows(named=True)}
    assert dept == {"皮肤科": 1, "儿科": 1}
    assert t.filter(pl.col("dimension") == "n_images (mean, min-max)")["value"].to_list() == ["2.00 (1-3)"]


CLOSED = ("gpt_5_5", "gpt_5_4", "gemini_3_5_flash", "gemini_3_1_pro_preview", "claude_opus_4_7", "claude_opus_4_6",
          "kimi_k2_6")


def test_closed_models_are_optional_and_marked_as_needing_the_network() -> None:
    defaults = compose([])
    assert defaults["backend"]["kind"] == "vllm" and not defaults["model"].get("needs_network")   # offline default
    for name in CLOSED:
        cfg = compose([f"model={name}", "backend=provider"])
        assert cfg["model"]["needs_network"] is True and cfg["backend"]["kind"] == "openai"
        assert cfg["backend"]["base_url"].startswith("https://") and cfg["backend"]["api_key_env"].endswith("_API_KEY")
        assert cfg["model"]["reasoning"]["effort"] in ("medium", "high", "on")


def test_a_closed_model_run_sends_its_effort_and_warns_about_the_network(tmp_path) -> None:
    from tests.conftest import cli
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer() as srv:
        r = cli(["run", "model=gpt_5_5", "backend=provider", f"backend.base_url={srv.base_url}", "backend.api_key=k",
                 "backend@judge_backend=openai", f"judge_backend.base_url={srv.base_url}", "data.limit=1",
                 f"paths.outputs={tmp_path / 'o'}"], cwd=tmp_path)
        gen = [b for b in srv.bodies if b["model"] == "gpt-5.5"]
    assert gen and all(b["reasoning_effort"] == "medium" for b in gen)
    assert "the cases are sent over the network" in r.stderr
