"""The tournament runner's own overhead: games per minute between fast engines.

Plays the same small gauntlet (greedy palais-engine against the seeded random mover, a fixed
number of deals, one search iteration per decision) at concurrency 1 and then 2, each into a
fresh folder, and prints games per minute. Engine start-up, the PRI round trips and the
arbiter's checks dominate, which is what this measures. The last line is exactly
`games_per_min_c1=<x> games_per_min_c2=<y>`. `--sandbox off|required` chooses how engines
run (default: auto, as palais-tournament): run it once each way for the sandbox's cost, and
`--start-ms` to time one sandboxed engine's start to `readyok` against an unsandboxed one.
Run: python bench/tournament.py [--deals 6] [--sandbox off|required|auto] [--start-ms]
"""

import argparse
import os
import sys
import tempfile
import time

# This script is named like the `tournament` package: keep its own folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from protocol.launch import open_engine  # noqa: E402
from protocol.sandbox import MODES, SandboxPolicy, in_force  # noqa: E402
from tournament.arbiter import TimeControl  # noqa: E402
from tournament.engines import parse_engine  # noqa: E402
from tournament.runner import Settings, run  # noqa: E402


def games_per_minute(settings, concurrency, sandbox) -> float:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        summary = run(settings, f"{folder}/run", concurrency=concurrency, sandbox=sandbox)
        elapsed = time.perf_counter() - started
    return summary["games"] / elapsed * 60


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=6, help="deals (2 games each)")
    parser.add_argument("--sandbox", choices=MODES, default="auto", help="how engines run")
    parser.add_argument("--start-ms", action="store_true",
                        help="only time engine starts (to readyok), sandboxed and not, 10 each")
    args = parser.parse_args()
    py = sys.executable
    if args.start_ms:
        for mode in ("off", "required"):
            times = []
            for _ in range(10):
                started = time.perf_counter()
                open_engine([py, "-m", "protocol.cli"], sandbox=SandboxPolicy(mode)).close(grace=5)
                times.append((time.perf_counter() - started) * 1000)
            times.sort()
            print(f"sandbox {mode}: start to readyok and close, median {times[5]:.0f} ms "
                  f"(min {times[0]:.0f}, max {times[-1]:.0f})")
        return
    sandbox = SandboxPolicy(args.sandbox)
    print(f"sandbox: {in_force(sandbox)}")
    settings = Settings(
        [parse_engine(f'name=greedy cmd="{py} -m protocol.cli" option.Algorithm=greedy'),
         parse_engine(f'name=random cmd="{py} -m tournament.testing_engines --mode random --seed 1"')],
        players=2, deals=args.deals, tc=TimeControl(movetime_ms=None, iterations=1, margin_ms=30_000))
    c1 = games_per_minute(settings, 1, sandbox)
    print(f"concurrency 1: {c1:.1f} games/min")
    c2 = games_per_minute(settings, 2, sandbox)
    print(f"concurrency 2: {c2:.1f} games/min")
    print(f"games_per_min_c1={c1:.1f} games_per_min_c2={c2:.1f}")


if __name__ == "__main__":
    main()
