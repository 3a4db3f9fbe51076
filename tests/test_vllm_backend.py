"""The vLLM backend on the tiny VLM (CPU build): one refused prompt must not sink its batch.

vLLM runs in a child process so its process-wide settings (threads, seeds) stay out of pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.engine

SCRIPT = r"""
import json, sys
from medrealmm.inference.base import ChatRequest, Sampling
from medrealmm.inference.vllm_backend import VLLMBackend
from medrealmm.inference.tiny_models import ensure_tiny_model

if __name__ == "__main__":
    path = str(ensure_tiny_model("vl", sys.argv[1]))
    b = VLLMBackend("tiny", path, engine={"max_model_len": 256, "limit_mm_per_prompt": {"image": 1, "video": 0}},
                    cpu={"dtype": "float32", "kv_cache_gib": 1, "enable_chunked_prefill": False})
    short = [{"role": "user", "content": "医生您好"}]
    long = [{"role": "user", "content": "很长的病史 " * 400}]
    schema = {"type": "object", "properties": {"met": {"type": "boolean"}}, "required": ["met"],
              "additionalProperties": False}
    reqs = [ChatRequest(short, Sampling(max_tokens=8)), ChatRequest(long, Sampling(max_tokens=8)),
            ChatRequest(short, Sampling(max_tokens=20), json_schema=schema)]
    outs = b.chat(reqs)
    print("RESULT", json.dumps([o.__dict__ for o in outs], ensure_ascii=False))
    calls = []
    run = b._run
    b._run = lambda rs, desc: (calls.append(len(rs)), run(rs, desc))[1]
    many = [ChatRequest(short, Sampling(max_tokens=4)) for _ in range(32)]
    many[11] = ChatRequest(long, Sampling(max_tokens=4))
    outs = b.chat(many)
    print("BISECT", json.dumps({"calls": calls, "errors": [i for i, o in enumerate(outs) if o.error]}))
    b.close()
"""


def test_refused_prompt_becomes_an_error_completion(tmp_path, tiny_cache) -> None:
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tiny_cache)], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("RESULT "))
    short, long, constrained = json.loads(line[len("RESULT "):])
    assert short["error"] is None and short["text"] is not None and short["completion_tokens"] <= 8
    assert long["text"] is None and "256" in long["error"]  # names the context limit it broke
    assert constrained["error"] is None and isinstance(json.loads(constrained["text"])["met"], bool)
    # one refused prompt in a batch of 32: found by halving, not by sending the other 31 one by one
    bisect = json.loads(next(ln for ln in r.stdout.splitlines() if ln.startswith("BISECT "))[len("BISECT "):])
    assert bisect["errors"] == [11]
    assert len(bisect["calls"]) <= 12 and sum(bisect["calls"]) <= 32 + 2 * 32, bisect


def test_settings_are_known_without_starting_and_nothing_process_wide_changes(monkeypatch) -> None:
    """``start=False``: the engine's ``LLM(...)`` arguments and environment are worked out and nothing is set or
    imported (``slurm/medrealmm_slurm.py`` learns a follower's or a served judge's engine this way)."""
    import os

    from medrealmm.inference.vllm_backend import VLLMBackend

    for k in ("VLLM_CPU_KVCACHE_SPACE", "VLLM_ENABLE_V1_MULTIPROCESSING", "VLLM_LOGGING_CONFIG_PATH"):
        monkeypatch.delenv(k, raising=False)
    before = dict(os.environ)
    b = VLLMBackend("tiny", "/models/tiny", engine={"max_model_len": 4096, "dtype": None}, device="cpu", seed=3,
                    cpu={"kv_cache_gib": 2, "max_model_len_cap": 1024, "dtype": "float32"}, chat_template="{{x}}",
                    start=False)
    assert dict(os.environ) == before and not hasattr(b, "llm")
    assert b.engine_args() == {"enable_prefix_caching": True, "seed": 3, "max_model_len": 1024,
                               "distributed_executor_backend": "uni", "dtype": "float32", "chat_template": "{{x}}",
                               "structured_outputs_config": {"backend": "guidance", "disable_any_whitespace": True}}
    assert b.environment() == {"VLLM_CPU_KVCACHE_SPACE": "2", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    b.engine_args()["structured_outputs_config"]["backend"] = "xgrammar"   # copies: the backend is unchanged
    assert b.engine_args()["structured_outputs_config"]["backend"] == "guidance"
    spread = VLLMBackend("tiny", "/m", device="cpu", cpu={"in_process": False}, start=False)
    assert spread.environment() == {"VLLM_CPU_KVCACHE_SPACE": "1"}
    assert "distributed_executor_backend" not in spread.engine_args()
    gpu = VLLMBackend("tiny", "/m", device="cuda", cpu={"kv_cache_gib": 9}, start=False)
    assert gpu.environment() == {} and "distributed_executor_backend" not in gpu.engine_args()


def test_prepare_process_sets_what_the_engine_needs_once_and_says_so(monkeypatch, caplog) -> None:
    import logging
    import os

    from medrealmm.inference import vllm_backend

    for k in ("VLLM_CPU_KVCACHE_SPACE", "VLLM_LOGGING_CONFIG_PATH", "VLLM_LOGGING_LEVEL"):
        monkeypatch.delenv(k, raising=False)
    with caplog.at_level(logging.INFO, logger=vllm_backend.__name__):
        set_ = vllm_backend.prepare_process({"VLLM_CPU_KVCACHE_SPACE": "2"}, "warning")
    assert set_["VLLM_CPU_KVCACHE_SPACE"] == "2" and set_["VLLM_LOGGING_LEVEL"] == "WARNING"
    assert json.loads(open(set_["VLLM_LOGGING_CONFIG_PATH"]).read())["loggers"]["vllm"]["level"] == "WARNING"
    assert all(os.environ[k] == v for k, v in set_.items())
    assert "environment for vLLM: VLLM_CPU_KVCACHE_SPACE=2 (was unset)" in caplog.text
    assert vllm_backend.prepare_process({"VLLM_CPU_KVCACHE_SPACE": "2"}, "WARNING") == {}   # already so: nothing


def test_from_config_builds_the_engine_make_backend_builds(monkeypatch, tiny_cache) -> None:
    """The Slurm helper builds a follower's or server's engine with ``VLLMBackend.from_config``; ``medrealmm run``
    with ``engines.make_backend``: the same ``LLM(...)`` arguments and environment for the smoke config."""
    from medrealmm.config import compose
    from medrealmm.inference.engines import make_backend
    from medrealmm.inference.vllm_backend import VLLMBackend

    monkeypatch.setattr(VLLMBackend, "start", lambda self: None)   # settings only, no engine
    cfg = compose(["preset=smoke", f"paths.cache={tiny_cache}", "model.engine.pipeline_parallel_size=2",
                   "backend.cpu.in_process=false"])
    for role, group in (("model", "backend"), ("judge", "judge_backend")):
        made = make_backend(cfg[role], cfg[group], cache_dir=str(tiny_cache), seed=int(cfg["run"]["seed"]))
        assert isinstance(made, VLLMBackend)
        built = VLLMBackend.from_config(cfg[role], cfg[group], made.path, seed=int(cfg["run"]["seed"]), start=False)
        assert (built.name, built.path, built.log_level) == (made.name, made.path, made.log_level)
        assert built.engine_args() == made.engine_args() and built.environment() == made.environment()
