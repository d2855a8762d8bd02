"""``hpcnetsim config show``: a config resolved, every value with where it comes from."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    """``hpcnetsim config``."""
    c = sub.add_parser("config", help="a config resolved: every value and where it comes from")
    csub = c.add_subparsers(dest="config_command", required=True)
    s = csub.add_parser("show", help="every field of a config with its value and source "
                                     "(config, technology preset, switch preset, [link] clock, default)")  # fmt: skip
    s.add_argument("config", help="TOML config file (see docs/config.md)")
    s.add_argument(
        "--set", dest="overrides", action="append", default=[], nargs="+", metavar="PATH=VALUE",
        help="override a config value, as with hpcnetsim run",
    )  # fmt: skip
    s.add_argument("--json", action="store_true", help="a JSON list of {field, value, source}")
    s.set_defaults(func=_show)


def _show(args) -> None:
    from ..config import apply_overrides, load_layer, naming_file, sources

    overrides = [o for group in args.overrides for o in group]
    # As with `hpcnetsim run`: an error an override brings names the file it applies to.
    with naming_file(args.config):
        rows = sources(apply_overrides(load_layer(args.config, overrides), overrides))
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    cells = [(r["field"], json.dumps(r["value"])) for r in rows]
    # Align the comments on the short lines; a long value (a placement list) does not push them
    # all to its width.
    width = max((n for n in (len(f) + len(v) + 3 for f, v in cells) if n <= 72), default=0)
    for (field, value), r in zip(cells, rows, strict=True):
        print(f"{f'{field} = {value}':<{width}}  # {r['source']}")
