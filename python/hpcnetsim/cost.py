"""Price, power and cabling of a topology from its physical layout and a cost table.

The table (``hpcnetsim/cost_table.toml``, every default with its source) gives the rack
layout, the reach of electrical cables, and the price and power of switch ports, cables and
transceivers. A user file overrides it key by key. Cables up to ``electrical_reach_m`` are
electrical (passive copper), longer ones optical; endpoint cables are counted like the others.
"""

from __future__ import annotations

import math
import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from . import _core
from .canonical import shown
from .layout import place

#: Upper edges (m) of the cable-length buckets of ``cables_by_length``; the last is open.
LENGTH_BUCKETS = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100)

#: Keys ``cost`` adds to ``topo describe``, in print order.
COST_KEYS = (
    "racks",
    "cables_electrical",
    "cables_optical",
    "cable_m_electrical",
    "cable_m_optical",
    "cables_by_length",
    "cost_usd",
    "cost_switches_usd",
    "cost_cables_usd",
    "power_w",
    "cost_per_endpoint_usd",
    "power_per_endpoint_w",
)

#: Fields a table may set: section -> key -> (kind, lower bound, lower bound included).
_FIELDS: dict[str, dict[str, tuple[str, float | None, bool]]] = {
    "layout": {
        "rack_units": ("int", 1, True),
        "unit_height_m": ("float", 0, False),
        "switch_units": ("int", 1, True),
        "node_units": ("int", 0, True),
        "switches_per_rack": ("int", 0, True),
        "rack_width_m": ("float", 0, True),
        "row_pitch_m": ("float", 0, True),
        "racks_per_row": ("int", 1, True),
        "slack_m": ("float", 0, True),
        "tray_height_m": ("float", 0, True),
    },
    "cables": {"electrical_reach_m": ("float", 0, True)},
    # A linear fit may have a negative intercept (Besta and Hoefler's router price does).
    "switch": {
        "fixed_usd": ("float", None, True),
        "per_port_usd": ("float", 0, True),
        "fixed_w": ("float", 0, True),
        "per_port_w": ("float", 0, True),
    },
    "electrical": {
        "fixed_usd": ("float", None, True),
        "per_m_usd": ("float", 0, True),
        "power_w": ("float", 0, True),
    },
    "optical": {
        "fixed_usd": ("float", None, True),
        "per_m_usd": ("float", 0, True),
        "power_w": ("float", 0, True),
    },
    "transceiver": {"usd": ("float", 0, True), "power_w": ("float", 0, True)},
}


def default_table() -> dict[str, dict[str, Any]]:
    """The shipped table, ``hpcnetsim/cost_table.toml``."""
    text = resources.files("hpcnetsim").joinpath("cost_table.toml").read_text()
    return tomllib.loads(text)


def _err(msg: str) -> _core.ConfigError:
    return _core.ConfigError(f"cost table: {msg}")


def _check(section: str, key: str, value: Any) -> float | int:
    kind, low, inclusive = _FIELDS[section][key]
    name = f"{section}.{key}"
    if kind == "int":
        allowed = f"an integer ≥ {low}"
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise _err(f"{name} = {shown(value)} is invalid: {allowed}")
        return value
    bound = "" if low is None else (f" ≥ {low}" if inclusive else f" > {low}")
    allowed = f"a finite number{bound}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _err(f"{name} = {shown(value)} is invalid: {allowed}")
    if low is not None and (value < low or (not inclusive and value == low)):
        raise _err(f"{name} = {shown(value)} is invalid: {allowed}")
    return float(value)


