"""Studies of static routing with MPI benchmarks (paper 001): mpiGraph and eBB in the flow model,
IMB-style collectives and the ring allreduce as causal workloads in the packet engine, and the
lanes each routing engine needs, for several (network, routing engine, placement) combinations.

A study file with ``runner = "static-routing-benchmarks"`` (``studies/hyperx.toml``) is run here
instead of as a sweep; results go to ``OUT/results.json`` and ``OUT/report.md`` (also as ``OUT/report.html``) with figures.
"""

from __future__ import annotations

import copy
import json
import time
import tomllib
from pathlib import Path
from typing import Any

from .._core import ConfigError
from .._files import atomic_write, atomic_write_text

RUNNER = "static-routing-benchmarks"
KEYS = ("name", "title", "description", "runner", "seed", "vcs", "link_bandwidth", "networks", "combinations",
        "mpigraph", "ebb", "collectives", "quick", "published")  # fmt: skip
GIB = 2**30


def is_benchmark_study(path: Path) -> bool:
    """Whether the study file at ``path`` asks for this runner."""
    try:
        return tomllib.loads(Path(path).read_text()).get("runner") == RUNNER
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def load(path: Path, quick: bool = False) -> dict[str, Any]:
    """The study file, checked, with its ``[quick]`` overrides applied if asked."""
    try:
        study = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"study file = {str(path)!r} is invalid: {e}") from None
    unknown = sorted(set(study) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: key = {unknown[0]!r} is invalid: one of {', '.join(KEYS)}")
    for c in study.get("combinations", []):
        if c.get("network") not in study.get("networks", {}):
            raise ConfigError(f"{path}: combinations.network = {c.get('network')!r} is invalid: one of "
                              f"{', '.join(study.get('networks', {}))}")  # fmt: skip
    if quick:
        for dotted, value in study.get("quick", {}).items():
            for key, v in (value.items() if isinstance(value, dict) else [(None, value)]):
                section = study.setdefault(dotted, {}) if key is not None else study
                section[key if key is not None else dotted] = v
    return study


def _config(study: dict, network: str, engine: str, placement: str = "linear") -> dict[str, Any]:
    """A table-routing config on one of the study's networks: the tables computed once per
    (network, engine) by :func:`run` and loaded from their dump (``study["_tables"]``)."""
    routing: dict[str, Any] = {"algorithm": "table", "tables": study["_tables"][f"{network}/{engine}"]}
    if engine == "parx":
        routing.update(address="parx")
    return {
        "topology": study["networks"][network],
        "seed": study.get("seed", 1),
        "switch": {"vcs": study.get("vcs", 8)},
        "routing": routing,
        "flow": {"link_bandwidth": study.get("link_bandwidth", 4e9), "placement": placement},
    }


def _flow(cfg: dict, **flow: Any) -> dict:
    out = copy.deepcopy(cfg)
    out["flow"].update(flow)
    return out


def _ebb_point(cfg: dict, nodes: int, samples: int, message_bytes: int) -> dict:
    """eBB on ``nodes`` nodes; a clustered placement that runs past the network falls back to
    linear (at the full system every placement is the whole machine)."""
    from ..flow import ebb

    c = _flow(cfg, nodes=nodes, samples=samples, message_bytes=message_bytes)
    try:
        r = ebb(c).to_dict()
    except ConfigError as e:
        if "ran past" not in str(e):
            raise
        c["flow"]["placement"] = "linear"
        r = ebb(c).to_dict()
    d = r["distribution"]
    return {"nodes": r["nodes"], "ebb": r["ebb"], "p5": d["p5"], "p95": d["p95"], "placement": c["flow"]["placement"],
            "ebb_gib_s": r["ebb_bandwidth"] / GIB, "wall_seconds": r["wall_seconds"]}  # fmt: skip


def _execute_time(cfg: dict, kernel: str, tasks: int, message_bytes: int, placement: str) -> int | None:
    from ..simulation import execute

    c = {k: v for k, v in cfg.items() if k != "flow"}
    c["workload"] = {"kernel": kernel, "tasks": tasks, "message_bytes": message_bytes, "placement": placement}
    r = execute(c).to_dict()
    return r["execution_time_cycles"] if r["status"] == "completed" else None


def run(path: Path, out: Path, quick: bool = False, log=print) -> dict[str, Any]:
    """Runs the study and writes ``results.json``, ``report.md``, ``report.html`` and the figures into ``out``."""
    from .. import routing

    study = load(path, quick)
    start = time.monotonic()
    results: dict[str, Any] = {"name": study["name"], "quick": quick, "lanes": {}, "mpigraph": {}, "ebb": {},
                               "collectives": []}  # fmt: skip
    # Tables and lanes: every engine the study uses on its network, computed once and dumped.
    study["_tables"] = {}
    for c in study["combinations"] + study.get("mpigraph", {}).get("panels", []):
        key = f"{c['network']}/{c['engine']}"
        if key not in results["lanes"]:
            r = routing.route(study["networks"][c["network"]], c["engine"], lmc=2 if c["engine"] == "parx" else 0,
                              dump=True)  # fmt: skip
            dump = Path(out) / "tables" / f"{c['network']}-{c['engine']}.lft"
            atomic_write_text(dump, r.pop("dump"))
            study["_tables"][key] = str(dump.resolve())
            results["lanes"][key] = r["vls_used"]
            log(f"lanes {key}: {r['vls_used']}")
    mg = study.get("mpigraph", {})
    for panel in mg.get("panels", []):
        from ..flow import mpigraph

        cfg = _flow(_config(study, panel["network"], panel["engine"]), nodes=mg["nodes"],
                    message_bytes=mg.get("message_bytes", 2**20))  # fmt: skip
        r = mpigraph(cfg).to_dict()
        results["mpigraph"][panel["label"]] = r
        log(f"mpiGraph {panel['label']}: {r['pair_bandwidth']['mean'] / GIB:.3f} GiB/s per pair")
    eb = study.get("ebb", {})
    for c in study["combinations"]:
        cfg = _config(study, c["network"], c["engine"], c["placement"])
        rows = [_ebb_point(cfg, n, eb.get("samples", 1000), eb.get("message_bytes", 2**20)) for n in eb.get("nodes", [])]
        results["ebb"][c["label"]] = rows
        log(f"eBB {c['label']}: " + ", ".join(f"{r['nodes']}: {r['ebb']:.3f}" for r in rows))
    co = study.get("collectives", {})
    runs = [(k, b) for k in co.get("kernels", []) for b in co.get("message_bytes", [])]
    runs += [("deepbench-allreduce", b) for b in co.get("ring_message_bytes", [])]
    for kernel, size in runs:
        for n in co.get("nodes", []):
            row: dict[str, Any] = {"kernel": kernel, "message_bytes": size, "nodes": n}
            for c in study["combinations"]:
                cfg = _config(study, c["network"], c["engine"], c["placement"])
                row[c["label"]] = _execute_time(cfg, kernel, n, size, c["placement"])
            results["collectives"].append(row)
        log(f"{kernel} {size} B: {len(co.get('nodes', []))} node counts")
    results["wall_seconds"] = time.monotonic() - start
    write(study, results, out)
    return results


def _gain(base: int | None, t: int | None) -> str:
    """Relative gain over the baseline (positive: faster), as paper 001 Figs. 4-5 show it."""
    return "n/a" if not base or not t else f"{base / t - 1:+.2f}"


def report(study: dict, results: dict) -> str:
    """The study's report as Markdown: ours beside the published values."""
    pub = study.get("published", {})
    labels = [c["label"] for c in study["combinations"]]
    lines = [f"# {study['title']}", "", study.get("description", "").strip(), ""]
    lines += ["## Lanes per routing engine", "", "| network / engine | ours | paper 001 |", "|---|---|---|"]
    for key, vls in results["lanes"].items():
        lines.append(f"| {key} | {vls} | {pub.get('lanes', {}).get(key.split('/')[1], '')} |")
    lines += ["", f"## Fig. 1: mpiGraph, {study['mpigraph']['nodes']} nodes of one rack", "",
              "| network | ours (GiB/s per pair) | ours / fat-tree | streams per cable (worst) | paper 001 (GiB/s) "
              "| paper / fat-tree |", "|---|---|---|---|---|---|"]  # fmt: skip
    mg = results["mpigraph"]
    base = next(iter(mg.values()))["pair_bandwidth"]["mean"] if mg else 1.0
    pbase = next(iter(pub.get("fig1", {}).values()), None)
    for label, r in mg.items():
        ours = r["pair_bandwidth"]["mean"]
        p = pub.get("fig1", {}).get(label)
        paper = f"{p} | {p / pbase:.2f}" if p and pbase else " | "
        lines.append(f"| {label} | {ours / GIB:.2f} | {ours / base:.2f} | {r['worst_streams_per_cable']} | {paper} |")
    lines += ["", "![mpiGraph](mpigraph.png)", "", "## Fig. 5c: effective bisection bandwidth (fraction of a link)", ""]
    nodes = sorted({r["nodes"] for rows in results["ebb"].values() for r in rows})
    lines += ["| combination | " + " | ".join(str(n) for n in nodes) + " |", "|---|" + "---|" * len(nodes)]
    for label, rows in results["ebb"].items():
        by = {r["nodes"]: r["ebb"] for r in rows}
        lines.append(f"| {label} | " + " | ".join(f"{by[n]:.3f}" if n in by else "" for n in nodes) + " |")
    lines += ["", "Paper 001 (Fig. 5c is not in the text; its statements):", ""]
    lines += [f"- {claim}" for claim in pub.get("ebb_claims", [])]
    lines += ["", "![eBB](ebb.png)", "", "## Figs. 4 and 5a: collectives, relative gain over " + labels[0], ""]
    lines += ["| kernel | bytes | nodes | " + " | ".join(labels[1:]) + " |", "|---|---|---|" + "---|" * (len(labels) - 1)]
    for row in results["collectives"]:
        base_t = row.get(labels[0])
        gains = " | ".join(_gain(base_t, row.get(lab)) for lab in labels[1:])
        lines.append(f"| {row['kernel']} | {row['message_bytes']} | {row['nodes']} | {gains} |")
    lines += ["", f"Wall time: {results['wall_seconds']:.0f} s.", ""]
    return "\n".join(lines)


def write(study: dict, results: dict, out: Path) -> None:
    """``results.json``, ``report.md`` and ``report.html`` (the same report), ``mpigraph.png``
    (one heatmap per panel) and ``ebb.png``."""
    import pandas as pd

    from ..flow import plot_ebb_curve, plot_mpigraph

    out = Path(out)
    atomic_write_text(out / "results.json", json.dumps(results, indent=1) + "\n")
    for i, (label, r) in enumerate(results["mpigraph"].items()):
        atomic_write(out / f"mpigraph-{i}.png", lambda tmp, r=r, label=label: plot_mpigraph(r, tmp, label))
    if results["mpigraph"]:
        _side_by_side([out / f"mpigraph-{i}.png" for i in range(len(results["mpigraph"]))], out / "mpigraph.png")
    frames = {label: pd.DataFrame(rows) for label, rows in results["ebb"].items() if rows}
    if frames:
        atomic_write(out / "ebb.png", lambda tmp: plot_ebb_curve(frames, tmp))
    text = report(study, results)
    atomic_write_text(out / "report.md", text)
    from ..reports.landing import markdown_page

    atomic_write_text(out / "report.html", markdown_page(text, study["title"]))


def _side_by_side(parts: list[Path], path: Path) -> None:
    """Joins the heatmaps into one figure (paper 001 Fig. 1 shows three side by side)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(parts), figsize=(5 * len(parts), 4.5))
    for ax, p in zip(axes if len(parts) > 1 else [axes], parts):
        ax.imshow(mpimg.imread(p))
        ax.axis("off")
    fig.tight_layout()
    atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))
    plt.close(fig)
