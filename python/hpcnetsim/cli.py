"""The ``hpcnetsim`` command.

Every user error (bad spec, bad config, bad flag, unwritable output) prints one line to stderr
and exits with status 2; nothing is left half-written.
"""

from __future__ import annotations

import argparse
import json
import sys

from ._core import ConfigError

# Names for annotations only: importing `typing` and `pathlib` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def _path(text: str) -> Path:
    """A path argument (argparse `type`): `pathlib` is imported only when one is given."""
    from pathlib import Path

    return Path(text)


EXPORT_FORMATS = ("graphml", "dot", "json", "ibnet", "anynet", "codes-intra", "codes-inter")


#: Exit status of a run that ended in a deadlock (its evidence is printed and written).
EXIT_DEADLOCK = 3


class UsageError(Exception):
    """A command-line mistake, reported in one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and raise instead of exiting."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: {message}")


def _build_parser() -> argparse.ArgumentParser:
    from ._core import BUILD_ID, __version__

    p = _Parser(prog="hpcnetsim", description="Model, simulate and evaluate supercomputer networks.")
    p.add_argument("--version", action="version", version=f"hpcnetsim {__version__} (build {BUILD_ID})")
    p.add_argument("--no-memory-check", action="store_true",
                   help="build networks even when the memory estimate exceeds what this process may use")  # fmt: skip
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    topo = sub.add_parser("topo", help="topologies: properties, cost, export")
    tsub = topo.add_subparsers(dest="topo_command", required=True, parser_class=_Parser)

    d = tsub.add_parser("describe", help="properties, throughput bounds and cost of a topology")
    d.add_argument("spec", help="topology spec, e.g. tree:k=8,kp=4,n=4 or torus:8x8")
    d.add_argument("--json", action="store_true", help="print one JSON object")
    d.set_defaults(func=_describe)

    e = tsub.add_parser("export", help="write the port-level graph")
    e.add_argument("spec")
    e.add_argument("--format", required=True, choices=EXPORT_FORMATS)
    e.add_argument("-o", "--output", type=_path, help="file to write (default: standard output)")
    e.set_defaults(func=_export)

    fb = tsub.add_parser("fabric", help="write a generated fabric file (edge list, load it as edges:FILE)")
    fb.add_argument("name", help="paper001-fattree: paper 001's 672-node, 204-switch fat-tree plane")
    fb.add_argument("--nodes", type=int, default=672, help="compute nodes (default 672)")
    fb.add_argument("-o", "--output", type=_path, help="file to write (default: standard output)")
    fb.set_defaults(func=_fabric)

    m = tsub.add_parser("paths", help="distance and number of minimal paths between two terminals")
    m.add_argument("spec")
    m.add_argument("a", type=_index, help="source terminal index")
    m.add_argument("b", type=_index, help="destination terminal index")
    m.set_defaults(func=_paths)

    c = tsub.add_parser("compare", help="compare cost and throughput bounds of several topologies")
    c.add_argument("specs", nargs="*", help="specs to compare (default: the k:k',n thin-tree family)")
    c.add_argument("--k", type=int, default=8, help="down ports of the thin-tree family (default 8)")
    c.add_argument("--n", type=int, default=4, help="levels of the thin-tree family (default 4)")
    c.add_argument("--out", type=_path, help="directory for compare.csv, compare.md and compare.png")
    c.set_defaults(func=_compare)

    ro = sub.add_parser("route", help="forwarding tables of a routing engine: paths, link loads, lanes, deadlock")
    ro.add_argument("spec", help="topology spec (faults allowed, see docs/routing.md)")
    ro.add_argument("--routing", default="dfsssp",
                    help="table engine: minhop, sssp, dfsssp, updn, ftree, parx (default dfsssp); or, with "
                         "--check-deadlock, an algorithmic routing: dor, dor-upper-lower, bubble, duato, tree, "
                         "hyperx-dor, hyperx-adaptive, hyperx-valiant, hyperx-ugal, hyperx-dal, dort, ts-dor")  # fmt: skip
    ro.add_argument("--vcs", type=int,
                    help="algorithmic routings: virtual channels (default: the fewest the routing accepts; "
                         "1 merges a routing's VCs into one)")  # fmt: skip
    ro.add_argument("--lmc", type=int, default=0, help="LID mask control: 2^LMC addresses per terminal (parx: 2)")
    ro.add_argument("--vls", type=int, default=8, help="virtual lanes the layering may use (1-8, default 8)")
    ro.add_argument("--layering", default="placement", help="dfsssp/parx lanes: placement (default) or opensm")
    ro.add_argument("--root", type=_index, action="append", default=[],
                    help="Up*/Down* root switch (repeatable; --routing updn only)")  # fmt: skip
    ro.add_argument("--demands", type=_path, help="PARX communication demands: SOURCE DESTINATION BYTES lines")
    ro.add_argument("--check-deadlock", action="store_true",
                    help="channel dependency analysis of the tables or the routing; exit status 3 on a cycle")  # fmt: skip
    ro.add_argument("--dump", type=_path, help="write the tables to this file (LFT dump format)")
    ro.add_argument("--load", type=_path, help="read the tables from this dump instead of computing them")
    ro.add_argument("--json", action="store_true", help="print one JSON object")
    ro.set_defaults(func=_route)

    r = sub.add_parser("run", help="simulate a config: one run, or a load curve with --loads")
    r.add_argument("config", help="TOML config file (see docs/config.md)")
    r.add_argument(
        "--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
        help="override a config value, e.g. --set switch.vcs=4 traffic.load=0.5",
    )  # fmt: skip
    r.add_argument("--loads", type=_loads,
                   help=f"comma-separated offered loads, e.g. 0.1,0.2,0.3 (each once, at most {MAX_LOADS}); "
                        "every run option below applies to each load")  # fmt: skip
    r.add_argument("--out", type=_path, help="directory for result.json and .csv (curve.* with --loads)")
    r.add_argument("--max-seconds", type=_seconds,
                   help="wall-clock budget: stop after this many seconds (status partial); with --loads, per load")  # fmt: skip
    r.add_argument("--max-cycles", type=_cycles,
                   help="cycle budget: stop at this simulated cycle (status partial), 1 to 10^12")  # fmt: skip
    r.add_argument("--check", action="store_true", help="check the engine's invariants as it runs (slower)")
    r.add_argument("--threads", type=_threads, default=0, metavar="N",
                   help="threads of the simulation (default 0: one below 40000 channels; from 40000 channels, one or all cores, whichever runs faster); same results; at most 4 per core")  # fmt: skip
    r.add_argument("--repetitions", type=int, metavar="R",
                   help="run R times with seeds derived from the config's seed; print means and 95%% intervals")  # fmt: skip
    r.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: when stderr is a terminal)")  # fmt: skip
    r.set_defaults(func=_run)

    b = sub.add_parser("bench", help="simulator speed on fixed configs")
    b.add_argument("--quick", action="store_true", help="short schedules: warm-up 1000, one batch of 1000 cycles")
    b.add_argument("--scale", action="store_true",
                   help="cost per phit-hop from 64 to 65 536 terminals (tori and trees, two loads)")
    b.add_argument("--startup", action="store_true",
                   help="wall time of a tiny `hpcnetsim run` against the bare interpreter (best of 20)")
    b.add_argument("--million", action="store_true", help="with --scale: add the 1 048 576-terminal torus and tree")
    b.add_argument("--max-terminals", type=int, help="with --scale: skip networks larger than this")
    b.add_argument("--target-phit-hops", type=float, default=3e7,
                   help="with --scale: phit-hops each row aims at (at least 3000 cycles; default 3e7)")
    b.add_argument("--threads", type=_thread_list, default=(1,), metavar="N[,N...]",
                   help="with --scale: run every row on each of these thread counts, 0 for the automatic "
                        "choice of hpcnetsim run (default 1)")
    b.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="with --scale: run every row N times and keep the fastest (default 1)")
    b.set_defaults(func=_bench)

    bn = sub.add_parser("bench-net", help="network microbenchmarks of paper 004 §4 (ping, hot spot, total exchange...)")
    bn.add_argument("name", choices=("ping", "bidirectional", "hotspot", "exchange", "barrier", "contention", "hops", "all"))
    bn.add_argument("config", type=_path, nargs="?", help="TOML config (default: the 4-ary 2-tree with --technology)")
    bn.add_argument("--topology", default="tree:k=4,n=2", help="topology without a config (default tree:k=4,n=2)")
    bn.add_argument("--technology", default="qsnet", help="technology preset without a config (default qsnet)")
    bn.add_argument("--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
                    help="override a config value, e.g. --set nic.source_buffer=nic")  # fmt: skip
    bn.add_argument("--quick", action="store_true", help="fewer message sizes and messages")
    bn.add_argument("--out", type=_path, help="directory for one CSV per benchmark and the figures (PNG, SVG)")
    bn.set_defaults(func=_bench_net)

    sw = sub.add_parser("sweep", help="run an experiment file: a base config and sweep axes (docs/experiments.md)")
    sw.add_argument("file", type=_path, help="experiment file (TOML)")
    sw.add_argument("--out", type=_path, help="output folder (default: results/NAME, results/NAME-quick with --quick)")
    _sweep_options(sw)
    sw.set_defaults(func=_sweep)

    st = sub.add_parser("study", help="the built-in studies reproducing the papers' figures")
    ssub = st.add_subparsers(dest="study_command", required=True, parser_class=_Parser)
    sl = ssub.add_parser("list", help="list the built-in studies")
    sl.set_defaults(func=_study_list)
    sr = ssub.add_parser("run", help="run a built-in study and write its HTML report")
    sr.add_argument("name", help="study name (see: hpcnetsim study list), or all: every study and a landing page")
    sr.add_argument("--out", type=_path, help="output folder (default: results/NAME, results/NAME-quick with --quick)")
    _sweep_options(sr)
    sr.set_defaults(func=_study_run)

    stt = ssub.add_parser("tables", help="a study's validation tables as Markdown (docs/validation.md)")
    stt.add_argument("dir", type=_path, help="output folder of the study")
    stt.add_argument("--before", type=_path, help="output folder of an earlier run, shown beside ours")
    stt.set_defaults(func=_study_tables)

    _flow_parsers(sub)
    from .validate import add_parser as _validate_parser

    _validate_parser(sub)

    tr = sub.add_parser("trace", help="MPI traces: summary without simulating (docs/traces.md)")
    trsub = tr.add_subparsers(dest="trace_command", required=True, parser_class=_Parser)
    ti = trsub.add_parser("info", help="ranks, call counts and volumes of a trace")
    ti.add_argument("file", type=_path, help="trace file (text, SimGrid index, DUMPI .meta)")
    ti.add_argument("--format", default="auto", help="auto, text, simgrid, dumpi, vef or otf2 (default auto)")
    ti.add_argument("--json", action="store_true", help="print one JSON object (summary and traffic matrix)")
    ti.set_defaults(func=_trace_info)

    rp = sub.add_parser("report", help="write the HTML report of a sweep's output folder")
    rp.add_argument("dir", type=_path, help="output folder of a sweep or study")
    rp.set_defaults(func=_report)
    return p


def _fmt(v) -> str:
    if v is None:
        return "not computed"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list):
        return " ".join(map(str, v)) if v else "-"
    return str(v)


def _describe(args) -> None:
    from .topology import DESCRIBE_KEYS, Topology

    props = Topology.from_spec(args.spec).describe()
    if args.json:
        print(json.dumps(props))
        return
    width = max(map(len, DESCRIBE_KEYS))
    for k in DESCRIBE_KEYS:
        print(f"{k:<{width}}  {_fmt(props[k])}")


def _export(args) -> None:
    from ._files import atomic_write_text
    from .topology import Topology

    text = Topology.from_spec(args.spec).export(args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}")


def _fabric(args) -> None:
    from ._files import atomic_write_text
    from .fabrics import generate

    text = generate(args.name, nodes=args.nodes)
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}")


def _paths(args) -> None:
    from .topology import Topology

    t = Topology.from_spec(args.spec)
    count = t.minimal_paths(args.a, args.b)
    print(f"terminals {args.a} -> {args.b}: {t.distance(args.a, args.b)} links, {count} minimal paths")


def _route(args) -> int | None:
    from ._files import atomic_write_text
    from .routing import route

    rep = route(
        args.spec, args.routing, lmc=args.lmc, vls=args.vls, roots=args.root,
        check_deadlock=args.check_deadlock, dump=args.dump is not None, tables=args.load, demands=args.demands,
        layering=args.layering, vcs=args.vcs,
    )  # fmt: skip
    if "deadlock_free" in rep:
        return _print_deadlock_check(rep, args.json)
    text = rep.pop("dump", None)
    if args.dump is not None:
        atomic_write_text(args.dump, text)
    if args.json:
        print(json.dumps(rep))
        return EXIT_DEADLOCK if rep.get("deadlock", "acyclic") != "acyclic" else None
    keys = [k for k in rep if k not in ("deadlock", "unreachable_examples")]
    width = max(map(len, keys + ["deadlock"]))
    for k in keys:
        print(f"{k:<{width}}  {_fmt(rep[k])}")
    if rep["unreachable_pairs"]:
        pairs = " ".join(f"{a}->{b}" for a, b in rep["unreachable_examples"])
        print(f"{'unreachable':<{width}}  {pairs}{' ...' if rep['unreachable_pairs'] > len(rep['unreachable_examples']) else ''}")
    if "deadlock" in rep:
        v = rep["deadlock"]
        if v == "acyclic":
            print(f"{'deadlock':<{width}}  free (channel dependency graph acyclic)")
        else:
            hops = " -> ".join(f"s{h['switch']}.p{h['port']}.vl{h['vc']}" for h in v["cycle"])
            print(f"{'deadlock':<{width}}  POSSIBLE: cycle {hops}")
            return EXIT_DEADLOCK
    return None


def _print_deadlock_check(rep: dict, as_json: bool) -> int:
    """The static check of an algorithmic routing: the verdict and why, or the cycle; exit
    status 3 on a cycle, as a deadlocked run."""
    if as_json:
        print(json.dumps(rep))
    else:
        merged = " merged into one" if rep["merged"] else ""
        vcs = f"{rep['vcs']} VC{'s' if rep['vcs'] > 1 else ''}"
        print(f"{rep['topology']}  routing {rep['routing']}, {vcs}{merged}")
        if rep["deadlock_free"]:
            print(f"deadlock-free: {rep['reason']}")
            if isinstance(rep.get("full_graph"), dict):
                print("(the whole channel dependency graph has cycles; the verdict rests on the condition above)")
        else:
            print(f"DEADLOCK POSSIBLE: {rep['reason']}")
            if isinstance(rep["verdict"], dict):
                hops = rep["verdict"]["cycle"]
                print(f"cycle of {len(hops)} channels (switch.port.VC): "
                      + " -> ".join(f"s{h['switch']}.p{h['port']}.vc{h['vc']}" for h in hops))  # fmt: skip
    return 0 if rep["deadlock_free"] else EXIT_DEADLOCK


def _compare(args) -> None:
    from .compare import compare, format_table, thin_tree_family, write_report

    if args.specs:
        specs, title = args.specs, "Topology comparison"
    else:
        for name, v in (("--k", args.k), ("--n", args.n)):
            if v < 1:
                raise UsageError(f"hpcnetsim topo compare: {name} = {v} is invalid: a positive integer")
        specs = thin_tree_family(args.k, args.n)
        title = f"{args.k}:k',{args.n} thin-trees: cost and uniform-traffic throughput"
    rows = compare(specs)
    print(format_table(rows), end="")
    if args.out is not None:
        for path in write_report(rows, args.out, title):
            print(f"wrote {path}")


def _loads(text: str) -> list[float]:
    """``--loads``: comma-separated numbers, each once, at most :data:`MAX_LOADS` (the core
    checks that each is in [0, 1])."""
    words = text.split(",")
    if len(words) > MAX_LOADS:
        raise argparse.ArgumentTypeError(f"{len(words)} loads are too many: at most {MAX_LOADS}")
    try:
        loads = [float(x) for x in words]
    except ValueError:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise argparse.ArgumentTypeError(f"'{shown}' is not a comma-separated list of numbers") from None
    seen = set()
    for x, w in zip(loads, words):
        if x in seen:
            raise argparse.ArgumentTypeError(f"load {w.strip()} is listed twice: each load at most once")
        seen.add(x)
    return loads


def _thread_list(text: str) -> tuple[int, ...]:
    """``bench --threads``: comma-separated thread counts, 0 for the engine's automatic choice,
    each at most once."""
    counts = tuple(_threads(t) for t in text.split(","))
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"'{text}' repeats a thread count: list each once, e.g. 1,2,0")
    return counts


def _threads(text: str) -> int:
    """``--threads``: a whole number of threads, 0 for automatic, at most :func:`max_workers`."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of threads (a whole number >= 0; 0: automatic)")
    n = int(text)
    if n > max_workers():
        raise argparse.ArgumentTypeError(f"{n} is too many threads: 0 (automatic) to {_workers_allowed()}")
    return n


