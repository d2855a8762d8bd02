"""Packet-level simulation from Python and the command line: results, load curves, configs, errors."""

import itertools
import json
import os
import re

import pytest

import hpcnetsim
from hpcnetsim import ConfigError
from hpcnetsim.config import apply_overrides, parse_value

#: A short schedule: tiny networks converge and finish in a fraction of a second.
# Short, but long enough that the accepted load of 16 nodes at 0.1 is within a few percent
# (2 × 2000 cycles: about 400 packets).
SHORT = {
    "warmup_cycles": 500,
    "window_cycles": 200,
    "convergence_tolerance": 0.5,
    "max_convergence_cycles": 4000,
    "batches": 2,
    "batch_cycles": 2000,
}

TORUS_TOML = """\
topology = "torus:4x4"
seed = 3

[switch]
vcs = 2

[routing]
algorithm = "dor"

[traffic]
pattern = "uniform"
load = 0.1

[measurement]
warmup_cycles = 500
window_cycles = 200
convergence_tolerance = 0.5
max_convergence_cycles = 4000
batches = 2
batch_cycles = 500
"""

#: The [measurement] table of TORUS_TOML.
TORUS_MEASUREMENT = {"warmup_cycles": 500, "window_cycles": 200, "convergence_tolerance": 0.5,
                     "max_convergence_cycles": 4000, "batches": 2, "batch_cycles": 500}  # fmt: skip

SUMMARY_FIELDS = ("status", "offered load", "accepted load", "saturated", "network latency", "packet-hops/s")
FLAT_COLUMNS = (
    "topology", "routing", "vcs", "status", "offered_load", "accepted_load", "accepted_load_std", "saturated",
    "latency_network_mean", "latency_network_p99", "latency_end_to_end_mean", "latency_end_to_end_max",
    "packet_hops", "phit_hops", "cycles", "wall_seconds", "ideal_throughput",
)  # fmt: skip


def torus(load=0.1, **changes):
    """The 4x4 torus config (DOR, 2 VCs) at ``load`` with the short schedule."""
    cfg = {
        "topology": "torus:4x4",
        "seed": 3,
        "switch": {"vcs": 2},
        "routing": {"algorithm": "dor"},
        "traffic": {"pattern": "uniform", "load": load},
        "measurement": dict(SHORT),
    }
    for table, values in changes.items():
        cfg[table].update(values)
    return cfg


@pytest.fixture
def torus_file(tmp_path):
    path = tmp_path / "torus.toml"
    path.write_text(TORUS_TOML)
    return path


def test_simulate_converges_and_accepts_the_offered_load():
    r = hpcnetsim.simulate(torus(0.1))
    assert r.status == "converged", r.message
    assert r.converged and not r.saturated
    assert r.accepted_load == pytest.approx(0.1, rel=0.15)
    assert r.topology == "torus:4x4" and r.routing == "dor" and r.vcs == 2 and r.seed == 3
    assert len(r.batch_accepted_loads) == 2
    assert r.latency["network"]["count"] > 0
    assert r.latency["network"]["mean"] <= r.latency["end_to_end"]["mean"]
    assert r.packets_delivered > 0 and r.packet_hops > 0 and r.phit_hops == 16 * r.packet_hops
    assert r.cycles >= 500 + 2 * 500
    assert "converged" in repr(r) and "\n" not in repr(r)


def test_repr_shows_what_each_kind_of_result_measured():
    """A causal run shows its execution time, the flow model its eBB or makespan: no offered
    load, status or VCs that the result does not have."""
    from hpcnetsim.flow import run_flows

    r = hpcnetsim.execute({"topology": "tree:k=2,n=3", "switch": {"vcs": 2},
                           "workload": {"kernel": "bu", "message_bytes": 64}})  # fmt: skip
    assert repr(r) == ("SimulationResult(tree:k=2,n=3 tree-adaptive vcs=2: completed, bu on 8 tasks, "
                       f"execution_time={r.execution_time_cycles} cycles)")  # fmt: skip
    e = hpcnetsim.ebb({"topology": "torus:4x4", "flow": {"samples": 10}})
    assert f"eBB={e.ebb:.4g} of the link bandwidth, 16 nodes" in repr(e)
    m = hpcnetsim.mpigraph({"topology": "torus:4x4"})
    assert "mpiGraph mean pair bandwidth=" in repr(m) and "bytes/cycle" in repr(m)
    f = run_flows({"topology": "torus:4x4"}, [(0, 5, 1000), (1, 5, 1000)])
    assert repr(f).endswith(": 2 flows, makespan=125 cycles)")
    for x in (r, e, m, f):
        assert "None" not in repr(x) and "None" not in x._repr_html_(), repr(x)


