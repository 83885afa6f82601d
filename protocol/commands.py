"""The typed commands of PRI (Palais Royal Interface), one dataclass per GUI-to-engine line.

The parser (`protocol/parser.py`) turns a line into one of these or a `ParseError`; the
dispatcher acts on them. They carry syntax only: numbers are checked to be numbers in range,
but action tokens and position strings stay text until the engine applies them to a game.
docs/protocol.md is the specification.

The GUI side writes the same dataclasses: each has `to_line()`, the PRI line for it, so one
grammar serves both ends. `protocol/parser.py` `format_command` is what senders call: it also
checks that the line reads back as the same command (a field that cannot be written, such as
a name with a line break in it or a number out of range, is refused before anything is sent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.constants import layout_text

# Names PRI changed, both ends' one table. An option's old name is still accepted by the engine
# and, for an older engine that declares only the old name, sent under it by the client
# (protocol/launch.py); the `info` key `nodes` is still written beside `visits`. The engine's
# handshake says so in `info string` lines (RENAMED_NOTES); docs/protocol.md lists them.
RENAMED_OPTIONS = {"Threads": "Processes"}          # old -> new
RENAMED_NOTES = tuple(f"option {old} is the old name of {new}, still accepted (deprecated)"
                      for old, new in RENAMED_OPTIONS.items()) \
    + ("info key nodes is the old name of visits, still sent beside it (deprecated)",)


class _Word:
    """A command that is one word with no arguments."""

    word: ClassVar[str]

    def to_line(self) -> str:
        return self.word


def _one_word(name: str, word: str, doc: str) -> type:
    """The dataclass of the one-word command `word` (each a type of its own, for dispatch)."""
    return dataclass(frozen=True)(type(name, (_Word,), {"word": word, "__doc__": doc,
                                                         "__module__": __name__}))


# The one-word commands: (class, word, what it asks).
Pri = _one_word("Pri", "pri", "`pri`: the handshake; the engine answers id, option lines and `priok`.")
IsReady = _one_word("IsReady", "isready", "`isready`: answered with `readyok` at once, even during a search.")
NewGame = _one_word("NewGame", "newgame",
                    "`newgame`: the next position belongs to a new game (search state may be dropped).")
Stop = _one_word("Stop", "stop", "`stop`: end the search; exactly one `bestmove` answers each `go`.")
Quit = _one_word("Quit", "quit", "`quit`: stop any search and exit.")
Display = _one_word("Display", "d", "`d`: draw the position as text (as `info string` lines).")
Bench = _one_word("Bench", "bench",
                  "`bench`: print the bench signature `Nodes searched: N` (as an `info string`).")


@dataclass(frozen=True)
class SetOption:
    name: str
    value: str | None = None      # None for a button

    def to_line(self) -> str:
        return f"setoption name {self.name}" + ("" if self.value is None else f" value {self.value}")


def _keyed(word: str, pairs) -> list:
    """A command's words: `word`, then `key value` for each pair whose value is not None."""
    words = [word]
    for key, value in pairs:
        if value is not None:
            words += [key, str(value)]
    return words


def _moves_text(moves) -> str:
    return " moves " + " ".join(moves) if moves else ""


@dataclass(frozen=True)
class PositionStart:
    """`position start players N [seed S] [firstgame] [layout ...] [deal ...] [options ...] [moves ...]`."""

    players: int
    seed: int = 0                  # deals the tiles and layout; 0 (the default) is not written
    first_game: bool = False
    layout: tuple | None = None    # 9 room codes, grid order, or None to deal from the seed
    deal: tuple | None = None      # 36 printed tile numbers a1..f6, or None to deal from the seed
    options: tuple = ()            # (name, value text) pairs of rule options
    components: str | None = None  # a component-set TOML file, or None for the built-in set
    moves: tuple = ()              # action tokens

    def to_line(self) -> str:
        words = ["position", "start", "players", str(self.players)]
        if self.seed:
            words += ["seed", str(self.seed)]
        if self.first_game:
            words.append("firstgame")
        if self.layout is not None:
            words += ["layout", layout_text(self.layout)]
        if self.deal is not None:
            words += ["deal", ",".join(str(t) for t in self.deal)]
        if self.options:
            words += ["options", ",".join(f"{name}={text}" for name, text in self.options)]
        if self.components is not None:
            words += ["components", self.components]
        return " ".join(words) + _moves_text(self.moves)


@dataclass(frozen=True)
class PositionString:
    """`position pos <position string> [moves ...]`."""

    text: str
    moves: tuple = ()

    def to_line(self) -> str:
        return f"position pos {self.text}" + _moves_text(self.moves)


@dataclass(frozen=True)
class Go:
    movetime_ms: int | None = None
    iterations: int | None = None
    nodes: int | None = None       # PRI's word, as UCI's: node visits (SearchLimits.visits)
    infinite: bool = False
    time_ms: tuple = ()            # (seat 0-based, ms left on that seat's clock) pairs
    inc_ms: tuple = ()             # (seat 0-based, increment ms) pairs
    multipv: int | None = None

    def to_line(self) -> str:
        words = _keyed("go", (("movetime", self.movetime_ms), ("iterations", self.iterations),
                              ("nodes", self.nodes)))
        if self.infinite:
            words.append("infinite")
        times, incs = dict(self.time_ms), dict(self.inc_ms)
        for seat in sorted(times.keys() | incs.keys()):       # p1time p1inc p2time ...
            if seat in times:
                words += [f"p{seat + 1}time", str(times[seat])]
            if seat in incs:
                words += [f"p{seat + 1}inc", str(incs[seat])]
        if self.multipv is not None:
            words += ["multipv", str(self.multipv)]
        return " ".join(words)


@dataclass(frozen=True)
class Perft:
    depth: int

    def to_line(self) -> str:
        return f"perft {self.depth}"


@dataclass(frozen=True)
class Hint:
    top: int = 3
    movetime_ms: int | None = None
    iterations: int | None = None

    def to_line(self) -> str:
        return " ".join(_keyed("hint", (("top", self.top), ("movetime", self.movetime_ms),
                                        ("iterations", self.iterations))))


@dataclass(frozen=True)
class ParseError:
    """A line that is not a PRI command; `message` says what and why."""

    message: str


Command = (Pri | IsReady | SetOption | NewGame | PositionStart | PositionString | Go | Stop
           | Quit | Display | Perft | Bench | Hint)
