"""hpcnetsim against INSEE, paper 000's own simulator, on the seven application kernels of the
thin-trees. INSEE's cycles are kept in tests/data/insee/, made by
`benchmarks/peers/insee_kernels.py FSIN --csv ...` (the build of INSEE in benchmarks/peers/README.md):

- kernels-64.csv: every tree 8:k',2 of Table 4(a), kernel and seed 1-5; this test reruns ours
  with the script's own configs and compares;
- kernels-512.csv: the trees of Tables 4(b) and 5(b) that were open (8:2,3 and its reference
  8:8,3; the same-radix trees and their reference 6:6,4), 2w, 2m and wf on the 32 × 16 mesh of
  the thin-trees study (`--mesh 32x16`); the file also holds hpcnetsim's cycles, which a sample
  of reruns checks are still ours (all of them take minutes);
- kernels-4096.csv: seed 1 of the trees of Tables 4(c) and 5(c) that INSEE runs in hours (8:1,4,
  8:2,4, 8:3,4, 8:4,4 and their reference 8:8,4; 9:3,4, 8:4,4, 10:2,4, 7:5,5 and 11:1,4 against
  6:6,5), and seed 2 of 8:3,4, 8:4,4 and 8:8,4: 2m, 3m, bu, bt and wf in both simulators (BU on
  10:2,4, 8:1,4 and 11:1,4 in hpcnetsim alone), and BU on 8:8,4 for seeds 3-10; the wavefronts
  2w and 3w in hpcnetsim alone (`--hpcnetsim-only`, empty INSEE cycles) but on 8:2,4 and its
  reference 8:8,4 (INSEE_WAVEFRONTS_4096);
- progress-bu-11-1-4-4096.json: a snapshot of INSEE's BU on 11:1,4 while it ran
  (benchmarks/peers/insee_progress.py), which bounds the run's end from below.

What it establishes: on the same programs the two simulators agree to within a few per cent per
kernel and in φ (at 512 tasks, over seeds 1-2, within 8 % per kernel and 4 % in φ), while at 64
tasks both lie 1-6 % below the φ paper 000 prints and at 512 tasks both lie 7-30 % above its
same-radix φ; so those gaps to the paper are not in hpcnetsim's network
model (docs/validation.md, "INSEE against hpcnetsim")."""

import csv
import functools
import importlib
import importlib.util
import json
import math
import statistics
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNELS_4096 = ROOT / "tests/data/insee/kernels-4096.csv"
sys.path.insert(0, str(ROOT / "benchmarks/peers"))  # insee_kernels.py imports insee.py beside it
_spec = importlib.util.spec_from_file_location("insee_kernels", ROOT / "benchmarks/peers/insee_kernels.py")
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)
progress = importlib.import_module("insee_progress")  # benchmarks/peers/insee_progress.py

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
    return peer.stored(ROOT / "tests/data/insee/kernels-512.csv", 512)


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
    """The paper's φ of ``tree`` against its 512-task reference (studies/thin-trees.toml)."""
    return _published_against(tree, REFERENCE_512[tree])


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


# ---- 4096 tasks: Tables 4(c), 5(c) and 6(c) ------------------------------------------------

