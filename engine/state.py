"""The fast game state: `State`, the Cython struct behind the rules core's Python API.

Import it from here. `engine.reference.ReferenceState` is its plain-Python twin with the same
API; see docs/architecture.md for how the two are kept in agreement.
"""

from ._state import State

__all__ = ["State"]
