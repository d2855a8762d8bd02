"""``hpcnetsim flow``: the flow-level model's eBB and mpiGraph."""

from __future__ import annotations

import json
import sys

from .arguments import Parser, UsageError, node_counts_arg, path_arg


def add_parser(sub) -> None:
    fl = sub.add_parser("flow", help="flow-level model: effective bisection bandwidth, mpiGraph (docs/flow.md)")
    fsub = fl.add_subparsers(dest="flow_command", required=True, parser_class=Parser)
    for name, helptext, func in (
        ("ebb", "effective bisection bandwidth over random bisections (Netgauge eBB)", _flow_ebb),
        ("mpigraph", "bandwidth of every rank pair, one shift at a time (mpiGraph)", _flow_mpigraph),
    ):
        f = fsub.add_parser(name, help=helptext)
        f.add_argument("spec", help="topology spec, e.g. hyperx:12x8,t=7")
        f.add_argument("--routing", help="routing algorithm (default: the family's auto)")
        f.add_argument("--paths", choices=("auto", "first", "spread", "minimal", "valiant"), help="how flows follow the routing")
        if name == "ebb":
            f.add_argument("--nodes", type=node_counts_arg, help="ranks taking part (default: every terminal); "
                           "several, comma-separated, give eBB against the node count")  # fmt: skip
        else:
            f.add_argument("--nodes", type=int, help="ranks taking part (default: every terminal)")
        f.add_argument("--placement", choices=("linear", "random", "clustered"), help="placement of the ranks")
        f.add_argument("--measure", choices=("rate", "completion"), help="steady rate or message size / completion time")
        f.add_argument("--message-bytes", type=int, help="message size (default 1 MiB)")
        f.add_argument("--link-bandwidth", type=_rate_arg,
                       help="bytes per second of every link, or a rate such as '4 GB/s' (default: a phit per cycle)")  # fmt: skip
        f.add_argument("--seed", type=int, help="master seed")
        if name == "ebb":
            f.add_argument("--samples", type=int, help="random bisections (default 1000)")
        f.add_argument(
            "--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
            help="any other config value, e.g. --set switch.vcs=2",
        )  # fmt: skip
        f.add_argument("--json", action="store_true", help="print the result as one JSON object")
        f.add_argument("--out", type=path_arg, help="directory for the result JSON and its plot")
        f.set_defaults(func=func)


def _rate_arg(text: str) -> float | str:
    """``--link-bandwidth``: bytes per second (``4e9``), or a rate with its unit (``4 GB/s``),
    which the config reads and, when malformed, refuses naming the field."""
    try:
        return float(text)
    except ValueError:
        return text


def _flow_args_config(args) -> dict:
    from ..config import apply_overrides
    from ..flow import flow_config

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
    config = flow_config(args.spec, **fields)
    overrides = [o for group in args.overrides for o in group]
    # A value given both positionally or by its own flag and by --set would be decided by the
    # order they are applied in; refuse it instead of silently ignoring one of them.
    given = {"topology": "the spec argument", "seed": "--seed", "routing.algorithm": "--routing"}
    given.update({f"flow.{k}": "--" + k.replace("_", "-") for k in config.get("flow", {})})
    for item in overrides:
        path = ".".join(p.strip() for p in item.partition("=")[0].split("."))
        if path.split(".")[0] in ("workload", "traffic"):
            # eBB and mpiGraph have fixed patterns: such a value would be silently ignored.
            raise UsageError(f"--set {item}: eBB and mpiGraph send their own flows and use no "
                             "[workload] or [traffic] value (hpcnetsim run with model = \"flow\" runs a pattern)")  # fmt: skip
        if path in given and (path == "topology" or _has(config, path)):
            raise UsageError(f"--set {item}: {path} is already given by {given[path]}")
    config = apply_overrides(config, overrides)
    if args.out is not None:
        from .._files import check_output_folder

        check_output_folder(args.out)  # before computing: an unusable --out would lose the results
    return config


def _has(config: dict, path: str) -> bool:
    """Whether ``config`` holds a value at the dotted ``path``."""
    for part in path.split("."):
        if not isinstance(config, dict) or part not in config:
            return False
        config = config[part]
    return True


def _flow_ebb(args) -> None:
    from .._files import atomic_write, atomic_write_text
    from ..flow import ebb, plot_ebb

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
    from .._files import atomic_write, atomic_write_text
    from ..flow import ebb_curve, plot_ebb_curve

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
    from .._files import atomic_write, atomic_write_text
    from ..flow import mpigraph, plot_mpigraph

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
