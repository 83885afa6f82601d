"""PRI engines for the runner's own tests: a seeded random mover, and broken engines.

    python -m tournament.testing_engines --mode random --seed 3
    python -m tournament.testing_engines --mode crash|stall|illegal|garbage --after N

The random mover is palais-engine playing uniformly random legal actions from its own seed.
A broken engine behaves like the random mover until its N-th `go`, then: `crash` exits
without answering, `stall` never answers again, `illegal` answers an action that is never
legal (a move from a room to itself), `garbage` answers a line that is not PRI.
"""

import os
import sys

import click

from protocol.commands import SetOption
from protocol.server import Server

MODES = ("random", "crash", "stall", "illegal", "garbage")


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
        if self.stalled:
            return not line.startswith("quit")
        return super().handle(line)

    def on_go(self, command):
        self.goes += 1
        if self.mode == "random" or self.goes < self.after:
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
@click.option("--mode", type=click.Choice(MODES), default="random", show_default=True)
@click.option("--after", type=click.IntRange(1, 1_000_000), default=5, show_default=True,
              help="Misbehave at this go.")
@click.option("--seed", type=int, default=0, show_default=True)
def main(mode, after, seed):
    """A PRI engine for tests: a random mover, or one that breaks at its AFTER-th go."""
    MisbehavingServer(mode, after, seed).run(sys.stdin)


if __name__ == "__main__":
    main()
