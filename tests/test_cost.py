"""Physical layout, cabling, price and power (hpcnetsim.cost, hpcnetsim.layout, topo describe)."""

from __future__ import annotations

import csv
import json
import re
from math import comb

import numpy as np
import pytest

from hpcnetsim import ConfigError
from hpcnetsim.cli import main
from hpcnetsim.cost import cost, load_table
from hpcnetsim.layout import place
from hpcnetsim.topology import Topology

# One packaging unit per rack: then every intra-rack cable is an intra-unit one.
ONE_UNIT = {"layout": {"switches_per_rack": 4}}


def test_tree_cable_count_is_the_closed_form():
    # A k-ary n-tree has k^n endpoint cables and k^n cables between each pair of levels.
    for k, n in ((2, 3), (4, 2), (4, 3)):
        c = cost(Topology.from_spec(f"tree:k={k},n={n}"))
        assert c["cables_electrical"] + c["cables_optical"] == n * k**n


def test_hyperx_dimension_zero_stays_in_its_rack():
    # 4x4, t=2, one line along dimension 0 per rack: dimension 0 and the endpoints are copper,
    # dimension 1 runs between racks (longer than 3 m: up to the tray and down) and is optical.
    c = cost(Topology.from_spec("hyperx:4x4,t=2"), load_table(ONE_UNIT))
    dim0 = 4 * comb(4, 2)
    dim1 = 4 * comb(4, 2)
    assert c["racks"] == 4
    assert c["cables_electrical"] == dim0 + 32
    assert c["cables_optical"] == dim1


def test_dragonfly_groups_local_copper_global_optical():
    # a=4, p=2, h=2: 9 groups, a group to a rack; local links C(4,2) per group, g·a·h/2 global.
    c = cost(Topology.from_spec("dragonfly:a=4,p=2,h=2"), load_table(ONE_UNIT))
    assert c["racks"] == 9
    assert c["cables_electrical"] == 9 * comb(4, 2) + 72
    assert c["cables_optical"] == 9 * 4 * 2 // 2


def test_reach_moves_cables_between_electrical_and_optical():
    t = Topology.from_spec("dragonfly:a=4,p=2,h=2")
    counts = []
    for reach in (0.0, 1.5, 3.0, 6.0, 12.0, 1000.0):
        c = cost(t, load_table({"cables": {"electrical_reach_m": reach}}))
        counts.append(c["cables_electrical"])
        assert c["cables_electrical"] + c["cables_optical"] == 36 + 54 + 72
    assert counts[0] == 0 and counts[-1] == 36 + 54 + 72
    assert counts == sorted(counts) and len(set(counts)) > 2


def test_lengths_are_positive_and_grow_between_racks():
    t = Topology.from_spec("hyperx:4x4,t=2")
    table = load_table(ONE_UNIT)
    lay = place(t, {**table["layout"], **table["cables"]})
    assert (lay.terminal_m >= table["layout"]["slack_m"]).all()
    links = np.array(t.links())
    same = lay.switch_rack[links[:, 0]] == lay.switch_rack[links[:, 2]]
    assert lay.link_m[~same].min() > lay.link_m[same].max()


def test_price_and_power_follow_the_table():
    t = Topology.from_spec("tree:k=4,n=2")
    base = cost(t)
    table = load_table({"switch": {"per_port_usd": 1000.0, "fixed_usd": 0.0, "per_port_w": 5.0}})
    c = cost(t, table)
    ports = 8 * 8  # 8 switches of radix 8
    assert c["cost_switches_usd"] == pytest.approx(ports * 1000.0)
    assert c["power_w"] == pytest.approx(ports * 5.0)
    assert c["cost_cables_usd"] == pytest.approx(base["cost_cables_usd"])
    assert c["cost_per_endpoint_usd"] == pytest.approx(c["cost_usd"] / 16)



def test_no_switch_or_cable_is_priced_below_zero():
    """The default router fit (350.4 $ per port - 892.3 $) is negative below three ports: such a
    switch costs nothing, the others what the fit says; cables likewise with a negative intercept."""
    c = cost(Topology.from_spec("crossbar:2"))
    assert c["cost_switches_usd"] == 0.0 and c["cost_usd"] >= 0.0
    assert cost(Topology.from_spec("crossbar:3"))["cost_switches_usd"] == pytest.approx(3 * 350.4 - 892.3)
    cheap = load_table({"electrical": {"fixed_usd": -1000.0}, "optical": {"fixed_usd": -1000.0}})
    assert cost(Topology.from_spec("tree:k=4,n=2"), cheap)["cost_cables_usd"] == 0.0

