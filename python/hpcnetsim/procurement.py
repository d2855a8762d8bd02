"""Sizing network families to one budget for a procurement comparison (docs/procurement.md).

For an endpoint target N, every family proposes a small list of candidate configurations
(generated below, all with switches of at most ``max_radix`` ports). The **budget** is the
price of the full fat-tree nearest N; every family then gets

1. the candidates whose price (``hpcnetsim.cost``, the cost table) is at most the budget;
2. of those, the ones whose endpoint count is nearest N (distance |ln(E / N)|, so 900 and
   1 111 are equally near 1 000);
3. of those, the most expensive one: the richest network of that family the budget buys at
   that size.

A family with no candidate within ``max_ratio`` of N (in either direction) under the budget is
left out, with the reason. Endpoint counts come from each family's formula, so the price (a
layout of every cable) is computed only for the few candidates nearest N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ._core import ConfigError

#: Family name -> (label, candidate generator). The generators yield (spec, endpoints, radix).
Candidate = tuple[str, int, int]


@dataclass
class Choice:
    """The configuration chosen for one family and endpoint class, or why there is none."""

    family: str
    label: str
    target: int
    budget_usd: float
    spec: str | None
    endpoints: int = 0
    radix: int = 0
    cost_usd: float = float("nan")
    power_w: float = float("nan")
    switches: int = 0
    #: Candidates priced before choosing (for the report: how the choice was made).
    priced: list[tuple[str, int, float]] = field(default_factory=list)
    reason: str = ""


def _fat_tree(max_radix: int) -> Iterator[Candidate]:
    # k-ary n-trees: every switch has k ports down and k up (radix 2k), full bisection.
    for n in (2, 3, 4):
        for k in range(2, max_radix // 2 + 1):
            yield f"tree:k={k},n={n}", k**n, 2 * k


def _fat_tree_2to1(max_radix: int) -> Iterator[Candidate]:
    # 2:1 at the leaves only (the usual "blocking" fat-tree): leaf switches have k ports
    # down and k/2 up, the levels above are full. As an XGFT: w_2 = k/2, w_3.. = k.
    for n in (2, 3, 4):
        for k in range(2, max_radix // 2 + 1, 2):
            w = ",".join(["1", str(k // 2)] + [str(k)] * (n - 2))
            m = ",".join([str(k)] * n)
            yield f"xgft:h={n};m={m};w={w}", k**n, 2 * k if n > 2 else k + k // 2


def _thin_tree(max_radix: int) -> Iterator[Candidate]:
    # Paper 000's k:k'-ary n-thin-tree with k' = k/2: 2:1 at every level (radix 1.5 k).
    for n in (2, 3, 4):
        for k in range(2, 2 * max_radix // 3 + 1, 2):
            yield f"tree:k={k},kp={k // 2},n={n}", k**n, k + k // 2


def _dragonfly(max_radix: int) -> Iterator[Candidate]:
    # Kim et al.'s balanced dragonfly a = 2p = 2h, with every group count g the family
    # allows (g - 1 divides a·h: m = a·h/(g - 1) global links per group pair) from g = a
    # up: the machine grows by groups, not by a few huge groups of parallel global links.
    for p in range(1, max_radix):
        a, h = 2 * p, p
        radix = a - 1 + p + h
        if radix > max_radix:
            break
        for d in range(1, a * h + 1):
            if (a * h) % d == 0 and d + 1 >= a:
                g = d + 1
                spec = f"dragonfly:a={a},p={p},h={h}" + ("" if g == a * h + 1 else f",g={g}")
                yield spec, a * p * g, radix


def _hyperx(max_radix: int) -> Iterator[Candidate]:
    # Regular 2D and 3D HyperX (S switches a dimension), t terminals a switch with
    # S/2 <= t <= S (Ahn et al.'s balance is near t = S/2 for one link per pair).
    for dims in (2, 3):
        for s in range(2, max_radix):
            for t in range((s + 1) // 2, s + 1):
                radix = t + dims * (s - 1)
                if radix <= max_radix:
                    yield f"hyperx:{'x'.join([str(s)] * dims)},t={t}", t * s**dims, radix


def _prime_powers(limit: int) -> list[int]:
    def prime(x: int) -> bool:
        return x > 1 and all(x % d for d in range(2, math.isqrt(x) + 1))

    out = []
    for q in range(3, limit + 1):
        base = next(d for d in range(2, q + 1) if q % d == 0)
        x = q
        while x % base == 0:
            x //= base
        if x == 1 and prime(base):
            out.append(q)
    return out


def _slimfly(max_radix: int) -> Iterator[Candidate]:
    # Besta and Hoefler's MMS graphs: 2q² switches of network degree k' = (3q - δ)/2
    # (q = 4w + δ), p = ⌈k'/2⌉ endpoints each (the family's default, its balance).
    for q in _prime_powers(4 * max_radix):
        delta = {1: 1, 3: -1, 0: 0}.get(q % 4)
        if delta is None:
            continue
        kp = (3 * q - delta) // 2
        p = (kp + 1) // 2
        if kp + p <= max_radix:
            yield f"slimfly:q={q}", 2 * q * q * p, kp + p


def _torus(max_radix: int, target: int | None = None) -> Iterator[Candidate]:
    # 3D tori A x B x C, A >= B >= C, no side more than twice another, 1 or 2 endpoints a
    # switch (Blue Gene's one node a router; Cray's Gemini two). With a <= 2c and at most
    # 2·target switches, a³/4 <= 2·target: no side beyond the cube root of 8·target.
    top = math.ceil((8 * (target or 10**6)) ** (1 / 3)) + 1
    for t in (1, 2):
        if 6 + t > max_radix:
            continue
        for c in range(2, top):
            for b in range(c, 2 * c + 1):
                for a in range(b, 2 * c + 1):
                    if a < top:
                        yield f"torus:{a}x{b}x{c}" + ("" if t == 1 else f",t={t}"), t * a * b * c, 6 + t


#: Every family: its label and its candidates for a largest radix (and the target).
FAMILIES: dict[str, tuple[str, Callable[..., Iterator[Candidate]]]] = {
    "fat-tree": ("full fat-tree", _fat_tree),
    "fat-tree-2to1": ("2:1 fat-tree", _fat_tree_2to1),
    "thin-tree": ("thin-tree", _thin_tree),
    "dragonfly": ("dragonfly", _dragonfly),
    "hyperx": ("HyperX", _hyperx),
    "slimfly": ("Slim Fly", _slimfly),
    "torus": ("3D torus", _torus),
}
#: The family whose configuration nearest the target sets the budget.
BUDGET_FAMILY = "fat-tree"


def candidates(family: str, max_radix: int, target: int) -> list[Candidate]:
    """The family's candidates with switches of at most ``max_radix`` ports, without repeats."""
    if family not in FAMILIES:
        raise ConfigError(f"family = {family!r} is invalid: one of {', '.join(FAMILIES)}")
    gen = FAMILIES[family][1]
    found = gen(max_radix, target) if family == "torus" else gen(max_radix)
    return list({c[0]: c for c in found if c[2] <= max_radix}.values())


