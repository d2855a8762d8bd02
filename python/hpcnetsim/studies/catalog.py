"""Built-in studies: the experiment files of the ``studies/`` folder, each reproducing a paper's figure."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from .._core import ConfigError


def studies_dir() -> Path:
    """``$HPCNETSIM_STUDIES``, else the ``studies/`` folder of the source tree, else ``./studies``."""
    if os.environ.get("HPCNETSIM_STUDIES"):
        return Path(os.environ["HPCNETSIM_STUDIES"])
    beside = Path(__file__).resolve().parents[3] / "studies"  # python/hpcnetsim/studies/catalog.py
    return beside if beside.is_dir() else Path("studies")


def available() -> dict[str, Path]:
    """Study name → its experiment file."""
    folder = studies_dir()
    return {p.stem: p for p in sorted(folder.glob("*.toml"))} if folder.is_dir() else {}


def find(name: str) -> Path:
    """The experiment file of study ``name``."""
    found = available()
    if name not in found:
        allowed = ", ".join(found) or f"none found in {studies_dir()}"
        raise ConfigError(f"study = {name!r} is invalid: one of {allowed}")
    return found[name]


def title(path: Path) -> str:
    """The study's title line (its name if it has none or cannot be read)."""
    try:
        return str(tomllib.loads(path.read_text()).get("title", path.stem))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return path.stem
