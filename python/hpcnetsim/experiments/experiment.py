"""Experiment files: a base config plus sweep axes, expanded into canonical points (docs/experiments.md)."""

from __future__ import annotations

import copy
import difflib
import itertools
import math
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _core
from .._core import ConfigError
from ..canonical import canonical_config, config_key, settable_config, shown
from ..confidence import check_repetitions, repetition_seeds
from ..expressions import evaluate, is_expression

TOP_KEYS = ("name", "title", "description", "base", "sweep", "quick", "report", "repetitions")
SWEEP_KEYS = ("name", "axes", "points")
QUICK_KEYS = ("base", "sweeps", "repetitions")
#: Config paths holding a size in bytes, which may also be written with a unit.
SIZE_PATHS = ("workload.message_bytes", "workload.segment_bytes", "nic.max_payload", "nic.packet_overhead",
              "nic.rendezvous_threshold")  # fmt: skip
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass
class Point:
    """One simulation of an experiment: its group, its axis values, its canonical config and key."""

    index: int
    group: str
    values: dict[str, Any]
    config: dict[str, Any]
    key: str
    #: Key of the point's first repetition: the repetitions of one point share it.
    family: str = ""
    #: Which repetition this is (0: the point's own seed; others derive from it).
    repetition: int = 0


@dataclass
class Experiment:
    """A parsed experiment file (quick variant applied if asked) and its points."""

    name: str
    title: str
    description: str
    quick: bool
    base: dict[str, Any]
    points: list[Point]
    report: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    #: Runs of every point, with seeds derived from the point's seed (docs/experiments.md).
    repetitions: int = 1


def _type_name(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}[type(v)]


def valid_paths() -> dict[str, Any]:
    """Every settable dotted config path → its default value."""
    out = {}
    for k, v in settable_config().items():
        if isinstance(v, dict):
            out.update({f"{k}.{f}": d for f, d in v.items()})
        else:
            out[k] = v
    return out


def _check_path(path: str, where: str) -> None:
    paths = valid_paths()
    if path not in paths:
        near = difflib.get_close_matches(path, paths, n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise ConfigError(f"{where}: unknown axis or field '{path}'{hint}: a config path such as switch.vcs or "
                          f"traffic.load (docs/config.md), or an axis name whose values are tables of them")  # fmt: skip


def _check_value(path: str, value: Any, where: str) -> None:
    default = valid_paths()[path]
    if is_expression(value) and isinstance(default, (int, float)) and not isinstance(default, bool):
        return
    if is_expression(value):
        # Expressions give numbers: in another field the core would refuse the number, not name
        # the expression.
        raise ConfigError(f"{where} = {shown(value)} is invalid: {_type_name(default)}, as {path} in docs/config.md "
                          f"(expressions, '=...', are for numeric fields)")  # fmt: skip
    ok = type(value) is type(default) or (type(default) is float and type(value) is int)
    # Sizes may be written with a unit ("16 KiB", docs/config.md).
    ok = ok or (path in SIZE_PATHS and isinstance(value, str))
    if not ok:
        raise ConfigError(
            f"{where} = {shown(value)} is invalid: {_type_name(default)}, as {path} in docs/config.md"
        )


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"switch": {"vcs": 2}}`` and ``{"switch.vcs": 2}`` both → ``{"switch.vcs": 2}``."""
    out = {}
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, path + "."))
        else:
            out[path] = v
    return out


def _settings(table: Any, prefix: str, where: str) -> dict[str, Any]:
    """A table of config settings (a list entry or a table-valued axis value), checked path by path."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where} = {shown(table)} is invalid: a table of config paths and values")
    flat = _flatten({k: v for k, v in table.items() if k != "label"}, prefix)
    for path, v in flat.items():
        _check_path(path, f"{where}.{path}")
        _check_value(path, v, f"{where}.{path}")
    return flat


def _axes(axes: Any, where: Callable[[str], str]) -> list[tuple[str, list[dict[str, Any]], list[Any]]]:
    """Each axis as (name, list of settings, list of labels); a grid is their cartesian product.
    ``where(field)`` names the file, the line that sets ``field`` and the group."""
    if not isinstance(axes, dict):
        raise ConfigError(f"{where('axes')}.axes = {shown(axes)} is invalid: a table of axes")
    out = []
    for name, values in _axis_lists(axes, ""):
        w = f"{where(name)}.axes.{name}"
        if not isinstance(values, list):
            raise ConfigError(f"{w} = {shown(values)} is invalid: a non-empty list of values")
        if not values:
            raise ConfigError(f"{w} = [] is invalid: a non-empty list of values")
        tables = [isinstance(v, dict) for v in values]
        if any(tables) and not all(tables):
            odd = tables.index(not tables[0])
            kind = "a table of fields" if tables[0] else "a plain value"
            raise ConfigError(f"{w}[{odd}] = {shown(values[odd])} is invalid: {kind}, as [0] is (an axis's values are "
                              f"all tables or all plain values)")  # fmt: skip
        if all(tables):
            prefix = (
                f"{name}." if name in settable_config() and isinstance(settable_config()[name], dict) else ""
            )
            settings = [_settings(v, prefix, f"{w}[{i}]") for i, v in enumerate(values)]
            labels = [
                v.get("label", " ".join(f"{k}={x}" for k, x in s.items())) for v, s in zip(values, settings)
            ]
        else:
            _check_path(name, w)
            for i, v in enumerate(values):
                _check_value(name, v, f"{w}[{i}]")
            settings, labels = [{name: v} for v in values], list(values)
        out.append((name, settings, labels))
    return out


