"""Time spent outside the engine per 1,000 judged criteria (target <= 1 s), and peak memory.

Runs the real judging stage (prompt building, requests, verdict parsing, retries, atomic store
writes, verdict table) with the tiny VLM judge on vLLM's CPU engine, over the physician replies of
the sample set repeated ``--samples`` times, and times the engine calls separately. The engine
time in the same run is the baseline the overhead is quoted against.

    .venv/bin/python benchmarks/judge_overhead.py [--samples 8]
"""

from __future__ import annotations

import argparse
import logging
import resource
import tempfile
import time

from medrealmm.config import compose


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=8, help="replies per case (the sample has ~160 criteria)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from medrealmm import pipeline

    out = tempfile.mkdtemp(prefix="bench-judge-")
    cfg = compose(["preset=smoke", "model=online", f"run.samples={args.samples}", f"paths.outputs={out}",
                   f"paths.cache={out}/cache"])
    ctx = pipeline.open_context(cfg)
    engine_s = 0.0
    real_get = ctx.pool.get

    def timed_get(role, backend):
        b = real_get(role, backend)
        if not getattr(b, "_timed", False):
            chat = b.chat

            def timed_chat(reqs, desc=""):
                nonlocal engine_s
                t = time.perf_counter()
                try:
                    return chat(reqs, desc)
                finally:
                    engine_s += time.perf_counter() - t
            b.chat, b._timed = timed_chat, True
        return b

    ctx.pool.get = timed_get
    gens = pipeline.stage_generate(ctx)
    ctx.pool.get(ctx.role("judge"), ctx.backend_cfg("judge"))  # engine start-up is not judging time
    engine_s = 0.0
    t0 = time.perf_counter()
    verdicts = pipeline.stage_judge(ctx, gens)
    total = time.perf_counter() - t0
    ctx.pool.close()
    n = verdicts.height
    outside = total - engine_s
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"\njudged criteria: {n} ({len(gens)} replies), unscored: {(verdicts['status'] == 'unscored').sum()}")
    print(f"engine time:           {engine_s:8.2f} s  ({engine_s / n * 1000:.2f} s per 1,000)")
    print(f"outside the engine:    {outside:8.2f} s  ({outside / n * 1000:.3f} s per 1,000; target <= 1 s)"
          f"  -> {'PASS' if outside / n * 1000 <= 1.0 else 'FAIL'}")
    print(f"overhead / engine time: {outside / engine_s:.2f}")
    print(f"peak RSS of the process (engine included): {peak_gib:.2f} GiB")


if __name__ == "__main__":
    main()
