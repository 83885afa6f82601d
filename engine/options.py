"""Rule options: the readings of RULES.md that are choices, each with its default.

RULES.md asks that every [R] rule which is a choice between readings be a named option with
the default given there. A game is defined by its component set and these options; both
rules implementations read them, so a game record must carry any that differ from the
defaults (see to_dict / from_dict).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from .errors import PalaisError

MAX_ROUND_CAP = 200       # the largest round_cap, so no game goes past round 200

# Inclusive ranges of the integer options.
_INT_RANGES = {
    "round_cap": (1, MAX_ROUND_CAP),
    "end_trigger_tiles": (0, 36),
    "hand_vp_cap": (0, 50),
    "honour_vp": (0, 50),
}


# What each option means, in a line (for people choosing them: `palais serve`'s new-game form).
OPTION_HELP = {
    "round_cap": "the game ends, scored, after this round (a safeguard)",
    "end_trigger_tiles": "the last round starts when at most this many tiles are left in the park",
    "setup_on_gate": "setup step 7's 'any castle space' includes the GATE",
    "room_fallback": "with an empty play area, the bonus or park servant comes from another room",
    "hand_vp_cap": "end scoring: 1 VP per card still in hand, at most this many",
    "honour_vp": "VP per HONOUR card played",
}


def int_range(name: str):
    """(lowest, highest) allowed for an integer option, or None for a true/false one."""
    return _INT_RANGES.get(name)


@dataclass(frozen=True)
class RuleOptions:
    """The rule options of one game; immutable and checked when made (ValueError if bad).

    room_fallback in full (RULES.md §3, "Where new servants come from"): when the play area
    is empty, the KING / MADAME bonus servant and the park servant of a border tile are taken
    from another room of the player's; False means none is placed. (For step 1 the fallback
    is sourced, so it does not depend on this option.)
    """

    round_cap: int = 60           # [R] §7 safeguard: the game ends, scored, after this round (1..200)
    end_trigger_tiles: int = 12   # §7: last round when at most this many tiles are left in the park (0..36)
    setup_on_gate: bool = True    # [R] setup step 7 "any castle space" includes the GATE
    room_fallback: bool = True    # [R] empty play area: bonus/park servant from another room; False: none
    hand_vp_cap: int = 6          # end scoring: 1 VP per card still in hand, at most this many (0..50)
    honour_vp: int = 3            # [R] VP per HONOUR card played (0..50)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _INT_RANGES:
                low, high = _INT_RANGES[f.name]
                # bool is a subclass of int, but True is not a round number
                if type(value) is not int or not low <= value <= high:
                    raise PalaisError(f"rule option {f.name!r}: expected an integer in "
                                      f"{low}..{high}, got {value!r}")
            elif type(value) is not bool:
                raise PalaisError(f"rule option {f.name!r}: expected true or false, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, as plain values."""
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """The options that differ from the defaults, by name."""
        default = RuleOptions()
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RuleOptions":
        """Options from a mapping; missing names take their defaults, unknown names are rejected."""
        if not isinstance(data, Mapping):
            raise PalaisError(f"rule options: expected a mapping of option names to values, "
                              f"got {type(data).__name__}")
        known = [f.name for f in fields(cls)]
        for key in data:
            if key not in known:
                raise PalaisError(f"rule options: unknown option {key!r} "
                                  f"(known: {', '.join(known)})")
        return cls(**data)
