"""The flow-level model from Python: effective bisection bandwidth (``ebb``), mpiGraph
(``mpigraph``) and their plots. Runs of independent traffic with ``model = "flow"`` go through
:func:`hpcnetsim.simulate` like packet runs (see docs/flow.md)."""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Any

from . import _core
from .config import load_config, to_json
from ._core import ConfigError
from .simulation import ConfigSource, SimulationResult

GIB = 2**30


def flow_config(spec: str, **flow: Any) -> dict[str, Any]:
    """A config dict of the flow model for ``spec`` with the given ``[flow]`` fields (``routing=``,
    ``vcs=`` and ``seed=`` go to their own tables)."""
    config: dict[str, Any] = {"topology": spec, "model": "flow"}
    if "seed" in flow:
        config["seed"] = flow.pop("seed")
    if "routing" in flow:
        config["routing"] = {"algorithm": flow.pop("routing")}
    if "vcs" in flow:
        config["switch"] = {"vcs": flow.pop("vcs")}
    if flow:
        config["flow"] = flow
    return config


def _benchmark_config(config: ConfigSource, what: str) -> dict:
    """The config of eBB or mpiGraph, which send their own flows: a ``[workload]`` would be
    left unread (``simulate`` runs one)."""
    cfg = load_config(config)
    if cfg.get("workload") is not None:
        raise ConfigError(f"config: workload = a table is invalid: left out for {what}, which sends its own flows "
                          "(hpcnetsim.execute runs a workload)")  # fmt: skip
    return cfg


def ebb(config: ConfigSource) -> SimulationResult:
    """Effective bisection bandwidth: ``ebb`` (fraction of the link bandwidth), ``ebb_bandwidth``,
    the per-sample ``distribution`` and ``sample_values``."""
    return SimulationResult(json.loads(_core.flow_ebb(to_json(_benchmark_config(config, "eBB")))))


def mpigraph(config: ConfigSource) -> SimulationResult:
    """mpiGraph: the ``bandwidth`` matrix (sender row, receiver column), ``pair_bandwidth``
    (its mean is the average per pair) and ``worst_streams_per_cable``."""
    return SimulationResult(json.loads(_core.flow_mpigraph(to_json(_benchmark_config(config, "mpiGraph")))))


def ebb_curve(config: ConfigSource, nodes: list[int]):
    """eBB for every node count in ``nodes`` (paper 001 Fig. 5c): a DataFrame with one row per
    count: ``nodes``, ``ebb``, ``p5``, ``p95``, ``ebb_bandwidth``, ``bandwidth_unit``, ``routing``,
    ``wall_seconds``."""
    import pandas

    counts = list(nodes)
    if not counts:
        raise ConfigError("flow.nodes = [] is invalid: at least one node count (0 = every terminal)")
    # 0 is every terminal: in a curve it would repeat the largest count, or sit out of order.
    if len(counts) > 1 and 0 in counts:
        raise ConfigError(f"flow.nodes = {counts} is invalid: node counts of a curve >= 2 (0, every terminal, "
                          "only alone)")  # fmt: skip
    if len(set(counts)) < len(counts):
        raise ConfigError(f"flow.nodes = {counts} is invalid: each count at most once")
    base = load_config(config)
    rows = []
    for n in counts:
        cfg = {**base, "flow": {**base.get("flow", {}), "nodes": n}}
        r = ebb(cfg).to_dict()
        d = r["distribution"]
        rows.append({"nodes": r["nodes"], "ebb": r["ebb"], "p5": d["p5"], "p95": d["p95"],
                     "ebb_bandwidth": r["ebb_bandwidth"], "bandwidth_unit": r["bandwidth_unit"],
                     "routing": r["routing"], "wall_seconds": r["wall_seconds"]})  # fmt: skip
    return pandas.DataFrame(rows)


def plot_ebb_curve(frames: dict, path: Path) -> None:
    """eBB (with its 5th-95th percentile band) against the node count, one line per label."""
    # A Figure of its own, not pyplot's: the user's backend (a notebook's inline one) stays.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4))
    ax = fig.subplots()
    for label, df in frames.items():
        line = ax.plot(df["nodes"], df["ebb"], marker="o", label=label)[0]
        ax.fill_between(df["nodes"], df["p5"], df["p95"], color=line.get_color(), alpha=0.2)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("nodes")
    ax.set_ylabel("eBB (fraction of link bandwidth)")
    ax.set_ylim(0, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format=Path(path).suffix.lstrip(".") or "png", dpi=110)  # .svg for reports


