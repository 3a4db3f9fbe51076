"""``deid``: the typed settings of de-identification (``medrealmm deid`` / ``deid-review``, and stage 4 of the
corpus funnel); ``conf/deid/default.yaml`` mirrors these defaults (its comments are the user documentation).

``deid.image.detectors`` maps a name to one detector's entry: ``kind`` (which class builds it), ``enabled`` and
that kind's own keys. Each built-in kind's keys are a settings model here (:data:`DETECTOR_SETTINGS`); an entry
of a built-in kind is checked against it when the group is read, so a misspelt detector key fails at start. A
kind registered by other code (:func:`medrealmm.deid.image.register`) takes its keys as they are.

This module imports no detector code (OpenCV, onnxruntime, torch): the start-up check reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, field_validator, model_validator

from medrealmm.config_schema import Settings, problems
from medrealmm.deid.removal import RemovalRule
from medrealmm.deid.text_policy import TextPolicy

__all__ = ["DETECTOR_SETTINGS", "CodeSettings", "DeidSettings", "DetectorSpec", "ImageSettings", "OcrSettings",
           "ReviewSettings", "TextSettings", "YoloSettings", "YuNetSettings", "detector_settings"]

DEFAULT_YOLO_CLASSES: dict[str, str] = {"qr": "QR", "qrcode": "QR", "qr_code": "QR", "barcode": "BARCODE",
                                        "face": "FACE"}
SENSITIVE_GROUPS = ["儿科", "精神心理", "妇产科与生殖", "肿瘤", "感染与传染"]


# --- image detectors, one model per built-in kind -------------------------------------------------------


class OcrSettings(Settings):
    """The ``ocr`` detector (:class:`medrealmm.deid.image.ocr.OcrDetector`, whose docstring explains each key)."""

    det_limit_side_len: int = Field(default=1280, ge=1)
    det_limit_type: str = "max"
    det_box_thresh: float = 0.5
    det_unclip_ratio: float = 1.6
    rec_batch: int = 8
    rec_min_width: int = 64
    threads: int | None = None
    spin: bool = False
    workers: int | None = None
    text_rules: bool = True
    form_rules: bool = True
    pad_along: float = 0.12
    pad_across: float = 0.0
    neighbour_gap: float = 8.0
    merge_gap: float = 2.0
    cls_lines: int = 24
    tilt_redetect: bool = True
    tilt_min_degrees: float = 10.0
    params: dict[str, Any] | None = None
    name: str = "ocr"


class YuNetSettings(Settings):
    """The ``yunet`` face detector (:class:`medrealmm.deid.image.opencv_detectors.YuNetFaceDetector`)."""

    model: str | Path | None = None
    score_threshold: float = 0.6
    nms_threshold: float = 0.3
    top_k: int = 5000
    max_side: int = 640
    rotations: tuple[int, ...] = (0, 90, 270)
    expand: float = 0.15
    name: str = "yunet"


class CodeSettings(Settings):
    """The ``qr_opencv`` code detector (:class:`medrealmm.deid.image.opencv_detectors.OpenCVCodeDetector`)."""

    qr: bool = True
    barcode: bool = True
    classic: bool = False
    upscale: float = 2.0
    upscale_below: int = 1400
    max_side: int = 2000
    grow: float = 0.06
    barcode_grow: float = 0.2
    wechat_model_dir: str | Path | None = None
    name: str = "qr_opencv"


class YoloSettings(Settings):
    """The ``yolo`` detector (:mod:`medrealmm.deid.image.yolo` documents each key). A null value means the
    default (``weights: null`` in the YAML: none configured)."""

    weights: str = ""
    classes: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_YOLO_CLASSES))
    conf: float = 0.25
    iou: float = 0.5
    imgsz: int = 640
    batch: int = 16
    device: str = "auto"
    max_det: int = 100
    config_dir: str | None = None
    name: str = "yolo"

    @model_validator(mode="before")
    @classmethod
    def _null_is_the_default(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {k: v for k, v in data.items() if v is not None}
        return data

    @field_validator("classes", mode="before")
    @classmethod
    def _known_categories(cls, v: Any) -> Any:
        from medrealmm.deid.image.base import IMAGE_CATEGORIES

        if isinstance(v, Mapping):
            v = {str(k): str(c) for k, c in v.items()}
            bad = {k: c for k, c in v.items() if c not in IMAGE_CATEGORIES}
            if bad:
                raise ValueError(f"yolo classes map to unknown categories {bad}; categories: {IMAGE_CATEGORIES}")
        return v

    @model_validator(mode="after")
    def _in_range(self) -> YoloSettings:
        if not 0 <= self.conf <= 1 or not 0 < self.iou <= 1 or self.imgsz < 32 or self.batch < 1:
            raise ValueError(f"bad yolo settings: conf={self.conf} iou={self.iou} imgsz={self.imgsz} "
                             f"batch={self.batch}")
        return self


DETECTOR_SETTINGS: dict[str, type[Settings]] = {"ocr": OcrSettings, "yunet": YuNetSettings,
                                                "qr_opencv": CodeSettings, "yolo": YoloSettings}
"""Built-in detector kind -> the settings model of its own keys."""

S = TypeVar("S", bound=Settings)


def detector_settings(model: type[S], spec: Mapping[str, Any], kind: str) -> S:
    """One detector's typed settings from its config entry (``kind``, ``enabled`` and its own keys). A key the
    kind does not know is a ``ValueError`` ("unknown keys"): a typo in a privacy setting must not mean a default."""
    own = {k: v for k, v in spec.items() if k not in ("kind", "enabled")}
    unknown = set(own) - set(model.model_fields)
    if unknown:
        raise ValueError(f"{kind} detector: unknown keys {sorted(unknown)}; known: {sorted(model.model_fields)}")
    return model.of(own, f"{kind} detector")


class DetectorSpec(Settings):
    """One entry of ``deid.image.detectors``: ``kind``, ``enabled`` and the kind's own keys (kept as extra
    fields; a built-in kind's are checked against :data:`DETECTOR_SETTINGS`)."""

    model_config = ConfigDict(extra="allow")

    kind: str = Field(min_length=1)
    enabled: bool = True

    @model_validator(mode="after")
    def _own_keys_are_known(self) -> DetectorSpec:
        model = DETECTOR_SETTINGS.get(self.kind)
        if model is not None:
            found = problems(model, self.options(), f"{self.kind} detector")
            if found:
                raise ValueError("; ".join(found))
        return self

    def options(self) -> dict[str, Any]:
        """The kind's own keys (neither ``kind`` nor ``enabled``)."""
        return dict(self.model_extra or {})

    def entry(self) -> dict[str, Any]:
        """``{kind, **own keys}``: what :func:`medrealmm.deid.image.make_detector` builds from."""
        return {"kind": self.kind, **self.options()}


