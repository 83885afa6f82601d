"""Each concept declared once: every registered algorithm reaches every list of players, and
every search knob reads and checks the same at the PRI end and the bench/tune.py end."""

from __future__ import annotations

import math

import pytest

from engine.errors import PalaisError
from play.seats import IN_PROCESS, parse_seat
from protocol.engine import OPTION_BY_NAME, EngineError, EngineFacade
from search.algorithms import REGISTRY
from search.params import KNOBS, SearchParams, tree_memory_cap_mb
from search.player import Player
from search.factory import make_player

from helpers import bench_script

tune = bench_script("tune")

TUNABLE = {k.name for k in tune.TUNABLE}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_registered_algorithm_is_a_pri_choice_a_player_and_a_seat_unless_it_sees_hidden(name):
    assert name in OPTION_BY_NAME["algorithm"].choices
    player = make_player(SearchParams(algorithm=name, seed=1))
    try:
        assert isinstance(player, Player) and isinstance(player, REGISTRY[name].player_class())
    finally:
        player.close()
    if REGISTRY[name].sees_hidden:
        assert name not in IN_PROCESS
        with pytest.raises(PalaisError, match="expected human"):
            parse_seat(name)
    else:
        assert name in IN_PROCESS and parse_seat(name).kind == name


def test_the_lists_of_players_hold_nothing_unregistered():
    assert set(OPTION_BY_NAME["algorithm"].choices) == set(REGISTRY)
    assert set(IN_PROCESS) <= set(REGISTRY) and "mcts" not in IN_PROCESS


def text_of(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def values_inside(knob):
    values = {knob.default, *knob.choices}
    if knob.kind is bool:
        values |= {True, False}
    if knob.low is not None and not knob.low_open:
        values.add(knob.kind(knob.low))
    if knob.high is not None:
        values.add(knob.kind(knob.high))
    if knob.name == "hash_mb":              # the engine caps Hash to what this machine holds
        values = {v for v in values if v <= tree_memory_cap_mb(1)}
    return sorted(values, key=str)


def values_outside(knob):
    if knob.choices:
        return ["bogus"]
    if knob.kind is bool:
        return []
    out = [] if knob.low is None else [knob.kind(knob.low) if knob.low_open else knob.kind(knob.low) - 1]
    if knob.high is not None:
        out.append(knob.kind(knob.high) + 1)
    if knob.kind is float:
        out.append(math.nan)
    return out


def through_pri(knob, text):
    engine = EngineFacade()
    engine.set_option(knob.pri, text)
    return getattr(engine.params(), knob.name)


def through_tune(knob, text):
    return tune.parse_params(f"{knob.name}={text}")[knob.name]


@pytest.mark.parametrize("knob", KNOBS, ids=lambda k: k.name)
def test_a_knob_reads_the_same_value_at_the_pri_end_and_the_tune_end(knob):
    assert knob.pri or knob.name in TUNABLE, f"{knob.name} is reachable from neither end"
    for value in values_inside(knob):
        text = text_of(value)
        assert getattr(SearchParams(**{knob.name: value}), knob.name) == value
        if knob.pri:
            assert through_pri(knob, text) == value, (knob.name, text)
        if knob.name in TUNABLE:
            assert through_tune(knob, text) == value, (knob.name, text)


@pytest.mark.parametrize("knob", KNOBS, ids=lambda k: k.name)
def test_a_knob_refuses_a_value_outside_its_range_with_the_same_reason_at_both_ends(knob):
    for value in values_outside(knob):
        text = text_of(value)
        with pytest.raises(PalaisError) as direct:
            SearchParams(**{knob.name: value})
        reason = str(direct.value)
        assert reason.startswith(f"{knob.name}: ")
        reason = reason[len(knob.name) + 2:]
        assert text in reason                       # it names the value it refuses
        if isinstance(value, float) and math.isnan(value):
            reason = f"expected a number, got {text!r}"    # NaN is a value, but 'nan' is no number's text
        if knob.pri:
            with pytest.raises(EngineError) as pri:
                through_pri(knob, text)
            assert str(pri.value) == f"option {knob.pri}: {reason}"
        if knob.name in TUNABLE:
            with pytest.raises(PalaisError) as tuned:
                through_tune(knob, text)
            assert str(tuned.value) == f"{knob.name}: {reason}"


def test_text_that_is_no_value_is_refused_with_the_same_reason_at_both_ends():
    exploration = next(k for k in KNOBS if k.name == "exploration")
    with pytest.raises(EngineError, match=r"^option Exploration: expected a number, got 'lots'$"):
        through_pri(exploration, "lots")
    with pytest.raises(PalaisError, match=r"^exploration: expected a number, got 'lots'$"):
        through_tune(exploration, "lots")


@pytest.mark.parametrize("name,text", [
    ("exploration", "1_0"), ("exploration", "٣"), ("exploration", "+5"), ("exploration", "inf"),
    ("exploration", "nan"), ("exploration", "0x1"), ("seed", "+5"), ("seed", "1_000"), ("seed", "٣"),
    ("seed", "²"), ("rollout_turns", "--1"), ("rollout_turns", "−1")])
def test_a_number_is_ascii_digits_at_both_ends(name, text):
    """Only ASCII digits spell a number (common/numbers.py): int() and float() take '+5',
    '1_000' and other scripts' digits, and float() takes 'inf' and 'nan'."""
    knob = next(k for k in KNOBS if k.name == name)
    with pytest.raises(EngineError, match=r"^option [A-Za-z ]+: expected a (whole )?number, got '"):
        through_pri(knob, text)
    if name in TUNABLE:
        with pytest.raises(PalaisError, match=rf"^{name}: expected a (whole )?number, got '"):
            through_tune(knob, text)


def test_a_number_too_long_for_any_range_is_refused_by_its_length():
    seed = next(k for k in KNOBS if k.name == "seed")
    with pytest.raises(EngineError, match=r"^option Seed: '9999.*\(5000 characters\) is out of range \(more than 20 digits\)$"):
        through_pri(seed, "9" * 5000)


def test_every_declared_command_is_parsed_and_has_a_handler():
    import io
    from protocol.commands import COMMANDS, PositionString, Quit
    from protocol.parser import PARSERS, format_command
    from protocol.server import Server
    server = Server(io.StringIO())
    try:
        assert list(PARSERS) == list(COMMANDS)
        for word, cls in COMMANDS.items():
            assert cls.word == word
            if cls is not Quit:
                assert server.handlers[cls] == getattr(server, f"on_{cls.handler}")
        assert server.handlers[PositionString] == server.on_position
        assert format_command(PositionString("pr1 abc", ("x",))) == "position pos pr1 abc moves x"
    finally:
        server.engine.close()


def test_a_command_word_is_declared_once():
    from protocol.commands import command
    with pytest.raises(ValueError, match="'go' is declared twice"):
        command("go")(type("Again", (), {}))
