"""The Cascade and Megafly families and the ksp table engine from the command line and the API:
describe, CODES export read back, deadlock checks of the dragonfly routings, racks and cables,
k-shortest-paths tables, one-line errors."""

import json
from math import comb
from pathlib import Path

import hpcnetsim
from hpcnetsim.cli import main
from hpcnetsim.cost import cost, load_table
from hpcnetsim.layout import group_keys
from hpcnetsim.topology import Topology

FABRICS = Path(__file__).parent / "data" / "fabrics"
EDISON = "cascade:groups=15,rows=6,cols=16,p=4,global=24"


def _describe(spec, capsys):
    assert main(["topo", "describe", spec, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_edison_described_and_exported_as_codes_reads_back(tmp_path, capsys):
    d = _describe(EDISON, capsys)
    # 15 groups of 6 x 16 Aries routers: 15 green + 15 black local links, 24 global links per group pair.
    assert (d["switches"], d["terminals"], d["radix"]) == (1440, 5760, 15 + 15 + 10 + 4)
    assert d["switch_links"] == 15 * 96 * 30 // 2 + comb(15, 2) * 24
    files = []
    for kind in ("intra", "inter"):
        out = tmp_path / f"{kind}.csv"
        assert main(["topo", "export", EDISON, "--format", f"codes-{kind}", "-o", str(out)]) == 0
        files.append(str(out))
    capsys.readouterr()
    codes = _describe(f"codes-dragonfly:{files[0]},{files[1]},p=4", capsys)
    shipped = FABRICS / "codes_edison"
    edison = _describe(f"codes-dragonfly:{shipped / 'intra-edison.csv'},{shipped / 'inter-edison.csv'},p=4", capsys)
    for key in ("switches", "terminals", "switch_links", "diameter", "avg_distance", "minimal_spread_throughput"):
        assert codes[key] == d[key] == edison[key], key
    # The row/column types of the intra-group records are CODES' (0 green, 1 black).
    types = {line.split(",")[2] for line in Path(files[0]).read_text().splitlines() if not line.startswith("#")}
    assert types == {"0", "1"}


def test_megafly_counts_and_distance(capsys):
    d = _describe("megafly:leaves=4,spines=4,p=4,h=4", capsys)
    g = 4 * 4 + 1
    assert (d["switches"], d["terminals"], d["radix"], d["diameter"]) == (8 * g, 16 * g, 8, 5)
    assert d["switch_links"] == g * 16 + g * 16 // 2


def test_new_dragonfly_routings_check_deadlock(capsys):
    for spec in ("cascade:groups=3,rows=2,cols=2,p=1,black=1,h=2,cable=1", "megafly:leaves=2,spines=2,p=1,h=2"):
        for routing, vcs in [("dragonfly-minimal", 2), ("dragonfly-valiant", 3), ("dragonfly-ugal", 3)]:
            rep = hpcnetsim.check_deadlock(spec, routing)
            assert rep["deadlock_free"] and rep["vcs"] == vcs, (spec, routing, rep)
            merged = hpcnetsim.check_deadlock(spec, routing, vcs=1)
            # Megafly's minimal routes (up, global, down) need no VC classes.
            expected = spec.startswith("megafly") and routing == "dragonfly-minimal"
            assert merged["deadlock_free"] == expected, (spec, routing, merged)


def test_cascade_chassis_and_megafly_groups_stay_in_their_racks():
    # A chassis of 4 routers and 8 nodes to a rack: its green links are copper, the black links
    # between the chassis of a group and the global links run between racks, optical.
    spec = "cascade:groups=3,rows=2,cols=4,p=2,black=1,h=2"
    t = Topology.from_spec(spec)
    assert group_keys(t)[:8] == [(0, 0)] * 4 + [(0, 1)] * 4
    c = cost(t, load_table({"layout": {"switches_per_rack": 4}}))
    green, black, globals_ = 3 * 2 * comb(4, 2), 3 * 4, 3 * 8
    assert c["racks"] == 6
    assert c["cables_electrical"] == green + 3 * 8 * 2
    assert c["cables_optical"] == black + globals_
    # Megafly: a group (2 leaves, 2 spines, 4 nodes) to a rack, its global links optical.
    t = Topology.from_spec("megafly:leaves=2,spines=2,p=2,h=2")
    c = cost(t, load_table({"layout": {"switches_per_rack": 4}}))
    assert c["racks"] == 5
    assert (c["cables_electrical"], c["cables_optical"]) == (5 * 4 + 20, 5 * 4 // 2)


def test_group_shift_on_the_new_families():
    # Every terminal sends to the same terminal of the next group: minimal routing is held to the
    # global links between two groups (2 for 8 terminals; 1 for 4).
    for spec, bound in [
        ("cascade:groups=5,rows=2,cols=2,p=2,green=2,black=2,h=2,cable=1,global=2", 2 / 8),
        ("megafly:leaves=2,spines=2,p=2,h=2", 1 / 4),
    ]:
        r = hpcnetsim.simulate({
            "topology": spec, "switch": {"vcs": 2}, "routing": {"algorithm": "dragonfly-minimal"},
            "traffic": {"pattern": "group-shift", "load": 1.0},
            "measurement": {"warmup_cycles": 2000, "window_cycles": 500, "batches": 2, "batch_cycles": 2000},
        })  # fmt: skip
        assert abs(r.accepted_load - bound) < 0.02, (spec, r.accepted_load)


def test_ksp_route_from_the_command_line(capsys):
    spec = "jellyfish:n=16,k=4,p=2,seed=3"
    assert main(["route", spec, "--routing", "ksp", "--check-deadlock", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    # 8 addresses per terminal by default (Singla et al.'s 8 paths), deadlock-free on its lanes.
    n = 32
    assert rep["paths"] == n * (n - 1) * 8 and rep["unreachable_pairs"] == 0, rep
    assert rep["deadlock"] == "acyclic" and 1 <= rep["vls_used"] <= 8, rep
    assert main(["route", spec, "--routing", "ksp", "--lmc", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["paths"] == n * (n - 1) * 2
    # A table-routed simulation with ksp tables, LMC 3 by default.
    r = hpcnetsim.simulate({
        "topology": spec, "switch": {"vcs": 8}, "routing": {"algorithm": "table", "engine": "ksp"},
        "traffic": {"pattern": "random-permutation", "load": 0.2},
        "measurement": {"warmup_cycles": 1000, "window_cycles": 500, "batches": 2, "batch_cycles": 1000},
    })  # fmt: skip
    assert abs(r.accepted_load - 0.2) < 0.03, r.accepted_load


def test_bad_new_specs_are_one_line(capsys):
    for spec, words in [
        ("cascade:groups=15,rows=6,cols=16,p=4,global=69", ["global = 69", "between 1 and 68"]),
        ("cascade:groups=15,rows=6,cols=16", ["p", "missing"]),
        ("megafly:leaves=4,spines=4,p=4,h=4,groups=4", ["groups = 4", "2, 3, 5, 9, 17"]),
        # 25 links per group pair cannot be wired 2 ports at a time: a cable would reach two groups.
        ("cascade:groups=15,rows=6,cols=16,p=4,global=25", ["global = 25", "a multiple of cable = 2"]),
    ]:
        assert main(["topo", "describe", spec]) == 2, spec
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and all(w in err for w in words), (spec, err)
