"""``hpcnetsim study``: list, run and tabulate the built-in studies."""

from __future__ import annotations

from .arguments import Parser, UsageError, path_arg
from .sweep import run_experiment, sweep_options


def add_parser(sub) -> None:
    """``hpcnetsim study`` and its sub-commands."""
    st = sub.add_parser("study", help="the built-in studies reproducing the papers' figures")
    ssub = st.add_subparsers(dest="study_command", required=True, parser_class=Parser)
    sl = ssub.add_parser("list", help="list the built-in studies")
    sl.set_defaults(func=_study_list)
    sr = ssub.add_parser("run", help="run a built-in study and write its HTML report")
    sr.add_argument("name", help="study name (see: hpcnetsim study list), or all: every study and a landing page")
    sr.add_argument("--out", type=path_arg, help="output folder (default: results/NAME, results/NAME-quick with --quick)")
    sweep_options(sr)
    sr.set_defaults(func=_study_run)

    stt = ssub.add_parser("tables", help="a study's validation tables as Markdown (docs/validation.md)")
    stt.add_argument("dir", type=path_arg, help="output folder of the study (the --out of study run)")
    stt.add_argument("--before", type=path_arg, help="output folder of an earlier run, shown beside ours (sweep studies)")
    stt.set_defaults(func=_study_tables)


def _study_list(args) -> None:
    from ..studies.catalog import available, title

    for name, path in available().items():
        print(f"{name}  {title(path)}")


def _study_run(args) -> int:
    if args.name == "all":
        from ..studies.study_all import run_all

        return run_all(args, _study_run_one)
    return _study_run_one(args)


def _study_run_one(args) -> int:
    from .._core import ConfigError
    from .._files import check_output_folder
    from ..studies.benchmark_study import is_benchmark_study
    from ..studies.quadrics import is_quadrics_study, run_study
    from ..studies.catalog import find

    try:
        path = find(args.name)
    except ConfigError as e:  # study run also takes all, which find() does not list
        raise ConfigError(f"{e}, or all (every study and a landing page)") from None
    from ..studies.procurement_study import is_procurement_study

    if is_procurement_study(path):
        from ..studies.procurement_study import run as run_procurement

        out = args.out or path_arg("results") / (args.name + ("-quick" if args.quick else ""))
        check_output_folder(out)  # before the runs: an unusable --out would lose the results
        if args.repetitions:
            print(f"{args.name}: --repetitions does not apply (one seed per point, set in the study file)")
        return run_procurement(path, out, quick=args.quick, jobs=args.jobs, scheduler=args.scheduler,
                               progress=not args.no_progress)  # fmt: skip
    if is_quadrics_study(path):
        if args.out is not None:
            check_output_folder(args.out)
        out, table = run_study(path, args.out, args.quick)
        print(table, end="")
        print(f"wrote {out / 'report.html'}")
        return 0
    if is_benchmark_study(path):
        from ..studies.benchmark_study import run

        out = args.out or path_arg("results") / (args.name + ("-quick" if args.quick else ""))
        check_output_folder(out)
        note = " (one process: --jobs and --scheduler do not apply)" if args.jobs or args.scheduler else ""
        print(f"{args.name}: benchmarks of static routing, output {out}{note}", flush=True)
        run(path, out, quick=args.quick)
        print(f"wrote {out / 'report.html'}")
        return 0
    return run_experiment(args, path, report=True)


def _study_tables(args) -> None:
    from .._core import ConfigError
    from ..reports import procurement_report
    from ..studies.study_all import summary_of
    from ..studies.validation import tables

    if (args.dir / "experiment.json").exists() and not procurement_report.is_output(args.dir):
        print(tables(args.dir, args.before), end="")  # a sweep study
        return
    # The other kinds of study keep their tables in their own files: summary.md (a benchmark
    # study of paper 004, the procurement study), report.md (the static-routing benchmarks).
    text = summary_of(args.dir)
    if not text:
        raise ConfigError(
            f"{args.dir}: not the output folder of a study: no experiment.json (sweep study), summary.md "
            "(quadrics, procurement) or report.md (hyperx); give the --out folder of hpcnetsim study run"
        )
    if args.before is not None:
        raise UsageError("hpcnetsim study tables: --before is invalid here: only a sweep study's tables "
                         "are shown beside an earlier run")  # fmt: skip
    print(text, end="")
