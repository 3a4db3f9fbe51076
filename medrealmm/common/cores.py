"""How many cores this process may use: the scheduler's CPU set (a Slurm allocation, a container's
cpuset, ``taskset``), not the machine's count, so a job on a shared node does not start one worker per
core of the node."""

from __future__ import annotations

import os

__all__ = ["auto_workers", "usable_cores"]


def usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def auto_workers(requested: int, cap: int = 8) -> int:
    """``requested`` when > 0; 0 means one per usable core, at most ``cap``."""
    return requested if requested > 0 else max(1, min(cap, usable_cores()))
