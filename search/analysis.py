"""The analysis core: the distinct ways a seat can finish its turn, ranked, from its own view.

Every hint and review asks this module (`palais hint`, hints inside `palais play`, PRI `hint`,
`palais analyse`, the browser GUI), so they agree and share one set of defaults.

Step 1  Search the seat's view (never the hidden cards) with ISMCTS at the engine's settings.
Step 2  Walk the tree along every line of the seat's own decisions, to the end of its turn (or
        its own card draw), through edges that hold at least a share of the iterations.
Step 3  Lines that reach the same position are one candidate (card plays at different windows,
        moves in another order); it keeps the statistics of its most visited line.
Step 4  Fair values (TurnValuer): the tree's statistics of a deep line rest on few visits, and
        the largest of many such noisy numbers always looks better than it is (the winner's
        curse). So the tree only picks the FAIR_CANDIDATES most visited distinct turns (plus
        any more `top` asks for); each is then valued by a search of its own from the
        position it reaches, from the mover's view, all with the same iterations and the same
        seed (common random numbers), with the evaluator the engine plays with (leaf_eval=auto:
        the learned value at a short rollout's cutoff). A review values the played turn with
        the very same valuer, so a loss comes from the moves, not from noise or selection.
Step 5  Rank what the seat can still achieve: the fair win probability first (in whole percent,
        as shown), then the fair expected score, so a seat that cannot lose is still told
        which turn scores most. When the seat can no longer win whichever of the
        FAIR_CANDIDATES it plays (each under OPEN_MARGIN), they are valued again by rollouts
        to the game's end (share_valuer) and ranked by the seat's share of the VP: the
        cut-off evaluation barely tells such turns apart. The FAIR_CANDIDATES most visited
        are ranked first, so asking for more hints never changes which turn is best; and the
        most visited (the turn the engine would play) stays first unless another beats it by TIE_LOSS in
        search/measure.py's loss, so a tie within the noise does not swap with the seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from engine.errors import PalaisError
from engine.rng import Rng
from engine.views import view_for

from .measure import OPEN_MARGIN, turn_loss, vp_share
from .mcts import MCTSSearch, most_visited_line, turn_goes_on
from .params import SHIPPED_POLICY, SHIPPED_VALUE, SearchLimits, SearchParams
from .result import Candidate

DEFAULT_ITERATIONS = 20_000      # the hint budget when none is given (about a second)
FAIR_CANDIDATES = 3              # the most visited distinct turns that are valued fairly
FAIR_SHARE = 0.5                 # each fair valuation: this share of the tree search's iterations
MIN_FAIR_ITERATIONS = 256        # ... and at least this many
FAIR_SEED = 0x5F3759DF           # the valuations' seed, mixed with the analysis seed
TIE_LOSS = 0.02                  # a fairly valued turn must beat the most visited by this much
                                 # (search/measure.py's loss) to rank before it
TIME_SHARE = 0.4                 # with a time limit: the tree search's share of the time
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
    valuer: "TurnValuer" = None  # the fair valuer of this turn's end positions (Step 4)


@dataclass
class TurnValuer:
    """Step 4: values the position a line of `seat`'s turn reaches from `view`, every line on
    equal terms: a search from that position, from `seat`'s view, of `iterations` iterations
    with the same params and seed (common random numbers); every seat's (win probabilities,
    expected scores). A finished game is valued by its result. Lines that reach the same
    position get the same values (the cache), so a played turn that is the best candidate
    loses exactly 0."""

    view: object
    seat: int
    params: SearchParams
    iterations: int
    cache: dict = field(default_factory=dict)

    def values(self, line) -> tuple:
        after = self.view.copy()
        for action in line:
            after.apply(action)
        key = after.info_key(self.seat)
        if key not in self.cache:
            after = finish_setup(after, self.params, self.iterations)
            if after.is_terminal():
                self.cache[key] = (list(after.returns()), [float(x) for x in after.scores()])
            else:
                result = MCTSSearch(self.params).search(
                    after, self.seat, SearchLimits(iterations=self.iterations), top_k=1)
                self.cache[key] = (list(result.stats["root_win"]), list(result.stats["root_score"]))
        return self.cache[key]

    def candidate(self, turn, visits: int) -> Candidate:
        win, score = self.values(turn)
        return Candidate(turn=list(turn), visits=visits, win_prob=list(win), expected_score=list(score))


def share_valuer(valuer: TurnValuer) -> TurnValuer:
    """A valuer of the same view, seat, budget and seed whose rollouts run to the end of the
    game with the heuristic policy: the VP share of a line once the game is decided for its
    mover. The evaluation the engine plays with (the learned value at a cutoff two rounds on,
    the expected scores there from the static evaluation) pulls a seat's share towards the
    even share and barely tells such lines apart: over 22 decided turns of the stored
    3-player review games, its share differences between the review's best and the played
    line correlated 0.23 with what 30 playouts of each line to the end showed, these 0.85,
    at the playouts' scale (bench/review_playouts.py; docs/play.md)."""
    params = valuer.params.with_(leaf_eval="heuristic", rollout_turns=-1, value_weights="")
    if params == valuer.params:
        return valuer
    return TurnValuer(valuer.view, valuer.seat, params, valuer.iterations)


