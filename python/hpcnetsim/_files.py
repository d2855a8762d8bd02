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


#: Largest config or experiment file read: such files are a few kilobytes; anything larger
#: (or endless, as /dev/zero) is not one.
MAX_TEXT_BYTES = 16 << 20


def read_text_file(path: str | os.PathLike, what: str = "a TOML file", limit: int | None = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a config or experiment file, read in bounded time: binary input
    (a NUL byte in the first 8 KiB), files over ``limit`` bytes (None: no limit, for table
    dumps) and text that is not UTF-8 raise a one-line ``ConfigError``; a missing file raises
    ``OSError``."""
    from ._core import ConfigError

    with open(path, "rb") as f:
        head = f.read(8192)
        if b"\0" in head:
            raise ConfigError(f"{os.fspath(path)}: binary data (a NUL byte at byte {head.index(0)}): {what}")
        data = head + (f.read() if limit is None else f.read(limit + 1 - len(head)))
    if limit is not None and len(data) > limit:
        raise ConfigError(f"{os.fspath(path)}: larger than {limit >> 20} MiB: {what} of a few kilobytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{os.fspath(path)}: not UTF-8 text (byte {e.start}): {what}") from None
