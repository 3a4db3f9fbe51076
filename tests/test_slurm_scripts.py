"""The Slurm scripts without a cluster: syntax, and the commands their dry-run modes would run."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import ROOT

SLURM = ROOT / "slurm"


@pytest.mark.parametrize("script", sorted(p.name for p in SLURM.glob("*") if p.suffix in (".sh", ".sbatch")))
def test_scripts_parse(script: str) -> None:
    subprocess.run(["bash", "-n", str(SLURM / script)], check=True)


def dry(*cmd: str, **env: str) -> str:
    r = subprocess.run(["bash", *cmd], capture_output=True, text=True, check=True,
                       env={**os.environ, "DRY_RUN": "1", **env})
    return r.stdout + r.stderr


def test_multinode_dry_run_starts_ray_and_sets_tp_and_pp() -> None:
    out = dry(str(SLURM / "multinode.sbatch"), "model=kimi_k2_5", "judge=qwen2_5_vl_72b",
              SLURM_JOB_NODELIST="gpu01,gpu02,gpu03", SLURM_JOB_NUM_NODES="3", SLURM_GPUS_ON_NODE="8")
    assert "-w gpu01 ray start --head --port=6379 --num-gpus=8" in out
    assert "-w gpu02 ray start --address=gpu01:6379" in out and "-w gpu03 ray start --address=gpu01:6379" in out
    assert ("medrealmm run model=kimi_k2_5 judge=qwen2_5_vl_72b model.engine.tensor_parallel_size=8 "
            "model.engine.pipeline_parallel_size=3 ++model.engine.distributed_executor_backend=ray") in out
    assert "judge.engine" not in out


def test_multinode_spreads_a_judge_when_asked() -> None:
    out = dry(str(SLURM / "multinode.sbatch"), "model=online", "judge=kimi_k2_5", MEDREALMM_MULTINODE_ROLES="judge",
              SLURM_JOB_NODELIST="gpu01,gpu02", SLURM_JOB_NUM_NODES="2", SLURM_GPUS_ON_NODE="8")
    assert ("judge.engine.tensor_parallel_size=8 judge.engine.pipeline_parallel_size=2 "
            "++judge.engine.distributed_executor_backend=ray") in out and "model.engine" not in out


def test_judge_server_dry_run() -> None:
    out = dry(str(SLURM / "judge_server.sbatch"), "Qwen/Qwen3-VL-235B-A22B-Instruct", SLURM_GPUS_ON_NODE="8")
    assert "vllm serve Qwen/Qwen3-VL-235B-A22B-Instruct --host 0.0.0.0 --port 8000 --tensor-parallel-size 8" in out
    assert "url: http://" in out and ":8000/v1" in out


def test_submit_takes_gpu_counts_from_the_configs() -> None:
    out = dry(str(SLURM / "submit.sh"), "4", "model=medgemma_27b", "judge=qwen2_5_vl_72b",
              MEDREALMM_LOGS="/tmp/medrealmm-logs")
    gen, judge, _ = [l for l in out.splitlines() if l.startswith("sbatch")]
    assert "--gpus-per-node=2" in gen and "--gpus-per-node=4" in judge   # tensor parallel 2 and 4 in the configs
    out = dry(str(SLURM / "submit.sh"), "2", "model=online", "backend@judge_backend=openai",
              MEDREALMM_LOGS="/tmp/medrealmm-logs")
    assert "--gpus-per-node" not in out                                   # no engine of ours in either job


def test_submit_refuses_bad_settings_and_layouts_that_do_not_fit() -> None:
    env = {**os.environ, "DRY_RUN": "1", "MEDREALMM_LOGS": "/tmp/medrealmm-logs"}
    r = subprocess.run(["bash", str(SLURM / "submit.sh"), "2", "run.samples=0"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "run.samples" in r.stderr and "nothing submitted" in r.stderr
    assert "sbatch" not in r.stdout + r.stderr
    r = subprocess.run(["bash", str(SLURM / "submit.sh"), "2", "model=glm_5_1"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "does not fit" in r.stderr and "698 GiB" in r.stderr
    r = subprocess.run(["bash", str(SLURM / "submit.sh"), "2", "model=glm_5_1"], capture_output=True, text=True,
                       env={**env, "MEDREALMM_GPU_MEM_GIB": "141"})
    assert r.returncode == 0, r.stderr


def test_sweep_dry_run_checks_every_point_and_asks_for_the_largest() -> None:
    out = dry(str(SLURM / "sweep.sh"), "model=lingshu_7b,medgemma_27b,online", "judge=qwen2_5_vl_3b")
    assert "2 GPU(s) per job" in out and "medrealmm run -m hydra/launcher=slurm" in out
    r = subprocess.run(["bash", str(SLURM / "sweep.sh"), "model=lingshu_7b", "judge.max_retries=-1"],
                       capture_output=True, text=True, env={**os.environ, "DRY_RUN": "1"})
    assert r.returncode == 2 and "judge.max_retries" in r.stderr and "nothing submitted" in r.stderr


def test_submit_dry_run_chains_generation_judging_and_merge() -> None:
    out = dry(str(SLURM / "submit.sh"), "4", "model=lingshu_7b", MEDREALMM_PARTITION="gpu",
              MEDREALMM_GEN_GPUS="2", MEDREALMM_JUDGE_GPUS="4", MEDREALMM_LOGS="/tmp/medrealmm-logs")
    lines = [l for l in out.splitlines() if l.startswith("sbatch")]
    gen, judge, merge = lines
    assert "--array=0,1,2,3" in gen and "--gpus-per-node=2" in gen and "--partition=gpu" in gen
    assert gen.endswith("task.sbatch generate 4 model=lingshu_7b")
    assert "--dependency=aftercorr:DRY" in judge and "--gpus-per-node=4" in judge
    assert "--dependency=afterok:DRY" in merge and merge.endswith("merge.sbatch 4 model=lingshu_7b")
    assert all("--kill-on-invalid-dep=yes" in l for l in lines)
