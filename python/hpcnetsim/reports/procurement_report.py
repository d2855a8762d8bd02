"""The procurement study's report: the sizing, one table per endpoint class (what is simulated
and what comes from the cost table said in every heading), a Pareto chart of aggregate
uniform throughput against cost and against power, a ranking per workload, and every
assumption. Markdown (``report.md``, ``summary.md``) and one HTML page with the chart inline
as SVG (``report.html``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .._files import atomic_write, atomic_write_text
from ..simulation import flatten

MISSING = "\u2014"
#: Workloads ranked: column, heading, True when larger is better.
RANKED = (
    ("sat_uniform", "uniform", True),
    ("sat_random-permutation", "random permutation", True),
    ("sat_worst-case", "worst case", True),
    ("ebb", "eBB", True),
    ("alltoall_cycles", "alltoall", False),
    ("allreduce_cycles", "allreduce", False),
    ("gb_s_per_kusd", "GB/s per k$", True),
    ("gb_s_per_kw", "GB/s per kW", True),
)


def _num(v: Any, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}".replace(",", " ")
    return f"{v:.{digits}g}"


def _whole(v: Any) -> str:
    """Dollars and watts as whole numbers with thin spacing (2 481 274), not 2.481e+06."""
    return MISSING if v is None or (isinstance(v, float) and math.isnan(v)) else _num(int(round(v)))


def pareto(points: list[tuple[float, float]]) -> list[bool]:
    """For each (cost, value) point: whether no other point costs at most as much and gives at
    least as much, with one of the two strictly better (lower cost, higher value)."""
    out = []
    for i, (c, v) in enumerate(points):
        dominated = any((c2 <= c and v2 >= v) and (c2 < c or v2 > v) for j, (c2, v2) in enumerate(points) if j != i)
        out.append(not dominated)
    return out


def plot_pareto(rows: list[dict], path: Path) -> None:
    """Two panels per class: aggregate uniform saturation throughput against cost and against
    power, each family a dot, the Pareto-optimal ones joined and named in bold."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    classes = sorted({r["class"] for r in rows})
    fig, axes = plt.subplots(len(classes), 2, figsize=(11, 4.2 * len(classes)), squeeze=False)
    for ax_row, target in zip(axes, classes):
        mine = [r for r in rows if r["class"] == target and r.get("uniform_gb_s") is not None]
        for ax, key, scale, xlabel in ((ax_row[0], "cost_usd", 1e6, "cost (million USD)"),
                                       (ax_row[1], "power_w", 1e3, "power (kW)")):  # fmt: skip
            pts = [(r[key] / scale, r["uniform_gb_s"] / 1e3) for r in mine]
            front = pareto(pts)
            xmax = max((p[0] for p in pts), default=1) or 1
            ymax = max((p[1] for p in pts), default=1) or 1
            placed: list[tuple[float, float]] = []
            for i in sorted(range(len(pts)), key=lambda i: pts[i]):
                (x, y), r, on = pts[i], mine[i], front[i]
                ax.scatter([x], [y], s=40, color="tab:blue" if on else "tab:gray", zorder=3)
                # Above the dot, else below, else further out: no label on a neighbour's
                # (positions as fractions of the axes; a point of offset is about 1/250 of them).
                for dy in (4, -11, 15, -22, 26):
                    lx, ly = x / xmax, y / ymax + dy / 250
                    if all(abs(lx - px) > 0.15 or abs(ly - py) > 0.045 for px, py in placed):
                        break
                placed.append((lx, ly))
                ax.annotate(r["label"], (x, y), textcoords="offset points", xytext=(5, dy), fontsize=8,
                            fontweight="bold" if on else "normal")  # fmt: skip
            line = sorted(p for p, on in zip(pts, front) if on)
            if line:
                ax.plot([p[0] for p in line], [p[1] for p in line], color="tab:blue", lw=1, ls="--", zorder=2)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("uniform saturation throughput (TB/s, whole machine)")
            ax.set_title(f"~{target} endpoints", fontsize=10)
            ax.grid(alpha=0.3)
            ax.set_xlim(left=0)
            ax.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, format=Path(path).suffix.lstrip(".") or "png", dpi=110)
    plt.close(fig)


def _ranking(rows: list[dict]) -> list[str]:
    lines = ["| rank | " + " | ".join(h for _, h, _ in RANKED) + " |", "|---" * (len(RANKED) + 1) + "|"]
    columns = []
    for key, _, larger in RANKED:
        have = [r for r in rows if r.get(key) is not None]
        have.sort(key=lambda r: -r[key] if larger else r[key])
        columns.append([f"{r['label']} ({_num(r[key])})" for r in have])
    for i in range(len(rows)):
        lines.append(f"| {i + 1} | " + " | ".join(c[i] if i < len(c) else MISSING for c in columns) + " |")
    return lines


