"""Play for people: the game model (take-backs, saving, loading), hints that never see hidden
cards, the analysis, and `palais play` driven as a person would, through a pseudo-terminal."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest
from click.testing import CliRunner

from engine.chance import ChanceStream
from engine.constants import A_DRAW, A_RECRUIT, ROOMS, S_RECRUIT
from engine.determinize import weighted_pick
from engine.errors import PalaisError
from engine.notation import action_to_token, turn_to_text
from engine.position import position_to_string
from engine.options import RuleOptions
from engine.rng import Rng
from engine.state import State
from search.params import SHIPPED_VALUE
from play.analyse import Analyser, analyse_game, report_lines, split_turns
from play.cli import main as palais
from play.explain import explain
from play.game import PlayGame, read_game
from play.hints import find_hints
from search.params import SearchLimits

from processes import deaf_engine_cmd, left_running, pid_file, pids  # noqa: F401 (a fixture)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _random_until(state, rng, stop) -> None:
    """Random legal play (chance by the pile's odds) until stop(state) holds at a decision."""
    while not state.is_terminal():
        if state.is_chance():
            state.apply(A_DRAW + weighted_pick(state.deck_counts(), rng))
            continue
        if stop(state):
            return
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    raise AssertionError("the game ended before the wanted position")


def _mid_game(players=2, seed=3, round_=4):
    state = State.new_game(players, seed=seed)
    _random_until(state, Rng(seed), lambda s: s.round >= round_ and s.to_move == 0
                  and s.snapshot().hand_size[1] > 0)
    return state


# ---- the game model ------------------------------------------------------------------------

def test_take_back_restores_the_turn_in_progress_but_not_a_draw():
    game = PlayGame.new(2, seed=5, names=["a", "b"])
    before = position_to_string(game.state)
    first = game.state.legal_actions()[0]
    game.play(first)
    second = game.state.legal_actions()[-1]
    game.play(second)
    assert game.take_back() == second
    assert game.take_back() == first
    assert position_to_string(game.state) == before and game.actions == []
    with pytest.raises(PalaisError, match="nothing to take back"):
        game.take_back()
    # Once the turn passes, it stands.
    seat = game.state.to_move
    while game.state.to_move == seat:
        game.play(game.state.legal_actions()[0])
    assert not game.can_take_back()


def test_a_game_goes_on_with_the_actions_played_elsewhere():
    """extend(): the actions another server process stored (decisions and draws), played on
    from where this copy stands, give the same game as playing them here: the position, the
    take-backs of the turn in progress, and the draws still to come."""
    rng = Rng(11)
    there = PlayGame.new(3, seed=9, names=["a", "b", "c"])
    here = PlayGame.from_record(there.record(), there.start_state())
    here.secret, here.chance = there.secret, ChanceStream(there.secret, there.seed)
    for cut in (5, 40, 77):
        while len(there.actions) < cut:
            there.draw_cards()
            legal = there.state.legal_actions()
            there.play(legal[rng.below(len(legal))])
        here.extend(there.actions[len(here.actions):])
        assert position_to_string(here.state) == position_to_string(there.state)
        assert here.can_take_back() == there.can_take_back() and here.drawers == there.drawers
        assert [n for _, n in here.memento()[2]] == [n for _, n in there.memento()[2]]
    there.draw_cards()
    here.draw_cards()
    assert here.actions == there.actions                  # the same draws still to come
    with pytest.raises(PalaisError):
        here.extend([here.state.legal_actions()[0] + 10_000])


def test_a_saved_game_loads_back_to_the_same_position(tmp_path):
    game = PlayGame.new(3, seed=9, names=["p", "q", "r"])
    rng = Rng(2)
    for _ in range(120):
        game.draw_cards()
        legal = game.state.legal_actions()
        game.play(legal[rng.below(len(legal))])
    game.draw_cards()
    path = tmp_path / "game.rec"
    game.save(str(path))
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask      # as open() makes files, not 0600
    again = PlayGame.load(str(path))
    assert position_to_string(again.state) == position_to_string(game.state)
    assert again.actions == game.actions and again.drawers == game.drawers
    assert again.seen_by(1) == game.seen_by(1)
    assert "?" in game.seen_by(1) or all(d in (None, 1) for d in game.drawers)


def test_saving_into_a_missing_folder_fails_cleanly_and_leaves_nothing(tmp_path):
    game = PlayGame.new(2, seed=1, names=["a", "b"])
    with pytest.raises(PalaisError, match="cannot write"):
        game.save(str(tmp_path / "no-such-folder" / "x.rec"))
    assert list(tmp_path.iterdir()) == []


def test_others_draws_are_hidden_in_what_an_engine_is_sent():
    game = PlayGame.new(2, seed=4, names=["a", "b"])
    rng = Rng(4)
    while not any(d == 1 for d in game.drawers):
        game.draw_cards()
        legal = game.state.legal_actions()
        game.play(legal[rng.below(len(legal))])
    seen = game.seen_by(0)
    for token, drawer in zip(seen, game.drawers):
        assert (token == "?") == (drawer == 1)


# ---- hints ---------------------------------------------------------------------------------

def test_hints_are_the_same_whatever_the_hidden_cards_are():
    state = _mid_game()
    view = state.view(0)
    worlds = [view.determinize(0, Rng(s)) for s in (1, 2, 3, 4)]
    hidden = {(tuple(w.snapshot().hand[1]), tuple(w.snapshot().deck)) for w in worlds}
    assert len(hidden) > 1, "the test needs worlds that differ in what seat 1 cannot see"
    limits = SearchLimits(iterations=3000)
    reports = [find_hints(w, limits, top=3, seed=7).to_dict() for w in worlds + [state, view]]
    hints = [r["hints"] for r in reports]          # (time_ms is the machine's, not the search's)
    assert all(h == hints[0] for h in hints)
    assert len(hints[0]) == 3 and all(r["iterations"] == 3000 for r in reports)


def test_hint_explanations_describe_their_own_turn():
    state = _mid_game(seed=11, round_=3)
    report = find_hints(state, SearchLimits(iterations=3000), top=3, seed=1)
    view = state.view(0)
    for h in report.hints:
        assert h.tokens == turn_to_text(h.turn)
        assert h.explanation == explain(view, h.turn, 0)
        assert 0.0 <= h.win <= 1.0
    # A turn that recruits names the noble; the explanation follows the turn, not the rank.
    for h in report.hints:
        recruits = [a for a in h.turn if A_RECRUIT <= a < A_RECRUIT + 36]
        for a in recruits:
            tile = state.snapshot().tile_at[a - A_RECRUIT]
            assert f"noble {state.components.tiles[tile].number}" in h.explanation


def test_hint_refuses_when_no_decision_is_due():
    state, rng = State.new_game(2, seed=1), Rng(1)
    while not state.is_chance():
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    with pytest.raises(PalaisError, match="card draw"):
        find_hints(state)
    state.apply(A_DRAW + weighted_pick(state.deck_counts(), rng))
    while not state.is_terminal():
        if state.is_chance():
            state.apply(A_DRAW + weighted_pick(state.deck_counts(), rng))
        else:
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
    with pytest.raises(PalaisError, match="game is over"):
        find_hints(state)


def test_palais_hint_reads_a_position_string_and_prints_json():
    state = _mid_game(seed=12)
    text = position_to_string(state.view(0))
    out = CliRunner().invoke(palais, ["hint", text, "--iterations", "2000", "--top", "2", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["seat"] == 1 and data["iterations"] == 2000 and len(data["hints"]) == 2
    first = data["hints"][0]["turn"].split()[0]
    assert first in {action_to_token(a) for a in state.legal_actions()}


def test_palais_hint_reads_the_end_of_a_game_record(tmp_path):
    game = PlayGame.new(2, seed=13, names=["a", "b"])
    rng = Rng(13)
    while game.state.round < 3 or game.state.is_chance():
        game.draw_cards()
        legal = game.state.legal_actions()
        game.play(legal[rng.below(len(legal))])
    path = tmp_path / "mid.rec"
    game.save(str(path))
    args = ["hint", str(path), "--iterations", "1500", "--seed", "2", "--board"]
    out = CliRunner().invoke(palais, args)
    assert out.exit_code == 0, out.output
    seat = game.state.to_move
    name = "ab"[seat]
    assert f"Hints for seat {seat + 1} ({name}) (1500 iterations" in out.output and "Castle" in out.output
    assert f"> {'AB'[seat]} seat {seat + 1} ({name}):" in out.output   # the board names the seats too
    direct = find_hints(game.state, SearchLimits(iterations=1500), seed=2)
    # (the game's draws come from a fresh secret, so a long first hint may wrap: compare words)
    assert f" 1. {direct.hints[0].tokens} " in " ".join(out.output.split()) + " "


def test_palais_hint_gives_clear_errors():
    runner = CliRunner()
    bad = runner.invoke(palais, ["hint", "pr1 nonsense"])
    assert bad.exit_code == 1 and "Error:" in bad.output
    missing = runner.invoke(palais, ["hint", "/no/such/file.rec"])
    assert missing.exit_code == 1 and "no such game record" in missing.output


# ---- analysis ------------------------------------------------------------------------------

def _finished_record(tmp_path, players=3, seed=21):
    game = PlayGame.new(players, seed=seed, names=[f"r{q}" for q in range(players)],
                        options=None)
    rng = Rng(seed)
    while not game.over():
        game.draw_cards()
        if game.over():
            break
        legal = game.state.legal_actions()
        game.play(legal[rng.below(len(legal))])
    path = tmp_path / "game.rec"
    game.save(str(path))
    return path, game


def test_turns_split_at_the_change_of_seat(tmp_path):
    path, game = _finished_record(tmp_path, players=2, seed=5)
    rec, start = read_game(str(path))
    turns = split_turns(start, rec.actions)
    whole = [a for _s, _q, _line, all_of_turn in turns for a in all_of_turn]
    draws_between = [a for a in rec.actions if A_DRAW <= a < A_DRAW + 9]
    assert len(whole) + sum(1 for _ in draws_between) >= len(rec.actions)
    for (s, seat, line, all_of_turn), nxt in zip(turns, turns[1:]):
        assert s.to_move == seat and line == all_of_turn[:len(line)]
        assert not any(A_DRAW <= a < A_DRAW + 9 for a in line)
        assert nxt[1] != seat or nxt[0].round != s.round


def test_analysis_flags_a_thrown_away_recruitment(tmp_path):
    # Seat 1 can recruit but ends step 4 instead: the analysis must prefer recruiting.
    state = State.new_game(2, seed=8)
    rng = Rng(8)
    _random_until(state, rng, lambda s: s.stage == S_RECRUIT and s.to_move == 0
                  and any(A_RECRUIT <= a < A_RECRUIT + 36 for a in s.legal_actions()))
    analyser = Analyser(SearchLimits(iterations=4000), seed=3)
    end_now = [a for a in state.legal_actions() if not A_RECRUIT <= a < A_RECRUIT + 36]
    verdict = analyser.turn(1, state, 0, end_now[:1])
    assert verdict.best and verdict.best[0] != end_now[0]
    assert verdict.best_win >= verdict.played_win and verdict.loss == pytest.approx(
        max(0.0, verdict.best_win - verdict.played_win))


@pytest.mark.slow
def test_analysis_report_of_a_whole_game(tmp_path):
    path, _game = _finished_record(tmp_path, players=3, seed=21)
    rec, start = read_game(str(path))
    analyses = analyse_game(rec, start, Analyser(SearchLimits(iterations=300), seed=1))
    assert len(analyses) == len(split_turns(start, rec.actions))
    assert all(abs(sum(t.win_after) - 1.0) < 0.02 for t in analyses)
    text = "\n".join(report_lines(rec, analyses))
    assert "Summary:" in text and "Final scores:" in text
    assert sum(t.verdict != "" for t in analyses) > 0      # random play makes mistakes
    out = CliRunner().invoke(palais, ["analyse", str(path), "--iterations", "200", "--json"])
    assert out.exit_code == 0, out.output
    assert len(json.loads(out.output)["turns"]) == len(analyses)


def test_analysis_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path, _game = _finished_record(tmp_path, players=2, seed=6)
    png = tmp_path / "win.png"
    out = CliRunner().invoke(palais, ["analyse", str(path), "--iterations", "100", "--plot", str(png)])
    assert out.exit_code == 0, out.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- palais play, as a person plays it -----------------------------------------------------

PROMPT = r"seat 1> "


def _spawn(args, tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, PYTHONPATH=REPO, COLUMNS="120", NO_COLOR="1")
    return pexpect.spawn(sys.executable, ["-m", "play.cli", "play", *args], cwd=str(tmp_path),
                         env=env, encoding="utf-8", timeout=60, dimensions=(60, 120))


def _menu_before_prompt(text: str) -> list:
    return re.findall(r"\s(\d+) (\S+)", text.split(":")[-1])


def _play_to_the_end(child) -> str:
    """Answer every prompt with menu item 1 until the final scores; returns them."""
    for _ in range(3000):
        if child.expect([PROMPT, r"Final scores: [^\n]*\n"]) == 1:
            return child.after
        child.sendline("1")
    raise AssertionError("the game did not end")


@pytest.mark.slow
def test_palais_play_in_a_terminal(tmp_path):
    common = ["--seat", "human", "--seat", "random", "--rule", "round_cap=2",
              "--hint-iterations", "300", "--seed", "4"]
    child = _spawn(["--players", "2", *common], tmp_path)
    child.expect("Castle")                         # the board, then the menu
    child.expect("Park")
    child.expect(r"Your turn, seat 1\.")
    child.expect(PROMPT)
    assert "1 GATE" in child.before and "\x1b[" not in child.before      # NO_COLOR: plain text
    child.sendline("MINT")                         # an action by token
    child.expect(PROMPT)
    child.sendline("undo")                         # ... taken back
    child.expect(r"Took back MINT\.")
    child.expect(PROMPT)
    child.sendline("2")                            # an action by menu number (PARADE)
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"Hints for seat 1 \(human\) \(300 iterations")
    child.expect(r" 1\. ([^\n]+)\r?\n")
    best_line = child.match.group(1).strip()
    child.expect(r"win \d+%, expected score")
    child.expect(PROMPT)
    child.sendline(best_line)                      # the rest of the turn, by tokens, in one line
    child.expect(r"Seat 2 \(random\) plays: ")     # the turn passed to the engine
    child.expect(PROMPT)
    child.sendline("save saved.rec")
    child.expect(r"Saved to saved\.rec\.")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("Game left unfinished")
    child.expect(pytest.importorskip("pexpect").EOF)
    assert (tmp_path / "saved.rec").exists()

    again = _spawn(["--load", "saved.rec", *common], tmp_path)
    again.expect(r"Your turn, seat 1\.")
    scores = _play_to_the_end(again)
    assert re.search(r"seat 1 \(human\) \d+ VP, seat 2 \(random\) \d+ VP", scores)
    again.expect(r"Winner: seat")
    again.expect(pytest.importorskip("pexpect").EOF)
    again.close()
    assert again.exitstatus == 0


def test_palais_play_refuses_bad_options(tmp_path):
    runner = CliRunner()
    bad_seat = runner.invoke(palais, ["play", "--seat", "wizard"])
    assert bad_seat.exit_code == 1 and "--seat 'wizard'" in bad_seat.output
    bad_rule = runner.invoke(palais, ["play", "--rule", "round_cap=0"])
    assert bad_rule.exit_code == 1 and "round_cap" in bad_rule.output
    too_many = runner.invoke(palais, ["play", "--players", "2", "--seat", "human", "--seat", "random",
                                      "--seat", "random"])
    assert too_many.exit_code == 1 and "3 --seat options for 2 players" in too_many.output


# ---- engine seats: in-process and PRI ------------------------------------------------------

def _scripted(game, seats, lines=()):
    from play.terminal import Terminal
    out, feed = [], list(lines)
    terminal = Terminal(game, seats, out.append, lambda prompt: feed.pop(0) if feed else None)
    return terminal, out


@pytest.mark.slow
def test_a_pri_engine_and_an_in_process_engine_play_a_whole_game():
    from play.seats import open_seat, parse_seat
    limits = SearchLimits(iterations=200)
    game = PlayGame.new(2, seed=3, names=["pri", "random"], options=RuleOptions(round_cap=3))
    seats = [open_seat(parse_seat(f"cmd:{sys.executable} -m protocol.cli"), limits, 1),
             open_seat(parse_seat("random"), limits, 2)]
    terminal, out = _scripted(game, seats)
    try:
        assert terminal.run() == 0
    finally:
        for s in seats:
            s.close()
    text = "\n".join(out)
    assert "Seat 1 (pri) plays:" in text and "Seat 2 (random) plays:" in text
    assert "Game over. Final scores:" in text and game.over()
    # The last board lists every hand that holds cards.
    final = text[text.rindex("Players"):]
    for q in range(2):
        size = game.state.snapshot().hand_size[q]
        assert (f"hand {size}:" if size else "hand 0 cards") in final
    # What the PRI engine was told never showed seat 2's draws.
    assert all(tok == "?" for tok, d in zip(game.seen_by(0), game.drawers) if d == 1)


@pytest.mark.slow
def test_no_engine_process_outlives_a_palais_play_game(pid_file):
    """A `cmd:` seat whose engine ignores quit, the end of its input and SIGTERM, started by
    a launcher process: when the game is over neither of them runs."""
    import shlex
    seat = "cmd:" + shlex.join(deaf_engine_cmd(pid_file))
    result = CliRunner().invoke(palais, ["play", "--seat", seat, "--seat", "random", "--rule", "round_cap=1",
                                         "--engine-iterations", "10", "--no-color",
                                         "--sandbox", "off"])     # its pid file: outside a sandbox's view
    assert result.exit_code == 0, result.output
    assert "Game over." in result.output
    assert len(pids(pid_file)) == 2                       # the launcher and its engine
    assert left_running(pid_file) == []


@pytest.mark.slow
def test_a_pri_seat_waits_for_a_search_by_iterations_as_long_as_it_takes():
    from play.seats import PriSeat
    from protocol.client import SAFETY_TIMEOUT_S
    from protocol.commands import Go
    seat = PriSeat((sys.executable, "-m", "tournament.testing_engines"), SearchLimits(iterations=3000))
    try:
        assert seat._go() == (Go(iterations=3000), SAFETY_TIMEOUT_S) and SAFETY_TIMEOUT_S >= 600
    finally:
        seat.close()
    timed = PriSeat((sys.executable, "-m", "tournament.testing_engines"), SearchLimits(time_ms=500))
    try:
        assert timed._go() == (Go(movetime_ms=500), 10.5)
    finally:
        timed.close()


class _IllegalSeat:
    def choose_turn(self, game):
        return [a for a in range(175) if a not in game.state.legal_actions()][:1]

    def close(self):
        pass


def test_a_failing_engine_seat_is_handed_to_a_person():
    game = PlayGame.new(2, seed=2, names=["broken", "you"])
    terminal, out = _scripted(game, [_IllegalSeat(), None], ["quit"])
    assert terminal.run() == 1
    text = "\n".join(out)
    assert "plays an illegal action" in text or "played an illegal action" in text
    assert "Seat 1 is played by hand from now on" in text and terminal.seats[0] is None
    assert game.actions == []


def test_a_pri_seat_is_sent_the_whole_game_as_the_seat_sees_it():
    from play.seats import PriSeat
    from protocol.parser import format_command
    game = PlayGame.new(2, seed=3, names=["pri", "random"], options=RuleOptions(round_cap=3),
                        first_game=True)
    line = format_command(PriSeat._position(game, 0))
    layout = "/".join(",".join(ROOMS[r] for r in game.layout()[i:i + 3]) for i in (0, 3, 6))
    # The setup written out (the first game's layout among it), never the seed it came from.
    assert line == (f"position start players 2 layout {layout} deal "
                    + ",".join(map(str, game.deal_numbers())) + " options round_cap=3")


def test_palais_play_without_a_seed_picks_one_prints_it_and_saves_it(tmp_path):
    """A new deal each game by default (issue 26): the seed is told and kept, so the game can
    be dealt again with --seed."""
    import re
    seeds = []
    for k in range(2):
        path = tmp_path / f"g{k}.rec"
        out = CliRunner().invoke(palais, ["play", "--seat", "random", "--seat", "random",
                                          "--rule", "round_cap=1", "--save", str(path)])
        assert out.exit_code == 0, out.output
        told = int(re.search(r"2 players, seed (\d+):", out.output).group(1))
        from engine.record import read_record
        assert read_record(path.read_text()).seed == told
        seeds.append(told)
    assert seeds[0] != seeds[1]          # (two equal draws of 2^31 would be a 1-in-2-billion fluke)


def test_an_in_process_seat_takes_search_parameters_after_a_colon():
    from play.seats import InProcessSeat, open_seat, parse_seat
    spec = parse_seat("ismcts:preset=v26,exploration=0.5")
    assert spec.kind == "ismcts" and spec.label == "ismcts"
    assert dict(spec.params) == {"hash_mb": 64, "decision_share": 0.0, "static_eval": "v26", "selection": "uct",
                                 "value_weights": str(SHIPPED_VALUE), "exploration": 0.5}
    seat = open_seat(spec, SearchLimits(iterations=50), 4)
    try:
        assert isinstance(seat, InProcessSeat)
        params = seat.player.params
        assert (params.decision_share, params.hash_mb, params.exploration, params.seed) == (0.0, 64, 0.5, 4)
    finally:
        seat.close()
    assert parse_seat("ismcts").params == ()


@pytest.mark.parametrize("text, says", [
    ("ismcts:exploration=99", "exploration"),
    ("ismcts:bogus=1", "expected NAME=VALUE"),
    ("ismcts:preset=v99", "no such preset"),
    ("ismcts:seed=3", "expected NAME=VALUE"),          # play seeds its engines itself
    ("pimc:algorithm=ismcts", "the algorithm is the seat's kind"),
    ("human:exploration=1", "expected human"),
    ("ismcts:" + "x" * 5000, "expected NAME=VALUE"),
])
def test_bad_seat_parameters_are_one_clear_error(text, says):
    from play.seats import parse_seat
    with pytest.raises(PalaisError) as caught:
        parse_seat(text)
    message = str(caught.value)
    assert says in message and "\n" not in message and len(message) < 600


def test_a_secret_is_taken_from_a_file_or_standard_input_never_from_the_command_line(tmp_path):
    refused = CliRunner().invoke(palais, ["play", "--secret", "00" * 32])
    assert refused.exit_code != 0
    assert "--secret HEX is no longer taken" in refused.output and "--secret-file FILE" in refused.output
    secret_file = tmp_path / "secret"
    secret_file.write_text("ab" * 32 + "\n")
    games = []
    for source, given in ((str(secret_file), ""), ("-", "ab" * 32 + "\n")):
        done = CliRunner().invoke(palais, ["play", "--seat", "random", "--seat", "random", "--seed", "3",
                                           "--secret-file", source, "--rule", "round_cap=2",
                                           "--save", str(tmp_path / "game.rec"), "--no-color"], input=given)
        assert done.exit_code == 0, done.output
        games.append((tmp_path / "game.rec").read_text())
    assert games[0] == games[1] and '[DrawSecret "' + "ab" * 32 + '"]' in games[0]
    bad = CliRunner().invoke(palais, ["play", "--secret-file", "-"], input="not hex\n")
    assert bad.exit_code != 0 and "standard input: expected 32 to 128 hex digits" in bad.output


def test_a_line_stopped_by_a_word_says_the_words_before_it_stay_played():
    """`1 end` in the setup: the 1 is played; 'end' is refused, and the message says that
    the 1 was played and stays played (issue 39 item 8)."""
    game = PlayGame.new(2, seed=3, names=["ann", "bob"])
    menu = game.state.legal_actions()
    terminal, out = _scripted(game, [None, None], ["1 end", "quit"])
    assert terminal.run() == 1
    first = action_to_token(menu[0])
    said = [line for line in out if line.startswith("Played ")]
    assert said == [f"Played 1 ({first}), which stays played; then 'end' is not legal here: "
                    "see the menu"]
    assert game.actions[:1] == [menu[0]]
    # a first word refused is a plain error, nothing played
    game = PlayGame.new(2, seed=3, names=["ann", "bob"])
    terminal, out = _scripted(game, [None, None], ["end 1", "quit"])
    assert terminal.run() == 1
    assert "Error: 'end' is not legal here: see the menu" in out and game.actions == []
