"""Human-readable results: the run summary (Markdown + JSON)."""
