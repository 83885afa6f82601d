"""The bench signature: fixed positions, seed and iteration limits -> `Nodes searched: N`.

N is the number of tree decisions walked by ISMCTS over all bench positions. It changes
exactly when search behaviour changes (or the rules, or the rollout policy), so record it in
the commit message of any change to search. `python -m search.signature` prints it.
"""

from .mcts import MCTSSearch
from .params import SearchLimits, SearchParams
from .positions import bench_positions

SIGNATURE_ITERATIONS = 2000


def signature() -> int:
    total = 0
    for i, state in enumerate(bench_positions()):
        searcher = MCTSSearch(SearchParams(algorithm="ismcts", seed=i))
        total += searcher.search(state, limits=SearchLimits(iterations=SIGNATURE_ITERATIONS)).node_visits
    return total


def main():
    print(f"Nodes searched: {signature()}")


if __name__ == "__main__":
    main()