#: tree -> the references of the tables whose rows INSEE was run for (Table 4(c): 8:8,4;
#: Table 5(c): 6:6,5; 8:4,4 is in both)
REFERENCES_4096 = {
    "8:1,4": ["8:8,4"],
    "8:2,4": ["8:8,4"],
    "8:3,4": ["8:8,4"],
    "8:4,4": ["8:8,4", "6:6,5"],
    "9:3,4": ["6:6,5"],
    "10:2,4": ["6:6,5"],
    "7:5,5": ["6:6,5"],
    "11:1,4": ["6:6,5"],
}
#: the kernels INSEE ran at 4096 tasks (seed 1); the wavefronts 2w and 3w take 0.9-1.8 million
#: cycles there, about an hour of INSEE per run on the 4096-terminal trees and more on the
#: larger ones, so on most trees their rows hold hpcnetsim's cycles alone and INSEE's φ takes
#: their ratios from hpcnetsim (justified by test_wavefront_ratios_agree_where_insee_ran_them)
INSEE_KERNELS_4096 = ["2m", "3m", "bu", "bt", "wf"]
WAVEFRONTS = ["2w", "3w"]
#: the wavefronts INSEE did run at 4096 tasks (seed 1), by tree: Table 4(c)'s 8:2,4 and its
#: reference 8:8,4 (about 1.5 ms of INSEE a cycle on 8:2,4, 3.4 ms on 8:8,4)
INSEE_WAVEFRONTS_4096 = {"8:2,4": ["2w", "3w"], "8:8,4": ["2w", "3w"]}
#: of those, the ones not run in INSEE on a tree (their ratios are then borrowed from hpcnetsim
#: too): BU on 10:2,4 is 1.28 million cycles, an hour of INSEE; on 8:1,4 4.7 million, about
#: 2.6 hours; on 11:1,4 (5-6 ms of INSEE a cycle) 3m 2.0 million and BU 12.4 million cycles,
#: the last a day
NOT_RUN_4096 = {"10:2,4": ["bu"], "8:1,4": ["bu"], "11:1,4": ["bu"]}
#: one seed's kernel time, ours against INSEE's (as at 512 tasks, where one seed moved ±6 %)
KERNEL_TOLERANCE_4096 = 0.10
#: reruns of ours that must give the stored cycles (the cheap ones)
RERUN_4096 = [("9:3,4", "bt", 1), ("9:3,4", "wf", 1), ("8:1,4", "bt", 1), ("11:1,4", "wf", 1)]
#: a wavefront's time on a tree over its reference's, ours against INSEE's where INSEE ran them,
#: one seed: 64 and 512 tasks, 94 runs, measured at most 4.3 % (3w on 8:1,2 with seed 5) and 4.1 %
#: (3w on 11:1,3 with seed 2), both at INSEE's shortest run of that tree's seeds. One seed's time
#: is a draw in each simulator: 3w on 8:1,2 takes INSEE 252 388-259 390 cycles over seeds 1-5 and
#: hpcnetsim 259 047-263 583. Before the canonical order of a cycle's events redrew hpcnetsim's
#: runs the most was 2.8 % (3w on 10:2,3, seed 1)
WAVEFRONT_TOLERANCE = 0.05
#: the mean of those ratios' relative difference over each table's runs: measured +0.2 % (64
#: tasks, 70 runs), +0.9 % (512 tasks, 24 runs), +0.3 % (4096 tasks, 2 runs); so neither simulator
#: is systematically faster on the thin trees' wavefronts
WAVEFRONT_BIAS = 0.015


@functools.cache
def _stored_4096():
    """INSEE's cycles (the wavefronts only as INSEE_WAVEFRONTS_4096 lists) and ours, by (tree,
    kernel, seed), read once for the parametrizations and the tests."""
    return peer.stored(KERNELS_4096, 4096)


@pytest.fixture(scope="module")
def runs_4096():
    return _stored_4096()


def _trees_4096():
    return sorted({*REFERENCES_4096, *(r for refs in REFERENCES_4096.values() for r in refs)})


def test_4096_data_covers_the_trees_and_kernels(runs_4096):
    insee, ours = runs_4096
    for tree in _trees_4096():
        for kernel in INSEE_KERNELS_4096:
            assert ((tree, kernel, 1) in insee) != (kernel in NOT_RUN_4096.get(tree, [])), (tree, kernel)
        for kernel in WAVEFRONTS:
            assert ((tree, kernel, 1) in insee) == (kernel in INSEE_WAVEFRONTS_4096.get(tree, [])), (tree, kernel)
        for kernel in peer.KERNELS:
            assert (tree, kernel, 1) in ours, (tree, kernel)


@pytest.mark.parametrize("tree, kernel, seed", RERUN_4096)
def test_4096_stored_cycles_are_hpcnetsims(runs_4096, tree, kernel, seed):
    _, ours = runs_4096
    assert peer.ours(tree, kernel, seed, [], 4096) == ours[tree, kernel, seed]


