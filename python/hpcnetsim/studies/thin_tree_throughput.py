"""Paper 000, Fig. 4: accepted vs offered load of the 8:8,4 / 8:6,4 / 8:4,4 / 8:2,4 trees
under uniform traffic with 1, 2 and 4 virtual channels, against their ideal throughputs."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .._files import atomic_write, atomic_write_text
from ..simulation import load_curve_results
from ..topology import Topology

TITLE = "Paper 000 Fig. 4: uniform-traffic throughput of 8:k',4 thin-trees with 1, 2 and 4 VCs"
TREES = ("tree:k=8,kp=8,n=4", "tree:k=8,kp=6,n=4", "tree:k=8,kp=4,n=4", "tree:k=8,kp=2,n=4")
VCS = (1, 2, 4)
#: Offered loads as fractions of each tree's ideal throughput (capped at 1).
LOAD_FRACTIONS = (0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.1, 1.3)
#: Paper 000 §5.1's measurement schedule.
FULL_SCHEDULE = {"warmup_cycles": 30000, "window_cycles": 1000, "convergence_windows": 4, "batches": 10,
                 "batch_cycles": 5000}  # fmt: skip
#: The demo's reduced schedule (a few seconds per point).
QUICK_SCHEDULE = {"warmup_cycles": 3000, "window_cycles": 500, "convergence_windows": 4, "batches": 3,
                  "batch_cycles": 1000, "max_convergence_cycles": 20000}  # fmt: skip
COLUMNS = ("topology", "vcs", "offered_load", "accepted_load", "accepted_load_std", "status", "saturated",
           "latency_network_mean", "ideal_throughput", "bisection_throughput")  # fmt: skip


def loads_for(ideal: float) -> list[float]:
    """Offered loads around the tree's ideal throughput."""
    return sorted({round(min(1.0, f * ideal), 4) for f in LOAD_FRACTIONS})


def run_curves(full: bool = False, trees=TREES, vcs=VCS) -> list[dict]:
    """Simulate every (tree, VCs, load); one row per point."""
    schedule = FULL_SCHEDULE if full else QUICK_SCHEDULE
    rows = []
    for spec in trees:
        d = Topology.from_spec(spec).describe()
        for v in vcs:
            config = {"topology": spec, "switch": {"vcs": v}, "routing": {"algorithm": "tree-adaptive"},
                      "traffic": {"pattern": "uniform"}, "measurement": schedule}  # fmt: skip
            for r in load_curve_results(config, loads_for(d["ideal_throughput"])):
                rows.append({
                    "topology": spec, "vcs": v, "offered_load": r.offered_load,
                    "accepted_load": r.accepted_load, "accepted_load_std": r.accepted_load_std,
                    "status": r.status, "saturated": r.saturated,
                    "latency_network_mean": r.latency["network"]["mean"],
                    "ideal_throughput": d["ideal_throughput"],
                    "bisection_throughput": d["bisection_throughput"],
                })  # fmt: skip
    return rows


def plot(rows: list[dict], path: Path, title: str) -> None:
    """One panel per tree: accepted vs offered for each VC count, with both bounds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..compare import short_label

    trees = list(dict.fromkeys(r["topology"] for r in rows))
    fig, axes = plt.subplots(1, len(trees), figsize=(4.2 * len(trees), 4.2), squeeze=False)
    axes = axes[0]
    for ax, spec in zip(axes, trees):
        mine = [r for r in rows if r["topology"] == spec]
        for v in sorted({r["vcs"] for r in mine}):
            pts = [r for r in mine if r["vcs"] == v and r["accepted_load"] is not None]
            ax.plot([r["offered_load"] for r in pts], [r["accepted_load"] for r in pts], marker="o", ms=3,
                    label=f"{v} VC" + ("s" if v > 1 else ""))  # fmt: skip
        top = max(r["offered_load"] for r in mine)
        ax.plot([0, top], [0, top], color="grey", lw=0.8, ls=":")
        ax.axhline(mine[0]["ideal_throughput"], color="k", ls="--", lw=1, label="ideal (channel load)")
        ax.axhline(mine[0]["bisection_throughput"], color="k", ls=":", lw=1, label=r"$\Theta$ (bisection)")
        ax.set_title(short_label(spec) + "-tree")
        ax.set_xlabel("offered load (phits/cycle/node)")
        ax.set_xlim(0, top * 1.02)
        ax.set_ylim(0, max(top, mine[0]["ideal_throughput"]) * 1.1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accepted load (phits/cycle/node)")
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def report(rows: list[dict], full: bool) -> str:
    """Markdown: the saturation throughput of each curve next to the two bounds."""
    lines = [f"# {TITLE}", "",
             f"Measurement: {'paper 000 §5.1 schedule' if full else 'reduced schedule ' + str(QUICK_SCHEDULE)}.",
             "", "| tree | VCs | max accepted load | ideal (channel load) | Θ (bisection) | max / ideal |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for spec in dict.fromkeys(r["topology"] for r in rows):
        for v in sorted({r["vcs"] for r in rows if r["topology"] == spec}):
            pts = [r for r in rows if r["topology"] == spec and r["vcs"] == v and r["accepted_load"] is not None]
            best = max((r["accepted_load"] for r in pts), default=float("nan"))
            ideal, theta = pts[0]["ideal_throughput"], pts[0]["bisection_throughput"]
            lines.append(f"| {spec} | {v} | {best:.4f} | {ideal:.4f} | {theta:.4f} | {best / ideal:.3f} |")
    return "\n".join(lines) + "\n"


def run(out: Path, full: bool = False) -> list[Path]:
    """Run the study and write ``curves.csv``, ``fig4.png`` and ``report.md`` under ``out``."""
    rows = run_curves(full)
    out = Path(out)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS)
    w.writeheader()
    w.writerows(rows)
    schedule = "paper 000 schedule" if full else "reduced measurement schedule (warm-up 3000, 3 batches of 1000)"
    paths = [out / "curves.csv", out / "fig4.png", out / "report.md"]
    atomic_write_text(paths[0], buf.getvalue())
    atomic_write(paths[1], lambda tmp: plot(rows, tmp, f"{TITLE}\n{schedule}"))
    atomic_write_text(paths[2], report(rows, full))
    return paths
