"""``medrealmm validate``: every problem a run would meet, found before any engine starts.

Schema and image errors come from the loader (case, field, file); then what the evaluated model's
engine would refuse (too many images, a prompt longer than ``max_model_len`` when the model's
tokenizer is on this machine) and warnings for legal but suspicious cases.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def validate(cfg: dict[str, Any]) -> int:
    """Log every problem; return how many errors (0: the dataset will run as configured)."""
    from medrealmm.data.checks import dataset_warnings, engine_problems, text_token_counter
    from medrealmm.data.loader import load_dataset
    from medrealmm.inference.model_files import resolve_local

    ds = load_dataset(cfg["data"])
    model = cfg["model"]
    modes = list(cfg["run"]["modes"]) if model.get("modality") != "text" else ["text"]
    counter = None
    if model.get("tiny"):
        from pathlib import Path

        from medrealmm.inference.tiny_models import ensure_tiny_model

        counter = text_token_counter(str(ensure_tiny_model(model["tiny"], str(Path(cfg["paths"]["cache"]).expanduser()))))
    elif not model.get("online") and model.get("path"):
        local = resolve_local(str(model["path"]))
        if local is not None and ((local / "tokenizer.json").is_file() or (local / "tokenizer_config.json").is_file()):
            counter = text_token_counter(str(local))
        else:
            log.info("prompt lengths not checked: the tokenizer of %s is not on this machine", model["path"])
    problems = [] if model.get("online") else engine_problems(ds.cases, model, modes, file=ds.source,
                                                               count_tokens=counter)
    for w in dataset_warnings(ds.cases):
        log.warning("%s", w)
    errors = [*ds.errors, *problems]
    for e in errors:
        log.error("%s", e)
    log.info("%s: %d valid cases, %d rejected, %d the model %s would refuse", ds.source, len(ds.cases),
             len(ds.errors), len({e.case_id for e in problems}), model.get("name"))
    return len(errors)
