"""The typed commands of PRI (Palais Royal Interface), one dataclass per GUI-to-engine line,
each declared once here with its line both ways: its command word, `parse(words)` (the words of
a line to the command, or `Malformed(why)`) and `to_line()`.

`COMMANDS` (word -> the command's class) is derived from the declarations below (`@command`):
the parser (`protocol/parser.py` `parse_line`) reads a line through it, the server
(`protocol/server.py`) dispatches each command to its `on_<name>` handler, and
tests/doc_tables.py checks that docs/protocol.md's table has a row per word. A new command is
a class here, its handler in the server, and its row in docs/protocol.md. They carry syntax
only: numbers are checked to be numbers in range, but action tokens and position strings stay
text until the engine applies them to a game. docs/protocol.md is the specification.

The GUI side writes the same dataclasses: each has `to_line()`, the PRI line for it, so one
grammar serves both ends. `protocol/parser.py` `format_command` is what senders call: it also
checks that the line reads back as the same command (a field that cannot be written, such as
a name with a line break in it or a number out of range, is refused before anything is sent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from common.numbers import integer, shown
from engine.constants import layout_text

MAX_MS = 10 ** 9                   # about 11 days: more is a typo, not a time control
MAX_COUNT = 10 ** 12

# Names PRI changed, both ends' one table. An option's old name is still accepted by the engine
# and, for an older engine that declares only the old name, sent under it by the client
# (protocol/launch.py); the `info` key `nodes` is still written beside `visits`. The engine's
# handshake says so in `info string` lines (RENAMED_NOTES); docs/protocol.md lists them.
RENAMED_OPTIONS = {"Threads": "Processes"}          # old -> new
RENAMED_NOTES = tuple(f"option {old} is the old name of {new}, still accepted (deprecated)"
                      for old, new in RENAMED_OPTIONS.items()) \
    + ("info key nodes is the old name of visits, still sent beside it (deprecated)",)


class Malformed(Exception):
    """Raised by a command's `parse`; the parser turns it into a ParseError."""


COMMANDS: dict = {}        # command word -> its class (whose `parse` reads the line's words)


def command(word: str, handler: str | None = None, *, parses: bool = True):
    """Declare a command class: its `word`, the server's handler `on_<handler>` (the word by
    default), and, unless `parses` is False (a second form that another class of the same word
    parses), its place in COMMANDS."""
    def declare(cls):
        cls.word, cls.handler = word, handler or word
        if parses:
            if word in COMMANDS:
                raise ValueError(f"PRI command {word!r} is declared twice")
            COMMANDS[word] = cls
        return cls
    return declare


def _whole(text: str, what: str, low: int, high: int) -> int:
    """A number of the line: ASCII digits only (common/numbers.py; no '+', '_' or other
    scripts' digits), judged by its length before it is converted, in low..high."""
    value = integer(text)
    if value is None:
        raise Malformed(f"'{what}' needs a whole number, got {shown(text)}")
    if not low <= value <= high:
        raise Malformed(f"'{what}' must be in {low}..{high}, got {value if len(text) <= 24 else shown(text)}")
    return value


def _number(words, i, what, low=0, high=MAX_COUNT) -> int:
    if i >= len(words):
        raise Malformed(f"'{what}' needs a number after it")
    return _whole(words[i], what, low, high)


class _Word:
    """A command that is one word with no arguments."""

    word: ClassVar[str]

    def to_line(self) -> str:
        return self.word

    @classmethod
    def parse(cls, words):
        if len(words) > 1:
            raise Malformed(f"'{words[0]}' takes no arguments, got '{' '.join(words[1:])}'")
        return cls()


def _one_word(name: str, word: str, doc: str, handler: str | None = None) -> type:
    """The dataclass of the one-word command `word` (each a type of its own, for dispatch)."""
    return command(word, handler)(dataclass(frozen=True)(
        type(name, (_Word,), {"word": word, "__doc__": doc, "__module__": __name__})))


