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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    per_link = frame.groupby(["channel", "interval_start"], sort=True)["utilisation"].sum().unstack(fill_value=0.0)
    grid = np.clip(per_link.to_numpy(), 0.0, 1.0)
    starts = per_link.columns.to_numpy()
    step = int(np.diff(starts).min()) if len(starts) > 1 else 1
    height = min(12.0, 2.0 + 0.02 * len(per_link))
    fig, ax = plt.subplots(figsize=(8, height), layout="constrained")
    extent = (float(starts[0]), float(starts[-1] + step), len(per_link) - 0.5, -0.5)
    image = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0.0, vmax=1.0, extent=extent)
    ax.set_xlabel("cycle")
    ax.set_ylabel(f"{len(per_link)} busy links, in channel order")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="utilisation")
    fig.savefig(path)
    plt.close(fig)


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
