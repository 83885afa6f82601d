"""What a new user meets in the first hour (issue 16), through the commands as a user runs
them: `--version`, the random-game summary, the play menu and board, hints in words, the
analysis report and plot, and the tournament's tables."""

from __future__ import annotations

import importlib.metadata
import re

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
