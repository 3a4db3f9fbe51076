"""``mccp``: the typed settings of Phase 2 (``medrealmm mccp``); ``conf/mccp/default.yaml`` mirrors these defaults
(its comments are the user documentation of each key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from medrealmm.config_schema import Settings, modality_of

__all__ = ["AgentsSettings", "AnnotateSettings", "MccpSettings", "ValidationSettings"]

DEFAULT_INTENTS = ["症状咨询", "检查结果解读", "用药咨询", "治疗咨询", "疾病咨询", "就医指导", "复诊随访"]
DEFAULT_STAGES = ["病史采集", "患者问答", "诊断与解释", "治疗建议", "诊断与解释及治疗建议", "检查建议", "随访复诊"]


class AgentsSettings(Settings):
    """Agents A and M: their sampling (free-form :class:`~medrealmm.inference.base.Sampling` keys)."""

    sampling: dict[str, Any] = Field(default_factory=lambda: {"temperature": 0.0, "top_p": 1.0, "max_tokens": 256})


class AnnotateSettings(Settings):
    """The intent and stage annotator."""

    enabled: bool = True
    sampling: dict[str, Any] = Field(default_factory=lambda: {"temperature": 0.0, "top_p": 1.0, "max_tokens": 64})
    intents: list[str] = Field(default_factory=lambda: list(DEFAULT_INTENTS))
    stages: list[str] = Field(default_factory=lambda: list(DEFAULT_STAGES))
    labels_from: dict[str, Any] | str | None = None     # a data config mapping or a cases.jsonl path


class ValidationSettings(Settings):
    """The physicians' validation sheet: written after a run, or (``decisions``) a filled one applied."""

    enabled: bool = True
    n: int = Field(default=200, ge=1)
    seed: int | None = None
    decisions: str | None = None


class MccpSettings(Settings):
    """Phase 2 on the funnel's kept consultations, with the model/backend groups as the agents' LLM."""

    input: str | None = None
    out_dir: str | None = None
    chunk_consultations: int = Field(default=256, ge=1)
    mode: Literal["multimodal", "text"] | None = None
    chunk_size: int = Field(default=64, ge=1)
    max_retries: int = Field(default=2, ge=0)
    retry_temperature: float = Field(default=0.7, ge=0)
    structured: bool = True
    max_images: int = Field(default=10, ge=1)
    agent_a_view: Literal["trajectory", "prefix"] = "trajectory"
    image_origins: list[str] = Field(default_factory=lambda: ["patient_upload", "doctor_upload"])
    agents: AgentsSettings = AgentsSettings()
    annotate: AnnotateSettings = AnnotateSettings()
    validation: ValidationSettings = ValidationSettings()

    @property
    def out_path(self) -> Path:
        """``out_dir`` as a path (an error naming the setting when it is not set)."""
        if not self.out_dir:
            raise ValueError("mccp.out_dir is not set")
        return Path(self.out_dir).expanduser()

    def mode_for(self, model: dict[str, Any]) -> str:
        """``mode``, or the model's modality when not set."""
        return self.mode or modality_of(model)
