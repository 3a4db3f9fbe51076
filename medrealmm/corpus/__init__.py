"""Phase 1: raw consultation logs, their importers, and the funnel that turns them into candidates."""
