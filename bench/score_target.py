"""Does a vector head's score target pay? KataGo's auxiliary targets, measured here (issue 40).

A vector value head (docs/train.md) learns every seat's win share and final score from one
view; its loss is the shares' cross-entropy plus a weight times the scores' squared error.
The scores are what the search's margin reward reads at a cutoff, but whether learning them
also helps the shares (an auxiliary target sharing the hidden layers) is a question of its
own. This script fits the vector head on the same self-play rows with each score weight of
--weights (the same seed, epochs and held-out games: every tenth game, search/train.py) and
prints, on the held-out rows, what the shares alone are judged by: their cross-entropy against
the seats' returns, their Brier score, how often the seat with the largest share won, and the
scores' RMS error in VP. Weight 0 is the head without the score target (its scores are then
not learnt, so it is no player: this compares predictions only).

Run: python bench/score_target.py RUN [RUN ...] [--weights 0,1] [--epochs 20] [--seed 1]
     (RUN: `palais train` run folders of one player count, e.g. a generation's gen-002)
The last line is `cross_entropy=<a>,<b>,... brier=<a>,<b>,...` in the order of --weights.
"""

import argparse
import os
import sys
import time

# bench/search.py is named like the `search` package: keep this folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

from engine.errors import PalaisError  # noqa: E402
from search.train import (VALIDATION_EVERY, FitOptions, Head, RunFolder, fit, share_cross_entropy,  # noqa: E402
                          vector_training_rows)
from search.value import SCORE_SCALE, numpy_vector  # noqa: E402


def held_out_figures(arrays, x, y) -> dict:
    """The shares' and scores' quality on held-out rows x with targets y (vector_targets)."""
    n = y.shape[1] // 2
    shares, scores = numpy_vector(arrays, x)
    won = y[:, :n]
    return {"cross_entropy": float(np.mean(share_cross_entropy(shares, y))),
            "brier": float(np.mean(np.sum((shares - won) ** 2, axis=1))),
            "top_won": float(np.mean(won[np.arange(len(won)), shares.argmax(axis=1)] > 0)),
            "score_rms": float(np.sqrt(np.mean((scores - y[:, n:] * SCORE_SCALE) ** 2)))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="palais train run folders (one player count)")
    ap.add_argument("--weights", default="0,1", help="the score weights compared")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    try:
        weights = [float(w) for w in args.weights.split(",")]
    except ValueError:
        ap.error(f"--weights: expected numbers like 0,1, got {args.weights!r}")
    if min(weights) < 0 or args.epochs < 1:
        ap.error("--weights are at least 0, --epochs at least 1")
    try:
        runs = [RunFolder.existing(os.path.abspath(folder)) for folder in args.runs]
        x, y, games = vector_training_rows(runs)
    except (OSError, PalaisError) as error:
        print(f"score_target: {error}", file=sys.stderr)
        return 2
    held = games % VALIDATION_EVERY == VALIDATION_EVERY - 1
    players = y.shape[1] // 2
    print(f"{players} players, {len(x)} rows ({int(held.sum())} held out), {args.epochs} epochs, seed {args.seed}")
    print("| score weight | shares' cross-entropy | Brier | the top share's seat won | scores' RMS error (VP) | fit (s) |")
    print("|---|---|---|---|---|---|")
    rows = []
    for weight in weights:
        started = time.perf_counter()
        arrays, _curve = fit(x, y, games, FitOptions(epochs=args.epochs, seed=args.seed),
                             head=Head(players, score_weight=weight))
        rows.append(held_out_figures(arrays, x[held], y[held]))
        r = rows[-1]
        print(f"| {weight:g} | {r['cross_entropy']:.4f} | {r['brier']:.4f} | {r['top_won']:.3f} | "
              f"{r['score_rms']:.1f} | {time.perf_counter() - started:.0f} |", flush=True)
    print("cross_entropy=" + ",".join(f"{r['cross_entropy']:.4f}" for r in rows)
          + " brier=" + ",".join(f"{r['brier']:.4f}" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
