"""The policy head's cost: ns per policy_priors call (what the tree pays once per expansion).

For the fixed mid-game positions of search/positions.py (2, 3 and 4 players), times
PolicyModel.ns_per_priors over each position's legal actions, with a weights file
(--policy-weights) or, by default, random weights of --hidden units (the cost depends only
on the sizes), under the value kernel in use (PALAIS_KERNEL=portable forces the portable
one). Prints one row per position and one `priors: <H> hidden, <kernel>: <P>p <ns> ns ...`
line of the means per player count (over the positions with more than one action: with one,
the prior is 1 and nothing is computed).
Run: python bench/priors.py [--hidden 32] [--policy-weights FILE] [--repeats 20000]
"""

import argparse
import os
import sys

# This script is named like nothing in the package, but bench/ holds search.py: keep it off the path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

from search.kernel import kernel_name  # noqa: E402
from search.policy import ARRAY_NAMES, PolicyModel, expected_shapes, load_policy_model  # noqa: E402
from search.positions import BENCH_POSITIONS, midgame  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=32, help="hidden units of the random weights")
    parser.add_argument("--policy-weights", default=None, help="a policy weights file instead")
    parser.add_argument("--repeats", type=int, default=20_000)
    args = parser.parse_args()
    if args.policy_weights is not None:
        model = load_policy_model(args.policy_weights)
    else:
        rng = np.random.default_rng(1)
        arrays = {k: (rng.standard_normal(s) * 0.1).astype(np.float32) for k, s in expected_shapes(args.hidden).items()}
        model = PolicyModel(*(arrays[k] for k in ARRAY_NAMES))
    means = {}
    print(f"{'players':>7} {'seed':>5} {'round':>5} {'actions':>7} {'ns':>7}")
    for n, seed, round_ in BENCH_POSITIONS:
        state = midgame(n, seed, round_)
        ns = model.ns_per_priors(state, args.repeats)
        actions = len(state.legal_actions())
        if actions > 1:                   # one action: nothing is computed (not in the means)
            means.setdefault(n, []).append(ns)
        print(f"{n:>7} {seed:>5} {round_:>5} {actions:>7} {ns:>7.0f}")
    print(f"priors: {model.hidden} hidden, {kernel_name()}: "
          + ", ".join(f"{n}p {sum(v) / len(v):.0f} ns" for n, v in sorted(means.items())))


if __name__ == "__main__":
    main()