def lost_whatever(candidates, seat: int) -> bool:
    """Whether `seat` can no longer win whichever of `candidates` it plays: each one's win
    probability is under OPEN_MARGIN (search/measure.py). A seat sure to win is not ranked by
    its share: its turns are judged on keeping the win, which the engine's own evaluation
    values; rollouts would mark it for VP a heuristic policy could add to a won game."""
    return bool(candidates) and all(c.win_prob[seat] < OPEN_MARGIN for c in candidates)


def finish_setup(state, params: SearchParams, iterations: int):
    """`state` with the rest of the setup placed (a copy), each later seat placing as the engine
    would: the most visited turn of a search from that seat, `iterations` iterations, `params`.
    A setup placement is so valued against the placements it will meet: a search of the
    mover's own view spreads its iterations over the later seats' thousands of placements and
    plays them weakly, which made every seat's best setup claim too much (the claims of 3
    players added up to 127%). The setup hides nothing but the draw pile (no card is drawn
    before it ends), so each later seat searches the very position the mover sees, as its own
    view. Outside the setup: `state` itself."""
    if state.round != 0 or state.is_terminal() or state.is_chance():
        return state
    state = state.copy()
    while state.round == 0 and not state.is_terminal() and not state.is_chance():
        seat = state.to_move
        if state.observer >= 0 and state.observer != seat:       # the pile stays unknown
            own = state.determinize(state.observer, Rng(params.seed)).view(seat)
        else:
            own = state
        reply = MCTSSearch(params).search(own, seat, SearchLimits(iterations=iterations),
                                          top_k=1).best_turn
        if not reply:
            break
        for action in reply:
            state.apply(action)
    return state


def engine_params(params: SearchParams | None, seed: int, n_players: int) -> SearchParams:
    """The params an analysis searches with: the engine's own (leaf_eval=auto: the learned
    value where the engine plays with it), one process, the analysis seed."""
    params = (params or SearchParams()).with_(algorithm="ismcts", processes=1, seed=seed)
    return params.for_players(n_players)


# The review's judge: at these player counts a review (palais analyse, the page's review and
# analysis board) judges with these weights, not the engine's own. The 3-player weights of
# training in generations play better but review worse: they rate a greedy seat's early turns
# as sound, so the greedy seat is the least accurate in 9 of the stored 12 games
# (bench/review_truth.py) against 10 with these, and the example game's winner falls below it
# (docs/play.md, "The review's judge"). A judge the user names (--engine) is used as named.
REVIEW_WEIGHTS = {3: (SHIPPED_VALUE, SHIPPED_POLICY)}


