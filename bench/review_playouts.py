"""Are a review's losses the losses the game shows? For turns of the stored review games at 3
and 4 players (bench/review_games.py), the review's best line and the played line are both
played out to the end, many times, from the turn's true start: every seat the default engine
on its own view (--engine-iterations a search), the two lines paired (the same card draws and
the same seeds for the same k). What the review judged (the mover's win probability W and
share of the game's VP Q after each line, search/measure.py) is printed beside what the
playouts observed, turn by turn, with the observed difference's standard error.

The summary is the correlation of the judged differences with the observed ones, and the
slope of the observed on the judged (least squares through 0): 1 where the review's
differences have the game's own scale, above 1 where the review compresses them. Two kinds of turns are sampled:
  decided  the mover's W below OPEN_MARGIN (search/measure.py) after both lines: the review
           judges these on the VP share Q
  open     the others (setup placements left out): judged on W

With --record FILE --turns N,M,... it measures those turns of any game record instead (for
example docs/examples/game-3p.rec), each whatever its kind, with the value kernel `palais
analyse` uses; it prints each turn's loss as the review judged it beside the loss the review's
formula (search/measure.py `turn_loss`) gives on the playouts' means, and whether each is a
mistake or a blunder, and then each seat's marks both ways.

Run: python bench/review_playouts.py [--players 3] [--kind decided] [--turns-per-game 2]
                                     [--playouts 30] [--engine-iterations 1000]
                                     [--iterations 10000] [--processes 2] [--games N]
                                     [--record FILE --turns N,M,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))        # bench/ is not the package
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.insert(0, os.path.dirname(_HERE))

from engine.chance import ChanceStream  # noqa: E402
from jobs.backends import open_backend  # noqa: E402
from play.analyse import Analyser, split_turns  # noqa: E402
from play.game import read_game  # noqa: E402
from search.factory import make_player  # noqa: E402
from search.measure import BLUNDER, MISTAKE, OPEN_MARGIN, turn_loss, vp_share  # noqa: E402
from search.params import SearchLimits, SearchParams  # noqa: E402
from search.selfplay import play_on  # noqa: E402

DATA = Path(_HERE).parent / "tests" / "data"

PLAYOUT_SEED = 100_000          # playout k draws from the arena stream of deal PLAYOUT_SEED + k


def play_out(state, k: int, iterations: int) -> tuple:
    """(win shares, scores) at the end of one game played on from `state` by the default
    engine in every seat, on its own view; playout k's draws and seeds."""
    players = [make_player(SearchParams(seed=7919 * k + q)) for q in range(state.n_players)]
    end = play_on(state, players, ChanceStream.arena(PLAYOUT_SEED + k), SearchLimits(iterations=iterations))
    return list(end.returns()), [float(x) for x in end.scores()]


def kind_of(judged) -> str:
    return "decided" if max(judged.best_win, judged.played_win) < OPEN_MARGIN else "open"


def _judge(name: str, number: int, iterations: int):
    """(the turn's true start, seat, played line, the review's TurnAnalysis of it); `name` a
    stored game's (judged with the portable kernel, as its figures were) or a record's path."""
    from search import _value
    path = Path(name)
    if not path.is_absolute():
        path = DATA / name
        _value.set_kernel("portable")
    rec, start = read_game(str(path), None)
    state, seat, line, whole = split_turns(start, rec.actions)[number - 1]
    return state, seat, line, Analyser(SearchLimits(iterations=iterations), seed=0).turn(number, state, seat, line, whole)


def judge_turn(task) -> tuple:
    """(game, turn, its kind, whether the review's best differs from the played line)."""
    name, number, iterations = task
    _state, _seat, line, judged = _judge(name, number, iterations)
    return name, number, kind_of(judged), judged.best != list(line)


