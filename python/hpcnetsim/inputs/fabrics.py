"""Generated fabric files: irregular real systems written in the plain edge-list format
(``edges:PATH``, docs/routing.md) so that ``route``, ``topo describe`` and simulations load them.

``paper001_fattree`` writes paper 001's 3-level fat-tree plane (TSUBAME2's surviving plane,
Domke et al., SC'19 §2.3), the ``director-tree:`` network of ``paper001_spec``, from the counts
the paper gives; see docs/routing.md, "Paper 001's fat-tree", for which facts fix which
parameter. The spec itself loads anywhere a network is named.
"""

from __future__ import annotations

from .._core import ConfigError, director_tree_edges

FABRICS = ("paper001-fattree",)


def paper001_spec(
    nodes: int = 672,
    racks: int = 24,
    edges_per_rack: int = 2,
    uplinks: int = 18,
    directors: int = 6,
    spines: int = 18,
) -> str:
    """The ``director-tree:`` spec of paper 001's fat-tree plane (defaults: 672 nodes on 48
    edge switches, two per rack, 6 directors of 8 line chips and 18 spine chips each: 204
    36-port chips). The wiring is ``topology::director_tree``'s (docs/routing.md)."""
    checks = (("nodes", nodes, 2), ("racks", racks, 1), ("edges_per_rack", edges_per_rack, 1),
              ("uplinks", uplinks, 1), ("directors", directors, 1), ("spines", spines, 1))  # fmt: skip
    for name, v, lo in checks:
        if not isinstance(v, int) or v < lo:
            raise ConfigError(f"fabric: {name} = {v!r} is invalid: an integer >= {lo}")
    edges = racks * edges_per_rack
    return (
        f"director-tree:nodes={nodes},edges={edges},directors={directors},uplinks={uplinks},spines={spines}"
    )


def paper001_fattree(**params: int) -> str:
    """Edge-list text of paper 001's fat-tree plane (parameters as :func:`paper001_spec`)."""
    spec = paper001_spec(**params)
    try:
        return director_tree_edges(spec)
    except ConfigError as e:
        # The parameters were given, not the spec built from them: name those.
        raise ConfigError(str(e).replace(f"{spec}: ", "fabric: ", 1)) from None


def generate(name: str, **params: int) -> str:
    """Edge-list text of the named generated fabric (one of ``FABRICS``)."""
    if name == "paper001-fattree":
        return paper001_fattree(**params)
    raise ConfigError(f"fabric: name = '{name}' is invalid: one of {', '.join(FABRICS)}")
