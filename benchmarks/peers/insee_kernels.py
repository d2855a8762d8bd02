"""Paper 000's seven application kernels on the 64-node thin-trees, in INSEE and hpcnetsim.

Usage (from this folder, with the project's .venv; INSEE built as README.md says):

    python insee_kernels.py /tmp/insee/fsin                       # 8:1,2 8:2,2 8:3,2 and 8:8,2, seeds 1-5
    python insee_kernels.py /tmp/insee/fsin --uplinks 1 8 --seeds 1 2
    python insee_kernels.py /tmp/insee/fsin -o routing.selection=most-credits

Paper 000 Table 4(a) prints φ of each 8:k',2 thin-tree: 7 / Σ over the kernels of the
kernel's execution time divided by the complete tree's (§6.1). Both simulators run the same
programs: the kernels of `workload/kernels.rs` (2w and 3w with the return sweep, 2m, 3m, bu,
bt with 40 KB messages, wf as 40 sweeps of 1 KB) written as INSEE text traces, one line per
send or receive in each task's order, on INSEE's `thintree_8_k'_2` (adaptive up-phase, 1 VC,
queues of 4 and injection queue of 8 packets, 16-phit packets of 16 bytes, consecutive
placement: insee-tree-bu.conf) and on hpcnetsim's `tree:k=8,kp=k',n=2` with the thin-trees
study's settings. It prints the cycles of every run, then φ per tree and seed and the mean
over seeds of both simulators.
"""

import argparse
import csv
import itertools
import os
import statistics
import sys

import hpcnetsim
from insee import PACKET_PHITS, PHIT_BYTES, insee_cycles, run_insee

KERNELS = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"]
TASKS = 64
MESSAGE_BYTES = 40960
WF_SWEEPS = 40


