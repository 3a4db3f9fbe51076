"""One result per case, and runs as immutable records (issue: runs you can trust).

The model and the judge are a real local OpenAI-compatible HTTP server (tests/support), so every run
goes through the real CLI, store, record and reader code in seconds.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from medrealmm import runrecord
from medrealmm.data.jsonl_io import write_jsonl
from medrealmm.data.dataset import Dataset
from medrealmm.data.loader import load_dataset
from tests.conftest import cli, read_tables, run_dir

SAMPLE = load_dataset({"format": "sample"})


@pytest.fixture
def server():
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer() as srv:
        yield srv


def served(out: Path, url: str, *extra: str, model: str = "served") -> list[str]:
    """A run whose model (unless ``model=online``) and judge are the local server."""
    gen = ["backend=openai", f"backend.base_url={url}"] if model == "served" else [f"model={model}"]
    return ["run", *gen, "backend@judge_backend=openai", f"judge_backend.base_url={url}",
            "judge_backend.backoff_s=0.01", f"paths.outputs={out}", *extra]


def dataset_file(tmp: Path, records: list[dict]) -> Path:
    """The sample's images beside a JSONL of the given case records."""
    base = write_jsonl(Dataset(name="mine", root=SAMPLE.root, cases=SAMPLE.cases[:1], source="sample"), tmp / "mine")
    base.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return base


def sample_records(tmp: Path, n: int) -> list[dict]:
    """``n`` sample cases as JSONL records (their images copied beside them)."""
    f = write_jsonl(Dataset(name="mine", root=SAMPLE.root, cases=SAMPLE.cases[:n], source="sample"), tmp / "mine")
    return [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]


def one_per_case(out: Path, ids: list[str], criteria: int) -> dict[str, pl.DataFrame]:
    t = read_tables(run_dir(out))
    assert sorted(t["generations"]["case_id"]) == sorted(ids)
    assert t["generations"]["key"].n_unique() == len(ids)
    assert t["verdicts"].height == criteria and t["verdicts"]["key"].n_unique() == criteria
    assert sorted(t["case_scores"]["case_id"]) == sorted(ids)
    return t


# --- 1. one result per (case, mode, sample) ---------------------------------------------------------

def test_two_cases_with_the_same_dialogue_each_get_a_reply_and_verdicts(tmp_path, server) -> None:
    a = sample_records(tmp_path, 1)[0]
    b = {**a, "id": a["id"] + "-twin", "rubric": a["rubric"][:3]}   # same dialogue, another rubric
    data = dataset_file(tmp_path, [a, b])
    out = tmp_path / "out"
    cli(served(out, server.base_url, "data=jsonl", f"data.path={data}"), cwd=tmp_path)
    one_per_case(out, [a["id"], b["id"]], len(a["rubric"]) + 3)


def test_online_replies_that_are_equal_are_still_one_per_case(tmp_path, server) -> None:
    recs = sample_records(tmp_path, 2)
    for r in recs:
        r["y_orig"] = "好的，请尽快到医院复查。"
    data = dataset_file(tmp_path, recs)
    out = tmp_path / "out"
    cli(served(out, server.base_url, "data=jsonl", f"data.path={data}", model="online"), cwd=tmp_path)
    t = one_per_case(out, [r["id"] for r in recs], sum(len(r["rubric"]) for r in recs))
    assert t["generations"]["text"].unique().to_list() == ["好的，请尽快到医院复查。"]


def test_cases_differing_only_by_images_in_text_mode(tmp_path, server) -> None:
    a = sample_records(tmp_path, 1)[0]
    img = next(p for t in a["turns"] for p in t.get("images", []))
    src = Path(tmp_path / "mine" / img["path"])
    other = src.with_name("other" + src.suffix)
    shutil.copy(next(p for p in sorted(SAMPLE.root.glob("images/*")) if p.suffix == src.suffix and
                     p.name != src.name), other)
    b = json.loads(json.dumps(a))
    b["id"] = a["id"] + "-other-image"
    for t in b["turns"]:
        for im in t.get("images", []):
            if im["path"] == img["path"]:
                im["path"] = str(other.relative_to(tmp_path / "mine"))
    data = dataset_file(tmp_path, [a, b])
    out = tmp_path / "out"
    cli(served(out, server.base_url, "data=jsonl", f"data.path={data}", "run.modes=[text]"), cwd=tmp_path)
    one_per_case(out, [a["id"], b["id"]], 2 * len(a["rubric"]))


