"""The [stats] collectors from Python: DataFrames on the result, Parquet files and the
link-utilisation heatmap beside ``result.json``, which itself stays free of the tables."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pandas as pd

import hpcnetsim

CONFIG = {
    "topology": "torus:4x4",
    "seed": 2,
    "switch": {"vcs": 2},
    "traffic": {"load": 0.5},
    "measurement": {"warmup_cycles": 500, "window_cycles": 250, "batches": 2, "batch_cycles": 500},
    "stats": {"link_utilisation": True, "interval_cycles": 100, "latency_percentiles": True, "packet_sample": 0.25},
}


def test_tables_are_dataframes_and_stay_out_of_the_fields():
    r = hpcnetsim.simulate(CONFIG)
    assert set(r.tables) == {"link_utilisation", "latency_percentiles", "packets"}
    u = r.tables["link_utilisation"]
    assert list(u.columns) == ["interval_start", "channel", "vc", "busy_phits", "cycles", "utilisation"]
    # Only the measured batches are recorded: 1000 cycles, 10 intervals of 100. The series
    # ends with the run: the tails of packets still on the wire made an eleventh interval
    # of a few phits, a dip to near zero at the end of every heatmap.
    assert u["interval_start"].nunique() == 10
    assert (u["interval_start"] % 100 == 0).all() and (u["cycles"] == 100).all()
    per_interval = u.groupby("interval_start")["utilisation"].sum()
    assert per_interval.iloc[-1] > 0.6 * per_interval.iloc[:-1].mean()
    assert ((u["utilisation"] > 0) & (u["utilisation"] <= 1)).all()
    p = r.tables["latency_percentiles"]
    assert int(p["count"].sum()) == r.latency["network"]["count"]
    assert (p["network_p50"] <= p["network_p99"]).all() and (p["network_p99"] <= p["network_p999"]).all()
    assert "tables" not in r.to_dict()
    assert hpcnetsim.simulate({k: v for k, v in CONFIG.items() if k != "stats"}).tables == {}


def test_run_writes_parquet_and_a_heatmap(tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        'topology = "torus:4x4"\n[switch]\nvcs = 2\n[traffic]\nload = 0.5\n'
        "[measurement]\nwarmup_cycles = 500\nwindow_cycles = 250\nbatches = 2\nbatch_cycles = 500\n"
        "[stats]\nlink_utilisation = true\ninterval_cycles = 100\npacket_sample = 0.5\n"
    )
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "hpcnetsim", "run", str(cfg), "--out", str(out)], check=True,
                   capture_output=True)  # fmt: skip
    for name in ("result.json", "link_utilisation.parquet", "packets.parquet", "link_utilisation.svg"):
        assert (out / name).stat().st_size > 0, name
    assert "tables" not in json.loads((out / "result.json").read_text())["result"]
    u = pd.read_parquet(out / "link_utilisation.parquet")
    assert len(u) > 0 and u["busy_phits"].sum() > 0
    packets = pd.read_parquet(out / "packets.parquet")
    assert (packets["delivered"] > packets["injected"]).all()
    root = ET.parse(out / "link_utilisation.svg").getroot()
    assert root.tag.endswith("svg")
    assert not (out / "latency_percentiles.parquet").exists()


def test_bad_stats_values_exit_2_naming_the_field(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('topology = "torus:4x4"\n[stats]\npacket_sample = 2\n')
    p = subprocess.run([sys.executable, "-m", "hpcnetsim", "run", str(cfg)], capture_output=True, text=True)
    assert p.returncode == 2
    assert "stats.packet_sample" in p.stderr and "Traceback" not in p.stderr


def _run(cfg, out, *extra):
    return subprocess.run([sys.executable, "-m", "hpcnetsim", "run", str(cfg), "--out", str(out), *extra],
                          check=True, capture_output=True, text=True)  # fmt: skip


def test_a_later_run_in_the_same_folder_leaves_no_table_of_an_earlier_one(tmp_path):
    # The table files carry no config: one an earlier run left would pass for the new run's.
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        'topology = "torus:4x4"\n[switch]\nvcs = 2\n[traffic]\nload = 0.5\n'
        "[measurement]\nwarmup_cycles = 500\nwindow_cycles = 250\nconvergence_tolerance = 1\n"
        "batches = 2\nbatch_cycles = 500\n"
    )
    out = tmp_path / "out"
    _run(cfg, out, "--set", "stats.link_utilisation=true", "stats.packet_sample=0.5")
    assert {"link_utilisation.parquet", "link_utilisation.svg", "packets.parquet"} <= {p.name for p in out.iterdir()}
    _run(cfg, out, "--set", "stats.latency_percentiles=true")
    left = {p.name for p in out.iterdir()}
    assert "latency_percentiles.parquet" in left
    assert not left & {"link_utilisation.parquet", "link_utilisation.svg", "packets.parquet"}, left
    _run(cfg, out, "--loads", "0.2,0.4")
    assert not {p.name for p in out.iterdir()} & {"latency_percentiles.parquet"}


def test_a_load_curve_writes_its_tables_with_the_offered_load(tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        'topology = "torus:4x4"\n[switch]\nvcs = 2\n'
        "[measurement]\nwarmup_cycles = 500\nwindow_cycles = 250\nconvergence_tolerance = 1\n"
        "batches = 2\nbatch_cycles = 500\n[stats]\npacket_sample = 0.5\nlatency_percentiles = true\n"
    )
    out = tmp_path / "out"
    p = _run(cfg, out, "--loads", "0.2,0.4")
    assert f"wrote {out / 'packets.parquet'}" in p.stdout
    packets = pd.read_parquet(out / "packets.parquet")
    assert list(packets.columns)[0] == "offered_load"
    percentiles = pd.read_parquet(out / "latency_percentiles.parquet")
    # Each load's rows are the tables of that load run alone (a run gives the same result
    # alone or in a load curve, docs/engine.md "Determinism").
    for load in (0.2, 0.4):
        alone = hpcnetsim.simulate(cfg_at(cfg, load))
        rows = packets[packets["offered_load"] == load].drop(columns="offered_load").reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, alone.tables["packets"], check_dtype=False)
        mine = percentiles[percentiles["offered_load"] == load]
        assert int(mine["count"].sum()) == alone.latency["network"]["count"]


def cfg_at(path, load):
    config = hpcnetsim.load_config(path)
    return {**config, "traffic": {**config.get("traffic", {}), "load": load}}


def test_every_table_a_run_returns_is_one_the_folder_cleanup_knows():
    from hpcnetsim.collected import TABLE_FILES

    r = hpcnetsim.simulate(CONFIG)
    assert {f"{name}.parquet" for name in r.tables} <= set(TABLE_FILES)


def test_results_compare_by_what_was_simulated():
    # `simulate(cfg) == simulate(cfg)` compared identities (False for the same run); equal
    # runs are equal now, tables included, and the host's wall_seconds is left out.
    a, b = hpcnetsim.simulate(CONFIG), hpcnetsim.simulate(CONFIG)
    assert a.wall_seconds != b.wall_seconds or a.wall_seconds > 0
    assert a == b
    other = hpcnetsim.simulate({**CONFIG, "seed": 3})
    assert a != other
    # The same fields with another sampled packet table differ too.
    assert a != hpcnetsim.simulate({**CONFIG, "stats": {**CONFIG["stats"], "packet_sample": 0.5}})
    assert a != "not a result"
