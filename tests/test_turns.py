"""One way to play a turn (issue 27 item 5): an in-process seat (`palais play`, the browser,
self-play, the benchmarks) and the PRI engine play a turn through search/turns.py, so with the
same settings, seed and iteration budget they choose the same actions."""

import sys

import pytest

from play.game import PlayGame
from play.seats import InProcessSeat, PriSeat
from protocol.commands import Go
from protocol.engine import EngineFacade
from search.factory import make_player
from search.params import SearchLimits, SearchParams
from search.timeman import FLOOR_SHARE, decision_limits
from search.turns import play_turn

ENGINE = (sys.executable, "-m", "protocol.cli")


def play_turns(game, seats, turns: int) -> list:
    """Play `turns` turns of `game`, each asked of both seats of the seat to move (each pair
    must agree; the first is played): [(seat, actions)]."""
    played = []
    while not game.over() and len(played) < turns:
        game.draw_cards()
        if game.over():
            break
        seat = game.state.to_move
        chosen = [s[seat].choose_turn(game) for s in seats]
        played.append((seat, chosen))
        for action in chosen[0]:
            if game.over() or game.state.is_chance() or game.state.to_move != seat:
                break
            game.play(action)
    return played


@pytest.mark.slow
def test_an_in_process_seat_and_the_pri_engine_choose_the_same_turns():
    # The defaults on both sides (the Seed option is 0, as the in-process seat's seed).
    limits = SearchLimits(iterations=400)
    game = PlayGame.new(2, seed=11, names=["a", "b"], secret=b"\x01" * 32)
    local = [InProcessSeat("ismcts", limits, seed=0) for _ in range(2)]
    engines = [PriSeat(ENGINE, limits) for _ in range(2)]
    try:
        played = play_turns(game, [local, engines], turns=30)
    finally:
        for seat in local + engines:
            seat.close()
    assert len(played) == 30
    for seat, (mine, theirs) in played:
        assert mine and mine == theirs, f"seat {seat + 1}"


@pytest.mark.parametrize("share", [0.0, 0.5])
def test_the_engines_go_plays_the_turn_an_in_process_player_plays(share):
    # The PRI facade's `go iterations` is play_turn() of the same player settings; with a
    # Decision Share above 0 it searches at each decision of the turn.
    game = PlayGame.new(2, seed=4, names=["a", "b"], secret=b"\x02" * 32)
    game.draw_cards()
    engine = EngineFacade()
    engine.set_option("Decision Share", str(share))
    engine.set_option("Seed", "7")
    engine.set_position(PriSeat._position(game, game.state.to_move))
    answers = []
    engine.go(Go(iterations=600), lambda report: None, answers.append)
    assert engine.wait(60)
    player = make_player(SearchParams(seed=7, decision_share=share))
    turn = play_turn(player, game.state, game.state.to_move, SearchLimits(iterations=600))
    assert answers == [turn.actions]
    assert (turn.searches > 1) == (share > 0 and len(turn.actions) > 1)


def test_a_turn_budget_is_shared_out_by_iterations_and_by_visits():
    turn = SearchLimits(iterations=1000)
    assert decision_limits(turn, 0, 0, 0.5) == SearchLimits(iterations=500)
    assert decision_limits(turn, 0, 1000 - int(1000 * FLOOR_SHARE) + 1, 0.5) is None
    by_visits = SearchLimits(visits=8000)
    assert decision_limits(by_visits, 0, 0, 0.25, spent_visits=4000) == SearchLimits(visits=1000)
    assert decision_limits(SearchLimits(infinite=True), 0, 0, 0.5).infinite


def test_a_stopped_turn_starts_no_more_searches():
    game = PlayGame.new(2, seed=4, names=["a", "b"], secret=b"\x02" * 32)
    game.draw_cards()
    player = make_player(SearchParams(seed=7, decision_share=0.5))
    turn = play_turn(player, game.state, game.state.to_move, SearchLimits(iterations=600),
                     stopped=lambda: True)
    assert turn.searches == 1 and turn.actions == list(turn.first.best_turn)
