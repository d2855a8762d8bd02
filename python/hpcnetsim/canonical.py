"""Canonical configs: every field filled in by the core, and the hash that keys results in the store."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from typing import Any

from . import _core
from ._core import ConfigError, __version__


def to_toml(config: dict[str, Any]) -> str:
    """A config dict (top-level fields and one level of tables) as TOML text the core can read."""
    top = [f"{_key(k)} = {_value(v, k)}" for k, v in config.items() if not isinstance(v, dict)]
    lines = list(top)
    for name, table in config.items():
        if isinstance(table, dict):
            lines.append(f"[{_key(name)}]")
            for k, v in table.items():
                if isinstance(v, dict):
                    raise ConfigError(f"{name}.{k} = {v!r} is invalid: a value, not a table")
                lines.append(f"{_key(k)} = {_value(v, f'{name}.{k}')}")
    return "\n".join(lines) + "\n"


def _key(name: str) -> str:
    """A TOML key: bare when TOML allows it (``vcs``), quoted otherwise."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def _value(v: Any, path: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, path) for x in v) + "]"
    if hasattr(v, "item"):  # numpy scalars
        return _value(v.item(), path)
    raise ConfigError(f"{path} = {v!r} is invalid: a number, string, boolean or list")


def shown(v: Any) -> str:
    """A value as TOML writes it (``true``, ``"3"``, ``[1, 2]``, ``{a = 1}``), for messages about
    what a TOML file gave: Python's spelling (``True``, ``'3'``) is not what the user wrote."""
    if v is None:
        return "(missing)"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(str(k))} = {shown(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(shown(x) for x in v) + "]"
    try:
        return _value(v, "")
    except ConfigError:
        return str(v)


def canonical_config(config: dict[str, Any], folder: str | None = None) -> dict[str, Any]:
    """The config with every default filled in and every value validated by the core; with
    ``folder``, the file names it writes (a fabric topology's files, ``routing.tables``,
    ``workload.trace``) are read relative to that folder, as a config file's are to its own."""
    return json.loads(_core.config_from_toml(to_toml(config), folder))


@functools.cache
def default_config() -> dict[str, Any]:
    """The complete default config (with a placeholder topology): the set of valid paths and types."""
    return json.loads(_core.config_from_toml('topology = "crossbar:2"'))


@functools.cache
def settable_config() -> dict[str, Any]:
    """The default config plus a default ``workload`` table, ``model``, ``[flow]`` and the table
    routing fields: every path an experiment may set."""
    config = json.loads(_core.config_from_toml('topology = "crossbar:2"\n[workload]\n'))
    config.update(json.loads(_core.flow_defaults()))
    # Table routing's fields are left out of configs that do not use them.
    config["routing"].update(
        {"engine": "dfsssp", "lmc": 0, "address": "round-robin", "tables": "", "layering": "placement"}
    )
    # So are the default [link] and [nic] tables and the technology (docs/physical.md).
    physical = json.loads(_core.config_from_toml('topology = "crossbar:2"\n[nic]\nenabled = true\n[link]\ncycle = "1 ns"\n'))
    config["link"] = {**physical["link"], "cycle": ""}
    config["nic"] = {**physical["nic"], "enabled": False}
    config["technology"] = ""
    # Switch fields left out of configs while they keep their defaults.
    config["switch"].update({"buffers": "fifo", "switching": "cut-through", "credit_unit": "phit", "traffic_classes": 1})
    # And a kernel's virtual mesh while it is square (or cubic), and the Zipf ranks' order
    # while it is by terminal index.
    config["workload"]["mesh"] = []
    # A trace is left out of a workload without one.
    config["workload"]["trace"] = ""
    config["traffic"]["zipf_ranks"] = "index"
    return config


def config_key(
    config: dict[str, Any], version: str = __version__, build: str | None = None, inputs: str | None = None
) -> str:
    """SHA-256 of the canonical config, the hpcnetsim version and the build identity (a hash of
    the compiled core's sources): the point's key in the store, so that results of another
    build are never taken for this one's. ``inputs``: a digest of the content of the files the
    config reads (a fabric, forwarding tables, a trace), whose names alone the config holds."""
    doc = {"config": canonical_config(config), "hpcnetsim": version, "build": build or _core.BUILD_ID}
    if inputs is not None:  # absent otherwise: the keys of points that read no file stay as they were
        doc["inputs"] = inputs
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()
