"""Hints work on every position the rules reach, a seat playing several turns in a row included.

When no other seat has anything to decide (no card in hand, nothing to place, move, take or
recruit, no card to draw), the rules skip them (RULES.md §10) and the same seat moves again
in the next round. Uniformly random play gets there in its first game: a seat whose servants
all stand on the GATE has no decision left. A hint's line used to run on into that next turn,
so its explanation raised "action 2 (continue) comes after seat 1's turn" (a traceback from
`palais hint`, the end of a `palais play` session). Now a line stops at the end of the turn
(search/mcts.py turn_goes_on: a seat's turn is its round), and every hint path is checked
here on positions sampled from random and engine games of 2, 3 and 4 players.
"""

from __future__ import annotations

import random
import re

import pytest
from click.testing import CliRunner

from engine.notation import parse_turn
from engine.position import state_from_position
from engine.random_play import random_action
from engine.rng import Rng
from engine.state import State
from play.cli import main as palais
from play.explain import explain
from play.game import PlayGame
from play.hints import find_hints
from play.i18n import LANGUAGES
from search.params import SearchLimits, SearchParams
from search.factory import make_player
from search.selfplay import play_game

from helpers import ServerSession

ITERATIONS = 200        # enough for a tree that looks into the next turn, and fast

# Positions from uniformly random games (engine/random_play.py) where the seat to move plays
# its next turn straight after this one; each made `find_hints` raise before the fix.
REPEATED_TURNS = {
    # 2 players, round 28, seat 1's end-of-turn card window: seat 2 has every servant on the
    # GATE and no card, so seat 1's next decision is its turn of round 29.
    "2 players, end of turn": (
        "pr1 set=reconstructed-v1 players=2 view=- stage=WINDOW5 seat=1 round=28 last=0 setup=10 "
        "layout=STAIRS,OFFICE,MADAME/PARADE,KING,BACKDOOR/CARDINAL,GATE,MINT "
        "park=s1,24,37,42,23,11/27,12,.,17,22,15/29,9,.,1,.,21/36,19,33,20,35,s1/"
        "3,18,39,32,28,s1/25,10,s1,16,31,6 rooms=4.0.0.0.9.0.0.1.4/18.0.0.0.0.0.0.0.0 area=0/0 "
        "supply=3/7 gold=6/0 honours=3/1 nobles=2.4.5.8.13.41/7 "
        "hands=1.2.0.0.0.0.0.0.0/0.0.0.0.0.0.0.0.0 deck=2.2.4.4.4.4.4.4.0 "
        "discard=1.0.0.0.0.0.0.0.0 epoch=3.3.4.4.4.4.4.4.0 "
        "drawn=2:1.1.0.0.0.0.0.0.0/0:0.0.0.0.0.0.0.0.0 played=1.0.0.0.0.0.0.0.0/0.0.0.0.0.0.0.0.0 "
        "turn=gate_left:0,gate_max:0,moves_left:0,source_for:GATE,park_target:-,turq:0,viol:0,"
        "rec:0,guards:0,moves_bonus:0,intrigue:0,draws_left:0"),
    # 3 players, round 40, seat 1's first card window: seats 2 and 3 have nothing to decide.
    "3 players, start of turn": (
        "pr1 set=reconstructed-v1 players=3 view=- stage=WINDOW1 seat=1 round=40 last=0 setup=15 "
        "layout=STAIRS,OFFICE,MADAME/PARADE,KING,BACKDOOR/CARDINAL,GATE,MINT "
        "park=s2,24,37,42,23,11/27,12,7,17,22,15/s1,9,8,.,.,s3/36,19,.,20,.,13/s1,18,39,32,28,4/"
        "25,s3,s2,16,s1,6 rooms=18.0.0.0.0.0.0.1.0/0.0.0.0.16.0.0.0.0/2.0.0.5.1.0.0.0.0 "
        "area=0/0/9 supply=3/7/6 gold=10/1/155 honours=3/1/0 nobles=3.29.31/2.5.41/1.10.21.33.35 "
        "hands=0.0.0.0.0.0.1.0.0/0.0.0.0.0.0.0.0.0/0.0.0.0.0.0.0.0.0 deck=2.1.4.3.2.4.2.3.0 "
        "discard=2.3.0.1.2.0.1.1.0 epoch=3.2.4.4.2.4.4.4.0 "
        "drawn=6:1.1.0.1.0.0.2.1.0/0:0.0.0.0.0.0.0.0.0/0:0.0.0.0.0.0.0.0.0 "
        "played=2.1.0.1.2.0.1.1.0/0.2.0.0.0.0.0.0.0/0.0.0.0.0.0.0.0.0 "
        "turn=gate_left:0,gate_max:0,moves_left:0,source_for:GATE,park_target:-,turq:0,viol:0,"
        "rec:0,guards:0,moves_bonus:0,intrigue:0,draws_left:0"),
    # 4 players, round 11, seat 3 choosing how many servants go to the GATE.
    "4 players, step 1": (
        "pr1 set=reconstructed-v1 players=4 view=- stage=STEP1 seat=3 round=11 last=0 setup=20 "
        "layout=STAIRS,OFFICE,MADAME/PARADE,KING,BACKDOOR/CARDINAL,GATE,MINT "
        "park=2,24,37,42,23,11/27,12,.,17,22,15/29,9,8,1,5,21/36,19,33,20,35,s4/s4,18,39,32,28,4/"
        "25,10,s2,16,31,6 rooms=18.0.0.0.0.0.0.0.0/17.0.0.0.0.0.0.0.0/13.1.0.1.0.0.2.0.1/"
        "16.0.0.0.0.0.0.0.0 area=0/0/0/0 supply=7/7/7/7 gold=0/0/6/20 honours=0/0/0/0 "
        "nobles=-/41/-/3.7.13 hands=0.0.0.0.0.0.0.0.0/0.0.0.0.0.0.0.0.0/0.0.0.0.0.0.0.0.0/"
        "0.0.0.0.0.0.0.0.0 deck=1.4.2.3.3.2.4.4.4 discard=3.0.2.1.1.2.0.0.0 "
        "epoch=4.4.4.4.4.4.4.4.4 drawn=3:0.0.2.0.1.0.0.0.0/0:0.0.0.0.0.0.0.0.0/"
        "0:0.0.0.0.0.0.0.0.0/6:3.0.0.1.0.2.0.0.0 played=0.0.2.0.1.0.0.0.0/0.0.0.0.0.0.0.0.0/"
        "0.0.0.0.0.0.0.0.0/3.0.0.1.0.2.0.0.0 turn=gate_left:0,gate_max:2,moves_left:0,"
        "source_for:GATE,park_target:-,turq:0,viol:0,rec:0,guards:0,moves_bonus:0,intrigue:0,"
        "draws_left:0"),
}


