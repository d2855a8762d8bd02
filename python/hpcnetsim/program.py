"""User-written communication programs: build task programs in Python and run them like any
causal workload.

>>> p = hpcnetsim.Program(4)
>>> for r in range(4):
...     p.compute(r, 1000)
...     p.send(r, (r + 1) % 4, 4096)
...     p.recv(r, (r - 1) % 4, 4096)
>>> p.allreduce(8192, algorithm="ring")
>>> result = p.run({"topology": "torus:2x2"})

A program is kept in the hpcnetsim text format (docs/traces.md), which :meth:`Program.text`
returns and :meth:`Program.save` writes, so the same program also replays from a file with
``workload.trace``.
"""

from __future__ import annotations

import json
import numbers
import os
from pathlib import Path

from . import _core
from ._core import ConfigError
from .config import as_integer, load_config, to_json
from .simulation import SimulationResult

ANY = "any"
"""Wildcard for a receive's source or tag (MPI_ANY_SOURCE, MPI_ANY_TAG)."""

#: Bounds of traces (docs/reliability.md): ranks, one compute interval (cycles), message bytes.
MAX_RANKS = 1 << 26
MAX_CYCLES = 10**12
MAX_BYTES = 1 << 40

COLLECTIVES = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter")
#: The collectives with a root rank.
ROOTED = ("bcast", "reduce", "gather", "scatter")


def _one_word(v) -> bool:
    """Whether ``v`` is a name of letters, digits, ``-`` and ``_`` (no space or line break,
    which in the text a program is kept as would start another field or call)."""
    return isinstance(v, str) and v.isascii() and v.replace("-", "").replace("_", "").isalnum()


