"""OpenSM's DFSSSP layering, replayed step by step on given forwarding tables.

A transcription of ``dfsssp_remove_deadlocks()`` in OpenSM 3.3.23's
``opensm/osm_ucast_dfsssp.c`` (with ``update_channel_dep_graph``, ``remove_path_from_cdg``,
``search_cycle_in_channel_dep_graph``, ``get_weakest_link_in_cycle`` and
``get_next_cdg_node``), kept in the same order of operations so that it gives OpenSM's lane
count and paths per lane exactly (checked against OpenSM's log by tests/test_opensm_peer.py).
It lets the two differences from hpcnetsim's layering be separated: which paths are laid out
(OpenSM includes switch management ports) and how (paths moved to the next layer, cycle by
cycle, against hpcnetsim's placement).

Channels are switch-to-switch links ``(switch, port)``; a channel's identifier, which orders
OpenSM's binary tree of channels and therefore its search, is
``lid(switch) << 48 | port << 32 | lid(next switch) << 16 | port at the next switch``.
"""

from __future__ import annotations

UNKNOWN, GRAY, BLACK = 0, 1, 2


class _Link:
    __slots__ = ("node", "pairs", "removed")

    def __init__(self, node: _Node, pair: int):
        self.node, self.pairs, self.removed = node, [pair], 0


class _Node:
    __slots__ = ("cid", "links", "status", "pre", "left", "right")

    def __init__(self, cid: int):
        self.cid, self.links, self.status, self.pre = cid, [], UNKNOWN, None
        self.left = self.right = None


class _Cdg:
    """One layer's channel dependency graph: OpenSM's unbalanced binary tree of channels."""

    def __init__(self):
        self.root: _Node | None = None
        self.nodes: dict[int, _Node] = {}

    def node(self, cid: int) -> _Node:
        n = self.nodes.get(cid)
        if n is None:
            n = self.nodes[cid] = _Node(cid)
            if self.root is None:
                self.root = n
            else:
                cur = self.root
                while True:
                    side = "left" if cid < cur.cid else "right"
                    nxt = getattr(cur, side)
                    if nxt is None:
                        setattr(cur, side, n)
                        break
                    cur = nxt
        return n

    def add_path(self, pair: int, channels: list[int]) -> None:
        """update_channel_dep_graph: a dependency between consecutive channels, appended to
        the earlier channel's list when new, else the pair joins the existing one."""
        last = None
        for cid in channels:
            n = self.node(cid)
            if last is not None:
                for link in last.links:
                    if link.node is n:
                        link.pairs.append(pair)
                        break
                else:
                    last.links.append(_Link(n, pair))
            last = n

    def remove_path(self, channels: list[int]) -> None:
        """remove_path_from_cdg: the path's dependencies only count one pair fewer."""
        last = None
        for cid in channels:
            n = self.nodes[cid]
            if last is not None:
                for link in last.links:
                    if link.node is n:
                        link.removed += 1
                        break
            last = n

    def next_unknown(self) -> _Node | None:
        """get_next_cdg_node: the first UNKNOWN channel in pre-order of the tree."""
        stack = [self.root] if self.root else []
        while stack:
            n = stack.pop()
            if n.status == UNKNOWN:
                return n
            if n.right:
                stack.append(n.right)
            if n.left:
                stack.append(n.left)
        return None

    def search_cycle(self, start: _Node) -> _Node | None:
        """search_cycle_in_channel_dep_graph: depth-first from `start`, the search state kept
        between calls; returns the GRAY channel closing a cycle."""
        cur = start
        while cur is not None:
            cur.status = GRAY
            nxt = None
            for link in cur.links:
                if link.node.status == UNKNOWN:
                    nxt = link.node
                    break
                if link.node.status == GRAY:
                    return link.node
            if nxt is not None:
                nxt.pre = cur
                cur = nxt
            else:
                cur.status = BLACK
                for link in cur.links:  # OpenSM frees the pairs of a finished channel's links
                    link.pairs, link.removed = [], 0
                if cur.pre is not None:
                    cur.pre, cur = None, cur.pre
                else:
                    cur = self.next_unknown()
        return None

    @staticmethod
    def weakest_link(cycle: _Node) -> _Link:
        """get_weakest_link_in_cycle: the dependency of the cycle with the fewest pairs still
        on it (the first such along the cycle), unlinked from the graph."""
        cur, weakest, owner = cycle, None, None
        for link in cur.links:
            if link.node.status == GRAY:
                weakest, owner, cur = link, cur, link.node
                break
        while True:
            cur.status = UNKNOWN
            for link in cur.links:
                if link.node.status == GRAY:
                    if len(link.pairs) - link.removed < len(weakest.pairs) - weakest.removed:
                        weakest, owner = link, cur
                    cur = link.node
                    break
            if cur is cycle:
                cur.status = UNKNOWN
                break
        owner.links.remove(weakest)
        return weakest


def layers(paths: list[list[int]], vl_avail: int = 8) -> tuple[int, list[int]]:
    """Lanes needed and paths per lane for `paths` (channel identifiers per path, in OpenSM's
    order: destinations outer, sources inner) under OpenSM's layering."""
    cdg = [_Cdg() for _ in range(vl_avail)]
    vl = [0] * len(paths)
    for p, channels in enumerate(paths):
        cdg[0].add_path(p, channels)
    per_vl = [len(paths)] + [0] * (vl_avail - 1)
    needed = 1
    for test in range(vl_avail - 1):
        start = cdg[test].root
        while start is not None:
            cycle = cdg[test].search_cycle(start)
            if cycle is not None:
                needed = test + 2
                weakest = _Cdg.weakest_link(cycle)
                for p in weakest.pairs:
                    if vl[p] != test:  # moved before
                        continue
                    cdg[test].remove_path(paths[p])
                    cdg[test + 1].add_path(p, paths[p])
                    vl[p] = test + 1
                    per_vl[test] -= 1
                    per_vl[test + 1] += 1
            start = cycle
    last = cdg[vl_avail - 1]
    if last.root is not None and last.search_cycle(last.root) is not None:
        needed = vl_avail + 1
    return needed, per_vl


def channel_paths(fabric: dict, include_switches: bool = True) -> list[list[int]]:
    """The channel sequence of every (source, destination) pair in OpenSM's order.

    `fabric`: ``switches`` (names in OpenSM's switch order), ``lid`` (name -> LID),
    ``order`` (end ports in OpenSM's port order list: hosts, then switches), ``links``
    (name -> {port: (peer, peer port)}) and ``lft`` (switch -> {destination name: port}).
    Paths from a switch's management port have no channel (OpenSM starts them at port 0,
    which has no link); a path ends on the last switch-to-switch channel."""
    switches = set(fabric["switches"])
    lid, links, lft = fabric["lid"], fabric["links"], fabric["lft"]
    order = [e for e in fabric["order"] if include_switches or e not in switches]
    paths = []
    for dst in order:
        for src in order:
            if src == dst:
                continue
            channels = []
            if src not in switches:
                sw = links[src][1][0]
                while True:
                    port = lft[sw].get(dst, -1)
                    if port == 0:
                        break
                    peer = links[sw].get(port)
                    if peer is None:
                        raise ValueError(f"no route from {src} to {dst} at {sw}")
                    if peer[0] not in switches:
                        break
                    channels.append(lid[sw] << 48 | port << 32 | lid[peer[0]] << 16 | peer[1])
                    sw = peer[0]
                    if len(channels) > 64:
                        raise ValueError(f"routing loop from {src} to {dst}")
            paths.append(channels)
    return paths