def test_repr_of_a_partial_run_shows_the_load_it_measured():
    cfg = torus(0.1)
    full = hpcnetsim.simulate(cfg)
    r = hpcnetsim.simulate(cfg, max_cycles=full.cycles - 1)  # the last batch cut short
    assert r.status == "partial" and r.accepted_load is not None
    assert f"partial, offered=0.1, accepted={r.accepted_load:.4g}," in repr(r)


def test_statistics_without_samples_are_none_not_zero():
    """A run stopped before its first batch measured no latency and no link: none (NaN in a
    table), not a mean latency of 0 cycles over 0 packets; likewise a program with no message."""
    r = hpcnetsim.simulate(torus(0.1), max_cycles=5)
    assert r.status == "partial"
    for which in ("network", "end_to_end"):
        assert r.latency[which] == {"count": 0, "mean": None, "p50": None, "p90": None, "p99": None, "max": None}
    assert r.link_utilisation == {"mean": None, "p50": None, "p99": None, "max": None}
    row = r.to_pandas().iloc[0]
    assert row["latency_network_count"] == 0 and row[["latency_network_mean", "link_utilisation_max"]].isna().all()
    p = hpcnetsim.Program(2).compute(0, 100).compute(1, 50).run({"topology": "crossbar:2"})
    assert (p.status, p.messages, p.message_latency["count"], p.message_latency["mean"]) == ("completed", 0, 0, None)
    from hpcnetsim.cli.summary import format_execution

    assert "messages          0\n" in format_execution(p.to_dict())  # no "latency mean 0.0"


def test_a_budget_inside_a_batch_measures_what_it_recorded():
    """Stopped half-way through its third batch, a run's link utilisation and packet counts
    cover the cycles its latencies were recorded over (2.5 batches), not 2.5 batches of busy
    links over 2 batches of cycles."""
    cfg = {"topology": "torus:4x4", "switch": {"vcs": 2}, "traffic": {"load": 0.3},
           "measurement": {"warmup_cycles": 1000, "batches": 4, "batch_cycles": 1000}}  # fmt: skip
    full = hpcnetsim.simulate(cfg)
    assert full.status == "converged" and full.packets_delivered == full.latency["network"]["count"]
    r = hpcnetsim.simulate(cfg, max_cycles=full.cycles - 1500)
    assert r.status == "partial" and len(r.batch_accepted_loads) == 2
    assert r.packets_delivered == r.latency["network"]["count"]
    assert r.link_utilisation["mean"] == pytest.approx(full.link_utilisation["mean"], rel=0.1)


def test_simulate_reads_a_toml_file_and_is_reproducible(torus_file):
    a, b = hpcnetsim.simulate(torus_file), hpcnetsim.simulate(str(torus_file))
    assert a.accepted_load == b.accepted_load and a.packet_hops == b.packet_hops
    assert a.to_dict()["latency"] == b.to_dict()["latency"]


def test_to_pandas_is_one_row_with_flattened_columns():
    r = hpcnetsim.simulate(torus(0.1))
    df = r.to_pandas()
    assert len(df) == 1
    for c in FLAT_COLUMNS:
        assert c in df.columns, c
    assert "latency" not in df.columns
    assert df["latency_network_mean"].iloc[0] == r.latency["network"]["mean"]
    assert set(r.to_dict()) >= {"status", "latency", "message", "packets_dropped", "packets_generated"}


def test_load_curve_rows_in_order_and_accepted_load_grows_until_saturation():
    df = hpcnetsim.load_curve(torus(), [0.5, 0.1, 0.3, 0.9, 0.2])
    assert list(df["offered_load"]) == [0.1, 0.2, 0.3, 0.5, 0.9]
    for c in FLAT_COLUMNS:
        assert c in df.columns, c
    low = df[df["offered_load"] <= 0.3]
    assert (low["status"] == "converged").all()
    assert list(low["accepted_load"]) == pytest.approx(list(low["offered_load"]), rel=0.15)
    accepted = list(df.loc[df["status"] == "converged", "accepted_load"])
    assert all(b >= 0.9 * a for a, b in itertools.pairwise(accepted)), accepted


