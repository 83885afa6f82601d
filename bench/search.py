"""ISMCTS speed and memory: iterations per second from fixed mid-game positions.

For the fixed 2- and 4-player positions of search/positions.py, runs ISMCTS (default
parameters) for a fixed number of iterations on one core and prints iterations per second,
tree nodes, bytes per tree node (the tree's records are sized by its player count) and the
process's peak memory. The last line is exactly `ismcts_iter_per_s_4p=<N> bytes_per_node=<B>`
(N: the 4-player positions' combined rate, B: the largest bytes per node of their trees).
With --processes 2 it searches root-parallel and the rate counts every process's iterations
(the speed-up on 2 cores is the ratio of the two runs' rates).
With --leaf-eval value (and --rollout-turns N >= 0, which the learned evaluation needs) it
also prints the weights' digest, the value kernel in use (PALAIS_KERNEL=portable forces the
portable one), the cost of one value evaluation (one seat) in ns and the cost per seat of a
reward vector of every seat (what the search pays at a cutoff); per player count a row
`value arithmetic: ...` with a reward vector's rows and multiply-adds, what they should cost
at the kernel's nominal rate (search/kernel.py), the measured cost and their ratio, and a
line starting `WARNING:` when the ratio is 4 or more (a slow path, such as subnormal
weights); and the row `value eval: <digest> <ns> ns per evaluation, <N> iterations/s`
(<ns>: one seat alone). With a vector head (--value-weights naming a format-2 file, docs/train.md)
it searches only the positions of the head's player count (the last line then names that
count, `ismcts_iter_per_s_<n>p=`), and prints the ns per vector evaluation (one pass: every
seat's share and score) beside what the shipped one-seat weights of that count pay per seat
and per reward vector; its `value arithmetic` row counts the one pass; <ns> is the one pass.
With --params NAME=VALUE,... (repeatable) it measures each setting (bench/tune.py's search
parameters, e.g. `--params preset=v27 --params selection=puct`), position by position and
setting after setting, so a noisy machine slows them alike, and prints each setting's rates
and its ratio to the first one's; the last line is the first setting's.
With --fill it instead searches one position per player count with the default parameters
in a tree of --hash-mb MiB (give 64: the fixed default before Hash auto) until the tree is
full, and prints per player count the node, edge and hash slot records, the bytes a node
provisions and uses, the iterations per second and the seconds until the tree was full; then the tree an auto Hash gives a search of 250 ms, 1 s
and 4 s at that rate, and the seconds until it would be full at the rate nodes were made.
Run: python bench/search.py [--iterations 50000] [--hash-mb 256] [--rollout-turns 4] [--processes 1]
     [--leaf-eval value] [--value-weights FILE] [--params NAME=VALUE,...]... [--fill]
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
from search.mcts import new_tree
from search.treesize import node_bytes, tree_mb
from engine.errors import PalaisError
from search.params import LEAF_EVALS, USES_VALUE, SearchLimits, SearchParams, parse_params
from search.positions import BENCH_POSITIONS, midgame
from search.kernel import NOMINAL_MADDS_PER_NS, SLOW_PATH_RATIO, arithmetic_estimate_ns
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
    parser.add_argument("--params", action="append", default=[], metavar="NAME=VALUE,...",
                        help="a setting to measure (repeatable: each is measured, and its rate compared with the first's)")
    parser.add_argument("--fill", action="store_true",
                        help="time until a tree of --hash-mb MiB is full, and the auto Hash's trees")
    args = parser.parse_args()
    try:
        settings = [parse_params(text) for text in args.params] or [{}]
    except PalaisError as exc:
        parser.error(str(exc))
    if args.fill:
        return fill(args.hash_mb)
    positions = BENCH_POSITIONS
    if args.leaf_eval in USES_VALUE:
        model = load_value_model(args.value_weights)
        if model.players:             # a vector head: only the positions of its player count
            positions = tuple(p for p in BENCH_POSITIONS if p[0] == model.players)
            costs = vector_costs(model, positions)
        else:
            costs = [model.ns_per_value(midgame(n, seed, round_), 0, 20_000) for n, seed, round_ in positions]
            # what the search pays at a cutoff: every seat's value, the shared features built once
            per_seat = [model.ns_per_rewards(midgame(n, seed, round_), 20_000) / n for n, seed, round_ in positions]
            print(f"value weights {model.source} ({model.digest}), hidden {model.hidden}, kernel {kernel_name()}: "
                  f"{sum(costs) / len(costs):.0f} ns per evaluation of one seat, "
                  f"{sum(per_seat) / len(per_seat):.0f} ns per seat in a reward vector of every seat")
        arithmetic_guard(model, positions)

    base = dict(algorithm="ismcts", hash_mb=args.hash_mb, rollout_turns=args.rollout_turns,
                processes=args.processes, leaf_eval=args.leaf_eval, value_weights=args.value_weights)
    all_rates = [{} for _ in settings]
    print(f"{'setting':>7} {'players':>7} {'seed':>5} {'round':>5} {'iter/s':>9} {'nodes':>8} {'MiB used':>9} "
          f"{'B/node':>6}")
    per_node_bytes = [{} for _ in settings]
    for n, seed, round_ in positions:
        state = midgame(n, seed, round_)
        for k, setting in enumerate(settings):
            params = SearchParams(**{**base, **setting, "seed": seed})
            searcher = make_player(params)
            t0 = time.perf_counter()
            result = searcher.search(state, limits=SearchLimits(iterations=args.iterations))
            elapsed = time.perf_counter() - t0
            searcher.close()
            # this tree's; root-parallel processes report none: the size their params provision
            bytes_per_node = result.stats.get("bytes_per_node") or node_bytes(params, n)
            per_node_bytes[k][n] = max(bytes_per_node, per_node_bytes[k].get(n, 0))
            used_mib = result.nodes * bytes_per_node / 2**20
            all_rates[k].setdefault(n, []).append((result.iterations, elapsed))
            print(f"{k + 1:>7} {n:>7} {seed:>5} {round_:>5} {result.iterations / elapsed:>9.0f} "
                  f"{result.nodes:>8} {used_mib:>9.1f} {bytes_per_node:>6}")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak_mib:.0f} MiB (trees are allocated at --hash-mb each)")

    def rate(runs):
        return sum(i for i, _ in runs) / sum(t for _, t in runs)
    for k, rates in enumerate(all_rates):
        label = args.params[k] if args.params else "defaults"
        for n, runs in sorted(rates.items()):
            ratio = "" if k == 0 else f" ({rate(runs) / rate(all_rates[0][n]):.3f}x setting 1)"
            print(f"setting {k + 1} ({label}): {n} players: {rate(runs):.0f} iterations/s{ratio}")
    rates = all_rates[0]
    last = 4 if 4 in rates else max(rates)      # a vector head's own player count
    bytes_per_node = per_node_bytes[0][last]
    four = rates[last]
    if args.leaf_eval in USES_VALUE:
        every = [r for runs in rates.values() for r in runs]
        print(f"value eval: {model.digest} {sum(costs) / len(costs):.0f} ns per evaluation, "
              f"{sum(i for i, _ in every) / sum(t for _, t in every):.0f} iterations/s")
    print(f"ismcts_iter_per_s_{last}p={sum(i for i, _ in four) / sum(t for _, t in four):.0f} "
          f"bytes_per_node={bytes_per_node}")


def vector_costs(model, positions) -> list:
    """A vector head's cost per evaluation (one pass: every seat's share and score) on
    `positions`, printed beside what the shipped one-seat weights of its player count pay for
    the same reward vector (one seat's value times the seats, the shared features built
    once); returns the vector head's ns per position."""
    n = model.players
    states = [midgame(m, seed, round_) for m, seed, round_ in positions]
    costs = [model.ns_per_rewards(state, 20_000) for state in states]
    shipped = load_value_model("", n)
    per_seat = [shipped.ns_per_rewards(state, 20_000) / n for state in states]
    print(f"value weights {model.source} ({model.digest}), a vector head for {n} players, hidden "
          f"{model.hidden}, kernel {kernel_name()}: {sum(costs) / len(costs):.0f} ns per vector evaluation "
          f"(every seat's share and score, one pass); the shipped one-seat weights {shipped.digest}, "
          f"hidden {shipped.hidden}: {sum(per_seat) / len(per_seat):.0f} ns per seat, "
          f"{n * sum(per_seat) / len(per_seat):.0f} ns per reward vector of every seat")
    return costs


