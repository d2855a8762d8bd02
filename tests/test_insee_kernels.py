"""hpcnetsim against INSEE, paper 000's own simulator, on the seven application kernels of the
64-node thin-trees (Table 4(a)). INSEE's cycles for every tree 8:k',2, kernel and seed 1-5 are
kept in tests/data/insee/kernels-64.csv, made by `benchmarks/peers/insee_kernels.py FSIN --uplinks
1 2 3 4 5 6 7 --csv ...` (the build of INSEE in benchmarks/peers/README.md); this test reruns ours
with the script's own configs and compares.

What it establishes: on the same programs the two simulators agree to within a few per cent per
kernel and within 1 % in φ, while both lie 1-6 % below the φ paper 000 prints; so the gap to the
paper is not in hpcnetsim's network model (docs/validation.md, "Paper 000 at 64 tasks and INSEE")."""

import csv
import importlib.util
import statistics
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks/peers"))  # insee_kernels.py imports insee.py beside it
_spec = importlib.util.spec_from_file_location("insee_kernels", ROOT / "benchmarks/peers/insee_kernels.py")
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

#: a kernel's mean time over the seeds, ours against INSEE's (measured: at most 3.5 %, BU on 8:8,2)
KERNEL_TOLERANCE = 0.06
#: φ's mean over the seeds (measured: at most 0.7 %, 8:5,2)
PHI_TOLERANCE = 0.015


@pytest.fixture(scope="module")
def runs():
    insee, ours = {}, {}
    with open(ROOT / "tests/data/insee/kernels-64.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["uplinks"]), row["kernel"], int(row["seed"]))
            insee[key] = int(row["insee_cycles"])
            ours[key] = peer.ours(key[0], key[1], key[2], [])
    return insee, ours


def test_the_data_covers_every_tree_kernel_and_seed(runs):
    insee, _ = runs
    assert set(insee) == {(u, k, s) for u in range(1, 9) for k in peer.KERNELS for s in range(1, 6)}


@pytest.mark.parametrize("uplinks", range(1, 9))
def test_each_kernel_takes_insees_time(runs, uplinks):
    insee, ours = runs
    for kernel in peer.KERNELS:
        ratio = statistics.mean(ours[uplinks, kernel, s] / insee[uplinks, kernel, s] for s in range(1, 6))
        assert abs(ratio - 1) <= KERNEL_TOLERANCE, (uplinks, kernel, ratio)


@pytest.mark.parametrize("uplinks", range(1, 8))
def test_phi_equals_insees(runs, uplinks):
    insee, ours = runs
    theirs = statistics.mean(peer.phi(insee, uplinks, s) for s in range(1, 6))
    mine = statistics.mean(peer.phi(ours, uplinks, s) for s in range(1, 6))
    assert abs(mine / theirs - 1) <= PHI_TOLERANCE, (uplinks, mine, theirs)


def test_the_trace_pairs_every_send_with_its_receive():
    for kernel in peer.KERNELS:
        lines = peer.insee_trace(peer.programs(kernel)).split()
        sends = sum(1 for w in lines if w == "s")
        assert sends == sum(1 for w in lines if w == "r") > 0
