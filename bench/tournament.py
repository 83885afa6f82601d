"""The tournament runner's own overhead: games per minute between fast engines.

Plays the same small gauntlet (greedy palais-engine against the seeded random mover, a fixed
number of deals, one search iteration per decision) at concurrency 1 and then 2, each into a
fresh folder, and prints games per minute. Engine start-up, the PRI round trips and the
arbiter's checks dominate, which is what this measures. The last line is exactly
`games_per_min_c1=<x> games_per_min_c2=<y>`.
Run: python bench/tournament.py [--deals 6]
"""

import argparse
import os
import sys
import tempfile
import time

# This script is named like the `tournament` package: keep its own folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from tournament.arbiter import TimeControl  # noqa: E402
from tournament.engines import parse_engine  # noqa: E402
from tournament.runner import Settings, run  # noqa: E402


def games_per_minute(settings, concurrency) -> float:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        summary = run(settings, f"{folder}/run", concurrency=concurrency)
        elapsed = time.perf_counter() - started
    return summary["games"] / elapsed * 60


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=6, help="deals (2 games each)")
    args = parser.parse_args()
    py = sys.executable
    settings = Settings(
        [parse_engine(f'name=greedy cmd="{py} -m protocol.cli" option.Algorithm=greedy'),
         parse_engine(f'name=random cmd="{py} -m tournament.testing_engines --mode random --seed 1"')],
        players=2, deals=args.deals, tc=TimeControl(movetime_ms=None, iterations=1, margin_ms=30_000))
    c1 = games_per_minute(settings, 1)
    print(f"concurrency 1: {c1:.1f} games/min")
    c2 = games_per_minute(settings, 2)
    print(f"concurrency 2: {c2:.1f} games/min")
    print(f"games_per_min_c1={c1:.1f} games_per_min_c2={c2:.1f}")


if __name__ == "__main__":
    main()