class Grid:
    """The virtual mesh of the wave-fronts and distributions, numbered along dimension 0 first."""

    def __init__(self, dims):
        self.dims = dims
        self.side = round(TASKS ** (1 / dims))
        assert self.side**dims == TASKS

    def neighbour(self, i, offset):
        coords = [(i // self.side**d) % self.side + offset[d] for d in range(self.dims)]
        if any(not 0 <= x < self.side for x in coords):
            return None
        return sum(x * self.side**d for d, x in enumerate(coords))

    def unit(self, d, step):
        return [step if e == d else 0 for e in range(self.dims)]


def programs(kernel):
    """Per task, its operations in order: ("s", to, bytes) or ("r", from, bytes)."""
    p = [[] for _ in range(TASKS)]

    def send(i, j, n):
        if j is not None:
            p[i].append(("s", j, n))

    def recv(i, j, n):
        if j is not None:
            p[i].append(("r", j, n))

    def sweep(g, n, step):
        for i in range(TASKS):
            for d in range(g.dims):
                recv(i, g.neighbour(i, g.unit(d, -step)), n)
            for d in range(g.dims):
                send(i, g.neighbour(i, g.unit(d, step)), n)

    stages = TASKS.bit_length() - 1
    if kernel == "bt":
        for t in range(stages):
            step = 1 << t
            for i in range(step, TASKS, 2 * step):
                send(i, i - step, MESSAGE_BYTES)
                recv(i - step, i, MESSAGE_BYTES)
    elif kernel == "bu":
        for t in range(stages):
            for i in range(TASKS):
                send(i, i ^ (1 << t), MESSAGE_BYTES)
                recv(i, i ^ (1 << t), MESSAGE_BYTES)
    elif kernel in ("2w", "3w"):
        g = Grid(2 if kernel == "2w" else 3)
        sweep(g, MESSAGE_BYTES, 1)
        sweep(g, MESSAGE_BYTES, -1)
    elif kernel == "wf":
        g = Grid(2)
        for _ in range(WF_SWEEPS):
            sweep(g, MESSAGE_BYTES // WF_SWEEPS, 1)
    else:  # 2m, 3m: send to every mesh neighbour, then receive from each
        g = Grid(2 if kernel == "2m" else 3)
        dirs = [g.unit(d, s) for d in range(g.dims) for s in (1, -1)]
        for i in range(TASKS):
            for d in dirs:
                send(i, g.neighbour(i, d), MESSAGE_BYTES)
            for d in dirs:
                recv(i, g.neighbour(i, [-x for x in d]), MESSAGE_BYTES)
    return p


def insee_trace(p):
    """INSEE's text trace: `s from to tag bytes` / `r from to tag bytes`, each task's lines in its
    order. INSEE matches a reception by (peer, tag, length), so the k-th message of a pair gets tag k
    on both sides, as MPI's non-overtaking order pairs them."""
    sent, received, lines = {}, {}, []
    for i, ops in enumerate(p):
        for op, peer, n in ops:
            if op == "s":
                tag = sent[i, peer] = sent.get((i, peer), -1) + 1
                lines.append(f"s {i} {peer} {tag} {n}")
            else:
                tag = received[peer, i] = received.get((peer, i), -1) + 1
                lines.append(f"r {peer} {i} {tag} {n}")
    assert sent == received, "every send has its receive"
    return "\n".join(lines) + "\n"


def ours(uplinks, kernel, seed, overrides):
    workload = {"kernel": kernel, "message_bytes": MESSAGE_BYTES, "placement": "linear", "tasks": TASKS}
    if kernel in ("2w", "3w"):
        workload["return_sweep"] = True
    if kernel == "wf":
        workload["burst_messages"] = WF_SWEEPS
    config = hpcnetsim.apply_overrides({
        "topology": f"tree:k=8,kp={uplinks},n=2",
        "seed": seed,
        "switch": {"vcs": 1, "queue_packets": 4, "injection_queue_packets": 8, "phit_bytes": PHIT_BYTES},
        "routing": {"algorithm": "tree-adaptive", "selection": "least-occupied"},
        "traffic": {"packet_phits": PACKET_PHITS},
        "workload": workload,
    }, overrides)
    return hpcnetsim.execute(config).execution_time_cycles


def phi(times, uplinks, seed):
    """7 / Σ_kernels T(tree) / T(complete tree), paper 000 §6.1 with unit weights."""
    return len(KERNELS) / sum(times[uplinks, k, seed] / times[8, k, seed] for k in KERNELS)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("insee", help="path of the INSEE binary (fsin)")
    a.add_argument("--uplinks", type=int, nargs="+", default=[1, 2, 3], choices=range(1, 8),
                   help="k' of the thin-trees besides the complete 8:8,2 (default: 1 2 3)")
    a.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5], help="seeds of both (default: 1-5)")
    a.add_argument("-o", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="override of hpcnetsim's configs, e.g. routing.selection=most-credits")
    a.add_argument("--csv", metavar="PATH", help="also write every run's cycles to PATH (the test data's form)")
    args = a.parse_args()
    if not os.access(args.insee, os.X_OK):
        print(f"insee = {args.insee!r} is invalid: the path of an executable INSEE (fsin) binary", file=sys.stderr)
        sys.exit(2)
    traces = {k: insee_trace(programs(k)) for k in KERNELS}
    trees = sorted(set(args.uplinks) | {8})
    insee, hpc = {}, {}
    print("| tree | kernel | seed | INSEE cycles | hpcnetsim cycles | hpcnetsim / INSEE |")
    print("|---|---|---|---|---|---|")
    for up, kernel, seed in itertools.product(trees, KERNELS, args.seeds):
        out = run_insee(args.insee, "insee-tree-bu.conf", {
            "topo": f"thintree_8_{up}_2", "tracefile": "k.trc", "rseed": seed},
            files=[("k.trc", traces[kernel])])
        insee[up, kernel, seed] = insee_cycles(out)
        hpc[up, kernel, seed] = ours(up, kernel, seed, args.overrides)
        print(f"| 8:{up},2 | {kernel} | {seed} | {insee[up, kernel, seed]} | {hpc[up, kernel, seed]} "
              f"| {hpc[up, kernel, seed] / insee[up, kernel, seed]:.3f} |", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["uplinks", "kernel", "seed", "insee_cycles", "hpcnetsim_cycles"])
            for (up, kernel, seed), cycles in insee.items():
                w.writerow([up, kernel, seed, cycles, hpc[up, kernel, seed]])
    print("\n| tree | INSEE φ per seed | INSEE mean | hpcnetsim φ per seed | hpcnetsim mean |")
    print("|---|---|---|---|---|")
    for up in args.uplinks:
        a_ = [phi(insee, up, s) for s in args.seeds]
        b_ = [phi(hpc, up, s) for s in args.seeds]
        print(f"| 8:{up},2 | {', '.join(f'{x:.4f}' for x in a_)} | {statistics.mean(a_):.4f} "
              f"| {', '.join(f'{x:.4f}' for x in b_)} | {statistics.mean(b_):.4f} |")


if __name__ == "__main__":
    main()
