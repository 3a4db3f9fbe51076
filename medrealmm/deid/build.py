"""Build the de-identification stage from config and run it (``medrealmm deid`` / ``deid-review``)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from medrealmm.deid.stage import DeidConfig, DeidFailed, DeidStage, TextMasker
from medrealmm.store import stable_hash

log = logging.getLogger(__name__)


def image_detectors(cfg: dict[str, Any]) -> list[Any]:
    """The enabled detectors of ``deid.image.detectors``, each built by its ``kind``."""
    from medrealmm.deid.image.base import make_detector

    out = []
    for name, spec in (cfg["deid"]["image"].get("detectors") or {}).items():
        if not spec or not spec.get("enabled", True):
            continue
        if spec.get("kind") == "yunet" and not spec.get("model"):
            raise DeidFailed(f"deid.image.detectors.{name}: faces are detected with OpenCV YuNet, which needs its "
                             f"model file: set deid.image.detectors.{name}.model=/path/face_detection_yunet_*.onnx "
                             f"(OpenCV Zoo), or turn face masking off with deid.image.detectors.{name}.enabled=false")
        if spec.get("kind") == "yolo" and not spec.get("weights"):
            raise DeidFailed(f"deid.image.detectors.{name}: a YOLO detector needs weights: set "
                             f"deid.image.detectors.{name}.weights=/path/best.pt (train a QR/barcode one with "
                             "`medrealmm deid-train-qr`)")
        try:
            det = make_detector({k: v for k, v in spec.items() if k != "enabled"})
        except (FileNotFoundError, ValueError) as e:
            raise DeidFailed(f"deid.image.detectors.{name}: {e}") from e
        out.append(det)
    return out


def text_masker(cfg: dict[str, Any]) -> tuple[TextMasker, Any | None]:
    """Rules and the statistical layer (:func:`~medrealmm.deid.text_detect.build_text_detector`, the
    builder :func:`medrealmm.deid.detect_text` uses too), plus the LLM agent on the ``model``/``backend``
    groups when ``deid.text.agent``."""
    from medrealmm.deid.text_detect import build_text_detector

    text = cfg["deid"]["text"]
    if not text.get("rules", True) and not text.get("statistical", True) and not text.get("agent"):
        raise DeidFailed("deid.text.rules, deid.text.statistical and deid.text.agent are all false: nothing would "
                         "mask the text")
    try:
        detector = build_text_detector(text)
    except ValueError as e:
        raise DeidFailed(f"deid.text: {e}") from e
    rules = detector if (detector.rules is not None or detector.statistical is not None) else _NoRules()
    agent, pool = None, None
    if text.get("agent"):
        from medrealmm.deid.agent import AgentDetector
        from medrealmm.inference.engines import EnginePool

        pool = EnginePool(str(Path(cfg["paths"]["cache"]).expanduser()), int(cfg["run"]["seed"]))
        backend = pool.get(cfg["model"], cfg["backend"])
        agent = AgentDetector(backend, chunk_size=int(text.get("agent_chunk_size", 64)))
    return TextMasker(rules, agent), pool


class _NoRules:
    def detect(self, texts: list[str]) -> list[list[Any]]:
        return [[] for _ in texts]


def run_deid(cfg: dict[str, Any]) -> dict[str, Any]:
    from medrealmm.deid.image.pipeline import ImagePipeline
    from medrealmm.manifest import build_manifest, write_json

    conf = DeidConfig.from_config(cfg)
    detectors = image_detectors(cfg)
    masker, pool = text_masker(cfg)
    images = ImagePipeline(detectors, pad=conf.pad) if detectors else None
    if images is None:
        log.warning("no image detector is enabled: images are copied with their metadata removed only")
        images = ImagePipeline([], pad=conf.pad)
    d = cfg["deid"]
    fingerprint = stable_hash({"text": d["text"], "image": d["image"], "remove_case": d["remove_case"],
                               "model": cfg["model"] if d["text"].get("agent") else None})
    conf.out_dir.mkdir(parents=True, exist_ok=True)
    try:
        summary = DeidStage(conf, masker, images, fingerprint).run()
    finally:
        if pool is not None:
            pool.close()
    write_json(conf.out_dir / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(conf.input)}, engines={}, stats=summary, seeds={"run.seed": cfg["run"]["seed"]}))
    return summary


def run_review(cfg: dict[str, Any]) -> None:
    from medrealmm.deid.review import Sampling, apply_decisions, write_sheets

    d = cfg["deid"]
    out_dir = Path(d["out_dir"])
    if not (out_dir / "cases.jsonl").is_file():
        raise DeidFailed(f"{out_dir / 'cases.jsonl'} not found: run `medrealmm deid` first")
    review = d.get("review") or {}
    if review.get("decisions"):
        apply_decisions(out_dir, Path(review["decisions"]))
        return
    sampling = Sampling(share=float(review.get("share", 0.1)), seed=int(review.get("seed", 0)),
                        always_groups=tuple(review.get("always_groups") or ()),
                        groups=(cfg.get("report") or {}).get("specialty_groups"),
                        scheme=str(review.get("scheme", "sample")), audit_share=float(review.get("audit_share", 0.1)))
    write_sheets(out_dir, sampling, batch_size=int(review.get("batch_size", 50)), audit=bool(review.get("audit")))
