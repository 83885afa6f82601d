"""perft for any rules implementation: the standard cross-check of move generation.

perft(d) counts the sequences of d decisions and chance events that can follow a position
(a chance event branches once per card type; a game that ends early counts 0; RULES.md §10).
The Cython `State` has a fast C version (`State.perft`); these functions work on either
implementation through the Python API, so the reference twin checks the Cython counts.

`perft(state, depth, stop=...)` can be interrupted (PRI `perft` runs it on a worker thread,
and `stop` or `quit` must end it): `stop()` is asked between nodes, and the subtrees of
FAST_DEPTH plies or fewer are counted by the state's own `perft` (the C one, which releases
the GIL) when it has one, so each step between two questions is short. The count is the same.
"""

from .errors import PalaisError

FAST_DEPTH = 3      # a stoppable count hands subtrees this shallow to the state's own perft


class PerftStopped(PalaisError):
    """A stoppable perft was stopped; `counted` is what it had counted by then (the finished
    subtrees: a part of the whole count, not an estimate of it)."""

    def __init__(self, depth: int, counted: int):
        super().__init__(f"perft {depth} stopped after counting {counted} nodes")
        self.depth = depth
        self.counted = counted


def perft(state, depth: int, stop=None) -> int:
    """The count of RULES.md §10. `stop` (optional): a callable asked between nodes; once it
    returns true, PerftStopped is raised with the count so far."""
    if depth < 0:
        raise PalaisError("perft depth must be >= 0")
    if stop is not None:
        tally = [0]
        try:
            _count(state, depth, stop, tally)
        except _Stop:
            raise PerftStopped(depth, tally[0]) from None
        return tally[0]
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


class _Stop(Exception):
    pass


def _count(state, depth: int, stop, tally: list) -> None:
    """Add perft(state, depth) to tally[0], asking stop() before each node."""
    if stop():
        raise _Stop
    if depth == 0:
        tally[0] += 1
        return
    if state.is_terminal():
        return
    fast = getattr(state, "perft", None)
    if depth <= FAST_DEPTH and fast is not None:
        tally[0] += fast(depth)
        return
    legal = state.legal_actions()
    if depth == 1:
        tally[0] += len(legal)
        return
    for action in legal:
        child = state.copy()
        child.apply(action)
        _count(child, depth - 1, stop, tally)


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
