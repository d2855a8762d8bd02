"""The same cases in INSEE (its network simulator, FSIN) and in hpcnetsim, side by side.

Usage (from this folder, with the project's .venv; INSEE built as README.md says):

    python insee.py /tmp/insee/fsin                  # the torus table (16 cases)
    python insee.py /tmp/insee/fsin --bu 64          # BU on the complete 8-ary 2-tree
    python insee.py /tmp/insee/fsin --bu 4096        # paper 000 at 4096 tasks (minutes)
    python insee.py /tmp/insee/fsin -o routing.selection=most-credits

Torus cases: 8x8 and 16x16 tori, INSEE's DOR (dateline, 2 VCs: `vc=dally rmode=trc`,
hpcnetsim `dor`) and bubble-adaptive (1 escape VC with bubble flow control and 2 adaptive
VCs: `vc=bubble rmode=shortest`, hpcnetsim `bubble-adaptive` with 3 VCs), uniform and
tornado traffic (and, with --patterns, bit-complement), a load below saturation and 1.0
(beyond). Each prints accepted load (phits/cycle/node) and mean latency (cycles from
generation to delivery) of both, and hpcnetsim / INSEE. The two simulators' tornado
patterns differ (README.md); bit-complement is the same permutation in both.

BU: the butterfly kernel of paper 000 (40 KB messages, linear placement) as an INSEE trace
and as hpcnetsim's `bu` kernel on `tree:k=8,n=N`, 1 VC, 16-byte phits; prints the execution
time in cycles of both and the contention-free time.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import hpcnetsim

HERE = os.path.dirname(os.path.abspath(__file__))

# (INSEE's name, INSEE's fields, hpcnetsim's routing algorithm, VCs)
ROUTINGS = [
    ("DOR", {"vc": "dally", "rmode": "trc"}, "dor", 2),
    ("bubble-adaptive", {"vc": "bubble", "rmode": "shortest"}, "bubble-adaptive", 3),
]
# Offered loads per (torus side, pattern): below saturation, beyond it.
LOADS = {
    (8, "uniform"): (0.3, 1.0),
    (16, "uniform"): (0.15, 1.0),
    (8, "tornado"): (0.1, 1.0),
    (16, "tornado"): (0.05, 1.0),
    (8, "bit-complement"): (0.2, 1.0),
    (16, "bit-complement"): (0.1, 1.0),
}
# hpcnetsim's pattern names in INSEE.
INSEE_PATTERNS = {"uniform": "uniform", "tornado": "tornado", "bit-complement": "complement"}
# The measurement of both: a warm-up, then 3 batches of 5000 cycles (insee-torus.conf).
MEASUREMENT = {
    "warmup_cycles": 4000,
    "window_cycles": 1000,
    "convergence_windows": 1,
    "batches": 3,
    "batch_cycles": 5000,
}
MESSAGE_BYTES = 40960
PACKET_PHITS = 16
PHIT_BYTES = 16


def run_insee(binary, conf, fields, files=()):
    """Runs INSEE in a scratch folder on `conf` with `fields` set on the command line."""
    with tempfile.TemporaryDirectory(prefix="insee-") as work:
        shutil.copy(os.path.join(HERE, conf), os.path.join(work, "fsin.conf"))
        for name, text in files:
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        args = [binary] + [f"{k}={v}" for k, v in fields.items()] + ["output=run"]
        done = subprocess.run(args, cwd=work, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"INSEE failed ({' '.join(args)}): {done.stdout[-400:]}{done.stderr[-400:]}")
    return done.stdout


def insee_averages(out):
    """Accepted load and mean delay from the AVG row of INSEE's batch table."""
    header = next(line for line in out.splitlines() if line.lstrip().startswith("#,"))
    names = [c.strip() for c in header.split(",")]
    row = next(line for line in out.splitlines() if line.startswith("AVG,"))
    values = dict(zip(names, (c.strip() for c in row.split(","))))
    return float(values["AccLoad"]), float(values["AvgDelay"])


def insee_cycles(out):
    """The simulated cycles of a trace run (INSEE's `Simulation clock` line)."""
    m = re.search(r"Simulation clock \(cycles/us\):\s+(\d+)", out)
    if not m:
        sys.exit("INSEE printed no simulation clock")
    return int(m.group(1))


def torus_config(side, algorithm, vcs, pattern, load, seed, overrides):
    config = {
        "topology": f"torus:{side}x{side}",
        "seed": seed,
        "switch": {"vcs": vcs},
        "routing": {"algorithm": algorithm},
        "traffic": {"pattern": pattern, "load": load, "packet_phits": PACKET_PHITS},
        "measurement": dict(MEASUREMENT),
    }
    return hpcnetsim.apply_overrides(config, overrides)


