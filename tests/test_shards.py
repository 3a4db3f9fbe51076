"""Sharding and merging without Slurm (the Slurm path itself is in test_slurm.py)."""

from __future__ import annotations

import pytest

from medrealmm.shards import select, shard_of, shard_spec
from tests.conftest import cli, read_tables, run_dir
from tests.test_pipeline import SAMPLE, judge_server, served  # noqa: F401 (fixture)


def test_shard_of_is_stable_and_partitions_the_cases() -> None:
    assert shard_of("derm-001", 4) == shard_of("derm-001", 4)
    assert [shard_of(f"case-{i}", 7) for i in range(3)] == [int(__import__("hashlib").sha256(
        f"case-{i}".encode()).hexdigest()[:8], 16) % 7 for i in range(3)]
    parts = [select(SAMPLE.cases, i, 3) for i in range(3)]
    assert sorted(c.id for p in parts for c in p) == sorted(c.id for c in SAMPLE.cases)
    assert all(parts)  # 19 cases over 3 shards: none empty
    with pytest.raises(ValueError, match="run.shard"):
        shard_spec({"shard": {"index": 3, "count": 3}})


def test_merge_names_missing_shards_then_merges_them_in_single_run_order(tmp_path, judge_server) -> None:  # noqa: F811
    out = tmp_path / "out"
    base = [*served(out, judge_server.base_url)[1:], "data.limit=8"]
    for i in (0, 2):
        cli(["run", *base, f"run.shard.index={i}", "run.shard.count=3"], cwd=tmp_path)
    r = cli(["merge", *base, "run.shard.count=3"], cwd=tmp_path, check=False)
    assert r.returncode == 2 and "1 of 3 shards have not finished" in r.stderr and "[1]" in r.stderr
    pending = cli(["pending", *base, "run.shard.count=3"], cwd=tmp_path).stdout.strip()
    assert pending == "1"

    cli(["run", *base, "run.shard.index=1", "run.shard.count=3"], cwd=tmp_path)
    cli(["merge", *base, "run.shard.count=3"], cwd=tmp_path)
    merged = read_tables(run_dir(out))
    assert merged["generations"]["case_id"].to_list() == [c.id for c in SAMPLE.cases[:8]]
    single = tmp_path / "single"
    cli(["run", *served(single, judge_server.base_url)[1:], "data.limit=8"], cwd=tmp_path)
    for name, df in read_tables(run_dir(single)).items():
        assert df.equals(merged[name]), name
