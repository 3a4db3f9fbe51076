"""``medrealmm rubric <action>``: Phase 3 from MCCP instances to approved benchmark cases.

    generate  R(0) for every instance (resumes: cases that already have a rubric are skipped)
    revise    apply the physicians' feedback (rubric.feedback=...): direct edits first, then the
              LLM for free-text comments -> R(k+1); cases without feedback stop early
    approve   mark rubrics approved (all drafts, or rubric.approve.ids) and export the benchmark
    export    write the benchmark cases (approved ones; rubric.export.status=any for drafts)
    import    take the rubrics of an existing dataset (data=...) as R(0), to refine them with physicians
    sheets    the review sheets and feedback templates of the current round
    lint      check the rubrics of any dataset (data=...)
    report    counts and weights per round, feedback changes, lint findings

Every action reads ``rubrics.jsonl`` under ``rubric.out_dir`` and writes it back atomically. The ``rubric``
group is read once, at :func:`run_rubric` (:class:`RubricRun`), and checked there.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_bytes, write_parquet, write_rows, write_text
from medrealmm.rubric.model import APPROVED, RubricRecord, RubricVersion
from medrealmm.rubric.settings import RubricSettings
from medrealmm.rubric.store import image_root, instances_file, read_instances, read_records, write_records
from medrealmm.schema import rubric_hash
from medrealmm.csvsafe import write_csv

log = logging.getLogger(__name__)

ACTIONS = ("generate", "import", "revise", "approve", "export", "sheets", "lint", "report")
FINDINGS, DIFFS, CHANGES = "findings.jsonl", "diffs.jsonl", "changes.jsonl"
BENCHMARK = "benchmark"


class RubricFailed(RuntimeError):
    """The action cannot run as configured (names the option or file to fix)."""


# --- pieces shared by the actions --------------------------------------------------------------------

@dataclass(frozen=True)
class RubricRun:
    """One action's inputs: the composed config (model, backend, run, paths) and its ``rubric`` group, typed."""

    cfg: dict[str, Any]
    s: RubricSettings

    @classmethod
    def of(cls, cfg: dict[str, Any]) -> RubricRun:
        """Reads and checks the ``rubric`` group (:class:`~medrealmm.config_schema.ConfigError` names a bad key)."""
        return cls(cfg, RubricSettings.of(cfg.get("rubric"), "rubric"))

    @property
    def out_dir(self) -> Path:
        return self.s.out_path

    @property
    def seed(self) -> int:
        return int(self.cfg["run"]["seed"])

    @property
    def font(self) -> str | None:
        """The figures' font: ``report.font`` (one font for every figure)."""
        return (self.cfg.get("report") or {}).get("font")

    def lint_config(self) -> Any:
        from medrealmm.rubric.lint import LintConfig

        return LintConfig.from_config(self.s.lint.model_dump())

    def with_input(self, input: Path, image_root: Path) -> RubricRun:
        return RubricRun({**self.cfg, "rubric": {**dict(self.cfg.get("rubric") or {}), "input": str(input),
                                                 "image_root": str(image_root)}},
                         self.s.model_copy(update={"input": str(input), "image_root": str(image_root)}))


def _findings(records: Sequence[RubricRecord], run: RubricRun) -> list[Any]:
    from medrealmm.rubric.lint import lint_rubric

    conf = run.lint_config()
    out: list[Any] = []
    for r in records:
        if r.current is not None:
            out += lint_rubric(r.criteria, case_id=r.id, y_orig=r.instance.y_orig, config=conf)
    return out


def _changes(records: Sequence[RubricRecord]) -> list[dict[str, Any]]:
    """One row per direct feedback action, as recorded by ``revise`` in ``meta.feedback``."""
    rows = []
    for r in records:
        for rnd, fb in sorted((r.meta.get("feedback") or {}).items(), key=lambda kv: int(kv[0])):
            rows += [{"case_id": r.id, "round": int(rnd), **ch} for ch in fb.get("changes", [])]
    return rows


def _diffs(records: Sequence[RubricRecord]) -> list[dict[str, Any]]:
    from medrealmm.rubric.feedback import history_diff

    rows = []
    for r in records:
        for prev, cur in zip(r.versions, r.versions[1:], strict=False):
            rows.append({"case_id": r.id, "round": cur.round, "source": cur.source,
                         **history_diff(prev.criteria, cur.criteria)})
    return rows


