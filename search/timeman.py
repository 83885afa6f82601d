"""Time management: how much of a budget each search gets.

A clock (time left and increment, as a GUI sends them) gives one decision's search
`clock_time_ms`: a twentieth of what is left plus most of the increment, less the move
overhead (the time lost between engine and GUI), never more than is left.

A turn is several decisions (RULES.md §10). A player given a budget for the whole turn can
search once at its first decision and play the line it found (`decision_share` 0), or search
again at every decision of the turn, each time with a share of what is left of the budget
(`decision_share` > 0). With tree reuse each later search goes on in the subtree the earlier
ones built, so the later decisions of a turn are searched as deeply as the first.
"""

from __future__ import annotations

from .params import SearchLimits

MOVES_TO_GO = 20         # a clock's time is spread as if this many decisions were left
FLOOR_SHARE = 1 / 16     # a decision's search gets at least this share of the turn's budget


def decision_limits(turn: SearchLimits, spent_ms: float, spent_iterations: int,
                    share: float, spent_visits: int = 0) -> SearchLimits | None:
    """The limits of the next decision's search, `share` of what is left of `turn` (and at
    least FLOOR_SHARE of it); None when less than that floor is left: the turn then goes on
    along the line the last search found. A turn only stop() ends gives each decision the
    same (its first search runs until the stop)."""
    if turn.infinite:
        return turn
    if turn.time_ms:
        left = turn.time_ms - spent_ms
        floor = turn.time_ms * FLOOR_SHARE
        if left < floor:
            return None
        return SearchLimits(time_ms=min(left, max(floor, share * left)))
    total, spent, name = ((turn.iterations, spent_iterations, "iterations") if turn.iterations
                          else (turn.visits, spent_visits, "visits"))
    left = total - spent
    floor = max(1, int(total * FLOOR_SHARE))
    if left < floor:
        return None
    return SearchLimits(**{name: min(left, max(floor, int(share * left)))})


def floor_limits(turn: SearchLimits) -> SearchLimits:
    """The search of a decision the turn's budget no longer covers (the last line ran out
    before the turn's end): FLOOR_SHARE of the turn's budget, so the turn overruns its
    budget by at most that much per such decision."""
    if turn.infinite:
        return turn
    if turn.time_ms:
        return SearchLimits(time_ms=turn.time_ms * FLOOR_SHARE)
    if turn.iterations:
        return SearchLimits(iterations=max(1, int(turn.iterations * FLOOR_SHARE)))
    return SearchLimits(visits=max(1, int(turn.visits * FLOOR_SHARE)))


def clock_time_ms(left_ms: int, inc_ms: int, overhead_ms: int) -> int:
    """One decision's search time from a clock: left/20 + 4/5 of the increment - overhead,
    at least 1 ms and never more than what is left less the overhead."""
    want = left_ms // MOVES_TO_GO + inc_ms * 4 // 5 - overhead_ms
    return max(1, min(left_ms - overhead_ms, want))
