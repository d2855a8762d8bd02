"""How many worker processes or threads a run may start, from the cores this process may use."""

from __future__ import annotations

import os

#: Processes or threads per core that ``--jobs`` and ``--threads`` (and the API's ``threads``)
#: may ask for: more only multiply memory and switching, and a typo such as 100000 would start
#: that many.
PER_CORE = 4


def default_jobs() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def max_workers() -> int:
    """Most worker processes or threads a command may start: :data:`PER_CORE` per core."""
    return PER_CORE * default_jobs()


def workers_allowed() -> str:
    """The most workers, with how they follow from the cores, for messages."""
    return f"{max_workers()} ({PER_CORE} per core, {default_jobs()} cores here)"


def too_many_threads(n: int) -> str | None:
    """What is wrong with ``n`` threads (more than :func:`max_workers`), or None: one text for
    ``--threads`` and the API's ``threads``."""
    return f"{n} is too many threads: 0 (automatic) to {workers_allowed()}" if n > max_workers() else None
