"""``hpcnetsim validate``: every published number of the five papers beside ours, with a verdict.

The published values are data (``published/000.toml`` ... ``004.toml``): where each one is in
its paper, its unit, its kind (which sets the tolerance), the named computation that gives
ours and the verdict it had at the last recorded run. Values that a study file already holds
(``studies/*.toml``) are referenced there (``from``), so each published number has one home.
Ours are always computed here, by running hpcnetsim: topology descriptions, routing tables,
the flow model, the Quadrics benchmarks and the studies' own simulation points, repeated with
seeds derived as for the studies' repetitions (mean and Student-t 95 % interval).

Verdicts: ``reproduced`` within tolerance; ``explained`` outside it, with the experiment that
isolates the cause (``explained_by``); ``open`` otherwise. A row recorded as ``reproduced``
that is no longer is a drift: the command then exits with status 1.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .._core import ConfigError
from ..metrics import COSTS

PAPERS = ("000", "001", "002", "003", "004")
#: Seeds per stochastic quantity unless ``--seeds`` says otherwise.
DEFAULT_SEEDS = 5

#: Relative tolerance by kind of quantity (counts are exact).
TOLERANCE = {"count": 0.0, "throughput": 0.05, "phi": 0.05, "time": 0.10, "bandwidth": 0.10}
VERDICTS = ("reproduced", "explained", "open")
#: cost function keys of `Topology.describe()` → the paper's names (Table 6)
COST_NAMES = {key: name for name, key in COSTS.items()}
#: Exit status when a row recorded as reproduced no longer is.
EXIT_DRIFT = 1
#: Fields of a quantity (the others of a row or group go to the computation's ``args``).
FIELDS = ("where", "quantity", "kind", "unit", "value", "from", "tolerance", "bound", "compute", "args",
          "quick", "large", "expected", "explained_by", "note", "columns", "rows", "values", "explained")  # fmt: skip


def data_dir() -> Path:
    """The built-in folder of published values."""
    return Path(__file__).resolve().parent.parent / "published"


@dataclass
class Quantity:
    """One published value and how ours is computed."""

    paper: str
    where: str
    quantity: str
    kind: str
    published: Any  # a number, or [low, high] for a published range
    compute: str
    args: dict[str, Any]
    unit: str = ""
    tolerance: float = 0.0
    bound: str = ""  # "below": reproduced when ours is below the published value
    quick: bool = True
    large: bool = False  # only with `validate --large`: the 4096-task runs of paper 000
    expected: str = ""
    explained_by: str = ""
    note: str = ""


@dataclass
class Row:
    """A quantity's outcome: ours (mean, 95 % half-width, seeds) and the verdict."""

    paper: str
    where: str
    quantity: str
    unit: str
    published: Any
    ours: float
    ci: float
    seeds: int
    tolerance: str
    verdict: str
    expected: str
    drift: bool
    explained_by: str
    note: str


# ---- the data ----


def _short(spec: str) -> str:
    """``tree:k=8,kp=4,n=2`` as the papers write it (``8:4,2``); other specs unchanged."""
    m = re.fullmatch(r"tree:k=(\d+),kp=(\d+),n=(\d+)", spec)
    return f"{m[1]}:{m[2]},{m[3]}" if m else spec


def _studies(cache: dict[str, dict]) -> Callable[[str], dict]:
    from .catalog import find

    def get(name: str) -> dict:
        if name not in cache:
            cache[name] = tomllib.loads(find(name).read_text())
        return cache[name]

    return get


def _number(v: Any, where: str) -> Any:
    """A published value: a number, or a range written "5-8" as [5, 8]."""
    if isinstance(v, bool):
        raise ConfigError(f"{where}: value = {v!r} is invalid: a number or a range 'LOW-HIGH'")
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.]+)\s*-\s*([0-9.]+)\s*", str(v))
    if m:
        return [float(m[1]), float(m[2])]
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: value = {v!r} is invalid: a number or a range 'LOW-HIGH'") from None


