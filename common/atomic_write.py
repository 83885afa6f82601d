"""Writing a file whole or not at all, for every file the programs write (game records,
tournament runs and summaries, value-model weights).

The text goes to a new temporary file in the target's folder, is flushed to disk, and is
renamed over the target in one step: a crash or a full disk leaves the old file (or none),
never half a file.

A rename replaces whatever stands at the path, so the target must be a regular file or not
exist yet. A directory, a device (/dev/null, /dev/full), a named pipe (FIFO), a socket or a
symbolic link is refused with a TargetError naming the path and what stands there, before
anything is written. A symbolic link is refused even when it points to a regular file: the
rename would replace the link itself, not the file it points to, and following it would let
a link planted in a shared folder steer the write anywhere its writer may write. The path's
folders may be links; only its last part is checked (just before the temporary file is
made, and again just before the rename).

A new file gets mode 0o666 less the process umask, as a plain open() would give it; a
regular file that is replaced keeps its permission bits (0600 stays 0600).
"""

from __future__ import annotations

import itertools
import os
import stat

from .errors import PalaisError

_serial = itertools.count()


class TargetError(PalaisError):
    """The path to write names something other than a regular file (or nothing)."""


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"))


def _kept_mode(path: str) -> int | None:
    """The permission bits of the regular file at `path`, None if nothing is there; raises
    TargetError for anything else. (A path that cannot be looked at, say in a missing
    folder, is left to the write itself to fail on.)"""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode):
        return info.st_mode & 0o777
    kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
    raise TargetError(f"{path}: is {kind}, not a regular file: nothing written "
                      f"(give the name of a regular file, or a new one)")


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
    """Replace `path` with `text` in one step; raises TargetError (a PalaisError) when the
    path names anything but a regular file, and OSError (leaving no temporary file) when the
    folder is missing or not writable or the disk is full."""
    if not isinstance(text, str):
        raise TypeError(f"write_text_atomic needs text, not {type(text).__name__}")
    write_bytes_atomic(path, text.encode(encoding))


def write_bytes_atomic(path, data: bytes) -> None:
    """Replace `path` with `data` in one step (write_text_atomic's rules)."""
    path = os.fspath(path)
    mode = _kept_mode(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = _fresh_temporary(folder, os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        _kept_mode(path)                  # still a regular file or nothing, just before the rename
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)


__all__ = ["write_text_atomic", "write_bytes_atomic", "TargetError"]
