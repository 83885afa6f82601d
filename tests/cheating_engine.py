"""A PRI engine that tries to rebuild every hidden card from what the referee sends it.

It plays as the random mover (palais-engine with Algorithm random), but at each `go` it first
attacks the position it was sent, with everything public:

1. the deal number: the `seed` of `position start` if there is one, else every deal number
   below SEARCH whose tiles and layout match the `layout` and `deal` it was sent (tournament
   deals run in sequence from --first-seed, so the numbers are small);
2. for each such number, each stream a referee could draw from without a secret: the stream
   keyed by the number alone (the arbiter's before draws were keyed by a secret) and the
   public arena stream of in-process self-play;
3. it replays the game on the true state with that stream, filling every other seat's `?`
   with the stream's card and checking each of its own draws (which it was told) against it.

A stream that predicts all its own draws has broken the game: the engine then knows every
hand. After each attack it appends one JSON line to --report FILE:
`{"moves", "deals", "own_draws", "predicted_own", "hands"}` (hands: per seat, the card counts
of its best reconstruction). tests/test_fair_draws.py runs it in a tournament game and checks
that it learns nothing.

    python tests/cheating_engine.py --report FILE
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import click  # noqa: E402

from engine.chance import ChanceStream  # noqa: E402
from engine.constants import A_DRAW, A_DRAW_UNKNOWN, ROOM_INDEX  # noqa: E402
from engine.deal import make_deal  # noqa: E402
from engine.determinize import weighted_pick  # noqa: E402
from engine.errors import PalaisError  # noqa: E402
from engine.notation import token_to_action  # noqa: E402
from engine.rng import Rng  # noqa: E402
from engine.state import State  # noqa: E402
from protocol.commands import PositionStart, SetOption  # noqa: E402
from protocol.server import Server  # noqa: E402

SEARCH = 2_000          # deal numbers tried against the layout and tiles


class SeededStream:
    """The draws of a referee that keyed its stream by the deal number alone."""

    def __init__(self, deal: int):
        self.rng = Rng(deal * 1_000_003 + 17)

    def draw(self, state) -> int:
        return A_DRAW + weighted_pick(state.deck_counts(), self.rng)


def candidate_deals(command: PositionStart) -> list:
    """The seed it was sent, and every small deal number that deals the setup it was sent."""
    if command.layout is None or command.deal is None:
        return [command.seed]
    layout = [ROOM_INDEX[r.upper()] for r in command.layout]
    deal = [t - 1 for t in command.deal]
    found = [command.seed] if command.seed else []
    for number in range(SEARCH):
        tiles, rooms = make_deal(42, number)
        if tiles == deal and rooms == layout:
            found.append(number)
    return found


def attack(command: PositionStart, deals: list) -> dict:
    """The best reconstruction of the true game over every candidate stream."""
    actions = [token_to_action(t) for t in command.moves]
    best = {"own_draws": sum(1 for t in command.moves if t.startswith("?") and t != "?"),
            "predicted_own": -1, "hands": None}
    for number in deals:
        arena = [ChanceStream.arena(number)] if hasattr(ChanceStream, "arena") else []
        for stream in [SeededStream(number)] + arena:
            state = State.new_game(command.players, seed=number)
            predicted = 0
            try:
                for action in actions:
                    if state.is_chance():
                        guess = stream.draw(state)
                        if action != A_DRAW_UNKNOWN:            # its own draw: it knows the card
                            predicted += guess == action
                            guess = action
                        state.apply(guess)
                    else:
                        state.apply(action)
            except (PalaisError, ValueError):
                pass                      # the reconstruction went off the rails: keep the count
            if predicted > best["predicted_own"]:
                snap = state.snapshot()
                best.update(predicted_own=predicted, hands=[list(h) for h in snap.hand])
    return best


class CheatingServer(Server):
    def __init__(self, report: str):
        super().__init__(sys.stdout)
        self.report = report
        self.position = None
        self.deals = {}
        self.on_setoption(SetOption("Algorithm", "random"))

    def on_position(self, command):
        super().on_position(command)
        self.position = command if isinstance(command, PositionStart) else None

    def on_go(self, command):
        if self.position is not None:
            key = (self.position.layout, self.position.deal, self.position.seed)
            if key not in self.deals:
                self.deals[key] = candidate_deals(self.position)
            found = attack(self.position, self.deals[key])
            with open(self.report, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"moves": len(self.position.moves),
                                         "deals": self.deals[key], **found}) + "\n")
        return super().on_go(command)


@click.command()
@click.option("--report", required=True, type=click.Path(dir_okay=False))
def main(report):
    """A PRI engine that tries to learn the hidden cards (a test of the referee)."""
    CheatingServer(report).run(sys.stdin)


if __name__ == "__main__":
    main()
