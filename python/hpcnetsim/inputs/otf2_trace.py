"""OTF2 archives (Score-P) as task programs, read with the ``otf2`` package from PyPI.

Each location of the world communicator is a rank. MPI point-to-point events (``MpiSend``,
``MpiIsend`` + ``MpiIsendComplete``, ``MpiRecv``, ``MpiIrecvRequest`` + ``MpiIrecv``) and
collective events (``MpiCollectiveEnd``, with Score-P's total sizes turned into the per-rank
buffer the collective module expects) become calls of the hpcnetsim text format; the time
between leaving one MPI region and entering the next is compute. The text is then replayed
by the core like any text trace (docs/traces.md).
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from collections import Counter
from contextlib import contextmanager, redirect_stderr

from .._core import ConfigError

#: Collective operations and how their buffer follows from Score-P's sizes
#: (``sent``/``received`` are totals over the communicator of ``n`` ranks).
_COLLECTIVES = {
    "BARRIER": ("barrier", lambda s, r, n, root: 0),
    "BCAST": ("bcast", lambda s, r, n, root: r if r else s // n),
    "SCATTER": ("scatter", lambda s, r, n, root: r if r else s // n),
    "SCATTERV": ("scatter", lambda s, r, n, root: r if r else s // n),
    "GATHER": ("gather", lambda s, r, n, root: s if s else r // n),
    "GATHERV": ("gather", lambda s, r, n, root: s if s else r // n),
    "REDUCE": ("reduce", lambda s, r, n, root: s),
    "ALLGATHER": ("allgather", lambda s, r, n, root: s // n),
    "ALLGATHERV": ("allgather", lambda s, r, n, root: s // n),
    "ALLTOALL": ("alltoall", lambda s, r, n, root: s // n),
    "ALLTOALLV": ("alltoall", lambda s, r, n, root: s // n),
    "ALLTOALLW": ("alltoall", lambda s, r, n, root: s // n),
    "ALLREDUCE": ("allreduce", lambda s, r, n, root: s // n),
    "REDUCE_SCATTER": ("allreduce", lambda s, r, n, root: s // n),
    "REDUCE_SCATTER_BLOCK": ("allreduce", lambda s, r, n, root: s // n),
    "SCAN": ("allreduce", lambda s, r, n, root: s // n),
    "EXSCAN": ("allreduce", lambda s, r, n, root: s // n),
}


#: Events that move MPI data which the conversion does not replay: skipped, their messages (or
#: a non-blocking collective's traffic) would be missing from the replay without a word.
_REFUSED = (
    "NonBlockingCollectiveRequest", "NonBlockingCollectiveComplete", "MpiMrecv", "MpiImrecv", "MpiImrecvRequest",
    "MpiRequestCancelled", "RmaPut", "RmaGet", "RmaAtomic",
)  # fmt: skip


def _open(path):
    try:
        import otf2
    except ImportError:
        raise ConfigError(f"{path}: reading OTF2 needs the 'otf2' package (pip install otf2)") from None
    if not os.path.exists(path):
        raise ConfigError(f"{path}: no such OTF2 archive")
    try:
        return otf2.reader.open(str(path))
    except Exception as e:  # the C library's errors
        raise ConfigError(f"{path}: not a readable OTF2 archive ({e})") from None


def is_otf2(path, format: str = "auto") -> bool:
    """Whether ``path`` in ``format`` is read as an OTF2 archive."""
    return format == "otf2" or (format == "auto" and str(path).lower().endswith(".otf2"))


def to_text(path: str | os.PathLike, cycle_ns: float = 1.0) -> tuple[str, list[dict]]:
    """The archive as a text trace (compute in cycles of ``cycle_ns``; the CPU factor is applied
    by the replay) and the MPI calls of every rank (regions entered, by name). A damaged archive
    (empty, truncated or missing definition and event files) is a one-line ConfigError."""
    reported: list[str] = []
    try:
        with _library_errors(reported):
            result = _to_text(path, cycle_ns)
    except ConfigError:
        raise
    except Exception as e:  # the otf2 package's errors on a damaged file
        what = _first_error(reported) or " ".join(str(e).split()) or type(e).__name__
        raise ConfigError(f"{path}: damaged OTF2 archive: {what}") from None
    # The C library reports some damaged files (a rank's definitions) and reads on without them.
    what = _first_error(reported)
    if what:
        raise ConfigError(f"{path}: damaged OTF2 archive: {what}")
    return result


@contextmanager
def _library_errors(reported: list[str]):
    """Captures what the OTF2 C library writes to the process's stderr (its error messages,
    several lines each) while reading, so that a damaged archive is one line of ours; also what
    the otf2 package's callbacks write to ``sys.stderr`` (a traceback when a damaged record
    names no definition), which is not the process's stderr under Jupyter or pytest."""
    sys.stderr.flush()
    saved = os.dup(2)
    python_side = io.StringIO()
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            with redirect_stderr(python_side):
                yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            reported.append(tmp.read().decode(errors="replace"))
            reported.append(python_side.getvalue())