# --- 2. run identity and atomic publication ---------------------------------------------------------

def leaderboard(out: Path, tmp: Path, *extra: str) -> tuple[pl.DataFrame, str]:
    cli(["leaderboard", "data=jsonl", "data.name=mine", f"paths.outputs={out}", *extra], cwd=tmp)
    root = out / "runs" / "mine"
    return pl.read_parquet(root / "leaderboard.parquet"), (root / "leaderboard.md").read_text(encoding="utf-8")


def test_limited_reseeded_and_failed_runs_never_replace_a_finished_run(tmp_path, server) -> None:
    from tests.support.openai_server import Faults, OpenAIServer

    data = dataset_file(tmp_path, sample_records(tmp_path, 3))
    out = tmp_path / "out"
    common = ["data=jsonl", f"data.path={data}", "data.name=mine", "model=online"]
    cli(served(out, server.base_url, *common), cwd=tmp_path)
    full = run_dir(out)
    full_summary = pl.read_parquet(full / "summary.parquet")
    assert full_summary["run_id"].to_list() == [full.name] and full_summary["selection"].to_list() == ["full"]

    cli(served(out, server.base_url, *common, "data.limit=1"), cwd=tmp_path)       # a try-out
    limited = run_dir(out)
    assert runrecord.read(limited).selection == {"kind": "part", "limit": 1}
    with OpenAIServer(Faults(content_null=True)) as bad:                             # a failed rerun
        r = cli(served(out, bad.base_url, *common, "judge.max_retries=0", "judge.sampling.max_tokens=256"),
                cwd=tmp_path, check=False)
    assert r.returncode == 2
    failed = run_dir(out)
    assert runrecord.read(failed).status == "failed" and "unscored" in runrecord.read(failed).info["error"]

    # the full run's record is untouched, and it is what the leaderboard and the report read
    assert pl.read_parquet(full / "summary.parquet").equals(full_summary)
    board, md = leaderboard(out, tmp_path)
    assert board["run_id"].to_list() == [full.name] and board["n_scored"].to_list() == [3]
    assert "limit=1" in md and limited.name in md            # left out, and said so
    board_all, _ = leaderboard(out, tmp_path, "report.selection=all")
    assert sorted(board_all["selection"].to_list()) == ["full", "limit=1"]

    # another seed: a second full configuration of the same folder; both are read, the difference named
    cli(served(out, server.base_url, *common, "run.seed=7"), cwd=tmp_path)
    board, md = leaderboard(out, tmp_path)
    assert board.height == 2 and "seed" in md.split("differ in settings")[1]

    listing = cli(["runs", "data=jsonl", "data.name=mine", f"paths.outputs={out}"], cwd=tmp_path).stdout
    for rec, status in ((full, "finished"), (limited, "finished"), (failed, "failed")):
        assert any(rec.name in line and f"| {status} |" in line for line in listing.splitlines()), listing
    assert "limit=1" in listing


def test_score_alone_refuses_settings_that_did_not_produce_the_verdicts(tmp_path, server) -> None:
    data = dataset_file(tmp_path, sample_records(tmp_path, 2))
    out = tmp_path / "out"
    common = ["data=jsonl", f"data.path={data}", "data.name=mine", "model=online", "backend@judge_backend=openai",
              f"judge_backend.base_url={server.base_url}", f"paths.outputs={out}"]
    cli(served(out, server.base_url, *common[:4]), cwd=tmp_path)
    first = run_dir(out)
    r = cli(["score", *common, "run.seed=5"], cwd=tmp_path, check=False)   # nothing was generated with seed 5
    assert r.returncode == 2 and "no generations stored" in r.stderr
    assert runrecord.read(run_dir(out)).status == "failed"
    r = cli(["score", *common, "judge.sampling.temperature=0.3"], cwd=tmp_path, check=False)  # another judge setting
    assert r.returncode == 2 and "no verdicts stored" in r.stderr
    cli(["score", *common], cwd=tmp_path)                                    # the same settings: an honest re-score
    again = run_dir(out)
    rec = runrecord.read(again)
    assert rec.stages == ["score"] and rec.fingerprint == runrecord.read(first).fingerprint
    for name, df in read_tables(again).items():
        assert df.equals(read_tables(first)[name]), name
    assert json.loads((again / "manifest.json").read_text())["run"]["stages"] == ["score"]


