"""No engine can learn a hidden card: the referee's draws are keyed by a secret it never gets.

tests/cheating_engine.py is the attack an engine could make from what it is sent: find the
deal number (the seed it was sent, or the small deal number whose tiles and layout it was
sent), replay every stream keyed without a secret, and check each against its own draws. On
the code before draws were keyed by a secret it predicted every draw exactly; here it must
find the deal number (the attack is real) and still predict neither its own draws nor the
other seats' hands.
"""

import json
import sys
from pathlib import Path

import pytest

from engine.chance import ARENA_SECRET
from engine.constants import A_DRAW, N_CARDS
from engine.record import read_record
from engine.state import State
from play.game import PlayGame
from play.seats import PriSeat
from protocol.parser import parse_line
from protocol.referee import start_position
from search.params import SearchLimits
from tournament.arbiter import TimeControl, play_game
from tournament.engines import parse_engine

CHEATER = Path(__file__).with_name("cheating_engine.py")
SECRET = bytes(range(32))                 # a fixed run secret, so the test reproduces
DEAL = 7                                  # a deal where both seats draw often under SECRET


def _cheater_spec(report, name="cheater"):
    return parse_engine(f'name={name} cmd="{sys.executable} {CHEATER} --report {report}"')


def _random_spec(seed=6):
    return parse_engine(f'name=honest cmd="{sys.executable} -m tournament.testing_engines '
                        f'--mode random --seed {seed}"')


def _reports(path) -> list:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _hands_along(record_text):
    """Per number of actions played: every seat's hand in the true game."""
    rec = read_record(record_text)
    state = State.new_game(rec.n_players, seed=rec.seed or 0, deal=rec.deal, layout=rec.layout)
    hands = {0: [list(h) for h in state.snapshot().hand]}
    for i, action in enumerate(rec.actions, 1):
        state.apply(action)
        hands[i] = [list(h) for h in state.snapshot().hand]
    return hands


def _no_stream_predicts_own_draws(reports):
    assert reports, "the cheating engine was never asked to move"
    # The attack is real: from the tiles and layout alone it finds the deal number.
    assert all(DEAL in r["deals"] for r in reports)
    assert max(r["own_draws"] for r in reports) >= 4, "too few draws of its own to judge"
    # ... and still no stream it can build predicts its own draws.
    broken = [r for r in reports if r["own_draws"] >= 3 and r["predicted_own"] == r["own_draws"]]
    assert not broken, f"the cheater predicted all its own draws: {broken[0]}"


def _assert_learns_nothing(reports, record_text, cheater_seat):
    _no_stream_predicts_own_draws(reports)
    # ... nor the other seats' hands once anyone holds a card.
    truth = _hands_along(record_text)
    # The moves an engine is sent are every action so far, draws included.
    guessed = [r for r in reports if r["hands"] is not None
               and any(sum(h) for q, h in enumerate(truth[r["moves"]]) if q != cheater_seat)]
    assert guessed
    right = [r for r in guessed if all(r["hands"][q] == truth[r["moves"]][q]
                                       for q in range(len(truth[0])) if q != cheater_seat)]
    assert len(right) < len(guessed) / 2, f"{len(right)} of {len(guessed)} hands rebuilt"


@pytest.mark.slow
@pytest.mark.parametrize("cheater_seat", [0, 1])
def test_an_engine_cannot_rebuild_the_hidden_cards_in_a_tournament(tmp_path, cheater_seat):
    report = tmp_path / "report.jsonl"
    out = tmp_path / "run"
    out.mkdir()
    (out / "draw-secret").write_text(SECRET.hex() + "\n")      # the run's secret, fixed here
    engines = [_cheater_spec(report), _random_spec()]
    if cheater_seat == 1:
        engines.reverse()
    tc = TimeControl(movetime_ms=None, iterations=10, margin_ms=20_000)
    result = play_game(0, DEAL, engines, tc, secret=SECRET)
    assert not result.forfeits
    _assert_learns_nothing(_reports(report), result.record, cheater_seat)


@pytest.mark.slow
def test_the_tournament_command_keeps_its_secret_in_the_run_folder_and_replays_alike(tmp_path):
    """Through palais-tournament, both seatings of a deal: the cheater learns nothing, and
    runs under the same secret (the run folder's draw-secret) play the same games."""
    from click.testing import CliRunner
    from tournament.cli import main
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        out.mkdir()
        (out / "draw-secret").write_text(SECRET.hex() + "\n")
        report = tmp_path / f"report-{name}.jsonl"
        result = CliRunner().invoke(main, [
            "--engine", f'name=cheater cmd="{sys.executable} {CHEATER} --report {report}"',
            "--engine", f'name=honest cmd="{sys.executable} -m tournament.testing_engines --mode random --seed 6"',
            "--deals", "1", "--first-seed", str(DEAL), "--tc", "iterations=10", "--margin-ms", "20000",
            "--out", str(out), "--quiet",
            # The cheater attacks through the protocol alone and writes its findings to a
            # file: it runs trusted (the sandbox's own attacks: tests/test_sandbox.py).
            "--sandbox", "off"])
        assert result.exit_code == 0, result.output
        _no_stream_predicts_own_draws(_reports(report))
        runs.append(sorted(p.read_text() for p in (out / "records").iterdir()))
    assert len(runs[0]) == 2
    assert runs[0] == runs[1]                                   # the same secret, the same games


