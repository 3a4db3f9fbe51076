"""``rubric``: the typed settings of Phase 3 (``medrealmm rubric <action>``); ``conf/rubric/default.yaml`` mirrors
these defaults (its comments are the user documentation of each key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from medrealmm.config_schema import Settings, modality_of

__all__ = ["ApproveSettings", "BundledSettings", "CopiesReplySettings", "ExportSettings", "LintSettings",
           "NearDuplicateSettings", "ReviewSettings", "RubricSettings", "WeightSettings"]

Span = list[int | None]     # [lo, hi]; None on a side: unbounded


def _span(lo: int | None, hi: int | None) -> Any:
    """A ``[lo, hi]`` setting defaulting to a fresh ``[lo, hi]``."""
    def make() -> Span:
        return [lo, hi]

    return Field(default_factory=make, min_length=2, max_length=2)


class WeightSettings(Settings):
    min: int = -10
    max: int = 10


class NearDuplicateSettings(Settings):
    threshold: float = Field(default=0.8, gt=0, le=1)
    same_sign_only: bool = True


class BundledSettings(Settings):
    check_negative: bool = False


class CopiesReplySettings(Settings):
    min_run: int = Field(default=6, ge=2)
    coverage: float = Field(default=0.7, gt=0, le=1)
    min_chars: int = 12
    longest_run: int = 20


class LintSettings(Settings):
    """The rubric checks (:class:`medrealmm.rubric.lint.LintConfig`); the writer's prompt and schema use the same
    bounds."""

    n_criteria: Span = _span(3, 19)
    n_positive: Span = _span(2, 17)
    n_negative: Span = _span(0, 7)
    weight: WeightSettings = WeightSettings()
    near_duplicate: NearDuplicateSettings = NearDuplicateSettings()
    bundled: BundledSettings = BundledSettings()
    copies_reply: CopiesReplySettings = CopiesReplySettings()
    severity: dict[str, Literal["error", "warning", "off"]] = Field(default_factory=dict)

    @field_validator("near_duplicate", mode="before")
    @classmethod
    def _threshold_alone(cls, v: Any) -> Any:
        """``near_duplicate: 0.9`` is the threshold alone (as :meth:`LintConfig.from_config` reads it)."""
        return {"threshold": v} if isinstance(v, (int, float)) and not isinstance(v, bool) else v


class ReviewSettings(Settings):
    batch_size: int = Field(default=50, ge=1)


class ApproveSettings(Settings):
    ids: list[str | int] | str | int | None = None
    all: bool = False
    revoke: list[str | int] | str | int | None = None
    allow_lint_errors: bool = False


class ExportSettings(Settings):
    status: Literal["approved", "any"] = "approved"


DEFAULT_TAGS = ["axis:accuracy", "axis:completeness", "axis:communication", "axis:context_awareness", "axis:safety",
                "modality:image"]


class RubricSettings(Settings):
    """Phase 3: case-specific rubrics with physician-guided refinement; the writer is the model/backend groups."""

    input: str | None = None
    image_root: str | None = None
    out_dir: str | None = None
    mode: Literal["multimodal", "text"] | None = None
    chunk_cases: int = Field(default=256, ge=1)
    chunk_size: int = Field(default=32, ge=1)
    max_retries: int = Field(default=2, ge=0)
    retry_temperature: float = Field(default=0.7, ge=0)
    structured: bool = True
    sampling: dict[str, Any] = Field(default_factory=lambda: {"temperature": 0.0, "top_p": 1.0, "max_tokens": 2048})
    tags: list[str] = Field(default_factory=lambda: list(DEFAULT_TAGS))
    rounds: int = Field(default=3, ge=0)
    feedback: str | None = None
    review: ReviewSettings = ReviewSettings()
    figures: bool = True
    lint: LintSettings = LintSettings()
    approve: ApproveSettings = ApproveSettings()
    export: ExportSettings = ExportSettings()

    @property
    def out_path(self) -> Path:
        """``out_dir`` as a path (an error naming the setting when it is not set)."""
        if not self.out_dir:
            raise ValueError("rubric.out_dir is not set")
        return Path(self.out_dir).expanduser()

    def mode_for(self, model: dict[str, Any]) -> str:
        """``mode``, or the model's modality when not set."""
        return self.mode or modality_of(model)
