"""Phase 2 on the funnel's kept consultations (``medrealmm mccp``), in resumable chunks.

The consultations go through in chunks of ``mccp.chunk_consultations`` (all candidates of a chunk to the
engine together); each finished chunk is written atomically to ``parts/<key>.json``, the key hashing the
chunk's consultations and every setting that changes its results (:func:`settings_fingerprint`). A rerun
reuses the parts it finds and recomputes the others, then assembles the outputs in input order,
byte-identical to an uninterrupted run.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrealmm.atomic import write_rows, write_text
from medrealmm.mccp.settings import MccpSettings
from medrealmm.mccp.validation import apply_validation, reapply_stored_decisions, write_instance_files

log = logging.getLogger(__name__)

PART_VERSION = 1          # bump when the part layout or the meaning of a field changes


def read_consultations(path: Path) -> list[Any]:
    """The consultations of a JSONL file; a bad line stops with its line number (never its text)."""
    from medrealmm.corpus.schema import Consultation
    from medrealmm.mccp.instances import read_models

    return read_models(path, Consultation, ValueError, "consultation")


def run_mccp(cfg: dict[str, Any]) -> dict[str, Any]:
    """Run Phase 2 on ``cfg["mccp"]["input"]``; writes ``instances.jsonl`` (pre-rubric),
    ``discarded.jsonl`` (id + reason) and ``counts.json`` under ``mccp.out_dir``; returns the counts.
    With ``mccp.validation.decisions`` set it applies a physician sheet instead (no engine). Every ``mccp``
    setting is checked first (:class:`~medrealmm.config_schema.ConfigError` names a bad one)."""
    s = MccpSettings.of(cfg["mccp"], "mccp")
    if s.validation.decisions:
        return apply_validation(cfg, s)
    src, out_dir = _input_file(s), s.out_path
    root = src.parent                                      # image paths are relative to the log's folder
    parts_dir = out_dir / "parts"
    parts_dir.mkdir(parents=True, exist_ok=True)
    size = s.chunk_consultations
    consultations = read_consultations(src)
    image_bytes = _image_reader(root)
    chunks = [consultations[k:k + size] for k in range(0, len(consultations), size)]
    bodies = _finished_parts(cfg, s, chunks, root, parts_dir, image_bytes)
    merged = _Merged.of(bodies)
    counts = _write_outputs(cfg, s, out_dir, merged, image_bytes, {
        "consultations": len(consultations), "candidates": merged.n_candidates, "instances": len(merged.instances),
        "discarded": len(merged.discarded), "discard_reasons": dict(merged.reasons),
        "mode": s.mode_for(cfg["model"]),
        "input": str(src), "dataset_root": str(root.resolve()), "parts": len(chunks),
        **{k: dict(v) for k, v in merged.stats.items()}})
    from medrealmm.manifest import build_manifest, write_json

    write_json(out_dir / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(src)}, engines={"model": merged.engine} if merged.engine else {},
        stats=counts, seeds={"run.seed": int(cfg["run"]["seed"])}))
    return counts


def _input_file(s: MccpSettings) -> Path:
    """The kept consultations' JSONL (``mccp.input``: the file, or the funnel's output folder)."""
    if not s.input:
        raise ValueError("mccp.input is not set: point it at the funnel's kept consultations (JSONL)")
    src = Path(s.input).expanduser()
    return src / "consultations.jsonl" if src.is_dir() else src


def _image_reader(root: Path) -> Callable[[str], bytes]:
    def image_bytes(path: str) -> bytes:
        return (root / path).read_bytes()

    return image_bytes


def _finished_parts(cfg: dict[str, Any], s: MccpSettings, chunks: list[list[Any]], root: Path, parts_dir: Path,
                    image_bytes: Callable[[str], bytes]) -> list[dict[str, Any]]:
    """Every chunk's part, in input order: reused when finished earlier, else computed and written; parts of
    other inputs or settings are removed."""
    from tqdm import tqdm

    fingerprint = settings_fingerprint(cfg, s)
    names = [part_key(fingerprint, ch, root) for ch in chunks]
    runner = _ChunkRunner(cfg, s, image_bytes)
    reused = 0
    bodies: list[dict[str, Any]] = []
    try:
        for chunk, name in zip(tqdm(chunks, desc="mccp", unit="chunk", disable=None), names, strict=True):
            path = parts_dir / f"{name}.json"
            body = _read_part(path, [c.id for c in chunk])
            if body is None:
                text = json.dumps(runner.run(chunk), ensure_ascii=False)
                write_text(path, text)
                body = json.loads(text)          # what a resumed run reads: the same bytes either way
            else:
                reused += 1
            bodies.append(body)
    finally:
        runner.close()
    log.info("mccp: reused %d of %d finished part(s) from %s", reused, len(chunks), parts_dir)
    stale = [f for f in parts_dir.glob("*.json") if f.stem not in set(names)]
    for f in stale:                      # parts of other inputs or settings: unreachable from this run
        f.unlink()
    if stale:
        log.info("mccp: removed %d part(s) of earlier inputs or settings", len(stale))
    return bodies


@dataclass
class _Merged:
    """The parts' results together, in input order."""

    instances: list[Any] = field(default_factory=list)
    discarded: list[dict[str, Any]] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    stats: dict[str, Counter[str]] = field(default_factory=dict)
    n_candidates: int = 0
    engine: dict[str, Any] | None = None       # the first part's engine description that has one

    @classmethod
    def of(cls, bodies: Sequence[dict[str, Any]]) -> _Merged:
        from medrealmm.mccp.instances import Instance

        out = cls()
        for body in bodies:
            out.engine = out.engine or body.get("engine")
            out.instances += [Instance.model_validate(d) for d in body["instances"]]
            out.discarded += body["discarded"]
            out.reasons.update(body["reasons"])
            _add_stats(out.stats, body["stats"])
            out.n_candidates += int(body["candidates"])
        return out