def _split_path(doc: dict, dotted: str, where: str) -> Any:
    """A dotted path whose last key may itself contain dots or spaces (``published.fig1.HyperX (PARX)``)."""
    head, _, rest = dotted.partition(".")
    node: Any = doc.get(head)
    while rest:
        if isinstance(node, dict) and rest in node:
            return node[rest]
        part, _, rest = rest.partition(".")
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"{where}: from.path = {dotted!r} is invalid: no such value in the study file")
        node = node[part]
    return node


def resolve(
    src: dict[str, Any], args: dict[str, Any], study: Callable[[str], dict], where: str
) -> dict[str, Any]:
    """The published value a study file holds (``from``), with its label, unit and section if given."""
    doc = study(src["study"])
    if "key" in args and "published" in doc and isinstance(doc["published"], list):  # quadrics-style list
        for p in doc["published"]:
            if p.get("key") == args["key"]:
                return {"value": p["value"], "quantity": p.get("label", args["key"]), "unit": p.get("unit", ""),
                        "where": p.get("source", "")}  # fmt: skip
        raise ConfigError(
            f"{where}: key = {args['key']!r} is invalid: not in {src['study']}'s published list"
        )
    if "performance" in src:
        for t in doc.get("report", {}).get("performance", []):
            if src["performance"] in t.get("title", ""):
                return {"value": t["published"][args["network"]][src.get("column", "phi")]}
        raise ConfigError(f"{where}: from.performance = {src['performance']!r} is invalid: no such table")
    if "comparison" in args:
        for c in doc.get("report", {}).get("comparisons", []):
            if c.get("text") == args["comparison"]:
                return {"value": c["published"]}
        raise ConfigError(f"{where}: comparison = {args['comparison']!r} is invalid: not in {src['study']}")
    if "table" in args:
        spec = _pair_spec(doc, args["table"], where)
        names = [n[0] for n in spec["networks"]]
        i = names.index(args["network"])
        for p in spec.get("published", []):
            if [str(v) for v in p[:2]] == [str(v) for v in args["row"]]:
                return {"value": p[2 + 3 * i + ("3D", "5DT", "reduction").index(args["field"])]}
        raise ConfigError(f"{where}: row = {args['row']!r} is invalid: not in {args['table']}")
    if "path" in src:
        value = _split_path(doc, src["path"], where)
        if "divide_by" in src:
            value = float(value) / float(_split_path(doc, src["divide_by"], where))
        return {"value": value}
    raise ConfigError(f"{where}: from = {src!r} is invalid: key, performance, comparison, table or path")


def _pair_spec(doc: dict, title: str, where: str) -> dict:
    for t in doc.get("report", {}).get("pair_tables", []):
        if t.get("title", "").startswith(title):
            return t
    raise ConfigError(f"{where}: table = {title!r} is invalid: no such [[report.pair_tables]] entry")


def _label(q: dict[str, Any], args: dict[str, Any], column: str | None) -> str:
    if q.get("quantity"):
        return q["quantity"]
    if column:
        return f"{_short(args['spec'])}: {column}"
    if "row" in args:
        kernel, size = args["row"]
        what = "5DT reduction of" if args.get("field") == "reduction" else f"{args.get('field')} torus,"
        metric = "network latency" if args.get("table") == "Table II" else "execution time"
        return f"{args['network']}: {what} {kernel} {size} B {metric}"
    if "comparison" in args:
        return args["comparison"]
    if "network" in args and "cost" in args:
        return f"φ/{COST_NAMES.get(args['cost'], args['cost'])}, {_short(args['network'])}"
    if "network" in args:
        return f"φ, {_short(args['network'])}" if q.get("kind") == "phi" else _short(args["network"])
    return str(args)


