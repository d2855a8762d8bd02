"""Two networks of a study compared the way a paper compares them, beside the paper's numbers:
``[[report.comparisons]]`` (one statement: the change of the highest accepted load or of the
low-load latency from a baseline curve to a candidate curve) and ``[[report.pair_tables]]``
(a metric per row for baseline/candidate network pairs, with the reduction in percent: paper
003 Tables II and III). Published values live in the study file; everything else is computed
from the store (means over repetitions when the study repeats its points)."""

from __future__ import annotations

import math
from typing import Any

from .._core import ConfigError


def _text(v: Any) -> str:
    """A cell as text for matching: 16.0 (a column with missing values) and 16 are both "16"."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _select(frame, where: dict[str, Any]):
    for col, value in where.items():
        if col not in frame:
            return frame.iloc[0:0]
        frame = frame[frame[col].map(_text) == _text(value)]
    return frame


def change(baseline: float, candidate: float, kind: str) -> float:
    """Percent ``increase`` or ``reduction`` from ``baseline`` to ``candidate``."""
    if baseline is None or candidate is None or not baseline or math.isnan(baseline) or math.isnan(candidate):
        return math.nan
    diff = (candidate - baseline) if kind == "increase" else (baseline - candidate)
    return 100.0 * diff / baseline


def _value(spec: dict[str, Any], side: str, df, sat) -> tuple[float, float]:
    """The compared value of one side of a comparison and its 95 % half-width (NaN if none)."""
    metric = spec.get("metric", "max_accepted")
    where = spec.get(side, {})
    if not isinstance(where, dict):
        raise ConfigError(f"report.comparisons.{side} = {where!r} is invalid: a table of column = value")
    if metric == "max_accepted":
        # The curve's highest mean accepted load, with the interval of that point.
        pts = _select(df[df["status"] == "converged"], where)
        if pts.empty:
            return math.nan, math.nan
        best = pts.loc[pts["accepted_load"].astype(float).idxmax()]
        return float(best["accepted_load"]), float(best.get("accepted_load_ci", math.nan))
    if metric in ("low_load_latency", "low_load_end_to_end"):
        col = "latency_network_mean" if metric == "low_load_latency" else "latency_end_to_end_mean"
        pts = _select(df[df["status"] == "converged"], where)
        if pts.empty:
            return math.nan, math.nan
        low = pts.loc[pts["traffic.load"].astype(float).idxmin()]
        return float(low[col]), float(low.get(f"{col}_ci", math.nan))
    raise ConfigError(f"report.comparisons.metric = {metric!r} is invalid: max_accepted, low_load_latency or "
                      "low_load_end_to_end")  # fmt: skip


def comparisons_frame(doc: dict[str, Any], df, sat):
    """One row per ``[[report.comparisons]]`` entry: the statement, the paper's change, ours."""
    import pandas

    rows = []
    for c in doc.get("report", {}).get("comparisons", []):
        kind = "increase" if c.get("metric", "max_accepted") == "max_accepted" else "reduction"
        b, b_ci = _value(c, "baseline", df, sat)
        k, k_ci = _value(c, "candidate", df, sat)
        rows.append({
            "paper": c.get("text", ""), "measure": f"{kind} (%)", "paper (%)": c.get("published"),
            "ours (%)": change(b, k, kind), "baseline (ours)": b, "± (95 %)": b_ci,
            "candidate (ours)": k, "± (95 % )": k_ci,
        })  # fmt: skip
    return pandas.DataFrame(rows)


def pair_frames(doc: dict[str, Any], df) -> list[tuple[str, Any]]:
    """``[[report.pair_tables]]``: per row of ``rows`` columns and per network pair, the metric on
    the baseline and the candidate (ours and the paper's) and the reduction in percent."""
    import pandas

    out = []
    for spec in doc.get("report", {}).get("pair_tables", []):
        metric = spec.get("metric", "execution_time_cycles")
        rows_by = spec.get("rows", ["workload.kernel", "workload.message_bytes"])
        nets = spec.get("networks", [])
        frame = df[df["group"] == spec["sweep"]] if spec.get("sweep") else df
        frame = frame[frame.get("status") == "completed"] if "status" in frame else frame
        published = {tuple(_text(v) for v in p[: len(rows_by)]): p[len(rows_by):] for p in spec.get("published", [])}
        keys = list(dict.fromkeys(tuple(_text(v) for v in r) for r in frame[rows_by].itertuples(index=False)))
        table = []
        for key in keys:
            row: dict[str, Any] = dict(zip(rows_by, key))
            mine = _select(frame, dict(zip(rows_by, key)))
            paper = published.get(key, [])
            for i, (label, base, cand) in enumerate(nets):
                b = mine.loc[mine["topology"] == base, metric]
                k = mine.loc[mine["topology"] == cand, metric]
                bv = float(b.iloc[0]) if len(b) else math.nan
                kv = float(k.iloc[0]) if len(k) else math.nan
                pub = paper[3 * i: 3 * i + 3] if len(paper) >= 3 * i + 3 else [None] * 3
                row.update({
                    f"{label} 3D": bv, f"{label} 3D paper": pub[0], f"{label} 5DT": kv,
                    f"{label} 5DT paper": pub[1], f"{label} reduction %": change(bv, kv, "reduction"),
                    f"{label} reduction % paper": pub[2],
                })  # fmt: skip
            table.append(row)
        out.append((spec.get("title", metric), pandas.DataFrame(table)))
    return out


def html(doc: dict[str, Any], df, sat, table) -> str:
    """The comparisons and pair tables of a report (``table``: the report's DataFrame → HTML)."""
    parts = []
    comp = comparisons_frame(doc, df, sat)
    if len(comp):
        parts.append("<h3>The paper's comparisons and ours</h3>" + table(comp))
    for title, frame in pair_frames(doc, df):
        if len(frame):
            parts.append(f"<h3>{title}</h3>" + table(frame))
    return "".join(parts)
