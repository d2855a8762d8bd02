"""Plots (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from .._files import atomic_write


def line_axes(ax, xlabel: str, ylabel: str, logx: bool, logy: bool) -> None:
    """Labels, log scales (base 2 on x: message sizes and node counts double) and a grid."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)


def save_png_svg(fig, out: Path, name: str) -> list[Path]:
    """Writes ``fig`` as ``out/name.png`` and ``out/name.svg`` (each atomically) and closes it."""
    written = []
    for ext in ("png", "svg"):
        path = out / f"{name}.{ext}"
        atomic_write(path, lambda tmp, ext=ext: fig.savefig(tmp, format=ext, bbox_inches="tight"))
        written.append(path)
    plt.close(fig)
    return written


def plot_cost_throughput(rows: list[dict], path: Path, title: str) -> None:
    """Two panels: the three costs relative to the first row, and both throughput bounds."""
    from ..labels import short_label

    labels = [short_label(r["spec"]) for r in rows]
    x = range(len(rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, name in (("cost_constant", "$c_C = S$"), ("cost_linear", "$c_L = SR$"), ("cost_quadratic", "$c_Q = SR^2$")):
        base = rows[0][key]
        left.plot(x, [r[key] / base for r in rows], marker="o", label=name)
    left.set_ylabel(f"cost relative to {labels[0]}")
    left.set_title("Cost")
    ideal = [float("nan") if r["ideal_throughput"] is None else r["ideal_throughput"] for r in rows]
    right.plot(x, ideal, marker="o", label="ideal (any routing)")
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
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_load_curves(frames: dict, path: Path, title: str, ideal: dict[str, float] | None = None) -> None:
    """Accepted load (with y = x and ideal lines) and mean latency against offered load, per label."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    top = max((float(df["offered_load"].max()) for df in frames.values() if len(df)), default=1.0) or 1.0
    left.plot([0, top], [0, top], color="grey", lw=0.8, ls=":", label="accepted = offered")
    for label, df in frames.items():
        ok = df[df["status"] == "converged"]
        color = left.plot(ok["offered_load"], ok["accepted_load"], marker="o", label=label)[0].get_color()
        for ax, m in ((left, "accepted_load"), (right, "latency_network_mean")):
            if f"{m}_lo" in ok:  # repeated runs: 95 % confidence bands
                ax.fill_between(ok["offered_load"].astype(float), ok[f"{m}_lo"].astype(float),
                                ok[f"{m}_hi"].astype(float), color=color, alpha=0.2, lw=0)  # fmt: skip
        if ideal and label in ideal:
            left.axhline(ideal[label], color=color, ls="--", lw=1, label=f"{label}: ideal")
        if "latency_network_mean" in ok:  # flow-model curves have no latency
            right.plot(ok["offered_load"], ok["latency_network_mean"], marker="o", color=color, label=label)
        pts = df.assign(**{"traffic.load": df["offered_load"]})
        mark_troubled(left, pts, "accepted_load", color)
        if "latency_network_mean" in df:
            mark_troubled(right, pts, "latency_network_mean", color)
    left.set_xlabel("offered load (phits/cycle/node)")
    left.set_ylabel("accepted load (phits/cycle/node)")
    left.set_title("Throughput")
    right.set_xlabel("offered load (phits/cycle/node)")
    right.set_ylabel("mean network latency (cycles)")
    right.set_title("Latency")
    _physical_axes(frames, left, right)
    for ax in (left, right):
        ax.set_xlim(0, 1.05 * top)
        ax.set_ylim(0, None)
        ax.grid(alpha=0.3)
        # Flow-model curves (or no converged point) leave the latency panel empty: a legend
        # there would warn.
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    if not any("latency_network_mean" in df for df in frames.values()):
        right.text(0.5, 0.5, "no latency (flow model)", transform=right.transAxes, ha="center", color="grey")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _physical_axes(frames: dict, load_ax, latency_ax) -> None:
    """Second y axes in MB/s per node and ns when every curve has the same clock."""
    clocks = {(float(df["cycle_ns"].iloc[0]), float(df["link_bandwidth_mb_s"].iloc[0]))
              for df in frames.values() if len(df) and "cycle_ns" in df and "link_bandwidth_mb_s" in df}  # fmt: skip
    if len(clocks) != 1:
        return
    ns, mb = clocks.pop()
    load_ax.secondary_yaxis("right", functions=(lambda v: v * mb, lambda v: v / mb)).set_ylabel(
        "accepted (MB/s per node)"
    )
    latency_ax.secondary_yaxis("right", functions=(lambda v: v * ns, lambda v: v / ns)).set_ylabel(
        "mean network latency (ns)"
    )


def _host_axes(frame, axes, accepted: bool) -> None:
    """With one known host bandwidth for every point (paper 003's normalized rates): offered load
    as % of it on a top axis, and accepted load on a right axis when the panels plot it."""
    if "offered_pct_host" not in frame or "offered_load" not in frame:
        return
    both = frame[["offered_load", "offered_pct_host"]].dropna().astype(float)
    both = both[both["offered_load"] > 0]
    ratios = (both["offered_pct_host"] / both["offered_load"]).round(9).unique()
    if len(ratios) != 1:
        return
    f = float(ratios[0])
    for ax in axes:
        ax.secondary_xaxis("top", functions=(lambda v: v * f, lambda v: v / f)).set_xlabel(
            "offered (% of host bandwidth)", fontsize=8
        )
    if accepted:
        axes[-1].secondary_yaxis("right", functions=(lambda v: v * f, lambda v: v / f)).set_ylabel(
            "accepted (% of host bandwidth)", fontsize=8
        )


def curve_label(col: str, value) -> str:
    """A legend entry for one curve: ``4 VCs`` for switch.vcs, ``col=value`` otherwise."""
    if col == "switch.vcs":
        return f"{value} VC" + ("" if value == 1 else "s")
    if "." not in col and col != "topology":  # a point's or a table-valued axis's label
        return str(value)
    return f"{col}={value}"


#: Axis labels, with units, of the metrics the report plots.
METRIC_LABELS = {
    "accepted_load": "accepted load (phits/cycle/node)",
    "latency_network_mean": "mean network latency (cycles)",
    "latency_network_p99": "99th percentile network latency (cycles)",
    "latency_end_to_end_mean": "mean end-to-end latency (cycles)",
}
#: How points without a (complete) value are drawn: marker and legend text per status.
TROUBLE_MARKERS = {"not-converged": ("x", "not converged"), "deadlock": ("X", "deadlock"),
                   "partial": ("+", "partial (budget)"), "failed": ("v", "failed")}  # fmt: skip


def mark_troubled(ax, pts, metric: str, colour) -> None:
    """Marks the points of a curve that did not converge, deadlocked, stopped early or failed:
    at their value if they have one, on the x axis otherwise, so that no point vanishes."""
    status = pts["status"].where(pts["state"] != "failed", "failed") if "state" in pts else pts["status"]
    for name, (marker, text) in TROUBLE_MARKERS.items():
        bad = pts[status == name]
        if bad.empty:
            continue
        y = bad[metric].astype(float).fillna(0.0) if metric in bad else [0.0] * len(bad)
        label = text if text not in ax.get_legend_handles_labels()[1] else None
        ax.scatter(bad["offered_load"].fillna(bad["traffic.load"]), y, marker=marker, s=40, color="#b42318",
                   label=label, zorder=5, clip_on=False)  # fmt: skip


def plot_panels(frame, panels: str, curves: str | None, metric: str, path: Path, title: str,
                bounds: dict[str, tuple[float, float]] | None = None) -> None:  # fmt: skip
    """One panel per value of ``panels``, one curve per value of ``curves``: ``metric`` vs offered load.

    With ``bounds`` (panel → (ideal, Θ)), the ideal throughput is drawn dashed and Θ dotted.
    """
    from ..labels import short_label

    keys = list(dict.fromkeys(frame[panels]))
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 4.2), squeeze=False)
    axes = axes[0]
    for ax, key in zip(axes, keys):
        mine = frame[frame[panels] == key]
        groups = mine.groupby(curves, sort=True) if curves else [(None, mine)]
        for value, pts in groups:
            ok = pts[pts["status"] == "converged"].sort_values("offered_load")
            label = curve_label(curves, value) if curves else None
            line = ax.plot(ok["offered_load"], ok[metric], marker="o", ms=3, label=label)[0]
            if f"{metric}_lo" in ok and ok[f"{metric}_lo"].notna().any():
                # Repeated points: the 95 % confidence interval of the mean as a band.
                ax.fill_between(ok["offered_load"].astype(float), ok[f"{metric}_lo"].astype(float),
                                ok[f"{metric}_hi"].astype(float), color=line.get_color(), alpha=0.2, lw=0)  # fmt: skip
            mark_troubled(ax, pts, metric, line.get_color())
        top = float(mine["traffic.load"].max())
        if bounds is not None:
            ideal, theta = bounds[key]
            ax.plot([0, top], [0, top], color="grey", lw=0.8, ls=":")
            if ideal == ideal:  # NaN where not computed
                ax.axhline(ideal, color="k", ls="--", lw=1, label="ideal (any routing)")
            if theta == theta:
                ax.axhline(theta, color="k", ls=":", lw=1, label=r"$\Theta$ (bisection)")
            ax.set_ylim(0, max(top, ideal if ideal == ideal else 0) * 1.1)
        else:
            ax.set_ylim(0, None)
        name = short_label(key) + "-tree" if str(key).startswith("tree:k=8,kp=") else str(key)
        ax.set_title(name if panels == "topology" else f"{panels}={key}", fontsize=9)
        ax.set_xlabel("offered load (phits/cycle/node)")
        ax.set_xlim(0, top * 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accepted load (phits/cycle/node)" if bounds else METRIC_LABELS.get(metric, metric))
    _host_axes(frame, axes, metric == "accepted_load")
    if axes[0].get_legend_handles_labels()[1]:  # one unlabelled curve needs no legend
        axes[0].legend(fontsize=8)
    if title:  # a report puts the title in its heading instead
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


#: Axis names of the config columns and saturation values a heatmap shows, with units.
AXIS_NAMES = {
    "switch.vcs": "virtual channels (per port)",
    "topology": "network",
    "max_over_ideal": "max accepted / ideal (ratio)",
    "max_accepted": "max accepted (phits/cycle/node)",
}


def plot_heatmap(table, path: Path, title: str, value: str = "") -> None:
    """A heatmap of a pivot table (rows × columns, ``value`` in the cells), with the values written in the cells."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(1.6 * len(table.columns) + 3, 0.6 * len(table.index) + 1.8))
    im = ax.imshow(table.to_numpy(dtype=float), cmap="viridis", aspect="auto", vmin=0)
    ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns])
    ax.set_yticks(range(len(table.index)), [str(i) for i in table.index], fontsize=8)
    ax.set_xlabel(AXIS_NAMES.get(table.columns.name, table.columns.name or ""))
    ax.set_ylabel(AXIS_NAMES.get(table.index.name, table.index.name or ""))
    for (i, j), v in np.ndenumerate(table.to_numpy(dtype=float)):
        ax.text(j, i, "-" if np.isnan(v) else f"{v:.2f}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(im, ax=ax, label=AXIS_NAMES.get(value, value))
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def label_offsets(anchors: list[tuple[float, float]], width: float = 90.0, height: float = 9.0):
    """Offsets (points) of the labels of dots at ``anchors`` (points): up and right of the dot,
    moved up or down in steps of a line until no label placed before it lies within ``width``
    to its side and ``height`` above or below (a label's text is at most about ``width`` wide)."""
    placed: list[tuple[float, float]] = []
    out = []
    for x, y in anchors:
        for step in (0, 1, -1, 2, -2, 3, -3, 4, -4):
            dy = 3 + step * height
            if all(abs(x - px) >= width or abs(y + dy - py) >= height for px, py in placed):
                break
        placed.append((x, y + dy))
        out.append((3, dy))
    return out


def plot_cost_scatter(points: list[tuple[str, float, float]], path: Path, title: str) -> None:
    """Cost against saturation throughput, one labelled dot per (network, variant)."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for _, cost, throughput in points:
        ax.scatter(cost, throughput)
    ax.set_xscale("log")
    ax.set_yscale("log")  # the networks' throughputs span orders of magnitude
    ax.autoscale_view()
    # Labels of close dots (the same network at two VC counts) are stacked, not overprinted.
    at = ax.transData.transform([(c, t) for _, c, t in points]) * 72 / fig.dpi if points else []
    for (label, cost, throughput), offset in zip(points, label_offsets([tuple(p) for p in at])):
        ax.annotate(label, (cost, throughput), fontsize=7, xytext=offset, textcoords="offset points")
    ax.set_xlabel("cost $c_L = S R$ (switch ports)")
    ax.set_ylabel("saturation throughput (phits/cycle/node)")
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