def _expand(paper: str, item: dict[str, Any], study, where_file: str) -> list[Quantity]:
    """The quantities of one ``[[quantity]]`` or ``[[group]]`` entry."""
    unknown = sorted(k for k in item if k not in FIELDS)
    if unknown:
        raise ConfigError(f"{where_file}: field = {unknown[0]!r} is invalid: one of {', '.join(FIELDS)}")
    rows = item.get("rows") or [{}]
    out = []
    for row in rows:
        q = {
            **{k: v for k, v in item.items() if k != "rows"},
            **{k: v for k, v in row.items() if k in FIELDS},
        }
        args = {**item.get("args", {}), **{k: v for k, v in row.items() if k not in FIELDS}}
        columns = item.get("columns") or [None]
        if item.get("columns") and (
            not isinstance(row.get("values"), list) or len(row["values"]) != len(columns)
        ):
            raise ConfigError(
                f"{where_file} ({item.get('where', '')}): values = {row.get('values')!r} is invalid: "
                f"one published value per column {columns}"
            )
        for i, column in enumerate(columns):
            a = dict(args)
            qq = dict(q)
            if column:
                a["key"] = column
                qq["value"] = row["values"][i]
                if column in row.get("explained", []):
                    qq["expected"] = "explained"
                else:
                    qq.pop("explained_by", None)
            where = f"{where_file} ({qq.get('where', '')}, {_label(qq, a, column)})"
            if "from" in qq:
                found = resolve(qq["from"], a, study, where)
                qq = {**{k: v for k, v in found.items() if k != "value" and v}, **qq, "value": found["value"]}
                qq["where"] = found.get("where") or qq.get("where", "")
                if found.get("quantity") and not q.get("quantity"):
                    qq["quantity"] = found["quantity"]
            kind = qq.get("kind", "")
            if kind not in TOLERANCE:
                raise ConfigError(f"{where}: kind = {kind!r} is invalid: one of {', '.join(TOLERANCE)}")
            if qq.get("compute") not in COMPUTATIONS:
                raise ConfigError(
                    f"{where}: compute = {qq.get('compute')!r} is invalid: one of {', '.join(COMPUTATIONS)}"
                )
            if qq.get("expected", "") not in ("", *VERDICTS):
                raise ConfigError(
                    f"{where}: expected = {qq['expected']!r} is invalid: one of {', '.join(VERDICTS)}"
                )
            if "value" not in qq:
                raise ConfigError(
                    f"{where}: value is missing: a published number, or from = {{ study = ... }}"
                )
            out.append(Quantity(
                paper=paper, where=str(qq.get("where", "")), quantity=_label(qq, a, column), kind=kind,
                published=_number(qq["value"], where), compute=qq["compute"], args=a, unit=str(qq.get("unit", "")),
                tolerance=float(qq.get("tolerance", TOLERANCE[kind])), bound=str(qq.get("bound", "")),
                quick=bool(qq.get("quick", True)) and not qq.get("large", False),
                large=bool(qq.get("large", False)), expected=qq.get("expected", ""),
                explained_by=str(qq.get("explained_by", "")), note=str(qq.get("note", "")),
            ))  # fmt: skip
    return out


#: The top-level keys of a published-value file.
FILE_KEYS = {"paper", "title", "quantity", "group"}


def load(papers: list[str] | None = None, folder: Path | None = None) -> list[Quantity]:
    """Every quantity of the published-value files of ``papers`` (all by default)."""
    folder = Path(folder) if folder else data_dir()
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise ConfigError(f"--data = {str(folder)!r} is invalid: no published-value files (*.toml) in it")
    cache: dict[str, dict] = {}
    study = _studies(cache)
    out: list[Quantity] = []
    for path in files:
        try:
            doc = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: invalid published-value file: {e}") from None
        unknown = sorted(set(doc) - FILE_KEYS)
        if unknown:
            allowed = ", ".join(sorted(FILE_KEYS))
            raise ConfigError(f"{path}: {unknown[0]} = {doc[unknown[0]]!r} is invalid: a published-value "
                              f"file holds only {allowed}")  # fmt: skip
        if not doc.get("quantity") and not doc.get("group"):
            raise ConfigError(f"{path}: no [[quantity]] or [[group]]: a published-value file lists at least one")
        paper = str(doc.get("paper", path.stem))
        if papers and paper not in papers:
            continue
        for item in doc.get("quantity", []) + doc.get("group", []):
            out.extend(_expand(paper, item, study, str(path)))
    return out


# ---- the computations: each returns one value per seed (one value when deterministic) ----