def arithmetic_guard(model, positions=BENCH_POSITIONS) -> None:
    """Per player count, a reward vector's measured cost beside what its arithmetic should
    cost (search/kernel.py: multiply-adds at the kernel's nominal rate; a vector head's one
    pass), and a warning when the measured is SLOW_PATH_RATIO times the estimate or more
    (subnormal weights, a kernel on a slow path: a ratio between two builds cannot see what
    both share)."""
    for n in sorted({n for n, _, _ in positions}):
        states = [midgame(n, seed, round_) for m, seed, round_ in positions if m == n]
        work = [model.work(state) for state in states]
        rows = sum(w["rows"] for w in work) / len(work)
        madds = sum(w["madds"] for w in work) / len(work)
        measured = sum(model.ns_per_rewards(state, 20_000) for state in states) / len(states)
        estimate = arithmetic_estimate_ns(madds)
        ratio = measured / estimate
        print(f"value arithmetic: {n} players: {rows:.0f} rows, {madds:.0f} multiply-adds per reward "
              f"vector; estimate {estimate:.0f} ns at {NOMINAL_MADDS_PER_NS[kernel_name()]:.0f} "
              f"multiply-adds/ns ({kernel_name()}), measured {measured:.0f} ns: {ratio:.2f}x the estimate")
        if ratio >= SLOW_PATH_RATIO:
            print(f"WARNING: a {n}-player value evaluation costs {ratio:.1f} times what its arithmetic "
                  f"should: something puts it on a slow path (subnormal weights? search/fp_mode.h)")


