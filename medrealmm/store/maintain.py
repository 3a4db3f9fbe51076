"""Upkeep of the result store: ``medrealmm store stats|verify|compact|gc|migrate``.

Every command works one partition (a folder of data files) at a time, so its memory follows the
largest partition, not the store (gc also holds one 8-byte id per referenced key, migrate one entry per
stored reply). The commands that change files (compact, gc, migrate) only ever
add whole files (temporary name, fsync, rename) and then delete files whose records they have
copied; a process killed at any point leaves every record readable (at worst twice, and reading
resolves duplicates) and the command can simply be run again. They may run while runs write: a
file written after the command listed the folder is not touched, and a run that finds a file gone
reads the folder again. No file locks are used (NFS and Lustre do not honour them reliably).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.store import files, layout
from medrealmm.store.core import Index, data_files, index_folder
from medrealmm.store.files import DATA, INDEX, TMP, Damage

log = logging.getLogger("medrealmm.store")


# --- partitions ----------------------------------------------------------------------------------------

def partitions(root: Path, only: str | None = None) -> list[Path]:
    """Every folder under ``root`` (or ``root/only``) that holds store files, in path order."""
    base = root / only if only else root
    if not base.is_dir():
        raise FileNotFoundError(f"no store folder {base}")
    found = []
    for folder, _dirs, names in os.walk(base):
        if any(n.endswith((DATA, INDEX, TMP)) for n in names):
            found.append(Path(folder))
    return sorted(found)


def is_legacy(root: Path, folder: Path) -> bool:
    """A judge folder with records of its own: the old layout (every model in one folder)."""
    rel = folder.relative_to(root).parts
    return len(rel) == 2 and rel[0] == "verdicts"


def folder_index(folder: Path, *, clean: bool = False) -> Index:
    index = Index()
    index_folder(index, folder, collect=True, clean=clean)
    return index


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def render(rows: list[dict[str, Any]], cols: list[str]) -> str:
    """A plain aligned table (what the commands print)."""
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) if rows else len(c) for c in cols}
    lines = ["  ".join(c.ljust(widths[c]) for c in cols), "  ".join("-" * widths[c] for c in cols)]
    lines += ["  ".join(str(r.get(c, "")).ljust(widths[c]) for c in cols) for r in rows]
    return "\n".join(lines)


# --- stats ---------------------------------------------------------------------------------------------

def leftovers(folder: Path) -> int:
    """Temporary files and index files without their data file (left by killed writers)."""
    names = [e.name for e in os.scandir(folder)]
    stems = {n[: -len(DATA)] for n in names if n.endswith(DATA)}
    return sum(1 for n in names if n.endswith(TMP) or (n.endswith(INDEX) and n[: -len(INDEX)] not in stems))


def stats(root: Path, only: str | None = None) -> list[dict[str, Any]]:
    """Counts per partition, from the index files (data files are read only where they have none)."""
    rows = []
    for folder in partitions(root, only):
        index = folder_index(folder)
        rows.append({"partition": str(folder.relative_to(root)) + (" (old layout)" if is_legacy(root, folder) else ""),
                     "files": len(index.files), "unindexed": sum(1 for f in index.files if not f.indexed),
                     "records": index.records, "keys": len(index.locs),
                     "errors": len(index.errors),
                     "duplicates": index.records - len(index.locs), "damaged": len(index.damaged),
                     "MB": _mb(sum(f.size for f in index.files)), "leftovers": leftovers(folder)})
    return rows


STATS_COLUMNS = ["partition", "files", "unindexed", "records", "keys", "errors", "duplicates", "damaged", "MB",
                 "leftovers"]


def stats_report(rows: list[dict[str, Any]], root: Path) -> str:
    total = {c: sum(int(r[c]) for r in rows) for c in ("files", "records", "keys", "errors", "duplicates", "damaged")}
    mb = sum(float(r["MB"]) for r in rows)
    tail = (f"\n\n{len(rows)} partitions, {total['files']} data files, {total['keys']} keys "
            f"({total['records']} records, {total['duplicates']} duplicates, {total['errors']} engine errors, "
            f"{total['damaged']} damaged lines), {mb:.1f} MB in {root}")
    if any("old layout" in r["partition"] for r in rows):
        tail += "\nold-layout judge folders found: run `medrealmm store migrate` once"
    return render(rows, STATS_COLUMNS) + tail


# --- verify --------------------------------------------------------------------------------------------

def verify_file(path: Path) -> tuple[int, list[Damage]]:
    """Decode every line of a data file and check its index against it: (records, problems)."""
    problems: list[Damage] = []
    keys, data = files.scan(path, problems)
    idx_path = path.with_suffix(INDEX)
    if idx_path.exists():
        got = files.read_index(idx_path, path.stat().st_size)
        if got is None:
            problems.append(Damage(idx_path, 0, "index unreadable or written for another size of its data file "
                                                "(the data file is scanned on every open; `store compact` rewrites it)"))
        else:
            ikeys, idata = got
            for i in range(max(len(keys), len(ikeys))):
                same = (i < len(keys) and i < len(ikeys) and keys[i] == ikeys[i] and data.span(i) == idata.span(i)
                        and data.crc(i) == idata.crc(i) and data.flags[i] == idata.flags[i])
                if not same:
                    line = data.line(i) if i < len(keys) else data.line(len(keys) - 1) + 1 if keys else 1
                    problems.append(Damage(path, line, f"differs from its index {idx_path.name} from here on (changed "
                                                       "after it was written; `store compact` rewrites it)"))
                    break
    return len(keys), problems


def verify(root: Path, only: str | None = None) -> tuple[int, int, list[Damage]]:
    """Every record of every data file: (files, records, problems), each problem named by file and line."""
    n_files = n_records = 0
    problems: list[Damage] = []
    for folder in partitions(root, only):
        for path in data_files(folder, clean=False):
            n, found = verify_file(path)
            n_files += 1
            n_records += n
            problems += found
    return n_files, n_records, problems


# --- rewriting (compact, gc, migrate) ------------------------------------------------------------------

DROP = object()   # ``route``: the record is not copied (its target already holds it)


@dataclass
class Rewrite:
    """What one rewrite of a partition did (or, in a dry run, would do)."""

    folder: Path
    files_in: int = 0
    records_in: int = 0
    kept: int = 0
    bytes_in: int = 0
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    moved: dict[str, int] = field(default_factory=dict)   # migrate: records per partition they went to

    @property
    def dropped(self) -> int:
        return self.records_in - self.kept

    def row(self, root: Path) -> dict[str, Any]:
        return {"partition": str(self.folder.relative_to(root)), "files": self.files_in,
                "new files": len(self.written), "records": self.records_in, "kept": self.kept,
                "dropped": self.dropped, "MB": _mb(self.bytes_in)}


REWRITE_COLUMNS = ["partition", "files", "new files", "records", "kept", "dropped", "MB"]


def remove_files(paths: Iterable[Path]) -> list[Path]:
    """Delete data files, each before its index (an index without data is ignored); those removed."""
    gone = []
    for p in paths:
        try:
            p.unlink()
            gone.append(p)
        except FileNotFoundError:   # another compaction got there first
            pass
        p.with_suffix(INDEX).unlink(missing_ok=True)
    return gone


def _winners(index: Index, chosen: set[int]) -> dict[int, list[tuple[str, int]]]:
    """The records of the chosen files that win among duplicates: (key, record number) per file, in order."""
    by_file: dict[int, list[tuple[str, int]]] = {i: [] for i in chosen}
    for k, loc in index.locs.items():
        f = loc >> 32
        if f in chosen:
            by_file[f].append((k, loc & 0xFFFFFFFF))
    for entries in by_file.values():
        entries.sort(key=lambda kr: kr[1])
    return by_file


def rewrite(folder: Path, index: Index, chosen: list[Path], *, keep: Callable[[str], bool], segment_bytes: int,
            dry_run: bool, route: Callable[[str, bytes], Any] | None = None) -> Rewrite:
    """Copy the records of ``chosen`` (files of ``folder``) that win among duplicates and that ``keep``
    accepts into new files of up to ``segment_bytes``, then delete ``chosen``. ``route`` may send a
    record elsewhere instead (migrate): it returns another folder's writer, None (this folder) or DROP.

    Crash-safe: new files are published whole before any chosen file is deleted. A record that lost to
    a duplicate in a file not chosen is left out, so reading the folder gives the same records after."""
    numbers = {f.path: i for i, f in enumerate(index.files)}
    chosen_no = {numbers[p] for p in chosen}
    result = Rewrite(folder, files_in=len(chosen_no),
                     records_in=sum(index.files[i].records + index.files[i].damaged for i in chosen_no),
                     bytes_in=sum(index.files[i].size for i in chosen_no))
    first = min((p.name[: -len(DATA)] for p in chosen), default="s")
    own = files.SegmentWriter(folder, first, segment_bytes, dry_run=dry_run)
    writers: dict[Path, files.SegmentWriter] = {folder: own}

    def copy(k: str, df: files.DataFile, r: int, data: bytes) -> list[str]:
        """Copy one record; a damaged one gives way to another copy of its key (returned to be copied)."""
        if files.crc(data) != df.crc(r):
            log.warning("store: %s line %d is damaged (changed since it was indexed); left out", df.path, df.line(r))
            return [k] if index.drop(k) else []
        if not keep(k):
            return []
        target = route(k, data) if route is not None else None
        if target is DROP:
            return []
        writer = own if target is None else target
        writers.setdefault(writer.folder, writer)
        writer.add(k, data, df.flags[r] == "e")
        result.kept += 1
        if writer is not own:
            result.moved[writer.folder.name] = result.moved.get(writer.folder.name, 0) + 1
        return []

    by_file = _winners(index, chosen_no)
    try:
        late: list[str] = []
        for i in sorted(chosen_no, key=lambda i: index.files[i].path.name):
            df, entries = index.files[i], by_file[i]
            for j, data in files.read_spans(df.path, [df.span(r) for _k, r in entries]):
                late += copy(entries[j][0], df, entries[j][1], data)
        while late:   # damaged winners: their other copies, where those are in the chosen files too
            k = late.pop()
            loc = index.locs.get(k)
            if loc is not None and loc >> 32 in chosen_no:
                df, r = index.files[loc >> 32], loc & 0xFFFFFFFF
                late += copy(k, df, r, next(files.read_spans(df.path, [df.span(r)]))[1])
        for w in writers.values():
            result.written += w.finish()
    except BaseException:
        for w in writers.values():
            w.abort()
            remove_files(w.written)   # every record in them is still in the chosen files
        raise
    if not dry_run:
        result.removed = remove_files(chosen)
    return result


# --- compact -------------------------------------------------------------------------------------------

def compact_folder(folder: Path, *, segment_bytes: int, min_files: int, dry_run: bool) -> Rewrite | None:
    """Merge the folder's small files (and any without an index or with damaged lines) into few."""
    index = folder_index(folder, clean=not dry_run)
    small = [f for f in index.files if f.size < segment_bytes // 2 or not f.indexed or f.damaged]
    if not small or (len(small) < min_files and all(f.indexed and not f.damaged for f in small)):
        return None
    return rewrite(folder, index, [f.path for f in small], keep=lambda _k: True, segment_bytes=segment_bytes,
                   dry_run=dry_run)


def compact(root: Path, only: str | None = None, *, segment_bytes: int = 64 << 20, min_files: int = 2,
            dry_run: bool = False) -> list[Rewrite]:
    """Compact every partition that needs it; what was done per partition."""
    done = []
    for folder in partitions(root, only):
        r = compact_folder(folder, segment_bytes=segment_bytes, min_files=min_files, dry_run=dry_run)
        if r is not None:
            log.info("store: %s: %d files -> %d (%d records kept of %d)", folder, r.files_in, len(r.written),
                     r.kept, r.records_in)
            done.append(r)
    return done


# --- gc ------------------------------------------------------------------------------------------------

def _key_ids(keys: list[str]) -> Any:
    """60-bit integer ids of keys (their first 15 hex digits; other keys hashed), as a numpy array: a
    set of millions of them fits in tens of MB. Two keys sharing an id can only keep a record, never
    remove one."""
    import hashlib

    import numpy as np
    import polars as pl

    s = pl.Series(keys, dtype=pl.String)
    hexed = s.str.contains("^[0-9a-f]{15}")
    ids = s.str.slice(0, 15).str.to_integer(base=16, strict=False).to_numpy().astype(np.int64, copy=True)
    mask = hexed.to_numpy()
    for i in np.flatnonzero(~mask):
        ids[i] = int(hashlib.sha256(keys[i].encode()).hexdigest()[:15], 16)
    return ids


@dataclass
class References:
    """What the runs under the outputs folders still show: the keys in their tables, and the partitions
    of runs that are not finished (running, killed or failed: a rerun resumes from their records)."""

    ids: Any                     # sorted unique key ids (numpy int64)
    protected: set[str]          # partition paths relative to the store
    tables: int = 0
    unfinished: list[str] = field(default_factory=list)

    def kept(self, keys: list[str]) -> set[str]:
        import numpy as np

        if not keys:
            return set()
        hit = np.isin(_key_ids(keys), self.ids)
        return {k for k, h in zip(keys, hit, strict=True) if h}


def _runs_root(outputs: Path) -> Path:
    return outputs / "runs" if (outputs / "runs").is_dir() else outputs


def references(outputs: list[Path]) -> References:
    """The keys of every ``generations.parquet`` and ``verdicts.parquet`` under ``<outputs>/runs`` (run
    records and shard folders), and the partitions of every unfinished run record there."""
    import numpy as np
    import polars as pl

    from medrealmm import runrecord

    chunks = []
    tables = 0
    protected: set[str] = set()
    unfinished = []
    for out in outputs:
        root = _runs_root(out)
        if not root.is_dir():
            raise FileNotFoundError(f"no outputs folder {out}")
        for name in ("generations.parquet", "verdicts.parquet"):
            for f in sorted(root.rglob(name)):
                keys = pl.read_parquet(f, columns=["key"])["key"].drop_nulls().to_list()
                chunks.append(_key_ids(keys))
                tables += 1
        for rec in runrecord.records(root):
            if rec.status == "finished":
                continue
            model, judge = rec.settings.get("model") or {}, rec.settings.get("judge") or {}
            if model.get("name") and model.get("spec"):
                protected.add(layout.generation_kind(model["name"], model["spec"]))
                if judge.get("name") and judge.get("spec"):
                    protected.add(layout.verdict_kind(judge["name"], judge["spec"], model["name"], model["spec"]))
                    protected.add(layout.judge_kind(judge["name"], judge["spec"]))
            unfinished.append(f"{rec.id} ({rec.status})")
    ids = np.unique(np.concatenate(chunks)) if chunks else np.zeros(0, dtype=np.int64)
    return References(ids=ids, protected=protected, tables=tables, unfinished=unfinished)


def _to_drop(index: Index, kept: set[str], old: set[int]) -> list[Path]:
    """The old files holding anything gc removes: an unreferenced record, a losing duplicate, a damaged line."""
    winners: dict[int, int] = {}
    dirty: set[int] = set()
    for k, loc in index.locs.items():
        f = loc >> 32
        winners[f] = winners.get(f, 0) + 1
        if f in old and k not in kept:
            dirty.add(f)
    for i in old:
        data = index.files[i]
        if data.damaged or data.records != winners.get(i, 0):
            dirty.add(i)
    return [index.files[i].path for i in sorted(dirty)]


def gc_folder(folder: Path, refs: References, *, min_age_s: float, segment_bytes: int, dry_run: bool) -> Rewrite | None:
    index = folder_index(folder, clean=not dry_run)
    now = time.time()
    old = {i for i, f in enumerate(index.files) if now - f.path.stat().st_mtime >= min_age_s}
    kept = refs.kept(list(index.locs))
    chosen = _to_drop(index, kept, old)
    if not chosen:
        return None
    return rewrite(folder, index, chosen, keep=kept.__contains__, segment_bytes=segment_bytes, dry_run=dry_run)


def remove_empty(root: Path, folder: Path) -> None:
    """Remove ``folder`` and its empty parents up to the store's kind folders, once nothing is left in them."""
    while folder != root and folder.parent != root:
        try:
            folder.rmdir()
        except OSError:   # not empty (or gone)
            return
        folder = folder.parent


def gc(root: Path, refs: References, *, only: str | None = None, min_age_s: float = 48 * 3600,
       segment_bytes: int = 64 << 20, dry_run: bool = False) -> tuple[list[Rewrite], list[str]]:
    """Remove the records no run under the outputs references (see :class:`References`); returns what was
    (or would be) rewritten per partition, and the partitions kept whole because a run there is unfinished."""
    done, skipped = [], []
    for folder in partitions(root, only):
        rel = str(folder.relative_to(root))
        if rel in refs.protected:
            skipped.append(rel)
            continue
        r = gc_folder(folder, refs, min_age_s=min_age_s, segment_bytes=segment_bytes, dry_run=dry_run)
        if r is None:
            continue
        done.append(r)
        if not dry_run and not data_files(folder, clean=False):
            remove_empty(root, folder)
    return done, skipped


# --- migrate -------------------------------------------------------------------------------------------

def generation_partitions(root: Path) -> dict[str, str]:
    """Every stored reply's key -> the name of its generations partition (``<model>-<spec12>``), which is
    also the name of the verdict partition of its verdicts under any judge."""
    owner: dict[str, str] = {}
    base = root / "generations"
    if not base.is_dir():
        return owner
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        for k in folder_index(folder).locs:
            owner.setdefault(k, folder.name)
    return owner


def migrate_judge(folder: Path, owner: dict[str, str], *, segment_bytes: int, dry_run: bool) -> Rewrite:
    """Move an old-layout judge folder's records into its per-model partitions; those whose reply is
    not in the store stay in the judge folder (compacted and indexed: still read, cheaply)."""
    index = folder_index(folder, clean=not dry_run)
    writers: dict[str, files.SegmentWriter] = {}
    present: dict[str, Index] = {}

    def route(key: str, data: bytes) -> Any:
        rec = files.decode(data)
        part = owner.get(rec.get("generation_key", "")) if rec else None
        if part is None:
            return None
        if part not in present:
            present[part] = folder_index(folder / part) if (folder / part).is_dir() else Index()
        loc = present[part].locs.get(key)
        if loc is not None and (key not in present[part].errors or (rec or {}).get("error")):
            return DROP
        if part not in writers:
            if not dry_run:
                (folder / part).mkdir(exist_ok=True)
            writers[part] = files.SegmentWriter(folder / part, "m", segment_bytes, dry_run=dry_run)
        return writers[part]

    own = [f.path for f in index.files]
    return rewrite(folder, index, own, keep=lambda _k: True, segment_bytes=segment_bytes, dry_run=dry_run,
                   route=route)


def migrate(root: Path, *, segment_bytes: int = 64 << 20, dry_run: bool = False) -> list[Rewrite]:
    """Bring a store of the old layout to the partitioned one, once: verdicts into per-model partitions,
    old chunk files compacted and indexed. Safe to interrupt and to run again."""
    done = []
    judges = sorted(p for p in (root / "verdicts").iterdir() if p.is_dir()) if (root / "verdicts").is_dir() else []
    legacy = [j for j in judges if any(n.endswith(DATA) for n in os.listdir(j))]
    if legacy:
        owner = generation_partitions(root)
        for folder in legacy:
            r = migrate_judge(folder, owner, segment_bytes=segment_bytes, dry_run=dry_run)
            log.info("store: %s: %d records moved to %d model partitions, %d stay (their reply is not in the store)",
                     folder, sum(r.moved.values()), len(r.moved), r.kept - sum(r.moved.values()))
            done.append(r)
    if (root / "generations").is_dir():
        for folder in partitions(root, "generations"):
            index = folder_index(folder, clean=not dry_run)
            unindexed = [f.path for f in index.files if not f.indexed or f.damaged]
            if unindexed:
                done.append(rewrite(folder, index, unindexed, keep=lambda _k: True, segment_bytes=segment_bytes,
                                    dry_run=dry_run))
    return done
