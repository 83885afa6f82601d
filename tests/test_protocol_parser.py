"""PRI parser: every command's forms, its errors, and that no line makes it raise."""

import pytest
from hypothesis import given, settings, strategies as st

from protocol.commands import (Bench, Display, Go, Hint, IsReady, NewGame, ParseError, Perft,
                               PositionStart, PositionString, Pri, Quit, SetOption, Stop)
from protocol.parser import PARSERS, parse_line


@pytest.mark.parametrize("line,command", [
    ("pri", Pri()),
    ("  isready  ", IsReady()),
    ("newgame", NewGame()),
    ("stop", Stop()),
    ("quit", Quit()),
    ("d", Display()),
    ("bench", Bench()),
    ("perft 3", Perft(3)),
    ("setoption name Hash value 128", SetOption("Hash", "128")),
    ("setoption name Move Overhead value 50", SetOption("Move Overhead", "50")),
    ("setoption name Clear Tree", SetOption("Clear Tree", None)),
    ("setoption name Algorithm value ismcts", SetOption("Algorithm", "ismcts")),
    ("position start players 3", PositionStart(players=3)),
    ("position start players 2 seed 17 firstgame moves MINT KING",
     PositionStart(players=2, seed=17, first_game=True, moves=("MINT", "KING"))),
    ("position start players 4 options round_cap=30,setup_on_gate=false",
     PositionStart(players=4, options=(("round_cap", "30"), ("setup_on_gate", "false")))),
    ("position start players 2 layout BACKDOOR,OFFICE,CARDINAL/MINT,GATE,MADAME/STAIRS,KING,PARADE",
     PositionStart(players=2, layout=("BACKDOOR", "OFFICE", "CARDINAL", "MINT", "GATE", "MADAME",
                                      "STAIRS", "KING", "PARADE"))),
    ("position start players 2 components /tmp/my set.toml",
     ParseError("unknown word 'set.toml' in 'position start'")),
    ("position start players 2 components sets/printed.toml moves MINT",
     PositionStart(players=2, components="sets/printed.toml", moves=("MINT",))),
    ("position pos pr1 set=x players=2 moves gate2 ?",
     PositionString("pr1 set=x players=2", ("gate2", "?"))),
    ("go movetime 250", Go(movetime_ms=250)),
    ("go infinite multipv 3", Go(infinite=True, multipv=3)),
    ("go iterations 5000 nodes 90000", Go(iterations=5000, nodes=90000)),
    ("go p1time 60000 p2time 59000 p1inc 1000 p2inc 1000",
     Go(time_ms=((0, 60000), (1, 59000)), inc_ms=((0, 1000), (1, 1000)))),
    ("hint", Hint()),
    ("hint top 5 movetime 1000", Hint(top=5, movetime_ms=1000)),
])
def test_each_command_parses(line, command):
    assert parse_line(line) == command


def test_empty_lines_are_nothing():
    assert parse_line("") is None and parse_line("   \t ") is None


@pytest.mark.parametrize("line,words", [
    ("hello", "unknown command 'hello'"),
    ("isready now", "takes no arguments"),
    ("perft", "expected 'perft <depth>'"),
    ("perft x", "needs a whole number, got 'x'"),
    ("perft 40", "must be in 0..12"),
    ("go movetime", "'movetime' needs a number"),
    ("go movetime -5", "must be in 1.."),
    ("go fast", "unknown word 'fast' in 'go'"),
    ("go p5time 100", "unknown word 'p5time'"),
    ("setoption Hash 5", "expected 'setoption name <id> [value <x>]'"),
    ("setoption name value 5", "needs an option name"),
    ("position", "expected 'position start"),
    ("position from here", "takes 'start' or 'pos'"),
    ("position start seed 3", "needs 'players <n>'"),
    ("position start players 5", "'players' must be in 2..4"),
    ("position start players 2 colour red", "unknown word 'colour'"),
    ("position start players 2 deal 1,2,3", "36 tile numbers"),
    ("position start players 2 layout A,B/C", "9 rooms"),
    ("position start players 2 options round_cap", "name=value"),
    ("position pos moves a1", "needs a position string"),
    ("hint top 0", "'top' must be in 1..16"),
])
def test_malformed_lines_say_what_is_wrong(line, words):
    result = parse_line(line)
    assert isinstance(result, ParseError)
    assert words in result.message


TILES = ",".join(str(t) for t in range(2, 37))      # tiles 2..36: a deal lacks its first item


@pytest.mark.parametrize("line,words", [
    (f"position start players 2 deal ²,{TILES}", "'deal item 1' needs a whole number, got '²'"),
    (f"position start players 2 deal {'9' * 5000},{TILES}",
     "'deal item 1' must be in 0..1000000000000, got '999999999999999999999999'... (5000 characters)"),
    (f"position start players 2 deal +1,{TILES}", "'deal item 1' needs a whole number, got '+1'"),
    ("perft +5", "'perft' needs a whole number, got '+5'"),
    ("perft ٣", "'perft' needs a whole number, got '٣'"),
    ("perft ²", "'perft' needs a whole number, got '²'"),
    ("go movetime 1_000", "'movetime' needs a whole number, got '1_000'"),
    ("go p1time ١٠٠٠", "'p1time' needs a whole number, got '١٠٠٠'"),
    ("go nodes 0x10", "'nodes' needs a whole number, got '0x10'"),
    ("go iterations " + "9" * 5000, "'iterations' must be in 1..1000000000000, got '999"),
    ("position start players ٢", "'players' needs a whole number, got '٢'"),
    ("position start players 2 seed +5", "'seed' needs a whole number, got '+5'"),
    ("position start players 2 seed " + "1" * 5000, "(5000 characters)"),
    ("hint top ³", "'top' needs a whole number, got '³'"),
    ("hint iterations 1_000", "'iterations' needs a whole number, got '1_000'"),
])
def test_a_number_is_ascii_digits_judged_by_its_length(line, words):
    """common/numbers.py reads every number of a line: int() would take '+5', '1_000' and
    other scripts' digits, fail on '²' with a ValueError, and refuse 5,000 digits only after
    counting them; the error line stays short whatever the number's length."""
    result = parse_line(line)
    assert isinstance(result, ParseError), result
    assert words in result.message and len(result.message) < 200


@settings(max_examples=3000, derandomize=True)
@given(st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(list(PARSERS) + ["players", "seed", "moves", "value", "name",
                                              "movetime", "p1time", "infinite", "-1", "0", "7",
                                              "99999999999999", "start", "pos", "x", "MINT"]),
             max_size=12).map(" ".join)))
@pytest.mark.slow
def test_no_line_makes_the_parser_raise(line):
    result = parse_line(line)
    assert result is None or isinstance(result, ParseError) or type(result).__module__ == "protocol.commands"
