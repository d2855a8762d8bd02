"""Packet-level simulation from Python: one run (``simulate``) or a load curve (``load_curve``)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable

from . import _core
from ._core import ConfigError
from .config import load_config, naming_file, resolve, to_json

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

ConfigSource = str | os.PathLike | dict


def flatten(d: dict[str, Any], prefix: str = "", sep: str = "_") -> dict[str, Any]:
    """Nested dicts to one level: ``{"latency": {"network": {"mean": 1}}}`` → ``latency_network_mean``
    (with ``sep = "."`` the dotted config paths, ``switch.vcs``)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}{sep}", sep))
        else:
            out[f"{prefix}{k}"] = v
    return out


#: Units of the scalar result fields, as shown in tables and notebooks.
RESULT_UNITS = {
    "routing": "", "vcs": "", "seed": "", "kernel": "", "tasks": "",
    "offered_load": "phits/cycle/node", "accepted_load": "phits/cycle/node",
    "accepted_load_std": "phits/cycle/node", "saturated": "", "execution_time_cycles": "cycles",
    "messages": "", "packets_delivered": "packets", "cycles": "cycles", "wall_seconds": "s",
    "cycle_ns": "ns", "link_bandwidth_mb_s": "MB/s", "execution_time_us": "µs", "message_latency_mean_us": "µs",
    "latency_network_mean_ns": "ns", "offered_mb_s_per_node": "MB/s", "accepted_mb_s_per_node": "MB/s",
}  # fmt: skip


def _same(a: Any, b: Any) -> bool:
    """Structural equality of result values, NaN equal to NaN (a latency of no packets)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if hasattr(a, "shape") or hasattr(b, "shape"):  # arrays of a collector's table
        import numpy as np

        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f"))
    return type(a) is type(b) and a == b


class SimulationResult:
    """The result of one run; result fields are attributes (``r.accepted_load``, ``r.latency``)."""

    def __init__(self, data: dict[str, Any]):
        # The [stats] collectors' tables stay out of the result's fields (and of result.json):
        # they are DataFrames (``r.tables``) and Parquet files beside the result.
        self._tables = data.pop("tables", None) or {}
        self._data = data

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables of the ``[stats]`` collectors (``link_utilisation``,
        ``latency_percentiles``, ``packets``; none unless switched on) and a replay's traffic
        matrix (``traffic``: ``source``, ``destination``, ``bytes``, ``messages`` of every pair
        of ranks the trace or program has messages between, delivered or not when the run
        stopped early), as DataFrames."""
        from .collected import frames

        return frames(self._tables)

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError(f"SimulationResult has no field '{name}'") from None

    def __dir__(self):
        return [*super().__dir__(), *self._data]

    @property
    def converged(self) -> bool:
        """Whether the run converged (a partial run may have an accepted load too: that of
        the batches it measured)."""
        return self._data.get("status") == "converged"

    @property
    def packet_hops_per_second(self) -> float:
        """Simulation speed: packet hops per wall-clock second."""
        return rate(self._data.get("packet_hops", 0), self._data.get("wall_seconds", 0.0))

    def __eq__(self, other: object) -> bool:
        """Equal when every simulated field and table is, bit for bit (NaN equal to NaN):
        ``simulate(cfg) == simulate(cfg)`` checks that a seed gives the same run.
        ``wall_seconds`` (the host's time, not the simulation's) is left out."""
        if not isinstance(other, SimulationResult):
            return NotImplemented
        mine = {k: v for k, v in self._data.items() if k != "wall_seconds"}
        theirs = {k: v for k, v in other._data.items() if k != "wall_seconds"}
        return _same(mine, theirs) and _same(self._tables, other._tables)

    # Results are mutable-looking containers compared by content: no hash.
    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """The result as a (deep-copied) dict, as the core returned it."""
        return json.loads(json.dumps(self._data))

    def to_pandas(self) -> pd.DataFrame:
        """A one-row DataFrame with flattened columns (``latency_network_mean`` ...)."""
        import pandas

        return pandas.DataFrame([flatten(self._data)])

    def _repr_html_(self) -> str:
        """A small table for notebooks: status (coloured when not a success) and the main figures."""
        import html

        d = self._data
        ok = d.get("status") in ("converged", "completed")
        colour = "#1a7f37" if ok else "#b42318"
        # The flow model's eBB, mpiGraph and flow runs have no status: no row rather than "None".
        rows = [] if "status" not in d else [
            ("status", f'<b style="color:{colour}">{html.escape(str(d.get("status")))}</b>')]  # fmt: skip
        for key, unit in RESULT_UNITS.items():
            v = d.get(key)
            if v is None or isinstance(v, (dict, list)):
                continue
            text = f"{v:.4g}" if isinstance(v, float) else str(v)
            rows.append((key, f"{html.escape(text)} {unit}".strip()))
        rows += [(k, html.escape(v)) for k, v in _flow_figures(d)]
        if d.get("message"):
            rows.append(("message", html.escape(str(d["message"]))))
        body = "".join(f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
                       for k, v in rows)  # fmt: skip
        return f"<table><caption>{html.escape(str(d.get('topology')))}</caption>{body}</table>"

    def __repr__(self) -> str:
        d = self._data
        unit = d.get("bandwidth_unit", "")
        if "ebb" in d:  # hpcnetsim.ebb: no status, load or VCs
            what = f"eBB={d['ebb']:.4g} of the link bandwidth, {d.get('nodes')} nodes"
        elif "pair_bandwidth" in d:  # hpcnetsim.mpigraph
            what = f"mpiGraph mean pair bandwidth={d['pair_bandwidth']['mean']:.4g} {unit}"
        elif "makespan" in d:  # flow.run_flows
            what = f"{len(d.get('rates', []))} flows, makespan={d['makespan']:.4g} {_time_unit(d)}"
        else:
            head = f"{d.get('routing')} vcs={d.get('vcs')}: {d.get('status')}"
            if "execution_time_cycles" in d:  # a causal workload: an execution time, no offered load
                t = d["execution_time_cycles"]
                what = (f"{head}, {d.get('kernel')} on {d.get('tasks')} tasks, "
                        f"execution_time={'-' if t is None else f'{t} cycles'}")  # fmt: skip
            else:
                # A partial run keeps the accepted load of the batches it measured.
                a = d.get("accepted_load")
                acc = "accepted=-" if a is None else f"accepted={a:.4g}"
                what = f"{head}, offered={d.get('offered_load')}, {acc}, saturated={d.get('saturated')}"
            return f"SimulationResult({d.get('topology')} {what})"
        return f"SimulationResult({d.get('topology')} {d.get('routing')}: {what})"


