"""The ``hpcnetsim`` command.

Every user error (bad spec, bad flag, unwritable output) prints one line to stderr and
exits with status 2; nothing is left half-written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ._core import ConfigError
from .topology import DESCRIBE_KEYS, Topology

EXPORT_FORMATS = ("graphml", "dot", "json")


class UsageError(Exception):
    """A command-line mistake, reported in one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and raise instead of exiting."""

    def error(self, message: str):  # noqa: D102
        raise UsageError(f"{self.prog}: {message}")


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="hpcnetsim", description="Model, simulate and evaluate supercomputer networks.")
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
    e.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    e.set_defaults(func=_export)

    m = tsub.add_parser("paths", help="distance and number of minimal paths between two terminals")
    m.add_argument("spec")
    m.add_argument("a", type=int, help="source terminal index")
    m.add_argument("b", type=int, help="destination terminal index")
    m.set_defaults(func=_paths)

    c = tsub.add_parser("compare", help="compare cost and throughput bounds of several topologies")
    c.add_argument("specs", nargs="*", help="specs to compare (default: the k:k',n thin-tree family)")
    c.add_argument("--k", type=int, default=8, help="down ports of the thin-tree family (default 8)")
    c.add_argument("--n", type=int, default=4, help="levels of the thin-tree family (default 4)")
    c.add_argument("--out", type=Path, help="directory for compare.csv, compare.md and compare.png")
    c.set_defaults(func=_compare)
    return p


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list):
        return " ".join(map(str, v)) if v else "-"
    return str(v)


def _describe(args) -> None:
    props = Topology.from_spec(args.spec).describe()
    if args.json:
        print(json.dumps(props))
        return
    width = max(map(len, DESCRIBE_KEYS))
    for k in DESCRIBE_KEYS:
        print(f"{k:<{width}}  {_fmt(props[k])}")


def _export(args) -> None:
    from ._files import atomic_write_text

    text = Topology.from_spec(args.spec).export(args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text)
        print(f"wrote {args.output}")


def _paths(args) -> None:
    t = Topology.from_spec(args.spec)
    count = t.minimal_paths(args.a, args.b)
    print(f"terminals {args.a} -> {args.b}: {t.distance(args.a, args.b)} links, {count} minimal paths")


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    try:
        args = _build_parser().parse_args(argv)
        args.func(args)
    except (UsageError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as e:
        print(f"error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