#: the one run whose time moves from seed to seed by more than 10 %, in both simulators: a
#: seed's run in one does not correspond to the same seed's in the other
COMPLETE_TREE_BU = ("8:8,4", "bu")


def test_4096_each_kernel_takes_insees_time(runs_4096):
    """Every kernel INSEE ran, on every tree and seed, within 10 % of ours; but for BU on the
    complete 8:8,4-tree, compared as a spread
    (test_4096_complete_tree_bu_spreads_alike_in_both_simulators)."""
    insee, ours = runs_4096
    checked = 0
    for key, theirs in insee.items():
        if key[:2] != COMPLETE_TREE_BU:
            assert abs(ours[key] / theirs - 1) <= KERNEL_TOLERANCE_4096, (key, ours[key], theirs)
            checked += 1
    assert checked >= 40


def test_4096_complete_tree_bu_spreads_alike_in_both_simulators(runs_4096):
    """BU on the complete 8:8,4-tree is the run whose time moves most from seed to seed (two
    packets of a butterfly stage may choose the same up-port): over seeds 1-10 INSEE
    90 272-102 998 cycles (mean 96 994, sd 4 002), hpcnetsim 92 623-103 233 (mean 98 129, sd
    3 407). The simulators draw different random
    numbers, so one seed's runs do not correspond (seed 2: INSEE 91 299, ours 96 228): the two
    spreads compare, and their means differ by 1.2 %, 0.68 standard errors. About three times the contention-free 30 720
    in both (item C of docs/validation.md). INSEE's tie-break among equally empty up-ports,
    replayed (`routing.tie_break = "first-twice"`), gives ours 97 041-103 315 over seeds 1-5,
    mean 100 137 (uniform 97 616)."""
    insee, ours = runs_4096
    seeds = _complete_tree_bu_seeds(insee)
    assert len(seeds) >= 10
    theirs = [insee[(*COMPLETE_TREE_BU, s)] for s in seeds]
    mine = [ours[(*COMPLETE_TREE_BU, s)] for s in seeds]
    for runs in (theirs, mine):
        assert statistics.stdev(runs) / statistics.mean(runs) > 0.025, runs
    error = math.sqrt(statistics.variance(theirs) / len(seeds) + statistics.variance(mine) / len(seeds))
    assert abs(statistics.mean(mine) - statistics.mean(theirs)) < 2 * error, (theirs, mine)


def test_wavefront_ratios_agree_where_insee_ran_them(runs, runs_512, runs_4096):
    """What lets INSEE's φ at 4096 tasks borrow hpcnetsim's wavefront ratios: on every tree and
    seed where INSEE ran them (64 and 512 tasks, and 8:2,4 against 8:8,4 at 4096) a wavefront's
    time over its reference's is the same in both simulators to within 5 % for every seed, and
    to within 1.5 % on average over each table's runs."""
    checked, differences = [], []
    ran = INSEE_WAVEFRONTS_4096
    pairs_4096 = [(t, r, k) for t in ran for r in REFERENCES_4096.get(t, []) for k in ran[t] if k in ran.get(r, [])]
    assert pairs_4096, "no tree and reference of a 4096-task table with a wavefront of INSEE's on both"
    for (insee, ours), references in (
        (runs, dict.fromkeys(TREES, "8:8,2")),
        (runs_512, REFERENCE_512),
        (runs_4096, {t: r for t, r, _ in pairs_4096}),
    ):
        checked.append(0)
        differences.append([])
        for (tree, kernel, seed), theirs in insee.items():
            if kernel in WAVEFRONTS and tree in references and (references[tree], kernel, seed) in insee:
                reference = (references[tree], kernel, seed)
                mine = ours[tree, kernel, seed] / ours[reference]
                difference = mine / (theirs / insee[reference]) - 1
                assert abs(difference) <= WAVEFRONT_TOLERANCE, (tree, kernel, seed, difference)
                differences[-1].append(difference)
                checked[-1] += 1
        assert abs(statistics.mean(differences[-1])) <= WAVEFRONT_BIAS, differences[-1]
    assert checked[0] >= 2 * 5 * len(TREES) and checked[1] >= 2 * SEEDS_512 * len(REFERENCE_512)
    assert checked[2] == len(pairs_4096)