def _flow_figures(d: dict[str, Any]) -> list[tuple[str, str]]:
    """The main figures of a flow-model result (eBB, mpiGraph, a flow run), for its table."""
    unit = d.get("bandwidth_unit", "")
    if "ebb" in d:
        return [("ebb", f"{d['ebb']:.4g} of the link bandwidth"), ("ebb_bandwidth", f"{d['ebb_bandwidth']:.4g} {unit}"),
                ("nodes", str(d.get("nodes"))), ("samples", str(d.get("samples")))]  # fmt: skip
    if "pair_bandwidth" in d:
        return [("pair_bandwidth mean", f"{d['pair_bandwidth']['mean']:.4g} {unit}"),
                ("worst_streams_per_cable", str(d.get("worst_streams_per_cable")))]  # fmt: skip
    if "makespan" in d:
        return [("flows", str(len(d.get("rates", [])))), ("makespan", f"{d['makespan']:.4g} {_time_unit(d)}")]
    return []


def _time_unit(d: dict[str, Any]) -> str:
    """The unit of a flow run's times as text: ``cycles`` for the core's ``cycle``."""
    return {"cycle": "cycles"}.get(d.get("time_unit"), d.get("time_unit"))


def rate(count: float, seconds: float) -> float:
    """``count / seconds``, NaN when no time was measured."""
    return count / seconds if seconds and seconds > 0 else math.nan


def check_run_options(max_cycles: int | None, threads: int, progress=None, max_seconds=None) -> None:
    """Raises :class:`ConfigError` for a ``max_cycles`` or ``threads`` out of range, as the core
    does for ``max_seconds``: the core takes them as unsigned integers, and would refuse a
    negative one with a bare OverflowError, and take a boolean as 0 or 1 (a ``max_seconds`` of
    ``True`` as one second). ``threads`` is at most ``hpcnetsim run --threads``'s maximum
    (:func:`cores.max_workers`). Other types stay the core's TypeError. A ``progress`` that
    cannot be called is named before the run, not when it first reports."""
    if isinstance(max_cycles, int) and (isinstance(max_cycles, bool) or not 1 <= max_cycles < 2**64):
        raise ConfigError(f"run: max_cycles = {max_cycles} is invalid: a positive number of cycles below 2^64")
    if isinstance(max_seconds, bool):
        raise ConfigError(f"run: max_seconds = {max_seconds} is invalid: a positive number of seconds")
    if isinstance(threads, int) and (isinstance(threads, bool) or not 0 <= threads < 2**64):
        raise ConfigError(f"run: threads = {threads} is invalid: a whole number of threads >= 0 (0: automatic)")
    # The core would take any count and cap it without a word; `--threads` refuses more.
    from .cores import too_many_threads

    if isinstance(threads, int) and (too_many := too_many_threads(threads)):
        raise ConfigError(f"run: threads = {too_many}")
    if progress is not None and not callable(progress):
        raise ConfigError(f"run: progress = {progress!r} is invalid: a function taking a dict, or None")


