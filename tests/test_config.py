"""Every config in conf/ composes, and the CLI answers --help fast without heavy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from medrealmm.config import compose, conf_dir

GROUPS = ["model", "judge", "backend", "data", "run", "paths", "preset", "cluster"]


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (conf_dir() / group).glob("*.yaml"))


@pytest.mark.parametrize("group,option", [(g, o) for g in GROUPS for o in options(g)])
def test_every_option_composes(group: str, option: str) -> None:
    overrides = [f"{group}={option}"]
    if group == "data" and option in ("jsonl", "parquet"):
        overrides.append("data.path=/tmp/x")
    if group == "backend" and option == "provider":   # a closed model's API: the model config names it
        overrides.append("model=gpt_5_5")
    cfg = compose(overrides)
    assert cfg["run"]["out_dir"].startswith(cfg["paths"]["outputs"])
    if group in ("model", "judge"):
        role = cfg[group]
        assert role["name"], role
        assert role.get("online") or role.get("tiny") or role.get("path"), f"{group}/{option} has no model path"
        assert role.get("modality", "multimodal") in ("multimodal", "text")
    if group == "judge":
        assert cfg["judge"]["layout"] in ("case_first", "criterion_first")
        assert 0 <= cfg["judge"]["max_unscored_share"] <= 1


def test_judge_backend_is_a_separate_group() -> None:
    cfg = compose(["backend=transformers", "backend@judge_backend=openai", "judge_backend.base_url=http://127.0.0.1:1/v1"])
    assert cfg["backend"]["kind"] == "transformers"
    assert cfg["judge_backend"]["kind"] == "openai"
    assert cfg["judge_backend"]["base_url"] == "http://127.0.0.1:1/v1"


def test_smoke_preset_selects_tiny_models_and_run_name_carries_modes() -> None:
    cfg = compose(["preset=smoke", "run.modes=[multimodal,text]"])
    assert cfg["model"]["tiny"] == "vl" and cfg["judge"]["tiny"] == "vl"
    assert cfg["run"]["name"].endswith("tiny-vl__tiny-vl__multimodal+text")


def test_medgemma_sampling_is_the_papers() -> None:
    s = compose(["model=medgemma_27b"])["model"]["sampling"]
    assert (s["temperature"], s["top_p"], s["top_k"]) == (0.7, 0.95, 32)


def test_paper_table4_models_have_configs() -> None:
    names = set(options("model"))
    for want in ["qwen3_6_27b", "qwen3_6_35b_a3b", "kimi_k2_5", "glm_5_1", "deepseek_v4_pro", "medgemma_27b",
                 "lingshu_7b", "lingshu_32b", "huatuogpt_3_32b", "antangelmed_100b", "baichuan_m2_32b",
                 "baichuan_m3_235b", "online", "tiny_vl", "tiny_text"]:
        assert want in names


def test_cli_help_is_fast_and_light() -> None:
    code = ("import sys, time; t = time.perf_counter(); from medrealmm.cli import main; main(['--help']); "
            "heavy = [m for m in ('torch', 'vllm', 'transformers', 'hydra', 'polars') if m in sys.modules]; "
            "print('HEAVY', heavy); print('SECONDS', time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "usage: medrealmm" in out
    assert "HEAVY []" in out
    assert float(out.split("SECONDS")[1]) < 1.0


def test_cli_rejects_unknown_command() -> None:
    r = subprocess.run([sys.executable, "-m", "medrealmm.cli", "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr


def test_launch_entry_points_exist() -> None:
    root = Path(__file__).resolve().parents[1]
    for stage in ("run", "generate", "judge", "score", "validate"):
        assert (root / "launch" / f"{stage}.py").is_file()
