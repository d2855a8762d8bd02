"""MPI traces: summaries without simulating (``hpcnetsim trace info``), the per-rank table of a
replay and its traffic-matrix heatmap (paper 003 Fig. 11)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .. import _core

FORMATS = ("auto", "text", "simgrid", "dumpi", "vef", "otf2")


def info(path: str | os.PathLike, format: str = "auto", matrices: bool = True) -> dict:
    """What a trace contains: ``summary`` (format, ranks, calls per rank, bytes sent per rank,
    messages, bytes, and the point-to-point matrices ``p2p_sent`` and ``p2p_received``) and
    ``traffic`` (every message, collectives as expanded), without simulating. A matrix lists the
    pairs of ranks that exchanged messages: ``source``, ``destination``, ``bytes`` and
    ``messages``, one entry per pair (:func:`dense` makes the rank-by-rank array). With
    ``matrices`` false, the summary without its matrices and no ``traffic``: an all-to-all
    trace has an entry for every pair (16.7 million for 4096 ranks), and :func:`format_info`
    does not use them."""
    from .otf2_trace import is_otf2, to_text

    _check_info_arguments(path, format, matrices)
    if not is_otf2(path, format):
        return json.loads(_core.trace_info(str(path), format, matrices))
    import tempfile

    text, calls = to_text(path)
    with tempfile.TemporaryDirectory() as tmp:
        converted = Path(tmp) / "otf2.trace"
        converted.write_text(text)
        try:
            d = json.loads(_core.trace_info(str(converted), "text", matrices))
        except _core.ConfigError as e:
            # The conversion is a temporary file the user never sees: name the archive.
            raise _core.ConfigError(str(e).replace(str(converted), f"{path} (as text)")) from None
    d["summary"]["format"] = "otf2"
    d["summary"]["calls"] = calls
    return d


def _check_info_arguments(path, format, matrices) -> None:
    """One-line ConfigErrors for arguments of the wrong type: ``info(3)`` was read as a file
    named ``3`` ("3: cannot read: No such file or directory"), a format or flag of the wrong
    type was the core's TypeError."""
    from .._core import ConfigError

    if not isinstance(path, (str, os.PathLike)):
        raise ConfigError(f"trace: path = {path!r} is invalid: the path of a trace file (a str or os.PathLike)")
    if not isinstance(format, str):
        raise ConfigError(f"trace: format = {format!r} is invalid: {', '.join(FORMATS[:-1])} or {FORMATS[-1]}")
    if not isinstance(matrices, bool):
        raise ConfigError(f"trace: matrices = {matrices!r} is invalid: True or False")


def format_info(d: dict) -> str:
    """A text summary: ranks, calls (total and per rank), volumes."""
    s = d["summary"]
    totals: dict[str, int] = {}
    for calls in s["calls"]:
        for k, v in calls.items():
            totals[k] = totals.get(k, 0) + v
    lines = [
        f"format            {s['format']}",
        f"ranks             {s['ranks']}",
        f"messages          {s['messages']} ({s['bytes']} bytes, collectives as expanded)",
        "calls             " + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())),
        "rank  calls  bytes sent",
    ]
    for r, (calls, sent) in enumerate(zip(s["calls"], s["bytes_sent"])):
        lines.append(f"{r:>4}  {sum(calls.values()):>5}  {sent}")
    return "\n".join(lines)


def rank_table(replay: dict):
    """Per-rank compute, communication and wait cycles and program end as a DataFrame."""
    import pandas

    return pandas.DataFrame(
        {
            "rank": range(len(replay["finish_cycles"])),
            "compute_cycles": replay["compute_cycles"],
            "communication_cycles": replay["communication_cycles"],
            "wait_cycles": replay["wait_cycles"],
            "finish_cycle": replay["finish_cycles"],
        }
    )


def dense(traffic, ranks: int, value: str = "bytes", cells: int | None = None):
    """A traffic matrix (``source``, ``destination`` and ``value`` columns: a replay's
    ``r.tables["traffic"]`` or a ``trace info`` matrix) as a dense numpy array, source rank
    down, destination across. With ``cells``, ranks are summed in equal blocks so that the
    array has at most ``cells`` rows and columns (4 096 ranks in 512 blocks of 8)."""
    import numpy as np

    block = 1 if cells is None or ranks <= cells else -(-ranks // cells)
    size = -(-ranks // block)
    grid = np.zeros((size, size))
    np.add.at(grid, (np.asarray(traffic["source"]) // block, np.asarray(traffic["destination"]) // block),
              np.asarray(traffic[value], dtype=float))  # fmt: skip
    return grid


def plot_traffic(traffic, ranks: int, path: Path, title: str, value: str = "bytes") -> None:
    """Heatmap of a traffic matrix: source rank down, destination rank across; beyond 512 ranks
    each cell sums a block of ranks (a pixel per rank pair would not show)."""
    # A Figure of its own, not pyplot's: the user's backend (a notebook's inline one) stays.
    from matplotlib.figure import Figure

    m = dense(traffic, ranks, value, cells=512)
    block = -(-ranks // len(m)) if len(m) else 1
    fig = Figure(figsize=(5, 4.2))
    ax = fig.subplots()
    im = ax.imshow(m, cmap="viridis", interpolation="nearest", extent=(0, len(m) * block, len(m) * block, 0))
    ax.set_xlabel("destination rank")
    ax.set_ylabel("source rank")
    ax.set_title(title if block == 1 else f"{title} ({block}x{block} ranks per cell)")
    fig.colorbar(im, ax=ax, label=value)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def write_replay(result, out: Path, title: str) -> list[Path]:
    """``ranks.csv`` (the per-rank table) and ``traffic.png`` (the traffic heatmap) of a replay's
    result in ``out``; its traffic matrix is ``traffic.parquet``, written with the result's
    other tables."""
    from .._files import atomic_write

    replay = result.replay
    ranks = len(replay["finish_cycles"])
    paths = [out / "ranks.csv", out / "traffic.png"]
    atomic_write(paths[0], lambda tmp: rank_table(replay).to_csv(tmp, index=False))
    traffic = result.tables["traffic"]
    atomic_write(paths[1], lambda tmp: plot_traffic(traffic, ranks, tmp, title))
    return paths
