"""Simulator speed benchmarks (``hpcnetsim bench``): fixed configs, fixed schedules, figures only."""

from __future__ import annotations

import resource
import sys
from typing import Any

from .simulation import rate, simulate

#: (name, topology, routing algorithm, VCs, offered load) of every benchmark.
BENCHMARKS = (
    ("torus-8x8-dor-0.3", "torus:8x8", "dor", 2, 0.3),
    ("torus-8x8-dor-0.9", "torus:8x8", "dor", 2, 0.9),
    ("tree-8:8,4-0.3", "tree:k=8,kp=8,n=4", "auto", 1, 0.3),
    ("tree-8:4,4-0.1", "tree:k=8,kp=4,n=4", "auto", 1, 0.1),
    ("torus-32x32-dor-0.3", "torus:32x32", "dor", 2, 0.3),
)

#: Measurement schedule of the benchmarks: warm-up 5000, 4 windows of 1000, 3 batches of 5000.
SCHEDULE = {
    "warmup_cycles": 5000,
    "window_cycles": 1000,
    "convergence_windows": 4,
    "batches": 3,
    "batch_cycles": 5000,
}
#: ``--quick``: warm-up 1000 and one batch of 1000.
QUICK = {"warmup_cycles": 1000, "batches": 1, "batch_cycles": 1000}

#: Columns of the benchmark table.
COLUMNS = (
    "config", "status", "cycles", "packet_hops", "phit_hops", "wall_seconds", "packet_hops_per_s",
    "phit_hops_per_s", "max_rss_mib",
)  # fmt: skip


def bench_config(topology: str, algorithm: str, vcs: int, load: float, quick: bool = False) -> dict[str, Any]:
    """The config of one benchmark; convergence is capped at 10 windows so every run is bounded."""
    measurement = {**SCHEDULE, "max_convergence_cycles": 10_000, **(QUICK if quick else {})}
    return {
        "topology": topology,
        "seed": 1,
        "switch": {"vcs": vcs},
        "routing": {"algorithm": algorithm},
        "traffic": {"pattern": "uniform", "load": load},
        "measurement": measurement,
    }


def max_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10


def run_benchmarks(quick: bool = False, on_row=None) -> list[dict[str, Any]]:
    """Run every benchmark in turn; ``on_row(row)`` is called after each one."""
    rows = []
    for name, topology, algorithm, vcs, load in BENCHMARKS:
        r = simulate(bench_config(topology, algorithm, vcs, load, quick))
        row = {
            "config": name,
            "status": r.status,
            "cycles": r.cycles,
            "packet_hops": r.packet_hops,
            "phit_hops": r.phit_hops,
            "wall_seconds": r.wall_seconds,
            "packet_hops_per_s": rate(r.packet_hops, r.wall_seconds),
            "phit_hops_per_s": rate(r.phit_hops, r.wall_seconds),
            "max_rss_mib": max_rss_mib(),
        }
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def format_row(row: dict[str, Any]) -> str:
    """One Markdown table row, numbers rounded for reading."""

    def cell(v):
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.3e}"
        return str(v)

    return "| " + " | ".join(cell(row[c]) for c in COLUMNS) + " |"


def table_header() -> str:
    """The header lines of the benchmark table."""
    return "| " + " | ".join(COLUMNS) + " |\n" + "|" + "---|" * len(COLUMNS)