def _write_outputs(cfg: dict[str, Any], s: MccpSettings, out_dir: Path, merged: _Merged,
                   image_bytes: Callable[[str], bytes], counts: dict[str, Any]) -> dict[str, Any]:
    """``instances.jsonl`` (stored physician decisions applied again), ``discarded.jsonl``, the validation
    sheet and ``counts.json``; returns the counts."""
    from medrealmm.mccp.instances import export_validation

    val = s.validation
    kept, rejected, applied = reapply_stored_decisions(out_dir, merged.instances)
    n = write_instance_files(out_dir, kept, rejected if applied is not None else None)
    write_rows(out_dir / "discarded.jsonl", merged.discarded)
    if applied is not None:
        counts["validation_applied"] = applied
    if merged.instances and val.enabled:
        seed = int(cfg["run"]["seed"]) if val.seed is None else val.seed
        counts["validation"] = export_validation(merged.instances, out_dir / "validation", n=val.n, seed=seed,
                                                 image_bytes=image_bytes)
    write_text(out_dir / "counts.json", json.dumps(counts, ensure_ascii=False, indent=2))
    log.info("mccp: %d consultations, %d candidates, %d instances (%d in instances.jsonl), %d discarded %s",
             counts["consultations"], merged.n_candidates, len(merged.instances), n, len(merged.discarded),
             dict(merged.reasons))
    return counts


def labels_from(spec: Any) -> dict[str, list[str]]:
    """The intent and stage labels a dataset's cases carry (most frequent first): annotate new
    instances with the label sets of the benchmark they join (``mccp.annotate.labels_from``)."""
    from collections import Counter

    from medrealmm.data import load_dataset

    data = dict(spec) if isinstance(spec, dict) else {"format": "jsonl", "path": str(spec)}
    data.setdefault("check_images", False)
    ds = load_dataset(data)
    out = {}
    for attr, key in (("intent", "intents"), ("stage", "stages")):
        counts = Counter(getattr(c, attr) for c in ds.cases if getattr(c, attr))
        if len(counts) < 2:
            raise ValueError(f"mccp.annotate.labels_from: {ds.source} has {len(counts)} distinct {attr} value(s); "
                             "at least 2 are needed to label with")
        out[key] = [v for v, _ in counts.most_common()]
    return out


