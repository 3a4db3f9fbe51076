"""Every config group's typed settings in one table, for the start-up check of each command.

The models live beside the code that reads them (``medrealmm/<phase>/settings.py``: config groups mirror
code); this orchestrator-level module only lists them, so the foundation (:mod:`medrealmm.config_schema`)
never imports a phase.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from medrealmm import config_schema
from medrealmm.corpus.settings import CorpusSettings
from medrealmm.deid.settings import DeidSettings
from medrealmm.mccp.settings import MccpSettings
from medrealmm.report.settings import ReportSettings
from medrealmm.rubric.settings import RubricSettings
from medrealmm.store.settings import StoreSettings

__all__ = ["GROUPS", "check_config"]

GROUPS: dict[str, type[BaseModel]] = {
    **config_schema.GROUPS,
    "corpus": CorpusSettings,
    "deid": DeidSettings,
    "mccp": MccpSettings,
    "report": ReportSettings,
    "rubric": RubricSettings,
    "store": StoreSettings,
}
"""Group name (the key in the composed config) -> its settings model."""


def check_config(cfg: dict[str, Any], groups: tuple[str, ...] | None = None) -> None:
    """Raise :class:`~medrealmm.config_schema.ConfigError` listing every invalid setting of ``groups``
    (default: every group present in ``cfg``)."""
    config_schema.check_config(cfg, groups, GROUPS)
