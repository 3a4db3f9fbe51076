"""``corpus``: the typed settings of the Phase 1 funnel (``medrealmm corpus``); ``conf/corpus/default.yaml``
mirrors these defaults (its comments are the user documentation of each key).

:func:`medrealmm.corpus.run_corpus` and :func:`medrealmm.corpus.run_funnel` read the group once
(``CorpusSettings.of(cfg["corpus"], "corpus")``) and hand each stage its section.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from medrealmm.config_schema import Settings

__all__ = ["CorpusDeidSettings", "CorpusSettings", "DepartmentBalanceSettings", "DialogueQualitySettings",
           "ImageAvailabilitySettings", "QualityLLMSettings", "SideShareSettings"]

DEFAULT_CANCEL_PHRASES = ["退款", "申请退款", "取消订单", "取消咨询", "不问了", "不咨询了", "退钱", "退费"]


class ImageAvailabilitySettings(Settings):
    """Stage 1: patient-uploaded medical images a consultation needs."""

    enabled: bool = True
    min_images: int = Field(default=1, ge=0)


class SideShareSettings(Settings):
    """The most a side may send of the patient+doctor messages (None: no cap)."""

    doctor: float | None = Field(default=0.5, ge=0)
    patient: float | None = Field(default=None, ge=0)


class QualityLLMSettings(Settings):
    """The optional LLM quality check on the model/backend groups (:mod:`medrealmm.corpus.quality_llm`)."""

    enabled: bool = False
    on_failure: Literal["keep", "drop"] = "keep"
    chunk_size: int = Field(default=64, ge=1)
    max_retries: int = Field(default=2, ge=0)
    structured: bool = True
    sampling: dict[str, Any] = Field(default_factory=lambda: {"temperature": 0.0, "top_p": 1.0, "max_tokens": 64})

    @field_validator("sampling")
    @classmethod
    def _sampling_keys(cls, v: dict[str, Any]) -> dict[str, Any]:
        from medrealmm.inference.base import Sampling

        try:
            Sampling.from_config(v)
        except TypeError as e:      # an unknown sampling key
            raise ValueError(str(e)) from None
        return v


class DialogueQualitySettings(Settings):
    """Stage 2: the dialogue-quality rules (see :mod:`medrealmm.corpus.funnel`)."""

    enabled: bool = True
    min_turns: int = Field(default=5, ge=0)
    max_turns: int = Field(default=30, ge=0)
    max_chars: int | None = Field(default=4000, ge=0)
    max_side_share: SideShareSettings | None = SideShareSettings()
    cancel_phrases: list[str] = Field(default_factory=lambda: list(DEFAULT_CANCEL_PHRASES))
    min_diagnostic_messages: int = Field(default=2, ge=0)
    min_diagnostic_chars: int = Field(default=10, ge=0)
    llm: QualityLLMSettings = QualityLLMSettings()

    @field_validator("max_side_share", mode="before")
    @classmethod
    def _a_number_caps_the_doctor(cls, v: Any) -> Any:
        """``max_side_share: 0.5`` is the doctor's cap alone."""
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return {"doctor": v, "patient": None}
        return v


class DepartmentBalanceSettings(Settings):
    """Stage 3: stratified seeded sampling to ``target_size``."""

    enabled: bool = True
    target_size: int = Field(default=2000, ge=0)
    floor: int = Field(default=30, ge=0)
    max_per_department: int | None = Field(default=150, ge=0)
    max_share: float | None = Field(default=None, ge=0)
    seed: int = 0


class CorpusDeidSettings(Settings):
    """Stages 4-5 inside the funnel (``medrealmm deid`` with the ``deid`` group)."""

    enabled: bool = False
    discard_review: bool = False


class CorpusSettings(Settings):
    """The ``corpus`` group: the raw log, how it is read, where outputs go, and each stage's section."""

    input: str | None = None
    format: Literal["jsonl", "cmtmedqa"] = "jsonl"
    mapping: dict[str, Any] = Field(default_factory=dict)
    out_dir: str | None = None
    deid_dir: str | None = None
    record_review: bool = True
    image_availability: ImageAvailabilitySettings = ImageAvailabilitySettings()
    dialogue_quality: DialogueQualitySettings = DialogueQualitySettings()
    department_balance: DepartmentBalanceSettings = DepartmentBalanceSettings()
    deid: CorpusDeidSettings = CorpusDeidSettings()

    @field_validator("mapping")
    @classmethod
    def _mapping_is_valid(cls, v: dict[str, Any]) -> dict[str, Any]:
        from medrealmm.corpus.importers import FieldMapping

        FieldMapping(v)                 # unknown keys or fields: a ValueError naming them
        return v
