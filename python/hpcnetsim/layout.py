"""Physical layout: switches and endpoints packed into racks, racks in rows, cable lengths.

Switches are placed in index order, each followed by its endpoints, so an endpoint sits in
its switch's rack. The families number their switches so that a packaging unit is
contiguous (a dragonfly or Megafly group, a Cascade chassis with the next chassis of its
group after it, a Slim Fly subgraph row, a HyperX or torus line along dimension 0, a tree
level), and a unit that fits in the space left in a rack is not split:
it starts a new rack instead. Intra-unit cables are then short, the others run between
racks. Cables between racks go up to an overhead tray, along the rows and across them
(Manhattan distance between rack positions), and down; every cable gets a service slack.

A multi-plane network (``SPEC|planes:N``) places the copies of a unit side by side (plane 0's
pod, then plane 1's, ...) and every endpoint once, beside its switch of plane 0; its ports on
the other planes are cabled from there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Layout:
    """Where every switch and endpoint sits, and the length of every cable.

    ``switch_rack[s]`` / ``switch_u[s]``: rack and unit (0 = bottom) of switch ``s``;
    ``terminal_rack`` / ``terminal_u`` likewise for endpoints. ``link_m`` holds one length per
    switch-to-switch link (in ``Topology.links()`` order), ``terminal_m`` one per endpoint
    link (``Topology.terminal_links()`` order).
    """

    racks: int
    switch_rack: np.ndarray
    switch_u: np.ndarray
    terminal_rack: np.ndarray
    terminal_u: np.ndarray
    link_m: np.ndarray
    terminal_m: np.ndarray


def group_keys(topology) -> list[tuple]:
    """The packaging unit of every switch, per family (see the module doc); units are placed
    in the order of their keys."""
    family = topology.family
    n = topology.num_switches
    coords = [tuple(topology.switch_coordinates(s)) for s in range(n)]
    if topology.planes > 1:
        # The planes' copies of a unit next to each other.
        one = _family_keys(family, coords)
        return [(*one[s], topology.switch_plane(s)) for s in range(n)]
    return _family_keys(family, coords)


def _family_keys(family: str, coords: list[tuple]) -> list[tuple]:
    if family in ("dragonfly", "megafly"):
        return [c[:1] for c in coords]  # the group (Megafly: its leaves, then its spines)
    if family == "cascade":
        return [c[:2] for c in coords]  # a chassis (a row of its group): groups stay together
    if family == "slimfly":
        return [c[:2] for c in coords]  # subgraph and x (or m): q switches
    if family in ("hyperx", "torus", "mesh", "twin-torus"):
        return [c[:0:-1] for c in coords]  # a line along dimension 0 (index order)
    if family in ("tree", "xgft"):
        # coordinates: level, then label digits; a pod is the leaves sharing all digits but
        # the last, with the level-1 switches they reach (the same digits): pods go first,
        # each with its own level-1 switches, then the upper levels (spines) in their racks.
        top = max(c[0] for c in coords)
        return [(0, c[1:-1]) if c[0] <= 1 and top >= 2 else (1, c[0], c[1:-1]) for c in coords]
    return [(0,) for _ in coords]


def place(topology, params: dict) -> Layout:
    """Place ``topology`` in racks by ``params`` (the ``[layout]`` and ``[cables]`` of a cost
    table, see ``hpcnetsim/cost_table.toml``) and measure every cable."""
    cap = int(params["rack_units"])
    su, nu = int(params["switch_units"]), int(params["node_units"])
    per_rack = int(params["switches_per_rack"]) or None
    n = topology.num_switches
    term_links = topology.terminal_links()
    endpoints = topology.num_endpoints
    # Endpoints take rack units once, beside their switch of plane 0 (terminals 0..E).
    homes = [s for t, s, _ in term_links if t < endpoints]
    terms_of = np.bincount(np.array(homes, dtype=np.int64), minlength=n) if homes else np.zeros(n, dtype=np.int64)
    block = su + nu * terms_of  # units of a switch and its endpoints
    keys = group_keys(topology)
    group_units: dict[tuple, int] = {}
    group_switches: dict[tuple, int] = {}
    for s, k in enumerate(keys):
        group_units[k] = group_units.get(k, 0) + int(block[s])
        group_switches[k] = group_switches.get(k, 0) + 1

    switch_rack = np.zeros(n, dtype=np.int64)
    switch_u = np.zeros(n, dtype=np.int64)
    # First unit of each switch's endpoints, as a global unit index (rack * cap + u).
    node_start = np.zeros(n, dtype=np.int64)
    rack, used, in_rack = 0, 0, 0

    def fits(units: int, switches: int) -> bool:
        return used + units <= cap and (per_rack is None or in_rack + switches <= per_rack)

    prev = None
    # Within a unit: by level (a tree pod's leaves, then its level-1 switches), then index.
    order = sorted(range(n), key=lambda s: (keys[s], topology.switch_level(s) or 0, s))
    for s in order:
        k = keys[s]
        if k != prev and used > 0:
            small = group_units[k] <= cap and (per_rack is None or group_switches[k] <= per_rack)
            # A unit that fits in one rack is not split; a larger one starts a rack.
            if not small or not fits(group_units[k], group_switches[k]):
                rack, used, in_rack = rack + 1, 0, 0
        prev = k
        b = int(block[s])
        if used > 0 and not fits(b, 1):
            rack, used, in_rack = rack + 1, 0, 0
        switch_rack[s], switch_u[s] = rack, used
        node_start[s] = rack * cap + used + su
        # A block taller than a rack spills its endpoints into the following racks.
        end = rack * cap + used + b
        rack, used = divmod(end, cap)
        in_rack = in_rack + 1 if rack == switch_rack[s] else 0
    racks = rack + (1 if used > 0 else 0)

    # Endpoints: the i-th endpoint of switch s sits nu units above the previous one.
    t_count = len(term_links)
    terminal_rack = np.zeros(t_count, dtype=np.int64)
    terminal_u = np.zeros(t_count, dtype=np.int64)
    seen = np.zeros(n, dtype=np.int64)
    for t, s, _ in term_links:
        if t < endpoints:
            g = node_start[s] + nu * seen[s]
            seen[s] += 1
            terminal_rack[t], terminal_u[t] = divmod(int(g), cap)
    # An endpoint's ports on the other planes are where the endpoint is.
    for t in range(endpoints, t_count):
        terminal_rack[t], terminal_u[t] = terminal_rack[t % endpoints], terminal_u[t % endpoints]

    def lengths(ra, ua, rb, ub):
        h = float(params["unit_height_m"])
        row_len = int(params["racks_per_row"])
        same = ra == rb
        dx = np.abs(ra % row_len - rb % row_len) * float(params["rack_width_m"])
        dy = np.abs(ra // row_len - rb // row_len) * float(params["row_pitch_m"])
        top = cap * h + float(params["tray_height_m"])
        up = (top - ua * h) + (top - ub * h)
        inside = np.abs(ua - ub) * h
        return np.where(same, inside, up + dx + dy) + float(params["slack_m"])

    links = topology.links()
    if links:
        arr = np.array(links, dtype=np.int64)
        a, b = arr[:, 0], arr[:, 2]
        link_m = lengths(switch_rack[a], switch_u[a], switch_rack[b], switch_u[b])
    else:
        link_m = np.zeros(0)
    if t_count:
        ts = np.array([s for _, s, _ in term_links], dtype=np.int64)
        tt = np.array([t for t, _, _ in term_links], dtype=np.int64)
        terminal_m = lengths(terminal_rack[tt], terminal_u[tt], switch_rack[ts], switch_u[ts])
    else:
        terminal_m = np.zeros(0)
    return Layout(racks, switch_rack, switch_u, terminal_rack, terminal_u, link_m, terminal_m)