class Context:
    """Shared state of one validation run: seeds, worker threads and caches of runs."""

    def __init__(self, seeds: int, jobs: int, quick: bool):
        self.seeds, self.jobs, self.quick = seeds, jobs, quick
        self.cache: dict[Any, Any] = {}
        self._study_docs: dict[str, dict] = {}
        self.study = _studies(self._study_docs)

    def memo(self, key, fn):
        if key not in self.cache:
            self.cache[key] = fn()
        return self.cache[key]

    def points(self, study: str, sweep: str) -> list:
        """The points of one sweep of a study, each with ``seeds`` repetitions."""
        from ..experiments.experiment import parse
        from .catalog import find

        def build():
            # The sweep alone: a study runs a configuration shared by two sweeps once, under
            # the first, and this sweep must keep all of its points.
            # Its report figures may name the other sweeps: they are not drawn here.
            doc = {k: v for k, v in self.study(study).items() if k not in ("quick", "report")}
            doc["sweep"] = [g for g in doc.get("sweep", []) if g.get("name") == sweep]
            if not doc["sweep"]:
                raise ConfigError(f"sweep = {sweep!r} is invalid: no such sweep in study {study}")
            return parse(doc, str(find(study)), repetitions=self.seeds, folder=str(find(study).parent)).points

        return self.memo(("points", study, sweep, self.seeds), build)

    def run(self, points: list) -> list[dict]:
        """Results of ``points`` (cached by point key), computed on ``jobs`` threads."""
        import json

        from ..config import to_json
        from ..experiments.worker import run_point

        todo = [p for p in points if ("run", p.key) not in self.cache]
        # The sweeps' own task: one thread per simulation, a kernel that cannot take the task
        # count comes back as status "skipped".
        with ThreadPoolExecutor(max(1, self.jobs)) as pool:
            for p, (result, error) in zip(todo, pool.map(lambda p: run_point(to_json(p.config)), todo)):
                if error:
                    raise ConfigError(f"{p.config['topology']}: {error}")
                self.cache[("run", p.key)] = json.loads(result)
        return [self.cache[("run", p.key)] for p in points]


def _describe(q: Quantity, ctx: Context) -> list[float]:
    """A ``topo describe`` key; with ``cost = {...}`` (cost-table overrides, docs/cost.md) a
    key of the cost model under that layout instead."""
    from ..topology import Topology, describe

    a = q.args
    if "cost" in a:
        c = ctx.memo(
            ("cost", a["spec"], repr(a["cost"])), lambda: Topology.from_spec(a["spec"]).cost(a["cost"])
        )
        return [float(c[a["key"]])]
    d = ctx.memo(("describe", a["spec"]), lambda: describe(a["spec"]))
    v = float(d[a["key"]])
    if "minus" in a:
        v -= float(ctx.memo(("describe", a["minus"]), lambda: describe(a["minus"]))[a["key"]])
    return [v]


def _lanes(q: Quantity, ctx: Context) -> list[float]:
    from ..routing import route

    a = q.args
    r = ctx.memo(("route", a["spec"], a["engine"], a.get("lmc", 0)),
                 lambda: route(a["spec"], a["engine"], lmc=int(a.get("lmc", 0))))  # fmt: skip
    return [float(r["vls_used"])]


def _hyperx_config(ctx: Context, network: str, engine: str, placement: str) -> dict:
    """A flow config of study hyperx on its network with ``engine``'s tables (computed once)."""
    import tempfile

    from ..routing import route

    doc = ctx.study("hyperx")
    spec = doc["networks"][network]
    # The tables' dumps live as long as the run (removed by run()).
    folder = Path(
        ctx.memo("tables-dir", lambda: tempfile.TemporaryDirectory(prefix="hpcnetsim-validate-")).name
    )

    def dump():
        r = route(spec, engine, lmc=2 if engine == "parx" else 0, dump=True)
        path = folder / f"{network}-{engine}.lft"
        path.write_text(r["dump"])
        return str(path)

    tables = ctx.memo(("tables", network, engine), dump)
    routing: dict[str, Any] = {"algorithm": "table", "tables": tables}
    if engine == "parx":
        routing["address"] = "parx"
    return {"topology": spec, "seed": doc.get("seed", 1), "switch": {"vcs": doc.get("vcs", 8)}, "routing": routing,
            "flow": {"link_bandwidth": doc.get("link_bandwidth", 4e9), "placement": placement}}  # fmt: skip


