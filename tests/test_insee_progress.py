"""benchmarks/peers/insee_progress.py: a lower bound on the end of an INSEE trace run that is
still going, from a snapshot of what each task has not sent yet (the cycle, plus the phits
left across the tree's busiest cut over its links).

tests/data/insee/progress-bu-11-1-3-512.json holds 21 snapshots taken every 15 s of INSEE's BU
on the 11:1,3-tree at 512 tasks, seed 1 (`insee_progress.py PID --kernel bu --tasks 512 --every
15 --out ...` beside `insee_kernels.py --tasks 512 --trees 11:1,3 --kernels bu --seeds 1`); the
run ended at 1 348 233 cycles, the time kernels-512.csv holds for it."""

import csv
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks/peers"))  # insee_progress.py imports the scripts beside it
_spec = importlib.util.spec_from_file_location("insee_progress", ROOT / "benchmarks/peers/insee_progress.py")
progress = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(progress)
kernels = importlib.import_module("insee_kernels")


def _insee_end(tree, kernel, tasks, seed):
    with open(ROOT / f"tests/data/insee/kernels-{tasks}.csv", newline="") as f:
        for row in csv.DictReader(f):
            if (row["tree"], row["kernel"], int(row["seed"])) == (tree, kernel, seed) and row["insee_cycles"]:
                return int(row["insee_cycles"])
    raise KeyError((tree, kernel, tasks, seed))


@pytest.fixture(scope="module")
def run_512():
    return progress.load(ROOT / "tests/data/insee/progress-bu-11-1-3-512.json")


def test_rest_keeps_the_end_of_each_program_and_shortens_the_head_send():
    p = progress.programs("bu", 4)  # per task: s, r with partner ^1, then s, r with partner ^2
    packets = progress.packets(40960)
    assert packets == 160
    left = [4, 3, 1, 0]
    rest = progress.rest(p, left, [10, 0, 0, 0])
    assert rest[0] == [("s", 1, (160 - 10) * 256), *p[0][1:]]
    assert rest[1] == p[1][1:]  # its head is a reception: nothing to shorten
    assert rest[2] == p[2][3:] and rest[3] == []


def test_an_untouched_program_is_bounded_by_its_cut_bound_and_a_finished_one_by_its_cycle():
    run = {"tree": "8:1,2", "kernel": "bu", "tasks": 64}
    p = progress.programs("bu", 64)
    whole = kernels.cut_bound("8:1,2", kernels.messages(p))
    start = {"cycle": 0, "events_left": [len(ops) for ops in p], "head_generated": [0] * 64}
    assert progress.bound(run, start) == whole == 8 * 3 * 2560  # 8 tasks a leaf, 3 stages leave it
    assert progress.bound(run, {"cycle": 5000, "events_left": [0] * 64, "head_generated": [0] * 64}) == 5000
    # a task half way through its first send: its 80 generated packets leave the bound
    half = dict(start, head_generated=[80] + [0] * 63)
    assert progress.bound(run, half) == whole  # task 0's first partner is in its own leaf
    # every task at the send of its fourth stage, the first that leaves its leaf, with 80 of its
    # 160 packets generated: the three crossing stages' 3 x 8 messages less 8 x 80 packets
    fourth = dict(start, cycle=7000, events_left=[len(ops) - 6 for ops in p], head_generated=[80] * 64)
    assert progress.bound(run, fourth) == 7000 + 2 * 8 * 2560 + 8 * 80 * 16


def test_the_bound_never_passes_the_end_of_the_run_and_closes_in_on_it(run_512):
    """Every snapshot of INSEE's BU on 11:1,3 bounds the run's end from below, the bound rises
    from near the program's cut bound (954 880 cycles) at the start to within 0.5 % of the end
    (1 348 233) in the last snapshot, and the snapshots are of one run (the cycle rises, no
    task's events left grow)."""
    assert (run_512["tree"], run_512["kernel"], run_512["tasks"], run_512["seed"]) == ("11:1,3", "bu", 512, 1)
    end = _insee_end("11:1,3", "bu", 512, 1)
    snaps = run_512["snapshots"]
    bounds = [progress.bound(run_512, s) for s in snaps]
    whole = kernels.cut_bound("11:1,3", kernels.messages(progress.programs("bu", 512)))
    assert len(snaps) >= 20
    assert all(b <= end for b in bounds), (bounds, end)
    assert bounds[0] >= whole and bounds[-1] > 0.995 * end, (bounds[0], whole, bounds[-1], end)
    for a, b in zip(snaps, snaps[1:]):
        assert a["cycle"] < b["cycle"]
        assert all(x >= y for x, y in zip(a["events_left"], b["events_left"]))


def test_bad_input_gets_one_line_and_exit_2():
    script = ROOT / "benchmarks/peers/insee_progress.py"
    for args, field in (
        (["1", "--kernel", "xx", "--tasks", "64"], "--kernel"),
        (["1", "--kernel", "bu", "--tasks", "63"], "--tasks"),
        (["999999999", "--kernel", "bu", "--tasks", "64"], "pid"),
        (["1", "--kernel", "bu", "--tasks", "64"], "pid"),  # not an INSEE run
    ):
        done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, cwd=script.parent)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(field), (args, lines)
