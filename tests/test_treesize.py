"""Time that buys strength (issue 27 item 2): an auto Hash sizes the tree from the search's
budget, so a long search keeps adding nodes; a full tree keeps searching with consistent
statistics; PRI's Hash takes every value it advertises and `auto`."""

import re

import pytest

from search._ismcts import TreeSearch
from search.baselines import PIMCSearch
from search.mcts import MCTSSearch
from search.params import PRESETS, SearchLimits, SearchParams, tree_memory_cap_mb
from search.positions import midgame
from search.treesize import AUTO_FLOOR_MB, AUTO_INFINITE_MB, AUTO_ROOM, tree_mb

from helpers import ServerSession

MIB = 1 << 20


def test_the_default_hash_is_auto_and_v26_keeps_the_old_64_mib():
    assert SearchParams().hash_mb == 0
    assert SearchParams.preset("v26").hash_mb == 64 and PRESETS["v26"]["hash_mb"] == 64
    assert SearchParams().decision_share == 0.5 and SearchParams.preset("v26").decision_share == 0.0


def test_an_auto_tree_is_sized_from_the_budget_within_the_floor_and_the_machines_cap():
    auto = SearchParams()
    per_node = TreeSearch.bytes_per_node(auto.selection != "uct")     # the default, puct, keeps priors
    cap = tree_memory_cap_mb(1)
    want = -(-AUTO_ROOM * 400_000 * per_node // MIB)          # 4 s at 100,000 iterations/s
    assert tree_mb(auto, SearchLimits(time_ms=4000), 100_000) == min(cap, want)
    assert tree_mb(auto, SearchLimits(iterations=100)) == min(cap, AUTO_FLOOR_MB)   # never below the old default
    assert tree_mb(auto, SearchLimits(iterations=10 ** 9)) == cap
    assert tree_mb(auto, SearchLimits(infinite=True)) == min(cap, AUTO_INFINITE_MB)
    assert tree_mb(auto, SearchLimits(infinite=True, iterations=200_000)) == \
        min(cap, max(AUTO_FLOOR_MB, -(-AUTO_ROOM * 200_000 * per_node // MIB)))
    assert tree_mb(SearchParams(hash_mb=7), SearchLimits(time_ms=4000), 100_000) == 7
    assert tree_mb(auto.with_(processes=2), SearchLimits(iterations=10 ** 9)) == tree_memory_cap_mb(2)


def test_a_search_too_long_for_a_fixed_tree_keeps_adding_nodes_with_an_auto_hash():
    # 1 MiB holds 1,724 4-player nodes (608 bytes each): 6,000 iterations fill it; the auto tree takes them all.
    state = midgame(4, 105, 8)
    limits = SearchLimits(iterations=6000)
    fixed = MCTSSearch(SearchParams(seed=3, hash_mb=1)).search(state, limits=limits).stats
    auto = MCTSSearch(SearchParams(seed=3)).search(state, limits=limits).stats
    assert fixed["full"] and not auto["full"]
    assert auto["nodes"] > 3 * fixed["nodes"]
    assert auto["node_capacity"] >= AUTO_ROOM * 6000


def test_a_timed_search_measures_its_rate_and_sizes_the_next_tree_from_it():
    searcher = MCTSSearch(SearchParams(seed=3, reuse_tree=False))
    state = midgame(2, 1, 8)
    first = searcher.search(state, limits=SearchLimits(time_ms=100))
    rate = searcher.iterations_per_s
    assert rate and rate >= first.iterations * 1000 / first.time_ms * 0.99
    second = searcher.search(state, limits=SearchLimits(time_ms=100))
    assert not second.stats["full"]
    mb = tree_mb(searcher.params, SearchLimits(time_ms=100), searcher.iterations_per_s, 2)
    layout = TreeSearch.bytes_per_node(True, 2, second.stats["keeps_win"])   # puct: with priors
    assert second.stats["node_capacity"] == mb * MIB // layout == mb * MIB // second.stats["bytes_per_node"]


def test_pimc_runs_with_an_auto_hash():
    result = PIMCSearch(SearchParams(algorithm="pimc", seed=2, determinizations=4)).search(
        midgame(2, 1, 8), limits=SearchLimits(iterations=800))
    assert result.best_turn and result.iterations == 800


def test_a_full_tree_goes_on_searching_and_its_statistics_stay_consistent():
    # Today's answer to a full tree: the search goes on without expanding (each iteration
    # rolls out from the last node it reached), so the nodes it has keep their statistics
    # growing. Every node's visits are the sum of its edges' visits, the root's edges count
    # every iteration, and a reused full tree stays consistent too.
    state = midgame(4, 105, 8)
    searcher = MCTSSearch(SearchParams(seed=3, hash_mb=1))
    result = searcher.search(state, limits=SearchLimits(iterations=12000))
    tree = searcher.last_tree
    stats = tree.stats()
    assert stats["full"] and stats["nodes"] < 12000
    audit = tree.audit()
    assert audit["nodes"] == stats["nodes"] and audit["edges"] == stats["edges"]
    assert (audit["bad_visits"], audit["bad_edges"], audit["unfound"]) == (0, 0, 0)
    root_edges = tree.node_edges(tree.key_for(searcher.root_for(state, state.to_move)))
    assert sum(e.visits for e in root_edges) == result.iterations == 12000
    assert audit["edge_visits"] == stats["node_visits"]          # each walked decision counted once
    before = stats["nodes"]
    tree.run(3000, 0.0, 0)                                     # more iterations into the full tree
    assert tree.stats()["nodes"] == before
    assert sum(e.visits for e in tree.node_edges(tree.key_for(searcher.root_for(state, state.to_move)))) == 15000
    assert tree.audit()["bad_visits"] == 0


@pytest.mark.parametrize("value", ["auto", "AUTO", "0", "1", "64", str(min(65536, tree_memory_cap_mb(1)))])
def test_every_hash_the_engine_advertises_and_auto_search(value):
    s = ServerSession()
    s.send("pri")
    line = [l for l in s.new_lines() if l.startswith("option name Hash ")][0]
    assert line == "option name Hash type spin default 0 min 0 max 65536"
    s.send(f"setoption name Hash value {value}", "position start players 2 seed 3", "go iterations 300")
    lines = s.new_lines()
    assert not [l for l in lines if "error" in l]
    assert re.match(r"bestmove \S", lines[-1])
