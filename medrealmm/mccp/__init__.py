"""Phase 2 — multimodal clinical challenge points (MCCP).

candidates (:mod:`.select`) → agents A and M (:mod:`.agents`) → t* (:mod:`.select`) →
pre-rubric instances (:mod:`.instances`) → intent/stage (:mod:`.annotate`). :func:`run_mccp` runs it
on the funnel's kept consultations (a JSONL of :class:`~medrealmm.corpus.schema.Consultation`).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def read_consultations(path: Path) -> list[Any]:
    """The consultations of a JSONL file; a bad line stops with its line number (never its text)."""
    from medrealmm.corpus.schema import Consultation
    from medrealmm.mccp.instances import read_models

    return read_models(path, Consultation, ValueError, "consultation")


def _describe(backend: Any) -> dict[str, Any]:
    try:
        return dict(backend.describe())
    except Exception as e:  # describing must never fail a run
        return {"describe_error": type(e).__name__}


def run_mccp(cfg: dict[str, Any]) -> dict[str, Any]:
    """Run Phase 2 on ``cfg["mccp"]["input"]``; writes ``instances.jsonl`` (pre-rubric),
    ``discarded.jsonl`` (id + reason) and ``counts.json`` under ``mccp.out_dir``; returns the counts."""
    from medrealmm.inference.base import Sampling
    from medrealmm.inference.engines import EnginePool
    from medrealmm.mccp.agents import CandidateRef, ChallengeAgents
    from medrealmm.mccp.annotate import Annotator
    from medrealmm.mccp.instances import (DEFAULT_IMAGE_ORIGINS, InstanceError, build_instance,
                                          export_validation, write_instances)
    from medrealmm.mccp.select import candidate_positions, select_challenge_point

    m = cfg["mccp"]
    if not m.get("input"):
        raise ValueError("mccp.input is not set: point it at the funnel's kept consultations (JSONL)")
    src = Path(str(m["input"])).expanduser()
    if src.is_dir():
        src = src / "consultations.jsonl"
    root = src.parent                                      # image paths are relative to the log's folder
    out_dir = Path(str(m["out_dir"])).expanduser()
    out_dir.mkdir(parents=True, exist_ok=True)
    seed = int(cfg["run"]["seed"])
    consultations = read_consultations(src)

    def image_bytes(path: str) -> bytes:
        return (root / path).read_bytes()

    discarded: list[dict[str, Any]] = []
    reasons: Counter[str] = Counter()
    cands = []
    by_id: dict[str, list[int]] = {}
    for c in consultations:
        pos = candidate_positions(c.events)
        by_id[c.id] = pos
        cands += [CandidateRef(c, t) for t in pos]
    model = cfg["model"]
    template_kwargs = dict(model.get("chat_template_kwargs") or {})
    mode = m.get("mode") or ("multimodal" if model.get("modality", "multimodal") == "multimodal" else "text")
    pool = EnginePool(str(Path(cfg["paths"]["cache"]).expanduser()), seed)
    stats: dict[str, Any] = {}
    engines: dict[str, Any] = {}
    try:
        outcomes = {}
        if cands:
            backend = pool.get(model, cfg["backend"])
            engines["model"] = _describe(backend)
            a_cfg = m.get("agents") or {}
            agents = ChallengeAgents(
                backend, image_bytes=image_bytes, mode=mode,
                sampling=Sampling.from_config(a_cfg.get("sampling"), seed=seed),
                max_retries=int(m.get("max_retries", 2)), retry_temperature=float(m.get("retry_temperature", 0.7)),
                chunk_size=int(m.get("chunk_size", 64)), structured=bool(m.get("structured", True)),
                chat_template_kwargs=template_kwargs, seed=seed, max_images=int(m.get("max_images", 8)))
            outcomes = agents.score(cands)
            stats["agents"] = dict(agents.stats)
        instances = []
        origins = tuple(m.get("image_origins") or DEFAULT_IMAGE_ORIGINS)
        for c in consultations:
            pos = by_id[c.id]
            a = {t: outcomes[(c.id, t, "A")].value for t in pos}
            mm = {t: outcomes[(c.id, t, "M")].value for t in pos}
            sel = select_challenge_point(pos, a, mm)
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
            backend = pool.get(model, cfg["backend"])
            kw: dict[str, Any] = {}
            if ann_cfg.get("intents"):
                kw["intents"] = list(ann_cfg["intents"])
            if ann_cfg.get("stages"):
                kw["stages"] = list(ann_cfg["stages"])
            annotator = Annotator(backend, sampling=Sampling.from_config(ann_cfg.get("sampling"), seed=seed),
                                  max_retries=int(m.get("max_retries", 2)),
                                  retry_temperature=float(m.get("retry_temperature", 0.7)),
                                  chunk_size=int(m.get("chunk_size", 64)), structured=bool(m.get("structured", True)),
                                  chat_template_kwargs=template_kwargs, seed=seed, **kw)
            instances = annotator.annotate(instances)
            stats["annotate"] = dict(annotator.stats)
    finally:
        pool.close()
    n = write_instances(instances, out_dir / "instances.jsonl")
    with (out_dir / "discarded.jsonl").open("w", encoding="utf-8") as f:
        for d in discarded:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    counts: dict[str, Any] = {"consultations": len(consultations), "candidates": len(cands), "instances": n,
                              "discarded": len(discarded), "discard_reasons": dict(reasons), "mode": mode,
                              "input": str(src), "dataset_root": str(root), **stats}
    val = m.get("validation") or {}
    if instances and val.get("enabled", True):
        v_seed = val.get("seed")
        counts["validation"] = export_validation(instances, out_dir / "validation", n=int(val.get("n", 200)),
                                                 seed=seed if v_seed is None else int(v_seed),
                                                 image_bytes=image_bytes)
    (out_dir / "counts.json").write_text(json.dumps(counts, ensure_ascii=False, indent=2), encoding="utf-8")
    from medrealmm.manifest import build_manifest, write_json

    write_json(out_dir / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(src)}, engines=engines, stats=counts, seeds={"run.seed": seed}))
    log.info("mccp: %d consultations, %d candidates, %d instances, %d discarded %s", len(consultations), len(cands),
             n, len(discarded), dict(reasons))
    return counts