# ---- the checks ----------------------------------------------------------------------------

def replay_in_turn(state, actions) -> object:
    """`actions` played on a copy of `state`, each asserted to be a legal decision of the turn
    `state` is in (the seat to move, in this round); the copy after them."""
    after, turn = state.copy(), (state.round, state.to_move)
    for i, a in enumerate(actions):
        assert not after.is_terminal() and not after.is_chance(), f"action {i + 1} after the turn"
        assert (after.round, after.to_move) == turn, f"action {i + 1} is in the next turn"
        assert a in after.legal_actions(), f"action {i + 1} is not legal"
        after.apply(a)
    return after


def check_hints(state, seed: int = 0, iterations: int = ITERATIONS):
    """find_hints on `state`: at least one hint, each a legal line of this turn only, given
    in tokens that read back as the line, with a sentence in every language; the report."""
    report = find_hints(state, SearchLimits(iterations=iterations), top=3, seed=seed)
    seat = state.to_move
    assert report.seat == seat and report.hints
    view = state.view(seat)
    for h in report.hints:
        assert h.turn and parse_turn(h.tokens) == h.turn
        replay_in_turn(state, h.turn)
        replay_in_turn(view, h.turn)
        assert h.explanation.endswith(".") and h.explanation[:-1].strip()
        for lang in LANGUAGES:
            assert explain(view, h.turn, seat, lang).strip()
    return report


def ends_at_a_repeated_turn(state, hint) -> bool:
    """True when the hint's line ends the turn and the same seat moves next (the case the
    old lines ran on from)."""
    after = replay_in_turn(state, hint.turn)
    return (not after.is_terminal() and not after.is_chance() and after.to_move == state.to_move
            and after.round != state.round)


# ---- where a seat plays several turns in a row ---------------------------------------------

