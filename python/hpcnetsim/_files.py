"""Output files are written whole or not at all: write to a temporary name, then rename."""

from __future__ import annotations

import errno
import os
from pathlib import Path

# Names for annotations only: importing `typing` costs start-up time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def atomic_write(path: Path, write: Callable[[Path], None], parents: bool = True) -> None:
    """Call ``write(tmp)`` and move ``tmp`` onto ``path`` only if it succeeded.

    A symbolic link is followed: its target is replaced and the link kept. A FIFO, device or
    socket at ``path`` is written directly: renaming onto it would replace the special file
    (``-o /dev/stdout`` would destroy the device node when run as root). ``parents``: create
    missing folders (for files inside an output folder); without it a missing folder is an
    error, as for a single file the user named. Errors name ``path``, never the temporary file.
    """
    import stat
    import tempfile  # imports shutil and the compression modules: only when writing

    from ._core import ConfigError

    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # of the link's target
    except FileNotFoundError:
        mode = None
    except OSError as e:  # a symlink loop, a folder we may not search
        raise OSError(e.errno, e.strerror, os.fspath(path)) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise ConfigError(f"{os.fspath(path)}: is a folder: give the name of a file to write")
    if mode is not None and not stat.S_ISREG(mode):
        try:
            write(path)
        except OSError as e:
            raise OSError(e.errno, e.strerror, os.fspath(path)) from None
        return
    # Not resolved before: /dev/stdout leads to a pipe that has no path, but can be opened.
    target = Path(os.path.realpath(path))
    if parents:
        target.parent.mkdir(parents=True, exist_ok=True)
    elif not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no folder {target.parent}: create it first", os.fspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=target.suffix)
    except OSError as e:  # names the temporary file: the user gave `path`
        raise OSError(e.errno, e.strerror, os.fspath(path)) from None
    os.close(fd)
    try:
        write(Path(tmp))
        # mkstemp creates private files; give the result the permissions of a normal write.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError) and e.filename in (tmp, os.fspath(target), None) and e.strerror:
            # The user gave `path`: the temporary name means nothing to them.
            raise OSError(e.errno, e.strerror, os.fspath(path)) from None
        raise


def atomic_write_text(path: Path, text: str, parents: bool = True) -> None:
    """Write ``text`` to ``path`` atomically (``parents``: as :func:`atomic_write`)."""
    atomic_write(path, lambda tmp: tmp.write_text(text), parents)


def check_output_file(path: str | os.PathLike) -> None:
    """Check, before the work whose result goes there, that a single output file the user
    named (``--dump FILE``, not created with its folders) can be written: the errors
    :func:`atomic_write` with ``parents=False`` would give after the work, given now. Nothing
    is created."""
    from ._core import ConfigError

    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{os.fspath(path)}: is a folder: give the name of a file to write")
    if path.exists():
        return  # replaced, or written directly when a device or FIFO
    parent = Path(os.path.realpath(path)).parent
    if not parent.exists():
        raise FileNotFoundError(errno.ENOENT, f"no folder {parent}: create it first", os.fspath(path))
    if not parent.is_dir():
        raise ConfigError(f"{os.fspath(path)}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{os.fspath(path)}: the folder {parent} is not writable")


def check_output_folder(path: str | os.PathLike, flag: str = "--out") -> None:
    """Check the output folder ``path`` before the work whose results go there: a file in its
    place or in its path, or a folder that cannot be created or written, is a one-line
    ``ConfigError`` naming ``flag`` now, not an error after the simulation has run. Nothing is
    created: a run refused later, or interrupted, leaves no folder."""
    from ._core import ConfigError

    path = Path(path)
    existing, missing = path, None
    while not existing.exists():
        existing, missing = existing.parent, existing
    if not existing.is_dir():
        reason = "a file, not a folder" if missing is None else f"{existing} is a file"
    elif not os.access(existing, os.W_OK | os.X_OK):
        reason = "not writable" if missing is None else f"{existing} is not writable"
    elif missing is None:
        return
    else:
        # Created and removed at once: /proc and read-only file systems refuse it, though
        # access() allows root.
        try:
            os.mkdir(missing)
            os.rmdir(missing)
            return
        except OSError as e:
            reason = f"{missing}: {(e.strerror or str(e)).lower()}"
    raise ConfigError(f"{flag} = {os.fspath(path)} is invalid: {reason}: a folder to write into (created if missing)")


#: Largest config or experiment file read: such files are a few kilobytes; anything larger
#: (or endless, as /dev/zero) is not one.
MAX_TEXT_BYTES = 16 << 20


def read_text_file(path: str | os.PathLike, what: str = "a TOML file", limit: int | None = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a config or experiment file, read in bounded time: binary input
    (a NUL byte in the first 8 KiB), files over ``limit`` bytes (None: no limit, for table
    dumps), text that is not UTF-8 and a file that cannot be read (missing, a folder, no
    permission) raise a one-line ``ConfigError`` naming it, for the Python API as for the
    command line (a bare ``FileNotFoundError`` is no message for a user)."""
    from ._core import ConfigError

    try:
        with open(path, "rb") as f:
            head = f.read(8192)
            if b"\0" in head:
                raise ConfigError(f"{os.fspath(path)}: binary data (a NUL byte at byte {head.index(0)}): {what}")
            data = head + (f.read() if limit is None else f.read(limit + 1 - len(head)))
    except OSError as e:
        raise ConfigError(f"{os.fspath(path)}: cannot read {what}: {e.strerror or e}") from None
    if limit is not None and len(data) > limit:
        raise ConfigError(f"{os.fspath(path)}: larger than {limit >> 20} MiB: {what} of a few kilobytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{os.fspath(path)}: not UTF-8 text (byte {e.start}): {what}") from None
