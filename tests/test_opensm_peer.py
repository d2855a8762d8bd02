"""hpcnetsim's table engines against OpenSM itself: the forwarding tables Debian's opensm 3.3.23
computed on ibsim for the same fabrics, kept in tests/data/opensm/ by
benchmarks/peers/opensm.py (whose parsers and path walker this test reuses). Tables are matched
by switch and host name (the ibnet export names them S<index> and H<index>), not by LID."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests/data/opensm"
sys.path.insert(0, str(ROOT / "benchmarks/peers"))  # opensm.py imports opensm_layers beside it
_spec = importlib.util.spec_from_file_location("opensm_peer", ROOT / "benchmarks/peers/opensm.py")
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

_nets: dict[str, dict] = {}


def _net(data, tmp_path_factory):
    spec = peer.resolve_spec(data["spec"], tmp_path_factory.getbasetemp())
    if spec not in _nets:
        _nets[spec] = peer.parse_net(peer.export_net(spec))
    return spec, _nets[spec]


def case(fabric, engine, tmp_path_factory):
    """OpenSM's stored tables, ours for the same spec, both walked on the exported graph."""
    data = peer.load_tables(DATA / f"{fabric}-{engine}.json.gz")
    spec, net = _net(data, tmp_path_factory)
    assert net["hosts"] == data["hosts"], "the export no longer names the hosts as when OpenSM ran"
    root_s0 = data["roots"] != "OpenSM's own choice"
    report, ours = peer.ours(spec, engine, net, root_s0)
    theirs_walk, ours_walk = peer.walk(net, data["lft"]), peer.walk(net, ours)
    # the walker agrees with hpcnetsim's own report on our tables
    assert ours_walk["paths"] == report["paths"] and ours_walk["unreachable_pairs"] == 0
    assert ours_walk["max_routes_per_link"] == report["max_routes_per_link"]
    assert ours_walk["mean_hops"] == pytest.approx(report["mean_hops"])
    return data, report, theirs_walk, ours_walk, peer.next_hop_agreement(net, data["lft"], ours)


@pytest.mark.parametrize(
    "fabric, engine",
    [
        ("torus-4x4", "minhop"),
        ("tree-4-3", "minhop"),
        ("hyperx-12x8-f15", "minhop"),
        ("paper001-fattree-f197", "minhop"),
        ("tree-4-3", "ftree"),
        ("thintree-4-2-3", "minhop"),
        ("thintree-4-2-3", "ftree"),
        ("xgft-2-4-4-w1-4-2", "minhop"),
        ("xgft-2-4-4-w1-4-2", "ftree"),
        ("tree-4-3", "updn"),
        # Up*/Down* rooted at switch 0 on both sides (OpenSM finds no roots of its own there)
        ("torus-4x4", "updn"),
    ],
)
def test_same_tables_as_opensm(fabric, engine, tmp_path_factory):
    """Min-hop (port balancing in the same order), ftree on a k-ary n-tree and Up*/Down* with the
    same roots give OpenSM's tables entry for entry."""
    data, _, theirs, ours, same = case(fabric, engine, tmp_path_factory)
    assert data["configured"] == engine  # OpenSM did not fall back to another engine
    assert theirs["unreachable_pairs"] == 0
    assert same == 1.0
    assert theirs == ours


def test_ftree_leaves_up_links_idle_where_leaves_have_more_than_terminals():
    """On xgft:h=3;m=2,4,4;w=1,4,2 every leaf has 2 terminals and 4 up-links. ftree climbs from a
    destination's leaf through the parent whose link down to it is least used, ties broken by
    switch index (OpenSM also compares the parents' least-used down links, equal here): every
    leaf sends its two terminals' routes down from the same two parents, so the other two
    parents of every leaf carry no destination and each leaf uses 2 of its 4 up-links.
    OpenSM's stored tables do exactly this (and equal ours, above); the heaviest channel carries
    48 routes, so ftree's routed bound is 31/48 where DFSSSP, balancing over all paths, gets
    31/32."""
    import hpcnetsim

    data = peer.load_tables(DATA / "xgft-2-4-4-w1-4-2-ftree.json.gz")
    assert data["configured"] == "ftree"
    net = peer.parse_net(peer.export_net(data["spec"]))
    hosts = set(net["hosts"])
    leaves = [s for s, ports in net["links"].items() if any(far in hosts for far, _ in ports.values())]
    assert len(leaves) == 16
    for leaf in leaves:
        up = {p for p, (far, _) in net["links"][leaf].items() if far not in hosts}
        used = {p for p in data["lft"][leaf] if p in up}
        assert (len(up), len(used)) == (4, 2), leaf
    ftree = hpcnetsim.route(data["spec"], "ftree")
    dfsssp = hpcnetsim.route(data["spec"], "dfsssp")
    assert (ftree["max_routes_per_link"], dfsssp["max_routes_per_link"]) == (48, 32)
    assert ftree["routed_throughput"] == pytest.approx(31 / 48)
    assert dfsssp["routed_throughput"] == pytest.approx(31 / 32)


