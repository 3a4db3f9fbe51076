"""Phase 1 — corpus construction: raw consultation logs in (:mod:`.importers`), the funnel of filtering
stages (:mod:`.funnel`), its report (:mod:`.funnel_report`), and the ``medrealmm corpus`` command
(:mod:`.build`). De-identification, stage 4, belongs to :mod:`medrealmm.deid` and is handed in."""

from medrealmm.corpus.build import DeidStageFactory, run_corpus
from medrealmm.corpus.funnel import (
    DEID,
    OUT_KEPT,
    REVIEW,
    REVIEW_REASON,
    STAGES,
    Dropped,
    FunnelResult,
    LLMCheck,
    StageHook,
    StageResult,
    copy_images,
    read_input,
    recorded_stage,
    run_funnel,
    write_funnel,
)
from medrealmm.corpus.schema import Consultation, Event
from medrealmm.corpus.settings import (
    CorpusDeidSettings,
    CorpusSettings,
    DepartmentBalanceSettings,
    DialogueQualitySettings,
    ImageAvailabilitySettings,
    QualityLLMSettings,
    SideShareSettings,
)

__all__ = [
    "DEID",
    "OUT_KEPT",
    "REVIEW",
    "REVIEW_REASON",
    "STAGES",
    "SideShareSettings",
    "Consultation",
    "CorpusDeidSettings",
    "CorpusSettings",
    "DeidStageFactory",
    "DepartmentBalanceSettings",
    "DialogueQualitySettings",
    "Dropped",
    "Event",
    "FunnelResult",
    "ImageAvailabilitySettings",
    "LLMCheck",
    "QualityLLMSettings",
    "StageHook",
    "StageResult",
    "copy_images",
    "read_input",
    "recorded_stage",
    "run_corpus",
    "run_funnel",
    "write_funnel",
]
