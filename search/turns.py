"""A whole turn from a player: the actions a seat takes up to the end of its turn or its own
card draw, within a budget for the turn.

This is the one place that owns "play a turn": every in-process caller (self-play, the
benchmarks, the engine seats of `palais play` and of the browser) and the PRI engine's `go`
(protocol/engine.py) ask here, so a player spends its turn budget the same way everywhere
and an in-process seat plays exactly as `palais-engine` does with the same settings. With
`decision_share` 0 the player searches once and its best line is the turn; with a share > 0
it searches at each decision, each time with that share of what is left of the budget
(search/timeman.py), going on in the same tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .algorithms import algorithm
from .params import SearchLimits
from .result import SearchResult
from .timeman import decision_limits, floor_limits


@dataclass
class TurnPlay:
    """A turn as play_turn() chose it: its actions, the searches made, the first one (from
    the turn's position: its candidates are the turn's alternatives) and what all of them
    spent together."""
    actions: list
    searches: int
    first: SearchResult | None
    iterations: int = 0
    node_visits: int = 0
    time_ms: float = 0.0


def choose_turn(player, state, seat: int, turn_limits: SearchLimits, sees_all: bool = False,
                callback=None):
    """(actions, searches made) for `seat`, to move in `state` (which is not changed): play_turn()."""
    turn = play_turn(player, state, seat, turn_limits, sees_all, callback)
    return turn.actions, turn.searches


def play_turn(player, state, seat: int, turn_limits: SearchLimits, sees_all: bool = False,
              callback=None, stopped=None, later_callback=None) -> TurnPlay:
    """The turn of `seat`, to move in `state` (a full state, or `seat`'s own view; not
    changed). The player is shown `seat`'s view unless `sees_all` (the cheating reference).
    `callback` is passed to the first search (its progress, search/result.py's Progress),
    `later_callback` (default: `callback`) to the searches at the turn's later decisions.
    Once `stopped()` is true no search is started: the turn goes on along the last line, to
    its end (a caller asks again for the rest of the turn, as after a line cut short)."""
    params = getattr(player, "params", None)
    share = getattr(params, "decision_share", 0.0)
    registered = algorithm(getattr(params, "algorithm", ""))
    later_callback = callback if later_callback is None else later_callback

    def search(position, limits, first):
        chosen = callback if first else later_callback
        extra = {} if chosen is None else {"callback": chosen}   # (players made for tests may lack it)
        own = position if sees_all or position.observer == seat else position.view(seat)
        return player.search(own, seat, limits, **extra)

    if share <= 0 or registered is None or not registered.tree_search:
        result = search(state, turn_limits, True)
        return TurnPlay(list(result.best_turn), 1, result, result.iterations, result.node_visits,
                        result.time_ms)
    state = state.copy()
    turn_round = state.round         # the turn ends with its round (search/mcts.turn_goes_on)
    actions, line, first = [], [], None
    spent_ms, spent_iterations, spent_visits, searches = 0.0, 0, 0, 0
    while not state.is_terminal() and not state.is_chance() and state.to_move == seat \
            and state.round == turn_round:
        limits = decision_limits(turn_limits, spent_ms, spent_iterations, share, spent_visits)
        halted = first is not None and stopped is not None and stopped()
        if (limits is None or halted) and line and line[0] in state.legal_actions():
            action = line.pop(0)                    # the budget is spent: go on along the line
        elif halted:
            break                                   # stopped at the line's end: the turn so far
        else:
            limits = limits or floor_limits(turn_limits)   # the line ran out: a short search
            result = search(state, limits, first is None)
            first = first or result
            searches += 1
            spent_ms += result.time_ms
            spent_iterations += result.iterations
            spent_visits += result.node_visits
            if not result.best_turn:
                break
            action, line = result.best_turn[0], list(result.best_turn[1:])
        actions.append(action)
        state.apply(action)
    return TurnPlay(actions, searches, first, spent_iterations, spent_visits, spent_ms)
