"""The Quadrics study (paper 004 §5): benchmark studies (``runner = "quadrics-benchmarks"`` in a study
file) run the microbenchmarks on the study's base config and compare what the tool computes
with the published values the study file lists. Output: one CSV per benchmark, figures
(PNG, SVG), ``summary.csv`` and ``summary.md`` (published vs ours) and ``report.html``.
"""

from __future__ import annotations

import html
import math
import tomllib
from pathlib import Path
from typing import Any

import pandas

from . import netbench as nb
from .._core import ConfigError
from ..units import physical

#: Buffer mappings of paper 004 §4.3: (name, source buffer, destination buffer).
MAPPINGS = (("elan-elan", "nic", "nic"), ("elan-main", "nic", "host"), ("main-elan", "host", "nic"),
            ("main-main", "host", "host"))  # fmt: skip


def is_quadrics_study(path: Path) -> bool:
    """Whether the study file at ``path`` asks for this runner (``runner = "quadrics-benchmarks"``)."""
    try:
        return tomllib.loads(Path(path).read_text()).get("runner") == "quadrics-benchmarks"
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def _mapped(base: dict, src: str, dst: str) -> dict:
    cfg = {**base, "nic": {**base.get("nic", {}), "source_buffer": src, "destination_buffer": dst}}
    return cfg


def _plateau(values) -> float:
    """The largest value of a curve (its plateau for the saturating ones)."""
    return float(max(values))


def compute(study: dict[str, Any], quick: bool = False) -> tuple[dict[str, float], dict[str, pandas.DataFrame]]:
    """Runs every benchmark of the study; returns (key → our value, name → frame)."""
    base = study["base"]
    s = {**study.get("study", {}), **(study.get("quick", {}) if quick else {})}
    nodes = int(s.get("nodes", 8))
    sizes = s.get("ping_sizes")
    frames: dict[str, pandas.DataFrame] = {}
    ours: dict[str, float] = {}
    for name, src, dst in MAPPINGS:
        f = nb.ping(_mapped(base, src, dst), sizes, 0, 1)
        frames[f"ping-{name}"] = f
    elan, main = frames["ping-elan-elan"], frames["ping-main-main"]
    at = lambda f, size, col: float(f.loc[f["size_bytes"] == size, col].iloc[0])  # noqa: E731
    ours["latency_0_us"] = at(elan, 0, "latency_us")
    if 64 in set(elan["size_bytes"]):
        ours["latency_64_elan_us"] = at(elan, 64, "latency_us")
        ours["latency_64_main_us"] = at(main, 64, "latency_us")
    ours["peak_elan_mb_s"] = _plateau(elan["bandwidth_mb_s"])
    clock = physical(_json(base))
    payload, overhead = clock["max_payload_bytes"], clock["packet_overhead_bytes"]
    ours["link_mb_s"] = ours["peak_elan_mb_s"] * (payload + overhead) / payload
    ours["peak_elan_main_mb_s"] = _plateau(frames["ping-elan-main"]["bandwidth_mb_s"])
    ours["peak_main_mb_s"] = _plateau(main["bandwidth_mb_s"])
    ours["n_half_elan_bytes"] = nb.half_power_point(elan)
    ours["n_half_main_bytes"] = nb.half_power_point(main)
    hops = nb.hops(base)
    frames["hops"] = hops
    ours["per_hop_ns"] = hops.attrs["per_hop_ns"]
    for name, src in (("elan", "nic"), ("main", "host")):
        f = nb.bidirectional(_mapped(base, src, src), sizes, 0, 1)
        frames[f"bidirectional-{name}-{name}"] = f
        ours[f"bidir_{name}_mb_s"] = _plateau(f["bandwidth_mb_s"])
    size = int(s.get("hotspot_bytes", 65536))
    for kind in ("read", "write"):
        f = nb.hotspot(base, size, range(1, nodes), kind)
        frames[f"hotspot-{kind}"] = f
        ours[f"{kind}_hotspot_mb_s"] = float(f["aggregate_mb_s"].iloc[-1])
    ex = nb.exchange(base, s.get("exchange_sizes"), nodes, algorithm=s.get("exchange_algorithm", "pairwise"))
    frames["exchange"] = ex
    ours["exchange_per_node_mb_s"] = _plateau(ex["per_node_mb_s"])
    small = ex[ex["size_bytes"] <= 256]
    if len(small):
        ours["exchange_small_us"] = float(small["time_us"].iloc[-1])
    bar = nb.barrier(base, range(2, nodes + 1))
    frames["barrier"] = bar
    # The paper's barrier: events gathered on one node, released by the hardware broadcast.
    ours["barrier_2_us"] = float(bar["hardware_broadcast_us"].iloc[0])
    ours["barrier_8_us"] = float(bar.loc[bar["nodes"] == nodes, "hardware_broadcast_us"].iloc[0])
    big = {**base, "topology": s.get("extrapolation", "tree:k=4,n=5")}
    far = nb.hops(big)
    frames["hops-1024"] = far
    switches = int(far["switches"].iloc[-1])
    ours["switches_1024"] = switches
    # Every switch on the route adds one hop (switch + wire), and the terminal link one more.
    ours["network_1024_us"] = (switches + 1) * far.attrs["per_hop_ns"] / 1e3
    return ours, frames


def _json(cfg: dict) -> str:
    from ..config import to_json

    return to_json(cfg)


