"""`PalaisError`: the one base of every error caused by input a program was given.

Callers tell bad input (a PalaisError, shown to the user as one line) from bugs (anything
else). The rules add their own kinds in engine/errors.py.
"""


class PalaisError(ValueError):
    """Base class of every error caused by input the programs were given."""
