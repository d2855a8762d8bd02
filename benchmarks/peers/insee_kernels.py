"""Paper 000's application kernels on its thin-trees, in INSEE and hpcnetsim.

Usage (from this folder, with the project's .venv; INSEE built as README.md says):

    python insee_kernels.py /tmp/insee/fsin                       # Table 4(a): 8:1,2 ... 8:7,2 against 8:8,2
    python insee_kernels.py /tmp/insee/fsin --trees 8:1,2 --seeds 1 2
    python insee_kernels.py /tmp/insee/fsin --tasks 512 --reference 6:6,4 --trees 11:1,3 10:2,3 9:3,3 8:4,3 7:5,4
    python insee_kernels.py /tmp/insee/fsin -o routing.selection=most-credits
    python insee_kernels.py /tmp/insee/fsin --tasks 4096 --reference 8:8,4 --trees 8:2,4 --kernels 3m bu --seeds 1
    python insee_kernels.py /tmp/insee/fsin --tasks 512 --reference 8:8,3 --trees 8:2,3 --mesh 32x16 --kernels 2w 2m wf
    python insee_kernels.py /tmp/insee/fsin --tasks 4096 --reference 6:6,5 --trees 9:3,4 --kernels 2w 3w --hpcnetsim-only

Paper 000 Tables 4 and 5 print φ of each thin-tree: the number of kernels over the sum of
each kernel's execution time divided by the reference tree's (§6.1). Both simulators run the
same programs: the kernels of `workload/kernels.rs` (2w and 3w with the return sweep, 2m, 3m,
bu, bt with 40 KB messages, wf as 40 sweeps of 1 KB; those the task count allows, as the
thin-trees study) written as INSEE text traces, one line per send or receive in each task's
order, on INSEE's `thintree_k_k'_n` (adaptive up-phase, 1 VC, queues of 4 and injection queue
of 8 packets, 16-phit packets of 16 bytes, consecutive placement: insee-tree-bu.conf) and on
hpcnetsim's `tree:k=k,kp=k',n=n` with the thin-trees study's settings, tasks on the first
terminals. It prints the cycles of every run beside its cut bound (the phits the kernel sends
across the tree's busiest cut, over its links: no simulator of the network runs it in fewer
cycles), then φ per tree and seed and the mean over seeds of both simulators.

With --hpcnetsim-only only hpcnetsim runs (INSEE's cycles are left empty in the CSV): at 4096
tasks the wavefronts 2w and 3w take 0.9-1.8 million cycles, hours of INSEE per run. φ of INSEE
then takes those kernels' ratios from hpcnetsim, and the output says so.
"""

import argparse
import csv
import itertools
import math
import os
import re
import statistics
import sys

import numpy as np

import hpcnetsim
from insee import PACKET_PHITS, PHIT_BYTES, insee_cycles, run_insee

KERNELS = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"]
#: the kernels on a 2D virtual mesh, whose sides --mesh may give
MESH_KERNELS = ("2w", "2m", "wf")
MESSAGE_BYTES = 40960
WF_SWEEPS = 40


class Grid:
    """The virtual mesh of the wave-fronts and distributions, numbered along dimension 0 first:
    square or cubic, or of the given sides (hpcnetsim's ``workload.mesh``)."""

    def __init__(self, tasks, dims, sides=None):
        self.dims = dims
        self.sides = list(sides) if sides else [round(tasks ** (1 / dims))] * dims
        if len(self.sides) != dims or math.prod(self.sides) != tasks:
            raise ValueError(f"{tasks} tasks are no {dims}D mesh" + (f" of sides {sides}" if sides else ""))

    def neighbour(self, i, offset):
        coords = []
        for side, o in zip(self.sides, offset):
            coords.append(i % side + o)
            i //= side
        if any(not 0 <= x < side for x, side in zip(coords, self.sides)):
            return None
        return sum(x * math.prod(self.sides[:d]) for d, x in enumerate(coords))

    def unit(self, d, step):
        return [step if e == d else 0 for e in range(self.dims)]


def kernels(tasks, mesh=None):
    """The kernels ``tasks`` tasks can run: 2w, 2m and wf need a square (or the 2D ``mesh``), 3w
    and 3m a cube, bu a power of two (the thin-trees study skips the others the same way)."""

    def fits(kernel):
        try:
            programs(kernel, tasks, mesh)
        except ValueError:
            return False
        return True

    return [k for k in KERNELS if fits(k)]