def test_load_curve_rejects_bad_loads():
    for loads in ([], [0.1, 1.5], ["x"]):
        with pytest.raises(ConfigError):
            hpcnetsim.load_curve(torus(), loads)
    # A number or None where the list belongs is named, not a TypeError of list().
    for loads in (0.2, None):
        with pytest.raises(ConfigError, match=rf"loads = {loads} is invalid: a list of offered loads"):
            hpcnetsim.load_curve(torus(), loads)


def test_load_curve_takes_the_run_options_of_run_loads(cli, torus_file, tmp_path):
    # load_curve took no budget (TypeError: unexpected keyword argument 'max_cycles') while
    # `hpcnetsim run --loads 0.1,0.5 --max-cycles 300` stops every load at cycle 300.
    seen = []
    df = hpcnetsim.load_curve(torus_file, [0.5, 0.1], max_cycles=300, threads=1, progress=seen.append)
    assert list(df["offered_load"]) == [0.1, 0.5]
    assert list(df["status"]) == ["partial", "partial"] and list(df["cycles"]) == [300, 300]
    assert {d["offered_load"] for d in seen} <= {0.1, 0.5}
    alone = hpcnetsim.simulate(torus(0.5) | {"measurement": dict(TORUS_MEASUREMENT)}, max_cycles=300)
    assert df["packet_hops"].iloc[1] == alone.to_dict()["packet_hops"]
    r = cli("run", str(torus_file), "--loads", "0.1,0.5", "--max-cycles", "300", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "o" / "curve.json").read_text())["results"]
    assert [x["packet_hops"] for x in rows] == list(df["packet_hops"])
    # Refused as simulate refuses them, before any load runs.
    for options, needle in (({"max_cycles": 0}, "run: max_cycles = 0 is invalid"),
                            ({"max_seconds": -1}, "run: max_seconds = -1 is invalid"),
                            ({"threads": 10**5}, "run: threads = 100000 is too many threads")):  # fmt: skip
        with pytest.raises(ConfigError, match=re.escape(needle)):
            hpcnetsim.load_curve(torus(), [0.1], **options)


def test_load_curve_names_the_file_of_a_config_it_refuses(tmp_path):
    # A check only running makes (a pattern the network cannot take) names the file, as in
    # `simulate` and `hpcnetsim run --loads`.
    path = tmp_path / "transpose.toml"
    path.write_text('topology = "crossbar:8"\n[traffic]\npattern = "transpose"\n')
    for run in (hpcnetsim.simulate, lambda c: hpcnetsim.load_curve(c, [0.1])):
        with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: config: traffic.pattern"):
            run(path)


def test_a_config_file_that_cannot_be_read_is_a_config_error_naming_it(tmp_path):
    # A missing file raised a bare FileNotFoundError ("[Errno 2] No such file or directory:
    # '...'") where a missing trace is a ConfigError naming the path.
    missing = tmp_path / "nope" / "missing.toml"
    runs = (hpcnetsim.simulate, hpcnetsim.execute, hpcnetsim.load_config, lambda c: hpcnetsim.load_curve(c, [0.1]))
    for path, reason in ((missing, "No such file or directory"), (tmp_path, "Is a directory")):
        for run in runs:
            with pytest.raises(ConfigError) as e:
                run(path)
            assert str(e.value) == f"{path}: cannot read a TOML config (docs/config.md): {reason}"
    # The other files the API reads: an experiment, a cost table (each raised FileNotFoundError).
    from hpcnetsim.cost import load_table
    from hpcnetsim.experiments.experiment import load

    readers = ((load, "an experiment file (docs/experiments.md)"), (load_table, "a TOML cost table (docs/cost.md)"))
    for read, what in readers:
        for path, reason in ((missing, "No such file or directory"), (tmp_path, "Is a directory")):
            with pytest.raises(ConfigError) as e:
                read(path)
            assert str(e.value) == f"{path}: cannot read {what}: {reason}"


