"""The run summary: a Markdown page and a JSON file beside the Parquet tables.

The Markdown is what a person opens first, so it says what was run, the score with its interval,
how many cases were left out and why, and where the detailed tables are.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.atomic import write_text
from medrealmm.common.tables import markdown_table, md_escape
from medrealmm.manifest import write_json
from medrealmm.runrecord import RunRecord, selection_label


def write_summary(out_dir: Path, cfg: dict[str, Any], tables: dict[str, pl.DataFrame], verdicts: pl.DataFrame, *,
                  dataset: str, cases: int, rejected_cases: int, truncated: int, record: RunRecord | None,
                  planned_replies: int, modes: Sequence[str]) -> None:
    """``summary.md`` and ``summary.json`` in ``out_dir``; ``record`` is the run's record (None for a shard)."""
    judge = cfg["judge"]
    unscored = verdicts.filter(pl.col("status") == "unscored").height
    n_cut = truncated
    unjudged = planned_replies - tables["case_scores"].height - n_cut
    info = {"dataset": dataset, "cases": cases, "rejected_cases": rejected_cases,
            "model": cfg["model"]["name"], "judge": judge["name"], "judge_sees_images": bool(judge.get("sees_images")),
            "modes": modes, "verdicts": verdicts.height, "unscored_verdicts": unscored,
            "cases_without_verdicts": unjudged, "truncated_replies": n_cut,
            "unscored_policy": cfg["run"]["scoring"]["unscored_policy"], "summary": tables["summary"].to_dicts()}
    if record is not None:
        info |= {"run_id": record.id, "fingerprint": record.fingerprint, "selection": selection_label(record.selection)}
    lines = [f"# MedRealMM run: {md_escape(info['model'])} judged by {md_escape(info['judge'])}", ""]
    if record is not None:
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
    write_json(out_dir / "summary.json", info)
    write_text(out_dir / "summary.md", "\n".join(lines))
