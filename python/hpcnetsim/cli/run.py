"""``hpcnetsim run``: one simulation or a load curve of a config, printed and written."""

from __future__ import annotations

import argparse
import json
import sys

from .arguments import (EXIT_DEADLOCK, MAX_LOADS, UsageError, cycles_arg, loads_arg, path_arg,
                        repetitions_arg, seconds_arg, threads_arg)  # fmt: skip
from .summary import format_curve, format_execution, format_flow, format_summary, result_title

# Names for annotations only: importing `typing` and `pathlib` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def add_parser(sub) -> None:
    """``hpcnetsim run``."""
    r = sub.add_parser("run", help="simulate a config: one run, or a load curve with --loads")
    r.add_argument("config", help="TOML config file (see docs/config.md)")
    r.add_argument(
        "--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
        help="override a config value, e.g. --set switch.vcs=4 traffic.load=0.5",
    )  # fmt: skip
    r.add_argument("--loads", type=loads_arg,
                   help=f"comma-separated offered loads, e.g. 0.1,0.2,0.3 (each once, at most {MAX_LOADS}); "
                        "every run option below applies to each load")  # fmt: skip
    r.add_argument("--out", type=path_arg, help="directory for result.json and .csv (curve.* with --loads)")
    r.add_argument("--max-seconds", type=seconds_arg,
                   help="wall-clock budget: stop after this many seconds (status partial); with --loads, per load")  # fmt: skip
    r.add_argument("--max-cycles", type=cycles_arg,
                   help="cycle budget: stop at this simulated cycle (status partial), 1 to 10^12")  # fmt: skip
    r.add_argument("--check", action="store_true", help="check the engine's invariants as it runs (slower)")
    r.add_argument("--threads", type=threads_arg, default=0, metavar="N",
                   help="threads of the simulation (default 0: one below 40000 channels; from 40000 channels, one or all cores, whichever runs faster); same results; at most 4 per core")  # fmt: skip
    r.add_argument("--repetitions", type=repetitions_arg, metavar="R",
                   help="run R times with seeds derived from the config's seed; print means and 95%% intervals")  # fmt: skip
    r.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show progress on stderr (default: when stderr is a terminal)")  # fmt: skip
    r.set_defaults(func=_run)


def _run(args) -> int | None:
    from ..config import naming_file

    # The run's config is resolved from layers (a dict): checks that only running can make
    # name the file here.
    with naming_file(args.config):
        return _run_config(args)


def _run_config(args) -> int | None:
    from ..config import apply_overrides, load_layer, resolve
    from ..simulation import check_loads, simulate

    overrides = [o for group in args.overrides for o in group]
    # Overrides go on the file as written; the core resolves the presets and defaults.
    config = resolve(apply_overrides(load_layer(args.config, overrides), overrides))
    causal = config.get("workload") is not None
    if causal and args.loads is not None:
        raise UsageError("hpcnetsim run: --loads is invalid with a [workload]: a causal workload has no offered load")
    if args.out is not None:
        from .._files import check_output_folder

        check_output_folder(args.out)  # before simulating: an unusable --out would lose the results
    if args.repetitions is not None:
        return _run_repeated(args, config, causal)
    if args.loads is None:
        from ..experiments.progress import TerminalProgress
        from ..simulation import execute

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
            from ..collected import remove_stale_tables

            written = _write_result(result, config, args.out)
            if d.get("replay"):
                from ..inputs.trace import write_replay

                written += write_replay(result, args.out, result.kernel)
            remove_stale_tables(args.out, written)
            for path in written:
                print(f"wrote {path}")
        return EXIT_DEADLOCK if result.status == "deadlock" else 0
    results = _curve(config, check_loads(args.loads), args)
    print(format_curve([r.to_dict() for r in results]))
    if args.out is not None:
        from ..collected import remove_stale_tables

        written = _write_curve(results, config, args.out)
        remove_stale_tables(args.out, written)
        for path in written:
            print(f"wrote {path}")
    return _curve_status([r.to_dict() for r in results])


def _curve(config: dict, loads: list[float], args) -> list:
    """The load curve of ``hpcnetsim run --loads`` under every run option, as
    :func:`hpcnetsim.load_curve` runs it; with progress shown, one line per load."""
    from ..simulation import load_curve_results, simulate

    show = sys.stderr.isatty() if args.progress is None else args.progress
    if not show:
        return load_curve_results(config, loads, max_seconds=args.max_seconds, max_cycles=args.max_cycles,
                                  check=args.check, threads=args.threads)  # fmt: skip
    from ..experiments.progress import TerminalProgress

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


def _curve_status(results: list[dict], what: str = "loads") -> int:
    """Exit status of a load curve: 3 when a load deadlocked, saying how many on stderr."""
    deadlocked = sum(r.get("status") == "deadlock" for r in results)
    if deadlocked:
        print(f"{deadlocked} of {len(results)} {what} deadlocked", file=sys.stderr)
        return EXIT_DEADLOCK
    return 0


