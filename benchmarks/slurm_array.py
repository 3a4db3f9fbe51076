"""The sample sweep single-process vs as a Slurm array of shards, on a one-node local cluster.

Starts the cluster of slurm/local/cluster.sh (root, slurm-wlm, munge), runs the smoke config over
the whole sample once in one process and once through slurm/submit.sh (generation array, judging
array, merge), and reports both wall times, their ratio, and the scheduling overhead per task
(EligibleTime -> StartTime from `scontrol show job`, 1 s resolution) next to the tasks' run time.

    .venv/bin/python benchmarks/slurm_array.py [--shards 4]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "slurm" / "local" / "cluster.sh"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", type=int, default=4)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-slurm-"))
    state, cache = work / "slurm", work / "cache"
    env = {**os.environ, "MEDREALMM_CPUS": "1", "MEDREALMM_GEN_GPUS": "0", "MEDREALMM_JUDGE_GPUS": "0",
           "MEDREALMM_SETUP": f"source {ROOT}/.venv/bin/activate", "MEDREALMM_LOGS": str(state / "logs")}
    smoke = ["preset=smoke", f"paths.cache={cache}"]
    subprocess.run([sys.executable, "-m", "medrealmm.cli", "run", *smoke, "data.limit=1",
                    f"paths.outputs={work / 'warm'}"], check=True, capture_output=True)  # builds the tiny model

    def ex(*cmd: str) -> str:
        return subprocess.run(["bash", str(CLUSTER), "exec", str(state), *cmd], env=env, check=True,
                              capture_output=True, text=True, cwd=work).stdout

    subprocess.run(["bash", str(CLUSTER), "start", str(state)], check=True, capture_output=True)
    try:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "medrealmm.cli", "run", *smoke, f"paths.outputs={work / 'single'}"],
                       check=True, capture_output=True)
        single = time.perf_counter() - t0

        t0 = time.perf_counter()
        ex("bash", str(ROOT / "slurm" / "submit.sh"), str(args.shards), *smoke, f"paths.outputs={work / 'array'}")
        while ex("squeue", "-h").strip():
            time.sleep(0.5)
        array = time.perf_counter() - t0
        jobs = ex("scontrol", "show", "job", "-o")
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(state)], capture_output=True)

    def when(field: str, line: str) -> dt.datetime:
        return dt.datetime.fromisoformat(re.search(rf"{field}=(\S+)", line).group(1))

    waits, runs = [], []
    for line in jobs.splitlines():
        if "medrealmm-" in line and "JobState=COMPLETED" in line:
            waits.append((when("StartTime", line) - when("EligibleTime", line)).total_seconds())
            runs.append((when("EndTime", line) - when("StartTime", line)).total_seconds())
    merged = list((work / "array").glob("runs/**/summary.parquet"))
    print(f"\nsample sweep (19 cases, tiny VLM model + judge on vLLM CPU), {os.cpu_count()} CPUs, node CPUs = slots")
    print(f"single process:            {single:7.1f} s")
    print(f"array of {args.shards} shards + merge:  {array:7.1f} s  ({array / single:.2f}x the single run; merged: "
          f"{'yes' if merged else 'NO'})")
    print(f"Slurm tasks:               {len(runs)} (generate {args.shards}, judge {args.shards}, merge 1)")
    slots = os.cpu_count() or 1
    busy = sum(runs) / slots
    print(f"run time per task:         {sum(runs) / len(runs):.1f} s mean (process + engine start-up included)")
    print(f"queue wait per task:       {sum(waits) / len(waits):.1f} s mean, {max(waits):.0f} s max "
          f"(eligible -> started, incl. waiting for one of {slots} CPU slots; 1 s resolution)")
    print(f"scheduling overhead:       {(array - busy) / len(runs):.1f} s per task "
          f"(array wall - task run time / {slots} slots, spread over the tasks)")


if __name__ == "__main__":
    main()
