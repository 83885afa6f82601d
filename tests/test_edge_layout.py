"""The search tree's edge records sized by the player count (issue 27, item 1): smaller than the
old 60-byte record at 2 and 3 players, a Hash budget that buys the nodes the tree really
allocates, and search statistics (root edges, deeper edges, a reused tree's) exactly as they
were before the change (tests/data/edge_stats.json, made from main by
tests/data/make_edge_stats.py)."""

import importlib.util
import json
import os

import pytest

from search._ismcts import MAX_PLAYERS, TreeSearch
from search.mcts import MCTSSearch, new_tree
from search.params import SearchLimits, SearchParams
from search.positions import midgame
from search.treesize import node_bytes

DATA = os.path.join(os.path.dirname(__file__), "data")
OLD_EDGE_BYTES = 60          # reward, win and score for 4 seats, visits, avail, action
MIB = 1 << 20


def load_generator():
    spec = importlib.util.spec_from_file_location("make_edge_stats", os.path.join(DATA, "make_edge_stats.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def stored():
    with open(os.path.join(DATA, "edge_stats.json")) as f:
        return json.load(f)


def test_an_edge_record_is_sized_by_the_player_count_and_smaller_than_before():
    for n in (2, 3):
        for win in (False, True):
            assert TreeSearch.record_bytes(n, win)["edge"] < OLD_EDGE_BYTES
    assert TreeSearch.record_bytes(4, False)["edge"] < OLD_EDGE_BYTES
    assert TreeSearch.record_bytes(4, True)["edge"] <= OLD_EDGE_BYTES
    sizes = [TreeSearch.record_bytes(n, True) for n in (2, 3, 4)]
    assert sizes[0]["edge"] < sizes[1]["edge"] < sizes[2]["edge"]
    for n, size in zip((2, 3, 4), sizes):
        assert size["edge_record"] == 12 + 4 * n            # visits, avail, action, reward[n]
        assert size["edge_stats"] == 8 * n                  # win[n], score[n]
        assert size["edge"] == size["edge_record"] + size["edge_stats"]
        assert TreeSearch.record_bytes(n, False)["edge_stats"] == 4 * n   # score[n] only
    assert MAX_PLAYERS == 4


@pytest.mark.parametrize("n", [0, 5, -1])
def test_a_player_count_a_record_cannot_be_sized_for_is_refused(n):
    with pytest.raises(ValueError, match="player count"):
        TreeSearch.record_bytes(n)
    with pytest.raises(ValueError, match="player count"):
        TreeSearch.bytes_per_node(False, n)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("selection,reward", [("uct", "win"), ("puct", "margin"), ("puct", "adaptive")])
def test_the_hash_budget_buys_the_nodes_the_tree_allocates(n, selection, reward):
    params = SearchParams(seed=5, hash_mb=1, selection=selection, reward=reward,
                          policy_weights="uniform", leaf_eval="heuristic")
    result = MCTSSearch(params).search(midgame(n, 7, 6), limits=SearchLimits(iterations=50))
    stats = result.stats
    assert stats["n_players"] == n
    assert stats["keeps_win"] == (reward == "margin")       # adaptive: this root does not blend
    per_node = TreeSearch.bytes_per_node(selection != "uct", n, stats["keeps_win"])
    assert stats["bytes_per_node"] == per_node
    assert stats["node_capacity"] == MIB // per_node
    # what the arrays take: nodes and edges as provisioned, the table rounded up to a power of 2
    sizes = TreeSearch.record_bytes(n, stats["keeps_win"])
    slots = stats["table_slots"]
    assert slots >= 2 * stats["node_capacity"] and slots & (slots - 1) == 0
    assert stats["bytes_allocated"] == stats["node_capacity"] * per_node <= MIB
    assert stats["bytes_arrays"] - slots * sizes["slot"] == \
        stats["node_capacity"] * (per_node - 2 * sizes["slot"])
    # an auto Hash sizes for the larger layout the params may need, never a smaller one
    assert node_bytes(params, n) >= per_node
    assert node_bytes(params, n) == per_node or reward == "adaptive"


def test_smaller_records_fit_more_nodes_in_the_same_hash_at_fewer_players():
    caps = {}
    for n in (2, 3, 4):
        tree = new_tree(SearchParams(hash_mb=4), True, 1, n)
        tree.set_root(midgame(n, 7, 6), midgame(n, 7, 6).to_move)
        caps[n] = tree.stats()["node_capacity"]
    assert caps[2] > caps[3] > caps[4]
    assert caps[4] > (4 * MIB) // 800          # the old record: 800 bytes a node with priors


def test_root_and_deeper_edge_statistics_are_the_ones_main_computed(stored):
    gen = load_generator()
    assert gen.ITERATIONS == stored["iterations"]
    for name, params in stored["cases"].items():
        for n in gen.PLAYERS:
            now = json.loads(json.dumps(gen.case(n, params)))
            want = stored["data"][f"{name}/{n}"]
            assert now["first_line"] == want["first_line"], f"{name}/{n}"
            assert now["first_stats"] == want["first_stats"], f"{name}/{n}"


def test_a_reused_subtree_reports_the_win_and_score_sums_main_did(stored):
    gen = load_generator()
    reused = 0
    for name, params in stored["cases"].items():
        for n in gen.PLAYERS:
            now = json.loads(json.dumps(gen.case(n, params)))
            want = stored["data"][f"{name}/{n}"]
            assert now["reused"] == want["reused"], f"{name}/{n}"
            if want["reused"]:
                reused += 1
                for key in ("next_before", "next_after", "next_candidates"):
                    assert now[key] == want[key], f"{name}/{n} {key}"
    assert reused >= 9          # most cases go on in the reused tree (all 12 when made)


def test_a_tree_without_win_sums_reports_the_reward_sums_as_win():
    params = SearchParams(seed=2, hash_mb=2, selection="uct", leaf_eval="heuristic", reward="win")
    searcher = MCTSSearch(params)
    state = midgame(3, 7, 6)
    result = searcher.search(state, limits=SearchLimits(iterations=300))
    tree = searcher.last_tree
    assert not result.stats["keeps_win"]
    edges = tree.node_edges(tree.key_for(searcher.root_for(state, state.to_move)))
    assert any(e.visits for e in edges)
    for e in edges:
        assert e.win == e.reward and len(e.score) == 3
        assert abs(sum(e.win) - e.visits) < 1e-3 * max(1, e.visits)   # the win shares add up to 1


def test_a_tree_reallocates_for_another_player_count_or_a_root_that_blends():
    tree = new_tree(SearchParams(hash_mb=2, selection="uct", leaf_eval="heuristic"), True, 1, 2)
    two = midgame(2, 7, 6)
    tree.set_root(two, two.to_move)
    assert not tree.blends_margin()
    tree.run(200, 0.0, 0)
    first = tree.stats()
    assert (first["n_players"], first["keeps_win"]) == (2, False) and first["nodes"] > 0
    four = midgame(4, 7, 6)
    tree.set_root(four, four.to_move)                       # another player count: a new, empty tree
    stats = tree.stats()
    assert (stats["n_players"], stats["nodes"]) == (4, 0)
    assert stats["node_capacity"] < first["node_capacity"]
    assert not tree.has_node(two)
    tree.run(200, 0.0, 0)
    audit = tree.audit()
    assert audit["bad_visits"] == audit["bad_edges"] == audit["unfound"] == 0
    decided = midgame(2, 4, 8)                              # reward=adaptive blends here
    tree.set_root(two, two.to_move)
    tree.run(100, 0.0, 0)
    tree.set_root(decided, decided.to_move)
    assert tree.blends_margin()
    stats = tree.stats()
    assert (stats["n_players"], stats["keeps_win"], stats["nodes"]) == (2, True, 0)
    tree.run(100, 0.0, 0)
    tree.set_root(two, two.to_move)                         # a tree with win sums serves any root
    assert tree.stats()["keeps_win"] and tree.has_node(decided)


def test_a_tree_before_its_first_root_answers_without_crashing():
    tree = TreeSearch(SearchParams(hash_mb=1), True, 1)
    assert tree.fill() == 0.0
    assert tree.node_edges(123) is None and tree.priors_of(123) is None
    assert not tree.has_node(midgame(2, 7, 6))
    assert tree.stats()["n_players"] == 0 and tree.stats()["bytes_per_node"] == 0
    assert tree.gumbel_start(100) is False
    with pytest.raises(RuntimeError, match="set_root"):
        tree.run(10, 0.0, 0)


def test_one_engine_searches_games_of_every_player_count_in_turn_over_pri():
    from helpers import ServerSession
    session = ServerSession()
    session.send("setoption name Hash value 1", "setoption name MultiPV value 2")
    for n in (2, 4, 3, 2):
        session.send(f"position start players {n}", "go iterations 3000")
        lines = session.new_lines()
        assert lines[-1].startswith("bestmove "), lines[-3:]
        assert not [line for line in lines if "error" in line]
        pvs = [line.split() for line in lines if " multipv " in line][-2:]
        for words in pvs:
            wins = [float(w) for w in words[words.index("winprob") + 1:words.index("score")]]
            scores = [float(w) for w in words[words.index("score") + 1:words.index("pv")]]
            assert len(wins) == len(scores) == n
            assert abs(sum(wins) - 1.0) < 0.01       # win shares, not the first seats' of a wider record


def test_the_puct_test_hook_refuses_a_seat_beyond_the_record():
    from search._ismcts import puct_pick
    for player in (-1, MAX_PLAYERS):
        with pytest.raises(ValueError, match="not a seat"):
            puct_pick(player, [1, 2], [1, 1], [2, 2], [0.5, 0.5], [0.5, 0.5], [1, 2], 1.0)
    assert puct_pick(3, [1, 2], [1, 1], [2, 2], [0.2, 0.9], [0.5, 0.5], [1, 2], 0.0)[0] == 2
