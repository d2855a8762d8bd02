"""Plots (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def plot_cost_throughput(rows: list[dict], path: Path, title: str) -> None:
    """Two panels: the three costs relative to the first row, and both throughput bounds."""
    from .compare import short_label

    labels = [short_label(r["spec"]) for r in rows]
    x = range(len(rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, name in (("cost_constant", "$c_C = S$"), ("cost_linear", "$c_L = SR$"), ("cost_quadratic", "$c_Q = SR^2$")):
        base = rows[0][key]
        left.plot(x, [r[key] / base for r in rows], marker="o", label=name)
    left.set_ylabel(f"cost relative to {labels[0]}")
    left.set_title("Cost")
    right.plot(x, [r["ideal_throughput"] for r in rows], marker="o", label="ideal (channel load)")
    right.plot(x, [r["bisection_throughput"] for r in rows], marker="s", ls="--", label=r"bisection $\Theta = 2B_C/N$")
    right.set_ylabel("throughput (fraction of injection bandwidth)")
    right.set_yscale("log")
    right.set_title("Uniform-traffic throughput bounds")
    for ax in (left, right):
        ax.set_xticks(list(x), labels, rotation=30, ha="right", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def plot_load_curves(frames: dict, path: Path, title: str, ideal: dict[str, float] | None = None) -> None:
    """Accepted load (with y = x and ideal lines) and mean latency against offered load, per label."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    top = max((float(df["offered_load"].max()) for df in frames.values() if len(df)), default=1.0) or 1.0
    left.plot([0, top], [0, top], color="grey", lw=0.8, ls=":", label="accepted = offered")
    for label, df in frames.items():
        ok = df[df["status"] == "converged"]
        color = left.plot(ok["offered_load"], ok["accepted_load"], marker="o", label=label)[0].get_color()
        if ideal and label in ideal:
            left.axhline(ideal[label], color=color, ls="--", lw=1, label=f"{label}: ideal")
        if "latency_network_mean" in ok:  # flow-model curves have no latency
            right.plot(ok["offered_load"], ok["latency_network_mean"], marker="o", color=color, label=label)
    left.set_xlabel("offered load (phits/cycle/node)")
    left.set_ylabel("accepted load (phits/cycle/node)")
    left.set_title("Throughput")
    right.set_xlabel("offered load (phits/cycle/node)")
    right.set_ylabel("mean network latency (cycles)")
    right.set_title("Latency")
    for ax in (left, right):
        ax.set_xlim(0, 1.05 * top)
        ax.set_ylim(0, None)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def curve_label(col: str, value) -> str:
    """A legend entry for one curve: ``4 VCs`` for switch.vcs, ``col=value`` otherwise."""
    if col == "switch.vcs":
        return f"{value} VC" + ("" if value == 1 else "s")
    return f"{col}={value}"


def plot_panels(frame, panels: str, curves: str | None, metric: str, path: Path, title: str,
                bounds: dict[str, tuple[float, float]] | None = None) -> None:  # fmt: skip
    """One panel per value of ``panels``, one curve per value of ``curves``: ``metric`` vs offered load.

    With ``bounds`` (panel → (ideal, Θ)), the ideal throughput is drawn dashed and Θ dotted.
    """
    from .compare import short_label

    keys = list(dict.fromkeys(frame[panels]))
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 4.2), squeeze=False)
    axes = axes[0]
    for ax, key in zip(axes, keys):
        mine = frame[frame[panels] == key]
        groups = mine.groupby(curves, sort=True) if curves else [(None, mine)]
        for value, pts in groups:
            pts = pts[pts["status"] == "converged"].sort_values("offered_load")
            label = curve_label(curves, value) if curves else None
            ax.plot(pts["offered_load"], pts[metric], marker="o", ms=3, label=label)
        top = float(mine["traffic.load"].max())
        if bounds is not None:
            ideal, theta = bounds[key]
            ax.plot([0, top], [0, top], color="grey", lw=0.8, ls=":")
            ax.axhline(ideal, color="k", ls="--", lw=1, label="ideal (channel load)")
            ax.axhline(theta, color="k", ls=":", lw=1, label=r"$\Theta$ (bisection)")
            ax.set_ylim(0, max(top, ideal) * 1.1)
        else:
            ax.set_ylim(0, None)
        name = short_label(key) + "-tree" if str(key).startswith("tree:k=8,kp=") else str(key)
        ax.set_title(name if panels == "topology" else f"{panels}={key}", fontsize=9)
        ax.set_xlabel("offered load (phits/cycle/node)")
        ax.set_xlim(0, top * 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accepted load (phits/cycle/node)" if bounds else metric.replace("_", " "))
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


def plot_heatmap(table, path: Path, title: str) -> None:
    """A heatmap of a pivot table (rows × columns), with the values written in the cells."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(1.6 * len(table.columns) + 3, 0.6 * len(table.index) + 1.8))
    im = ax.imshow(table.to_numpy(dtype=float), cmap="viridis", aspect="auto", vmin=0)
    ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns])
    ax.set_yticks(range(len(table.index)), [str(i) for i in table.index], fontsize=8)
    ax.set_xlabel(table.columns.name or "")
    for (i, j), v in np.ndenumerate(table.to_numpy(dtype=float)):
        ax.text(j, i, "-" if np.isnan(v) else f"{v:.2f}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(im, ax=ax)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


def plot_cost_scatter(points: list[tuple[str, float, float]], path: Path, title: str) -> None:
    """Cost against saturation throughput, one labelled dot per (network, variant)."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, cost, throughput in points:
        ax.scatter(cost, throughput)
        ax.annotate(label, (cost, throughput), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")  # the networks' throughputs span orders of magnitude
    ax.set_xlabel("cost $c_L = S R$ (switch ports)")
    ax.set_ylabel("saturation throughput (phits/cycle/node)")
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
