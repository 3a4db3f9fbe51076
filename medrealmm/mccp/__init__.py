"""Phase 2 — multimodal clinical challenge points (MCCP).

candidates (:mod:`.select`) → agents A and M (:mod:`.agents`) → t* (:mod:`.select`) →
pre-rubric instances (:mod:`.instances`) → intent/stage (:mod:`.annotate`). :func:`run_mccp`
(:mod:`.run`) runs it on the funnel's kept consultations (a JSONL of
:class:`~medrealmm.corpus.schema.Consultation`), in resumable chunks.

Physician review: ``mccp.validation.decisions=<filled validation.csv>`` applies a sheet to the
outputs of an earlier run (:func:`apply_validation`, :mod:`.validation`, no engine): see
:mod:`.instances` for the CSV.
"""

from medrealmm.mccp.instances import (
    Instance,
    InstanceError,
    ValidationSheetError,
    build_instance,
    html_turn,
    image_path,
    read_instances,
    read_models,
    to_case,
    write_instances,
)
from medrealmm.mccp.run import (
    PART_VERSION,
    labels_from,
    part_key,
    read_consultations,
    run_mccp,
    settings_fingerprint,
)
from medrealmm.mccp.settings import AgentsSettings, AnnotateSettings, MccpSettings, ValidationSettings
from medrealmm.mccp.validation import VALIDATION_RESULT, apply_validation

__all__ = [
    "PART_VERSION",
    "VALIDATION_RESULT",
    "AgentsSettings",
    "AnnotateSettings",
    "Instance",
    "InstanceError",
    "MccpSettings",
    "ValidationSettings",
    "ValidationSheetError",
    "apply_validation",
    "build_instance",
    "html_turn",
    "image_path",
    "labels_from",
    "part_key",
    "read_consultations",
    "read_instances",
    "read_models",
    "run_mccp",
    "settings_fingerprint",
    "to_case",
    "write_instances",
]
