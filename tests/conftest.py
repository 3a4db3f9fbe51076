"""Shared fixtures: tiny local models built once per session, and running the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory) -> Path:
    """One folder of tiny models for the whole session (each builds in seconds on first use)."""
    return tmp_path_factory.mktemp("tiny-models")


def cli(args: list[str], *, cwd: Path, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run ``medrealmm ...`` as a user would, in a fresh process."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, "-m", "medrealmm.cli", *args], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise AssertionError(f"medrealmm {' '.join(args)} failed ({r.returncode}):\n{r.stderr[-4000:]}")
    return r


def run_dir(outputs: Path) -> Path:
    """The newest run record (whatever its status) of the one configuration folder under ``outputs``."""
    from medrealmm import runrecord

    recs = runrecord.records(outputs / "runs")
    assert len({r.config_dir for r in recs}) == 1, [str(r.path) for r in recs]
    return recs[-1].path


TABLES = ("generations", "verdicts", "case_scores", "summary", "histogram", "by_department", "by_intent",
          "by_stage", "by_n_images", "by_n_turns")


TIMING = ("latency_s", "batch_s", "batch_size")   # measurements of the run, not results: differ by batching


def read_tables(folder: Path, *, timing: bool = False) -> dict[str, pl.DataFrame]:
    """A record's tables for comparisons: the summary without its ``run_id`` (which names the record) and
    the generations without their timings (unless ``timing``)."""
    tables = {t: pl.read_parquet(folder / f"{t}.parquet") for t in TABLES}
    tables["summary"] = tables["summary"].drop("run_id", strict=False)
    if not timing:
        tables["generations"] = tables["generations"].drop(TIMING, strict=False)
    return tables


def scored_configs(outputs: Path) -> list[str]:
    """Names of the configuration folders under ``outputs`` with a finished, scored run."""
    from medrealmm import runrecord

    return sorted({r.config_dir.name for r in runrecord.records(outputs / "runs") if r.scored})


def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"../shared not found next to the repository ({SHARED}); fixtures are not available")
    return SHARED
