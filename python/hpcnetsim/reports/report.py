"""``hpcnetsim report DIR``: one self-contained HTML page per study (figures inline as SVG, tables)."""

from __future__ import annotations

import html
import math
import re
import json
import tempfile
from pathlib import Path
from typing import Any

from . import causal_report, plots, svg
from ..studies import comparisons
from .. import confidence
from ..experiments import store
from ..experiments.experiment import sweep_groups
from .._core import ConfigError, __version__
from ..canonical import shown
from .._files import atomic_write_text
from ..experiments.experiment import PLOT_FIGURE_KINDS as FIGURE_KINDS  # one list, checked when a file is read
from ..experiments.experiment import check_figure_columns, curve_columns, point_columns
from ..expressions import topology_properties
from ..experiments.sweep import EXPERIMENT_FILE, read_experiment


def load(out: str | Path):
    """The experiment record and a DataFrame with one row per point (missing points marked so)."""
    import pandas

    out = Path(out)
    path = out / EXPERIMENT_FILE
    if not path.is_file():
        raise ConfigError(f"{out}: no {EXPERIMENT_FILE}: the output folder of hpcnetsim sweep or study run")
    doc = read_experiment(out)
    rows = {r["key"]: r for r in store.read_rows(out)} if (out / store.STORE_DIR).is_dir() else {}
    frame = []
    for p in doc["points"]:
        row = rows.get(p["key"]) or {"key": p["key"], "state": "missing", **store.flatten_config(p["config"])}
        # Labels of listed points and table-valued axes (``point``, ``variant``...) as columns too.
        labels = {k: v for k, v in p["values"].items() if "." not in k and k not in row}
        frame.append({"group": p["group"], **row, **labels, "family": p.get("family") or p["key"],
                      "repetition": p.get("repetition", 0)})
    # The columns every point has, also when the record lists none (the page then says so).
    df = pandas.DataFrame(frame, columns=None if frame else ["group", "key", "state", "topology", "family",
                                                             "repetition"])  # fmt: skip
    cols = (
        "status",
        "offered_load",
        "accepted_load",
        "latency_network_mean",
        "ideal_throughput",
        "traffic.load",
    )
    for col in cols:
        if col not in df:
            df[col] = None
    return doc, df


def _or_nan(x):
    return float("nan") if x is None else x


def _bounds(topology: str) -> tuple[float, float]:
    """The ideal and Θ bounds of a throughput panel; NaN for a network that cannot be described
    (its points failed, e.g. faults cut it in two): the panel still shows them as failed."""
    try:
        p = topology_properties(topology)
    except ConfigError:
        return float("nan"), float("nan")
    return _or_nan(p["ideal_throughput"]), p["bisection_throughput"]


def saturation(df):
    """One row per curve: highest accepted load, the ideal and Θ bounds, and their ratio."""
    cols = ["group", "topology", *(c for c in curve_columns(df) if c != "topology")]
    ok = df[df["status"] == "converged"]
    aggs = {"points": ("key", "size"), "max_accepted": ("accepted_load", "max"),
            "max_converged_load": ("offered_load", "max")}  # fmt: skip
    if "accepted_pct_host" in ok and ok["accepted_pct_host"].notna().any():
        aggs["max_accepted_pct_host"] = ("accepted_pct_host", "max")
    out = ok.groupby(cols, sort=False, dropna=False).agg(**aggs).reset_index()
    # Points of the same curve without a value: if any lies above the highest converged load,
    # the saturation value comes from the converged points only and may be too low.
    bad = df[(df["status"] != "converged") & (df["state"] != "missing") & (df.get("status") != "skipped")]
    # Points of the curve not in the store (an interrupted sweep): its highest accepted load may
    # be that of the loads run so far, not the curve's.
    missing = df[df["state"] == "missing"]
    notes = []
    for _, r in out.iterrows():
        mine = _of_curve(bad, cols, r)
        above = mine[mine["traffic.load"].astype(float) > float(r["max_converged_load"])]
        loads = ", ".join(f"{x:g}" for x in sorted(mine["traffic.load"].astype(float)))
        note = "" if mine.empty else (f"from converged points only: {len(mine)} points without a value "
                                      f"(loads {loads}){', some above the highest converged load' if len(above) else ''}")  # fmt: skip
        waiting = _of_curve(missing, cols, r)
        if len(waiting):
            loads = ", ".join(f"{x:g}" for x in sorted(set(waiting["traffic.load"].astype(float))))
            n = len(waiting)
            note += (("; " if note else "") + f"incomplete: {n} point{'s' * (n != 1)} not run yet (loads {loads}); "
                     "run the sweep again to finish the curve")  # fmt: skip
        notes.append(note)
    out["unconverged_points"] = [len(_of_curve(bad, cols, r)) for _, r in out.iterrows()]
    out["note"] = notes
    out = out.drop(columns=["max_converged_load"])
    # NaN where the bound is not computed (very large irregular networks).
    out["ideal"] = [_or_nan(topology_properties(t)["ideal_throughput"]) for t in out["topology"]]
    out["theta"] = [topology_properties(t)["bisection_throughput"] for t in out["topology"]]
    out["max_over_ideal"] = out["max_accepted"] / out["ideal"]
    return out


