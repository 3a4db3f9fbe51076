"""``report``: the typed settings of ``medrealmm report`` (and of ``view`` and ``leaderboard``, which read the same
runs); ``conf/report/default.yaml`` mirrors these defaults (its comments are the user documentation of each key).
Bootstrap replicates, interval, seed, histogram bin, breakdown dimensions and bucket edges come from
``run.scoring`` and ``run.seed``, so a report uses the same statistics as the runs' own summaries."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from medrealmm.config_schema import Settings

__all__ = ["ItemDefaults", "PhysicianSettings", "ReportSettings"]


class ItemDefaults(Settings):
    """Which reply the physicians graded, for the columns their CSV lacks (None: the CSV has it)."""

    model: str | None = None
    mode: str | None = None
    sample: int | None = Field(default=None, ge=0)


class PhysicianSettings(Settings):
    csv: str | None = None
    item_defaults: ItemDefaults = ItemDefaults()


class ReportSettings(Settings):
    """Many runs in, one self-contained HTML page (+ Markdown, CSV, Parquet) out."""

    runs: str | list[str] | None = None
    out_dir: str | None = None
    selection: Literal["full", "all"] = "full"
    title: str | None = None
    anchor_model: str | None = "online"     # null: online (as the report reads it)
    primary_judge: str | None = None
    specialty_groups: dict[str, list[str] | str] | str | None = None   # {group: departments (or one)}, or a file
    specialty_rules: bool = True
    specialty_strict: bool = False
    min_n: int = Field(default=10, ge=0)
    pairs: list[list[str]] | None = None
    max_pairs: int = Field(default=45, ge=0)
    worst_of_k: list[int] | None = None
    physicians: PhysicianSettings = PhysicianSettings()
    tags: bool | Literal["auto"] = "auto"
    figures: bool = True
    font: str | None = None

    @property
    def out_path(self) -> Path:
        """``out_dir`` as a path (an error naming the setting when it is not set)."""
        if not self.out_dir:
            raise ValueError("report.out_dir is not set")
        return Path(self.out_dir).expanduser()

    @field_validator("pairs")
    @classmethod
    def _two_models_each(cls, v: list[list[str]] | None) -> list[list[str]] | None:
        if v is not None and any(len(p) != 2 for p in v):
            raise ValueError(f"must be a list of [model_a, model_b] pairs, got {v}")
        return v

    @field_validator("worst_of_k")
    @classmethod
    def _positive_k(cls, v: list[int] | None) -> list[int] | None:
        if v is not None and any(k < 1 for k in v):
            raise ValueError(f"every k must be >= 1, got {v}")
        return v