def _refresh(records: Sequence[RubricRecord], run: RubricRun, *, sheet_rounds: Sequence[int] = (),
             sheet_ids: set[str] | None = None) -> dict[str, Any]:
    """After every action: the records, lint findings, per-round diffs, feedback changes, the report
    and (when asked) the review sheets of ``sheet_rounds`` — all derived from ``rubrics.jsonl``."""
    from medrealmm.rubric.report import write_rubric_report

    out = run.out_dir
    write_records(records, out)
    findings = _findings(records, run)
    write_rows(out / FINDINGS, [f.as_dict() for f in findings])
    write_rows(out / DIFFS, _diffs(records))
    changes = _changes(records)
    write_rows(out / CHANGES, changes)
    for rnd in sheet_rounds:
        _sheets(records, run, findings, rnd, sheet_ids)
    write_rubric_report(records, out / "report", findings=findings, changes=changes, font=run.font,
                        figures=run.s.figures)
    errors = sum(f.severity == "error" for f in findings)
    counts = {"records": len(records), "draft": sum(x.status == "draft" for x in records),
              "approved": sum(x.status == APPROVED for x in records),
              "failed": sum(x.status == "failed" for x in records),
              "lint_errors": errors, "lint_warnings": len(findings) - errors}
    write_text(out / "counts.json", json.dumps(counts, indent=2))
    return counts


SHEETS = "sheets.json"


def _on_sheets(folder: Path) -> tuple[dict[str, str], int, list[dict[str, Any]]]:
    """What ``folder`` (one round's review folder) already has: per case the rubric hash its latest
    sheet shows, the last batch number, and the entries of ``sheets.json``."""
    import re

    path = folder / SHEETS
    entries = json.loads(path.read_text(encoding="utf-8")).get("sheets", []) if path.is_file() else []
    shown: dict[str, str] = {}
    for e in entries:
        shown.update(e["cases"])
    numbers = [int(m.group(1)) for f in folder.glob("feedback_*_*.csv")
               if (m := re.fullmatch(r"feedback_\d+_(\d+)\.csv", f.name))] if folder.is_dir() else []
    return shown, max(numbers, default=0), entries


def _sheets(records: Sequence[RubricRecord], run: RubricRun, findings: Sequence[Any], rnd: int,
            ids: set[str] | None) -> list[Path]:
    """Sheets for the drafts at round ``rnd`` whose current rubric is on no sheet of that round yet.
    An existing sheet (which a physician may be filling) is never rewritten; new ones take the next
    numbers. ``sheets.json`` records each template's sha256 and the rubric hash it shows per case,
    so an untouched template is recognised, and feedback on a rubric since regenerated is refused."""
    from medrealmm.rubric.sheet import write_review_sheets

    folder = run.out_dir / "review" / f"round_{rnd}"
    shown, last, entries = _on_sheets(folder)
    todo = [x for x in records if x.status == "draft" and x.round == rnd and (ids is None or x.id in ids)
            and shown.get(x.id) != rubric_hash(x.criteria)]
    if not todo:
        log.info("round %d: every draft is already on a review sheet in %s", rnd, folder)
        return []
    size = run.s.review.batch_size
    paths = write_review_sheets(todo, folder, image_root=_root(run), batch_size=size, findings=findings,
                                round=rnd, start=last + 1)
    for k, sheet in enumerate(paths):
        template = sheet.with_name(sheet.name.replace("review_", "feedback_").replace(".html", ".csv"))
        entries.append({"file": template.name, "sha256": hashlib.sha256(template.read_bytes()).hexdigest(),
                        "round": rnd, "cases": {x.id: rubric_hash(x.criteria) for x in todo[k * size:(k + 1) * size]}})
    write_text(folder / SHEETS, json.dumps({"sheets": entries}, ensure_ascii=False, indent=1))
    log.info("review sheets of round %d for %d case(s): %s", rnd, len(todo), folder)
    return paths


def _root(run: RubricRun) -> Path:
    if not run.s.input:
        raise RubricFailed("rubric.input is not set: the instances.jsonl of `medrealmm mccp` (or its folder)")
    return image_root(instances_file(run.s.input), run.s.image_root)


def _writer(run: RubricRun, pool: Any) -> tuple[Any, dict[str, Any]]:
    from medrealmm.inference.base import describe_backend
    from medrealmm.rubric.writer import RubricWriter

    model = run.cfg["model"]
    root = _root(run)
    backend = pool.get(model, run.cfg["backend"])
    writer = RubricWriter(backend, run.s, image_bytes=lambda ref: (root / ref.path).read_bytes(),
                          mode=run.s.mode_for(model),  # type: ignore[arg-type]
                          chat_template_kwargs=dict(model.get("chat_template_kwargs") or {}), seed=run.seed)
    return writer, describe_backend(backend)


def _model_name(run: RubricRun) -> str:
    m = run.cfg["model"]
    return str(m.get("name") or m.get("path") or "model")


def _manifest(run: RubricRun, action: str, stats: dict[str, Any], engines: dict[str, Any] | None = None) -> None:
    from medrealmm.manifest import build_manifest, write_json

    write_json(run.out_dir / f"manifest_{action}.json", build_manifest(
        config=run.cfg, dataset={"input": str(run.s.input)}, engines=engines or {}, stats=stats,
        seeds={"run.seed": run.cfg["run"]["seed"]}))