def without_empty_config_columns(table):
    """``table`` without the config columns no row has a value in: a column that varies only
    between points outside the table (a causal group's ``workload.kernel`` beside throughput
    curves) tells none of its rows apart."""
    empty = [c for c in table.columns if "." in c and table[c].isna().all()]
    return table.drop(columns=empty)


def _of_curve(points, cols, curve):
    """The rows of ``points`` on the curve ``curve`` (equal in every column of ``cols``; a
    column the curve leaves empty, such as ``routing.engine`` beside table routing, matches
    empty cells: pandas keeps a missing string missing through ``astype(str)``)."""
    import pandas

    for c in cols:
        value = curve[c]
        same = points[c].isna() if pandas.isna(value) else points[c].astype(str) == str(value)
        points = points[same]
    return points


def failures(df) -> str:
    """The points that gave no (complete) answer, with their reasons."""
    status = df["status"].where(df["state"] != "failed", "failed")
    bad = df[status.isin(["not-converged", "deadlock", "partial", "failed"])]
    if bad.empty:
        return ""
    reason = bad["error"].where(bad["state"] == "failed", bad.get("message")) if "message" in bad else bad["error"]
    cols = ["group", *(c for c in curve_columns(df)), "traffic.load", "seed"]
    rows = bad[[c for c in cols if c in bad]].assign(key=bad["key"].str[:12], status=status[bad.index], reason=reason)
    return "<h2>Points without a result</h2>" + _table(rows)


#: Figures drawn for the report being written, as (name, PNG bytes, SVG text).
_FIGURES: list[tuple[str, bytes, str]] = []


