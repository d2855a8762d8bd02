"""Helpers shared by the sweep tests: a slower tiny experiment and result comparison."""

import json
import time
from pathlib import Path

import hpcnetsim

def torus_sweep(name: str, batch_cycles: int, axes: str) -> str:
    """An experiment on the 4x4 torus with DOR whose points take as long as ``batch_cycles``
    makes them; ``axes`` are the sweep group's axis lines."""
    return f"""\
name = "{name}"
[base]
topology = "torus:4x4"
switch.vcs = 2
routing.algorithm = "dor"
[base.measurement]
warmup_cycles = 500
window_cycles = 200
convergence_tolerance = 0.5
max_convergence_cycles = 4000
batches = 2
batch_cycles = {batch_cycles}
[[sweep]]
{axes}
"""


#: 8 points of a few tenths of a second each: long enough to interrupt a sweep in the middle.
SLOW = torus_sweep("slow", 150000, "axes.traffic.load = [0.1, 0.2, 0.3, 0.4]\naxes.seed = [1, 2]")


def outcomes(out: Path) -> dict[str, dict]:
    """Stored results by key, without the one field that measures the machine (wall_seconds)."""
    df = hpcnetsim.results(out)
    done = {}
    for key, state, text in zip(df["key"], df["state"], df["result_json"]):
        assert state == "done", key
        result = json.loads(text)
        result.pop("wall_seconds")
        done[key] = result
    return done


def wait_for_files(folder: Path, count: int, timeout: float = 60) -> int:
    """Wait until ``folder`` holds at least ``count`` Parquet files; returns how many it holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        n = len([f for f in folder.glob("*.parquet") if not f.name.startswith(".")]) if folder.is_dir() else 0
        if n >= count:
            return n
        time.sleep(0.02)
    raise AssertionError(f"{folder}: fewer than {count} points stored after {timeout} s")
