"""Multi-node jobs on a real two-node Slurm: two slurmd, each in its own network namespace (node1 10.77.0.1,
node2 10.77.0.2), joined to the controller's namespace by veth pairs on a bridge (slurm/local/cluster.sh
start DIR --nodes 2). The nodes share this machine's CPUs, but every connection between them goes over a
network interface, as on a cluster.

- vLLM's own multi-node launcher (MEDREALMM_MULTINODE_LAUNCHER=mp) with MEDREALMM_MULTINODE_ROLES="model judge":
  the tiny model with pipeline parallel 2 generates (stage 0 on node1 inside `medrealmm generate`, stage 1 on
  node2 in a follower started with srun), then the tiny judge spread the same way judges (`medrealmm run`).
  Slurm's warning signal (USR1, as before a time limit) arrives while the judge runs: the job requeues itself and
  the rerun resumes from the store. The tables equal those of the same layouts on one node (two pipeline stages
  in two local processes).
- The Ray launcher: `ray start` on both nodes through srun, every node joined and its Ray workers running the
  job's Python with the job's environment (--check). vLLM's CPU build refuses Ray executors ("current
  platform cpu does not support ray"), so generation over Ray is for GPU builds.

Skipped (with the reason) where Slurm, munge or iproute2 are missing or we are not root.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time

import polars as pl
import pytest

from pathlib import Path

from tests.conftest import ROOT, cli, read_tables, run_dir
from tests.test_slurm import CLUSTER, Cluster, assert_same_tables, latest, needs_local_slurm

pytestmark = pytest.mark.slurm
SMOKE = ["preset=smoke", "data.limit=2"]
# the layouts multinode.sbatch gives model and judge on two CPU nodes, minus where their processes run (not in
# result keys)
PP2 = [o for role, group in (("model", "backend"), ("judge", "judge_backend"))
       for o in (f"{role}.engine.pipeline_parallel_size=2", f"{group}.cpu.in_process=false",
                 f"{group}.cpu.enforce_eager=false", f"++{group}.cpu.compilation_config={{mode:2,backend:eager}}")]


@pytest.fixture(scope="session")
def slurm2(tmp_path_factory):
    needs_local_slurm()
    state = tmp_path_factory.mktemp("slurm2")
    subprocess.run(["bash", str(CLUSTER), "start", str(state), "--nodes", "2"], check=True, timeout=180)
    yield Cluster(state, MEDREALMM_GPUS_PER_NODE="1")
    subprocess.run(["bash", str(CLUSTER), "stop", str(state)], timeout=60)


def submit(cluster: Cluster, cwd, *args: str, launcher: str, while_running=None, **env: str) -> str:
    """sbatch multinode.sbatch on both nodes (``while_running(job, log)`` once submitted); the job's log once it
    ended."""
    log = cwd / "multinode.out"
    cluster.env.update(MEDREALMM_MULTINODE_LAUNCHER=launcher, **env)
    try:
        job = cluster.run("sbatch", "--parsable", "--nodes=2", f"--output={log}",
                          str(ROOT / "slurm" / "multinode.sbatch"), *args, cwd=cwd).stdout.strip()
    finally:
        for k in ("MEDREALMM_MULTINODE_LAUNCHER", *env):
            cluster.env.pop(k, None)
    if while_running:
        while_running(job, log)
    cluster.wait_idle(cwd, timeout=900)
    state = cluster.run("scontrol", "show", "job", job, cwd=cwd, check=False).stdout
    text = log.read_text()
    assert "JobState=COMPLETED" in state, f"{state}\n{text[-5000:]}"
    return text


def processes_mentioning(text: str) -> list[int]:
    """Processes whose command line holds ``text`` (a folder only this test uses)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text.encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


@pytest.fixture
def ray_tmpdir():
    """Ray's session files (logs, sockets; /tmp/ray otherwise) in a folder of the test's own, removed afterwards
    with any Ray process still using it. Short: Ray's socket paths must fit in 107 bytes."""
    folder = tempfile.mkdtemp(prefix="mr-ray-", dir="/tmp")
    yield folder
    left = processes_mentioning(folder)
    for pid in left:
        subprocess.run(["kill", "-9", str(pid)], check=False)
    shutil.rmtree(folder, ignore_errors=True)
    assert not left, f"Ray processes outlived their job: {left}"


def test_the_cluster_has_two_nodes_on_their_own_addresses(slurm2, tmp_path) -> None:
    out = slurm2.run("srun", "--nodes=2", "--ntasks-per-node=1", "bash", "-c",
                     'echo "$SLURMD_NODENAME $(ip -4 -o addr show eth0 | awk \'{print $4}\')"', cwd=tmp_path).stdout
    assert sorted(out.split("\n")[:2]) == ["node1 10.77.0.1/24", "node2 10.77.0.2/24"], out
    nodes = slurm2.run("sinfo", "-h", "-N", "-o", "%N %T", cwd=tmp_path).stdout.split()
    assert nodes == ["node1", "idle", "node2", "idle"]


