"""Stranded seats: where the unspent gold of 4-player games comes from (issue 27, item 4).

A seat is stranded once it has no servant left on PARADE nor on STAIRS: step 1 then lets it
put no servant on the GATE and step 2 gives it no move, so (short of a REINFORCE or MOVE
privilege or a card) its servants stay where they are for the rest of the game while the
MINT keeps paying. docs/search.md, "Where the unspent gold comes from", has the figures.

Two measurements:
- games: `--games` 4-player games of one search setting in every seat (`--params`, NAME=VALUE,...,
  as bench/tune.py takes them) at `--iterations` per search, deals 1..; per seat, whether it
  was stranded at the start of one of its turns after round 1 (and from which round), its gold
  at the end and whether it ended under half the winner's VP. The last line is exactly
  `stranded=<share> gold_stranded=<g> gold_other=<g> under_half_stranded=<u> under_half_other=<u> early=<share stranded by round 5> n=<seats>`.
- probe (`--probe`): from positions of heuristic playouts (rounds 2-6), each seat's PARADE and
  STAIRS servants moved into the MINT (`--into`, or one STAIRS servant with `--one`); the
  change that makes to the seat's mean final score over `--playouts` heuristic playouts, to the
  learned value's win share (the model `--value-weights`, "" = shipped) and to the static
  evaluation's expected score. The last line is exactly
  `playouts=<VP> value=<win share> static=<VP> n=<seats>`.
Run: python bench/stranding.py [--games 16] [--iterations 500] [--params NAME=VALUE,...]
     python bench/stranding.py --probe [--positions 200] [--into MINT|KING|...] [--one]
"""

from __future__ import annotations

import argparse
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

from engine.constants import PARADE, ROOMS, STAIRS  # noqa: E402
from engine.errors import PalaisError  # noqa: E402
from engine.position import position_to_string, state_from_position  # noqa: E402
from engine.rng import Rng  # noqa: E402
from engine.state import State  # noqa: E402
from search._policy import estimated_scores, mean_playout_scores, policy_playout  # noqa: E402
from search.factory import make_player  # noqa: E402
from search.params import SearchLimits, SearchParams, parse_params  # noqa: E402
from search.selfplay import play_game  # noqa: E402
from search.value import load_value_model  # noqa: E402

PLAYERS = 4


def stranded_games(games: int, iterations: int, params: dict) -> list:
    """Per seat of each game: (stranded from round r or None, gold at the end, VP, winner's VP)."""
    rows = []
    for deal in range(1, games + 1):
        since = {}

        def on_turn(state):
            seat, rooms = state.to_move, state.snapshot().rooms[state.to_move]
            if state.round > 1 and rooms[PARADE] + rooms[STAIRS] == 0:
                since.setdefault(seat, state.round)

        players = [make_player(SearchParams(**params, seed=deal * 10 + q)) for q in range(PLAYERS)]
        names = [SearchParams(**params).algorithm] * PLAYERS
        out = play_game(players, names, deal, SearchLimits(iterations=iterations), on_turn=on_turn)
        best = max(out.scores)
        rows += [(since.get(q), out.gold[q], out.scores[q], best) for q in range(PLAYERS)]
    return rows


def report_games(rows) -> None:
    stranded = np.array([r[0] is not None for r in rows])
    early = np.array([r[0] is not None and r[0] <= 5 for r in rows])
    gold = np.array([r[1] for r in rows], dtype=float)
    under = np.array([r[2] < r[3] / 2 for r in rows])

    def mean(values, mask):
        return float(values[mask].mean()) if mask.any() else float("nan")

    print(f"{len(rows)} seats: stranded {stranded.mean():.2f} (by round 5: {early.mean():.2f}); "
          f"gold at the end {mean(gold, stranded):.1f} stranded, {mean(gold, ~stranded):.1f} not; "
          f"under half the winner's VP {mean(under, stranded):.2f} stranded, {mean(under, ~stranded):.2f} not")
    print(f"stranded={stranded.mean():.3f} gold_stranded={mean(gold, stranded):.2f} gold_other={mean(gold, ~stranded):.2f} "
          f"under_half_stranded={mean(under, stranded):.3f} under_half_other={mean(under, ~stranded):.3f} "
          f"early={early.mean():.3f} n={len(rows)}")