def class_table(rows: list[dict]) -> list[str]:
    """The table of one class: per family its sizing, cost and power, and every measurement."""
    head = ("family", "network", "routing", "endpoints", "switches (radix)", "cost (USD) [table]",
            "power (W) [table]", "uniform [sim]", "random perm. [sim]", "worst case [sim]", "eBB [flow]",
            "alltoall (cycles) [sim]", "allreduce (cycles) [sim]", "GB/s per k$", "GB/s per kW")  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for r in rows:
        if r.get("spec") is None:
            lines.append(f"| {r['label']} | {MISSING} (none: {r['reason']}) |" + f" {MISSING} |" * (len(head) - 2))
            continue
        cells = [r["label"], f"`{r['spec']}`", r["routing"], _num(r["endpoints"]),
                 f"{_num(r['switches'])} ({r['radix']})", _whole(r["cost_usd"]), _whole(r["power_w"]),
                 _num(r.get("sat_uniform")), _num(r.get("sat_random-permutation")), _num(r.get("sat_worst-case")),
                 _num(r.get("ebb")), _num(r.get("alltoall_cycles")), _num(r.get("allreduce_cycles")),
                 _num(r.get("gb_s_per_kusd")), _num(r.get("gb_s_per_kw"))]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _notes(rows: list[dict], patterns: list[str]) -> list[str]:
    notes = []
    for r in rows:
        for p in patterns:
            n = r.get(f"unconverged_{p}") or 0
            if n:
                notes.append(f"- {r['label']}, {p}: {n} load points did not converge (or failed); the saturation "
                             "value is the highest accepted load of the converged ones.")  # fmt: skip
        if r.get("ebb_error"):
            notes.append(f"- {r['label']}: no eBB: {r['ebb_error']}")
    return notes


def _clock(rows: list[dict]) -> str:
    """The links' bandwidth and the cycle time the simulations ran with (their results say), as
    `` (16 GB/s links, 1 ns cycles)``; empty when no simulation gave them."""
    gb_s = sorted({r["link_mb_s"] / 1e3 for r in rows if r.get("link_mb_s")})
    ns = sorted({r["cycle_ns"] for r in rows if r.get("cycle_ns")})
    parts = []
    if gb_s:
        parts.append(" or ".join(f"{v:g}" for v in gb_s) + " GB/s links")
    if ns:
        parts.append(" or ".join(f"{v:g}" for v in ns) + " ns cycles")
    return f" ({', '.join(parts)})" if parts else ""


#: Relative to the full fat-tree: column, heading, how (share of the full tree's value, or times as long).
RELATIVE = (
    ("cost_usd", "cost"), ("power_w", "power"), ("sat_uniform", "uniform"),
    ("sat_random-permutation", "random permutation"), ("sat_worst-case", "worst case"), ("ebb", "eBB"),
    ("alltoall_cycles", "alltoall time"), ("allreduce_cycles", "allreduce time"),
)  # fmt: skip


def relative_table(rows: list[dict]) -> list[str]:
    """Every family against the full fat-tree of its class (the budget): each value as a
    percentage of the full tree's (times: larger is slower)."""
    ref = next((r for r in rows if r["family"] == "fat-tree" and r.get("spec")), None)
    if ref is None:
        return []
    lines = ["| family | " + " | ".join(h for _, h in RELATIVE) + " |", "|---" * (len(RELATIVE) + 1) + "|"]
    for r in rows:
        if r is ref or not r.get("spec"):
            continue
        cells = []
        for key, _ in RELATIVE:
            a, b = r.get(key), ref.get(key)
            cells.append(MISSING if a is None or not b else f"{100 * a / b:.0f} %")
        lines.append(f"| {r['label']} | " + " | ".join(cells) + " |")
    return lines