def simulate(
    config: ConfigSource,
    *,
    progress: Callable[[dict], None] | None = None,
    max_seconds: float | None = None,
    max_cycles: int | None = None,
    check: bool = False,
    threads: int = 0,
) -> SimulationResult:
    """Run one simulation of ``config`` (a dict or the path of a TOML file).

    Ctrl-C raises :class:`KeyboardInterrupt` within a fraction of a second. ``progress`` is
    called about every 100 ms with a dict (``cycle``, ``phase``, ``in_flight``, ``delivered``,
    ``wall_seconds``). After ``max_seconds`` of wall-clock time or ``max_cycles`` simulated
    cycles the run stops with status ``partial``. ``check`` verifies the engine's invariants
    as it runs (docs/reliability.md). ``threads`` is the number of threads of the simulation (0:
    one below 40 000 channels; from there, one or all cores, whichever runs faster, measured as
    the run goes); results do not depend on it.
    """
    from .units import with_physical

    check_run_options(max_cycles, threads, progress, max_seconds)
    cfg = to_json(load_config(config))
    with naming_file(config):
        text = _core.simulate(cfg, progress, max_seconds, max_cycles, check, threads)
    return SimulationResult(json.loads(with_physical(text, cfg)))


def workload_cycle_ns(config_json: str, workload: dict) -> float:
    """One network cycle in ns for traced times, as the core resolves ``workload.cycle_ns``: its
    own value when set, else the clock of ``[link]`` (1 ns without one)."""
    from .units import physical

    own = workload.get("cycle_ns", 1.0)
    return own if own != 1.0 else physical(config_json)["cycle_ns"]


def execute(
    config: ConfigSource,
    *,
    progress: Callable[[dict], None] | None = None,
    max_seconds: float | None = None,
    max_cycles: int | None = None,
    check: bool = False,
    threads: int = 0,
) -> SimulationResult:
    """Run the causal workload of ``config`` (its ``[workload]`` table) to completion.

    The result has ``status`` (``completed``, ``deadlock`` or ``partial``),
    ``execution_time_cycles``, ``messages``, ``message_latency``, ``consumed_load`` per time
    bin and, for a deadlocked workload, ``blocked`` (what the waiting tasks wait for) and
    ``blocked_channels`` when packets are stuck. Arguments as for :func:`simulate`.
    """
    check_run_options(max_cycles, threads, progress, max_seconds)
    cfg = load_config(config)
    w = cfg.get("workload")
    # Not a table: the core names it (below) as it does any other value of the wrong type.
    w = w if isinstance(w, dict) else {}
    from .inputs.otf2_trace import is_otf2

    if w.get("trace") and is_otf2(w["trace"], w.get("format", "auto")):
        # OTF2 archives are read here (the otf2 package) and replayed as a text trace.
        from .inputs.otf2_trace import to_text
        from .units import with_physical

        rest = {**cfg, "workload": {k: v for k, v in w.items() if k not in ("trace", "format")}}
        rest_json = to_json(rest)
        # Every value is checked before the archive is read (its times are converted with
        # workload.cycle_ns), so a bad value is named as such.
        with naming_file(config):
            _core.config_from_json(rest_json)
        # Traced seconds become cycles of the network's clock ([link]) as for the other formats.
        text, _ = to_text(w["trace"], workload_cycle_ns(rest_json, w))
        name = f"trace {os.path.basename(str(w['trace']))}"
        with naming_file(config):
            result = _core.execute_program(rest_json, name, text, progress, max_seconds, max_cycles, check, threads)
        return SimulationResult(json.loads(with_physical(result, rest_json)))
    from .units import with_physical

    cfg_json = to_json(cfg)
    with naming_file(config):
        text = _core.execute(cfg_json, progress, max_seconds, max_cycles, check, threads)
    return SimulationResult(json.loads(with_physical(text, cfg_json)))


#: Most offered loads of one load curve (each is a whole simulation).
MAX_LOADS = 1000


