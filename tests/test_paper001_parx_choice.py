"""Paper 001 Fig. 1 with PARX: the flow model splits each large message evenly over the two LID
offsets paper 001's Table 1 allows, while the paper's MPI layer picks one of them at random per
message. Drawing one offset per stream instead (max-min fair rates recomputed here, the oracle
checked against the flow model on the split) lowers the rack's mean bandwidth per pair only a
little: the choice does not explain the published PARX / fat-tree ratio (docs/validation.md)."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from hpcnetsim import Topology
from hpcnetsim.flow import mpigraph
from hpcnetsim.routing import route

HYPERX = "hyperx:12x8,t=7|faults:random=15,seed=1"  # study hyperx's network
RACK = 28  # linear placement: the four switches (0..3, 0) of one row, all in quadrant Q0
LARGE_Q0_Q0 = (0, 2)  # Table 1b, large messages from Q0 to Q0: "0 | 2"


def _tables(dump: str) -> dict[int, dict[tuple[int, int], int]]:
    lft: dict[int, dict[tuple[int, int], int]] = {}
    for line in dump.splitlines():
        if m := re.match(r"Unicast lids .* of switch (\d+):", line):
            sw = lft.setdefault(int(m.group(1)), {})
        elif m := re.match(r"0x[0-9a-f]+ (\d+) : \(terminal (\d+) offset (\d+)\)", line):
            sw[(int(m.group(2)), int(m.group(3)))] = int(m.group(1))
    return lft


def _max_min(flows: list[dict]) -> np.ndarray:
    """Max-min fair rates by progressive filling: flow f puts weight w of its rate on channel c
    (flows[f][c] = w); every channel and every flow (its node's link) carries at most 1."""
    rate, frozen = np.zeros(len(flows)), np.zeros(len(flows), bool)
    channels = sorted({c for f in flows for c in f})
    while not frozen.all():
        load = {c: sum(f.get(c, 0) * r for f, r in zip(flows, rate)) for c in channels}
        rise = {c: sum(f.get(c, 0) for f, fr in zip(flows, frozen) if not fr) for c in channels}
        step = min([1 - rate[~frozen].max()] + [(1 - load[c]) / rise[c] for c in channels if rise[c] > 0])
        rate[~frozen] += step
        for c in channels:
            if sum(f.get(c, 0) * r for f, r in zip(flows, rate)) >= 1 - 1e-12:
                frozen |= np.array([c in f for f in flows])
        frozen |= rate >= 1 - 1e-12
    return rate


def test_one_random_offset_per_stream_costs_parx_little(tmp_path):
    dump = route(HYPERX, "parx", lmc=2, dump=True)["dump"]
    lft, topo = _tables(dump), Topology.from_spec(HYPERX)
    switch_of = {t: s for t, s, _ in topo.terminal_links()}

    def channels(src: int, dst: int, offset: int) -> list[tuple[int, int]]:
        s, out = switch_of[src], []
        while True:
            port = lft[s][(dst, offset)]
            out.append((s, port))
            peer = topo.ports(s)[port]
            if peer[0] == "terminal":
                return out
            s = peer[1]

    def flow(src: int, dst: int, shares: list[tuple[int, float]]) -> dict:
        f: dict = {}
        if switch_of[src] != switch_of[dst]:
            for offset, w in shares:
                for c in channels(src, dst, offset):
                    f[c] = f.get(c, 0) + w
        return f

    shifts = [[(i, (i + s) % RACK) for i in range(RACK)] for s in range(1, RACK)]
    split = np.mean(
        [_max_min([flow(i, j, [(o, 0.5) for o in LARGE_Q0_Q0]) for i, j in p]).mean() for p in shifts]
    )
    # The oracle gives the flow model's own mpiGraph on the split.
    tables = tmp_path / "parx.lft"
    tables.write_text(dump)
    cfg = {"topology": HYPERX, "seed": 1, "switch": {"vcs": 8},
           "routing": {"algorithm": "table", "tables": str(tables), "address": "parx"},
           "flow": {"link_bandwidth": 4e9, "placement": "linear", "nodes": RACK, "message_bytes": 2**20}}  # fmt: skip
    assert split == pytest.approx(mpigraph(cfg).to_dict()["pair_bandwidth"]["mean"] / 4e9, rel=1e-9)
    rng = random.Random(1)
    drawn = np.mean([
        _max_min([flow(i, j, [(rng.choice(LARGE_Q0_Q0), 1.0)]) for i, j in p]).mean()
        for p in shifts for _ in range(2)
    ])  # fmt: skip
    # Collisions of the drawn paths cost a few percent; the fat-tree gets the full link here, so
    # the ratio stays far above the published 1.39 / 2.26 = 0.615 (+10 %: 0.677).
    assert 0.9 * split < drawn < split
    assert drawn > 0.615 * 1.1