def _published_against(tree: str, reference: str) -> float:
    """The paper's φ of ``tree`` in the table normalized to ``reference`` (studies/thin-trees.toml)."""
    study = tomllib.loads((ROOT / "studies/thin-trees.toml").read_text())
    table = next(p for p in study["report"]["performance"] if p["reference"] == _spec(reference))
    return table["published"][_spec(tree)]["phi"]


def _phi_4096(runs_4096, tree, reference, seed=1):
    """INSEE's φ (the ratios of the kernels it did not run from hpcnetsim) and hpcnetsim's."""
    insee, ours = runs_4096
    return peer.borrowed_phi(insee, ours, tree, reference, seed, peer.KERNELS), peer.phi(
        ours, tree, reference, seed, peer.KERNELS
    )


#: the rows INSEE was run for, and on which side of the printed φ (beyond its 5 % tolerance)
#: INSEE's φ lies, as ours does
SIDE_4096 = {
    ("8:2,4", "8:8,4"): "below",
    ("8:4,4", "6:6,5"): "above",
    ("9:3,4", "6:6,5"): "above",
    ("10:2,4", "6:6,5"): "above",
    ("7:5,5", "6:6,5"): "above",
}
#: how far the wavefront ratios the printed φ would need must lie from ours, relative: five
#: times the most the two simulators' wavefront ratios differ where both ran them
WAVEFRONT_GAP = 5 * WAVEFRONT_TOLERANCE


@pytest.mark.parametrize("tree, reference", SIDE_4096)
def test_4096_insee_is_as_far_from_the_printed_phi_as_hpcnetsim(runs_4096, tree, reference):
    """INSEE's φ (its own times of 2m, 3m, bu, bt and wf, the wavefronts' ratios from
    hpcnetsim) lies outside the printed φ's tolerance on the same side as ours, and ours is
    within 5 % of it."""
    theirs, mine = _phi_4096(runs_4096, tree, reference)
    published = _published_against(tree, reference)
    assert abs(mine / theirs - 1) <= PHI_TOLERANCE_512, (mine, theirs)
    for phi in (theirs, mine):
        if SIDE_4096[tree, reference] == "above":
            assert phi > 1.05 * published, (phi, published)
        else:
            assert phi < 0.95 * published, (phi, published)


def _borrowing_4096():
    """The rows of SIDE_4096 whose φ in INSEE borrows a kernel's ratio from hpcnetsim."""
    insee, _ = _stored_4096()
    return [(t, r) for t, r in SIDE_4096 if any((t, k, 1) not in insee or (r, k, 1) not in insee for k in peer.KERNELS)]


@pytest.mark.parametrize("tree, reference", _borrowing_4096())
def test_4096_no_plausible_borrowed_time_gives_the_printed_phi(runs_4096, tree, reference):
    """What the borrowed ratios could change: the sum of the ratios of the kernels INSEE did not
    run (2w and 3w; also BU where INSEE's run would have taken hours) that would make INSEE's
    other kernels give the printed φ is far from ours, or negative: more than 5 times the most
    the two simulators differ on those kernels (wavefronts 5 % at 64 and 512 tasks, any other
    kernel 10 % at 4096)."""
    insee, ours = runs_4096
    ran = [k for k in peer.KERNELS if (tree, k, 1) in insee and (reference, k, 1) in insee]
    borrowed = [k for k in peer.KERNELS if k not in ran]
    assert borrowed and len(ran) >= 4, (tree, ran)
    measured = sum(insee[tree, k, 1] / insee[reference, k, 1] for k in ran)
    needed = len(peer.KERNELS) / _published_against(tree, reference) - measured
    theirs = sum(ours[tree, k, 1] / ours[reference, k, 1] for k in borrowed)
    gap = WAVEFRONT_GAP if set(borrowed) <= set(WAVEFRONTS) else 5 * KERNEL_TOLERANCE_4096
    assert abs(needed / theirs - 1) > gap, (needed, theirs)