def moved(position: str, seat: int, into: int, one: bool) -> str | None:
    """The position with the seat's PARADE and STAIRS servants (or one STAIRS servant) in room
    `into`; None if it has none to move."""
    found = re.search(r" rooms=([0-9./]+)", position)
    seats = [[int(x) for x in part.split(".")] for part in found.group(1).split("/")]
    rooms = seats[seat]
    if one:
        if rooms[STAIRS] == 0:
            return None
        rooms[STAIRS] -= 1
        rooms[into] += 1
    else:
        if rooms[PARADE] + rooms[STAIRS] == 0:
            return None
        rooms[into] += rooms[PARADE] + rooms[STAIRS]
        rooms[PARADE] = rooms[STAIRS] = 0
    text = "/".join(".".join(map(str, r)) for r in seats)
    return position[:found.start()] + " rooms=" + text + position[found.end():]


def probe(positions: int, into: int, one: bool, playouts: int, value_weights: str) -> np.ndarray:
    """Rows of (playouts' VP change, the value's win-share change, the static evaluation's VP change)."""
    model = load_value_model(value_weights)
    rows = []
    for game in range(positions):
        state = State.new_game(PLAYERS, seed=2000 + game)
        policy_playout(state, ["heuristic"] * PLAYERS, Rng(77 + game), until_round=2 + game % 5)
        if state.is_terminal() or state.is_chance():
            continue
        position = position_to_string(state)
        base = None
        for seat in range(PLAYERS):
            text = moved(position, seat, into, one)
            if text is None:
                continue
            try:
                other = state_from_position(text)
            except PalaisError:             # a stage that the move makes unreachable
                continue
            base = mean_playout_scores(state, playouts, game) if base is None else base
            rows.append((mean_playout_scores(other, playouts, game)[seat] - base[seat],
                         model.value(other, seat) - model.value(state, seat),
                         estimated_scores(other)[seat] - estimated_scores(state)[seat]))
    return np.array(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--params", default="", metavar="NAME=VALUE,...")
    ap.add_argument("--probe", action="store_true", help="the counterfactual probe instead of games")
    ap.add_argument("--positions", type=int, default=200, help="--probe: playout games to take positions from")
    ap.add_argument("--into", default="MINT", choices=[r for r in ROOMS if r not in ("PARADE", "STAIRS")])
    ap.add_argument("--one", action="store_true", help="--probe: move one STAIRS servant only")
    ap.add_argument("--playouts", type=int, default=48)
    ap.add_argument("--value-weights", default="", help="--probe: the value model's weights (default: shipped)")
    args = ap.parse_args()
    if min(args.games, args.iterations, args.positions, args.playouts) < 1:
        ap.error("--games, --iterations, --positions and --playouts must be at least 1")
    try:
        params = parse_params(args.params) if args.params else {}
        if args.probe:
            rows = probe(args.positions, ROOMS.index(args.into), args.one, args.playouts, args.value_weights)
        else:
            rows = stranded_games(args.games, args.iterations, params)
    except PalaisError as exc:
        ap.error(str(exc))
    if not args.probe:
        report_games(rows)
        return
    what = "one STAIRS servant" if args.one else "every PARADE and STAIRS servant"
    print(f"{len(rows)} seats, {what} moved into {args.into}: heuristic playouts {rows[:, 0].mean():+.2f} VP, "
          f"learned value {rows[:, 1].mean():+.4f} win share, static evaluation {rows[:, 2].mean():+.2f} VP")
    print(f"playouts={rows[:, 0].mean():.3f} value={rows[:, 1].mean():.4f} static={rows[:, 2].mean():.3f} n={len(rows)}")


if __name__ == "__main__":
    main()
