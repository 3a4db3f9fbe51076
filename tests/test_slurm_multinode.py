"""Multi-node jobs on a real two-node Slurm: two slurmd, each in its own network namespace (node1 10.77.0.1,
node2 10.77.0.2), joined to the controller's namespace by veth pairs on a bridge (slurm/local/cluster.sh
start DIR --nodes 2). The nodes share this machine's CPUs, but every connection between them goes over a
network interface, as on a cluster.

- vLLM's own multi-node launcher (MEDREALMM_MULTINODE_LAUNCHER=mp): the tiny model with pipeline parallel 2,
  stage 0 on node1 (the leader, inside `medrealmm run`) and stage 1 on node2 (a follower started with srun);
  the tables equal those of the same layout on one node (two pipeline stages in two local processes).
- The Ray launcher: `ray start` on both nodes through srun, every node joined and its Ray workers running the
  job's Python with the job's environment (--check). vLLM's CPU build refuses Ray executors ("current
  platform cpu does not support ray"), so generation over Ray is for GPU builds.

Skipped (with the reason) where Slurm, munge or iproute2 are missing or we are not root.
"""

from __future__ import annotations

import json
import subprocess
import time

import polars as pl
import pytest

from tests.conftest import ROOT, cli, read_tables, run_dir
from tests.test_slurm import CLUSTER, Cluster, assert_same_tables, latest, needs_local_slurm

pytestmark = pytest.mark.slurm
SMOKE = ["preset=smoke", "data.limit=2"]
# the layout multinode.sbatch gives the model on two CPU nodes, minus where its processes run (not in result keys)
PP2 = ["model.engine.pipeline_parallel_size=2", "backend.cpu.in_process=false", "backend.cpu.enforce_eager=false",
       "++backend.cpu.compilation_config={mode:2,backend:eager}"]


@pytest.fixture(scope="session")
def slurm2(tmp_path_factory):
    needs_local_slurm()
    state = tmp_path_factory.mktemp("slurm2")
    subprocess.run(["bash", str(CLUSTER), "start", str(state), "--nodes", "2"], check=True, timeout=180)
    yield Cluster(state, MEDREALMM_GPUS_PER_NODE="1")
    subprocess.run(["bash", str(CLUSTER), "stop", str(state)], timeout=60)


def submit(cluster: Cluster, cwd, *args: str, launcher: str, **env: str) -> str:
    """sbatch multinode.sbatch on both nodes; the job's log once it ended."""
    log = cwd / "multinode.out"
    cluster.env.update(MEDREALMM_MULTINODE_LAUNCHER=launcher, **env)
    try:
        job = cluster.run("sbatch", "--parsable", "--nodes=2", f"--output={log}",
                          str(ROOT / "slurm" / "multinode.sbatch"), *args, cwd=cwd).stdout.strip()
    finally:
        for k in ("MEDREALMM_MULTINODE_LAUNCHER", *env):
            cluster.env.pop(k, None)
    cluster.wait_idle(cwd, timeout=600)
    state = cluster.run("scontrol", "show", "job", job, cwd=cwd, check=False).stdout
    text = log.read_text()
    assert "JobState=COMPLETED" in state, f"{state}\n{text[-5000:]}"
    return text


def test_the_cluster_has_two_nodes_on_their_own_addresses(slurm2, tmp_path) -> None:
    out = slurm2.run("srun", "--nodes=2", "--ntasks-per-node=1", "bash", "-c",
                     'echo "$SLURMD_NODENAME $(ip -4 -o addr show eth0 | awk \'{print $4}\')"', cwd=tmp_path).stdout
    assert sorted(out.split("\n")[:2]) == ["node1 10.77.0.1/24", "node2 10.77.0.2/24"], out
    nodes = slurm2.run("sinfo", "-h", "-N", "-o", "%N %T", cwd=tmp_path).stdout.split()
    assert nodes == ["node1", "idle", "node2", "idle"]


def test_ray_forms_over_both_nodes_and_its_workers_get_the_job_environment(slurm2, tmp_path) -> None:
    probe = str(tmp_path / "hf-home-probe")
    log = submit(slurm2, tmp_path, "--check", *SMOKE, launcher="ray", HF_HOME=probe)
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


def test_the_mp_launcher_check_runs_on_every_node(slurm2, tmp_path) -> None:
    log = submit(slurm2, tmp_path, "--check", *SMOKE, launcher="mp")
    facts = sorted((json.loads(line) for line in log.splitlines() if line.startswith("{")), key=lambda f: f["node"])
    assert [f["node"] for f in facts] == ["node1", "node2"], log[-3000:]
    assert [f["env"]["VLLM_HOST_IP"] for f in facts] == ["10.77.0.1", "10.77.0.2"]
    assert all(f["python"] == str(ROOT / ".venv" / "bin" / "python") for f in facts)


def test_pipeline_parallel_over_two_nodes_equals_the_same_layout_on_one(slurm2, tmp_path, tiny_cache,
                                                                       monkeypatch) -> None:
    t0 = time.time()
    out = tmp_path / "two"
    log = submit(slurm2, tmp_path, *SMOKE, f"paths.outputs={out}", f"paths.cache={tiny_cache}", launcher="mp")
    two_nodes_s = time.time() - t0
    assert "2 nodes (node1 node2), head node1 (10.77.0.1), launcher mp" in log
    assert "tensor parallel 1 x pipeline parallel 2" in log
    assert "follower node 1 of 2 for the model (tiny-vl), leader 10.77.0.1:29501" in log
    folder = out / "runs" / "sample" / "tiny-vl__tiny-vl__multimodal"
    assert latest(folder) is not None, log[-5000:]
    two = read_tables(latest(folder).path)
    manifest = json.loads((latest(folder).path / "manifest.json").read_text())
    engine = json.dumps(manifest)
    assert '"nnodes": 2' in engine and '"master_addr": "10.77.0.1"' in engine, "the model engine was not spread"

    t0 = time.time()
    ref = tmp_path / "one"
    # two CPU workers on one NUMA node: vLLM's automatic thread binding wants a NUMA node each
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "nobind")
    cli(["run", *SMOKE, *PP2, f"paths.outputs={ref}", f"paths.cache={tiny_cache}"], cwd=tmp_path, timeout=900)
    one_node_s = time.time() - t0
    one = read_tables(run_dir(ref))
    assert_same_tables(one, two)   # keys included: where the stages ran is not part of any result
    assert two["verdicts"].filter(pl.col("status") == "scored").height == two["verdicts"].height
    print(f"two nodes {two_nodes_s:.0f}s, one node {one_node_s:.0f}s")
