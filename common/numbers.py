"""Reading a whole number out of untrusted text without letting its length do harm.

Python's int() refuses more than 4,300 digits with a ValueError (not a NotationError), and
long runs of digits cost time before any range check can refuse them. Every reader of
records, positions and tokens converts through `natural`, which looks at the length first:
no count, seat, round or gold amount palais reads has more than a few digits.
"""

from __future__ import annotations

import re

MAX_DIGITS = 20          # significant digits (2**64 has 20); anything longer is out of every range
_DIGITS = re.compile(r"[0-9]+")


def natural(text: str) -> int | None:
    """The value of a run of decimal digits (leading zeros allowed); None if `text` is not
    one. A number of more than MAX_DIGITS significant digits comes back as 10**MAX_DIGITS,
    which is above every range palais reads, so the caller's range check refuses it."""
    if not _DIGITS.fullmatch(text):
        return None
    significant = text.lstrip("0")
    if len(significant) > MAX_DIGITS:
        return 10 ** MAX_DIGITS
    return int(significant or "0")


def integer(text: str) -> int | None:
    """`natural` with an optional leading '-' (ASCII digits only: no '+', '_' or other
    scripts' digits); None if `text` is not one. Out of range as `natural` is."""
    number = natural(text[1:] if text.startswith("-") else text)
    if number is None:
        return None
    return -number if text.startswith("-") else number


_DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]-?[0-9]+)?")


def decimal(text: str) -> float | None:
    """The value of a decimal number written in ASCII (`0.7`, `-1`, `.5`, `2e-3`); None if
    `text` is not one: no '+', '_', 'inf', 'nan' or other scripts' digits, which float()
    takes. A huge one is inf, above every range."""
    if not _DECIMAL.fullmatch(text):
        return None
    return float(text)


def shown(text: str, limit: int = 24) -> str:
    """`text` for an error message: a long one is cut, with its length said."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


__all__ = ["natural", "integer", "decimal", "shown", "MAX_DIGITS"]
