"""One search setting against another: the evidence behind the defaults of search/params.py.

ISMCTS with parameters A plays ISMCTS with parameters B (or another algorithm: `--b
algorithm=pimc`) in in-process games, each deal twice with the seats swapped (2 players) or
once per rotation of the seats (3-4 players, A in one seat, B in the others), so both sides
get the same luck. Each side has its own budget:
iterations (reproducible, and independent of how busy the machine is) or time. To compare
settings that change the cost of an iteration (rollout_turns) at equal time without timing
noise, give each side the iterations it runs in the same time (bench/search.py measures
iterations per second for any setting).

Prints for each side its win share (a shared win counting as a fraction) with its Wilson 95%
interval, mean VP, collapse share (games it ended with less than half the winner's VP) and
the mean VP margin of its wins and of its losses, and the mean gold its seats left unspent
at the end; at 2 players, how the deals played both ways went (A won both, the same seat
won both, B won both: where time or knowledge stops buying wins, the deals split by seat);
the last line is exactly `score_a=<x> low=<l> high=<h> elo=<e> collapse_a=<c>
collapse_b=<d> gold_a=<g> gold_b=<h>`. Ctrl+C or a kill
(SIGTERM) stops the run and prints the same summary over the games finished so far.
With --record FILE each finished game (deal, A's seat, every seat's return, VP and unspent
gold) is appended to FILE (JSON lines, after a header line holding the run's settings), and
a run given a FILE that already holds games of the same settings plays only the games of its
schedule that FILE lacks: a stopped run resumes, and a finished one grows with a larger
--games. The summary counts every game of the schedule (the gold, over the games that
recorded it: records made before it was kept have none).
Run: python bench/tune.py --a reward=margin [--b preset=classic,...] [--games 200] [--iterations 4000]
     [--b-iterations N] [--time-ms T] [--b-time-ms T] [--players 2] [--workers 2] [--first-deal 1] [--record FILE]
"""

import argparse
import json
import math
import os
import signal
import sys
import time
from dataclasses import asdict
from multiprocessing import get_context

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from common.atomic_write import write_text_atomic  # noqa: E402
from common.json_lines import read_json_lines  # noqa: E402
from engine.errors import PalaisError  # noqa: E402
from search.params import HARNESS_KNOBS, KNOBS, USES_PRIORS, SearchLimits, SearchParams, parse_params  # noqa: E402
from search.factory import make_player  # noqa: E402
from search.selfplay import play_game  # noqa: E402
from search.priors import load_priors  # noqa: E402
from search.value import check_players, load_value_model  # noqa: E402
from tournament.stats import elo_of, seat_outcomes, wilson  # noqa: E402


TUNABLE = [k for k in KNOBS if k.name not in HARNESS_KNOBS]


def knobs_help() -> str:
    return "search parameters (NAME=VALUE, default in brackets):\n" + "\n".join(
        f"  {k.name} [{str(k.default).lower() if k.kind is bool else k.default}]: {k.help}" for k in TUNABLE)


def one_game(job):
    """(deal, seat of A, players, A params, B params, A limits, B limits) -> (returns, scores,
    A's seat, gold left at the end). Each side plays its params' algorithm (ismcts unless
    `algorithm=` says otherwise, e.g. `--b algorithm=pimc`)."""
    deal, a_seat, n, a_params, b_params, a_limits, b_limits = job
    players, names, limits = [], [], []
    for q in range(n):
        mine = q == a_seat
        params = SearchParams(**(a_params if mine else b_params), seed=deal * 10 + q)
        players.append(make_player(params))
        names.append(params.algorithm)
        limits.append(a_limits if mine else b_limits)
    outcome = play_game(players, names, deal, limits)
    return outcome.returns, outcome.scores, a_seat, outcome.gold


def limits_of(iterations, time_ms) -> SearchLimits:
    return SearchLimits(time_ms=time_ms) if time_ms else SearchLimits(iterations=iterations)


