"""Static (forwarding-table) routing: compute tables with an engine, or load a dump, and
report path lengths, routes per link, lanes, the routed throughput bound and deadlock freedom.
See docs/routing.md."""

from __future__ import annotations

import json
import math
import operator
import re
from pathlib import Path

from . import _core
from ._core import ConfigError
from .config import as_integer

ENGINES = ("minhop", "sssp", "dfsssp", "updn", "ftree", "parx", "ksp")

#: The LMC of an engine when none is given: ``ksp`` takes Singla et al.'s 8 paths per pair.
DEFAULT_LMC = {"ksp": 3}

#: The engines that give paths their lanes (virtual layers): only they read ``vls`` and
#: ``layering``.
LAYERED = ("dfsssp", "parx", "ksp")

#: Algorithmic routings (config ``routing.algorithm``) that ``check_deadlock`` judges; ``bubble``
#: and ``tree`` are short for ``bubble-adaptive`` and ``tree-adaptive``.
ALGORITHMS = (
    "auto", "dor", "dor-upper-lower", "bubble-adaptive", "duato", "tree-adaptive", "tree-deterministic",
    "hyperx-dor", "hyperx-adaptive", "hyperx-valiant", "hyperx-ugal", "hyperx-dal", "dort", "ts-dor", "direct",
    "dragonfly-minimal", "dragonfly-valiant", "dragonfly-ugal", "dragonfly-ugal-g", "dragonfly-par", "graph-minimal",
    "graph-valiant", "graph-ugal",
)  # fmt: skip
_ALIASES = {"bubble": "bubble-adaptive", "tree": "tree-adaptive"}


def check_deadlock(
    spec: str, routing: str = "auto", *, vcs: int | None = None, queue_packets: int | None = None
) -> dict:
    """The static deadlock check of an algorithmic routing on `spec` with `vcs` virtual channels
    (default: the fewest the routing accepts; 1 for a routing that needs more merges its VCs, the
    control that shows what they buy). Returns a dict: ``deadlock_free``, ``basis`` (the channel
    dependency graph, the escape sub-network for Duato's routings, the bubble condition for bubble
    flow control), ``verdict`` (``"acyclic"`` or ``{"cycle": [hops]}``) and ``reason``. See
    docs/routing.md."""
    name = _ALIASES.get(routing, routing)
    if name not in ALGORITHMS:
        raise ConfigError(
            f"route: routing = {routing!r} is invalid: one of {', '.join(ALGORITHMS)}, bubble, tree "
            f"(forwarding tables: {', '.join(ENGINES)})"
        )
    if vcs is not None:
        if as_integer(vcs) is None or not 1 <= as_integer(vcs) <= 8:
            raise ConfigError(f"route: vcs = {vcs!r} is invalid: an integer between 1 and 8")
        vcs = as_integer(vcs)
    # Read with 8 VCs, the most any routing needs, so that reading the config judges the routing
    # against the family and the buffers but not the VCs: the check tries the VC counts itself,
    # from 1 up when `vcs` is None.
    cfg: dict = {"topology": spec, "routing": {"algorithm": name}, "switch": {"vcs": 8}}
    if queue_packets is not None:
        cfg["switch"]["queue_packets"] = queue_packets
    from .config import to_json  # NumPy values as plain ones

    return json.loads(_core.check_deadlock(to_json(cfg), vcs))


#: `route` has an argument of the same name.
_check_algorithmic = check_deadlock


