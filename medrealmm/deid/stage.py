"""``medrealmm deid``: consultation records in, de-identified records, masked images and an audit out.

Order per chunk of records: find identifiers in every text (rules, then the LLM agent when
configured) and every image (the configured detectors); drop whole cases whose clinical signal
needs an identifying image (stage 4a, :mod:`medrealmm.deid.removal`); mask the rest (placeholders,
black boxes, metadata stripped); write. Chunks are written atomically under ``parts/`` and skipped
when a rerun finds them, so a long run resumes. Nothing a detector found is ever logged or written:
the audit trail holds categories, detectors, offsets and boxes only. Turn records and event-format
consultations (the corpus funnel's) both go through; each comes out in its own shape
(:mod:`medrealmm.deid.records`).
"""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_lines, write_text
from medrealmm.deid.records import ImageSlot, LogRecord, read_records, record_line
from medrealmm.deid.removal import RemovalRule
from medrealmm.deid.settings import DeidSettings
from medrealmm.deid.spans import Span, apply_placeholders, merge_spans
from medrealmm.deid.text_consistency import spread_by_consultation
from medrealmm.deid.text_policy import TextPolicy
from medrealmm.schema import CaseError
from medrealmm.store import stable_hash

log = logging.getLogger(__name__)

OUT_CASES, OUT_AUDIT, OUT_REMOVED, OUT_ERRORS = "cases.jsonl", "audit.jsonl", "removed.jsonl", "errors.jsonl"


class DeidFailed(RuntimeError):
    """The stage cannot run as configured (a missing model, a bad option)."""


@dataclass
class ChunkResult:
    cases: list[str] = field(default_factory=list)      # JSONL lines
    audit: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)


# --- text --------------------------------------------------------------------------------------------

class TextMasker:
    """Rules, optionally followed by the agent, over a batch of texts; merged spans per text; then,
    with ``consistency``, what was found in a consultation spread over that consultation's texts."""

    def __init__(self, rules: Any, agent: Any | None = None, *, consistency: bool = False,
                 policy: TextPolicy | None = None):
        self.rules, self.agent, self.consistency, self.policy = rules, agent, consistency, policy

    def spans(self, texts: Sequence[str], consultations: Sequence[str] | None = None,
              ) -> tuple[list[list[Span]], list[str | None]]:
        """Spans per text and, per text, the agent's failure code (None when it answered or is off).
        ``consultations``: per text, the consultation it belongs to (the consistency pass's scope)."""
        found = [list(s) for s in self.rules.detect(texts)]
        failures: list[str | None] = [None] * len(texts)
        if self.agent is not None and texts:
            result = self.agent.detect(texts)       # AgentSpans: spans per text + .failures
            for i, extra in enumerate(result):
                found[i].extend(extra)
            failures = list(result.failures)
        merged = [merge_spans(s) for s in found]
        if self.consistency and consultations is not None:
            merged = spread_by_consultation(texts, merged, consultations, self.policy)
        return merged, failures

    def close(self) -> None:
        """Stop the detector's worker processes, if it has any (``deid.text.workers``)."""
        close = getattr(self.rules, "close", None)
        if close is not None:
            close()


# --- the stage ---------------------------------------------------------------------------------------

@dataclass
class DeidConfig:
    input: Path
    out_dir: Path
    chunk_size: int = 32
    strict: bool = False
    pad: int = 4
    removal: RemovalRule = field(default_factory=RemovalRule)

    @classmethod
    def from_settings(cls, d: DeidSettings) -> DeidConfig:
        """From the ``deid`` group (read once at the stage's entry)."""
        if not d.input:
            raise DeidFailed("deid.input is not set: the cases.jsonl (or its folder) of the records to de-identify")
        if not d.out_dir:
            raise DeidFailed("deid.out_dir is not set: where the de-identified records go")
        return cls(input=Path(d.input), out_dir=Path(d.out_dir), chunk_size=d.chunk_size, strict=d.strict,
                   pad=d.image.pad, removal=d.remove_case)


