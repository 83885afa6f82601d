"""A whole 4-player game between four palais-engine processes, each seeing only its cards.

The tournament's arbiter keeps the true state with the rules core, deals the draws from a
seeded stream, tells each engine the moves as its seat sees them (other seats' draws as
`?`), and checks every bestmove token. The game record it writes must read back and replay
to the same end.
"""

import sys

import pytest

from engine.record import read_record, replay
from tournament.arbiter import TimeControl, play_game
from tournament.engines import EngineSpec

ENGINE = (sys.executable, "-m", "protocol.cli")

pytestmark = pytest.mark.slow          # four engine processes play a whole game


def test_four_engine_processes_play_a_whole_game_with_a_valid_record():
    seats = [EngineSpec(f"engine{q + 1}", ENGINE, (("Seed", str(q + 1)),)) for q in range(4)]
    result = play_game(0, 31, seats, TimeControl(movetime_ms=None, iterations=300, margin_ms=60_000))
    assert result.forfeits == {}
    record = read_record(result.record)
    final = replay(record)
    assert final.is_terminal() and final.scores() == result.scores
    assert record.names == ["engine1", "engine2", "engine3", "engine4"]
    assert f'[Scores "{",".join(map(str, result.scores))}"]' in result.record
