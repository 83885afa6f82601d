"""Playing strength of ISMCTS against the baselines, in 2-player in-process games.

Each deal is played twice with the seats swapped (same tiles, layout and card draws), every
searching player gets the same time per search, and win rates are printed with Wilson 95%
intervals (a shared win counts as half), beside each side's mean VP, collapse share (games
ended with less than half the winner's VP) and the mean VP margin of its wins and losses. Pairings: ISMCTS against random, greedy, PIMC, and
against perfect-information MCTS given the true hidden cards (the "cheating" reference, an
upper bound on what hidden information costs). The last line is exactly
`winrate_vs_random=<x> winrate_vs_greedy=<y> winrate_vs_pimc=<z>`.
Each pairing's line is printed as soon as its games are done.
Run: python bench/strength.py [--games 200] [--time-ms 250] [--workers 2] [--opponents ...]
     [--cheat-games N]
"""

import argparse
import os
import sys
import time
from multiprocessing import get_context

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from search.params import SearchLimits, SearchParams  # noqa: E402
from search.factory import make_player  # noqa: E402
from search.selfplay import play_game  # noqa: E402
from tournament.stats import seat_outcomes  # noqa: E402

OPPONENTS = {"random": "random", "greedy": "greedy", "pimc": "pimc", "cheat": "mcts"}


def one_game(job):
    """(opponent, deal, ismcts seat, time_ms) -> (opponent, every seat's return, scores, ISMCTS's seat)."""
    opponent, deal, ismcts_seat, time_ms = job
    names = ["ismcts", OPPONENTS[opponent]]
    if ismcts_seat == 1:
        names.reverse()
    players = [make_player(SearchParams(algorithm=name, seed=deal * 10 + seat))
               for seat, name in enumerate(names)]
    outcome = play_game(players, names, deal, SearchLimits(time_ms=time_ms))
    return opponent, outcome.returns, outcome.scores, ismcts_seat


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing (even: deals x 2 seatings)")
    parser.add_argument("--time-ms", type=float, default=250.0, help="time per search")
    parser.add_argument("--workers", type=int, default=2, help="games played at once (processes)")
    parser.add_argument("--opponents", default="random,greedy,pimc,cheat",
                        help="comma-separated, each optionally with its own game count (pimc:120): "
                             + ",".join(OPPONENTS))
    parser.add_argument("--cheat-games", type=int, default=None,
                        help="games against the cheating reference (default: --games)")
    parser.add_argument("--first-deal", type=int, default=1)
    args = parser.parse_args()
    counts = {}
    for item in (o.strip() for o in args.opponents.split(",") if o.strip()):
        name, _, count = item.partition(":")
        if count and not count.isdigit():
            parser.error(f"--opponents {item!r}: the game count must be a whole number")
        counts[name] = int(count) if count else None
    opponents = list(counts)
    bad = [o for o in opponents if o not in OPPONENTS]
    if bad:
        parser.error(f"unknown opponent {bad[0]!r}; choose from {', '.join(OPPONENTS)}")
    jobs = []
    planned = {}
    for o in opponents:
        games = counts[o] or (args.cheat_games if (o == "cheat" and args.cheat_games) else args.games)
        deals = range(args.first_deal, args.first_deal + (games + 1) // 2)
        jobs += [(o, d, s, args.time_ms) for d in deals for s in (0, 1)]
        planned[o] = 2 * len(deals)
    results = {o: [] for o in opponents}
    rates = {}
    started = time.time()
    with get_context("fork").Pool(args.workers) as pool:
        for i, (opponent, returns, scores, seat) in enumerate(pool.imap(one_game, jobs), 1):
            results[opponent].append((returns, scores, seat))
            if i % 20 == 0 or i == len(jobs):
                print(f"  {i}/{len(jobs)} games, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
            if len(results[opponent]) == planned[opponent]:       # this pairing is complete
                games = results[opponent]
                mine = seat_outcomes([(r[seat], s, seat) for r, s, seat in games])
                theirs = seat_outcomes([(r[1 - seat], s, 1 - seat) for r, s, seat in games])
                rates[opponent] = mine.win_share
                print(f"ismcts vs {opponent:<7} ({OPPONENTS[opponent]}): {mine.line()}", flush=True)
                print(f"  {opponent:>7}'s side: {theirs.line()}", flush=True)
    print(f"{args.time_ms:.0f} ms per search, {time.time() - started:.0f} s in all")
    print(" ".join(f"winrate_vs_{o}={rates[o]:.3f}" for o in ("random", "greedy", "pimc") if o in rates))


if __name__ == "__main__":
    main()