def _axis_lists(table: dict[str, Any], prefix: str):
    """(dotted name, value) for every axis; bare dotted TOML keys arrive as nested tables."""
    for k, v in table.items():
        if isinstance(v, dict) and f"{prefix}{k}" not in valid_paths():
            yield from _axis_lists(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def _unknown(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for k in table:
        if k not in allowed:
            raise ConfigError(f"{where}: unknown key '{k}': allowed keys are {', '.join(allowed)}")


def _set(config: dict[str, Any], path: str, value: Any) -> None:
    *tables, leaf = path.split(".")
    for t in tables:
        config = config.setdefault(t, {})
    config[leaf] = value


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for path, v in _flatten(extra).items():
        _set(out, path, v)
    return out


def _group_points(group: dict[str, Any], where: str,
                  line: Callable[[str], str]) -> list[tuple[dict[str, Any], dict[str, Any]]]:  # fmt: skip
    """(settings, axis values) of every point of one sweep group: explicit list × grid.
    ``where`` names the file, the group's line and the group; ``line(field)`` the same with
    the line that sets ``field``, for the errors of one setting."""
    _unknown(group, SWEEP_KEYS, where)
    if "axes" not in group and "points" not in group:
        raise ConfigError(f"{where}: no 'axes' and no 'points': a grid of axes, a list of points, or both")
    listed = group.get("points", [{}])
    if not isinstance(listed, list) or not listed:
        raise ConfigError(f"{where}.points = {shown(listed)} is invalid: a non-empty list of tables")
    entries = [(_settings(p, "", f"{line('points')}.points[{i}]"), {"point": p.get("label", i)} if "points" in group
                else {}) for i, p in enumerate(listed)]  # fmt: skip
    axes = _axes(group.get("axes", {}), line)
    _check_overlap(axes, [s for s, _ in entries] if "points" in group else [], line)
    out = []
    for settings, values in entries:
        for combo in itertools.product(*(range(len(s)) for _, s, _ in axes)):
            merged, vals = dict(settings), dict(values)
            for (name, s, labels), i in zip(axes, combo):
                merged.update(s[i])
                vals[name] = labels[i]
            out.append((merged, vals))
    return out


def _check_overlap(axes: list, listed: list[dict[str, Any]], where: Callable[[str], str]) -> None:
    """Refuses two axes of a group, or an axis and a listed point, that set the same field:
    the later value would replace the earlier in every point, and the points the earlier
    values name would silently never run."""
    owner: dict[str, str] = {f: "points" for settings in listed for f in settings}
    for name, settings, _ in axes:
        mine = {f for s in settings for f in s}
        for f in sorted(mine):
            if f in owner:
                first = "a listed point" if owner[f] == "points" else f"axis {owner[f]}"
                raise ConfigError(f"{where(name)}.axes.{name} is invalid: it sets {f}, which {first} sets too, so "
                                  f"one value would replace the other in every point: each field on one axis "
                                  f"or in the points of a group")  # fmt: skip
        owner.update((f, name) for f in mine)


def _resolve(settings: dict[str, Any], base: dict[str, Any], where: Callable[[str], str],
             folder: str | None) -> dict[str, Any]:  # fmt: skip
    """The point's full config: base, then its settings, then its expressions (the base's
    that its settings leave, and its own) evaluated. ``where(path)`` names the file, the line
    of ``path``'s setting and the sweep group; file names are relative to ``folder`` (the
    experiment file's)."""
    config = _merge(base, {k: v for k, v in settings.items() if not is_expression(v)})
    if "topology" not in config:
        raise ConfigError(f"{where('topology')}: topology = missing: set it in [base] or as an axis")
    # Expressions build the network: a fabric file must be found from the folder too (the
    # config keeps the name as written; the core joins it once when it completes the config).
    network = config["topology"]
    if folder is not None and isinstance(network, str):
        network = _core.spec_relative_to(network, folder)
    paths = valid_paths()
    numeric = {k for k, d in paths.items() if isinstance(d, (int, float)) and not isinstance(d, bool)}
    expressions = {k: v for k, v in _flatten(base).items() if k not in settings and k in numeric and is_expression(v)}
    expressions.update((k, v) for k, v in settings.items() if is_expression(v))
    for path, v in expressions.items():
        value = evaluate(v, network, f"{where(path)}.{path}")
        if isinstance(paths[path], int) and value != int(value):
            raise ConfigError(f"{where(path)}.{path} = {shown(v)} gives {value}: an integer is required")
        _set(config, path, int(value) if isinstance(paths[path], int) else float(value))
    try:
        return canonical_config(config, folder)
    except ConfigError as e:
        message, field = _core_message(str(e), config)
        raise ConfigError(f"{where(field)}: {message}") from None


def _core_message(message: str, config: dict[str, Any]) -> tuple[str, str]:
    """The core's message about a point's config, and the dotted field it is about. The core
    read the point as TOML written here, so a line number in its message is of that text, not
    of the user's file: it is replaced by the field the line sets."""
    from ..canonical import to_toml

    message = message.removeprefix("config: ")
    m = re.match(r"line (\d+)(?: \(in \[([^\]]+)\]\))?: (.*)", message, re.S)
    if m:
        lines = to_toml(config).splitlines()
        n = int(m.group(1)) - 1
        key = lines[n].split("=", 1)[0].strip().strip('"') if 0 <= n < len(lines) and "=" in lines[n] else ""
        table = (m.group(2) or "").replace('"', "")
        field = ".".join(x for x in (table, key) if x)
        return (f"{field}: {m.group(3)}" if field else m.group(3)), field
    m = re.match(r"([a-z_]+(?:\.[a-z_0-9\[\]]+)*) = ", message)
    if m is None and isinstance(config.get("topology"), str) and message.startswith(config["topology"] + ":"):
        return message, "topology"  # a bad spec is named by itself, first
    return message, m.group(1) if m else ""


def _line_finder(text: str, path: str, quick_fields: frozenset[str] = frozenset()) -> Callable[[int | None, str], str]:
    """``at(group, field)``: ``FILE:LINE`` of ``field``'s setting in sweep group number
    ``group`` (or, when the group does not set it, in ``[quick]`` for the ``quick_fields`` the
    quick variant's base sets, else in ``[base]``); ``FILE`` alone when the text does not show it."""
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if line.strip().startswith("[")]

    def block(start: int) -> range:
        # A block runs to the next table header that is not one of its own sub-tables.
        own = lines[start].strip().strip("[]").strip()
        end = next((h for h in heads if h > start and not lines[h].strip().strip("[]").startswith(own + ".")),
                   len(lines))  # fmt: skip
        return range(start, end)

    sweeps = [i for i in heads if lines[i].strip().replace(" ", "") == "[[sweep]]"]
    bases = [i for i in heads if lines[i].strip().replace(" ", "").startswith("[base")]
    quicks = [i for i in heads if lines[i].strip().replace(" ", "").startswith(("[quick]", "[quick."))]

    def find(rows, field: str) -> int | None:
        leaf = field.rsplit(".", 1)[-1]
        pattern = re.compile(rf"(^|[\s.{{,\"']){re.escape(leaf)}[\"']?\s*=")
        return next((i for i in rows if pattern.search(lines[i])), None)

    def at(group: int | None, field: str) -> str:
        row = None
        if group is not None and group < len(sweeps):
            rows = block(sweeps[group])
            row = find(rows, field) if field else None
            row = rows.start if row is None else row
        if field and (row is None or (group is not None and group < len(sweeps) and row == sweeps[group])):
            for b in quicks + bases if field in quick_fields else bases:
                found = find(block(b), field)
                if found is not None:
                    row = found
                    break
        return path if row is None else f"{path}:{row + 1}"

    return at


def _check_topologies(points: list[Point], where: str) -> dict[str, Any]:
    """Builds every topology of the points (a bad one is refused now); returns those read from
    files, by spec."""
    from ..topology import Topology

    fabrics = {}
    for spec in dict.fromkeys(p.config["topology"] for p in points):
        try:
            topology = Topology.from_spec(spec)
        except ConfigError as e:
            raise ConfigError(f"{where}: topology {e}") from None
        # A director-based tree is a fabric made from its spec, which the key already holds.
        if topology.family == "fabric" and not spec.strip().startswith("director-tree"):
            fabrics[spec] = topology
    return fabrics


def _key_inputs(points: list[Point], fabrics: dict[str, Any], where: str) -> None:
    """Keys of the points that read files (a fabric, ``routing.tables``, ``workload.trace``)
    with a digest of what they read: the config holds only their names, so an edited file
    would otherwise find the results of its old content in the store and run nothing."""
    import hashlib

    digests: dict[tuple, str | None] = {}
    families: dict[str, str] = {}
    for p in points:
        spec = p.config["topology"]
        tables = (p.config.get("routing") or {}).get("tables") or None
        trace = (p.config.get("workload") or {}).get("trace") or None
        what = (spec if spec in fabrics else None, tables, trace)
        if what == (None, None, None):
            continue
        if what not in digests:
            h = hashlib.sha256()
            if spec in fabrics:  # the network as built: the file's links and ports
                topology = fabrics[spec]
                h.update(repr((topology.links(), topology.terminal_links())).encode())
            for name in filter(None, (tables, trace)):
                _hash_files(h, name, name == trace, where)
            digests[what] = h.hexdigest()
        key = config_key(p.config, inputs=digests[what])
        if p.repetition == 0:
            families[p.family] = key
        p.key = key
    for p in points:
        p.family = families.get(p.family, p.family)


def _hash_files(h: Any, name: str, trace: bool, where: str) -> None:
    """Adds the bytes of file ``name`` to ``h``; for a ``trace``, also those of the files beside
    it whose names start with its stem (a DUMPI trace's rank files ``NAME-0000.bin``, an OTF2
    archive's ``NAME.def`` and ``NAME/``)."""
    import glob

    path = Path(name)
    files = [path]
    if trace:
        stem = path.name.split(".")[0]
        for other in sorted(path.parent.glob(glob.escape(stem) + "*")):
            if other != path:
                files += [other] if other.is_file() else sorted(f for f in other.rglob("*") if f.is_file())
    for f in files:
        h.update(os.fsencode(os.path.relpath(f, path.parent)) + b"\0")
        try:
            with open(f, "rb") as stream:
                while chunk := stream.read(1 << 20):
                    h.update(chunk)
        except OSError as e:
            why = e.strerror or e
            raise ConfigError(f"{where}: {f}: cannot read it ({why}): a file the points read") from None
        h.update(b"\0")


def _check_files(points: list[Point], where: str) -> None:
    """A trace or table dump the points name that does not exist is refused now, in one line,
    as a missing fabric file is when its topology is built: every point naming it would fail."""
    for section, key in (("workload", "trace"), ("routing", "tables")):
        for path in dict.fromkeys((p.config.get(section) or {}).get(key) for p in points):
            if isinstance(path, str) and path and not os.path.exists(path):
                raise ConfigError(f"{where}: {section}.{key} = {shown(path)} is invalid: an existing file (no such file; "
                                  f"names are relative to the experiment file's folder)")  # fmt: skip


def parse(
    doc: dict[str, Any], where: str, quick: bool = False, repetitions: int | None = None, text: str = "",
    folder: str | None = None,
) -> Experiment:
    """An experiment from the parsed TOML document ``doc``; errors name ``where`` and the field
    (and its line, given the file's ``text``). File names it writes (fabric topologies,
    ``routing.tables``, ``workload.trace``) are relative to ``folder``, the experiment file's
    (the working directory when none).

    ``repetitions`` (the command line's ``--repetitions``) replaces the file's."""
    _unknown(doc, TOP_KEYS, where)
    name = doc.get("name")
    if name is None:  # also an empty file: "name = None" would read as a value the user wrote
        raise ConfigError(f"{where}: name = missing: the experiment's name, lowercase letters, digits, '-' and '_'")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ConfigError(f"{where}: name = {shown(name)} is invalid: lowercase letters, digits, '-' and '_'")
    base = doc.get("base", {})
    if not isinstance(base, dict):
        raise ConfigError(f"{where}: base = {shown(base)} is invalid: a table (a simulation config)")
    base = _merge({}, _settings(base, "", f"{where}: base"))
    groups = doc.get("sweep", [])
    if isinstance(groups, dict):
        groups = [groups]
    if not isinstance(groups, list) or not groups:
        raise ConfigError(f"{where}: sweep = {shown(groups)} is invalid: at least one [[sweep]] table")
    names = [g.get("name", str(i)) if isinstance(g, dict) else str(i) for i, g in enumerate(groups)]
    for i, n in enumerate(names):
        # Groups are selected (quick.sweeps, a figure's sweep) and reported by their name as
        # text: name = 3 and name = "3" would be two groups that look alike.
        if not isinstance(n, str) or not n:
            raise ConfigError(f"{where}: sweep {i} name = {shown(n)} is invalid: a non-empty string (default: the "
                              f"group's index)")  # fmt: skip
    for key in ("title", "description"):
        if key in doc and not isinstance(doc[key], str):
            raise ConfigError(f"{where}: {key} = {shown(doc[key])} is invalid: a string")
    for i, n in enumerate(names):
        if n in names[:i]:
            raise ConfigError(f"{where}: sweep name = {shown(n)} is invalid: given to sweep groups {names.index(n)} and "
                              f"{i}; each group needs a name of its own (points are stored and reported by it)")  # fmt: skip
    all_names = list(names)
    variant = _quick(doc.get("quick", {}), base, groups, names, where)  # checked even when not used
    repetitions_override = repetitions
    repetitions = check_repetitions(doc.get("repetitions", 1), f"{where}: repetitions")
    quick_reps = (doc.get("quick") or {}).get("repetitions", repetitions)
    quick_reps = check_repetitions(quick_reps, f"{where}: quick.repetitions")
    if quick:
        base, groups, names = variant
        repetitions = quick_reps
    if repetitions_override is not None:
        repetitions = check_repetitions(repetitions_override, "--repetitions")
    quick_doc = doc.get("quick") or {}
    # Fields the quick variant's base sets: their errors point to the [quick] table's lines.
    quick_fields = frozenset(_flatten(quick_doc.get("base", {})))
    at = _line_finder(text, where, quick_fields if quick else frozenset())
    points = _expand(base, groups, names, all_names, at, repetitions, "", folder)
    fabrics = _check_topologies(points, where)
    _check_files(points, where)
    _key_inputs(points, fabrics, where)
    if not quick and "quick" in doc:
        # The quick variant's points are completed and checked too, so that a value only it
        # sets (quick.base.switch.vcs = 0) is refused now, not when --quick is first used.
        quick_base, quick_groups, quick_names = variant
        quick_points = _expand(quick_base, quick_groups, quick_names, all_names,
                               _line_finder(text, where, quick_fields), 1, " (quick variant)", folder)  # fmt: skip
        _check_topologies(quick_points, where)
        _check_files(quick_points, where)
    report = doc.get("report", {})
    _check_report(report, where, all_names)
    check_figure_columns(report.get("figures", []), point_columns((p.group, p.config, p.values) for p in points),
                         where)  # fmt: skip
    _check_references(report, points, where)
    return Experiment(name, str(doc.get("title", name)), str(doc.get("description", "")), quick, base, points,
                      report, doc, repetitions=repetitions)  # fmt: skip


def _expand(base: dict[str, Any], groups: list, names: list[str], all_names: list[str],
            at: Callable[[int | None, str], str], repetitions: int, variant: str, folder: str | None) -> list[Point]:
    """The points of the sweep groups ``groups`` (named ``names``) over ``base``, each with
    its repetitions; ``variant`` follows the group's name in error messages; file names are
    relative to ``folder``."""
    points: list[Point] = []
    seen: set[str] = set()
    for gname, group in zip(names, groups):
        number = all_names.index(gname)
        w = f"{at(number, '')}: sweep '{gname}'{variant}"
        if not isinstance(group, dict):
            raise ConfigError(f"{w} = {shown(group)} is invalid: a table")
        def line(f: str, n: int = number, g: str = gname) -> str:
            return f"{at(n, f)}: sweep '{g}'{variant}"

        for settings, values in _group_points(group, w, line):
            config = _resolve(settings, base, line, folder)
            family = config_key(config)
            for i, seed in enumerate(repetition_seeds(config["seed"], repetitions)):
                run = config if i == 0 else {**config, "seed": seed}
                key = family if i == 0 else config_key(run)
                if key not in seen:  # the same configuration twice is one simulation
                    seen.add(key)
                    vals = values if repetitions == 1 else {**values, "repetition": i}
                    points.append(Point(len(points), gname, vals, run, key, family, i))
    return points


#: Figure kinds of ``[[report.figures]]``: drawn by ``report.py`` from the saturation table and
#: the curves, and by ``causal_report.py`` from causal workloads' times.
PLOT_FIGURE_KINDS = ("throughput", "latency", "heatmap", "cost")
CAUSAL_FIGURE_KINDS = ("normalized-time", "evolution")
#: The keys a figure of each kind reads, besides ``kind``, ``sweep`` and ``title``: a key its
#: kind does not read (``panels`` on a cost figure) is refused rather than ignored.
FIGURE_KEYS = {
    "throughput": ("panels", "curves", "metric"),
    "latency": ("panels", "curves", "metric"),
    "heatmap": ("value", "x", "y"),
    "cost": ("curves",),
    "normalized-time": ("reference", "panels", "cap", "topologies"),
    "evolution": ("kernels", "message_bytes", "topologies"),
}
#: Keys of the ``[report]`` table and of the entries of each of its lists (docs/experiments.md).
#: ``published`` entries hold the paper's values under names of its own: only ``topology`` is required.
REPORT_KEYS = {
    "figures": ("kind", "sweep", "panels", "curves", "title", "metric", "value", "x", "y", "reference", "cap",
                "kernels", "message_bytes", "topologies"),
    "performance": ("title", "topologies", "sweep", "reference", "cost", "weights", "published"),
    "published": None,
    "claims": ("text", "topology", "vcs"),
    "comparisons": ("text", "metric", "baseline", "candidate", "published"),
    "pair_tables": ("title", "metric", "rows", "networks", "published", "sweep"),
}  # fmt: skip


def _check_report(report: Any, where: str, groups: list[str]) -> None:
    """The ``[report]`` table, checked when the experiment is read rather than when the report
    is written at the end of the sweep: known keys, lists of tables, figure kinds that exist,
    and sweep groups that exist."""
    if not isinstance(report, dict):
        raise ConfigError(f"{where}: report = {shown(report)} is invalid: a table")
    _unknown(report, tuple(REPORT_KEYS), f"{where}: report")
    for section, allowed in REPORT_KEYS.items():
        entries = report.get(section, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ConfigError(f"{where}: report.{section} is invalid: a list of tables ([[report.{section}]])")
        for i, entry in enumerate(entries):
            w = f"{where}: report.{section}[{i}]"
            if allowed is not None:
                _unknown(entry, allowed, w)
            sweep = entry.get("sweep")
            for g in sweep if isinstance(sweep, list) else [] if sweep is None else [sweep]:
                if g not in groups:
                    raise ConfigError(f"{w}.sweep = {shown(g)} is invalid: one of the sweep groups {groups}")
        if section == "figures":
            kinds = PLOT_FIGURE_KINDS + CAUSAL_FIGURE_KINDS
            for i, entry in enumerate(entries):
                if entry.get("kind") not in kinds:
                    raise ConfigError(f"{where}: report.figures[{i}].kind = {shown(entry.get('kind'))} is invalid: "
                                      f"one of {', '.join(kinds)}")  # fmt: skip
                own = ("kind", "sweep", "title", *FIGURE_KEYS[entry["kind"]])
                for key in entry:
                    if key not in own:
                        raise ConfigError(f"{where}: report.figures[{i}].{key} = {shown(entry[key])} is invalid: "
                                          f"a figure of kind {shown(entry['kind'])} does not read it; its keys are "
                                          f"{', '.join(own)}")  # fmt: skip
                if entry["kind"] == "normalized-time" and "reference" not in entry:
                    raise ConfigError(f"{where}: report.figures[{i}].reference = missing: a topology spec, "
                                      f"required by kind 'normalized-time'")  # fmt: skip
        if section in ("figures", "performance"):
            for i, entry in enumerate(entries):
                _check_report_values(entry, section, f"{where}: report.{section}[{i}]")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


#: What a value of ``[[report.figures]]`` and ``[[report.performance]]`` must be, by key: a
#: check and the words of the error. The report reads them only after the sweep has run, so a
#: value of the wrong kind ended it with a traceback.
_REPORT_VALUES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "title": (lambda v: isinstance(v, str), "a string"),
    "reference": (lambda v: isinstance(v, str), "the topology spec of the reference network"),
    "topologies": (lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v), "a list of topology specs"),
    "kernels": (lambda v: isinstance(v, list) and all(isinstance(k, str) for k in v), "a list of kernel names"),
    "message_bytes": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
                      "a positive whole number of bytes"),
    "cap": (lambda v: _is_number(v) and v > 0, "a number > 0"),
    "cost": (lambda v: isinstance(v, bool), "true or false"),
    "weights": (lambda v: isinstance(v, dict), "a table of weights by kernel or kernel@bytes"),
    "published": (lambda v: isinstance(v, dict) and all(isinstance(x, dict) for x in v.values()),
                  "a table of the paper's values by topology"),
}  # fmt: skip