def test_a_fresh_run_makes_a_secret_only_its_owner_can_read(tmp_path):
    from tournament.store import RunStore
    store = RunStore(tmp_path / "run")
    store.create({"x": 1}, resume=False)
    secret = store.draw_secret()
    path = tmp_path / "run" / "draw-secret"
    assert path.stat().st_mode & 0o777 == 0o600
    assert len(secret) == 32
    assert RunStore(tmp_path / "run").draw_secret() == secret   # --resume reads the same one
    path.write_text("not hex at all, and far too short")
    with pytest.raises(Exception, match="draw-secret"):
        RunStore(tmp_path / "run").draw_secret()


def test_the_position_an_engine_is_sent_has_the_setup_and_no_seed():
    game = PlayGame.new(3, 987654, ["a", "b", "c"], secret=SECRET)
    line = start_position(game.start_state(), game.seen_by(0)).to_line()
    words = line.split()
    assert "seed" not in words and "987654" not in words
    assert "layout" in words and "deal" in words
    # The engine rebuilds the same start from it.
    from protocol.session import start_state
    from engine.components import default_components
    rebuilt = start_state(parse_line(line), default_components())
    assert rebuilt.snapshot() == game.start_state().snapshot()


def test_changed_rule_options_reach_the_engine_and_defaults_are_not_written():
    from engine.options import RuleOptions
    game = PlayGame.new(2, 5, ["a", "b"], options=RuleOptions(round_cap=30, setup_on_gate=False))
    line = start_position(game.start_state()).to_line()
    assert "options round_cap=30,setup_on_gate=false" in line
    plain = start_position(PlayGame.new(2, 5, ["a", "b"]).start_state()).to_line()
    assert "options" not in plain.split()


@pytest.mark.slow
def test_a_palais_play_engine_seat_cannot_rebuild_the_hidden_cards(tmp_path):
    """`palais play --seat cmd:...` and `palais serve --engine` seats are PriSeats: the same
    attack through one, in a game refereed by play/game.py."""
    report = tmp_path / "report.jsonl"
    game = PlayGame.new(2, DEAL, ["cheater", "honest"], secret=SECRET)
    cheater = PriSeat((sys.executable, str(CHEATER), "--report", str(report)), SearchLimits(iterations=10))
    from play.seats import InProcessSeat
    honest = InProcessSeat("random", SearchLimits(iterations=10), 6)
    try:
        while not game.over():
            game.draw_cards()
            if game.over():
                break
            seat = game.state.to_move
            for action in (cheater, honest)[seat].choose_turn(game):
                if game.over() or game.state.is_chance() or game.state.to_move != seat:
                    break
                game.play(action)
    finally:
        cheater.close()
    _assert_learns_nothing(_reports(report), game.record_text(), 0)


def test_a_saved_game_goes_on_with_the_draws_it_would_have_had(tmp_path):
    """The secret of a saved game (the owner's file, with every hand) is kept, so a load draws
    what the unbroken game would have drawn; the web's and a seat's records never hold it."""
    from engine.random_play import random_action
    from engine.rng import Rng

    def play_on(game, rng, until):
        while not game.over() and len(game.actions) < until:
            game.draw_cards()
            if not game.over():
                game.play(random_action(game.state, rng))

    whole = PlayGame.new(2, DEAL, ["a", "b"], secret=SECRET)
    play_on(whole, Rng(3), 60)
    path = tmp_path / "g.rec"
    whole.save(str(path))
    assert SECRET.hex() in path.read_text()
    assert SECRET.hex() not in whole.record_text()
    loaded = PlayGame.load(str(path))
    rng_whole, rng_loaded = Rng(99), Rng(99)
    play_on(whole, rng_whole, 400)
    play_on(loaded, rng_loaded, 400)
    draws = [a for a in whole.actions if A_DRAW <= a < A_DRAW + N_CARDS]
    assert len(draws) > 3
    assert loaded.actions == whole.actions


def test_arena_games_reproduce_from_the_deal_number_alone():
    game_a = PlayGame.new(2, DEAL, ["a", "b"], secret=ARENA_SECRET)
    game_b = PlayGame.new(2, DEAL, ["a", "b"], secret=ARENA_SECRET)
    other = PlayGame.new(2, DEAL, ["a", "b"])                       # a fresh secret
    assert game_a.secret == game_b.secret != other.secret