def price(spec: str, table=None) -> dict:
    """Endpoints, switches, cost and power of ``spec`` (built, placed and priced)."""
    from .cost import cost
    from .topology import Topology

    topo = Topology.from_spec(spec)
    c = cost(topo, table)
    return {"endpoints": topo.num_endpoints, "switches": topo.num_switches, "cost_usd": c["cost_usd"],
            "power_w": c["power_w"]}  # fmt: skip


def _distance(endpoints: int, target: int) -> float:
    return abs(math.log(endpoints / target))


def choose(
    family: str,
    target: int,
    budget_usd: float,
    max_radix: int,
    table=None,
    max_ratio: float = 2.0,
    pricer: Callable[[str], dict] | None = None,
) -> Choice:
    """The configuration of ``family`` for ``target`` endpoints under ``budget_usd`` (module
    docstring); ``pricer(spec)`` gives its price (default: :func:`price` with ``table``)."""
    pricer = pricer or (lambda s: price(s, table))
    label = FAMILIES[family][0] if family in FAMILIES else family
    near = sorted((c for c in candidates(family, max_radix, target) if _distance(c[1], target) <= math.log(max_ratio)),
                  key=lambda c: (_distance(c[1], target), c[0]))  # fmt: skip
    priced: list[tuple[str, int, float]] = []
    i = 0
    while i < len(near):
        d = _distance(near[i][1], target)
        group = []
        while i < len(near) and _distance(near[i][1], target) == d:
            group.append(near[i])
            i += 1
        best = None
        for spec, _, radix in group:
            p = pricer(spec)
            priced.append((spec, p["endpoints"], p["cost_usd"]))
            if p["cost_usd"] <= budget_usd and (best is None or p["cost_usd"] > best[1]["cost_usd"]):
                best = (radix, p, spec)
        if best is not None:
            radix, p, spec = best
            return Choice(family, label, target, budget_usd, spec, p["endpoints"], radix, p["cost_usd"],
                          p["power_w"], p["switches"], priced)  # fmt: skip
    why = (f"no configuration with switches of at most {max_radix} ports within a factor {max_ratio:g} of "
           f"{target} endpoints costs at most the budget of {budget_usd:.4g} USD")  # fmt: skip
    return Choice(family, label, target, budget_usd, None, priced=priced, reason=why)