def _mpigraph(q: Quantity, ctx: Context) -> list[float]:
    from ..flow import mpigraph

    doc = ctx.study("hyperx")
    mg = doc["mpigraph"]

    def measure(network: str, engine: str) -> dict:
        def go():
            cfg = _hyperx_config(ctx, network, engine, "linear")
            cfg["flow"].update(nodes=mg["nodes"], message_bytes=mg.get("message_bytes", 2**20))
            return mpigraph(cfg).to_dict()

        return ctx.memo(("mpigraph", network, engine), go)

    r = measure("hyperx", q.args["engine"])
    if q.args["stat"] == "worst_streams_per_cable":
        return [float(r["worst_streams_per_cable"])]
    tree = measure("fat-tree", "ftree")
    return [r["pair_bandwidth"]["mean"] / tree["pair_bandwidth"]["mean"]]


def _ebb_ratio(q: Quantity, ctx: Context) -> list[float]:
    """eBB of HyperX / PARX / clustered over that of ``over`` (study hyperx's network, engine and
    placement; default HyperX / DFSSSP / linear), per seed; with a list of ``nodes``, the mean of
    the ratios at each count."""
    from ..confidence import repetition_seeds
    from ..flow import ebb

    a = q.args
    over = a.get("over", {"network": "hyperx", "engine": "dfsssp", "placement": "linear"})
    counts = a["nodes"] if isinstance(a["nodes"], list) else [a["nodes"]]
    out = []
    for seed in repetition_seeds(ctx.study("hyperx").get("seed", 1), ctx.seeds):
        ratios = []
        for nodes in counts:
            values = []
            for network, engine, placement in (("hyperx", "parx", "clustered"),
                                               (over["network"], over["engine"], over["placement"])):  # fmt: skip
                cfg = _hyperx_config(ctx, network, engine, placement)
                cfg["seed"] = seed
                cfg["flow"].update(nodes=int(nodes), samples=int(a.get("samples", 1000)),
                                   message_bytes=int(a.get("message_bytes", 2**20)))  # fmt: skip
                key = ("ebb", network, engine, placement, seed, str(cfg["flow"]))
                values.append(ctx.memo(key, lambda c=cfg: ebb(c).to_dict())["ebb"])
            ratios.append(values[0] / values[1])
        out.append(sum(ratios) / len(ratios))
    return out


def _quadrics(q: Quantity, ctx: Context) -> list[float]:
    from .quadrics import compute

    ours = ctx.memo("quadrics", lambda: compute(ctx.study("quadrics"), quick=False)[0])
    return [float(ours[q.args["key"]])]


def _times(ctx: Context, study: str, sweep: str, kernel: str = "max") -> dict[tuple[str, str, int], float]:
    """(topology, kernel, repetition) → execution time of the points of a causal sweep (those
    of ``kernel`` only, unless it is ``max``: every kernel)."""
    pts = [p for p in ctx.points(study, sweep) if kernel == "max" or p.config["workload"]["kernel"] == kernel]
    results = ctx.run(pts)
    out = {}
    for p, r in zip(pts, results):
        if r.get("status") == "skipped":
            continue
        if r.get("status") != "completed":
            raise ConfigError(f"study {study}, sweep {sweep}: {p.config['topology']} {p.config['workload']['kernel']} "
                              f"ended {r.get('status')!r}")  # fmt: skip
        out[(p.config["topology"], p.config["workload"]["kernel"], p.repetition)] = float(
            r["execution_time_cycles"]
        )
    return out


def _ratios(ctx: Context, a: dict, network: str) -> dict[int, dict[str, float]]:
    """repetition → kernel → time on ``network`` / time on the reference."""
    times = _times(ctx, a["study"], a["sweep"], a.get("kernel", "max"))
    out: dict[int, dict[str, float]] = {}
    for (topo, kernel, rep), t in times.items():
        if topo == network:
            out.setdefault(rep, {})[kernel] = t / times[(a["reference"], kernel, rep)]
    if not out:
        raise ConfigError(
            f"network = {network!r} is invalid: not in sweep {a['sweep']} of study {a['study']}"
        )
    return out


def _phi(q: Quantity, ctx: Context) -> list[float]:
    from ..metrics import phi

    return [phi(r) for _, r in sorted(_ratios(ctx, q.args, q.args["network"]).items())]