#: Processes or threads per core that ``--jobs`` and ``--threads`` may ask for: more only
#: multiply memory and switching, and a typo such as 100000 would start that many.
PER_CORE = 4
#: Most offered loads of one ``run --loads``: ``simulation.MAX_LOADS``, not imported here to
#: keep the start-up of other commands short.
MAX_LOADS = 1000


def max_workers() -> int:
    """Most worker processes or threads a command may start: :data:`PER_CORE` per core."""
    from .executors import default_jobs

    return PER_CORE * default_jobs()


def _workers_allowed() -> str:
    from .executors import default_jobs

    return f"{max_workers()} ({PER_CORE} per core, {default_jobs()} cores here)"


def _index(text: str) -> int:
    """A terminal or switch index: a whole number >= 0 (the core checks it against the network)."""
    t = text.strip()
    if not t.isdigit() or len(t) > 18:
        raise argparse.ArgumentTypeError(f"'{text}' is not an index (a whole number from 0 to 10^18)")
    return int(t)


def _cycles(text: str) -> int:
    """``--max-cycles``: a whole number of cycles from 1 to 10^12 (``1e6`` is accepted)."""
    try:
        v = float(text) if not text.strip().lstrip("+").isdigit() else int(text)
    except ValueError:
        v = None
    if v is None or v != v or not 1 <= v <= 10**12 or v != int(v):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of cycles (a whole number from 1 to 10^12)")
    return int(v)


