"""A lower bound on the end of an INSEE trace run that is still going: read its state, bound the rest.

Usage (from this folder, with the project's .venv; INSEE built as README.md says, its
source beside the binary in src/):

    python insee_progress.py PID --kernel bu --tasks 4096
    python insee_progress.py PID --kernel bu --tasks 512 --every 30 --out run.json --hpcnetsim
    python insee_progress.py --from run.json --seeds 1-10 --out compared.json

PID is a running `fsin` of `insee_kernels.py` (its trace is that script's, tasks on the first
terminals). The script stops the process (SIGSTOP) for the fraction of a second it takes to
read out of /proc/PID/mem each task's queue of events still to do and the phits each switch
has sent up (INSEE's port counters), then lets it go on. What a task has not sent yet is a
suffix of its program: the packets of its send at the head of the queue INSEE has not
generated yet, and every later send. Those phits cross the tree's cuts after the snapshot's
cycle, each cut at most one phit per link per cycle and direction, and so do the phits the
program sends up out of a subtree that its up-links have not carried yet; so the run cannot
end before

    cycle + (the phits still to cross the busiest cut) / (its links),

whatever INSEE's routing, arbitration or order of messages does next (``cut_bound`` of
insee_kernels.py over the messages left, or the program's phits up a cut less those sent). It
rises as the run goes wherever the busiest cut idles. Each snapshot's bound is printed with the
cycles the busiest cut of the whole program has idled (and, with --hpcnetsim, how long it had
idled at the same cycle in hpcnetsim's run of the same program); --out keeps the snapshots
(JSON: tree, kernel, tasks, seed, and per snapshot the cycle, per task the events left and the
packets of its head event already generated, per level the phits each subtree has sent up),
which ``bound`` reads back.

``--from`` reads such a file instead of a running process, and ``--seeds`` (or --hpcnetsim, the
run's own seed) runs the program in hpcnetsim on each seed: beside INSEE's idle at each snapshot,
the least and most idle of hpcnetsim's seeds at the same cycle, the range of their ends, and at
how many snapshots and by how much INSEE lies outside that range, which says whether INSEE's run
so far is one more sample of what hpcnetsim does with other random draws. With --from, --out
keeps that comparison (JSON: the snapshots' cycles and INSEE's idle, per seed hpcnetsim's idle
at those cycles and its end).

The struct layout (INSEE's `router`, `port`, `event_n`) is read by compiling a few `offsetof`
lines against INSEE's own headers, so it is the layout of the binary's source and compiler.
"""

import argparse
import functools
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

import hpcnetsim
import numpy as np
from insee import PACKET_PHITS, PHIT_BYTES
from insee_kernels import KERNELS, config, cut_bound, cut_loads, messages, packets, programs, tree

LAYOUT_C = r"""
#include <stdio.h>
#include <stddef.h>
#include "globals.h"
int main(void) {
    printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\n", sizeof(router), offsetof(router, events),
           offsetof(event_n, next), offsetof(event_n, ev) + offsetof(event, type),
           offsetof(event_n, ev) + offsetof(event, pid), offsetof(event_n, ev) + offsetof(event, length),
           offsetof(event_n, ev) + offsetof(event, count), offsetof(router, p), offsetof(router, nborp),
           sizeof(port), offsetof(port, utilization));
    return 0;
}
"""
LAYOUT_FIELDS = ("router", "events", "next", "type", "pid", "length", "count", "ports", "nborp", "port", "moved")


def layout(source):
    """INSEE's struct sizes and offsets, from its headers in ``source``."""
    with tempfile.TemporaryDirectory(prefix="insee-layout-") as work:
        c, exe = os.path.join(work, "layout.c"), os.path.join(work, "layout")
        with open(c, "w") as f:
            f.write(LAYOUT_C)
        subprocess.run(["gcc", "-O2", "-w", "-fcommon", "-I", source, "-o", exe, c], check=True)
        values = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()
    return dict(zip(LAYOUT_FIELDS, map(int, values)))


def _symbols(binary):
    found = {}
    for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("network", "sim_clock"):
            found[parts[2]] = int(parts[0], 16)
    return found


def _stopped(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] == "T"


