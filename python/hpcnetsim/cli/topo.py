"""``hpcnetsim topo``: properties, paths, export, generated fabrics and comparisons of topologies."""

from __future__ import annotations

import json
import sys

from .arguments import Parser, UsageError, index_arg, path_arg
from .summary import format_value


EXPORT_FORMATS = ("graphml", "dot", "json", "ibnet", "anynet", "codes-intra", "codes-inter")


def add_parser(sub) -> None:
    """``hpcnetsim topo`` and its sub-commands."""
    topo = sub.add_parser("topo", help="topologies: properties, cost, export")
    tsub = topo.add_subparsers(dest="topo_command", required=True, parser_class=Parser)

    d = tsub.add_parser("describe", help="properties, throughput bounds and cost of a topology")
    d.add_argument("spec", help="topology spec, e.g. tree:k=8,kp=4,n=4 or torus:8x8")
    d.add_argument("--json", action="store_true", help="print one JSON object")
    d.add_argument(
        "--cost-table",
        type=path_arg,
        help="TOML file overriding the default layout, prices and power (docs/cost.md)",
    )
    d.set_defaults(func=_describe)

    e = tsub.add_parser("export", help="write the port-level graph")
    e.add_argument("spec")
    e.add_argument("--format", required=True, choices=EXPORT_FORMATS)
    e.add_argument("-o", "--output", type=path_arg, help="file to write (default: standard output)")
    e.set_defaults(func=_export)

    fb = tsub.add_parser("fabric", help="write a generated fabric file (edge list, load it as edges:FILE)")
    fb.add_argument("name", help="paper001-fattree: paper 001's 672-node, 204-switch fat-tree plane")
    fb.add_argument("--nodes", type=int, default=672, help="compute nodes (default 672)")
    fb.add_argument("-o", "--output", type=path_arg, help="file to write (default: standard output)")
    fb.set_defaults(func=_fabric)

    m = tsub.add_parser("paths", help="distance and number of minimal paths between two terminals")
    m.add_argument("spec")
    m.add_argument("a", type=index_arg, help="source terminal index")
    m.add_argument("b", type=index_arg, help="destination terminal index")
    m.set_defaults(func=_paths)

    c = tsub.add_parser("compare", help="compare cost and throughput bounds of several topologies")
    c.add_argument("specs", nargs="*", help="specs to compare (default: the k:k',n thin-tree family)")
    # No argparse defaults: a flag given beside specs must be told apart from an absent one.
    c.add_argument("--k", type=int, help="down ports of the thin-tree family (default 8)")
    c.add_argument("--n", type=int, help="levels of the thin-tree family (default 4)")
    c.add_argument("--out", type=path_arg, help="directory for compare.csv, compare.md and compare.png")
    c.add_argument(
        "--cost-table",
        type=path_arg,
        help="TOML file overriding the default layout, prices and power (docs/cost.md)",
    )
    c.set_defaults(func=_compare)


def _describe(args) -> None:
    from ..cost import COST_KEYS, cost, load_table
    from ..topology import DESCRIBE_KEYS, Topology

    table = load_table(args.cost_table)
    t = Topology.from_spec(args.spec)
    props = t.describe()
    props.update(cost(t, table))
    if args.json:
        print(json.dumps(props))
        return
    # The widest name printed: the cable buckets' lines are named per kind, not by their key.
    by_length = [f"cables_{kind}_by_length" for kind in props.get("cables_by_length", {})]
    width = max(map(len, [*DESCRIBE_KEYS, *COST_KEYS, *by_length]))
    for k in DESCRIBE_KEYS + COST_KEYS:
        if k == "cables_by_length":
            for kind, buckets in props[k].items():
                text = ", ".join(f"{b}: {n}" for b, n in buckets.items()) or "none"
                print(f"{'cables_' + kind + '_by_length':<{width}}  {text}")
            continue
        print(f"{k:<{width}}  {format_value(props[k])}")


def _export(args) -> None:
    from .._files import atomic_write_text
    from ..topology import Topology

    text = Topology.from_spec(args.spec).export(args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text, parents=False)
        print(f"wrote {args.output}")


def _fabric(args) -> None:
    from .._files import atomic_write_text
    from ..inputs.fabrics import generate

    text = generate(args.name, nodes=args.nodes)
    if args.output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(args.output, text, parents=False)
        print(f"wrote {args.output}")


def _paths(args) -> None:
    from ..topology import Topology

    t = Topology.from_spec(args.spec)
    count = t.minimal_paths(args.a, args.b)
    print(f"terminals {args.a} -> {args.b}: {t.distance(args.a, args.b)} links, {count} minimal paths")


def _compare(args) -> None:
    from ..reports.compare import compare, format_table, thin_tree_family, write_report

    if args.specs:
        # The flags shape the default family only: beside specs they would be ignored.
        for name, v in (("--k", args.k), ("--n", args.n)):
            if v is not None:
                raise UsageError(
                    f"hpcnetsim topo compare: {name} = {v} is invalid: not with specs "
                    "(it sets the thin-tree family compared when no spec is given)"
                )
        specs, title = args.specs, "Topology comparison"
    else:
        k, n = 8 if args.k is None else args.k, 4 if args.n is None else args.n
        for name, v in (("--k", k), ("--n", n)):
            if v < 1:
                raise UsageError(f"hpcnetsim topo compare: {name} = {v} is invalid: a positive integer")
        specs = thin_tree_family(k, n)
        title = f"{k}:k',{n} thin-trees: cost and uniform-traffic throughput"
    if args.out is not None:
        from .._files import check_output_folder

        check_output_folder(args.out)  # before the runs: an unusable --out would lose the results
    rows = compare(specs, cost_table=args.cost_table)
    print(format_table(rows), end="")
    if args.out is not None:
        for path in write_report(rows, args.out, title):
            print(f"wrote {path}")