def test_opensm_ftree_falls_back_to_minhop_on_the_faulty_paper001_plane():
    """Paper 001's plane with 197 of its links failed (seeded random): OpenSM's ftree cannot build
    its tables ("cannot build lid matrices") and OpenSM routes with min-hop instead, the tables
    of its own min-hop run (which ours equal, above)."""
    ftree = peer.load_tables(DATA / "paper001-fattree-f197-ftree.json.gz")
    minhop = peer.load_tables(DATA / "paper001-fattree-f197-minhop.json.gz")
    assert ftree["engine"] == "ftree" and ftree["configured"] == "minhop"
    assert ftree["lft"] == minhop["lft"] and ftree["spec"] == minhop["spec"]


def test_ftree_on_paper001_plane_is_as_balanced_as_opensms(tmp_path_factory):
    """On paper 001's 672-node plane the two ftree implementations pick different ports (OpenSM
    numbers leaves and hosts its own way) but route every pair with the same lengths and the same
    maximum and mean routes per channel."""
    data, _, theirs, ours, same = case("paper001-fattree", "ftree", tmp_path_factory)
    assert data["configured"] == "ftree" and theirs["unreachable_pairs"] == 0
    assert theirs == ours
    assert same < 0.5


@pytest.mark.parametrize(
    "fabric, engine",
    [
        ("torus-4x4", "dfsssp"),
        ("tree-4-3", "dfsssp"),
        ("hyperx-12x8-f15", "dfsssp"),
        ("hyperx-12x8-f15", "updn"),
    ],
)
def test_same_path_lengths_and_balance_as_opensm(fabric, engine, tmp_path_factory):
    """SSSP: both minimal (the same hop histogram and mean routes per channel); Dijkstra's ties
    are broken differently, so the ports differ, but our heaviest channel is never more than 5 %
    above OpenSM's. Up*/Down* on the faulty HyperX: OpenSM finds its own paths around the
    faults (its tables are checked to deliver every pair), ours are checked against our report."""
    data, _, theirs, ours, same = case(fabric, engine, tmp_path_factory)
    assert data["configured"] == engine and theirs["unreachable_pairs"] == 0
    assert theirs["paths"] == ours["paths"]
    if engine == "dfsssp":
        assert theirs["hops_histogram"] == ours["hops_histogram"]
        assert theirs["mean_routes_per_link"] == pytest.approx(ours["mean_routes_per_link"])
        assert ours["max_routes_per_link"] <= 1.05 * theirs["max_routes_per_link"]
        assert 0.5 < same < 1.0
    else:  # the same up/down ranks from the same root; OpenSM's detours are slightly shorter
        assert same > 0.95 and theirs["mean_hops"] <= ours["mean_hops"]


@pytest.mark.parametrize(
    "fabric, lanes_opensm, lanes_ours",
    [("tree-4-3", 1, 1), ("hyperx-12x8", 2, 2), ("hyperx-12x8-f15", 2, 2), ("torus-4x4", 4, 3)],
)
def test_dfsssp_lanes_against_opensm(fabric, lanes_opensm, lanes_ours):
    """Lanes DFSSSP needs: equal on the tree and both HyperX fabrics kept here; on the 4x4 torus
    OpenSM's layering (paths moved to the next layer, cycle by cycle) needs one more than ours."""
    import hpcnetsim

    data = peer.load_tables(DATA / f"{fabric}-dfsssp.json.gz")
    assert data["configured"] == "dfsssp"
    ours = hpcnetsim.route(data["spec"], "dfsssp")["vls_used"]
    assert (data["vls_needed"], ours) == (lanes_opensm, lanes_ours)
    # OpenSM lays out every (source LID, destination LID) pair, switch ports (SP0) included
    lids = len(data["hosts"]) + len(data["lft"])
    assert sum(data["paths_per_vl"]) == lids * (lids - 1)


@pytest.mark.parametrize("fabric", ["torus-4x4", "hyperx-12x8-f15"])
def test_replayed_opensm_layering_gives_opensms_lanes(fabric, tmp_path_factory):
    """opensm_layers.py, a step-by-step transcription of OpenSM's dfsssp_remove_deadlocks(),
    fed OpenSM's own tables (switch destinations included) and its port order, gives the lanes
    and the paths per lane OpenSM logged, exactly."""
    from opensm_layers import channel_paths, layers

    data = peer.load_tables(DATA / f"{fabric}-dfsssp.json.gz")
    _, net = _net(data, tmp_path_factory)
    fab = peer.stored_fabric(data, net)
    assert layers(channel_paths(fab)) == (data["vls_needed"], data["paths_per_vl"])


def test_torus_extra_lane_comes_from_switch_port_paths(tmp_path_factory):
    """On the 4x4 torus OpenSM's 4th lane is due to the paths to the switches' management ports:
    its layering on host-to-host paths only needs 3, with its routes or ours, as ours does."""
    from opensm_layers import channel_paths, layers

    data = peer.load_tables(DATA / "torus-4x4-dfsssp.json.gz")
    spec, net = _net(data, tmp_path_factory)
    report, ours = peer.ours(spec, "dfsssp", net)
    fab = peer.stored_fabric(data, net)
    assert layers(channel_paths(fab, include_switches=False))[0] == 3
    mine = peer.our_fabric(fab, ours, net)
    assert layers(channel_paths(mine, include_switches=False))[0] == 3 == report["vls_used"]