def test_bad_dict_config_raises_config_error():
    with pytest.raises(ConfigError, match="foo"):
        hpcnetsim.simulate(torus(switch={"foo": 1}))
    with pytest.raises(ConfigError, match="traffic.load"):
        hpcnetsim.simulate(torus(1.5))


def test_load_config_normalises_a_file(torus_file):
    cfg = hpcnetsim.load_config(torus_file)
    assert cfg["switch"]["vcs"] == 2 and cfg["switch"]["queue_packets"] == 4
    assert set(cfg) == {"topology", "seed", "switch", "routing", "traffic", "measurement"}
    assert cfg["measurement"]["deadlock_cycles"] == 20000


def test_overrides_parse_toml_values_and_create_tables():
    sets = ["switch.vcs=4", "traffic.load=0.5", "traffic.hot_nodes=[1, 2]"]
    cfg = apply_overrides({"topology": "torus:4x4"}, sets)
    assert cfg == {
        "topology": "torus:4x4",
        "switch": {"vcs": 4},
        "traffic": {"load": 0.5, "hot_nodes": [1, 2]},
    }
    again = apply_overrides(cfg, ["routing.algorithm=dor", "topology=torus:8x8"])
    assert again["routing"] == {"algorithm": "dor"} and again["topology"] == "torus:8x8"
    values = [parse_value(v) for v in ("true", '"a b"', "1e-3", "tree:k=4,n=2", ".5", "-5.", "1.2.3")]
    assert values == [True, "a b", 0.001, "tree:k=4,n=2", 0.5, -5.0, "1.2.3"]
    for bad in ("switch.vcs", "=3", "switch..vcs=3", "topology.x=1"):
        with pytest.raises(ConfigError, match="override"):
            apply_overrides(cfg, [bad])


def test_run_prints_the_summary_and_writes_result_files(cli, torus_file, tmp_path):
    out = tmp_path / "out"
    r = cli("run", str(torus_file), "--out", str(out))
    assert r.returncode == 0, r.stderr
    for field in SUMMARY_FIELDS:
        assert field in r.stdout, field
    assert "converged" in r.stdout
    doc = json.loads((out / "result.json").read_text())
    assert doc["result"]["status"] == "converged" and doc["config"]["topology"] == "torus:4x4"
    lines = (out / "result.csv").read_text().splitlines()
    assert len(lines) == 2 and "latency_network_mean" in lines[0].split(",")
    assert sorted(os.listdir(out)) == ["result.csv", "result.json"]
    # The CSV is written without pandas; it must be what pandas writes for the same result.
    import pandas as pd

    from hpcnetsim.simulation import flatten

    expected = pd.DataFrame([flatten(doc["result"])]).to_csv(index=False)
    assert (out / "result.csv").read_text() == expected


