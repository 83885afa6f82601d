"""The analysis core (search/analysis.py) and play that keeps direction when behind.

tests/data/behind-3p.rec is docs/examples/game-3p.rec cut after turn 8.2: seat 3 is far
behind (its win probability is 0 whatever it does). tests/data/collapse-4p.pos is a position
of a 4-player self-play game at the classic defaults (the 0/1 win reward), where seat 4 had
stopped playing: it then moved both its STAIRS servants to the MINT, leaving itself no
moves for the rest of the game, and ended with 3 VP on 48 unspent gold.
"""

import re
from pathlib import Path

import pytest

from engine.constants import PARADE, STAIRS
from engine.errors import PalaisError
from engine.position import state_from_position
from engine.record import read_record, replay
from search.analysis import analyse_turn, turn_end_key
from search.mcts import MCTSSearch
from search.params import PRESETS, SearchLimits, SearchParams
from search.positions import midgame
from tournament.stats import seat_outcomes

DATA = Path(__file__).parent / "data"


def behind_position():
    return replay(read_record((DATA / "behind-3p.rec").read_text()))


def assert_legal_line(state, actions):
    """Each action is legal where it is played; returns the state they reach."""
    after = state.copy()
    for action in actions:
        assert action in after.legal_actions()
        after.apply(action)
    return after


@pytest.mark.slow
def test_a_seat_far_behind_gets_three_distinct_turns_and_the_same_first_one_under_any_seed():
    state = behind_position()
    seat = state.to_move
    firsts = []
    best_scores = []
    for seed in (1, 2, 3):
        analysis = analyse_turn(state, top=3, seed=seed)         # the default budget
        candidates = analysis.candidates
        assert len(candidates) == 3
        view = state.view(seat)
        assert len({turn_end_key(view, c.turn, seat) for c in candidates}) == 3, "one position, one candidate"
        assert max(c.win_prob[seat] for c in candidates) < 0.10     # the win is out of reach ...
        scores = [c.expected_score[seat] for c in candidates]
        assert max(scores) - scores[0] < 1.0                         # ... so the score ranks them
        best_scores.append(scores[0])
    # the first turns are near-ties: under any seed, the first is as good as the others' first
    assert max(best_scores) - min(best_scores) < 1.0


def test_top_k_gives_k_distinct_turns_when_there_are_k():
    state = midgame(3, 103, 7)
    analysis = analyse_turn(state, SearchLimits(iterations=4000), top=5, seed=3)
    seat = analysis.seat
    view = state.view(seat)
    assert len(analysis.candidates) == 5
    assert len({turn_end_key(view, c.turn, seat) for c in analysis.candidates}) == 5
    for c in analysis.candidates:
        assert_legal_line(view, c.turn)


def test_win_shares_are_reported_apart_from_the_reward_the_search_maximises():
    state = midgame(2, 101, 5)
    result = MCTSSearch(SearchParams(reward="margin", seed=4)).search(state, limits=SearchLimits(iterations=2000))
    for c in result.candidates:
        assert sum(c.win_prob) == pytest.approx(1.0, abs=1e-3)      # a win share, shared by the seats
        assert 0.0 <= c.win_prob[0] <= 1.0
    assert any(c.value != c.win_prob for c in result.candidates)     # the blend is something else
    classic = MCTSSearch(SearchParams.preset("classic", seed=4)).search(state, limits=SearchLimits(iterations=500))
    for c in classic.candidates:
        assert c.value == pytest.approx(c.win_prob)


def kept_mobility(state, turn, seat):
    after = state.copy()
    for action in turn:
        after.apply(action)
    rooms = after.snapshot().rooms[seat]
    return rooms[STAIRS] + rooms[PARADE]


def test_a_seat_that_can_no_longer_win_keeps_playing():
    state = state_from_position((DATA / "collapse-4p.pos").read_text().strip())
    seat = state.to_move
    view = state.view(seat)
    limits = SearchLimits(iterations=1000)
    classic = MCTSSearch(SearchParams.preset("classic", seed=1)).search(view, seat, limits)
    assert kept_mobility(view, classic.best_turn, seat) == 0          # how it stranded itself
    for seed in (1, 2, 3):
        result = MCTSSearch(SearchParams(seed=seed)).search(view, seat, limits)
        assert kept_mobility(view, result.best_turn, seat) >= 2, result.best_turn


def test_presets_keep_earlier_defaults_reachable():
    assert SearchParams.preset("classic").reward == "win"
    assert SearchParams.preset("current") == SearchParams()
    assert SearchParams.preset("classic", exploration=0.5).exploration == 0.5
    assert set(PRESETS) >= {"current", "classic"}
    with pytest.raises(PalaisError, match="preset"):
        SearchParams.preset("nope")


def test_collapse_share_and_the_margins_of_wins_and_losses():
    rows = [
        (1.0, [80, 30], 0),      # won by 50: the other side collapsed
        (0.0, [30, 80], 0),      # lost by 50: collapsed
        (0.0, [60, 70], 0),      # lost by 10
        (0.5, [50, 50], 0),      # shared win
        (0.0, [19, 20], 0),      # lost by 1, under 20 VP
    ]
    side = seat_outcomes(rows)
    assert side.seats == 5 and side.won == 1.5
    assert side.collapses == 1 and side.collapse_share == 0.2
    assert side.win_margins == [50, 0] and side.loss_margins == [-50, -10, -1]
    assert side.mean_vp == pytest.approx(47.8)
    assert side.low_scores == 1 and "under 20 VP 0.200 (1)" in side.line()
    other = seat_outcomes([(1.0 - r if r != 0.5 else 0.5, s, 1) for r, s, _ in rows])
    assert other.collapses == 1 and other.won == 3.5 and other.low_scores == 0


