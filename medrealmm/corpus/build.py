"""``medrealmm corpus``: read the raw consultations, run the funnel, write its outputs, report and manifest.

The funnel itself is :mod:`.funnel`; its report :mod:`.funnel_report`. De-identification inside the funnel
(``corpus.deid.enabled``) is a stage the de-identification phase builds and hands in (``deid_stage``, see
:func:`medrealmm.deid.funnel_step.run_corpus`, what the command calls): the corpus phase never imports it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medrealmm.corpus.funnel import (
    FunnelResult,
    LLMCheck,
    StageHook,
    StageResult,
    copy_images,
    read_input,
    run_funnel,
    write_funnel,
)
from medrealmm.corpus.schema import Consultation
from medrealmm.corpus.settings import CorpusSettings, QualityLLMSettings

log = logging.getLogger(__name__)

#: Builds stage 4 inside the funnel: ``(cfg, raw image root, work folder, review=..., discard_review=...) ->
#: stage``; the stage's masked output (``cases.jsonl`` and images) is ``<work>/output``.
DeidStageFactory = Callable[..., Callable[[list[Consultation]], StageResult]]


@dataclass
class _DeidHooks:
    """Where stages 4 and 5 come from, and where the kept consultations' images are copied from."""

    deid: StageHook | None
    review: StageHook | None
    image_root: Path
    masked: Path | None = None      # the in-funnel deid output (None: de-identification ran elsewhere, or not)


def run_corpus(cfg: Mapping[str, Any], *, llm_check: LLMCheck | None = None,
               deid_stage: DeidStageFactory | None = None) -> FunnelResult:
    """Read ``corpus.input``, run the funnel, write outputs and the report. With ``corpus.deid.enabled``,
    ``deid_stage`` builds the de-identification stage (:func:`medrealmm.deid.funnel_step.deid_step`)."""
    cfg, corpus = _with_input(_resolved(cfg))
    src = Path(corpus.input or "").expanduser()
    if not src.is_file():
        raise FileNotFoundError(f"corpus.input {src} does not exist")
    out_dir = Path(corpus.out_dir or Path(cfg["paths"]["outputs"]) / "corpus" / src.stem)
    hooks = _deid_hooks(cfg, corpus, src, out_dir, deid_stage)
    result = _funnel(cfg, corpus, src, hooks, llm_check)
    if hooks.masked is not None:
        _check_all_masked(result, hooks.masked)
    out = write_funnel(result, out_dir)
    if hooks.masked is not None:
        _remove_earlier_images(Path(out))
    copy_images(result.kept, hooks.image_root, Path(out))
    from medrealmm.corpus.funnel_report import write_report    # imports matplotlib: only when a report is drawn

    write_report(result, out, font=(cfg.get("report") or {}).get("font"))
    _write_manifest(cfg, corpus, src, result, Path(out))
    return result


def _with_input(cfg: dict[str, Any]) -> tuple[dict[str, Any], CorpusSettings]:
    """``cfg`` and its corpus settings (read once, here), with ``corpus.input`` checked, and ``sample`` replaced
    by the bundled raw logs' path."""
    corpus = CorpusSettings.of(cfg["corpus"], "corpus")
    if not corpus.input:
        raise ValueError("corpus.input is not set: the raw log (JSONL) or dialogue file to build from "
                         "(corpus.input=sample: the bundled example logs)")
    if corpus.input == "sample":   # the bundled raw logs of the sample benchmark (with noise to drop)
        from medrealmm.data import sample_dir

        corpus = corpus.model_copy(update={"input": str(sample_dir() / "raw_logs.jsonl")})
    return {**cfg, "corpus": {**cfg["corpus"], "input": corpus.input}}, corpus


def _deid_hooks(cfg: dict[str, Any], corpus: CorpusSettings, src: Path, out_dir: Path,
                deid_stage: DeidStageFactory | None) -> _DeidHooks:
    """Stages 4 and 5: recorded from an earlier ``medrealmm deid`` (``corpus.deid_dir``), run inside the funnel
    (``corpus.deid.enabled``: the kept consultations, and their images, are then the masked ones), or none."""
    deid_dir, record_review, in_funnel = corpus.deid_dir, corpus.record_review, corpus.deid.enabled
    if in_funnel and deid_dir:
        raise ValueError("corpus.deid.enabled=true runs de-identification inside the funnel; corpus.deid_dir records "
                         "an earlier `medrealmm deid` run instead: set only one of them")
    if not in_funnel:
        return _DeidHooks(deid=deid_dir, review=deid_dir if deid_dir and record_review else None,
                          image_root=src.parent)
    raw_root = src.parent.resolve()
    if raw_root == out_dir.resolve() or raw_root.is_relative_to((out_dir / "images").resolve()):
        raise ValueError(f"corpus.deid.enabled=true: corpus.out_dir {out_dir} holds the input's (unmasked) "
                         "images, and its images/ folder is replaced by the masked ones: choose another out_dir")
    if deid_stage is None:
        raise ValueError("corpus.deid.enabled=true needs the de-identification stage: run the corpus through "
                         "medrealmm.deid.funnel_step.run_corpus (what `medrealmm corpus` does)")
    masked = out_dir / "deid" / "output"
    return _DeidHooks(deid=deid_stage(cfg, src.parent, out_dir / "deid", review=record_review,
                                      discard_review=corpus.deid.discard_review),
                      review=masked if record_review else None, image_root=masked, masked=masked)


