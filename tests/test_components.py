"""Component data: the packaged reconstructed set, round trips, and every kind of bad file."""

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.components import (
    ComponentError, ComponentSet, Tile, components_from_dict, default_components, load_components,
)
from engine.constants import CARDS, PRIVILEGES, SIDE_NAMES


def tile(number):
    return default_components().tiles[number - 1]


# ---------------------------------------------------------------------------------------
# The default set

def test_default_set_is_labelled_reconstructed():
    c = default_components()
    assert c.name == "reconstructed-v1"
    assert c.reconstructed is True
    assert "reconstructed" in c.description.lower()
    assert c.source == "<builtin>"
    assert default_components() is c  # cached


def test_default_set_has_42_tiles_numbered_in_order():
    tiles = default_components().tiles
    assert len(tiles) == 42
    assert [t.number for t in tiles] == list(range(1, 43))


@pytest.mark.parametrize("number, cost_and_vp, privilege, amount", [
    (25, (4, 2, 0, 3), "INCOME", 2),   # the rulebook's own example
    (26, (3, 0, 1, 2), "INCOME", 1),
    (27, (2, 2, 2, 4), "SUPPLY", 3),   # from a session report
    (28, (4, 1, 2, 2), "SUPPLY", 5),
    (24, (9, 2, 1, 12), "NONE", 0),
    (1, (3, 0, 1, 3), "NONE", 0),
    (11, (1, 2, 1, 6), "NONE", 0),
    (40, (4, 0, 0, 1), "CARDS", 0),
    (42, (3, 0, 1, 2), "FAVOUR", 0),
])
def test_default_tiles_match_rules_spot_checks(number, cost_and_vp, privilege, amount):
    t = tile(number)
    assert (t.gold, t.turquoise, t.violet, t.vp) == cost_and_vp
    assert t.privilege_name == privilege
    assert t.amount == amount


def test_default_privileges_as_in_rules_section_4():
    tiles = default_components().tiles
    for p, name in enumerate(PRIVILEGES):
        if name != "NONE":
            assert 1 <= sum(t.privilege == p for t in tiles) <= 2, name
    assert sum(t.amount for t in tiles if t.privilege_name == "SUPPLY") == 8
    assert sum(t.privilege_name == "NONE" for t in tiles) == 24


def test_default_cards_and_park_points():
    c = default_components()
    assert c.cards_per_type == (4,) * 9
    assert c.n_cards == 36
    assert c.park_points == ((8, 4),) * 4


def _rules_md():
    here = Path(__file__).resolve()
    for candidate in (here.parents[2] / "shared" / "RULES.md", Path("/work/shared/RULES.md")):
        if candidate.is_file():
            return candidate
    return None


