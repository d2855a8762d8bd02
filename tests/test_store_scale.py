"""The store at scale and under concurrency: compaction, build identity, the sweep lock,
no orphan workers after kill -9."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import hpcnetsim
import pytest
from hpcnetsim import ConfigError
from hpcnetsim.experiments import experiment, store
from hpcnetsim.experiments.sweep import run_sweep

DATA = Path(__file__).parent / "data"
SMALL = DATA / "small_sweep.toml"


def fake_rows(n: int, build: str = "b") -> list[dict]:
    cfg = {"topology": "torus:4x4", "traffic": {"load": 0.5}}
    result = {"status": "converged", "accepted_load": 0.5, "batch_accepted_loads": [0.5, 0.5], "latency": {"mean": 3.0}}
    rows = []
    for i in range(n):
        r = store.record(f"{i:064x}", cfg, result, None)
        r["build_id"] = build
        rows.append(r)
    return rows


def test_ten_thousand_points_are_read_and_resumed_from_a_compacted_store(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = fake_rows(10_000)
    (tmp_path / "store").mkdir()
    pq.write_table(pa.Table.from_pylist([{k: store._cell(v) for k, v in r.items()} for r in rows]),
                   tmp_path / "store" / "part-00000000.parquet")  # fmt: skip
    for r in fake_rows(3):  # three points written since, not compacted yet (one rewritten)
        r["key"] = f"{r['key'][:-1]}x" if r["key"].endswith("1") else r["key"]
        store.write(tmp_path, r)
    done = store.finished(tmp_path)
    assert len(done) == 10_001  # the 10 000 and the one new key
    df = hpcnetsim.results(tmp_path)
    assert len(df) == 10_001 and df["key"].is_unique
    assert store.compact(tmp_path).name == "part-00000001.parquet"
    assert [f.name for f in store.files(tmp_path)] == ["part-00000000.parquet", "part-00000001.parquet"]
    assert store.finished(tmp_path) == done


def test_a_changed_build_identity_recomputes(tmp_path, monkeypatch):
    exp = experiment.load(SMALL, quick=True)
    first = run_sweep(exp, tmp_path, jobs=1, progress=False)
    assert first.ran == first.total
    monkeypatch.setattr(hpcnetsim._core, "BUILD_ID", "another-build")
    other = experiment.load(SMALL, quick=True)
    assert {p.key for p in other.points}.isdisjoint(p.key for p in exp.points)
    again = run_sweep(other, tmp_path, jobs=1, progress=False)
    assert (again.stored_before, again.ran) == (0, again.total)


def test_a_second_sweep_into_the_same_folder_is_refused(tmp_path):
    exp = experiment.load(SMALL, quick=True)
    with store.SweepLock(tmp_path):
        with pytest.raises(ConfigError, match="another sweep .* is writing into it"):
            run_sweep(exp, tmp_path, jobs=1, progress=False)
    summary = run_sweep(exp, tmp_path, jobs=1, progress=False)  # free again afterwards
    assert summary.ran == summary.total


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def test_kill_9_of_a_sweep_leaves_no_worker_behind(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text('name = "long"\n[base]\ntopology = "torus:8x8"\nmeasurement.warmup_cycles = 100000000000\n'
                 "[[sweep]]\naxes.traffic.load = [0.1, 0.2, 0.3]\n")  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "hpcnetsim", "sweep", str(f), "--out", str(tmp_path / "out"),
                             "--jobs", "2", "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = children(proc.pid)  # the workers and the resource tracker
        assert len(workers) >= 2, "the workers did not start"
        time.sleep(1.0)  # the workers are simulating now
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 5
        alive = workers
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [w for w in workers if Path(f"/proc/{w}").exists() and b"Z" not in _state(w)]
        assert not alive, f"workers {alive} outlived the sweep"
    finally:
        proc.kill()
        for w in children(proc.pid):
            os.kill(w, signal.SIGKILL)


def _state(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().split(b") ")[1][:1]
    except (FileNotFoundError, IndexError):
        return b"Z"


def test_a_store_with_rows_of_an_older_build_that_kept_lists_as_arrow_lists_compacts(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "store").mkdir()
    old = fake_rows(2, build="old")
    for r in old:  # the older layout: per-batch loads as an Arrow list column, not JSON text
        r["batch_accepted_loads"] = [0.5, 0.5]
    pq.write_table(pa.Table.from_pylist(old), tmp_path / "store" / f"{old[0]['key']}.parquet")
    new = fake_rows(3)[2]
    store.write(tmp_path, new)
    store.compact(tmp_path)
    df = hpcnetsim.results(tmp_path)
    assert len(df) == 3
    assert set(df["batch_accepted_loads"]) == {"[0.5, 0.5]"}


def test_a_store_whose_parts_disagree_on_a_column_type_stays_readable(tmp_path):
    # A part written by another version where a column has another type (a config field that
    # was text, a result that was a number): pyarrow refused to merge the parts, and `report`,
    # `hpcnetsim.results` and compaction ended in an ArrowTypeError traceback.
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "store").mkdir()
    old = fake_rows(2, build="old")
    for r in old:
        r["topology"] = 7  # an integer where this version writes text
        r["accepted_load"] = "0.25"  # a numeric text: cast to this version's float
    old[0]["traffic.load"], old[1]["traffic.load"] = "0.5", "half"  # "half": left empty, not guessed
    pq.write_table(pa.Table.from_pylist(old), tmp_path / "store" / "part-00000000.parquet")
    new = fake_rows(4)[2:]
    for r in new:
        store.write(tmp_path, r)
    df = hpcnetsim.results(tmp_path)
    assert len(df) == 4
    by_build = df.groupby("build_id")
    assert sorted(by_build.get_group("old")["topology"]) == ["7", "7"]
    assert sorted(by_build.get_group("b")["topology"]) == ["torus:4x4", "torus:4x4"]
    assert list(by_build.get_group("old")["accepted_load"]) == [0.25, 0.25]
    assert df["accepted_load"].dtype == float
    assert sorted(by_build.get_group("old")["traffic.load"].isna()) == [False, True]
    assert list(by_build.get_group("b")["traffic.load"]) == [0.5, 0.5]
    store.compact(tmp_path)
    assert len(hpcnetsim.results(tmp_path)) == 4


@pytest.mark.parametrize("compacted", [False, True])
def test_a_flipped_bit_in_a_stored_value_is_refused_not_read_as_another_number(tmp_path, compacted):
    # Parquet pages carry no checksum unless asked for: one damaged byte on disk changed an
    # accepted load (0.2345678901 read as 0.23456789010000004) and every reader took it.
    import struct

    cfg = {"topology": "torus:4x4", "traffic": {"load": 0.5}}
    for i, v in enumerate([0.123456789, 0.2345678901, 0.3456789012]):
        result = {"status": "converged", "accepted_load": v}
        store.write(tmp_path, store.record(f"{i:064x}", cfg, result, None))
    path = store.compact(tmp_path) if compacted else store.files(tmp_path)[1]
    data = bytearray(path.read_bytes())
    at = data.find(struct.pack("<d", 0.2345678901))
    assert at > 0
    data[at] ^= 1
    path.write_bytes(data)
    with pytest.raises(ConfigError, match=rf"{path}: not a readable Parquet file \(.*CRC"):
        hpcnetsim.results(tmp_path)


@pytest.mark.parametrize(
    "columns, why",
    [
        ({"a": [1, 2]}, "no key column"),
        ({"key": ["x"], "state": [3]}, "its state column holds int64, not text"),
        ({"key": [1], "state": ["done"]}, "its key column holds int64, not text"),
    ],
)
def test_a_parquet_file_that_is_no_store_table_is_refused_naming_it(cli, tmp_path, columns, why):
    # A Parquet file of something else copied into store/ ended `sweep` and `report` with a
    # KeyError, ArrowNotImplementedError or matplotlib ValueError traceback, and
    # hpcnetsim.results returned it as a row without a key.
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    (tmp_path / "one.toml").write_text(SMALL.read_text())
    run_sweep(experiment.load(tmp_path / "one.toml", quick=True), out, jobs=1, progress=False)
    foreign = out / "store" / "zz-other.parquet"
    pq.write_table(pa.table(columns), foreign)
    message = f"{foreign}: not a table of the result store ({why}): remove it"
    with pytest.raises(ConfigError, match=re.escape(message)):
        hpcnetsim.results(out)
    for args in (["sweep", str(tmp_path / "one.toml"), "--quick", "--out", str(out), "--no-progress"],
                 ["report", str(out)]):  # fmt: skip
        r = cli(*args)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and message in r.stderr, r.stderr


def test_a_store_compacted_while_it_is_read_loses_no_rows(tmp_path, monkeypatch):
    # A sweep compacts its point files into a new part while `hpcnetsim.results` or a report
    # reads the store: the reader listed the point files, they were gone when it opened them,
    # and it skipped them without seeing the new part: 3 of 4 points missing, no error.
    store.write(tmp_path, fake_rows(1)[0])
    store.compact(tmp_path)
    for r in fake_rows(4)[1:]:
        store.write(tmp_path, r)
    listed = store.files

    def listed_then_compacted(path):
        names = listed(path)
        if len(names) == 4:  # the first listing only: the concurrent sweep compacts now
            store.compact(tmp_path)
        return names

    monkeypatch.setattr(store, "files", listed_then_compacted)
    assert len(hpcnetsim.results(tmp_path)) == 4
    assert len(store.finished(tmp_path)) == 4