def test_user_file_overrides_defaults(tmp_path):
    f = tmp_path / "prices.toml"
    f.write_text("[cost.optical]\nfixed_usd = 1000.0\n")
    assert load_table(f)["optical"]["fixed_usd"] == 1000.0
    assert load_table(f)["electrical"] == load_table()["electrical"]
    t = Topology.from_spec("dragonfly:a=4,p=2,h=2")
    a, b = cost(t), cost(t, load_table(f))
    assert b["cost_cables_usd"] - a["cost_cables_usd"] == pytest.approx(
        a["cables_optical"] * (1000.0 - load_table()["optical"]["fixed_usd"])
    )


@pytest.mark.parametrize(
    "text, field",
    [
        ("[switch]\nper_port_usd = -1\n", "switch.per_port_usd"),
        ("[cables]\nelectrical_reach_m = 'far'\n", "cables.electrical_reach_m"),
        ("[layout]\nrack_units = 0\n", "layout.rack_units"),
        ("[layout]\nrack_height = 3\n", "layout.rack_height"),
        ("[wires]\nx = 1\n", "[wires]"),
        # A section beside [cost] was silently dropped (here: the rack limit).
        ("[layout]\nswitches_per_rack = 1\n[cost.switch]\nper_port_usd = 1000.0\n", "[layout] beside [cost]"),
    ],
)
def test_bad_table_value_is_a_one_line_error(tmp_path, capsys, text, field):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=field.replace("[", r"\[").replace("]", r"\]")):
        load_table(f)
    assert main(["topo", "describe", "tree:k=2,n=2", "--cost-table", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and field in err and "Traceback" not in err


def test_describe_prints_cost_power_and_cables(capsys):
    assert main(["topo", "describe", "hyperx:4x4,t=2"]) == 0
    out = capsys.readouterr().out
    for key in ("cost_usd", "power_w", "cost_per_endpoint_usd", "cables_optical_by_length", "racks"):
        assert key in out
    assert main(["topo", "describe", "hyperx:4x4,t=2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    by_len = d["cables_by_length"]
    assert sum(by_len["electrical"].values()) == d["cables_electrical"]
    assert sum(by_len["optical"].values()) == d["cables_optical"]
    assert d["power_per_endpoint_w"] == pytest.approx(d["power_w"] / 32)


def test_compare_has_cost_columns(capsys):
    assert main(["topo", "compare", "tree:k=4,n=2", "hyperx:4x4,t=1"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for col in ("cost_usd", "power_w", "cost_per_endpoint_usd", "cables_optical", "relative_cost_usd"):
        assert col in header


@pytest.mark.parametrize("spec", ["tree:k=4,n=3", "tree:k=4,kp=2,n=3", "xgft:h=3;m=4,4,4;w=1,4,4"])
def test_tree_pod_keeps_leaf_to_level_one_cables_in_its_rack(spec):
    t = Topology.from_spec(spec)
    table = load_table()
    lay = place(t, {**table["layout"], **table["cables"]})
    for a, _, b, _ in t.links():
        if {t.switch_level(a), t.switch_level(b)} == {0, 1}:
            assert lay.switch_rack[a] == lay.switch_rack[b]
    assert (lay.terminal_rack == lay.switch_rack[[s for _, s, _ in t.terminal_links()]]).all()


def test_published_relative_costs_hold_in_order():
    # Kim et al. 2008 (~16K endpoints): dragonfly cheaper than the flattened butterfly and
    # than the folded Clos; Besta and Hoefler 2014 (~10K): Slim Fly cheaper and less
    # power-hungry than the dragonfly and the fat-tree, with over 50% fewer routers and 30%
    # fewer cables than the fat-tree. Ratios and the published figures: docs/cost.md.
    def c(spec):
        t = Topology.from_spec(spec)
        return t, cost(t)

    _, df = c("dragonfly:a=16,p=8,h=8")
    _, fb = c("hyperx:8x8x8x4,t=8")
    _, fc = c("tree:k=16,n=4")
    assert df["cost_per_endpoint_usd"] < fb["cost_per_endpoint_usd"] < fc["cost_per_endpoint_usd"]
    sf_t, sf = c("slimfly:q=19")
    _, df2 = c("dragonfly:a=14,p=7,h=7")
    ft_t, ft = c("tree:k=22,n=3")
    for key in ("cost_per_endpoint_usd", "power_per_endpoint_w"):
        assert sf[key] < df2[key] < ft[key]
    assert sf_t.num_switches < 0.5 * ft_t.num_switches
    cables = lambda x: x["cables_electrical"] + x["cables_optical"]  # noqa: E731
    assert cables(sf) < 0.7 * cables(ft)


def test_topology_method_takes_a_table_or_overrides():
    t = Topology.from_spec("hyperx:4x4,t=2")
    assert t.cost() == cost(t)
    assert t.cost({"cables": {"electrical_reach_m": 1000.0}})["cables_optical"] == 0


def test_overrides_naming_every_section_are_overrides_and_are_checked():
    from hpcnetsim.cost import default_table

    t = Topology.from_spec("tree:k=4,n=2")
    # Every section named, a few keys each: once taken for a complete table (KeyError).
    sections = {"layout": {}, "cables": {}, "electrical": {}, "optical": {}, "transceiver": {}}
    a = t.cost({**sections, "switch": {"per_port_usd": 1000.0}})
    b = t.cost({"switch": {"per_port_usd": 1000.0}})
    assert a == b
    # 8 switches of 8 ports, the default intercept: the price follows the override.
    assert a["cost_switches_usd"] == pytest.approx(8 * (load_table()["switch"]["fixed_usd"] + 8 * 1000.0))
    # An edited copy of the defaults is checked like a file: no negative port price.
    edited = default_table()
    edited["switch"]["per_port_usd"] = -500.0
    with pytest.raises(ConfigError, match="switch.per_port_usd"):
        t.cost(edited)


def test_paper001_racks_keep_at_most_144_hyperx_cables_inside():
    # Paper 001 §2.3 / Fig. 2c: 24 racks of 4 HyperX switches, copper inside a rack, 684 AOCs.
    t = Topology.from_spec("hyperx:12x8,t=7")
    table = load_table({"layout": {"switches_per_rack": 4}})
    lay = place(t, {**table["layout"], **table["cables"]})
    assert lay.racks == 24 and np.bincount(lay.switch_rack).max() == 4
    links = np.array(t.links())
    inside = lay.switch_rack[links[:, 0]] == lay.switch_rack[links[:, 2]]
    # A rack of 4 switches holds at most C(4, 2) links; a dimension-0 line per rack reaches it.
    assert len(links) == 864 and int(inside.sum()) == 24 * comb(4, 2) == 144
    assert (lay.link_m[inside] <= table["cables"]["electrical_reach_m"]).all()
    assert cost(t, table)["cables_optical"] == 864 - 144 == 720
    # The paper's 684 would need 36 copper cables between racks; no single copper reach gives it.
    optical = [
        cost(t, {"layout": {"switches_per_rack": 4}, "cables": {"electrical_reach_m": r / 10}})[
            "cables_optical"
        ]
        for r in range(30, 71)
    ]
    assert 684 not in optical and optical[11] == 705 and optical[12] == 675


def test_compare_table_keeps_a_spec_with_suffixes_in_its_cell(cli, tmp_path):
    """`SPEC|planes:2` and `SPEC|faults:...` split the Markdown row at their bar, shifting every
    later column of that network one to the right."""
    r = cli("topo", "compare", "tree:k=4,n=2|planes:2", "torus:4x4|faults:random=2", "hyperx:4x4,t=2",
            "--out", str(tmp_path / "cmp"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    for text in (r.stdout, (tmp_path / "cmp" / "compare.md").read_text()):
        rows = [line for line in text.splitlines() if line.startswith("|")]
        cells = [len(re.split(r"(?<!\\)\|", line)) for line in rows]
        assert len(rows) == 5 and len(set(cells)) == 1, rows
        assert "| tree:k=4,n=2\\|planes:2 |" in text
    # Two planes: 32 NIC ports on 16 endpoints, the cost per endpoint divides by the 16; prices
    # are whole dollars, never in exponent notation.
    row = next(r for r in csv.DictReader(open(tmp_path / "cmp" / "compare.csv")) if r["spec"].endswith("planes:2"))
    assert (row["terminals"], row["endpoints"]) == ("32", "16")
    assert float(row["cost_per_endpoint_usd"]) == pytest.approx(float(row["cost_usd"]) / 16)
    assert "e+" not in r.stdout


def test_a_cost_table_of_the_wrong_type_is_named():
    # A list failed inside with "cannot convert dictionary update sequence element #0".
    t = Topology("torus:4x4")
    for bad, shown in (([1], "[1]"), (3, "3")):
        needle = f"cost table: table = {shown} is invalid: a dict of sections"
        with pytest.raises(ConfigError, match=re.escape(needle)):
            t.cost(bad)


def test_describe_aligns_the_cable_length_lines_with_the_other_values(capsys):
    # "cables_electrical_by_length" is longer than every key the width was taken from: its
    # value stood 2 columns right of the others.
    assert main(["topo", "describe", "tree:k=4,n=3"]) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    starts = {re.match(r"\S+ +", line).end() for line in lines}
    assert len(starts) == 1, lines
    assert any(line.startswith("cables_electrical_by_length  <=") for line in lines), lines