def _figure(draw, alt: str) -> str:
    """A figure inline as SVG (HTML); its PNG and SVG are kept for ``figures/``."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "f.png"
        draw(path)  # the figure functions write the format of the file's suffix
        png = path.read_bytes()
    text = svg.draw_svg(draw)
    name = f"figure-{len(_FIGURES) + 1}"
    _FIGURES.append((name, png, text))
    return svg.inline(text, alt, name)


def figure(spec: dict[str, Any], df, sat) -> str:
    """One figure of the report's ``[[report.figures]]`` list, as inline SVG ("" if it has no points).

    The figure carries no title: the report's heading above it is the spec's title."""
    kind = spec.get("kind")
    if kind not in FIGURE_KINDS:
        raise ConfigError(f"report.figures.kind = {shown(kind)} is invalid: one of "
                          f"{', '.join(FIGURE_KINDS + causal_report.FIGURE_KINDS)}")  # fmt: skip
    # One group, or a list of groups (e.g. a study's full and quick groups).
    if groups := sweep_groups(spec.get("sweep")):
        df, sat = df[df["group"].isin(groups)], sat[sat["group"].isin(groups)]
    if not (df["status"] == "converged").any():
        return ""
    if kind in ("throughput", "latency"):
        # Points that ran but gave no value stay in, to be marked on the plot.
        df = df[df["state"].isin(["done", "failed"]) & df["offered_load"].fillna(df["traffic.load"]).notna()]
    else:
        df = df[df["status"] == "converged"]
    alt = str(spec.get("title", kind))
    title = ""
    panels, curves = spec.get("panels", "topology"), spec.get("curves")
    if kind in ("throughput", "latency"):
        drawn = kind == "throughput" and panels == "topology"
        bounds = {t: _bounds(t) for t in df["topology"]} if drawn else None
        metric = spec.get("metric") or ("accepted_load" if kind == "throughput" else "latency_network_mean")
        return _figure(lambda p: plots.plot_panels(df, panels, curves, metric, p, title, bounds), alt)
    if kind == "heatmap":
        value = spec.get("value", "max_over_ideal")
        if value not in sat:  # max_accepted_pct_host: only with a host bandwidth
            raise ConfigError(f"report.figures.value = {shown(value)} is invalid: a column of this study's saturation "
                              f"table: {', '.join(c for c in sat if sat[c].dtype.kind in 'fiu')}")  # fmt: skip
        sat = constant_columns(sat, df, [spec.get("y", "topology"), spec.get("x", "switch.vcs")])
        table = sat.pivot_table(index=spec.get("y", "topology"), columns=spec.get("x", "switch.vcs"),
                                values=value, aggfunc="max", sort=False)  # fmt: skip
        return _figure(lambda p: plots.plot_heatmap(table, p, title, value), alt)
    sat = constant_columns(sat, df, [curves] if curves else [])
    pts = [(f"{r['topology']}" + (f" {plots.curve_label(curves, r[curves])}" if curves else ""),
            topology_properties(r["topology"])["cost_linear"], r["max_accepted"]) for _, r in sat.iterrows()]  # fmt: skip
    return _figure(lambda p: plots.plot_cost_scatter(pts, p, title), alt)


def constant_columns(sat, df, columns: list[str]):
    """``sat`` with the config ``columns`` it lacks because no point varies them (a heatmap over
    ``switch.vcs`` with one VC count): the saturation table keeps only the varying ones."""
    for c in columns:
        if c not in sat and c in df and df[c].astype(str).nunique() <= 1:
            sat = sat.assign(**{c: df[c].iloc[0] if len(df) else None})
    return sat


def check_figures(doc: dict[str, Any], df, where: str) -> None:
    """The columns the figures name, checked against the stored points before anything is drawn
    (whether or not any converged), as when the experiment was read; and a ``metric`` against
    the stored results, which only running makes."""
    figures = doc.get("report", {}).get("figures", [])
    check_figure_columns(figures, point_columns((p["group"], p["config"], p["values"]) for p in doc["points"]),
                         where)  # fmt: skip
    done = df[df["state"] == "done"]
    for i, spec in enumerate(figures):
        metric = spec.get("metric") if spec.get("kind") in ("throughput", "latency") else None
        if metric is None or metric in df or done.empty:
            continue
        import difflib

        # A numeric field without any value (latencies where no point measured a packet) is a
        # column of nulls: still a field the metric may mean.
        numeric = [c for c in done if done[c].dtype.kind in "fiu" or ("." not in c and done[c].isna().all())]
        near = difflib.get_close_matches(str(metric), numeric, n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise ConfigError(f"{where}: report.figures[{i}].metric = {shown(metric)} is invalid: a numeric field of the "
                          f"results{hint} such as {', '.join(c for c in confidence.METRICS if c in df)}")  # fmt: skip


def _figure_html(spec: dict[str, Any], df, sat) -> str:
    """One figure as HTML: inline SVG, and for normalized times the table of its values."""
    kind = spec.get("kind")
    if kind == "normalized-time":
        return causal_report.normalized_time(spec, df, _figure, _table)
    if kind == "evolution":
        return causal_report.evolution(spec, df, _figure)
    return figure(spec, df, sat)


def confidence_table(doc: dict[str, Any], df) -> str:
    """Each repeated point's means with the half-widths of their 95 % confidence intervals."""
    if doc.get("repetitions", 1) <= 1 or "repetitions" not in df:
        return ""
    cols = ["group", *curve_columns(df), "traffic.load", "repetitions"]
    for m in confidence.METRICS:
        if f"{m}_ci" in df and df[m].notna().any():
            cols += [m, f"{m}_ci"]
    rows = _no_offered_load(df[[c for c in cols if c in df]], df)
    rows = rows.rename(columns={f"{m}_ci": _interval_label(m) for m in confidence.METRICS})
    n = doc["repetitions"]
    return (f"<h2>Means and confidence intervals</h2><p>{n} repetitions per point (seeds derived from the "
            f"point's seed); ± is the half-width of the 95 % Student-t interval over the repetitions that gave a "
            f"value (<code>repetitions</code>).</p>" + _table(rows))  # fmt: skip