def load_table(overrides: dict | str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The default table with ``overrides`` applied key by key and every value checked.

    ``overrides`` is a dict of sections, or the path of a TOML file whose sections sit at
    the top level or under ``[cost]``. Raises :class:`hpcnetsim.ConfigError` naming the field."""
    if isinstance(overrides, (str, os.PathLike)):
        from ._files import read_text_file

        path = Path(overrides)
        try:
            overrides = tomllib.loads(read_text_file(path, "a TOML cost table (docs/cost.md)"))
        except tomllib.TOMLDecodeError as e:
            raise _err(f"{path}: {e}") from None
    if overrides is not None and not isinstance(overrides, dict):
        raise _err(f"table = {shown(overrides)} is invalid: a dict of sections or the path of a TOML file")
    user = dict(overrides or {})
    if "cost" in user and isinstance(user["cost"], dict):
        # Sections beside [cost] would be dropped without a word: a file keeps them all
        # in one place.
        beside = next((s for s in user if s != "cost"), None)
        if beside is not None:
            raise _err(f"[{beside}] beside [cost] is invalid: every section under [cost], or none")
        user = dict(user["cost"])
    table = default_table()
    for section, values in user.items():
        if section not in _FIELDS:
            raise _err(f"[{section}] is not a section: one of {', '.join(_FIELDS)}")
        if not isinstance(values, dict):
            raise _err(f"{section} = {shown(values)} is invalid: a table of {', '.join(_FIELDS[section])}")
        for key, value in values.items():
            if key not in _FIELDS[section]:
                raise _err(f"{section}.{key} is not a field: one of {', '.join(_FIELDS[section])}")
            table[section][key] = value
    for section, fields in _FIELDS.items():
        for key in fields:
            table[section][key] = _check(section, key, table[section][key])
    return table


def _buckets(lengths: np.ndarray) -> dict[str, int]:
    edges = np.array(LENGTH_BUCKETS, dtype=float)
    idx = np.searchsorted(edges, lengths, side="left")
    counts = np.bincount(idx, minlength=len(edges) + 1)
    names = [f"<={e}m" for e in LENGTH_BUCKETS] + [f">{LENGTH_BUCKETS[-1]}m"]
    return {n: int(c) for n, c in zip(names, counts) if c}


def cost(topology, table: dict | str | Path | None = None) -> dict[str, Any]:
    """Racks, cables by type and length bucket, price and power of ``topology``.

    ``table`` is a table from :func:`load_table`, or overrides for it."""
    # Checked every time, even with every section present: overrides may name all six
    # sections with a few keys each, and an edited copy of the defaults may hold a bad value.
    table = load_table(table)
    lay = place(topology, {**table["layout"], **table["cables"]})
    lengths = np.concatenate([lay.link_m, lay.terminal_m])
    optical = lengths > table["cables"]["electrical_reach_m"]
    el, op = lengths[~optical], lengths[optical]
    e, o, x, sw = table["electrical"], table["optical"], table["transceiver"], table["switch"]
    # The tables' prices are linear fits with negative intercepts (Besta and Hoefler's router
    # price is 350.4 $ per port - 892.3 $): below the sizes they were fitted on they would price
    # a small switch or a short cable below nothing, so no item costs less than zero.
    cable_usd = (
        np.maximum(e["fixed_usd"] + e["per_m_usd"] * el, 0.0).sum()
        + np.maximum(o["fixed_usd"] + o["per_m_usd"] * op, 0.0).sum()
        + len(op) * 2 * x["usd"]
    )
    radix = np.array([len(topology.ports(s)) for s in range(topology.num_switches)], dtype=float)
    ports = int(radix.sum())
    switches = topology.num_switches
    switch_usd = np.maximum(sw["fixed_usd"] + sw["per_port_usd"] * radix, 0.0).sum()
    power = (
        switches * sw["fixed_w"]
        + ports * sw["per_port_w"]
        + len(el) * e["power_w"]
        + len(op) * (o["power_w"] + 2 * x["power_w"])
    )
    total = switch_usd + cable_usd
    endpoints = max(topology.num_endpoints, 1)
    return {
        "racks": lay.racks,
        "cables_electrical": int(len(el)),
        "cables_optical": int(len(op)),
        "cable_m_electrical": float(el.sum()),
        "cable_m_optical": float(op.sum()),
        "cables_by_length": {"electrical": _buckets(el), "optical": _buckets(op)},
        "cost_usd": float(total),
        "cost_switches_usd": float(switch_usd),
        "cost_cables_usd": float(cable_usd),
        "power_w": float(power),
        "cost_per_endpoint_usd": float(total / endpoints),
        "power_per_endpoint_w": float(power / endpoints),
    }
