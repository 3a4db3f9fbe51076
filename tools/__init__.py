"""Tooling that is not part of the runtime package: builders of committed data files (``tools.sample``)."""