def _complete_tree_bu_seeds(insee):
    """The seeds INSEE ran BU on the complete 8:8,4-tree with."""
    return sorted(s for (t, k, s) in insee if (t, k) == COMPLETE_TREE_BU)


def _mean_complete_tree_bu(times, seeds):
    return statistics.mean(times[(*COMPLETE_TREE_BU, s)] for s in seeds)


@pytest.mark.parametrize("tree", ["8:3,4", "8:4,4"])
def test_4096_table_4c_lies_at_the_tolerance_edge_in_both_simulators(runs_4096, tree):
    """Table 4(c)'s 8:3,4 and 8:4,4 (and their six Table 6(c) rows), seeds 1 and 2, with each
    simulator's time of the one run that moves from seed to seed, the reference's BU
    (test_4096_complete_tree_bu_spreads_alike_in_both_simulators), taken at its mean over the
    seeds INSEE ran: INSEE's φ is inside the printed one's 5 % tolerance (8:3,4 +4.2 %, 8:4,4
    +4.4 %), ours within 1.5 % of INSEE's (+4.9 %, +5.1 %), at the tolerance's edge.
    `validate`'s five seeds of ours (+5.7 %, +5.6 %) hold a reference BU of 98 593 cycles on
    average, ours over seeds 1-20 97 676. No difference of the two simulators' models shows in the
    runs they share."""
    insee, ours = runs_4096
    seeds = _complete_tree_bu_seeds(insee)
    reference, published = "8:8,4", _published_against(tree, "8:8,4")

    def at_mean(times):
        return {**times, **{(*COMPLETE_TREE_BU, s): _mean_complete_tree_bu(times, seeds) for s in (1, 2)}}

    theirs = statistics.mean(
        peer.borrowed_phi(at_mean(insee), ours, tree, reference, s, peer.KERNELS) for s in (1, 2)
    )
    mine = statistics.mean(peer.phi(at_mean(ours), tree, reference, s, peer.KERNELS) for s in (1, 2))
    assert abs(theirs / published - 1) <= 0.05, theirs
    assert abs(mine / theirs - 1) <= 0.015, (mine, theirs)


# ---- the thinnest trees at 4096 tasks: what no network model can run faster ----------------


@functools.cache
def _messages(kernel: str, tasks: int, mesh: tuple):
    return peer.messages(peer.programs(kernel, tasks, list(mesh) or None))


def _cut_bound(kernel: str, tree: str, tasks: int, mesh=None) -> float:
    """``insee_kernels.cut_bound``: cycles in which no simulator of this network can run
    ``kernel``, the phits its messages send across the tree's busiest cut, over its links."""
    return peer.cut_bound(tree, _messages(kernel, tasks, tuple(mesh or ())))


@functools.cache
def _all_runs():
    """Every stored run of both simulators at 64, 512 and 4096 tasks: (tasks, tree, kernel,
    seed) -> (INSEE's cycles or None, ours)."""
    runs = {}
    for tasks in (64, 512, 4096):
        insee, ours = peer.stored(ROOT / f"tests/data/insee/kernels-{tasks}.csv", tasks)
        for key, cycles in ours.items():
            runs[(tasks, *key)] = (insee.get(key), cycles)
    return runs


def test_no_run_beats_the_cut_bound():
    """Neither simulator runs any kernel on any tree faster than the links of its busiest cut
    can carry its phits (every stored run, 64 to 4096 tasks); the bound is reached by the kernels
    whose messages all cross one cut at once (BT's last stage)."""
    bounds, checked = {}, 0
    for (tasks, tree, kernel, _), times in _all_runs().items():
        key = (tasks, tree, kernel)
        if key not in bounds:
            bounds[key] = _cut_bound(kernel, tree, tasks, MESH_512 if tasks == 512 else None)
        for cycles in times:
            if cycles is not None:
                assert cycles >= bounds[key], (key, cycles, bounds[key])
                checked += 1
    assert checked >= 500
    assert bounds[4096, "8:1,4", "bu"] == 512 * 3 * 2560  # 512 tasks, 3 stages, 40 KB each