def test_run_with_loads_writes_the_curve(cli, torus_file, tmp_path):
    out = tmp_path / "curve"
    r = cli("run", str(torus_file), "--loads", "0.3,0.1,0.2", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ["curve.csv", "curve.json", "curve.png", "curve.svg"]
    doc = json.loads((out / "curve.json").read_text())
    assert [x["offered_load"] for x in doc["results"]] == [0.1, 0.2, 0.3]
    assert len((out / "curve.csv").read_text().splitlines()) == 4
    assert (out / "curve.png").stat().st_size > 10_000


def test_set_overrides_the_file(cli, torus_file, tmp_path):
    out = tmp_path / "o"
    sets = ["--set", "switch.vcs=3", "traffic.load=0.2", "--set", "seed=9"]
    r = cli("run", str(torus_file), *sets, "--out", str(out))
    assert r.returncode == 0, r.stderr
    res = json.loads((out / "result.json").read_text())["result"]
    assert (res["vcs"], res["offered_load"], res["seed"]) == (3, 0.2, 9)


def test_not_converged_is_reported_without_an_accepted_load(cli, torus_file):
    # Saturated (below saturation, a network that keeps up with its sources is steady enough).
    sets = ["measurement.convergence_tolerance=1e-9", "measurement.max_convergence_cycles=1200", "traffic.load=1.0"]
    r = cli("run", str(torus_file), "--set", *sets)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split()[:2] == ["status", "not-converged"]
    assert not [ln for ln in lines if ln.startswith(("accepted load", "saturated"))], r.stdout


BAD_FILES = [
    ("unknown-key", TORUS_TOML.replace("vcs = 2", "vcs = 2\nfoo = 1"), "foo"),
    ("load", TORUS_TOML.replace("load = 0.1", "load = 1.5"), "traffic.load"),
    ("queue", TORUS_TOML.replace("vcs = 2", "vcs = 2\nqueue_packets = 0"), "queue_packets"),
    ("routing", TORUS_TOML.replace("torus:4x4", "tree:k=4,n=2"), "dor"),
    ("malformed", TORUS_TOML.replace("[switch]", "[switch"), "torus.toml"),
    ("missing", None, "torus.toml"),
]


@pytest.mark.parametrize("text,needle", [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES])
def test_bad_config_is_one_line_exit_2_and_no_files(cli, tmp_path, text, needle):
    path, out = tmp_path / "torus.toml", tmp_path / "out"
    if text is not None:
        path.write_text(text)
    r = cli("run", str(path), "--out", str(out))
    assert_one_line_error(r, needle)
    assert not out.exists()


BAD_ARGS = [
    (["--set", "switch.vcs"], "switch.vcs"),
    (["--set", "=4"], "=4"),
    (["--set", "switch.foo=1"], "foo"),
    (["--set", "switch.queue_packets=0"], "queue_packets"),
    (["--set", "traffic.load=1.5"], "traffic.load"),
    (["--loads", "0.1,x"], "0.1,x"),
    (["--loads", "0.1,2"], "load"),
]


@pytest.mark.parametrize("args,needle", BAD_ARGS, ids=[" ".join(a) for a, _ in BAD_ARGS])
def test_bad_override_is_one_line_and_exit_2(cli, torus_file, tmp_path, args, needle):
    out = tmp_path / "out"
    r = cli("run", str(torus_file), *args, "--out", str(out))
    assert_one_line_error(r, needle)
    assert not out.exists()


def assert_one_line_error(r, needle):
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error:") and needle in lines[0], lines[0]
    assert "Traceback" not in r.stderr and r.stdout == ""


@pytest.mark.bench
def test_bench_quick_prints_the_table(cli):
    r = cli("bench", "--quick")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("| config | status | cycles | packet_hops")
    assert len(lines) == 2 + 5
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] in ("converged", "not-converged"), line
        assert int(cells[2]) > 0 and int(cells[3]) > 0 and float(cells[-1]) > 0, line


def test_bench_scale_plans_every_size_below_capacity():
    from hpcnetsim.bench import scale_rows

    rows = scale_rows(million=True)
    sizes = {(r["family"], r["terminals"]) for r in rows}
    for family in ("torus", "tree"):
        assert {t for f, t in sizes if f == family} == {64, 256, 1024, 4096, 16384, 65536, 1048576}
    for r in rows:
        # Below saturation on every network: at most 40 % of the uniform capacity, which is
        # 8/k on a k x k torus (bisection) and 1 on a full fat-tree.
        side = int(r["spec"].split(":")[1].split("x")[0]) if r["family"] == "torus" else None
        capacity = 8 / side if side else 1.0
        assert 0 < r["offered_load"] <= 0.4 * capacity + 1e-9, r["spec"]
        assert r["config"]["measurement"]["warmup_cycles"] + r["config"]["measurement"]["batch_cycles"] >= 3000


