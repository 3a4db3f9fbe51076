"""Checks beyond the schema: what the model's engine will refuse, and what is legal but suspicious.

``validate`` runs both before any engine starts, and the generation stage refuses a case with more
images than the engine accepts without sending it (the engine would fail its whole batch).
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from medrealmm.schema import Case, CaseError

log = logging.getLogger(__name__)


def image_limit(model: Mapping[str, Any]) -> int | None:
    """Images the model's engine accepts per prompt (``engine.limit_mm_per_prompt.image``, or
    ``vision_chunk`` for models such as Kimi-K2.5 that take images as that modality), if set."""
    limits = (model.get("engine") or {}).get("limit_mm_per_prompt") or {}
    limit = limits.get("image", limits.get("vision_chunk"))
    return None if limit is None else int(limit)


def too_many_images(case: Case, model: Mapping[str, Any], mode: str) -> str | None:
    """Why the engine would refuse this case's images in ``mode`` (None: it would not)."""
    limit = image_limit(model)
    if mode != "multimodal" or limit is None or case.n_images <= limit:
        return None
    key = "image" if "image" in ((model.get("engine") or {}).get("limit_mm_per_prompt") or {}) else "vision_chunk"
    return (f"{case.n_images} images, more than the model accepts per prompt "
            f"(model.engine.limit_mm_per_prompt.{key}={limit})")


def engine_problems(cases: list[Case], model: Mapping[str, Any], modes: list[str], *, file: str,
                    count_tokens: Callable[[Case, str], int] | None = None) -> list[CaseError]:
    """Cases the evaluated model's engine would refuse: too many images, or (with ``count_tokens``,
    the model's tokenizer) a prompt longer than ``engine.max_model_len`` minus the reply's
    ``sampling.max_tokens``."""
    out = []
    max_len = (model.get("engine") or {}).get("max_model_len")
    reply = int((model.get("sampling") or {}).get("max_tokens") or 0)
    for case in cases:
        for mode in modes:
            why = too_many_images(case, model, mode)
            if why:
                out.append(CaseError(why, case_id=case.id, field="turns", file=file))
            if count_tokens is not None and max_len:
                n = count_tokens(case, mode)
                if n + reply > int(max_len):
                    out.append(CaseError(
                        f"the {mode} prompt is {n:,} tokens; with the reply's {reply:,} (sampling.max_tokens) it "
                        f"exceeds model.engine.max_model_len={int(max_len):,}", case_id=case.id, field="turns",
                        file=file))
    return out


def dataset_warnings(cases: list[Case]) -> list[str]:
    """Legal but suspicious: empty ``y_orig`` or department, a dialogue ending on the doctor's turn
    (the model is asked for the doctor's *next* reply), ids that differ only by whitespace or width."""
    out = []
    for c in cases:
        if not c.y_orig.strip():
            out.append(f"case {c.id!r}: y_orig (the physician's real reply) is empty")
        if not c.department.strip():
            out.append(f"case {c.id!r}: department is empty (it is left out of department breakdowns)")
        if c.turns and c.turns[-1].role == "doctor":
            out.append(f"case {c.id!r}: the dialogue ends on a doctor turn; the model is asked for the doctor's "
                       "next reply")
    seen: dict[str, str] = {}
    for c in cases:
        norm = "".join(unicodedata.normalize("NFKC", c.id).split())
        if norm in seen and seen[norm] != c.id:
            out.append(f"case ids {seen[norm]!r} and {c.id!r} differ only by whitespace or character width")
        seen.setdefault(norm, c.id)
    return out


def text_token_counter(tokenizer_path: str) -> Callable[[Case, str], int]:
    """Count a case's prompt with the model's tokenizer: its text as the model sees it (images as
    their placeholders only, so a lower bound for image tokens)."""
    from transformers import AutoTokenizer

    from medrealmm.inference.prompts import PromptConfig, generation_messages, image_identity

    tok = AutoTokenizer.from_pretrained(tokenizer_path)
    prompt = PromptConfig()

    def count(case: Case, mode: str) -> int:
        texts = []
        for m in generation_messages(case, mode, prompt, image_identity):  # type: ignore[arg-type]
            content = m["content"]
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
            texts += [p["text"] for p in parts if p.get("type") == "text"]
        return len(tok("\n".join(texts))["input_ids"])

    return count