def run_flows(config: ConfigSource, flows) -> SimulationResult:
    """Run ``flows`` (``(source, destination, bytes)`` triples) at once until all finish: per flow
    ``rates`` (max-min fair, fractions of the link bandwidth), ``finish`` times, ``bandwidth``
    (bytes over finish time); ``makespan``, ``phases`` and ``link_loads`` (every channel's load
    and number of flows)."""
    try:
        # operator.index: a terminal is an integer (0.5 or "3" is not truncated to one)
        triples = [(operator.index(s), operator.index(d), float(b)) for s, d, b in flows]
    except (TypeError, ValueError):
        raise ConfigError("flows is invalid: a list of (source, destination, bytes) triples, "
                          "source and destination integer terminal indices") from None  # fmt: skip
    bad = next((t for s, d, _ in triples for t in (s, d) if not 0 <= t < 2**63), None)
    if bad is not None:
        raise ConfigError(f"flows is invalid: terminal {bad}: terminal indices from 0 to the network's terminals - 1")
    return SimulationResult(json.loads(_core.flow_run(to_json(load_config(config)), triples)))


def _scale(unit: str) -> tuple[float, str]:
    """Bytes/s shown in GiB/s (as paper 001 does); bytes per cycle as they are."""
    return (1 / GIB, "GiB/s") if unit == "bytes/s" else (1.0, unit)


def plot_mpigraph(result: dict | SimulationResult, path: Path, title: str | None = None) -> None:
    """Heatmap of the mpiGraph matrix, senders down, receivers across (paper 001 Fig. 1 style);
    ``result`` is :func:`mpigraph`'s result or its ``to_dict()``."""
    result = result.to_dict() if isinstance(result, SimulationResult) else result
    # A Figure of its own, not pyplot's: the user's backend (a notebook's inline one) stays.
    from matplotlib.figure import Figure
    import numpy as np

    scale, unit = _scale(result["bandwidth_unit"])
    m = np.array(result["bandwidth"], dtype=float) * scale
    n = len(m)
    np.fill_diagonal(m, np.nan)
    fig = Figure(figsize=(5.2, 4.6))
    ax = fig.subplots()
    im = ax.imshow(m, cmap="viridis", vmin=0, vmax=np.nanmax(m) if n > 1 else 1, interpolation="nearest")
    ax.set_xlabel("receiver rank")
    ax.set_ylabel("sender rank")
    mean = result["pair_bandwidth"]["mean"] * scale
    ax.set_title(title or f"{result['topology']}\n{result['routing']}: mean {mean:.3g} {unit} per pair", fontsize=9)
    fig.colorbar(im, ax=ax, label=f"bandwidth [{unit}]")
    fig.tight_layout()
    fig.savefig(path, format=Path(path).suffix.lstrip(".") or "png", dpi=110)  # .svg for reports


def plot_ebb(result: dict | SimulationResult, path: Path) -> None:
    """Histogram of the per-bisection bandwidths of an eBB run (:func:`ebb`'s result or its
    ``to_dict()``)."""
    result = result.to_dict() if isinstance(result, SimulationResult) else result
    # A Figure of its own, not pyplot's: the user's backend (a notebook's inline one) stays.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    values = result["sample_values"]
    lo, hi = min(values), max(values)
    # Samples equal but for float rounding (every bisection alike, as under Valiant paths on a
    # full fat-tree) span a few ulps, which numpy cannot cut into 40 bins: centre one bar.
    span = None if hi - lo > 1e-9 * max(1.0, abs(hi)) else (lo - 0.005, hi + 0.005)
    ax.hist(values, bins=40 if span is None else 41, range=span, color="tab:blue", alpha=0.8)  # 41: a bar on the value
    ax.axvline(result["ebb"], color="k", ls="--", label=f"eBB = {result['ebb']:.3f}")
    ax.set_xlabel("mean bandwidth per flow (fraction of link bandwidth)")
    ax.set_ylabel("bisections")
    ax.set_title(f"{result['topology']}, {result['routing']}, {result['nodes']} nodes", fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format=Path(path).suffix.lstrip(".") or "png", dpi=110)  # .svg for reports
