"""hpcnetsim: model, simulate and evaluate the interconnection networks of supercomputers."""

from ._core import ConfigError, __version__
from .topology import Topology, describe

__all__ = ["ConfigError", "Topology", "describe", "__version__"]