# Declared in the order `unknown command` lists them. A one-word command is `_one_word(class name, word, what it asks)`.
Pri = _one_word("Pri", "pri", "`pri`: the handshake; the engine answers id, option lines and `priok`.")
IsReady = _one_word("IsReady", "isready", "`isready`: answered with `readyok` at once, even during a search.")


@command("setoption")
@dataclass(frozen=True)
class SetOption:
    name: str
    value: str | None = None      # None for a button

    def to_line(self) -> str:
        return f"setoption name {self.name}" + ("" if self.value is None else f" value {self.value}")

    @classmethod
    def parse(cls, words):
        # setoption name <words...> [value <words...>]
        if len(words) < 3 or words[1] != "name":
            raise Malformed("expected 'setoption name <id> [value <x>]'")
        rest = words[2:]
        if "value" in rest:
            at = rest.index("value")
            name, value = rest[:at], " ".join(rest[at + 1:])
        else:
            name, value = rest, None
        if not name:
            raise Malformed("'setoption' needs an option name before 'value'")
        return cls(" ".join(name), value)


def _keyed(word: str, pairs) -> list:
    """A command's words: `word`, then `key value` for each pair whose value is not None."""
    words = [word]
    for key, value in pairs:
        if value is not None:
            words += [key, str(value)]
    return words


NewGame = _one_word("NewGame", "newgame",
                    "`newgame`: the next position belongs to a new game (search state may be dropped).")


def _split_moves(words):
    """(words before 'moves', the tokens after it)."""
    if "moves" in words:
        at = words.index("moves")
        return words[:at], tuple(words[at + 1:])
    return words, ()


def _moves_text(moves) -> str:
    return " moves " + " ".join(moves) if moves else ""


@command("position")
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

    @classmethod
    def parse(cls, words):
        """Either form of `position`: PositionStart, or PositionString for `position pos`."""
        if len(words) < 2:
            raise Malformed("expected 'position start players <n> ...' or 'position pos <position string>'")
        head, moves = _split_moves(words[2:])
        if words[1] == "pos":
            if not head:
                raise Malformed("'position pos' needs a position string")
            return PositionString(" ".join(head), moves)
        if words[1] != "start":
            raise Malformed(f"'position' takes 'start' or 'pos', got '{words[1]}'")
        players = None
        fields = {"seed": 0, "first_game": False, "layout": None, "deal": None, "options": (),
                  "components": None}
        i = 0
        while i < len(head):
            key = head[i]
            if key == "players":
                players = _number(head, i + 1, "players", 2, 4)
                i += 2
            elif key == "seed":
                fields["seed"] = _number(head, i + 1, "seed", 0, 2 ** 63 - 1)
                i += 2
            elif key == "firstgame":
                fields["first_game"] = True
                i += 1
            elif key == "components":
                if i + 1 >= len(head):
                    raise Malformed("'components' needs a file path after it")
                fields["components"] = head[i + 1]
                i += 2
            elif key in ("layout", "deal", "options"):
                if i + 1 >= len(head):
                    raise Malformed(f"'{key}' needs a value after it")
                value = head[i + 1]
                if key == "layout":
                    rooms = tuple(r for row in value.split("/") for r in row.split(","))
                    if len(rooms) != 9 or not all(rooms):
                        raise Malformed(f"'layout' names 9 rooms (R,R,R/R,R,R/R,R,R), got '{value}'")
                    fields["layout"] = rooms
                elif key == "deal":
                    tiles = value.split(",")
                    if len(tiles) != 36:
                        raise Malformed(f"'deal' lists 36 tile numbers separated by ',', got {len(tiles)} items")
                    fields["deal"] = tuple(_whole(t, f"deal item {k}", 0, MAX_COUNT)
                                           for k, t in enumerate(tiles, 1))
                else:
                    pairs = []
                    for item in value.split(","):
                        name, eq, text = item.partition("=")
                        if not eq or not name:
                            raise Malformed(f"'options' items are name=value, got '{item}'")
                        pairs.append((name, text))
                    fields["options"] = tuple(pairs)
                i += 2
            else:
                raise Malformed(f"unknown word '{key}' in 'position start'")
        if players is None:
            raise Malformed("'position start' needs 'players <n>'")
        return cls(players=players, moves=moves, **fields)


