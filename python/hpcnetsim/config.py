"""Simulation configs: read from TOML files or Python dicts, changed by dotted overrides.

The schema (tables ``switch``, ``routing``, ``traffic``, ``measurement``) is documented in
``docs/config.md``; the core validates every value, so errors name the offending field.
"""

from __future__ import annotations

import copy
import json
import operator
import os
import re
from contextlib import contextmanager
from decimal import Decimal

from . import _core
from ._core import ConfigError

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def as_integer(v) -> int | None:
    """``v`` as an int when it is an integer, NumPy's included, else None: a bool or a
    whole-valued float (2.0) is not a rank, a size or a count."""
    if isinstance(v, bool):
        return None
    try:
        return operator.index(v)
    except TypeError:
        return None


def load_config(source: str | os.PathLike | dict) -> dict[str, Any]:
    """A config as a plain dict: a TOML file is parsed and normalised (the files it names, a
    fabric topology's, ``routing.tables`` and ``workload.trace``, are relative to the file's
    folder, so that a config and its inputs move together and the same file runs alike from
    Python and the command line, whatever the working directory), a dict is deep-copied."""
    if isinstance(source, dict):
        return _plain_paths(copy.deepcopy(source))
    if not isinstance(source, (str, os.PathLike)):
        raise ConfigError(f"config = {source!r} is invalid: a path to a TOML file or a dict")
    path = os.fspath(source)
    text = _read_config(path)
    try:
        return json.loads(_core.config_from_toml(text, os.path.dirname(path)))
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def _read_config(path: str) -> str:
    """The text of the config file ``path``; a file that cannot be read is a one-line
    :class:`ConfigError` naming it."""
    from ._files import read_text_file

    return read_text_file(path, "a TOML config (docs/config.md)")


