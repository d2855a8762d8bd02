"""Paper 003's unpublished settings, one at a time: the runs behind the validation's
"explained" rows of §4.1 (docs/validation.md, paper 003).

Runs the `variants-*` sweeps of studies/twin-torus.toml (the study's own base: EXTOLL switch,
packets of 1-32 cells, the full schedule) with the seeds `hpcnetsim validate` derives, and the
validation's short-schedule sweep (`saturation-256-short`) with 20 seeds, and writes one row
per run:

    .venv/bin/python benchmarks/paper003_variants.py --out tests/data/paper003/variants.csv

About 510 simulations, an hour on two shared cores. tests/test_paper003_explained.py reads
the file, checks the claims the validation's rows make of it and reruns one point of each
sweep to check that the file is still what hpcnetsim computes.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

#: sweep → seeds per point
SWEEPS = {"variants-zipf": 5, "variants-classes": 5, "saturation-256-short": 20}
COLUMNS = ["sweep", "point", "variant", "topology", "vcs", "pattern", "load", "repetition", "seed", "status",
           "accepted", "latency"]  # fmt: skip


def rows(sweep: str, seeds: int, jobs: int = 2) -> list[dict]:
    """One row per run of ``sweep`` (each point with ``seeds`` repetitions)."""
    from hpcnetsim.studies.validate import Context

    ctx = Context(seeds, jobs, quick=False)
    points = ctx.points("twin-torus", sweep)
    out = []
    for p, r in zip(points, ctx.run(points)):
        c = p.config
        converged = r.get("status") == "converged"
        out.append({
            "sweep": sweep,
            "point": p.values.get("point", ""),
            "variant": p.values.get("zipf", ""),
            "topology": c["topology"],
            "vcs": c["switch"]["vcs"],
            "pattern": c["traffic"]["pattern"],
            "load": c["traffic"]["load"],
            "repetition": p.repetition,
            "seed": c["seed"],
            "status": r.get("status"),
            "accepted": round(r["accepted_load"], 6) if converged else "",
            "latency": round(r["latency"]["network"]["mean"], 4) if converged else "",
        })  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, help="seeds per point (default: 5, 20 for the short schedule)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sweep", choices=list(SWEEPS), action="append", help="default: all of them")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    out = [row for s in a.sweep or SWEEPS for row in rows(s, a.seeds or SWEEPS[s], a.jobs)]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    # With --sweep, the other sweeps' rows already in the file are kept.
    keep = []
    if a.sweep and a.out.exists():
        with open(a.out, newline="") as f:
            keep = [r for r in csv.DictReader(f) if r["sweep"] not in a.sweep]
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(keep + out)
    print(f"{len(out)} runs written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