@command("position", "position", parses=False)      # PositionStart.parse reads it
@dataclass(frozen=True)
class PositionString:
    """`position pos <position string> [moves ...]`."""

    text: str
    moves: tuple = ()

    def to_line(self) -> str:
        return f"position pos {self.text}" + _moves_text(self.moves)


_GO_VALUES = {"movetime": ("movetime_ms", MAX_MS), "iterations": ("iterations", MAX_COUNT),
              "nodes": ("nodes", MAX_COUNT), "multipv": ("multipv", 64)}


@command("go")
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

    @classmethod
    def parse(cls, words):
        values = {}
        times, incs = {}, {}
        i = 1
        while i < len(words):
            key = words[i]
            if key == "infinite":
                values["infinite"] = True
                i += 1
            elif key in _GO_VALUES:
                name, high = _GO_VALUES[key]
                values[name] = _number(words, i + 1, key, 1, high)
                i += 2
            elif len(key) in (5, 6) and key[0] == "p" and key[1] in "1234" and key[2:] in ("time", "inc"):
                seat = int(key[1]) - 1
                target = times if key.endswith("time") else incs
                target[seat] = _number(words, i + 1, key, 0, MAX_MS)
                i += 2
            else:
                raise Malformed(f"unknown word '{key}' in 'go' (movetime, iterations, nodes, infinite, "
                                f"p1time..p4time, p1inc..p4inc, multipv)")
        return cls(time_ms=tuple(sorted(times.items())), inc_ms=tuple(sorted(incs.items())), **values)


Stop = _one_word("Stop", "stop", "`stop`: end the search; exactly one `bestmove` answers each `go`.")
Quit = _one_word("Quit", "quit", "`quit`: stop any search and exit.")
Display = _one_word("Display", "d", "`d`: draw the position as text (as `info string` lines).",
                    handler="display")


@command("perft")
@dataclass(frozen=True)
class Perft:
    depth: int

    def to_line(self) -> str:
        return f"perft {self.depth}"

    @classmethod
    def parse(cls, words):
        if len(words) != 2:
            raise Malformed("expected 'perft <depth>'")
        return cls(_number(words, 1, "perft", 0, 12))


Bench = _one_word("Bench", "bench",
                  "`bench`: print the bench signature `Nodes searched: N` (as an `info string`).")


@command("hint")
@dataclass(frozen=True)
class Hint:
    top: int = 3
    movetime_ms: int | None = None
    iterations: int | None = None

    def to_line(self) -> str:
        return " ".join(_keyed("hint", (("top", self.top), ("movetime", self.movetime_ms),
                                        ("iterations", self.iterations))))

    @classmethod
    def parse(cls, words):
        values = {}
        i = 1
        keys = {"top": ("top", 1, 16), "movetime": ("movetime_ms", 1, MAX_MS),
                "iterations": ("iterations", 1, MAX_COUNT)}
        while i < len(words):
            if words[i] not in keys:
                raise Malformed(f"unknown word '{words[i]}' in 'hint' (top, movetime, iterations)")
            name, low, high = keys[words[i]]
            values[name] = _number(words, i + 1, words[i], low, high)
            i += 2
        return cls(**values)


@dataclass(frozen=True)
class ParseError:
    """A line that is not a PRI command; `message` says what and why."""

    message: str


# Every command type (the annotation of what the parser returns), from the declarations above.
Command = Union[(*COMMANDS.values(), PositionString)]
