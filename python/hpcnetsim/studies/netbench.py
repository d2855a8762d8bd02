"""Network microbenchmarks (paper 004 §4): ping latency and bandwidth, bidirectional ping,
read and write hot spots, total exchange against its lower bound (eq. 1), barriers, uniform
and permutation traffic under contention, and the one-switch vs three-switch latency.

Each benchmark builds task programs (:class:`hpcnetsim.Program`), runs them on the causal
engine with the config's NIC model and returns a pandas DataFrame whose columns carry their
unit in the name (``latency_us``, ``bandwidth_mb_s``). The network is deterministic without
contention, so one round of each message is exact.
"""

from __future__ import annotations

import math
import random
from typing import Any

from .._core import ConfigError
from ..config import as_integer, load_config, to_json
from ..program import Program
from ..topology import Topology
from ..units import physical

BENCHMARKS = ("ping", "bidirectional", "hotspot", "exchange", "barrier", "contention", "hops")

#: Message sizes of the ping curves: 0 B, then powers of two up to 1 MiB.
PING_SIZES = [0, *(1 << i for i in range(0, 21))]


def _setup(config) -> tuple[dict[str, Any], dict[str, Any], int]:
    """The checked config without its workload, its clock, and its number of nodes: endpoints,
    which a placement numbers (a multi-plane network has a terminal per endpoint and plane)."""
    cfg = load_config(config)
    cfg.pop("workload", None)
    clock = physical(to_json(cfg))
    n = Topology.from_spec(cfg["topology"]).num_endpoints
    if n < 2:
        raise ConfigError(
            f"topology = {cfg['topology']!r} is invalid: a network of at least 2 nodes for a benchmark"
        )
    return cfg, clock, n


#: Largest message a microbenchmark takes: larger ones are simulated packet by packet for hours.
MAX_BYTES = 1 << 30


def _whole(bench: str, name: str, value, low: int, high: int, what: str) -> int:
    """``value`` as a whole number in ``low..=high``, or a one-line error naming the benchmark,
    the argument and what it takes (a count below the range ran as an empty program, which
    failed with "no MPI call to replay")."""
    v = as_integer(value)
    if v is None or not low <= v <= high:
        raise ConfigError(f"{bench}: {name} = {value!r} is invalid: {what} from {low} to {high}")
    return v


def _sizes(bench: str, sizes, default: list[int]) -> list[int]:
    """The message sizes of a curve: ``default`` when none, else whole byte counts."""
    if sizes is None:
        return default
    if not len(sizes):
        raise ConfigError(f"{bench}: sizes = [] is invalid: at least one message size (None: the defaults)")
    return [_whole(bench, "sizes", s, 0, MAX_BYTES, "message sizes in bytes") for s in sizes]


def _ends(bench: str, topology: str, src: int, dst: int | None, n: int) -> tuple[int, int]:
    """The two endpoints of a two-node benchmark: ``dst`` the farthest when not given."""
    src = _whole(bench, "src", src, 0, n - 1, "an endpoint")
    if dst is None:
        return src, far_terminal(topology, src)
    dst = _whole(bench, "dst", dst, 0, n - 1, "an endpoint")
    if dst == src:
        raise ConfigError(f"{bench}: dst = {dst} is invalid: an endpoint other than src = {src}")
    return src, dst


def _node_bytes_per_s(cfg: dict, clock: dict) -> float:
    """What a node can send per second: its NIC's payload rate (the link's without the NIC
    model), once per plane, since a node has a NIC port on every plane of the network."""
    planes = Topology.from_spec(cfg["topology"]).planes
    return planes * (clock["nic_bytes_per_s"] or clock["link_bytes_per_s"])


def _run(cfg: dict, program: Program, terminals: list[int]) -> float:
    """Execution time in ns of ``program`` with rank i on terminal ``terminals[i]``."""
    run = {**cfg, "workload": {"placement": "list", "placement_list": terminals}}
    r = program.run(run)
    if r.status != "completed":
        raise ConfigError(f"benchmark did not complete: {r.message}")
    return r.execution_time_cycles * physical(to_json(run))["cycle_ns"]


