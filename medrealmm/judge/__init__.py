"""Per-criterion grading of replies: one judge call per (reply, criterion)."""

#: The public modules (imported by name: ``from medrealmm.judge.<module> import ...``); loading the package
#: imports none of them, so a light caller never pays for a heavy one.
__all__ = ["grader", "parse", "prompts"]
