"""The procurement study (``studies/procurement.toml``, ``runner = "procurement"``): network
families sized to one budget per endpoint class (:mod:`hpcnetsim.procurement`), then measured.

The packet simulations (saturation throughput per traffic pattern over a load grid; alltoall
and allreduce as causal workloads) are the points of an ordinary experiment, run by the sweep
machinery: local processes or a Dask scheduler, stored under ``OUT/store`` and resumed like any
sweep. eBB runs in the flow model in this process. The report (``OUT/report.html``, also
``report.md``, ``summary.md`` and ``results.json``) is written by
:mod:`hpcnetsim.reports.procurement_report`.
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from .._core import ConfigError
from ..canonical import shown

RUNNER = "procurement"
KEYS = ("name", "title", "description", "runner", "demo", "seed", "classes", "max_radix", "max_ratio", "families",
        "patterns", "loads", "routing", "base", "ebb", "collectives", "quick")  # fmt: skip
QUICK_KEYS = ("classes", "loads", "base", "ebb", "collectives", "patterns", "families")
PATTERNS = ("uniform", "random-permutation", "worst-case")
COLLECTIVES = {"alltoall": "alltoall_bytes", "allreduce": "allreduce_bytes"}
#: The keys of each table of the study file (``[routing]`` per family).
SECTION_KEYS = {
    "ebb": ("samples", "max_nodes"),
    "collectives": ("alltoall_bytes", "allreduce_bytes", "max_tasks"),
}
ROUTING_KEYS = ("algorithm", "worst_case")
#: Config fields every point's config gets from the runner, not from ``[base]``: a value there
#: would be replaced without a word.
RUNNER_FIELDS = {"topology": "the sized network of each family", "seed": "the top-level seed",
                 "routing.algorithm": "[routing]", "traffic.pattern": "patterns and [routing]",
                 "traffic.load": "loads", "workload": "[collectives]"}  # fmt: skip


def is_procurement_study(path: Path) -> bool:
    """Whether the study file at ``path`` asks for this runner."""
    try:
        return tomllib.loads(Path(path).read_text()).get("runner") == RUNNER
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def _merge(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in extra.items():
        out[k] = _merge(out.get(k, {}), v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _list(study: dict, key: str, where: str, check) -> list:
    value = study.get(key)
    if not isinstance(value, list) or not value or not all(check(v) for v in value):
        raise ConfigError(f"{where}: {key} = {shown(value)} is invalid: {check.__doc__}")
    return value


def _positive_int(v) -> bool:
    """a non-empty list of integers >= 2"""
    return isinstance(v, int) and not isinstance(v, bool) and v >= 2


def _load(v) -> bool:
    """a non-empty list of offered loads in (0, 1]"""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 1


def load(path: str | Path, quick: bool = False) -> dict[str, Any]:
    """The study file, checked, with its ``[quick]`` overrides applied if asked (and checked
    either way). A bad key or value raises :class:`ConfigError` naming the file and the field."""
    from ..procurement import FAMILIES

    path = Path(path)
    try:
        study = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"study file = {shown(str(path))} is invalid: {e}") from None
    where = str(path)
    for section, keys, prefix in ((study, KEYS, ""), (study.get("quick", {}), QUICK_KEYS, "quick.")):
        unknown = sorted(set(section) - set(keys))
        if unknown:
            raise ConfigError(f"{where}: key = {prefix}{shown(unknown[0])} is invalid: one of {', '.join(keys)}")
    for section, prefix in ((study, ""), (study.get("quick", {}), "quick.")):
        _check_tables(section, prefix, where)
    if quick:
        study = _merge(study, study.get("quick", {}))
    study["quick_variant"] = quick
    name = study.get("name")
    if not isinstance(name, str) or not re.match(r"^[a-z0-9][a-z0-9_-]*$", name):
        raise ConfigError(f"{where}: name = {shown(name)} is invalid: lowercase letters, digits, '-' and '_'")
    for key in ("title", "description"):
        if key in study and not isinstance(study[key], str):
            raise ConfigError(f"{where}: {key} = {shown(study[key])} is invalid: a string")
    if "demo" in study and not isinstance(study["demo"], bool):
        raise ConfigError(f"{where}: demo = {shown(study['demo'])} is invalid: true or false")
    study.setdefault("title", name)
    study.setdefault("description", "")

    def family(v) -> bool:
        """a non-empty list of families: fat-tree, fat-tree-2to1, thin-tree, dragonfly, hyperx, slimfly, torus"""
        return v in FAMILIES

    def pattern(v) -> bool:
        """a non-empty list of uniform, random-permutation, worst-case"""
        return v in PATTERNS

    _list(study, "classes", where, _positive_int)
    _list(study, "loads", where, _load)
    _list(study, "families", where, family)
    _list(study, "patterns", where, pattern)
    if "fat-tree" not in study["families"]:
        raise ConfigError(f"{where}: families = {shown(study['families'])} is invalid: must include fat-tree (it sets the budget)")
    radix = study.get("max_radix", 64)
    if not isinstance(radix, int) or isinstance(radix, bool) or radix < 4:
        raise ConfigError(f"{where}: max_radix = {shown(radix)} is invalid: an integer >= 4 (switch ports)")
    ratio = study.get("max_ratio", 2.0)
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 1 <= ratio < math.inf:
        raise ConfigError(f"{where}: max_ratio = {shown(ratio)} is invalid: a finite number >= 1")
    routing = study.get("routing", {})
    if not isinstance(routing, dict):
        raise ConfigError(f"{where}: routing = {shown(routing)} is invalid: a table of families")
    for fam, r in routing.items():
        if fam not in FAMILIES:
            raise ConfigError(
                f"{where}: routing.{fam} is invalid: not a family: one of {', '.join(FAMILIES)}"
            )
        extra = sorted(set(r) - set(ROUTING_KEYS)) if isinstance(r, dict) else []
        if extra:
            raise ConfigError(
                f"{where}: routing.{fam}.{extra[0]} is not a field: one of {', '.join(ROUTING_KEYS)}"
            )
    for fam in study["families"]:
        r = routing.get(fam)
        if not isinstance(r, dict) or not isinstance(r.get("algorithm"), str) or not isinstance(r.get("worst_case"), str):
            raise ConfigError(f"{where}: routing.{fam} = {shown(r)} is invalid: a table with algorithm and worst_case")
    for key, default, low in (("samples", 100, 1), ("max_nodes", 8192, 2)):
        v = study.get("ebb", {}).get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ConfigError(f"{where}: ebb.{key} = {shown(v)} is invalid: an integer >= {low}")
    coll = study.setdefault("collectives", {})
    for key in (*COLLECTIVES.values(), "max_tasks"):
        v = coll.setdefault(key, {"alltoall_bytes": 1024, "allreduce_bytes": 1048576, "max_tasks": 8192}[key])
        low = 2 if key == "max_tasks" else 1
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ConfigError(f"{where}: collectives.{key} = {shown(v)} is invalid: an integer >= {low}")
    if not quick and study.get("quick"):
        # [quick] is checked when not used, as an experiment file's is: a value only the quick
        # variant sets is refused before the full study runs, not when --quick is first tried.
        try:
            load(path, quick=True)
        except ConfigError as e:
            raise ConfigError(f"{e} (in the [quick] variant)") from None
    return study


def _check_tables(section: Any, prefix: str, where: str) -> None:
    """Refuses an unknown key of ``[ebb]`` or ``[collectives]`` and a ``[base]`` field the runner
    sets itself (each would be left unread)."""
    if not isinstance(section, dict):
        raise ConfigError(f"{where}: {prefix.rstrip('.')} = {shown(section)} is invalid: a table")
    for table, keys in SECTION_KEYS.items():
        value = section.get(table, {})
        if not isinstance(value, dict):
            raise ConfigError(
                f"{where}: {prefix}{table} = {shown(value)} is invalid: a table of {', '.join(keys)}"
            )
        extra = sorted(set(value) - set(keys))
        if extra:
            raise ConfigError(f"{where}: {prefix}{table}.{extra[0]} is not a field: one of {', '.join(keys)}")
    base = section.get("base", {})
    if not isinstance(base, dict):
        raise ConfigError(
            f"{where}: {prefix}base = {shown(base)} is invalid: a table of config fields (docs/config.md)"
        )
    for path in _paths(base):
        for field, source in RUNNER_FIELDS.items():
            if path == field or path.startswith(field + "."):
                raise ConfigError(f"{where}: {prefix}base.{path} is invalid: the runner sets {field} from {source}; "
                                  "leave it out of [base]")  # fmt: skip


def _paths(table: dict, prefix: str = "") -> list[str]:
    """The dotted path of every key of ``table`` and of its sub-tables."""
    out = []
    for k, v in table.items():
        out.append(prefix + str(k))
        if isinstance(v, dict):
            out += _paths(v, prefix + str(k) + ".")
    return out


def _config(study: dict, spec: str, family: str) -> dict[str, Any]:
    base = copy.deepcopy(study.get("base", {}))
    base.update(topology=spec, seed=study.get("seed", 1))
    base.setdefault("routing", {})["algorithm"] = study["routing"][family]["algorithm"]
    return base


def plan(study: dict, pricer=None):
    """The sizing of every class (``{class: [Choice]}``) and the experiment of its simulations."""
    from ..canonical import canonical_config, config_key
    from ..experiments.experiment import Experiment, Point
    from ..procurement import size_class

    sizing = {}
    points: list[Point] = []
    seen: set[str] = set()

    def add(group: str, values: dict, config: dict) -> None:
        try:
            config = canonical_config(config)
        except ConfigError as e:
            raise ConfigError(f"procurement: {values['network']}: {e}") from None
        key = config_key(config)
        if key not in seen:
            seen.add(key)
            points.append(Point(len(points), group, values, config, key, key, 0))

    for target in study["classes"]:
        choices = size_class(target, study["families"], study.get("max_radix", 64), None,
                             float(study.get("max_ratio", 2.0)), pricer)  # fmt: skip
        sizing[target] = choices
        for c in choices:
            if c.spec is None:
                continue
            group = f"n{target}"
            base = _config(study, c.spec, c.family)
            for pattern in study["patterns"]:
                name = study["routing"][c.family]["worst_case"] if pattern == "worst-case" else pattern
                for load in study["loads"]:
                    cfg = _merge(base, {"traffic": {"pattern": name, "load": float(load)}})
                    add(group, {"class": target, "family": c.family, "network": c.spec, "pattern": pattern,
                                "traffic.pattern": name, "traffic.load": float(load)}, cfg)  # fmt: skip
            coll = study["collectives"]
            tasks = min(c.endpoints, coll["max_tasks"])
            for kernel, size_key in COLLECTIVES.items():
                w = {"kernel": kernel, "message_bytes": coll[size_key], "tasks": tasks,
                     "placement": "linear" if tasks == c.endpoints else "random"}  # fmt: skip
                cfg = {k: v for k, v in base.items() if k != "measurement"}
                cfg["workload"] = w
                add(group, {"class": target, "family": c.family, "network": c.spec, "kernel": kernel}, cfg)
    exp = Experiment(study["name"], str(study.get("title", study["name"])), str(study.get("description", "")),
                     bool(study.get("quick_variant")), study.get("base", {}), points)  # fmt: skip
    return sizing, exp


def _ebb(study: dict, spec: str, family: str, endpoints: int) -> dict[str, Any]:
    """eBB in the flow model: every endpoint, or above ``ebb.max_nodes`` that many placed at
    random (a full bisection of 64 000 endpoints over spread adaptive paths takes hours)."""
    from ..flow import ebb

    cfg = _config(study, spec, family)
    cfg = {k: v for k, v in cfg.items() if k in ("topology", "seed", "routing", "switch")}
    e = study.get("ebb", {})
    cfg["flow"] = {"samples": e.get("samples", 100)}
    if endpoints > e.get("max_nodes", 8192):
        cfg["flow"].update(nodes=e.get("max_nodes", 8192), placement="random")
    try:
        r = ebb(cfg).to_dict()
        return {"ebb": r["ebb"], "ebb_p5": r["distribution"]["p5"], "ebb_p95": r["distribution"]["p95"],
                "ebb_nodes": r["nodes"]}  # fmt: skip
    except (ConfigError, ValueError, RuntimeError) as e:
        return {"ebb": None, "ebb_error": str(e).splitlines()[0]}


def measure_ebbs(study: dict, sizing: dict, log) -> dict[tuple[int, str], dict[str, Any]]:
    """The eBB of every class's chosen network, by (class, family); a network two classes
    choose is measured once (its eBB is the same for both)."""
    ebbs, measured = {}, {}
    for target, choices in sizing.items():
        for c in choices:
            if c.spec is None:
                continue
            if (c.family, c.spec) not in measured:
                log(f"eBB {c.spec} ({study['routing'][c.family]['algorithm']})")
                measured[(c.family, c.spec)] = _ebb(study, c.spec, c.family, c.endpoints)
            ebbs[(target, c.family)] = measured[(c.family, c.spec)]
    return ebbs


def measurements(study: dict, sizing: dict, exp, rows: dict[str, dict], ebbs: dict) -> list[dict[str, Any]]:
    """One row per (class, family): sizing, cost, power, saturation per pattern, eBB, collective
    times and throughput per cost and per watt; ``rows`` are the stored points by key."""
    out = []
    # By family and network, not by class: a network chosen for two classes (1 000 and 1 100
    # endpoints may both get `slimfly:q=9`) is simulated once, its points planned in the first.
    by_network: dict[tuple[str, str], list] = {}
    for p in exp.points:
        by_network.setdefault((p.values["family"], p.values["network"]), []).append(p)
    for target, choices in sizing.items():
        for c in choices:
            row: dict[str, Any] = {"class": target, "family": c.family, "label": c.label, "spec": c.spec,
                                   "routing": study["routing"][c.family]["algorithm"], "endpoints": c.endpoints,
                                   "switches": c.switches, "radix": c.radix, "budget_usd": c.budget_usd,
                                   "cost_usd": c.cost_usd if c.spec else None,
                                   "power_w": c.power_w if c.spec else None, "reason": c.reason}  # fmt: skip
            link_mb_s = cycle_ns = None
            for pattern in study["patterns"]:
                acc, bad = [], 0
                for p in by_network.get((c.family, c.spec), []):
                    if p.values.get("pattern") != pattern:
                        continue
                    r = rows.get(p.key, {})
                    if r.get("state") == "done" and r.get("status") == "converged" and r.get("accepted_load") is not None:
                        acc.append(float(r["accepted_load"]))
                        link_mb_s = link_mb_s or r.get("link_bandwidth_mb_s")
                        cycle_ns = cycle_ns or r.get("cycle_ns")
                    else:
                        bad += 1
                row[f"sat_{pattern}"] = max(acc) if acc else None
                row[f"unconverged_{pattern}"] = bad
            for kernel in COLLECTIVES:
                p = next((p for p in by_network.get((c.family, c.spec), []) if p.values.get("kernel") == kernel), None)
                r = rows.get(p.key, {}) if p else {}
                ok = r.get("state") == "done" and r.get("status") == "completed"
                row[f"{kernel}_cycles"] = r.get("execution_time_cycles") if ok else None
                row[f"{kernel}_tasks"] = p.config["workload"]["tasks"] if p else None
            row.update(ebbs.get((target, c.family), {"ebb": None}))
            row["link_mb_s"] = link_mb_s
            row["cycle_ns"] = cycle_ns
            sat = row.get("sat_uniform")
            if sat is not None and link_mb_s and c.spec:
                agg = sat * c.endpoints * link_mb_s / 1e3  # GB/s over the whole machine
                row["uniform_gb_s"] = agg
                row["gb_s_per_kusd"] = agg / (c.cost_usd / 1e3)
                row["gb_s_per_kw"] = agg / (c.power_w / 1e3)
            else:
                row["uniform_gb_s"] = row["gb_s_per_kusd"] = row["gb_s_per_kw"] = None
            out.append(row)
    return out


def point_counts(exp, rows: dict[str, dict]) -> dict[str, Any]:
    """The experiment's points by how they ended, from the store (``rows`` by key): those run
    before too, so that a second run of the study reports what the first computed."""
    statuses: dict[str, int] = {}
    failed = 0
    for p in exp.points:
        r = rows.get(p.key)
        if r is not None and r.get("state") == "failed":
            failed += 1
            continue
        status = "missing" if r is None else str(r.get("status") or "?")
        statuses[status] = statuses.get(status, 0) + 1
    return {"total": len(exp.points), "failed": failed, "statuses": statuses}


def run(path: Path, out: Path, quick: bool = False, jobs: int | None = None, scheduler: str | None = None,
        progress: bool = True, log=print) -> int:  # fmt: skip
    """Size, simulate (sweep machinery), compute eBB and write the report; the exit status
    (1 when simulations failed)."""
    from ..experiments import store
    from ..experiments.sweep import run_sweep
    from ..reports.procurement_report import write

    study = load(path, quick)
    out = Path(out)
    sizing, exp = plan(study)
    for target, choices in sizing.items():
        log(f"{target} endpoints, budget {choices[0].budget_usd:.4g} USD: " + ", ".join(
            f"{c.family} {c.spec or '(none)'}" for c in choices))  # fmt: skip
    where = scheduler or f"{jobs or 'all'} local processes"
    log(f"{exp.name}: {len(exp.points)} simulations, output {out}, on {where}")
    summary = run_sweep(exp, out, jobs=jobs, scheduler=scheduler, progress=progress)
    log(f"{summary.total} simulations: {summary.stored_before} already stored, {summary.ran} run, "
        f"{len(summary.failed)} failed; store {out / 'store'}")  # fmt: skip
    for key, error in summary.failed:
        log(f"failed {key[:12]}: {error}")
    rows = {r["key"]: r for r in store.read_rows(out)}
    ebbs = measure_ebbs(study, sizing, log)
    table = measurements(study, sizing, exp, rows, ebbs)
    results = {"study": {k: v for k, v in study.items() if k != "quick"}, "rows": table,
               "sizing": {str(t): [{"family": c.family, "spec": c.spec, "priced": c.priced, "reason": c.reason}
                                   for c in cs] for t, cs in sizing.items()},
               "points": point_counts(exp, rows)}  # fmt: skip
    page = write(results, out, Path(path).read_text())
    log(f"wrote {page}")
    # As `hpcnetsim sweep`: 1 when simulations of this run failed or deadlocked (their rows
    # then show a dash; the others are stored and reported either way).
    bad = len(summary.failed) + summary.statuses.get("deadlock", 0)
    if bad:
        print(f"{bad} of {summary.total} simulations failed or deadlocked", file=sys.stderr)
    return 1 if bad else 0


def results_json(out: Path) -> dict:
    """The ``results.json`` of a finished run."""
    return json.loads((Path(out) / "results.json").read_text())
