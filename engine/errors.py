"""The kinds of bad input the rules tell apart, on the one base `PalaisError` (common/errors.py)."""

from common.errors import PalaisError

__all__ = ["PalaisError", "IllegalAction", "NotationError"]


class IllegalAction(PalaisError):
    """An action that is not legal in the position it was applied to."""


class NotationError(PalaisError):
    """A token, turn, position string or game record that cannot be read; says where and why."""