def record_header(args, a_params, b_params) -> dict:
    """What makes two runs' games comparable: both sides' settings (every knob, defaults
    included, so a changed default is a change), budgets and value weights."""
    def side(params, iterations, time_ms):
        full = SearchParams(**params)
        knobs = {k: v for k, v in asdict(full).items() if k not in HARNESS_KNOBS}
        weights = check_players(load_value_model(params.get("value_weights", ""), args.players), args.players)
        out = {"params": knobs, "weights": weights.digest,
               "iterations": None if time_ms else iterations, "time_ms": time_ms}
        priors = (load_priors(full.for_players(args.players).policy_weights)     # "": the count's file
                  if full.selection in USES_PRIORS else None)
        if priors is not None:          # learned priors: their digest (checked here, before any game)
            out["policy"] = priors.digest
        return out
    header = {"tune_record": 1, "players": args.players,
              "a": side(a_params, args.iterations, args.time_ms),
              "b": side(b_params, args.b_iterations, args.b_time_ms)}
    return json.loads(json.dumps(header, default=str))     # as it reads back from the file


def read_record(path: str, header: dict) -> dict:
    """(deal, A's seat) -> (returns, scores, A's seat, gold or None) of the games FILE already
    holds (a game recorded before the gold was recorded has None); {} if it
    does not exist. PalaisError if it holds another run's games or is not a record. A last line
    cut short by a kill is dropped (main then rewrites the file without it); a damaged line
    elsewhere is an error with its number (common/json_lines.py)."""
    n = header["players"]

    def check(line, number):
        if number == 1:
            if not isinstance(line, dict) or line.get("tune_record") != 1:
                raise ValueError("not a header")
            if line != header:
                raise PalaisError(f"{path}: recorded with other settings ({json.dumps(line)}); "
                                  f"this run's: {json.dumps(header)}")
            return None
        key = (int(line["deal"]), int(line["a_seat"]))
        gold = line.get("gold")
        game = ([float(x) for x in line["returns"]], [int(x) for x in line["scores"]], key[1],
                None if gold is None else [int(x) for x in gold])
        if len(game[0]) != n or len(game[1]) != n or (gold is not None and len(gold) != n):
            raise PalaisError(f"{path}, line {number}: not a {n}-player game")
        return key, game

    lines = read_json_lines(path, lambda number: "a bench/tune.py record header"
                            if number == 1 else "a recorded game", check)
    if lines is None:
        return {}
    if not lines.values:
        raise PalaisError(f"{path}: not a bench/tune.py record (it holds no record header)")
    return dict(lines.values[1:])


def write_record(path, header, done):
    """FILE as header + the games `done`, replaced at once: a kill leaves the old or the new."""
    write_text_atomic(path, json.dumps(header) + "\n" + "".join(
        record_line(deal, a_seat, returns, scores, gold)
        for (deal, a_seat), (returns, scores, _, gold) in done.items()))


def record_line(deal, a_seat, returns, scores, gold=None) -> str:
    game = {"deal": deal, "a_seat": a_seat, "returns": list(returns), "scores": list(scores)}
    if gold is not None:
        game["gold"] = list(gold)
    return json.dumps(game) + "\n"


def sides(results, n):
    """(A's SeatOutcomes, B's) over `results` (returns, scores, A's seat, gold or None): A's one
    seat per game, B's n - 1."""
    a = seat_outcomes([(r[s], sc, s, g) for r, sc, s, g in results])
    b = seat_outcomes([(r[q], sc, q, g) for r, sc, s, g in results for q in range(n) if q != s])
    return a, b


def deal_pairs(keyed) -> str:
    """At 2 players: over the deals played both ways (`keyed`: ((deal, A's seat), result)), how
    many A won both times, how many the same seat won both times (by seat), how many B won
    both times; the rest had a shared win."""
    by_deal = {}
    for (deal, a_seat), result in keyed:
        by_deal.setdefault(deal, {})[a_seat] = result[0][a_seat]
    pairs = [d for d in by_deal.values() if len(d) == 2]
    a_both = sum(1 for d in pairs if d[0] == 1.0 and d[1] == 1.0)
    b_both = sum(1 for d in pairs if d[0] == 0.0 and d[1] == 0.0)
    seat_1 = sum(1 for d in pairs if d[0] == 1.0 and d[1] == 0.0)     # seat 1 won both times
    seat_2 = sum(1 for d in pairs if d[0] == 0.0 and d[1] == 1.0)
    shared = len(pairs) - a_both - b_both - seat_1 - seat_2
    return (f"deals played both ways: {len(pairs)}: A won both {a_both}, the same seat won both "
            f"{seat_1 + seat_2} (seat 1: {seat_1}, seat 2: {seat_2}), B won both {b_both}, "
            f"with a shared win {shared}")


def gold_text(side) -> str:
    return "nan" if side.mean_gold is None else f"{side.mean_gold:.2f}"


