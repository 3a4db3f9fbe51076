"""Bad input, bad settings and a bad server are found early and named in one line (issue: runs you
can trust, parts 3-6). Each test fails on the code before these checks existed."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import polars as pl
import pytest

from medrealmm.data import load_dataset
from medrealmm.schema import Case, CaseError
from tests.conftest import cli, read_tables, run_dir
from tests.test_run_records import dataset_file, sample_records, served

SAMPLE = load_dataset({"format": "sample"})


@pytest.fixture
def server():
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer() as srv:
        yield srv


def with_weight(raw: dict, weight) -> dict:
    rubric = [dict(c) for c in raw["rubric"]]
    rubric[1] = {**rubric[1], "weight": weight}
    return {**raw, "rubric": rubric}


# --- 3. weights, engine limits, warnings, damaged store lines ---------------------------------------

@pytest.mark.parametrize("weight, message", [
    (1e30, "must be an integer"), (2 ** 62, "out of range"), (True, "must be an integer"), ("5", "must be an integer"),
    (5.0, "must be an integer"), (11, "outside the allowed range [-10, 10]"), (-11, "outside the allowed range"),
])
def test_weights_are_strict_integers_within_the_bound(tmp_path, weight, message) -> None:
    raw = with_weight(sample_records(tmp_path, 1)[0], weight)
    with pytest.raises(CaseError, match=message.replace("[", r"\[").replace("]", r"\]")) as e:
        Case.parse(raw, file="cases.jsonl")
    assert e.value.case_id == raw["id"] and e.value.field == "rubric.1.weight" and e.value.file == "cases.jsonl"


def test_weight_bound_is_a_data_option(tmp_path) -> None:
    recs = sample_records(tmp_path, 2)
    recs[0] = with_weight(recs[0], 12)
    data = dataset_file(tmp_path, recs)
    assert len(load_dataset({"format": "jsonl", "path": str(data)}).cases) == 1
    assert len(load_dataset({"format": "jsonl", "path": str(data), "max_abs_weight": 20}).cases) == 2
    assert len(load_dataset({"format": "jsonl", "path": str(data), "max_abs_weight": None}).cases) == 2
    with pytest.raises(ValueError, match="max_abs_weight"):
        load_dataset({"format": "jsonl", "path": str(data), "max_abs_weight": 0})


def test_validate_names_every_bad_weight_and_a_case_without_id_by_line(tmp_path) -> None:
    recs = sample_records(tmp_path, 4)
    recs[0] = with_weight(recs[0], 1e30)
    recs[1] = with_weight(recs[1], True)
    del recs[2]["id"]
    data = dataset_file(tmp_path, recs)
    r = cli(["validate", "data=jsonl", f"data.path={data}", f"paths.outputs={tmp_path / 'o'}"], cwd=tmp_path,
            check=False)
    assert r.returncode == 1
    assert f"case '{recs[0]['id']}', field 'rubric.1.weight'" in r.stderr
    assert f"case '{recs[1]['id']}', field 'rubric.1.weight'" in r.stderr
    assert "line 3:" in r.stderr and "field 'id'" in r.stderr and "Traceback" not in r.stderr


def test_validate_finds_what_the_engine_would_refuse_and_warns(tmp_path, tiny_cache) -> None:
    recs = sample_records(tmp_path, 3)
    recs[0]["y_orig"] = " "
    recs[1]["turns"] = [*recs[1]["turns"], {"role": "doctor", "text": "好的"}]
    twin = {**recs[2], "id": recs[2]["id"] + " "}
    data = dataset_file(tmp_path, [*recs, twin])
    two_images = [c["id"] for c in [*recs, twin] if sum(len(t.get("images", [])) for t in c["turns"]) > 1]
    assert two_images, "the sample needs a case with two images for this test"
    common = ["validate", "preset=smoke", "data=jsonl", f"data.path={data}", f"paths.cache={tiny_cache}",
              f"paths.outputs={tmp_path / 'o'}"]
    r = cli([*common, "model.engine.limit_mm_per_prompt.image=1"], cwd=tmp_path, check=False)
    assert r.returncode == 1
    for cid in two_images:
        assert f"case {cid!r}, field 'turns'" in r.stderr and "limit_mm_per_prompt.image=1" in r.stderr
    assert "y_orig (the physician's real reply) is empty" in r.stderr
    assert "ends on a doctor turn" in r.stderr and "differ only by whitespace" in r.stderr
    r = cli([*common, "model.engine.max_model_len=60"], cwd=tmp_path, check=False)   # the tiny tokenizer counts
    assert r.returncode == 1 and "exceeds model.engine.max_model_len=60" in r.stderr
    assert cli(common, cwd=tmp_path).returncode == 0   # warnings alone pass


def test_a_case_the_engine_would_refuse_is_not_sent(tmp_path, server) -> None:
    recs = sample_records(tmp_path, 4)
    many = {c["id"] for c in recs if sum(len(t.get("images", [])) for t in c["turns"]) > 1}
    assert many and len(many) < 4
    data = dataset_file(tmp_path, recs)
    out = tmp_path / "out"
    r = cli(served(out, server.base_url, "data=jsonl", f"data.path={data}", "model.engine.limit_mm_per_prompt.image=1",
                   "run.max_missing_share=1.0"), cwd=tmp_path)
    g = read_tables(run_dir(out))["generations"]
    refused = g.filter(pl.col("error").is_not_null())
    assert set(refused["case_id"]) == many and refused["error"].str.contains("refused before the engine").all()
    sent = [b for b in server.bodies if "response_format" not in b]       # generation requests only
    assert len(sent) == 4 - len(many)
    assert "not sent" in r.stderr


def test_a_damaged_store_line_is_skipped_named_and_redone(tmp_path, server) -> None:
    out = tmp_path / "out"
    args = served(out, server.base_url, "data.limit=2", model="online")
    cli(args, cwd=tmp_path)
    first = read_tables(run_dir(out))
    chunk = sorted((out / "store").glob("verdicts/*/*/*.jsonl"))[0]
    lines = chunk.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1][: len(lines[1]) // 2] + "\n"                     # a truncated record
    chunk.write_text("".join(lines) + '{"garbled\n', encoding="utf-8")
    n = server.n_requests
    r = cli(args, cwd=tmp_path)
    assert f"{chunk} line 2 is damaged" in r.stderr and f"{chunk} line {len(lines) + 1} is damaged" in r.stderr
    assert server.n_requests == n + 1                                      # only the damaged verdict redone
    again = read_tables(run_dir(out))
    for name in ("verdicts", "case_scores", "summary"):
        assert again[name].equals(first[name]), name


# --- 4. config checked at start ------------------------------------------------------------------------

@pytest.mark.parametrize("override, names", [
    ("run.samples=0", "run.samples"), ("judge.max_retries=-1", "judge.max_retries"), ("run.modes=[]", "run.modes"),
    ("judge.max_unscored_share=-1", "judge.max_unscored_share"), ("data.format=xml", "data.format"),
    ("data=jsonl", "data.path"), ("run.scoring.ci=1.5", "run.scoring.ci"), ("run.shard.index=3", "run.shard"),
])
def test_bad_settings_fail_in_one_line_before_any_work(tmp_path, override, names) -> None:
    t0 = time.monotonic()
    r = cli(["run", "preset=smoke", f"paths.outputs={tmp_path / 'o'}", override], cwd=tmp_path, check=False)
    assert r.returncode == 2 and names in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert time.monotonic() - t0 < 60 and not (tmp_path / "o" / "store").exists()


def test_debug_shows_the_traceback(tmp_path) -> None:
    r = cli(["run", "preset=smoke", f"paths.outputs={tmp_path / 'o'}", "data=jsonl", "debug=true"], cwd=tmp_path,
            check=False)
    assert r.returncode != 0 and "Traceback" in r.stderr


# --- 5. a dead server is found in seconds ----------------------------------------------------------

def test_a_run_against_a_dead_judge_server_stops_quickly_and_names_it(tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    t0 = time.monotonic()
    r = cli(served(tmp_path / "out", url, "data.limit=2", model="online"), cwd=tmp_path, check=False)
    assert r.returncode == 2 and url in r.stderr and "not reachable" in r.stderr
    assert time.monotonic() - t0 < 60


def test_a_server_that_serves_another_model_is_refused(tmp_path) -> None:
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer(also_serves=()) as srv:
        r = cli(served(tmp_path / "out", srv.base_url, "data.limit=1", model="online"), cwd=tmp_path, check=False)
        assert r.returncode == 2 and "not 'Qwen/Qwen2.5-VL-3B-Instruct'" in r.stderr and "server_model" in r.stderr
        assert not any(r.body for r in srv.requests)       # no chat request was sent


# --- 6. supply chain and outputs -----------------------------------------------------------------------

def test_remote_code_models_download_only_at_a_pinned_revision() -> None:
    from medrealmm.config import compose
    from medrealmm.inference.engines import ModelUnavailable, resolve_model_path

    conf = Path(__file__).resolve().parents[1] / "conf"
    remote = [(g, p.stem) for g in ("model", "judge") for p in sorted((conf / g).glob("*.yaml"))
              if "trust_remote_code: true" in p.read_text()]
    assert len(remote) >= 4
    for group, name in remote:
        role = compose([f"{group}={name}"])[group]
        assert "revision" in role, f"{group}/{name}.yaml has no revision key"
        with pytest.raises(ModelUnavailable, match="pinned commit"):
            resolve_model_path(role, "/nonexistent-cache")


def test_csv_cells_are_spreadsheet_safe_and_markdown_is_inert(tmp_path) -> None:
    from medrealmm.csvsafe import safe_cell, unsafe_cell, write_csv
    from medrealmm.common.tables import markdown_table

    df = pl.DataFrame({"department": ["=HYPERLINK(\"http://x\")", "+1+cmd", "@SUM(A1)", "-2+3", "皮肤科"],
                       "score": [-0.5, 0.1, 0.2, 0.3, 0.4], "n": ["-5", "3", "x", "-0.25", "1"]})
    write_csv(df, tmp_path / "t.csv")
    back = pl.read_csv(tmp_path / "t.csv", infer_schema=False)
    assert back["department"].to_list() == ["'=HYPERLINK(\"http://x\")", "'+1+cmd", "'@SUM(A1)", "'-2+3", "皮肤科"]
    assert back["n"].to_list() == ["-5", "3", "x", "-0.25", "1"] and back["score"][0] == "-0.5"
    assert [unsafe_cell(x) for x in back["department"]] == df["department"].to_list()
    assert safe_cell(7) == 7
    md = markdown_table(pl.DataFrame({"department": ["<script>alert(1)</script>", "a|b [x](http://y)"]}))
    assert "<script>" not in md and "&lt;script&gt;" in md and "\\|" in md and "\\[x\\]" in md


def test_summary_md_escapes_case_text(tmp_path, server) -> None:
    recs = sample_records(tmp_path, 2)
    recs[0]["department"] = "<img src=x onerror=alert(1)>"
    data = dataset_file(tmp_path, recs)
    out = tmp_path / "out"
    cli(served(out, server.base_url, "data=jsonl", f"data.path={data}", model="online"), cwd=tmp_path)
    md = (run_dir(out) / "summary.md").read_text(encoding="utf-8")
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    assert json.loads((run_dir(out) / "summary.json").read_text())["run_id"] == run_dir(out).name


def test_expected_os_failures_read_as_one_line() -> None:
    import errno

    from medrealmm.cli import _one_line

    full = _one_line(OSError(errno.ENOSPC, "No space left on device", "/data/out/store/x.tmp"))
    assert "no space left" in full and "/data/out/store/x.tmp" in full and "resumed" in full
    denied = _one_line(PermissionError(errno.EACCES, "Permission denied", "/ro/outputs"))
    assert "permission denied: /ro/outputs" in denied and "paths.outputs" in denied
    missing = _one_line(FileNotFoundError(errno.ENOENT, "No such file or directory", "/data/cases.jsonl"))
    assert missing == "No such file or directory: /data/cases.jsonl"


def test_an_outputs_folder_that_cannot_be_created_is_one_line(tmp_path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    r = cli(["run", "preset=smoke", f"paths.outputs={blocker / 'outputs'}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "cannot create the outputs folder" in r.stderr and str(blocker) in r.stderr
    assert "Traceback" not in r.stderr and "HYDRA_FULL_ERROR" not in r.stderr
