"""The Python API, cross-checked against networkx on random small instances of every family."""

import random
from collections import deque

import networkx as nx
import pytest

import hpcnetsim
from hpcnetsim import ConfigError, Topology


def random_specs(count=40, seed=7):
    rng = random.Random(seed)

    def dims(lo, hi, most):
        return "x".join(str(rng.randint(lo, hi)) for _ in range(rng.randint(1, most)))

    makers = [
        lambda: (lambda k: f"tree:k={k},kp={rng.randint(1, k)},n={rng.randint(1, 3)}")(rng.randint(2, 4)),
        lambda: "xgft:m={};w=1,{}".format(
            ",".join(str(rng.randint(2, 3)) for _ in range(2)), rng.randint(1, 3)
        ),
        lambda: f"torus:{dims(2, 5, 3)},t={rng.randint(1, 2)}",
        lambda: f"mesh:{dims(2, 5, 3)},t={rng.randint(1, 2)}",
        lambda: f"twin-torus:{dims(2, 3, 1)}x{rng.randint(2, 3)}x{rng.randint(2, 3)}",
        lambda: f"hyperx:{dims(2, 4, 2)},t={rng.randint(1, 3)},k={rng.randint(1, 2)}",
        lambda: f"crossbar:{rng.randint(2, 12)}",
    ]
    return [makers[i % len(makers)]() for i in range(count)]


def terminal_distances(g):
    terms = [v for v, d in g.nodes(data=True) if d["kind"] == "terminal"]
    lengths = dict(nx.all_pairs_shortest_path_length(g))
    return [lengths[a][b] for a in terms for b in terms if a != b]


@pytest.mark.parametrize("spec", random_specs())
def test_diameter_and_average_distance_against_networkx(spec):
    t = Topology.from_spec(spec)
    d = t.describe()
    dist = terminal_distances(t.to_networkx())
    assert d["diameter"] == max(dist)
    assert d["avg_distance"] == pytest.approx(sum(dist) / len(dist), rel=1e-12)


def count_minimal_paths(g, a, b):
    """Minimal paths in a multigraph, parallel links counted separately."""
    dist, count, queue = {a: 0}, {a: 1}, deque([a])
    while queue:
        u = queue.popleft()
        for v in g.neighbors(u):
            if v not in dist:
                dist[v], count[v] = dist[u] + 1, 0
                queue.append(v)
            if dist[v] == dist[u] + 1:
                count[v] += count[u] * g.number_of_edges(u, v)
    return count[b]


