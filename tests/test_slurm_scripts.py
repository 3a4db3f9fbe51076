"""The Slurm scripts without a cluster: syntax, and the commands their dry-run modes would run."""

from __future__ import annotations

import json
import os
import re
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
    assert "3 nodes (gpu01 gpu02 gpu03), head gpu01" in out and "tensor parallel 8 x pipeline parallel 3" in out
    assert "-w gpu01 --export=ALL,VLLM_HOST_IP=gpu01 ray start --block" in out
    assert "--head --include-dashboard=false --node-ip-address=gpu01 --port=6379" in out
    assert "-w gpu02 --export=ALL,VLLM_HOST_IP=gpu02 ray start" in out and "--address=gpu01:6379 --node-ip-address=gpu02" in out
    assert "-w gpu03" in out and "ray-check --address gpu01:6379 --nodes 3" in out   # waits for every node
    assert ("medrealmm run model=kimi_k2_5 judge=qwen2_5_vl_72b model.engine.tensor_parallel_size=8 "
            "model.engine.pipeline_parallel_size=3 ++model.engine.distributed_executor_backend=ray") in out
    assert "judge.engine" not in out


def test_multinode_spreads_a_judge_when_asked() -> None:
    out = dry(str(SLURM / "multinode.sbatch"), "model=online", "judge=kimi_k2_5", MEDREALMM_MULTINODE_ROLES="judge",
              SLURM_JOB_NODELIST="gpu01,gpu02", SLURM_JOB_NUM_NODES="2", SLURM_GPUS_ON_NODE="8")
    assert ("judge.engine.tensor_parallel_size=8 judge.engine.pipeline_parallel_size=2 "
            "++judge.engine.distributed_executor_backend=ray") in out and "model.engine" not in out


def test_multinode_mp_launcher_starts_a_follower_per_other_node() -> None:
    """vLLM's own multi-node launcher (no Ray): the first node leads, each other node holds its pipeline stage."""
    out = dry(str(SLURM / "multinode.sbatch"), "model=kimi_k2_5", "judge=qwen2_5_vl_72b",
              MEDREALMM_MULTINODE_LAUNCHER="mp", SLURM_JOB_NODELIST="gpu01,gpu02,gpu03", SLURM_JOB_NUM_NODES="3",
              SLURM_GPUS_ON_NODE="8")
    lines = [line for line in out.splitlines() if line.startswith("+ ")]
    assert "ray" not in out.replace("launcher mp", "")
    followers = [line for line in lines if " follower " in line]
    assert len(followers) == 2 and "-w gpu02" in followers[0] and "--node-rank 1" in followers[0]
    assert "-w gpu03" in followers[1] and "--node-rank 2" in followers[1]
    leader = lines[-1]
    assert leader.startswith("+ env VLLM_HOST_IP=gpu01 ") and " medrealmm run model=kimi_k2_5" in leader
    for o in ("model.engine.pipeline_parallel_size=3", "++model.engine.nnodes=3", "++model.engine.node_rank=0",
              "++model.engine.master_addr=gpu01", "++model.engine.master_port=29501"):
        assert o in leader and o in followers[0]


def test_multinode_mp_spreads_model_then_judge_one_engine_at_a_time() -> None:
    out = dry(str(SLURM / "multinode.sbatch"), "model=kimi_k2_5", "judge=kimi_k2_5", MEDREALMM_MULTINODE_LAUNCHER="mp",
              MEDREALMM_MULTINODE_ROLES="judge model", SLURM_JOB_NODELIST="gpu01,gpu02", SLURM_JOB_NUM_NODES="2")
    steps = [line.split(" follower ")[1].split()[1] if " follower " in line else line.split(" medrealmm ")[1].split()[0]
             for line in out.splitlines() if line.startswith("+ ")]
    assert steps == ["model", "generate", "judge", "run"]   # generation first; its replies are read from the store
    assert "++judge.engine.master_port=29502" in out


def test_multinode_dry_run_checks_the_config_first() -> None:
    r = subprocess.run(["bash", str(SLURM / "multinode.sbatch"), "model=kimi_k2_5", "run.samples=0"],
                       capture_output=True, text=True, env={**os.environ, "DRY_RUN": "1"})
    assert r.returncode == 2 and "run.samples" in r.stderr and "nothing submitted" in r.stderr
    assert "ray start" not in r.stdout + r.stderr
    r = subprocess.run(["bash", str(SLURM / "multinode.sbatch"), "model=no_such_model"],
                       capture_output=True, text=True, env={**os.environ, "DRY_RUN": "1"})
    assert r.returncode == 2 and "model/no_such_model" in r.stderr


