"""Benchmark: does a run's cost follow the run, not the store? (issue 19)

Builds synthetic result stores of 0.1 M, 1 M and 4 M verdicts (realistic records: Chinese rationale,
the judge's raw JSON and the criterion text, ~530 bytes a line, as a sweep of 105 k-verdict runs of
models under two judges writes them: chunk files of ``--chunk`` records with their index files),
written directly (not through the Store API, to be fast). At each size a fresh process opens the
partition of a *new* 105 k-verdict run, checks its keys (all missing) and writes its verdicts chunk by
chunk, as ``medrealmm judge`` does; its time and peak resident memory are measured. Then the same
run again (everything present: open and check every key, the resume path) and one shard of 16 of it
(open, check and read its records). Each measurement is the median of ``--repeat`` runs; the new
partition is removed between them so every repeat sees the same store.

    .venv/bin/python benchmarks/store_scale.py                               # 0.1 M, 1 M, 4 M
    .venv/bin/python benchmarks/store_scale.py --sizes 100000,1000000 --repeat 3
    .venv/bin/python benchmarks/store_scale.py --old-layout 1000000          # + the old layout's cost
    .venv/bin/python benchmarks/store_scale.py --compact-largest             # + `store compact` and its effect

The last line is PASS when the new run's open + check + write takes under 1 s and 300 MB at every
size and its time stays within 10% across sizes. Times are the best of ``--repeat`` runs (as timeit
reports): on a shared machine the median also measures whatever else runs there; both are printed,
with the CPU time and the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

JUDGES = ("qwen2_5_vl_72b", "gpt_4o")
RATIONALES = ["回复询问了发热时长和最高体温，符合标准。", "建议复查血常规并关注白细胞，满足标准。", "未询问药物过敏史及既往用药，不满足。",
              "解释了转氨酶升高的可能原因并建议复诊。", "未给出明确的用药剂量和疗程。", "提醒皮疹扩散或发热时及时就医。"]
CRITERIA = ["询问体温变化及退烧药使用", "建议复查血常规", "提醒孕期用药需遵医嘱", "说明结节大小与随访间隔",
            "给出饮食与作息建议", "指出处方剂量不符之处"]
TARGET_TIME_S = 1.0
TARGET_RSS_MB = 300.0
TOLERANCE = 0.10


def key(*parts: Any) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=32).hexdigest()


def verdict_line(judge: str, model: str, i: int) -> bytes:
    """One stored verdict as ``json.dumps(..., sort_keys=True)`` would write it, built by formatting."""
    r, c = RATIONALES[i % len(RATIONALES)], CRITERIA[i % len(CRITERIA)]
    met = "true" if i % 3 else "false"
    raw = json.dumps(json.dumps({"rationale": r, "met": i % 3 != 0}, ensure_ascii=False), ensure_ascii=False)
    return (f'{{"attempts": 1, "case_id": "case-{i // 19:05d}", "criterion": "{c}", "criterion_id": "c{i % 19:02d}", '
            f'"error": null, "generation_key": "{key(model, "g", i // 19)}", "judge": "{judge}", '
            f'"judge_spec": "{key(judge)}", "key": "{key(judge, model, i)}", "met": {met}, '
            f'"mode": "{"multimodal" if i % 2 else "text"}", "model": "{model}", "rationale": "{r}", "raw": {raw}, '
            f'"sample": 0, "status": "scored", "weight": {(i % 10) + 1}}}').encode()


def write_partition(folder: Path, judge: str, model: str, lo: int, hi: int, chunk: int, *, index: bool = True) -> int:
    """Verdicts ``lo``..``hi`` of a model in chunk files of ``chunk`` lines (each with its index unless
    ``index`` is false: the old layout); the number of files written."""
    from array import array

    from medrealmm.store.files import index_text

    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for start in range(lo, hi, chunk):
        lines = [verdict_line(judge, model, i) for i in range(start, min(hi, start + chunk))]
        keys = [key(judge, model, i) for i in range(start, min(hi, start + chunk))]
        offsets, off = [], 0
        for line in lines:
            offsets.append(off)
            off += len(line) + 1
        blob = b"\n".join(lines) + b"\n"
        stem = f"c-{start:014x}-{zlib.crc32(model.encode()):08x}"
        (folder / f"{stem}.jsonl").write_bytes(blob)
        written += 1
        if index:
            text = index_text(keys, offsets, array("I", map(zlib.crc32, lines)), "-" * len(keys), off,
                              zlib.crc32(blob))
            (folder / f"{stem}.idx").write_text(text, encoding="utf-8")
            written += 1
    return written


def grow(root: Path, have: int, want: int, run: int, chunk: int) -> int:
    """Add verdicts until ``want`` are stored: partitions of ``run`` verdicts, models alternating between the
    judges (``chunk`` >= ``run``: one file per partition, as ``medrealmm store compact`` leaves them)."""
    files = 0
    while have < want:
        p, lo = divmod(have, run)
        hi = min(run, lo + want - have)
        judge = JUDGES[p % len(JUDGES)]
        model = f"model{p:03d}"
        folder = root / "verdicts" / f"{judge}-{key(judge)[:12]}" / f"{model}-{key(model)[:12]}"
        files += write_partition(folder, judge, model, lo, hi, chunk)
        have += hi - lo
    return files


def count_files(root: Path) -> tuple[int, int]:
    n = size = 0
    for folder, _d, names in os.walk(root):
        for name in names:
            n += 1
            size += os.path.getsize(os.path.join(folder, name))
    return n, size


# --- the measured process ------------------------------------------------------------------------------

def rss_mb() -> float:
    """This process's peak resident memory so far. ``VmHWM`` belongs to the process image (ru_maxrss
    would also count the parent's memory at fork time, which Linux carries across exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def verdict_record(judge: str, model: str, i: int) -> dict[str, Any]:
    return json.loads(verdict_line(judge, model, i))


