"""Human-readable results: the run summary, the leaderboard, the many-run report and the case viewer."""

#: The public modules (imported by name: ``from medrealmm.report.<module> import ...``); loading the package
#: imports none of them, so a light caller never pays for a heavy one.
__all__ = ["analyses", "build", "document", "figures", "leaderboard", "runs", "settings", "summary", "viewer"]