def far_terminal(topology: str, src: int = 0) -> int:
    """The endpoint farthest from endpoint ``src`` (the highest index among them). Endpoints
    are the terminals of the first plane, so distances are those within a plane."""
    t = Topology.from_spec(topology)
    best = max(range(t.num_endpoints), key=lambda d: (t.distance(src, d) if d != src else -1, d))
    return best


def ping(config, sizes=None, src: int = 0, dst: int | None = None):
    """Unidirectional ping-pong of every size: one-way latency (half the round trip) and
    bandwidth (size over one-way time)."""
    import pandas

    cfg, _, n = _setup(config)
    src, dst = _ends("ping", cfg["topology"], src, dst, n)
    rows = []
    for size in _sizes("ping", sizes, PING_SIZES):
        p = Program(2)
        p.send(0, 1, size).recv(1, 0, size).send(1, 0, size).recv(0, 1, size)
        one_way = _run(cfg, p, [src, dst]) / 2
        rows.append({"size_bytes": size, "latency_us": one_way / 1e3,
                     "bandwidth_mb_s": size / one_way * 1e3 if size else 0.0})  # fmt: skip
    return pandas.DataFrame(rows)


def half_power_point(frame) -> float:
    """N½: the message size at which the bandwidth reaches half its largest value
    (interpolated on a log scale between the measured sizes)."""
    peak = frame["bandwidth_mb_s"].max()
    pts = [(s, b) for s, b in zip(frame["size_bytes"], frame["bandwidth_mb_s"]) if s > 0]
    for (s0, b0), (s1, b1) in zip(pts, pts[1:]):
        if b0 < peak / 2 <= b1:
            f = (peak / 2 - b0) / (b1 - b0)
            return math.exp(math.log(s0) + f * (math.log(s1) - math.log(s0)))
    return math.nan


def bidirectional(config, sizes=None, src: int = 0, dst: int | None = None):
    """Both ends send at once: per-direction bandwidth and the time of one exchange."""
    import pandas

    cfg, _, n = _setup(config)
    src, dst = _ends("bidirectional", cfg["topology"], src, dst, n)
    rows = []
    for size in _sizes("bidirectional", sizes, PING_SIZES):
        p = Program(2)
        p.send(0, 1, size).send(1, 0, size).recv(0, 1, size).recv(1, 0, size)
        t = _run(cfg, p, [src, dst])
        rows.append({"size_bytes": size, "latency_us": t / 1e3, "bandwidth_mb_s": size / t * 1e3 if size else 0.0})
    return pandas.DataFrame(rows)


def hotspot(config, size: int = 65536, processes=None, kind: str = "write"):
    """``p`` processes write ``size`` bytes to (or read them from) one node: aggregate and
    per-process bandwidth against ``p``. A read is a header-only request answered by the
    hot node's NIC with the data."""
    import pandas

    if kind not in ("read", "write"):
        raise ConfigError(f"hotspot kind = {kind!r} is invalid: read or write")
    cfg, _, n = _setup(config)
    size = _whole("hotspot", "size", size, 0, MAX_BYTES, "a message size in bytes")
    if processes is not None:
        if not len(processes):
            raise ConfigError("hotspot: processes = [] is invalid: at least one count of writers (None: all)")
        processes = [_whole("hotspot", "processes", p, 1, n - 1, "counts of writers") for p in processes]
    rows = []
    for p in range(1, n) if processes is None else processes:
        prog = Program(p + 1)
        for r in range(1, p + 1):
            if kind == "write":
                prog.send(r, 0, size)
                prog.recv(0, r, size)
            else:
                prog.send(r, 0, 0).recv(0, r, 0).send(0, r, size).recv(r, 0, size)
        t = _run(cfg, prog, list(range(p + 1)))
        agg = p * size / t * 1e3
        rows.append({"processes": p, "aggregate_mb_s": agg, "per_process_mb_s": agg / p, "time_us": t / 1e3})
    return pandas.DataFrame(rows)


