"""The typed commands of PRI (Palais Royal Interface), one dataclass per GUI-to-engine line.

The parser (`protocol/parser.py`) turns a line into one of these or a `ParseError`; the
dispatcher acts on them. They carry syntax only: numbers are checked to be numbers in range,
but action tokens and position strings stay text until the engine applies them to a game.
docs/protocol.md is the specification.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pri:
    """`pri`: the handshake; the engine answers id, option lines and `priok`."""


@dataclass(frozen=True)
class IsReady:
    """`isready`: answered with `readyok` at once, even during a search."""


@dataclass(frozen=True)
class SetOption:
    name: str
    value: str | None = None      # None for a button


@dataclass(frozen=True)
class NewGame:
    """`newgame`: the next position belongs to a new game (search state may be dropped)."""


@dataclass(frozen=True)
class PositionStart:
    """`position start players N [seed S] [firstgame] [layout ...] [deal ...] [options ...] [moves ...]`."""

    players: int
    seed: int = 0
    first_game: bool = False
    layout: tuple | None = None    # 9 room codes, grid order, or None to deal from the seed
    deal: tuple | None = None      # 36 printed tile numbers a1..f6, or None to deal from the seed
    options: tuple = ()            # (name, value text) pairs of rule options
    components: str | None = None  # a component-set TOML file, or None for the built-in set
    moves: tuple = ()              # action tokens


@dataclass(frozen=True)
class PositionString:
    """`position pos <position string> [moves ...]`."""

    text: str
    moves: tuple = ()


@dataclass(frozen=True)
class Go:
    movetime_ms: int | None = None
    iterations: int | None = None
    nodes: int | None = None
    infinite: bool = False
    time_ms: tuple = ()            # (seat 0-based, ms left on that seat's clock) pairs
    inc_ms: tuple = ()             # (seat 0-based, increment ms) pairs
    multipv: int | None = None


@dataclass(frozen=True)
class Stop:
    """`stop`: end the search; exactly one `bestmove` answers each `go`."""


@dataclass(frozen=True)
class Quit:
    """`quit`: stop any search and exit."""


@dataclass(frozen=True)
class Display:
    """`d`: draw the position as text (as `info string` lines)."""


@dataclass(frozen=True)
class Perft:
    depth: int


@dataclass(frozen=True)
class Bench:
    """`bench`: print the bench signature `Nodes searched: N` (as an `info string`)."""


@dataclass(frozen=True)
class Hint:
    top: int = 3
    movetime_ms: int | None = None
    iterations: int | None = None


@dataclass(frozen=True)
class ParseError:
    """A line that is not a PRI command; `message` says what and why."""

    message: str


Command = (Pri | IsReady | SetOption | NewGame | PositionStart | PositionString | Go | Stop
           | Quit | Display | Perft | Bench | Hint)
