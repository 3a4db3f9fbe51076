"""Our own log lines, captured in a subprocess that drives a real engine, so a test can check them
(counts logged, nothing identifying) apart from the engine's chatter."""

from __future__ import annotations

import io
import logging


def capture_package_log() -> io.StringIO:
    """Every ``medrealmm`` log record from now on, at DEBUG, into the returned buffer."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setLevel(logging.DEBUG)
    logging.getLogger("medrealmm").addHandler(handler)
    logging.getLogger("medrealmm").setLevel(logging.DEBUG)
    return buf
