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
        r = simulate(bench_config(topology, algorithm, vcs, load, quick), threads=1)
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


def format_row(row: dict[str, Any], columns: tuple[str, ...] = COLUMNS) -> str:
    """One Markdown table row of `columns`, numbers rounded for reading."""

    def cell(v):
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.3e}"
        return str(v)

    return "| " + " | ".join(cell(row[c]) for c in columns) + " |"


def table_header(columns: tuple[str, ...] = COLUMNS) -> str:
    """The header lines of a benchmark table of `columns`."""
    return "| " + " | ".join(columns) + " |\n" + "|" + "---|" * len(columns)


# --- bench --scale: cost per phit-hop against network size -------------------------------

#: Families of the scale benchmark: (label, spec template, sizes, routing, VCs). The sizes
#: give 64 to 65 536 terminals in steps of 4x.
SCALE_FAMILIES = (
    ("torus", "torus:{0}x{0}", (8, 16, 32, 64, 128, 256), "dor", 2),
    ("tree", "tree:k=4,kp=4,n={0}", (3, 4, 5, 6, 7, 8), "auto", 2),
)
#: Offered loads of the scale benchmark, as fractions of each network's uniform capacity.
SCALE_LOADS = (0.1, 0.4)
#: Networks of ``--million``: 1 048 576 terminals each, 10 000 cycles at 30 % of capacity.
MILLION = (("torus", "torus:1024x1024", "dor", 2), ("tree", "tree:k=32,kp=32,n=4", "auto", 2))
#: Phit-hops each scale row aims at, so small networks run long enough to be timed.
SCALE_TARGET_PHIT_HOPS = 3e7
#: Columns of the scale table.
SCALE_COLUMNS = (
    "family", "spec", "terminals", "load_fraction", "offered_load", "threads", "status", "cycles", "phit_hops",
    "engine_seconds", "total_seconds", "phit_hops_per_s", "ns_per_phit_hop", "smallest_ns_per_phit_hop",
    "cost_vs_smallest",
    "speedup_vs_1_thread", "max_rss_mib", "rss_kib_per_terminal",
)  # fmt: skip


def scale_config(spec: str, algorithm: str, vcs: int, load: float, cycles: int) -> dict[str, Any]:
    """One scale row's config: a 1000-cycle warm-up and one batch making up `cycles`."""
    return {
        "topology": spec,
        "seed": 1,
        "switch": {"vcs": vcs},
        "routing": {"algorithm": algorithm},
        "traffic": {"pattern": "uniform", "load": load},
        "measurement": {
            "warmup_cycles": 1000,
            "window_cycles": 1000,
            "convergence_windows": 1,
            "max_convergence_cycles": 1000,
            "batches": 1,
            "batch_cycles": max(cycles - 1000, 1000),
        },
    }


def scale_rows(
    million: bool = False, max_terminals: int | None = None, target: float = SCALE_TARGET_PHIT_HOPS
) -> list[dict[str, Any]]:
    """The planned rows of the scale benchmark (configs, not results)."""
    from .topology import describe

    rows = []
    for family, template, sizes, algorithm, vcs in SCALE_FAMILIES:
        for size in sizes:
            spec = template.format(size)
            d = describe(spec)
            if max_terminals is not None and d["terminals"] > max_terminals:
                continue
            for fraction in SCALE_LOADS:
                load = fraction * d["ideal_throughput"]
                per_cycle = d["terminals"] * load * d["avg_distance"]
                cycles = int(max(3000, target / per_cycle))
                rows.append(_scale_row(family, spec, d["terminals"], fraction, algorithm, vcs, load, cycles))
    if million:
        for family, spec, algorithm, vcs in MILLION:
            d = describe(spec)
            load = 0.3 * d["ideal_throughput"]
            rows.append(_scale_row(family, spec, d["terminals"], 0.3, algorithm, vcs, load, 10_000))
    return rows


def _scale_row(family, spec, terminals, fraction, algorithm, vcs, load, cycles) -> dict[str, Any]:
    return {
        "family": family,
        "spec": spec,
        "terminals": terminals,
        "load_fraction": fraction,
        "offered_load": load,
        "config": scale_config(spec, algorithm, vcs, load, cycles),
    }