def _seconds(text: str) -> float:
    """``--max-seconds``: a positive number of seconds, at most a year."""
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 < v <= 3.2e7:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds (more than 0, at most 3.2e7: a year)")
    return v


def _run(args) -> int | None:
    from .config import apply_overrides, load_config
    from .simulation import check_loads, simulate

    overrides = [o for group in args.overrides for o in group]
    config = apply_overrides(load_config(args.config), overrides)
    if any(o.strip().startswith("technology") for o in overrides):
        # A technology preset fills the fields the file leaves out: start from the file as written.
        import tomllib

        from ._files import read_text_file

        config = apply_overrides(tomllib.loads(read_text_file(args.config)), overrides)
    causal = config.get("workload") is not None
    trace = (config.get("workload") or {}).get("trace")
    if trace and not _path(trace).is_absolute():
        # A trace path in a config file is relative to that file.
        config["workload"]["trace"] = str(_path(args.config).parent / trace)
    if causal and args.loads is not None:
        raise UsageError("hpcnetsim run: --loads is invalid with a [workload]: a causal workload has no offered load")
    if args.repetitions is not None:
        return _run_repeated(args, config, causal)
    if args.loads is None:
        from .progress import TerminalProgress
        from .simulation import execute

        show = sys.stderr.isatty() if args.progress is None else args.progress
        reporter = TerminalProgress(sys.stderr) if show else None
        control = {"progress": reporter, "max_seconds": args.max_seconds, "max_cycles": args.max_cycles,
                   "check": args.check, "threads": args.threads}  # fmt: skip
        try:
            result = execute(config, **control) if causal else simulate(config, **control)
        finally:
            if reporter is not None:
                reporter.close()
        d = result.to_dict()
        print(format_execution(d) if causal else format_flow(d) if d.get("model") == "flow" else format_summary(d))
        if args.out is not None:
            for path in _write_result(result, config, args.out):
                print(f"wrote {path}")
            if d.get("replay"):
                from .trace import write_replay

                for path in write_replay(result.replay, args.out, result.kernel):
                    print(f"wrote {path}")
        return EXIT_DEADLOCK if result.status == "deadlock" else 0
    results = _curve(config, check_loads(args.loads), args)
    print(format_curve([r.to_dict() for r in results]))
    if args.out is not None:
        for path in _write_curve(results, config, args.out):
            print(f"wrote {path}")
    return _curve_status([r.to_dict() for r in results])