def _phi_cost(q: Quantity, ctx: Context) -> list[float]:
    """φ per cost normalized to the reference (paper 000 Table 6): φ · c_reference / c, with the
    cost function ``cost`` (cost_constant, cost_linear or cost_quadratic) of the built graphs."""
    from ..metrics import cost_efficiency
    from ..topology import describe

    a = q.args
    cost = {n: float(ctx.memo(("describe", n), lambda n=n: describe(n))[a["cost"]]) for n in (a["network"], a["reference"])}
    return [cost_efficiency(v, cost[a["network"]], 1.0, cost[a["reference"]]) for v in _phi(q, ctx)]


def _time_ratio(q: Quantity, ctx: Context) -> list[float]:
    """Time on ``network`` over the reference's, of ``kernel`` or the largest over the kernels
    (``max``), per repetition. ``network = "max"``: the largest over every network of the sweep
    but the reference, repetition by repetition (a paper's "slowdowns of up to N")."""
    a = q.args
    kernel = a["kernel"]
    if a["network"] == "max":
        times = _times(ctx, a["study"], a["sweep"], kernel)
        networks = sorted({topo for topo, _, _ in times} - {a["reference"]})
    else:
        networks = [a["network"]]
    per_network = [_ratios(ctx, a, n) for n in networks]
    reps = sorted(set.intersection(*(set(r) for r in per_network)))

    def value(r: dict[str, float]) -> float:
        return max(r.values()) if kernel == "max" else r[kernel]

    return [max(value(r[rep]) for r in per_network) for rep in reps]


def _faster_than_reference(q: Quantity, ctx: Context) -> list[float]:
    """How many (network, kernel) pairs take less time than the reference (mean over the seeds)."""
    times = _times(ctx, q.args["study"], q.args["sweep"])
    pairs = {(t, k) for t, k, _ in times if t != q.args["reference"]}
    count = 0
    for topo, kernel in pairs:
        reps = [r for t, k, r in times if (t, k) == (topo, kernel)]
        mine = sum(times[(topo, kernel, r)] for r in reps)
        ref = sum(times[(q.args["reference"], kernel, r)] for r in reps)
        count += mine < ref
    return [float(count)]


def _matches(config: dict, where: dict[str, Any]) -> bool:
    """Whether ``config`` has every dotted path of ``where`` (``routing.algorithm``) at its value."""

    def get(path: str) -> Any:
        node: Any = config
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    return all(str(get(k)) == str(v) for k, v in where.items())


def _comparison(q: Quantity, ctx: Context) -> list[float]:
    """A ``[[report.comparisons]]`` statement of the study, per seed: the change in percent of
    the highest accepted load (increase) or of the network latency at the lowest load (reduction)."""
    from .comparisons import change

    a = q.args
    spec = next(c for c in ctx.study(a["study"])["report"]["comparisons"] if c["text"] == a["comparison"])
    metric = spec.get("metric", "max_accepted")
    loads = [float(x) for x in a["loads"]]
    if metric != "max_accepted":
        loads = [min(loads)]
    pts = [p for p in ctx.points(a["study"], a["sweep"]) if float(p.config["traffic"]["load"]) in loads]
    side_pts = {s: [p for p in pts if _matches(p.config, spec[s])] for s in ("baseline", "candidate")}
    results = ctx.run(side_pts["baseline"] + side_pts["candidate"])
    # As the study's report: converged points only; each curve at its load of highest mean
    # accepted load (or at the lowest load for latency), one value per seed there.
    chosen: dict[str, dict[int, float]] = {}
    i = 0
    for side in ("baseline", "candidate"):
        by_load: dict[float, dict[int, float]] = {}
        for p in side_pts[side]:
            r = results[i]
            i += 1
            if r.get("status") == "converged":
                v = r["accepted_load"] if metric == "max_accepted" else r["latency"]["network"]["mean"]
                by_load.setdefault(float(p.config["traffic"]["load"]), {})[p.repetition] = v
        if not by_load:
            raise ConfigError(
                f"comparison = {a['comparison']!r}: no converged point of sweep {a['sweep']} on its {side} curve"
            )
        best = max(by_load, key=lambda load: sum(by_load[load].values()) / len(by_load[load]))
        chosen[side] = by_load[best]
    kind = "increase" if metric == "max_accepted" else "reduction"
    reps = sorted(set(chosen["baseline"]) & set(chosen["candidate"]))
    return [change(chosen["baseline"][r], chosen["candidate"][r], kind) for r in reps]


