"""ISMCTS and perfect-information MCTS: the Python face of search/_ismcts.pyx.

`MCTSSearch.search(state, seat, limits)` runs the C loop in chunks (so a progress callback
and stop() are served between chunks without any Python work per iteration), then reads the
tree: the root's edges become candidates, each extended by the most visited line to the end
of the current turn.

ISMCTS searches from the seat's view (it never looks at hidden cards: a full state is turned
into the seat's view first); perfect-information MCTS searches the true state (the
"cheating" reference, and analysis with all cards open).
"""

from __future__ import annotations

from engine.constants import S_DRAW

from ._ismcts import TreeSearch
from .params import SearchLimits, SearchParams
from .result import Candidate, Progress, SearchResult
from .stopping import StopSwitch

CHUNK_ITERATIONS = 256
POLICY_CODES = {"uniform": 0, "heuristic": 1}


def new_tree(params: SearchParams, determinize: bool, seed: int) -> TreeSearch:
    return TreeSearch(params.hash_mb << 20, params.exploration, POLICY_CODES[params.rollout_policy],
                      params.rollout_turns, params.eval_temperature, determinize,
                      params.reward == "margin", params.margin_weight, params.first_play == "policy",
                      seed & ((1 << 64) - 1))


def best_edge(edges, seat: int):
    """The search's choice: the most visited edge; on a tie the better mean reward for
    `seat`, then the lower action."""
    return max(edges, key=lambda e: (e[1], e[3][seat] / e[1] if e[1] else 0.0, -e[0]))


def continue_turn(tree: TreeSearch, state, seat: int, first: int, limit: int = 200) -> list:
    """`first`, then the most visited actions while it stays `seat`'s turn and a node exists."""
    line = [first]
    state = state.copy()
    state.apply(first)
    while len(line) < limit and not state.is_terminal() and state.stage != S_DRAW \
            and state.to_move == seat:
        edges = tree.node_edges(tree.key_for(state))
        if not edges or best_edge(edges, seat)[1] == 0:
            break
        action = best_edge(edges, seat)[0]
        line.append(action)
        state.apply(action)
    return line


class MCTSSearch:
    """ISMCTS (params.algorithm == "ismcts") or perfect-information MCTS ("mcts")."""

    def __init__(self, params: SearchParams | None = None):
        self.params = params or SearchParams()
        if self.params.algorithm not in ("ismcts", "mcts"):
            raise ValueError("MCTSSearch runs ismcts or mcts")
        self.determinize = self.params.algorithm == "ismcts"
        self._stop = StopSwitch()
        self._searches = 0

    def stop(self) -> None:
        """Ask a running search to end after its current iteration. Never blocks; ignored
        when no search runs."""
        self._stop.stop()

    def root_for(self, state, seat: int):
        if self.determinize:
            return state if state.observer == seat else state.view(seat)
        return state

    def search(self, state, seat: int | None = None, limits: SearchLimits | None = None,
               callback=None, top_k: int = 5) -> SearchResult:
        """Search `state` for `seat` (default: the seat to move) until a limit or stop()."""
        limits = limits or SearchLimits(iterations=10_000)
        seat = state.to_move if seat is None else seat
        root = self.root_for(state, seat)
        seed = self.params.seed + 0x9E37 * self._searches
        self._searches += 1
        self._stop.begin()
        try:
            return self._search(root, seat, limits, callback, top_k, seed)
        finally:
            self._stop.end()

    def _search(self, root, seat, limits, callback, top_k, seed) -> SearchResult:
        tree = new_tree(self.params, self.determinize, seed)
        tree.set_root(root, seat)
        self._stop.on_stop(lambda: setattr(tree, "stop_flag", 1))
        start = TreeSearch.clock_ms()
        deadline = start + limits.time_ms if limits.time_ms else 0.0
        done = 0
        while True:
            chunk = CHUNK_ITERATIONS
            if limits.iterations:
                chunk = min(chunk, limits.iterations - done)
            if chunk <= 0:
                break
            ran = tree.run(chunk, deadline, limits.nodes or 0)
            done += ran
            stats = tree.stats()
            if callback is not None:
                def leader(tree=tree):
                    leaders = self._candidates(tree, root, seat, 1)
                    return leaders[0] if leaders else None
                callback(Progress(done, stats["node_visits"], TreeSearch.clock_ms() - start, leader))
            if ran < chunk or tree.stop_flag:
                break
            if limits.nodes and stats["node_visits"] >= limits.nodes:
                break
            if deadline and TreeSearch.clock_ms() >= deadline:
                break
        stats = tree.stats()
        candidates = self._candidates(tree, root, seat, top_k)
        return SearchResult(
            seat=seat, best_turn=candidates[0].turn if candidates else [],
            candidates=candidates, iterations=done, nodes=stats["nodes"],
            node_visits=stats["node_visits"], time_ms=TreeSearch.clock_ms() - start, stats=stats)

    def _candidates(self, tree, root, seat, top_k):
        edges = tree.node_edges(tree.key_for(root)) or []
        edges = sorted((e for e in edges if e[1] > 0),
                       key=lambda e: (-e[1], -e[3][seat] / e[1], e[0]))[:top_k]
        out = []
        for action, visits, _avail, rewards, scores in edges:
            out.append(Candidate(
                turn=continue_turn(tree, root, seat, action), visits=visits,
                win_prob=[r / visits for r in rewards], expected_score=[s / visits for s in scores]))
        return out
