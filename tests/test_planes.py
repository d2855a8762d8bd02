"""Multi-plane networks from Python and the command line: describe, cost and layout, a run,
and the one-line refusals (docs/topologies.md, "Multi-plane (rail) networks")."""

from __future__ import annotations

import json

import pytest

import hpcnetsim
from hpcnetsim.cost import cost, load_table
from hpcnetsim.layout import place
from hpcnetsim.topology import Topology


def test_describe_counts_endpoints_and_planes(cli):
    r = cli("topo", "describe", "tree:k=4,n=3|planes:2", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    one = json.loads(cli("topo", "describe", "tree:k=4,n=3", "--json").stdout)
    assert (d["planes"], d["endpoints"], d["terminals"]) == (2, 64, 128)
    assert (one["planes"], one["endpoints"]) == (1, 64)
    assert d["switches"] == 2 * one["switches"] and d["bisection_channels"] == 2 * one["bisection_channels"]
    assert d["ideal_throughput"] == one["ideal_throughput"]
    # Twice the switches and cables for the same endpoints: about twice the price per endpoint.
    assert 1.8 < d["cost_per_endpoint_usd"] / one["cost_per_endpoint_usd"] < 2.2


def test_an_endpoint_sits_once_with_its_ports_on_every_plane():
    t = Topology.from_spec("tree:k=4,n=2|planes:3")
    lay = place(t, {**load_table()["layout"], **load_table()["cables"]})
    e = t.num_endpoints
    for x in range(e, t.num_terminals):
        assert (lay.terminal_rack[x], lay.terminal_u[x]) == (lay.terminal_rack[x % e], lay.terminal_u[x % e])
    # An endpoint is one box: its units are counted once, with plane 0's switch.
    params = load_table()["layout"]
    assert lay.racks * params["rack_units"] < t.num_switches * params["switch_units"] + t.num_terminals * params["node_units"]
    c = cost(t)
    assert c["cables_electrical"] + c["cables_optical"] == 3 * (2 * 16)


def test_a_run_on_two_planes_reports_per_port_load(tmp_path):
    cfg = {
        "topology": "tree:k=4,n=2|planes:2",
        "routing": {"plane_selection": "stripe"},
        "traffic": {"load": 0.5},
        "measurement": {"warmup_cycles": 2000, "batches": 2, "batch_cycles": 2000},
    }
    r = hpcnetsim.simulate(cfg)
    assert r.accepted_load == pytest.approx(0.5, abs=0.03)
    with pytest.raises(hpcnetsim.ConfigError, match="plane_selection"):
        hpcnetsim.simulate({**cfg, "routing": {"plane_selection": "sideways"}})


def test_run_prints_the_bandwidth_of_a_port_and_of_a_node_on_two_planes(cli, tmp_path):
    # "in bandwidth 1.982 GB/s per node accepted" was one NIC port's: a node of a two-plane
    # network has a port on each plane and receives twice that.
    import re

    base = 'technology = "qdr-infiniband"\n[traffic]\nload = 0.3\n'
    base += "[measurement]\nwarmup_cycles = 2000\nbatches = 2\n"
    lines = {}
    for spec in ("torus:4x4", "torus:4x4|planes:2"):
        path = tmp_path / "c.toml"
        path.write_text(f'topology = "{spec}"\n{base}')
        r = cli("run", str(path), "--out", str(tmp_path / spec.replace("|", "_")))
        assert r.returncode == 0, r.stderr
        lines[spec] = next(line for line in r.stdout.splitlines() if line.startswith("in bandwidth"))
        # The loads are per terminal too: a NIC port on a multi-plane network.
        loads = [line for line in r.stdout.splitlines() if line.startswith(("offered load", "accepted load"))]
        unit = "phits/cycle/port" if "planes" in spec else "phits/cycle/node"
        assert len(loads) == 2 and all(unit in line for line in loads), r.stdout
    assert re.match(r"in bandwidth +[\d.]+ [GM]B/s per node accepted, ", lines["torus:4x4"]), lines
    m = re.match(r"in bandwidth +([\d.]+) GB/s per NIC port accepted \(2 planes: ([\d.]+) GB/s per node\), ",
                 lines["torus:4x4|planes:2"])  # fmt: skip
    assert m and float(m[2]) == pytest.approx(2 * float(m[1]), abs=2e-3), lines
    doc = json.loads((tmp_path / "torus:4x4_planes:2" / "result.json").read_text())["result"]
    assert float(m[1]) == pytest.approx(doc["accepted_mb_s_per_node"] / 1e3, abs=1e-3)


def test_the_flow_model_refuses_multi_plane_networks_in_one_line(cli, tmp_path):
    path = tmp_path / "flow.toml"
    path.write_text('topology = "tree:k=4,n=2|planes:2"\nmodel = "flow"\n')
    r = cli("run", str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert "single-plane" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("topo", "describe", "tree:k=4,n=2|planes:99")
    assert r.returncode == 2 and "between 2 and 16" in r.stderr


@pytest.mark.parametrize("engine", ["minhop", "dfsssp", "updn", "ftree", "ksp"])
def test_route_routes_every_plane_as_the_single_network(engine):
    """`route` on `SPEC|planes:N` routes each plane as the simulator does: pairs on different
    planes are no paths, and the tree engines read the plane's levels (they crashed on switches
    of the second plane)."""
    one = hpcnetsim.route("tree:k=4,n=2", engine, check_deadlock=True)
    two = hpcnetsim.route("tree:k=4,n=2|planes:2", engine, check_deadlock=True)
    assert two["unreachable_pairs"] == 0 and two["deadlock"] == "acyclic"
    assert two["paths"] == 2 * one["paths"]
    for k in ("min_hops", "max_hops", "mean_hops", "max_routes_per_link", "vls_used", "routed_throughput"):
        assert two[k] == pytest.approx(one[k]), k


def test_route_on_faulty_planes_routes_each_plane_and_dumps_only_shared_tables(cli, tmp_path):
    spec = "torus:4x4|planes:2|faults:links=0.0+17.0"
    r = hpcnetsim.route(spec, "updn", check_deadlock=True)
    assert r["unreachable_pairs"] == 0 and r["deadlock"] == "acyclic" and r["paths"] == 2 * 16 * 15
    dump = tmp_path / "lft.txt"
    out = cli("route", spec, "--routing", "updn", "--dump", str(dump))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "dump" in out.stderr
    assert not dump.exists()
    # An intact network's planes share one set of tables: its dump is one plane's and loads back.
    assert cli("route", "torus:4x4|planes:2", "--routing", "dfsssp", "--dump", str(dump)).returncode == 0
    assert "# spec: torus:4x4\n" in dump.read_text()
    back = hpcnetsim.route("torus:4x4|planes:2", tables=str(dump), check_deadlock=True)
    assert back["paths"] == 2 * 16 * 15 and back["unreachable_pairs"] == 0 and back["deadlock"] == "acyclic"


def test_tree_labels_of_a_multi_plane_tree_are_those_within_each_plane():
    """`switch_label` of a second plane's switch panicked, and `nca` gave the first plane's
    switches for terminals of the second plane, or for terminals of two planes."""
    one = Topology.from_spec("tree:k=4,n=2")
    two = Topology.from_spec("tree:k=4,n=2|planes:2")
    s, e = one.num_switches, one.num_terminals
    for sw in range(s):
        assert two.switch_label(s + sw) == one.switch_label(sw)
    for a, b in ((0, 4), (1, 2), (3, 15)):
        assert two.nca(e + a, e + b) == [s + x for x in one.nca(a, b)]
        assert two.nca(a, b) == one.nca(a, b)
        assert two.mdi(e + a, e + b) == one.mdi(a, b)
        assert two.node_tuple(e + a) == one.node_tuple(a)
    for f in (two.nca, two.mdi):
        with pytest.raises(hpcnetsim.ConfigError, match="share no switch"):
            f(0, e + 4)
