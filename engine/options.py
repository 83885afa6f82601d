"""Rule options: the readings of RULES.md that are choices, each with its default.

RULES.md asks that every [R] rule which is a choice between readings be a named option with
the default given there. A game is defined by its component set and these options; both
rules implementations read them, so a game record must carry any that differ from the
defaults (see to_dict / from_dict).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

from common.numbers import integer

from .errors import PalaisError

MAX_ROUND_CAP = 200       # the largest round_cap, so no game goes past round 200


@dataclass(frozen=True)
class OptionSpec:
    """One rule option as declared: its name, default, one line of help for people, for
    an integer option its inclusive range (low, high) (None for a true/false one), and its
    English label for a form (the English catalog's label: play/i18n.py english_labels)."""
    name: str
    default: bool | int
    help: str
    range: tuple[int, int] | None
    label: str

    def describe(self) -> dict:
        """The option for a form (`palais serve`'s new-game dialog): name, type, default, help, range."""
        entry = {"name": self.name, "type": "int" if self.range else "bool",
                 "default": self.default, "help": self.help}
        if self.range:
            entry["min"], entry["max"] = self.range
        return entry

    def usage(self) -> str:
        """`name=low..high` or `name=true|false`, for a command's help."""
        return f"{self.name}={self.range[0]}..{self.range[1]}" if self.range else f"{self.name}=true|false"


def option(default, help: str, low: int | None = None, high: int | None = None, *, label: str):
    """Declare a rule option: a RuleOptions field with its default, help, (integers) range and
    English label. The check, the record and protocol texts, `--rule`'s help, the GUI's form,
    the English catalog's label and docs/play.md's table derive from it."""
    return field(default=default, metadata={"option": (help, None if low is None else (low, high), label)})


@dataclass(frozen=True)
class RuleOptions:
    """The rule options of one game; immutable and checked when made (ValueError if bad).

    room_fallback in full (RULES.md §3, "Where new servants come from"): when the play area
    is empty, the KING / MADAME bonus servant and the park servant of a border tile are taken
    from another room of the player's; False means none is placed. (For step 1 the fallback
    is sourced, so it does not depend on this option.)
    """

    # [R] §7 safeguard
    round_cap: int = option(60, "the game ends, scored, after this round (a safeguard)", 1, MAX_ROUND_CAP,
                            label="Round cap")
    # §7
    end_trigger_tiles: int = option(
        12, "the last round starts when at most this many tiles are left in the park", 0, 36,
        label="End trigger (tiles left)")
    # [R] setup step 7
    setup_on_gate: bool = option(True, "setup step 7's 'any castle space' includes the GATE",
                                 label="Setup on the GATE")
    # [R] §3
    room_fallback: bool = option(
        True, "with an empty play area, the bonus or park servant comes from another room",
        label="Room fallback")
    hand_vp_cap: int = option(6, "end scoring: 1 VP per card still in hand, at most this many", 0, 50,
                              label="VP cap for cards in hand")
    # [R]
    honour_vp: int = option(3, "VP per HONOUR card played", 0, 50, label="VP per HONOUR")

    def __post_init__(self) -> None:
        for spec in OPTIONS:
            value = getattr(self, spec.name)
            if spec.range:
                low, high = spec.range
                # bool is a subclass of int, but True is not a round number
                if type(value) is not int or not low <= value <= high:
                    raise PalaisError(f"rule option {spec.name!r}: expected an integer in "
                                      f"{low}..{high}, got {value!r}")
            elif type(value) is not bool:
                raise PalaisError(f"rule option {spec.name!r}: expected true or false, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, as plain values."""
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """The options that differ from the defaults, by name, in declaration order."""
        return {spec.name: getattr(self, spec.name) for spec in OPTIONS
                if getattr(self, spec.name) != spec.default}

    def changed_pairs(self) -> tuple:
        """(name, value text) of the options that differ from the defaults: what a record's
        Options header and PRI's `position ... options` write."""
        return tuple((name, value_text(value)) for name, value in self.changed().items())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RuleOptions":
        """Options from a mapping; missing names take their defaults, unknown names are rejected."""
        if isinstance(data, RuleOptions):
            return data
        if not isinstance(data, Mapping):
            raise PalaisError(f"rule options: expected a mapping of option names to values, "
                              f"got {type(data).__name__}")
        for key in data:
            if key not in OPTION_BY_NAME:
                raise PalaisError(f"rule options: unknown option {key!r} "
                                  f"(known: {', '.join(OPTION_BY_NAME)})")
        return cls(**data)

    @classmethod
    def from_pairs(cls, pairs) -> "RuleOptions":
        """Options from (name, value text) pairs: `true`/`false`, or a whole number in ASCII."""
        values = {}
        for name, text in pairs:
            values[name.strip()] = value_from_text(name.strip(), text.strip())
        return cls.from_dict(values)

    @classmethod
    def from_items(cls, items, what: str = "rule option") -> "RuleOptions":
        """Options from `name=value` items (`--rule`, a record's Options header split at ',')."""
        pairs = []
        for item in items:
            name, eq, value = item.partition("=")
            if not eq:
                raise PalaisError(f"{what} {item.strip()!r}: expected NAME=VALUE "
                                  f"({', '.join(spec.usage() for spec in OPTIONS)})")
            pairs.append((name, value))
        return cls.from_pairs(pairs)


def value_text(value) -> str:
    """An option's value as text: true/false, or the number."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def value_from_text(name: str, text: str):
    """The value of option `name` written as `text`; a PalaisError naming both if it is neither
    true/false nor a whole number (the option's own check then judges its range)."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    number = integer(text)
    if number is None:
        raise PalaisError(f"rule option {name}={text}: expected a whole number, true or false")
    return number


OPTIONS = tuple(OptionSpec(f.name, f.default, *f.metadata["option"]) for f in fields(RuleOptions))
OPTION_BY_NAME = {spec.name: spec for spec in OPTIONS}
OPTION_HELP = {spec.name: spec.help for spec in OPTIONS}   # for the catalogs' extraction


def int_range(name: str):
    """(lowest, highest) allowed for an integer option, or None for a true/false one."""
    spec = OPTION_BY_NAME.get(name)
    return spec.range if spec else None
