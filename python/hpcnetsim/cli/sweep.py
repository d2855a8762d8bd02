"""``hpcnetsim sweep``: run an experiment file; the options and run shared with ``study run``."""

from __future__ import annotations

import argparse
import sys

from .._core import ConfigError
from .arguments import jobs_arg, path_arg, repetitions_arg

# Names for annotations only: importing `typing` and `pathlib` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def add_parser(sub) -> None:
    """``hpcnetsim sweep``."""
    sw = sub.add_parser("sweep", help="run an experiment file: a base config and sweep axes (docs/experiments.md)")
    sw.add_argument("file", type=path_arg, help="experiment file (TOML)")
    sw.add_argument("--out", type=path_arg, help="output folder (default: results/NAME, results/NAME-quick with --quick)")
    sweep_options(sw)
    sw.set_defaults(func=_sweep)


def sweep_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="the experiment's [quick] variant")
    p.add_argument("--jobs", type=jobs_arg, help="local worker processes (default: all cores; at most 4 per core)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler instead")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--repetitions", type=repetitions_arg, metavar="R",
                   help="runs of every point with derived seeds (default: the experiment's repetitions, else 1)")  # fmt: skip


def run_experiment(args, path: Path, report: bool) -> int:
    from ..experiments import experiment
    from ..experiments.sweep import run_sweep

    if args.scheduler is not None:
        from ..experiments.executors import check_address

        check_address(args.scheduler)
        if args.jobs is not None:
            # The cluster's workers decide how many points run at once, not this process.
            raise ConfigError(f"--jobs = {args.jobs} is invalid: not with --scheduler (the Dask workers run the points)")
    exp = experiment.load(path, quick=args.quick, repetitions=args.repetitions)
    out = args.out or path_arg("results") / (exp.name + ("-quick" if args.quick else ""))
    from .._files import check_output_folder
    from ..experiments.store import STORE_DIR

    check_output_folder(out)  # before the header line: a refused folder prints nothing else
    check_output_folder(out / STORE_DIR)
    from ..experiments.sweep import check_same_experiment

    check_same_experiment(exp, out)
    where = args.scheduler or f"{args.jobs or 'all'} local processes"
    reps = f" ({exp.repetitions} repetitions each)" if exp.repetitions > 1 else ""
    header = f"{exp.name}: {len(exp.points)} points{reps}, output {out}, on {where}"
    summary = run_sweep(exp, out, jobs=args.jobs, scheduler=args.scheduler, progress=not args.no_progress,
                        on_start=lambda: print(header, flush=True))  # fmt: skip
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
        from ..reports.report import write_report

        print(f"wrote {write_report(out)}")
    return sweep_status(summary)


def sweep_status(summary) -> int:
    """Exit status of a sweep or study: 1 when points of this run failed or deadlocked, saying
    how many of the run's points on stderr (the finished points are stored either way)."""
    failed, deadlocked = len(summary.failed), summary.statuses.get("deadlock", 0)
    if not failed and not deadlocked:
        return 0
    first, rest = (failed, "failed") if failed else (deadlocked, "deadlocked")
    extra = f", {deadlocked} deadlocked" if failed and deadlocked else ""
    print(f"{first} of {summary.total} points {rest}{extra}", file=sys.stderr)
    return 1


def _sweep(args) -> int:
    return run_experiment(args, args.file, report=False)