def test_faulty_hyperx_lanes_over_fault_draws():
    """Paper 001 reports 3 lanes for OpenSM's DFSSSP on its faulty HyperX; OpenSM 3.3.23 needs 3
    on 8 of 10 draws of 15 failed cables, hpcnetsim's layering 2 on all (summary.json, seeds
    1-10). Replaying OpenSM's layering separates the causes: on host-to-host paths alone it still
    needs 3 on 5 draws (the layering itself), the paths to the switches' management ports add the
    3rd lane on 3 more, and our routes instead of OpenSM's never change its count (the routes are
    not the cause). The stored hpcnetsim counts must match what it computes now for two draws."""
    import hpcnetsim

    lanes = json.loads((DATA / "summary.json").read_text())["dfsssp_lanes_by_fault_seed"]
    assert len(lanes) == 10

    def count(key, n):
        return sum(v[key] == n for v in lanes.values())

    assert count("opensm", 3) == 8 and count("hpcnetsim", 2) == 10
    assert all(v["opensm_routes_all_ports"] == v["opensm"] for v in lanes.values())
    assert count("opensm_routes_hosts", 3) == 5
    assert all(v["our_routes_hosts"] == v["opensm_routes_hosts"] for v in lanes.values())
    for seed in ("1", "2"):
        got = hpcnetsim.route(f"hyperx:12x8,t=7|faults:random=15,seed={seed}", "dfsssp")["vls_used"]
        assert got == lanes[seed]["hpcnetsim"]


def test_opensm_layering_option_matches_the_replay(tmp_path_factory):
    """`layering="opensm"` (routing/tables/opensm_layers.rs) gives the lanes the Python replay
    of OpenSM's procedure gives on hpcnetsim's SSSP tables (host pairs): on the 4x4 torus and
    on three draws of the faulty HyperX, one of which needs 3 lanes where the placement needs
    2. The paths per lane match too on the torus."""
    import hpcnetsim
    from opensm_layers import channel_paths, layers

    lanes = json.loads((DATA / "summary.json").read_text())["dfsssp_lanes_by_fault_seed"]
    for seed in ("1", "2", "4"):
        spec = f"hyperx:12x8,t=7|faults:random=15,seed={seed}"
        got = hpcnetsim.route(spec, "dfsssp", layering="opensm")
        assert got["vls_used"] == lanes[seed]["our_routes_hosts"], seed
    data = peer.load_tables(DATA / "torus-4x4-dfsssp.json.gz")
    spec, net = _net(data, tmp_path_factory)
    report = hpcnetsim.route(spec, "dfsssp", layering="opensm", dump=True, check_deadlock=True)
    assert report["deadlock"] == "acyclic"
    mine = peer.our_fabric(peer.stored_fabric(data, net), peer.parse_our_dump(report["dump"], net), net)
    needed, per_vl = layers(channel_paths(mine, include_switches=False))
    assert report["vls_used"] == needed == 3
    # lanes per (source, destination) pair from the dump's "VLs of terminal T" lines
    counts = [0] * 8
    for line in report["dump"].splitlines():
        if line.startswith("VLs of terminal "):
            t, vls = line.split(":")
            src = int(t.split()[-1])
            for dst, v in enumerate(vls.split()):
                counts[int(v)] += dst != src
    assert counts == per_vl


def test_layering_option_errors(cli):
    r = cli("route", "torus:4x4", "--layering", "bogus")
    assert r.returncode == 2 and "layering" in r.stderr and "placement, opensm" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_routing_layering_in_a_simulation():
    """`routing.layering = "opensm"` reaches the simulator's tables: its 3 lanes on the 4x4
    torus fit 3 VCs and not 2 (the error names switch.vcs); a bad value names the field."""
    import hpcnetsim

    cfg = {
        "topology": "torus:4x4,t=2",
        "switch": {"vcs": 3},
        "routing": {"algorithm": "table", "engine": "dfsssp", "layering": "opensm"},
        "traffic": {"load": 0.1},
        "measurement": {"warmup_cycles": 300, "batches": 1, "batch_cycles": 300},
    }
    assert hpcnetsim.simulate(cfg).to_dict()["status"] == "converged"
    with pytest.raises(hpcnetsim.ConfigError, match="switch.vcs"):
        hpcnetsim.simulate(cfg | {"switch": {"vcs": 2}})
    with pytest.raises(hpcnetsim.ConfigError, match="placement"):
        hpcnetsim.simulate(cfg | {"routing": cfg["routing"] | {"layering": "bogus"}})
    with pytest.raises(hpcnetsim.ConfigError, match="layering"):
        hpcnetsim.simulate(cfg | {"routing": {"algorithm": "dor", "layering": "opensm"}})