def _default_detectors() -> dict[str, DetectorSpec | None]:
    return {"ocr": DetectorSpec(kind="ocr", enabled=True),
            "codes": DetectorSpec(kind="qr_opencv", enabled=True),
            "face": DetectorSpec(kind="yunet", enabled=True, model=None),
            "yolo_codes": DetectorSpec(kind="yolo", enabled=False, weights=None,
                                       classes={"qr": "QR", "barcode": "BARCODE"}),
            "yolo_face": DetectorSpec(kind="yolo", enabled=False, weights=None, classes={"face": "FACE"})}


# --- the group -----------------------------------------------------------------------------------------


class TextSettings(Settings):
    """``deid.text``: the rules, the statistical layer, the LLM agent and the policy they follow."""

    rules: bool = True
    statistical: bool = True
    consistency: bool = True
    learned: bool = False
    spoken: bool = True
    learned_model: str | None = None
    workers: int = Field(default=0, ge=0)
    agent: bool = False
    agent_chunk_size: int = Field(default=64, ge=1)
    policy: TextPolicy = TextPolicy()


class ImageSettings(Settings):
    """``deid.image``: the padding around every box and the detectors (a null entry is no detector)."""

    pad: int = Field(default=4, ge=0)
    detectors: dict[str, DetectorSpec | None] = Field(default_factory=_default_detectors)

    def enabled(self) -> dict[str, DetectorSpec]:
        """The enabled detectors' entries, by name, in config order."""
        return {name: spec for name, spec in self.detectors.items() if spec is not None and spec.enabled}


class ReviewSettings(Settings):
    """``deid.review``: the human review's sampling scheme and sheets (:mod:`medrealmm.deid.review`)."""

    scheme: Literal["sample", "paper"] = "sample"
    share: float = Field(default=0.1, ge=0, le=1)
    audit: bool = False
    audit_share: float = Field(default=0.1, ge=0, le=1)
    seed: int = 0
    always_groups: list[str] = Field(default_factory=lambda: list(SENSITIVE_GROUPS))
    batch_size: int = Field(default=50, ge=1)
    decisions: str | None = None


class DeidSettings(Settings):
    """The ``deid`` group."""

    input: str | None = None
    out_dir: str | None = None
    chunk_size: int = Field(default=32, ge=1)
    strict: bool = False
    text: TextSettings = TextSettings()
    image: ImageSettings = ImageSettings()
    remove_case: RemovalRule = RemovalRule()
    review: ReviewSettings = ReviewSettings()