@pytest.mark.skipif(_rules_md() is None, reason="shared/RULES.md is not beside the repository")
def test_default_tiles_equal_the_rules_table():
    # Every row of the table in RULES.md §5, read from the markdown (two tiles per row).
    expected = {}
    for line in _rules_md().read_text(encoding="utf-8").splitlines():
        if not re.match(r"^\| \d+ \|", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for n, g, tq, v, vp, priv in (cells[0:6], cells[7:13]):
            m = re.fullmatch(r"([A-Z]+)(?:\((\d+)\))?|–", priv)
            assert m, f"unreadable privilege {priv!r}"
            name = m.group(1) or "NONE"
            expected[int(n)] = (int(g), int(tq), int(v), int(vp), name, int(m.group(2) or 0))
    assert sorted(expected) == list(range(1, 43))
    for t in default_components().tiles:
        assert (t.gold, t.turquoise, t.violet, t.vp, t.privilege_name, t.amount) \
            == expected[t.number], f"tile {t.number}"


# ---------------------------------------------------------------------------------------
# Round trips

def test_default_set_round_trips_through_toml(tmp_path):
    c = default_components()
    path = tmp_path / "copy.toml"
    path.write_text(c.to_toml(), encoding="utf-8")
    again = load_components(path)
    assert again == c
    assert again.source == str(path)
    assert again.tiles == c.tiles and again.description == c.description


def test_packaged_file_loads_by_path_too():
    path = Path(__file__).resolve().parents[1] / "engine" / "data" / "reconstructed.toml"
    assert load_components(path) == default_components()


def test_tiles_in_any_order_are_sorted_by_number():
    data = default_components().to_dict()
    data["tile"].reverse()
    c = components_from_dict(data, "reversed")
    assert [t.number for t in c.tiles] == list(range(1, 43))
    assert c == default_components()


@st.composite
def component_sets(draw):
    n = draw(st.integers(36, 48))
    tiles = []
    for number in range(1, n + 1):
        privilege = draw(st.sampled_from(PRIVILEGES))
        amount = {"INCOME": st.integers(1, 9), "SUPPLY": st.integers(1, 7)}.get(
            privilege, st.just(0))
        tiles.append(Tile(number, draw(st.integers(0, 20)), draw(st.integers(0, 20)),
                          draw(st.integers(0, 20)), draw(st.integers(0, 50)),
                          PRIVILEGES.index(privilege), draw(amount)))
    park = []
    for _ in SIDE_NAMES:
        first = draw(st.integers(0, 50))
        park.append((first, draw(st.integers(0, first))))
    return ComponentSet(
        name=draw(st.text(min_size=1).filter(str.strip)),
        reconstructed=draw(st.booleans()),
        description=draw(st.text()),
        source="<generated>",
        tiles=tuple(tiles),
        cards_per_type=tuple(draw(st.integers(0, 8)) for _ in CARDS),
        park_points=tuple(park),
    )


@pytest.mark.slow
@settings(max_examples=60)
@given(component_sets())
def test_any_valid_set_round_trips_through_toml(tmp_path_factory, c):
    path = tmp_path_factory.mktemp("rt") / "set.toml"
    path.write_text(c.to_toml(), encoding="utf-8")
    assert load_components(path) == c


# ---------------------------------------------------------------------------------------
# Malformed files. Each case edits the default set's data, writes it as bad.toml and
# expects ComponentError naming the file, then where (section or entry) and the field.

def dump_toml(data):
    """A TOML writer for test data, including values of the wrong type."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        raise TypeError(v)

    lines = []
    for key, section in data.items():
        if isinstance(section, dict):
            lines += [f"[{key}]"] + [f"{k} = {value(v)}" for k, v in section.items()] + [""]
        elif isinstance(section, list) and section and all(isinstance(e, dict) for e in section):
            for entry in section:
                lines += [f"[[{key}]]"] + [f"{k} = {value(v)}" for k, v in entry.items()] + [""]
        else:
            lines.insert(0, f"{key} = {value(section)}")
    return "\n".join(lines)


def load_edited(tmp_path, edit):
    data = copy.deepcopy(default_components().to_dict())
    edit(data)
    path = tmp_path / "bad.toml"
    path.write_text(dump_toml(data), encoding="utf-8")
    with pytest.raises(ComponentError) as info:
        load_components(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message


def entry(data, number):
    return next(e for e in data["tile"] if e["number"] == number)


def test_dump_toml_writes_the_default_set_faithfully(tmp_path):
    path = tmp_path / "good.toml"
    path.write_text(dump_toml(default_components().to_dict()), encoding="utf-8")
    assert load_components(path) == default_components()


def test_the_example_message_from_the_format_docs(tmp_path):
    message = load_edited(tmp_path, lambda d: entry(d, 7).update(gold="x"))
    assert message == (f"{tmp_path / 'bad.toml'}: tile 7 (entry 7 of [[tile]]): field 'gold': "
                       "expected an integer in 0..20, got 'x'")


# (edit of the data, substrings the message must contain)
TILE_CASES = {
    "missing field": (lambda d: entry(d, 7).pop("vp"),
                      ["tile 7 (entry 7 of [[tile]])", "missing field 'vp'"]),
    "unknown field": (lambda d: entry(d, 7).update(silver=2),
                      ["tile 7 (entry 7 of [[tile]])", "unknown field 'silver'"]),
    "string for an integer": (lambda d: entry(d, 12).update(turquoise="1"),
                              ["tile 12 (entry 12 of [[tile]])", "field 'turquoise'", "got '1'"]),
    "bool is not an integer": (lambda d: entry(d, 3).update(gold=True),
                               ["tile 3 (entry 3 of [[tile]])", "field 'gold'", "got true"]),
    "float is not an integer": (lambda d: entry(d, 5).update(vp=3.5),
                                ["tile 5 (entry 5 of [[tile]])", "field 'vp'", "got 3.5"]),
    "gold above 20": (lambda d: entry(d, 9).update(gold=21),
                      ["tile 9 (entry 9 of [[tile]])", "field 'gold'", "0..20", "got 21"]),
    "negative seals": (lambda d: entry(d, 9).update(violet=-1),
                       ["tile 9 (entry 9 of [[tile]])", "field 'violet'", "got -1"]),
    "vp above 50": (lambda d: entry(d, 1).update(vp=51),
                    ["tile 1 (entry 1 of [[tile]])", "field 'vp'", "0..50", "got 51"]),
    "unknown privilege": (lambda d: entry(d, 30).update(privilege="GOLDEN"),
                          ["tile 30 (entry 30 of [[tile]])", "field 'privilege'", "'GOLDEN'",
                           "INCOME"]),
    "privilege not a name": (lambda d: entry(d, 30).update(privilege=3),
                             ["tile 30 (entry 30 of [[tile]])", "field 'privilege'", "got 3"]),
    "INCOME without an amount": (lambda d: entry(d, 25).update(amount=0),
                                 ["tile 25 (entry 25 of [[tile]])", "field 'amount'", "1..9",
                                  "INCOME", "got 0"]),
    "INCOME above 9": (lambda d: entry(d, 26).update(amount=10),
                       ["tile 26 (entry 26 of [[tile]])", "field 'amount'", "got 10"]),
    "SUPPLY above 7": (lambda d: entry(d, 28).update(amount=8),
                       ["tile 28 (entry 28 of [[tile]])", "field 'amount'", "1..7", "SUPPLY"]),
    "amount on another privilege": (lambda d: entry(d, 29).update(amount=1),
                                    ["tile 29 (entry 29 of [[tile]])", "field 'amount'", "MOVE",
                                     "takes amount 0", "got 1"]),
    "duplicate number": (lambda d: entry(d, 8).update(number=7),
                         ["tile 7 (entry 8 of [[tile]])", "field 'number'", "appears twice",
                          "also entry 7"]),
    "number past N": (lambda d: entry(d, 42).update(number=43),
                      ["entry 42 of [[tile]]", "field 'number'", "1..42", "got 43"]),
    "number zero": (lambda d: entry(d, 1).update(number=0),
                    ["entry 1 of [[tile]]", "field 'number'", "got 0"]),
    "number missing": (lambda d: entry(d, 4).pop("number"),
                       ["entry 4 of [[tile]]", "missing field 'number'"]),
}


@pytest.mark.parametrize("edit, expected", TILE_CASES.values(), ids=TILE_CASES.keys())
def test_malformed_tile(tmp_path, edit, expected):
    message = load_edited(tmp_path, edit)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


def test_an_unreadable_number_names_the_entry_not_a_tile(tmp_path):
    message = load_edited(tmp_path, lambda d: entry(d, 4).update(number="four"))
    assert ": entry 4 of [[tile]]: field 'number'" in message
    assert "tile four" not in message


SECTION_CASES = {
    "card count above 8": (lambda d: d["cards"].update(GOLD=9),
                           ["[cards]: field 'GOLD'", "0..8", "got 9"]),
    "card count negative": (lambda d: d["cards"].update(HONOUR=-1),
                            ["[cards]: field 'HONOUR'", "got -1"]),
    "card count bool": (lambda d: d["cards"].update(LETTER=False),
                        ["[cards]: field 'LETTER'", "got false"]),
    "card type missing": (lambda d: d["cards"].pop("FOOTMAN"),
                          ["[cards]: missing field 'FOOTMAN'"]),
    "unknown card type": (lambda d: d["cards"].update(SILVER=4),
                          ["[cards]: unknown field 'SILVER'", "GOLD, MOVES"]),
    "park second above first": (lambda d: d["park"].update(rank6=[4, 8]),
                                ["[park]: field 'rank6'", "[4, 8]"]),
    "park points out of range": (lambda d: d["park"].update(fileA=[51, 4]),
                                 ["[park]: field 'fileA'", "0..50", "[51, 4]"]),
    "park points not a pair": (lambda d: d["park"].update(fileF=[8, 4, 2]),
                               ["[park]: field 'fileF'", "[8, 4, 2]"]),
    "park points not integers": (lambda d: d["park"].update(rank1=["8", "4"]),
                                 ["[park]: field 'rank1'"]),
    "park side missing": (lambda d: d["park"].pop("fileA"),
                          ["[park]: missing field 'fileA'"]),
    "unknown park side": (lambda d: d["park"].update(rank3=[1, 0]),
                          ["[park]: unknown field 'rank3'"]),
    "set name missing": (lambda d: d["set"].pop("name"), ["[set]: missing field 'name'"]),
    "set name empty": (lambda d: d["set"].update(name="  "), ["[set]: field 'name'"]),
    "reconstructed not a bool": (lambda d: d["set"].update(reconstructed="yes"),
                                 ["[set]: field 'reconstructed'", "true or false", "got 'yes'"]),
    "description not a string": (lambda d: d["set"].update(description=3),
                                 ["[set]: field 'description'", "got 3"]),
    "unknown set field": (lambda d: d["set"].update(author="me"),
                          ["[set]: unknown field 'author'"]),
}


@pytest.mark.parametrize("edit, expected", SECTION_CASES.values(), ids=SECTION_CASES.keys())
def test_malformed_section(tmp_path, edit, expected):
    message = load_edited(tmp_path, edit)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


FILE_CASES = {
    "missing section": (lambda d: d.pop("cards"), ["missing section [cards]"]),
    "missing tiles": (lambda d: d.pop("tile"), ["missing section [[tile]]"]),
    "unknown section": (lambda d: d.update(extras={"a": 1}), ["unknown section 'extras'"]),
    "section not a table": (lambda d: d.update(park=3), ["[park] must be a table", "got 3"]),
    "tile not a table": (lambda d: d.update(tile=[1, 2]), ["'tile' must be an array of tables"]),
}


@pytest.mark.parametrize("edit, expected", FILE_CASES.values(), ids=FILE_CASES.keys())
def test_malformed_structure(tmp_path, edit, expected):
    message = load_edited(tmp_path, edit)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


def test_tile_count_outside_36_to_48(tmp_path):
    message = load_edited(tmp_path, lambda d: d.update(tile=d["tile"][:35]))
    assert "[[tile]]: expected 36..48 tiles, found 35" in message

    def forty_nine(d):
        extra = [dict(entry(d, 1), number=n) for n in range(43, 50)]
        d["tile"].extend(extra)
    message = load_edited(tmp_path, forty_nine)
    assert "[[tile]]: expected 36..48 tiles, found 49" in message


def test_36_and_48_tiles_are_accepted():
    data = default_components().to_dict()
    data["tile"] = data["tile"][:36]
    assert len(components_from_dict(data, "small").tiles) == 36
    data["tile"] += [dict(data["tile"][0], number=n) for n in range(37, 49)]
    assert len(components_from_dict(data, "large").tiles) == 48


def test_toml_syntax_error_names_file_line_and_column(tmp_path):
    path = tmp_path / "bad.toml"
    text = default_components().to_toml().replace("gold = 6\n", "gold 6\n", 1)
    path.write_text(text, encoding="utf-8")
    bad_line = text.splitlines().index("gold 6") + 1
    with pytest.raises(ComponentError) as info:
        load_components(path)
    message = str(info.value)
    assert message.startswith(f"{path}: TOML syntax error: ")
    assert f"line {bad_line}, column" in message


def test_nonexistent_file(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ComponentError, match=r"nowhere\.toml: no such component file"):
        load_components(path)


def test_directory_instead_of_file(tmp_path):
    with pytest.raises(ComponentError, match="is a directory"):
        load_components(tmp_path)


def test_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(default_components().to_toml().replace(
        "reconstructed-v1", "r\u00e9sum\u00e9").encode("latin-1"))
    with pytest.raises(ComponentError, match=r"latin1\.toml: not UTF-8 text"):
        load_components(path)


def test_component_error_is_a_value_error():
    assert issubclass(ComponentError, ValueError)
    with pytest.raises(ValueError):
        components_from_dict({}, "empty")