def _pair_table(q: Quantity, ctx: Context) -> list[float]:
    """A row of a ``[[report.pair_tables]]`` table, per seed: the baseline's or the candidate's
    metric, or the reduction in percent from one to the other."""
    from .comparisons import change

    a = q.args
    spec = _pair_spec(ctx.study(a["study"]), a["table"], a["table"])
    _, base, cand = next(n for n in spec["networks"] if n[0] == a["network"])
    kernel, size = a["row"]
    pts = [p for p in ctx.points(a["study"], a["sweep"])
           if p.config["workload"]["kernel"] == kernel and int(p.config["workload"]["message_bytes"]) == int(size)
           and p.config["topology"] in (base, cand)]  # fmt: skip
    results = ctx.run(pts)
    from ..simulation import flatten

    metric = spec.get("metric", "execution_time_cycles")
    # The table's metric as the study report names it (``packet_latency_mean`` is nested).
    by: dict[tuple[str, int], float] = {
        (p.config["topology"], p.repetition): float(flatten(r)[metric]) for p, r in zip(pts, results)
    }
    reps = sorted({r for _, r in by})
    if a["field"] == "3D":
        return [by[(base, r)] for r in reps]
    if a["field"] == "5DT":
        return [by[(cand, r)] for r in reps]
    return [change(by[(base, r)], by[(cand, r)], "reduction") for r in reps]


COMPUTATIONS: dict[str, Callable[[Quantity, Context], list[float]]] = {
    "describe": _describe,
    "lanes": _lanes,
    "mpigraph": _mpigraph,
    "ebb_ratio": _ebb_ratio,
    "quadrics": _quadrics,
    "phi": _phi,
    "phi_cost": _phi_cost,
    "time_ratio": _time_ratio,
    "faster_than_reference": _faster_than_reference,
    "comparison": _comparison,
    "pair_table": _pair_table,
}


# ---- verdicts ----


def verdict(q: Quantity, ours: float) -> str:
    """``reproduced`` within the tolerance (a range: inside it; a bound: on its side),
    ``explained`` when the row names the experiment isolating the cause, ``open`` otherwise."""
    p = q.published
    if isinstance(ours, float) and math.isnan(ours):
        ok = False
    elif isinstance(p, list):
        ok = p[0] <= ours <= p[1]
    elif q.bound == "below":
        ok = ours < p
    elif q.tolerance == 0:
        ok = ours == p
    else:
        ok = abs(ours - p) <= q.tolerance * abs(p)
    if ok:
        return "reproduced"
    return "explained" if q.explained_by else "open"


def _tolerance_text(q: Quantity) -> str:
    if isinstance(q.published, list):
        return "in range"
    if q.bound == "below":
        return "below"
    return "exact" if q.tolerance == 0 else f"{100 * q.tolerance:g} %"


def evaluate(q: Quantity, values: list[float]) -> Row:
    """The row of ``q`` given ours per seed."""
    from ..confidence import interval

    s = interval(values)
    v = verdict(q, s["mean"])
    return Row(paper=q.paper, where=q.where, quantity=q.quantity, unit=q.unit, published=q.published,
               ours=s["mean"], ci=s["ci"], seeds=s["n"], tolerance=_tolerance_text(q), verdict=v,
               expected=q.expected, drift=q.expected == "reproduced" and v != "reproduced",
               explained_by=q.explained_by, note=q.note)  # fmt: skip


def run(quantities: list[Quantity], seeds: int = DEFAULT_SEEDS, quick: bool = False, jobs: int = 2,
        log: Callable[[str], None] | None = None, large: bool = False) -> list[Row]:  # fmt: skip
    """Computes ours for every quantity (the quick subset with ``quick``; the ``large`` rows only
    with ``large``) and gives the rows."""
    ctx = Context(seeds, jobs, quick)
    rows = []
    try:
        for q in quantities:
            if (quick and not q.quick) or (q.large and not large):
                continue
            if log and q.compute != "describe":
                log(f"{q.paper} {q.where}: {q.quantity}")
            rows.append(evaluate(q, COMPUTATIONS[q.compute](q, ctx)))
    finally:
        if "tables-dir" in ctx.cache:
            ctx.cache["tables-dir"].cleanup()
    return rows