#: trees with one up-link per switch: every pair of terminals has one path, so routing and
#: selection play no part
SINGLE_UP_LINK = ("8:1,2", "11:1,3")
#: how many times the most INSEE and hpcnetsim differ on a kernel on those trees a borrowed
#: time may be off by (as WAVEFRONT_GAP and KERNEL_TOLERANCE_4096 in the tests above)
BORROWED_GAP = 5


def _single_up_link_disagreement():
    """Per kernel, the most ours and INSEE's cycles differ on a single-up-link tree, over every
    seed and task count both ran."""
    worst = {}
    for (_, tree, kernel, _), (theirs, mine) in _all_runs().items():
        if tree in SINGLE_UP_LINK and theirs is not None:
            worst[kernel] = max(worst.get(kernel, 0.0), abs(mine / theirs - 1))
    return worst


def test_single_up_link_trees_run_alike_in_both_simulators():
    """On 8:1,2 (64 tasks, seeds 1-5) and 11:1,3 (512 tasks, seeds 1-2) every kernel takes
    INSEE's time to within 3.7 % (wf at 64 tasks; BU 1.14 %, 3m 2.04 %, bt 0.05 %)."""
    worst = _single_up_link_disagreement()
    assert set(worst) == set(peer.KERNELS)
    assert max(worst.values()) < 0.04, worst


def _ratios_in_insees_favour(runs_4096, tree, reference, kernels):
    """Per kernel (seed 1), INSEE's time on ``tree`` over the reference's where it ran both, else
    hpcnetsim's ratio made faster by BORROWED_GAP times the most the two simulators differ on
    that kernel on single-up-link trees."""
    insee, ours = runs_4096
    worst = _single_up_link_disagreement()
    ratios = {}
    for kernel in kernels:
        key, ref = (tree, kernel, 1), (reference, kernel, 1)
        if key in insee and ref in insee:
            ratios[kernel] = insee[key] / insee[ref]
        else:
            ratios[kernel] = ours[key] / ours[ref] * (1 - BORROWED_GAP * worst[kernel])
    return ratios


def test_4096_the_8_1_4_tree_is_slower_than_the_printed_phi_allows(runs_4096):
    """Table 4(c)'s 8:1,4 (and its three Table 6(c) rows): INSEE ran 2m, 3m, bt and wf on it
    (seed 1, each within 1.3 % of ours); BU (4.7 million cycles, about 2.6 hours of INSEE) and
    the wavefronts were not run. Give INSEE every benefit: each kernel it did not run as
    hpcnetsim's ratio made faster by five times the most the two simulators differ on that
    kernel on single-up-link trees (BU no faster than its cut bound, which no simulator beats),
    the reference's times INSEE's. φ
    is still more than the 5 % tolerance below the printed one (at most 0.0550 against 0.0628);
    and INSEE's four kernels with BU at its cut bound alone sum to 117.9 reference times where
    the printed φ allows all seven 111.5. The printed value does not come from this network model
    and these programs."""
    insee, ours = runs_4096
    tree, reference = "8:1,4", "8:8,4"
    ratios = _ratios_in_insees_favour(runs_4096, tree, reference, peer.KERNELS)
    for kernel in peer.KERNELS:
        ref = (reference, kernel, 1)
        if (tree, kernel, 1) not in insee and ref in insee:  # no faster than its cut bound
            ratios[kernel] = max(ratios[kernel], _cut_bound(kernel, tree, 4096) / insee[ref])
    ran = [k for k in peer.KERNELS if (tree, k, 1) in insee]
    assert {"2m", "3m", "bt", "wf"} <= set(ran)
    best_phi = len(ratios) / sum(ratios.values())
    published = _published_against(tree, reference)
    assert best_phi < 0.95 * published, (best_phi, published, ratios)
    # Nothing borrowed: INSEE's own four kernels and BU's cut bound already take more reference
    # times than the printed φ allows all seven.
    floor = sum(ratios[k] for k in ran) + _cut_bound("bu", tree, 4096) / insee[reference, "bu", 1]
    assert floor > len(peer.KERNELS) / published, (floor, published)


