"""De-identification of consultation text and images (the paper's Phase 1, stages 4a, 4b and 5).

Detectors find identifiers (text spans, image boxes); maskers replace them (typed placeholders,
black rectangles); the audit trail records what was masked — category, detector, offsets or box —
and never the identifying text itself.
"""

from medrealmm.deid.removal import RemovalRule
from medrealmm.deid.settings import (
    CodeSettings,
    DeidSettings,
    DetectorSpec,
    ImageSettings,
    OcrSettings,
    ReviewSettings,
    TextSettings,
    YoloSettings,
    YuNetSettings,
)
from medrealmm.deid.text_detect import detect_consultation, detect_text
from medrealmm.deid.text_policy import TextPolicy

__all__ = ["CodeSettings", "DeidSettings", "DetectorSpec", "ImageSettings", "OcrSettings", "RemovalRule",
           "ReviewSettings", "TextPolicy", "TextSettings", "YoloSettings", "YuNetSettings", "detect_consultation",
           "detect_text"]