def run_scale(
    million: bool = False,
    max_terminals: int | None = None,
    target: float = SCALE_TARGET_PHIT_HOPS,
    on_row=None,
    threads: tuple[int, ...] = (1,),
    repeat: int = 1,
) -> list[dict[str, Any]]:
    """Run every scale row in its own process (so its peak memory is its own), once for each
    thread count in ``threads`` (0: the engine's automatic choice, what ``hpcnetsim run`` does;
    its rows say ``auto``); ``speedup_vs_1_thread`` compares with the row's 1-thread run.
    ``cost_vs_smallest`` compares a row with the smallest network of its family and load on as
    many threads, run right before and right after it (the faster of the two kept): a shared
    host's slow spells that outlast a row then fall on both sides of the ratio, where a
    smallest row timed minutes earlier would put them on one side.
    With ``repeat`` > 1 each row runs that many times and the fastest run is kept (on a shared
    machine the least disturbed run is the best estimate of the engine's own cost), with the
    smallest row's runs beside it; the runs must agree on every simulated figure. The repeats
    alternate between the thread counts (1, 2, 1, 2, ...): a slow spell then falls on each count
    alike, where runs of one count after the other would put it on one side of the speed-up."""
    out = []
    smallest: dict[tuple[str, float], dict[str, Any]] = {}
    for row in scale_rows(million, max_terminals, target):
        reference = smallest.setdefault((row["family"], row["load_fraction"]), row)
        runs: list[list[tuple[dict[str, Any], dict[str, Any] | None]]] = [[] for _ in threads]
        for _ in range(repeat):
            for i, t in enumerate(threads):
                if reference is row:
                    runs[i].append((_scale_child_run(row, t), None))
                    continue
                before = _scale_child_run(reference, t)
                run = _scale_child_run(row, t)
                after = _scale_child_run(reference, t)
                _agree(reference, [before, after])
                runs[i].append((run, min(before, after, key=lambda x: x["wall_seconds"])))
        one_thread = float("nan")
        for t, kept in zip(threads, runs):
            result = _scale_result(row, t, kept, one_thread)
            if t == 1:
                one_thread = result["ns_per_phit_hop"]
            out.append(result)
            if on_row is not None:
                on_row(result)
    return out


def _ns_per_phit_hop(run: dict[str, Any]) -> float:
    """Wall nanoseconds per phit-hop of one child run (NaN if it moved no phit)."""
    return 1e9 * run["wall_seconds"] / run["phit_hops"] if run["phit_hops"] else float("nan")


def _agree(row: dict[str, Any], runs: list[dict[str, Any]]) -> None:
    """Raises unless the runs of ``row`` simulated the same (only their times may differ)."""
    simulated = ("status", "cycles", "phit_hops")
    for other in runs[1:]:
        if any(other[k] != runs[0][k] for k in simulated):
            raise RuntimeError(f"scale row {row['spec']}: repeated runs disagree ({other} against {runs[0]})")


def _scale_result(
    row: dict[str, Any], threads: int, runs: list[tuple[dict[str, Any], dict[str, Any] | None]], one_thread: float
) -> dict[str, Any]:
    """The figures of one scale row on ``threads`` threads from its repeated ``runs``, each with
    the smallest row's faster run beside it (``None`` for the smallest row itself): the fastest
    run kept, compared with its own reference."""
    r, reference = min(runs, key=lambda x: x[0]["wall_seconds"])
    _agree(row, [run for run, _ in runs])
    ns = _ns_per_phit_hop(r)
    smallest_ns = ns if reference is None else _ns_per_phit_hop(reference)
    return {
        **{k: row[k] for k in ("family", "spec", "terminals", "load_fraction", "offered_load")},
        "threads": threads or "auto",
        "status": r["status"],
        "cycles": r["cycles"],
        "phit_hops": r["phit_hops"],
        "engine_seconds": r["wall_seconds"],
        "total_seconds": r["total_seconds"],
        "phit_hops_per_s": rate(r["phit_hops"], r["wall_seconds"]),
        "ns_per_phit_hop": ns,
        "smallest_ns_per_phit_hop": smallest_ns,
        "cost_vs_smallest": ns / smallest_ns,
        "speedup_vs_1_thread": one_thread / ns if threads != 1 else 1.0,
        "max_rss_mib": r["max_rss_mib"],
        "rss_kib_per_terminal": r["max_rss_mib"] * 1024 / row["terminals"],
    }


def _scale_child_run(row: dict[str, Any], threads: int) -> dict[str, Any]:
    """Runs one scale row in a child process; its figures (see `scale_child`)."""
    code = "from hpcnetsim.bench import scale_child; scale_child()"
    job = {"config": row["config"], "threads": threads}
    return _child_json(code, f"scale row {row['spec']}", stdin=job)


def _child_json(code: str, what: str, stdin: Any = None, args: tuple[str, ...] = ()) -> Any:
    """Runs Python ``code`` in a child process (``stdin`` as JSON on its input, ``args`` on its
    command line) and returns what it printed, as JSON; if it fails, a RuntimeError naming
    ``what`` with the last line it wrote to stderr. A child's memory is its own: its peak is
    neither this process's nor inherited by the next child."""
    import json
    import subprocess

    child = subprocess.run(
        [sys.executable, "-c", code, *args],
        input=None if stdin is None else json.dumps(stdin),
        capture_output=True,
        text=True,
        check=False,
    )
    if child.returncode != 0:
        lines = (child.stderr.strip() or "no output").splitlines()
        raise RuntimeError(f"{what} failed: {lines[-1]}")
    return json.loads(child.stdout)


