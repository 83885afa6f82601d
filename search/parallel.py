"""Root-parallel search over processes: N independent trees on the same root, merged.

Each worker process searches the same root (sent as a snapshot) with its own seed and the
same limits; the root statistics are then summed by action, and each candidate's line comes
from the tree that visited its first action most. Processes, not threads, share the work
(DESIGN.md: no Python threads doing search under the GIL). The workers (search/workers.py)
are spawned, stay up between searches and end with `close()` or with this process.
`stop()` reaches them over their pipes, read between chunks of iterations. A time limit is
one deadline for every process, so a worker that starts late does not answer late.
"""

from __future__ import annotations

from dataclasses import replace

from ._ismcts import TreeSearch
from .mcts import MCTSSearch
from .params import SearchLimits, SearchParams
from .player import BasePlayer
from .result import Candidate, SearchResult, sum_edges
from .stopping import StopSwitch
from .workers import WorkerPool

ALL_ACTIONS = 128  # each tree reports every root action; the merge keeps the top K


def _rebuild(snapshot, components, options):
    from engine.state import State
    return State.from_snapshot(snapshot, components, options)


def _search_one(job, poll_stop):
    """One worker's search: returns its root edges, each with the line it would play."""
    snapshot, components, options, params, seat, limits, deadline_ms, top_k = job
    state = _rebuild(snapshot, components, options)
    searcher = MCTSSearch(params)
    if deadline_ms:
        limits = replace(limits, time_ms=max(1.0, deadline_ms - TreeSearch.clock_ms()))

    def watch(_progress):
        if poll_stop():
            searcher.stop()

    return searcher.search(state, seat, limits, callback=watch, top_k=top_k)


def merge_results(results, seat: int, top_k: int) -> SearchResult:
    """Sum the candidates' statistics by first action over several searches of one root; each
    action's line is the one of the search that visited it most."""
    by_action = {}
    for result in results:
        for c in result.candidates:
            by_action.setdefault(c.turn[0], []).append(c)
    summed = {action: sum_edges([c.as_edge() for c in cands]) for action, cands in by_action.items()}
    ranked = sorted(summed.values(), key=lambda e: (-e.visits, e.action))[:top_k]
    candidates = [Candidate.from_edge(max(by_action[e.action], key=lambda c: c.visits).turn, e)
                  for e in ranked]
    return SearchResult(
        seat=seat, best_turn=candidates[0].turn if candidates else [], candidates=candidates,
        iterations=sum(r.iterations for r in results), nodes=sum(r.nodes for r in results),
        node_visits=sum(r.node_visits for r in results),
        time_ms=max((r.time_ms for r in results), default=0.0),
        stats={"processes": len(results)})


class RootParallelSearch(BasePlayer):
    """ISMCTS or MCTS on `processes` processes (this one and processes - 1 workers)."""

    def __init__(self, params: SearchParams, processes: int = 2):
        if processes < 1:
            raise ValueError("processes must be >= 1")
        self.params = params
        self.processes = processes
        self.local = MCTSSearch(params)
        self._workers = WorkerPool(processes - 1, _search_one) if processes > 1 else None
        self._stop = StopSwitch()
        self._searches = 0

    def prepare(self) -> None:
        """Start the worker processes now and wait until they are ready (else the first
        search starts them, and waits for them at its end)."""
        if self._workers is not None:
            self._workers.start()

    def stop(self) -> None:
        """Ask a running search to end; never blocks; ignored when no search runs."""
        if self._stop.stop():
            self.local.stop()
            if self._workers is not None:
                self._workers.stop()

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()

    def search(self, state, seat=None, limits=None, callback=None, top_k=5) -> SearchResult:
        limits = limits or SearchLimits(iterations=10_000)
        seat = state.to_move if seat is None else seat
        self._searches += 1

        def watch(progress):                  # a stop that came before the local search began
            if self._stop.requested:
                self.local.stop()
            if callback is not None:
                callback(progress)

        with self._stop:
            try:
                if self._workers is not None:
                    deadline_ms = TreeSearch.clock_ms() + limits.time_ms if limits.time_ms else 0.0
                    self._workers.submit([
                        (state.snapshot(), state.components, state.options,
                         self.params.with_(seed=self.params.seed + 1_000_003 * (i + 1) + self._searches),
                         seat, limits, deadline_ms, ALL_ACTIONS) for i in range(self.processes - 1)])
                    if self._stop.requested:
                        self._workers.stop()
                results = [self.local.search(state, seat, limits, callback=watch, top_k=ALL_ACTIONS)]
                if self._workers is not None:
                    if self._stop.requested or limits.infinite:
                        self._workers.stop()      # an infinite search ends when this one is stopped
                    results.extend(self._workers.collect())
            except BaseException:
                if self._workers is not None:
                    self._workers.close()         # no answer of this search may reach the next
                raise
        return merge_results(results, seat, top_k)
