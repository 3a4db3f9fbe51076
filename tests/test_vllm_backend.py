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
from medrealmm.testing.tiny_models import ensure_tiny_model

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
