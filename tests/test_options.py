"""Rule options: the defaults of RULES.md, validation with clear messages, dict round trips."""

import dataclasses

import pytest

from engine.options import RuleOptions


def test_defaults_are_those_of_the_rules():
    o = RuleOptions()
    assert o.round_cap == 60            # §7 safeguard
    assert o.end_trigger_tiles == 12    # §7 end trigger
    assert o.setup_on_gate is True      # §2 step 7
    assert o.room_fallback is True      # §3 "Where new servants come from"
    assert o.hand_vp_cap == 6           # §7 scoring item 3
    assert o.honour_vp == 3             # §6 HONOUR


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        RuleOptions().round_cap = 10


@pytest.mark.parametrize("name, value", [
    ("round_cap", 1), ("round_cap", 200), ("end_trigger_tiles", 0),
    ("end_trigger_tiles", 36), ("hand_vp_cap", 0), ("honour_vp", 50),
    ("setup_on_gate", False), ("room_fallback", False),
])
def test_values_at_the_edges_are_accepted(name, value):
    assert getattr(RuleOptions(**{name: value}), name) == value


@pytest.mark.parametrize("name, value, expected", [
    ("round_cap", 0, "rule option 'round_cap': expected an integer in 1..200, got 0"),
    ("round_cap", 201, "rule option 'round_cap': expected an integer in 1..200, got 201"),
    ("round_cap", True, "rule option 'round_cap': expected an integer in 1..200, got True"),
    ("round_cap", "60", "rule option 'round_cap': expected an integer in 1..200, got '60'"),
    ("round_cap", 60.0, "rule option 'round_cap': expected an integer in 1..200, got 60.0"),
    ("end_trigger_tiles", -1, "rule option 'end_trigger_tiles': expected an integer in 0..36"),
    ("end_trigger_tiles", 37, "rule option 'end_trigger_tiles': expected an integer in 0..36"),
    ("hand_vp_cap", -1, "rule option 'hand_vp_cap': expected an integer in 0..50, got -1"),
    ("honour_vp", 51, "rule option 'honour_vp': expected an integer in 0..50, got 51"),
    ("setup_on_gate", 1, "rule option 'setup_on_gate': expected true or false, got 1"),
    ("room_fallback", "no", "rule option 'room_fallback': expected true or false, got 'no'"),
])
def test_bad_values_are_rejected_naming_the_option(name, value, expected):
    with pytest.raises(ValueError) as info:
        RuleOptions(**{name: value})
    assert str(info.value).startswith(expected)


def test_replace_validates_too():
    with pytest.raises(ValueError, match="round_cap"):
        dataclasses.replace(RuleOptions(), round_cap=0)


def test_dict_round_trip():
    o = RuleOptions(round_cap=80, end_trigger_tiles=10, setup_on_gate=False,
                    room_fallback=False, hand_vp_cap=4, honour_vp=2)
    d = o.to_dict()
    assert d == {"round_cap": 80, "end_trigger_tiles": 10, "setup_on_gate": False,
                 "room_fallback": False, "hand_vp_cap": 4, "honour_vp": 2}
    assert RuleOptions.from_dict(d) == o


def test_from_dict_fills_in_defaults():
    assert RuleOptions.from_dict({}) == RuleOptions()
    assert RuleOptions.from_dict({"honour_vp": 5}) == RuleOptions(honour_vp=5)


def test_from_dict_rejects_unknown_keys_by_name():
    with pytest.raises(ValueError) as info:
        RuleOptions.from_dict({"round_cap": 50, "roundcap": 50})
    message = str(info.value)
    assert "unknown option 'roundcap'" in message
    assert "round_cap" in message.split("known:")[1]


def test_from_dict_validates_values():
    with pytest.raises(ValueError, match="'end_trigger_tiles': expected an integer in 0..36"):
        RuleOptions.from_dict({"end_trigger_tiles": 40})


def test_from_dict_wants_a_mapping():
    with pytest.raises(ValueError, match="expected a mapping"):
        RuleOptions.from_dict([("round_cap", 60)])