def measure_turn(task) -> dict:
    """One sampled turn: the review's judgement and the playouts' of both lines."""
    name, number, kind, iterations, engine_iterations, playouts = task
    state, seat, line, judged = _judge(name, number, iterations)
    kind = kind or kind_of(judged)
    observed = {}
    for label, moves in (("played", line), ("best", judged.best)):
        after = state.copy()
        for action in moves:
            after.apply(action)
        ends = [play_out(after, k, engine_iterations) for k in range(playouts)]
        observed[label] = ([w[seat] for w, _s in ends], [vp_share(s, seat) for _w, s in ends])
    d_win = [b - p for b, p in zip(observed["best"][0], observed["played"][0])]
    d_share = [b - p for b, p in zip(observed["best"][1], observed["played"][1])]
    means = {label: (statistics.mean(w), statistics.mean(q)) for label, (w, q) in observed.items()}
    observed_loss = turn_loss(state.n_players, means["best"][0], means["played"][0], means["best"][1], means["played"][1])
    return {"game": Path(name).name, "turn": number, "seat": seat + 1, "kind": kind,
            "judged_loss": judged.loss, "observed_loss": observed_loss,
            "judged_dw": judged.best_win - judged.played_win,
            "judged_dq": judged.best_share - judged.played_share,
            "observed_dw": statistics.mean(d_win), "se_dw": statistics.stdev(d_win) / len(d_win) ** 0.5,
            "observed_dq": statistics.mean(d_share), "se_dq": statistics.stdev(d_share) / len(d_share) ** 0.5,
            "judged_q": judged.played_share, "observed_q": statistics.mean(observed["played"][1])}


def measured(tasks: list, processes: int, line) -> list:
    """measure_turn of every task over `processes` processes, each row printed as `line(row)`
    as it comes."""
    rows = []
    with open_backend("local", measure_turn, concurrency=processes) as backend:
        for row in backend.run(tasks):
            rows.append(row)
            print(line(row), flush=True)
    return rows


def stored_games(players: int) -> list:
    """The file names of the review rule's stored games at `players` players
    (bench/review_games.py makes them; tests/test_review.py checks the set is the rule's)."""
    return sorted(path.name for path in DATA.glob(f"review-{players}p-*.rec"))


