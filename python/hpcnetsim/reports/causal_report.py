"""Report sections of causal workloads: normalized-time bars and tables, temporal evolution, φ, φ/c."""

from __future__ import annotations

import html
import json
from contextlib import contextmanager
from typing import Any

from . import causal_plots
from .. import metrics
from .._core import ConfigError
from ..experiments.experiment import CAUSAL_FIGURE_KINDS as FIGURE_KINDS  # noqa: F401  (report.py reads it here)
from ..experiments.experiment import curve_columns
from ..expressions import topology_properties
from ..labels import short_label

PUBLISHED_KEYS = {"phi": "phi", "phi_cC": "phi/c_C", "phi_cL": "phi/c_L", "phi_cQ": "phi/c_Q"}


def label(spec: str) -> str:
    """A network's name in figures and tables: ``8:4,2`` for thin-trees, the spec otherwise."""
    return short_label(spec)


def completed(df, spec: dict[str, Any]):
    """The completed causal runs of a figure or table: its ``sweep`` group and ``topologies`` if given."""
    if "status" not in df or "workload.kernel" not in df:
        return df.iloc[0:0]
    if spec.get("sweep"):
        df = df[df["group"] == spec["sweep"]]
    if spec.get("topologies"):
        df = df[df["topology"].isin(spec["topologies"])]
    return df[df["status"] == "completed"]


def _ordered(frame, spec: dict[str, Any], column: str = "topology"):
    """``frame`` with its networks in the order of the spec's ``topologies`` (if given)."""
    order = {t: i for i, t in enumerate(spec.get("topologies") or [])}
    if not order:
        return frame
    return frame.iloc[sorted(range(len(frame)), key=lambda i: order.get(frame[column].iloc[i], len(order)))]


def _reference(spec: dict[str, Any], where: str) -> str:
    ref = spec.get("reference")
    if not isinstance(ref, str):
        raise ConfigError(
            f"{where}.reference = {ref!r} is invalid: the topology spec of the reference network"
        )
    return ref


def normalized_time(spec: dict[str, Any], df, figure, table) -> str:
    """Bars of T / T_reference (one panel per value of ``panels``) and their table, as HTML;
    ``figure(draw, alt)``: a drawing as inline HTML. The figure has no title: the report's
    heading above it is the spec's title."""
    found = normalized_frames(spec, df)
    if found is None:
        return ""
    panels, frame = found
    ref = spec["reference"]
    title = spec.get("title", "normalized execution time")
    img = figure(lambda p: causal_plots.plot_normalized_bars(panels, p, "", spec.get("cap")), title)
    caption = f"<p>Execution time normalized to {html.escape(label(ref))} (T = time / time of {html.escape(ref)}).</p>"
    return img + caption + table(frame)


def normalized_frames(spec: dict[str, Any], df):
    """(panels for the bar plot, table) of T / T_reference for a ``normalized-time`` figure, or None."""
    ref = _reference(spec, "report.figures")
    runs = completed(df, spec)
    if runs.empty:
        return None
    panels_col = spec.get("panels")
    keys = list(dict.fromkeys(runs[panels_col])) if panels_col else [None]
    panels, tables = {}, []
    for key in keys:
        mine = runs if key is None else runs[runs[panels_col] == key]
        norm = _ordered(
            _normalized_times(mine, ref, f"report.figures ({spec.get('title', 'normalized-time')})"), spec
        )
        sizes = norm.groupby(metrics.KERNEL)[metrics.BYTES].nunique().max()
        norm["workload"] = [
            metrics.workload_name(k, b, sizes) for k, b in zip(norm[metrics.KERNEL], norm[metrics.BYTES])
        ]
        nets: dict[str, dict[str, float]] = {}
        for net, w, t in zip(norm["topology"], norm["workload"], norm["normalized"]):
            nets.setdefault(label(net), {})[w] = t
        name = f"{panels_col} = {key}" if key is not None else ""
        panels[name] = nets
        wide = norm.pivot_table(index="topology", columns="workload", values="normalized", sort=False)
        wide.insert(0, "network", [label(t) for t in wide.index])
        if key is not None:
            wide.insert(0, panels_col, key)
        tables.append(wide.reset_index())
    import pandas

    return panels, pandas.concat(tables, ignore_index=True)


@contextmanager
def _named(where: str):
    """A refusal of mixed runs (``metrics.refuse_mixed_runs``) naming the figure or table."""
    try:
        yield
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def _normalized_times(runs, reference: str, where: str):
    """``metrics.normalized_times``, its refusal of mixed runs naming the figure or table."""
    with _named(where):
        return metrics.normalized_times(runs, reference)