def route(
    spec: str,
    engine: str | None = None,
    *,
    lmc: int | None = None,
    vls: int | None = None,
    roots: list[int] | None = None,
    check_deadlock: bool = False,
    dump: bool = False,
    tables: str | Path | None = None,
    demands: str | Path | list | None = None,
    layering: str | None = None,
    vcs: int | None = None,
) -> dict:
    """Routes `spec` with `engine` (or loads the table dump file `tables`) and returns the
    report as a dict; with `dump=True` the tables' text is under ``"dump"``. `demands`
    (PARX): a file of ``SOURCE DESTINATION BYTES`` lines or a list of such triples.
    `layering` (DFSSSP, PARX, KSP): ``placement`` (hpcnetsim's, the default) or ``opensm``
    (OpenSM's procedure); `vls` (the same engines): lanes the layering may use, 8 by default.
    `lmc` defaults to 3 for ``ksp`` (8 paths per pair), 0 otherwise (``parx`` always uses 2).
    An algorithmic `engine` (``dor``, ``bubble``, ``duato``...) has no tables: with
    ``check_deadlock=True`` the result is :func:`check_deadlock`'s with `vcs`. An option the
    engine (or a loaded dump) does not read is refused rather than ignored. `engine` defaults to
    ``dfsssp``; with `tables` the dump is the routing, and an engine beside it is refused."""
    if engine is not None and tables is not None:
        raise ConfigError(f"route: engine = {engine!r} is invalid with the tables loaded from --load: the dump is the "
                          f"routing (leave the engine out)")  # fmt: skip
    engine = "dfsssp" if engine is None else engine
    _check_types(engine, roots, tables, layering)
    _check_spec_and_flags(spec, check_deadlock=check_deadlock, dump=dump)
    check_deadlock, dump = bool(check_deadlock), bool(dump)
    if tables is None and _ALIASES.get(engine, engine) in ALGORITHMS:
        if not check_deadlock:
            raise ConfigError(
                f"route: routing = {engine!r} is algorithmic (no forwarding tables): use --check-deadlock, "
                f"or a table engine: {', '.join(ENGINES)}"
            )
        table_options = {"lmc": lmc, "vls": vls, "layering": layering, "roots": roots or None, "demands": demands,
                         "dump": dump or None}  # fmt: skip
        for field, value in table_options.items():
            if value is not None:
                shown = "" if field == "dump" else f" = {value!r}"
                raise ConfigError(f"route: {field}{shown} is invalid with routing {engine!r}: an algorithmic routing "
                                  f"has no forwarding tables (only vcs applies to its deadlock check)")  # fmt: skip
        try:
            return _check_algorithmic(spec, engine, vcs=vcs)
        except ConfigError as e:
            raise ConfigError(_as_route_option(str(e))) from None
    if check_deadlock and tables is None and engine not in ENGINES:
        raise ConfigError(
            f"route: routing = {engine!r} is invalid: a table engine ({', '.join(ENGINES)}) or, with "
            f"--check-deadlock, an algorithmic routing ({', '.join(ALGORITHMS + tuple(_ALIASES))})"
        )
    _check_engine_options(engine, roots, demands, tables)
    _check_table_options(engine, tables, lmc, vls, layering, vcs)
    text, name, ini, hcas, read_as = None, "tables", None, None, {}
    if tables is not None:
        text, name = _read(tables, "the table dump"), str(tables)
        base = str(tables)[:-3] if str(tables).endswith(".gz") else str(tables)
        if base.endswith(".fdbs"):
            # ib_flit_sim tables: the .ini beside them and the host list (NAME.hcas or ftree.hcas).
            ini = _read(base + ".ini", "the switch index file")
            stem = Path(base[: -len(".fdbs")])
            hcas_path = stem.with_suffix(".hcas") if stem.with_suffix(".hcas").exists() else stem.parent / "ftree.hcas"
            hcas = _read(hcas_path, "the host list")
            # The core names these files after the tables (NAME.fdbs.gz.ini, NAME.fdbs.hcas);
            # errors name the files that were read.
            read_as = {f"{name}.ini:": f"{base}.ini:", f"{name}.hcas:": f"{hcas_path}:"}
    if lmc is None:
        lmc = DEFAULT_LMC.get(engine, 0)
    vls = 8 if vls is None else vls
    layering = "placement" if layering is None else layering
    for field, value, low, high in (("lmc", lmc, 0, 7), ("vls", vls, 1, 8)):
        if as_integer(value) is None or not low <= as_integer(value) <= high:
            raise ConfigError(f"route: {field} = {value!r} is invalid: an integer between {low} and {high}")
    lmc, vls, root_list = as_integer(lmc), as_integer(vls), [as_integer(r) for r in roots or []]
    triples, lines = _demands(demands)
    try:
        report = _core.route(
            spec, engine, lmc, vls, root_list, check_deadlock, dump, text, name, triples, ini, hcas, layering
        )
    except ConfigError as e:
        for said, path in read_as.items():
            if str(e).startswith(said):
                raise ConfigError(path + str(e)[len(said) :]) from None
        raise _demand_line_error(e, demands, triples, lines) from None
    return json.loads(report)


