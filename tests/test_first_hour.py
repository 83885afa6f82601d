"""What a new user meets in the first hour (issue 16), through the commands as a user runs
them: `--version`, the random-game summary, the play menu and board, hints in words, the
analysis report and plot, and the tournament's tables."""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys

import pytest
from click.testing import CliRunner

from play.cli import main as palais
from protocol.cli import main as palais_engine
from tournament.cli import main as palais_tournament

VERSION = importlib.metadata.version("palais-engine")


@pytest.mark.parametrize("command, prog", [(palais, "palais"), (palais_engine, "palais-engine"),
                                           (palais_tournament, "palais-tournament")])
def test_every_command_prints_the_installed_version(command, prog):
    result = CliRunner().invoke(command, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == f"{prog} {VERSION}\n"


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
