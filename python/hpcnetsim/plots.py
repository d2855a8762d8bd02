"""Plots (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


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
