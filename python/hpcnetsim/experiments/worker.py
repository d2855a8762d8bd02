"""The task every executor runs: one simulation, its failure caught and returned as text.

A config with a ``workload`` table is a causal workload (``_core.execute``); any other is an
independent-traffic run (``_core.simulate``). A workload whose task count its kernel (or the
network) cannot take is not a failure: its result has ``status = "skipped"`` and the reason.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

from .. import _core
from ..units import with_physical

SKIPPED = "skipped"

#: In a local sweep's worker process, the shared count of cores each running point may use
#: (``executors.run_local`` updates it as points finish); ``None`` elsewhere (Dask, one run).
_cores = None


def share_cores(cores) -> None:
    """Called once in a worker process: the shared value ``run_point``'s runs read."""
    global _cores
    _cores = cores


def _offer_cores(_progress: dict) -> int:
    """Progress callback of a sweep's point: answers with the cores it may use now."""
    return _cores.value


#: Points running with the memory check off in this process (``run_point(..., memory_check=False)``):
#: a Dask worker may run several at once, and the check comes back on when the last one ends.
_unchecked = 0
_unchecked_lock = threading.Lock()


@contextmanager
def _memory_check(enabled: bool):
    """The memory check off for the block when ``enabled`` is false (``--no-memory-check`` of a
    sweep on Dask: the workers do not inherit the sweep's environment, as local workers do)."""
    global _unchecked
    if enabled:
        yield
        return
    with _unchecked_lock:
        _unchecked += 1
        _core.set_memory_check(False)
    try:
        yield
    finally:
        with _unchecked_lock:
            _unchecked -= 1
            if _unchecked == 0:
                _core.set_memory_check(True)  # HPCNETSIM_NO_MEMORY_CHECK, if set, still holds


def is_causal(config: dict) -> bool:
    """Whether ``config`` describes a causal workload (it has a ``workload`` table)."""
    return isinstance(config.get("workload"), dict)


def skipped_result(config: dict, reason: str) -> str:
    """The result JSON of a point that cannot run: status ``skipped``, the reason as message."""
    w = config["workload"]
    return json.dumps({"topology": config["topology"], "seed": config.get("seed"), "kernel": w.get("kernel"),
                       "tasks": w.get("tasks"), "status": SKIPPED, "message": reason})  # fmt: skip


def run_point(config_json: str, memory_check: bool = True) -> tuple[str | None, str | None]:
    """``(result_json, None)`` for a completed (or skipped) simulation, ``(None, error)`` if it raised."""
    with _memory_check(memory_check):
        return _run_point(config_json)


def _run_point(config_json: str) -> tuple[str | None, str | None]:
    config = json.loads(config_json)
    try:
        # A sweep runs its points side by side, one thread each, until fewer points remain
        # than cores: then the core hands each the idle ones (through the progress callback).
        offer = _offer_cores if _cores is not None else None
        if is_causal(config):
            from ..inputs.otf2_trace import is_otf2

            w = config["workload"]
            if w.get("trace") and is_otf2(w["trace"], w.get("format", "auto")):
                # OTF2 archives are read in Python (simulation.execute), not by the core.
                from ..simulation import execute

                return json.dumps(execute(config).to_dict()), None
            return with_physical(_core.execute(config_json, progress=offer, threads=1), config_json), None
        return with_physical(_core.simulate(config_json, progress=offer, threads=1), config_json), None
    except _core.ConfigError as e:
        if is_causal(config) and "workload.tasks = " in str(e):
            return skipped_result(config, str(e).removeprefix("config: ")), None
        return None, f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - a point's failure is data, recorded in the store
        return None, f"{type(e).__name__}: {e}"
