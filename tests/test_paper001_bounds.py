"""Paper 001's bandwidth ratios against what any work-conserving sharing of ideal links allows:
the flow model's fair shares are the least every flow can get (a cable carrying k streams ends
them all by k message times), so a published ratio below that bound, or above the bound any
routing can reach, needs cables idle part of the time, i.e. congestion losses the flow model
has not (docs/validation.md, paper 001)."""

from __future__ import annotations

import numpy as np
import pytest

from hpcnetsim.flow import ebb, mpigraph
from hpcnetsim.routing import route

HYPERX = "hyperx:12x8,t=7|faults:random=15,seed=1"  # study hyperx's network
LINK = 4e9


def _config(tmp_path, engine: str, placement: str, **flow) -> dict:
    tables = tmp_path / f"{engine}.lft"
    tables.write_text(route(HYPERX, engine, dump=True)["dump"])
    return {"topology": HYPERX, "seed": 1, "switch": {"vcs": 8},
            "routing": {"algorithm": "table", "tables": str(tables)},
            "flow": {"link_bandwidth": LINK, "placement": placement, "message_bytes": 2**20, **flow}}  # fmt: skip


def test_mpigraph_rack_gets_the_least_fair_sharing_allows(tmp_path):
    # Fig. 1: the 28 nodes of one rack, 4 HyperX switches of one row, DFSSSP (minimal).
    r = mpigraph(_config(tmp_path, "dfsssp", "linear", nodes=28)).to_dict()
    bw = np.array(r["bandwidth"])
    for shift in range(1, 28):
        # The rack's 4 switches are pairwise joined: a pair crosses the one cable between its
        # switches, shared with the shift's other pairs between the same two switches.
        cable = [(i // 7, (i + shift) % 28 // 7) for i in range(28)]
        for i in range(28):
            a, b = cable[i]
            # Every stream gets exactly its cable's fair share: no sharing that keeps the cable
            # busy gives any stream less, and the k streams fill the cable.
            assert bw[i, (i + shift) % 28] == pytest.approx(
                LINK / (1 if a == b else cable.count((a, b))), rel=1e-12
            )
    assert r["worst_streams_per_cable"] == 7
    mean = r["pair_bandwidth"]["mean"] / LINK
    assert abs(mean - 3 / 7) < 1e-9
    # Against a fat-tree at any rate c the ratio is at least 3/7 (pairs cut to min(c, link/k)):
    # the published 0.84 / 2.26 = 0.372 lies below it by more than the 10 % tolerance.
    assert 0.84 / 2.26 < 0.9 * mean


def test_ebb_14_nodes_ratio_is_bounded_by_dfsssps_fair_share(tmp_path):
    # Fig. 5c at 14 nodes: two switches joined by one cable. Any routing's eBB is at most 1 (the
    # nodes' own links), so PARX / DFSSSP is at most 1 / eBB(DFSSSP, linear) under fair sharing.
    e = ebb(_config(tmp_path, "dfsssp", "linear", nodes=14, samples=1000)).to_dict()
    # Each bisection of 7 pairs with k (odd) crossing the cable gives (7 - k + 1) / 7.
    assert set(np.round(np.array(e["sample_values"]) * 7, 9)) <= {1.0, 3.0, 5.0, 7.0}
    bound = 1 / e["ebb"]
    assert 1.6 < bound < 0.9 * 1.9  # below the published ≈1.9 less its 10 % tolerance


def test_ftree_mpigraph_on_the_fat_tree_plane_shares_a_cable_only_where_a_shift_wraps():
    """docs/validation.md, Fig. 1: under ftree the streams of a shift keep to cables of their
    own in 625 of the 671 shifts; in the other 46 (27, 41, ..., 657: 672 ranks on leaves of 14
    nodes with 18 up-links) two streams meet on one cable and get half the link each."""
    cfg = {"topology": "director-tree:nodes=672,edges=48,directors=6",
           "routing": {"algorithm": "table", "engine": "ftree"}, "flow": {"link_bandwidth": LINK}}  # fmt: skip
    r = mpigraph(cfg).to_dict()
    shared = [s + 1 for s, k in enumerate(r["streams_per_cable_by_shift"]) if k > 1]
    assert r["worst_streams_per_cable"] == 2
    assert shared == list(range(27, 658, 14))
    bw = np.array(r["bandwidth"])
    assert int((bw[~np.eye(672, dtype=bool)] < LINK).sum()) == 2 * len(shared)
