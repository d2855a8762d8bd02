"""The command line of ``hpcnetsim validate``: its options, without the validation's imports
(every ``hpcnetsim`` command builds this parser; the work is in :mod:`hpcnetsim.validate`)."""

from __future__ import annotations

PAPERS = ("000", "001", "002", "003", "004")
#: Seeds per stochastic quantity unless ``--seeds`` says otherwise.
DEFAULT_SEEDS = 5


def add_parser(sub) -> None:
    """``hpcnetsim validate`` on the command's sub-parsers."""
    v = sub.add_parser(
        "validate", help="every published number of the five papers beside ours, with a verdict"
    )
    v.add_argument("--quick", action="store_true", help="the cheap subset (about a minute on two cores)")
    v.add_argument("--paper", action="append", default=[],
                   help=f"only this paper: one of {', '.join(PAPERS)} (repeatable)")  # fmt: skip
    v.add_argument("--seeds", default=str(DEFAULT_SEEDS),
                   help=f"seeds per stochastic quantity (default {DEFAULT_SEEDS})")  # fmt: skip
    v.add_argument("--jobs", default="2", help="simulations run at once (default 2)")
    v.add_argument("--out", help="write validate.json, validate.csv and validate.md here")
    v.add_argument("--markdown", action="store_true", help="print the Markdown table instead of plain text")
    v.add_argument("--data", help="folder of published-value files (default: the built-in ones)")
    v.set_defaults(func=_command)


def _command(args) -> int:
    from .validate import command

    return command(args)