def test_bench_scale_runs_and_compares_with_the_smallest(cli):
    r = cli("bench", "--scale", "--max-terminals", "64", "--target-phit-hops", "1e5", "--threads", "1,2,0")
    assert r.returncode == 0, r.stderr
    out = r.stdout.strip().splitlines()
    # The memory's cost of a line, before and after the table of rows.
    memory = [line for line in out if line.startswith("memory ")]
    assert [m.split(",")[0] for m in memory] == ["memory before the rows", "memory after the rows"]
    assert out[0] == memory[0] and out[-1] == memory[1]
    for m in memory:
        latency, overlapped = (float(x.split(" ns")[0].split()[-1]) for x in m.split(":")[1].split(","))
        assert 0 < overlapped < latency, m
    lines = [line for line in out if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[:3] == ["family", "spec", "terminals"]
    rows = [dict(zip(header, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:]]
    assert len(rows) == 12  # 8x8 torus and 4-ary 3-tree, two loads each, on 1, 2 and auto threads
    for row in rows:
        assert row["status"] == "converged" and int(row["cycles"]) > 0, row
        assert float(row["cost_vs_smallest"]) == 1.0, row
    for one, two, auto in zip(rows[::3], rows[1::3], rows[2::3]):
        # The same run on two threads and on the automatic choice: the same phit-hops, its own time.
        assert (one["threads"], two["threads"], auto["threads"]) == ("1", "2", "auto")
        for other in (two, auto):
            assert one["phit_hops"] == other["phit_hops"] and one["cycles"] == other["cycles"]
            assert float(other["speedup_vs_1_thread"]) > 0
        assert float(one["speedup_vs_1_thread"]) == 1.0


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--million",), "--million is invalid without --scale"),
        (("--scale", "--max-terminals", "0"), "--max-terminals = 0 is invalid"),
        (("--scale", "--target-phit-hops", "-1"), "--target-phit-hops = -1.0 is invalid"),
        # Infinity and huge targets ended in a traceback (OverflowError, or the engine refusing
        # the batch's cycles in a child process).
        (("--scale", "--target-phit-hops", "inf"), "--target-phit-hops = inf is invalid: a positive number up to"),
        (("--scale", "--target-phit-hops", "1e300"), "--target-phit-hops = 1e+300 is invalid"),
        (("--scale", "--repeat", "0"), "--repeat = 0 is invalid"),
        (("--repeat", "2"), "--repeat is invalid without --scale"),
        # Flags the chosen benchmark does not read were ignored without a word (--max-terminals 10
        # ran the whole default benchmark; --scale --max-terminals 10 printed an empty table).
        (("--max-terminals", "64"), "--max-terminals is invalid without --scale"),
        (("--target-phit-hops", "1e5"), "--target-phit-hops is invalid without --scale"),
        (("--startup", "--scale"), "--startup is invalid with --scale"),
        (("--startup", "--quick"), "--startup is invalid with --quick"),
        (("--quick", "--scale"), "--quick is invalid with --scale"),
        (("--scale", "--max-terminals", "10"), "--max-terminals = 10 is invalid: at least 64"),
    ],
)
def test_bench_refuses_bad_scale_flags(cli, args, needle):
    assert_one_line_error(cli("bench", *args), needle)


def test_bench_scale_repeat_keeps_the_fastest_run():
    from hpcnetsim import bench

    row = bench.scale_rows(max_terminals=64)[0]
    figures = {"status": "converged", "cycles": 5000, "phit_hops": 1000, "total_seconds": 4.0}
    figures["max_rss_mib"] = 30.0
    runs = [({**figures, "wall_seconds": t}, None) for t in (3.0, 1.0, 2.0)]
    r = bench._scale_result(row, 1, runs, float("nan"))
    assert r["engine_seconds"] == 1.0 and r["ns_per_phit_hop"] == pytest.approx(1e6)
    # The smallest row is its own reference.
    assert r["smallest_ns_per_phit_hop"] == r["ns_per_phit_hop"] and r["cost_vs_smallest"] == 1.0
    # Runs that disagree on what they simulated are an error, not a timing.
    runs = [({**figures, "wall_seconds": 1.0}, None), ({**figures, "wall_seconds": 2.0, "phit_hops": 999}, None)]
    with pytest.raises(RuntimeError, match="repeated runs disagree"):
        bench._scale_result(row, 1, runs, float("nan"))


def test_bench_scale_repeats_alternate_between_thread_counts(monkeypatch):
    """A row's repeats run 1, 2, 1, 2, ...: a slow spell of the host falls on both counts, and
    each count keeps its own fastest run."""
    from hpcnetsim import bench

    calls = []
    wall = {1: iter([4.0, 2.0, 3.0]), 2: iter([1.5, 2.5, 1.0])}

    def child(row, threads):
        calls.append((row["spec"], threads))
        return {"status": "converged", "cycles": 5000, "phit_hops": 1000, "total_seconds": 5.0,
                "max_rss_mib": 30.0, "wall_seconds": next(wall[threads])}  # fmt: skip

    rows = bench.scale_rows(max_terminals=64)[:1]
    monkeypatch.setattr(bench, "scale_rows", lambda *a: rows)
    monkeypatch.setattr(bench, "_scale_child_run", child)
    out = bench.run_scale(max_terminals=64, threads=(1, 2), repeat=3)
    spec = out[0]["spec"]
    assert calls == [(spec, 1), (spec, 2)] * 3
    assert [r["engine_seconds"] for r in out] == [2.0, 1.0]
    assert out[1]["speedup_vs_1_thread"] == pytest.approx(2.0)


