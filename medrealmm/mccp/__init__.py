"""Phase 2 — multimodal clinical challenge points (MCCP).

candidates (:mod:`.select`) → agents A and M (:mod:`.agents`) → t* (:mod:`.select`) →
pre-rubric instances (:mod:`.instances`) → intent/stage (:mod:`.annotate`). :func:`run_mccp` runs it
on the funnel's kept consultations (a JSONL of :class:`~medrealmm.corpus.schema.Consultation`).

Resume: the consultations go through in chunks of ``mccp.chunk_consultations`` (all candidates of
a chunk to the engine together); each finished chunk is written atomically to
``parts/<key>.json``, the key hashing the chunk's consultations and every setting that changes its
results (:func:`settings_fingerprint`). A rerun reuses the parts it finds and recomputes the others,
then assembles the outputs in input order, byte-identical to an uninterrupted run.

Physician review: ``mccp.validation.decisions=<filled validation.csv>`` applies a sheet to the
outputs of an earlier run (:func:`apply_validation`, no engine): see :mod:`.instances` for the CSV.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_rows, write_text

log = logging.getLogger(__name__)


def read_consultations(path: Path) -> list[Any]:
    """The consultations of a JSONL file; a bad line stops with its line number (never its text)."""
    from medrealmm.corpus.schema import Consultation
    from medrealmm.mccp.instances import read_models

    return read_models(path, Consultation, ValueError, "consultation")


PART_VERSION = 1          # bump when the part layout or the meaning of a field changes
VALIDATION_RESULT = "result.json"


def _mode(cfg: dict[str, Any]) -> str:
    m, model = cfg["mccp"], cfg["model"]
    return str(m.get("mode") or ("multimodal" if model.get("modality", "multimodal") == "multimodal" else "text"))


def labels_from(spec: Any) -> dict[str, list[str]]:
    """The intent and stage labels a dataset's cases carry (most frequent first): annotate new
    instances with the label sets of the benchmark they join (``mccp.annotate.labels_from``)."""
    from collections import Counter

    from medrealmm.data import load_dataset

    data = dict(spec) if isinstance(spec, dict) else {"format": "jsonl", "path": str(spec)}
    data.setdefault("check_images", False)
    ds = load_dataset(data)
    out = {}
    for field, key in (("intent", "intents"), ("stage", "stages")):
        counts = Counter(getattr(c, field) for c in ds.cases if getattr(c, field))
        if len(counts) < 2:
            raise ValueError(f"mccp.annotate.labels_from: {ds.source} has {len(counts)} distinct {field} value(s); "
                             "at least 2 are needed to label with")
        out[key] = [v for v, _ in counts.most_common()]
    return out


def settings_fingerprint(cfg: dict[str, Any]) -> str:
    """Hash of every setting that changes a chunk's results: model (name, path, revision, engine…),
    backend kind/device/dtype, agent and annotator prompts and sampling, mode, images, retries,
    structured outputs, seed. Throughput settings (``chunk_size``, batch sizes) are left out."""
    from medrealmm.inference.engines import spec_hash
    from medrealmm.mccp import agents, annotate
    from medrealmm.schema import stable_hash

    m, model = cfg["mccp"], cfg["model"]
    role = {k: v for k, v in model.items() if k != "sampling"}   # the model's own sampling is unused here
    return stable_hash({
        "version": PART_VERSION,
        "model": {"name": model.get("name"), "revision": model.get("revision"),
                  "spec": spec_hash(role, cfg["backend"])},
        "prompts": [agents.AGENT_A_SYSTEM, agents.AGENT_A_TRAJECTORY_SYSTEM, agents.AGENT_M_SYSTEM, annotate._SYSTEM,
                    agents.AGENT_SCHEMA, annotate.DEFINITIONS],
        "agent_a_view": str(m.get("agent_a_view", "trajectory")),
        "mode": _mode(cfg), "seed": int(cfg["run"]["seed"]),
        "agents": m.get("agents") or {}, "annotate": m.get("annotate") or {},
        "structured": bool(m.get("structured", True)), "max_images": int(m.get("max_images", 10)),
        "max_retries": int(m.get("max_retries", 2)), "retry_temperature": float(m.get("retry_temperature", 0.7)),
        "image_origins": list(m.get("image_origins") or ()),
        "chat_template_kwargs": dict(model.get("chat_template_kwargs") or {}),
    })


def part_key(fingerprint: str, chunk: Sequence[Any], root: Path | None = None) -> str:
    """A chunk's part name: its consultations (content, in order) under the settings fingerprint, and
    — with ``root`` — the bytes of their images, so an image replaced under the same path is asked again."""
    import hashlib

    from medrealmm.schema import stable_hash

    images: list[str] = []
    if root is not None:
        for c in chunk:
            for e in c.events:
                if e.modality == "image":
                    f = root / e.content
                    images.append(hashlib.sha256(f.read_bytes()).hexdigest() if f.is_file() else "missing")
    return stable_hash([fingerprint, [c.model_dump(mode="json") for c in chunk], images])[:24]


def _read_part(path: Path, ids: list[str]) -> dict[str, Any] | None:
    """A finished part, or None when absent or not the one expected (then it is recomputed)."""
    if not path.is_file():
        return None
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.warning("mccp: part %s is unreadable; recomputing it", path.name)
        return None
    if not isinstance(body, dict) or body.get("version") != PART_VERSION or body.get("ids") != ids:
        log.warning("mccp: part %s does not match its chunk; recomputing it", path.name)
        return None
    return body


def _add_stats(total: dict[str, Counter[str]], part: dict[str, dict[str, int]]) -> None:
    for group, values in part.items():
        total.setdefault(group, Counter()).update(values)


class _ChunkRunner:
    """Runs one chunk of consultations: agents → t* → instances → intent/stage (engine loaded lazily)."""

    def __init__(self, cfg: dict[str, Any], image_bytes: Any):
        from medrealmm.inference.engines import EnginePool

        self.cfg, self.m, self.model = cfg, cfg["mccp"], cfg["model"]
        self.image_bytes = image_bytes
        self.seed = int(cfg["run"]["seed"])
        self.mode = _mode(cfg)
        self.pool = EnginePool(str(Path(cfg["paths"]["cache"]).expanduser()), self.seed)
        self.engine: dict[str, Any] | None = None

    def backend(self) -> Any:
        from medrealmm.inference.base import describe_backend

        backend = self.pool.get(self.model, self.cfg["backend"])
        if self.engine is None:
            self.engine = describe_backend(backend)
        return backend

    def close(self) -> None:
        self.pool.close()

    def run(self, chunk: Sequence[Any]) -> dict[str, Any]:
        from medrealmm.inference.base import Sampling
        from medrealmm.mccp.agents import CandidateRef, ChallengeAgents
        from medrealmm.mccp.annotate import Annotator
        from medrealmm.mccp.instances import DEFAULT_IMAGE_ORIGINS, InstanceError, build_instance
        from medrealmm.mccp.select import candidate_positions, select_challenge_point

        m, seed = self.m, self.seed
        template_kwargs = dict(self.model.get("chat_template_kwargs") or {})
        common: dict[str, Any] = dict(
            max_retries=int(m.get("max_retries", 2)), retry_temperature=float(m.get("retry_temperature", 0.7)),
            chunk_size=int(m.get("chunk_size", 64)), structured=bool(m.get("structured", True)),
            chat_template_kwargs=template_kwargs, seed=seed)
        stats: dict[str, dict[str, int]] = {}
        by_id = {c.id: candidate_positions(c.events) for c in chunk}
        cands = [CandidateRef(c, t) for c in chunk for t in by_id[c.id]]
        outcomes = {}
        if cands:
            a_cfg = m.get("agents") or {}
            agents = ChallengeAgents(self.backend(), image_bytes=self.image_bytes,
                                     mode=self.mode,  # type: ignore[arg-type]
                                     sampling=Sampling.from_config(a_cfg.get("sampling"), seed=seed),
                                     max_images=int(m.get("max_images", 10)),
                                     a_view=str(m.get("agent_a_view", "trajectory")), **common)
            outcomes = agents.score(cands)
            stats["agents"] = dict(agents.stats)
        instances, discarded = [], []
        reasons: Counter[str] = Counter()
        origins = tuple(m.get("image_origins") or DEFAULT_IMAGE_ORIGINS)
        for c in chunk:
            pos = by_id[c.id]
            sel = select_challenge_point(pos, {t: outcomes[(c.id, t, "A")].value for t in pos},
                                         {t: outcomes[(c.id, t, "M")].value for t in pos})
            if not sel.selected:
                reasons[sel.reason or "unknown"] += 1
                discarded.append({"id": c.id, "reason": sel.reason, "n_candidates": sel.n_candidates,
                                  "n_unscored": sel.n_unscored})
                continue
            try:
                instances.append(build_instance(c, sel, image_origins=origins))
            except InstanceError:
                reasons["invalid_instance"] += 1
                discarded.append({"id": c.id, "reason": "invalid_instance", "n_candidates": sel.n_candidates,
                                  "n_unscored": sel.n_unscored})
        ann_cfg = m.get("annotate") or {}
        if instances and ann_cfg.get("enabled", True):
            kw: dict[str, Any] = {}
            if ann_cfg.get("intents"):
                kw["intents"] = list(ann_cfg["intents"])
            if ann_cfg.get("stages"):
                kw["stages"] = list(ann_cfg["stages"])
            if ann_cfg.get("labels_from"):
                kw.update(labels_from(ann_cfg["labels_from"]))
            annotator = Annotator(self.backend(), **common, **kw,
                                  sampling=Sampling.from_config(ann_cfg.get("sampling"), seed=seed))
            instances = annotator.annotate(instances)
            stats["annotate"] = dict(annotator.stats)
        return {"version": PART_VERSION, "ids": [c.id for c in chunk], "candidates": len(cands),
                "instances": [i.model_dump(mode="json") for i in instances], "discarded": discarded,
                "reasons": dict(reasons), "stats": stats, "engine": self.engine if cands else None}


def run_mccp(cfg: dict[str, Any]) -> dict[str, Any]:
    """Run Phase 2 on ``cfg["mccp"]["input"]``; writes ``instances.jsonl`` (pre-rubric),
    ``discarded.jsonl`` (id + reason) and ``counts.json`` under ``mccp.out_dir``; returns the counts.
    With ``mccp.validation.decisions`` set it applies a physician sheet instead (no engine)."""
    from tqdm import tqdm

    from medrealmm.mccp.instances import Instance, export_validation

    m = cfg["mccp"]
    val = m.get("validation") or {}
    if val.get("decisions"):
        return apply_validation(cfg)
    if not m.get("input"):
        raise ValueError("mccp.input is not set: point it at the funnel's kept consultations (JSONL)")
    src = Path(str(m["input"])).expanduser()
    if src.is_dir():
        src = src / "consultations.jsonl"
    root = src.parent                                      # image paths are relative to the log's folder
    out_dir = Path(str(m["out_dir"])).expanduser()
    parts_dir = out_dir / "parts"
    parts_dir.mkdir(parents=True, exist_ok=True)
    seed = int(cfg["run"]["seed"])
    size = int(m.get("chunk_consultations", 256))
    if size < 1:
        raise ValueError(f"mccp.chunk_consultations must be >= 1, got {size}")
    consultations = read_consultations(src)

    def image_bytes(path: str) -> bytes:
        return (root / path).read_bytes()

    fingerprint = settings_fingerprint(cfg)
    chunks = [consultations[k:k + size] for k in range(0, len(consultations), size)]
    names = [part_key(fingerprint, ch, root) for ch in chunks]
    runner = _ChunkRunner(cfg, image_bytes)
    reused = 0
    engine: dict[str, Any] | None = None
    bodies: list[dict[str, Any]] = []
    try:
        for chunk, name in zip(tqdm(chunks, desc="mccp", unit="chunk", disable=None), names, strict=True):
            path = parts_dir / f"{name}.json"
            ids = [c.id for c in chunk]
            body = _read_part(path, ids)
            if body is None:
                body = runner.run(chunk)
                text = json.dumps(body, ensure_ascii=False)
                write_text(path, text)
                body = json.loads(text)          # what a resumed run reads: the same bytes either way
            else:
                reused += 1
            engine = engine or body.get("engine")
            bodies.append(body)
    finally:
        runner.close()
    log.info("mccp: reused %d of %d finished part(s) from %s", reused, len(chunks), parts_dir)
    stale = [f for f in parts_dir.glob("*.json") if f.stem not in set(names)]
    for f in stale:                      # parts of other inputs or settings: unreachable from this run
        f.unlink()
    if stale:
        log.info("mccp: removed %d part(s) of earlier inputs or settings", len(stale))

    instances: list[Instance] = []
    discarded: list[dict[str, Any]] = []
    reasons: Counter[str] = Counter()
    stats: dict[str, Counter[str]] = {}
    n_cands = 0
    for body in bodies:
        instances += [Instance.model_validate(d) for d in body["instances"]]
        discarded += body["discarded"]
        reasons.update(body["reasons"])
        _add_stats(stats, body["stats"])
        n_cands += int(body["candidates"])
    mode = _mode(cfg)
    kept, rejected, applied = _reapply_stored_decisions(out_dir, instances)
    n = _write_instance_files(out_dir, kept, rejected if applied is not None else None)
    write_rows(out_dir / "discarded.jsonl", discarded)
    counts: dict[str, Any] = {"consultations": len(consultations), "candidates": n_cands,
                              "instances": len(instances),
                              "discarded": len(discarded), "discard_reasons": dict(reasons), "mode": mode,
                              "input": str(src), "dataset_root": str(root.resolve()), "parts": len(chunks),
                              **{k: dict(v) for k, v in stats.items()}}
    if applied is not None:
        counts["validation_applied"] = applied
    if instances and val.get("enabled", True):
        v_seed = val.get("seed")
        counts["validation"] = export_validation(instances, out_dir / "validation", n=int(val.get("n", 200)),
                                                 seed=seed if v_seed is None else int(v_seed),
                                                 image_bytes=image_bytes)
    write_text(out_dir / "counts.json", json.dumps(counts, ensure_ascii=False, indent=2))
    from medrealmm.manifest import build_manifest, write_json

    write_json(out_dir / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(src)}, engines={"model": engine} if engine else {}, stats=counts,
        seeds={"run.seed": seed}))
    log.info("mccp: %d consultations, %d candidates, %d instances (%d in instances.jsonl), %d discarded %s",
             len(consultations), n_cands, len(instances), n, len(discarded), dict(reasons))
    return counts


# --- physician decisions -------------------------------------------------------------------------

def _write_instance_files(out_dir: Path, kept: Sequence[Any], rejected: Sequence[Any] | None) -> int:
    """``instances.jsonl`` (what Phase 3 reads) and, when decisions apply, ``rejected.jsonl``."""
    from medrealmm.mccp.instances import write_instances

    n = write_instances(kept, out_dir / "instances.jsonl")
    if rejected is not None:
        write_instances(rejected, out_dir / "rejected.jsonl")
    return n


def _reapply_stored_decisions(out_dir: Path, instances: list[Any]
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


def _input_order(cfg: dict[str, Any]) -> dict[str, int] | None:
    """Consultation ids by input position (to put a re-accepted instance back in place), if readable."""
    src = cfg["mccp"].get("input")
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


def apply_validation(cfg: dict[str, Any]) -> dict[str, Any]:
    """Apply a physician sheet (``mccp.validation.decisions``) to an earlier run's outputs, no engine.

    The sheet is the complete review: decided instances get ``meta.mccp.validation``
    (``{"decision": "accept"|"reject", "note": <comment or null>}``), rejected ones move from
    ``instances.jsonl`` to ``rejected.jsonl`` (kept), the rest stay undecided (an earlier mark is
    removed). Writes ``validation/result.json`` (counts, rate, the decisions with a hash of the
    reviewed instance so a rerun reapplies them); applying the same sheet twice changes nothing."""
    from medrealmm.mccp.instances import (ValidationSheetError, apply_decisions, instance_hash, read_decisions,
                                          read_instances)

    m = cfg["mccp"]
    out_dir = Path(str(m["out_dir"])).expanduser()
    sheet = Path(str(m["validation"]["decisions"])).expanduser()
    if not sheet.is_file():
        raise FileNotFoundError(f"mccp.validation.decisions: {sheet} not found")
    inst_path, rej_path = out_dir / "instances.jsonl", out_dir / "rejected.jsonl"
    if not inst_path.is_file():
        raise FileNotFoundError(f"{inst_path} not found: run `medrealmm mccp` first (same mccp.out_dir)")
    current = read_instances(inst_path)
    earlier = read_instances(rej_path) if rej_path.is_file() else []
    pool = current + earlier
    order = _input_order(cfg) if earlier else None
    if order:   # put earlier rejections back in input order (else after the current instances)
        pool.sort(key=lambda i: order.get(i.id, len(order)))
    decisions = read_decisions(sheet, [i.id for i in pool], allow_blank=True)
    if not decisions:
        raise ValidationSheetError(f"{sheet}: no decided rows (fill the accept column with yes or no)")
    kept, rejected = apply_decisions(pool, decisions)
    _write_instance_files(out_dir, kept, rejected)
    accepted = sum(d.decision == "accept" for d in decisions.values())
    hashes = {i.id: instance_hash(i) for i in pool}
    result = {"decisions_file": str(sheet), "n_decided": len(decisions), "accepted": accepted,
              "rejected": len(decisions) - accepted, "rate": accepted / len(decisions),
              "undecided": len(pool) - len(decisions),
              "decisions": {cid: {"decision": d.decision, "note": d.note, "row": d.row, "instance": hashes[cid]}
                            for cid, d in decisions.items()}}
    (out_dir / "validation").mkdir(parents=True, exist_ok=True)
    write_text(out_dir / "validation" / VALIDATION_RESULT,
                  json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    log.info("mccp validation: %d decided, %d accepted, %d rejected (acceptance %.1f%%), %d undecided; "
             "%d in instances.jsonl, %d in rejected.jsonl", result["n_decided"], accepted, result["rejected"],
             100 * result["rate"], result["undecided"], len(kept), len(rejected))
    return {k: v for k, v in result.items() if k != "decisions"}
