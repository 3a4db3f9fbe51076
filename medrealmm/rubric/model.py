"""The rubric of a case while it is being built: every version, and where it stands.

One :class:`RubricRecord` per case (a line of ``rubrics.jsonl``): the pre-rubric instance it was
built for, the versions round by round (R(0), R(1), …) and a status. A record whose generation
failed keeps no version and says why (``failure``: an error code, never model text); it is
counted and reported, never given an empty or made-up rubric.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from medrealmm.mccp import Instance
from medrealmm.schema import Criterion

RubricStatus = Literal["draft", "approved", "failed"]
VersionSource = Literal["generated", "feedback", "revised", "imported"]
APPROVED = "approved"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricVersion(_Model):
    """R(k): the criteria after round ``round`` (0 = generated), and how they came about."""

    round: int = Field(ge=0)
    criteria: tuple[Criterion, ...]
    source: VersionSource
    model: str | None = None                  # the LLM that wrote it (None: feedback applied by hand)
    note: str | None = None                   # e.g. "no feedback: unchanged"

    @field_validator("criteria")
    @classmethod
    def _unique_ids(cls, criteria: tuple[Criterion, ...]) -> tuple[Criterion, ...]:
        seen: set[str] = set()
        for c in criteria:
            if c.id in seen:
                raise ValueError(f"duplicate criterion id {c.id!r}")
            seen.add(c.id)
        return criteria


class RubricRecord(_Model):
    """A case's rubric history: the instance, the versions in round order, the status."""

    id: str = Field(min_length=1)             # the case (instance) id
    instance: Instance
    versions: tuple[RubricVersion, ...] = ()
    status: RubricStatus = "draft"
    failure: str | None = None                # why generation/revision failed (an error code)
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def current(self) -> RubricVersion | None:
        return self.versions[-1] if self.versions else None

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        return self.current.criteria if self.current else ()

    @property
    def round(self) -> int:
        return self.current.round if self.current else -1

    def with_version(self, version: RubricVersion) -> RubricRecord:
        """A copy with ``version`` appended (its round must follow the last one's)."""
        if self.versions and version.round != self.round + 1:
            raise ValueError(f"case {self.id!r}: round {version.round} does not follow round {self.round}")
        return self.model_copy(update={"versions": (*self.versions, version), "failure": None})