def test_judge_server_takes_a_judge_config_name_and_serves_its_engine() -> None:
    out = dry(str(SLURM / "judge_server.sbatch"), "--url-file", "/tmp/medrealmm-judge.url", "qwen3_vl_235b_a22b")
    assert "judge server for qwen3-vl-235b-a22b" in out
    line = next(line for line in out.splitlines() if line.startswith("+ "))
    assert "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-VL-235B-A22B-Instruct" in line
    assert "--served-model-name Qwen/Qwen3-VL-235B-A22B-Instruct --host " in line and "--port 8000" in line
    assert "--tensor-parallel-size 8" in line   # the layout of conf/judge/qwen3_vl_235b_a22b.yaml
    assert '--structured-outputs-config \'{"backend":"guidance","disable_any_whitespace":true}\'' in line
    assert "url: http://" in out and ":8000/v1 -> /tmp/medrealmm-judge.url" in out
    assert "clients: judge=qwen3_vl_235b_a22b backend@judge_backend=openai judge_backend.base_url=http://" in out


@pytest.mark.parametrize(("args", "message"), [
    (["Qwen/Qwen3-VL-235B-A22B-Instruct"], "JUDGE is a judge config name"),
    (["no_such_judge"], "no judge config 'no_such_judge'"),
    (["tiny_text", "judge.max_retries=-1"], "judge.max_retries"),
    (["tiny_text", "backend@judge_backend=openai"], "only a vLLM engine runs here"),
    ([], "which judge?"),
])
def test_judge_server_refuses_bad_settings_loudly(args, message) -> None:
    r = subprocess.run(["bash", str(SLURM / "judge_server.sbatch"), *args], capture_output=True, text=True,
                       env={**os.environ, "DRY_RUN": "1"})
    assert r.returncode == 2 and message in r.stderr, r.stdout + r.stderr
    assert "api_server" not in r.stdout


def test_submit_takes_gpu_counts_from_the_configs() -> None:
    out = dry(str(SLURM / "submit.sh"), "4", "model=medgemma_27b", "judge=qwen2_5_vl_72b",
              MEDREALMM_LOGS="/tmp/medrealmm-logs")
    gen, judge, _ = [line for line in out.splitlines() if line.startswith("sbatch")]
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
    lines = [line for line in out.splitlines() if line.startswith("sbatch")]
    gen, judge, merge = lines
    assert "--array=0,1,2,3" in gen and "--gpus-per-node=2" in gen and "--partition=gpu" in gen
    assert gen.endswith("task.sbatch generate 4 model=lingshu_7b")
    assert "--dependency=aftercorr:DRY" in judge and "--gpus-per-node=4" in judge
    assert "--dependency=afterok:DRY" in merge and merge.endswith("merge.sbatch 4 model=lingshu_7b")
    assert all("--kill-on-invalid-dep=yes" in line for line in lines)


def site_settings() -> list[str]:
    text = (SLURM / "site.sh").read_text()
    block = text[text.index("MEDREALMM_SETTINGS=(") + len("MEDREALMM_SETTINGS=("):]
    return ["MEDREALMM_" + n for n in block[:block.index(")")].split()]


def test_one_set_of_site_settings_for_scripts_launcher_and_readme() -> None:
    """Every MEDREALMM_* name the Hydra launcher reads is a setting of slurm/site.sh (same name, same meaning),
    each setting has a default there, and README's table lists exactly those settings."""
    names = site_settings()
    text = (SLURM / "site.sh").read_text()
    for n in names:
        assert f': "${{{n}:=' in text, f"{n} has no default in slurm/site.sh"
    launcher = (ROOT / "conf" / "hydra" / "launcher" / "slurm.yaml").read_text()
    read = set(re.findall(r"oc\.env:(MEDREALMM_[A-Z_]+)", launcher))
    assert read and read <= set(names), read - set(names)
    assert {"MEDREALMM_TIME_MIN", "MEDREALMM_MEM_GB", "MEDREALMM_CPUS", "MEDREALMM_SETUP"} <= read
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| Setting |"):]
    table = table[:table.index("\n\n")]
    documented = re.findall(r"^\| `(MEDREALMM_[A-Z_]+)`", table, flags=re.M)
    assert sorted(documented) == sorted(names)


@pytest.mark.parametrize(("env", "message"), [
    ({"MEDREALMM_TIME": "04:00:00"}, "MEDREALMM_TIME is no longer read: use MEDREALMM_TIME_MIN"),
    ({"MEDREALMM_MEM": "64G"}, "MEDREALMM_MEM is no longer read: use MEDREALMM_MEM_GB"),
    ({"MEDREALMM_GPUS": "2"}, "MEDREALMM_GPUS is no longer read: use MEDREALMM_GEN_GPUS and JUDGE_GPUS"),
    ({"MEDREALMM_PARTITON": "gpu"}, "MEDREALMM_PARTITON is not a setting"),
    ({"MEDREALMM_CPUS": "eight"}, "MEDREALMM_CPUS must be a positive whole number, got 'eight'"),
    ({"MEDREALMM_GEN_GPUS": "two"}, "MEDREALMM_GEN_GPUS must be a whole number or empty"),
    ({"MEDREALMM_MEM_GB": "64G"}, "MEDREALMM_MEM_GB must be a whole number"),
    ({"MEDREALMM_MULTINODE_LAUNCHER": "slurm"}, "MEDREALMM_MULTINODE_LAUNCHER takes ray or mp"),
    ({"MEDREALMM_MULTINODE_ROLES": "generator"}, "MEDREALMM_MULTINODE_ROLES takes model and/or judge"),
])
@pytest.mark.parametrize("script", [["submit.sh", "2", "model=lingshu_7b"], ["sweep.sh", "model=lingshu_7b"],
                                    ["multinode.sbatch", "model=kimi_k2_5"], ["judge_server.sbatch", "tiny_text"]])
