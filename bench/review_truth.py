"""Is the review truthful at 3 and 4 players? Reviews every stored game of the review rule at
3 and 4 players (bench/review_games.py: the engine, pimc and greedy, seats rotated) and counts
the games where it says what the game showed:

  greedy least accurate   a greedy seat has the lowest accuracy of the table
  winner not blamed       the winner has no more mistakes and blunders than the last seat

each as a share of the games at that player count (issue 40 asks for at least 80% of each),
with every game's line: each seat's name, VP, accuracy and marks.

Run: python bench/review_truth.py [--players 3,4] [--iterations 10000] [--processes 2]
                                  [--engine NAME=VALUE,...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))        # bench/ is not the package
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.insert(0, os.path.dirname(_HERE))

from engine.errors import PalaisError  # noqa: E402
from play.analyse import Analyser, analyse_game, seat_summary  # noqa: E402
from play.game import read_game  # noqa: E402
from search.params import SearchLimits, SearchParams, parse_params  # noqa: E402

DATA = Path(_HERE).parent / "tests" / "data"      # the rule's stored games (bench/review_games.py)


def review(path, iterations: int, processes: int, params) -> dict:
    """Every seat's name, VP, accuracy and marks in the review of the stored game `path`."""
    rec, start = read_game(str(path), None)
    analyser = Analyser(SearchLimits(iterations=iterations), seed=0, params=params)
    turns = analyse_game(rec, start, analyser, processes=processes)
    final = start.copy()
    for action in rec.actions:
        final.apply(action)
    scores = [int(x) for x in final.scores()]
    seats = []
    for q in range(rec.n_players):
        summary = seat_summary(turns, q)
        seats.append({"name": rec.names[q], "vp": scores[q],
                      "accuracy": summary["accuracy"], "marks": summary["mistakes"] + summary["blunders"]})
    return {"game": path.name, "seats": seats}


def judge(game: dict) -> tuple:
    """(a greedy seat is the least accurate, the winner has no more marks than the last seat)."""
    seats = game["seats"]
    least = min(s["accuracy"] for s in seats)
    greedy_least = any(s["name"] == "greedy" and s["accuracy"] == least for s in seats)
    best_vp = max(s["vp"] for s in seats)
    worst_vp = min(s["vp"] for s in seats)
    winners = [s for s in seats if s["vp"] == best_vp]
    lasts = [s for s in seats if s["vp"] == worst_vp]
    fair = max(s["marks"] for s in winners) <= min(s["marks"] for s in lasts)
    return greedy_least, fair


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="3,4")
    ap.add_argument("--iterations", type=int, default=10_000, help="the review's budget [10000, its default]")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--engine", default="", help="the judging search's parameters (as palais analyse --engine)")
    ap.add_argument("--json", dest="json_path", default=None, help="also write every game's figures here")
    args = ap.parse_args(argv)
    os.environ["PALAIS_KERNEL"] = "portable"         # the kernel the games were made with
    from search import _value
    _value.set_kernel("portable")
    try:
        counts = [int(x) for x in args.players.split(",")]
    except ValueError:
        ap.error(f"--players: expected player counts like 3,4, got {args.players!r}")
    if not counts or any(n not in (3, 4) for n in counts):
        ap.error("--players: the review rule stores games at 3 and 4 players only")
    if args.iterations < 1 or args.processes < 1:
        ap.error("--iterations and --processes need at least 1")
    try:
        params = SearchParams(**parse_params(args.engine)) if args.engine else None
    except PalaisError as exc:
        ap.error(f"--engine: {exc}")
    out = []
    for players in counts:
        games, started = [], time.perf_counter()
        for path in sorted(DATA.glob(f"review-{players}p-*.rec")):
            game = review(path, args.iterations, args.processes, params)
            game["greedy_least"], game["winner_fair"] = judge(game)
            games.append(game)
            print(f"  {path.name}: " + ", ".join(
                f"{s['name']} {s['vp']} VP acc {s['accuracy']:.1f} marks {s['marks']}" for s in game["seats"])
                + ("" if game["greedy_least"] else "  [greedy not least accurate]")
                + ("" if game["winner_fair"] else "  [winner blamed more than the last]"), flush=True)
        n = len(games)
        greedy = sum(g["greedy_least"] for g in games)
        fair = sum(g["winner_fair"] for g in games)
        print(f"{players} players, {n} games, review at {args.iterations} iterations "
              f"({time.perf_counter() - started:.0f} s over {args.processes} processes): "
              f"greedy least accurate {greedy}/{n} ({100 * greedy / n:.0f}%), "
              f"winner no more marks than the last {fair}/{n} ({100 * fair / n:.0f}%)", flush=True)
        out += games
    if args.json_path:
        with open(args.json_path, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