def settings_fingerprint(cfg: dict[str, Any], settings: MccpSettings | None = None) -> str:
    """Hash of every setting that changes a chunk's results: model (name, path, revision, engine…),
    backend kind/device/dtype, agent and annotator prompts and sampling, mode, images, retries,
    structured outputs, seed. Throughput settings (``chunk_size``, batch sizes) are left out. ``settings``:
    the ``mccp`` group read already (default: read from ``cfg``)."""
    from medrealmm.inference.engines import spec_hash
    from medrealmm.mccp import agents, annotate
    from medrealmm.schema import stable_hash

    s = settings if settings is not None else MccpSettings.of(cfg["mccp"], "mccp")
    model = cfg["model"]
    role = {k: v for k, v in model.items() if k != "sampling"}   # the model's own sampling is unused here
    return stable_hash({
        "version": PART_VERSION,
        "model": {"name": model.get("name"), "revision": model.get("revision"),
                  "spec": spec_hash(role, cfg["backend"])},
        "prompts": [agents.AGENT_A_SYSTEM, agents.AGENT_A_TRAJECTORY_SYSTEM, agents.AGENT_M_SYSTEM, annotate._SYSTEM,
                    agents.AGENT_SCHEMA, annotate.DEFINITIONS],
        "agent_a_view": s.agent_a_view,
        "mode": s.mode_for(model), "seed": int(cfg["run"]["seed"]),
        "agents": s.agents.model_dump(), "annotate": s.annotate.model_dump(),
        "structured": s.structured, "max_images": s.max_images,
        "max_retries": s.max_retries, "retry_temperature": s.retry_temperature,
        "image_origins": list(s.image_origins),
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

    def __init__(self, cfg: dict[str, Any], settings: MccpSettings, image_bytes: Any):
        from medrealmm.inference.engines import EnginePool

        self.cfg, self.s, self.model = cfg, settings, cfg["model"]
        self.image_bytes = image_bytes
        self.seed = int(cfg["run"]["seed"])
        self.mode = settings.mode_for(self.model)
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
        """The chunk's part: its instances (annotated), the consultations discarded and why, the stats."""
        from medrealmm.mccp.agents import CandidateRef
        from medrealmm.mccp.select import candidate_positions

        stats: dict[str, dict[str, int]] = {}
        by_id = {c.id: candidate_positions(c.events) for c in chunk}
        cands = [CandidateRef(c, t) for c in chunk for t in by_id[c.id]]
        outcomes = self._score(cands, stats) if cands else {}
        instances, discarded, reasons = self._select(chunk, by_id, outcomes)
        instances = self._annotate(instances, stats)
        return {"version": PART_VERSION, "ids": [c.id for c in chunk], "candidates": len(cands),
                "instances": [i.model_dump(mode="json") for i in instances], "discarded": discarded,
                "reasons": dict(reasons), "stats": stats, "engine": self.engine if cands else None}

    def _common(self) -> dict[str, Any]:
        """The retry, batching and structured-output settings the agents and the annotator share."""
        s = self.s
        return dict(
            max_retries=s.max_retries, retry_temperature=s.retry_temperature,
            chunk_size=s.chunk_size, structured=s.structured,
            chat_template_kwargs=dict(self.model.get("chat_template_kwargs") or {}), seed=self.seed)

    def _score(self, cands: list[Any], stats: dict[str, dict[str, int]]) -> dict[Any, Any]:
        """Agents A and M on every candidate position."""
        from medrealmm.inference.base import Sampling
        from medrealmm.mccp.agents import ChallengeAgents

        s = self.s
        agents = ChallengeAgents(self.backend(), image_bytes=self.image_bytes,
                                 mode=self.mode,  # type: ignore[arg-type]
                                 sampling=Sampling.from_config(s.agents.sampling, seed=self.seed),
                                 max_images=s.max_images, a_view=s.agent_a_view, **self._common())
        outcomes = agents.score(cands)
        stats["agents"] = dict(agents.stats)
        return outcomes

    def _select(self, chunk: Sequence[Any], by_id: dict[str, list[int]], outcomes: dict[Any, Any]
                ) -> tuple[list[Any], list[dict[str, Any]], Counter[str]]:
        """t* per consultation and its pre-rubric instance; the others discarded, with the reason."""
        from medrealmm.mccp.instances import DEFAULT_IMAGE_ORIGINS, InstanceError, build_instance
        from medrealmm.mccp.select import select_challenge_point

        instances, discarded = [], []
        reasons: Counter[str] = Counter()
        origins = tuple(self.s.image_origins or DEFAULT_IMAGE_ORIGINS)
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
        return instances, discarded, reasons

    def _annotate(self, instances: list[Any], stats: dict[str, dict[str, int]]) -> list[Any]:
        """Intent and stage labels (``mccp.annotate``), unless turned off."""
        from medrealmm.inference.base import Sampling
        from medrealmm.mccp.annotate import Annotator

        ann = self.s.annotate
        if not instances or not ann.enabled:
            return instances
        kw: dict[str, Any] = {}
        if ann.intents:
            kw["intents"] = list(ann.intents)
        if ann.stages:
            kw["stages"] = list(ann.stages)
        if ann.labels_from:
            kw.update(labels_from(ann.labels_from))
        annotator = Annotator(self.backend(), **self._common(), **kw,
                              sampling=Sampling.from_config(ann.sampling, seed=self.seed))
        instances = annotator.annotate(instances)
        stats["annotate"] = dict(annotator.stats)
        return instances