def programs(kernel, tasks, mesh=None):
    """Per task, its operations in order: ("s", to, bytes) or ("r", from, bytes); the 2D kernels
    on the sides ``mesh`` if given."""
    p = [[] for _ in range(tasks)]

    def send(i, j, n):
        if j is not None:
            p[i].append(("s", j, n))

    def recv(i, j, n):
        if j is not None:
            p[i].append(("r", j, n))

    def sweep(g, n, step):
        for i in range(tasks):
            for d in range(g.dims):
                recv(i, g.neighbour(i, g.unit(d, -step)), n)
            for d in range(g.dims):
                send(i, g.neighbour(i, g.unit(d, step)), n)

    stages = (tasks - 1).bit_length()
    if kernel == "bt":
        for t in range(stages):
            step = 1 << t
            for i in range(step, tasks, 2 * step):
                send(i, i - step, MESSAGE_BYTES)
                recv(i - step, i, MESSAGE_BYTES)
    elif kernel == "bu":
        if tasks & (tasks - 1):
            raise ValueError(f"{tasks} tasks are no power of two")
        for t in range(stages):
            for i in range(tasks):
                send(i, i ^ (1 << t), MESSAGE_BYTES)
                recv(i, i ^ (1 << t), MESSAGE_BYTES)
    elif kernel in ("2w", "3w"):
        g = Grid(tasks, 2, mesh) if kernel == "2w" else Grid(tasks, 3)
        sweep(g, MESSAGE_BYTES, 1)
        sweep(g, MESSAGE_BYTES, -1)
    elif kernel == "wf":
        g = Grid(tasks, 2, mesh)
        for _ in range(WF_SWEEPS):
            sweep(g, MESSAGE_BYTES // WF_SWEEPS, 1)
    else:  # 2m, 3m: send to every mesh neighbour, then receive from each
        g = Grid(tasks, 2, mesh) if kernel == "2m" else Grid(tasks, 3)
        dirs = [g.unit(d, s) for d in range(g.dims) for s in (1, -1)]
        for i in range(tasks):
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


def tree(name):
    """``k:k',n`` (the paper's name of a thin-tree) as (k, k', n)."""
    m = re.fullmatch(r"(\d+):(\d+),(\d+)", name)
    if not m or not 1 <= int(m[2]) <= int(m[1]):
        raise ValueError(f"tree = {name!r} is invalid: k:k',n with 1 <= k' <= k, e.g. 8:2,2")
    return int(m[1]), int(m[2]), int(m[3])


def insee_topology(name):
    k, kp, n = tree(name)
    return f"thintree_{k}_{kp}_{n}"


def config(name, kernel, seed, overrides, tasks=64, mesh=None):
    """hpcnetsim's config of ``kernel`` on the tree ``name`` with the thin-trees study's settings."""
    k, kp, n = tree(name)
    workload = {"kernel": kernel, "message_bytes": MESSAGE_BYTES, "placement": "linear", "tasks": tasks}
    if mesh and kernel in MESH_KERNELS:
        workload["mesh"] = list(mesh)
    if kernel in ("2w", "3w"):
        workload["return_sweep"] = True
    if kernel == "wf":
        workload["burst_messages"] = WF_SWEEPS
    return hpcnetsim.apply_overrides(
        {
            "topology": f"tree:k={k},kp={kp},n={n}",
            "seed": seed,
            "switch": {"vcs": 1, "queue_packets": 4, "injection_queue_packets": 8, "phit_bytes": PHIT_BYTES},
            "routing": {"algorithm": "tree-adaptive", "selection": "least-occupied"},
            "traffic": {"packet_phits": PACKET_PHITS},
            "workload": workload,
        },
        overrides,
    )


def ours(name, kernel, seed, overrides, tasks=64, mesh=None):
    """hpcnetsim's execution time of ``kernel`` on the tree ``name`` with the thin-trees study's settings."""
    return hpcnetsim.execute(config(name, kernel, seed, overrides, tasks, mesh), threads=1).execution_time_cycles


def packets(size):
    """The packets of a message of ``size`` bytes (INSEE's and hpcnetsim's)."""
    return -(-size // (PACKET_PHITS * PHIT_BYTES))


def messages(p):
    """Every message of the programs ``p`` (from ``programs``) as arrays: source, destination
    and phits."""
    sends = [(i, j, packets(size) * PACKET_PHITS) for i, ops in enumerate(p) for op, j, size in ops if op == "s"]
    return tuple(np.array(column) for column in zip(*sends))


def cut_loads(name, sends):
    """Per level l = 0..n-1 of the tree ``name``, tasks on the first terminals: the phits the
    messages ``sends`` (from ``messages``) carry out of and into each subtree of k^l terminals
    (l = 0: a terminal), as two arrays over the subtrees, and the k'^l links of each way."""
    k, kp, n = tree(name)
    src, dst, phits = sends
    loads = []
    for level in range(n):
        out, into = src // k**level, dst // k**level
        crossing = out != into
        ways = (np.bincount(side[crossing], weights=phits[crossing], minlength=k ** (n - level)) for side in (out, into))
        loads.append((*ways, kp**level))
    return loads


def cut_bound(name, sends):
    """Cycles in which no simulator of the tree ``name`` can run the messages ``sends`` (from
    ``messages``), tasks on the first terminals: the phits crossing its busiest cut, over its
    links. The cuts are the k'^l links out of, and the k'^l into, a subtree of k^l terminals (l = 0:
    a terminal's own link), each one phit per cycle and direction, whatever the routing,
    arbitration or order of the messages."""
    return max(max(out.max(), into.max()) / links for out, into, links in cut_loads(name, sends))


def phi(times, name, reference, seed, kernels):
    """len(kernels) / Σ_kernels T(tree) / T(reference), paper 000 §6.1 with unit weights."""
    return len(kernels) / sum(times[name, k, seed] / times[reference, k, seed] for k in kernels)


def mesh_sides(text):
    """``AxB`` as [A, B]."""
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or not int(m[1]) or not int(m[2]):
        raise argparse.ArgumentTypeError(f"mesh = {text!r} is invalid: two positive sides AxB, e.g. 32x16")
    return [int(m[1]), int(m[2])]


COLUMNS = ["tree", "tasks", "kernel", "seed", "insee_cycles", "hpcnetsim_cycles"]


def stored(path, tasks):
    """The runs of ``tasks`` tasks that a CSV written by ``--csv`` holds: INSEE's and ours by (tree, kernel, seed);
    a row of --hpcnetsim-only has no INSEE cycles."""
    insee, hpc = {}, {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if int(row["tasks"]) == tasks:
                    key = (row["tree"], row["kernel"], int(row["seed"]))
                    hpc[key] = int(row["hpcnetsim_cycles"])
                    if row["insee_cycles"]:
                        insee[key] = int(row["insee_cycles"])
    return insee, hpc


def borrowed_phi(insee, hpc, name, reference, seed, kernels):
    """INSEE's φ, a kernel's ratio taken from hpcnetsim where INSEE lacks the tree's or the
    reference's run of it (never one simulator's time over the other's)."""

    def ratio(kernel):
        tree, ref = (name, kernel, seed), (reference, kernel, seed)
        times = insee if tree in insee and ref in insee else hpc
        return times[tree] / times[ref]

    return len(kernels) / sum(ratio(k) for k in kernels)


def open_rows(path):
    """A CSV writer appending to ``path`` (the header first if the file is new), one flushed line per row."""
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    w = csv.writer(open(path, "a", newline="", buffering=1))
    if new:
        w.writerow(COLUMNS)
    return w


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("insee", help="path of the INSEE binary (fsin)")
    a.add_argument("--tasks", type=int, default=64, help="tasks, on the first terminals (default: 64)")
    a.add_argument("--reference", default="8:8,2", help="the tree φ is normalized to (default: 8:8,2)")
    a.add_argument(
        "--trees",
        nargs="+",
        default=[f"8:{u},2" for u in range(1, 8)],
        help="the thin-trees k:k',n (default: 8:1,2 ... 8:7,2)",
    )
    a.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5], help="seeds of both (default: 1-5)")
    a.add_argument(
        "-o",
        dest="overrides",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override of hpcnetsim's configs, e.g. routing.selection=most-credits",
    )
    a.add_argument(
        "--mesh",
        type=mesh_sides,
        metavar="AxB",
        help="sides of the 2D kernels' virtual mesh, dimension 0 first (e.g. 32x16 for 512 tasks; default: a square)",
    )
    a.add_argument(
        "--kernels",
        nargs="+",
        choices=KERNELS,
        help="only these kernels (default: every kernel the task count allows; φ is then over these)",
    )
    a.add_argument(
        "--hpcnetsim-only",
        action="store_true",
        help="run hpcnetsim alone (INSEE's cycles left empty; its φ then uses hpcnetsim's ratios for these runs)",
    )
    a.add_argument(
        "--csv",
        metavar="PATH",
        help="also write every run's cycles to PATH (the test data's form), a row as soon as it is run; "
        "the runs PATH already holds are read back, not run again",
    )
    args = a.parse_args()
    try:
        if not os.access(args.insee, os.X_OK):
            raise ValueError(f"insee = {args.insee!r} is invalid: the path of an executable INSEE (fsin) binary")
        names = list(dict.fromkeys([*args.trees, args.reference]))
        for name in names:
            tree(name)
        ks = kernels(args.tasks, args.mesh)
        if not ks:
            raise ValueError(f"--tasks = {args.tasks} is invalid: a square, a cube or a power of two")
        if args.kernels:
            if not set(args.kernels) <= set(ks):
                raise ValueError(f"--kernels = {' '.join(args.kernels)} is invalid: {args.tasks} tasks allow {' '.join(ks)}")
            ks = [k for k in ks if k in args.kernels]
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    # each kernel's programs once: INSEE's trace and the cut bound of every tree come from them
    traces, bounds = {}, {}
    for k in ks:
        p = programs(k, args.tasks, args.mesh)
        traces[k], sends = insee_trace(p), messages(p)
        bounds.update({(t, k): cut_bound(t, sends) for t in names})
    insee, hpc = stored(args.csv, args.tasks) if args.csv else ({}, {})
    rows = open_rows(args.csv) if args.csv else None
    print("| tree | kernel | seed | INSEE cycles | hpcnetsim cycles | hpcnetsim / INSEE | cut bound |")
    print("|---|---|---|---|---|---|---|")
    # seed by seed, so that an interrupted run leaves whole seeds behind
    for seed, name, kernel in itertools.product(args.seeds, names, ks):
        key = (name, kernel, seed)
        if key not in insee and not (args.hpcnetsim_only and key in hpc):
            if not args.hpcnetsim_only:
                out = run_insee(
                    args.insee,
                    "insee-tree-bu.conf",
                    {"topo": insee_topology(name), "tracefile": "k.trc", "rseed": seed},
                    files=[("k.trc", traces[kernel])],
                )
                insee[key] = insee_cycles(out)
            hpc[key] = ours(name, kernel, seed, args.overrides, args.tasks, args.mesh)
            if rows:
                rows.writerow([name, args.tasks, kernel, seed, insee.get(key, ""), hpc[key]])
        theirs = insee.get(key)
        print(
            f"| {name} | {kernel} | {seed} | {theirs or '(not run)'} | {hpc[key]} "
            f"| {f'{hpc[key] / theirs:.3f}' if theirs else ''} | {bounds[name, kernel]:.0f} |",
            flush=True,
        )
    lent = sorted({k for t in names for k in ks for s in args.seeds if (t, k, s) not in insee})
    if lent:
        print(f"\nINSEE's φ takes hpcnetsim's times of {', '.join(lent)} (--hpcnetsim-only).")
    print(f"\n| tree | INSEE φ per seed | INSEE mean | hpcnetsim φ per seed | hpcnetsim mean |  (against {args.reference})")
    print("|---|---|---|---|---|")
    for name in args.trees:
        if name == args.reference:
            continue
        a_ = [borrowed_phi(insee, hpc, name, args.reference, s, ks) for s in args.seeds]
        b_ = [phi(hpc, name, args.reference, s, ks) for s in args.seeds]
        print(
            f"| {name} | {', '.join(f'{x:.4f}' for x in a_)} | {statistics.mean(a_):.4f} "
            f"| {', '.join(f'{x:.4f}' for x in b_)} | {statistics.mean(b_):.4f} |"
        )


if __name__ == "__main__":
    main()
