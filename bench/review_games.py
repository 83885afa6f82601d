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

Run: python bench/review_games.py [--out tests/data] [--check]
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


def games() -> list:
    """(seats, seed, file name) of every game of the rule, in a fixed order."""
    out = []
    for opponent in OPPONENTS:
        for seed in SEEDS:
            for seats in ((ENGINE, opponent), (opponent, ENGINE)):
                names = [seat.partition(":")[0] for seat in seats]
                out.append((seats, seed, f"review-{names[0]}-{names[1]}-{seed}.rec"))
    return out


def play(seats, seed: int, path: Path) -> None:
    """Play one game of the rule with `palais play` and save it to `path`."""
    command = [sys.executable, "-m", "play.cli", "play"]
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
    args = parser.parse_args(argv)
    differ = 0
    with tempfile.TemporaryDirectory() as scratch:
        for seats, seed, name in games():
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