def markdown(results: dict) -> tuple[str, str]:
    """The report and the summary (the tables alone, for the landing page) as Markdown."""
    study, rows = results["study"], results["rows"]
    coll = study["collectives"]
    quick = " (quick variant)" if study.get("quick_variant") else ""
    classes = sorted({r["class"] for r in rows})
    summary: list[str] = []
    for target in classes:
        mine = [r for r in rows if r["class"] == target]
        budget = mine[0]["budget_usd"] if mine else float("nan")
        summary += [f"#### ~{target} endpoints: budget {_whole(budget)} USD (the full fat-tree)", "",
                    *class_table(mine), ""]  # fmt: skip
    text = [
        f"# {study['title']}{quick}",
        "",
        study.get("description", "").strip().replace("\n", " "),
        "",
        f"Points: {results['points']['total']} simulations ("
        + ", ".join(f"{n} {s}" for s, n in sorted(results["points"]["statuses"].items()))
        + f"; {results['points']['failed']} failed). Classes: {', '.join(str(c) for c in classes)} endpoints.",
        "",
        "## Results",
        "",
        "**[sim]**: simulated in the packet engine (saturation: the highest accepted load, in phits per cycle per "
        "endpoint, i.e. a fraction of the injection bandwidth, over the offered loads "
        f"{', '.join(f'{x:g}' for x in study['loads'])}; collectives: execution time in cycles). "
        "**[flow]**: the flow model (eBB, fraction of the link bandwidth, mean over "
        f"{study.get('ebb', {}).get('samples', 100)} random bisections). **[table]**: the cost table's default "
        "prices and power (`hpcnetsim/cost_table.toml`, docs/cost.md): **unverified defaults** quoted from the "
        "Slim Fly paper's 40 Gb/s (FDR10) list-price fit, not quotes for a real purchase. GB/s per k$ and per kW: "
        "uniform saturation throughput × endpoints × link bandwidth, over the cost and the power (simulated "
        "over table).",
        "",
        *summary,
        "## Against the full fat-tree",
        "",
        "Each family's cost, power, saturation throughputs (per endpoint), eBB and collective times as a percentage of the "
        "full fat-tree's of the same class (below 100 % is cheaper, or slower for throughputs and eBB; above "
        "100 % is a longer collective time).",
        "",
    ]
    for target in classes:
        rel = relative_table([r for r in rows if r["class"] == target])
        if rel:
            text += [f"#### ~{target} endpoints", "", *rel, ""]
    text += [
        "## Pareto chart",
        "",
        "Aggregate uniform saturation throughput of the whole machine against its cost and its power. A "
        "network is Pareto-optimal (blue, bold, joined by the dashed line) when no other costs (or draws) "
        "as little and delivers as much.",
        "",
        "![Pareto chart](pareto.svg)",
        "",
        "## Ranking per workload",
        "",
    ]
    for target in classes:
        mine = [r for r in rows if r["class"] == target and r.get("spec")]
        text += [f"### ~{target} endpoints", "", "Best first; saturation and eBB larger is better, collective "
                 "times smaller is better.", "", *_ranking(mine), ""]  # fmt: skip
    notes = _notes(rows, study["patterns"])
    text += ["## Assumptions", ""]
    text += [
        f"- **Sizing** (python/hpcnetsim/procurement.py): for each class of N endpoints, the budget is the price of "
        f"the full fat-tree (k-ary n-tree) nearest N. Every other family takes, among its candidate configurations "
        f"with switches of at most {study.get('max_radix', 64)} ports whose price is within the budget, those whose "
        f"endpoint count is nearest N (|ln(E/N)|, within a factor {study.get('max_ratio', 2.0):g}); of these, the "
        "most expensive: the richest network of that family the budget buys at that size.",
        "- **Candidates**: full fat-tree `tree:k,n` (n = 2-4); 2:1 fat-tree `xgft` with k/2 up-links at the leaves "
        "and full levels above; thin-tree `tree:k,kp=k/2,n` (2:1 at every level, paper 000); dragonfly with "
        "a = 2p = 2h (Kim et al.'s balance), any group count g with g - 1 dividing a·h; HyperX S×S and S×S×S "
        "with S/2 <= t <= S endpoints a switch; Slim Fly q (prime power), the default p = ⌈k'/2⌉; 3D torus "
        "A×B×C with no side more than twice another, 1 or 2 endpoints a switch.",
        "- **Routing** (docs/routing.md): " + "; ".join(f"{f}: {r['algorithm']} (worst case: {r['worst_case']})"
                                                     for f, r in study["routing"].items() if f in study["families"])
        + ". Worst-case traffic: the dragonfly's group shift (Kim et al.); tornado elsewhere, which on trees, "
        "HyperX and Slim Fly is a shift by N/2 - 1 terminals (nearly all traffic crosses the bisection), not a "
        "pattern proven worst for that family.",
        "- **Switch, packets and measurement schedule** (every family alike): " + ", ".join(f"{k} = {v}" for k, v in flatten(study.get("base", {}), sep=".").items())
        + f"; the other fields are the defaults of docs/config.md{_clock(rows)}.",
        f"- **Collectives**: alltoall of {coll['alltoall_bytes']} B and allreduce of {coll['allreduce_bytes']} B per "
        f"task, algorithm chosen by size and task count (workload.algorithm = auto), one task per endpoint on the "
        f"whole machine up to {coll['max_tasks']} tasks (above that, {coll['max_tasks']} tasks placed at random).",
        f"- **Saturation**: one seed ({study.get('seed', 1)}), the offered loads above; the value can only be as "
        "fine as that grid.",
        "- **eBB**: flow model, max-min fair rates, adaptive routings spread evenly over their candidates "
        f"(docs/flow.md); not the packet engine. On every endpoint up to {study.get('ebb', {}).get('max_nodes', 8192)}; "
        "above, that many placed at random.",
        "- **Cost and power**: switches (every port of the radix, used or not), cables electrical up to 3 m "
        "and optical beyond, from the default rack layout (docs/cost.md); NICs and nodes are not priced. "
        "These are the cost table's unverified defaults.",
    ]
    if study.get("quick_variant"):
        text.append("- **Quick variant**: only the classes listed, a coarse load grid and a short measurement "
                    "schedule, few eBB bisections and small collectives: a test of the whole chain, numbers "
                    "indicative only.")  # fmt: skip
    if notes:
        text += ["", "## Notes", "", *notes]
    text += ["", "## Candidates priced", ""]
    for target, sized in results.get("sizing", {}).items():
        for s in sized:
            priced = ", ".join(f"`{spec}` ({_num(e)} endpoints, {_whole(c)} USD)" for spec, e, c in s["priced"])
            text.append(f"- {target}, {s['family']}: {priced or MISSING}")
    return "\n".join(text) + "\n", "\n".join(summary) + "\n"


