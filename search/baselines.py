"""Baseline players: uniformly random, greedy one-turn, and flat determinized Monte Carlo.

They answer to the same interface as MCTSSearch (`search(state, seat, limits)` returning a
SearchResult), so tournaments, benchmarks and the protocol pick any of them by name.
Random and greedy decide one action at a time (their best_turn is that one action); PIMC
searches each of several determinizations with perfect-information MCTS and adds up the
root statistics (Perfect-Information Monte Carlo, with its known strategy-fusion flaw).
"""

from __future__ import annotations

from engine.rng import Rng
from engine.views import view_for

from ._ismcts import TreeSearch
from ._policy import estimated_scores, finish_turn
from .mcts import continue_turn, new_tree
from .params import SearchLimits, SearchParams
from .player import BasePlayer
from .result import Candidate, Progress, SearchResult, sum_edges
from .stopping import StopSwitch


def one_action_result(seat: int, action: int, n_players: int) -> SearchResult:
    flat = [1.0 / n_players] * n_players
    candidate = Candidate(turn=[action], visits=1, win_prob=flat, expected_score=[0.0] * n_players)
    return SearchResult(seat=seat, best_turn=[action], candidates=[candidate], iterations=1)


class RandomPlayer(BasePlayer):
    """A uniformly random legal action, from the seat's own seeded stream."""

    def __init__(self, params: SearchParams | None = None):
        self.params = params or SearchParams(algorithm="random")
        self.rng = Rng(self.params.seed)

    def stop(self) -> None:
        pass

    def search(self, state, seat=None, limits=None, callback=None, top_k=5) -> SearchResult:
        seat = state.to_move if seat is None else seat
        legal = state.legal_actions()
        return one_action_result(seat, legal[self.rng.below(len(legal))], state.n_players)


class GreedyPlayer(BasePlayer):
    """For each legal action: finish the turn with the heuristic policy (on the seat's view)
    and keep the action whose end-of-turn estimated score margin is largest. Deterministic
    for a seed; ignores search limits (it is fast)."""

    def __init__(self, params: SearchParams | None = None):
        self.params = params or SearchParams(algorithm="greedy")
        self._searches = 0

    def stop(self) -> None:
        pass

    def search(self, state, seat=None, limits=None, callback=None, top_k=5) -> SearchResult:
        seat = state.to_move if seat is None else seat
        view = view_for(state, seat)
        legal = view.legal_actions()
        self._searches += 1
        scored = []
        for action in legal:
            after = view.copy()
            after.apply(action)
            if after.to_move == seat and not after.is_terminal():
                finish_turn(after, Rng(self.params.seed * 7919 + self._searches))
            scores = (estimated_scores(after, self.params.static_eval) if not after.is_terminal()
                      else after.scores())
            margin = scores[seat] - max(s for q, s in enumerate(scores) if q != seat)
            scored.append((margin, -action, action, scores))
        scored.sort(reverse=True)
        n = state.n_players
        candidates = [Candidate(turn=[a], visits=1, win_prob=[1.0 / n] * n, expected_score=list(sc))
                      for _, _, a, sc in scored[:top_k]]
        return SearchResult(seat=seat, best_turn=candidates[0].turn, candidates=candidates,
                            iterations=len(legal))


class PIMCSearch(BasePlayer):
    """Flat determinized Monte Carlo: params.determinizations worlds share the budget; each
    is searched with perfect-information MCTS; root statistics are summed by action."""

    def __init__(self, params: SearchParams | None = None):
        self.params = params or SearchParams(algorithm="pimc")
        self._stop = StopSwitch()
        self._searches = 0

    def stop(self) -> None:
        """Ask a running search to end; never blocks; ignored when no search runs."""
        self._stop.stop()

    def search(self, state, seat=None, limits=None, callback=None, top_k=5) -> SearchResult:
        limits = limits or SearchLimits(iterations=10_000)
        seat = state.to_move if seat is None else seat
        seed = self.params.seed + 0x9E37 * self._searches
        self._searches += 1
        with self._stop:
            return self._search(state, seat, limits, callback, top_k, seed)

    def _search(self, state, seat, limits, callback, top_k, seed) -> SearchResult:
        view = view_for(state, seat)
        k = self.params.determinizations
        rng = Rng(seed)
        start = TreeSearch.clock_ms()
        per_world_ms = limits.time_ms / k if limits.time_ms else 0.0
        per_world_iterations = -(-limits.iterations // k) if limits.iterations else 0
        per_world_visits = -(-limits.visits // k) if limits.visits else 0
        if limits.infinite and not (per_world_iterations or per_world_ms or per_world_visits):
            per_world_iterations = 10_000
        params = self.params.with_(hash_mb=max(1, self.params.hash_mb // k)) if self.params.hash_mb else self.params
        per_world = SearchLimits(iterations=per_world_iterations or None, visits=per_world_visits or None,
                                 time_ms=per_world_ms or None)
        totals = {}
        worlds = []
        done = 0
        for i in range(k):
            if self._stop.requested:
                break
            world = view.determinize(seat, rng)
            tree = new_tree(params, False, seed + i + 1, world.n_players, per_world)
            tree.set_root(world, seat)
            self._stop.on_stop(lambda tree=tree: setattr(tree, "stop_flag", 1))
            deadline = TreeSearch.clock_ms() + per_world_ms if per_world_ms else 0.0
            done += tree.run(per_world_iterations, deadline, per_world_visits)
            worlds.append((tree, world))
            for edge in tree.node_edges(tree.key_for(world)) or []:
                totals.setdefault(edge.action, []).append((edge, tree, world))
            if callback is not None:        # between worlds: progress, and a chance to stop
                callback(Progress(done, 0, TreeSearch.clock_ms() - start, lambda: None))
        summed = {action: sum_edges([e for e, _, _ in where]) for action, where in totals.items()}
        ranked = sorted(((e.visits, -a, a) for a, e in summed.items() if e.visits > 0), reverse=True)[:top_k]
        candidates = []
        for _, _, action in ranked:
            _, tree, world = max(totals[action], key=lambda w: w[0].visits)   # the world that liked it most
            candidates.append(Candidate.from_edge(continue_turn(tree, world, seat, action), summed[action]))
        return SearchResult(seat=seat, best_turn=candidates[0].turn if candidates else [],
                            candidates=candidates, iterations=done,
                            time_ms=TreeSearch.clock_ms() - start)