#: The paper's values a ``[[report.performance]]`` table shows beside ours, per topology
#: (``reports/causal_report.py`` puts each beside its column).
PUBLISHED_PERFORMANCE_KEYS = ("phi", "phi_cC", "phi_cL", "phi_cQ")


def _check_report_values(entry: dict[str, Any], section: str, where: str) -> None:
    """The values of a causal figure or a performance table (see ``_REPORT_VALUES``)."""
    if section == "performance" and "reference" not in entry:
        raise ConfigError(f"{where}.reference = (missing) is invalid: {_REPORT_VALUES['reference'][1]}")
    # A throughput figure's `value`, `panels`... are checked against the columns elsewhere.
    for key, (ok, allowed) in _REPORT_VALUES.items():
        if key in entry:
            if not ok(entry[key]):
                raise ConfigError(f"{where}.{key} = {shown(entry[key])} is invalid: {allowed}")
    for name, w in entry.get("weights", {}).items():
        if not (_is_number(w) and w >= 0):
            raise ConfigError(f"{where}.weights.{name} = {shown(w)} is invalid: a number >= 0")
    if section == "performance":
        for topology, values in entry.get("published", {}).items():
            for key, v in values.items():
                if key not in PUBLISHED_PERFORMANCE_KEYS or not _is_number(v):
                    raise ConfigError(f"{where}.published.{shown(topology)}.{key} = {shown(v)} is invalid: "
                                      f"a value of {', '.join(PUBLISHED_PERFORMANCE_KEYS)}")  # fmt: skip