def summary(study: dict[str, Any], ours: dict[str, float]) -> pandas.DataFrame:
    """Published vs ours, one row per published value."""
    rows = []
    for p in study.get("published", []):
        v = ours.get(p["key"], math.nan)
        diff = (v - p["value"]) / p["value"] * 100 if p["value"] else math.nan
        rows.append({"quantity": p["label"], "unit": p.get("unit", ""), "published": p["value"], "ours": v,
                     "difference_percent": diff, "source": p.get("source", "")})  # fmt: skip
    return pandas.DataFrame(rows)


def percent_difference(percent: float) -> str:
    """A signed difference in whole percent: "+3 %", "-12 %", and "0 %" for one that rounds
    to zero from either side (274.8 against 275 is not "-0 %")."""
    rounded = round(percent)
    return "0 %" if rounded == 0 else f"{rounded:+d} %"


def markdown(table: pandas.DataFrame) -> str:
    """The summary as a Markdown table."""
    lines = ["| quantity | unit | published | ours | difference | source |", "|---|---|---|---|---|---|"]
    for r in table.itertuples():
        diff = "" if math.isnan(r.difference_percent) else percent_difference(r.difference_percent)
        lines.append(f"| {r.quantity} | {r.unit} | {r.published:g} | {r.ours:.4g} | {diff} | {r.source} |")
    return "\n".join(lines) + "\n"


def _figures(frames: dict[str, pandas.DataFrame], out: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    from ..reports.plots import line_axes, save_png_svg

    specs = [
        ("ping-bandwidth", "message size (bytes)", "bandwidth (MB/s)",
         [(f"ping-{m}", "size_bytes", "bandwidth_mb_s", m) for m, _, _ in MAPPINGS], True, False),
        ("ping-latency", "message size (bytes)", "one-way latency (µs)",
         [(f"ping-{m}", "size_bytes", "latency_us", m) for m, _, _ in MAPPINGS], True, True),
        ("bidirectional", "message size (bytes)", "bandwidth per direction (MB/s)",
         [(f"bidirectional-{m}-{m}", "size_bytes", "bandwidth_mb_s", f"{m} to {m}") for m in ("elan", "main")],
         True, False),
        ("hotspot", "processes", "bandwidth (MB/s)",
         [(f"hotspot-{k}", "processes", c, f"{k}, {c.split('_mb')[0].replace('_', ' ')}")
          for k in ("read", "write") for c in ("aggregate_mb_s", "per_process_mb_s")], False, False),
        ("exchange", "message size per pair (bytes)", "total exchange time (µs)",
         [("exchange", "size_bytes", "time_us", "simulated"), ("exchange", "size_bytes", "bound_us", "eq. 1 bound")],
         True, True),
        ("barrier", "nodes", "barrier time (µs)",
         [("barrier", "nodes", c, c.removesuffix("_us").replace("_", " "))
          for c in ("linear_us", "tree_us", "hardware_broadcast_us")], False, False),
    ]  # fmt: skip
    written = []
    for name, xl, yl, curves, logx, logy in specs:
        fig, ax = plt.subplots(figsize=(6, 4))
        for frame, x, y, label in curves:
            f = frames[frame]
            f = f[f[x] > 0] if logx else f
            ax.plot(f[x], f[y], marker="o", markersize=3, label=label)
        line_axes(ax, xl, yl, logx, logy)
        ax.legend(fontsize=8)
        ax.set_title(f"QsNET preset: {name}")
        written += save_png_svg(fig, out, name)
    return written


def _report(study: dict, table: pandas.DataFrame, figures: list[Path], out: Path) -> Path:
    """``report.html``: the published-vs-ours table, then every figure inline as SVG (each
    figure's own title names it: no caption repeats it)."""
    from .._files import atomic_write_text
    from ..reports import svg
    from ..reports.landing import page

    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in (
            r.quantity, r.unit or "\u2014", f"{r.published:g}", f"{r.ours:.4g}",
            "\u2014" if math.isnan(r.difference_percent) else percent_difference(r.difference_percent),
            r.source)) + "</tr>"
        for r in table.itertuples()
    )  # fmt: skip
    imgs = "".join(svg.inline(p.read_text(), p.stem, p.stem) for p in figures if p.suffix == ".svg")
    title = study.get("title", "")
    body = (
        f"<h1>{html.escape(title)}</h1><p>{html.escape(study.get('description', ''))}</p>"
        "<h2>Published vs ours</h2><table><tr><th>quantity</th><th>unit</th>"
        f"<th>published</th><th>ours</th><th>difference</th><th>source</th></tr>{rows}</table>"
        f"<h2>Figures</h2>{imgs}"
    )
    path = out / "report.html"
    atomic_write_text(path, page(title, body))
    return path


def run_study(path: Path, out: Path | None = None, quick: bool = False) -> tuple[Path, str]:
    """Runs the benchmark study of ``path``; returns (output folder, Markdown summary)."""
    from .._files import atomic_write, atomic_write_text

    try:
        study = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from None
    if not isinstance(study.get("base"), dict):
        raise ConfigError(f"{path}: base = {study.get('base')!r} is invalid: a table with the config")
    name = study.get("name", Path(path).stem)
    out = Path(out or Path("results") / (name + ("-quick" if quick else "")))
    out.mkdir(parents=True, exist_ok=True)
    ours, frames = compute(study, quick)
    for fname, f in frames.items():
        atomic_write(out / f"{fname}.csv", lambda tmp, f=f: f.to_csv(tmp, index=False))
    table = summary(study, ours)
    atomic_write(out / "summary.csv", lambda tmp: table.to_csv(tmp, index=False))
    md = markdown(table)
    atomic_write_text(out / "summary.md", md)
    _report(study, table, _figures(frames, out), out)
    return out, md
