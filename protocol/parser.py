"""PRI line parser: one line of text in, one typed command (or a ParseError) out.

Pure: no engine, no I/O, no exceptions escape. Words are separated by whitespace; command
words and keywords are lower case. Each command has a small parse function registered in
PARSERS; docs/protocol.md is the specification they follow.

The other direction is `format_command`: a command's line (its `to_line()`), checked to read
back here as the same command, so what the client sends is what the engine will parse.
"""

from __future__ import annotations

from common.numbers import integer, shown
from engine.errors import PalaisError

from .commands import (Bench, Command, Display, Go, Hint, IsReady, NewGame, ParseError, Perft,
                       PositionStart, PositionString, Pri, Quit, SetOption, Stop)

MAX_MS = 10 ** 9                   # about 11 days: more is a typo, not a time control
MAX_COUNT = 10 ** 12


class _Bad(Exception):
    """Raised inside the parse functions; turned into a ParseError by parse_line."""


def _whole(text: str, what: str, low: int, high: int) -> int:
    """A number of the line: ASCII digits only (common/numbers.py; no '+', '_' or other
    scripts' digits), judged by its length before it is converted, in low..high."""
    value = integer(text)
    if value is None:
        raise _Bad(f"'{what}' needs a whole number, got {shown(text)}")
    if not low <= value <= high:
        raise _Bad(f"'{what}' must be in {low}..{high}, got {value if len(text) <= 24 else shown(text)}")
    return value


def _number(words, i, what, low=0, high=MAX_COUNT) -> int:
    if i >= len(words):
        raise _Bad(f"'{what}' needs a number after it")
    return _whole(words[i], what, low, high)


def _no_arguments(command):
    def parse(words):
        if len(words) > 1:
            raise _Bad(f"'{words[0]}' takes no arguments, got '{' '.join(words[1:])}'")
        return command()
    return parse


def _setoption(words):
    # setoption name <words...> [value <words...>]
    if len(words) < 3 or words[1] != "name":
        raise _Bad("expected 'setoption name <id> [value <x>]'")
    rest = words[2:]
    if "value" in rest:
        at = rest.index("value")
        name, value = rest[:at], " ".join(rest[at + 1:])
    else:
        name, value = rest, None
    if not name:
        raise _Bad("'setoption' needs an option name before 'value'")
    return SetOption(" ".join(name), value)


def _split_moves(words):
    """(words before 'moves', the tokens after it)."""
    if "moves" in words:
        at = words.index("moves")
        return words[:at], tuple(words[at + 1:])
    return words, ()


def _position(words):
    if len(words) < 2:
        raise _Bad("expected 'position start players <n> ...' or 'position pos <position string>'")
    head, moves = _split_moves(words[2:])
    if words[1] == "pos":
        if not head:
            raise _Bad("'position pos' needs a position string")
        return PositionString(" ".join(head), moves)
    if words[1] != "start":
        raise _Bad(f"'position' takes 'start' or 'pos', got '{words[1]}'")
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
                raise _Bad("'components' needs a file path after it")
            fields["components"] = head[i + 1]
            i += 2
        elif key in ("layout", "deal", "options"):
            if i + 1 >= len(head):
                raise _Bad(f"'{key}' needs a value after it")
            value = head[i + 1]
            if key == "layout":
                rooms = tuple(r for row in value.split("/") for r in row.split(","))
                if len(rooms) != 9 or not all(rooms):
                    raise _Bad(f"'layout' names 9 rooms (R,R,R/R,R,R/R,R,R), got '{value}'")
                fields["layout"] = rooms
            elif key == "deal":
                tiles = value.split(",")
                if len(tiles) != 36:
                    raise _Bad(f"'deal' lists 36 tile numbers separated by ',', got {len(tiles)} items")
                fields["deal"] = tuple(_whole(t, f"deal item {k}", 0, MAX_COUNT)
                                       for k, t in enumerate(tiles, 1))
            else:
                pairs = []
                for item in value.split(","):
                    name, eq, text = item.partition("=")
                    if not eq or not name:
                        raise _Bad(f"'options' items are name=value, got '{item}'")
                    pairs.append((name, text))
                fields["options"] = tuple(pairs)
            i += 2
        else:
            raise _Bad(f"unknown word '{key}' in 'position start'")
    if players is None:
        raise _Bad("'position start' needs 'players <n>'")
    return PositionStart(players=players, moves=moves, **fields)


_GO_VALUES = {"movetime": ("movetime_ms", MAX_MS), "iterations": ("iterations", MAX_COUNT),
              "nodes": ("nodes", MAX_COUNT), "multipv": ("multipv", 64)}


def _go(words):
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
            raise _Bad(f"unknown word '{key}' in 'go' (movetime, iterations, nodes, infinite, "
                       f"p1time..p4time, p1inc..p4inc, multipv)")
    return Go(time_ms=tuple(sorted(times.items())), inc_ms=tuple(sorted(incs.items())), **values)


def _perft(words):
    if len(words) != 2:
        raise _Bad("expected 'perft <depth>'")
    return Perft(_number(words, 1, "perft", 0, 12))


def _hint(words):
    values = {}
    i = 1
    keys = {"top": ("top", 1, 16), "movetime": ("movetime_ms", 1, MAX_MS),
            "iterations": ("iterations", 1, MAX_COUNT)}
    while i < len(words):
        if words[i] not in keys:
            raise _Bad(f"unknown word '{words[i]}' in 'hint' (top, movetime, iterations)")
        name, low, high = keys[words[i]]
        values[name] = _number(words, i + 1, words[i], low, high)
        i += 2
    return Hint(**values)


PARSERS = {
    "pri": _no_arguments(Pri),
    "isready": _no_arguments(IsReady),
    "setoption": _setoption,
    "newgame": _no_arguments(NewGame),
    "position": _position,
    "go": _go,
    "stop": _no_arguments(Stop),
    "quit": _no_arguments(Quit),
    "d": _no_arguments(Display),
    "perft": _perft,
    "bench": _no_arguments(Bench),
    "hint": _hint,
}


def parse_line(line: str) -> Command | ParseError | None:
    """A command, None for an empty line, or a ParseError saying what is wrong."""
    words = line.split()
    if not words:
        return None
    parse = PARSERS.get(words[0])
    if parse is None:
        shown = words[0] if len(words[0]) <= 40 else words[0][:40] + "..."
        return ParseError(f"unknown command '{shown}' (commands: {', '.join(PARSERS)})")
    try:
        return parse(words)
    except _Bad as exc:
        return ParseError(str(exc))


class BadCommand(PalaisError):
    """A command that cannot be written as a PRI line that reads back the same."""


def _shown(command, limit: int = 200) -> str:
    text = repr(command)
    return text if len(text) <= limit else text[:limit] + "..."


def format_command(command) -> str:
    """The PRI line for `command`; a BadCommand (nothing to send) if that line would not
    parse back as the same command: a field out of range, or text that would change the line's
    words (whitespace or a line break in a name, a position string holding the word 'moves')."""
    line = command.to_line()
    back = parse_line(line)
    if back != command:
        why = back.message if isinstance(back, ParseError) else f"it would read back as {_shown(back)}"
        raise BadCommand(f"cannot write {_shown(command)} as a PRI line: {why}")
    return line
