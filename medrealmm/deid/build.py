"""Build the de-identification stage from config and run it (``medrealmm deid`` / ``deid-review``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from medrealmm.deid.settings import DeidSettings, DetectorSpec, ImageSettings, TextSettings
from medrealmm.deid.stage import DeidConfig, DeidFailed, DeidStage, TextMasker
from medrealmm.store import stable_hash

log = logging.getLogger(__name__)


def image_detectors(image: ImageSettings) -> list[Any]:
    """The enabled detectors of ``deid.image.detectors``, each built by its ``kind``."""
    from medrealmm.deid.image.base import make_detector

    out = []
    for name, spec in image.enabled().items():
        missing = _missing_model(name, spec)
        if missing is not None:
            raise DeidFailed(missing)
        try:
            det = make_detector(spec.entry())
        except (FileNotFoundError, ValueError) as e:
            raise DeidFailed(f"deid.image.detectors.{name}: {e}") from e
        out.append(det)
    return out


def _missing_model(name: str, spec: DetectorSpec) -> str | None:
    """What to set when an enabled detector has no model file (YuNet) or weights (YOLO), or None."""
    own = spec.options()
    if spec.kind == "yunet" and not own.get("model"):
        return (f"deid.image.detectors.{name}: faces are detected with OpenCV YuNet, which needs its "
                f"model file: set deid.image.detectors.{name}.model=/path/face_detection_yunet_*.onnx "
                f"(OpenCV Zoo), or turn face masking off with deid.image.detectors.{name}.enabled=false")
    if spec.kind == "yolo" and not own.get("weights"):
        return (f"deid.image.detectors.{name}: a YOLO detector needs weights: set "
                f"deid.image.detectors.{name}.weights=/path/best.pt (train a QR/barcode one with "
                "`medrealmm deid-train-qr`)")
    return None


def text_masker(cfg: Mapping[str, Any], text: TextSettings | None = None) -> tuple[TextMasker, Any | None]:
    """Rules and the statistical layer (:func:`~medrealmm.deid.text_detect.build_text_detector`, the
    builder :func:`medrealmm.deid.detect_text` uses too), plus the LLM agent on the ``model``/``backend``
    groups when ``deid.text.agent``. ``text``: ``deid.text`` already read (default: read from ``cfg``)."""
    from medrealmm.common.cores import auto_workers
    from medrealmm.deid.text_detect import ParallelTextDetector, build_text_detector

    if text is None:
        text = DeidSettings.of(cfg["deid"], "deid").text
    if not text.rules and not text.statistical and not text.agent:
        raise DeidFailed("deid.text.rules, deid.text.statistical and deid.text.agent are all false: nothing would "
                         "mask the text")
    try:
        detector = build_text_detector(text)
    except ValueError as e:
        raise DeidFailed(f"deid.text: {e}") from e
    rules: Any = detector if (detector.rules is not None or detector.statistical is not None) else _NoRules()
    workers = auto_workers(text.workers)
    if workers > 1 and not isinstance(rules, _NoRules):
        rules = ParallelTextDetector(text, workers, local=detector)
    agent, pool = None, None
    if text.agent:
        from medrealmm.deid.agent import AgentDetector
        from medrealmm.inference.engines import EnginePool

        pool = EnginePool(str(Path(cfg["paths"]["cache"]).expanduser()), int(cfg["run"]["seed"]))
        backend = pool.get(cfg["model"], cfg["backend"])
        agent = AgentDetector(backend, chunk_size=text.agent_chunk_size)
    return TextMasker(rules, agent, consistency=text.consistency, policy=text.policy), pool


class _NoRules:
    def detect(self, texts: list[str]) -> list[list[Any]]:
        return [[] for _ in texts]


def run_deid(cfg: dict[str, Any]) -> dict[str, Any]:
    from medrealmm.deid.image.pipeline import ImagePipeline
    from medrealmm.manifest import build_manifest, write_json

    settings = DeidSettings.of(cfg["deid"], "deid")
    conf = DeidConfig.from_settings(settings)
    detectors = image_detectors(settings.image)
    masker, pool = text_masker(cfg, settings.text)
    if not detectors:
        log.warning("no image detector is enabled: images are copied with their metadata removed only")
    images = ImagePipeline(detectors, pad=conf.pad)
    d = cfg["deid"]     # the fingerprint hashes the config as given, so earlier runs' parts stay reusable
    text = {k: v for k, v in d["text"].items() if k != "workers"}     # how many processes changes no span
    fingerprint = stable_hash({"text": text, "image": d["image"], "remove_case": d["remove_case"],
                               "model": cfg["model"] if settings.text.agent else None})
    conf.out_dir.mkdir(parents=True, exist_ok=True)
    try:
        summary = DeidStage(conf, masker, images, fingerprint).run()
    finally:
        masker.close()
        if pool is not None:
            pool.close()
    write_json(conf.out_dir / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(conf.input)}, engines={}, stats=summary, seeds={"run.seed": cfg["run"]["seed"]}))
    return summary


def run_review(cfg: dict[str, Any]) -> None:
    from medrealmm.deid.review import Sampling, apply_decisions, write_sheets

    settings = DeidSettings.of(cfg["deid"], "deid")
    if not settings.out_dir:
        raise DeidFailed("deid.out_dir is not set: the `medrealmm deid` output to review")
    out_dir = Path(settings.out_dir)
    if not (out_dir / "cases.jsonl").is_file():
        raise DeidFailed(f"{out_dir / 'cases.jsonl'} not found: run `medrealmm deid` first")
    review = settings.review
    if review.decisions:
        apply_decisions(out_dir, Path(review.decisions))
        return
    sampling = Sampling(share=review.share, seed=review.seed, always_groups=tuple(review.always_groups),
                        groups=(cfg.get("report") or {}).get("specialty_groups"),
                        scheme=review.scheme, audit_share=review.audit_share)
    write_sheets(out_dir, sampling, batch_size=review.batch_size, audit=review.audit)