def sweep_groups(sweep: Any) -> list[str] | None:
    """The groups a report entry's ``sweep`` names (one group or a list of them); None when it
    names none, and the entry reads every group."""
    return (sweep if isinstance(sweep, list) else [sweep]) if sweep else None


def _selected(entry: dict[str, Any], points: list[Point], by_topology: bool = True) -> list[Point]:
    """The points a causal figure or performance table reads: those of its ``sweep`` group (or
    groups) and, with ``by_topology``, of its ``topologies``, as the report selects its runs."""
    groups, topologies = sweep_groups(entry.get("sweep")), entry.get("topologies")
    return [p for p in points if (groups is None or p.group in groups)
            and (not by_topology or not topologies or p.config["topology"] in topologies)]  # fmt: skip


def _check_references(report: dict[str, Any], points: list[Point], where: str) -> None:
    """The ``reference`` of a ``normalized-time`` figure or a performance table is the topology
    of one of the points it selects (by ``sweep`` and ``topologies``), as the report compares
    it: else every T and φ would be missing and the figure empty, without a word. An entry
    whose selection has no point (a group the quick variant leaves out) is not judged."""
    selecting = [("figures", i, e) for i, e in enumerate(report.get("figures", []))
                 if e.get("kind") in CAUSAL_FIGURE_KINDS]  # fmt: skip
    selecting += [("performance", i, e) for i, e in enumerate(report.get("performance", []))]
    for section, i, entry in selecting:
        topologies = entry.get("topologies")
        have = {p.config["topology"] for p in _selected(entry, points, by_topology=False)}
        missing = [t for t in topologies or [] if t not in have]
        if missing and len(missing) < len(topologies):
            # A misspelt network would be left out of the table and the bars without a word.
            raise ConfigError(f"{where}: report.{section}[{i}].topologies = {shown(topologies)} is invalid: "
                              f"topologies of its points: {', '.join(t for t in topologies if t in have)} "
                              f"({', '.join(map(shown, missing))} is none)")  # fmt: skip
    entries = [
        ("figures", i, e, "figure draws")
        for i, e in enumerate(report.get("figures", []))
        if e.get("kind") == "normalized-time"
    ]
    entries += [("performance", i, e, "table reads") for i, e in enumerate(report.get("performance", []))]
    for section, i, entry, what in entries:
        ref, topologies = entry.get("reference"), entry.get("topologies")
        w = f"{where}: report.{section}[{i}].reference = {shown(ref)} is invalid"
        if topologies and ref not in topologies:
            raise ConfigError(f"{w}: one of its topologies: {', '.join(topologies)}")
        have = {p.config["topology"] for p in _selected(entry, points)}
        if have and ref not in have:
            raise ConfigError(f"{w}: the topology of a point the {what}: {', '.join(sorted(have))}")
    for i, entry in enumerate(report.get("figures", [])):
        if entry.get("kind") != "evolution":
            continue
        workloads = [p.config.get("workload") or {} for p in _selected(entry, points)]
        kernels = {w["kernel"] for w in workloads if "kernel" in w}
        if not kernels:
            continue
        w = f"{where}: report.figures[{i}]"
        missing = [k for k in entry.get("kernels", []) if k not in kernels]
        if missing:
            raise ConfigError(
                f"{w}.kernels = {shown(entry['kernels'])} is invalid: kernels of the points the figure "
                f"draws: {', '.join(sorted(kernels))} ({', '.join(map(shown, missing))} is none)"
            )
        sizes = {w["message_bytes"] for w in workloads if "kernel" in w and "message_bytes" in w}
        if "message_bytes" in entry and sizes and entry["message_bytes"] not in sizes:
            raise ConfigError(f"{w}.message_bytes = {shown(entry['message_bytes'])} is invalid: a "
                              f"workload.message_bytes of the points the figure draws: "
                              f"{', '.join(map(str, sorted(sizes)))}")  # fmt: skip

