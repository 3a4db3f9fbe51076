"""The result store: atomic chunks, dedupe, retry of engine errors, crash leftovers ignored."""

from __future__ import annotations

import json

from medrealmm.store import Store


def rec(key: str, **kw) -> dict:
    return {"key": key, "value": key.upper(), **kw}


def test_put_and_reload(tmp_path) -> None:
    s = Store(tmp_path, "v/x")
    s.put_many([rec("a"), rec("b")])
    s.put_many([rec("b"), rec("c")])  # b already there: not written twice
    fresh = Store(tmp_path, "v/x")
    assert len(fresh) == 3 and fresh.get("c")["value"] == "C"
    lines = [ln for f in (tmp_path / "v/x").glob("*.jsonl") for ln in f.read_text().splitlines()]
    assert sorted(json.loads(ln)["key"] for ln in lines) == ["a", "b", "c"]


def test_leftover_tmp_from_a_killed_writer_is_ignored_and_cleaned_when_stale(tmp_path) -> None:
    import os
    import time

    s = Store(tmp_path, "g")
    s.put_many([rec("a")])
    stale = tmp_path / "g" / "deadbeef.1234.tmp"
    live = tmp_path / "g" / "cafe.5678.tmp"  # another process may be about to rename this one
    for f in (stale, live):
        f.write_text('{"key": "z", "value": "half"')
    old = time.time() - 7 * 3600
    os.utime(stale, (old, old))
    fresh = Store(tmp_path, "g")
    assert "z" not in fresh and len(fresh) == 1
    assert not stale.exists() and live.exists()


def test_error_records_count_as_missing_until_a_good_one_arrives(tmp_path) -> None:
    s = Store(tmp_path, "g")
    s.put_many([rec("a", error="HTTP 503"), rec("b")])
    assert s.missing(["a", "b", "c"]) == ["a", "c"]
    s.put_many([rec("a")])
    fresh = Store(tmp_path, "g")
    assert fresh.missing(["a", "b"]) == [] and fresh.get("a").get("error") is None


# --- the partitioned, indexed layout (issue 19) --------------------------------------------------------

import logging  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import polars as pl  # noqa: E402
import pytest  # noqa: E402

from medrealmm.schema import stable_hash  # noqa: E402
from medrealmm.store import layout, maintain  # noqa: E402

JUDGE = layout.judge_kind("judge", "j" * 64)