def is_output(folder: Path) -> bool:
    """Whether ``folder`` is the output of the procurement runner: its ``results.json`` says so,
    or it is damaged beside an ``experiment.json`` (only this runner writes both; the generic
    report would replace its page without a word, :func:`rewrite` says what is wrong)."""
    path = Path(folder) / "results.json"
    if not path.is_file():
        return False
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        doc = None
    study = doc.get("study") if isinstance(doc, dict) else None
    if isinstance(study, dict) and study.get("runner") == "procurement":
        return True
    return (Path(folder) / "experiment.json").is_file()


def rewrite(folder: Path) -> Path:
    """The report of a finished run written again from its ``results.json`` (``hpcnetsim report``).
    A file that lacks what the report needs is a one-line ``ConfigError`` naming it, raised
    before anything is written."""
    from .._core import ConfigError

    folder = Path(folder)
    path = folder / "results.json"
    what = "the results written by hpcnetsim study run procurement; run the study again to rewrite them"
    try:
        results = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: not readable JSON ({e}): {what}") from None
    problem = None
    if not isinstance(results, dict):
        problem = f"a JSON {type(results).__name__}, not an object"
    elif not isinstance(results.get("rows"), list) or not all(isinstance(r, dict) for r in results["rows"]):
        problem = "rows is missing or not a list of tables"
    elif not isinstance(results.get("points"), dict):
        problem = "points is missing or not a table"
    else:
        try:
            markdown(results)
        except KeyError as e:
            problem = f"{e.args[0]} is missing"
        except (TypeError, ValueError, AttributeError) as e:
            problem = f"a field has a value of the wrong kind ({e})"
    if problem is not None:
        raise ConfigError(f"{path}: {problem}: {what}")
    return write(results, folder, results.get("source_text", ""))


def write(results: dict, out: Path, source_text: str = "") -> Path:
    """``results.json``, ``report.md``, ``summary.md``, ``pareto.svg``/``.png`` and ``report.html``
    (the chart inline, the study file collapsed at the end); returns the HTML page's path."""
    import html

    from . import svg
    from .landing import markdown_page

    out = Path(out)
    results = {**results, "source_text": source_text or results.get("source_text", "")}
    atomic_write_text(out / "results.json", json.dumps(results, indent=1) + "\n")
    text, summary = markdown(results)
    atomic_write_text(out / "report.md", text)
    atomic_write_text(out / "summary.md", summary)
    rows = results["rows"]
    atomic_write(out / "pareto.png", lambda tmp: plot_pareto(rows, tmp))
    chart = svg.draw_svg(lambda p: plot_pareto(rows, p))
    atomic_write_text(out / "pareto.svg", chart)
    page = markdown_page(text, results["study"]["title"], {"pareto.svg": svg.inline(chart, "Pareto chart", "pareto")})
    if source_text:
        block = f"<h2>Study file</h2><details><summary>the study file</summary><pre>{html.escape(source_text)}</pre></details>"
        page = page.replace("\n</body>", f"\n{block}\n</body>")
    atomic_write_text(out / "report.html", page)
    return out / "report.html"
