"""Regenerates tests/data/perft.txt: positions with their perft counts.

Run from the repository root: `python tests/make_perft_data.py`. The positions are taken
from seeded random games at chosen kinds of decision point (setup, card windows, moves,
recruitment, a chance event, a seat's view, the last round); the counts come from the C
perft, and tests/test_perft.py checks them against both implementations. Only regenerate
after a deliberate rules change, and say so in the commit message.
"""

from pathlib import Path

from engine.constants import S_DRAW, S_MOVES, S_RECRUIT, S_SOURCE, S_STEP1, S_WINDOW1, S_WINDOW5
from engine.notation import position_to_string
from engine.random_play import random_action
from engine.rng import Rng
from engine.state import State

MAX_NODES = 3_000_000
OUT = Path(__file__).parent / "data" / "perft.txt"


def find(n_players, seed, want, skip=0, last_round=False, first_game=False):
    """The first position of a seeded random game at stage `want` (after `skip` such)."""
    state = State.new_game(n_players, seed=seed, first_game=first_game)
    rng = Rng(seed)
    while not state.is_terminal():
        if (want is None or state.stage == want) and (not last_round or state.snapshot().last_round):
            if skip == 0:
                return state
            skip -= 1
        state.apply(random_action(state, rng))
    raise SystemExit(f"no such position in game {n_players}p seed {seed}")


def counts(state):
    out = []
    depth = 1
    while depth <= 8:
        n = state.perft(depth)
        if n > MAX_NODES:
            break
        out.append(n)
        depth += 1
    return out


def main():
    cases = [
        ("2p new game", State.new_game(2, seed=1)),
        ("3p first game", State.new_game(3, seed=2, first_game=True)),
        ("4p new game", State.new_game(4, seed=3)),
        ("2p step 1", find(2, 4, S_STEP1, skip=3)),
        ("3p moves", find(3, 5, S_MOVES, skip=10)),
        ("4p moves", find(4, 6, S_MOVES, skip=40)),
        ("2p window 1 with cards", find(2, 7, S_WINDOW1, skip=4)),
        ("3p recruit", find(3, 8, S_RECRUIT, skip=2)),
        ("2p source room", find(2, 9, S_SOURCE)),
        ("4p chance draw", find(4, 10, S_DRAW, skip=5)),
        ("3p window 5", find(3, 11, S_WINDOW5, skip=6)),
        ("2p last round", find(2, 14, None, last_round=True)),
        ("3p view of seat 2", find(3, 13, S_MOVES, skip=30).view(1)),
    ]
    lines = ["# perft counts: <label> | <position string> | d1 d2 d3 ... (see tests/make_perft_data.py)"]
    for label, state in cases:
        lines.append(f"{label} | {position_to_string(state)} | {' '.join(map(str, counts(state)))}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(cases)} positions to {OUT}")


if __name__ == "__main__":
    main()