FILL_CHUNK = 1024
AUTO_BUDGETS_MS = (250, 1000, 4000)


def fill(hash_mb: int) -> None:
    """--fill: how long a fixed tree lasts, and what an auto Hash gives instead."""
    rows = []
    print(f"{'players':>7} {'nodes':>8} {'edges/node':>10} {'B used/node':>11} {'iter/s':>8} "
          f"{'s to full':>9}   auto Hash MiB (s to full) at " + ", ".join(f"{t} ms" for t in AUTO_BUDGETS_MS))
    seen = set()
    for n, seed, round_ in BENCH_POSITIONS:
        if n in seen:
            continue
        seen.add(n)
        state = midgame(n, seed, round_)
        params = SearchParams(seed=seed, hash_mb=hash_mb)
        tree = new_tree(params, True, seed, n)
        tree.set_root(state, state.to_move)
        t0 = time.perf_counter()
        while not tree.stats()["full"]:
            tree.run(FILL_CHUNK, 0.0, 0)
        elapsed = time.perf_counter() - t0
        stats = tree.stats()
        sizes = TreeSearch.record_bytes(n, stats["keeps_win"])
        prior = 4 if params.selection != "uct" else 0
        rows.append(f"{n} players: node {sizes['node']} B, edge {sizes['edge'] + prior} B (record "
                    f"{sizes['edge_record']}, statistics {sizes['edge_stats']}, prior {prior}), hash slot "
                    f"{sizes['slot']} B; provisioned per node {stats['bytes_per_node']} B (node, 2 slots, 12 edges)")
        per_edge = stats["edges"] / stats["nodes"]
        used = sizes["node"] + 2 * sizes["slot"] + per_edge * (sizes["edge"] + prior)
        rate = stats["iterations"] / elapsed
        auto = []
        for budget in AUTO_BUDGETS_MS:
            mb = tree_mb(SearchParams(seed=seed), SearchLimits(time_ms=budget), rate, n)
            nodes = (mb << 20) // stats["bytes_per_node"] * min(1.0, 12 / per_edge)   # (12 edges a node)
            auto.append(f"{mb} ({nodes / (stats['nodes'] / elapsed):.1f})")
        print(f"{n:>7} {stats['nodes']:>8} {per_edge:>10.1f} {used:>11.0f} {rate:>8.0f} {elapsed:>9.2f}   "
              + ", ".join(auto))
    for row in rows:
        print("records, " + row)


if __name__ == "__main__":
    main()
