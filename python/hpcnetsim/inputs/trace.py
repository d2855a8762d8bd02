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
    ``traffic`` (``bytes`` and ``messages`` matrices), without simulating. With ``matrices``
    false, the summary without its matrices and no ``traffic``: the matrices are dense, rank by
    rank (16.7 million entries each for 4096 ranks), and :func:`format_info` does not use them."""
    from .otf2_trace import is_otf2, to_text

    if not is_otf2(path, format):
        return json.loads(_core.trace_info(str(path), format, matrices))
    import tempfile

    text, calls = to_text(path)
    with tempfile.TemporaryDirectory() as tmp:
        converted = Path(tmp) / "otf2.trace"
        converted.write_text(text)
        d = json.loads(_core.trace_info(str(converted), "text", matrices))
    d["summary"]["format"] = "otf2"
    d["summary"]["calls"] = calls
    return d


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


def plot_traffic(matrix: list[list[int]], path: Path, title: str, unit: str = "bytes") -> None:
    """Heatmap of a traffic matrix: source rank down, destination rank across."""
    import numpy as np

    from ..reports.plots import plt

    m = np.asarray(matrix, dtype=float)
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    im = ax.imshow(np.where(m > 0, m, np.nan), cmap="viridis", interpolation="nearest")
    ax.set_xlabel("destination rank")
    ax.set_ylabel("source rank")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label=unit)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_replay(replay: dict, out: Path, title: str) -> list[Path]:
    """``ranks.csv``, ``traffic_bytes.csv``, ``traffic_messages.csv`` and ``traffic.png`` in ``out``."""
    import pandas

    from .._files import atomic_write

    paths = [out / "ranks.csv", out / "traffic_bytes.csv", out / "traffic_messages.csv", out / "traffic.png"]
    atomic_write(paths[0], lambda tmp: rank_table(replay).to_csv(tmp, index=False))
    for p, key in ((paths[1], "bytes"), (paths[2], "messages")):
        frame = pandas.DataFrame(replay["traffic"][key])
        atomic_write(p, lambda tmp, f=frame: f.to_csv(tmp, index_label="source"))
    atomic_write(paths[3], lambda tmp: plot_traffic(replay["traffic"]["bytes"], tmp, title))
    return paths