class DeidStage:
    def __init__(self, conf: DeidConfig, text: TextMasker, images: Any | None, fingerprint: str):
        self.conf, self.text, self.images, self.fingerprint = conf, text, images, fingerprint

    # one chunk ---------------------------------------------------------------------------------------
    def run_chunk(self, records: list[tuple[LogRecord, list[ImageSlot]]], image_dir: Path) -> ChunkResult:
        out = ChunkResult()
        fields = [(r, f) for r, _ in records for f in r.texts()]
        spans, failures = self.text.spans([f.text for _, f in fields], [r.id for r, _ in fields])
        by_record: dict[str, list[tuple[str, list[Span], str | None]]] = {}
        for (r, f), s, fail in zip(fields, spans, failures, strict=True):
            by_record.setdefault(r.id, []).append((f.path, s, fail))
        slots = [(r, s) for r, ss in records for s in ss]
        results = self.images.process([s.source for _, s in slots]) if (self.images and slots) else []
        by_image: dict[str, list[tuple[ImageSlot, Any]]] = {}
        for (r, s), res in zip(slots, results, strict=True):
            by_image.setdefault(r.id, []).append((s, res))

        for r, _ in records:
            texts = by_record.get(r.id, [])
            images = by_image.get(r.id, [])
            agent_failures = [p for p, _, fail in texts if fail]
            reason = self.conf.removal.reason(r, [(s, _boxes(res), _size(res)) for s, res in images])
            if reason is None and agent_failures and self.conf.removal.on_agent_failure == "remove":
                reason = f"the LLM agent gave no usable answer for {len(agent_failures)} text field(s)"
            if reason is not None:
                out.removed.append(json.dumps({"id": r.id, "reason": reason}, ensure_ascii=False))
                out.counts["removed"] += 1
                continue
            audit: dict[str, Any] = {"id": r.id, "dropped_fields": r.dropped, "texts": [], "images": []}
            for path, s, fail in texts:
                r.set_text(path, apply_placeholders(r.get_text(path), s))
                audit["texts"].append({"field": path, "spans": [x.audit() for x in s],
                                       **({"agent": fail or "ok"} if self.text.agent is not None else {})})
                out.counts.update(x.category for x in s)
            for slot, res in images:
                rel = Path("images") / _safe(r.id) / f"{slot.stem()}{_suffix(res)}"
                sha = self.images.write(res, image_dir / rel)
                r.set_image(slot, rel.as_posix(), sha)
                audit["images"].append({**slot.audit(), "path": rel.as_posix(), **_image_audit(res)})
                out.counts.update(b.category for b in _boxes(res))
            out.cases.append(record_line(r.raw))
            out.audit.append(json.dumps(audit, ensure_ascii=False))
            out.counts["kept"] += 1
        return out

    # the whole input ---------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        from tqdm import tqdm

        conf = self.conf
        parts = conf.out_dir / "parts"
        parts.mkdir(parents=True, exist_ok=True)
        staging = conf.out_dir / "staging"
        errors: list[str] = []
        chunk: list[tuple[LogRecord, list[ImageSlot]]] = []
        names: list[str] = []
        totals: Counter = Counter()

        def flush() -> None:
            if not chunk:
                return
            key = stable_hash([self.fingerprint, [(r.id, r.line, r.raw, [str(s.source) for s in ss])
                                                  for r, ss in chunk]])[:20]
            name = f"{len(names):05d}-{key}"
            names.append(name)
            part = parts / f"{name}.json"
            if part.exists():
                totals.update(json.loads(part.read_text(encoding="utf-8"))["counts"])
                chunk.clear()
                return
            res = self.run_chunk(chunk, staging / name)
            body = {"cases": res.cases, "audit": res.audit, "removed": res.removed, "counts": dict(res.counts)}
            write_text(part, json.dumps(body, ensure_ascii=False))
            totals.update(res.counts)
            chunk.clear()

        with tqdm(desc="de-identifying", unit="case", disable=None) as bar:
            for rec, slots, err in read_records(conf.input):
                if err is not None:
                    if conf.strict:
                        raise err
                    log.warning("skipping bad record: %s", err)
                    errors.append(json.dumps(load_error(err), ensure_ascii=False))
                    continue
                chunk.append((rec, slots))
                bar.update()
                if len(chunk) >= conf.chunk_size:
                    flush()
            flush()
        return self._assemble(names, errors, totals)

    def _assemble(self, names: list[str], errors: list[str], totals: Counter) -> dict[str, Any]:
        """Concatenate the parts in input order into the outputs (atomically), move the images."""
        conf = self.conf
        outputs = {OUT_CASES: [], OUT_AUDIT: [], OUT_REMOVED: [], OUT_ERRORS: errors}
        images = conf.out_dir / "images"
        for name in names:
            body = json.loads((conf.out_dir / "parts" / f"{name}.json").read_text(encoding="utf-8"))
            outputs[OUT_CASES] += body["cases"]
            outputs[OUT_AUDIT] += body["audit"]
            outputs[OUT_REMOVED] += body["removed"]
            staged = conf.out_dir / "staging" / name / "images"
            if staged.is_dir():
                for f in staged.rglob("*"):
                    if f.is_file():
                        target = images / f.relative_to(staged)
                        target.parent.mkdir(parents=True, exist_ok=True)
                        f.replace(target)
        for fname, lines in outputs.items():
            write_lines(conf.out_dir / fname, lines)
        shutil.rmtree(conf.out_dir / "staging", ignore_errors=True)
        summary = {"kept": totals.get("kept", 0), "removed": totals.get("removed", 0), "bad_records": len(errors),
                   "masked": {k: v for k, v in sorted(totals.items()) if k not in ("kept", "removed")}}
        log.info("de-identified %d case(s), removed %d, %d bad record(s); masked per category: %s",
                 summary["kept"], summary["removed"], summary["bad_records"], summary["masked"])
        return summary


# --- small helpers -------------------------------------------------------------------------------------

def _safe(case_id: str) -> str:
    """A file-system-safe folder name for a case (the id itself is not masked)."""
    keep = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case_id)
    return keep[:80] or stable_hash(case_id)[:16]


def _boxes(res: Any) -> list[Any]:
    return list(getattr(res, "boxes", []) or [])


def _size(res: Any) -> tuple[int, int]:
    size = getattr(res, "size", None) or getattr(res, "original_size", None)
    if size is None and getattr(res, "image", None) is not None:
        h, w = res.image.shape[:2]
        return int(w), int(h)
    return int(size[0]), int(size[1])


def _suffix(res: Any) -> str:
    fmt = str(getattr(res, "format", "") or "JPEG").upper()
    return {"JPEG": ".jpg", "JPG": ".jpg", "PNG": ".png", "WEBP": ".webp"}.get(fmt, ".png")


def _image_audit(res: Any) -> dict[str, Any]:
    return {"boxes": [b.audit() for b in _boxes(res)],
            "metadata_removed": list(getattr(res, "metadata_removed", []) or []),
            "orientation": getattr(res, "orientation", None)}


def load_error(e: CaseError) -> dict[str, Any]:
    return {"case_id": e.case_id, "field": e.field, "file": e.file, "error": str(e)}
