"""What a new user meets in the first hour (issue 16), through the commands as a user runs
them: `--version`, the random-game summary, the play menu and board, hints in words, the
analysis report and plot, and the tournament's tables."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import sys

import pytest
from click.testing import CliRunner

from play.cli import main as palais
from protocol.cli import main as palais_engine
from tournament.cli import main as palais_tournament

VERSION = importlib.metadata.version("palais-engine")


@pytest.mark.parametrize("command, prog, kernel", [(palais, "palais", True),
                                                   (palais_engine, "palais-engine", True),
                                                   (palais_tournament, "palais-tournament", False)])
def test_every_command_prints_the_installed_version(command, prog, kernel):
    from search._value import floating_point_control
    from search.value import kernel_name
    result = CliRunner().invoke(command, ["--version"])
    assert result.exit_code == 0, result.output
    # palais and palais-engine also say which value kernel runs and how searches flush
    # subnormals to zero (search/kernel.py, search/fp_mode.h)
    details = f"value kernel: {kernel_name()}\nflush-to-zero: {floating_point_control()}\n"
    assert result.output == f"{prog} {VERSION}\n" + (details if kernel else "")


# ---- palais random-game: a summary first, the tokens on request ----------------------------

def test_random_game_prints_a_short_summary_and_lists_the_moves_only_on_request():
    from engine.random_play import random_action
    from engine.rng import Rng
    from engine.state import State

    short = CliRunner().invoke(palais, ["random-game", "--players", "3", "--seed", "1"])
    assert short.exit_code == 0, short.output
    lines = short.output.splitlines()
    assert len(lines) <= 10 and not any(line.startswith(("setup ", "round ")) for line in lines)
    # The same game played here: its rounds, scores, nobles and winner are what the summary says.
    state, rng = State.new_game(3, seed=1), Rng(1)
    while not state.is_terminal():
        state.apply(random_action(state, rng))
    snap = state.snapshot()
    assert f"game over after {snap.round} rounds" in short.output
    for q, score in enumerate(state.scores()):
        nobles = sum(1 for owner in snap.owner if owner == q)
        assert re.search(rf"seat {q + 1}: {score} VP, {nobles} nobles? recruited", short.output)
    winners = " and ".join(f"seat {q + 1}" for q, r in enumerate(state.returns()) if r > 0)
    assert f"winner: {winners}" in short.output and "--moves" in short.output

    full = CliRunner().invoke(palais, ["random-game", "--players", "3", "--seed", "1", "--moves"])
    assert full.exit_code == 0, full.output
    assert full.output.count("\nround ") > 50 and "\nsetup    seat 1: " in full.output
    assert full.output.endswith(short.output.split("\n", 2)[2].replace(
        "(--moves lists every action turn by turn)\n", ""))


# ---- palais-tournament: honest intervals, whole names --------------------------------------

@pytest.mark.slow
def test_a_tiny_tournament_reports_no_zero_width_interval_and_keeps_names_whole(tmp_path):
    # Two copies of one seeded random mover: each deal's seat-swapped games are the same game,
    # so every pair is split one game each and the pair scores have no spread at all.
    mover = f'cmd="{sys.executable} -m tournament.testing_engines --mode random --seed 4"'
    names = ["random-mover-number-one", "random-mover-number-two"]
    args = [a for n in names for a in ("--engine", f"name={n} {mover}")]
    result = CliRunner().invoke(palais_tournament, args + ["--deals", "2", "--tc", "iterations=10",
                                                          "--out", str(tmp_path / "run"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "2-0-2" in result.output and "0/0/2/0/0" in result.output
    assert "+0 [n/a]" in result.output and not re.search(r"(^|[ \[])-0\b", result.output, re.M)
    assert not re.search(r"\[([+-]\d+), \1\]", result.output)         # no [x, x] interval
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in names:                                  # each name whole, on one line
        assert any(name in line for line in lines if "vs " not in line)
        assert any(f"vs {name}" in line for line in lines) or any(
            line.strip().startswith(name) for line in lines if "pairing" not in line)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    pairing = summary["pairings"][f"{names[0]} vs {names[1]}"]
    assert pairing["elo_low"] is None and pairing["elo_high"] is None and pairing["los"] is None


def test_the_elo_interval_is_wide_for_a_few_pairs_and_narrows_with_more():
    from tournament.stats import two_player

    def games(pair_scores):
        out = []
        for pair, (first, second) in enumerate(pair_scores):
            for k, ret in enumerate((first, second)):
                names = ["a", "b"] if k == 0 else ["b", "a"]
                returns = [0.0, 0.0]
                returns[names.index("a")] = ret
                returns[names.index("b")] = 1.0 - ret
                out.append({"index": 2 * pair + k, "deal_seed": pair, "group": 0, "names": names,
                            "returns": returns, "ranks": [1, 2]})
        return out

    # Four pairs (1.5, 1, 1, 0.5 points of 2): even, with some spread. A normal interval would
    # say +-72 Elo; four observations cannot say that much (Student's t with 3 degrees of
    # freedom: about +-260).
    spread = [(1.0, 0.5), (1.0, 0.0), (0.0, 1.0), (0.5, 0.0)]
    few = two_player(games(spread), "a", "b")
    many = two_player(games(spread * 25), "a", "b")
    assert few.elo == pytest.approx(0.0, abs=1e-6) and many.elo == pytest.approx(0.0, abs=1e-6)
    assert few.elo_high > 200 and few.elo_low < -200
    assert 0 < many.elo_high < 60 and many.elo_low == pytest.approx(-many.elo_high, rel=0.2)


# ---- palais analyse: counts in good English, a plot that reads like lichess's ---------------

def _crafted_analysis():
    """A 2-player record and hand-made turn verdicts: seat 1 one mistake and one blunder,
    seat 2 one turn without fault; setup and rounds 1-2."""
    from engine.record import read_record
    from play.analyse import TurnAnalysis
    from play.game import PlayGame
    game = PlayGame.new(2, seed=3, names=["ann", "bob"])
    rec = read_record(game.record_text())

    def turn(number, round_, seat, verdict, win):
        loss = {"": 0.0, "mistake": 0.12, "blunder": 0.3}[verdict]
        return TurnAnalysis(number, round_, seat, [], win, [], win + loss, loss, verdict,
                            [win, 1 - win] if seat == 0 else [1 - win, win], "")
    return rec, [turn(1, 0, 0, "", 0.5), turn(2, 1, 0, "mistake", 0.4),
                 turn(3, 2, 0, "blunder", 0.2), turn(4, 2, 1, "", 0.8)]


def test_the_analysis_report_says_1_mistake_not_1_mistakes():
    from play.analyse import report_lines
    rec, analyses = _crafted_analysis()
    text = "\n".join(report_lines(rec, analyses))
    assert "seat 1 (ann): 3 turns, 1 mistake, 1 blunder," in text
    assert "seat 2 (bob): 1 turn, 0 mistakes, 0 blunders," in text
    assert not re.search(r"\b1 (turns|mistakes|blunders)\b", text)


def test_the_win_probability_plot_marks_faults_on_the_seat_line_and_counts_rounds():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from play.analyse import win_probability_figure
    rec, analyses = _crafted_analysis()
    fig = win_probability_figure(rec, analyses)
    try:
        ax = fig.axes[0]
        marks = {c.get_gid(): [tuple(p) for p in c.get_offsets()] for c in ax.collections}
        assert marks == {"mistake-seat1": [(2.0, 0.4)], "blunder-seat1": [(3.0, 0.2)]}
        assert [t.get_text() for t in ax.texts] == ["?", "??"]
        assert list(ax.get_xticks()) == [1, 2, 3]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["setup", "1", "2"]
        assert ax.get_xlabel().startswith("round")
    finally:
        plt.close(fig)


def test_palais_analyse_writes_the_plot_and_a_plural_correct_report(tmp_path):
    pytest.importorskip("matplotlib")
    from engine.options import RuleOptions
    from engine.rng import Rng
    from play.game import PlayGame
    game = PlayGame.new(2, seed=6, names=["a", "b"], options=RuleOptions(round_cap=2))
    rng = Rng(6)
    while not game.over():
        game.draw_cards()
        if not game.over():
            legal = game.state.legal_actions()
            game.play(legal[rng.below(len(legal))])
    record, png = tmp_path / "game.rec", tmp_path / "win.png"
    game.save(str(record))
    result = CliRunner().invoke(palais, ["analyse", str(record), "--iterations", "100",
                                         "--plot", str(png)])
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Summary:" in result.output
    assert not re.search(r"\b1 (turns|mistakes|blunders)\b", result.output)


# ---- palais play: the menu, the turn's lines, the compact board ----------------------------

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROMPT = r"seat 1> "


def _spawn(args, cwd, rows, cols):
    """`palais play` in a pseudo-terminal of rows x cols (no COLUMNS/LINES: the terminal's
    own size counts, as for a person)."""
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(PYTHONPATH=REPO, NO_COLOR="1")
    return pexpect.spawn(sys.executable, ["-m", "play.cli", "play", *args], cwd=str(cwd), env=env,
                         encoding="utf-8", timeout=60, dimensions=(rows, cols))


def _menu_rows(text: str) -> list:
    """The menu lines just before a prompt (indented lines after the stage line)."""
    lines = text.replace("\r\n", "\n").rstrip("\n").split("\n")
    rows = []
    for line in reversed(lines):
        if not re.match(r"\s+\d+ \S", line):
            break
        rows.insert(0, line)
    return rows


@pytest.mark.slow
def test_the_menu_takes_numbers_and_tokens_on_one_line_in_aligned_columns(tmp_path):
    child = _spawn(["--seed", "4", "--seat", "human", "--seat", "random", "--full-board"],
                   tmp_path, 50, 72)
    child.expect(PROMPT)
    child.sendline("1 1 2 GATE 3")                  # numbers and tokens mixed: the whole setup
    child.expect(r"Seat 1 \(human\) played: ([^\r\n]*)\r?\n")
    assert child.match.group(1) == "GATE GATE PARADE GATE STAIRS"
    child.expect(PROMPT)                           # round 1, step 1
    child.sendline("1")                            # gate0
    child.expect(PROMPT)                           # step 2: ten moves, a long one among them
    rows = _menu_rows(child.before)
    assert len(rows) >= 3 and all(len(row) <= 72 for row in rows)
    starts = [[m.start(1) for m in re.finditer(r"\d+ (\S+)", row)] for row in rows]
    assert all(s == starts[0][:len(s)] for s in starts)            # the same columns in every row
    assert all(b - a >= len("STAIRS-CARDINAL") + 2 for a, b in zip(starts[0], starts[0][1:]))
    assert not re.search(r"[A-Z]\d", "\n".join(rows))              # no "STAIRS-CARDINAL10"
    assert "STAIRS-CARDINAL" in "\n".join(rows)
    child.sendline("end")
    child.expect(r"Seat 1 \(human\) played: gate0 end\r?\n")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pytest.importorskip("pexpect").EOF)


def test_draws_and_turns_are_one_line_per_seat_and_turn():
    # Seed 5 under this secret: the random seat 2 draws 4 cards in one turn (and 1 in others).
    result = CliRunner().invoke(palais, ["play", "--seat", "human", "--seat", "random", "--seed", "5",
                                         "--secret-file", "-", "--rule", "round_cap=4"],
                                input="00" * 32 + "\n" + "1\n" * 400)
    assert result.exit_code == 0, result.output
    lines = [line.split("seat 1> ")[-1] for line in result.output.splitlines()]  # (input is not echoed)
    draws = [line for line in lines if line.startswith("Seat 2 draws")]
    assert "Seat 2 draws 4 cards." in draws and "Seat 2 draws 1 card." in draws
    assert all(re.fullmatch(r"Seat 2 draws (1 card|[2-9] cards)\.", d) for d in draws)
    assert not any(a == b and a.startswith("Seat 2 draws") for a, b in zip(lines, lines[1:]))
    assert sum(line.startswith("Seat 1 (human) played: ") for line in lines) == 5   # setup + 4 rounds
    # An engine that answers one action at a time still gets one line per turn (or two, around
    # its own draw): never two lines in a row.
    plays = [i for i, line in enumerate(lines) if line.startswith("Seat 2 (random) plays: ")]
    assert plays and not any(b == a + 1 for a, b in zip(plays, plays[1:]))
    assert "Seat 2 (random) plays: KING BACKDOOR BACKDOOR BACKDOOR MADAME" in lines    # its setup
    # The only person at the table is told their own cards by name, in one line.
    own = CliRunner().invoke(palais, ["play", "--seat", "human", "--seat", "random", "--seed", "4",
                                      "--secret-file", "-", "--rule", "round_cap=2"],
                             input="00" * 32 + "\n" + "BACKDOOR " * 5 + "\n" + "1\n" * 12)
    assert "You draw GOLD, MOVES, INTRIGUE, INTRIGUE and MADAMESEAL." in own.output, own.output
    assert own.output.count("You draw") == 1


def _board_before_prompt(text: str) -> list:
    text = text.replace("\r\n", "\n")
    start = max(text.rfind("\nSetup |"), text.rfind("\nRound "))
    return text[start + 1:text.index("\nYour turn", start)].split("\n")


@pytest.mark.slow
def test_a_short_terminal_gets_the_compact_board(tmp_path):
    short = _spawn(["--seed", "4", "--seat", "human", "--seat", "random"], tmp_path, 24, 100)
    short.expect(PROMPT)
    board = _board_before_prompt(short.before)
    assert len(board) <= 24 and max(len(line) for line in board) <= 100
    assert any(re.match(r"\s*row 3 ", line) for line in board)       # the castle
    assert any(re.match(r" 1 \|\d+:\d+ ", line) for line in board)    # the park, a line a rank
    assert any(line.startswith("> A seat 1 (human): gold 0") for line in board)
    short.sendline("board full")                                       # the full one on request
    short.expect(r"privileges: INCn")
    short.expect(PROMPT)
    short.sendline("quit")
    short.expect(pytest.importorskip("pexpect").EOF)

    tall = _spawn(["--seed", "4", "--seat", "human", "--seat", "random"], tmp_path, 60, 100)
    tall.expect(PROMPT)
    assert len(_board_before_prompt(tall.before)) > 40                 # room enough: the full board
    tall.sendline("quit")
    tall.expect(pytest.importorskip("pexpect").EOF)

    forced = _spawn(["--seed", "4", "--seat", "human", "--seat", "random", "--compact"], tmp_path, 60, 100)
    forced.expect(PROMPT)
    assert len(_board_before_prompt(forced.before)) <= 24
    forced.sendline("quit")
    forced.expect(pytest.importorskip("pexpect").EOF)


def test_the_compact_board_of_four_long_named_seats_fits_24_lines():
    from engine.random_play import random_action
    from engine.rng import Rng
    from engine.state import State
    from play.board import draw_board
    state, rng = State.new_game(4, seed=3), Rng(3)
    for _ in range(560):                     # late in the game: many nobles and privileges
        state.apply(random_action(state, rng))
    names = ["a-person-with-a-long-name", "ismcts-with-a-long-name", "pimc-with-a-long-name", "greedy"]
    for seat in range(4):
        board = draw_board(state, seat=seat, names=names, compact=True).split("\n")
        assert len(board) <= 24 and max(len(line) for line in board) <= 100


# ---- hints in words: wrapped at spaces, setup said in setup terms --------------------------

def _setup_position():
    from engine.position import position_to_string
    from engine.state import State
    return position_to_string(State.new_game(2, seed=4).view(0))


def test_palais_hint_wraps_its_explanations_at_spaces_to_the_terminal_width():
    position = _setup_position()
    args = ["hint", position, "--iterations", "800", "--seed", "1"]
    data = json.loads(CliRunner().invoke(palais, args + ["--json"]).output)
    result = CliRunner().invoke(palais, args, env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 60
    for hint in data["hints"]:
        # The explanation: the indented lines after its numbers, joined at spaces, whole.
        at = next(i for i, line in enumerate(lines) if line.startswith("    win ")
                  and lines[i - 1] == f" {hint['rank']}. {hint['turn']}")
        words = []
        for line in lines[at + 1:]:
            if not line.startswith("    "):
                break
            words.append(line.strip())
        assert " ".join(words) == hint["explanation"]
        assert len(words) > 1                                     # it did need wrapping at 60


def test_a_setup_hint_is_explained_in_setup_terms():
    from engine.notation import parse_turn
    from engine.state import State
    from play.explain import explain
    from play.i18n import ROOM_IN_TEXT, piece_labels
    state = State.new_game(2, seed=4)
    assert explain(state, parse_turn("BACKDOOR CARDINAL BACKDOOR STAIRS STAIRS"), 0) == (
        "Places 2 in the Stairway (6 moves a turn), 2 in the Back Door (2 cards drawn a turn) "
        "and 1 in the Cardinal (wins tied majorities); majority in the Parade Ground and the "
        "Stairway so far (later seats still place).")
    data = json.loads(CliRunner().invoke(palais, ["hint", _setup_position(), "--iterations", "800",
                                                  "--json"]).output)
    for hint in data["hints"]:
        assert hint["explanation"].startswith("Places ")
        for room in set(hint["turn"].split()):
            name = piece_labels().pgettext(ROOM_IN_TEXT, room)     # "the Stairway"
            assert f"in {name} (" in hint["explanation"] and room not in hint["explanation"]


@pytest.mark.slow
def test_hints_in_palais_play_fit_the_terminal(tmp_path):
    child = _spawn(["--seed", "4", "--seat", "human", "--seat", "random", "--hint-iterations", "800",
                    "--compact"], tmp_path, 40, 64)
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"Hints for seat 1")
    child.expect(PROMPT)
    hint_text = child.before.replace("\r\n", "\n")
    assert max(len(line) for line in hint_text.split("\n")) <= 64
    assert "Places " in hint_text
    child.sendline("quit")
    child.expect(pytest.importorskip("pexpect").EOF)


# ---- a saved game keeps the engines' cards out of what the programs show -------------------

def test_a_saved_game_says_it_holds_hidden_cards_and_hint_keeps_them_hidden(tmp_path):
    from engine.record import read_record, replay
    save = tmp_path / "game.rec"
    # Seed 6: seat 2 (random) has drawn 6 cards by the time seat 1 quits.
    result = CliRunner().invoke(palais, ["play", "--seat", "human", "--seat", "random", "--seed", "6",
                                         "--rule", "round_cap=4", "--save", str(save)],
                                input="1\n" * 15 + "quit\n")
    assert result.exit_code == 1 and "Seat 2 draws 4 cards." in result.output, result.output
    text = save.read_text()
    assert '[People "1"]' in text and "[Hidden " in text and "?" in text     # seat 2's draws are in it
    # What palais play showed: seat 2's hand only as a count until the game was over.
    assert not re.search(r"B seat 2 \(random\): [^\n]*hand \d+: ", result.output)
    assert not re.search(r"Seat 2 draws? [A-Z]", result.output)

    state = replay(read_record(text))
    assert not state.is_terminal() and state.to_move == 0 and not state.is_chance()
    # The person's own seat gets hints, with a board that hides seat 2's cards ...
    own = CliRunner().invoke(palais, ["hint", str(save), "--iterations", "200", "--board"])
    assert own.exit_code == 0, own.output
    assert "Castle" in own.output and not re.search(r"B seat 2 \(random\): [^\n]*hand \d+: ", own.output)
    # ... but once seat 1's turn is played (first legal actions), seat 2, an engine, is to
    # move: no hint and no board for it.
    from engine.notation import action_to_token
    tokens = []
    while state.to_move == 0 and not state.is_chance():
        tokens.append(action_to_token(state.legal_actions()[0]))
        state.apply(state.legal_actions()[0])
    assert state.to_move == 1 and not state.is_chance()
    refused = CliRunner().invoke(palais, ["hint", str(save), "--moves", " ".join(tokens),
                                          "--iterations", "200", "--board"])
    assert refused.exit_code == 1
    assert "seat 2 is to move, and it is played by an engine in this saved game" in refused.output
    assert "Castle" not in refused.output


@pytest.mark.slow
def test_the_terminal_game_edits_lines_and_recalls_them_with_the_up_arrow(tmp_path):
    """At a terminal `palais play` reads lines with readline: the Up arrow brings back the
    last command instead of becoming the token '\\x1b[A' (issue 26)."""
    child = _spawn(["--seed", "4", "--seat", "human", "--seat", "random"], tmp_path, 60, 100)
    child.expect(PROMPT)
    child.sendline("help")
    child.expect(PROMPT)
    first = child.before
    child.send("\x1b[A")                  # Up: the last line again
    child.sendline("")
    child.expect(PROMPT)
    again = child.before
    assert "\\x1b" not in again and "[A" not in again
    assert first.strip().splitlines()[-1] in again   # the help's last line, printed once more
    child.sendline("quit")
    child.expect(pytest.importorskip("pexpect").EOF)