def test_ray_forms_over_both_nodes_and_its_workers_get_the_job_environment(slurm2, tmp_path, ray_tmpdir) -> None:
    probe = str(tmp_path / "hf-home-probe")
    log = submit(slurm2, tmp_path, "--check", *SMOKE, launcher="ray", HF_HOME=probe, RAY_TMPDIR=ray_tmpdir)
    assert "Ray cluster at 10.77.0.1:6379: 2 node(s)" in log, log[-3000:]
    facts = sorted((json.loads(line.removeprefix("ray node ")) for line in log.splitlines() if line.startswith("ray node ")),
                   key=lambda f: f["node_ip"])
    assert [(f["node_ip"], f["ray_ip"], f["node"]) for f in facts] == [("10.77.0.1", "10.77.0.1", "node1"),
                                                                      ("10.77.0.2", "10.77.0.2", "node2")]
    for f in facts:   # a Ray task pinned to each node: the job's venv, its environment, that node's address
        assert f["python"] == str(ROOT / ".venv" / "bin" / "python")
        assert f["vllm"] and f["vllm"].endswith("0.32.0")
        assert f["env"]["HF_HOME"] == probe and f["env"]["VIRTUAL_ENV"] == str(ROOT / ".venv")
        assert f["env"]["VLLM_HOST_IP"] == f["node_ip"]
    assert list(Path(ray_tmpdir).glob("ray/session_*")), "Ray did not use the job's RAY_TMPDIR"
    t0 = time.time()   # the job's end stops every Ray process it started (the fixture checks none is left)
    while processes_mentioning(ray_tmpdir) and time.time() - t0 < 30:
        time.sleep(0.5)


def test_the_mp_launcher_check_runs_on_every_node(slurm2, tmp_path) -> None:
    log = submit(slurm2, tmp_path, "--check", *SMOKE, launcher="mp")
    facts = sorted((json.loads(line) for line in log.splitlines() if line.startswith("{")), key=lambda f: f["node"])
    assert [f["node"] for f in facts] == ["node1", "node2"], log[-3000:]
    assert [f["env"]["VLLM_HOST_IP"] for f in facts] == ["10.77.0.1", "10.77.0.2"]
    assert all(f["python"] == str(ROOT / ".venv" / "bin" / "python") for f in facts)


@pytest.mark.timeout(1800)   # two engines started three times over two nodes, then the same on one node
def test_model_and_judge_over_two_nodes_requeued_by_usr1_resume_to_the_one_node_tables(slurm2, tmp_path, tiny_cache,
                                                                                     monkeypatch) -> None:
    out = tmp_path / "two"

    def usr1_while_judging(job: str, log) -> None:   # as Slurm does before a time limit (--signal=B:USR1@300)
        t0 = time.time()
        while "follower node 1 of 2 for the judge" not in (log.read_text() if log.exists() else ""):
            assert time.time() - t0 < 900, (log.read_text() if log.exists() else "no log")[-5000:]
            time.sleep(1)
        slurm2.run("scancel", "--signal=USR1", "--batch", job, cwd=tmp_path)
        slurm2.release_requeued(job, tmp_path)

    t0 = time.time()
    log = submit(slurm2, tmp_path, *SMOKE, f"paths.outputs={out}", f"paths.cache={tiny_cache}", launcher="mp",
                 while_running=usr1_while_judging, MEDREALMM_MULTINODE_ROLES="model judge")
    two_nodes_s = time.time() - t0
    assert "2 nodes (node1 node2), head node1 (10.77.0.1), launcher mp, spread: model judge" in log
    assert "tensor parallel 1 x pipeline parallel 2, restart 0" in log
    assert "follower node 1 of 2 for the model (tiny-vl), leader 10.77.0.1:29501" in log
    assert "follower node 1 of 2 for the judge (tiny-vl), leader 10.77.0.1:29502" in log
    assert "signal received, requeueing" in log and "pipeline parallel 2, restart 1" in log, log[-5000:]
    rerun = log[log.index("restart 1"):]
    assert "generate tiny-vl: 2 replies for 2 cases, 2 in the store, 0 to run" in rerun, rerun[-5000:]
    folder = out / "runs" / "sample" / "tiny-vl__tiny-vl__multimodal"
    assert latest(folder) is not None, log[-5000:]
    two = read_tables(latest(folder).path)
    engines = json.loads((latest(folder).path / "manifest.json").read_text())["engines"]
    assert engines["judge"]["engine_args"]["nnodes"] == 2 and engines["judge"]["engine_args"]["master_port"] == 29502

    t0 = time.time()
    ref = tmp_path / "one"
    # two CPU workers on one NUMA node: vLLM's automatic thread binding wants a NUMA node each
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "nobind")
    cli(["run", *SMOKE, *PP2, f"paths.outputs={ref}", f"paths.cache={tiny_cache}"], cwd=tmp_path, timeout=900)
    one_node_s = time.time() - t0
    one = read_tables(run_dir(ref))
    assert_same_tables(one, two)   # keys included: where the stages ran is not part of any result
    assert two["verdicts"].filter(pl.col("status") == "scored").height == two["verdicts"].height
    print(f"two nodes (with a requeue) {two_nodes_s:.0f}s, one node {one_node_s:.0f}s")