def _run_repeated(args, config: dict, causal: bool) -> int:
    """``hpcnetsim run --repetitions R``: the run (or load curve) R times, means and 95 % intervals."""
    import pandas

    from .._files import atomic_write, atomic_write_text
    from ..confidence import (check_repetitions, curve_summary, format_curve_summary, format_repeated,
                             repeated_configs)  # fmt: skip
    from ..simulation import check_loads, csv_frame, curve_frame, execute, flatten, simulate

    configs = repeated_configs(config, check_repetitions(args.repetitions, "--repetitions"))
    if args.loads is None:
        run = execute if causal else simulate
        control = {"max_seconds": args.max_seconds, "max_cycles": args.max_cycles, "check": args.check,
                   "threads": args.threads}  # fmt: skip
        runs = [run(c, **control) for c in configs]
        results = [r.to_dict() for r in runs]
        flat = [flatten(r) for r in results]
        print(format_repeated(flat))
        if args.out is not None:
            from ..collected import remove_stale_tables, write_stacked_tables
            from ..provenance import provenance

            doc = {"config": config, "provenance": provenance(config), "seeds": [c["seed"] for c in configs],
                   "results": results}  # fmt: skip
            written = [args.out / "repetitions.json", args.out / "repetitions.csv"]
            atomic_write_text(written[0], json.dumps(doc, indent=2) + "\n")
            frame = pandas.DataFrame(flat).assign(repetition=range(len(flat)))
            atomic_write(written[1], lambda tmp: csv_frame(frame).to_csv(tmp, index=False))
            # The [stats] tables of every repetition, each row led by its repetition and seed.
            keyed = [({"repetition": i, "seed": c["seed"]}, r) for i, (c, r) in enumerate(zip(configs, runs))]
            written += write_stacked_tables(keyed, args.out)
            remove_stale_tables(args.out, written)
            for path in written:
                print(f"wrote {path}")
        return EXIT_DEADLOCK if any(r.get("status") == "deadlock" for r in results) else 0
    loads = check_loads(args.loads)
    runs = [_curve(c, loads, args) for c in configs]
    frame = pandas.concat([curve_frame(rs).assign(seed_index=i) for i, rs in enumerate(runs)], ignore_index=True)
    summary = curve_summary(frame)
    print(f"{result_title(runs[0][0].to_dict())}, {len(configs)} repetitions (mean ± 95 % interval)")
    print(format_curve_summary(summary))
    if args.out is not None:
        from ..reports.plots import plot_load_curves

        paths = [args.out / "curve.json", args.out / "curve.csv", args.out / "curve_summary.csv",
                 args.out / "curve.png", args.out / "curve.svg"]  # fmt: skip
        from ..provenance import provenance

        doc = {"config": config, "provenance": provenance(config), "seeds": [c["seed"] for c in configs],
               "results": [[r.to_dict() for r in rs] for rs in runs]}  # fmt: skip
        atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
        table = csv_frame(frame.rename(columns={"seed_index": "repetition"}))
        atomic_write(paths[1], lambda tmp: table.to_csv(tmp, index=False))
        atomic_write(paths[2], lambda tmp: summary.to_csv(tmp, index=False))
        label = f"{summary['topology'].iloc[0]} {summary['routing'].iloc[0]}"
        title = f"{label}, {len(configs)} repetitions, 95 % intervals"
        for figure in paths[3:]:
            atomic_write(figure, lambda tmp: plot_load_curves({label: summary}, tmp, title))
        from ..collected import remove_stale_tables, write_stacked_tables

        keyed = [({"repetition": i, "seed": c["seed"], "offered_load": r.offered_load}, r)
                 for i, (c, rs) in enumerate(zip(configs, runs)) for r in rs]  # fmt: skip
        paths += write_stacked_tables(keyed, args.out)
        remove_stale_tables(args.out, paths)
        for path in paths:
            print(f"wrote {path}")
    # As one load curve: a deadlock at any load of any repetition exits with status 3.
    return _curve_status([r.to_dict() for rs in runs for r in rs], "runs (loads × repetitions)")


def _write_result(result, config: dict, out: Path) -> list[Path]:
    from .._files import atomic_write, atomic_write_text
    from ..simulation import flatten

    paths = [out / "result.json", out / "result.csv"]
    from ..provenance import provenance

    doc = {"config": config, "provenance": provenance(config), "result": result.to_dict()}
    atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
    atomic_write(paths[1], lambda tmp: _write_row_csv(tmp, flatten(result.to_dict())))
    if result.tables:
        from ..collected import write_tables

        paths += write_tables(result, out, f"{config.get('topology')}: link utilisation")
    return paths


def _write_row_csv(path: Path, row: dict) -> None:
    """One result as a one-row CSV, as pandas would write it (NaN and None empty; lists and
    dicts, such as ``jobs``, as JSON text), without importing pandas (half a second of every
    `hpcnetsim run --out`)."""
    import csv
    import math

    from ..simulation import csv_value

    def cell(v):
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else csv_value(v)

    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(row.keys())
        w.writerow(cell(v) for v in row.values())


def _write_curve(results, config: dict, out: Path) -> list[Path]:
    from .._files import atomic_write, atomic_write_text
    from ..reports.plots import plot_load_curves
    from ..simulation import csv_frame, curve_frame

    frame = curve_frame(results)
    paths = [out / "curve.json", out / "curve.csv", out / "curve.png", out / "curve.svg"]
    from ..provenance import provenance

    doc = {"config": config, "provenance": provenance(config), "results": [r.to_dict() for r in results]}
    atomic_write_text(paths[0], json.dumps(doc, indent=2) + "\n")
    atomic_write(paths[1], lambda tmp: csv_frame(frame).to_csv(tmp, index=False))
    label = f"{frame['topology'].iloc[0]} {frame['routing'].iloc[0]}"
    title = f"{label}, {config.get('traffic', {}).get('pattern', 'uniform')} traffic"
    first = frame["ideal_throughput"].iloc[0]
    ideal = {} if first is None or first != first else {label: float(first)}  # None or NaN: not computed
    for figure in paths[2:]:
        atomic_write(figure, lambda tmp: plot_load_curves({label: frame}, tmp, title, ideal))
    from ..collected import write_curve_tables

    return paths + write_curve_tables(results, out)