#: Config columns that vary within a curve rather than tell curves apart (the report's curves
#: and saturation table are keyed by the others).
NOT_CURVE = frozenset({"traffic.load", "seed"})


def curve_columns(df) -> list[str]:
    """Config columns that vary between points, except load and seed: what tells curves apart
    (and the rows of the report's tables)."""
    cols = [c for c in df.columns if "." in c or c == "topology"]
    return [c for c in cols if c not in NOT_CURVE and df[c].astype(str).nunique() > 1]

#: Values of the saturation table a ``heatmap`` figure may show (``value``); the table's other
#: columns are the curve's group, topology and varying config columns, and a note.
SATURATION_VALUES = ("max_over_ideal", "max_accepted", "max_accepted_pct_host", "ideal", "theta", "points",
                     "unconverged_points")  # fmt: skip


def point_columns(points) -> dict[str, set[str]]:
    """The columns of the report's frame that come from the points (``(group, config, values)``
    each), not from their results, per sweep group: the group, the config fields (``topology``,
    ``switch.vcs``...) and the labels of listed points and table-valued axes (``point``, ``variant``)."""
    from .store import flatten_config

    out: dict[str, set[str]] = {}
    for group, config, values in points:
        cols = out.setdefault(group, {"group"})
        cols.update(flatten_config(config))
        cols.update(k for k in values if "." not in k)
    return out


