"""``hpcnetsim route``: forwarding tables, link loads, lanes and the static deadlock check."""

from __future__ import annotations

import json

from .arguments import EXIT_DEADLOCK, index_arg, path_arg
from .summary import format_value


#: Report fields undefined (``None``) when no pair has a path.
_PATH_LENGTHS = ("min_hops", "max_hops", "mean_hops")


def add_parser(sub) -> None:
    """``hpcnetsim route``."""
    ro = sub.add_parser("route", help="forwarding tables of a routing engine: paths, link loads, lanes, deadlock")
    ro.add_argument("spec", help="topology spec (faults allowed, see docs/routing.md)")
    ro.add_argument("--routing",
                    help="table engine: minhop, sssp, dfsssp, updn, ftree, parx, ksp (default dfsssp); or, with "
                         "--check-deadlock, an algorithmic routing: dor, dor-upper-lower, bubble, duato, tree, "
                         "hyperx-dor, hyperx-adaptive, hyperx-valiant, hyperx-ugal, hyperx-dal, dragonfly-*, graph-*, dort, "
                         "ts-dor")  # fmt: skip
    ro.add_argument("--vcs", type=int,
                    help="algorithmic routings: virtual channels (default: the fewest the routing accepts; "
                         "1 merges a routing's VCs into one)")  # fmt: skip
    ro.add_argument("--lmc", type=int,
                    help="LID mask control: 2^LMC addresses per terminal (default 0; parx: 2; ksp: 3, 8 paths)")  # fmt: skip
    ro.add_argument("--vls", type=int,
                    help="dfsssp/parx/ksp: virtual lanes the layering may use (1-8, default 8)")  # fmt: skip
    ro.add_argument("--layering", help="dfsssp/parx/ksp lanes: placement (default) or opensm")
    ro.add_argument("--root", type=index_arg, action="append", default=[],
                    help="Up*/Down* root switch (repeatable; --routing updn only)")  # fmt: skip
    ro.add_argument("--demands", type=path_arg, help="PARX communication demands: SOURCE DESTINATION BYTES lines")
    ro.add_argument("--check-deadlock", action="store_true",
                    help="channel dependency analysis of the tables or the routing; exit status 3 on a cycle")  # fmt: skip
    ro.add_argument("--dump", help="write the tables to this file (LFT dump format)")
    ro.add_argument("--load", help="read the tables from this dump instead of computing them")
    ro.add_argument("--json", action="store_true", help="print one JSON object")
    ro.set_defaults(func=_route)


def _route(args) -> int | None:
    from .._core import ConfigError
    from .._files import atomic_write_text, check_output_file
    from ..routing import route

    # An empty path is not the current folder, as Path("") would make it.
    if args.dump == "":
        raise ConfigError("route: dump = '' is invalid: the path of a file to write the tables to")
    if args.load == "":
        raise ConfigError("route: load = '' is invalid: the path of a table dump to read")
    if args.dump is not None:
        check_output_file(args.dump)  # before routing: the tables of a large fabric take minutes
    rep = route(
        args.spec, args.routing, lmc=args.lmc, vls=args.vls, roots=args.root,
        check_deadlock=args.check_deadlock, dump=args.dump is not None, tables=args.load, demands=args.demands,
        layering=args.layering, vcs=args.vcs,
    )  # fmt: skip
    if "deadlock_free" in rep:
        return _print_deadlock_check(rep, args.json)
    text = rep.pop("dump", None)
    if args.dump is not None:
        atomic_write_text(args.dump, text, parents=False)
    if args.json:
        print(json.dumps(rep))
        return EXIT_DEADLOCK if rep.get("deadlock", "acyclic") != "acyclic" else None
    keys = [k for k in rep if k not in ("deadlock", "unreachable_examples")]
    width = max(map(len, keys + ["deadlock"]))
    for k in keys:
        # No path has no length: "-", where "not computed" is for bounds left out.
        shown = "-" if rep[k] is None and k in _PATH_LENGTHS else format_value(rep[k])
        print(f"{k:<{width}}  {shown}")
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
