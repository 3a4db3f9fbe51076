"""Per-criterion grading of replies: one judge call per (reply, criterion)."""