def _first_error(reported: list[str]) -> str:
    """The first error the OTF2 library reported, without its source location."""
    for line in "".join(reported).splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return ""


def _to_text(path, cycle_ns: float) -> tuple[str, list[dict]]:
    with _open(path) as tr:
        defs = tr.definitions
        world = next((c for c in defs.comms if c.name == "MPI_COMM_WORLD"), None)
        if world is None or world.group is None or not world.group.members:
            raise ConfigError(f"{path}: no MPI_COMM_WORLD with members in the definitions")
        rank_of = {loc: r for r, loc in enumerate(world.group.members)}
        n = len(rank_of)
        ticks_per_cycle = defs.clock_properties.timer_resolution * cycle_ns * 1e-9
        comm_ids, comm_lines, sizes, self_ids = {}, [], {}, {}
        for c in defs.comms:
            members = list(c.group.members) if c.group is not None else []
            sizes[c] = len(members)
            if c is world:
                comm_ids[c] = 0
            elif members and all(m in rank_of for m in members):
                comm_ids[c] = len(comm_lines) + 1
                comm_lines.append(f"comm {comm_ids[c]} " + " ".join(str(rank_of[m]) for m in members))
        lines: list[list[str]] = [[] for _ in range(n)]
        calls = [Counter() for _ in range(n)]
        left: list[int | None] = [None] * n
        pending: list[dict] = [dict() for _ in range(n)]  # irecv request id -> line index
        for loc, ev in tr.events:
            r = rank_of.get(loc)
            if r is None:
                continue
            kind = type(ev).__name__
            if kind in _REFUSED:
                raise ConfigError(
                    f"{path}: rank {r}: event {kind} is invalid: not replayed; the events replayed are MpiSend, "
                    f"MpiIsend, MpiIsendComplete, MpiRecv, MpiIrecvRequest, MpiIrecv and MpiCollectiveEnd "
                    f"(docs/traces.md)"
                )
            out = lines[r]
            comm = getattr(ev, "communicator", None)
            memberless = comm is not None and comm.group is not None and not comm.group.members
            if memberless and comm not in comm_ids:
                # MPI_COMM_SELF (and communicators of one rank): a communicator per rank.
                if r not in self_ids:
                    self_ids[r] = len(comm_lines) + 1
                    comm_lines.append(f"comm {self_ids[r]} {r}")
                c = f" comm={self_ids[r]}"
            else:
                c = f" comm={comm_ids[comm]}" if comm is not None and comm_ids.get(comm) else ""
            if kind == "Enter":
                name = ev.region.name
                if name.startswith("MPI_"):
                    calls[r][name] += 1
                    if left[r] is not None:
                        cycles = round((ev.time - left[r]) / ticks_per_cycle)
                        if cycles > 0:
                            out.append(f"{r} compute {cycles}")
            elif kind == "Leave":
                if ev.region.name.startswith("MPI_"):
                    left[r] = ev.time
            elif kind == "MpiSend":
                out.append(f"{r} send {ev.receiver} {ev.msg_length} tag={ev.msg_tag}{c}")
            elif kind == "MpiIsend":
                out.append(f"{r} isend {ev.receiver} {ev.msg_length} tag={ev.msg_tag}{c} req={ev.request_id}")
            elif kind == "MpiIsendComplete":
                out.append(f"{r} wait {ev.request_id}")
            elif kind == "MpiRecv":
                out.append(f"{r} recv {ev.sender} {ev.msg_length} tag={ev.msg_tag}{c}")
            elif kind == "MpiIrecvRequest":
                # The source and tag are known only when the receive completes: keep a place.
                pending[r][ev.request_id] = len(out)
                out.append("")
            elif kind == "MpiIrecv":
                at = pending[r].pop(ev.request_id, None)
                line = f"{r} irecv {ev.sender} {ev.msg_length} tag={ev.msg_tag}{c} req={ev.request_id}"
                if at is None:
                    out.append(line)
                else:
                    out[at] = line
                out.append(f"{r} wait {ev.request_id}")
            elif kind == "MpiCollectiveEnd":
                op = str(ev.collective_op).rsplit(".", 1)[-1]
                if op not in _COLLECTIVES or comm is None or sizes.get(comm, 0) < 2 or comm not in comm_ids:
                    continue
                name, size = _COLLECTIVES[op]
                m = sizes[comm]
                root = ev.root if ev.root < m else 0
                nbytes = "" if name == "barrier" else f" {size(ev.size_sent, ev.size_received, m, root)}"
                opts = f" root={root}" if name in ("bcast", "reduce", "gather", "scatter") and root else ""
                out.append(f"{r} {name}{nbytes}{opts}{c}")
        body = [line for rank_lines in lines for line in rank_lines if line]
        text = "\n".join([f"ranks {n}", *comm_lines, *body]) + "\n"
        return text, [dict(sorted(cc.items())) for cc in calls]
