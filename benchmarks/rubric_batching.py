"""Rubric generation batched (all cases of a chunk in one ``chat`` call, what ``medrealmm rubric
generate`` does) vs one case per call (a naive loop), on the same engine in the same run.

The tiny random VLM on vLLM's CPU build writes R(0) for the sample instances repeated ``--repeat``
times (images included); we report seconds per case for both, their ratio, and how many cases got a
valid rubric (the JSON schema constrains the output; the rest are reported failures). The order of
the two runs alternates over ``--rounds``; the first call warms the engine and is not counted.

    .venv/bin/python benchmarks/rubric_batching.py [--repeat 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time

from medrealmm.data import sample_dir
from medrealmm.mccp.instances import Instance
from medrealmm.rubric.settings import RubricSettings
from medrealmm.rubric.writer import RubricWriter


def instances(repeat: int) -> list[Instance]:
    out = []
    for line in (sample_dir() / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        raw.pop("rubric")
        raw["meta"] = {}
        for k in range(repeat):
            out.append(Instance.model_validate({**raw, "id": f"{raw['id']}#{k}"}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=2, help="copies of each sample instance")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=400)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from medrealmm.inference.vllm_backend import VLLMBackend
    from medrealmm.inference.tiny_models import ensure_tiny_model

    model_dir = str(ensure_tiny_model("vl", tempfile.mkdtemp(prefix="tiny-")))
    backend = VLLMBackend("tiny", model_dir, engine={"max_model_len": 8192, "max_num_seqs": 64,
                                                      "limit_mm_per_prompt": {"image": 8, "video": 0}},
                          cpu={"dtype": "float32", "kv_cache_gib": 2, "enforce_eager": True})
    items = instances(args.repeat)
    root = sample_dir()

    def writer(chunk: int) -> RubricWriter:
        settings = RubricSettings(chunk_size=chunk, max_retries=0,
                                  sampling={"temperature": 0.0, "max_tokens": args.max_tokens})
        return RubricWriter(backend, settings, image_bytes=lambda ref: (root / ref.path).read_bytes(), seed=0)

    try:
        writer(len(items)).generate(items[:2])                 # warm-up: compile, caches
        times: dict[str, list[float]] = {"batched": [], "one_by_one": []}
        valid: dict[str, int] = {}
        for r in range(args.rounds):
            order = ["batched", "one_by_one"] if r % 2 == 0 else ["one_by_one", "batched"]
            for name in order:
                w = writer(len(items) if name == "batched" else 1)
                t0 = time.perf_counter()
                out = w.generate(items)
                times[name].append(time.perf_counter() - t0)
                valid[name] = sum(x.criteria is not None for x in out)
    finally:
        backend.close()
    n = len(items)
    best = {k: min(v) for k, v in times.items()}
    print(f"rubric generate, {n} instances (tiny VLM, vLLM CPU, greedy, max_tokens {args.max_tokens}), best of "
          f"{args.rounds}:")
    for name in ("batched", "one_by_one"):
        print(f"  {name:11s} {best[name]:7.2f} s  = {best[name] / n:6.3f} s/case   valid rubrics {valid[name]}/{n}")
    print(f"  speed-up of batching: {best['one_by_one'] / best['batched']:.2f}x")


if __name__ == "__main__":
    main()