def test_bench_scale_compares_a_row_with_the_smallest_run_beside_it(monkeypatch):
    """A larger row runs between two runs of its family's smallest row at the same load, and is
    compared with the faster of those two: a slow spell of the host then slows both sides of
    the ratio, not only one."""
    from hpcnetsim import bench

    rows = bench.scale_rows(max_terminals=256)
    small, large = rows[0], rows[2]
    assert (small["family"], small["load_fraction"]) == (large["family"], large["load_fraction"])
    assert small["terminals"] < large["terminals"]
    calls = []
    # Seconds per run, in call order: the smallest row's own two runs, then per repeat the
    # smallest before, the large row, the smallest after. The host slows down for the second
    # repeat; its large run is still the faster one, and is compared with its own neighbours.
    wall = iter([1.0, 1.5, 1.2, 8.0, 1.1, 2.0, 7.0, 2.2])
    phit_hops = {small["spec"]: 1000, large["spec"]: 2000}

    def child(row, threads):
        calls.append(row["spec"])
        return {"status": "converged", "cycles": 5000, "phit_hops": phit_hops[row["spec"]],
                "total_seconds": 9.0, "max_rss_mib": 30.0, "wall_seconds": next(wall)}  # fmt: skip

    monkeypatch.setattr(bench, "scale_rows", lambda *a: [small, large])
    monkeypatch.setattr(bench, "_scale_child_run", child)
    out = bench.run_scale(max_terminals=256, repeat=2)
    assert calls == [small["spec"]] * 2 + [small["spec"], large["spec"], small["spec"]] * 2
    assert out[0]["cost_vs_smallest"] == 1.0
    # The large row's fastest run (7.0 s for 2000 phit-hops) against the faster smallest run
    # beside it (2.0 s for 1000), not against the smallest row's first run (1.0 s).
    assert out[1]["ns_per_phit_hop"] == pytest.approx(3.5e6)
    assert out[1]["smallest_ns_per_phit_hop"] == pytest.approx(2e6)
    assert out[1]["cost_vs_smallest"] == pytest.approx(1.75)


def test_bench_startup_measures_the_run_against_the_bare_interpreter():
    from hpcnetsim.bench import run_startup

    r = run_startup(repeats=2)
    assert set(r) == {"interpreter_best_ms", "interpreter_median_ms", "run_best_ms", "run_median_ms",
                      "hpcnetsim_best_ms", "before_engine_best_ms", "before_engine_median_ms"}  # fmt: skip
    assert 0 < r["interpreter_best_ms"] <= r["interpreter_median_ms"]
    assert r["run_best_ms"] > r["interpreter_best_ms"] and r["run_best_ms"] <= r["run_median_ms"]
    assert r["interpreter_best_ms"] < r["before_engine_best_ms"] <= r["before_engine_median_ms"]


def test_package_names_load_on_first_use():
    import hpcnetsim

    assert callable(hpcnetsim.simulate) and hpcnetsim.Topology.__name__ == "Topology"
    assert set(hpcnetsim.__all__) <= set(dir(hpcnetsim))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        hpcnetsim.nope  # noqa: B018


def test_apply_overrides_names_arguments_of_the_wrong_type():
    # One string was read as a list of one-character overrides ("override 's' is invalid"), and
    # a config that is not a dict failed inside with AttributeError.
    with pytest.raises(ConfigError, match=r"overrides = 'switch.vcs=4' is invalid: a list of PATH=VALUE"):
        apply_overrides({}, "switch.vcs=4")
    with pytest.raises(ConfigError, match=r"config = None is invalid: a dict"):
        apply_overrides(None, ["switch.vcs=4"])
    assert apply_overrides({}, ("switch.vcs=4",)) == {"switch": {"vcs": 4}}


