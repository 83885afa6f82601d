"""Reading a file of JSON lines that a program appends to as it goes: a tournament's
games.jsonl (tournament/store.py), `palais train`'s games.jsonl (search/train.py) and
bench/tune.py's --record file.

A kill in the middle of an append leaves the last line cut short: the file then does not end
with a newline, and its last line is not JSON. Such a line is dropped (its game is played
again), and the caller that owns the file rewrites it without that line (`mend`), so the next
append starts on a line of its own instead of being glued to the torn one. A last line that
is whole but lacks its newline (a kill between the two) is kept, and `mend` adds the newline.
A line that cannot be read anywhere else, or a last line that is JSON but not a line of the
file's kind, is damage no kill makes: a PalaisError naming the file and the line number.
"""

from __future__ import annotations

import json
import os
from typing import Callable, NamedTuple

from .atomic_write import write_text_atomic
from .errors import PalaisError
from .files import read_file_bytes

MAX_JSON_LINES_BYTES = 1 << 30       # far above any run's file (a game's line is < 1 KiB)


class JsonLines(NamedTuple):
    values: list        # the value of each whole line, in order (check()'s result)
    text: str           # what the file should hold: the whole lines, each ending with "\n"
    mend: bool          # the file differs from `text`: a torn last line, or no last newline


def read_json_lines(path, what: str | Callable[[int], str], check: Callable | None = None,
                    limit: int = MAX_JSON_LINES_BYTES, error=PalaisError) -> JsonLines | None:
    """The lines of the JSON-lines file at `path` (None if there is no such file).

    `check(value, number)` (number 1-based) returns what to keep of a decoded line, or
    raises ValueError, KeyError or TypeError when the line is not `what` (a game line of this
    run; or what(number), when lines differ by their place): that is
    `error(f"{path}, line {number}: not {what}")`. A PalaisError it raises passes through as
    it is. The file must be a regular file of at most `limit` bytes
    (common/files.py's rules)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        pass                                  # read_file_bytes says why
    raw = read_file_bytes(path, "JSON-lines file", limit, error)
    pieces = raw.split(b"\n")
    tail = pieces.pop()                       # b"" when the file ends with a newline
    values, kept = [], []
    for number, piece in enumerate(pieces, 1):
        values.append(_line(path, what, check, piece, number, error))
        kept.append(piece)
    if tail:                                  # no newline after the last line
        try:
            value = _decoded(tail)
        except ValueError:
            pass                              # cut short by a kill: dropped
        else:
            values.append(_checked(path, what, check, value, len(pieces) + 1, error))
            kept.append(tail)
    text = b"".join(piece + b"\n" for piece in kept).decode("utf-8")
    return JsonLines(values, text, bool(tail))


def _decoded(piece: bytes):
    """The JSON value of one line; ValueError if it is not UTF-8 JSON (nested too deep for
    Python's parser included)."""
    try:
        return json.loads(piece.decode("utf-8"))
    except RecursionError:
        raise ValueError("nested too deep") from None


def _line(path, what, check, piece: bytes, number: int, error):
    try:
        value = _decoded(piece)
    except ValueError:                         # UnicodeDecodeError and JSONDecodeError too
        raise error(f"{path}, line {number}: not {_named(what, number)} (not JSON)") from None
    return _checked(path, what, check, value, number, error)


def _checked(path, what, check, value, number: int, error):
    if check is None:
        return value
    try:
        return check(value, number)
    except PalaisError:
        raise
    except (ValueError, KeyError, TypeError, IndexError):
        raise error(f"{path}, line {number}: not {_named(what, number)}") from None


def _named(what, number: int) -> str:
    return what(number) if callable(what) else what


def mend(path, lines: JsonLines) -> None:
    """Rewrite `path` in one step as the whole lines `lines` holds, if it needs it (a torn
    last line dropped, a missing newline added). Raises OSError or TargetError as
    common/atomic_write.py does. Only the file's owner, after checking the file is its own,
    should mend: a file still being appended to by another process would lose that line."""
    if lines.mend:
        write_text_atomic(path, lines.text)


__all__ = ["JsonLines", "read_json_lines", "mend", "MAX_JSON_LINES_BYTES"]
