"""Physical units of results: every network has a clock (cycle time) and a phit size, so
cycles become ns/µs and phits become bytes, MB/s and GB/s (docs/units.md).

Results keep their cycle and phit fields; :func:`add_physical` adds columns with the unit in
the name (``execution_time_us``, ``latency_network_mean_ns``, ``accepted_mb_s_per_node``), and
with a known host bandwidth (``link.host_bandwidth``) ``offered_pct_host``/``accepted_pct_host``.
"""

from __future__ import annotations

import json

from . import _core

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Units of the physical result columns (shown beside the cycle ones in tables).
PHYSICAL_UNITS = {
    "cycle_ns": "ns", "link_bandwidth_mb_s": "MB/s", "execution_time_us": "µs",
    "message_latency_mean_us": "µs", "latency_network_mean_ns": "ns", "latency_network_p99_ns": "ns",
    "offered_mb_s_per_node": "MB/s", "accepted_mb_s_per_node": "MB/s", "host_bandwidth_mb_s": "MB/s",
    "offered_pct_host": "% of host bandwidth", "accepted_pct_host": "% of host bandwidth",
}  # fmt: skip


def physical(config_json: str) -> dict[str, Any]:
    """The clock and NIC figures of a config (``cycle_ns``, ``phit_bytes``, ``link_bytes_per_s``,
    ``nic_bytes_per_s``, overheads)."""
    return json.loads(_core.physical(config_json))


def add_physical(data: dict[str, Any], clock: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a result dict) with physical columns added from ``clock`` (see :func:`physical`)."""
    ns, phit = clock["cycle_ns"], clock["phit_bytes"]
    data["cycle_ns"] = ns
    data["link_bandwidth_mb_s"] = clock["link_bytes_per_s"] / 1e6
    t = data.get("execution_time_cycles")
    if t is not None:
        data["execution_time_us"] = t * ns / 1e3
    m = data.get("message_latency")
    if isinstance(m, dict) and m.get("count"):
        data["message_latency_mean_us"] = m["mean"] * ns / 1e3
    net = (data.get("latency") or {}).get("network") if isinstance(data.get("latency"), dict) else None
    if isinstance(net, dict) and net.get("count"):
        data["latency_network_mean_ns"] = net["mean"] * ns
        data["latency_network_p99_ns"] = net["p99"] * ns
    # phits/cycle/node × bytes/phit ÷ ns/cycle = GB/s per node; × 1000 for MB/s.
    for load, column in (("offered_load", "offered_mb_s_per_node"), ("accepted_load", "accepted_mb_s_per_node")):
        if isinstance(data.get(load), (int, float)):
            data[column] = data[load] * phit / ns * 1e3
    # Paper 003's normalized rates: loads as percentages of the host interface's bandwidth.
    host = clock.get("host_bytes_per_s")
    if host:
        data["host_bandwidth_mb_s"] = host / 1e6
        for load, column in (("offered_load", "offered_pct_host"), ("accepted_load", "accepted_pct_host")):
            if isinstance(data.get(load), (int, float)):
                data[column] = load_to_pct_host(data[load], clock)
    return data


def load_to_pct_host(load: float, clock: dict[str, Any]) -> float:
    """A load in phits/cycle/node as a percentage of the host bandwidth (``clock["host_bytes_per_s"]``)."""
    return load * clock["phit_bytes"] / (clock["cycle_ns"] * 1e-9) / clock["host_bytes_per_s"] * 100


def pct_host_to_load(pct: float, clock: dict[str, Any]) -> float:
    """A percentage of the host bandwidth as a load in phits/cycle/node (:func:`load_to_pct_host` inverted)."""
    return pct / 100 * clock["host_bytes_per_s"] * (clock["cycle_ns"] * 1e-9) / clock["phit_bytes"]


def with_physical(result_json: str, config_json: str) -> str:
    """A result JSON text with the physical columns of its config added."""
    return json.dumps(add_physical(json.loads(result_json), physical(config_json)))


def format_time(ns: float) -> str:
    """A time with a readable unit: ns, µs, ms or s."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def format_rate(bytes_per_s: float) -> str:
    """A bandwidth with a readable unit: MB/s or GB/s."""
    return f"{bytes_per_s / 1e9:.4g} GB/s" if bytes_per_s >= 1e9 else f"{bytes_per_s / 1e6:.4g} MB/s"


def format_size(nbytes: float) -> str:
    """A size with a binary unit: B, KiB or MiB."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes:g} B"
