"""PRI engines for the runner's own tests: a seeded random mover, and broken engines.

    python -m tournament.testing_engines --mode random --seed 3
    python -m tournament.testing_engines --mode crash|stall|illegal|garbage|slow --after N
    python -m tournament.testing_engines --mode deaf --launcher --pid-file FILE
    python -m tournament.testing_engines --mode bad-utf8|nul|long-line --after N

The random mover is palais-engine playing uniformly random legal actions from its own seed.
A broken engine behaves like the random mover until its N-th `go`, then: `crash` exits
without answering, `stall` never answers again, `illegal` answers an action that is never
legal (a move from a room to itself), `garbage` answers a line that is not PRI, `slow`
answers that one `go` a second late (as on a busy machine) and goes on as before.

`deaf` plays as the random mover but will not end: it ignores `quit`, the end of its input
and SIGTERM, so only SIGKILL stops it. `--launcher` runs the engine in a child process and
waits for it, as a shell script starting an engine does; `--pid-file` appends the pid of
every process of the engine to FILE, so a test can check that none is left.

The byte-garbage engines answer their N-th `go` with output that is no PRI text, then say
nothing more (so only a client that sees the garbage at once ends the game before its
timeout): `bad-utf8` a line with bytes that are not UTF-8, `nul` a bestmove holding NUL
bytes, `long-line` one info line of 1 MiB.
"""

import os
import signal
import subprocess
import sys
import time

import click

from protocol.commands import SetOption
from protocol.server import Server

MODES = ("random", "crash", "stall", "illegal", "garbage", "slow", "deaf")
SLOW_S = 1.0
BYTE_GARBAGE = {                      # mode -> what it writes instead of an answer
    "bad-utf8": b"info string \xff\xfe caf\xe9\n",
    "nul": b"bestmove \x00\x00\n",
    "long-line": b"info string " + b"x" * (1 << 20) + b"\n",
}
ALL_MODES = MODES + tuple(BYTE_GARBAGE)


class MisbehavingServer(Server):
    def __init__(self, mode: str, after: int, seed: int):
        super().__init__(sys.stdout)
        self.mode = mode
        self.after = after
        self.goes = 0
        self.stalled = False
        self.on_setoption(SetOption("Algorithm", "random"))
        self.on_setoption(SetOption("Seed", str(seed)))

    def handle(self, line):
        if self.mode == "deaf" and line.startswith("quit"):
            return True
        if self.stalled:
            return not line.startswith("quit")
        return super().handle(line)

    def on_go(self, command):
        self.goes += 1
        if self.mode in BYTE_GARBAGE and self.goes >= self.after:
            with self._lock:
                sys.stdout.flush()
                sys.stdout.buffer.write(BYTE_GARBAGE[self.mode])
                sys.stdout.buffer.flush()
            self.stalled = True
            return None
        if self.mode in ("random", "deaf") or self.goes < self.after:
            return super().on_go(command)
        if self.mode == "slow":
            if self.goes == self.after:
                time.sleep(SLOW_S)
            return super().on_go(command)
        if self.mode == "crash":
            sys.stdout.flush()
            os._exit(3)
        if self.mode == "stall":
            self.stalled = True
        elif self.mode == "illegal":
            self.send("bestmove MINT-MINT")
        elif self.mode == "garbage":
            self.send("here is my move: the best one")


@click.command()
@click.option("--mode", type=click.Choice(ALL_MODES), default="random", show_default=True)
@click.option("--after", type=click.IntRange(1, 1_000_000), default=5, show_default=True,
              help="Misbehave at this go.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--launcher", is_flag=True, help="Run the engine in a child process and wait for it.")
@click.option("--pid-file", type=click.Path(dir_okay=False), default=None,
              help="Append this process's pid (and its engine child's) to this file.")
def main(mode, after, seed, launcher, pid_file):
    """A PRI engine for tests: a random mover, or one that breaks at its AFTER-th go."""
    if pid_file:
        with open(pid_file, "a") as handle:
            handle.write(f"{os.getpid()}\n")
    if launcher:
        child = [sys.executable, "-m", "tournament.testing_engines", "--mode", mode,
                 "--after", str(after), "--seed", str(seed)]
        sys.exit(subprocess.call(child + (["--pid-file", pid_file] if pid_file else [])))
    if mode == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    MisbehavingServer(mode, after, seed).run(sys.stdin)
    while mode == "deaf":                 # input ended: stay, until killed
        time.sleep(3600)


if __name__ == "__main__":
    main()