def test_every_script_refuses_a_bad_site_setting_with_its_reason(script, env, message) -> None:
    r = subprocess.run(["bash", str(SLURM / script[0]), *script[1:]], capture_output=True, text=True,
                       env={**os.environ, "DRY_RUN": "1", "MEDREALMM_LOGS": "/tmp/medrealmm-logs", **env})
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr and "nothing submitted" in r.stderr
    assert "sbatch" not in r.stdout and "+ " not in r.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["two", "model=lingshu_7b"], "SHARDS must be a positive whole number, got 'two'"),
    ([], "SHARDS must be a positive whole number"),
    (["1", "model=lingshu_7b"], "SHARDS must be at least 2"),
    (["--judge-url-file"], "--judge-url-file needs a file"),
    (["--shards", "2"], "unknown option --shards"),
])
def test_submit_refuses_bad_arguments_loudly(args, message) -> None:
    r = subprocess.run(["bash", str(SLURM / "submit.sh"), *args], capture_output=True, text=True,
                       env={**os.environ, "DRY_RUN": "1", "MEDREALMM_LOGS": "/tmp/medrealmm-logs"})
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_submit_with_a_judge_server_judges_through_it_without_gpus() -> None:
    out = dry(str(SLURM / "submit.sh"), "--judge-url-file", "/tmp/j.url", "2", "model=medgemma_27b",
              "judge=qwen2_5_vl_72b", MEDREALMM_LOGS="/tmp/medrealmm-logs")
    gen, judge, merge = [line for line in out.splitlines() if line.startswith("sbatch")]
    assert "--gpus-per-node=2" in gen and "--gpus-per-node" not in judge   # the server holds the judge
    assert "task.sbatch --judge-url-file /tmp/j.url judge 2 model=medgemma_27b" in judge
    assert all(line.endswith("backend@judge_backend=openai") for line in (gen, judge, merge))   # one run fingerprint


def test_sweep_dry_run_resolves_the_launcher_from_the_site_settings() -> None:
    out = dry(str(SLURM / "sweep.sh"), "model=lingshu_7b,medgemma_27b", "judge=qwen2_5_vl_3b",
              MEDREALMM_TIME_MIN="90", MEDREALMM_MEM_GB="64", MEDREALMM_CPUS="4", MEDREALMM_PARTITION="gpu",
              MEDREALMM_EXTRA_SBATCH="--constraint=h100 --exclude=node07,node08 --exclusive")
    settings = json.loads(out.split("sweep job settings: ")[1].splitlines()[0])
    assert settings["timeout_min"] == 90 and settings["mem_gb"] == 64 and settings["cpus_per_task"] == 4
    assert settings["partition"] == "gpu" and settings["gpus_per_node"] == 2
    assert settings["additional_parameters"] == {"constraint": "h100", "exclude": "node07,node08", "exclusive": True,
                                                 "requeue": True}
    assert settings["setup"] == [f"source {ROOT}/.venv/bin/activate"]
    r = subprocess.run(["bash", str(SLURM / "sweep.sh"), "model=lingshu_7b"], capture_output=True, text=True,
                       env={**os.environ, "DRY_RUN": "1", "MEDREALMM_EXTRA_SBATCH": "constraint=h100"})
    assert r.returncode == 2 and "MEDREALMM_EXTRA_SBATCH takes --option=value" in r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["start", "relative/dir"], "must be an absolute path"),
    (["start", "/tmp/x", "--nodes", "0"], "--nodes takes 1 to 64"),
    (["start", "/tmp/x", "--nodez", "2"], "unknown option --nodez"),
    (["restart", "/tmp/x"], "usage:"),
])
def test_local_cluster_script_refuses_bad_arguments(args, message) -> None:
    r = subprocess.run(["bash", str(SLURM / "local" / "cluster.sh"), *args], capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr, r.stderr


@pytest.mark.parametrize("script", [["submit.sh", "2", "model=lingshu_7b"], ["sweep.sh", "model=lingshu_7b"],
                                    ["multinode.sbatch", "model=kimi_k2_5"], ["judge_server.sbatch", "tiny_text"]])
def test_every_script_says_when_the_job_environment_does_not_work(script) -> None:
    r = subprocess.run(["bash", str(SLURM / script[0]), *script[1:]], capture_output=True, text=True,
                       env={**os.environ, "DRY_RUN": "1", "MEDREALMM_LOGS": "/tmp/medrealmm-logs",
                            "MEDREALMM_SETUP": "source /nonexistent/venv/bin/activate"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "MEDREALMM_SETUP failed" in r.stderr and "source /nonexistent/venv/bin/activate" in r.stderr