def _curve(config: dict, loads: list[float], args) -> list:
    """The load curve of ``hpcnetsim run --loads`` under every run option: without any, the
    core runs the loads side by side; with a budget, ``--check``, ``--threads`` or progress,
    one load after the other, each under the options (a budget is per load)."""
    from .simulation import load_curve_results, simulate

    show = sys.stderr.isatty() if args.progress is None else args.progress
    options = (args.max_seconds, args.max_cycles, args.check, args.threads)
    if not show and not any(o not in (None, False, 0) for o in options):
        return load_curve_results(config, loads)
    from .progress import TerminalProgress

    results = []
    for i, load in enumerate(sorted(loads)):
        point = {**config, "traffic": {**config.get("traffic", {}), "load": load}}
        reporter = TerminalProgress(sys.stderr, prefix=f"load {load:g} ({i + 1} of {len(loads)})  ") if show else None
        try:
            results.append(simulate(point, progress=reporter, max_seconds=args.max_seconds, max_cycles=args.max_cycles,
                                    check=args.check, threads=args.threads))  # fmt: skip
        finally:
            if reporter is not None:
                reporter.close()
    return results


def _curve_status(results: list[dict]) -> int:
    """Exit status of a load curve: 3 when a load deadlocked, saying how many on stderr."""
    deadlocked = sum(r.get("status") == "deadlock" for r in results)
    if deadlocked:
        print(f"{deadlocked} of {len(results)} loads deadlocked", file=sys.stderr)
        return EXIT_DEADLOCK
    return 0


def _run_repeated(args, config: dict, causal: bool) -> int:
    """``hpcnetsim run --repetitions R``: the run (or load curve) R times, means and 95 % intervals."""
    import pandas

    from ._files import atomic_write, atomic_write_text
    from .confidence import (check_repetitions, curve_summary, format_curve_summary, format_repeated,
                             repeated_configs)  # fmt: skip
    from .simulation import check_loads, curve_frame, execute, flatten, simulate

    configs = repeated_configs(config, check_repetitions(args.repetitions, "--repetitions"))
    if args.loads is None:
        run = execute if causal else simulate
        control = {"max_seconds": args.max_seconds, "max_cycles": args.max_cycles, "check": args.check,
                   "threads": args.threads}  # fmt: skip
        results = [run(c, **control).to_dict() for c in configs]
        flat = [flatten(r) for r in results]
        print(format_repeated(flat))
        if args.out is not None:
            from .provenance import provenance

            doc = {"config": config, "provenance": provenance(config), "seeds": [c["seed"] for c in configs],
                   "results": results}  # fmt: skip
            atomic_write_text(args.out / "repetitions.json", json.dumps(doc, indent=2) + "\n")
            frame = pandas.DataFrame(flat).assign(repetition=range(len(flat)))
            atomic_write(args.out / "repetitions.csv", lambda tmp: frame.to_csv(tmp, index=False))
            print(f"wrote {args.out / 'repetitions.json'}\nwrote {args.out / 'repetitions.csv'}")
        return EXIT_DEADLOCK if any(r.get("status") == "deadlock" for r in results) else 0
    loads = check_loads(args.loads)
    runs = [_curve(c, loads, args) for c in configs]
    frame = pandas.concat([curve_frame(rs).assign(seed_index=i) for i, rs in enumerate(runs)], ignore_index=True)
    summary = curve_summary(frame)
    print(f"{_title(runs[0][0].to_dict())}, {len(configs)} repetitions (mean ± 95 % interval)")
    print(format_curve_summary(summary))
    if args.out is not None:
        from .plots import plot_load_curves

        paths = [args.out / "curve.json", args.out / "curve.csv", args.out / "curve_summary.csv",
                 args.out / "curve.png", args.out / "curve.svg"]  # fmt: skip
        from .provenance import provenance

        doc = {"config": config, "provenance": provenance(config), "seeds": [c["seed"] for c in configs],
               "results": [[r.to_dict() for r in rs] for rs in runs]}  # fmt: skip
        atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
        atomic_write(paths[1], lambda tmp: frame.rename(columns={"seed_index": "repetition"}).to_csv(tmp, index=False))
        atomic_write(paths[2], lambda tmp: summary.to_csv(tmp, index=False))
        label = f"{summary['topology'].iloc[0]} {summary['routing'].iloc[0]}"
        title = f"{label}, {len(configs)} repetitions, 95 % intervals"
        for figure in paths[3:]:
            atomic_write(figure, lambda tmp: plot_load_curves({label: summary}, tmp, title))
        for path in paths:
            print(f"wrote {path}")
    return 0