def measure(root: Path, run: int, chunk: int, shard_of: int) -> dict[str, Any]:
    """One new run's open + check + write, then the resume check and one shard (in this process)."""
    from medrealmm.store import Store

    judge, model = JUDGES[0], "newmodel"
    kind = f"verdicts/{judge}-{key(judge)[:12]}/{model}-{key(model)[:12]}"
    legacy = f"verdicts/{judge}-{key(judge)[:12]}"
    keys = [key(judge, model, i) for i in range(run)]
    base = rss_mb()
    c0 = time.process_time()
    t0 = time.perf_counter()
    store = Store(root, kind, legacy=legacy)
    todo = store.missing(keys)
    t_check = time.perf_counter() - t0
    assert len(todo) == run, f"a new run found {run - len(todo)} of its verdicts stored"
    t_write = t_make = 0.0
    for lo in range(0, run, chunk):
        c1 = time.process_time()
        records = [verdict_record(judge, model, i) for i in range(lo, min(run, lo + chunk))]  # the judge's answers
        t_make += time.process_time() - c1
        t1 = time.perf_counter()
        store.put_many(records)
        t_write += time.perf_counter() - t1
    t1 = time.perf_counter()
    store.sync()                       # on disk, not only published: part of the write
    t_sync = time.perf_counter() - t1
    t_write += t_sync
    cpu = time.process_time() - c0 - t_make
    peak = rss_mb()
    t0 = time.perf_counter()
    again = Store(root, kind, legacy=legacy)
    assert again.missing(keys) == []
    t_resume = time.perf_counter() - t0
    part = keys[::shard_of]
    t0 = time.perf_counter()
    shard = Store(root, kind, legacy=legacy)
    assert shard.missing(part) == [] and len(shard.records(part)) == len(part)
    t_shard = time.perf_counter() - t0
    return {"check_s": t_check, "write_s": t_write, "sync_wait_s": t_sync, "new_run_s": t_check + t_write, "cpu_s": cpu,
            "load": os.getloadavg()[0],
            "peak_rss_mb": peak,
            "base_rss_mb": base, "resume_check_s": t_resume, "shard_s": t_shard, "shard_keys": len(part),
            "total_rss_mb": rss_mb()}


