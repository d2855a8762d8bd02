"""``hpcnetsim bench``: the simulator's speed on fixed configs."""

from __future__ import annotations

from .._core import ConfigError
from .arguments import thread_list_arg

#: Largest ``--target-phit-hops``: a row of 10^12 phit-hops already runs for hours (and
#: infinity made no number of cycles).
MAX_TARGET_PHIT_HOPS = 1e12


def add_parser(sub) -> None:
    """``hpcnetsim bench``."""
    b = sub.add_parser("bench", help="simulator speed on fixed configs")
    b.add_argument("--quick", action="store_true", help="short schedules: warm-up 1000, one batch of 1000 cycles")
    b.add_argument("--scale", action="store_true",
                   help="cost per phit-hop from 64 to 65 536 terminals (tori and trees, two loads), and "
                        "what a cache line from beyond the caches cost before and after the rows")
    b.add_argument("--startup", action="store_true",
                   help="wall time of a tiny `hpcnetsim run` against the bare interpreter (best of 20)")
    b.add_argument("--million", action="store_true", help="with --scale: add the 1 048 576-terminal torus and tree")
    b.add_argument("--max-terminals", type=int,
                   help="with --scale: skip networks larger than this (not the rows of --million)")
    b.add_argument("--target-phit-hops", type=float,
                   help="with --scale: phit-hops each row aims at (at least 3000 cycles; default 3e7)")
    b.add_argument("--threads", type=thread_list_arg, default=(1,), metavar="N[,N...]",
                   help="with --scale: run every row on each of these thread counts, 0 for the automatic "
                        "choice of hpcnetsim run (default 1)")
    b.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="with --scale: run every row N times, alternating between the thread counts, and keep "
                        "the fastest run of each (default 1)")
    b.add_argument("--neighbour", action="store_true",
                   help="with --scale: run a cache-polluting process beside the benchmark (a busy shared "
                        "machine's other tenant), so the cost per hop under contention is measured")
    b.set_defaults(func=_bench)


def _bench(args) -> None:
    from ..bench import (
        SCALE_COLUMNS, SCALE_TARGET_PHIT_HOPS, format_memory, format_row, memory_cost,
        probe_bytes, run_benchmarks, run_scale, scale_rows, table_header,
    )  # fmt: skip

    # Every flag given is used: one that the chosen benchmark would not read is refused.
    if args.startup and (args.scale or args.quick):
        other = "--scale" if args.scale else "--quick"
        raise ConfigError(f"--startup is invalid with {other}: it measures start-up alone (run them one at a time)")
    if args.quick and args.scale:
        raise ConfigError("--quick is invalid with --scale: the scale rows size their runs by --target-phit-hops")
    if args.max_terminals is not None and not args.scale:
        raise ConfigError("--max-terminals is invalid without --scale: it skips rows of the scale benchmark")
    if args.target_phit_hops is not None and not args.scale:
        raise ConfigError("--target-phit-hops is invalid without --scale: it sizes the scale benchmark's rows")
    if args.target_phit_hops is None:
        args.target_phit_hops = SCALE_TARGET_PHIT_HOPS
    if args.million and not args.scale:
        raise ConfigError("--million is invalid without --scale: it adds rows to the scale benchmark")
    if args.threads != (1,) and not args.scale:
        raise ConfigError("--threads is invalid without --scale: the other benchmarks measure one thread")
    if args.max_terminals is not None and args.max_terminals < 1:
        raise ConfigError(f"--max-terminals = {args.max_terminals} is invalid: a positive number of terminals")
    if not 0 < args.target_phit_hops <= MAX_TARGET_PHIT_HOPS:
        raise ConfigError(
            f"--target-phit-hops = {args.target_phit_hops} is invalid: a positive number up to "
            f"{MAX_TARGET_PHIT_HOPS:.0e}"
        )
    if args.repeat < 1:
        raise ConfigError(f"--repeat = {args.repeat} is invalid: a positive number of runs")
    if args.repeat != 1 and not args.scale:
        raise ConfigError("--repeat is invalid without --scale: it repeats the scale benchmark's rows")
    if args.neighbour and not args.scale:
        raise ConfigError("--neighbour is invalid without --scale: it runs beside the scale benchmark")
    if args.startup:
        from ..bench import run_startup

        for k, v in run_startup().items():
            print(f"{k:<24} {v:7.1f}")
        return
    if args.scale:
        import contextlib

        from ..neighbour import Neighbour

        # The memory's cost of a line, before and after the rows (with the neighbour, beside
        # it): what the host gave the large rows while they ran.
        rows = scale_rows(args.million, args.max_terminals, args.target_phit_hops)
        if not rows:
            smallest = min(r["terminals"] for r in scale_rows())
            raise ConfigError(
                f"--max-terminals = {args.max_terminals} is invalid: at least {smallest} (the smallest network "
                "of the scale benchmark), else no row is left"
            )
        nbytes = probe_bytes(rows)
        with Neighbour() if args.neighbour else contextlib.nullcontext():
            print(format_memory(memory_cost(nbytes), "before the rows"), end="\n\n", flush=True)
            print(table_header(SCALE_COLUMNS), flush=True)
            run_scale(
                args.million, args.max_terminals, args.target_phit_hops,
                on_row=lambda row: print(format_row(row, SCALE_COLUMNS), flush=True), threads=args.threads,
                repeat=args.repeat,
            )  # fmt: skip
            print("\n" + format_memory(memory_cost(nbytes), "after the rows"), flush=True)
        return
    print(table_header(), flush=True)
    run_benchmarks(args.quick, on_row=lambda row: print(format_row(row), flush=True))
