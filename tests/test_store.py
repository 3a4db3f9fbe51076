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
    lines = [l for f in (tmp_path / "v/x").glob("*.jsonl") for l in f.read_text().splitlines()]
    assert sorted(json.loads(l)["key"] for l in lines) == ["a", "b", "c"]


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