def _funnel(cfg: dict[str, Any], corpus: CorpusSettings, src: Path, hooks: _DeidHooks,
            llm_check: LLMCheck | None) -> FunnelResult:
    """The funnel on ``src``; an LLM quality check's engine is closed whatever happens."""
    pools: list[Any] = []
    try:
        check = llm_check or _llm_check(cfg, corpus.dialogue_quality.llm, pools)
        return run_funnel(read_input(src, corpus.format, corpus.mapping), corpus,
                          deid=hooks.deid, review=hooks.review, llm_check=check)
    finally:
        for pool in pools:
            pool.close()


def _check_all_masked(result: FunnelResult, masked: Path) -> None:
    """Nothing unmasked may reach the output: every kept consultation is one of the de-identified ones."""
    with (masked / "cases.jsonl").open(encoding="utf-8") as f:
        masked_ids = {json.loads(line)["id"] for line in f if line.strip()}
    leaked = [c.id for c in result.kept if c.id not in masked_ids]
    if leaked:
        raise RuntimeError(f"funnel: {len(leaked)} kept consultation(s) are not in the de-identified output")


def _remove_earlier_images(out: Path) -> None:
    """Unmasked copies from an earlier run without deid (or stale masked ones) must not stay."""
    images = out / "images"
    if images.is_symlink() or images.exists():
        if images.is_dir() and not images.is_symlink():
            import shutil

            shutil.rmtree(images)
        else:
            images.unlink()
        log.info("funnel: removed %s from an earlier run before copying the masked images", images)


def _write_manifest(cfg: dict[str, Any], corpus: CorpusSettings, src: Path, result: FunnelResult, out: Path) -> None:
    from medrealmm.manifest import build_manifest, write_json

    write_json(out / "manifest.json", build_manifest(
        config=cfg, dataset={"input": str(src)}, engines={},
        stats={"kept": len(result.kept), "dropped": len(result.dropped), "errors": len(result.errors)},
        seeds={"corpus.department_balance.seed": corpus.department_balance.seed}))


def _resolved(cfg: Any) -> dict[str, Any]:
    """A plain dict with ``${...}`` interpolations resolved (an OmegaConf node or a dict read from YAML)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    node = OmegaConf.create(cfg) if isinstance(cfg, dict) else cfg
    try:
        return OmegaConf.to_container(node, resolve=True)  # type: ignore[return-value]
    except (OmegaConfBaseException, ValueError) as e:
        raise ValueError(f"corpus config cannot be resolved: {e}") from None


def _llm_check(cfg: dict[str, Any], c: QualityLLMSettings, pool_box: list[Any]) -> LLMCheck | None:
    """The batched LLM quality check of ``corpus.dialogue_quality.llm`` on the model/backend groups.

    Its engine is closed as soon as the check has run (the deid text agent, later in the funnel, may load
    its own engine for the same model: never two big engines at once); ``pool_box`` gets the pool so the
    caller closes it too when the check is never called."""
    if not c.enabled:
        return None
    from medrealmm.corpus.quality_llm import DialogueQualityJudge
    from medrealmm.inference.base import Sampling
    from medrealmm.inference.engines import EnginePool

    seed = int(cfg["run"]["seed"])
    pool = EnginePool(str(Path(cfg["paths"]["cache"]).expanduser()), seed)
    pool_box.append(pool)

    def check(consultations: Sequence[Consultation]) -> list[str | None]:
        try:
            judge = DialogueQualityJudge(pool.get(cfg["model"], cfg["backend"]),
                                         sampling=Sampling.from_config(c.sampling, seed=seed),
                                         max_retries=c.max_retries, chunk_size=c.chunk_size, structured=c.structured,
                                         chat_template_kwargs=dict(cfg["model"].get("chat_template_kwargs") or {}),
                                         seed=seed, on_failure=c.on_failure)
            return judge(consultations)
        finally:
            pool.close()

    return check
