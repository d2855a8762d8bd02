"""hpcnetsim: model, simulate and evaluate the interconnection networks of supercomputers."""

from ._core import ConfigError, __version__
from .config import apply_overrides, load_config
from .routing import route
from .simulation import SimulationResult, execute, load_curve, simulate
from .store import results
from .topology import Topology, describe

__all__ = [
    "ConfigError",
    "SimulationResult",
    "Topology",
    "__version__",
    "apply_overrides",
    "describe",
    "execute",
    "load_config",
    "load_curve",
    "results",
    "route",
    "simulate",
]