def counts(rows: list[Row]) -> dict[str, dict[str, int]]:
    """Paper → verdict → number of rows (and ``drift``)."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        c = out.setdefault(r.paper, {**{v: 0 for v in VERDICTS}, "drift": 0})
        c[r.verdict] += 1
        c["drift"] += r.drift
    return out


# ---- output ----


def _num(v: Any) -> str:
    if isinstance(v, list):
        return f"{_num(v[0])}-{_num(v[1])}"
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.4g}"


def _cells(r: Row) -> list[str]:
    ours = _num(r.ours) + ("" if r.seeds < 2 or math.isnan(r.ci) else f" ± {_num(r.ci)}")
    verdict = r.verdict + (" (DRIFT)" if r.drift else "")
    why = r.explained_by if r.verdict == "explained" else r.note
    return [
        r.paper,
        r.where,
        r.quantity,
        r.unit,
        _num(r.published),
        ours,
        str(r.seeds),
        r.tolerance,
        verdict,
        why,
    ]


HEAD = [
    "paper",
    "where",
    "quantity",
    "unit",
    "published",
    "ours (± 95 %)",
    "seeds",
    "tolerance",
    "verdict",
    "why",
]


def _count_lines(rows: list[Row]) -> list[list[str]]:
    return [[p, *(str(c[v]) for v in VERDICTS), str(c["drift"])] for p, c in sorted(counts(rows).items())]


def text(rows: list[Row]) -> str:
    """A plain-text table, then the counts per paper."""
    table = [HEAD] + [_cells(r) for r in rows]
    # Long sections and statements are cut in the plain table (the Markdown and files keep them).
    cap = [5, 24, 64, 6, 10, 20, 5, 9, 22]
    widths = [min(max(len(row[i]) for row in table), cap[i]) for i in range(len(HEAD) - 1)]
    lines = ["  ".join(c[:w].ljust(w) for c, w in zip(row, widths)) + "  " + row[-1] for row in table]
    lines.insert(1, "-" * (sum(widths) + 2 * len(widths) + 3))
    ctable = [["paper", *VERDICTS, "drift"]] + _count_lines(rows)
    lines += ["", *("  ".join(c.ljust(10) for c in row) for row in ctable)]
    return "\n".join(lines) + "\n"


def markdown(rows: list[Row]) -> str:
    """The counts per paper and the table of every row, in Markdown."""

    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    out = ["| paper | " + " | ".join(VERDICTS) + " | drift |", "|---|---|---|---|---|"]
    out += ["| " + " | ".join(row) + " |" for row in _count_lines(rows)]
    out += ["", "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    out += ["| " + " | ".join(esc(c) for c in _cells(r)) + " |" for r in rows]
    return "\n".join(out) + "\n"


def write(rows: list[Row], out: Path, settings: dict[str, Any]) -> list[Path]:
    """``validate.json``, ``validate.csv`` and ``validate.md`` in ``out``."""
    import csv
    import io
    import json

    from .._files import atomic_write_text

    # No value (the interval of a deterministic quantity, ours when it could not be computed)
    # is null in the JSON and an empty cell in the CSV: NaN is not JSON, and "nan" no number.
    data = [{k: None if isinstance(x, float) and math.isnan(x) else x for k, x in asdict(r).items()} for r in rows]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(data[0]) if data else [f for f in Row.__dataclass_fields__])
    w.writeheader()
    for d in data:
        w.writerow({**d, "published": _num(d["published"])})
    paths = [out / "validate.json", out / "validate.csv", out / "validate.md"]
    doc = {"settings": settings, "counts": counts(rows), "rows": data}
    atomic_write_text(paths[0], json.dumps(doc, indent=2, allow_nan=False) + "\n")
    atomic_write_text(paths[1], buf.getvalue())
    atomic_write_text(paths[2], markdown(rows))
    return paths
