"""One search setting against another: the evidence behind the defaults of search/params.py.

ISMCTS with parameters A plays ISMCTS with parameters B in in-process games, each deal twice
with the seats swapped (2 players) or once per rotation of the seats (3-4 players, A in one
seat, B in the others), so both sides get the same luck. Each side has its own budget:
iterations (reproducible, and independent of how busy the machine is) or time. To compare
settings that change the cost of an iteration (rollout_turns) at equal time without timing
noise, give each side the iterations it runs in the same time (bench/search.py measures
iterations per second for any setting).

Prints for each side its win share (a shared win counting as a fraction) with its Wilson 95%
interval, mean VP, collapse share (games it ended with less than half the winner's VP) and
the mean VP margin of its wins and of its losses; the last line is exactly
`score_a=<x> low=<l> high=<h> elo=<e> collapse_a=<c> collapse_b=<d>`. Ctrl+C or a kill
(SIGTERM) stops the run and prints the same summary over the games finished so far.
Run: python bench/tune.py --a reward=margin [--b preset=classic,...] [--games 200] [--iterations 4000]
     [--b-iterations N] [--time-ms T] [--players 2] [--workers 2]
"""

import argparse
import signal
import os
import sys
import time
from multiprocessing import get_context

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from engine.errors import PalaisError  # noqa: E402
from search.params import KNOBS, PRESETS, SearchLimits, SearchParams  # noqa: E402
from search.players import make_player  # noqa: E402
from search.selfplay import play_game  # noqa: E402
from tournament.stats import elo_of, seat_outcomes, wilson  # noqa: E402


HARNESS_KNOBS = ("seed", "processes")   # set by this harness: each game its seeds, in-process players
TUNABLE = [k for k in KNOBS if k.name not in HARNESS_KNOBS]


def parse_params(text: str) -> dict:
    """`reward=margin,exploration=0.5` -> keyword arguments of SearchParams, each read and
    checked by its knob (search.params.KNOBS); `preset=NAME` starts from a named set of
    defaults (search.params.PRESETS)."""
    by_name = {k.name: k for k in TUNABLE}
    out = {}
    for item in (i.strip() for i in text.split(",") if i.strip()):
        name, eq, value = item.partition("=")
        if name == "preset" and eq:
            if value not in PRESETS:
                raise PalaisError(f"{item!r}: no such preset ({', '.join(PRESETS)})")
            out = {**PRESETS[value], **out}
            continue
        knob = by_name.get(name)
        if not eq or knob is None:
            raise PalaisError(f"{item!r}: expected NAME=VALUE with NAME a search parameter "
                              f"({', '.join(by_name)})")
        try:
            out[name] = knob.read(value)
        except ValueError as exc:
            raise PalaisError(f"{name}: {exc}") from None
        why = knob.problem(out[name])
        if why is not None:
            raise PalaisError(f"{name}: {why}")
    SearchParams(**out)
    return out


def knobs_help() -> str:
    return "search parameters (NAME=VALUE, default in brackets):\n" + "\n".join(
        f"  {k.name} [{str(k.default).lower() if k.kind is bool else k.default}]: {k.help}" for k in TUNABLE)


def one_game(job):
    """(deal, seat of A, players, A params, B params, A limits, B limits) -> (returns, scores, A's seat)."""
    deal, a_seat, n, a_params, b_params, a_limits, b_limits = job
    players, limits = [], []
    for q in range(n):
        mine = q == a_seat
        params = SearchParams(**(a_params if mine else b_params), seed=deal * 10 + q)
        players.append(make_player(params))
        limits.append(a_limits if mine else b_limits)
    outcome = play_game(players, ["ismcts"] * n, deal, limits)
    return outcome.returns, outcome.scores, a_seat


def limits_of(iterations, time_ms) -> SearchLimits:
    return SearchLimits(time_ms=time_ms) if time_ms else SearchLimits(iterations=iterations)


def _interrupt(signum, _frame):
    raise KeyboardInterrupt


def _ignore_interrupts():
    """In a pool worker: Ctrl+C and the pool's own SIGTERM are the main process's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=knobs_help(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", default="", help="A's parameters, NAME=VALUE,... (default: the defaults)")
    parser.add_argument("--b", default="", help="B's parameters (default: the defaults)")
    parser.add_argument("--games", type=int, default=200, help="games (rounded up to whole deals)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--iterations", type=int, default=4000, help="iterations per search (A, and B unless --b-iterations)")
    parser.add_argument("--b-iterations", type=int, default=None)
    parser.add_argument("--time-ms", type=float, default=None, help="time per search instead of iterations")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-deal", type=int, default=1)
    args = parser.parse_args()
    try:
        a_params, b_params = parse_params(args.a), parse_params(args.b)
    except PalaisError as exc:
        parser.error(str(exc))
    a_limits = limits_of(args.iterations, args.time_ms)
    b_limits = limits_of(args.b_iterations or args.iterations, args.time_ms)
    n = args.players
    deals = range(args.first_deal, args.first_deal + -(-args.games // n))
    jobs = [(d, s, n, a_params, b_params, a_limits, b_limits) for d in deals for s in range(n)]
    started = time.time()
    results = []
    signal.signal(signal.SIGTERM, _interrupt)      # a kill, like Ctrl+C, still prints the summary
    try:
        with get_context("fork").Pool(args.workers, initializer=_ignore_interrupts) as pool:
            for i, result in enumerate(pool.imap(one_game, jobs), 1):
                results.append(result)
                if i % 20 == 0 or i == len(jobs):
                    won = sum(r[s] for r, _, s in results)
                    print(f"  {i}/{len(jobs)} games, A scores {won / i:.3f}, {time.time() - started:.0f} s",
                          file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"  stopped after {len(results)} of {len(jobs)} games: the summary counts those",
              file=sys.stderr, flush=True)
    games = len(results)
    if not games:
        sys.exit(1)
    side_a = seat_outcomes([(r[s], sc, s) for r, sc, s in results])
    side_b = seat_outcomes([(r[q], sc, q) for r, sc, s in results for q in range(n) if q != s])
    won = side_a.won
    low, high = wilson(won, games)
    fair = 1.0 / n                                   # A's share if A and B were equal
    elo = elo_of(won / games) if n == 2 else float("nan")   # Elo only means something for two
    print(f"A ({args.a or 'defaults'}) vs B ({args.b or 'defaults'}), {n} players, "
          f"{'%.0f ms' % args.time_ms if args.time_ms else '%d/%d iterations' % (args.iterations, args.b_iterations or args.iterations)} per search, "
          f"{games} games (A's equal share: {fair:.3f}), {time.time() - started:.0f} s")
    print(f"A: {side_a.line()}")
    print(f"B: {side_b.line()}")
    print(f"score_a={won / games:.3f} low={low:.3f} high={high:.3f} elo={elo:.0f} "
          f"collapse_a={side_a.collapse_share:.3f} collapse_b={side_b.collapse_share:.3f}")


if __name__ == "__main__":
    main()
