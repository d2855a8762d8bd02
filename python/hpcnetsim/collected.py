"""The tables of the ``[stats]`` collectors: DataFrames, Parquet files beside a result, and
the link-utilisation heatmap (one row per link, one column per interval)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def frames(tables: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Each table the core returned (``columns`` in order, ``data`` by column) as a DataFrame."""
    import pandas

    return {name: pandas.DataFrame({c: t["data"][c] for c in t["columns"]}) for name, t in tables.items()}


def link_heatmap(frame: pd.DataFrame, path: Path, title: str) -> None:
    """Utilisation of every link (its VCs together) over time: links on the vertical axis in
    channel order, intervals on the horizontal one, idle links left out."""
    # A Figure of its own, not pyplot's: the user's backend (a notebook's inline one) stays.
    from matplotlib.figure import Figure
    import numpy as np

    per_link = frame.groupby(["channel", "interval_start"], sort=True)["utilisation"].sum().unstack(fill_value=0.0)
    grid = np.clip(per_link.to_numpy(), 0.0, 1.0)
    starts = per_link.columns.to_numpy()
    step = int(np.diff(starts).min()) if len(starts) > 1 else 1
    height = min(12.0, 2.0 + 0.02 * len(per_link))
    fig = Figure(figsize=(8, height), layout="constrained")
    ax = fig.subplots()
    extent = (float(starts[0]), float(starts[-1] + step), len(per_link) - 0.5, -0.5)
    image = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0.0, vmax=1.0, extent=extent)
    ax.set_xlabel("cycle")
    ax.set_ylabel(f"{len(per_link)} busy links, in channel order")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="utilisation")
    fig.savefig(path)


#: The files ``hpcnetsim run --out`` writes from a result's tables: ``<table>.parquet`` for
#: every ``[stats]`` collector (registered in the core's ``observe/mod.rs``) and a replay's
#: traffic matrix, the utilisation heatmap, and a replay's per-rank table and heatmap
#: (``inputs/trace.py``). They carry no config: one left by an earlier run in the same
#: folder would pass for the new run's.
TABLE_FILES = (
    "link_utilisation.parquet", "link_utilisation.svg", "latency_percentiles.parquet", "packets.parquet",
    "traffic.parquet", "ranks.csv", "traffic.png",
)  # fmt: skip


def write_tables(result, out: Path, title: str = "") -> list[Path]:
    """Writes ``<table>.parquet`` for every collector table of ``result`` into ``out``, and
    ``link_utilisation.svg`` (the heatmap) when there is a utilisation series."""
    from ._files import atomic_write

    paths = []
    for name, frame in result.tables.items():
        path = out / f"{name}.parquet"
        atomic_write(path, lambda tmp, f=frame: f.to_parquet(tmp, index=False))
        paths.append(path)
        if name == "link_utilisation" and len(frame):
            svg = out / "link_utilisation.svg"
            label = title or "link utilisation over time"
            atomic_write(svg, lambda tmp, f=frame, t=label: link_heatmap(f, Path(tmp), t))
            paths.append(svg)
    return paths


def write_curve_tables(results: list, out: Path) -> list[Path]:
    """Writes ``<table>.parquet`` for every collector table of a load curve's ``results`` into
    ``out``: the loads' rows one after the other, each with its ``offered_load`` first (no
    heatmap: each load has its own time axis)."""
    return write_stacked_tables([({"offered_load": r.offered_load}, r) for r in results], out)


def write_stacked_tables(runs: list[tuple[dict[str, Any], Any]], out: Path) -> list[Path]:
    """Writes ``<table>.parquet`` for every collector table of several runs into ``out``: each
    run's rows one after the other, led by the columns of its key (``offered_load`` along a
    curve, ``repetition`` and ``seed`` over repetitions). No heatmap: each run has its own
    time axis."""
    import pandas

    from ._files import atomic_write

    by_name: dict[str, list] = {}
    keys: list[str] = []
    for key, r in runs:
        keys += [k for k in key if k not in keys]
        for name, frame in r.tables.items():
            by_name.setdefault(name, []).append(frame.assign(**key))
    paths = []
    for name, frames_ in by_name.items():
        table = pandas.concat(frames_, ignore_index=True)
        table = table[[*keys, *[c for c in table.columns if c not in keys]]]
        path = out / f"{name}.parquet"
        atomic_write(path, lambda tmp, t=table: t.to_parquet(tmp, index=False))
        paths.append(path)
    return paths


def remove_stale_tables(out: Path, written: list[Path]) -> None:
    """Removes from ``out`` the table files (:data:`TABLE_FILES`) of an earlier run that this
    run, which wrote ``written``, did not write."""
    names = {Path(p).name for p in written}
    for name in TABLE_FILES:
        if name not in names:
            (Path(out) / name).unlink(missing_ok=True)
