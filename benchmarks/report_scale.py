"""Benchmark: `medrealmm report` over a paper-sized study, against the runs' own scoring as baseline.

Study: 5,620 cases x 12 models x 2 modes graded by one judge (~1.27M verdicts), plus a second judge
on a 200-case subset of every reply (the paper's judge-robustness design). Each (model, judge) is
written as a run folder as `medrealmm run` would (verdicts, case scores, summary), then timed:

- baseline: reading every run's tables and computing what each run's summary already holds
  (``summarize`` + the five breakdowns), i.e. the floor of any report over these runs;
- tables: ``build_tables`` (leaderboard, ablation, six breakdowns, histograms, paired comparisons,
  worst-of-k, judge agreement and health), 1,000 bootstrap replicates;
- report: the whole ``write_report`` (tables, 13 figures, HTML, Markdown, CSV/Parquet).

    .venv/bin/python benchmarks/report_scale.py                      # full size
    .venv/bin/python benchmarks/report_scale.py --cases 500 --models 3   # quick
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
log = logging.getLogger("report_scale")


def _aggregate_module():
    spec = importlib.util.spec_from_file_location("aggregate_1m", HERE / "aggregate_1m.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def write_runs(root: Path, n_cases: int, n_models: int, subset: int, seed: int) -> int:
    """Run folders of the study; returns the number of verdicts written."""
    from medrealmm.scoring import score_cases, summarize

    from medrealmm.data.specialty import DEFAULT_GROUPS

    verdicts, cases = _aggregate_module().synthetic(n_cases, n_models, seed)
    names = [d for depts in DEFAULT_GROUPS.values() for d in depts]   # real department names
    cases = cases.with_columns(department=pl.col("department").str.slice(5).cast(pl.Int64).map_elements(
        lambda i: names[i % len(names)], return_dtype=pl.String))
    rng = np.random.default_rng(seed + 1)
    text = verdicts.with_columns(mode=pl.lit("text"), met=pl.when(pl.col("status") == "scored").then(
        pl.col("met") ^ pl.Series(rng.random(verdicts.height) < 0.1)))
    first = pl.concat([verdicts, text])
    picked = cases["case_id"].sample(min(subset, n_cases), seed=seed)
    second = first.filter(pl.col("case_id").is_in(picked.implode())).with_columns(
        judge=pl.lit("judge-b"),
        met=pl.when(pl.col("status") == "scored").then(
            pl.col("met") ^ pl.Series(rng.random(first.filter(pl.col("case_id").is_in(picked.implode())).height)
                                      < 0.15)))
    total = 0
    for v in (first, second):
        for (model, judge), part in v.group_by(["model", "judge"]):
            d = root / f"{model}__{judge}"
            d.mkdir(parents=True)
            part = part.with_columns(attempts=pl.lit(1, pl.Int64))
            cs = score_cases(part, cases)
            part.write_parquet(d / "verdicts.parquet")
            cs.write_parquet(d / "case_scores.parquet")
            summarize(cs, n_boot=0).write_parquet(d / "summary.parquet")
            (d / "manifest.json").write_text(json.dumps({"created": "2026-01-01T00:00:00+00:00"}))
            total += part.height
    return total


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=5620)
    ap.add_argument("--models", type=int, default=12)
    ap.add_argument("--subset", type=int, default=200)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")

    from medrealmm.config import compose
    from medrealmm.report.analyses import build_tables
    from medrealmm.report.build import options_from_config, write_report
    from medrealmm.report.runs import load_runs
    from medrealmm.data.specialty import load_groups, specialty_expr
    from medrealmm.scoring import breakdowns, summarize

    with tempfile.TemporaryDirectory() as tmp:
        outputs = Path(tmp)
        root = outputs / "runs" / "sample"
        n = write_runs(root, args.cases, args.models, args.subset, args.seed)
        cfg = compose([f"paths.outputs={outputs}", f"run.scoring.bootstrap={args.boot}"])
        opts = options_from_config(cfg)

        def baseline():
            runs = load_runs([root])
            return summarize(runs.case_scores, **opts.boot), breakdowns(runs.case_scores, **opts.boot)

        def tables():
            runs = load_runs([root])
            runs.case_scores = runs.case_scores.with_columns(specialty_expr(load_groups(None)))
            return build_tables(runs, opts)

        t_base, _ = timed(baseline)
        t_tables, built = timed(tables)
        t_report, paths = timed(lambda: write_report(cfg))
        size = paths.html.stat().st_size / 1e6
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
        print(f"study: {args.cases} cases x {args.models} models x 2 modes, 2nd judge on {args.subset} cases; "
              f"{n:,} verdicts in {len(list(root.iterdir()))} run folders")
        print(f"baseline (load + summarize + 5 breakdowns): {t_base:6.2f} s")
        print(f"report tables ({len(built)} tables):          {t_tables:6.2f} s  ({t_tables / t_base:.1f}x baseline)")
        print(f"whole report (tables, figures, HTML {size:.1f} MB): {t_report:6.2f} s  "
              f"({t_report / t_base:.1f}x baseline)")
        print(f"peak RSS of this process: {rss:.2f} GiB")
    sys.exit(0)


if __name__ == "__main__":
    main()
