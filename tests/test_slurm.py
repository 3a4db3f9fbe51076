"""Sharded runs on a real Slurm: a one-node cluster on loopback in a private network namespace.

Skipped (with the reason) where Slurm's daemons are not installed or we are not root; `.ci/run`
installs Debian's slurm-wlm and munge so CI runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.conftest import ROOT, TABLES, cli, read_tables, run_dir, scored_configs

pytestmark = pytest.mark.slurm
CLUSTER = ROOT / "slurm" / "local" / "cluster.sh"
SMOKE = ["preset=smoke", "data.limit=6"]


def needs_local_slurm() -> None:
    """Skip (with the reason) where the local cluster cannot run: Slurm, munge or iproute2 missing, or not root."""
    missing = [b for b in ("slurmctld", "slurmd", "munged", "sbatch", "nsenter", "ip") if shutil.which(b) is None]
    if missing:
        pytest.skip(f"Slurm is not installed here ({', '.join(missing)} missing); .ci/run installs slurm-wlm, "
                    "munge and iproute2")
    if os.geteuid() != 0:
        pytest.skip("the local Slurm cluster needs root (network namespaces, daemons)")


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    needs_local_slurm()
    state = tmp_path_factory.mktemp("slurm")
    subprocess.run(["bash", str(CLUSTER), "start", str(state)], check=True, timeout=120)
    yield Cluster(state)
    subprocess.run(["bash", str(CLUSTER), "stop", str(state)], timeout=60)


class Cluster:
    def __init__(self, state: Path, **env: str):
        self.state = state
        self.env = {**os.environ, "MEDREALMM_CPUS": "1", "MEDREALMM_GEN_GPUS": "0", "MEDREALMM_JUDGE_GPUS": "0",
                    "MEDREALMM_TIME_MIN": "30", "MEDREALMM_SETUP": f"source {ROOT}/.venv/bin/activate",
                    "MEDREALMM_LOGS": str(state / "logs"), "MEDREALMM_REPO": str(ROOT), **env}

    def run(self, *cmd: str, cwd: Path, timeout: int = 900, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run(["bash", str(CLUSTER), "exec", str(self.state), *cmd], cwd=cwd, env=self.env,
                           capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
        return r

    def queue(self, cwd: Path) -> list[str]:
        out = self.run("squeue", "-h", "-o", "%i %T %j", cwd=cwd).stdout
        return [line for line in out.splitlines() if line.strip()]

    def wait_idle(self, cwd: Path, timeout: float = 900) -> None:
        t0 = time.time()
        while self.queue(cwd):
            if time.time() - t0 > timeout:
                raise AssertionError(f"jobs still queued after {timeout}s: {self.queue(cwd)}")
            time.sleep(1)

    def release_requeued(self, job: str, cwd: Path, timeout: float = 120) -> None:
        """Start a requeued job at once: Slurm holds a requeued batch job for about two minutes (BeginTime)."""
        t0 = time.time()
        while "JobState=PENDING" not in (info := self.run("scontrol", "show", "job", job, cwd=cwd, check=False).stdout):
            assert time.time() - t0 < timeout, f"{job} was not requeued: {info}"
            time.sleep(0.5)
        assert "Restarts=1" in info, info
        self.run("scontrol", "update", f"JobId={job}", "StartTime=now", cwd=cwd)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}" for p in sorted((self.state / "logs").glob("*")))


@pytest.fixture(scope="module")
def single(tmp_path_factory, tiny_cache) -> dict[str, pl.DataFrame]:
    """The reference: the same config in one process, no Slurm."""
    out = tmp_path_factory.mktemp("single")
    cli(["run", *SMOKE, f"paths.outputs={out}", f"paths.cache={tiny_cache}"], cwd=out)
    return read_tables(run_dir(out))


def latest(folder):
    from medrealmm import runrecord

    return runrecord.latest(folder)


def assert_same_tables(a: dict[str, pl.DataFrame], b: dict[str, pl.DataFrame]) -> None:
    for name in TABLES:
        assert_frame_equal(a[name], b[name], check_exact=True)


@pytest.mark.timeout(1800)   # two arrays of jobs, each starting an engine
def test_an_array_with_a_killed_and_a_requeued_task_resumes_to_a_single_runs_tables(slurm, single, tmp_path,
                                                                                     tiny_cache) -> None:
    """Four shards as array tasks, merged when all are done, equal one process. On the way, what happens on
    clusters: shard 1's generation task is killed (scancel --signal=KILL, as a node failure), and shard 0's
    judging task gets Slurm's warning signal (B:USR1, as before a time limit or a preemption). The signalled
    task requeues itself and its rerun resumes from the store; the killed shard leaves the merge unrun,
    `medrealmm pending` names it, and submit.sh run again submits only that shard, then the merge."""
    out = tmp_path / "out"
    args = ["bash", str(ROOT / "slurm" / "submit.sh"), "4", *SMOKE, f"paths.outputs={out}",
            f"paths.cache={tiny_cache}"]
    r = slurm.run(*args, cwd=tmp_path)
    assert "shards to run: 0,1,2,3" in r.stdout
    killed = requeued = None
    t0 = time.time()
    while (killed is None or requeued is None) and time.time() - t0 < 600:
        for line in slurm.queue(tmp_path):
            job, state, name = line.split()
            if killed is None and job.endswith("_1") and state == "RUNNING" and name == "medrealmm-generate":
                slurm.run("scancel", "--signal=KILL", "--full", job, cwd=tmp_path)
                killed = job
            if requeued is None and job.endswith("_0") and state == "RUNNING" and name == "medrealmm-judge":
                slurm.run("scancel", "--signal=USR1", "--batch", job, cwd=tmp_path)
                slurm.release_requeued(job, tmp_path)
                requeued = job
        time.sleep(0.5)
    assert killed, "shard 1's generation never ran"
    assert requeued, "shard 0's judging never ran"
    slurm.wait_idle(tmp_path)
    log = (slurm.state / "logs" / f"medrealmm-judge-{requeued}.out").read_text()
    assert "signal received, requeueing" in log and "restart 1" in log, log[-2000:]
    folder = out / "runs" / "sample" / "tiny-vl__tiny-vl__multimodal"
    assert latest(folder) is None  # the merge never ran on a missing shard
    pending = slurm.run("bash", "-c", f"source {ROOT}/.venv/bin/activate && medrealmm pending run.shard.count=4 "
                        f"{' '.join(SMOKE)} paths.outputs={out}", cwd=tmp_path).stdout.strip()
    assert pending == "1"

    r = slurm.run(*args, cwd=tmp_path)  # resubmit: only the missing shard, then the merge
    assert "shards to run: 1 " in r.stdout
    slurm.wait_idle(tmp_path)
    assert latest(folder) is not None, slurm.logs()
    assert_same_tables(single, read_tables(latest(folder).path))
    assert (out / "runs" / "sample" / "leaderboard.md").exists()


def test_hydra_multirun_through_submitit_then_one_leaderboard(slurm, tmp_path, tiny_cache) -> None:
    out = tmp_path / "out"
    slurm.run("bash", "-c", f"source {ROOT}/.venv/bin/activate && medrealmm run -m hydra/launcher=slurm "
              f"preset=smoke data.limit=2 paths.outputs={out} paths.cache={tiny_cache} "
              "'run.modes=[multimodal],[text]'", cwd=tmp_path, timeout=900)
    assert scored_configs(out) == ["tiny-vl__tiny-vl__multimodal", "tiny-vl__tiny-vl__text"]
    assert list(out.glob("multirun/*/.submitit/*/*_submitted.pkl")), "jobs did not go through submitit"
    cli(["leaderboard", "preset=smoke", f"paths.outputs={out}"], cwd=tmp_path)
    board = pl.read_parquet(out / "runs" / "sample" / "leaderboard.parquet")
    assert sorted(board["mode"]) == ["multimodal", "text"] and board["rank"].to_list() == [1, 1]


def test_a_served_judge_judges_the_array_like_the_in_process_judge(slurm, single, tmp_path, tiny_cache) -> None:
    """slurm/judge_server.sbatch serves the smoke judge (config tiny_vl) with vLLM's OpenAI-compatible server on
    the node's address; submit.sh --judge-url-file makes the judging tasks wait for its URL and judge through it
    (structured outputs, greedy): the tables equal in-process judging; the server job is cancelled at the end."""
    url_file = tmp_path / "judge.url"
    server = slurm.run("sbatch", "--parsable", f"--output={tmp_path}/server.out", str(ROOT / "slurm" / "judge_server.sbatch"),
                       "--url-file", str(url_file), "--port", "8011", "tiny_vl", f"paths.cache={tiny_cache}",
                       cwd=tmp_path).stdout.strip()
    try:
        out = tmp_path / "out"
        r = slurm.run("bash", str(ROOT / "slurm" / "submit.sh"), "--judge-url-file", str(url_file), "2", *SMOKE,
                      f"paths.outputs={out}", f"paths.cache={tiny_cache}", cwd=tmp_path)
        assert "generation 0, judging 0" in r.stdout   # the judging task asks for no GPU: the server has the judge
        t0 = time.time()
        while [line for line in slurm.queue(tmp_path) if not line.startswith(server + " ")]:
            assert time.time() - t0 < 900, slurm.queue(tmp_path)
            time.sleep(1)
        assert url_file.read_text().strip() == "http://127.0.0.1:8011/v1"
        judge_job = r.stdout.split("judge job ")[1].split(")")[0]
        logs = list((slurm.state / "logs").glob(f"medrealmm-judge-{judge_job}_*.out"))
        assert len(logs) == 2
        for log in logs:
            assert "judging through http://127.0.0.1:8011/v1" in log.read_text(), log.read_text()[-2000:]
        folder = out / "runs" / "sample" / "tiny-vl__tiny-vl__multimodal"
        assert latest(folder) is not None, slurm.logs() + (tmp_path / "server.out").read_text()[-3000:]
        served = read_tables(latest(folder).path)
        assert served["verdicts"]["judge_spec"].n_unique() == 1
        assert served["verdicts"]["judge_spec"][0] != single["verdicts"]["judge_spec"][0]   # the served judge's spec
        in_process = dict(single)
        for t in (in_process, served):   # the verdict keys name the backend (vLLM in-process vs a server)
            t["verdicts"] = t["verdicts"].drop("key", "judge_spec")
        assert_same_tables(in_process, served)
        assert served["verdicts"]["status"].to_list().count("scored") == served["verdicts"].height
    finally:
        slurm.run("scancel", server, cwd=tmp_path, check=False)
    t0 = time.time()
    while any(line.startswith(server + " ") for line in slurm.queue(tmp_path)) and time.time() - t0 < 60:
        time.sleep(0.5)
    assert not any(line.startswith(server + " ") for line in slurm.queue(tmp_path)), "the server job did not stop"
    assert not url_file.exists()   # a URL file names a live server only