def budget_text(args) -> str:
    """Each side's budget as the summary names it: `250 ms`, `1000/250 ms`, `4000/4000 iterations`."""
    if not args.time_ms:
        return f"{args.iterations}/{args.b_iterations} iterations"
    if args.b_time_ms == args.time_ms:
        return f"{args.time_ms:.0f} ms"
    return f"{args.time_ms:.0f}/{args.b_time_ms:.0f} ms"


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
    parser.add_argument("--b-time-ms", type=float, default=None, help="B's time per search (default: --time-ms)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-deal", type=int, default=1)
    parser.add_argument("--record", metavar="FILE", default=None,
                        help="append each finished game to FILE; resume from the games it holds")
    args = parser.parse_args()
    if args.b_iterations is None:
        args.b_iterations = args.iterations
    if args.b_time_ms is None:
        args.b_time_ms = args.time_ms
    elif not args.time_ms:
        parser.error("--b-time-ms needs --time-ms (both sides search by time)")
    for name in ("time_ms", "b_time_ms"):
        if getattr(args, name) is not None and not math.isfinite(getattr(args, name)):
            parser.error(f"--{name.replace('_', '-')} must be a finite number of ms")
    for name, least in (("games", 1), ("workers", 1), ("first_deal", 0)):
        if getattr(args, name) < least:
            parser.error(f"--{name.replace('_', '-')} must be at least {least}")
    try:
        a_params, b_params = parse_params(args.a), parse_params(args.b)
        a_limits = limits_of(args.iterations, args.time_ms)
        b_limits = limits_of(args.b_iterations, args.b_time_ms)
        header = record_header(args, a_params, b_params)
        done = read_record(args.record, header) if args.record else {}
        record = None
        if args.record:
            write_record(args.record, header, done)      # made, or rid of a cut last line
            record = open(args.record, "a", encoding="utf-8")
    except PalaisError as exc:
        parser.error(str(exc))
    except OSError as exc:
        parser.error(f"{args.record}: cannot write the record ({exc.strerror or exc})")
    n = args.players
    deals = range(args.first_deal, args.first_deal + -(-args.games // n))
    schedule = [(d, s) for d in deals for s in range(n)]
    results = [done[key] for key in schedule if key in done]
    keys = [key for key in schedule if key in done]            # (deal, A's seat) of each result
    jobs = [(d, s, n, a_params, b_params, a_limits, b_limits) for d, s in schedule if (d, s) not in done]
    if results:
        print(f"  {len(results)} of {len(schedule)} games already in {args.record}", file=sys.stderr, flush=True)
    started = time.time()
    signal.signal(signal.SIGTERM, _interrupt)      # a kill, like Ctrl+C, still prints the summary
    try:
        with get_context("fork").Pool(args.workers, initializer=_ignore_interrupts) as pool:
            for job, result in zip(jobs, pool.imap(one_game, jobs)):
                results.append(result)
                keys.append((job[0], job[1]))
                if record:
                    record.write(record_line(job[0], job[1], result[0], result[1], result[3]))
                    record.flush()
                i = len(results)
                if i % 20 == 0 or i == len(schedule):
                    won = sum(r[s] for r, _, s, _ in results)
                    print(f"  {i}/{len(schedule)} games, A scores {won / i:.3f}, {time.time() - started:.0f} s",
                          file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"  stopped after {len(results)} of {len(schedule)} games: the summary counts those",
              file=sys.stderr, flush=True)
    finally:
        if record:
            record.close()
    games = len(results)
    if not games:
        sys.exit(1)
    side_a, side_b = sides(results, n)
    won = side_a.won
    low, high = wilson(won, games)
    fair = 1.0 / n                                   # A's share if A and B were equal
    elo = elo_of(won / games) if n == 2 else float("nan")   # Elo only means something for two
    print(f"A ({args.a or 'defaults'}) vs B ({args.b or 'defaults'}), {n} players, "
          f"{budget_text(args)} per search, "
          f"{games} games (A's equal share: {fair:.3f}), {time.time() - started:.0f} s")
    print(f"A: {side_a.line()}")
    print(f"B: {side_b.line()}")
    if n == 2:
        print(deal_pairs(zip(keys, results)))
    print(f"score_a={won / games:.3f} low={low:.3f} high={high:.3f} elo={elo:.0f} "
          f"collapse_a={side_a.collapse_share:.3f} collapse_b={side_b.collapse_share:.3f} "
          f"gold_a={gold_text(side_a)} gold_b={gold_text(side_b)}")


if __name__ == "__main__":
    main()