def budget(
    target: int,
    max_radix: int,
    table=None,
    pricer: Callable[[str], dict] | None = None,
    max_ratio: float = 2.0,
) -> Choice:
    """The budget-setting configuration: the full fat-tree nearest ``target`` (ties: the cheapest).
    Raises :class:`ConfigError` when it is more than ``max_ratio`` from ``target``."""
    pricer = pricer or (lambda s: price(s, table))
    near = min(candidates(BUDGET_FAMILY, max_radix, target), key=lambda c: (_distance(c[1], target), c[1], c[0]))
    d = _distance(near[1], target)
    if d > math.log(max_ratio):
        # A budget for another machine size would size every family to it, and each would
        # then be reported as unaffordable at the class's size instead.
        raise ConfigError(
            f"classes = {target} is invalid: no full fat-tree with switches of at most {max_radix} ports "
            f"within a factor {max_ratio:g} of it to set the budget (the nearest, {near[0]}, has {near[1]} "
            "endpoints): a class nearer that, or a larger max_radix"
        )
    ties = [c for c in candidates(BUDGET_FAMILY, max_radix, target) if _distance(c[1], target) == d]
    priced = [(c, pricer(c[0])) for c in ties]
    (spec, _, radix), p = min(priced, key=lambda cp: (cp[1]["cost_usd"], cp[0][0]))
    return Choice(BUDGET_FAMILY, FAMILIES[BUDGET_FAMILY][0], target, p["cost_usd"], spec, p["endpoints"], radix,
                  p["cost_usd"], p["power_w"], p["switches"], [(c[0], q["endpoints"], q["cost_usd"]) for c, q in priced])  # fmt: skip


def size_class(
    target: int,
    families: list[str],
    max_radix: int,
    table=None,
    max_ratio: float = 2.0,
    pricer: Callable[[str], dict] | None = None,
) -> list[Choice]:
    """Every family of ``families`` sized for ``target`` endpoints under the budget of the full
    fat-tree nearest ``target``; the full fat-tree itself is that configuration."""
    if not isinstance(target, int) or isinstance(target, bool) or target < 2:
        raise ConfigError(f"classes = {target!r} is invalid: an endpoint count, an integer >= 2")
    if not isinstance(max_radix, int) or isinstance(max_radix, bool) or max_radix < 4:
        raise ConfigError(f"max_radix = {max_radix!r} is invalid: an integer >= 4 (switch ports)")
    ref = budget(target, max_radix, table, pricer, max_ratio)
    out = []
    for family in families:
        if family == BUDGET_FAMILY:
            out.append(ref)
        else:
            out.append(choose(family, target, ref.budget_usd, max_radix, table, max_ratio, pricer))
    return out