def snapshot(pid, tasks, name, where):
    """The cycle of the running INSEE ``pid``; per task, the events left in its queue and its head
    event (type, peer, packets, packets done); and per level l = 1..n-1 of the tree ``name``, the
    phits each subtree of k^l terminals has sent up so far. Read while it is stopped; ``where`` is
    ``layout``'s dict.

    The phits sent up come from INSEE's port counters, which count a phit moved from switch i to
    its neighbour at the port of i whose number is the neighbour's input port (perform_mov.c,
    `phit_moved`): a switch's up-links all end at the same port number of their upper switches,
    so that one counter of the switch holds every phit it sent up. (Its phits sent down are not
    separable the same way, so only the cuts' upward direction is read.)"""
    binary = os.readlink(f"/proc/{pid}/exe")
    syms = _symbols(binary)
    with open(f"/proc/{pid}/maps") as f:
        base = next(int(line.split("-")[0], 16) for line in f if line.rstrip().endswith(binary))
    os.kill(pid, signal.SIGSTOP)
    try:
        while not _stopped(pid):
            time.sleep(0.01)
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:

            def read(address, fmt="<q"):
                mem.seek(address)
                return struct.unpack(fmt, mem.read(struct.calcsize(fmt)))[0]

            cycle = read(base + syms["sim_clock"])
            network = read(base + syms["network"], "<Q")
            left, heads = [], []
            for i in range(tasks):
                node = read(network + i * where["router"] + where["events"], "<Q")
                heads.append(
                    (chr(read(node + where["type"], "<i")), read(node + where["pid"]), read(node + where["length"]),
                     read(node + where["count"])) if node else None
                )
                n = 0
                while node:
                    n += 1
                    node = read(node + where["next"], "<Q")
                left.append(n)
            k, kp, n = tree(name)
            first, sent_up = k**n, []
            for stage in range(n - 1):  # switches of stage s: k'^s k^(n-1-s), k'^s of them per subtree
                switches = kp**stage * k ** (n - 1 - stage)
                level = [0] * (switches // kp**stage)
                for r in range(switches):
                    at = network + (first + r) * where["router"]
                    port = read(read(at + where["nborp"], "<Q"))  # the upper switches' port number
                    level[r // kp**stage] += read(read(at + where["ports"], "<Q") + port * where["port"] + where["moved"])
                sent_up.append(level)
                first += switches
    finally:
        os.kill(pid, signal.SIGCONT)
    return cycle, left, heads, sent_up


def rest(p, left, head_generated):
    """What is left of the programs ``p``: each task's last ``left`` operations, its head send
    shortened by the packets INSEE has generated of it (``head_generated``)."""
    out = []
    for ops, n, done in zip(p, left, head_generated):
        tail = list(ops[len(ops) - n :]) if n else []
        if tail and tail[0][0] == "s" and done:
            op, peer, size = tail[0]
            tail[0] = (op, peer, (packets(size) - done) * PACKET_PHITS * PHIT_BYTES)
        out.append(tail)
    return out


def check(p, left, heads):
    """That each task's queue is the end of its program in ``p``: the head event is the operation
    its count of events left points at (a trace other than insee_kernels.py's, or a wrong struct
    layout, fails here)."""
    for i, (ops, n, head) in enumerate(zip(p, left, heads)):
        if n > len(ops) or (n == 0) != (head is None):
            raise ValueError(f"task {i}: {n} events left of a program of {len(ops)}")
        if head:
            op, peer, size = ops[len(ops) - n]
            if (head[0], head[1], head[2]) != (op, peer, packets(size)):
                raise ValueError(f"task {i}: INSEE's head event {head[:3]} is not its program's {(op, peer, packets(size))}")


@functools.cache
def up_totals(name, kernel, tasks):
    """Per level l = 1..n-1, the phits the whole program sends up out of each subtree of k^l
    terminals, and the links that carry them (k'^l)."""
    loads = cut_loads(name, messages(programs(kernel, tasks)))
    return [(out, links) for out, _, links in loads[1:]]


def busiest_up_cut(run):
    """(level, subtree) of the cut whose upward links the whole program loads most."""
    totals = up_totals(run["tree"], run["kernel"], run["tasks"])
    _, level, subtree = max((total.max() / links, level, int(total.argmax())) for level, (total, links) in enumerate(totals, 1))
    return level, subtree


def cut_links(run, level):
    """The up-links of one subtree of level ``level`` of the run's tree (k'^level)."""
    return tree(run["tree"])[1] ** level


def idle(run, snap, level, subtree):
    """The cycles the upward links of a cut have idled by the snapshot: its cycle less the phits
    sent up so far over the links."""
    return snap["cycle"] - snap["sent_up"][level - 1][subtree] / cut_links(run, level)


def bound(run, snap):
    """The lower bound on the end of ``run`` (the dict --out writes) from one of its snapshots:
    the cycle plus the phits still to cross the busiest cut over its links, from what the tasks
    have not sent yet and, where the snapshot has them, from the phits the subtrees have sent up
    (the tighter: phits waiting in queues have been sent but not carried)."""
    p = rest(programs(run["kernel"], run["tasks"]), snap["events_left"], snap["head_generated"])
    left = cut_bound(run["tree"], messages(p)) if any(op == "s" for ops in p for op, _, _ in ops) else 0.0
    if "sent_up" in snap:
        for (total, links), sent in zip(up_totals(run["tree"], run["kernel"], run["tasks"]), snap["sent_up"]):
            left = max(left, float(((total - np.array(sent)) / links).max()))
    return snap["cycle"] + left


#: cycles per interval of hpcnetsim's link utilisation series (--hpcnetsim)
INTERVAL = 10_000


def hpcnetsim_cut(run, level, subtree, seed=None):
    """hpcnetsim's run of the same program (the run's seed, or ``seed``): the phits the subtree
    sends up per interval of INTERVAL cycles (its link utilisation series on the subtree's
    up-links), and the cycle the program ends."""
    k, _, n = tree(run["tree"])
    cfg = config(run["tree"], run["kernel"], run["seed"] if seed is None else seed, [], run["tasks"])
    cfg["stats"] = {"link_utilisation": True, "interval_cycles": INTERVAL}
    t = hpcnetsim.Topology.from_spec(cfg["topology"])

    def ups(s):
        """The up-links of switch s: (its port, the switch above)."""
        return [(i, peer[1]) for i, peer in enumerate(t.ports(s))
                if peer and peer[0] == "switch" and t.switch_level(peer[1]) > t.switch_level(s)]  # fmt: skip

    # the switches of tree level level-1 above the subtree's terminals, and their up-links
    switches = {s for term, s, _ in t.terminal_links() if term // k**level == subtree}
    for _ in range(level - 1):
        switches = {above for s in switches for _, above in ups(s)}
    offsets = t.port_offsets()
    up = {offsets[s] + i for s in switches for i, _ in ups(s)}
    result = hpcnetsim.execute(cfg, threads=1)
    frame = result.tables["link_utilisation"]
    series = frame[frame.channel.isin(up)].groupby("interval_start")["busy_phits"].sum()
    out = np.zeros(int(series.index.max()) // INTERVAL + 1)
    out[(series.index // INTERVAL).astype(int)] = series.to_numpy()
    return out, result.execution_time_cycles


def hpcnetsim_seeds(run, seeds):
    """hpcnetsim's runs of the run's program on each of ``seeds``: per seed, hpcnetsim_cut's series
    of the busiest cut and the cycle the program ends."""
    level, subtree = busiest_up_cut(run)
    return {seed: hpcnetsim_cut(run, level, subtree, seed) for seed in seeds}


def hpcnetsim_idles(run, runs, cycle):
    """Per run of ``hpcnetsim_seeds``, how long the busiest cut had idled by ``cycle``."""
    links = cut_links(run, busiest_up_cut(run)[0])
    return [idle_at(series, cycle, links) for series, _ in runs.values()]


def seeds_against(run, runs):
    """INSEE's snapshots of ``run`` beside hpcnetsim's ``runs`` (``hpcnetsim_seeds``) of the same
    program: per snapshot its cycle and how long the busiest cut had idled in INSEE, and per seed
    how long it had idled in hpcnetsim at the same cycles and the cycle the program ends (the
    JSON ``--from ... --out`` writes)."""
    level, subtree = busiest_up_cut(run)
    cycles = [snap["cycle"] for snap in run["snapshots"]]
    out = {key: run[key] for key in ("tree", "kernel", "tasks", "seed")}
    out |= {"level": level, "subtree": subtree, "cycles": cycles}
    out["insee_idle"] = [idle(run, snap, level, subtree) for snap in run["snapshots"]]
    links = cut_links(run, level)
    out["hpcnetsim"] = {
        str(seed): {"end": end, "idle": [idle_at(series, c, links) for c in cycles]} for seed, (series, end) in runs.items()
    }
    return out


#: How far outside hpcnetsim's seeds INSEE's idle may lie, as a fraction of the cycle, for its
#: run to count as one more of them (measured on 11:1,3 at 512 tasks, whose end is known,
#: against seeds 1-10: outside at 5 of 24 snapshots, by at most 0.47 %; before the canonical
#: order of a cycle's events redrew hpcnetsim's runs, at 3, by at most 0.30 %). The seeds' own
#: idle times spread by up to 13 % in mid-run.
SEEDS_SLACK = 0.005


def outside_seeds(compared):
    """Per snapshot of ``seeds_against``'s comparison, how far INSEE's idle lies outside the least
    and most idle of hpcnetsim's seeds at the same cycle, as a fraction of the cycle (0 inside)."""
    runs = compared["hpcnetsim"].values()
    gaps = []
    for i, (cycle, theirs) in enumerate(zip(compared["cycles"], compared["insee_idle"])):
        idles = [r["idle"][i] for r in runs]
        gaps.append(max(min(idles) - theirs, theirs - max(idles), 0.0) / cycle)
    return gaps


def parse_seeds(text):
    """``1-10`` or ``1,2,5``: the seeds, in order."""
    try:
        seeds = []
        for part in text.split(","):
            first, _, last = part.partition("-")
            seeds += range(int(first), int(last or first) + 1)
        if not seeds or min(seeds) < 1:
            raise ValueError
    except ValueError:
        raise ValueError(f"--seeds = {text!r} is invalid: a list of seeds from 1, as 1-10 or 1,2,5") from None
    return seeds


def sent_by(series, cycle):
    """Phits of a per-INTERVAL series sent by ``cycle`` (the interval it falls in pro rata)."""
    whole, part = divmod(cycle, INTERVAL)
    return series[:whole].sum() + (series[whole] * part / INTERVAL if whole < len(series) else 0.0)


def idle_at(series, cycle, links):
    """The cycles a cut of ``links`` links had idled by ``cycle`` in hpcnetsim's run whose phits
    up the cut are ``series`` (``hpcnetsim_cut``)."""
    return cycle - sent_by(series, cycle) / links


def load(path):
    """A run's snapshots as --out writes them."""
    with open(path) as f:
        return json.load(f)


def run_of(pid):
    """The tree (k:k',n) and seed of the INSEE run ``pid``, from its command line (INSEE splits
    ``topo=thintree_k_k'_n`` into words in place)."""
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        words = f.read().replace(b"\0", b" ").decode().split()
    try:
        t = words.index("topo")
        if words[t + 1] != "thintree":
            raise ValueError
        k, kp, n = (int(w) for w in words[t + 2 : t + 5])
        return f"{k}:{kp},{n}", int(words[words.index("rseed") + 1])
    except (ValueError, IndexError):
        raise ValueError(f"pid = {pid} is invalid: not an INSEE run on a thin-tree ({' '.join(words)[:60]})") from None


def _stored(path):
    """The snapshots ``--out`` kept of a run, checked for what the table needs."""
    try:
        run = load(path)
        if not (isinstance(run, dict) and run.get("kernel") in KERNELS and run.get("snapshots")):
            raise ValueError
        programs(run["kernel"], run["tasks"])
        tree(run["tree"])
        int(run["seed"])
        fields = {"cycle", "events_left", "head_generated", "sent_up"}
        if not all(isinstance(snap, dict) and fields <= snap.keys() for snap in run["snapshots"]):
            raise ValueError(f"a snapshot without one of {', '.join(sorted(fields))}")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"--from = {path} is invalid: not the snapshots insee_progress.py --out keeps ({e or 'no snapshots'})") from None
    return run


def _write_json(path, obj):
    """Write ``obj`` to ``path`` whole or not at all (through ``path.part``), so a reader never
    sees half a file."""
    with open(path + ".part", "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    os.replace(path + ".part", path)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("pid", type=int, nargs="?", help="process id of the running fsin (of insee_kernels.py)")
    a.add_argument("--kernel", help=f"the kernel of its trace: {' '.join(KERNELS)}")
    a.add_argument("--tasks", type=int, help="tasks of the trace")
    a.add_argument("--every", type=float, default=0, help="seconds between snapshots until the run ends (default: one)")
    a.add_argument("--out", metavar="PATH", help="keep the snapshots in PATH (JSON, rewritten after each); with --from, the comparison with --seeds")
    a.add_argument(
        "--hpcnetsim",
        action="store_true",
        help="also run the same program in hpcnetsim and print how long its busiest cut had idled at each snapshot's cycle",
    )
    a.add_argument("--seeds", metavar="LIST", help="as --hpcnetsim, on each of these seeds (1-10, 1,2,5): the least and most idle")
    a.add_argument("--from", dest="stored", metavar="PATH", help="the snapshots --out kept of a run, instead of a running process")
    args = a.parse_args()
    try:
        seeds = parse_seeds(args.seeds) if args.seeds is not None else None
        if args.stored is not None:
            if args.pid is not None or args.kernel or args.tasks is not None or args.every:
                raise ValueError(f"--from = {args.stored} is invalid with a pid, --kernel, --tasks or --every: the file names the run")
            if args.out and not (seeds or args.hpcnetsim):
                raise ValueError(f"--out = {args.out} is invalid with --from alone: it keeps the comparison with --seeds or --hpcnetsim")
            run = _stored(args.stored)
        else:
            if args.pid is None:
                raise ValueError("pid is missing: the process id of a running fsin, or --from PATH")
            if args.kernel not in KERNELS:
                raise ValueError(f"--kernel = {args.kernel!r} is invalid: one of {' '.join(KERNELS)}")
            if args.tasks is None:
                raise ValueError("--tasks is missing: the tasks of the run's trace")
            try:
                p = programs(args.kernel, args.tasks)
            except ValueError as e:
                raise ValueError(f"--tasks = {args.tasks} is invalid for {args.kernel}: {e}") from None
            if not os.path.exists(f"/proc/{args.pid}"):
                raise ValueError(f"pid = {args.pid} is invalid: no such process")
            name, seed = run_of(args.pid)
            binary = os.readlink(f"/proc/{args.pid}/exe")
            if set(_symbols(binary)) != {"network", "sim_clock"}:
                raise ValueError(f"pid = {args.pid} is invalid: {binary} is not an INSEE binary with its symbols")
            source = os.path.join(os.path.dirname(binary), "src")
            if not os.path.isfile(os.path.join(source, "globals.h")):
                raise ValueError(f"pid = {args.pid}: INSEE's source is not beside its binary ({source}/globals.h)")
            run = {"tree": name, "kernel": args.kernel, "tasks": args.tasks, "seed": seed, "snapshots": []}
    except (ValueError, OSError, subprocess.CalledProcessError) as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    if seeds is None and args.hpcnetsim:
        seeds = [run["seed"]]
    level, subtree = busiest_up_cut(run)
    runs = hpcnetsim_seeds(run, seeds) if seeds else {}

    def cell(cycle):
        """The table's hpcnetsim cell: one seed's idle, or the least and most over the seeds."""
        idles = hpcnetsim_idles(run, runs, cycle)
        return f" {idles[0]:.0f} |" if len(idles) == 1 else f" {min(idles):.0f}-{max(idles):.0f} |"

    def head():
        column = "" if not seeds else " hpcnetsim idle |" if len(seeds) == 1 else f" hpcnetsim idle, seeds {args.seeds} |"
        print(f"INSEE {run['kernel']} on {run['tree']}, {run['tasks']} tasks, seed {run['seed']}")
        print(f"busiest cut: the up-links of subtree {subtree} of level {level}; idle = cycles it carried nothing")
        print(f"| cycle | bound on the end | idle |{column}")
        print(f"|---|---|---|{'---|' if seeds else ''}")

    def row(snap):
        line = f"| {snap['cycle']} | {bound(run, snap):.0f} | {idle(run, snap, level, subtree):.0f} |"
        print(line + (cell(snap["cycle"]) if seeds else ""), flush=True)

    if args.stored is not None:
        head()
        for snap in run["snapshots"]:
            row(snap)
        if seeds:
            compared = seeds_against(run, runs)
            ends = [r["end"] for r in compared["hpcnetsim"].values()]
            gaps = outside_seeds(compared)
            print(f"hpcnetsim's end, seed{'s' if len(ends) > 1 else ''} {args.seeds or run['seed']}: {min(ends)}-{max(ends)} cycles")
            print(f"INSEE's idle outside hpcnetsim's at {sum(g > 0 for g in gaps)} of {len(gaps)} snapshots, by at most {max(gaps):.2%} of the cycle")
            if args.out:
                _write_json(args.out, compared)
        return
    where = layout(source)
    while os.path.exists(f"/proc/{args.pid}"):
        cycle, left, heads, sent_up = snapshot(args.pid, args.tasks, name, where)
        try:
            check(p, left, heads)
        except ValueError as e:  # the run is not of --kernel on --tasks tasks
            print(f"--kernel/--tasks: pid {args.pid} does not run {args.kernel} on {args.tasks} tasks: {e}", file=sys.stderr)
            sys.exit(2)
        generated = [h[3] if h and h[0] == "s" else 0 for h in heads]
        snap = {"cycle": cycle, "events_left": left, "head_generated": generated, "sent_up": sent_up}
        if not run["snapshots"]:  # the first snapshot matched the programs: the table's head
            head()
        run["snapshots"].append(snap)
        row(snap)
        if args.out:
            _write_json(args.out, run)
        if not args.every:
            break
        time.sleep(args.every)


if __name__ == "__main__":
    main()