def test_records_carry_the_settings_that_produced_them(tmp_path, server) -> None:
    out = tmp_path / "out"
    cli(served(out, server.base_url, "data.limit=1"), cwd=tmp_path)
    t = read_tables(run_dir(out))
    m = json.loads((run_dir(out) / "manifest.json").read_text())
    assert t["generations"]["model_spec"].to_list() == [m["run"]["settings"]["model"]["spec"]]
    assert t["verdicts"]["judge_spec"].unique().to_list() == [m["run"]["settings"]["judge"]["spec"]]


# --- the record module itself -------------------------------------------------------------------------

def test_a_running_record_whose_process_died_is_killed_and_never_read(tmp_path) -> None:
    rec = runrecord.start(tmp_path / "cfg", settings={"seed": 0, "selection": {"kind": "full"}}, stages=["run"])
    assert read_status(rec.path) == "running"
    info = json.loads((rec.path / "run.json").read_text())
    info["pid"] = 2 ** 22 + 12345        # no such process
    (rec.path / "run.json").write_text(json.dumps(info))
    assert read_status(rec.path) == "killed"
    (rec.path / "summary.parquet").write_bytes(b"")
    assert runrecord.latest(tmp_path / "cfg") is None


def read_status(path: Path) -> str:
    return runrecord.read(path).status


def test_latest_per_fingerprint_and_differing_settings(tmp_path) -> None:
    recs = []
    for seed, err in ((0, None), (0, None), (1, None), (2, "boom")):
        r = runrecord.start(tmp_path / "cfg", settings={"seed": seed, "model": "m", "selection": {"kind": "full"}},
                            stages=["generate", "judge", "score"])
        (r.path / "summary.parquet").write_bytes(b"")
        runrecord.finish(r, error=err)
        recs.append(r)
    chosen = runrecord.latest_per_fingerprint(runrecord.records(tmp_path))
    assert [c.id for c in chosen] == [recs[1].id, recs[2].id]
    assert runrecord.differing_settings(chosen) == ["seed"]
    latest = json.loads((tmp_path / "cfg" / "latest.json").read_text())
    assert latest["latest"] == recs[2].id and len(latest["by_fingerprint"]) == 2
    assert runrecord.selection_label({"kind": "part", "subset": 200, "subset_seed": 1}) == "subset=200 (seed 1)"
    assert runrecord.selection_of({"limit": None, "subset": None, "case_ids": None}) == {"kind": "full"}
    assert os.path.basename(recs[0].path).endswith(recs[0].id[-4:])


def test_per_sample_records_and_results_json(tmp_path, server) -> None:
    out = tmp_path / "out"
    cli(served(out, server.base_url, "data.limit=2"), cwd=tmp_path)
    folder = run_dir(out)
    t = read_tables(folder, timing=True)
    g = t["generations"]
    case = next(c for c in SAMPLE.cases[:2] if c.n_images)
    sent = json.loads(g.filter(pl.col("case_id") == case.id)["prompt"][0])
    assert sent[0]["role"] == "system" and sent[-1]["role"] == "user"
    urls = [p["image_url"]["url"] for m in sent if isinstance(m["content"], list) for p in m["content"]
            if p["type"] == "image_url"]
    assert urls == [f"image:{im.path}#sha256={im.sha256}" for im in case.images]   # by path and content hash
    assert g["latency_s"].null_count() == 0 and (g["latency_s"] > 0).all()       # a server: per-request latency
    assert (g["batch_size"] == 2).all() and g["prompt_tokens"].null_count() == 0
    v = t["verdicts"]
    texts = {c.id: c.text for c in case.rubric}
    for r in v.filter(pl.col("case_id") == case.id).iter_rows(named=True):
        assert r["criterion"] == texts[r["criterion_id"]] and r["raw"] and r["judge_spec"]
    results = json.loads((folder / "results.json").read_text())
    assert results["run_id"] == folder.name and results["status"] == "finished"
    assert {"generations.parquet", "verdicts.parquet", "summary.parquet", "manifest.json"} <= set(results["files"])
    assert results["summary"][0]["score"] == t["summary"]["score"][0] and results["config"]["model"]["name"]
