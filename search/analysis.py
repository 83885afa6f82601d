"""The analysis core: the distinct ways a seat can finish its turn, ranked, from its own view.

Every hint and review asks this module (`palais hint`, hints inside `palais play`, PRI `hint`,
`palais analyse`, the browser GUI), so they agree and share one set of defaults.

Step 1  Search the seat's view (never the hidden cards) with ISMCTS at the engine's settings.
Step 2  Walk the tree along every line of the seat's own decisions, to the end of its turn (or
        its own card draw), through edges that hold at least a share of the iterations.
Step 3  Lines that reach the same position are one candidate (card plays at different windows,
        moves in another order); it keeps the statistics of its most visited line.
Step 4  Rank what the seat can still achieve: the win probability first (in whole percent, as
        shown), then the expected score, so a seat that cannot win, or cannot lose, is still
        told which turn scores most.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import PalaisError
from engine.views import view_for

from .mcts import MCTSSearch, most_visited_line, turn_goes_on
from .params import SearchLimits, SearchParams
from .result import Candidate

DEFAULT_ITERATIONS = 20_000      # the hint budget when none is given (about a second)
FIRST_SHARE = 0.05               # a line needs this share of the iterations to be a candidate ...
MAX_LINES = 4096                 # ... (halved until there are enough); lines walked at the most


@dataclass
class TurnAnalysis:
    seat: int
    candidates: list             # Candidate: distinct turns, best first
    iterations: int
    time_ms: float
    root_win: list               # every seat's win probability before the turn
    root_score: list             # every seat's expected score before the turn


def check_decision(state) -> int:
    """The seat to move, or a PalaisError saying why there is no decision to analyse."""
    if state.is_terminal():
        raise PalaisError("the game is over: there is no decision to hint")
    if state.is_chance():
        raise PalaisError(f"a card draw by seat {state.to_move + 1} is due, not a decision")
    return state.to_move


def turn_end_key(state, turn, seat: int):
    """The key of the position `turn` reaches from `state`, as `seat` knows it: two turns
    with the same key are one candidate."""
    after = state.copy()
    for action in turn:
        after.apply(action)
    return after.info_key(seat)


def rank_key(candidate: Candidate, seat: int):
    """Win probability in whole percent (as shown), then expected score, then visits."""
    return (-round(100 * candidate.win_prob[seat]), -round(candidate.expected_score[seat], 1),
            -candidate.visits)


def distinct_turns(tree, root, seat: int, top: int, min_visits: int) -> list:
    """Step 2-3: the candidates whose every decision has at least `min_visits` visits."""
    best_by_position = {}
    turn_round = root.round              # the turn ends with this round (search/mcts.py)
    stack = [(root, [], None)]
    walked = 0
    while stack and walked < MAX_LINES:
        state, line, edge = stack.pop()
        walked += 1
        edges = tree.node_edges(tree.key_for(state)) if (not line or turn_goes_on(state, seat, turn_round)) else None
        children = [e for e in edges or [] if e.visits >= min_visits]
        if children:
            for e in children:
                child = state.copy()
                child.apply(e.action)
                stack.append((child, line + [e.action], e))
            continue
        if edge is None:
            continue
        rest, end = most_visited_line(tree, state, seat, turn_round)
        position = end.info_key(seat)
        known = best_by_position.get(position)
        if known is None or edge.visits > known.visits:
            best_by_position[position] = Candidate.from_edge(line + rest, edge)
    return sorted(best_by_position.values(), key=lambda c: rank_key(c, seat))[:top]


def analyse_turn(state, limits: SearchLimits | None = None, top: int = 3, seed: int = 0,
                 params: SearchParams | None = None, callback=None, stop=None) -> TurnAnalysis:
    """The `top` best distinct ways for the seat to move to finish its turn (Steps 1-4).
    `stop` (optional, a threading.Event): once it is set, the search ends at the end of its
    current chunk of iterations and the analysis ranks what it has searched so far."""
    seat = check_decision(state)
    if top < 1:
        raise PalaisError("top must be at least 1")
    view = view_for(state, seat)
    params = (params or SearchParams()).with_(algorithm="ismcts", processes=1, seed=seed)
    if params.leaf_eval == "auto":
        # a hint reports expected final scores: its rollouts run to the end (the learned
        # value's cutoff would report the static estimate there instead)
        params = params.with_(leaf_eval="heuristic")
    searcher = MCTSSearch(params)

    def progress(p):
        if stop is not None and stop.is_set():
            searcher.stop()
        if callback is not None:
            callback(p)
    result = searcher.search(view, seat, limits or SearchLimits(iterations=DEFAULT_ITERATIONS),
                             callback=progress if (callback is not None or stop is not None) else None, top_k=1)
    tree = searcher.last_tree
    min_visits = max(1, int(FIRST_SHARE * result.iterations))
    while True:
        candidates = distinct_turns(tree, view, seat, top, min_visits)
        if len(candidates) >= top or min_visits == 1:
            break
        min_visits = max(1, min_visits // 2)
    return TurnAnalysis(seat, candidates, result.iterations, result.time_ms,
                        list(result.stats["root_win"]), list(result.stats["root_score"]))
