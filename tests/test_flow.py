"""The flow-level model from Python and the command line: eBB, mpiGraph, model = "flow"."""

import json
from pathlib import Path

import pytest

import hpcnetsim
from hpcnetsim import ConfigError
from hpcnetsim.flow import flow_config


def test_ebb_from_python_is_deterministic_and_bounded():
    cfg = flow_config("hyperx:4x4,t=2", samples=50, seed=3)
    a, b = hpcnetsim.ebb(cfg), hpcnetsim.ebb(cfg)
    assert a.sample_values == b.sample_values
    assert len(a.sample_values) == 50
    assert 0 < a.distribution["min"] <= a.ebb <= a.distribution["max"] <= 1
    assert a.ebb_bandwidth == pytest.approx(a.ebb * 16)  # one 16-byte phit per cycle
    other = hpcnetsim.ebb(flow_config("hyperx:4x4,t=2", samples=50, seed=4))
    assert other.sample_values != a.sample_values


@pytest.mark.parametrize("spec,vcs", [("dragonfly:a=4,p=2,h=2", 2), ("twin-torus:4x4x2x2x2", 4), ("slimfly:q=5", 2)])
def test_the_flow_model_gives_a_routing_the_vcs_it_needs(cli, spec, vcs):
    """Flows have no VCs: a routing that needs several (dragonfly-minimal 2, ts-dor 4,
    graph-minimal one per hop of the longest route) gives the same paths as on a config that
    has them, while the packet engine refuses one VC."""
    cfg = flow_config(spec, samples=20, seed=2)
    assert hpcnetsim.ebb(cfg).sample_values == hpcnetsim.ebb({**cfg, "switch": {"vcs": vcs}}).sample_values
    run = {"topology": spec, "model": "flow", "traffic": {"load": 0.3}}
    assert hpcnetsim.simulate(run).status == "converged"
    with pytest.raises(hpcnetsim.ConfigError, match=f"switch.vcs = 1 is invalid: at least {vcs}"):
        hpcnetsim.simulate({**run, "model": "packet"})
    r = cli("flow", "ebb", spec, "--samples", "10")
    assert r.returncode == 0 and "eBB" in r.stdout, r.stderr


def test_mpigraph_from_python_on_a_crossbar_is_flat():
    m = hpcnetsim.mpigraph(flow_config("crossbar:6", link_bandwidth=1e9))
    assert m.bandwidth_unit == "bytes/s"
    assert all(m.bandwidth[i][j] == (0 if i == j else 1e9) for i in range(6) for j in range(6))
    assert m.pair_bandwidth["mean"] == 1e9


def test_model_switch_moves_a_config_to_the_flow_level():
    cfg = {"topology": "torus:4x4", "switch": {"vcs": 2}, "traffic": {"pattern": "tornado", "load": 1.0}}
    flow = hpcnetsim.simulate({**cfg, "model": "flow"})
    assert flow.model == "flow" and len(flow.flows) == 16
    assert 0 < flow.accepted_load <= 1
    with pytest.raises(hpcnetsim.ConfigError, match="model"):
        hpcnetsim.execute({**cfg, "traffic": {}, "model": "flow", "workload": {"kernel": "bu"}})
    with pytest.raises(hpcnetsim.ConfigError, match="flow.measure"):
        hpcnetsim.ebb({"topology": "torus:4x4", "flow": {"measure": "fastest"}})


