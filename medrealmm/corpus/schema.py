"""Raw consultation logs: what a platform export looks like before it becomes benchmark cases.

A consultation is an ordered list of events. An event is one message: text or an image, from the
patient, the doctor or the platform (``system``), with its time and where an image came from —
a patient's upload (a medical image) is what the benchmark needs; stickers, emojis and images the
platform injects (ads, cards, QR codes of the hospital) are not. Importers map other exports onto
this model (:mod:`medrealmm.corpus.importers`); the funnel and challenge-point extraction read it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Speaker = Literal["patient", "doctor", "system"]
Modality = Literal["text", "image"]
ImageOrigin = Literal["patient_upload", "doctor_upload", "sticker", "emoji", "platform", "unknown"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Event(_Model):
    speaker: Speaker
    modality: Modality = "text"
    content: str = ""                       # the text, or the image path relative to the log's folder
    time: str | None = None                 # ISO 8601 when known
    origin: ImageOrigin | None = None       # images only
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Event:
        if self.modality == "image":
            if not self.content:
                raise ValueError("an image event needs its path in content")
            if self.origin is None:
                object.__setattr__(self, "origin", "unknown")
        elif self.origin is not None:
            raise ValueError("origin is for image events only")
        return self

    @property
    def is_medical_image(self) -> bool:
        """A patient-uploaded image: the only kind the benchmark keeps as clinical evidence."""
        return self.modality == "image" and self.origin == "patient_upload"


class Consultation(_Model):
    id: str = Field(min_length=1)
    department: str
    department_detail: str | None = None    # a finer department (CMtMedQA's cate2)
    patient: dict[str, Any] = Field(default_factory=dict)   # age, sex when known
    events: tuple[Event, ...]
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _not_empty(self) -> Consultation:
        if not self.events:
            raise ValueError("a consultation needs at least one event")
        return self
