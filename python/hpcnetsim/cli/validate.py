"""``hpcnetsim validate``: every published number of the five papers beside ours, with a verdict
(the computation is :mod:`hpcnetsim.studies.validate`)."""

from __future__ import annotations

from pathlib import Path

from .._core import ConfigError
from ..studies import validate as v


def _positive(text: str, name: str, high: int, why: str = "") -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= high:
        raise ConfigError(f"{name} = {text!r} is invalid: an integer from 1 to {high}{why}")
    return n


def command(args) -> int:
    """Runs ``hpcnetsim validate``; the exit status (``EXIT_DRIFT`` on a drift)."""
    import sys
    import time

    for p in args.paper:
        if p not in v.PAPERS:
            raise ConfigError(f"--paper = {p!r} is invalid: one of {', '.join(v.PAPERS)}")
    seeds = _positive(args.seeds, "--seeds", 1000)
    # As many processes as `sweep --jobs` allows: more only queue for the same cores.
    from ..cores import max_workers, workers_allowed

    jobs = _positive(args.jobs, "--jobs", max_workers(), workers_allowed().removeprefix(str(max_workers())))
    if args.out:
        from .._files import check_output_folder

        check_output_folder(args.out)  # before the runs: an unusable --out would lose the results
    start = time.monotonic()
    quantities = v.load(args.paper or None, Path(args.data) if args.data else None)
    if args.quick and args.large:
        raise ConfigError("--large is invalid with --quick: the large rows are the slowest ones")
    rows = v.run(quantities, seeds, args.quick, jobs, log=lambda s: print(s, file=sys.stderr, flush=True),
                 large=args.large)  # fmt: skip
    left = 0 if args.quick or args.large else sum(q.large for q in quantities)
    elapsed = time.monotonic() - start
    sys.stdout.write(v.markdown(rows) if args.markdown else v.text(rows))
    drift = [r for r in rows if r.drift]
    mode = "quick" if args.quick else "full with --large" if args.large else "full"
    print(f"{len(rows)} quantities in {elapsed:.1f} s ({mode}, {seeds} seeds)"
          + (f"; {left} more with --large" if left else "")
          + (f"; {len(drift)} recorded as reproduced drifted out of tolerance" if drift else ""), file=sys.stderr)  # fmt: skip
    if args.out:
        settings = {
            "quick": args.quick,
            "large": args.large,
            "seeds": seeds,
            "papers": args.paper or list(v.PAPERS),
            "seconds": elapsed,
        }
        for path in v.write(rows, Path(args.out), settings):
            print(f"wrote {path}", file=sys.stderr)
    return v.EXIT_DRIFT if drift else 0


def add_parser(sub) -> None:
    """``hpcnetsim validate`` on the command's sub-parsers."""
    p = sub.add_parser(
        "validate", help="every published number of the five papers beside ours, with a verdict"
    )
    p.add_argument("--quick", action="store_true", help="the cheap subset (about a minute on two cores)")
    p.add_argument("--large", action="store_true",
                   help="also the rows of the 4096-task networks (paper 000 Tables 4(c), 5(c), 6(c): about an hour on two cores)")  # fmt: skip
    p.add_argument("--paper", action="append", default=[],
                   help=f"only this paper: one of {', '.join(v.PAPERS)} (repeatable)")  # fmt: skip
    p.add_argument("--seeds", default=str(v.DEFAULT_SEEDS),
                   help=f"seeds per stochastic quantity (default {v.DEFAULT_SEEDS})")  # fmt: skip
    p.add_argument("--jobs", default="2", help="simulations run at once (default 2)")
    p.add_argument("--out", help="write validate.json, validate.csv and validate.md here")
    p.add_argument("--markdown", action="store_true", help="print the Markdown table instead of plain text")
    p.add_argument("--data", help="folder of published-value files (default: the built-in ones)")
    p.set_defaults(func=command)
