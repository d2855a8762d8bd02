"""``hpcnetsim trace``: summaries of MPI traces without simulating."""

from __future__ import annotations

import json

from .arguments import Parser, UsageError, path_arg


def add_parser(sub) -> None:
    """``hpcnetsim trace`` and its sub-commands."""
    tr = sub.add_parser("trace", help="MPI traces: summary without simulating (docs/traces.md)")
    trsub = tr.add_subparsers(dest="trace_command", required=True, parser_class=Parser)
    ti = trsub.add_parser("info", help="ranks, call counts and volumes of a trace")
    ti.add_argument("file", type=path_arg, help="trace file (text, SimGrid index, DUMPI .meta)")
    ti.add_argument("--format", default="auto", help="auto, text, simgrid, dumpi, vef or otf2 (default auto)")
    ti.add_argument("--json", action="store_true", help="print one JSON object (summary and traffic matrix)")
    ti.set_defaults(func=_trace_info)


def _trace_info(args) -> None:
    from ..inputs.trace import FORMATS, format_info, info

    if args.format not in FORMATS:
        raise UsageError(f"hpcnetsim trace info: --format = {args.format!r} is invalid: one of {', '.join(FORMATS)}")
    # The table of ranks does not need the traffic matrices: only --json prints them.
    d = info(args.file, args.format, matrices=args.json)
    print(json.dumps(d) if args.json else format_info(d))