def figure_columns(spec: dict[str, Any]) -> list[tuple[str, str | None, bool]]:
    """(field, column it names, whether the column must be a config column or the group) of a
    figure: the columns a report draws it by. Heatmaps and cost figures read the saturation
    table, whose rows are curves told apart by their config columns only."""
    kind = spec.get("kind")
    if kind in ("throughput", "latency"):
        return [("panels", spec.get("panels", "topology"), False), ("curves", spec.get("curves"), False)]
    if kind == "heatmap":
        return [("x", spec.get("x", "switch.vcs"), True), ("y", spec.get("y", "topology"), True)]
    if kind == "cost":
        return [("curves", spec.get("curves"), True)]
    if kind == "normalized-time":
        return [("panels", spec.get("panels"), False)]
    return []


def check_figure_columns(figures: list[dict[str, Any]], columns: dict[str, set[str]], where: str) -> None:
    """Every column a figure names exists in the points it draws (``columns``: per sweep group,
    as :func:`point_columns`), and a heatmap's ``value`` is one of the saturation table's: a
    report would otherwise fail with the sweep done. A figure whose groups have no point (a
    group the quick variant leaves out) draws nothing and is not checked."""
    for i, spec in enumerate(figures):
        if spec.get("kind") == "heatmap" and spec.get("x", "switch.vcs") == spec.get("y", "topology"):
            # A pivot of one column against itself: the report would end in a pandas error.
            raise ConfigError(f"{where}: report.figures[{i}].x = {shown(spec.get('x', 'switch.vcs'))} is invalid: "
                              f"a column other than y = {shown(spec.get('y', 'topology'))}")  # fmt: skip
        groups = sweep_groups(spec.get("sweep")) or list(columns)
        have = set().union(*(columns.get(g, set()) for g in groups))
        if not have:
            continue
        for name, column, config_only in figure_columns(spec):
            # The saturation table tells curves apart by config columns, except load and seed.
            allowed = {c for c in have if not config_only or ("." in c or c in ("topology", "group"))
                       and c not in NOT_CURVE}  # fmt: skip
            if column is not None and column not in allowed:
                raise ConfigError(f"{where}: report.figures[{i}].{name} = {shown(column)} is invalid: "
                                  f"{describe_columns(column, allowed, config_only)}")  # fmt: skip
        value = spec.get("value", "max_over_ideal") if spec.get("kind") == "heatmap" else None
        if value is not None and value not in SATURATION_VALUES:
            raise ConfigError(f"{where}: report.figures[{i}].value = {shown(value)} is invalid: one of "
                              f"{', '.join(SATURATION_VALUES)} (columns of the saturation table)")  # fmt: skip


