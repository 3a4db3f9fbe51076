"""The run summary: a Markdown page and a JSON file beside the Parquet tables.

The Markdown is what a person opens first, so it says what was run, the score with its interval,
how many cases were left out and why, and where the detailed tables are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from medrealmm.common.tables import markdown_table, md_escape
from medrealmm.manifest import write_json

if TYPE_CHECKING:
    from medrealmm.pipeline import Context


def write_summary(ctx: Context, tables: dict[str, pl.DataFrame], verdicts: pl.DataFrame, *,
                  planned_replies: int, modes: Sequence[str]) -> None:
    cfg = ctx.cfg
    judge = cfg["judge"]
    unscored = verdicts.filter(pl.col("status") == "unscored").height
    n_cut = ctx.truncated.height if getattr(ctx, "truncated", None) is not None else 0
    unjudged = planned_replies - tables["case_scores"].height - n_cut
    info = {"dataset": ctx.dataset.name, "cases": len(ctx.dataset.cases), "rejected_cases": len(ctx.dataset.errors),
            "model": cfg["model"]["name"], "judge": judge["name"], "judge_sees_images": bool(judge.get("sees_images")),
            "modes": modes, "verdicts": verdicts.height, "unscored_verdicts": unscored,
            "cases_without_verdicts": unjudged, "truncated_replies": n_cut,
            "unscored_policy": cfg["run"]["scoring"]["unscored_policy"], "summary": tables["summary"].to_dicts()}
    if ctx.record is not None:
        from medrealmm.runrecord import selection_label

        info |= {"run_id": ctx.record.id, "fingerprint": ctx.record.fingerprint,
                 "selection": selection_label(ctx.record.selection)}
    lines = [f"# MedRealMM run: {md_escape(info['model'])} judged by {md_escape(info['judge'])}", ""]
    if ctx.record is not None:
        lines.append(f"- run: `{info['run_id']}` (fingerprint `{info['fingerprint'][:16]}`); cases: {info['selection']}")
    lines += [f"- dataset: {md_escape(info['dataset'])} ({info['cases']} cases, {info['rejected_cases']} rejected)",
             f"- modes: {', '.join(info['modes'])}; judge sees images: {info['judge_sees_images']}",
             f"- verdicts: {info['verdicts']} ({unscored} unscored; policy `{info['unscored_policy']}`)",
             f"- truncated replies (reasoning not closed or max_tokens reached; not judged): {n_cut}",
             f"- case replies without verdicts (failed generation or judging; rerun to retry): {unjudged}", "",
             "## Score", "",
             "Case score = clip(Σ w·v / Σ max(w, 0), 0, 1); benchmark score = mean over scored cases, "
             "with a seeded bootstrap interval. `score_clip_mean_only` is HealthBench's convention.", "",
             markdown_table(tables["summary"]), ""]
    for name, df in tables.items():
        if name.startswith("by_"):
            lines += [f"## By {name[3:]}", "", markdown_table(df.drop(["judge", "sample"])), ""]
    lines += ["## Files", "", "generations.parquet, verdicts.parquet, case_scores.parquet, summary.parquet, "
              "histogram.parquet, by_*.parquet, manifest.json (config, versions, model hashes).", ""]
    write_json(ctx.out_dir / "summary.json", info)
    (ctx.out_dir / "summary.md").write_text("\n".join(lines), encoding="utf-8")