@pytest.mark.parametrize("spec", random_specs(21, seed=11))
def test_minimal_paths_against_networkx(spec):
    t = Topology.from_spec(spec)
    g = t.to_networkx()
    n = t.num_terminals
    for a, b in [(0, n - 1), (n // 3, n // 2), (1, 0)]:
        if a != b:
            assert t.minimal_paths(a, b) == count_minimal_paths(g, ("t", a), ("t", b)), (spec, a, b)
            assert t.distance(a, b) == nx.shortest_path_length(g, ("t", a), ("t", b)), (spec, a, b)


@pytest.mark.parametrize("spec", ["torus:8x8", "tree:k=4,kp=2,n=3", "hyperx:4x3,t=2,k=2", "twin-torus:3x2x3"])
def test_channel_loads_conserve_the_traffic(spec):
    """Each unit of traffic loads as many switch channels as it takes switch hops, so the
    switch-channel loads add up to N times the mean switch-hop count (distance − 2)."""
    t = Topology.from_spec(spec)
    d = t.describe()
    loads = t.channel_loads()
    offsets = t.port_offsets()
    total = 0.0
    for s in range(t.num_switches):
        for p, peer in enumerate(t.ports(s)):
            if peer is not None and peer[0] == "switch":
                total += loads[offsets[s] + p]
    assert total == pytest.approx(d["terminals"] * (d["avg_distance"] - 2.0), rel=1e-9)
    assert d["minimal_spread_throughput"] == pytest.approx(min(1.0, 1.0 / max(loads)), rel=1e-12)
    assert d["ideal_throughput"] >= d["minimal_spread_throughput"] - 1e-12


def test_to_networkx_counts_and_ports():
    t = Topology.from_spec("tree:k=4,kp=2,n=3")
    g = t.to_networkx()
    d = t.describe()
    assert g.number_of_nodes() == d["switches"] + d["terminals"]
    assert g.number_of_edges() == d["links"]
    for u, v, data in g.edges(data=True):
        for end in (u, v):
            if end[0] == "s":
                peer = t.ports(end[1])[data["ports"][end]]
                other = v if end == u else u
                assert peer is not None and peer[1] == other[1]
    top = [n for n, a in g.nodes(data=True) if a.get("level") == 2]
    assert len(top) == d["switches_per_level"][2] == 4


def test_quadrics_labels_from_python():
    t = Topology.from_spec("tree:k=4,n=2")
    assert t.node_tuple(9) == [2, 1]
    assert t.mdi(9, 11) == 1 and t.mdi(1, 14) == 0
    (root,) = t.nca(9, 11)
    assert t.switch_label(root) == ([2], 1)
    assert sorted(t.switch_label(s) for s in t.nca(1, 14)) == [([w], 0) for w in range(4)]
    assert t.minimal_paths(1, 14) == 4


def test_errors_are_config_errors():
    assert issubclass(ConfigError, ValueError)
    for bad in ["tree:k=8,kp=9,n=4", "torus:0x4", "", 42]:
        with pytest.raises(ConfigError):
            Topology.from_spec(bad)
    t = Topology.from_spec("torus:4x4")
    with pytest.raises(ConfigError, match="terminal"):
        t.minimal_paths(0, 99)
    with pytest.raises(ConfigError, match="only for tree"):
        t.mdi(0, 1)
    with pytest.raises(ConfigError, match="format"):
        t.export("svg")


def test_describe_shorthand():
    assert hpcnetsim.describe("crossbar:64")["ideal_throughput"] == 1.0


def min_max_channel_load(t):
    """The smallest possible largest switch-channel load of uniform traffic, solved with
    scipy's HiGHS from the port lists alone: one commodity per destination switch, one flow
    variable per (commodity, directed switch link), and the load z to minimise."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    s_count, n = t.num_switches, t.num_terminals
    terms = [sum(1 for p in t.ports(s) if p is not None and p[0] == "terminal") for s in range(s_count)]
    arcs = [(a, b) for a, _, b, _ in t.links()] + [(b, a) for a, _, b, _ in t.links()]
    dests = [d for d in range(s_count) if terms[d] > 0]
    nv = len(dests) * len(arcs)
    eq_r, eq_c, eq_v, b_eq = [], [], [], []
    for k, d in enumerate(dests):
        for v in range(s_count):
            if v == d:
                continue
            row = len(b_eq)
            b_eq.append(terms[v] * terms[d] / (n - 1))
            for j, (a, b) in enumerate(arcs):
                if a == v or b == v:
                    eq_r.append(row)
                    eq_c.append(k * len(arcs) + j)
                    eq_v.append(1.0 if a == v else -1.0)
    ub_r = [j for k in range(len(dests)) for j in range(len(arcs))] + list(range(len(arcs)))
    ub_c = list(range(nv)) + [nv] * len(arcs)
    ub_v = [1.0] * nv + [-1.0] * len(arcs)
    a_eq = coo_matrix((eq_v, (eq_r, eq_c)), shape=(len(b_eq), nv + 1))
    a_ub = coo_matrix((ub_v, (ub_r, ub_c)), shape=(len(arcs), nv + 1))
    cost = [0.0] * nv + [1.0]
    r = linprog(cost, A_ub=a_ub, b_ub=[0.0] * len(arcs), A_eq=a_eq, b_eq=b_eq, method="highs")
    assert r.status == 0, r.message
    return r.fun


@pytest.mark.parametrize(
    "spec",
    ["mesh:3x4", "mesh:5x3,t=2", "mesh:3x2x2", "torus:3x4,t=2", "twin-torus:3x2x3", "hyperx:3x3,t=2",
     "hyperx:2x3,t=2,k=2", "tree:k=3,kp=2,n=2", "xgft:m=2,3;w=1,2", "mesh:4x4|faults:links=5.0"],
)  # fmt: skip
def test_ideal_throughput_is_the_best_any_routing_can_do(spec):
    """`ideal_throughput` (closed forms, a certificate or hpcnetsim's own program) equals the
    optimum of the min-max channel load program solved independently; the even spread over
    minimal paths is never above it and on meshes below it."""
    d = hpcnetsim.describe(spec)
    want = 1.0 / max(1.0, min_max_channel_load(Topology.from_spec(spec)))
    assert d["ideal_throughput"] == pytest.approx(want, rel=1e-6)
    assert d["minimal_spread_throughput"] <= d["ideal_throughput"] + 1e-12
    if spec.startswith("mesh:3x4") or spec.startswith("mesh:5x3"):
        assert d["minimal_spread_throughput"] < d["ideal_throughput"] - 1e-3


def test_a_negative_index_is_a_config_error_naming_the_call():
    t = hpcnetsim.Topology.from_spec("torus:4x4")
    with pytest.raises(hpcnetsim.ConfigError, match=r"distance\(-1, 2\) is invalid: .* integers from 0"):
        t.distance(-1, 2)
    with pytest.raises(hpcnetsim.ConfigError, match=r"ports\(-3\) is invalid"):
        t.ports(-3)
    assert t.distance(0, 2) == t.distance(2, 0) > 0
