"""How long a person waits for the engine's opinions, at each front end's default budget: a
hint (`palais hint`, the page's hint button, PRI `hint`: 20,000 iterations), a step of the
browser's analysis board (one line valued fairly: half the hint's iterations), the
browser's review of a finished game (2,000 iterations a turn) and `palais analyse` (10,000
iterations a turn), each on the same game record.

Each figure is wall seconds and CPU seconds (this process and its children, so the
review's worker processes count). The hint and the analysis board are measured at turn
starts spread over the game (--positions of them), the reviews over the whole game with
--processes workers (default: the cores, as both front ends run them).

    python bench/user_waits.py [--record docs/examples/game-3p.rec] [--positions 4]
                               [--processes N] [--skip-analyse]

Last line: hint_s=<wall> board_step_s=<wall> review_s=<wall> review_cpu_s=<cpu>
analyse_s=<wall> analyse_cpu_s=<cpu> (analyse_* absent with --skip-analyse). Run it with
nothing else on the machine: the figures are what a person would wait.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

# This script lives beside bench/search.py, named like the `search` package: keep bench/ off the path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from play.analyse import Analyser, analyse_game, default_processes, split_turns  # noqa: E402
from play.game import read_game  # noqa: E402
from search.analysis import DEFAULT_ITERATIONS, TurnValuer, analyse_turn, engine_params, fair_iterations  # noqa: E402
from search.params import SearchLimits  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BROWSER_REVIEW_ITERATIONS = 2_000      # web/config.py analysis_iterations
ANALYSE_ITERATIONS = 10_000            # palais analyse without --time/--iterations


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(work):
    """(wall s, CPU s, result) of work()."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = work()
    return time.perf_counter() - wall, cpu_seconds() - cpu, result


def turn_starts(rec, start, count: int) -> list:
    """`count` (state, seat, line) turn starts spread evenly over the game."""
    turns = split_turns(start, rec.actions)
    step = max(1, len(turns) // (count + 1))
    return [turns[i][:3] for i in range(step, len(turns), step)][:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", default=str(ROOT / "docs" / "examples" / "game-3p.rec"))
    parser.add_argument("--positions", type=int, default=4, help="turn starts for the hint and the board step")
    parser.add_argument("--processes", type=int, default=default_processes(), help="review workers")
    parser.add_argument("--skip-analyse", action="store_true", help="leave out palais analyse's review")
    args = parser.parse_args()
    if args.positions < 1 or args.processes < 1:
        parser.error("--positions and --processes must be at least 1")
    rec, start = read_game(args.record)
    print(f"record {args.record}: {rec.n_players} players, {len(split_turns(start, rec.actions))} turns")

    hints, steps = [], []
    for state, seat, line in turn_starts(rec, start, args.positions):
        view = state.view(seat)
        wall, cpu, _ = timed(lambda: analyse_turn(view, None, top=3, seed=1))
        hints.append(wall)
        print(f"hint at round {state.round}, seat {seat + 1}: {wall:.2f} s wall, {cpu:.2f} CPU s "
              f"({DEFAULT_ITERATIONS} iterations)")
        valuer = TurnValuer(view, seat, engine_params(None, 7, state.n_players),
                            fair_iterations(DEFAULT_ITERATIONS))
        wall, cpu, _ = timed(lambda: valuer.values(line[:1]))
        steps.append(wall)
        print(f"analysis board step at round {state.round}: {wall:.2f} s wall, {cpu:.2f} CPU s "
              f"({fair_iterations(DEFAULT_ITERATIONS)} iterations)")

    def review(iterations):
        analyser = Analyser(SearchLimits(iterations=iterations), 0)
        return timed(lambda: analyse_game(rec, start, analyser, processes=args.processes))

    review_wall, review_cpu, _ = review(BROWSER_REVIEW_ITERATIONS)
    print(f"the browser's review ({BROWSER_REVIEW_ITERATIONS} iterations a turn, {args.processes} processes): "
          f"{review_wall:.1f} s wall, {review_cpu:.1f} CPU s")
    last = (f"hint_s={sum(hints) / len(hints):.2f} board_step_s={sum(steps) / len(steps):.2f} "
            f"review_s={review_wall:.1f} review_cpu_s={review_cpu:.1f}")
    if not args.skip_analyse:
        analyse_wall, analyse_cpu, _ = review(ANALYSE_ITERATIONS)
        print(f"palais analyse ({ANALYSE_ITERATIONS} iterations a turn, {args.processes} processes): "
              f"{analyse_wall:.1f} s wall, {analyse_cpu:.1f} CPU s")
        last += f" analyse_s={analyse_wall:.1f} analyse_cpu_s={analyse_cpu:.1f}"
    print(last)


if __name__ == "__main__":
    main()
