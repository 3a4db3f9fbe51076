"""Stage 4a: remove a whole case when its clinical signal needs an identifying image.

Masking a face that fills a skin photo leaves nothing to diagnose, and a case whose image is mostly
black boxes is no longer the case the physician answered. Such cases are dropped before masking,
with the reason (numbers and rule names only) in ``removed.jsonl``. The thresholds are config.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from medrealmm.config_schema import Settings

if TYPE_CHECKING:
    from medrealmm.deid.records import ImageSlot, LogRecord


CODE_CATEGORIES = frozenset({"QR", "BARCODE"})
"""Masking a code loses no clinical signal, so codes do not count towards ``masked_area_share``."""


class RemovalRule(Settings):
    """``deid.remove_case``: the thresholds of stage 4a (a share is in (0, 1]; null: never)."""

    face_area_share: float | None = Field(default=0.2, gt=0, le=1)    # a face box covering this share removes the case
    masked_area_share: float | None = Field(default=0.5, gt=0, le=1)  # so does masking more of an image (codes aside)
    on_agent_failure: Literal["keep", "remove"] = "keep"              # keep (rules still masked the text) | remove

    def reason(self, record: LogRecord, images: Sequence[tuple[ImageSlot, Sequence[Any], tuple[int, int]]]) -> str | None:
        """Why this case must go, or None. ``images``: (slot, boxes, (width, height)) per image."""
        for slot, boxes, (w, h) in images:
            area = float(w * h) or 1.0
            where = slot.where()
            if self.face_area_share is not None:
                faces = [b for b in boxes if b.category == "FACE"]
                biggest = max((b.area for b in faces), default=0) / area
                if biggest >= self.face_area_share:
                    return f"a face covers {biggest:.0%} of {where} (deid.remove_case.face_area_share={self.face_area_share})"
            content = [b for b in boxes if b.category not in CODE_CATEGORIES]
            if self.masked_area_share is not None and content:
                share = covered_share(content, w, h)
                if share > self.masked_area_share:
                    return (f"masking would cover {share:.0%} of {where} "
                            f"(deid.remove_case.masked_area_share={self.masked_area_share})")
        return None


def covered_share(boxes: Sequence[Any], width: int, height: int) -> float:
    """Share of the image the mask would cover (overlaps counted once; an OCR line's quadrilateral, not
    its bounding rectangle, so a tilted photo is not taken for a mostly masked one)."""
    from medrealmm.deid.image.mask import coverage

    mask = coverage(boxes, width, height)
    return float(mask.mean()) if mask.size else 0.0