def labelled_states(state, actions):
    """(state before each action, its turn (round, seat to move)) along `actions`."""
    out = []
    state = state.copy()
    for a in actions:
        out.append((state.copy(), (state.round, state.to_move)))
        state.apply(a)
    return out


def repeated_turns(labelled) -> set:
    """The turns whose seat also plays the next turn: nobody else decided or drew between."""
    turns = []
    for _, label in labelled:
        if not turns or turns[-1] != label:
            turns.append(label)
    return {a for a, b in zip(turns, turns[1:]) if a[1] == b[1]}


def random_game(n_players: int, seed: int):
    """A uniformly random game to its end: (start state, every action)."""
    start = State.new_game(n_players, seed=seed)
    state, rng, actions = start.copy(), Rng(seed), []
    while not state.is_terminal():
        actions.append(random_action(state, rng))
        state.apply(actions[-1])
    return start, actions


def sample_random_game(n_players: int, seed: int, every: int = 20, repeated_cap: int = 6):
    """Decisions of a random game: every `every`-th, plus the last decision of up to
    `repeated_cap` turns whose seat moves again next. [(state, in a repeated turn)]."""
    labelled = labelled_states(*random_game(n_players, seed))
    again = repeated_turns(labelled)
    decisions = [(s, label) for s, label in labelled if not s.is_chance()]
    sample = [(s, label in again) for s, label in decisions[::every]]
    last_of_turn = [s for (s, label), nxt in zip(decisions, decisions[1:] + [(None, None)])
                    if label in again and nxt[1] != label]
    return sample + [(s, True) for s in last_of_turn[:repeated_cap]]


def engine_game_positions(n_players: int, seed: int):
    """The start of each search in an ISMCTS self-play game at a small budget."""
    players = [make_player(SearchParams(algorithm="ismcts", seed=seed * 10 + q))
               for q in range(n_players)]
    seen = []
    play_game(players, ["ismcts"] * n_players, seed, SearchLimits(iterations=40),
              on_turn=lambda s: seen.append(s.copy()))
    return seen


# ---- fast: the stored positions ------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(REPEATED_TURNS))
def test_a_hint_where_the_seat_moves_again_next_turn_stops_at_its_turn(name):
    state = state_from_position(REPEATED_TURNS[name])
    report = check_hints(state)
    # the position is the case itself: some hint ends this turn with the seat to move again
    assert any(ends_at_a_repeated_turn(state, h) for h in report.hints)


def test_palais_hint_on_a_position_where_the_seat_moves_again_prints_its_hints(tmp_path):
    path = tmp_path / "again.pos"
    path.write_text(REPEATED_TURNS["2 players, end of turn"] + "\n")
    result = CliRunner().invoke(palais, ["hint", str(path), "--iterations", str(ITERATIONS)],
                                env={"COLUMNS": "500"})         # (no wrapped token line)
    assert result.exit_code == 0, result.output
    assert "Hints for seat 1 (200 iterations" in result.output
    first = re.search(r"^ 1\. (.+)$", result.output, re.M).group(1)
    replay_in_turn(state_from_position(REPEATED_TURNS["2 players, end of turn"]), parse_turn(first))


def test_pri_hint_lines_stop_at_the_end_of_the_turn():
    text = REPEATED_TURNS["3 players, start of turn"]
    s = ServerSession()
    s.send(f"position pos {text}", f"hint top 3 iterations {ITERATIONS}")
    lines = s.new_lines()
    assert lines[-1].startswith("info string hint done: ")      # the hint ran to its end
    hints = [l for l in lines if l.startswith("info string hint ") and l != lines[-1]]
    assert hints
    state = state_from_position(text)
    for line in hints:
        tokens = line.split(": ", 1)[1].split(" | ")[0]
        replay_in_turn(state, parse_turn(tokens))


def test_a_failing_hint_reports_an_internal_error_and_the_game_goes_on(monkeypatch):
    import play.terminal as terminal_module

    def broken(*args, **kwargs):
        raise ValueError("a bug in the hint")
    monkeypatch.setattr(terminal_module, "find_hints", broken)
    game = PlayGame.new(2, seed=3, names=["a", "b"])
    out, feed = [], ["hint", "PARADE", "quit"]
    terminal = terminal_module.Terminal(game, [None, None], out.append,
                                        lambda prompt: feed.pop(0) if feed else None)
    assert terminal.run() == 1                          # left by `quit`, not by the error
    text = "\n".join(out)
    assert "Error: internal error in the hint (ValueError: a bug in the hint)" in text
    assert game.actions and feed == []                  # the line after the hint was played