# --- actions -----------------------------------------------------------------------------------------

def generate(run: RubricRun) -> dict[str, Any]:
    """R(0) for every instance without one; chunks of ``rubric.chunk_cases`` are saved as they finish."""
    from tqdm import tqdm

    from medrealmm.inference.engines import EnginePool

    if not run.s.input:
        raise RubricFailed("rubric.input is not set: the instances.jsonl of `medrealmm mccp` (or its folder)")
    instances = read_instances(run.s.input)
    records = {x.id: x for x in read_records(run.out_dir)}
    todo = [i for i in instances if i.id not in records or records[i.id].status == "failed"]
    log.info("rubric generate: %d instance(s), %d already have a rubric, %d to write", len(instances),
             len(instances) - len(todo), len(todo))
    engines: dict[str, Any] = {}
    stats: dict[str, Any] = {}
    order = [i.id for i in instances] + [k for k in records if k not in {i.id for i in instances}]
    if todo:
        pool = EnginePool(str(Path(run.cfg["paths"]["cache"]).expanduser()), run.seed)
        try:
            writer, engines["model"] = _writer(run, pool)
            step = run.s.chunk_cases
            for k in tqdm(range(0, len(todo), step), desc="rubric generate", unit="chunk", disable=None):
                batch = todo[k:k + step]
                for inst, w in zip(batch, writer.generate(batch), strict=True):
                    if w.criteria is None:
                        records[inst.id] = RubricRecord(id=inst.id, instance=inst, status="failed", failure=w.error,
                                                        meta={"attempts": w.attempts})
                    else:
                        v = RubricVersion(round=0, criteria=w.criteria, source="generated", model=_model_name(run))
                        records[inst.id] = RubricRecord(id=inst.id, instance=inst, versions=(v,),
                                                        meta={"attempts": w.attempts})
                write_records([records[i] for i in order if i in records], run.out_dir)
            stats["writer"] = dict(writer.stats)
        finally:
            pool.close()
    final = [records[i] for i in order if i in records]
    counts = _refresh(final, run, sheet_rounds=(0,))
    _manifest(run, "generate", {**counts, **stats}, engines)
    log.info("rubric generate: %d draft, %d failed -> %s", counts["draft"], counts["failed"], run.out_dir)
    return counts