def _quick_note(doc: dict[str, Any]) -> str:
    """What the experiment's ``[quick]`` table changed, for a quick variant's page: the
    description above it is the full study's (its sizes, windows, repetitions)."""
    import tomllib

    from ..canonical import shown
    from ..experiments.experiment import _flatten

    if not doc.get("quick") or not doc.get("source_text"):
        return ""
    try:
        quick = tomllib.loads(doc["source_text"]).get("quick") or {}
    except tomllib.TOMLDecodeError:
        return ""
    parts = []
    if quick.get("sweeps"):
        parts.append("sweep groups " + ", ".join(str(g) for g in quick["sweeps"]))
    parts += [f"{k} = {shown(v)}" for k, v in _flatten(quick.get("base") or {}).items()]
    parts += [f"{k} = {shown(v)}" for k, v in quick.items() if k not in ("sweeps", "base")]
    if not parts:
        return ""
    changed = html.escape("; ".join(parts))
    return f"<p>Quick variant: {changed} (the description above is the full study's).</p>"


def _no_offered_load(frame, runs):
    """``frame`` (rows of ``runs``) with no ``traffic.load`` on the causal workloads' rows: a
    workload runs to completion, and its config's load is a default it never offered."""
    if "traffic.load" in frame and "workload.kernel" in runs:
        frame = frame.assign(**{"traffic.load": frame["traffic.load"].where(runs["workload.kernel"].isna())})
    return frame


def _interval_label(metric: str) -> str:
    """The heading of a metric's confidence half-width, with the metric's unit."""
    label = UNITS.get(metric, metric)
    name, sep, unit = label.partition(" (")
    return f"{name} ±95 % ({unit}" if sep else f"{label} ±95 %"


def published(doc: dict[str, Any], sat) -> str:
    """The paper's values and statements beside ours (``[[report.published]]``, ``[[report.claims]]``)."""
    rep = doc.get("report", {})
    parts = []
    if rep.get("published"):
        rows = []
        for p in rep["published"]:
            ours = topology_properties(p["topology"])
            best = sat.loc[sat["topology"] == p["topology"], "max_accepted"]
            row = {"topology": p["topology"], **{f"{k} (paper)": v for k, v in p.items() if k != "topology"},
                   "Θ = 2B/N (ours)": ours["bisection_throughput"],
                   "ideal, channel load (ours)": ours["ideal_throughput"],
                   "max accepted (ours)": best.max() if len(best) else None}  # fmt: skip
            # A published property that we compute too gets a coloured difference column.
            for k, v in p.items():
                if k != "topology" and isinstance(v, (int, float)) and isinstance(ours.get(k), (int, float)):
                    row[f"{k}: ours − paper"] = difference_cell(float(ours[k]), float(v))
            rows.append(row)
        parts.append("<h3>Published values</h3>" + _table(rows, escape=False))
    if rep.get("claims"):
        rows = []
        for c in rep["claims"]:
            mine = sat[
                (sat["topology"] == c.get("topology")) & (sat.get("switch.vcs", c.get("vcs")) == c.get("vcs"))
            ]
            best = mine["max_accepted"].max()
            ours = ("not simulated" if mine.empty else f"max accepted {best:.4f} = {best / mine['ideal'].max():.3f} × "
                    f"ideal (channel load) = {best / mine['theta'].max():.3f} × Θ")  # fmt: skip
            rows.append({"paper": c["text"], "network": c.get("topology"), "VCs": c.get("vcs"), "ours": ours})
        parts.append("<h3>The paper's statements and our measurements</h3>" + _table(rows))
    return "".join(parts)


