"""The store under kill -9 and concurrent writers (issue 19): real processes, really killed.

Each test runs writers and compactions in child processes and kills them with SIGKILL. Where the
moment matters, the child pins it: it wraps one system call (``os.replace``, ``os.unlink``) and
sends itself SIGKILL on its N-th call, before the call runs; the kill itself is the real signal,
with no cleanup of any kind in the child.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from medrealmm.store import Store, maintain

ROOT = Path(__file__).resolve().parents[1]
KIND = "verdicts/judge-0123456789ab/model-0123456789ab"

CHILD = r"""
import os, signal, sys, time
from pathlib import Path
from medrealmm.store import Store, maintain

action, root, kill_at = sys.argv[1], Path(sys.argv[2]), sys.argv[3]

def record(i):
    return {"key": f"{i:064x}", "case_id": f"case-{i // 9}", "rationale": "回复询问了发热时长，符合标准。" * 3,
            "met": i % 2 == 0, "error": None}

if kill_at != "none":                      # pin the kill: SIGKILL on the n-th call, before it runs
    name, n = kill_at.split(":")
    real, calls = getattr(os, name), [0]
    def pinned(*a, **k):
        calls[0] += 1
        if calls[0] == int(n):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*a, **k)
    setattr(os, name, pinned)

if action == "write":
    lo, hi, step = (int(x) for x in sys.argv[4:7])
    go = Path(sys.argv[7]) if len(sys.argv) > 7 else None
    while go is not None and not go.exists():
        time.sleep(0.001)
    s = Store(root, sys.argv[8] if len(sys.argv) > 8 else "KIND")
    order = range(lo, hi, 25) if step > 0 else range(hi - 25, lo - 1, -25)
    for start in order:
        s.put_many([record(i) for i in range(start, start + 25)])
elif action == "compact":
    maintain.compact(root, segment_bytes=int(sys.argv[4]), min_files=1)
""".replace('"KIND"', repr(KIND))


def record(i: int) -> dict:
    return {"key": f"{i:064x}", "case_id": f"case-{i // 9}", "rationale": "回复询问了发热时长，符合标准。" * 3,
            "met": i % 2 == 0, "error": None}


def child(*args: str, wait: bool = True) -> subprocess.Popen | subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", CHILD, *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


def lines_on_disk(folder: Path) -> list[str]:
    return [json.loads(line)["key"] for f in sorted(folder.glob("*.jsonl"))
            for line in f.read_text(encoding="utf-8").splitlines()]


def check_whole(root: Path, n: int) -> list[str]:
    """Every stored record is exactly what was written, nothing damaged; the keys present."""
    s = Store(root, KIND)
    keys = [f"{i:064x}" for i in range(n)]
    got = s.records(keys)
    assert got == [record(int(r["key"], 16)) for r in got]
    assert maintain.verify(root)[2] == []
    return [r["key"] for r in got]


def files_left(folder: Path) -> tuple[int, int, int]:
    return tuple(len(list(folder.glob(f"*{ext}"))) for ext in (".jsonl", ".idx", ".tmp"))   # type: ignore[return-value]


@pytest.mark.parametrize("kill_at, whole_chunks, left", [
    ("replace:1", 0, (0, 0, 2)),     # chunk 1 written to its temporary files: nothing published
    ("replace:2", 0, (0, 1, 1)),     # chunk 1's index published, its data file not: an orphan index, ignored
    ("replace:4", 1, (1, 2, 1)),     # chunk 2's index published, its data file about to be
    ("replace:7", 3, (3, 3, 2)),     # chunk 4's index about to be published
])
def test_kill_9_during_a_write_loses_and_duplicates_nothing(tmp_path, kill_at, whole_chunks, left) -> None:
    r = child("write", str(tmp_path), kill_at, "0", "200", "1")
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert files_left(tmp_path / KIND) == left
    present = check_whole(tmp_path, 200)
    assert len(present) == 25 * whole_chunks
    assert child("write", str(tmp_path), "none", "0", "200", "1").returncode == 0   # the rerun does the rest
    assert len(check_whole(tmp_path, 200)) == 200
    assert sorted(lines_on_disk(tmp_path / KIND)) == [f"{i:064x}" for i in range(200)]   # each exactly once


def test_kill_9_at_an_arbitrary_moment_of_a_write(tmp_path) -> None:
    folder = tmp_path / KIND
    proc = child("write", str(tmp_path), "none", "0", "20000", "1", wait=False)
    t0 = time.time()
    while len(list(folder.glob("*.jsonl"))) < 5 and proc.poll() is None and time.time() - t0 < 60:
        time.sleep(0.002)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    present = check_whole(tmp_path, 20000)
    assert 0 < len(present) < 20000 and len(present) % 25 == 0
    assert len(lines_on_disk(folder)) == len(present)


@pytest.mark.parametrize("kill_at, copies", [
    ("replace:1", 300),   # first compacted file not yet published
    ("replace:4", 374),   # one compacted file published, the second's index too, its data not
    ("unlink:3", 575),    # every compacted file published; the old chunks half deleted
])
def test_kill_9_during_compaction_loses_nothing(tmp_path, kill_at, copies) -> None:
    s = Store(tmp_path, KIND)
    for start in range(0, 300, 25):
        s.put_many([record(i) for i in range(start, start + 25)])
    before = check_whole(tmp_path, 300)
    r = child("compact", str(tmp_path), kill_at, "20000")   # ~4 compacted files of ~20 kB
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert len(lines_on_disk(tmp_path / KIND)) == copies     # where it stopped: records held twice, not lost
    assert check_whole(tmp_path, 300) == before
    assert maintain.compact(tmp_path, segment_bytes=1 << 20)                 # finishes the job
    assert check_whole(tmp_path, 300) == before
    assert sorted(lines_on_disk(tmp_path / KIND)) == sorted(before)          # each exactly once
    assert len(list((tmp_path / KIND).glob("*.jsonl"))) == 1


def test_two_processes_write_the_same_partition_at_once(tmp_path) -> None:
    go = tmp_path / "go"
    a = child("write", str(tmp_path), "none", "0", "1500", "1", str(go), wait=False)
    b = child("write", str(tmp_path), "none", "500", "2000", "-1", str(go), wait=False)   # from the other end
    time.sleep(0.5)          # both started and waiting
    go.touch()
    for p in (a, b):
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert len(check_whole(tmp_path, 2000)) == 2000
    keys = lines_on_disk(tmp_path / KIND)
    assert set(keys) == {f"{i:064x}" for i in range(2000)} and len(keys) <= 3000   # overlap written at most twice
    maintain.compact(tmp_path, segment_bytes=1 << 20)
    assert sorted(lines_on_disk(tmp_path / KIND)) == [f"{i:064x}" for i in range(2000)]
    assert len(check_whole(tmp_path, 2000)) == 2000
