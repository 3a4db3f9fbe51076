"""One leaderboard from many runs: every ``summary.parquet`` of a dataset's runs, ranked.

Runs are independent folders (one per model x judge x modes, possibly written by different Slurm
jobs); the leaderboard only reads their summaries, so it can be rebuilt at any time.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.report.summary import markdown_table

log = logging.getLogger(__name__)


def collect(runs_root: Path) -> pl.DataFrame:
    frames = []
    for path in sorted(runs_root.glob("*/summary.parquet")):
        frames.append(pl.read_parquet(path).with_columns(run=pl.lit(path.parent.name)))
    if not frames:
        raise FileNotFoundError(f"no finished run (summary.parquet) under {runs_root}")
    board = pl.concat(frames, how="diagonal_relaxed")
    return board.sort(["judge", "mode", "score", "model"], descending=[False, False, True, False]).with_columns(
        rank=pl.col("score").rank(method="min", descending=True).over(["judge", "mode", "sample"]).cast(pl.Int64))


def write_leaderboard(cfg: dict[str, Any]) -> Path:
    root = Path(cfg["paths"]["outputs"]) / "runs" / cfg["data"]["name"]
    board = collect(root)
    board.write_parquet(root / "leaderboard.parquet")
    cols = ["rank", "model", "mode", "judge", "score", "ci_low", "ci_high", "n_scored", "n_excluded", "run"]
    (root / "leaderboard.md").write_text(
        f"# Leaderboard: {cfg['data']['name']}\n\n" + markdown_table(board.select(cols)) + "\n", encoding="utf-8")
    log.info("leaderboard of %d runs in %s\n%s", board.height, root / "leaderboard.md", board.select(cols))
    return root / "leaderboard.md"