def edge_table(tree, state):
    return {e.action: e for e in tree.node_edges(tree.key_for(state))}


def test_tree_reuse_keeps_exactly_the_chosen_childs_statistics():
    state = midgame(2, 101, 5)
    seat = state.to_move
    view = state.view(seat)
    searcher = MCTSSearch(SearchParams(seed=9))
    first = searcher.search(view, seat, SearchLimits(iterations=3000))
    child = view.copy()
    child.apply(first.best_turn[0])
    assert child.to_move == seat and not child.is_chance()
    tree = searcher.last_tree
    before = edge_table(tree, child)
    assert sum(e.visits for e in before.values()) > 0

    second = searcher.search(child, seat, SearchLimits(iterations=1000))
    assert searcher.last_tree is tree                       # the same tree went on
    assert second.iterations == 1000
    after = edge_table(tree, child)
    assert set(after) == set(before) == set(child.legal_actions())
    for action, e in after.items():
        assert e.visits >= before[action].visits            # nothing lost
    added = sum(after[a].visits - before[a].visits for a in after)
    assert added == 1000                                    # nothing counted twice
    top = max(after.values(), key=lambda e: e.visits)
    assert second.candidates[0].visits == top.visits        # the answer counts the old visits too
    assert_legal_line(child, second.best_turn)


def test_a_position_the_tree_does_not_hold_starts_a_fresh_tree():
    state = midgame(2, 101, 5)
    seat = state.to_move
    elsewhere = midgame(2, 202, 4)
    searcher = MCTSSearch(SearchParams(seed=9))
    searcher.search(state.view(seat), seat, SearchLimits(iterations=500))
    old_tree = searcher.last_tree
    other_seat = elsewhere.to_move
    reused = searcher.search(elsewhere.view(other_seat), other_seat, SearchLimits(iterations=800))
    assert searcher.last_tree is not old_tree
    fresh = MCTSSearch(SearchParams(seed=9))
    fresh._searches = 1                                      # the same seed as the second search
    alone = fresh.search(elsewhere.view(other_seat), other_seat, SearchLimits(iterations=800))
    assert [(c.turn, c.visits) for c in reused.candidates] == [(c.turn, c.visits) for c in alone.candidates]
    off = MCTSSearch(SearchParams(seed=9, reuse_tree=False))
    view = state.view(seat)
    first = off.search(view, seat, SearchLimits(iterations=500))
    kept = off.last_tree
    child = view.copy()
    child.apply(first.best_turn[0])
    assert kept.has_node(child)                              # it could have gone on, but may not
    off.search(child, seat, SearchLimits(iterations=10))
    assert off.last_tree is not kept


class CountingPlayer:
    """An ISMCTS player that records the iterations each of its searches ran."""

    def __init__(self, params):
        self.inner = MCTSSearch(params)
        self.params = params
        self.iterations = []

    def search(self, state, seat, limits):
        result = self.inner.search(state, seat, limits)
        self.iterations.append(result.iterations)
        return result


def test_a_turn_searched_decision_by_decision_stays_within_its_budget():
    from search.turns import choose_turn
    state = midgame(2, 101, 5)
    seat = state.to_move
    player = CountingPlayer(SearchParams(seed=2, decision_share=0.5))
    actions, searches = choose_turn(player, state, seat, SearchLimits(iterations=2000))
    assert searches == len(player.iterations) >= 2
    assert player.iterations[0] == 1000                     # half of the turn's budget first
    spent = past = 0
    for n in player.iterations:
        if spent > 2000 - 125:                              # spent: a decision past the line gets 1/16
            assert n == 125
            past += 1
        spent += n
    assert spent - 125 * past <= 2000 and past <= 2
    after = assert_legal_line(state, actions)
    assert after.is_terminal() or after.is_chance() or after.to_move != seat
    once = CountingPlayer(SearchParams(seed=2, decision_share=0.0))
    choose_turn(once, state, seat, SearchLimits(iterations=2000))
    assert once.iterations == [2000]                        # decision_share 0: one search, its line


def test_pri_hint_palais_hint_and_the_analysis_core_agree():
    import io
    from engine.notation import turn_to_text
    from engine.position import position_to_string
    from play.hints import find_hints
    from protocol.server import Server
    state = midgame(3, 103, 7)
    seat = state.to_move
    out = io.StringIO()
    server = Server(out)
    server.handle(f"position pos {position_to_string(state.view(seat))}")
    server.handle("hint top 3 iterations 3000")
    assert server.engine.wait(60)                   # the hint runs off the reader thread
    lines = out.getvalue().splitlines()
    assert lines[-1] == "info string hint done: 3 candidates, 3000 iterations"
    sent = [line for line in lines if re.match(r"info string hint \d+: ", line)]
    core = analyse_turn(state, SearchLimits(iterations=3000), top=3, seed=0)
    assert len(sent) == len(core.candidates) == 3
    for line, cand in zip(sent, core.candidates):
        assert turn_to_text(cand.turn) in line
    people = find_hints(state, SearchLimits(iterations=3000), top=3, seed=0)
    assert [h.turn for h in people.hints] == [c.turn for c in core.candidates]
