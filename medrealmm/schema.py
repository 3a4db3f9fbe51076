"""The data model of a MedRealMM case (replies and verdicts are table rows: see pipeline.py).

One benchmark instance is the consultation up to the challenge point (``turns``), the physician's
real next reply (``y_orig``) and a case-specific rubric of weighted criteria. Validation errors
are raised as :class:`CaseError`, which names the case, the field and the file so that a user with
5,000 cases can find the bad one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

Role = Literal["patient", "doctor"]
#: Hard ceiling on |weight|, whatever the data option: sums of weights stay exact in Int64 and float64.
MAX_WEIGHT_LIMIT = 1_000_000
#: The default bound (``data.max_abs_weight``): that of the paper's and HealthBench's rubrics.
DEFAULT_MAX_ABS_WEIGHT = 10
Mode = Literal["multimodal", "text"]


class CaseError(ValueError):
    """A case that cannot be used, with where it came from."""

    def __init__(self, message: str, *, case_id: str | None = None, field: str | None = None,
                 file: str | None = None):
        self.case_id, self.field, self.file, self.reason = case_id, field, file, message
        where = ", ".join(f"{k} {v!r}" for k, v in (("case", case_id), ("field", field), ("file", file)) if v)
        super().__init__(f"{where}: {message}" if where else message)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ImageRef(_Model):
    """An image of a turn: a path relative to the dataset root, and/or the embedded bytes."""

    path: str
    data: bytes | None = Field(default=None, repr=False)
    sha256: str | None = None


class Turn(_Model):
    role: Role
    text: str = ""
    images: tuple[ImageRef, ...] = ()
    time: str | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> Turn:
        if not self.text.strip() and not self.images:
            raise ValueError("a turn needs text or at least one image")
        return self


class Patient(_Model):
    age: int | None = Field(default=None, ge=0, le=130)
    sex: Literal["male", "female"] | None = None


class Criterion(_Model):
    """One rubric item. A positive weight rewards the behaviour, a negative one penalises it."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    weight: int
    tags: tuple[str, ...] = ()

    @field_validator("weight", mode="before")
    @classmethod
    def _strict_int(cls, w: Any) -> int:
        # true, "5" and 5.5 are not weights: a mis-typed rubric must be fixed, not guessed at
        if isinstance(w, bool) or not isinstance(w, int):
            raise ValueError(f"weight must be an integer, got {type(w).__name__} {w!r}")
        if w == 0:
            raise ValueError("weight must be a non-zero integer")
        if abs(w) > MAX_WEIGHT_LIMIT:
            raise ValueError(f"weight {w} is out of range (|weight| <= {MAX_WEIGHT_LIMIT:,})")
        return w

    @property
    def positive(self) -> bool:
        return self.weight > 0


class Case(_Model):
    id: str = Field(min_length=1)
    department: str
    intent: str | None = None
    stage: str | None = None
    patient: Patient = Patient()
    turns: tuple[Turn, ...]
    y_orig: str
    rubric: tuple[Criterion, ...]
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("turns")
    @classmethod
    def _dialogue(cls, turns: tuple[Turn, ...]) -> tuple[Turn, ...]:
        if not turns:
            raise ValueError("the dialogue before the challenge point is empty")
        return turns

    @field_validator("rubric")
    @classmethod
    def _rubric(cls, rubric: tuple[Criterion, ...]) -> tuple[Criterion, ...]:
        if not rubric:
            raise ValueError("the rubric has no criteria")
        seen: set[str] = set()
        for c in rubric:
            if c.id in seen:
                raise ValueError(f"duplicate criterion id {c.id!r}")
            seen.add(c.id)
        if not any(c.positive for c in rubric):
            raise ValueError("the rubric has no positive weight, so the case score is undefined")
        return rubric

    @property
    def images(self) -> list[ImageRef]:
        return [im for t in self.turns for im in t.images]

    @property
    def n_images(self) -> int:
        return sum(len(t.images) for t in self.turns)

    @property
    def n_turns(self) -> int:
        return len(self.turns)

    def content_hash(self) -> str:
        """Hash of everything that determines a generation for this case (rubric excluded).

        An image counts by its content (``sha256``, filled at load time) rather than its path, so a
        dataset moved or re-exported under other file names still finds its stored results."""
        body = self.model_dump(mode="json", exclude={"rubric": True, "meta": True,
                                                     "turns": {"__all__": {"images": {"__all__": {"data"}}}}})
        for turn in body["turns"]:
            for im in turn["images"]:
                if im.get("sha256"):
                    im.pop("path")
        return stable_hash(body)

    @classmethod
    def parse(cls, raw: dict[str, Any], *, file: str | None = None,
              max_abs_weight: int | None = DEFAULT_MAX_ABS_WEIGHT) -> Case:
        """Validate a raw dict, turning pydantic's error into a :class:`CaseError`; weights must
        lie within ``max_abs_weight`` (None: only the hard ceiling)."""
        case_id = raw.get("id") if isinstance(raw, dict) else None
        try:
            case = cls.model_validate(raw)
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or None
            msg = err["msg"].removeprefix("Value error, ")
            raise CaseError(msg, case_id=case_id, field=field, file=file) from None
        if max_abs_weight is not None:
            for j, c in enumerate(case.rubric):
                if abs(c.weight) > max_abs_weight:
                    raise CaseError(f"criterion {c.id!r}: weight {c.weight} is outside the allowed range "
                                    f"[-{max_abs_weight}, {max_abs_weight}] (data.max_abs_weight)",
                                    case_id=case.id, field=f"rubric.{j}.weight", file=file)
        return case


def stable_hash(obj: Any) -> str:
    """sha256 of a canonical JSON rendering; the key of every stored result."""
    data = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(data.encode()).hexdigest()


def rubric_hash(rubric: Any) -> str:
    """The content hash of a rubric (criteria in order): what an approval signs, so an approved
    rubric edited afterwards is no longer approved."""
    return stable_hash([c.model_dump(mode="json") if isinstance(c, Criterion) else dict(c) for c in rubric])
