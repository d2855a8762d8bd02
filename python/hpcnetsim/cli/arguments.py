"""The command line's parser class, its one-line usage errors, exit statuses and the
argument types of its numbers and paths (argparse ``type=`` functions)."""

from __future__ import annotations

import argparse

from ..cores import max_workers, too_many_threads, workers_allowed

# Names for annotations only: importing `typing` and `pathlib` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


#: Exit status of a run that ended in a deadlock (its evidence is printed and written).
EXIT_DEADLOCK = 3


class UsageError(Exception):
    """A command-line mistake, reported in one line with exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and raise instead of exiting."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message}")


def path_arg(text: str) -> Path:
    """A path argument (argparse `type`): `pathlib` is imported only when one is given."""
    from pathlib import Path

    return Path(text)


#: Most offered loads of one ``run --loads``: ``simulation.MAX_LOADS``, not imported here to
#: keep the start-up of other commands short.
MAX_LOADS = 1000


def loads_arg(text: str) -> list[float]:
    """``--loads``: comma-separated numbers in [0, 1], each once, at most :data:`MAX_LOADS`
    (checked here, so that the message names the flag)."""
    words = text.split(",")
    if len(words) > MAX_LOADS:
        raise argparse.ArgumentTypeError(f"{len(words)} loads are too many: at most {MAX_LOADS}")
    try:
        loads = [float(x) for x in words]
    except ValueError:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise argparse.ArgumentTypeError(f"'{shown}' is not a comma-separated list of numbers") from None
    seen = set()
    for x, w in zip(loads, words):
        if x in seen:
            raise argparse.ArgumentTypeError(f"load {w.strip()} is listed twice: each load at most once")
        seen.add(x)
    # The API's own check of each load, here so that its message names the flag.
    from .._core import ConfigError
    from ..simulation import check_loads

    try:
        check_loads(loads)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return loads


def thread_list_arg(text: str) -> tuple[int, ...]:
    """``bench --threads``: comma-separated thread counts, 0 for the engine's automatic choice,
    each at most once."""
    counts = tuple(threads_arg(t) for t in text.split(","))
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"'{text}' repeats a thread count: list each once, e.g. 1,2,0")
    return counts


def threads_arg(text: str) -> int:
    """``--threads``: a whole number of threads, 0 for automatic, at most :func:`max_workers`."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of threads (a whole number >= 0; 0: automatic)")
    n = int(text)
    if too_many := too_many_threads(n):
        raise argparse.ArgumentTypeError(too_many)
    return n


def index_arg(text: str) -> int:
    """A terminal or switch index: a whole number >= 0 (the core checks it against the network)."""
    t = text.strip()
    if not t.isdigit() or len(t) > 18:
        raise argparse.ArgumentTypeError(f"'{text}' is not an index (a whole number from 0 to 10^18)")
    return int(t)


def cycles_arg(text: str) -> int:
    """``--max-cycles``: a whole number of cycles from 1 to 10^12 (``1e6`` is accepted)."""
    try:
        v = float(text) if not text.strip().lstrip("+").isdigit() else int(text)
    except ValueError:
        v = None
    if v is None or v != v or not 1 <= v <= 10**12 or v != int(v):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of cycles (a whole number from 1 to 10^12)")
    return int(v)


def seconds_arg(text: str) -> float:
    """``--max-seconds``: a positive number of seconds, at most a year."""
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 < v <= 3.2e7:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds (more than 0, at most 3.2e7: a year)")
    return v


def jobs_arg(text: str) -> int:
    """``--jobs``: a whole number of local worker processes, 1 to :func:`max_workers`."""
    t = text.strip()
    if not t.isdigit() or int(t) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of processes (a whole number >= 1)")
    if int(t) > max_workers():
        raise argparse.ArgumentTypeError(f"{int(t)} processes are too many: 1 to {workers_allowed()}")
    return int(t)


def repetitions_arg(text: str) -> int:
    """``--repetitions``: a whole number (its range, 1 to ``confidence.MAX_REPETITIONS``, is
    checked where the experiment's own count is, with the same message)."""
    t = text.strip()
    if not t.lstrip("+-").isdigit():
        from ..confidence import MAX_REPETITIONS

        raise argparse.ArgumentTypeError(f"'{text}' is not a number of runs (a whole number from 1 to "
                                         f"{MAX_REPETITIONS}, runs with derived seeds)")  # fmt: skip
    return int(t)


def node_counts_arg(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of node counts") from None
    for i, n in enumerate(counts):
        if n in counts[:i]:
            raise argparse.ArgumentTypeError(f"node count {n} is listed twice: each count at most once")
    return counts
