"""The task every executor runs: one simulation, its failure caught and returned as text."""

from __future__ import annotations

from . import _core


def run_point(config_json: str) -> tuple[str | None, str | None]:
    """``(result_json, None)`` for a completed simulation, ``(None, error)`` if it raised."""
    try:
        return _core.simulate(config_json), None
    except Exception as e:  # noqa: BLE001 - a point's failure is data, recorded in the store
        return None, f"{type(e).__name__}: {e}"
