"""perft for any rules implementation: the standard cross-check of move generation.

perft(d) counts the sequences of d decisions and chance events that can follow a position
(a chance event branches once per card type; a game that ends early counts 0; RULES.md §10).
The Cython `State` has a fast C version (`State.perft`); these functions work on either
implementation through the Python API, so the reference twin checks the Cython counts.
"""

from .errors import PalaisError


def perft(state, depth: int) -> int:
    if depth < 0:
        raise PalaisError("perft depth must be >= 0")
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    legal = state.legal_actions()
    if depth == 1:
        return len(legal)
    total = 0
    for action in legal:
        child = state.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def perft_divide(state, depth: int) -> list:
    """[(action, count)] for each legal action: the per-action split of perft(depth)."""
    if depth < 1:
        raise PalaisError("perft divide needs depth >= 1")
    out = []
    for action in state.legal_actions():
        child = state.copy()
        child.apply(action)
        fast = getattr(child, "perft", None)    # the Cython state counts in C
        out.append((action, fast(depth - 1) if fast is not None else perft(child, depth - 1)))
    return out
