"""How the stored review games (tests/data/review-*.rec) are made: one rule, declared before any
game was seen, and every game it gives is kept (tests/test_review.py reviews all of them).

The rule: ismcts (ENGINE_ITERATIONS iterations a turn, one search per turn whose line it plays
whole: the engine as it was when the rule was declared, preset v26) against each of OPPONENTS, for every seed
in SEEDS, in both seat orders, two players, one draw secret, the portable value kernel (the
same bits on every machine; the AVX2 kernel's last bits can tip the engine's choices). Each
game is played as a user would play it:

    PALAIS_KERNEL=portable palais play --seat A --seat B --seed N --secret SECRET
        (the engine's seat is --seat ismcts:preset=v26)
        --engine-iterations 2000 --save tests/data/review-A-B-N.rec

The rule at 3 and 4 players (issue 40, declared before any of its games was seen): the engine at
its defaults of that day (ismcts, ENGINE_ITERATIONS a turn), the flat determinized player (pimc,
the same budget) and the greedy player, every rotation of the seats, the same secret and kernel.
At 3 players those defaults are now preset v28 (the 2- and 3-player value weights and policy
head before training in generations replaced them), named in the seat; at 4 players the
defaults are still those of that day:

    3 players: (ismcts, pimc, greedy) rotated 3 ways, seeds 31 to 34: 12 games
    4 players: (ismcts, pimc, greedy, greedy) rotated 4 ways, seeds 41 and 42: 8 games
    saved as tests/data/review-Np-A-B-C[-D]-N.rec

Run: python bench/review_games.py [--out tests/data] [--check] [--players 2,3,4]
  --check  replay every game of the rule and say whether the stored file is the same, byte for
           byte (exit 1 if not), writing nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ENGINE = "ismcts:preset=v26"     # the engine as the rule was declared: a search per turn, its
                                 # line played whole (docs/search.md, preset v26)
OPPONENTS = ("random", "greedy")
SEEDS = range(21, 27)
ENGINE_ITERATIONS = 2000
SECRET = "00112233445566778899aabbccddeeff"
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


MULTI_SEATS = {3: ("ismcts:preset=v28", "pimc:preset=v28", "greedy"), 4: ("ismcts", "pimc", "greedy", "greedy")}
MULTI_SEEDS = {3: range(31, 35), 4: range(41, 43)}


def games(players: int = 2) -> list:
    """(seats, seed, file name) of every game of the rule at `players` players, in a fixed order."""
    if players != 2:
        return multi_games(players)
    out = []
    for opponent in OPPONENTS:
        for seed in SEEDS:
            for seats in ((ENGINE, opponent), (opponent, ENGINE)):
                names = [seat.partition(":")[0] for seat in seats]
                out.append((seats, seed, f"review-{names[0]}-{names[1]}-{seed}.rec"))
    return out


def multi_games(players: int) -> list:
    """The rule at 3 or 4 players: every rotation of MULTI_SEATS[players] for every seed."""
    if players not in MULTI_SEATS:
        raise ValueError(f"the review rule has no games at {players} players")
    base, out = MULTI_SEATS[players], []
    for seed in MULTI_SEEDS[players]:
        for turn in range(players):
            seats = base[turn:] + base[:turn]
            names = [seat.partition(":")[0] for seat in seats]
            out.append((seats, seed, f"review-{players}p-{'-'.join(names)}-{seed}.rec"))
    return out


def all_games() -> list:
    """Every game of the rule, at every player count."""
    return [game for players in (2, 3, 4) for game in games(players)]


def play(seats, seed: int, path: Path) -> None:
    """Play one game of the rule with `palais play` and save it to `path`."""
    command = [sys.executable, "-m", "play.cli", "play", "--players", str(len(seats))]
    for seat in seats:
        command += ["--seat", seat]
    command += ["--seed", str(seed), "--secret-file", "-", "--engine-iterations", str(ENGINE_ITERATIONS),
                "--save", str(path)]
    env = dict(os.environ, PALAIS_KERNEL="portable",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(command, env=env, cwd=ROOT, input=SECRET + "\n", capture_output=True, text=True)
    if done.returncode != 0 or not path.exists():
        raise SystemExit(f"Error: {' '.join(command)} failed: {done.stderr.strip()[-500:]}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DATA, help="where the records go [tests/data]")
    parser.add_argument("--check", action="store_true", help="compare with the stored records, write nothing")
    parser.add_argument("--players", default="2,3,4", help="the player counts whose games are made [2,3,4]")
    args = parser.parse_args(argv)
    try:
        wanted = [game for players in sorted({int(x) for x in args.players.split(",")}) for game in games(players)]
    except ValueError as exc:
        parser.error(f"--players: {exc}")
    differ = 0
    with tempfile.TemporaryDirectory() as scratch:
        for seats, seed, name in wanted:
            made = Path(scratch) / name if args.check else args.out / name
            play(seats, seed, made)
            if args.check:
                same = (args.out / name).is_file() and (args.out / name).read_bytes() == made.read_bytes()
                differ += not same
                print(f"{name}: {'same' if same else 'DIFFERENT'}")
            else:
                print(f"{name}: written")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