def candidate_turns(players: int, per_game: int, games: int | None) -> list:
    """(game, turn number) of every non-setup turn of the stored games, spread evenly so that
    each game offers about 4 * per_game of them (the kind is known only once judged)."""
    out = []
    for name in stored_games(players)[:games]:
        rec, start = read_game(str(DATA / name), None)
        numbers = [i + 1 for i, (state, *_rest) in enumerate(split_turns(start, rec.actions)) if state.round > 0]
        step = max(1, len(numbers) // (4 * per_game))
        out += [(name, number) for number in numbers[step // 2::step]]
    return out


def slope(xs, ys) -> float:
    """Least squares through 0 of ys on xs."""
    den = sum(x * x for x in xs)
    return sum(x * y for x, y in zip(xs, ys)) / den if den else float("nan")


def correlation(xs, ys) -> float:
    """Pearson's correlation, nan where either side does not vary."""
    try:
        return statistics.correlation(xs, ys)
    except statistics.StatisticsError:
        return float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, choices=(3, 4), default=3)
    ap.add_argument("--kind", choices=("decided", "open"), default="decided")
    ap.add_argument("--turns-per-game", type=int, default=2, help="turns of the kind kept per game")
    ap.add_argument("--playouts", type=int, default=30, help="games played out from each line")
    ap.add_argument("--engine-iterations", type=int, default=1000, help="per search of the playouts' engines")
    ap.add_argument("--iterations", type=int, default=10_000, help="the review's budget [its default]")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--games", type=int, default=None, help="only the first N stored games")
    ap.add_argument("--record", help="a game record whose --turns are measured instead")
    ap.add_argument("--turns", default="", help="with --record: turn numbers, comma-separated")
    args = ap.parse_args(argv)
    if args.playouts < 2 or min(args.turns_per_game, args.engine_iterations, args.iterations, args.processes) < 1:
        ap.error("--playouts needs at least 2; --turns-per-game, --engine-iterations, --iterations "
                 "and --processes at least 1")
    if bool(args.record) != bool(args.turns):
        ap.error("--record and --turns go together")
    if args.record:
        try:
            numbers = [int(n) for n in args.turns.split(",")]
        except ValueError:
            ap.error(f"--turns: expected numbers like 4,7,13, got {args.turns!r}")
        return measure_record(os.path.abspath(args.record), numbers, args)
    os.environ["PALAIS_KERNEL"] = "portable"
    started, kept = time.perf_counter(), {}
    candidates = [(name, number, args.iterations)
                  for name, number in candidate_turns(args.players, args.turns_per_game, args.games)]
    with open_backend("local", judge_turn, concurrency=args.processes) as backend:
        judged = sorted(backend.run(candidates))       # the order jobs finish in is not the result
    for name, number, kind, differs in judged:
        if kind == args.kind and differs and len(kept.setdefault(name, [])) < args.turns_per_game:
            kept[name].append(number)
    tasks = [(name, number, args.kind, args.iterations, args.engine_iterations, args.playouts)
             for name, numbers in kept.items() for number in numbers]
    rows = measured(tasks, args.processes, lambda row: (
        f"  {row['game']} turn {row['turn']} (seat {row['seat']}): "
        f"dW judged {row['judged_dw']:+.3f} observed {row['observed_dw']:+.3f} ±{row['se_dw']:.3f}; "
        f"dQ judged {row['judged_dq']:+.4f} observed {row['observed_dq']:+.4f} ±{row['se_dq']:.4f}; "
        f"Q judged {row['judged_q']:.3f} observed {row['observed_q']:.3f}"))
    if not rows:
        print("no turn of that kind was found")
        return 1
    key = "dq" if args.kind == "decided" else "dw"
    judged = [r[f"judged_{key}"] for r in rows]
    observed = [r[f"observed_{key}"] for r in rows]
    print(f"{args.players} players, {len(rows)} {args.kind} turns, {args.playouts} playouts a line at "
          f"{args.engine_iterations} iterations a search ({time.perf_counter() - started:.0f} s, "
          f"{args.processes} processes): d{key[1].upper()} judged mean {statistics.mean(judged):+.4f}, "
          f"observed mean {statistics.mean(observed):+.4f}, correlation {correlation(judged, observed):.2f}, "
          f"slope of observed on judged {slope(judged, observed):.2f}; "
          f"Q of the played line judged {statistics.mean(r['judged_q'] for r in rows):.3f}, "
          f"observed {statistics.mean(r['observed_q'] for r in rows):.3f}")
    return 0


def mark(loss: float) -> str:
    return "blunder" if loss >= BLUNDER else "mistake" if loss >= MISTAKE else "-"


def measure_record(path: str, numbers: list, args) -> int:
    """--record: the listed turns of one record, judged and played out, whatever their kind."""
    try:
        rec, start = read_game(path, None)
    except (OSError, ValueError) as error:
        print(f"cannot read {path}: {error}", file=sys.stderr)
        return 2
    count = len(split_turns(start, rec.actions))
    if not numbers or min(numbers) < 1 or max(numbers) > count:
        print(f"--turns: the record has turns 1 to {count}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    tasks = [(path, number, "", args.iterations, args.engine_iterations, args.playouts) for number in numbers]
    rows = measured(tasks, args.processes, lambda row: (
        f"  turn {row['turn']} (seat {row['seat']}): loss judged {row['judged_loss']:.3f} "
        f"({mark(row['judged_loss'])}), on the playouts {row['observed_loss']:.3f} "
        f"({mark(row['observed_loss'])}); dW judged {row['judged_dw']:+.3f} observed "
        f"{row['observed_dw']:+.3f} ±{row['se_dw']:.3f}; dQ judged {row['judged_dq']:+.4f} "
        f"observed {row['observed_dq']:+.4f} ±{row['se_dq']:.4f}"))
    print(f"{os.path.basename(path)}, {len(rows)} turns, {args.playouts} playouts a line at "
          f"{args.engine_iterations} iterations a search ({time.perf_counter() - started:.0f} s, "
          f"{args.processes} processes):")
    for seat in sorted({r["seat"] for r in rows}):
        mine = [r for r in rows if r["seat"] == seat]
        judged = sum(mark(r["judged_loss"]) != "-" for r in mine)
        observed = sum(mark(r["observed_loss"]) != "-" for r in mine)
        print(f"  seat {seat}: {len(mine)} turns, marked by the review {judged}, by the playouts {observed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