def evolution(spec: dict[str, Any], df, figure) -> str:
    """Consumed load over time: one panel per kernel, one line per network (largest message size)."""
    runs = completed(df, spec)
    kernels = spec.get("kernels") or list(dict.fromkeys(runs["workload.kernel"])) if len(runs) else []
    runs = runs[runs["workload.kernel"].isin(kernels)] if len(runs) else runs
    if runs.empty:
        return ""
    size = spec.get("message_bytes") or runs["workload.message_bytes"].max()
    runs = runs[runs["workload.message_bytes"] == size]
    # One line per network: runs of a network that differ in more than the seed would overwrite each other.
    with _named(f"report.figures ({spec.get('title', 'evolution')})"):
        metrics.refuse_mixed_runs(runs, "topology")
    panels: dict[str, dict[str, tuple[int, list[float]]]] = {}
    for kernel in kernels:
        for _, r in runs[runs["workload.kernel"] == kernel].iterrows():
            res = json.loads(r["result_json"])
            panels.setdefault(f"{kernel}, {size} bytes", {})[label(r["topology"])] = (
                res["consumed_load_bin_cycles"],
                res["consumed_load"],
            )
    title = spec.get("title", "temporal evolution of the consumed load")
    return figure(lambda p: causal_plots.plot_evolution(panels, p, ""), title)


def performance_frames(doc: dict[str, Any], df) -> list[tuple[str, str, Any]]:
    """(title, note, table) of every ``[[report.performance]]`` entry with runs: φ, φ/c, published values."""
    out = []
    for i, spec in enumerate(doc.get("report", {}).get("performance", [])):
        ref = _reference(spec, f"report.performance[{i}]")
        runs = completed(df, spec)
        if runs.empty:
            continue
        norm = _normalized_times(runs, ref, f"report.performance[{i}]")
        perf = _ordered(metrics.performance(norm, ref, spec.get("weights")), spec)
        if spec.get("cost"):
            perf = metrics.with_costs(perf, ref, {t: topology_properties(t) for t in perf["topology"]})
        published = spec.get("published", {})
        for key, col in PUBLISHED_KEYS.items():
            if col in perf and any(key in v for v in published.values()):
                perf.insert(perf.columns.get_loc(col) + 1, f"{col} (paper)",
                            [published.get(t, {}).get(key) for t in perf["topology"]])  # fmt: skip
        perf.insert(1, "network", [label(t) for t in perf["topology"]])
        used = sorted(set(norm.dropna(subset=["normalized"])[metrics.KERNEL]))
        out.append(
            (spec.get("title", "Performance"), f"Reference {label(ref)}; workloads: {', '.join(used)}.", perf)
        )
    return out


def performance(doc: dict[str, Any], df, table) -> str:
    """The ``[[report.performance]]`` tables as HTML."""
    parts = [
        f"<h3>{html.escape(t)}</h3><p>{html.escape(n)}</p>" + table(f)
        for t, n, f in performance_frames(doc, df)
    ]
    return ("<h2>Performance φ and cost-efficiency</h2>" + "".join(parts)) if parts else ""


def task_counts(rows) -> list[int | None]:
    """The tasks each causal point ran, or would have run when skipped: the result's count, else
    the config's ``workload.tasks``, whose default 0 means every terminal × ``tasks_per_terminal``
    (a table showing 0 tasks would say nothing of the point)."""
    import pandas

    def positive(v) -> bool:
        return v is not None and not pandas.isna(v) and v > 0

    out = []
    for _, r in rows.iterrows():
        n = r.get("tasks")
        if not positive(n):
            n = r.get("workload.tasks")
        if not positive(n):
            per = r.get("workload.tasks_per_terminal")
            n = topology_properties(r["topology"])["terminals"] * (int(per) if positive(per) else 1)
        out.append(int(n))
    return out


def execution_table(df, table) -> str:
    """Every causal point: network, kernel, size, every other config field the points vary
    (``workload.placement``, ``switch.vcs``: else two such points read as one row twice),
    tasks, status and execution time."""
    if "workload.kernel" not in df:
        return ""
    rows = df[df["workload.kernel"].notna()]
    if rows.empty:
        return ""
    named = ["topology", "workload.kernel", "workload.message_bytes"]
    cols = ["group", *named, *(c for c in curve_columns(rows) if c not in named), "tasks", "status",
            "execution_time_cycles", "messages", "message_latency_mean"]  # fmt: skip
    rows = rows.assign(tasks=task_counts(rows))
    return "<h2>Execution times</h2>" + table(rows[[c for c in cols if c in rows]])


def skipped(df, table) -> str:
    """The points not run because their kernel cannot run on their task count, with the reason."""
    if "status" not in df:
        return ""
    rows = df[df["status"] == "skipped"]
    if rows.empty:
        return ""
    rows = rows.assign(tasks=task_counts(rows))
    cols = ["group", "topology", "workload.kernel", "tasks", "message"]
    return ("<h2>Skipped points</h2><p>These kernels cannot run on these task counts; they are left out of "
            "the normalized times and of φ.</p>" + table(rows[[c for c in cols if c in rows]]))  # fmt: skip
