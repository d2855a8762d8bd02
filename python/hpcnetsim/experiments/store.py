"""The result store of a sweep: a Parquet dataset under ``DIR/store/``.

A finished point is first written alone, atomically, as ``store/<key>.parquet`` (a killed run
leaves only complete points). Every few hundred points and at the end of a sweep these files
are compacted into one ``store/part-<n>.parquet`` table and removed, so a store of 100 000
points is a handful of files: reading it, or the keys of what is finished, takes seconds and
scans no per-point files. Rows are keyed by the point's config, the version and the build
identity (see :func:`hpcnetsim.canonical.config_key`); a key stored twice keeps its last row.

One sweep at a time writes into a folder: :func:`lock` refuses a second one.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._core import BUILD_ID, ConfigError, __version__
from .._files import atomic_write, check_output_folder
from ..provenance import package_build_id
from ..simulation import flatten

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

STORE_DIR = "store"
PART_PREFIX = "part-"
LOCK_FILE = ".sweep.lock"
#: Points written one per file before they are compacted into a part.
COMPACT_EVERY = 256
#: Parts merged into one when there are more than this many.
MAX_PARTS = 16
#: Every page carries a CRC, checked on reading: Parquet has none by default, so one damaged
#: byte of a value (a disk error, a copy cut short) was read back as another number.
#: Stores written without CRCs stay readable (their pages are not checked).
WRITE = {"write_page_checksum": True}
READ = {"page_checksum_verification": True}


def store_dir(path: str | Path) -> Path:
    """The store folder of a study's output folder (or the store folder itself)."""
    path = Path(path)
    return path / STORE_DIR if (path / STORE_DIR).is_dir() else path


