"""One grammar for both ends of PRI: what the client writes is what the parser reads.

Every command the GUI side sends is a protocol/commands.py dataclass written by
`format_command`; parsing that line must give the same command back, for every field the
parser knows. A command that has no such line is refused before anything is sent.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.commands import (Bench, Display, Go, Hint, IsReady, NewGame, Perft, PositionStart,
                               PositionString, Pri, Quit, SetOption, Stop)
from protocol.parser import MAX_COUNT, MAX_MS, BadCommand, format_command, parse_line

# A word: no whitespace (Unicode's included) and no control characters.
WORD = st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=12) \
    .filter(lambda w: len(w.split()) == 1 and w == w.strip())
PLAIN = WORD.filter(lambda w: w != "moves")
CODE = st.text(st.characters(blacklist_categories=("Z", "C"), blacklist_characters=",/="),
               min_size=1, max_size=8).filter(lambda w: len(w.split()) == 1)
MOVES = st.lists(WORD, max_size=6).map(tuple)


def seat_values(high):
    return st.dictionaries(st.integers(0, 3), st.integers(0, high), max_size=4) \
        .map(lambda d: tuple(sorted(d.items())))


def maybe(strategy):
    return st.none() | strategy


SET_OPTION = st.builds(
    SetOption,
    name=st.lists(WORD.filter(lambda w: w != "value"), min_size=1, max_size=3).map(" ".join),
    value=maybe(st.lists(WORD, max_size=3).map(" ".join)))

POSITION_START = st.builds(
    PositionStart,
    players=st.integers(2, 4),
    seed=st.integers(0, 2 ** 63 - 1),
    first_game=st.booleans(),
    layout=maybe(st.lists(CODE, min_size=9, max_size=9).map(tuple)),
    deal=maybe(st.lists(st.integers(0, 10 ** 6), min_size=36, max_size=36).map(tuple)),
    options=st.lists(st.tuples(CODE, st.text(st.characters(blacklist_categories=("Z", "C"),
                                                           blacklist_characters=","), max_size=6)
                               .filter(lambda t: len(t.split()) <= 1 and t == t.strip())),
                     max_size=4).map(tuple),
    components=maybe(PLAIN),
    moves=MOVES)

POSITION_STRING = st.builds(PositionString, text=st.lists(PLAIN, min_size=1, max_size=6).map(" ".join),
                            moves=MOVES)

GO = st.builds(
    Go,
    movetime_ms=maybe(st.integers(1, MAX_MS)),
    iterations=maybe(st.integers(1, MAX_COUNT)),
    nodes=maybe(st.integers(1, MAX_COUNT)),
    infinite=st.booleans(),
    time_ms=seat_values(MAX_MS),
    inc_ms=seat_values(MAX_MS),
    multipv=maybe(st.integers(1, 64)))

HINT = st.builds(Hint, top=st.integers(1, 16), movetime_ms=maybe(st.integers(1, MAX_MS)),
                 iterations=maybe(st.integers(1, MAX_COUNT)))

COMMANDS = st.one_of(
    st.sampled_from([Pri(), IsReady(), NewGame(), Stop(), Quit(), Display(), Bench()]),
    SET_OPTION, POSITION_START, POSITION_STRING, GO, HINT, st.builds(Perft, st.integers(0, 12)))


@given(COMMANDS)
def test_a_formatted_command_parses_back_to_itself(command):
    line = format_command(command)
    assert "\n" not in line and "\r" not in line
    assert parse_line(line) == command


@pytest.mark.parametrize("command, line", [
    (Go(movetime_ms=250), "go movetime 250"),
    (Go(iterations=3000), "go iterations 3000"),
    (Go(nodes=5000), "go nodes 5000"),
    (Go(infinite=True), "go infinite"),
    (Go(iterations=800, multipv=2), "go iterations 800 multipv 2"),
    (Go(time_ms=((0, 900), (1, 1200)), inc_ms=((0, 10), (1, 10))),
     "go p1time 900 p1inc 10 p2time 1200 p2inc 10"),
    (PositionStart(players=2, seed=9), "position start players 2 seed 9"),
    (PositionStart(players=3, seed=4, moves=("GATE", "?")), "position start players 3 seed 4 moves GATE ?"),
    (PositionStart(players=2, first_game=True, layout=tuple("ABCDEFGHI"), deal=tuple(range(1, 37)),
                   options=(("round_cap", "3"), ("hidden", "true"))),
     "position start players 2 firstgame layout A,B,C/D,E,F/G,H,I deal "
     + ",".join(map(str, range(1, 37))) + " options round_cap=3,hidden=true"),
    (PositionString("pr1 set=x players=2", ("end",)), "position pos pr1 set=x players=2 moves end"),
    (SetOption("Seed", "4"), "setoption name Seed value 4"),
    (SetOption("Clear Hash"), "setoption name Clear Hash"),
    (Hint(top=2, iterations=500), "hint top 2 iterations 500"),
    (Perft(3), "perft 3"),
    (Quit(), "quit"),
])
def test_the_lines_sent_are_the_protocols_words(command, line):
    assert format_command(command) == line


@pytest.mark.parametrize("command, why", [
    (SetOption("Hash\nquit", "1"), "read back"),                 # a line break would inject a command
    (SetOption("Seed", "1\rstop"), "read back"),
    (SetOption("my value", "1"), "read back"),                   # 'value' cannot be in a name
    (PositionString("pr1 moves GATE"), "read back"),             # 'moves' ends a position string
    (PositionString("  pr1   x "), "read back"),
    (PositionStart(players=2, components="moves"), "'components' needs a file path"),
    (PositionStart(players=2, moves=("GATE end",)), "read back"),
    (PositionStart(players=5), "'players' must be in 2..4"),
    (Go(movetime_ms=0), "'movetime' must be in"),
    (Go(time_ms=((4, 100),)), "unknown word 'p5time'"),
    (Perft(99), "'perft' must be in 0..12"),
])
def test_a_command_with_no_line_is_refused_with_the_reason(command, why):
    with pytest.raises(BadCommand, match=why):
        format_command(command)


def test_the_client_sends_nothing_for_a_command_with_no_line():
    from protocol.client import EngineClient

    class Recording(EngineClient):
        def send(self, line):
            self.transcript.append((">", line))

    client = Recording(["unused"])
    with pytest.raises(BadCommand):
        client.set_option("Hash\nquit", 1)
    with pytest.raises(TypeError):
        client.go("movetime 250", timeout=1)          # limits are a Go, not text
    client.set_option("Hash", 16)
    assert client.transcript == [(">", "setoption name Hash value 16")]
