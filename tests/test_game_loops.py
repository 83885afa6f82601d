"""The three game loops deal the same cards: the tournament arbiter, self-play and `palais play`.

Fair deals need it: a deal seed and a secret must give the same draws whoever runs the game.
All three draw from engine/chance.py's ChanceStream; here the same two random players (seeded
alike) play the same deal under the same secret through each loop (self-play's is the public
arena secret), and every card drawn, in order, must agree.
"""

import sys

import pytest

from engine.chance import ARENA_SECRET, ChanceStream, commitment, new_secret
from engine.constants import A_DRAW
from engine.errors import PalaisError
from engine.random_play import random_action
from engine.record import read_record
from engine.rng import Rng
from engine.state import State
from play.game import PlayGame
from play.seats import InProcessSeat
from search.baselines import RandomPlayer
from search.params import SearchLimits, SearchParams
from search.selfplay import play_game as self_play
from tournament.arbiter import TimeControl, play_game as arbiter_game
from tournament.engines import parse_engine

DEAL = 17                            # a game with a fair number of draws (16)
SEEDS = (5, 6)                       # the random players' seeds, seat by seat
LIMITS = SearchLimits(iterations=10)


@pytest.fixture
def draws(monkeypatch):
    """Every card drawn through a ChanceStream, in order."""
    seen = []
    draw = ChanceStream.draw

    def recorded(stream, state):
        action = draw(stream, state)
        seen.append(action)
        return action
    monkeypatch.setattr(ChanceStream, "draw", recorded)
    return seen


def _draws_in(actions) -> list:
    return [a for a in actions if A_DRAW <= a < A_DRAW + 9]


def test_arbiter_self_play_and_palais_play_draw_the_same_cards(draws):
    engines = [parse_engine(f'name=r{q} cmd="{sys.executable} -m tournament.testing_engines '
                            f'--mode random --seed {seed}"') for q, seed in enumerate(SEEDS)]
    result = arbiter_game(0, DEAL, engines, TimeControl(movetime_ms=None, iterations=10, margin_ms=20_000),
                          secret=ARENA_SECRET)
    assert not result.forfeits
    arbiter_actions = read_record(result.record).actions
    by_arbiter = list(draws)

    draws.clear()
    outcome = self_play([RandomPlayer(SearchParams(algorithm="random", seed=s)) for s in SEEDS],
                        ["random", "random"], DEAL, LIMITS)
    by_self_play = list(draws)

    draws.clear()
    game = PlayGame.new(2, DEAL, ["r0", "r1"], secret=ARENA_SECRET)
    seats = [InProcessSeat("random", LIMITS, seed) for seed in SEEDS]
    while not game.over():
        game.draw_cards()
        if game.over():
            break
        seat = game.state.to_move
        for action in seats[seat].choose_turn(game):
            if game.over() or game.state.is_chance() or game.state.to_move != seat:
                break
            game.play(action)
    by_palais_play = list(draws)

    assert len(by_arbiter) > 10
    assert by_arbiter == by_self_play == by_palais_play
    assert _draws_in(arbiter_actions) == by_arbiter            # the record holds what was drawn
    assert game.actions == arbiter_actions                     # the same game, action for action
    assert outcome.scores == result.scores == game.state.scores()


def _at_a_draw():
    state = State.new_game(2, seed=DEAL)
    rng = Rng(1)
    while not state.is_chance():
        state.apply(random_action(state, rng))
    return state


def test_a_stream_draws_only_when_a_draw_is_due_and_repeats_for_a_secret_and_deal():
    state = State.new_game(2, seed=DEAL)
    with pytest.raises(PalaisError, match="no card draw is due"):
        ChanceStream(ARENA_SECRET, DEAL).draw(state)
    state = _at_a_draw()
    secret = b"s" * 32
    streams = (ChanceStream(secret, DEAL), ChanceStream(secret, DEAL), ChanceStream(b"t" * 32, DEAL),
               ChanceStream(secret, DEAL + 1))
    picks = [[stream.draw(state) for _ in range(40)] for stream in streams]
    assert picks[0] == picks[1]
    assert picks[0] != picks[2]          # another secret, other draws
    assert picks[0] != picks[3]          # another deal, other draws
    assert all(A_DRAW <= a < A_DRAW + 9 and state.deck_counts()[a - A_DRAW] > 0 for a in picks[0])


def test_a_resumed_stream_goes_on_with_the_draws_it_would_have_made():
    state = _at_a_draw()
    whole = ChanceStream(b"s" * 32, DEAL)
    first = [whole.draw(state) for _ in range(30)]
    resumed = ChanceStream(b"s" * 32, DEAL, drawn=12)
    assert [resumed.draw(state) for _ in range(18)] == first[12:]


def test_draws_follow_the_pile_counts():
    """Over many draws from one pile, each card type comes up about as often as it lies there."""
    state = _at_a_draw()
    counts = state.deck_counts()
    stream = ChanceStream(new_secret(), DEAL)
    n = 20_000
    seen = [0] * 9
    for _ in range(n):
        seen[stream.draw(state) - A_DRAW] += 1
    total = sum(counts)
    for card, count in enumerate(counts):
        expected = n * count / total
        assert abs(seen[card] - expected) <= 5 * (expected ** 0.5) + 1, (card, seen, counts)


def test_a_commitment_binds_the_secret_and_the_deal():
    secret = b"s" * 32
    assert commitment(secret, DEAL) == commitment(secret, DEAL)
    assert commitment(secret, DEAL) != commitment(secret, DEAL + 1)
    assert commitment(secret, DEAL) != commitment(b"t" * 32, DEAL)
    assert len(commitment(secret, DEAL)) == 64
