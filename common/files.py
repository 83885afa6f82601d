"""Reading the files a user hands palais: game records, position files, component sets,
value-model weights.

Every such file is untrusted input, so it is read in one place with the same rules: only a
regular file (not a directory, a pipe or a device such as /dev/zero), at most
MAX_FILE_BYTES (16 MiB, far above any real record or component set) or a smaller cap, and
strict UTF-8 for text. Each failure is a PalaisError naming the file and why.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import PalaisError

MAX_FILE_BYTES = 16 * 1024 * 1024


def read_text_file(path: str | Path, what: str, limit: int = MAX_FILE_BYTES,
                   error=PalaisError) -> str:
    """The text of a regular file of at most `limit` bytes, decoded as strict UTF-8.

    `what` names the kind of file in messages ("game record", "component file"); `error` is
    the PalaisError subclass raised.
    """
    return decode_text(read_file_bytes(path, what, limit, error), str(path), error)


def read_file_bytes(path: str | Path, what: str, limit: int = MAX_FILE_BYTES,
                    error=PalaisError) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (read_text_file's rules)."""
    label = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{label}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{label}: is a directory, not a {what}") from None
    except OSError as exc:
        raise error(f"{label}: cannot read the {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{label}: is a directory, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{label}: not a regular file (a device, pipe or socket), not a {what}")
        if info.st_size > limit:
            raise error(f"{label}: {info.st_size} bytes, more than the {_size(limit)} "
                        f"a {what} may have")
        chunks, total = [], 0
        while True:                       # the file may grow while we read: keep the cap
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise error(f"{label}: more than the {_size(limit)} a {what} may have")
    except OSError as exc:
        raise error(f"{label}: cannot read the {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def decode_text(raw: bytes, label: str, error=PalaisError) -> str:
    """`raw` decoded as strict UTF-8; `error` naming `label` and the first bad byte if not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{label}: not UTF-8 text (byte {exc.start}: "
                    f"{raw[exc.start:exc.start + 1]!r})") from None


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit} bytes"


__all__ = ["read_text_file", "decode_text", "MAX_FILE_BYTES"]
