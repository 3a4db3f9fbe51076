"""One leaderboard from many runs: every ``summary.parquet`` of a dataset's runs, ranked.

Runs are independent folders (one per model x judge x modes, possibly written by different Slurm
jobs); the leaderboard only reads their summaries, so it can be rebuilt at any time. It reads the same
runs as the report (the latest finished record per configuration and fingerprint, full runs before
partial ones: :func:`medrealmm.report.runs.find_runs`) and names, on every row, the run it came from.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm import atomic
from medrealmm.common.tables import markdown_table
from medrealmm.report.settings import ReportSettings

log = logging.getLogger(__name__)


def collect(runs_root: Path, *, selection: str = "full") -> tuple[pl.DataFrame, dict[str, Any]]:
    from medrealmm import runrecord
    from medrealmm.report.runs import RunsNotFound, locate_runs

    try:
        found, left_out = locate_runs([runs_root], selection=selection)
    except RunsNotFound as e:
        raise FileNotFoundError(f"no finished run under {runs_root}") from e
    frames = []
    for path, rec in found:
        name = str(path.relative_to(runs_root)) if path.is_relative_to(runs_root) else str(path)
        frames.append(pl.read_parquet(path / "summary.parquet").drop(["run_id", "selection"], strict=False)
                      .with_columns(run=pl.lit(name), run_id=pl.lit(rec.id if rec else None, pl.String),
                                    selection=pl.lit(runrecord.selection_label(rec.selection if rec else None))))
    board = pl.concat(frames, how="diagonal_relaxed")
    board = board.sort(["judge", "mode", "score", "model"], descending=[False, False, True, False]).with_columns(
        rank=pl.col("score").rank(method="min", descending=True).over(["judge", "mode", "sample"]).cast(pl.Int64))
    differing = runrecord.differing_settings([r for _, r in found if r is not None])
    return board, {"left_out": left_out, "differing": differing}


def write_leaderboard(cfg: dict[str, Any]) -> Path:
    root = Path(cfg["paths"]["outputs"]) / "runs" / cfg["data"]["name"]
    board, notes = collect(root, selection=ReportSettings.of(cfg.get("report"), "report").selection)
    atomic.write_parquet(root / "leaderboard.parquet", board)
    cols = ["rank", "model", "mode", "judge", "score", "ci_low", "ci_high", "n_scored", "n_excluded", "selection",
            "run"]
    from medrealmm.report.build import judge_provenance

    judges = sorted(board["judge"].unique().to_list())
    text = (f"# Leaderboard: {cfg['data']['name']}\n\nJudge(s): {judge_provenance(judges)}.\n\n"
            + markdown_table(board.select(cols)) + "\n")
    if notes["differing"]:
        text += ("\nThe runs differ in settings other than model and judge: "
                 + ", ".join(notes["differing"]) + " (see each run's manifest.json).\n")
    if notes["left_out"]:
        text += ("\nLeft out, over part of the dataset (`report.selection=all` ranks them too): "
                 + "; ".join(notes["left_out"]) + "\n")
    atomic.write_text(root / "leaderboard.md", text)
    log.info("leaderboard of %d runs in %s\n%s", board.height, root / "leaderboard.md", board.select(cols))
    return root / "leaderboard.md"