def exchange(config, sizes=None, nodes: int | None = None, algorithm: str = "pairwise"):
    """Total exchange (MPI alltoall) of ``size`` bytes per pair: time, eq. 1's bound
    T = S(N − 1)/B with B the node's NIC bandwidth (every plane's), and bandwidth per node."""
    import pandas

    cfg, clock, n = _setup(config)
    nodes = n if nodes is None else _whole("exchange", "nodes", nodes, 2, n, "a number of nodes")
    b = _node_bytes_per_s(cfg, clock)
    rows = []
    for size in _sizes("exchange", sizes, [1 << i for i in range(4, 19, 2)]):
        p = Program(nodes).alltoall(size, algorithm=algorithm)
        t = _run(cfg, p, list(range(nodes)))
        bound = size * (nodes - 1) / b * 1e9
        rows.append({"size_bytes": size, "time_us": t / 1e3, "bound_us": bound / 1e3,
                     "per_node_mb_s": size * (nodes - 1) / t * 1e3, "bound_mb_s": b / 1e6})  # fmt: skip
    return pandas.DataFrame(rows)


def barrier(config, nodes=None):
    """Barrier time against the number of nodes: host-based linear (everyone notifies node 0,
    which notifies everyone), binary tree (gather up, release down), and hardware broadcast
    (paper 004 §4.2: everyone sets an event on node 0, whose NIC counts them, so the host pays
    one receive overhead; its host then starts the release, which a thread on its NIC builds
    and sends (``nic.thread_overhead``, 0 without one) as one broadcast packet that the switches
    replicate, so its time is one thread activation and a 0-byte message to the farthest
    participant)."""
    import pandas

    cfg, clock, n = _setup(config)
    events = {**cfg, "nic": {**cfg.get("nic", {}), "receive_overhead": "0 ns"}}
    receive_ns = (clock["receive_overhead_ns"] or 0.0) + (clock.get("thread_overhead_ns") or 0.0)
    if nodes is not None:
        if not len(nodes):
            raise ConfigError("barrier: nodes = [] is invalid: at least one number of nodes (None: 2 to N)")
        nodes = [_whole("barrier", "nodes", k, 2, n, "numbers of nodes") for k in nodes]
    rows = []
    for k in range(2, n + 1) if nodes is None else nodes:
        gather = Program(k)
        for r in range(1, k):
            gather.send(r, 0, 0).recv(0, r, 0)
        linear = Program(k)
        for r in range(1, k):
            linear.send(r, 0, 0).recv(0, r, 0)
        for r in range(1, k):
            linear.send(0, r, 0).recv(r, 0, 0)
        tree = Program(k)
        _tree_barrier(tree, k)
        ping = Program(k)
        ping.send(0, k - 1, 0).recv(k - 1, 0, 0)
        terminals = list(range(k))
        t_lin, t_tree = _run(cfg, linear, terminals), _run(cfg, tree, terminals)
        t_hw = _run(events, gather, terminals) + receive_ns + _run(cfg, ping, terminals)
        rows.append({"nodes": k, "linear_us": t_lin / 1e3, "tree_us": t_tree / 1e3, "hardware_broadcast_us": t_hw / 1e3})
    return pandas.DataFrame(rows)


