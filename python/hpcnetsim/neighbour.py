"""A cache-polluting neighbour for ``hpcnetsim bench --scale --neighbour``: a process that
keeps writing random cache lines of a buffer larger than the last-level cache, as another
tenant of a shared machine does, so that the engine's cost per hop under contention for the
shared cache and memory bandwidth is measured rather than assumed."""

from __future__ import annotations

import multiprocessing
import os

#: Bytes the neighbour sweeps: larger than any last-level cache a core shares.
DEFAULT_BYTES = 1 << 30


def _pollute(nbytes: int, stop) -> None:
    """Writes one random word per cache line of ``nbytes``, in batches, until ``stop`` is set."""
    import numpy as np

    try:
        os.nice(0)
    except OSError:
        pass
    words = np.zeros(nbytes // 8, dtype=np.int64)
    lines = len(words) // 8
    rng = np.random.default_rng(1)
    while not stop.is_set():
        idx = rng.integers(0, lines, size=1 << 20) * 8
        words[idx] += 1


class Neighbour:
    """The polluting process, started on entry and stopped on exit (``with Neighbour(): ...``)."""

    def __init__(self, nbytes: int = DEFAULT_BYTES):
        self.nbytes = nbytes
        ctx = multiprocessing.get_context("spawn")
        self._stop = ctx.Event()
        self._process = ctx.Process(target=_pollute, args=(nbytes, self._stop), daemon=True)

    def __enter__(self) -> Neighbour:
        self._process.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    @property
    def alive(self) -> bool:
        """Whether the neighbour is running."""
        return self._process.is_alive()