def _plain_paths(value: Any) -> Any:
    """``value`` with every path object (``pathlib.Path``: a trace, tables) as the string it
    names, as a TOML file writes it."""
    if isinstance(value, dict):
        return {k: _plain_paths(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_paths(v) for v in value]
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _files_from(layer: dict[str, Any], resolved: dict[str, Any]) -> dict[str, Any]:
    """``layer`` (a config file as written) with the file names it writes (a fabric topology's
    files, ``routing.tables``, ``workload.trace``) as the core read them, relative to the file's
    folder (``resolved``: the core's reading of the same file)."""
    if isinstance(layer.get("topology"), str):
        layer["topology"] = resolved["topology"]
    for table, key in (("workload", "trace"), ("routing", "tables")):
        section = layer.get(table)
        if isinstance(section, dict) and key in section:
            section[key] = resolved[table][key]
    return layer


@contextmanager
def naming_file(source: str | os.PathLike | dict):
    """Config errors that only running finds (a kernel's task count, its virtual mesh, a trace's
    ranks) name the file ``source`` too, as those found while reading it do; a dict has none."""
    try:
        yield
    except ConfigError as e:
        if isinstance(source, (str, os.PathLike)) and str(e).startswith("config: "):
            raise ConfigError(f"{os.fspath(source)}: {e}") from None
        raise


def load_layer(path: str | os.PathLike, overrides: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """A TOML config file as written (the user's layer: no preset or default filled in),
    checked by the core so that a bad file fails here with one line naming it. Overrides go
    on this layer, and the core resolves the layers (defaults, switch preset, technology,
    config) when it reads the result: a ``technology`` or ``switch.preset`` override then
    fills in the fields the file leaves out, like a value written in the file. The files it
    names are relative to the file, as in :func:`load_config`. A file refused alone is
    accepted when the ``overrides`` that will go on it complete it (``switch.vcs=4`` beside a
    routing that needs 4 VCs where the file gives 3); otherwise the error is that of the
    file with the overrides, the config that would run."""
    import tomllib

    path = os.fspath(path)
    text = _read_config(path)
    folder = os.path.dirname(path)
    try:
        resolved = json.loads(_core.config_from_toml(text, folder))
    except ConfigError as e:
        refused = ConfigError(f"{path}: {e}")
        if not overrides:
            raise refused from None
        try:
            layer = _files_relative(tomllib.loads(text), folder)
        except tomllib.TOMLDecodeError:
            raise refused from None
        try:
            resolve(apply_overrides(layer, list(overrides)))
        except ConfigError as with_overrides:  # the config that would run, overrides included
            raise ConfigError(f"{path}: {with_overrides}") from None
        return layer
    return _files_from(tomllib.loads(text), resolved)


def _files_relative(layer: dict[str, Any], folder: str) -> dict[str, Any]:
    """``layer`` with the file names it writes relative to ``folder``, as the core reads them
    (:func:`_files_from` when the core cannot read the file alone)."""

    def relative(name):
        return name if not isinstance(name, str) or not name or os.path.isabs(name) else os.path.join(folder, name)

    if isinstance(layer.get("topology"), str):
        layer["topology"] = _core.spec_relative_to(layer["topology"], folder)
    for table, key in (("workload", "trace"), ("routing", "tables")):
        section = layer.get(table)
        if isinstance(section, dict) and key in section:
            section[key] = relative(section[key])
    return layer


def resolve(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` (as written, after overrides) with its presets and defaults filled in and
    every value checked, as the core reads it."""
    return json.loads(_core.config_from_json(to_json(config)))


def sources(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Every field of the resolved ``config`` (a config as written, after overrides) with its
    value and where it comes from: ``config``, ``technology NAME``, ``switch preset NAME``,
    ``[link] clock`` or ``default``. Each ``[[workload.jobs]]`` entry is listed field by field
    (``workload.jobs[1].tasks``, the path ``--set`` takes); beside jobs the top level of
    ``[workload]`` keeps only ``stall_cycles``, so its other fields, which no job reads, are
    left out."""
    rows = json.loads(_core.config_sources(to_json(config)))
    # Fields a job does not read: the run's stall limit and packet sizes, and the trace's.
    not_in_jobs = {"stall_cycles", "packet_cells_min", "packet_cells_max", "trace", "format", "cpu_factor",
                   "cycle_ns", "flops_per_second"}  # fmt: skip
    out: list[dict[str, Any]] = []
    for row in rows:
        value = row["value"]
        if row["field"] == "workload.jobs" and isinstance(value, list) and value:
            written = (config.get("workload") or {}).get("jobs") or []
            for i, job in enumerate(value):
                given = written[i] if i < len(written) and isinstance(written[i], dict) else {}
                for key in sorted(set(job) - not_in_jobs):
                    source = "config" if key in given else "default"
                    out.append({"field": f"workload.jobs[{i}].{key}", "value": job[key], "source": source})
            continue
        out.append(row)
    if any(r["field"].startswith("workload.jobs[") for r in out):
        keep = ("workload.stall_cycles",)
        out = [r for r in out if not r["field"].startswith("workload.") or r["field"] in keep
               or r["field"].startswith("workload.jobs[")]  # fmt: skip
    return out


def parse_value(text: str) -> Any:
    """A TOML scalar or array (``4``, ``0.5``, ``true``, ``"dor"``, ``[1, 2]``), or a number TOML
    spells with a digit on both sides of the point (``.5``, ``5.``); anything else is a string."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?", text.strip()):
            return float(text)
        return text


def apply_overrides(config: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """A copy of ``config`` with every ``path.to.key=value`` override applied in order."""
    if not isinstance(config, dict):
        raise ConfigError(f"config = {config!r} is invalid: a dict (hpcnetsim.load_config reads a TOML file)")
    # One string is not a list of one-character overrides.
    if isinstance(overrides, (str, bytes)):
        allowed = "a list of PATH=VALUE strings such as ['switch.vcs=4']"
        raise ConfigError(f"overrides = {overrides!r} is invalid: {allowed}")
    config = copy.deepcopy(config)
    for item in overrides:
        key, sep, value = item.partition("=")
        parts = key.strip().split(".")
        if not sep or not all(p.strip() for p in parts):
            raise ConfigError(f"override '{item}' is invalid: PATH=VALUE such as switch.vcs=4")
        table = config
        for i, part in enumerate(parts[:-1]):
            where = ".".join(p.strip() for p in parts[: i + 1])
            name, index = _indexed(part.strip())
            if index is None:
                table = table.setdefault(name, {})
            else:
                # An entry of an array of tables ([[workload.jobs]]): workload.jobs[1].tasks=8.
                entries = table.get(name)
                if not isinstance(entries, list) or index >= len(entries):
                    count = len(entries) if isinstance(entries, list) else 0
                    have = f"an index in 0..{count - 1}" if count else "none: the config has no such entries"
                    array = where[: where.rindex("[")]
                    raise ConfigError(f"override '{item}' is invalid: index {index} of {array}; allowed: {have}")
                table = entries[index]
            if not isinstance(table, dict):
                raise ConfigError(f"override '{item}' is invalid: {where} is not a table")
        if _indexed(parts[-1].strip())[1] is not None:
            raise ConfigError(f"override '{item}' is invalid: an entry is a table; set one of its fields ({key}.tasks=8)")
        if [p.strip() for p in parts] == ["switch", "preset"]:
            _forget_preset(table)
        table[parts[-1].strip()] = parse_value(value.strip())
    return config


def _indexed(part: str) -> tuple[str, int | None]:
    """``jobs[1]`` as (``jobs``, 1); a plain name with no index."""
    m = re.fullmatch(r"(.+)\[(\d+)\]", part)
    return (m.group(1), int(m.group(2))) if m else (part, None)


def _preset_fields(name: Any) -> dict[str, Any]:
    """The ``[switch]`` fields that preset ``name`` fills in (empty for an unknown preset: the
    core names the bad value when the config is checked)."""
    try:
        text = f'topology = "crossbar:2"\n[switch]\npreset = {json.dumps(name)}\n'
        return json.loads(_core.config_from_toml(text))["switch"]
    except (ConfigError, TypeError):
        return {}


def _forget_preset(switch: dict[str, Any]) -> None:
    """Drops the fields of a ``[switch]`` table that only repeat its preset's values, so that a
    new preset fills them in (a config read from a file carries every field explicitly)."""
    old = _preset_fields(switch.get("preset", "insee"))
    for key in [k for k, v in switch.items() if k != "preset" and old.get(k) == v]:
        del switch[key]


def to_json(config: dict[str, Any]) -> str:
    """The config as the JSON text the core reads (numpy scalars and arrays become plain values)."""

    def plain(value):
        if hasattr(value, "tolist"):
            return value.tolist()
        if isinstance(value, Decimal):
            return _decimal_number(value)
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        if isinstance(value, (tuple, set)):
            return list(value)
        raise TypeError(f"{value!r} is not a number, string, boolean, list or table")

    _check_finite(config, "")
    try:
        return json.dumps(config, default=plain)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"config is invalid: {e}") from None


def _decimal_number(value: Decimal) -> int | float:
    """A ``decimal.Decimal`` (``Decimal("0.3")``, a load read exactly) as the number it writes:
    an integer when written without a fraction or exponent (``Decimal("4")``: a count), else a
    float, as TOML would read the same text."""
    return int(value) if value.as_tuple().exponent == 0 else float(value)


def _check_finite(value: Any, path: str) -> None:
    """NaN and infinities (``--set traffic.load=nan``) have no JSON form: refused by name here
    rather than as the parser's "expected value"; so are integers beyond 64 bits."""
    import math

    plain = (str, int, float, bool, type(None), dict, list, tuple, set, os.PathLike, Decimal)
    if not isinstance(value, plain) and not hasattr(value, "tolist"):  # numpy values are plain
        raise ConfigError(f"config: {path} = {value!r} is invalid: a number, string, boolean, list or table")
    if isinstance(value, Decimal) and not value.is_finite():
        raise ConfigError(f"config: {path} = {value} is invalid: a finite number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"config: {path} = {value} is invalid: a finite number")
    # The core's JSON reader takes integers beyond 64 bits as floats, and named them so.
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        raise ConfigError(f"config: {path} = {value} is invalid: an integer of at most 64 bits")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, (list, tuple)):  # a tuple is written as a list
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")