def _as_route_option(message: str) -> str:
    """A config's refusal of ``routing.algorithm`` as `route` takes it: the option is
    ``routing`` (``--routing``), and where the config offers ``table`` routing, `route` takes
    a table engine's name."""
    said = "config: routing.algorithm = "
    if not message.startswith(said):
        return message
    engines = f"a table engine ({', '.join(ENGINES)})"
    message = "route: routing = " + message[len(said) :]
    message = re.sub(r"\btable routing\b", engines, message)
    return re.sub(r"(one of: (?:[^:]*, )?)table\b", lambda m: m.group(1) + engines, message)


def _check_types(engine, roots, tables, layering) -> None:
    """Arguments of the wrong type are one-line errors, not the binding's TypeError (or, for
    ``tables=5``, a read of file descriptor 5)."""
    if not isinstance(engine, str):
        raise ConfigError(f"route: engine = {engine!r} is invalid: a name, one of {', '.join(ENGINES)}")
    if layering is not None and not isinstance(layering, str):
        raise ConfigError(f"route: layering = {layering!r} is invalid: 'placement' or 'opensm'")
    if roots is not None and not isinstance(roots, (list, tuple)):
        raise ConfigError(f"route: roots = {roots!r} is invalid: a list of switch indices, e.g. [0]")
    if tables is not None and not isinstance(tables, (str, Path)):
        raise ConfigError(f"route: tables = {tables!r} is invalid: the path of a table dump")


def _check_spec_and_flags(spec, **flags) -> None:
    """A spec that is not a string, and flags that are not booleans (``dump="lft.txt"``, as
    the CLI's ``--dump FILE``), are one-line errors rather than the binding's TypeError."""
    if not isinstance(spec, str):
        raise ConfigError(
            f"route: spec = {spec!r} is invalid: a topology spec (a string), e.g. 'tree:k=4,n=3'"
        )
    for field, value in flags.items():
        dtype = getattr(value, "dtype", None)
        numpy_bool = getattr(dtype, "kind", None) == "b" and getattr(value, "ndim", 1) == 0
        if not isinstance(value, bool) and not numpy_bool:
            hint = " (the tables' text is returned under 'dump'; write it to a file)"
            raise ConfigError(
                f"route: {field} = {value!r} is invalid: True or False{hint if field == 'dump' else ''}"
            )


def _check_engine_options(engine: str, roots, demands, tables) -> None:
    """Options only some engines read are refused elsewhere instead of being ignored: roots
    are Up*/Down*'s, demands PARX's, and a loaded dump computes nothing. Root indices are
    whole numbers >= 0 (the core checks them against the switch count)."""
    computed = "the tables loaded from --load" if tables is not None else f"engine {engine!r}"
    if roots:
        if tables is not None or engine != "updn":
            raise ConfigError(f"route: roots = {list(roots)} is invalid with {computed}: Up*/Down* roots are read "
                              f"only by engine 'updn'")  # fmt: skip
        for r in roots:
            if as_integer(r) is None or not 0 <= as_integer(r) < 2**63:
                raise ConfigError(f"route: root = {r!r} is invalid: a switch index (a whole number >= 0)")
    if demands is not None and (tables is not None or engine != "parx"):
        raise ConfigError(f"route: demands are invalid with {computed}: they are read only by engine 'parx'")


def _check_table_options(engine: str, tables, lmc, vls, layering, vcs) -> None:
    """As :func:`_check_engine_options` for the lane and address options (``None``: not given):
    ``vls`` and ``layering`` are read only by the engines that lay out lanes, ``vcs`` only by the
    deadlock check of an algorithmic routing; ``parx`` always uses LMC 2, and a loaded dump
    carries its own LMC and lanes."""
    computed = "the tables loaded from --load" if tables is not None else f"engine {engine!r}"
    if vcs is not None:
        raise ConfigError(f"route: vcs = {vcs!r} is invalid with {computed}: virtual channels are read only by the "
                          f"deadlock check of an algorithmic routing (the lanes of table engines: vls)")  # fmt: skip
    for field, value in (("vls", vls), ("layering", layering)):
        if value is not None and (tables is not None or engine not in LAYERED):
            raise ConfigError(f"route: {field} = {value!r} is invalid with {computed}: it is read only by the engines "
                              f"that lay out lanes: {', '.join(LAYERED)}")  # fmt: skip
    if lmc is not None and tables is not None:
        raise ConfigError(f"route: lmc = {lmc!r} is invalid with {computed}: a dump carries its own LMC")
    if lmc is not None and engine == "parx" and lmc != 2:
        raise ConfigError(f"route: lmc = {lmc!r} is invalid with engine 'parx': it always uses 2 (4 addresses per "
                          f"terminal)")  # fmt: skip


