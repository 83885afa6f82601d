"""A PRI engine that looks around the machine for what the protocol never sends it, and breaks
what it can: the attempts tests/test_sandbox.py makes with and without the sandbox.

It plays as the random mover (palais-engine with Algorithm random). At its first `go` it
makes one attempt (--attempt); when the attempt succeeds it answers `bestmove spied-ATTEMPT`
(an action that does not exist: the arbiter forfeits it, and the forfeit's reason shows
the attempt succeeded), else it plays on as the random mover.

Attempts (what the test names through the option `Spy Target`, never on the command line,
where the sandbox would make it readable):
- proc: read the command line and working folder of its parent, and every other process
  in /proc; succeeds when one of them holds the target text (the run folder's name);
- parent-cwd: list the parent's working folder through /proc/PPID/cwd, and read the target
  file name there;
- home: read the target file (in the arbiter's home folder);
- secret: read the target file (the run's draw-secret, by its path);
- remember: each game, read the target's file name in the temporary folders and its working
  folder, then write it there (the test removes what it wrote); succeeds when a file written in an earlier game is still there;
- connect: connect to 127.0.0.1 on the target port;
- fork-bomb: fork without end (each child forks too); never answers;
- allocate: fill 10 GiB of memory; never answers.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import click  # noqa: E402

from protocol.commands import SetOption  # noqa: E402
from protocol.server import Server  # noqa: E402

ATTEMPTS = ("proc", "parent-cwd", "home", "secret", "remember", "connect", "fork-bomb", "allocate")
TARGET_OPTION = "Spy Target"
MEMORY_NOTE = "palais-spy-memory"


def _read(path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return None


def spy_proc(target: str) -> bool:
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        for what in ("cmdline", "environ"):
            text = _read(f"/proc/{entry}/{what}")
            if text and target in text:
                return True
        try:
            if target in os.readlink(f"/proc/{entry}/cwd"):
                return True
        except OSError:
            pass
    return False


def spy_parent_cwd(target: str) -> bool:
    for pid in {os.getppid(), 1}:
        try:
            if target in os.listdir(f"/proc/{pid}/cwd"):
                return True
        except OSError:
            pass
    return False


def writable_places() -> list:
    places = [tempfile.gettempdir(), "/tmp", "/dev/shm", os.getcwd()]
    return list(dict.fromkeys(places))


def spy_remember(target: str) -> bool:
    remembered = False
    for place in writable_places():
        note = Path(place) / f"{MEMORY_NOTE}-{target}"
        if _read(note) == target:
            remembered = True
        try:
            note.write_text(target)
        except OSError:
            pass
    return remembered


def spy_connect(target: str) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", int(target)), timeout=2):
            return True
    except (OSError, ValueError):
        return False


def fork_bomb() -> None:
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.001)


def allocate() -> None:
    hoard = []
    for _ in range(10 * 1024):
        hoard.append(b"\1" * (1 << 20))       # 10 GiB, one MiB at a time, every page touched
    time.sleep(3600)


class SpyingServer(Server):
    def __init__(self, attempt: str):
        super().__init__(sys.stdout)
        self.attempt = attempt
        self.target = ""
        self.tried = False
        self.on_setoption(SetOption("Algorithm", "random"))

    def handle(self, line):
        if line.strip() == "pri":
            self.send(f"option name {TARGET_OPTION} type string default <empty>")
        elif line.startswith(f"setoption name {TARGET_OPTION} value "):
            self.target = line.split(" value ", 1)[1].strip()
            return True
        return super().handle(line)

    def on_go(self, command):
        if not self.tried:
            self.tried = True
            if self._spy():
                self.send(f"bestmove spied-{self.attempt}")
                return None
        return super().on_go(command)

    def _spy(self) -> bool:
        target = self.target
        if self.attempt == "proc":
            return spy_proc(target)
        if self.attempt == "parent-cwd":
            return spy_parent_cwd(target)
        if self.attempt in ("home", "secret"):
            return _read(target) is not None
        if self.attempt == "remember":
            return spy_remember(target)
        if self.attempt == "connect":
            return spy_connect(target)
        sys.stdout.flush()
        fork_bomb() if self.attempt == "fork-bomb" else allocate()
        return False


@click.command()
@click.option("--attempt", type=click.Choice(ATTEMPTS), required=True)
def main(attempt):
    """A PRI engine that spies at its first go (tests/test_sandbox.py)."""
    SpyingServer(attempt).run(sys.stdin)


if __name__ == "__main__":
    main()
