"""An existing store of the old layout keeps working, and once migrated gives the same tables (issue 19).

A real run (model and judge behind the local OpenAI-compatible test server) fills a store; the store
is then put back into the old layout (every verdict of a judge in one folder, no index files, chunk
files named as the old code named them). A run over it reads it without asking the server anything;
``medrealmm store migrate`` moves it into partitions; a run over the migrated store writes tables
byte-identical to the first run's.
"""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

import pytest

from medrealmm.store import Store, maintain
from tests.conftest import cli, read_tables, run_dir
from tests.test_run_records import served

TABLES = ("generations", "verdicts", "case_scores", "by_department", "histogram")


@pytest.fixture
def server():
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer() as srv:
        yield srv


def to_old_layout(store: Path) -> int:
    """Verdicts back into their judge's folder, index files gone, old chunk names; the files moved."""
    moved = 0
    for idx in store.rglob("*.idx"):
        idx.unlink()
    for f in sorted(store.rglob("*.jsonl")):
        rel = f.relative_to(store).parts
        folder = f.parent.parent if rel[0] == "verdicts" else f.parent
        f.rename(folder / f"{secrets.token_hex(12)}.jsonl")
        moved += 1
    for part in store.glob("verdicts/*/*/"):
        part.rmdir()
    return moved


def parquet_bytes(folder: Path) -> dict[str, bytes]:
    return {t: (folder / f"{t}.parquet").read_bytes() for t in TABLES}


def test_a_run_over_an_old_store_then_over_the_migrated_one_gives_identical_tables(tmp_path, server) -> None:
    out = tmp_path / "out"
    args = served(out, server.base_url, "data.limit=2", "run.judging.chunk_size=7")
    cli(args, cwd=tmp_path)
    first_dir = run_dir(out)
    first, first_bytes = read_tables(first_dir), parquet_bytes(first_dir)
    n = server.n_requests
    store = out / "store"
    assert to_old_layout(store) > 2 and not list(store.glob("verdicts/*/*/"))

    r = cli(args, cwd=tmp_path)                                     # the old layout, read as it is
    assert "old layout" in r.stderr and "store migrate" in r.stderr
    assert server.n_requests == n
    again = read_tables(run_dir(out))
    for name in first:
        assert again[name].equals(first[name]), name

    r = cli(["store", "migrate", f"paths.outputs={out}"], cwd=tmp_path)
    assert "verdicts moved into per-model partitions" in r.stdout
    (judge,) = store.glob("verdicts/*")
    assert not list(judge.glob("*.jsonl")) and len(list(judge.glob("*/*.jsonl"))) == 1
    assert all(f.with_suffix(".idx").is_file() for f in store.rglob("*.jsonl"))
    assert maintain.verify(store)[2] == []

    r = cli(args, cwd=tmp_path)
    assert "old layout" not in r.stderr and server.n_requests == n
    assert parquet_bytes(run_dir(out)) == first_bytes

    r = cli(["store", "gc", f"paths.outputs={out}", "store.gc.min_age_hours=0"], cwd=tmp_path)
    assert "nothing to do" in r.stdout                              # every record is shown by a run
    shutil.rmtree(out / "runs")
    r = cli(["store", "gc", f"paths.outputs={out}"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "no run tables" in r.stderr        # refuses to empty the store
    keys = first["verdicts"]["key"].to_list()
    (part,) = judge.iterdir()
    assert len(Store(store, str(part.relative_to(store))).records(keys)) == len(keys)