def difference_cell(ours: float, paper: float) -> str:
    """``ours − paper`` with the relative difference, green within 5 %, amber within 20 %, red beyond."""
    diff = ours - paper
    rel = abs(diff) / abs(paper) if paper else (0.0 if diff == 0 else float("inf"))
    colour = "#1a7f37" if rel <= 0.05 else "#b54708" if rel <= 0.2 else "#b42318"
    return f"<span style='color:{colour};font-weight:bold'>{diff:+.4g} ({rel:.0%})</span>"


def formatted(frame, missing: str | None = None):
    """A copy of ``frame`` with every cell as the report's tables write it (:func:`cell`),
    an empty cell as ``missing`` when given (Markdown tables use "-")."""
    frame = frame.copy()
    for c in frame.columns:
        # Counts and cycles are integers even when a missing value made the column float.
        col = frame[c]
        if col.dtype.kind == "f" and col.notna().any() and (col.dropna() % 1 == 0).all() and col.abs().max() < 2**53:
            frame[c] = col.astype("Int64")
    # Cells formatted here rather than by to_html: its na_rep misses pandas.NA in integer
    # columns (written "<NA>") and None in object columns (written "None").
    for c in frame.columns:
        frame[c] = [cell(v) for v in frame[c]]
        if missing is not None:
            frame[c] = [missing if v == MISSING else v for v in frame[c]]
    return frame


def _table(rows, escape: bool = True) -> str:
    import pandas

    frame = formatted(rows if isinstance(rows, pandas.DataFrame) else pandas.DataFrame(rows))
    frame.columns = [UNITS.get(c, c) for c in frame.columns]
    table = frame.to_html(index=False, border=0, escape=escape)
    return f"<div class='scroll'>{table}</div>"


#: What an empty cell shows: a value that is missing, not computed or not applicable.
MISSING = "\u2014"


def cell(v) -> str:
    """One table cell as text: numbers to 4 significant digits, missing values as an em dash."""
    import pandas

    if v is None or v is pandas.NA or v is pandas.NaT or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:.4g}"
    if hasattr(v, "dtype") and getattr(v.dtype, "kind", "") == "f":  # numpy floats
        return cell(float(v))
    return str(v)


#: Column headings with units.
UNITS = {
    "traffic.load": "traffic.load (phits/cycle/node)",
    "offered_load": "offered load (phits/cycle/node)",
    "accepted_load": "accepted load (phits/cycle/node)",
    "accepted_load_std": "accepted load std (phits/cycle/node)",
    "latency_network_mean": "mean network latency (cycles)",
    "latency_network_p99": "p99 network latency (cycles)",
    "execution_time_cycles": "execution time (cycles)",
    "message_latency_mean": "mean message latency (cycles)",
    "latency_end_to_end_mean": "mean end-to-end latency (cycles)",
    "packet_latency_mean": "mean packet latency (cycles)",
    "workload.message_bytes": "workload.message_bytes (bytes)",
    "max_accepted": "max accepted (phits/cycle/node)",
    "offered_pct_host": "offered load (% of host bandwidth)",
    "accepted_pct_host": "accepted load (% of host bandwidth)",
    "accepted_pct_host_ci": "accepted load ±95 % (% of host bandwidth)",
    "max_accepted_pct_host": "max accepted (% of host bandwidth)",
    "ideal": "ideal (phits/cycle/node)",
    "theta": "Θ (phits/cycle/node)",
    "max_over_ideal": "max accepted / ideal",
}


#: Page style: wide tables scroll inside their box (``div.scroll``), never the page.
STYLE = """body{font-family:sans-serif;max-width:1400px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#eee}img{max-width:100%}pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:12px}
div.scroll{max-width:100%;overflow-x:auto;margin:.5em 0 1.5em}details{margin:.5em 0}summary{cursor:pointer}
""" + svg.STYLE