def test_cli_flow_ebb_and_mpigraph(cli, tmp_path):
    r = cli("flow", "ebb", "hyperx:4x4,t=2", "--samples", "20", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["samples"] == 20 and d["nodes"] == 32
    r = cli("flow", "mpigraph", "hyperx:4,t=3", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "streams per cable up to 3" in r.stdout
    assert (tmp_path / "mpigraph.png").stat().st_size > 0
    doc = json.loads((tmp_path / "mpigraph.json").read_text())
    assert len(doc["result"]["bandwidth"]) == 12


@pytest.mark.parametrize(
    "args, field",
    [
        (["flow", "ebb", "hyperx:4x4,t=2", "--nodes", "99"], "flow.nodes"),
        (["flow", "ebb", "hyperx:4x4,t=2", "--samples", "0"], "flow.samples"),
        (["flow", "mpigraph", "hyperx:4x4,t=2", "--routing", "dor"], "routing.algorithm"),
        (["flow", "ebb", "torus:4x4", "--link-bandwidth", "-1"], "flow.link_bandwidth"),
        (["flow", "ebb", "bogus:1"], "family"),
    ],
)
def test_cli_flow_errors_are_one_line(cli, args, field):
    r = cli(*args)
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and field in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_cli_run_with_the_flow_model(cli, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('topology = "hyperx:4x4,t=2"\nmodel = "flow"\n[traffic]\npattern = "random-permutation"\nload = 1.0\n')
    r = cli("run", str(cfg), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert "flow model" in r.stdout and "accepted load" in r.stdout
    r = cli("run", str(cfg), "--loads", "0.1,0.5", "--out", str(tmp_path / "curve"))
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "curve" / "curve.json").read_text())["results"]
    assert [row["accepted_load"] for row in rows][0] == pytest.approx(0.1)


def test_a_sweep_runs_at_the_flow_level(cli, tmp_path):
    exp = tmp_path / "flow.toml"
    exp.write_text(
        'name = "flow-sweep"\ntitle = "t"\n[base]\nmodel = "flow"\ntraffic.pattern = "random-permutation"\n'
        '[[sweep]]\nname = "a"\naxes.topology = ["hyperx:4x4,t=2", "crossbar:8"]\naxes.traffic.load = [0.5, 1.0]\n'
    )
    r = cli("sweep", str(exp), "--out", str(tmp_path / "out"), "--jobs", "1", "--no-progress")
    assert r.returncode == 0, r.stderr
    df = hpcnetsim.results(tmp_path / "out")
    assert len(df) == 4 and set(df["model"]) == {"flow"}
    crossbar = df[df["topology"] == "crossbar:8"]
    assert sorted(crossbar["accepted_load"]) == pytest.approx([0.5, 1.0])


def test_cli_ebb_against_the_node_count(cli, tmp_path):
    r = cli("flow", "ebb", "hyperx:4x4,t=2", "--nodes", "2,8,32", "--samples", "10", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "ebb_curve.json").read_text())["results"]
    assert [row["nodes"] for row in rows] == [2, 8, 32]
    assert rows[0]["ebb"] == 1.0  # two nodes on one switch never leave it
    assert (tmp_path / "ebb_curve.png").stat().st_size > 0
    r = cli("flow", "ebb", "hyperx:4x4,t=2", "--nodes", "2,99")
    assert r.returncode == 2 and "flow.nodes" in r.stderr
    # 0 (every terminal) in a curve once gave the 32-node row twice.
    r = cli("flow", "ebb", "hyperx:4x4,t=2", "--nodes", "0,32", "--samples", "10")
    assert r.returncode == 2 and r.stderr == "error: flow.nodes = [0, 32] is invalid: node counts of a curve >= 2 " \
        "(0, every terminal, only alone)\n", r.stderr
    from hpcnetsim.flow import ebb_curve

    with pytest.raises(hpcnetsim.ConfigError, match="each count at most once"):
        ebb_curve(flow_config("hyperx:4x4,t=2", samples=10), [8, 8])
    # No count at all once gave an empty table with no columns.
    with pytest.raises(hpcnetsim.ConfigError, match=r"flow.nodes = \[\] is invalid: at least one node count"):
        ebb_curve(flow_config("hyperx:4x4,t=2", samples=10), [])


def test_run_flows_gives_rates_finish_times_and_link_sharing():
    from hpcnetsim.flow import run_flows

    # Two flows into terminal 2 of a crossbar share its link: 1/2 each until the small one ends.
    r = run_flows({"topology": "crossbar:4"}, [(0, 2, 1600), (1, 2, 3200), (3, 0, 160)])
    assert r.rates == pytest.approx([0.5, 0.5, 1.0])
    assert r.finish == pytest.approx([200, 300, 10])  # 16 bytes per cycle
    assert r.makespan == pytest.approx(300) and r.time_unit == "cycle"
    assert max(r.link_loads["flows_per_channel"]) == 2
    with pytest.raises(hpcnetsim.ConfigError, match="distinct"):
        run_flows({"topology": "crossbar:4"}, [(1, 1, 10)])
    with pytest.raises(hpcnetsim.ConfigError, match="triples"):
        run_flows({"topology": "crossbar:4"}, [(1, 2)])


def test_run_flows_takes_integer_terminals_only():
    """A terminal index of 0.5 was truncated to terminal 0 and one beyond 2^64 raised the
    binding's OverflowError; both are one-line ConfigErrors. NumPy integers are terminals."""
    import numpy as np

    from hpcnetsim.flow import run_flows

    with pytest.raises(hpcnetsim.ConfigError, match="integer terminal indices"):
        run_flows({"topology": "crossbar:4"}, [(0.5, 1, 160)])
    with pytest.raises(hpcnetsim.ConfigError, match=f"terminal {2**70}: terminal indices from 0"):
        run_flows({"topology": "crossbar:4"}, [(0, 2**70, 160)])
    with pytest.raises(hpcnetsim.ConfigError, match="terminal -1"):
        run_flows({"topology": "crossbar:4"}, [(-1, 1, 160)])
    assert run_flows({"topology": "crossbar:4"}, [(np.int64(0), np.int32(1), 160)]).finish == [10.0]


def test_table_routing_at_the_flow_level_needs_no_vcs():
    """Flows have no VCs: tables whose engine layers its paths on several lanes (DFSSSP needs
    more than one on a torus) route flows without a switch.vcs, as with switch.vcs = 8."""
    cfg = flow_config("torus:4x4", routing="table", samples=20, seed=2)
    with_lanes = hpcnetsim.ebb({**cfg, "switch": {"vcs": 8}})
    assert with_lanes.routing.startswith("table (dfsssp")
    assert hpcnetsim.ebb(cfg).sample_values == with_lanes.sample_values
    run = {"topology": "torus:4x4", "model": "flow", "routing": {"algorithm": "table"}, "traffic": {"load": 0.5}}
    assert hpcnetsim.simulate(run).status == "converged"


def test_minimal_paths_need_no_routing_on_faulty_networks_and_fabrics(cli):
    """flow.paths = "minimal" ignores the routing, so the default routing (which a faulty
    network or an imported fabric refuses) does not stop it."""
    faulty = hpcnetsim.ebb(flow_config("torus:4x4|faults:links=0.0", paths="minimal", samples=20))
    assert faulty.routing.startswith("minimal") and 0 < faulty.ebb <= 1
    fabric = Path(__file__).parent / "data" / "fabrics" / "booksim_anynet_file"
    r = cli("flow", "mpigraph", f"anynet:{fabric}", "--paths", "minimal")
    assert r.returncode == 0 and "streams per cable" in r.stdout, r.stderr
    # Other path sources still follow the routing, which the faulty network refuses.
    with pytest.raises(hpcnetsim.ConfigError, match="routing.algorithm"):
        hpcnetsim.ebb(flow_config("torus:4x4|faults:links=0.0", samples=20))


def test_table_routing_at_the_flow_level_needs_no_lanes_at_all():
    """DFSSSP on an 8x8x8 torus needs more lanes than a table holds: packets cannot use it, but
    flows follow its paths (SSSP's, which DFSSSP only layers) without a word about switch.vcs."""
    cfg = flow_config("torus:8x8x8", routing="table", samples=3, seed=2)
    dfsssp = hpcnetsim.ebb({**cfg, "routing": {"algorithm": "table", "engine": "dfsssp"}})
    sssp = hpcnetsim.ebb({**cfg, "routing": {"algorithm": "table", "engine": "sssp"}})
    assert dfsssp.sample_values == sssp.sample_values and 0 < dfsssp.ebb <= 1


def test_plot_helpers_leave_the_matplotlib_backend_alone(tmp_path):
    # In a notebook the backend is the inline one: a plot helper that switched it to Agg left
    # every later figure of the session undisplayed. The helpers draw on a Figure of their own.
    matplotlib = pytest.importorskip("matplotlib")
    from hpcnetsim.collected import link_heatmap
    from hpcnetsim.flow import ebb_curve, plot_ebb, plot_ebb_curve, plot_mpigraph
    from hpcnetsim.inputs.trace import plot_traffic

    before = matplotlib.get_backend()
    matplotlib.use("pdf")
    try:
        m = hpcnetsim.mpigraph(flow_config("torus:4x4", nodes=4)).to_dict()
        e = hpcnetsim.ebb(flow_config("torus:4x4", samples=20)).to_dict()
        plot_mpigraph(m, tmp_path / "m.png")
        plot_ebb(e, tmp_path / "e.svg")
        plot_ebb_curve({"torus": ebb_curve(flow_config("torus:4x4", samples=20), [4, 8])}, tmp_path / "c.png")
        r = hpcnetsim.simulate({"topology": "torus:4x4", "stats": {"link_utilisation": True, "interval_cycles": 1000},
                                "measurement": {"warmup_cycles": 1000, "batches": 2, "batch_cycles": 1000}})  # fmt: skip
        link_heatmap(r.tables["link_utilisation"], tmp_path / "l.png", "links")
        plot_traffic({"source": [0, 1], "destination": [1, 0], "bytes": [8, 8]}, 2, tmp_path / "t.png", "t")
        assert matplotlib.get_backend() == "pdf"
    finally:
        matplotlib.use(before)
    for name in ("m.png", "e.svg", "c.png", "l.png", "t.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_plot_helpers_take_the_result_itself(tmp_path):
    # plot_mpigraph(m, ...) with the result rather than m.to_dict() failed with
    # "'SimulationResult' object is not subscriptable".
    pytest.importorskip("matplotlib")
    from hpcnetsim.flow import plot_ebb, plot_mpigraph

    plot_mpigraph(hpcnetsim.mpigraph(flow_config("torus:4x4", nodes=4)), tmp_path / "m.png")
    plot_ebb(hpcnetsim.ebb(flow_config("torus:4x4", samples=20)), tmp_path / "e.png")
    assert (tmp_path / "m.png").stat().st_size > 1000 and (tmp_path / "e.png").stat().st_size > 1000


def test_ebb_and_mpigraph_refuse_a_workload_they_would_not_read():
    # hpcnetsim.ebb({... "workload": {"kernel": "bu"}}) ran its own flows and left the
    # butterfly unread without a word.
    cfg = {"topology": "tree:k=2,n=3", "workload": {"kernel": "bu"}}
    for run, what in [(hpcnetsim.ebb, "eBB"), (hpcnetsim.mpigraph, "mpiGraph")]:
        with pytest.raises(ConfigError, match=rf"^config: workload = a table is invalid: left out for {what}"):
            run(cfg)
    assert hpcnetsim.ebb({"topology": "tree:k=2,n=3"}).ebb == 1.0


def test_ebb_histogram_of_samples_equal_but_for_rounding(cli, tmp_path):
    # Valiant paths on tree:k=4,n=2 give every bisection the same bandwidth, but for the last
    # bit of the float sums: matplotlib's 40 bins over that range raised "Too many bins for
    # data range", a traceback after ebb.json had been written.
    pytest.importorskip("matplotlib")
    out = tmp_path / "ebb"
    r = cli("flow", "ebb", "tree:k=4,n=2", "--paths", "valiant", "--samples", "20", "--out", str(out))
    assert r.returncode == 0, r.stderr
    values = json.loads((out / "ebb.json").read_text())["result"]["sample_values"]
    assert len(set(values)) > 1 and max(values) - min(values) < 1e-12  # the case this covers
    assert (out / "ebb.png").stat().st_size > 1000


def test_a_flow_load_curve_plots_without_warnings(cli, tmp_path):
    # Flow-model curves have no latency: the empty latency panel's legend made matplotlib warn
    # "No artists with labels found to put in legend" on stderr, twice.
    pytest.importorskip("matplotlib")
    cfg = tmp_path / "f.toml"
    cfg.write_text('topology = "torus:4x4"\nmodel = "flow"\n[traffic]\nload = 0.3\n')
    r = cli("run", str(cfg), "--loads", "0.2,0.6", "--out", str(tmp_path / "out"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert (tmp_path / "out" / "curve.png").stat().st_size > 1000


def test_the_flow_link_bandwidth_takes_a_rate_with_its_unit(cli):
    # As the [link] rates: "4 GB/s" was refused ("invalid type: string, expected a number").
    by_number = hpcnetsim.ebb(flow_config("torus:4x4", samples=20, seed=1, link_bandwidth=4e9))
    by_unit = hpcnetsim.ebb(flow_config("torus:4x4", samples=20, seed=1, link_bandwidth="4 GB/s"))
    assert (by_unit.ebb_bandwidth, by_unit.bandwidth_unit) == (by_number.ebb_bandwidth, by_number.bandwidth_unit)
    flags = (["--set", 'flow.link_bandwidth="4 GB/s"'], ["--link-bandwidth", "4 GB/s"], ["--link-bandwidth", "4e9"])
    for flag in flags:
        r = cli("flow", "ebb", "torus:4x4", "--samples", "20", "--seed", "1", "--json", *flag)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["ebb_bandwidth"] == pytest.approx(by_number.ebb_bandwidth)
    r = cli("flow", "ebb", "torus:4x4", "--set", 'flow.link_bandwidth="fast"')
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "flow.link_bandwidth" in r.stderr and "'fast'" in r.stderr and "GB/s" in r.stderr, r.stderr