def verdicts(model: str, n: int, **kw) -> list[dict]:
    return [{"key": stable_hash([model, i]), "generation_key": stable_hash([model, "g", i // 3]), "model": model,
             "rationale": f"符合标准 {i}", **kw} for i in range(n)]


def fill(root: Path, kind: str, recs: list[dict], chunk: int = 10, **kw) -> Store:
    s = Store(root, kind, **kw)
    for i in range(0, len(recs), chunk):
        s.put_many(recs[i:i + chunk])
    return s


def data_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl"))


def test_a_run_opens_only_its_partition_and_reads_only_its_lines(tmp_path, monkeypatch) -> None:
    from medrealmm.store import files

    a, b = verdicts("a", 40), verdicts("b", 40)
    fill(tmp_path, f"{JUDGE}/a-1", a)
    fill(tmp_path, f"{JUDGE}/b-2", b)
    for f in data_files(tmp_path / JUDGE / "b-2"):     # another model's partition: never opened
        f.write_bytes(b"garbage\n")
    spans: list[int] = []
    real = files.read_spans
    monkeypatch.setattr(files, "read_spans", lambda path, s: (spans.append(len(s)), real(path, s))[1])
    s = Store(tmp_path, f"{JUDGE}/a-1", legacy=JUDGE)
    part = [r["key"] for r in a[::16]]                   # a shard: 3 keys out of 40, in 3 chunk files of 10
    assert s.missing(part) == [] and s.records(part) == a[::16]
    assert sum(spans) == 2 * len(part)                   # only those lines were read (checked, then decoded)


def test_an_edited_line_is_named_by_file_and_line_and_redone(tmp_path, caplog) -> None:
    recs = verdicts("a", 10)
    keys = [r["key"] for r in recs]
    fill(tmp_path, "v", recs, chunk=10)
    (f,) = data_files(tmp_path / "v")
    f.write_bytes(f.read_bytes().replace("符合标准 3".encode(), "不符标准 3".encode()))   # same size: index matches
    s = Store(tmp_path, "v")
    with caplog.at_level(logging.WARNING, "medrealmm.store"):
        assert s.missing(keys) == [recs[3]["key"]]
    assert f"{f} line 4 is damaged" in caplog.text
    s.put_many([recs[3]])                                 # redone: a second copy, in a later file
    assert Store(tmp_path, "v").records(keys) == recs
    (done,) = maintain.compact(tmp_path, "v")              # the damaged copy goes, the redone one stays
    assert done.kept == 10 and Store(tmp_path, "v").records(keys) == recs
    assert maintain.verify(tmp_path)[2] == []


def test_a_data_file_changed_in_size_is_scanned_and_its_damaged_lines_named(tmp_path, caplog) -> None:
    recs = verdicts("a", 10)
    fill(tmp_path, "v", recs, chunk=10)
    (f,) = data_files(tmp_path / "v")
    f.write_bytes(f.read_bytes()[:-20])                   # truncated: no longer its index's size
    with caplog.at_level(logging.WARNING, "medrealmm.store"):
        assert Store(tmp_path, "v").missing([r["key"] for r in recs]) == [recs[9]["key"]]
    assert f"{f} line 10 is damaged" in caplog.text


def test_old_layout_judge_folder_is_still_read(tmp_path, caplog) -> None:
    recs = verdicts("a", 25)
    fill(tmp_path, JUDGE, recs)
    for idx in (tmp_path / JUDGE).glob("*.idx"):         # the old layout had no index files
        idx.unlink()
    with caplog.at_level(logging.WARNING, "medrealmm.store"):
        s = Store(tmp_path, f"{JUDGE}/a-1", legacy=JUDGE)
        assert s.missing([r["key"] for r in recs]) == [] and len(s) == 25
    assert "old layout" in caplog.text and "store migrate" in caplog.text
    s.put_many(verdicts("a", 30)[25:])                     # new records go to the partition
    assert len(data_files(tmp_path / JUDGE / "a-1")) == 1


def test_compaction_merges_chunks_drops_duplicates_and_keeps_what_reads_return(tmp_path) -> None:
    recs = verdicts("a", 60)
    other = Store(tmp_path, "v")                          # a second writer, opened before the first wrote ...
    assert len(other) == 0
    s = fill(tmp_path, "v", recs, chunk=5)
    errs = [dict(r, error="HTTP 503") for r in verdicts("a", 70)[60:]]
    s.put_many(errs)
    s.put_many([dict(errs[0], error=None)])               # the retry that worked
    other.put_many(recs[:5])                              # ... does the same work again
    keys = [r["key"] for r in verdicts("a", 70)]
    before = Store(tmp_path, "v").records(keys)
    (done,) = maintain.compact(tmp_path, "v", segment_bytes=1 << 20)
    assert done.files_in == 15 and len(done.written) == 1 and done.kept == 70 and done.dropped == 6
    assert Store(tmp_path, "v").records(keys) == before and before[60].get("error") is None
    assert Store(tmp_path, "v").missing(keys) == keys[61:]
    assert maintain.compact(tmp_path, "v", segment_bytes=1 << 20) == []                 # nothing left to do
    maintain.compact(tmp_path, "v", segment_bytes=2000, min_files=1)                    # small segments
    assert Store(tmp_path, "v").records(keys) == before
    assert maintain.verify(tmp_path)[2] == []


def test_verify_names_every_damaged_line_and_a_stale_index(tmp_path) -> None:
    fill(tmp_path, "generations/m-1", verdicts("g", 20), chunk=10)
    f, g = data_files(tmp_path / "generations/m-1")
    lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
    f.write_text("".join(lines[:2]) + lines[2][:30] + "\n" + "".join(lines[3:]) + "{\"garbled\n", encoding="utf-8")
    n_files, n_records, problems = maintain.verify(tmp_path)
    text = "\n".join(map(str, problems))
    assert n_files == 2 and n_records == 19
    assert f"{f} line 3: damaged" in text and f"{f} line 11: damaged" in text
    assert f"{f.with_suffix('.idx')}: index unreadable or written for another size" in text
    assert str(g) not in text
    rows = maintain.stats(tmp_path)
    assert rows[0]["damaged"] == 2 and rows[0]["unindexed"] == 1 and rows[0]["keys"] == 19


def test_gc_keeps_what_runs_show_and_partitions_of_unfinished_runs(tmp_path) -> None:
    from medrealmm import runrecord

    store, out = tmp_path / "store", tmp_path / "out"
    kept, gone = verdicts("a", 30), verdicts("b", 30)
    fill(store, f"{JUDGE}/a-1", kept + gone[:10])
    fill(store, f"{JUDGE}/b-1", gone[10:])
    young = fill(store, f"{JUDGE}/c-1", verdicts("c", 5))
    old = time.time() - 72 * 3600
    for f in store.rglob("*.jsonl"):
        if f.parent != young.dir:
            os.utime(f, (old, old))
    (out / "runs" / "x" / "runs" / "r1").mkdir(parents=True)
    pl.DataFrame({"key": [r["key"] for r in kept]}).write_parquet(out / "runs/x/runs/r1/verdicts.parquet")
    refs = maintain.references([out])
    dry, _ = maintain.gc(store, refs, dry_run=True)
    assert sum(r.dropped for r in dry) == 30 and len(list(store.rglob("*.jsonl"))) == 7
    done, skipped = maintain.gc(store, refs)
    assert sum(r.dropped for r in done) == 30 and not skipped
    assert not (store / JUDGE / "b-1").exists()                      # emptied, removed
    assert Store(store, f"{JUDGE}/a-1").missing([r["key"] for r in kept + gone]) == [r["key"] for r in gone]
    assert len(Store(store, f"{JUDGE}/c-1")) == 5                    # too young to judge
    rec = runrecord.start(out / "runs" / "y", settings={"model": {"name": "a", "spec": "1" * 64},
                                                        "judge": {"name": "judge", "spec": "j" * 64}}, stages=[])
    rec.info["pid"] = -1                                             # killed: a rerun resumes from its records
    rec.write()
    fill(store, layout.verdict_kind("judge", "j" * 64, "a", "1" * 64), gone)
    done, skipped = maintain.gc(store, maintain.references([out]), min_age_s=0)
    assert skipped == [layout.verdict_kind("judge", "j" * 64, "a", "1" * 64)]
    with pytest.raises(FileNotFoundError):
        maintain.references([tmp_path / "nowhere"])


def test_migrate_moves_an_old_judge_folder_into_model_partitions(tmp_path) -> None:
    gens = {m: [{"key": stable_hash([m, "g", i]), "model": m} for i in range(10)] for m in ("a", "b")}
    for m, recs in gens.items():
        fill(tmp_path, f"generations/{m}-1", recs)
    for idx in tmp_path.rglob("*.idx"):
        idx.unlink()
    old = verdicts("a", 30) + verdicts("b", 30)
    orphan = [{"key": stable_hash(["x", i]), "generation_key": "unknown", "met": True} for i in range(3)]
    fill(tmp_path, JUDGE, old + orphan, chunk=7)
    for idx in tmp_path.rglob("*.idx"):
        idx.unlink()
    keys = [r["key"] for r in old + orphan]
    dry = maintain.migrate(tmp_path, dry_run=True)
    assert sum(sum(r.moved.values()) for r in dry) == 60 and len(data_files(tmp_path / JUDGE)) == 9
    done = maintain.migrate(tmp_path)
    assert {k: v for r in done for k, v in r.moved.items()} == {"a-1": 30, "b-1": 30}
    assert Store(tmp_path, f"{JUDGE}/a-1").records(keys) == verdicts("a", 30)
    assert Store(tmp_path, f"{JUDGE}/b-1").records(keys) == verdicts("b", 30)
    assert Store(tmp_path, f"{JUDGE}/b-1", legacy=JUDGE).records(keys) == verdicts("b", 30) + orphan
    assert all(f.with_suffix(".idx").exists() for f in tmp_path.rglob("*.jsonl"))      # everything indexed
    assert len(data_files(tmp_path / "generations/a-1")) == 1
    assert maintain.migrate(tmp_path)[0].moved == {}                                  # once is enough
    assert maintain.verify(tmp_path)[2] == []


def test_keys_an_index_cannot_hold_are_still_stored(tmp_path) -> None:
    s = Store(tmp_path, "v")
    s.put_many([rec("a b"), rec("c")])                    # white space in a key: no index, the file is scanned
    assert not list((tmp_path / "v").glob("*.idx"))
    assert Store(tmp_path, "v").records(["c", "a b"]) == [rec("c"), rec("a b")]


def test_verify_names_a_line_changed_behind_its_index(tmp_path) -> None:
    fill(tmp_path, "v", verdicts("a", 10), chunk=10)
    (f,) = data_files(tmp_path / "v")
    f.write_bytes(f.read_bytes().replace("符合标准 6".encode(), "不符标准 6".encode()))
    (problem,) = maintain.verify(tmp_path)[2]
    assert str(problem).startswith(f"{f} line 7: differs from its index")
