"""PRI line parser: one line of text in, one typed command (or a ParseError) out.

Pure: no engine, no I/O, no exceptions escape. Words are separated by whitespace; command
words and keywords are lower case. The first word picks the command (protocol/commands.py
COMMANDS, where each command is declared with its `parse`); docs/protocol.md is the
specification they follow.

The other direction is `format_command`: a command's line (its `to_line()`), checked to read
back here as the same command, so what the client sends is what the engine will parse.
"""

from __future__ import annotations

from engine.errors import PalaisError

from .commands import COMMANDS, MAX_COUNT, MAX_MS, Command, Malformed, ParseError

__all__ = ["PARSERS", "MAX_COUNT", "MAX_MS", "BadCommand", "parse_line", "format_command"]

# command word -> its parse function, from the declarations of protocol/commands.py
PARSERS = {word: cls.parse for word, cls in COMMANDS.items()}


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
    except Malformed as exc:
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