def record(
    key: str, config: dict[str, Any], result: dict[str, Any] | None, error: str | None
) -> dict[str, Any]:
    """The store row of one point: key, version, build, state, error, config and result."""
    row: dict[str, Any] = {
        "key": key,
        "hpcnetsim_version": __version__,
        "build_id": BUILD_ID,
        # The Python package's part of the build (docs/reliability.md, provenance).
        "package_build_id": package_build_id(),
        "state": "done" if error is None else "failed",
        "error": error,
        "written_at": time.time(),
        "config_json": json.dumps(config, sort_keys=True),
        "result_json": None if result is None else json.dumps(result, sort_keys=True),
    }
    row.update(flatten_config(config))
    if result is not None:
        row.update({k: _cell(v) for k, v in flatten(result).items() if k not in ("topology", "seed")})
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
    """Write one point's row atomically (compacted later by :func:`compact`); returns its file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(root) / STORE_DIR / f"{row['key']}.parquet"
    table = pa.Table.from_pylist([{k: _cell(v) for k, v in row.items()}])
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, **WRITE))
    return path


def _cell(v: Any) -> Any:
    # Lists (per-batch loads, blocked channels) are kept as JSON text: one column type for all rows.
    return json.dumps(v) if isinstance(v, list) else v


def _point_files(d: Path) -> list[Path]:
    return sorted(f for f in d.glob("*.parquet") if not f.name.startswith((".", PART_PREFIX)))


def _parts(d: Path) -> list[Path]:
    return sorted(d.glob(f"{PART_PREFIX}*.parquet"))


def files(path: str | Path) -> list[Path]:
    """The files of a store (parts, then single points), not temporary files of writes in progress."""
    d = store_dir(path)
    if not d.is_dir():
        raise ConfigError(f"{path}: no result store: the output folder of a sweep, or its store/ folder")
    return _parts(d) + _point_files(d)


def _concat(tables: list[pa.Table]) -> pa.Table:
    import pyarrow as pa

    tables = [_lists_as_json(t) for t in tables if t.num_rows]
    if not tables:
        return pa.table({"key": pa.array([], pa.string())})
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        return pa.concat_tables(_unify(tables), promote_options="permissive")


def _unify(tables: list[pa.Table]) -> list[pa.Table]:
    """The tables with one type per column, for files written by versions that typed a column
    differently (a config field that was a number, a result that was text): a column takes the
    type of the newest file (this version's rows keep theirs, so reports and plots work on
    them); an older value that does not convert to it is left empty, never guessed. No row is
    dropped; ``build_id`` and ``hpcnetsim_version`` say which version wrote each."""
    import pyarrow as pa

    types: dict[str, list[pa.DataType]] = {}
    for t in tables:
        for f in t.schema:
            if not pa.types.is_null(f.type) and f.type not in types.setdefault(f.name, []):
                types[f.name].append(f.type)
    for name, seen in types.items():
        if len(seen) < 2:
            continue
        try:
            pa.unify_schemas([pa.schema([pa.field(name, ty)]) for ty in seen], promote_options="permissive")
            continue  # pyarrow merges these itself (an integer and a float column)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            pass
        newest = next(f.type for t in reversed(tables) for f in t.schema if f.name == name and f.type in seen)
        tables = [_retyped(t, name, newest) for t in tables]
    return tables


def _retyped(table: pa.Table, name: str, to: pa.DataType) -> pa.Table:
    import pyarrow as pa

    if name not in table.column_names or table.schema.field(name).type == to:
        return table
    i = table.column_names.index(name)
    column = table.column(i)
    try:
        column = column.cast(to)  # safe: raises if any value does not convert
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        column = pa.array([_converted(v, to) for v in column.to_pylist()], to)
    return table.set_column(i, pa.field(name, to), column)


def _converted(value: Any, to: pa.DataType) -> Any:
    import pyarrow as pa

    if value is None:
        return None
    try:
        return pa.scalar(value).cast(to).as_py()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, TypeError, ValueError):
        return None


def _lists_as_json(table: pa.Table) -> pa.Table:
    """List columns as JSON text, as :func:`_cell` writes them (stores written by builds that
    kept lists as Arrow lists stay readable beside new rows)."""
    import pyarrow as pa

    for i, field in enumerate(table.schema):
        if pa.types.is_list(field.type) or pa.types.is_large_list(field.type):
            text = [None if v is None else json.dumps(v) for v in table.column(i).to_pylist()]
            table = table.set_column(i, pa.field(field.name, pa.string()), pa.array(text, pa.string()))
    return table


class _Vanished(Exception):
    """A listed file of the store was gone when read: compacted into a part it did not list."""


def _read(paths: list[Path], columns: list[str] | None = None, listed: bool = False) -> pa.Table:
    """The rows of ``paths``; ``listed``: they are a listing of the store taken while a sweep
    may be compacting it, and a vanished file raises :class:`_Vanished` (its rows are in a new
    part, which the listing does not hold)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for f in paths:
        try:
            schema = pq.read_schema(f)
            _check_schema(f, schema)
            cols = None if columns is None else [c for c in columns if c in schema.names]
            tables.append(pq.read_table(f, columns=cols, **READ))
        except FileNotFoundError:
            if listed:
                raise _Vanished() from None
            continue  # compact(): the sweep holding the lock is the only one removing files
        except (pa.ArrowInvalid, OSError) as e:  # damaged (a disk error, a copy cut short): say which file
            # Damaged metadata is an OSError ("Couldn't deserialize thrift: ..."), not ArrowInvalid.
            why = " ".join(str(e).split()).split(". ")[0].rstrip(":")
            raise ConfigError(
                f"{f}: not a readable Parquet file ({why}): remove it, and a sweep into this folder runs its points again"
            ) from None
    return _concat(tables)


def _check_schema(path: Path, schema: pa.Schema) -> None:
    """Refuses a Parquet file that is no table of this store (another program's file copied
    into ``store/``): without text ``key`` and ``state`` columns, resuming, compacting and the
    report ended in a traceback, and :func:`results` returned its rows without a key."""
    import pyarrow as pa

    why = None
    for name in ("key", "state"):
        if name not in schema.names:
            why = f"no {name} column"
        elif not pa.types.is_string(ty := schema.field(name).type) and not pa.types.is_large_string(ty):
            why = f"its {name} column holds {ty}, not text"
        if why is not None:
            raise ConfigError(f"{path}: not a table of the result store ({why}): remove it, or move it out of "
                              "the store folder")  # fmt: skip


