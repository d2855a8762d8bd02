"""hpcnetsim: model, simulate and evaluate the interconnection networks of supercomputers."""

from ._core import ConfigError, __version__
from .config import apply_overrides, load_config
from .flow import ebb, mpigraph
from .program import ANY, Program
from .routing import route
from .simulation import SimulationResult, execute, load_curve, simulate
from .store import results
from .topology import Topology, describe

__all__ = [
    "ANY",
    "ConfigError",
    "Program",
    "SimulationResult",
    "Topology",
    "__version__",
    "apply_overrides",
    "describe",
    "ebb",
    "execute",
    "load_config",
    "load_curve",
    "mpigraph",
    "results",
    "route",
    "simulate",
]