def scale_child() -> None:
    """Body of one scale row's process: config and threads as JSON on stdin, figures as JSON on stdout."""
    import json
    import time

    start = time.perf_counter()
    job = json.loads(sys.stdin.read())
    r = simulate(job["config"], threads=job["threads"])
    figures = {
        "status": r.status,
        "cycles": r.cycles,
        "phit_hops": r.phit_hops,
        "wall_seconds": r.wall_seconds,
        "total_seconds": time.perf_counter() - start,
        "max_rss_mib": max_rss_mib(),
    }
    print(json.dumps(figures))


# --- what the memory allows: the cost of a line from beyond the caches ------------------

#: Bytes the memory probe walks per terminal of the largest scale row (a 4-ary tree's run
#: holds about 4.5 KiB per terminal at 65 536 terminals), within these bounds.
PROBE_BYTES_PER_TERMINAL = 4096
PROBE_BYTES_BOUNDS = (16 << 20, 1 << 30)


def probe_bytes(rows: list[dict[str, Any]]) -> int:
    """Bytes of the memory probe for the scale ``rows``: about the state of the largest."""
    largest = max((r["terminals"] for r in rows), default=64)
    low, high = PROBE_BYTES_BOUNDS
    return min(max(largest * PROBE_BYTES_PER_TERMINAL, low), high)


def memory_cost(nbytes: int) -> dict[str, float]:
    """What a cache line from a buffer of ``nbytes`` costs this machine now: nanoseconds per
    load that waits for the one before (``latency_ns``) and per line with many independent
    loads in flight (``overlapped_ns``, the best prefetching can do). A large network's hop
    touches about 20 lines beyond a core's own cache, so on a busy host (whose shared cache
    holds little of a run) these figures bound its cost per hop. Measured in a child process:
    the buffer would otherwise raise this process's peak memory, which the scale rows' own
    processes inherit in their peak RSS."""
    code = "import json, sys; from hpcnetsim import _core; print(json.dumps(_core.memory_cost(int(sys.argv[1]))))"
    walked, latency, overlapped = _child_json(code, "memory probe", args=(str(nbytes),))
    return {"bytes": walked, "latency_ns": latency, "overlapped_ns": overlapped}


def format_memory(m: dict[str, float], when: str) -> str:
    """One line of the memory probe's figures, measured ``when``."""
    return (f"memory {when}, {m['bytes'] / 2**20:.0f} MiB of random lines: {m['latency_ns']:.1f} ns per "
            f"dependent load, {m['overlapped_ns']:.1f} ns per line with many in flight")  # fmt: skip


# --- bench --startup: what a small run costs before and around the engine ---------------

#: The tiny run of ``--startup``: a 4x4 torus for 300 cycles (the engine part is well under
#: a millisecond, so the time measured is start-up, config, build and output).
STARTUP_CONFIG = """topology = "torus:4x4"
[traffic]
load = 0.1
[measurement]
warmup_cycles = 100
window_cycles = 100
convergence_windows = 1
batches = 1
batch_cycles = 100
"""


def run_startup(repeats: int = 20) -> dict[str, float]:
    """Best and median wall time (ms) of the bare interpreter, of ``hpcnetsim run`` on a tiny
    config, and of what that run does before its engine starts (process start, imports, the
    config), over `repeats` runs each after one warm-up run (which compiles bytecode)."""
    import os
    import statistics
    import subprocess
    import tempfile
    import time
    from pathlib import Path

    # Measured as a user's machine runs it: with the bytecode cache (PYTHONDONTWRITEBYTECODE
    # would make every run recompile every module).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def times(cmd: list[str]) -> list[float]:
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        out = []
        for _ in range(repeats):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            out.append(1000 * (time.perf_counter() - t))
        return out

    with tempfile.TemporaryDirectory() as d:
        config = Path(d) / "tiny.toml"
        config.write_text(STARTUP_CONFIG)
        bare = times([sys.executable, "-c", "pass"])
        # What the `hpcnetsim` console script runs (not `python -m`, which also loads runpy).
        script = "import sys; from hpcnetsim.cli import main; sys.exit(main())"
        run = times([sys.executable, "-c", script, "run", str(config), "--no-progress"])
        # Everything `hpcnetsim run` does before the engine: its imports and the config.
        before = ("import sys, hpcnetsim.cli, hpcnetsim.simulation, hpcnetsim.experiments.progress; "
                  "from hpcnetsim.config import apply_overrides, load_config; "
                  "apply_overrides(load_config(sys.argv[1]), [])")  # fmt: skip
        to_engine = times([sys.executable, "-c", before, str(config)])
    return {
        "interpreter_best_ms": min(bare),
        "interpreter_median_ms": statistics.median(bare),
        "run_best_ms": min(run),
        "run_median_ms": statistics.median(run),
        "hpcnetsim_best_ms": min(run) - min(bare),
        "before_engine_best_ms": min(to_engine),
        "before_engine_median_ms": statistics.median(to_engine),
    }