def check_loads(loads) -> list[float]:
    """The loads as floats in [0, 1], each once, at most :data:`MAX_LOADS`; raises
    :class:`ConfigError` otherwise."""
    out = []
    if isinstance(loads, (str, bytes)):
        loads = [loads]
    # load_curve(config, 0.2): a number, or None; a dict's keys are no loads either.
    elif not hasattr(loads, "__iter__") or isinstance(loads, dict):
        raise ConfigError(f"loads = {loads!r} is invalid: a list of offered loads, each in [0, 1]")
    loads = list(loads)
    if len(loads) > MAX_LOADS:
        raise ConfigError(f"loads = {len(loads)} values is invalid: at most {MAX_LOADS} offered loads")
    for x in loads:
        try:
            if isinstance(x, bool):  # True is no load of 1.0
                raise TypeError
            v = float(x)
        except (TypeError, ValueError):
            raise ConfigError(f"load = {x!r} is invalid: phits per cycle per node in [0, 1]") from None
        if not 0.0 <= v <= 1.0:
            raise ConfigError(f"load = {x!r} is invalid: phits per cycle per node in [0, 1]")
        if v in out:
            raise ConfigError(f"load = {x!r} is invalid: listed twice (each offered load once)")
        out.append(v)
    if not out:
        raise ConfigError("loads = [] is invalid: at least one offered load")
    return out


def load_curve_results(
    config: ConfigSource,
    loads,
    *,
    progress: Callable[[dict], None] | None = None,
    max_seconds: float | None = None,
    max_cycles: int | None = None,
    check: bool = False,
    threads: int = 0,
) -> list[SimulationResult]:
    """Run ``config`` at every offered load; results sorted by offered load. Without a run
    option the core runs the loads side by side; with a budget, ``check``, ``threads`` or
    ``progress`` (those of :func:`simulate`), one load after the other, each under the
    options (a budget is per load), as ``hpcnetsim run --loads``. ``progress`` gets the
    dict of :func:`simulate` with the run's ``offered_load``."""
    from .units import add_physical, physical

    loads = check_loads(loads)
    check_run_options(max_cycles, threads, progress, max_seconds)
    if progress is None and all(o in (None, False, 0) for o in (max_seconds, max_cycles, check, threads)):
        cfg = to_json(load_config(config))
        clock = physical(cfg)
        # As in `simulate`: an error only running finds (a pattern the network cannot take) names the file.
        with naming_file(config):
            results = json.loads(_core.load_curve(cfg, loads))
        return sorted((SimulationResult(add_physical(r, clock)) for r in results), key=lambda r: r.offered_load)
    # Checked (and named) before the first load runs: the loads below change traffic.load only.
    with naming_file(config):
        cfg = resolve(load_config(config))
    out = []
    for load in sorted(loads):
        point = {**cfg, "traffic": {**cfg["traffic"], "load": load}}
        report = None if progress is None else (lambda d, load=load: progress({**d, "offered_load": load}))
        with naming_file(config):
            out.append(simulate(point, progress=report, max_seconds=max_seconds, max_cycles=max_cycles,
                                check=check, threads=threads))  # fmt: skip
    return out


def csv_value(value: Any) -> Any:
    """A result value as a CSV cell: a list or dict (a run's ``jobs``, ``consumed_load``) as JSON
    text, which other tools parse, not Python's repr (``[{'kernel': 'bt', ...}]``)."""
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def csv_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its lists and dicts as JSON text (:func:`csv_value`), for ``to_csv``."""
    return frame.apply(lambda column: column.map(csv_value) if column.dtype == object else column)


def curve_frame(results: list[SimulationResult]) -> pd.DataFrame:
    """One row per result, flattened columns as in :meth:`SimulationResult.to_pandas`."""
    import pandas

    return pandas.DataFrame([flatten(r._data) for r in results])


def load_curve(
    config: ConfigSource,
    loads,
    *,
    progress: Callable[[dict], None] | None = None,
    max_seconds: float | None = None,
    max_cycles: int | None = None,
    check: bool = False,
    threads: int = 0,
) -> pd.DataFrame:
    """Run ``config`` at every offered load; one row per load, sorted by offered load. The
    run options are those of :func:`simulate`, applied to each load (a budget is per load),
    as for ``hpcnetsim run --loads``."""
    options = {"progress": progress, "max_seconds": max_seconds, "max_cycles": max_cycles, "check": check,
               "threads": threads}  # fmt: skip
    return curve_frame(load_curve_results(config, loads, **options))