# ---- slow: whole games -----------------------------------------------------------------------

def game_at_a_repeated_turn(n_players: int, seed: int):
    """A PlayGame played at random to the last decision of the first turn whose seat moves
    again next (the game is played on once to find that turn, then again up to it)."""
    secret = bytes(range(32))            # both plays draw the same cards (a fresh secret would not)

    def play(stop_at=None):
        game = PlayGame.new(n_players, seed, names=[f"p{q + 1}" for q in range(n_players)], secret=secret)
        rng = Rng(seed)
        while not game.over():
            game.draw_cards()
            if game.over() or len(game.actions) == stop_at:
                break
            legal = game.state.legal_actions()
            game.play(legal[rng.below(len(legal))])
        return game

    whole = play()
    labelled = labelled_states(whole.start_state(), whole.actions)
    again = repeated_turns(labelled)
    last = {}
    for i, (s, label) in enumerate(labelled):
        if label in again and not s.is_chance():
            last[label] = i
    assert last, "the game has no turn whose seat moves again next"
    first_turn = min(last)
    return play(stop_at=last[first_turn])


@pytest.fixture(scope="module")
def repeated_turn_game():
    return game_at_a_repeated_turn(2, seed=5)


def test_palais_play_load_gives_a_hint_where_the_seat_moves_again_and_keeps_the_game(
        tmp_path, repeated_turn_game):
    game = repeated_turn_game
    path = tmp_path / "again.rec"
    game.save(str(path))
    result = CliRunner().invoke(palais, ["play", "--load", str(path), "--seat", "human",
                                         "--seat", "human", "--hint-iterations", str(ITERATIONS),
                                         "--no-color"], input="hint\nquit\n")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert f"Hints for seat {game.state.to_move + 1}" in result.output
    assert "Game left unfinished." in result.output and result.exit_code == 1


# Deals whose uniformly random games have turns the same seat plays again next (most 2-player
# deals do; about one 4-player deal in five).
RANDOM_GAMES = {2: (0, 2), 3: (0, 6), 4: (0, 9)}


def test_the_web_hint_where_the_seat_moves_again_answers_200(repeated_turn_game):
    from starlette.testclient import TestClient

    from web.app import create_app
    from web.config import ServerConfig
    base = "http://127.0.0.1:8000"
    config = ServerConfig(hint_iterations=ITERATIONS, analysis_iterations=50, seeds=random.Random(0))
    seat = repeated_turn_game.state.to_move
    with TestClient(create_app(config), base_url=base) as client:
        loaded = client.post("/api/records", content=repeated_turn_game.record_text().encode(),
                             headers={"origin": base})
        assert loaded.status_code == 200, loaded.text
        key = next(s["key"] for s in loaded.json()["seats"] if s["seat"] == seat + 1)
        r = client.post(f"/api/games/{loaded.json()['game']}/hint", json={"top": 3},
                        headers={"origin": base, "x-palais-key": key})
    assert r.status_code == 200, r.text
    hints = r.json()["hints"]
    assert hints and all(h["explanation"] for h in hints)
    for h in hints:
        replay_in_turn(repeated_turn_game.state, parse_turn(h["turn"]))


@pytest.mark.slow
def test_hints_on_random_and_engine_games_of_2_3_and_4_players():
    positions = []                                    # (state, in a repeated turn, where)
    for n, seeds in RANDOM_GAMES.items():
        for seed in seeds:
            positions += [(s, again, f"random {n}p seed {seed}")
                          for s, again in sample_random_game(n, seed)]
        positions += [(s, False, f"ismcts {n}p") for s in engine_game_positions(n, seed=n)[::6]]
    repeated = [p for p in positions if p[1]]
    for n in (2, 3, 4):                               # the sample has the hard case, for every size
        assert any(s.n_players == n for s, _, _ in repeated), f"no repeated turn with {n} players"
    cut = 0
    for i, (state, _, where) in enumerate(positions):
        try:
            report = check_hints(state, seed=i)
        except AssertionError as exc:
            raise AssertionError(f"{where}, round {state.round}, seat {state.to_move + 1}: {exc}") from exc
        cut += any(ends_at_a_repeated_turn(state, h) for h in report.hints)
    assert cut >= 20                                  # lines that used to run on did stop
