"""The Python face of the topology layer: build from a spec, describe, export, networkx."""

from __future__ import annotations

import os
from typing import Any

from . import _core

#: Keys of :meth:`Topology.describe`, in the order ``topo describe --json`` prints them.
DESCRIBE_KEYS = (
    "spec",
    "terminals",
    "planes",
    "endpoints",
    "switches",
    "switches_per_level",
    "links",
    "switch_links",
    "radix",
    "bisection_channels",
    "bisection_ratio",
    "bisection_throughput",
    "ideal_throughput",
    "minimal_spread_throughput",
    "diameter",
    "avg_distance",
    "cost_constant",
    "cost_linear",
    "cost_quadratic",
)


class Topology:
    """A network built from a spec such as ``tree:k=8,kp=4,n=4`` or ``torus:8x8``.

    Methods not defined here (``links``, ``terminal_links``, ``ports``, ``minimal_paths``,
    ``channel_loads``, ``switch_coordinates``, ``node_tuple``, ``mdi``, ``nca`` ...) are
    those of the compiled core, see ``hpcnetsim/_core.pyi``.
    """

    def __init__(self, spec: str | _core.Topology):
        """``Topology("torus:8x8")`` builds from a spec, as :meth:`from_spec` does."""
        # The folder a file of the spec (a fabric's) is relative to, for copies made elsewhere.
        self._folder = os.getcwd()
        if isinstance(spec, _core.Topology):
            self._core = spec
        elif isinstance(spec, str):
            self._core = _core.Topology.from_spec(spec)
        else:
            raise _core.ConfigError(f"spec = {spec!r} is invalid: a string such as 'torus:8x8'")

    @classmethod
    def from_spec(cls, spec: str) -> "Topology":
        """Parse and build; raises :class:`hpcnetsim.ConfigError` on a bad spec."""
        if not isinstance(spec, str):
            raise _core.ConfigError(f"spec = {spec!r} is invalid: a string such as 'torus:8x8'")
        return cls(spec)

    def describe(self) -> dict[str, Any]:
        """Properties, throughput bounds and costs, keyed as in ``topo describe --json``."""
        d = self._core.describe()
        return {k: d[k] for k in DESCRIBE_KEYS}

    def cost(self, table=None) -> dict[str, Any]:
        """Racks, cables by type and length, price and power (docs/cost.md); ``table`` is a
        cost-table file or a dict overriding the defaults of ``cost_table.toml``."""
        from .cost import cost

        return cost(self, table)

    def export(self, format: str) -> str:
        """The graph as ``graphml``, ``dot`` or ``json`` text."""
        return self._core.export(format)

    def to_networkx(self):
        """An undirected :class:`networkx.MultiGraph`: nodes ``("s", i)`` for switches and
        ``("t", i)`` for terminals; every link is an edge with the ports at both ends."""
        import networkx as nx

        g = nx.MultiGraph(spec=self.spec, family=self.family)
        for s in range(self.num_switches):
            g.add_node(
                ("s", s),
                kind="switch",
                level=self._core.switch_level(s),
                coordinates=tuple(self._core.switch_coordinates(s)),
            )
        for t, s, p in self._core.terminal_links():
            g.add_node(("t", t), kind="terminal")
            g.add_edge(("t", t), ("s", s), ports={("t", t): 0, ("s", s): p})
        for a, pa, b, pb in self._core.links():
            g.add_edge(("s", a), ("s", b), ports={("s", a): pa, ("s", b): pb})
        return g

    def __getattr__(self, name: str):
        attr = getattr(self._core, name)
        if not callable(attr):
            return attr

        def checked(*args, **kwargs):
            # The core's indices are unsigned: a negative one fails the conversion itself.
            try:
                return attr(*args, **kwargs)
            except OverflowError:
                given = ", ".join(map(repr, args))
                raise _core.ConfigError(
                    f"{name}({given}) is invalid: switch, terminal and port indices are integers from 0"
                ) from None

        checked.__doc__ = attr.__doc__
        return checked

    def __dir__(self):
        # The core's methods too, for help() and a notebook's completion.
        return sorted({*super().__dir__(), *(n for n in dir(self._core) if not n.startswith("_"))})

    # A spec builds the same network every time: a topology is the value of its spec, copied
    # and pickled (to a sweep's workers) as the spec and rebuilt from it.
    def _located(self) -> str:
        """The spec with the files it names made absolute (the same network from any folder)."""
        return _core.spec_relative_to(self.spec, self._folder)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Topology):
            return NotImplemented
        return self._located() == other._located()

    def __hash__(self) -> int:
        return hash(self._located())

    def __reduce__(self):
        return (Topology, (self._located(),))

    def __repr__(self) -> str:
        return repr(self._core)


def describe(spec: str) -> dict[str, Any]:
    """Shorthand for ``Topology.from_spec(spec).describe()``."""
    return Topology.from_spec(spec).describe()
