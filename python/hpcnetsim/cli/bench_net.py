"""``hpcnetsim bench-net``: the network microbenchmarks of paper 004 §4."""

from __future__ import annotations

import argparse
import sys
import time

from .arguments import UsageError, path_arg

#: The network of ``bench-net`` without a config file.
DEFAULTS = {"topology": "tree:k=4,n=2", "technology": "qsnet"}


def add_parser(sub) -> None:
    """``hpcnetsim bench-net``."""
    bn = sub.add_parser("bench-net", help="network microbenchmarks of paper 004 §4 (ping, hot spot, total exchange...)")
    bn.add_argument("name", choices=("ping", "bidirectional", "hotspot", "exchange", "barrier", "contention", "hops", "all"))
    bn.add_argument("config", type=path_arg, nargs="?", help="TOML config (default: the 4-ary 2-tree with --technology)")
    bn.add_argument("--topology", help=f"topology without a config (default {DEFAULTS['topology']})")
    bn.add_argument("--technology", help=f"technology preset without a config (default {DEFAULTS['technology']}; '' for none)")
    bn.add_argument("--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
                    help="override a config value, e.g. --set nic.source_buffer=nic")  # fmt: skip
    bn.add_argument("--quick", action="store_true", help="fewer message sizes and messages")
    bn.add_argument("--out", type=path_arg, help="directory for one CSV per benchmark and the figures (PNG, SVG)")
    bn.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                    help="say on stderr which benchmark runs and how long each took (default: when stderr "
                         "is a terminal); a total exchange of hundreds of nodes takes minutes")  # fmt: skip
    bn.set_defaults(func=_bench_net)


def _bench_net(args) -> None:
    import tomllib

    from ..config import apply_overrides, load_config
    from ..studies.netbench_run import format_tables, run, skipped, write

    if args.config is not None:
        # A config names its own network: a flag beside it would be silently ignored.
        for flag in ("topology", "technology"):
            if getattr(args, flag) is not None:
                raise UsageError(
                    f"--{flag}: {getattr(args, flag)!r} is not used with a config file "
                    f"(set it in {args.config} or with --set {flag}=...)"
                )
        load_config(args.config)  # one-line errors for a bad file
        from .._files import read_text_file

        base = tomllib.loads(read_text_file(args.config))
    else:
        base = {k: v if getattr(args, k) is None else getattr(args, k) for k, v in DEFAULTS.items()}
    overrides = [o for group in args.overrides for o in group]
    for item in overrides:
        # The benchmarks write their own programs and drop [workload]: a value set there
        # (workload.algorithm for the exchange) would be silently ignored.
        if item.partition("=")[0].split(".")[0].strip() == "workload":
            raise UsageError(
                f"--set {item}: bench-net builds its own task programs and uses no [workload] value "
                "(the exchange is a pairwise alltoall; netbench.exchange(config, algorithm=...) takes another)"
            )
    config = apply_overrides(base, overrides)
    if args.out is not None:
        from .._files import check_output_folder

        check_output_folder(args.out)  # before the benchmarks: an unusable --out would lose the results
    left_out = skipped(args.name, config)  # said first: the others may take long
    for name, why in left_out.items():
        print(f"{name}: not run: {why}", file=sys.stderr)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    started = [time.monotonic()]

    def progress(name: str, done: bool) -> None:
        if done:
            print(f"bench-net: {name} took {time.monotonic() - started[0]:.1f} s", file=sys.stderr, flush=True)
        else:
            started[0] = time.monotonic()
            print(f"bench-net: {name} ...", file=sys.stderr, flush=True)

    frames = run(args.name, config, args.quick, progress if show else None)
    print(format_tables(frames))
    for name, why in left_out.items():
        print(f"\n== {name} ==\nnot run: {why}")
    if args.out is not None:
        for path in write(frames, args.out, config.get("technology", "")):
            print(f"wrote {path}")
