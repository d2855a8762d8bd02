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