def _latest(table: pa.Table) -> pa.Table:
    """One row per key: the last one written (files are read oldest first)."""
    import pyarrow as pa

    if table.num_rows == 0:
        return table
    keys = table.column("key").to_pylist()
    last = {k: i for i, k in enumerate(keys)}
    if len(last) == len(keys):
        return table
    return table.take(pa.array(sorted(last.values())))


def _read_store(path: str | Path, columns: list[str] | None = None) -> pa.Table:
    """Every row of the store: listed and read again when a sweep compacted files away
    between the listing and the reading, rather than returned without their rows."""
    while True:
        try:
            return _read(files(path), columns, listed=True)
        except _Vanished:
            continue


def read_table(path: str | Path, columns: list[str] | None = None) -> pa.Table:
    """The store as one Arrow table, one row per key (``columns``: only these)."""
    return _latest(_read_store(path, columns))


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Every row of the store (``path``: a study's output folder or its store folder)."""
    return read_table(path).to_pylist()


def finished(path: str | Path) -> set[str]:
    """Keys of the points whose simulation completed (failed points are run again).

    Reads only the ``key`` and ``state`` columns of the parts, so it stays fast on large stores.
    """
    import pyarrow.compute as pc

    t = _read_store(path, ["key", "state"])
    if t.num_rows == 0 or "state" not in t.column_names:
        return set()
    # A point stored as done is never run again, so any done row of a key settles it.
    return set(pc.unique(t.filter(pc.equal(t.column("state"), "done")).column("key")).to_pylist())


def compact(path: str | Path) -> Path | None:
    """Move the single-point files into one new part (merging parts when there are many)."""
    import pyarrow.parquet as pq

    d = store_dir(path)
    points = _point_files(d)
    parts = _parts(d)
    merge = parts if len(parts) >= MAX_PARTS else []
    if not points and not merge:
        return None
    table = _latest(_read(merge + points))
    n = int(parts[-1].stem.removeprefix(PART_PREFIX)) + 1 if parts else 0
    out = d / f"{PART_PREFIX}{n:08d}.parquet"
    atomic_write(out, lambda tmp: pq.write_table(table, tmp, compression="zstd", **WRITE))
    # Only now the rows are safe in the part; a kill before this leaves duplicates, which
    # readers resolve (same key, same row).
    for f in merge + points:
        f.unlink(missing_ok=True)
    return out


class SweepLock:
    """An exclusive lock on an output folder for the duration of a sweep (released on exit,
    also when the process is killed: it is an OS file lock)."""

    def __init__(self, out: str | Path):
        self.path = Path(out) / LOCK_FILE
        self.fd: int | None = None

    def __enter__(self) -> SweepLock:
        import fcntl

        check_output_folder(self.path.parent)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise ConfigError(
                f"--out = {self.path.parent} is invalid: another sweep (pid {holder}) is writing into it; "
                "wait for it to finish or choose another folder"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def results(path: str | Path) -> pd.DataFrame:
    """All stored points as a DataFrame: one row per point, config and result columns.

    The ``build_id`` column says which build computed each row. A folder that is neither a
    sweep's output folder nor a store (``results("results")`` for ``results/mine``) is refused
    rather than read as an empty store.
    """
    d = Path(path)
    if d.is_dir() and not (d / STORE_DIR).is_dir() and d.name != STORE_DIR and not (d / "experiment.json").exists() \
            and not files(d):  # fmt: skip
        raise ConfigError(f"{path}: no result store: the output folder of a sweep, or its store/ folder")
    t = read_table(path)
    if t.num_rows == 0:
        import pandas

        return pandas.DataFrame()
    return t.to_pandas().sort_values("key", ignore_index=True)