def _row_hash(item: Any) -> str:
    """A feedback row by its content (case, criterion, action, text, weight, parts, comment): the same
    row read from another path, or in another order, is the same row."""
    from dataclasses import asdict

    body = {k: v for k, v in asdict(item).items() if k not in ("file", "row")}
    return hashlib.sha256(json.dumps(body, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _meaningful(item: Any) -> bool:
    """A row that asks for something: any action but ``keep``, or a comment. The untouched rows of a
    template (``keep``, empty comment) say nothing — an untouched sheet is *not reviewed*."""
    return item.action != "keep" or bool((item.comment or "").strip())


def _templates(out_dir: Path) -> dict[str, dict[str, Any]]:
    """Every template written so far, by the sha256 of its bytes: ``{"round", "cases": {id: rubric hash}}``
    (from ``review/round_<k>/sheets.json``)."""
    found: dict[str, dict[str, Any]] = {}
    for f in sorted((out_dir / "review").glob("round_*/sheets.json")):
        for entry in json.loads(f.read_text(encoding="utf-8")).get("sheets", []):
            found[entry["sha256"]] = entry
    return found


def _read_feedback(path: Path, out_dir: Path) -> dict[str, list[tuple[int | None, Any]]]:
    """Feedback rows per case, each with the round its file is for: a template's name
    (``feedback_<round>_<batch>.csv``) says the round, so a folder holding several rounds' files
    applies each file to the rubric version it was written about only. A file byte-identical to a
    template we wrote (an unfilled sheet lying beside a filled copy) is skipped."""
    import re

    from medrealmm.rubric.feedback import read_feedback

    suffixes = (".csv", ".jsonl", ".json", ".ndjson")
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes
                   and p.name != "sheets.json") if path.is_dir() else [path]
    if not files:
        raise RubricFailed(f"rubric.feedback: no .csv or .jsonl file in {path}")
    templates = _templates(out_dir)
    merged: dict[str, list[tuple[int | None, Any]]] = {}
    untouched = 0
    for f in files:
        if hashlib.sha256(f.read_bytes()).hexdigest() in templates:
            untouched += 1
            continue
        m = re.search(r"feedback_(\d+)_", f.name)
        rnd = int(m.group(1)) if m else None
        for cid, items in read_feedback(f).items():
            merged.setdefault(cid, []).extend((rnd, i) for i in items)
    if untouched:
        log.info("rubric.feedback: %d untouched template(s) skipped (their cases count as not reviewed)", untouched)
    return merged


def _applied_rows(rec: RubricRecord) -> dict[str, set[str]]:
    """Per round made by feedback (``"k"`` for R(k)), the hashes of the rows that made it."""
    return {rnd: set(fb.get("rows") or []) for rnd, fb in (rec.meta.get("feedback") or {}).items()}


def _sheet_hash(out_dir: Path, rnd: int, case_id: str) -> str | None:
    """The rubric hash the latest round-``rnd`` sheet showed for ``case_id`` (None: no record)."""
    f = out_dir / "review" / f"round_{rnd}" / "sheets.json"
    if not f.is_file():
        return None
    seen = None
    for entry in json.loads(f.read_text(encoding="utf-8")).get("sheets", []):
        seen = entry["cases"].get(case_id, seen)
    return seen


#: The counters ``rubric revise`` reports (the manifest's ``revise`` stage and its return value).
REVISE_STATS = ("with_feedback", "signed_off", "direct_only", "llm", "llm_failed", "at_max_round", "already_applied",
                "not_draft", "other_round", "not_reviewed", "changed_after_applied")

#: One case to revise: its record, the result of its direct edits, the hashes of the feedback rows applied.
_Job = tuple[RubricRecord, Any, list[str]]


def revise(run: RubricRun) -> dict[str, Any]:
    """R(k+1) for every draft with feedback at its current round k (< ``rubric.rounds``)."""
    records, feedback = _revise_inputs(run)
    out_dir, max_rounds = run.out_dir, run.s.rounds
    stats: dict[str, Any] = dict.fromkeys(REVISE_STATS, 0)
    jobs: list[_Job] = []
    updated: dict[str, RubricRecord] = {}
    for rec in records:
        job = _triage(rec, feedback.get(rec.id, []), out_dir=out_dir, max_rounds=max_rounds, stats=stats,
                      updated=updated)
        if job is not None:
            jobs.append(job)
    engines: dict[str, Any] = {}
    written = _llm_revisions(run, [j for j in jobs if j[1].needs_revision], stats, engines)
    for rec, res, h in jobs:
        updated[rec.id] = _next_record(run, rec, res, h, written.get(rec.id), stats)
    final = [updated.get(x.id, x) for x in records]
    changed = {rec.id for rec, _, _ in jobs if updated[rec.id].round == rec.round + 1}
    rounds = sorted({updated[i].round for i in changed})
    counts = _refresh(final, run, sheet_rounds=rounds, sheet_ids=changed)
    _manifest(run, "revise", {**counts, **stats}, engines)
    _log_revise(stats)
    return {**counts, **stats}


def _revise_inputs(run: RubricRun) -> tuple[list[RubricRecord], dict[str, list[tuple[int | None, Any]]]]:
    """The rubric records and the feedback rows by case id; a missing file or an unknown case id is an error."""
    if not run.s.feedback:
        raise RubricFailed("rubric.feedback is not set: the filled feedback CSV/JSONL file (or a folder of them)")
    fb_path = Path(run.s.feedback).expanduser()
    if not fb_path.exists():
        raise RubricFailed(f"rubric.feedback {fb_path} does not exist")
    records = read_records(run.out_dir)
    if not records:
        raise RubricFailed(f"no rubrics in {run.out_dir}: run `medrealmm rubric generate` first")
    feedback = _read_feedback(fb_path, run.out_dir)
    unknown = sorted(set(feedback) - {x.id for x in records})
    if unknown:
        raise RubricFailed(f"rubric.feedback {fb_path}: {len(unknown)} case id(s) have no rubric here, "
                           f"e.g. {unknown[0]!r}")
    return records, feedback


def _triage(rec: RubricRecord, rows: list[tuple[int | None, Any]], *, out_dir: Path, max_rounds: int,
            stats: dict[str, Any], updated: dict[str, RubricRecord]) -> _Job | None:
    """What to do with one case's feedback: nothing (counted in ``stats``), a sign-off (into ``updated``),
    or a revision job (its direct edits applied)."""
    from medrealmm.rubric.feedback import apply_feedback

    if not rows:
        stats["not_reviewed"] += rec.status == "draft"
        return None
    if rec.status != "draft" or rec.current is None:
        if any(_meaningful(i) for _, i in rows):
            stats["not_draft"] += 1
            log.warning("case %s is %s: its feedback is ignored (rubric.approve.revoke=[%s] reopens an "
                        "approved case)", rec.id, rec.status, rec.id)
        return None
    items, late = _rows_now(rec, rows, stats)
    if not items:
        if not any(_meaningful(i) for _, i in rows):
            stats["not_reviewed"] += 1                      # an untouched sheet
        elif not late:
            stats["other_round"] += 1
        return None
    shown = _sheet_hash(out_dir, rec.round, rec.id)
    if shown is not None and any(rnd == rec.round for rnd, _ in rows) and shown != rubric_hash(rec.criteria):
        raise RubricFailed(f"case {rec.id!r}: its round-{rec.round} sheet shows another rubric than the current "
                           f"one (it was regenerated since); feedback written against it is not applied — "
                           "use the new sheet (`medrealmm rubric sheets`)")
    if all(i.action == "accept" for i in items):          # signed off as it is
        stats["signed_off"] += 1
        updated[rec.id] = rec.model_copy(update={"meta": {**rec.meta, "signed_off_round": rec.round}})
        return None
    if rec.round >= max_rounds:
        stats["at_max_round"] += 1
        log.warning("case %s is at round %d = rubric.rounds: feedback not applied (raise rubric.rounds)",
                    rec.id, rec.round)
        return None
    stats["with_feedback"] += 1
    used = sorted({c.id for v in rec.versions for c in v.criteria})
    res = apply_feedback(rec.criteria, items, case_id=rec.id, used_ids=used)
    return rec, res, sorted({_row_hash(i) for i in items})


def _rows_now(rec: RubricRecord, rows: list[tuple[int | None, Any]], stats: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The rows to apply at the case's current round, and the rows of an earlier round's sheet changed after
    that round was applied (warned about, not applied)."""
    applied = _applied_rows(rec)
    every = set().union(*applied.values()) if applied else set()
    items, late, late_round = [], [], 0
    for rnd, i in rows:
        if not _meaningful(i):
            continue
        if rnd is None:                     # a file without a round: rows applied before are not applied again
            if _row_hash(i) in every:
                stats["already_applied"] += 1
            else:
                items.append(i)
        elif rnd == rec.round:
            items.append(i)
        elif rnd < rec.round and _row_hash(i) not in applied.get(str(rnd + 1), set()):
            late.append(i)
            late_round = rnd
    if late:
        stats["changed_after_applied"] += 1
        log.warning("case %s: %d row(s) of its round-%d sheet (%s) were changed after that round was applied; "
                    "they are not applied now: put them on the round-%d sheet", rec.id, len(late),
                    late_round, late[0].where, rec.round)
    return items, late


def _llm_revisions(run: RubricRun, llm_jobs: list[_Job], stats: dict[str, Any],
                   engines: dict[str, Any]) -> dict[str, Any]:
    """The writer's revisions by case id, for the cases whose feedback needs the LLM (comments)."""
    from medrealmm.inference.engines import EnginePool
    from medrealmm.rubric.writer import RevisionJob

    if not llm_jobs:
        return {}
    pool = EnginePool(str(Path(run.cfg["paths"]["cache"]).expanduser()), run.seed)
    try:
        writer, engines["model"] = _writer(run, pool)
        outs = writer.revise([RevisionJob(
            instance=rec.instance, current=tuple(res.criteria), comments=_comments_now(res),
            locked=tuple(dict.fromkeys(c.id for ch in res.changes for c in ch.after)),
            used_ids=tuple(sorted({c.id for v in rec.versions for c in v.criteria} | {c.id for c in res.criteria})))
            for rec, res, _ in llm_jobs])
        stats["writer"] = dict(writer.stats)
        return {rec.id: w for (rec, _, _), w in zip(llm_jobs, outs, strict=True)}
    finally:
        pool.close()


def _next_record(run: RubricRun, rec: RubricRecord, res: Any, rows: list[str], w: Any,
                 stats: dict[str, Any]) -> RubricRecord:
    """The record with R(k+1): the direct edits (``w`` None) or the writer's revision; a failed revision
    keeps the round and records why (the same feedback is tried again next run)."""
    nxt = rec.round + 1
    fb_meta = {"rows": rows, "changes": [_change_row(c) for c in res.changes], "comments": len(res.comments)}
    if w is None:
        stats["direct_only"] += 1
        v = RubricVersion(round=nxt, criteria=res.criteria, source="feedback")
    elif w.criteria is None:               # nothing applied: the same feedback is tried again next run
        stats["llm_failed"] += 1
        failures = {**(rec.meta.get("revision_failures") or {}), str(nxt): w.error}
        return rec.model_copy(update={"meta": {**rec.meta, "revision_failures": failures}})
    else:
        stats["llm"] += 1
        v = RubricVersion(round=nxt, criteria=w.criteria, source="revised", model=_model_name(run),
                          note=f"{w.restored} physician-set criteria restored after the LLM changed them"
                          if w.restored else None)
    meta = {**rec.meta, "feedback": {**(rec.meta.get("feedback") or {}), str(nxt): fb_meta}}
    meta.pop("signed_off_round", None)
    failures = {k: v for k, v in (meta.get("revision_failures") or {}).items() if k != str(nxt)}
    meta["revision_failures"] = failures
    if not failures:
        meta.pop("revision_failures")
    return rec.with_version(v).model_copy(update={"meta": meta})


def _log_revise(stats: dict[str, Any]) -> None:
    log.info("rubric revise: %d case(s) with feedback (%d direct edits only, %d revised by the LLM, %d LLM failures), "
             "%d signed off (accept), %d not reviewed, %d at the round limit, %d row(s) already applied, %d with "
             "feedback for another round only", stats["with_feedback"], stats["direct_only"], stats["llm"],
             stats["llm_failed"], stats["signed_off"], stats["not_reviewed"], stats["at_max_round"],
             stats["already_applied"], stats["other_round"])
    if stats["llm_failed"]:
        log.warning("rubric revise: %d case(s) stay at their round: the LLM gave no valid revision, so neither "
                    "their edits nor their comments were applied; rerun `rubric revise` with the same feedback "
                    "(or drop the comments to apply the edits alone)", stats["llm_failed"])


def _comments_now(res: Any) -> tuple[tuple[str | None, str], ...]:
    """The comments with their criterion named as it is after the direct edits: a comment on ``c3``
    that was split reads "c3（已拆分为 c3.1、c3.2）", on a deleted one "c3（已删除）"."""
    now = {c.id for c in res.criteria}
    fate = {ch.criterion_id: ch for ch in res.changes}
    out = []
    for cid, text in res.comments:
        ch = fate.get(cid)
        if cid is not None and cid not in now and ch is not None:
            cid = (f"{cid}（已删除）" if not ch.after
                   else f"{cid}（已拆分为 {'、'.join(c.id for c in ch.after)}）")
        out.append((cid, text))
    return tuple(out)


def _change_row(change: Any) -> dict[str, Any]:
    return {"criterion_id": getattr(change, "criterion_id", None), "action": getattr(change, "action", None)}


def _signed_off(rec: RubricRecord) -> bool:
    """Physicians have seen R(k) as it is and nothing they asked for is pending: they signed it off
    (``accept``), or R(k) is made of their own direct edits alone; and no revision of R(k) failed."""
    if str(rec.round + 1) in (rec.meta.get("revision_failures") or {}):
        return False
    return rec.meta.get("signed_off_round") == rec.round or (rec.current is not None
                                                             and rec.current.source == "feedback")


def approve(run: RubricRun) -> dict[str, Any]:
    """Mark drafts approved — those the physicians signed off (:func:`_signed_off`), the cases in
    ``rubric.approve.ids``, or every draft with ``rubric.approve.all=true``; lint errors block unless
    ``rubric.approve.allow_lint_errors``. The benchmark is exported before anything is recorded, so
    an export that fails (a missing image) leaves the approvals as they were."""
    a = run.s.approve
    records, live = _records_and_current(run)
    current = {x.id for x in live}
    revoke = _known_ids(a.revoke, records, "rubric.approve.revoke")
    records = _revoked(records, revoke)
    wanted = None if a.ids is None else _known_ids(a.ids, records, "rubric.approve.ids")
    out, tally = _approvals(records, run, current=current, wanted=wanted, revoke=revoke)
    _log_not_approved(tally)
    exported = export(run, records=[x for x in out if x.id in current])
    counts = _refresh(out, run)
    log.info("rubric approve: %d approved now, %d blocked by lint errors, %d not signed off; %d approved in all",
             tally.approved, len(tally.blocked), tally.unreviewed, counts["approved"])
    stats = {**counts, "approved_now": tally.approved, "blocked": len(tally.blocked),
             "not_signed_off": tally.unreviewed, **exported}
    _manifest(run, "approve", stats)
    return stats


def _known_ids(value: Any, records: Sequence[RubricRecord], setting: str) -> set[str]:
    """The case ids of ``setting``; an id without a rubric is an error."""
    ids = _ids(value)
    unknown = sorted(ids - {x.id for x in records})
    if unknown:
        raise RubricFailed(f"{setting}: {len(unknown)} id(s) have no rubric, e.g. {unknown[0]!r}")
    return ids


def _revoked(records: list[RubricRecord], revoke: set[str]) -> list[RubricRecord]:
    """The records with the approval of the cases in ``revoke`` taken back (drafts again)."""
    if not revoke:
        return records
    log.info("rubric approve: approval revoked for %d case(s); they are drafts again", len(revoke))
    return [x.model_copy(update={"status": "draft", "meta": {k: v for k, v in x.meta.items() if k != "approved_round"}})
            if x.id in revoke and x.status == APPROVED else x for x in records]


@dataclass
class _Tally:
    """What ``approve`` did: approved now, blocked by lint errors (id, rules), drafts not signed off."""

    approved: int = 0
    blocked: list[tuple[str, list[str]]] = field(default_factory=list)
    unreviewed: int = 0


def _approvals(records: list[RubricRecord], run: RubricRun, *, current: set[str], wanted: set[str] | None,
               revoke: set[str]) -> tuple[list[RubricRecord], _Tally]:
    """Every record, approved where asked for, signed off and (unless allowed) free of lint errors."""
    from medrealmm.rubric.lint import lint_rubric

    a, conf, tally = run.s.approve, run.lint_config(), _Tally()
    out = []
    for rec in records:
        if rec.status != "draft" or rec.id not in current or (wanted is not None and rec.id not in wanted) \
                or rec.id in revoke:
            out.append(rec)
            continue
        if wanted is None and not a.all and not _signed_off(rec):
            tally.unreviewed += 1
            out.append(rec)
            continue
        errors = [f for f in lint_rubric(rec.criteria, case_id=rec.id, y_orig=rec.instance.y_orig, config=conf)
                  if f.severity == "error"]
        if errors and not a.allow_lint_errors:
            tally.blocked.append((rec.id, sorted({f.rule for f in errors})))
            out.append(rec)
            continue
        tally.approved += 1
        out.append(rec.model_copy(update={"status": APPROVED, "meta": {**rec.meta, "approved_round": rec.round}}))
    return out, tally


def _log_not_approved(tally: _Tally) -> None:
    for cid, rules in tally.blocked[:10]:
        log.warning("case %s not approved: lint errors %s (fix them in a feedback round, or "
                    "rubric.approve.allow_lint_errors=true)", cid, ", ".join(rules))
    if tally.unreviewed:
        log.warning("%d draft(s) not approved: their current round was not signed off (an `accept` row on the "
                    "round's sheet, then `rubric revise`), or name them in rubric.approve.ids, or "
                    "rubric.approve.all=true", tally.unreviewed)


def _ids(value: Any) -> set[str]:
    if value is None:
        return set()
    return {str(value)} if isinstance(value, (str, int)) else {str(i) for i in value}


def _records_and_current(run: RubricRun) -> tuple[list[RubricRecord], list[RubricRecord]]:
    """All records (a clear error when there are none), and those whose instance is still in
    ``rubric.input`` as it was — records of instances gone or changed since (e.g. rejected in the
    mccp validation after generation) are left out of the second list, with a warning."""
    records = read_records(run.out_dir)
    if not records:
        raise RubricFailed(f"no rubrics in {run.out_dir}: run `medrealmm rubric generate` (or `import`) first, "
                           "with the same data.name or rubric.out_dir")
    src = run.s.input
    if not src:
        return records, records
    current = {i.id: i for i in read_instances(src)}

    def same(a: Any, b: Any) -> bool:            # meta changes (e.g. a validation mark) do not count
        return a is not None and a.model_dump(exclude={"meta"}) == b.model_dump(exclude={"meta"})

    stale = {x.id for x in records if not same(current.get(x.id), x.instance)}
    if stale:
        log.warning("%d rubric(s) belong to instances that are gone from or changed in %s (e.g. %s): left out",
                    len(stale), src, sorted(stale)[0])
    return records, [x for x in records if x.id not in stale]


def _current_records(run: RubricRun) -> list[RubricRecord]:
    return _records_and_current(run)[1]


def export(run: RubricRun, *, records: Sequence[RubricRecord] | None = None) -> dict[str, Any]:
    """The benchmark: ``<out_dir>/benchmark/cases.jsonl`` + images, ready for ``data=jsonl``. Each case
    carries ``meta.rubric`` (status, round, hash) — the evaluation core refuses non-approved ones
    unless ``data.require_approved_rubric=false``."""
    from medrealmm.mccp import to_case
    from medrealmm.schema import rubric_hash

    which = run.s.export.status
    records = list(records) if records is not None else _current_records(run)
    chosen = [x for x in records if x.current is not None and x.status != "failed"
              and (which == "any" or x.status == APPROVED)]
    out = run.out_dir / BENCHMARK
    out.mkdir(parents=True, exist_ok=True)
    root = _root(run)
    missing = [(rec.id, im.path) for rec in chosen for t in rec.instance.turns for im in t.images
               if not (root / im.path).is_file()]
    if missing:
        raise RubricFailed(f"{len(missing)} image(s) not found under {root}, e.g. case {missing[0][0]!r} image "
                           f"{missing[0][1]!r} (set rubric.image_root); nothing was exported or approved")
    lines, images = [], 0
    for rec in chosen:
        case = to_case(rec.instance, rec.criteria)
        body = case.model_dump(mode="json", exclude={"turns": {"__all__": {"images": {"__all__": {"data"}}}}})
        body["meta"] = {**body.get("meta", {}), "rubric": {
            "status": rec.status, "round": rec.round,
            "hash": rubric_hash(rec.criteria)}}
        for t in case.turns:
            for im in t.images:
                src, dst = root / im.path, out / im.path
                if src.resolve() != dst.resolve():
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
                    images += 1
        lines.append(body)
    write_rows(out / "cases.jsonl", lines)
    log.info("rubric export: %d case(s) (%s) and %d image(s) -> %s  (evaluate with: medrealmm run data=jsonl "
             "data.path=%s)", len(lines), which, images, out, out)
    return {"exported": len(lines), "export_status": which}


def sheets(run: RubricRun) -> dict[str, Any]:
    """Review sheets for every draft that is on no sheet of its current round yet."""
    records = _current_records(run)
    rounds = sorted({x.round for x in records if x.status == "draft"})
    findings = _findings(records, run)
    n = sum(len(_sheets(records, run, findings, rnd, None)) for rnd in rounds)
    return {"sheets": n, "rounds": rounds}


def lint(run: RubricRun) -> dict[str, Any]:
    """The rubric lint over any dataset (``data=...``): findings.csv under ``rubric.out_dir/lint``."""
    from medrealmm.data import load_dataset
    from medrealmm.rubric.lint import lint_cases

    data = {**dict(run.cfg["data"]), "require_approved_rubric": False, "check_images": False}
    ds = load_dataset(data)
    table = lint_cases(ds.cases, config=run.lint_config())
    out = run.out_dir / "lint"
    out.mkdir(parents=True, exist_ok=True)
    write_csv(table, out / "findings.csv")
    write_parquet(out / "findings.parquet", table)
    by_rule = table.group_by(["rule", "severity"]).len().sort(["severity", "rule"]) if table.height else table
    for row in by_rule.iter_rows(named=True) if table.height else []:
        log.info("lint %-16s %-7s %d", row["rule"], row["severity"], row["len"])
    n_err = table.filter(table["severity"] == "error").height if table.height else 0
    log.info("rubric lint: %d case(s), %d finding(s) (%d errors) -> %s", len(ds.cases), table.height, n_err,
             out / "findings.csv")
    return {"cases": len(ds.cases), "findings": table.height, "errors": n_err}


def import_rubrics(run: RubricRun) -> dict[str, Any]:
    """R(0) from the rubrics of an existing dataset (``data=...``: the published benchmark, HealthBench,
    your own cases), source ``imported``, so local physicians can review and refine them. Writes the
    instances (the cases without their rubrics) to ``rubric.out_dir/instances.jsonl`` and their
    images (copied, or written from embedded bytes) under the same folder."""
    from medrealmm.data import load_dataset
    from medrealmm.mccp import Instance, write_instances

    out = run.out_dir
    if read_records(out):
        raise RubricFailed(f"{out} already holds rubrics: import into another rubric.out_dir")
    ds = load_dataset({**dict(run.cfg["data"]), "require_approved_rubric": False})
    records, instances = [], []
    for case in ds.cases:
        for t in case.turns:                # the images travel with the rubrics: out_dir is self-contained
            for im in t.images:
                dst = out / im.path
                dst.parent.mkdir(parents=True, exist_ok=True)
                if im.data is not None:
                    write_bytes(dst, im.data)
                elif ds.root is not None and (ds.root / im.path).is_file():
                    shutil.copyfile(ds.root / im.path, dst)
                else:
                    raise RubricFailed(f"case {case.id!r}: image {im.path!r} has no data and is not under "
                                       f"{ds.root}")
        body = case.model_dump(mode="json", exclude={"rubric": True,
                                                     "turns": {"__all__": {"images": {"__all__": {"data"}}}}})
        inst = Instance.model_validate(body)
        instances.append(inst)
        records.append(RubricRecord(id=case.id, instance=inst, versions=(
            RubricVersion(round=0, criteria=case.rubric, source="imported", note=f"from {ds.source}"),)))
    write_instances(instances, out / "instances.jsonl")
    run = run.with_input(out / "instances.jsonl", out)
    counts = _refresh(records, run, sheet_rounds=(0,))
    log.info("rubric import: %d case(s) from %s (%d rejected) -> %s; next: medrealmm rubric revise "
             "rubric.out_dir=%s rubric.input=%s rubric.feedback=...", len(records), ds.source, len(ds.errors),
             out, out.resolve(), (out / "instances.jsonl").resolve())
    return {**counts, "rejected_cases": len(ds.errors)}


def report(run: RubricRun) -> dict[str, Any]:
    records = read_records(run.out_dir)
    if not records:
        raise RubricFailed(f"no rubrics in {run.out_dir}: run `medrealmm rubric generate` (or `import`) first")
    return _refresh(records, run)


def run_rubric(action: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """``medrealmm rubric <action>``: the ``rubric`` group is read and checked here, once."""
    if action not in ACTIONS:
        raise RubricFailed(f"unknown rubric action {action!r}: one of {', '.join(ACTIONS)}")
    run = RubricRun.of(cfg)
    return {"generate": generate, "import": import_rubrics, "revise": revise, "approve": approve, "export": export,
            "sheets": sheets, "lint": lint, "report": report}[action](run)