def review_params(params: SearchParams | None, n_players: int) -> SearchParams:
    """The engine's params with the review's weights of an `n_players` game (REVIEW_WEIGHTS)."""
    params = params or SearchParams()
    if n_players not in REVIEW_WEIGHTS:
        return params
    value, policy = REVIEW_WEIGHTS[n_players]
    return params.with_(value_weights=str(value), policy_weights=str(policy))


def fair_iterations(tree_iterations: int) -> int:
    return max(MIN_FAIR_ITERATIONS, int(FAIR_SHARE * tree_iterations))


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


def share_rank_key(candidate: Candidate, seat: int):
    """A decided seat's order: its share of every seat's expected VP (in tenths of a percent),
    then its expected score, then visits."""
    return (-round(1000 * vp_share(candidate.expected_score, seat)), -round(candidate.expected_score[seat], 1),
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
    """The `top` best distinct ways for the seat to move to finish its turn (Steps 1-5), with
    their fair values (Step 4); the TurnAnalysis keeps the valuer, to value other lines alike.
    `stop` (optional, a threading.Event): once it is set, the search ends at the end of its
    current chunk of iterations and the analysis ranks what it has searched so far."""
    seat = check_decision(state)
    if top < 1:
        raise PalaisError("top must be at least 1")
    view = view_for(state, seat)
    params = engine_params(params, seed, state.n_players)
    limits = limits or SearchLimits(iterations=DEFAULT_ITERATIONS)
    if limits.time_ms:           # the fair valuations take the rest of the time (about)
        limits = SearchLimits(iterations=limits.iterations, visits=limits.visits,
                              time_ms=max(1.0, TIME_SHARE * limits.time_ms), infinite=limits.infinite)
    searcher = MCTSSearch(params)
    started = time.perf_counter()

    def progress(p):
        if stop is not None and stop.is_set():
            searcher.stop()
        if callback is not None:
            callback(p)
    result = searcher.search(view, seat, limits,
                             callback=progress if (callback is not None or stop is not None) else None, top_k=1)
    tree = searcher.last_tree
    wanted = max(top, FAIR_CANDIDATES)
    min_visits = max(1, int(FIRST_SHARE * result.iterations))
    while True:
        lines = distinct_turns(tree, view, seat, wanted, min_visits)
        if len(lines) >= wanted or min_visits == 1:
            break
        min_visits = max(1, min_visits // 2)
    valuer = TurnValuer(view, seat, params.with_(seed=(seed ^ FAIR_SEED) & ((1 << 62) - 1)),
                        fair_iterations(result.iterations))
    by_visits = sorted(lines, key=lambda c: -c.visits)
    fair = [valuer.candidate(c.turn, c.visits) for c in by_visits]
    key = rank_key
    if lost_whatever(fair[:FAIR_CANDIDATES], seat):
        # Step 5 for a seat that can no longer win: its turns are told apart by the VP share
        # they lead to, valued by rollouts to the end (share_valuer), and ranked by it.
        valuer = share_valuer(valuer)
        fair = [valuer.candidate(c.turn, c.visits) for c in by_visits]
        key = share_rank_key
    first = sorted(fair[:FAIR_CANDIDATES], key=lambda c: key(c, seat))
    if first and fair[0] is not first[0] and turn_loss(
            state.n_players, first[0].win_prob[seat], fair[0].win_prob[seat],
            vp_share(first[0].expected_score, seat), vp_share(fair[0].expected_score, seat)) < TIE_LOSS:
        first.remove(fair[0])            # a tie within the noise: the search's own choice stays first
        first.insert(0, fair[0])
    rest = sorted(fair[FAIR_CANDIDATES:], key=lambda c: key(c, seat))
    spent_ms = 1000.0 * (time.perf_counter() - started)       # the valuations included
    return TurnAnalysis(seat, (first + rest)[:top], result.iterations, spent_ms,
                        list(result.stats["root_win"]), list(result.stats["root_score"]), valuer)