def _read(path, what: str) -> str:
    """A text file (gzip-compressed when its name ends in .gz), or a one-line ConfigError."""
    import gzip
    import zlib

    from ._files import read_text_file

    try:
        if str(path).endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read().decode("utf-8")
        # Binary input (/dev/zero) is refused at once instead of read without end.
        return read_text_file(path, what, limit=None)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read {what}: {getattr(e, 'strerror', None) or e}") from None
    except (EOFError, zlib.error) as e:
        # A gzip stream cut short (an interrupted download or copy) is no OSError.
        raise ConfigError(f"{path}: cannot read {what}: a damaged gzip file ({e})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: cannot read {what}: not UTF-8 text once decompressed (byte {e.start})") from None


#: A terminal index as a demand file writes it: ASCII digits only (``int`` also takes ``1_0``,
#: ``+1`` and other scripts' digits, which are typos in a profile).
_INDEX = re.compile(r"[0-9]+")
#: A byte count: a plain decimal number, an exponent allowed (``float`` also takes ``1_0``).
_BYTES = re.compile(r"\+?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
#: Terminal indices the core reads (a machine word); larger ones name no terminal.
_MAX_INDEX = 2**63 - 1
_DEMAND_FORM = "SOURCE DESTINATION BYTES (terminal indices and a finite byte count >= 0)"


def _demands(demands) -> tuple[list[tuple[int, int, float]], list[tuple[int, str]]]:
    """Communication demands as (source, destination, bytes) triples, from a list or a file,
    with each triple's line number and text when they come from a file (else none)."""
    if demands is None:
        return [], []
    if not isinstance(demands, (str, Path)):
        return [_demand_triple(i, d) for i, d in enumerate(_entries(demands))], []
    from ._files import read_text_file

    lines = read_text_file(demands, "the demand file", limit=None).splitlines()
    out, where = [], []
    for i, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        ok = len(words) == 3 and all(_INDEX.fullmatch(w) for w in words[:2]) and _BYTES.fullmatch(words[2])
        s, d, b = (int(words[0]), int(words[1]), float(words[2])) if ok else (0, 0, 0.0)
        if not ok or max(s, d) > _MAX_INDEX or not b < math.inf:
            raise ConfigError(f"{demands}:{i}: line = {line.strip()!r} is invalid: {_DEMAND_FORM}")
        out.append((s, d, b))
        where.append((i, line.strip()))
    return out, where


def _entries(demands) -> list:
    """The entries of a demand list, or a one-line error for anything else."""
    if isinstance(demands, (bytes, dict)) or not hasattr(demands, "__iter__"):
        raise ConfigError(f"route: demands = {demands!r} is invalid: a file or a list of (source, destination, bytes)")
    return list(demands)


def _demand_triple(i: int, entry) -> tuple[int, int, float]:
    """One entry of a demand list: whole terminal indices (any integer type, NumPy's included; a
    float such as 0.7 was cut to a terminal without a word) and a finite byte count >= 0."""
    try:
        s, d, b = entry
        if isinstance(b, (str, bytes)) or any(isinstance(v, bool) for v in (s, d, b)):
            raise TypeError
        s, d = operator.index(s), operator.index(d)
        b = float(b)
    except (TypeError, ValueError):
        s = d = -1
        b = math.nan
    if not (0 <= s <= _MAX_INDEX and 0 <= d <= _MAX_INDEX and 0 <= b < math.inf):
        raise ConfigError(f"route: demands[{i}] = {entry!r} is invalid: (source, destination, bytes) with "
                          f"terminal indices (whole numbers >= 0) and a finite byte count >= 0")  # fmt: skip
    return s, d, b


def _demand_line_error(e: ConfigError, demands, triples, lines) -> ConfigError:
    """The core names an out-of-range demand by its value (``routing: demand = S D B is invalid:
    ...``); a demand from a file is named by its line instead, as the form errors are. The core
    reports the first such demand, so the first triple with its terminals is the one."""
    m = re.match(r"routing: demand = ([0-9]+) ([0-9]+) \S+ is invalid: (.*)", str(e))
    if not lines or m is None:
        return e
    pair = (int(m.group(1)), int(m.group(2)))
    i = next(k for k, t in enumerate(triples) if t[:2] == pair)
    return ConfigError(f"{demands}:{lines[i][0]}: line = {lines[i][1]!r} is invalid: {m.group(3)}")