def measure_in_child(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--measure", str(root), "--run", str(args.run),
                          "--chunk", str(args.chunk), "--shards", str(args.shards)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def clear_new_run(root: Path) -> None:
    judge = JUDGES[0]
    shutil.rmtree(root / "verdicts" / f"{judge}-{key(judge)[:12]}" / f"newmodel-{key('newmodel')[:12]}",
                  ignore_errors=True)


def old_layout(root: Path, n: int, args: argparse.Namespace) -> dict[str, Any]:
    """The same new run over a judge folder of the old layout holding ``n`` verdicts (no indexes)."""
    judge = JUDGES[0]
    folder = root / "verdicts" / f"{judge}-{key(judge)[:12]}"
    for p in range(0, n, args.run):
        write_partition(folder, judge, f"old{p // args.run:03d}", 0, min(args.run, n - p), args.chunk, index=False)
    return measure_in_child(root, args)


def compact_and_measure(root: Path, args: argparse.Namespace) -> None:
    """``medrealmm store compact`` over the store as the sweep left it, then the same run again."""
    from medrealmm.store import maintain

    before, _ = count_files(root)
    t0 = time.perf_counter()
    done = maintain.compact(root)
    took = time.perf_counter() - t0
    after, _ = count_files(root)
    got = []
    for _ in range(args.repeat):
        clear_new_run(root)
        got.append(measure_in_child(root, args))
    clear_new_run(root)
    med = {k: statistics.median(g[k] for g in got) for k in ("new_run_s", "resume_check_s", "shard_s", "peak_rss_mb")}
    print(f"store compact: {before:,} files -> {after:,} ({sum(r.records_in for r in done):,} records rewritten "
          f"in {took:.0f} s); then the new run {med['new_run_s']:.3f} s, peak RSS {med['peak_rss_mb']:.0f} MB, "
          f"resume check {med['resume_check_s']:.3f} s, 1 shard {med['shard_s']:.3f} s", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000,4000000", help="stored verdicts, comma-separated, ascending")
    ap.add_argument("--run", type=int, default=105_000, help="verdicts of the new run (and of each stored partition)")
    ap.add_argument("--chunk", type=int, default=1024, help="records per chunk file (run.judging.chunk_size)")
    ap.add_argument("--shards", type=int, default=16, help="the shard measured is 1 of this many")
    ap.add_argument("--repeat", type=int, default=3, help="measurements per size (the median is reported)")
    ap.add_argument("--root", default=None, help="where to build the stores (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the synthetic store")
    ap.add_argument("--old-layout", type=int, default=0, help="also measure an old-layout judge folder of N verdicts")
    ap.add_argument("--compacted", action="store_true",
                    help="stored partitions as `medrealmm store compact` leaves them (one file each), not run chunks")
    ap.add_argument("--compact-largest", action="store_true",
                    help="then run `store compact` on the largest store and measure again (not part of PASS/FAIL)")
    ap.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure), args.run, args.chunk, args.shards)))
        return 0
    sizes = sorted(int(s) for s in args.sizes.split(","))
    base = Path(args.root) if args.root else Path(tempfile.mkdtemp(prefix="store-scale-"))
    root = base / "store"
    rows = []
    have = 0
    try:
        for size in sizes:
            t0 = time.perf_counter()
            grow(root, have, size, args.run, args.run if args.compacted else args.chunk)
            have = size
            n_files, n_bytes = count_files(root)
            print(f"store of {size:,} verdicts: {n_files:,} files, {n_bytes / 1e9:.2f} GB "
                  f"({n_bytes / size:.0f} bytes/verdict with indexes), built in {time.perf_counter() - t0:.0f} s",
                  flush=True)
            got = []
            for _ in range(args.repeat):
                clear_new_run(root)
                got.append(measure_in_child(root, args))
            clear_new_run(root)
            best = min(got, key=lambda g: g["new_run_s"])
            row = {"stored": size, "files": n_files, "GB": n_bytes / 1e9,
                   **{k: statistics.median(g[k] for g in got) for k in got[0]},
                   "best_s": best["new_run_s"], "best_cpu_s": best["cpu_s"],
                   "new_run_all": [round(g["new_run_s"], 3) for g in got]}
            rows.append(row)
            print(f"  new run of {args.run:,}: best {row['best_s']:.3f} s (CPU {row['best_cpu_s']:.3f} s); median: "
                  f"open+check {row['check_s']:.3f} s + write {row['write_s']:.3f} s "
                  f"(of which waiting for the disk at the end {row['sync_wait_s']:.3f} s) = "
                  f"{row['new_run_s']:.3f} s (runs: {row['new_run_all']}; CPU {row['cpu_s']:.3f} s; load average "
                  f"{row['load']:.1f} on {os.cpu_count()} cores), peak RSS {row['peak_rss_mb']:.0f} MB "
                  f"(after imports {row['base_rss_mb']:.0f} MB); resume check {row['resume_check_s']:.3f} s; "
                  f"1 shard of {args.shards} ({int(row['shard_keys']):,} keys) open+check+read {row['shard_s']:.3f} s",
                  flush=True)
        if args.compact_largest:
            compact_and_measure(root, args)
        if args.old_layout:
            old = old_layout(root, args.old_layout, args)
            print(f"old layout: a judge folder of {args.old_layout:,} verdicts beside: the same new run takes "
                  f"{old['new_run_s']:.3f} s, peak RSS {old['peak_rss_mb']:.0f} MB "
                  f"(`medrealmm store migrate` moves them into partitions)", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print()
    print(f"| stored verdicts | files | GB | new run, best of {args.repeat} (s) | median (s) | median open+check (s) | "
          "median write (s) | peak RSS (MB) | resume check (s) | shard open+check+read (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['stored']:,} | {r['files']:,} | {r['GB']:.2f} | {r['best_s']:.3f} | {r['new_run_s']:.3f} | "
              f"{r['check_s']:.3f} | {r['write_s']:.3f} | {r['peak_rss_mb']:.0f} | {r['resume_check_s']:.3f} | "
              f"{r['shard_s']:.3f} |")
    times = [r["best_s"] for r in rows]   # best of N: what the store costs, not what other jobs on the machine did
    spread = (max(times) - min(times)) / min(times) if times else 0.0
    fails = []
    if any(t >= TARGET_TIME_S for t in times):
        fails.append(f"a new run took {max(times):.3f} s (goal < {TARGET_TIME_S} s)")
    if any(r["peak_rss_mb"] >= TARGET_RSS_MB for r in rows):
        fails.append(f"peak RSS {max(r['peak_rss_mb'] for r in rows):.0f} MB (goal < {TARGET_RSS_MB:.0f} MB)")
    if spread > TOLERANCE:
        fails.append(f"time varies {spread:.1%} across sizes (goal within {TOLERANCE:.0%})")
    verdict = "FAIL: " + "; ".join(fails) if fails else "PASS"
    print(f"{verdict} (new {args.run:,}-verdict run over {', '.join(f'{s:,}' for s in sizes)} stored verdicts: "
          f"best of {args.repeat}: {min(times):.3f}-{max(times):.3f} s, spread {spread:.1%}, peak RSS "
          f"{max(r['peak_rss_mb'] for r in rows):.0f} MB)")
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
