"""hpcnetsim against INSEE, paper 000's own simulator, on the seven application kernels of the
thin-trees. INSEE's cycles are kept in tests/data/insee/, made by
`benchmarks/peers/insee_kernels.py FSIN --csv ...` (the build of INSEE in benchmarks/peers/README.md):

- kernels-64.csv: every tree 8:k',2 of Table 4(a), kernel and seed 1-5; this test reruns ours
  with the script's own configs and compares;
- kernels-512.csv: the trees of Tables 4(b) and 5(b) that were open (8:2,3 and its reference
  8:8,3; the same-radix trees and their reference 6:6,4), 2w, 2m and wf on the 32 × 16 mesh of
  the thin-trees study (`--mesh 32x16`); the file also holds hpcnetsim's cycles, which a sample
  of reruns checks are still ours (all of them take minutes).

What it establishes: on the same programs the two simulators agree to within a few per cent per
kernel and in φ (at 512 tasks, over seeds 1-2, within 8 % per kernel and 4 % in φ), while at 64
tasks both lie 1-6 % below the φ paper 000 prints and at 512 tasks both lie 7-30 % above its
same-radix φ; so those gaps to the paper are not in hpcnetsim's network
model (docs/validation.md, "INSEE against hpcnetsim")."""

import csv
import importlib.util
import statistics
import sys
import tomllib
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
    assert peer.kernels(512, MESH_512) == peer.KERNELS
    with pytest.raises(ValueError, match="no 2D mesh of sides"):
        peer.programs("2m", 512, [16, 16])
    with pytest.raises(ValueError, match="tree = '8:9,2' is invalid"):
        peer.tree("8:9,2")


# ---- 512 tasks: Tables 4(b) and 5(b) -------------------------------------------------------

MESH_512 = [32, 16]
#: tree -> the reference its φ is normalized to (Table 4(b): 8:8,3; Table 5(b): 6:6,4)
REFERENCE_512 = {"8:2,3": "8:8,3", **{t: "6:6,4" for t in ("11:1,3", "10:2,3", "9:3,3", "8:4,3", "7:5,4")}}
#: at least this many seeds of every tree and kernel (INSEE: about two hours of CPU per seed
#: for these eight trees)
SEEDS_512 = 2
#: a kernel's mean time over the seeds, ours against INSEE's at 512 tasks: one seed's ratio
#: moves by ±6 % from seed to seed (8:8,3 bu: 1.058 with seed 1, 0.941 with seed 2); over
#: seeds 1-2 the means lie in 0.920 (6:6,4 bu) to 1.022
KERNEL_TOLERANCE_512 = 0.10
#: φ's mean over the seeds at 512 tasks (seeds 1-2: ours 0.5-3.9 % from INSEE's)
PHI_TOLERANCE_512 = 0.05
#: reruns of ours that must give the stored cycles (cheap ones; every kernel and reference)
RERUN_512 = [("8:8,3", "bt", 1), ("8:2,3", "3w", 1), ("6:6,4", "2m", 1), ("8:4,3", "wf", 1), ("7:5,4", "2w", 1)]


@pytest.fixture(scope="module")
def runs_512():
    insee, ours = {}, {}
    with open(ROOT / "tests/data/insee/kernels-512.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["tree"], row["kernel"], int(row["seed"]))
            insee[key], ours[key] = int(row["insee_cycles"]), int(row["hpcnetsim_cycles"])
    return insee, ours


def _seeds(runs):
    """The seeds every decisive tree has for every kernel."""
    insee, _ = runs
    trees = {*REFERENCE_512, *REFERENCE_512.values()}
    return sorted(
        s for s in {k[2] for k in insee} if all((t, k, s) in insee for t in trees for k in peer.KERNELS)
    )


def test_512_data_covers_the_decisive_trees(runs_512):
    assert len(_seeds(runs_512)) >= SEEDS_512


@pytest.mark.parametrize("tree, kernel, seed", RERUN_512)
def test_512_stored_cycles_are_hpcnetsims(runs_512, tree, kernel, seed):
    _, ours = runs_512
    assert peer.ours(tree, kernel, seed, [], 512, MESH_512) == ours[tree, kernel, seed]


@pytest.mark.parametrize("tree", [*REFERENCE_512, "8:8,3", "6:6,4"])
def test_512_each_kernel_takes_insees_time(runs_512, tree):
    insee, ours = runs_512
    for kernel in peer.KERNELS:
        ratio = statistics.mean(ours[tree, kernel, s] / insee[tree, kernel, s] for s in _seeds(runs_512))
        assert abs(ratio - 1) <= KERNEL_TOLERANCE_512, (tree, kernel, ratio)


def _phi_512(times, tree, seeds):
    return statistics.mean(peer.phi(times, tree, REFERENCE_512[tree], s, peer.KERNELS) for s in seeds)


@pytest.mark.parametrize("tree", REFERENCE_512)
def test_512_phi_equals_insees(runs_512, tree):
    insee, ours = runs_512
    seeds = _seeds(runs_512)
    theirs, mine = _phi_512(insee, tree, seeds), _phi_512(ours, tree, seeds)
    assert abs(mine / theirs - 1) <= PHI_TOLERANCE_512, (tree, mine, theirs)


def _spec(tree: str) -> str:
    k, kp, n = peer.tree(tree)
    return f"tree:k={k},kp={kp},n={n}"


def _published(tree: str) -> float:
    """The paper's φ of ``tree`` against its reference (studies/thin-trees.toml)."""
    study = tomllib.loads((ROOT / "studies/thin-trees.toml").read_text())
    table = next(p for p in study["report"]["performance"] if p["reference"] == _spec(REFERENCE_512[tree]))
    return table["published"][_spec(tree)]["phi"]


def test_512_insee_is_as_far_from_table_5b_as_hpcnetsim(runs_512):
    """INSEE's φ of the same-radix trees lies above the paper's by more than the 5 % tolerance,
    as ours does: Table 5(b)'s values do not come from this network model."""
    insee, _ = runs_512
    seeds = _seeds(runs_512)
    for tree, reference in REFERENCE_512.items():
        if reference == "6:6,4":
            assert _phi_512(insee, tree, seeds) > 1.05 * _published(tree), tree
    # and Table 4(b)'s 8:2,3 within it, as ours
    assert _phi_512(insee, "8:2,3", seeds) == pytest.approx(_published("8:2,3"), rel=0.05)
