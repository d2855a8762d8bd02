"""The result store: one Parquet file per point under ``DIR/store/``, named by the point's key.

Every file is written to a temporary name and renamed, so a killed run leaves only complete
points; a point is finished when its file says ``state = "done"``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._core import ConfigError, __version__
from ._files import atomic_write
from .simulation import flatten

if TYPE_CHECKING:
    import pandas as pd

STORE_DIR = "store"


def store_dir(path: str | Path) -> Path:
    """The store folder of a study's output folder (or the store folder itself)."""
    path = Path(path)
    return path / STORE_DIR if (path / STORE_DIR).is_dir() else path


def record(
    key: str, config: dict[str, Any], result: dict[str, Any] | None, error: str | None
) -> dict[str, Any]:
    """The store row of one point: key, version, state, error, config and result (JSON and flattened)."""
    row: dict[str, Any] = {
        "key": key,
        "hpcnetsim_version": __version__,
        "state": "done" if error is None else "failed",
        "error": error,
        "config_json": json.dumps(config, sort_keys=True),
        "result_json": None if result is None else json.dumps(result, sort_keys=True),
    }
    row.update(flatten_config(config))
    if result is not None:
        row.update({k: v for k, v in flatten(result).items() if k not in ("topology", "seed")})
    return row


def flatten_config(config: dict[str, Any]) -> dict[str, Any]:
    """Config fields as dotted columns (``switch.vcs``, ``traffic.load``)."""
    out = {}
    for k, v in config.items():
        if isinstance(v, dict):
            out.update({f"{k}.{f}": x for f, x in v.items()})
        else:
            out[k] = v
    return out


def write(root: str | Path, row: dict[str, Any]) -> Path:
    """Write one point's row atomically; returns its file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(root) / STORE_DIR / f"{row['key']}.parquet"
    table = pa.Table.from_pylist([{k: _cell(v) for k, v in row.items()}])
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return path


def _cell(v: Any) -> Any:
    # Parquet columns need one type per file; lists of mixed or no items are kept as JSON text.
    return json.dumps(v) if isinstance(v, list) and (not v or len({type(x) for x in v}) > 1) else v


def files(path: str | Path) -> list[Path]:
    """The point files of a store, not the temporary files of writes in progress."""
    if not store_dir(path).is_dir():
        raise ConfigError(f"{path}: no result store: the output folder of a sweep, or its store/ folder")
    return sorted(f for f in store_dir(path).glob("*.parquet") if not f.name.startswith("."))


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Every row of the store (``path``: a study's output folder or its store folder)."""
    import pyarrow.parquet as pq

    return [pq.read_table(f).to_pylist()[0] for f in files(path)]


def finished(path: str | Path) -> set[str]:
    """Keys of the points whose simulation completed (failed points are run again)."""
    import pyarrow.parquet as pq

    done = set()
    for f in files(path):
        if pq.read_table(f, columns=["state"]).column("state")[0].as_py() == "done":
            done.add(f.stem)
    return done


def results(path: str | Path) -> pd.DataFrame:
    """All stored points as a DataFrame: one row per point, config and result columns."""
    import pandas

    rows = read_rows(path)
    return pandas.DataFrame(rows).sort_values("key", ignore_index=True) if rows else pandas.DataFrame()