class Program:
    """Task programs of ``ranks`` ranks, one list of operations per rank."""

    def __init__(self, ranks: int):
        n = as_integer(ranks)
        if n is None or not 1 <= n <= MAX_RANKS:
            raise ConfigError(f"ranks = {ranks!r} is invalid: a number of ranks between 1 and {MAX_RANKS}")
        self.ranks = ranks = n
        self._members: dict[int, list[int]] = {}
        self._comms: list[str] = []
        # Text-format lines; compute given in seconds stays (rank, seconds) until a clock is known.
        self._lines: list[str | tuple[int, float]] = []
        self._next_comm = 1
        self._next_req = [0] * ranks

    def _rank(self, r, what: str = "rank") -> int:
        i = as_integer(r)
        if i is None or not 0 <= i < self.ranks:
            raise ConfigError(f"{what} = {r!r} is invalid: a rank in 0..{self.ranks - 1}")
        return i

    @staticmethod
    def _count(v, what: str, high: int | None = None) -> int:
        i = as_integer(v)
        if i is None or i < 0 or (high is not None and i > high):
            allowed = "an integer ≥ 0" if high is None else f"an integer between 0 and {high}"
            raise ConfigError(f"{what} = {v!r} is invalid: {allowed}")
        return i

    def _bytes(self, v) -> int:
        return self._count(v, "nbytes", MAX_BYTES)

    def _send_tag(self, tag, what: str):
        # A send names its tag: ANY only matches on the receiving side.
        if tag == ANY:
            raise ConfigError(f"{what}: tag = {tag!r} is invalid: an integer ≥ 0 (ANY is for receives)")
        return tag or None

    def _opts(self, tag=None, comm: int = 0, **kw) -> str:
        parts = []
        if tag is not None:
            if tag != ANY:
                tag = self._count(tag, "tag")
            parts.append(f"tag={tag}")
        # A program is text: a communicator is a number, never words that would read as more.
        comm = self._count(comm, "comm")
        if comm:
            parts.append(f"comm={comm}")
        parts += [f"{k}={v}" for k, v in kw.items() if v is not None]
        return (" " + " ".join(parts)) if parts else ""

    def compute(self, rank: int, cycles: int | None = None, *, seconds: float | None = None) -> Program:
        """``rank`` computes for ``cycles`` network cycles, or for ``seconds`` of traced time that
        become cycles of the network's clock when the program runs (``workload.cycle_ns``, else
        the ``[link]`` clock, as for traces); both scaled by ``workload.cpu_factor``."""
        if (cycles is None) == (seconds is None):
            given = f"cycles = {cycles!r}, seconds = {seconds!r}"
            raise ConfigError(f"compute: {given} is invalid: exactly one of the two")
        if seconds is not None:
            if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not 0 <= seconds <= 1e6:
                raise ConfigError(f"compute: seconds = {seconds!r} is invalid: a number between 0 and 1e6")
            self._lines.append((self._rank(rank), float(seconds)))
            return self
        self._lines.append(f"{self._rank(rank)} compute {self._count(cycles, 'cycles', MAX_CYCLES)}")
        return self

    def send(self, rank: int, to: int, nbytes: int, tag: int = 0, comm: int = 0) -> Program:
        """``rank`` sends ``nbytes`` to ``to`` (hands the message to the NIC and goes on)."""
        dst, size = self._rank(to, "to"), self._bytes(nbytes)
        self._lines.append(f"{self._rank(rank)} send {dst} {size}{self._opts(self._send_tag(tag, 'send'), comm)}")
        return self

    def recv(self, rank: int, source, nbytes: int, tag=0, comm: int = 0) -> Program:
        """``rank`` waits for a message from ``source`` (or :data:`ANY`) with ``tag`` (or :data:`ANY`)."""
        src = source if source == ANY else self._rank(source, "source")
        size = self._bytes(nbytes)
        self._lines.append(f"{self._rank(rank)} recv {src} {size}{self._opts(tag or None, comm)}")
        return self

    def _request(self, rank: int) -> int:
        self._next_req[rank] += 1
        return self._next_req[rank]

    def isend(self, rank: int, to: int, nbytes: int, tag: int = 0, comm: int = 0) -> int:
        """Non-blocking send; returns the request to :meth:`wait` on (complete when delivered)."""
        dst, size, tag = self._rank(to, "to"), self._bytes(nbytes), self._send_tag(tag, "isend")
        rank = self._rank(rank)
        req = self._request(rank)
        self._lines.append(f"{rank} isend {dst} {size}{self._opts(tag, comm, req=req)}")
        return req

    def irecv(self, rank: int, source, nbytes: int, tag=0, comm: int = 0) -> int:
        """Non-blocking receive; returns the request to :meth:`wait` on."""
        rank = self._rank(rank)
        req = self._request(rank)
        src = source if source == ANY else self._rank(source, "source")
        size = self._bytes(nbytes)
        self._lines.append(f"{rank} irecv {src} {size}{self._opts(tag or None, comm, req=req)}")
        return req

    def wait(self, rank: int, *requests: int) -> Program:
        """``rank`` blocks until every request has completed (wait / waitall)."""
        if not requests:
            raise ConfigError("wait: requests = () is invalid: at least one request")
        ids = " ".join(str(self._count(r, "request")) for r in requests)
        self._lines.append(f"{self._rank(rank)} waitall {ids}")
        return self

    def wait_any(self, rank: int, *requests: int) -> Program:
        """``rank`` blocks until one of the requests has completed (waitany)."""
        if not requests:
            raise ConfigError("wait_any: requests = () is invalid: at least one request")
        ids = " ".join(str(self._count(r, "request")) for r in requests)
        self._lines.append(f"{self._rank(rank)} waitany {ids}")
        return self

    def communicator(self, ranks) -> int:
        """A communicator over the given world ranks (in that order); returns its id."""
        members = [self._rank(r) for r in ranks]
        if len(set(members)) != len(members) or not members:
            raise ConfigError(f"communicator: ranks = {list(ranks)!r} is invalid: distinct ranks, at least 1")
        cid = self._next_comm
        self._next_comm += 1
        self._members[cid] = members
        self._comms.append(f"comm {cid} {' '.join(map(str, members))}")
        return cid

    def collective(
        self, op: str, nbytes: int = 0, root: int = 0, comm: int = 0, ranks=None, algorithm=None
    ) -> Program:
        """Every rank (or those of ``ranks``, the members of ``comm``) calls collective ``op``,
        expanded with ``algorithm`` (default: ``workload.algorithm``, see docs/workloads.md)."""
        if op not in COLLECTIVES:
            raise ConfigError(f"collective = {op!r} is invalid: one of {', '.join(COLLECTIVES)}")
        if comm and comm not in self._members:
            raise ConfigError(f"{op}: comm = {comm!r} is invalid: a communicator made by communicator()")
        # Without ranks: every member of the communicator (the world: every rank).
        who = (self._members[comm] if comm else range(self.ranks)) if ranks is None else list(ranks)
        # A rank twice would call the collective twice: the run then blamed the other ranks.
        if ranks is not None and len(set(who)) != len(who):
            seen: set = set()
            twice = next(r for r in who if r in seen or seen.add(r))
            raise ConfigError(f"{op}: ranks = {ranks!r} is invalid: each rank at most once (rank {twice} twice)")
        # The root is a rank of the communicator (its index among the members).
        size = len(self._members[comm]) if comm else self.ranks
        if root != 0 and op not in ROOTED:
            raise ConfigError(f"{op}: root = {root!r} is invalid: {op} has no root ({', '.join(ROOTED)} do)")
        index = as_integer(root)
        if index is None or not 0 <= index < size:
            where = f"communicator {comm}" if comm else "the world"
            raise ConfigError(f"{op}: root = {root!r} is invalid: a rank of {where} in 0..{size - 1}")
        root = index
        if algorithm is not None and not _one_word(algorithm):
            raise ConfigError(f"{op}: algorithm = {algorithm!r} is invalid: a name such as 'ring' or 'binomial' "
                              "(docs/workloads.md)")  # fmt: skip
        size = "" if op == "barrier" else f" {self._bytes(nbytes)}"
        opts = self._opts(None, comm, root=root or None, algorithm=algorithm)
        for r in who:
            self._lines.append(f"{self._rank(r)} {op}{size}{opts}")
        return self

    def barrier(self, comm: int = 0, ranks=None) -> Program:
        """MPI_Barrier."""
        return self.collective("barrier", comm=comm, ranks=ranks)

    def bcast(self, nbytes: int, root: int = 0, **kw) -> Program:
        """MPI_Bcast of ``nbytes`` from ``root``."""
        return self.collective("bcast", nbytes, root, **kw)

    def reduce(self, nbytes: int, root: int = 0, **kw) -> Program:
        """MPI_Reduce of ``nbytes`` to ``root``."""
        return self.collective("reduce", nbytes, root, **kw)

    def allreduce(self, nbytes: int, **kw) -> Program:
        """MPI_Allreduce of ``nbytes``."""
        return self.collective("allreduce", nbytes, **kw)

    def allgather(self, nbytes: int, **kw) -> Program:
        """MPI_Allgather, ``nbytes`` per rank."""
        return self.collective("allgather", nbytes, **kw)

    def alltoall(self, nbytes: int, **kw) -> Program:
        """MPI_Alltoall, ``nbytes`` per rank pair."""
        return self.collective("alltoall", nbytes, **kw)

    def text(self, cycle_ns: float = 1.0) -> str:
        """The program in the hpcnetsim text format (compute given in seconds in cycles of
        ``cycle_ns``)."""
        number = isinstance(cycle_ns, numbers.Real) and not isinstance(cycle_ns, bool)
        if not number or not 0 < cycle_ns < float("inf"):
            raise ConfigError(f"cycle_ns = {cycle_ns!r} is invalid: a positive number of ns")
        lines = [
            line if isinstance(line, str) else f"{line[0]} compute {round(line[1] * 1e9 / cycle_ns)}"
            for line in self._lines
        ]
        return "\n".join([f"ranks {self.ranks}", *self._comms, *lines]) + "\n"

    def save(self, path: str | os.PathLike, cycle_ns: float = 1.0) -> Path:
        """Writes :meth:`text` to ``path``; returns the path."""
        from ._files import atomic_write_text

        atomic_write_text(Path(path), self.text(cycle_ns), parents=False)
        return Path(path)

    def run(
        self,
        config,
        algorithm: str | None = None,
        *,
        progress=None,
        max_seconds: float | None = None,
        max_cycles: int | None = None,
        check: bool = False,
        threads: int = 0,
    ) -> SimulationResult:
        """Runs the program on the network of ``config`` (dict or TOML path; its ``[workload]``
        table, if any, gives placement, ``cpu_factor`` and the collective ``algorithm``).
        ``progress``, ``max_seconds``, ``max_cycles``, ``check`` and ``threads`` are those of
        :func:`hpcnetsim.execute`."""
        from .simulation import check_run_options

        check_run_options(max_cycles, threads, progress, max_seconds)
        cfg = load_config(config)
        w = cfg.get("workload") or {}
        if not isinstance(w, dict):  # the core names a [workload] of the wrong type
            _core.config_from_json(to_json(cfg))
            raise ConfigError(f"config: workload = {w!r} is invalid: a table")
        w = dict(w)
        w.pop("trace", None)
        if algorithm is not None:
            w["algorithm"] = algorithm
        cfg["workload"] = w
        from .simulation import workload_cycle_ns
        from .units import with_physical

        cfg_json = to_json(cfg)
        # Every value is checked before seconds are converted with workload.cycle_ns (the core
        # refuses a kernel's fields, which the program's ranks and messages replace).
        _core.config_from_json(cfg_json)
        # Seconds of compute become cycles of the network's clock, as traced time does.
        text = self.text(workload_cycle_ns(cfg_json, w))
        options = (progress, max_seconds, max_cycles, check, threads)
        result = _core.execute_program(cfg_json, "program", text, *options)
        return SimulationResult(json.loads(with_physical(result, cfg_json)))

    def __eq__(self, other: object) -> bool:
        """Equal when both have the same ranks, communicators and calls in the same order."""
        if not isinstance(other, Program):
            return NotImplemented
        return (self.ranks, self._comms, self._lines) == (other.ranks, other._comms, other._lines)

    # A program grows call by call: compared by content, so no hash.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Program({self.ranks} ranks, {len(self._lines)} calls)"