def _published_slowdown(sweep: str):
    """Paper 000's "slowdowns of up to N" of ``sweep``: its `validate` quantity (published value,
    tolerance and reference; python/hpcnetsim/published/000.toml, the one home of the values)."""
    from hpcnetsim.studies import validate

    (q,) = [q for q in validate.load(["000"]) if q.args.get("sweep") == sweep and q.args.get("network") == "max"]
    return q


def test_4096_insees_largest_same_size_slowdown_is_above_the_printed_one(runs_4096):
    """§5.2's "a slow-down of up to 41" on the same-size trees (`validate --large`, explained):
    INSEE, on the same programs at 4096 tasks (seed 1), already exceeds it beyond the tolerance
    with the kernels it ran (3m on 8:1,4: 47.2 times the complete tree's time; BU on 8:1,4 it did
    not run), and hpcnetsim's ratio of the same kernel and tree is within 2 % of INSEE's."""
    insee, ours = runs_4096
    q = _published_slowdown("same-size-4096")
    # the row's reference (8:8,4) and the trees of the 4096-task tables normalized to it
    (reference,) = {r for refs in REFERENCES_4096.values() for r in refs if _spec(r) == q.args["reference"]}
    same_size = [tree for tree, refs in REFERENCES_4096.items() if reference in refs]
    ratios = {
        (tree, kernel): cycles / insee[reference, kernel, 1]
        for (tree, kernel, seed), cycles in insee.items()
        if seed == 1 and tree in same_size and (reference, kernel, 1) in insee
    }
    (tree, kernel), largest = max(ratios.items(), key=lambda item: item[1])
    assert largest > (1 + q.tolerance) * q.published, (tree, kernel, largest)
    theirs = ours[tree, kernel, 1] / ours[reference, kernel, 1]
    assert abs(theirs / largest - 1) < 0.02, (tree, kernel, theirs, largest)


#: INSEE's BU on 11:1,4, seed 1 (12.36 million cycles in hpcnetsim, about a day of INSEE): the
#: snapshots of the run taken before these data were stored (`insee_progress.py PID --kernel bu
#: --tasks 4096 --out ...`, every 10 minutes to cycle 981 318), which bound its end from below
PROGRESS_11_1_4 = ROOT / "tests/data/insee/progress-bu-11-1-4-4096.json"
#: hpcnetsim's runs of the same program on seeds 1-10 beside those snapshots (`insee_progress.py
#: --from tests/data/insee/progress-bu-11-1-4-4096.json --seeds 1-10 --out ...`)
SEEDS_11_1_4 = ROOT / "tests/data/insee/seeds-bu-11-1-4-4096.json"


def _needed_11_1_4(runs_4096):
    """INSEE's BU on 11:1,4 (cycles) at which its φ reaches the tolerance's edge (0.95 times the
    printed 0.0441), giving INSEE every benefit for the kernels it has not finished, as for 8:1,4
    (hpcnetsim's ratio made faster by five times the most the simulators differ on that kernel on
    single-up-link trees)."""
    insee, _ = runs_4096
    tree, reference = "11:1,4", "6:6,5"
    ratios = _ratios_in_insees_favour(runs_4096, tree, reference, [k for k in peer.KERNELS if k != "bu"])
    edge = 0.95 * _published_against(tree, reference)
    return (len(peer.KERNELS) / edge - sum(ratios.values())) * insee[reference, "bu", 1]