def _num(v, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def _title(r: dict) -> str:
    vcs = f"{r['vcs']} VC" + ("" if r["vcs"] == 1 else "s")
    return f"{r['topology']}, routing {r['routing']}, {vcs}, seed {r['seed']}"


def _cells(r: dict) -> dict[str, str]:
    """The summary figures of a result dict as text; no accepted load unless it converged."""
    from .simulation import rate

    ok = r["status"] == "converged"
    if r.get("model") == "flow":
        return _flow_cells(r)
    net = r["latency"]["network"] if ok and r["latency"]["network"]["count"] else {}
    return {
        "offered": _num(r["offered_load"], ".4g"),
        "status": r["status"],
        "accepted": _num(r["accepted_load"], ".4g") if ok else "-",
        "std": _num(r["accepted_load_std"], ".2g") if ok else "-",
        "saturated": ("yes" if r["saturated"] else "no") if ok else "-",
        "latency_mean": _num(net.get("mean"), ".1f"),
        "latency_p99": _num(net.get("p99"), ".0f"),
        "packet-hops/s": f"{rate(r['packet_hops'], r['wall_seconds']):.3g}",
    }


def _flow_cells(r: dict) -> dict[str, str]:
    """The summary figures of a flow-model result: no latency, no packets."""
    return {
        "offered": _num(r["offered_load"], ".4g"),
        "status": r["status"],
        "accepted": _num(r["accepted_load"], ".4g"),
        "std": "-",
        "saturated": "yes" if r["saturated"] else "no",
        "latency_mean": "-",
        "latency_p99": "-",
        "packet-hops/s": "-",
    }


def format_flow(r: dict) -> str:
    """A few lines about a flow-model run of independent traffic."""
    links = r["link_loads"]
    return "\n".join([
        f"{r['topology']}, flow model, paths {r['routing']}, seed {r['seed']}",
        f"flows             {len(r['flows'])} ({r['pattern']})",
        f"offered load      {r['offered_load']:.4g} of the link bandwidth per source",
        f"accepted load     {r['accepted_load']:.4g} ({r['accepted_bandwidth']:.4g} {r['bandwidth_unit']} per source)",
        f"flow rates        min {r['flow_rate']['min']:.4g}, mean {r['flow_rate']['mean']:.4g}, max {r['flow_rate']['max']:.4g}",
        f"link load         mean {links['load']['mean']:.4g}, max {links['load']['max']:.4g}; "
        f"up to {links['max_flows_per_link']} flows per link",
        f"time              {r['wall_seconds']:.3g} s",
    ])  # fmt: skip


def format_summary(r: dict) -> str:
    """A few lines about one result dict: status, loads, saturation, latency, speed."""
    c = _cells(r)
    lines = [
        _title(r),
        f"status            {c['status']}" + (f" ({r['message']})" if c["status"] != "converged" else ""),
        f"offered load      {c['offered']} phits/cycle/node",
    ]
    lines += format_blocked(r)
    if r["status"] == "partial" and r.get("accepted_load") is not None:
        lines.append(f"accepted load     {_num(r['accepted_load'], '.4g')} phits/cycle/node (partial)")
    if r["status"] == "converged":
        lines += [
            f"accepted load     {c['accepted']} ± {c['std']} phits/cycle/node",
            f"saturated         {c['saturated']}",
            f"network latency   mean {c['latency_mean']}, p99 {c['latency_p99']} cycles",
        ]
        lines += _physical_lines(r)
    if r.get("routed_throughput") is not None:
        ideal, routed = r["ideal_throughput"], r["routed_throughput"]
        bound = "not computed" if ideal is None else f"{ideal:.4g}"
        lines.append(f"uniform bound     {routed:.4g} along the tables' paths (any routing: {bound})")
    lines.append(f"speed             {c['packet-hops/s']} packet-hops/s ({r['cycles']} cycles)")
    return "\n".join(lines)


def format_execution(r: dict) -> str:
    """A few lines about a causal workload's result: status, execution time, messages, speed."""
    from .simulation import rate

    vcs = f"{r['vcs']} VC" + ("" if r["vcs"] == 1 else "s")
    lines = [
        f"{r['topology']}, routing {r['routing']}, {vcs}, seed {r['seed']}: {r['kernel']} on {r['tasks']} tasks",
        f"status            {r['status']}" + (f" ({r['message']})" if r["status"] != "completed" else ""),
    ]
    if r["status"] == "completed":
        m = r["message_latency"]
        lines += [
            f"execution time    {r['execution_time_cycles']:,} cycles",
            f"messages          {r['messages']} (latency mean {m['mean']:.1f}, p99 {m['p99']:.0f} cycles)",
        ]
        lines += _physical_lines(r)
    if r.get("replay"):
        lines += _replay_lines(r["replay"])
    for i, j in enumerate(r.get("jobs", [])):
        t = j["execution_time_cycles"]
        took = f"{t:,} cycles" if t is not None else "unfinished"
        lines.append(f"job {i:<13} {j['kernel']} on {j['tasks']} tasks: {took}")
    lines += format_blocked(r)
    lines.append(f"speed             {rate(r['packet_hops'], r['wall_seconds']):.3g} packet-hops/s ({r['cycles']} cycles)")
    return "\n".join(lines)


def _physical_lines(r: dict) -> list[str]:
    """The result in physical units, when the result carries its clock."""
    from .units import format_rate, format_time

    if "cycle_ns" not in r:
        return []
    ns = r["cycle_ns"]
    out = [f"clock             {format_time(ns)} per cycle, links {format_rate(r['link_bandwidth_mb_s'] * 1e6)}"]
    if r.get("execution_time_us") is not None:
        mean = r.get("message_latency_mean_us")
        extra = f", message latency mean {format_time(mean * 1e3)}" if mean is not None else ""
        out.append(f"in time           {format_time(r['execution_time_us'] * 1e3)}{extra}")
    if r.get("accepted_mb_s_per_node") is not None:
        lat = r.get("latency_network_mean_ns")
        extra = f", network latency mean {format_time(lat)}" if lat is not None else ""
        out.append(f"in bandwidth      {format_rate(r['accepted_mb_s_per_node'] * 1e6)} per node accepted{extra}")
    if r.get("accepted_pct_host") is not None:
        host = format_rate(r["host_bandwidth_mb_s"] * 1e6)
        pct = f"{r['offered_pct_host']:.4g} % offered, {r['accepted_pct_host']:.4g} % accepted"
        out.append(f"of host bandwidth {pct} ({host})")
    return out


def _replay_lines(rp: dict) -> list[str]:
    """Per-rank summary of a trace or program replay: wait and communication time."""
    n = len(rp["finish_cycles"])
    if n == 0:
        return []
    wait, comm = rp["wait_cycles"], rp["communication_cycles"]
    worst = max(range(n), key=lambda i: wait[i])
    bins = rp["latency_histogram"]
    hist = ", ".join(f"<{2 ** (k + 1)}: {c}" for k, c in enumerate(bins) if c)
    return [
        f"wait time         mean {sum(wait) / n:.1f}, max {wait[worst]} cycles (rank {worst})",
        f"communication     mean {sum(comm) / n:.1f} cycles per rank (program end minus compute)",
        f"latency bins      {hist or '-'}",
    ]


def format_blocked(r: dict) -> list[str]:
    """The deadlock evidence of a result: one line per blocked channel of the cycle."""
    cycle = r.get("blocked_channels") or []
    if not cycle:
        return []
    if r.get("blocked_cycle"):
        head = f"blocked channels  a cycle of {len(cycle)} input queues, each waiting for the next (the last for the first):"
    else:
        head = f"blocked channels  no cycle; {len(cycle)} input queues whose front packet waits for room:"
    lines = [head]
    for b in cycle:
        lines.append(f"  switch {b['switch']} port {b['port']} VC {b['vc']}: packet {b['packet']} "
                     f"({b['src']} -> {b['dst']}, {b['queued_packets']} queued) waits on output port "
                     f"{b['waits_on_port']} (needs {b['need_phits']} phits, has {b['room_phits']} of "
                     f"{b['capacity_phits']})")  # fmt: skip
    return lines


def format_curve(results: list[dict]) -> str:
    """A table of a load curve, one row per offered load."""
    cols = list(_cells(results[0]))
    rows = [cols, *([_cells(r)[c] for c in cols] for r in results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(cols))]
    lines = [_title(results[0])]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def _write_result(result, config: dict, out: Path) -> list[Path]:
    from ._files import atomic_write, atomic_write_text
    from .simulation import flatten

    paths = [out / "result.json", out / "result.csv"]
    from .provenance import provenance

    doc = {"config": config, "provenance": provenance(config), "result": result.to_dict()}
    atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
    atomic_write(paths[1], lambda tmp: _write_row_csv(tmp, flatten(result.to_dict())))
    return paths


def _write_row_csv(path: Path, row: dict) -> None:
    """One result as a one-row CSV, as pandas would write it (NaN and None empty), without
    importing pandas (half a second of every `hpcnetsim run --out`)."""
    import csv
    import math

    def cell(v):
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else v

    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(row.keys())
        w.writerow(cell(v) for v in row.values())


def _write_curve(results, config: dict, out: Path) -> list[Path]:
    from ._files import atomic_write, atomic_write_text
    from .plots import plot_load_curves
    from .simulation import curve_frame

    frame = curve_frame(results)
    paths = [out / "curve.json", out / "curve.csv", out / "curve.png", out / "curve.svg"]
    from .provenance import provenance

    doc = {"config": config, "provenance": provenance(config), "results": [r.to_dict() for r in results]}
    atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
    atomic_write(paths[1], lambda tmp: frame.to_csv(tmp, index=False))
    label = f"{frame['topology'].iloc[0]} {frame['routing'].iloc[0]}"
    title = f"{label}, {config.get('traffic', {}).get('pattern', 'uniform')} traffic"
    first = frame["ideal_throughput"].iloc[0]
    ideal = {} if first is None or first != first else {label: float(first)}  # None or NaN: not computed
    for figure in paths[2:]:
        atomic_write(figure, lambda tmp: plot_load_curves({label: frame}, tmp, title, ideal))
    return paths


def _sweep_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="the experiment's [quick] variant")
    p.add_argument("--jobs", type=_jobs, help="local worker processes (default: all cores; at most 4 per core)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler instead")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--repetitions", type=int, metavar="R",
                   help="runs of every point with derived seeds (default: the experiment's repetitions, else 1)")  # fmt: skip


