"""``store``: the settings of ``medrealmm store stats|verify|compact|gc|migrate`` (``conf/store/default.yaml``)."""

from __future__ import annotations

from pydantic import Field

from medrealmm.config_schema import Settings

__all__ = ["GcSettings", "StoreSettings"]


class GcSettings(Settings):
    """``store.gc``: which outputs keep their records, and how old a file must be to go."""

    outputs: list[str] = []
    min_age_hours: float = Field(default=48, ge=0)


class StoreSettings(Settings):
    """``store``: which part of the store, whether to change anything, and the rewrite sizes."""

    only: str | None = None
    dry_run: bool = False
    segment_mb: float = Field(default=64, gt=0)
    min_files: int = Field(default=2, ge=1)
    gc: GcSettings = GcSettings()

    @property
    def segment_bytes(self) -> int:
        """Rewritten records go into files of up to this many bytes."""
        return int(self.segment_mb * (1 << 20))
