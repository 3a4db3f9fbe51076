"""Physician review of Phase 2's instances: a filled validation sheet applied to a run's outputs.

``mccp.validation.decisions=<filled validation.csv>`` applies a sheet to the outputs of an earlier run
(:func:`apply_validation`, no engine); a rebuilt run applies the stored decisions again
(:func:`reapply_stored_decisions`). See :mod:`.instances` for the CSV.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_text
from medrealmm.mccp.settings import MccpSettings

log = logging.getLogger(__name__)

VALIDATION_RESULT = "result.json"


def write_instance_files(out_dir: Path, kept: Sequence[Any], rejected: Sequence[Any] | None) -> int:
    """``instances.jsonl`` (what Phase 3 reads) and, when decisions apply, ``rejected.jsonl``."""
    from medrealmm.mccp.instances import write_instances

    n = write_instances(kept, out_dir / "instances.jsonl")
    if rejected is not None:
        write_instances(rejected, out_dir / "rejected.jsonl")
    return n


def reapply_stored_decisions(out_dir: Path, instances: list[Any]
                              ) -> tuple[list[Any], list[Any], dict[str, int] | None]:
    """Decisions applied earlier (``validation/result.json``) are applied again to a rebuilt run, so a
    rerun never silently returns rejected instances to Phase 3; a decision whose instance changed
    since it was reviewed (new settings or input) is dropped with a warning."""
    from medrealmm.mccp.instances import Decision, apply_decisions, instance_hash

    path = out_dir / "validation" / VALIDATION_RESULT
    if not path.is_file():
        return instances, [], None
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))["decisions"]
    except (OSError, ValueError, KeyError, TypeError):
        log.warning("mccp: %s is unreadable; no stored physician decision applied", path)
        return instances, [], None
    current = {i.id: instance_hash(i) for i in instances}
    decisions = {cid: Decision(d["decision"], d.get("note"), int(d.get("row", 0))) for cid, d in stored.items()
                 if current.get(cid) == d.get("instance")}
    stale = len(stored) - len(decisions)
    if stale:
        log.warning("mccp: %d stored physician decision(s) are for instances that changed or are gone; not "
                    "applied (review them again)", stale)
    kept, rejected = apply_decisions(instances, decisions)
    log.info("mccp: %d stored physician decision(s) applied, %d instance(s) in rejected.jsonl", len(decisions),
             len(rejected))
    return kept, rejected, {"decisions": len(decisions), "rejected": len(rejected), "stale": stale}


def _input_order(src: str | None) -> dict[str, int] | None:
    """Consultation ids by input position (``mccp.input``: to put a re-accepted instance back in place), if
    readable."""
    if not src:
        return None
    path = Path(str(src)).expanduser()
    path = path / "consultations.jsonl" if path.is_dir() else path
    order: dict[str, int] = {}
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    order.setdefault(str(json.loads(line).get("id")), len(order))
    except (OSError, ValueError, AttributeError):
        return None
    return order


def apply_validation(cfg: dict[str, Any], settings: MccpSettings | None = None) -> dict[str, Any]:
    """Apply a physician sheet (``mccp.validation.decisions``) to an earlier run's outputs, no engine.

    The sheet is the complete review: decided instances get ``meta.mccp.validation``
    (``{"decision": "accept"|"reject", "note": <comment or null>}``), rejected ones move from
    ``instances.jsonl`` to ``rejected.jsonl`` (kept), the rest stay undecided (an earlier mark is
    removed). Writes ``validation/result.json`` (counts, rate, the decisions with a hash of the
    reviewed instance so a rerun reapplies them); applying the same sheet twice changes nothing. ``settings``:
    the ``mccp`` group read already (default: read from ``cfg``)."""
    from medrealmm.mccp.instances import (ValidationSheetError, apply_decisions, instance_hash, read_decisions,
                                          read_instances)

    s = settings if settings is not None else MccpSettings.of(cfg["mccp"], "mccp")
    if not s.validation.decisions:
        raise ValueError("mccp.validation.decisions is not set: the filled validation sheet (CSV)")
    out_dir = s.out_path
    sheet = Path(s.validation.decisions).expanduser()
    if not sheet.is_file():
        raise FileNotFoundError(f"mccp.validation.decisions: {sheet} not found")
    inst_path, rej_path = out_dir / "instances.jsonl", out_dir / "rejected.jsonl"
    if not inst_path.is_file():
        raise FileNotFoundError(f"{inst_path} not found: run `medrealmm mccp` first (same mccp.out_dir)")
    current = read_instances(inst_path)
    earlier = read_instances(rej_path) if rej_path.is_file() else []
    pool = current + earlier
    order = _input_order(s.input) if earlier else None
    if order:   # put earlier rejections back in input order (else after the current instances)
        pool.sort(key=lambda i: order.get(i.id, len(order)))
    decisions = read_decisions(sheet, [i.id for i in pool], allow_blank=True)
    if not decisions:
        raise ValidationSheetError(f"{sheet}: no decided rows (fill the accept column with yes or no)")
    kept, rejected = apply_decisions(pool, decisions)
    write_instance_files(out_dir, kept, rejected)
    accepted = sum(d.decision == "accept" for d in decisions.values())
    hashes = {i.id: instance_hash(i) for i in pool}
    result = {"decisions_file": str(sheet), "n_decided": len(decisions), "accepted": accepted,
              "rejected": len(decisions) - accepted, "rate": accepted / len(decisions),
              "undecided": len(pool) - len(decisions),
              "decisions": {cid: {"decision": d.decision, "note": d.note, "row": d.row, "instance": hashes[cid]}
                            for cid, d in decisions.items()}}
    (out_dir / "validation").mkdir(parents=True, exist_ok=True)
    write_text(out_dir / "validation" / VALIDATION_RESULT, json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    log.info("mccp validation: %d decided, %d accepted, %d rejected (acceptance %.1f%%), %d undecided; "
             "%d in instances.jsonl, %d in rejected.jsonl", result["n_decided"], accepted, result["rejected"],
             100 * result["rate"], result["undecided"], len(kept), len(rejected))
    return {k: v for k, v in result.items() if k != "decisions"}
