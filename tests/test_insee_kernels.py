"""hpcnetsim against INSEE, paper 000's own simulator, on the seven application kernels of the
64-node thin-trees (Table 4(a)). INSEE's cycles for every tree 8:k',2, kernel and seed 1-5 are
kept in tests/data/insee/kernels-64.csv, made by `benchmarks/peers/insee_kernels.py FSIN --csv ...` (the build of INSEE in benchmarks/peers/README.md); this test reruns ours
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


TREES = [f"8:{u},2" for u in range(1, 8)]


@pytest.fixture(scope="module")
def runs():
    insee, ours = {}, {}
    with open(ROOT / "tests/data/insee/kernels-64.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["tree"], row["kernel"], int(row["seed"]))
            insee[key] = int(row["insee_cycles"])
            ours[key] = peer.ours(key[0], key[1], key[2], [], int(row["tasks"]))
    return insee, ours


def test_the_data_covers_every_tree_kernel_and_seed(runs):
    insee, _ = runs
    assert set(insee) == {(t, k, s) for t in [*TREES, "8:8,2"] for k in peer.KERNELS for s in range(1, 6)}


@pytest.mark.parametrize("tree", [*TREES, "8:8,2"])
def test_each_kernel_takes_insees_time(runs, tree):
    insee, ours = runs
    for kernel in peer.KERNELS:
        ratio = statistics.mean(ours[tree, kernel, s] / insee[tree, kernel, s] for s in range(1, 6))
        assert abs(ratio - 1) <= KERNEL_TOLERANCE, (tree, kernel, ratio)


@pytest.mark.parametrize("tree", TREES)
def test_phi_equals_insees(runs, tree):
    insee, ours = runs
    theirs = statistics.mean(peer.phi(insee, tree, "8:8,2", s, peer.KERNELS) for s in range(1, 6))
    mine = statistics.mean(peer.phi(ours, tree, "8:8,2", s, peer.KERNELS) for s in range(1, 6))
    assert abs(mine / theirs - 1) <= PHI_TOLERANCE, (tree, mine, theirs)


def test_the_trace_pairs_every_send_with_its_receive():
    for kernel in peer.KERNELS:
        lines = peer.insee_trace(peer.programs(kernel, 64)).split()
        sends = sum(1 for w in lines if w == "s")
        assert sends == sum(1 for w in lines if w == "r") > 0


def test_kernels_follow_the_task_count():
    assert peer.kernels(64) == peer.KERNELS
    assert peer.kernels(512) == ["3w", "3m", "bu", "bt"]
    with pytest.raises(ValueError, match="tree = '8:9,2' is invalid"):
        peer.tree("8:9,2")
