"""Component data: the noble tiles, the privilege-card counts and the park points, as data.

The printed components of Palais Royal are not public, so palais ships a reconstructed
set (engine/data/reconstructed.toml, RULES.md §5 [R]) and loads any other set from a TOML
file of the same format (docs/components.md) without touching code.

Everything read from a file is checked here, once: a malformed file raises ComponentError
with a message naming the file, the entry and the field. Code that holds a ComponentSet can
trust it. The constructors of Tile and ComponentSet do not check; build sets through
load_components / components_from_dict.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from common.files import read_text_file

from .constants import CARDS, MAX_CARDS_PER_TYPE, MAX_TILES, N_SQUARES, PRIVILEGES, SIDE_NAMES
from .errors import PalaisError

MIN_TILES = N_SQUARES          # every park space gets a tile
MAX_COST = 20                  # gold, turquoise or violet seals on one tile
MAX_VP = 50                    # points of one tile, and of one place on a park side
# Privileges that take an amount, with its range; every other privilege takes amount 0.
AMOUNT_RANGES = {"INCOME": (1, 9), "SUPPLY": (1, 7)}
# At most this many tiles share one privilege: a seat's privilege totals are 8-bit in the
# core and add to its 8-bit turn counters (12 INCOME tiles of 9 gold are 108).
MAX_TILES_PER_PRIVILEGE = 12

SECTIONS = ("set", "cards", "park", "tile")
SET_FIELDS = ("name", "reconstructed", "description")
TILE_FIELDS = ("number", "gold", "turquoise", "violet", "vp", "privilege", "amount")

DEFAULT_RESOURCE = "data/reconstructed.toml"


class ComponentError(PalaisError):
    """A component file or mapping that is not a valid component set; says where and why."""


@dataclass(frozen=True)
class Tile:
    """One noble tile: its cost, its points and its privilege."""

    number: int        # 1..N, as printed on the tile
    gold: int          # gold paid to the supply
    turquoise: int     # turquoise seals paid (servants returned from KING)
    violet: int        # violet seals paid (servants returned from MADAME)
    vp: int            # victory points at the end
    privilege: int     # index into constants.PRIVILEGES (0 = NONE)
    amount: int        # INCOME: gold per turn; SUPPLY: servants; otherwise 0

    @property
    def privilege_name(self) -> str:
        return PRIVILEGES[self.privilege]


@dataclass(frozen=True)
class ComponentSet:
    """A full set of components. Two sets are equal when their contents are, wherever loaded."""

    name: str
    reconstructed: bool                       # True for a set not copied from the printed game
    description: str
    source: str = field(compare=False)        # the file it was read from, or "<builtin>"
    tiles: tuple[Tile, ...]                   # sorted by number: tiles[i].number == i + 1
    cards_per_type: tuple[int, ...]           # per card type, in constants.CARDS order
    park_points: tuple[tuple[int, int], ...]  # (most, second most) per side, in SIDE_NAMES order

    @property
    def n_cards(self) -> int:
        return sum(self.cards_per_type)

    def to_dict(self) -> dict[str, Any]:
        """The set in the shape of its TOML file (components_from_dict reads it back)."""
        park = zip(SIDE_NAMES, self.park_points, strict=True)
        return {
            "set": {"name": self.name, "reconstructed": self.reconstructed,
                    "description": self.description},
            "cards": dict(zip(CARDS, self.cards_per_type, strict=True)),
            "park": {side: list(points) for side, points in park},
            "tile": [{"number": t.number, "gold": t.gold, "turquoise": t.turquoise,
                      "violet": t.violet, "vp": t.vp, "privilege": PRIVILEGES[t.privilege],
                      "amount": t.amount} for t in self.tiles],
        }

    def to_toml(self) -> str:
        """The set as a component file; load_components reads back an equal set."""
        data = self.to_dict()
        lines = [f"# Component set {self.name!r}, written by ComponentSet.to_toml.",
                 "# Format: docs/components.md."]
        if self.reconstructed:
            lines.append("# RECONSTRUCTED: not the printed components of the game.")
        for section in ("set", "cards", "park"):
            lines += ["", f"[{section}]"]
            lines += [f"{key} = {_toml_value(v)}" for key, v in data[section].items()]
        for entry in data["tile"]:
            lines += ["", "[[tile]]"]
            lines += [f"{key} = {_toml_value(v)}" for key, v in entry.items()]
        return "\n".join(lines) + "\n"


def _toml_value(value: bool | int | str | list) -> str:
    """A value of a component file as TOML: booleans, integers, strings, lists of these."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    escapes = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
               "\f": "\\f", "\r": "\\r"}
    out = []
    for ch in value:
        if ch in escapes:
            out.append(escapes[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


# ---------------------------------------------------------------------------------------
# Loading

@functools.cache
def default_components() -> ComponentSet:
    """The reconstructed set shipped in the package (RULES.md §5); loaded once."""
    text = resources.files("engine").joinpath(DEFAULT_RESOURCE).read_text(encoding="utf-8")
    return _components_from_text(text, "<builtin>")


def load_components(path: str | Path) -> ComponentSet:
    """The component set in a TOML file; ComponentError if it is missing or malformed, not
    a regular file, larger than common.files.MAX_FILE_BYTES (16 MiB) or not UTF-8."""
    text = read_text_file(path, "component file", error=ComponentError)
    return _components_from_text(text, str(path))


def _components_from_text(text: str, source: str) -> ComponentSet:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message ends with "(at line L, column C)"
        raise ComponentError(f"{source}: TOML syntax error: {exc}") from None
    return components_from_dict(data, source)


def components_from_dict(data: dict[str, Any], source: str) -> ComponentSet:
    """A component set from a mapping shaped like the TOML file; source names it in errors.

    Step 1: the top level has exactly the four sections, each of the right kind.
    Step 2: [set], [cards] and [park], field by field.
    Step 3: each [[tile]] entry, field by field, then its amount against its privilege;
            at most MAX_TILES_PER_PRIVILEGE tiles share a privilege.
    Step 4: the tile numbers run 1..N, once each; the tiles are returned in that order.
    """
    if not isinstance(data, dict):
        raise ComponentError(f"{source}: expected a table of sections, got {_show(data)}")
    for key in data:
        if key not in SECTIONS:
            raise ComponentError(f"{source}: unknown section {key!r} "
                                 f"(expected [set], [cards], [park] and [[tile]])")
    for key in ("set", "cards", "park"):
        if key not in data:
            raise ComponentError(f"{source}: missing section [{key}]")
        if not isinstance(data[key], dict):
            raise ComponentError(f"{source}: [{key}] must be a table, got {_show(data[key])}")
    if "tile" not in data:
        raise ComponentError(f"{source}: missing section [[tile]] (the noble tiles)")
    entries = data["tile"]
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ComponentError(f"{source}: 'tile' must be an array of tables, "
                             f"written [[tile]], got {_show(entries)}")

    # Step 2
    where = f"{source}: [set]"
    set_table = data["set"]
    _check_fields(where, set_table, SET_FIELDS, required=("name", "reconstructed"))
    name = set_table["name"]
    if not isinstance(name, str) or not name.strip():
        raise ComponentError(f"{where}: field 'name': expected a non-empty string, got {_show(name)}")
    reconstructed = set_table["reconstructed"]
    if not isinstance(reconstructed, bool):
        raise ComponentError(f"{where}: field 'reconstructed': expected true or false, "
                             f"got {_show(reconstructed)}")
    description = set_table.get("description", "")
    if not isinstance(description, str):
        raise ComponentError(f"{where}: field 'description': expected a string, "
                             f"got {_show(description)}")

    where = f"{source}: [cards]"
    _check_fields(where, data["cards"], CARDS, required=CARDS)
    cards = tuple(_int_field(where, data["cards"], card, 0, MAX_CARDS_PER_TYPE) for card in CARDS)

    where = f"{source}: [park]"
    _check_fields(where, data["park"], SIDE_NAMES, required=SIDE_NAMES)
    park = tuple(_park_points(where, side, data["park"][side]) for side in SIDE_NAMES)

    # Step 3
    if not MIN_TILES <= len(entries) <= MAX_TILES:
        raise ComponentError(f"{source}: [[tile]]: expected {MIN_TILES}..{MAX_TILES} tiles, "
                             f"found {len(entries)}")
    tiles = []
    for index, entry in enumerate(entries, start=1):
        tiles.append(_tile(source, index, entry, len(entries)))

    for privilege in PRIVILEGES[1:]:
        count = sum(1 for t in tiles if t.privilege_name == privilege)
        if count > MAX_TILES_PER_PRIVILEGE:
            raise ComponentError(f"{source}: [[tile]]: {count} tiles have privilege {privilege}, "
                                 f"at most {MAX_TILES_PER_PRIVILEGE}")

    # Step 4: N numbers, each in 1..N, none twice, are exactly 1..N
    seen: dict[int, int] = {}
    for index, tile in enumerate(tiles, start=1):
        if tile.number in seen:
            raise ComponentError(f"{source}: tile {tile.number} (entry {index} of [[tile]]): "
                                 f"field 'number': tile {tile.number} appears twice "
                                 f"(also entry {seen[tile.number]})")
        seen[tile.number] = index
    tiles.sort(key=lambda t: t.number)
    return ComponentSet(name=name, reconstructed=reconstructed, description=description,
                        source=source, tiles=tuple(tiles), cards_per_type=cards,
                        park_points=park)


def _tile(source: str, index: int, entry: dict[str, Any], n_tiles: int) -> Tile:
    """One [[tile]] entry; errors name the tile by number once its number is known good."""
    where = f"{source}: entry {index} of [[tile]]"
    number = entry.get("number")
    if _is_int(number) and 1 <= number <= n_tiles:
        where = f"{source}: tile {number} (entry {index} of [[tile]])"
    _check_fields(where, entry, TILE_FIELDS, required=TILE_FIELDS)
    number = _int_field(where, entry, "number", 1, n_tiles,
                        why=f" (tiles are numbered 1..N, here N = {n_tiles})")
    gold = _int_field(where, entry, "gold", 0, MAX_COST)
    turquoise = _int_field(where, entry, "turquoise", 0, MAX_COST)
    violet = _int_field(where, entry, "violet", 0, MAX_COST)
    vp = _int_field(where, entry, "vp", 0, MAX_VP)
    privilege = entry["privilege"]
    if not isinstance(privilege, str):
        raise ComponentError(f"{where}: field 'privilege': expected a privilege name, "
                             f"got {_show(privilege)}")
    if privilege not in PRIVILEGES:
        raise ComponentError(f"{where}: field 'privilege': unknown privilege {privilege!r} "
                             f"(expected one of {', '.join(PRIVILEGES)})")
    if privilege in AMOUNT_RANGES:
        low, high = AMOUNT_RANGES[privilege]
        what = "gold per turn" if privilege == "INCOME" else "servants"
        amount = _int_field(where, entry, "amount", low, high,
                            why=f" (the {what} of a {privilege} tile)")
    else:
        amount = entry["amount"]
        if not _is_int(amount) or amount != 0:
            raise ComponentError(f"{where}: field 'amount': a tile with privilege {privilege} "
                                 f"takes amount 0 (only INCOME and SUPPLY take one), "
                                 f"got {_show(amount)}")
    return Tile(number, gold, turquoise, violet, vp, PRIVILEGES.index(privilege), amount)


def _park_points(where: str, side: str, value: Any) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(_is_int(v) and 0 <= v <= MAX_VP for v in value)):
        raise ComponentError(f"{where}: field {side!r}: expected [most, second] with two "
                             f"integers in 0..{MAX_VP}, got {_show(value)}")
    first, second = value
    if first < second:
        raise ComponentError(f"{where}: field {side!r}: the most servants must score at least "
                             f"as much as the second most, got {_show(value)}")
    return first, second


def _check_fields(where: str, table: dict[str, Any], allowed, required) -> None:
    unknown = [key for key in table if key not in allowed]
    if unknown:
        raise ComponentError(f"{where}: unknown field{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(repr(k) for k in unknown)} "
                             f"(expected {', '.join(allowed)})")
    for key in required:
        if key not in table:
            raise ComponentError(f"{where}: missing field {key!r}")


def _int_field(where: str, table: dict[str, Any], key: str, low: int, high: int,
               why: str = "") -> int:
    value = table[key]
    if not _is_int(value) or not low <= value <= high:
        raise ComponentError(f"{where}: field {key!r}: expected an integer in {low}..{high}"
                             f"{why}, got {_show(value)}")
    return value


def _is_int(value: Any) -> bool:
    """An integer, and not a bool (TOML's true is not 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _show(value: Any) -> str:
    """A value as the file would spell it, for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