def _run_experiment(args, path: Path, report: bool) -> int:
    from . import experiment
    from .sweep import run_sweep

    if args.scheduler is not None:
        from .executors import check_address

        check_address(args.scheduler)
    exp = experiment.load(path, quick=args.quick, repetitions=args.repetitions)
    out = args.out or _path("results") / (exp.name + ("-quick" if args.quick else ""))
    where = args.scheduler or f"{args.jobs or 'all'} local processes"
    reps = f" ({exp.repetitions} repetitions each)" if exp.repetitions > 1 else ""
    print(f"{exp.name}: {len(exp.points)} points{reps}, output {out}, on {where}", flush=True)
    summary = run_sweep(exp, out, jobs=args.jobs, scheduler=args.scheduler, progress=not args.no_progress)
    print(f"{summary.total} points: {summary.stored_before} already stored, {summary.ran} run, "
          f"{len(summary.failed)} failed; store {out / 'store'}")  # fmt: skip
    if summary.statuses:
        order = ["converged", "completed", "not-converged", "deadlock", "partial", "skipped", "failed"]
        counts = sorted(summary.statuses.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99)
        print("run this time: " + ", ".join(f"{n} {status}" for status, n in counts))
    for key, status, message in summary.troubled:
        print(f"{status} {key[:12]}: {message}", file=sys.stderr)
    for key, error in summary.failed:
        print(f"failed {key[:12]}: {error}", file=sys.stderr)
    if summary.skipped:
        from collections import Counter

        print(f"{len(summary.skipped)} points skipped (the kernel cannot run on their task count):")
        for reason, count in Counter(reason for _, reason in summary.skipped).items():
            print(f"skipped {count} × {reason}")
    if report:
        from .report import write_report

        print(f"wrote {write_report(out)}")
    return _sweep_status(summary)


