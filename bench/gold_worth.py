"""What one more gold piece is worth to a seat, by the gold it already holds (issue 27, item 4):
the measurement behind docs/search.md's "Where the unspent gold comes from" (a pile above
about 10 pieces adds nothing, whatever the static evaluation credits it with).

Positions: every second round of `--games` games of heuristic playouts (the rollout policy in
every seat), deals 1000.., from the start to the end. At each, for each seat, `--extra` gold
pieces are added to that seat alone (in the position string) and the seat's mean final score
over `--playouts` heuristic playouts is compared with the position's own, on the same seeds.
Prints the VP one gold piece adds, binned by the seat's gold, then by the tiles left in the
park and the gold; the static evaluation's own view of the same pieces (what `--model` credits
for the added gold) sits beside each bin. The last line is exactly
`low=<VP per piece under 4 gold> mid=<4 to 8> high=<12 and more> credit_high=<the model's, 12 and more> n=<seats measured>`.
Run: python bench/gold_worth.py [--games 80] [--extra 3] [--playouts 48] [--model playout|v26]
"""

from __future__ import annotations

import argparse
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

from engine.position import position_to_string, state_from_position  # noqa: E402
from engine.rng import Rng  # noqa: E402
from engine.state import State  # noqa: E402
from search._policy import estimated_scores, mean_playout_scores, policy_playout  # noqa: E402
from search.params import STATIC_EVALS  # noqa: E402

PLAYERS = 4
GOLD_BINS = [(0, 2), (2, 4), (4, 6), (6, 8), (8, 12), (12, 16), (16, 25), (25, 10_000)]
TILE_BINS = [(0, 12), (12, 18), (18, 24), (24, 99)]


def with_gold(position: str, seat: int, extra: int) -> str:
    """The position string with `extra` more gold for `seat`."""
    found = re.search(r" gold=([0-9/]+)", position)
    gold = [int(x) for x in found.group(1).split("/")]
    gold[seat] += extra
    return position[:found.start()] + " gold=" + "/".join(map(str, gold)) + position[found.end():]


def measure(games: int, extra: int, playouts: int, model: str) -> np.ndarray:
    """Rows of (gold held, tiles in the park, VP per added piece, the model's credit per piece)."""
    rows = []
    for game in range(games):
        state, rng = State.new_game(PLAYERS, seed=1000 + game), Rng(55 + game)
        while True:
            policy_playout(state, ["heuristic"] * PLAYERS, rng, until_round=state.round + 2)
            if state.is_terminal():
                break
            position, snap = position_to_string(state), state.snapshot()
            tiles = sum(1 for t in snap.tile_at if t >= 0)
            base, credit_base = mean_playout_scores(state, playouts, 31 * game), estimated_scores(state, model)
            for seat in range(PLAYERS):
                richer = state_from_position(with_gold(position, seat, extra))
                gain = mean_playout_scores(richer, playouts, 31 * game)[seat] - base[seat]
                credit = estimated_scores(richer, model)[seat] - credit_base[seat]
                rows.append((snap.gold[seat], tiles, gain / extra, credit / extra))
    return np.array(rows)


def mean_in(rows, mask, column) -> float:
    return float(rows[mask, column].mean()) if mask.any() else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=80)
    ap.add_argument("--extra", type=int, default=3, help="gold pieces added to one seat")
    ap.add_argument("--playouts", type=int, default=48, help="heuristic playouts per mean")
    ap.add_argument("--model", choices=STATIC_EVALS, default=STATIC_EVALS[0],
                    help="the static evaluation whose credit is shown beside the measured worth")
    args = ap.parse_args()
    if args.games < 1 or args.extra < 1 or args.playouts < 1:
        ap.error("--games, --extra and --playouts must be at least 1")
    rows = measure(args.games, args.extra, args.playouts, args.model)
    gold, tiles = rows[:, 0], rows[:, 1]
    print(f"{len(rows)} seats measured, {args.extra} gold added, {args.playouts} playouts each; "
          f"credit: static evaluation {args.model}")
    print("gold held   seats  VP per piece  credit per piece")
    for lo, hi in GOLD_BINS:
        m = (gold >= lo) & (gold < hi)
        print(f"{lo:>4}-{hi if hi < 10_000 else '':<5} {m.sum():>7}  {mean_in(rows, m, 2):+12.3f}  {mean_in(rows, m, 3):+16.3f}")
    print("tiles in park, gold held: VP per piece (credit)")
    for tlo, thi in TILE_BINS:
        cells = []
        for glo, ghi in [(0, 4), (4, 10), (10, 10_000)]:
            m = (tiles >= tlo) & (tiles < thi) & (gold >= glo) & (gold < ghi)
            cells.append(f"gold {glo}-{ghi if ghi < 10_000 else ''}: {mean_in(rows, m, 2):+.2f} ({mean_in(rows, m, 3):+.2f}, n {m.sum()})")
        print(f"tiles {tlo}-{thi}: " + "; ".join(cells))
    low, mid, high = gold < 4, (gold >= 4) & (gold < 8), gold >= 12
    print(f"low={mean_in(rows, low, 2):.3f} mid={mean_in(rows, mid, 2):.3f} high={mean_in(rows, high, 2):.3f} "
          f"credit_high={mean_in(rows, high, 3):.3f} n={len(rows)}")


if __name__ == "__main__":
    main()
