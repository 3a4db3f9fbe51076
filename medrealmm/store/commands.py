"""``medrealmm store <action>``: the store's upkeep from the command line (settings: ``conf/store``).

* ``stats``    records, keys, duplicates, engine errors, files and size per partition (from the indexes)
* ``verify``   decode every record and check every index; each damaged line named by file and line;
               exit status 1 when any is found
* ``compact``  merge each partition's small chunk files into few large ones (crash-safe)
* ``gc``       remove the records that no run under the outputs still shows (``store.dry_run=true``:
               only say what would go); see :class:`medrealmm.store.maintain.References`
* ``migrate``  move an old-layout store (one folder per judge) into per-model partitions, once
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from medrealmm.store import maintain
from medrealmm.store.settings import StoreSettings

ACTIONS = ("stats", "verify", "compact", "gc", "migrate")


def _rewrites(title: str, done: list[maintain.Rewrite], root: Path, dry_run: bool) -> str:
    if not done:
        return f"{title}: nothing to do in {root}"
    head = f"{title}{' (dry run: nothing changed)' if dry_run else ''}:\n\n"
    kept = sum(r.kept for r in done)
    dropped = sum(r.dropped for r in done)
    return (head + maintain.render([r.row(root) for r in done], maintain.REWRITE_COLUMNS)
            + f"\n\n{sum(r.files_in for r in done)} files -> {sum(len(r.written) for r in done)}; "
              f"{kept} records kept, {dropped} dropped (duplicates, damaged lines"
              f"{', unreferenced records' if title == 'gc' else ''})")


def run(action: str, cfg: dict[str, Any]) -> int:
    """Do ``action`` on ``paths.store``; print its report; the exit status."""
    if action not in ACTIONS:
        raise ValueError(f"unknown store action {action!r}; use one of {', '.join(ACTIONS)}")
    root = Path(cfg["paths"]["store"]).expanduser()
    if not root.is_dir():
        raise FileNotFoundError(f"no result store at {root} (paths.store)")
    s = StoreSettings.of(cfg.get("store"), "store")
    only, dry = s.only or None, s.dry_run
    if action == "stats":
        print(maintain.stats_report(maintain.stats(root, only), root))
        return 0
    if action == "verify":
        n_files, n_records, problems = maintain.verify(root, only)
        for p in problems:
            print(p)
        print(f"verified {n_records} records in {n_files} files under {root / (only or '')}: "
              + (f"{len(problems)} problems" if problems else "all whole"))
        return 1 if problems else 0
    if action == "compact":
        done = maintain.compact(root, only, segment_bytes=s.segment_bytes, min_files=s.min_files,
                                dry_run=dry)
        print(_rewrites("compact", done, root, dry))
        return 0
    if action == "gc":
        return _gc(root, cfg, s, only, dry)
    done = maintain.migrate(root, segment_bytes=s.segment_bytes, dry_run=dry)
    moved = sum(sum(r.moved.values()) for r in done)
    print(_rewrites("migrate", done, root, dry) + (f"\n{moved} verdicts moved into per-model partitions" if done else ""))
    return 0


def _gc(root: Path, cfg: dict[str, Any], s: StoreSettings, only: str | None, dry: bool) -> int:
    outputs = [Path(cfg["paths"]["outputs"]).expanduser(), *(Path(p).expanduser() for p in s.gc.outputs)]
    hours = s.gc.min_age_hours
    refs = maintain.references(outputs)
    if not refs.tables and not refs.unfinished:
        raise ValueError(f"gc: no run tables under {', '.join(str(o) for o in outputs)}: every record would go. Point "
                         "paths.outputs (and store.gc.outputs) at the folders holding your runs")
    done, skipped = maintain.gc(root, refs, only=only, min_age_s=hours * 3600, segment_bytes=s.segment_bytes,
                                dry_run=dry)
    lines = [f"gc: {len(refs.ids)} keys referenced by {refs.tables} run tables under "
             f"{', '.join(str(o) for o in outputs)}; files younger than {hours:g} h are kept"]
    if skipped:
        lines.append(f"kept whole (a run there is not finished: {', '.join(refs.unfinished)}): {', '.join(skipped)}")
    lines.append(_rewrites("gc", done, root, dry))
    print("\n".join(lines))
    return 0