def _sweep_status(summary) -> int:
    """Exit status of a sweep or study: 1 when points of this run failed or deadlocked, saying
    how many of the run's points on stderr (the finished points are stored either way)."""
    failed, deadlocked = len(summary.failed), summary.statuses.get("deadlock", 0)
    if not failed and not deadlocked:
        return 0
    first, rest = (failed, "failed") if failed else (deadlocked, "deadlocked")
    extra = f", {deadlocked} deadlocked" if failed and deadlocked else ""
    print(f"{first} of {summary.total} points {rest}{extra}", file=sys.stderr)
    return 1


def _jobs(text: str) -> int:
    """``--jobs``: a whole number of local worker processes, 1 to :func:`max_workers`."""
    t = text.strip()
    if not t.isdigit() or int(t) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of processes (a whole number >= 1)")
    if int(t) > max_workers():
        raise argparse.ArgumentTypeError(f"{int(t)} processes are too many: 1 to {_workers_allowed()}")
    return int(t)


def _sweep(args) -> int:
    return _run_experiment(args, args.file, report=False)


def _study_list(args) -> None:
    from .studies import available, title

    for name, path in available().items():
        print(f"{name}  {title(path)}")


def _study_run(args) -> int:
    if args.name == "all":
        from .study_all import run_all

        return run_all(args, _study_run_one)
    return _study_run_one(args)


def _study_run_one(args) -> int:
    from .benchmark_study import is_benchmark_study
    from .quadrics import is_quadrics_study, run_study
    from .studies import find

    path = find(args.name)
    if is_quadrics_study(path):
        out, table = run_study(path, args.out, args.quick)
        print(table, end="")
        print(f"wrote {out / 'report.html'}")
        return 0
    if is_benchmark_study(path):
        from .benchmark_study import run

        out = args.out or _path("results") / (args.name + ("-quick" if args.quick else ""))
        note = " (one process: --jobs and --scheduler do not apply)" if args.jobs or args.scheduler else ""
        print(f"{args.name}: benchmarks of static routing, output {out}{note}", flush=True)
        run(path, out, quick=args.quick)
        print(f"wrote {out / 'report.html'}")
        return 0
    return _run_experiment(args, path, report=True)


def _study_tables(args) -> None:
    from .validation import tables

    summary = args.dir / "summary.md"
    if summary.exists() and not (args.dir / "experiment.json").exists():
        print(summary.read_text(), end="")  # a benchmark study (quadrics): published vs ours
        return
    print(tables(args.dir, args.before), end="")


def _trace_info(args) -> None:
    from .trace import FORMATS, format_info, info

    if args.format not in FORMATS:
        raise UsageError(f"hpcnetsim trace info: --format = {args.format!r} is invalid: one of {', '.join(FORMATS)}")
    d = info(args.file, args.format)
    print(json.dumps(d) if args.json else format_info(d))


def _report(args) -> None:
    from .report import write_report

    print(f"wrote {write_report(args.dir)}")


def _bench(args) -> None:
    from .bench import SCALE_COLUMNS, format_row, run_benchmarks, run_scale, table_header

    if args.million and not args.scale:
        raise ConfigError("--million is invalid without --scale: it adds rows to the scale benchmark")
    if args.threads != (1,) and not args.scale:
        raise ConfigError("--threads is invalid without --scale: the other benchmarks measure one thread")
    if args.max_terminals is not None and args.max_terminals < 1:
        raise ConfigError(f"--max-terminals = {args.max_terminals} is invalid: a positive number of terminals")
    if not args.target_phit_hops > 0:
        raise ConfigError(f"--target-phit-hops = {args.target_phit_hops} is invalid: a positive number")
    if args.repeat < 1:
        raise ConfigError(f"--repeat = {args.repeat} is invalid: a positive number of runs")
    if args.repeat != 1 and not args.scale:
        raise ConfigError("--repeat is invalid without --scale: it repeats the scale benchmark's rows")
    if args.startup:
        from .bench import run_startup

        for k, v in run_startup().items():
            print(f"{k:<24} {v:7.1f}")
        return
    if args.scale:
        print(table_header(SCALE_COLUMNS), flush=True)
        run_scale(
            args.million, args.max_terminals, args.target_phit_hops,
            on_row=lambda row: print(format_row(row, SCALE_COLUMNS), flush=True), threads=args.threads,
            repeat=args.repeat,
        )  # fmt: skip
        return
    print(table_header(), flush=True)
    run_benchmarks(args.quick, on_row=lambda row: print(format_row(row), flush=True))


def _bench_net(args) -> None:
    import tomllib

    from .config import apply_overrides, load_config
    from .netbench_run import format_tables, run, write

    if args.config is not None:
        load_config(args.config)  # one-line errors for a bad file
        from ._files import read_text_file

        base = tomllib.loads(read_text_file(args.config))
    else:
        base = {"topology": args.topology, "technology": args.technology}
    config = apply_overrides(base, [o for group in args.overrides for o in group])
    frames = run(args.name, config, args.quick)
    print(format_tables(frames))
    if args.out is not None:
        for path in write(frames, args.out, config.get("technology", "")):
            print(f"wrote {path}")


