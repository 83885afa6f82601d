"""Writes tests/data/edge_stats.json: the edge statistics of fixed small searches at 2, 3 and
4 players, so tests/test_edge_layout.py can check that a change to the tree's edge records
(issue 27, item 1) leaves every number as it was. Run it once from the tree being compared
against, e.g. `cd /work/wt-base && PYTHONPATH=$PWD python /path/to/tests/data/make_edge_stats.py OUT`.
"""

import json
import sys

from search.mcts import MCTSSearch
from search.params import SearchLimits, SearchParams
from search.positions import midgame

CASES = {   # name: the search parameters (no learned kernel: the numbers are the same with either)
    "uct-adaptive": dict(selection="uct", leaf_eval="heuristic", reward="adaptive"),
    "uct-margin": dict(selection="uct", leaf_eval="heuristic", reward="margin"),
    "puct-dynamic": dict(selection="puct", policy_weights="uniform", leaf_eval="heuristic", reward="dynamic"),
    "puct-win": dict(selection="puct", policy_weights="uniform", leaf_eval="heuristic", reward="win",
                     rollout_turns=2),
}
PLAYERS = (2, 3, 4)
ITERATIONS = 1500
LINE_PLIES = 6


def edges_of(tree, state):
    edges = tree.node_edges(tree.key_for(state))
    return None if edges is None else [list(e) for e in edges]


def line_edges(tree, state, plies=LINE_PLIES):
    """The edges of each node along the most visited line from `state` (any seat's nodes)."""
    out = []
    state = state.copy()
    for _ in range(plies):
        if state.is_terminal() or state.is_chance():
            break
        edges = tree.node_edges(tree.key_for(state))
        if not edges:
            break
        out.append([list(e) for e in edges])
        best = max(edges, key=lambda e: (e.visits, -e.action))
        state.apply(best.action)
    return out


def case(n, params):
    """A search, then the next decision of the same turn searched again in the reused tree."""
    state = midgame(n, 7, 6)
    seat = state.to_move
    searcher = MCTSSearch(SearchParams(seed=11, hash_mb=16, **params))
    first = searcher.search(state, limits=SearchLimits(iterations=ITERATIONS))
    tree = searcher.last_tree
    root = searcher.root_for(state, seat)
    out = {"first_line": line_edges(tree, root), "first_stats": [first.stats[k] for k in
                                                                  ("root_value", "root_win", "root_score")]}
    nxt = root.copy()
    nxt.apply(first.best_turn[0])
    out["reused"] = None
    if len(first.best_turn) > 1 and nxt.to_move == seat and not nxt.is_chance():
        out["next_before"] = edges_of(tree, nxt)
        second = searcher.search(nxt, seat, limits=SearchLimits(iterations=ITERATIONS // 2))
        out["reused"] = searcher.last_tree is tree
        out["next_after"] = edges_of(tree, nxt)
        out["next_candidates"] = [(c.turn, c.visits, c.win_prob, c.expected_score, c.value)
                                  for c in second.candidates]
    return out


def main(path):
    data = {f"{name}/{n}": case(n, params) for name, params in CASES.items() for n in PLAYERS}
    with open(path, "w") as f:
        json.dump({"cases": CASES, "iterations": ITERATIONS, "data": data}, f, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1])
