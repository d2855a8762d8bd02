"""Static (forwarding-table) routing: compute tables with an engine, or load a dump, and
report path lengths, routes per link, lanes, the routed throughput bound and deadlock freedom.
See docs/routing.md."""

from __future__ import annotations

import json
from pathlib import Path

from . import _core
from ._core import ConfigError

ENGINES = ("minhop", "sssp", "dfsssp", "updn", "ftree", "parx")


def route(
    spec: str,
    engine: str = "dfsssp",
    *,
    lmc: int = 0,
    vls: int = 8,
    roots: list[int] | None = None,
    check_deadlock: bool = False,
    dump: bool = False,
    tables: str | Path | None = None,
) -> dict:
    """Routes `spec` with `engine` (or loads the table dump file `tables`) and returns the
    report as a dict; with `dump=True` the tables' text is under ``"dump"``."""
    text, name = None, "tables"
    if tables is not None:
        try:
            text, name = Path(tables).read_text(), str(tables)
        except OSError as e:
            raise ConfigError(f"{tables}: cannot read the table dump: {e.strerror or e}") from None
    for field, value, low, high in (("lmc", lmc, 0, 7), ("vls", vls, 1, 8)):
        if not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"route: {field} = {value!r} is invalid: an integer between {low} and {high}")
    return json.loads(
        _core.route(spec, engine, lmc, vls, list(roots or []), check_deadlock, dump, text, name)
    )
