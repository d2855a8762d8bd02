"""hpcnetsim: model, simulate and evaluate the interconnection networks of supercomputers."""

from ._core import ConfigError, __version__

# The core names its module "_core": the public name lets a ConfigError pickle (raised in a
# worker process and sent back) and reads as hpcnetsim.ConfigError in tracebacks.
ConfigError.__module__ = __name__

#: Where each public name lives. Modules load on first use, so a CLI command pays only for
#: the modules it needs (start-up is part of every run).
_EXPORTS = {
    "ANY": "program",
    "Program": "program",
    "SimulationResult": "simulation",
    "Topology": "topology",
    "apply_overrides": "config",
    "check_deadlock": "routing",
    "describe": "topology",
    "ebb": "flow",
    "execute": "simulation",
    "load_config": "config",
    "load_curve": "simulation",
    "mpigraph": "flow",
    "results": "experiments.store",
    "route": "routing",
    "simulate": "simulation",
}

__all__ = ["ConfigError", "__version__"] + list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'hpcnetsim' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
