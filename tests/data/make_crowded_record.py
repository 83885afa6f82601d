"""Writes tests/data/crowded-4p.rec: a 4-player game played to round 4 by a seeded policy
that herds every servant into a few rooms (placements and moves into the KING and the MINT,
one in the BACKDOOR for cards, no recruiting), so the MINT holds ten servants and more of
each of the four seats and the hands hold cards (Madame's seal, the Letter of introduction:
the long names). The browser test of the board's labels (tests/test_web_layout.py) loads it
as the most crowded position the board must draw. The draws' secret is fixed, so the file
comes out the same on every run.

    PYTHONPATH=. python tests/data/make_crowded_record.py
"""

from __future__ import annotations

import random
from pathlib import Path

from engine.constants import ROOMS
from engine.notation import action_to_token
from play.game import PlayGame

OUT = Path(__file__).with_name("crowded-4p.rec")
HERD = ("KING", "MINT")
BACKDOOR = ROOMS.index("BACKDOOR")
SEED = 7
STOP_ROUND = 4        # by then every seat has 10 and more servants in the MINT


def pick(game: PlayGame, rng: random.Random) -> int:
    legal = {action_to_token(a): a for a in game.state.legal_actions()}
    tokens = list(legal)
    for token in tokens:                                   # herd the servants
        if "-" in token and token.split("-")[1] in HERD and token.split("-")[0] not in HERD:
            return legal[token]
    if "BACKDOOR" in legal and not game.state.snapshot().rooms[game.state.to_move][BACKDOOR]:
        return legal["BACKDOOR"]                           # one servant there: cards come
    for token in tokens:
        if token in HERD:
            return legal[token]
    for token in ("take", "continue", "end"):
        if token in legal:
            return legal[token]
    gates = [t for t in tokens if t.startswith("gate")]
    if gates:
        return legal[max(gates)]
    return legal[rng.choice(tokens)]


def crowded_game() -> PlayGame:
    rng = random.Random(SEED)
    game = PlayGame.new(4, SEED, ["Ann", "Bob", "Cleo", "Dmitri"], first_game=True,
                        secret=bytes(range(32)))          # the same draws on every run
    while not game.over():
        game.draw_cards()
        if game.state.round >= STOP_ROUND and game.state.to_move == 0:            # (seats count from 0)
            break
        game.play(pick(game, rng))
    return game


if __name__ == "__main__":
    game = crowded_game()
    game.save(str(OUT))
    snap = game.state.snapshot()
    print(OUT, "round", game.state.round)
    for seat, row in enumerate(snap.rooms):
        print("seat", seat + 1, dict(zip(ROOMS, row)))
