"""A whole turn from a player: the actions a seat takes up to the end of its turn or its own
card draw, within a budget for the turn.

Every in-process caller that wants a turn (self-play, the benchmarks, engine seats of
`palais play`) asks here, so a player's way of spending its turn budget is the same
everywhere. With `decision_share` 0 the player searches once and its best line is the turn;
with a share > 0 it searches at each decision, each time with that share of what is left of
the budget (search/timeman.py), going on in the same tree.
"""

from __future__ import annotations

from .algorithms import algorithm
from .params import SearchLimits
from .timeman import decision_limits


def choose_turn(player, state, seat: int, turn_limits: SearchLimits, sees_all: bool = False,
                callback=None):
    """(actions, searches made) for `seat`, to move in `state` (which is not changed). The
    player is shown `seat`'s view unless `sees_all` (the cheating reference). `callback` is
    passed to each search (its progress, search/result.py's Progress)."""
    params = getattr(player, "params", None)
    extra = {} if callback is None else {"callback": callback}   # (players made for tests may lack it)
    share = getattr(params, "decision_share", 0.0)
    sees = state if sees_all else state.view(seat)
    registered = algorithm(getattr(params, "algorithm", ""))
    if share <= 0 or registered is None or not registered.tree_search:
        return list(player.search(sees, seat, turn_limits, **extra).best_turn), 1
    state = state.copy()
    turn_round = state.round         # the turn ends with its round (search/mcts.turn_goes_on)
    actions, line = [], []
    spent_ms, spent_iterations, searches = 0.0, 0, 0
    while not state.is_terminal() and not state.is_chance() and state.to_move == seat \
            and state.round == turn_round:
        limits = decision_limits(turn_limits, spent_ms, spent_iterations, share)
        if limits is None and line and line[0] in state.legal_actions():
            action = line.pop(0)                    # the budget is spent: go on along the line
        else:
            limits = limits or SearchLimits(iterations=1)
            result = player.search(state if sees_all else state.view(seat), seat, limits, **extra)
            searches += 1
            spent_ms += result.time_ms
            spent_iterations += result.iterations
            if not result.best_turn:
                break
            action, line = result.best_turn[0], list(result.best_turn[1:])
        actions.append(action)
        state.apply(action)
    return actions, searches