def _tree_barrier(p: Program, k: int) -> None:
    """Binary-tree barrier: children notify parents up to rank 0, then the release goes down."""
    for r in range(k - 1, 0, -1):
        for c in (2 * r + 1, 2 * r + 2):
            if c < k:
                p.recv(r, c, 0)
        p.send(r, (r - 1) // 2, 0)
    for c in (1, 2):
        if c < k:
            p.recv(0, c, 0)
    for r in range(k):
        if r:
            p.recv(r, (r - 1) // 2, 0)
        for c in (2 * r + 1, 2 * r + 2):
            if c < k:
                p.send(r, c, 0)


def contention(config, size: int = 16384, messages: int = 8):
    """Every node sends ``messages`` messages of ``size`` bytes: to uniformly random other
    nodes, or along one random permutation; bandwidth per node (drawn from the config's seed)."""
    import pandas

    cfg, clock, n = _setup(config)
    size = _whole("contention", "size", size, 0, MAX_BYTES, "a message size in bytes")
    messages = _whole("contention", "messages", messages, 1, 1 << 16, "messages per node")
    rng = random.Random(cfg.get("seed", 1))
    rows = []
    perm = list(range(n))
    while any(i == d for i, d in enumerate(perm)):
        rng.shuffle(perm)
    for pattern in ("uniform", "permutation"):
        p = Program(n)
        sends = {r: [] for r in range(n)}
        for _ in range(messages):
            for r in range(n):
                d = perm[r] if pattern == "permutation" else rng.choice([x for x in range(n) if x != r])
                sends[r].append(d)
        for r in range(n):
            for d in sends[r]:
                p.send(r, d, size)
        for r in range(n):
            for s in range(n):
                for d in sends[s]:
                    if d == r:
                        p.recv(r, s, size)
        t = _run(cfg, p, list(range(n)))
        b = _node_bytes_per_s(cfg, clock)
        rows.append({"pattern": pattern, "per_node_mb_s": messages * size / t * 1e3, "nic_mb_s": b / 1e6,
                     "time_us": t / 1e3})  # fmt: skip
    return pandas.DataFrame(rows)


def _hops_ends(topology: str, src: int = 0) -> tuple[str | None, int | None, int]:
    """Why ``hops`` cannot run from ``src`` on ``topology`` (``None`` when it can), the
    terminal beside ``src`` on its switch and the farthest one. The delay per hop is the
    difference of the two pings over their extra switches: it needs a second terminal on
    ``src``'s switch and one behind more switches."""
    t = Topology.from_spec(topology)
    near = next((d for d in range(t.num_endpoints) if d != src and t.distance(src, d) == 2), None)
    far = far_terminal(topology, src)
    if near is None or t.distance(src, far) <= 2:
        what = f"no other terminal on terminal {src}'s switch" if near is None else "all its terminals on one switch"
        why = (f"topology = {topology} has {what}: the benchmark needs two terminals on one switch "
               "and one behind more switches (a tree, or a torus with t=2)")  # fmt: skip
        return why, near, far
    return None, near, far


def hops_unavailable(config) -> str | None:
    """Why :func:`hops` cannot run on the network of ``config``, or ``None`` if it can."""
    return _hops_ends(load_config(config)["topology"])[0]


def hops(config, src: int = 0):
    """Paper 004 §4.1: a 0-byte ping to a node on the same switch and to the farthest one;
    their difference and the delay per extra hop (each way crosses distance − 2 more links)."""
    import pandas

    cfg, clock, n = _setup(config)
    src = _whole("hops", "src", src, 0, n - 1, "an endpoint")
    t = Topology.from_spec(cfg["topology"])
    why, near, far = _hops_ends(cfg["topology"], src)
    if why is not None:
        raise ConfigError(f"bench-net hops: {why}")
    rows = []
    for name, dst in (("near", near), ("far", far)):
        p = Program(2)
        p.send(0, 1, 0).recv(1, 0, 0).send(1, 0, 0).recv(0, 1, 0)
        rows.append({"destination": name, "terminal": dst, "switches": t.distance(src, dst) - 1,
                     "latency_us": _run(cfg, p, [src, dst]) / 2 / 1e3})  # fmt: skip
    frame = pandas.DataFrame(rows)
    extra = rows[1]["switches"] - rows[0]["switches"]
    frame.attrs["per_hop_ns"] = (rows[1]["latency_us"] - rows[0]["latency_us"]) * 1e3 / extra
    frame.attrs["hop_ns"] = clock["hop_ns"]
    return frame
