"""ISMCTS speed and memory: iterations per second from fixed mid-game positions.

For the fixed 2- and 4-player positions of search/positions.py, runs ISMCTS (default
parameters) for a fixed number of iterations on one core and prints iterations per second,
tree nodes, bytes per tree node and the process's peak memory. The last line is exactly
`ismcts_iter_per_s_4p=<N> bytes_per_node=<B>` (N: the 4-player positions' combined rate).
With --processes 2 it searches root-parallel and the rate counts every process's iterations
(the speed-up on 2 cores is the ratio of the two runs' rates).
With --leaf-eval value (and --rollout-turns N >= 0, which the learned evaluation needs) it
also prints the weights' digest, the value kernel in use (PALAIS_KERNEL=portable forces the
portable one), the cost of one value evaluation (one seat) in ns and the cost per seat of a
reward vector of every seat (what the search pays at a cutoff), and the row
`value eval: <digest> <ns> ns per evaluation, <N> iterations/s` (<ns>: one seat alone).
Run: python bench/search.py [--iterations 50000] [--hash-mb 256] [--rollout-turns 4] [--processes 1]
     [--leaf-eval value] [--value-weights FILE]
"""

import argparse
import os
import resource
import sys
import time

# This script is named like the `search` package: keep its own folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from search._ismcts import TreeSearch
from search.factory import make_player
from search.params import LEAF_EVALS, USES_VALUE, SearchLimits, SearchParams
from search.positions import BENCH_POSITIONS, midgame
from search.value import kernel_name, load_value_model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50_000, help="iterations per position")
    parser.add_argument("--hash-mb", type=int, default=256, help="tree memory bound per search")
    parser.add_argument("--processes", type=int, default=1,
                        help="root-parallel processes (the iterations limit is per process)")
    parser.add_argument("--rollout-turns", type=int, default=SearchParams().rollout_turns,
                        help="turns of rollout before the evaluation (-1, the default: to the end of the game)")
    parser.add_argument("--leaf-eval", choices=LEAF_EVALS, default=SearchParams().leaf_eval,
                        help="the evaluation at a rollout cutoff (value: the learned model)")
    parser.add_argument("--value-weights", default="", help="weights file for --leaf-eval value (default: shipped)")
    args = parser.parse_args()
    if args.leaf_eval in USES_VALUE:
        model = load_value_model(args.value_weights)
        costs = [model.ns_per_value(midgame(n, seed, round_), 0, 20_000) for n, seed, round_ in BENCH_POSITIONS]
        # what the search pays at a cutoff: every seat's value, the shared features built once
        per_seat = [model.ns_per_rewards(midgame(n, seed, round_), 20_000) / n for n, seed, round_ in BENCH_POSITIONS]
        print(f"value weights {model.source} ({model.digest}), hidden {model.hidden}, kernel {kernel_name()}: "
              f"{sum(costs) / len(costs):.0f} ns per evaluation of one seat, "
              f"{sum(per_seat) / len(per_seat):.0f} ns per seat in a reward vector of every seat")

    rates = {}
    bytes_per_node = TreeSearch.bytes_per_node()
    print(f"{'players':>7} {'seed':>5} {'round':>5} {'iter/s':>9} {'nodes':>8} {'MiB used':>9}")
    for n, seed, round_ in BENCH_POSITIONS:
        state = midgame(n, seed, round_)
        searcher = make_player(SearchParams(algorithm="ismcts", seed=seed, hash_mb=args.hash_mb,
                                            rollout_turns=args.rollout_turns, processes=args.processes,
                                            leaf_eval=args.leaf_eval, value_weights=args.value_weights))
        t0 = time.perf_counter()
        result = searcher.search(state, limits=SearchLimits(iterations=args.iterations))
        elapsed = time.perf_counter() - t0
        searcher.close()
        used_mib = result.nodes * bytes_per_node / 2**20
        rates.setdefault(n, []).append((result.iterations, elapsed))
        print(f"{n:>7} {seed:>5} {round_:>5} {result.iterations / elapsed:>9.0f} {result.nodes:>8} {used_mib:>9.1f}")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak_mib:.0f} MiB (trees are allocated at --hash-mb each)")
    for n, runs in sorted(rates.items()):
        print(f"{n} players: {sum(i for i, _ in runs) / sum(t for _, t in runs):.0f} iterations/s")
    four = rates[4]
    if args.leaf_eval in USES_VALUE:
        every = [r for runs in rates.values() for r in runs]
        print(f"value eval: {model.digest} {sum(costs) / len(costs):.0f} ns per evaluation, "
              f"{sum(i for i, _ in every) / sum(t for _, t in every):.0f} iterations/s")
    print(f"ismcts_iter_per_s_4p={sum(i for i, _ in four) / sum(t for _, t in four):.0f} "
          f"bytes_per_node={bytes_per_node}")


if __name__ == "__main__":
    main()
