"""Writing a file whole or not at all, for every file the programs write (game records,
tournament runs and summaries, value-model weights).

The text goes to a new temporary file in the target's folder, is flushed to disk, and is
renamed over the target in one step: a crash or a full disk leaves the old file (or none),
never half a file. The temporary file is created with mode 0o666 and the process umask, so
the result has the mode a plain open() would give it.
"""

from __future__ import annotations

import itertools
import os

_serial = itertools.count()


def _fresh_temporary(folder: str, name: str) -> tuple[int, str]:
    """An open descriptor and the path of a new file next to the target (never an existing one)."""
    while True:
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{next(_serial)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable, where the system allows opening a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text_atomic(path, text: str, encoding: str = "utf-8") -> None:
    """Replace `path` with `text` in one step; raises OSError (and leaves no temporary file)
    when the folder is missing or not writable or the disk is full."""
    if not isinstance(text, str):
        raise TypeError(f"write_text_atomic needs text, not {type(text).__name__}")
    write_bytes_atomic(path, text.encode(encoding))


def write_bytes_atomic(path, data: bytes) -> None:
    """Replace `path` with `data` in one step (write_text_atomic's rules)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = _fresh_temporary(folder, os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)
