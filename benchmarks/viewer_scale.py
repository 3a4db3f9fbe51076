"""Benchmark: ``medrealmm view`` at the full benchmark's size, and the page it writes in a real browser.

Study: 5,620 cases x 10 models x 2 modes graded by one judge (20 runs, ~2 M verdicts with synthetic
replies and rationales), written as run folders (``benchmarks/report_scale.py``'s generator). Timed:
building the viewer (baseline: reading the same run tables, the floor of any viewer), the size of what
the browser loads first (index + page) against the whole folder, and — when Debian's chromium and
chromium-driver are installed — the time until the leaderboard, a run's case list (first of 57 pages)
and a case page are on screen.

    .venv/bin/python benchmarks/viewer_scale.py                   # full size
    .venv/bin/python benchmarks/viewer_scale.py --cases 500 --models 2   # quick
"""

from __future__ import annotations

import argparse
import sys
import logging
import shutil
import tempfile
import time
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent


def _report_scale():
    sys.path.insert(0, str(HERE))
    import report_scale   # the study generator of the report benchmark, reused as is

    return report_scale


def add_generations(root: Path) -> None:
    """A reply per case for every run folder (the viewer shows it beside y_orig)."""
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        cs = pl.read_parquet(d / "case_scores.parquet").filter(pl.col("sample") == 0)
        cs.select("case_id", "model", "mode", "sample").with_columns(
            text=pl.format("模型回复：{} 建议到医院复查，必要时完善检查。" * 3, "case_id", "case_id", "case_id"),
            reasoning=pl.lit(None, pl.String), finish_reason=pl.lit("stop"), truncated=pl.lit(None, pl.String),
            error=pl.lit(None, pl.String)).write_parquet(d / "generations.parquet")
        v = pl.read_parquet(d / "verdicts.parquet")
        v.with_columns(rationale=pl.lit("回复提到了该要点，但没有给出具体的复查时间。"),
                       criterion=pl.format("评分要点 {}", "criterion_id")).write_parquet(d / "verdicts.parquet")


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def browse(index: Path, n_cases: int) -> dict[str, float] | None:
    chromium, drv = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not drv:
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-background-networking", "--allow-file-access-from-files"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(drv), options=opts)
    out = {}
    try:
        wait = WebDriverWait(d, 120)
        t = time.perf_counter()
        d.get(index.as_uri())
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=run-row]"))
        out["leaderboard"] = time.perf_counter() - t
        t = time.perf_counter()
        d.get(index.as_uri() + "#/run/0")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=case-row]"))
        out["case list"] = time.perf_counter() - t
        t = time.perf_counter()
        d.get(index.as_uri() + f"#/case/{min(4321, n_cases - 1)}/0/1")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid=criterion]"))
        out["case page (2 runs)"] = time.perf_counter() - t
    finally:
        d.quit()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=5620)
    ap.add_argument("--models", type=int, default=10)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from medrealmm.report.runs import load_runs
    from medrealmm.report.viewer import build_view

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "runs" / "sample"
        _report_scale().write_runs(root, args.cases, args.models, subset=0, seed=0)
        for p in list(root.iterdir()):
            if "judge-b" in p.name:
                shutil.rmtree(p)
        add_generations(root)
        t = time.perf_counter()
        runs = load_runs([root])
        for r in runs.runs:
            pl.read_parquet(r.path / "generations.parquet")
        base = time.perf_counter() - t
        t = time.perf_counter()
        index = build_view(load_runs([root]), Path(tmp) / "view", title="scale")
        built = time.perf_counter() - t
        first = (index.parent / "data" / "index.js").stat().st_size + sum(
            (index.parent / f).stat().st_size for f in ("index.html", "viewer.js", "viewer.css"))
        chunk = max(p.stat().st_size for p in (index.parent / "data" / "cases").glob("*.js"))
        total = size(index.parent)
        n_runs = runs.case_scores.select("model", "mode", "judge").unique().height
        print(f"\nviewer over {args.cases:,} cases x {n_runs} runs ({len(runs.runs)} run folders, "
              f"{runs.verdicts.height:,} verdicts)")
        print(f"read the run tables (baseline): {base:7.1f} s")
        print(f"build the viewer:               {built:7.1f} s   ({built / base:.1f}x the baseline)")
        print(f"loaded first (page + index):    {first / 2**20:7.1f} MiB   of {total / 2**20:,.0f} MiB in all "
              f"({first / total:.1%}); largest case chunk {chunk / 2**20:.1f} MiB (50 cases, loaded on opening one)")
        timings = browse(index, args.cases)
        if timings is None:
            print("browser: chromium/chromium-driver not installed, page load not measured")
        else:
            for k, v in timings.items():
                print(f"browser, {k + ':':22} {v:6.2f} s")


if __name__ == "__main__":
    main()