def test_booleans_and_dicts_are_not_loads_cycles_threads_or_progress():
    # True was taken as the load 1.0, as max_cycles = 1 and as max_seconds = 1; a dict's keys as
    # the loads; a progress that cannot be called failed only when the run first reported.
    for loads, shown in (([0.1, True], "True"), ({"a": 0.1}, "{'a': 0.1}")):
        with pytest.raises(ConfigError, match=re.escape(f"= {shown} is invalid")):
            hpcnetsim.load_curve(torus(), loads)
    with pytest.raises(ConfigError, match="max_cycles = True is invalid: a positive number of cycles"):
        hpcnetsim.simulate(torus(), max_cycles=True)
    for run in (hpcnetsim.simulate, hpcnetsim.execute):
        with pytest.raises(ConfigError, match="max_seconds = True is invalid: a positive number of seconds"):
            run(torus(), max_seconds=True)
    with pytest.raises(ConfigError, match="threads = False is invalid: a whole number of threads"):
        hpcnetsim.execute(torus(), threads=False)
    with pytest.raises(ConfigError, match="progress = 3 is invalid: a function taking a dict, or None"):
        hpcnetsim.simulate(torus(), progress=3)


def test_the_notebook_table_of_a_flow_result_shows_its_figures():
    # The notebook table of ebb, mpigraph and run_flows results showed the routing and the wall
    # time only: not the eBB, the pair bandwidth or the makespan.
    from hpcnetsim.flow import run_flows

    e = hpcnetsim.ebb({"topology": "torus:4x4", "flow": {"samples": 10}})
    html = e._repr_html_()
    assert f"<th style='text-align:left'>ebb</th><td style='text-align:left'>{e.ebb:.4g} of the link" in html
    assert f"{e.ebb_bandwidth:.4g} bytes/cycle" in html
    m = hpcnetsim.mpigraph({"topology": "torus:4x4", "flow": {"nodes": 4}})
    html = m._repr_html_()
    assert f"{m.pair_bandwidth['mean']:.4g} bytes/cycle" in html and "worst_streams_per_cable" in html
    f = run_flows({"topology": "torus:4x4"}, [(0, 5, 1000), (1, 5, 1000)])
    assert "<td style='text-align:left'>125 cycles</td>" in f._repr_html_()


def test_an_integer_beyond_64_bits_is_named_as_the_integer_it_is():
    # JSON has no integer that large for the core: 2**64 reached it as a float and was refused
    # as "invalid type: floating point `1.8446744073709552e+19`".
    for patch, shown in (({"seed": 2**64}, "seed = 18446744073709551616"),
                         ({"switch": {"vcs": -(2**70)}}, "switch.vcs = -1180591620717411303424")):  # fmt: skip
        needle = f"config: {shown} is invalid: an integer of at most 64 bits"
        with pytest.raises(ConfigError, match=re.escape(needle)):
            hpcnetsim.simulate({**torus(), **patch})
    assert hpcnetsim.load_config({**torus(), "seed": 2**64 - 1})["seed"] == 2**64 - 1


def test_a_decimal_is_taken_as_the_number_it_writes():
    # Decimal("0.3") was refused ("traffic.load = Decimal('0.3') is invalid: a number, string,
    # boolean, list or table") where load_curve took it as a load.
    from decimal import Decimal

    exact = torus(Decimal("0.3"))
    exact["switch"]["vcs"] = Decimal("2")  # written without a fraction: a count
    r = hpcnetsim.simulate(exact)
    assert r.offered_load == 0.3 and r == hpcnetsim.simulate(torus(0.3))
    for bad, shown in ((Decimal("NaN"), "NaN"), (Decimal("1.5"), "1.5")):
        with pytest.raises(ConfigError, match=re.escape(f"config: traffic.load = {shown} is invalid:")):
            hpcnetsim.simulate(torus(bad))
    df = hpcnetsim.load_curve(torus(), [Decimal("0.2"), Decimal("0.1")])
    assert list(df["offered_load"]) == [0.1, 0.2]


def test_a_nan_inside_a_tuple_is_named_as_in_a_list():
    # Tuples were not looked into: NaN reached the core as "traffic.hot_nodes[1]: expected a
    # name in quotes".
    for nodes in ([1, float("nan")], (1, float("nan"))):
        needle = "config: traffic.hot_nodes[1] = nan is invalid: a finite"
        with pytest.raises(ConfigError, match=re.escape(needle)):
            hpcnetsim.simulate({**torus(), "traffic": {"hot_nodes": nodes}})
