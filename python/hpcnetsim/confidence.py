"""Repetitions and confidence intervals: one configuration run with R seeds, summarised by the
mean and the Student-t confidence interval of every metric (paper 003 §4.1 runs 30).

The seeds of the repetitions derive from the configuration's own seed (repetition 0 keeps it),
so the same experiment gives the same seeds, the same runs and the same intervals, bit for bit,
whichever executor ran them. Means and intervals are computed in repetition order with
``math.fsum``: the summary does not depend on the order in which results arrived.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from ._core import ConfigError

#: Confidence level of the intervals.
LEVEL = 0.95
#: Largest number of repetitions accepted (a typo guard: 30 is the papers' choice).
MAX_REPETITIONS = 10_000
#: Derived seeds stay below 2^53 so that they survive JSON, pandas and Dask unchanged.
SEED_MASK = (1 << 53) - 1

#: Metrics summarised per point when present (throughput runs and causal workloads).
METRICS = (
    "accepted_load",
    "accepted_pct_host",
    "latency_network_mean",
    "latency_end_to_end_mean",
    "latency_network_p99",
    "execution_time_cycles",
    "message_latency_mean",
    "packet_latency_mean",
)


def check_repetitions(value: Any, where: str) -> int:
    """``value`` as a number of repetitions; raises :class:`ConfigError` naming ``where`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPETITIONS:
        raise ConfigError(
            f"{where} = {value!r} is invalid: an integer from 1 to {MAX_REPETITIONS} (runs with derived seeds)"
        )
    return value


def repetition_seed(base: int, index: int) -> int:
    """The seed of repetition ``index`` of a configuration whose seed is ``base`` (index 0: ``base``)."""
    if index == 0:
        return base
    digest = hashlib.sha256(f"hpcnetsim-repetition:{base}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & SEED_MASK


def repetition_seeds(base: int, repetitions: int) -> list[int]:
    """The seeds of ``repetitions`` runs of a configuration with seed ``base``."""
    return [repetition_seed(base, i) for i in range(repetitions)]


def t_quantile(dof: int, level: float = LEVEL) -> float:
    """The two-sided Student-t quantile for ``dof`` degrees of freedom."""
    from scipy.special import stdtrit  # the inverse Student-t CDF, without importing scipy.stats

    return float(stdtrit(dof, 0.5 + level / 2))


def interval(values: list[float], level: float = LEVEL) -> dict[str, float]:
    """Mean, half-width of the ``level`` confidence interval (Student t), bounds and count.

    Missing values (None, NaN) are left out; with fewer than two values the half-width is NaN.
    """
    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    n = len(xs)
    if n == 0:
        return {"mean": math.nan, "ci": math.nan, "lo": math.nan, "hi": math.nan, "n": 0}
    mean = math.fsum(xs) / n
    if n < 2:
        half = math.nan
    else:
        var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
        half = t_quantile(n - 1, level) * math.sqrt(var / n)
    return {"mean": mean, "ci": half, "lo": mean - half, "hi": mean + half, "n": n}


def summarise(rows: list[dict[str, Any]], metrics: tuple[str, ...] = METRICS) -> dict[str, Any]:
    """``metric``, ``metric_ci``, ``metric_lo``, ``metric_hi`` and ``repetitions`` over ``rows``
    (the results of one configuration's repetitions, in repetition order)."""
    out: dict[str, Any] = {"repetitions": len(rows)}
    for m in metrics:
        if not any(m in r for r in rows):
            continue
        s = interval([r.get(m) for r in rows])
        out.update({m: s["mean"], f"{m}_ci": s["ci"], f"{m}_lo": s["lo"], f"{m}_hi": s["hi"]})
    return out


def aggregate(df, metrics: tuple[str, ...] = METRICS):
    """One row per repeated point (column ``family``): the first repetition's columns, each metric
    replaced by its mean over the converged/completed repetitions, plus ``_ci``/``_lo``/``_hi``
    columns and ``repetitions`` (how many runs gave a value). Frames without a ``family``
    column (one run per point) come back with ``repetitions`` = 1 and no intervals."""
    import pandas

    if "family" not in df or df["family"].isna().all():
        return df.assign(repetitions=1)
    df = df.assign(family=df["family"].fillna(df["key"]), repetition=df.get("repetition", 0))
    df = df.assign(repetition=df["repetition"].fillna(0).astype(int))
    out = []
    for _, rows in df.sort_values(["family", "repetition"], kind="stable").groupby("family", sort=False):
        first = rows.iloc[0].to_dict()
        ok = rows[rows.get("status").isin(["converged", "completed"])] if "status" in rows else rows
        present = [m for m in metrics if m in rows]
        s = summarise(ok[present].to_dict("records"), tuple(present))
        first.update(s)
        if len(ok) and len(ok) < len(rows):
            # Some repetitions gave no value: the point counts as converged on the others, and says so.
            first["status"] = ok.iloc[0]["status"]
        first["runs"] = len(rows)
        out.append(first)
    return pandas.DataFrame(out)


def repeated_configs(config: dict[str, Any], repetitions: int) -> list[dict[str, Any]]:
    """``config`` once per repetition, each with its derived seed."""
    base = int(config.get("seed", 1))
    return [{**config, "seed": s} for s in repetition_seeds(base, repetitions)]


def _fmt(s: dict[str, Any], m: str, spec: str) -> str:
    if m not in s or s[m] is None or math.isnan(s[m]):
        return "-"
    ci = s.get(f"{m}_ci")
    return f"{s[m]:{spec}}" + ("" if ci is None or math.isnan(ci) else f" ± {ci:{spec}}")


def format_repeated(flat: list[dict[str, Any]]) -> str:
    """A few lines about R repetitions of one run: seeds, statuses, means ± 95 % intervals."""
    ok = [r for r in flat if r.get("status") in ("converged", "completed")]
    s = summarise(ok)
    statuses: dict[str, int] = {}
    for r in flat:
        statuses[r.get("status", "?")] = statuses.get(r.get("status", "?"), 0) + 1
    lines = [
        f"{flat[0].get('topology')}, routing {flat[0].get('routing')}: {len(flat)} repetitions, seeds "
        + " ".join(str(r.get("seed")) for r in flat[:5])
        + (" ..." if len(flat) > 5 else ""),
        "status            " + ", ".join(f"{n} {k}" for k, n in statuses.items()),
        "                  mean ± half-width of the 95 % confidence interval (Student t)",
    ]
    rows = [
        ("accepted load", "accepted_load", ".4g", "phits/cycle/node"),
        ("network latency", "latency_network_mean", ".1f", "cycles (mean)"),
        ("end-to-end lat.", "latency_end_to_end_mean", ".1f", "cycles (mean)"),
        ("execution time", "execution_time_cycles", ".0f", "cycles"),
        ("message latency", "message_latency_mean", ".1f", "cycles (mean)"),
    ]
    for name, m, spec, unit in rows:
        if m in s:
            lines.append(f"{name:<17} {_fmt(s, m, spec)} {unit}")
    return "\n".join(lines)


def curve_summary(frame):
    """A load curve run R times (one row per repetition and load) → one row per load with means
    and 95 % intervals, in load order."""
    import pandas

    out = []
    for load, rows in frame.groupby("offered_load", sort=True):
        ok = rows[rows["status"] == "converged"]
        s = summarise(ok.sort_values("seed_index").to_dict("records"))
        out.append({"offered_load": load, "runs": len(rows), **s, "status": "converged" if len(ok) else
                    rows["status"].iloc[0], "topology": rows["topology"].iloc[0], "routing": rows["routing"].iloc[0]})  # fmt: skip
    return pandas.DataFrame(out)


def format_curve_summary(summary) -> str:
    """The table of a repeated load curve: load, converged runs, accepted load and latency ± CI."""
    head = f"{'offered':>8}  {'runs':>9}  {'accepted':>20}  {'latency_mean':>20}"
    lines = [head]
    for _, r in summary.iterrows():
        s = r.to_dict()
        lines.append(f"{s['offered_load']:>8.4g}  {s.get('repetitions', 0):>4}/{s['runs']:<4}  "
                     f"{_fmt(s, 'accepted_load', '.4g'):>20}  {_fmt(s, 'latency_network_mean', '.1f'):>20}")  # fmt: skip
    return "\n".join(lines)
