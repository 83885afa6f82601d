"""The exceptions the engine raises, so callers can tell bad input from bugs."""


class PalaisError(ValueError):
    """Base class of every error caused by input the engine was given."""


class IllegalAction(PalaisError):
    """An action that is not legal in the position it was applied to."""


class NotationError(PalaisError):
    """A token, turn, position string or game record that cannot be read; says where and why."""
