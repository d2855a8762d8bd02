"""Progress of one long run on a terminal: simulated cycles, phase, packets in flight."""

from __future__ import annotations

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


class TerminalProgress:
    """A progress callback for :func:`hpcnetsim.simulate`: rewrites one status line."""

    def __init__(self, stream: TextIO, every: float = 0.5, prefix: str = ""):
        self.stream = stream
        self.every = every
        #: What the run is, when there are several (``load 0.3 (2 of 5)  ``).
        self.prefix = prefix
        self.last = -1.0
        self.shown = False

    def __call__(self, p: dict) -> None:
        if p["wall_seconds"] - self.last < self.every:
            return
        self.last = p["wall_seconds"]
        rate = p["cycle"] / p["wall_seconds"] if p["wall_seconds"] > 0 else 0.0
        line = (f"{p['phase']:<11} cycle {p['cycle']:>13,}  {p['in_flight']:>9,} packets in flight  "
                f"{p['delivered']:>12,} delivered  {rate:>10,.0f} cycles/s  {p['wall_seconds']:6.1f} s")  # fmt: skip
        self.stream.write("\r" + self.prefix + line)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Ends the status line (if one was shown)."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
