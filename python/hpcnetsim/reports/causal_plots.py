"""Figures of causal workloads: normalized execution-time bars and the temporal evolution of load."""

from __future__ import annotations

from pathlib import Path

from .plots import plt


def plot_normalized_bars(panels: dict, path: Path, title: str, cap: float | None = None) -> None:
    """Grouped bars per panel: x = workload, one bar per network, height T / T_reference.

    ``panels`` maps a panel title to ``{network: {workload: T}}``; bars above ``cap`` are cut
    there with their value (3 significant digits) written beside them (paper 000 Fig. 5 truncates at 10).
    """
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 3.4 * len(panels)), squeeze=False)
    for ax, (name, nets) in zip(axes[:, 0], panels.items()):
        workloads = list(dict.fromkeys(w for times in nets.values() for w in times))
        width = 0.8 / max(len(nets), 1)
        for i, (net, times) in enumerate(nets.items()):
            xs = [j + (i - (len(nets) - 1) / 2) * width for j in range(len(workloads))]
            vals = [times.get(w, float("nan")) for w in workloads]
            shown = [min(v, cap) if cap else v for v in vals]
            ax.bar(xs, shown, width, label=net)
            for x, v in zip(xs, vals):
                if cap and v > cap:
                    ax.text(x, cap, f"{v:.3g}", ha="center", va="bottom", fontsize=6, rotation=90)
        ax.axhline(1.0, color="k", lw=0.7, ls=":")
        ax.set_xticks(range(len(workloads)), workloads)
        ax.set_xlabel("workload")
        ax.set_ylabel("normalized time (× reference)")
        ax.set_title(str(name), fontsize=9)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7, ncol=min(len(nets), 8))
    if title:  # a report puts the title in its heading instead
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_evolution(panels: dict, path: Path, title: str) -> None:
    """One panel per kernel, one line per network: consumed load (phits/cycle/node) over time.

    ``panels`` maps a panel title to ``{network: (bin_cycles, [load per bin])}``.
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    for ax, (name, nets) in zip(axes[0], panels.items()):
        for net, (width, loads) in nets.items():
            ax.step([i * width for i in range(len(loads))], loads, where="post", label=net)
        ax.set_title(str(name), fontsize=9)
        ax.set_xlabel("time (cycles)")
        ax.set_ylim(0, None)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("consumed load (phits/cycle/node)")
    axes[0][0].legend(fontsize=7)
    if title:  # a report puts the title in its heading instead
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