def test_4096_11_1_4_waits_for_insees_bu(runs_4096):
    """Table 5(c)'s 11:1,4, open: the one row no experiment decides yet. INSEE ran the kernels it
    finishes in hours on it (seed 1, each within 1.1 % of ours); its BU was still running, and the
    snapshots of it bound its end from below. With every benefit for the kernels it has not
    finished, INSEE's φ reaches the tolerance's edge with its BU at ``needed`` cycles. The bound
    lies below that, hpcnetsim's BU (its ratio times INSEE's reference BU) above it, so the row
    waits for the run: once it ends, or its bound passes ``needed``, this test fails and the
    verdict moves. (With bt, wf, 2m and 3m stored: needed 11.78 million cycles, the last
    snapshot's bound 10.65 million at cycle 981 318, hpcnetsim's 12.19 million.)"""
    insee, ours = runs_4096
    tree, reference = "11:1,4", "6:6,5"
    ran = [k for k in peer.KERNELS if (tree, k, 1) in insee]
    assert "bu" not in ran and {"bt", "wf"} <= set(ran)
    assert all(abs(ours[tree, k, 1] / insee[tree, k, 1] - 1) < 0.012 for k in ran)
    needed = _needed_11_1_4(runs_4096)
    run = progress.load(PROGRESS_11_1_4)
    assert (run["tree"], run["kernel"], run["tasks"], run["seed"]) == (tree, "bu", 4096, 1)
    lower = max(progress.bound(run, snap) for snap in run["snapshots"])
    hpc = ours[tree, "bu", 1] / ours[reference, "bu", 1] * insee[reference, "bu", 1]
    assert _cut_bound("bu", tree, 4096) < lower < needed < hpc, (lower, needed, hpc)


def test_4096_11_1_4_insees_bu_so_far_runs_as_hpcnetsims_seeds(runs_4096):
    """What INSEE's unfinished BU on 11:1,4 shows so far: to its last stored snapshot (cycle
    981 318 of about 12.4 million) it runs as one more of hpcnetsim's seeds. At every snapshot the
    decisive cut's idle time in INSEE lies between the least and the most of hpcnetsim's ten seeds
    at the same cycle, or less than progress.SEEDS_SLACK of the cycle from them, the rule INSEE's whole BU on
    11:1,3 at 512 tasks meets (its end among the seeds' ends: tests/test_insee_progress.py): inside
    at nine snapshots, and at cycle 608 076 INSEE's 275 975 idle cycles lie 0.31 % of the cycle below
    the seeds' 277 863-284 024. The ten seeds end within 0.5 %
    of each other, every one above the BU that the printed φ needs of INSEE with every benefit
    for the kernels it has not finished. Not a verdict: the seeds' idle times spread by up to
    15 % in mid-run before they meet at the end, and INSEE's own end is not stored yet."""
    _, ours = runs_4096
    compared = json.loads(SEEDS_11_1_4.read_text())
    run = progress.load(PROGRESS_11_1_4)
    level, subtree = progress.busiest_up_cut(run)
    assert (compared["level"], compared["subtree"]) == (level, subtree)
    assert compared["cycles"] == [snap["cycle"] for snap in run["snapshots"]]
    assert compared["insee_idle"] == [progress.idle(run, snap, level, subtree) for snap in run["snapshots"]]
    assert sorted(map(int, compared["hpcnetsim"])) == list(range(1, 11))
    # the stored comparison is hpcnetsim's: seed 1 again, its end the one kernels-4096.csv holds
    series, end = progress.hpcnetsim_cut(run, level, subtree, 1)
    assert end == compared["hpcnetsim"]["1"]["end"] == ours["11:1,4", "bu", 1]
    again = [progress.idle_at(series, c, progress.cut_links(run, level)) for c in compared["cycles"]]
    assert again == pytest.approx(compared["hpcnetsim"]["1"]["idle"], rel=1e-12)
    gaps = progress.outside_seeds(compared)
    assert max(gaps) < progress.SEEDS_SLACK, gaps
    ends = [r["end"] for r in compared["hpcnetsim"].values()]
    assert max(ends) < 1.005 * min(ends), ends
    assert min(ends) > _needed_11_1_4(runs_4096), (ends, _needed_11_1_4(runs_4096))
