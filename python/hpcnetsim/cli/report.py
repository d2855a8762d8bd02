"""``hpcnetsim report``: the HTML report of a sweep's output folder."""

from __future__ import annotations

from .arguments import path_arg


def add_parser(sub) -> None:
    """``hpcnetsim report``."""
    rp = sub.add_parser("report", help="write the HTML report of a sweep's output folder")
    rp.add_argument("dir", type=path_arg, help="output folder of a sweep or study")
    rp.set_defaults(func=_report)


def _report(args) -> None:
    from ..reports import procurement_report
    from ..reports.report import write_report

    if procurement_report.is_output(args.dir):  # its own page, from its results.json
        print(f"wrote {procurement_report.rewrite(args.dir)}")
        return
    print(f"wrote {write_report(args.dir)}")
