"""Where a result comes from: the hpcnetsim version, a build identity covering both the
compiled core and this Python package, the config's hash and its seed.

The core's ``BUILD_ID`` hashes its Rust sources (``crates/hpcnetsim-core/build.rs``); the
package's hash covers its ``.py`` files, which compute part of every result (physical units,
flattening, the CLI's tables), so that two results with the same ``build_id`` were computed
by the same code.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from . import _core

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@functools.cache
def package_build_id() -> str:
    """:func:`sources_hash` of this package's folder (computed once per process)."""
    return sources_hash(Path(__file__).parent)


def sources_hash(root: Path) -> str:
    """SHA-256 (16 hex digits) over the relative paths and contents of the ``.py`` files under ``root``."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@functools.cache
def build_id() -> str:
    """The identity of this build: the core's ``BUILD_ID`` and :func:`package_build_id` together."""
    return hashlib.sha256(f"{_core.BUILD_ID}:{package_build_id()}".encode()).hexdigest()[:16]


def config_hash(config: dict[str, Any]) -> str:
    """SHA-256 of the canonical config (every default filled in), so that equal configs written
    differently hash alike; of the config as given when the core cannot complete it."""
    from .canonical import canonical_config

    try:
        doc = canonical_config(config)
    except (_core.ConfigError, TypeError, ValueError):
        doc = config
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def provenance(config: dict[str, Any]) -> dict[str, Any]:
    """The ``provenance`` table of ``result.json`` and ``curve.json``."""
    return {
        "hpcnetsim_version": _core.__version__,
        "build_id": build_id(),
        "core_build_id": _core.BUILD_ID,
        "package_build_id": package_build_id(),
        "config_hash": config_hash(config),
        "seed": config.get("seed", 1),
    }