def render(doc: dict[str, Any], df) -> str:
    """The HTML page of one study."""
    runs = df
    if doc.get("repetitions", 1) > 1:
        # Figures and tables show each point's mean and confidence interval over its repetitions;
        # the list of points below keeps every repetition.
        df = confidence.aggregate(runs)
    sat = saturation(df)
    e = html.escape
    status = runs["status"].where(runs["state"] == "done", runs["state"]).fillna("unknown")
    counts = ", ".join(f"{n} {e(str(s))}" for s, n in status.value_counts().items()) or "none"
    figs = [(spec.get("title", spec.get("kind")), _figure_html(spec, df, sat))
            for spec in doc.get("report", {}).get("figures", [])]  # fmt: skip
    if not doc.get("report", {}).get("figures"):
        figs = [("Throughput", _figure_html({"kind": "throughput", "curves": None}, df, sat))]
    cols = ["group", "key", "state", *curve_columns(df), "traffic.load", "seed", "status", "accepted_load",
            "accepted_load_std", "offered_pct_host", "accepted_pct_host", "latency_network_mean",
            "latency_network_p99", "execution_time_cycles",
            "error"]  # fmt: skip
    if doc.get("repetitions", 1) > 1:
        cols.insert(cols.index("seed") + 1, "repetition")
    points = _no_offered_load(runs[[c for c in cols if c in runs]].assign(key=runs["key"].str[:12]), runs)
    body = [
        f"<h1>{e(doc['title'])}</h1>",
        f"<p>{e(doc['description'])}</p>" if doc.get("description") else "",
        (
            f"<p>Study <b>{e(doc['name'])}</b>{' (quick variant)' if doc.get('quick') else ''}; "
            f"points: {counts}; hpcnetsim {e(doc.get('hpcnetsim_version', ''))} "
            f"(report written by hpcnetsim {e(__version__)}).</p>"
        ),
        _quick_note(doc),
        *(f"<h2>{e(t)}</h2>{b}" for t, b in figs if b),
        failures(runs),
        confidence_table(doc, df),
        *(("<h2>Saturation throughput</h2>", _table(without_empty_config_columns(sat))) if len(sat) else ()),
        published(doc, sat),
        comparisons.html(doc, df, sat, _table),
        causal_report.performance(doc, df, _table),
        causal_report.execution_table(df, _table),
        causal_report.skipped(df, _table),
        "<h2>Configuration</h2>",
        "<details><summary>Base config (what every point starts from)</summary>"
        f"<pre>{e(doc.get('base_toml') or base_text(doc.get('base', {})))}</pre></details>",
        *((f"<details><summary>Experiment file</summary><pre>{e(doc['source_text'])}</pre></details>",)
          if doc.get("source_text") else ()),  # fmt: skip
        "<h2>Points</h2>",
        _table(points),
    ]
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(doc['title'])}</title>" \
           f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n"  # fmt: skip


def base_text(base: dict[str, Any]) -> str:
    """The base config as TOML (what every point starts from, before its sweep's values)."""
    from ..canonical import to_toml

    if not base:
        return "(empty: every value comes from the sweeps and the defaults of docs/config.md)"
    try:
        return to_toml(base)
    except ConfigError:
        return json.dumps(base, indent=1)


def write_report(out: str | Path) -> Path:
    """Write ``DIR/report.html`` for the study in ``out`` (figures inline as SVG) and its figures as SVG and PNG under
    ``DIR/figures/``; returns the report's path."""
    from .._files import atomic_write

    doc, df = load(out)
    check_figures(doc, df, str(Path(out) / EXPERIMENT_FILE))
    path = Path(out) / "report.html"
    _FIGURES.clear()
    page = render(doc, df)
    for name, png, text in _FIGURES:
        atomic_write(Path(out) / "figures" / f"{name}.png", lambda tmp, b=png: tmp.write_bytes(b))
        atomic_write_text(Path(out) / "figures" / f"{name}.svg", text)
    # An earlier report with more figures left files this one did not write: they would
    # look current beside it.
    written = {name for name, _, _ in _FIGURES}
    for old in (Path(out) / "figures").glob("figure-*.*"):
        if re.fullmatch(r"figure-\d+\.(png|svg)", old.name) and old.stem not in written:
            old.unlink()
    _FIGURES.clear()
    atomic_write_text(path, page)
    return path
