"""Two Slurm nodes against one on the bundled sample: wall time and start-up share, in one run.

    sudo .venv/bin/python benchmarks/slurm_multinode.py [--limit N] [--baseline] [--keep DIR]

Starts a local two-node Slurm cluster (slurm/local/cluster.sh start DIR --nodes 2: two slurmd in two network
namespaces joined by a bridge; root, slurm-wlm, munge, iproute2), then runs `preset=smoke` (tiny model and judge,
vLLM's CPU build) as Slurm jobs, each from a fresh result store:

  two nodes  slurm/multinode.sbatch with MEDREALMM_MULTINODE_LAUNCHER=mp: pipeline parallel 2, stage 0 on node1
             (in `medrealmm run`), stage 1 on node2 (a follower started with srun)
  one node   the same layout (pipeline parallel 2, two local worker processes) in one job on one node
  baseline   (--baseline) the plain smoke run: pipeline parallel 1, the engine inside the process

For each: wall time from sbatch to the job's end, the model engine's start-up (the generation stage's time
outside its engine calls: worker processes, rendezvous, weights, warm-up) and its share of the wall time, the
generation and judging stage times; then whether the two-node tables equal the one-node tables (they must: the
same layout, only where the stages run differs). On these machines the nodes share two cores, so the figures
measure the overhead of spreading a model, not a speed-up: a model that fits one node gains nothing from two.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CLUSTER = ROOT / "slurm" / "local" / "cluster.sh"
PP2 = ["model.engine.pipeline_parallel_size=2", "backend.cpu.in_process=false", "backend.cpu.enforce_eager=false",
       "++backend.cpu.compilation_config={mode:2,backend:eager}"]


def sh(state: Path, *cmd: str, env: dict[str, str], cwd: Path) -> str:
    r = subprocess.run(["bash", str(CLUSTER), "exec", str(state), *cmd], env=env, cwd=cwd, capture_output=True,
                       text=True)
    if r.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {r.stderr[-2000:]}")
    return r.stdout


def run_job(state: Path, sbatch_args: list[str], env: dict[str, str], work: Path, name: str) -> dict:
    log = work / f"{name}.out"
    t0 = time.perf_counter()
    job = sh(state, "sbatch", "--parsable", f"--output={log}", *sbatch_args, env=env, cwd=work).strip()
    while sh(state, "squeue", "-h", "-j", job, env=env, cwd=work).strip():
        time.sleep(0.5)
    wall = time.perf_counter() - t0
    info = sh(state, "scontrol", "show", "job", job, env=env, cwd=work)
    if "JobState=COMPLETED" not in info:
        raise SystemExit(f"{name}: job {job} did not complete:\n{log.read_text()[-4000:]}")
    return {"wall_s": wall, "log": log}


def measure(name: str, outputs: Path, wall_s: float) -> dict:
    import polars as pl

    from medrealmm import runrecord

    rec = runrecord.records(outputs / "runs")[-1]
    manifest = json.loads((rec.path / "manifest.json").read_text())
    gen, judge = manifest["stats"]["generation"], manifest["stats"]["judging"]
    batches = pl.read_parquet(rec.path / "generations.parquet").select("batch_s").unique()["batch_s"].sum()
    startup = gen["seconds"] - batches
    return {"name": name, "wall_s": wall_s, "engine_startup_s": startup, "startup_share": startup / wall_s,
            "generation_s": gen["seconds"], "generate_calls_s": batches, "judging_s": judge["seconds"],
            "record": rec.path}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--limit", type=int, default=0, help="cases of the sample (0: all)")
    p.add_argument("--baseline", action="store_true", help="also the plain smoke run (pipeline parallel 1)")
    p.add_argument("--keep", help="work folder to keep (default: a temporary one, removed)")
    args = p.parse_args()
    if os.geteuid() != 0 or not shutil.which("slurmctld"):
        raise SystemExit("needs root and Debian's slurm-wlm + munge (the local cluster runs in network namespaces)")
    work = Path(args.keep or tempfile.mkdtemp(prefix="medrealmm-slurm-bench-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    state, cache = work / "cluster", work / "cache"
    from medrealmm.inference.tiny_models import ensure_tiny_model

    ensure_tiny_model("vl", cache)   # built once, outside every timing
    base = ["preset=smoke", f"paths.cache={cache}"] + ([f"data.limit={args.limit}"] if args.limit else [])
    env = {**os.environ, "MEDREALMM_CPUS": "1", "MEDREALMM_TIME_MIN": "60", "MEDREALMM_GPUS_PER_NODE": "1",
           "MEDREALMM_SETUP": f"source {ROOT}/.venv/bin/activate", "MEDREALMM_REPO": str(ROOT),
           "MEDREALMM_MULTINODE_LAUNCHER": "mp", "HF_HUB_OFFLINE": "1"}
    venv = f"export PATH={ROOT}/.venv/bin:$PATH"   # sbatch --wrap runs /bin/sh
    subprocess.run(["bash", str(CLUSTER), "start", str(state), "--nodes", "2"], check=True)
    rows = []
    try:
        out = work / "two"
        r = run_job(state, ["--nodes=2", str(ROOT / "slurm" / "multinode.sbatch"), *base, f"paths.outputs={out}"],
                    env, work, "two-nodes")
        rows.append(measure("two nodes, pipeline parallel 2", out, r["wall_s"]))
        out = work / "one"
        cmd = f"{venv} && VLLM_CPU_OMP_THREADS_BIND=nobind medrealmm run " + shlex.join([*base, *PP2, f"paths.outputs={out}"])
        r = run_job(state, ["--nodes=1", "--exclusive", f"--wrap={cmd}"], env, work, "one-node")
        rows.append(measure("one node, pipeline parallel 2", out, r["wall_s"]))
        if args.baseline:
            out = work / "base"
            cmd = f"{venv} && medrealmm run " + shlex.join([*base, f"paths.outputs={out}"])
            r = run_job(state, ["--nodes=1", "--exclusive", f"--wrap={cmd}"], env, work, "baseline")
            rows.append(measure("one node, pipeline parallel 1 (in-process)", out, r["wall_s"]))
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(state)], check=False)

    from tests.conftest import TABLES, read_tables

    two, one = read_tables(rows[0]["record"]), read_tables(rows[1]["record"])
    same = all(two[t].equals(one[t]) for t in TABLES)
    print(f"\nsample: {'all' if not args.limit else args.limit} cases, {os.cpu_count()} cores shared by the nodes\n")
    print(f"{'run':<46}{'wall s':>8}{'engine start s':>16}{'start share':>13}{'generation s':>14}"
          f"{'in engine s':>13}{'judging s':>11}")
    for r in rows:
        print(f"{r['name']:<46}{r['wall_s']:>8.1f}{r['engine_startup_s']:>16.1f}{r['startup_share']:>13.0%}"
              f"{r['generation_s']:>14.1f}{r['generate_calls_s']:>13.2f}{r['judging_s']:>11.1f}")
    print(f"\ntwo-node tables equal the one-node tables (keys included): {same}")
    print(f"two nodes / one node wall time: {rows[0]['wall_s'] / rows[1]['wall_s']:.2f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
