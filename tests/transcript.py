"""Golden PRI transcripts: run a command file through the server, normalise, compare.

A transcript file holds `> command` lines and the `< answer` lines expected after each.
Timings and the value kernel (which depends on the processor) are normalised (`time <t>`,
`nps <n>`, `value kernel <kernel>`) and progress info lines (those without
`multipv`, whose number depends on the clock) are dropped. Searches use iteration limits and
a fixed Seed, so everything else is exact. `python tests/transcript.py --regenerate` rewrites
the expected answers after a deliberate change (say so in the commit message).
"""

import io
import re
import sys
from pathlib import Path

FOLDER = Path(__file__).parent / "transcripts"


def normalise(line: str):
    if line.startswith("info ") and not line.startswith("info string") and " multipv " not in line:
        return None
    line = re.sub(r"^info string value kernel \S+$", "info string value kernel <kernel>", line)  # per CPU
    line = re.sub(r"\btime \d+", "time <t>", line)
    return re.sub(r"\bnps \d+", "nps <n>", line)


def run_commands(commands) -> list:
    """[(command, [answer lines])] from an in-process server, each search awaited."""
    from protocol.server import Server
    out = io.StringIO()
    server = Server(out)
    done = 0
    result = []
    for command in commands:
        server.handle(command)
        server.engine.wait(60)
        lines = out.getvalue().splitlines()
        fresh, done = lines[done:], len(lines)
        result.append((command, [n for n in map(normalise, fresh) if n is not None]))
    server.engine.close()
    return result


def read(path: Path):
    commands, expected = [], []
    for line in path.read_text().splitlines():
        if line.startswith("> "):
            commands.append(line[2:])
            expected.append([])
        elif line.startswith("< "):
            expected[-1].append(line[2:])
    return commands, expected


def write(path: Path, commands) -> None:
    text = []
    for command, answers in run_commands(commands):
        text.append(f"> {command}")
        text += [f"< {a}" for a in answers]
    path.write_text("\n".join(text) + "\n")


if __name__ == "__main__":
    if "--regenerate" in sys.argv:
        for path in sorted(FOLDER.glob("*.pri")):
            write(path, read(path)[0])
            print(f"rewrote {path}")