def describe_columns(column: Any, allowed: set[str], config_only: bool) -> str:
    """What a figure's column may be: the plain columns (group, topology, the labels), the
    nearest name, and the rule for the dotted ones (config paths, docs/config.md)."""
    plain = sorted(c for c in allowed if "." not in c)
    # Load and seed are columns, only not ones that tell curves apart: no near name for them.
    near = [] if column in NOT_CURVE else difflib.get_close_matches(str(column), allowed, n=1)
    hint = f" (did you mean {near[0]}?)" if near else ""
    if config_only:
        return (f"one of the points' config columns{hint}: {', '.join(plain)} or a config path such as "
                f"switch.vcs other than traffic.load (docs/config.md)")  # fmt: skip
    return f"one of the points' columns{hint}: {', '.join(plain)} or a config path such as switch.vcs (docs/config.md)"


def _quick(q: Any, base: dict, groups: list, names: list, where: str):
    """Apply the ``[quick]`` table: base overrides and a subset of the sweep groups."""
    if not isinstance(q, dict):
        raise ConfigError(f"{where}: quick = {shown(q)} is invalid: a table with base and sweeps")
    _unknown(q, QUICK_KEYS, f"{where}: quick")
    base = _merge(base, _settings(q.get("base", {}), "", f"{where}: quick.base"))
    keep = q.get("sweeps", names)
    if not isinstance(keep, list) or not keep or any(k not in names for k in keep):
        raise ConfigError(
            f"{where}: quick.sweeps = {shown(keep)} is invalid: a non-empty list of sweep names {names}"
        )
    chosen = [(n, g) for n, g in zip(names, groups) if n in keep]
    return base, [g for _, g in chosen], [n for n, _ in chosen]


def load(path: str | Path, quick: bool = False, repetitions: int | None = None) -> Experiment:
    """Read and expand an experiment file."""
    path = Path(path)
    from .._files import read_text_file

    text = read_text_file(path, "an experiment file (docs/experiments.md)")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    # The folder as an absolute path: the completed configs then name their files absolutely,
    # so a Dask worker (whose working directory is its own) finds them, and a point has one
    # key from whatever folder the sweep is started.
    exp = parse(doc, str(path), quick, repetitions, text, folder=str(path.parent.resolve()))
    exp.text = text
    return exp