def _flow_parsers(sub) -> None:
    fl = sub.add_parser("flow", help="flow-level model: effective bisection bandwidth, mpiGraph (docs/flow.md)")
    fsub = fl.add_subparsers(dest="flow_command", required=True, parser_class=_Parser)
    for name, helptext, func in (
        ("ebb", "effective bisection bandwidth over random bisections (Netgauge eBB)", _flow_ebb),
        ("mpigraph", "bandwidth of every rank pair, one shift at a time (mpiGraph)", _flow_mpigraph),
    ):
        f = fsub.add_parser(name, help=helptext)
        f.add_argument("spec", help="topology spec, e.g. hyperx:12x8,t=7")
        f.add_argument("--routing", help="routing algorithm (default: the family's auto)")
        f.add_argument("--paths", choices=("auto", "first", "spread", "minimal", "valiant"), help="how flows follow the routing")
        if name == "ebb":
            f.add_argument("--nodes", type=_node_counts, help="ranks taking part (default: every terminal); "
                           "several, comma-separated, give eBB against the node count")  # fmt: skip
        else:
            f.add_argument("--nodes", type=int, help="ranks taking part (default: every terminal)")
        f.add_argument("--placement", choices=("linear", "random", "clustered"), help="placement of the ranks")
        f.add_argument("--measure", choices=("rate", "completion"), help="steady rate or message size / completion time")
        f.add_argument("--message-bytes", type=int, help="message size (default 1 MiB)")
        f.add_argument("--link-bandwidth", type=float, help="bytes per second of every link (default: a phit per cycle)")
        f.add_argument("--seed", type=int, help="master seed")
        if name == "ebb":
            f.add_argument("--samples", type=int, help="random bisections (default 1000)")
        f.add_argument(
            "--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
            help="any other config value, e.g. --set switch.vcs=2",
        )  # fmt: skip
        f.add_argument("--json", action="store_true", help="print the result as one JSON object")
        f.add_argument("--out", type=_path, help="directory for the result JSON and its plot")
        f.set_defaults(func=func)


def _node_counts(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of node counts") from None


def _flow_args_config(args) -> dict:
    from .config import apply_overrides
    from .flow import flow_config

    nodes = args.nodes
    if isinstance(nodes, list):  # eBB: one count is a plain run, several a curve (set per run)
        nodes = nodes[0] if len(nodes) == 1 else None
    fields = {
        k: v
        for k, v in {
            "routing": args.routing,
            "paths": args.paths,
            "nodes": nodes,
            "placement": args.placement,
            "measure": args.measure,
            "message_bytes": args.message_bytes,
            "link_bandwidth": args.link_bandwidth,
            "seed": args.seed,
            "samples": getattr(args, "samples", None),
        }.items()
        if v is not None
    }
    return apply_overrides(flow_config(args.spec, **fields), [o for group in args.overrides for o in group])


def _flow_ebb(args) -> None:
    from ._files import atomic_write, atomic_write_text
    from .flow import ebb, plot_ebb

    config = _flow_args_config(args)
    if isinstance(args.nodes, list) and len(args.nodes) > 1:
        return _flow_ebb_curve(args, config)
    r = ebb(config).to_dict()
    if args.json:
        print(json.dumps(r))
    else:
        d = r["distribution"]
        print(r["message"])
        print(f"paths             {r['routing']}")
        print(f"eBB               {r['ebb']:.4g} of the link bandwidth = {r['ebb_bandwidth']:.4g} {r['bandwidth_unit']}")
        print(f"distribution      min {d['min']:.4g}, p5 {d['p5']:.4g}, median {d['p50']:.4g}, "
              f"p95 {d['p95']:.4g}, max {d['max']:.4g}")  # fmt: skip
        print(f"time              {r['wall_seconds']:.3g} s on {r['threads']} threads")
    if args.out is not None:
        paths = [args.out / "ebb.json", args.out / "ebb.png"]
        atomic_write_text(paths[0], json.dumps({"config": config, "result": r}, indent=2) + "\n")
        atomic_write(paths[1], lambda tmp: plot_ebb(r, tmp))
        for p in paths:
            print(f"wrote {p}", file=sys.stderr if args.json else sys.stdout)


def _flow_ebb_curve(args, config: dict) -> None:
    from ._files import atomic_write, atomic_write_text
    from .flow import ebb_curve, plot_ebb_curve

    frame = ebb_curve(config, args.nodes)
    if args.json:
        print(frame.to_json(orient="records"))
    else:
        print(f"{config['topology']}: eBB against the node count")
        cols = ["nodes", "ebb", "p5", "p95", "ebb_bandwidth", "wall_seconds"]
        print(frame[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print(f"bandwidth unit: {frame['bandwidth_unit'].iloc[0]}")
    if args.out is not None:
        paths = [args.out / "ebb_curve.json", args.out / "ebb_curve.csv", args.out / "ebb_curve.png"]
        doc = {"config": config, "results": frame.to_dict(orient="records")}
        atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
        atomic_write(paths[1], lambda tmp: frame.to_csv(tmp, index=False))
        atomic_write(paths[2], lambda tmp: plot_ebb_curve({config["topology"]: frame}, tmp))
        for p in paths:
            print(f"wrote {p}", file=sys.stderr if args.json else sys.stdout)


def _flow_mpigraph(args) -> None:
    from ._files import atomic_write, atomic_write_text
    from .flow import mpigraph, plot_mpigraph

    config = _flow_args_config(args)
    r = mpigraph(config).to_dict()
    if args.json:
        print(json.dumps(r))
    else:
        p = r["pair_bandwidth"]
        unit = r["bandwidth_unit"]
        print(r["message"])
        print(f"paths             {r['routing']}")
        print(f"per pair          mean {p['mean']:.4g}, min {p['min']:.4g}, max {p['max']:.4g} {unit}")
        print(f"streams per cable up to {r['worst_streams_per_cable']}")
    if args.out is not None:
        paths = [args.out / "mpigraph.json", args.out / "mpigraph.png"]
        atomic_write_text(paths[0], json.dumps({"config": config, "result": r}, indent=2) + "\n")
        atomic_write(paths[1], lambda tmp: plot_mpigraph(r, tmp))
        for q in paths:
            print(f"wrote {q}", file=sys.stderr if args.json else sys.stdout)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = None
    try:
        args = _build_parser().parse_args(argv)
        if args.no_memory_check:
            import os

            from ._core import set_memory_check

            set_memory_check(False)
            os.environ["HPCNETSIM_NO_MEMORY_CHECK"] = "1"  # sweep workers inherit it
        status = args.func(args)
    except (UsageError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as e:
        print(f"error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if getattr(args, "command", None) in ("sweep", "study"):
            print("interrupted (finished points are kept in the store: run again to resume)", file=sys.stderr)
        else:
            print("interrupted: nothing written", file=sys.stderr)
        return 130
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
