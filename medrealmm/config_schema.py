"""Typed checks of the config groups an evaluation reads, run before any data or engine is touched.

Hydra composes plain YAML; a value out of range (``run.samples=0``, ``judge.max_retries=-1``) would
otherwise surface late and as a confusing error (a ``KeyError`` after the judge engine loaded). Each
group that the evaluation stages read has a pydantic model here; unknown keys are allowed (engines
take free-form keyword arguments), known keys must have a valid type and range. Every problem is
reported at once, one line each, naming the setting.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = ["ConfigError", "Settings", "check_config", "problems"]


class ConfigError(ValueError):
    """One or more settings are invalid; the message has one line per setting."""


class _Group(BaseModel):
    model_config = ConfigDict(extra="allow", strict=False)


class Settings(BaseModel):
    """A config group's typed settings: its defaults live here, once (the YAML under ``conf/`` mirrors them
    for Hydra overrides and comments; ``tests/test_config_groups.py`` keeps the two equal). Unknown keys are
    errors, so a typo (``corpus.dialogue_quality.min_turn=3``) fails at start instead of being ignored.

    Stage code reads ``XSettings.of(cfg["x"], "x")`` once and passes typed values on, never ``.get(key, default)``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)

    @classmethod
    def of(cls, value: Any, where: str):  # type: ignore[no-untyped-def]
        """Validated settings from a plain dict (or an instance, returned as it is); :class:`ConfigError` names
        every bad setting as ``where.key``."""
        if isinstance(value, cls):
            return value
        lines = problems(cls, value if value is not None else {}, where)
        if lines:
            raise ConfigError("invalid settings:\n  " + "\n  ".join(lines))
        return cls.model_validate(value if value is not None else {})


class Sampling(_Group):
    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=-1)
    max_tokens: int | None = Field(default=None, ge=1)


class Role(_Group):
    name: str = Field(min_length=1)
    modality: Literal["multimodal", "text"] = "multimodal"
    sampling: Sampling | None = None
    chat_template_kwargs: dict[str, Any] | None = None
    engine: dict[str, Any] | None = None
    reasoning: Reasoning | None = None


class Judge(Role):
    max_retries: int = Field(default=2, ge=0)
    retry_temperature: float = Field(default=0.7, ge=0)
    max_unscored_share: float = Field(default=0.05, ge=0, le=1)
    sees_images: bool = False
    layout: Literal["case_first", "criterion_first"] = "case_first"
    structured_outputs: bool | None = None


class Backend(_Group):
    kind: Literal["vllm", "transformers", "openai"]
    structured: Literal["response_format", "structured_outputs", "none"] | None = None
    concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    batch_size: int | None = Field(default=None, ge=1)


class Shard(_Group):
    index: int = Field(default=0, ge=0)
    count: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _index_below_count(self) -> Shard:
        if self.index >= self.count:
            raise ValueError(f"index {self.index} must be below count {self.count}")
        return self


class Chunk(_Group):
    chunk_size: int = Field(ge=1)


class Generation(Chunk):
    retry_truncated: int = Field(default=0, ge=0)


class Reasoning(_Group):
    thinks: bool = False
    opened_by_template: bool | Literal["auto"] = "auto"
    length_is_truncation: bool = True
    effort: str | None = None
    effort_kwarg: str | None = Field(default=None, min_length=1)


class Scoring(_Group):
    unscored_policy: Literal["exclude_case", "drop_criteria", "fail"]
    bootstrap: int = Field(ge=0)
    ci: float = Field(gt=0, lt=1)
    histogram_bin: float = Field(gt=0, le=1)
    dims: list[str]
    edges: dict[str, list[float]] | None = None


class Run(_Group):
    modes: list[Literal["multimodal", "text"]] = Field(min_length=1)
    samples: int = Field(ge=1)
    seed: int
    max_missing_share: float = Field(default=0.0, ge=0, le=1)
    max_truncated_share: float = Field(default=0.05, ge=0, le=1)
    shard: Shard = Shard()
    generation: Generation
    judging: Chunk
    scoring: Scoring
    out_dir: str = Field(min_length=1)


class Data(_Group):
    name: str = Field(min_length=1)
    format: Literal["sample", "jsonl", "parquet", "healthbench", "hf_release", "hf"]
    path: str | None = None
    strict: bool = False
    limit: int | None = Field(default=None, ge=1)
    subset: int | None = Field(default=None, ge=1)
    subset_seed: int = 0
    case_ids: list[str] | None = None
    max_abs_weight: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _path_when_needed(self) -> Data:
        if self.format in ("jsonl", "parquet", "healthbench") and not self.path:
            raise ValueError(f"data.path is required for data.format={self.format} "
                             f"(e.g. data.path=/path/to/cases.{'parquet' if self.format == 'parquet' else 'jsonl'})")
        return self


GROUPS: dict[str, type[_Group]] = {"run": Run, "data": Data, "model": Role, "judge": Judge, "backend": Backend,
                                   "judge_backend": Backend}


def _where(group: str, loc: tuple[Any, ...]) -> str:
    return ".".join([group, *(str(p) for p in loc)])


def problems(model: type[BaseModel], value: Any, group: str) -> list[str]:
    """One line per invalid setting of ``value`` read as ``model`` (empty when valid)."""
    if value == "???" or not isinstance(value, dict):
        return [f"{group}: expected a config group, got {value!r}"]
    try:
        model.model_validate(value)
    except ValidationError as e:
        out = []
        for err in e.errors():
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                msg = "unknown setting (a typo? see the group's YAML under conf/ for the known keys)"
            got = err.get("input")
            shown = "" if isinstance(got, dict) or err["type"] in ("missing", "extra_forbidden") else f" (got {got!r})"
            out.append(f"{_where(group, err['loc'])}: {msg}{shown}")
        return out
    return []


def check_config(cfg: dict[str, Any], groups: tuple[str, ...] | None = None,
                 models: dict[str, type[BaseModel]] | None = None) -> None:
    """Raise :class:`ConfigError` listing every invalid setting of ``groups`` (one line each). ``models``: the
    group -> model table (:data:`medrealmm.config_groups.GROUPS` holds every group's; default: the evaluation
    groups here)."""
    table = GROUPS if models is None else models
    found = []
    for group in (tuple(table) if groups is None else groups):
        value = cfg.get(group)
        if value is None or group not in table:
            continue
        if group == "data" and isinstance(value, dict) and value.get("path") == "???":
            value = {**value, "path": None}
        found += problems(table[group], value, group)
    if found:
        raise ConfigError("invalid settings:\n  " + "\n  ".join(found))