def torus_table(binary, sides, patterns, seed, overrides):
    print("| torus | routing | traffic | offered | INSEE accepted | hpcnetsim accepted | ratio "
          "| INSEE latency | hpcnetsim latency | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for side in sides:
        for name, fields, algorithm, vcs in ROUTINGS:
            for pattern in patterns:
                for load in LOADS[(side, pattern)]:
                    out = run_insee(binary, "insee-torus.conf", {
                        "topo": f"torus_{side}_{side}", "nchan": vcs, **fields,
                        "tpattern": INSEE_PATTERNS[pattern], "load": load, "rseed": seed})
                    i_acc, i_lat = insee_averages(out)
                    r = hpcnetsim.simulate(torus_config(side, algorithm, vcs, pattern, load, seed, overrides))
                    h_acc, h_lat = r.accepted_load, r.latency["end_to_end"]["mean"]
                    print(f"| {side}x{side} | {name} | {pattern} | {load} | {i_acc:.3f} | {h_acc:.3f} "
                          f"| {h_acc / i_acc:.2f} | {i_lat:.1f} | {h_lat:.1f} | {h_lat / i_lat:.2f} |",
                          flush=True)


def bu_trace(tasks):
    """BU in INSEE's text trace format: at stage t, task i sends to and receives from i ^ 2^t."""
    lines = []
    for i in range(tasks):
        for t in range(tasks.bit_length() - 1):
            lines.append(f"s {i} {i ^ (1 << t)} {t} {MESSAGE_BYTES}")
            lines.append(f"r {i ^ (1 << t)} {i} {t} {MESSAGE_BYTES}")
    return "\n".join(lines) + "\n"


def bu(binary, tasks, seeds, overrides):
    levels = {64: 2, 512: 3, 4096: 4}[tasks]
    stages = tasks.bit_length() - 1
    free = stages * -(-MESSAGE_BYTES // (PACKET_PHITS * PHIT_BYTES)) * PACKET_PHITS
    print("| tasks | seed | contention-free | INSEE | hpcnetsim | ratio | INSEE s | hpcnetsim s |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in seeds:
        start = time.time()
        out = run_insee(binary, "insee-tree-bu.conf", {
            "topo": f"fattree_8_{levels}", "tracefile": "bu.trc", "rseed": seed},
            files=[("bu.trc", bu_trace(tasks))])
        insee = insee_cycles(out)
        insee_s = time.time() - start
        config = hpcnetsim.apply_overrides({
            "topology": f"tree:k=8,n={levels}",
            "seed": seed,
            "switch": {"vcs": 1, "phit_bytes": PHIT_BYTES},
            "routing": {"algorithm": "tree-adaptive"},
            "traffic": {"packet_phits": PACKET_PHITS},
            "workload": {"kernel": "bu", "message_bytes": MESSAGE_BYTES, "placement": "linear"},
        }, overrides)
        start = time.time()
        ours = hpcnetsim.execute(config).execution_time_cycles
        ours_s = time.time() - start
        print(f"| {tasks} | {seed} | {free} | {insee} | {ours} | {ours / insee:.3f} "
              f"| {insee_s:.0f} | {ours_s:.0f} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("insee", help="path of the INSEE binary (fsin)")
    p.add_argument("--sides", type=int, nargs="+", default=[8, 16], choices=[8, 16],
                   help="torus sides (default: 8 16)")
    p.add_argument("--patterns", nargs="+", default=["uniform", "tornado"], choices=list(INSEE_PATTERNS),
                   help="traffic patterns (default: uniform tornado)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1],
                   help="seeds of both simulators (default: 1; the torus table uses the first)")
    p.add_argument("--bu", type=int, choices=[64, 512, 4096],
                   help="run BU on this many tasks instead of the torus table")
    p.add_argument("-o", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="override of hpcnetsim's configs, e.g. switch.injection_vcs=3")
    a = p.parse_args()
    try:
        if not os.access(a.insee, os.X_OK):
            raise hpcnetsim.ConfigError(f"insee = {a.insee!r} is invalid: the path of an executable INSEE (fsin) binary")
        if a.bu:
            bu(a.insee, a.bu, a.seeds, a.overrides)
        else:
            torus_table(a.insee, a.sides, a.patterns, a.seeds[0], a.overrides)
    except hpcnetsim.ConfigError as e:
        print(e, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
