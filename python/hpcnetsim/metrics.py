"""Metrics of causal workloads (paper 000 §6): normalized execution time, performance φ, φ per cost.

Conventions, as in paper 000 §6.1 and Table 6:

- a workload is a (kernel, message size) pair; its normalized time is T = time / time of the
  reference network, so T = 1 for the reference on every workload;
- the performance of a network is φ = 1 / Σ_w (weight_w · T_w) (weights default to 1), then
  normalized by the reference's value 1 / Σ_w weight_w: φ = Σ_w weight_w / Σ_w weight_w · T_w,
  so the reference has φ = 1 (with 7 workloads of weight 1 the paper's raw value is 1/7);
- the cost-efficiency for a cost function c is (φ / c) / (φ_reference / c_reference), with
  c_C = S, c_L = S·R, c_Q = S·R² (S switches of radix R).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Cost function name → the key of ``Topology.describe()`` holding it.
COSTS = {"c_C": "cost_constant", "c_L": "cost_linear", "c_Q": "cost_quadratic"}
KERNEL, BYTES, TIME = "workload.kernel", "workload.message_bytes", "execution_time_cycles"


def raw_phi(times: Mapping[str, float], weights: Mapping[str, float] | None = None) -> float:
    """The paper's φ = 1 / Σ_w weight_w · T_w over the workloads of ``times`` (weights default 1)."""
    if not times:
        raise ValueError("times = {} is invalid: at least one workload")
    total = sum(_weight(weights, w) * t for w, t in times.items())
    return 1.0 / total if total > 0 else float("inf")


def phi(times: Mapping[str, float], weights: Mapping[str, float] | None = None) -> float:
    """φ normalized so that the reference network (every T = 1) has φ = 1: Σ weight / Σ weight · T."""
    return raw_phi(times, weights) * sum(_weight(weights, w) for w in times)


def cost_efficiency(phi_value: float, cost: float, phi_reference: float, cost_reference: float) -> float:
    """φ per cost, normalized to the reference network: (φ / c) / (φ_ref / c_ref)."""
    return (phi_value / cost) / (phi_reference / cost_reference)


def _weight(weights: Mapping[str, float] | None, workload: str) -> float:
    if weights is None:
        return 1.0
    kernel = workload.split("@")[0]
    return float(weights.get(workload, weights.get(kernel, 1.0)))


def workload_name(kernel: str, message_bytes: int, sizes: int) -> str:
    """``kernel`` when a study has one message size per kernel, ``kernel@bytes`` otherwise."""
    return str(kernel) if sizes <= 1 else f"{kernel}@{int(message_bytes)}"


def normalized_times(df: pd.DataFrame, reference: str, network: str = "topology") -> pd.DataFrame:
    """One row per network and workload: time, the reference's time and T = time / reference time.

    ``df`` has one row per completed run (columns ``network``, ``workload.kernel``,
    ``workload.message_bytes``, ``execution_time_cycles``); several seeds are averaged.
    Workloads the reference did not complete have no normalized time (NaN). Runs of one network,
    kernel and size that differ in any other config field (a dotted column such as
    ``workload.placement``) are refused: their mean would be no one network's time.
    """
    import pandas

    if df.empty:
        return pandas.DataFrame(columns=[network, KERNEL, BYTES, "time", "reference_time", "normalized"])
    refuse_mixed_runs(df, network)
    t = df.groupby([network, KERNEL, BYTES], sort=False)[TIME].mean().rename("time").reset_index()
    ref = t[t[network] == reference][[KERNEL, BYTES, "time"]].rename(columns={"time": "reference_time"})
    out = t.merge(ref, on=[KERNEL, BYTES], how="left")
    out["normalized"] = out["time"] / out["reference_time"]
    return out


def refuse_mixed_runs(df: pd.DataFrame, network: str = "topology") -> None:
    """Refuses runs of one (network, kernel, size) that differ in a config field other than the
    seed (a dotted column of ``df``), naming the field and its values."""
    from ._core import ConfigError

    keys = [network, KERNEL, BYTES]
    fields = [c for c in df.columns if "." in c and c not in keys]
    for (net, kernel, size), runs in df.groupby(keys, sort=False):
        for field in fields:
            # Lists (placement_list, mesh) are compared by their text.
            values = list(dict.fromkeys(repr(v.tolist() if hasattr(v, "tolist") else v) for v in runs[field]))
            if len(values) > 1:
                raise ConfigError(
                    f"{net} ran {kernel} with {size} bytes under several {field} values ({', '.join(values)}): "
                    "T would average them; keep one (topologies, sweep) or make it the figure's panels"
                )


def performance(norm: pd.DataFrame, reference: str, weights: Mapping[str, float] | None = None,
                network: str = "topology") -> pd.DataFrame:  # fmt: skip
    """φ of every network over the workloads the reference completed; NaN if one of them is missing."""
    import pandas

    ok = norm.dropna(subset=["normalized"])
    sizes = ok.groupby(KERNEL)[BYTES].nunique().max() if len(ok) else 0
    names = {(k, b): workload_name(k, b, sizes) for k, b in zip(ok[KERNEL], ok[BYTES])}
    wanted = {names[k, b] for k, b, n in zip(ok[KERNEL], ok[BYTES], ok[network]) if n == reference}
    rows = []
    for net, mine in ok.groupby(network, sort=False):
        times = {names[k, b]: t for k, b, t in zip(mine[KERNEL], mine[BYTES], mine["normalized"])}
        complete = wanted and wanted <= times.keys()
        value = phi({w: times[w] for w in wanted}, weights) if complete else float("nan")
        rows.append({network: net, "workloads": len(wanted), "phi": value})
    return pandas.DataFrame(rows, columns=[network, "workloads", "phi"])


def with_costs(perf: pd.DataFrame, reference: str, costs: Mapping[str, Mapping[str, float]],
               network: str = "topology") -> pd.DataFrame:  # fmt: skip
    """``perf`` plus, per cost function, the cost and φ/c normalized to the reference network.

    ``costs`` maps a network to its ``Topology.describe()`` (or any mapping with the cost keys).
    """
    out = perf.copy()
    ref = out[out[network] == reference]
    phi_ref = float(ref["phi"].iloc[0]) if len(ref) else float("nan")
    for name, key in COSTS.items():
        c_ref = float(costs[reference][key]) if reference in costs else float("nan")
        out[name] = [float(costs[n][key]) for n in out[network]]
        out[f"phi/{name}"] = [cost_efficiency(p, c, phi_ref, c_ref) for p, c in zip(out["phi"], out[name])]
    return out
