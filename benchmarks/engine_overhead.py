"""Our generation and judging stages against raw vLLM ``LLM.chat`` on the same requests, in one run.

The engine is loaded once; the same requests (the sample's cases x ``--samples``, then every criterion
of every reply) go once straight to ``LLM.chat`` (the baseline) and once through our stages (prompt
building, batching, reasoning split, verdict parsing, atomic store writes, tables). The prefix cache is
reset before each pass so neither inherits the other's cache, after one small warm-up batch. Printed: tokens/s (generation) and
requests/s (judging) of both, and the ratio ours / raw (goal >= 0.9 on GPU). On these CPU machines
it runs the tiny random VLM; on a GPU node pass a real model (``model=qwen2_5_vl_7b judge=...``).

    .venv/bin/python benchmarks/engine_overhead.py [--samples 4] [hydra overrides ...]
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4, help="replies per case")
    ap.add_argument("overrides", nargs="*", help="config overrides (default: preset=smoke, the tiny VLM)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from medrealmm import pipeline
    from medrealmm.config import compose
    from medrealmm.inference.base import ChatRequest, Sampling
    from medrealmm.inference.generate import derived_seed
    from medrealmm.inference.prompts import generation_messages, inline_images
    from medrealmm.judge.prompts import VERDICT_SCHEMA, judge_messages

    out = tempfile.mkdtemp(prefix="bench-engine-")
    cfg = compose(["preset=smoke", f"run.samples={args.samples}", f"paths.outputs={out}",
                   f"paths.cache={out}/cache", *args.overrides])
    ctx = pipeline.open_context(cfg)
    model, judge = ctx.role("model"), ctx.role("judge")
    backend = ctx.pool.get(model, ctx.backend_cfg("model"))      # engine start-up is no one's time
    llm = backend.llm
    image_url = inline_images(ctx.dataset.image_bytes)

    def raw(reqs: list[ChatRequest]) -> tuple[float, int]:
        llm.reset_prefix_cache()
        t = time.perf_counter()
        outs = llm.chat([r.messages for r in reqs], [backend._params(r) for r in reqs], use_tqdm=False,
                        chat_template_kwargs=reqs[0].chat_template_kwargs or None)
        return time.perf_counter() - t, sum(len(o.outputs[0].token_ids) for o in outs)

    # --- generation ------------------------------------------------------------------------------
    items = pipeline.plan_gen(ctx)
    gen_reqs = [ChatRequest(generation_messages(it.case, it.mode, pipeline.prompt_config(ctx), image_url),
                            Sampling.from_config(model.get("sampling"), seed=derived_seed(ctx.seed, it.key)),
                            chat_template_kwargs=dict(model.get("chat_template_kwargs") or {})) for it in items]
    raw(gen_reqs[:8])                                             # warm-up (kernels, processors), not counted
    raw_gen_s, raw_gen_tok = raw(gen_reqs)
    llm.reset_prefix_cache()
    t = time.perf_counter()
    gens = pipeline.stage_generate(ctx)
    ours_gen_s = time.perf_counter() - t
    table = pipeline.records_table(pipeline.generation_store(ctx).records(it.key for it in items),
                                   pipeline.GENERATION_COLUMNS)
    ours_gen_tok = int(table["completion_tokens"].sum() or 0)

    # --- judging ---------------------------------------------------------------------------------
    prompt = pipeline.judge_prompt_config(ctx)
    structured = pipeline._structured(ctx.backend_cfg("judge"), judge)
    jitems = pipeline.plan_judge(ctx, gens, prompt, structured)
    judge_reqs = [ChatRequest(judge_messages(it.case, it.generation["text"], it.criterion, prompt, image_url),
                              Sampling.from_config(judge.get("sampling")),
                              json_schema=VERDICT_SCHEMA if structured else None,
                              chat_template_kwargs=dict(judge.get("chat_template_kwargs") or {})) for it in jitems]
    raw_judge_s, _ = raw(judge_reqs)
    llm.reset_prefix_cache()
    t = time.perf_counter()
    verdicts = pipeline.stage_judge(ctx, gens)
    ours_judge_s = time.perf_counter() - t
    ctx.pool.close()

    n_gen, n_judge = len(gen_reqs), len(judge_reqs)
    print(f"\nengine: {model['name']} (model) / {judge['name']} (judge), {backend.describe().get('device')}; "
          f"{n_gen} replies, {n_judge} criteria ({verdicts.height} verdicts)")
    print(f"generation  raw LLM.chat {raw_gen_s:7.2f} s  {raw_gen_tok / raw_gen_s:9.0f} tok/s")
    print(f"            ours         {ours_gen_s:7.2f} s  {ours_gen_tok / ours_gen_s:9.0f} tok/s   "
          f"ratio ours/raw {ours_gen_tok / ours_gen_s / (raw_gen_tok / raw_gen_s):.2f} (goal >= 0.9 on GPU)")
    print(f"judging     raw LLM.chat {raw_judge_s:7.2f} s  {n_judge / raw_judge_s:9.1f} req/s")
    print(f"            ours         {ours_judge_s:7.2f} s  {n_judge / ours_judge_s:9.1f} req/s   "
          f"ratio ours/raw {raw_judge_s / ours_judge_s:.2f} (goal >= 0.9 on GPU)")


if __name__ == "__main__":
    main()
