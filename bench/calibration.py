"""Do the engine's win probabilities mean what they say? Over self-play games of 2, 3 and 4
players: the Brier score and a reliability table (predicted against observed win rate, in
bins) of the win probabilities a review and a hint report, and a review's time per turn.

Two estimates are checked, at positions sampled every --every turns of each game:
  chart  every seat's win probability as the review's chart gives it (play/analyse.py: one
         observer, every hand open), the outcome being that seat's share of the win;
  hint   the mover's fair win probability of the hint's first turn (search/analysis.py:
         from its own view), the outcome being the mover's share of the win.
A calibrated estimate has events predicted at 30% happen about 30% of the time; the Brier
score (mean squared error against the 0/1 outcome, lower is better) is printed beside the
score of always predicting the even share 1/n.

Each estimate is also given its expected calibration error (ECE: |predicted - observed| in
each of the 10 bins, weighted by the bin's share of the predictions). `--first-game` moves
the seeds, so a second run checks a first one on other games; `--save` writes every point
(kind, players, predicted, outcome, the chart's whole prediction, seat) as JSON.

Run: python bench/calibration.py [--games 4] [--players 2,3,4] [--engine-iterations 300]
                                 [--iterations 2000] [--every 3] [--review-iterations 10000]
                                 [--first-game 0] [--save FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))        # bench/search.py is not the package
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from jobs.backends import open_backend  # noqa: E402
from search.analysis import analyse_turn  # noqa: E402
from search.factory import make_player  # noqa: E402
from search.params import SearchLimits, SearchParams  # noqa: E402
from search.selfplay import play_game  # noqa: E402

BINS = 10


def game_points(task):
    """Play one self-play game and return its (kind, n_players, predicted, outcome) points."""
    n, seed, engine_iterations, iterations, every = task
    from play.analyse import Analyser
    players = [make_player(SearchParams(seed=seed * 10 + q)) for q in range(n)]
    sampled = []
    count = [0]

    def on_turn(state):
        count[0] += 1
        if count[0] % every == 1 and not state.is_chance():
            sampled.append(state.copy())
    outcome = play_game(players, ["ismcts"] * n, seed, SearchLimits(iterations=engine_iterations),
                        on_turn=on_turn)
    analyser = Analyser(SearchLimits(iterations=iterations), seed=seed)
    points = []
    for state in sampled:
        chart = analyser.chart_point(state, -1, max(256, iterations // 2))
        points += [("chart", n, chart[q], outcome.returns[q], chart, q) for q in range(n)]
        best = analyse_turn(state, SearchLimits(iterations=iterations), top=1, seed=seed).candidates[0]
        points.append(("hint", n, best.win_prob[state.to_move], outcome.returns[state.to_move], None, state.to_move))
    return points


def ece(pairs) -> float:
    """Expected calibration error over BINS bins, weighted by their points."""
    total, err = len(pairs), 0.0
    for b in range(BINS):
        inside = [(p, o) for p, o in pairs if b / BINS <= p < (b + 1) / BINS or (b == BINS - 1 and p == 1.0)]
        if inside:
            err += len(inside) / total * abs(sum(p for p, _ in inside) / len(inside) - sum(o for _, o in inside) / len(inside))
    return err


def brier(pairs) -> float:
    return sum((p - o) ** 2 for p, o in pairs) / len(pairs)


def table(points) -> list:
    rows = []
    for b in range(BINS):
        inside = [(p, o) for p, o in points if b / BINS <= p < (b + 1) / BINS or (b == BINS - 1 and p == 1.0)]
        if inside:
            rows.append(f"    {b * 100 // BINS:>3}-{(b + 1) * 100 // BINS:<3}%  predicted "
                        f"{100 * sum(p for p, _ in inside) / len(inside):5.1f}%  observed "
                        f"{100 * sum(o for _, o in inside) / len(inside):5.1f}%  n={len(inside)}")
    return rows


def review_time(iterations: int, processes: int) -> str:
    """Seconds per turn of a review at `iterations`, over one 3-player game of docs/examples."""
    from pathlib import Path

    from play.analyse import Analyser, analyse_game
    from play.game import read_game
    rec, start = read_game(str(Path(__file__).resolve().parent.parent / "docs/examples/game-3p.rec"), None)
    t0 = time.perf_counter()
    turns = analyse_game(rec, start, Analyser(SearchLimits(iterations=iterations)), processes=processes)
    elapsed = time.perf_counter() - t0
    return (f"review of docs/examples/game-3p.rec at {iterations} iterations over {processes} "
            f"processes: {elapsed:.1f} s, {elapsed / len(turns):.2f} s per turn ({len(turns)} turns)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4, help="self-play games per player count")
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--engine-iterations", type=int, default=300, help="per turn of the self-play games")
    ap.add_argument("--iterations", type=int, default=2000, help="the hint's search (the chart: half)")
    ap.add_argument("--every", type=int, default=3, help="sample a position every N turns")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--review-iterations", type=int, default=0,
                    help="also time a review at this budget (0: no; the default budget is 10000)")
    ap.add_argument("--first-game", type=int, default=0, help="the first game's number (moves the seeds)")
    ap.add_argument("--save", default=None, help="also write every point here (JSON)")
    args = ap.parse_args()
    counts = [int(x) for x in args.players.split(",")]
    tasks = [(n, 1000 * n + g, args.engine_iterations, args.iterations, args.every)
             for n in counts for g in range(args.first_game, args.first_game + args.games)]
    t0 = time.perf_counter()
    points = []
    with open_backend("local", game_points, concurrency=args.processes) as backend:
        for result in backend.run(tasks):
            points += result
    print(f"{args.games} self-play games per player count, engine {args.engine_iterations} iterations "
          f"a turn; estimates at {args.iterations} iterations, a position every {args.every} turns "
          f"({time.perf_counter() - t0:.0f} s)")
    if args.save:
        with open(args.save, "w") as f:
            json.dump(points, f)
    for n in counts:
        for kind in ("chart", "hint"):
            mine = [(p, o) for k, m, p, o, _w, _s in points if k == kind and m == n]
            if not mine:
                continue
            even = sum((1.0 / n - o) ** 2 for _, o in mine) / len(mine)
            print(f"  {n} players, {kind}: Brier {brier(mine):.4f} (even share {even:.4f}), "
                  f"ECE {ece(mine):.3f}, {len(mine)} predictions")
            for row in table(mine):
                print(row)
    if args.review_iterations:
        print(review_time(args.review_iterations, args.processes))


if __name__ == "__main__":
    main()
