"""Side-by-side comparison of topologies: cost and throughput bounds (``topo compare``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .._files import atomic_write, atomic_write_text
from ..topology import Topology

#: Columns of the comparison table.
COLUMNS = (
    "spec",
    "terminals",
    "endpoints",
    "switches",
    "links",
    "radix",
    "cost_constant",
    "cost_linear",
    "cost_quadratic",
    "relative_cost_linear",
    "bisection_throughput",
    "ideal_throughput",
    "avg_distance",
    "cables_electrical",
    "cables_optical",
    "cost_usd",
    "power_w",
    "cost_per_endpoint_usd",
    "power_per_endpoint_w",
    "relative_cost_usd",
)


def thin_tree_family(k: int = 8, n: int = 4) -> list[str]:
    """Specs of the k:k',n trees for k' = k down to 1 (the thin-tree paper's family)."""
    return [f"tree:k={k},kp={kp},n={n}" for kp in range(k, 0, -1)]


def compare(specs: list[str], cost_table=None) -> list[dict]:
    """One row per spec, with price and power from the cost table (docs/cost.md); costs are
    also given relative to the first spec."""
    from ..cost import cost, load_table

    table = load_table(cost_table)
    rows = []
    for s in specs:
        t = Topology.from_spec(s)
        rows.append({**t.describe(), **cost(t, table)})
    base = rows[0]["cost_linear"]
    base_usd = rows[0]["cost_usd"]
    for r in rows:
        r["relative_cost_linear"] = r["cost_linear"] / base
        r["relative_cost_usd"] = r["cost_usd"] / base_usd if base_usd else None
    return [{c: r[c] for c in COLUMNS} for r in rows]


def format_table(rows: list[dict]) -> str:
    """A Markdown table of the rows (numbers rounded for reading)."""

    def cell(v):
        if v is None:  # ideal_throughput of a network too large to solve
            return "not computed"
        if isinstance(v, float):
            # Whole units from 1 000 up (prices, watts), so that a column reads alike row by row.
            if abs(v) >= 1000 or (v.is_integer() and abs(v) >= 1):
                return f"{v:.0f}"
            return f"{v:.4g}"
        # A spec's suffixes (`SPEC|planes:2`) would end the cell: Markdown escapes the bar.
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(r[c]) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def write_report(rows: list[dict], out: Path, title: str) -> list[Path]:
    """Write ``compare.csv``, ``compare.md`` and ``compare.png`` under ``out``."""
    from .plots import plot_cost_throughput

    out = Path(out)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS)
    w.writeheader()
    w.writerows(rows)
    paths = [out / "compare.csv", out / "compare.md", out / "compare.png"]
    atomic_write_text(paths[0], buf.getvalue())
    atomic_write_text(paths[1], f"# {title}\n\n" + format_table(rows))
    atomic_write(paths[2], lambda tmp: plot_cost_throughput(rows, tmp, title))
    return paths
