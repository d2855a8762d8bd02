"""Output files are written whole or not at all: write to a temporary name, then rename."""

from __future__ import annotations

import os
from pathlib import Path

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` and move ``tmp`` onto ``path`` only if it succeeded."""
    import tempfile  # imports shutil and the compression modules: only when writing

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(Path(tmp))
        # mkstemp creates private files; give the result the permissions of a normal write.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    atomic_write(path, lambda tmp: tmp.write_text(text))
