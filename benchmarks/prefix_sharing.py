"""Prefix sharing in the judge prompt: case-first layout (ours) vs criterion-first, through vLLM.

Both layouts judge the same replies on the same criteria with the same engine (the tiny random
VLM on vLLM's CPU build, prefix caching on); we report the share of prompt tokens served from the
prefix cache and the wall time of each, side by side, in one run. Each layout gets a fresh engine
so neither inherits the other's cache. Order of the two runs alternates over repeats.

    .venv/bin/python benchmarks/prefix_sharing.py [--cases 16] [--repeats 2]
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time

from medrealmm.data.loader import load_dataset
from medrealmm.inference.base import ChatRequest, Sampling
from medrealmm.judge.prompts import VERDICT_SCHEMA, JudgePromptConfig, judge_messages

log = logging.getLogger("bench.prefix")


def requests_for(layout: str, cases, replies) -> list[ChatRequest]:
    cfg = JudgePromptConfig(layout=layout)
    out = []
    for case, reply in zip(cases, replies, strict=True):
        for c in case.rubric:
            msgs = judge_messages(case, reply, c, cfg, lambda ref: b"")
            out.append(ChatRequest(msgs, Sampling(temperature=0.0, max_tokens=48, seed=0), json_schema=VERDICT_SCHEMA))
    return out


def run_layout(model_dir: str, reqs: list[ChatRequest]) -> dict[str, float]:
    from medrealmm.inference.vllm_backend import VLLMBackend

    backend = VLLMBackend("tiny", model_dir, engine={"max_model_len": 8192, "max_num_seqs": 64},
                          cpu={"dtype": "float32", "kv_cache_gib": 1, "enforce_eager": True})
    try:
        t0 = time.perf_counter()
        outs = backend.chat(reqs)
        wall = time.perf_counter() - t0
    finally:
        backend.close()
    prompt = sum(o.prompt_tokens or 0 for o in outs)
    cached = sum(o.cached_tokens or 0 for o in outs)
    return {"wall_s": wall, "prompt_tokens": prompt, "cached_tokens": cached, "cached_share": cached / prompt}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from medrealmm.inference.tiny_models import ensure_tiny_model

    model_dir = str(ensure_tiny_model("vl", tempfile.mkdtemp(prefix="tiny-")))
    ds = load_dataset({"format": "sample", "limit": args.cases})
    replies = [c.y_orig for c in ds.cases]  # real text: a long, realistic shared prefix
    layouts = {"case_first": requests_for("case_first", ds.cases, replies),
               "criterion_first": requests_for("criterion_first", ds.cases, replies)}
    results: dict[str, list[dict[str, float]]] = {k: [] for k in layouts}
    for rep in range(args.repeats):
        order = list(layouts) if rep % 2 == 0 else list(reversed(layouts))
        for name in order:
            results[name].append(run_layout(model_dir, layouts[name]))
    print(f"\njudge requests per layout: {len(layouts['case_first'])} ({len(ds.cases)} cases)")
    print(f"{'layout':<16}{'cached share':>14}{'prompt tok':>12}{'wall s (min)':>14}")
    best = {}
    for name, rs in results.items():
        best[name] = min(r["wall_s"] for r in rs)
        print(f"{name:<16}{rs[0]['cached_share']:>14.1%}{rs[0]['prompt_tokens']:>12}{best[name]:>14.2f}")
    a, b = results["case_first"][0], results["criterion_first"][0]
    print(f"\ncase_first / criterion_first: cached share {a['cached_share'] / max(b['cached_share'], 1e-9):.1f}x, "
          f"wall time ratio {best['case_first'] / best['criterion_first']:.2f}")


if __name__ == "__main__":
    main()
