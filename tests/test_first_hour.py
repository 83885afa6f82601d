"""What a new user meets in the first hour (issue 16), through the commands as a user runs
them: `--version`, the random-game summary, the play menu and board, hints in words, the
analysis report and plot, and the tournament's tables."""

from __future__ import annotations

import importlib.metadata

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
