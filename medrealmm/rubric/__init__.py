"""Phase 3 — case-specific rubrics: generation, checks (lint), physician feedback, revision, approval.

A rubric is built in rounds: R(0) from (x, y_orig) by an LLM, then R(k+1) from (x, R(k), F(k))
with the physicians' direct edits applied first. Every case's rubric history lives in a
:class:`~medrealmm.rubric.model.RubricRecord`; only an *approved* rubric reaches the evaluation core.
"""

#: The public modules (imported by name: ``from medrealmm.rubric.<module> import ...``); loading the package
#: imports none of them, so a light caller never pays for a heavy one.
__all__ = ["build", "feedback", "lint", "model", "report", "settings", "sheet", "store", "writer"]
