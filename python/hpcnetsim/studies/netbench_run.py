"""``hpcnetsim bench-net``: runs the network microbenchmarks, prints their tables with units
and writes CSV files and figures (PNG and SVG) with labelled axes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import netbench as nb

#: Sizes of the quick variants (the full ones are in netbench).
QUICK_PING = [0, 1, 64, 256, 512, 1024, 4096, 16384, 65536, 1 << 20]
QUICK_EXCHANGE = [64, 1024, 16384]


def skipped(name: str, config) -> dict[str, str]:
    """The benchmarks ``name`` (``all``) leaves out on the network of ``config``, each with
    the reason: ``hops`` needs two terminals on a switch and one behind more switches."""
    if name != "all":
        return {}
    why = nb.hops_unavailable(config)
    return {} if why is None else {"hops": why}


def run(name: str, config, quick: bool = False, progress: Callable[[str, bool], None] | None = None) -> dict[str, Any]:
    """Benchmark ``name`` (or ``all``, without those :func:`skipped` names) on ``config``:
    name → DataFrame. ``hops`` alone on a network it cannot measure is refused before any
    other work. ``progress(name, done)`` is called as each benchmark starts and ends."""
    if name == "hops" and (why := nb.hops_unavailable(config)) is not None:
        raise nb.ConfigError(f"bench-net hops: {why}")
    leave_out = skipped(name, config)
    names = [n for n in (nb.BENCHMARKS if name == "all" else (name,)) if n not in leave_out]
    out = {}
    for n in names:
        if progress is not None:
            progress(n, False)
        if n == "ping":
            out[n] = nb.ping(config, QUICK_PING if quick else None)
            out[n].attrs["n_half_bytes"] = nb.half_power_point(out[n])
        elif n == "bidirectional":
            out[n] = nb.bidirectional(config, QUICK_PING if quick else None)
        elif n == "hotspot":
            for kind in ("read", "write"):
                out[f"hotspot-{kind}"] = nb.hotspot(config, 16384 if quick else 65536, kind=kind)
        elif n == "exchange":
            out[n] = nb.exchange(config, QUICK_EXCHANGE if quick else None)
        elif n == "barrier":
            out[n] = nb.barrier(config)
        elif n == "contention":
            out[n] = nb.contention(config, messages=2 if quick else 8)
        elif n == "hops":
            out[n] = nb.hops(config)
        if progress is not None:
            progress(n, True)
    return out


def format_tables(frames: dict[str, Any]) -> str:
    """Every frame as a text table; column names carry the units."""
    parts = []
    for name, f in frames.items():
        text = f.to_string(index=False, float_format=lambda v: f"{v:.4g}")
        extra = "".join(f"\n{k} = {v:.4g}" for k, v in f.attrs.items())
        parts.append(f"== {name} ==\n{text}{extra}")
    return "\n\n".join(parts)


#: name → (x column, [(y column, label)], x label, y label, log x, log y).
FIGURES = {
    "ping": ("size_bytes", [("bandwidth_mb_s", "bandwidth")], "message size (bytes)", "bandwidth (MB/s)", True, False),
    "ping-latency": ("size_bytes", [("latency_us", "one-way latency")], "message size (bytes)", "latency (µs)", True, True),
    "bidirectional": ("size_bytes", [("bandwidth_mb_s", "per direction")], "message size (bytes)",
                      "bandwidth per direction (MB/s)", True, False),
    "hotspot-read": ("processes", [("aggregate_mb_s", "aggregate"), ("per_process_mb_s", "per process")],
                     "processes", "bandwidth (MB/s)", False, False),
    "hotspot-write": ("processes", [("aggregate_mb_s", "aggregate"), ("per_process_mb_s", "per process")],
                      "processes", "bandwidth (MB/s)", False, False),
    "exchange": ("size_bytes", [("time_us", "simulated"), ("bound_us", "eq. 1 bound S(N-1)/B")],
                 "message size per pair (bytes)", "total exchange time (µs)", True, True),
    "barrier": ("nodes", [("linear_us", "host-based linear"), ("tree_us", "binary tree"),
                          ("hardware_broadcast_us", "hardware broadcast")], "nodes", "barrier time (µs)", False, False),
}  # fmt: skip


def plot(frames: dict[str, Any], out: Path, title: str = "") -> list[Path]:
    """One figure per benchmark with a curve (PNG and SVG); returns the paths written."""
    import matplotlib.pyplot as plt

    from ..reports.plots import line_axes, save_png_svg

    written = []
    for fig_name, (x, ys, xl, yl, logx, logy) in FIGURES.items():
        frame = frames.get(fig_name.removesuffix("-latency"))
        if frame is None:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        data = frame[frame[x] > 0] if logx else frame
        for col, label in ys:
            ax.plot(data[x], data[col], marker="o", label=label)
        line_axes(ax, xl, yl, logx, logy)
        ax.set_title(f"{title} {fig_name}".strip())
        ax.legend()
        written += save_png_svg(fig, out, fig_name)
    return written


def write(frames: dict[str, Any], out: Path, title: str = "") -> list[Path]:
    """CSV per benchmark and the figures."""
    from .._files import atomic_write

    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, f in frames.items():
        path = out / f"{name}.csv"
        atomic_write(path, lambda tmp, f=f: f.to_csv(tmp, index=False))
        paths.append(path)
    return paths + plot(frames, out, title)
