"""Root-parallel search over processes: N independent trees on the same root, merged.

Each worker process searches the same root (sent as a snapshot) with its own seed and the
same limits; the root statistics are then summed by action, and each candidate's line comes
from the tree that visited its first action most. Processes, not threads, share the work
(DESIGN.md: no Python threads doing search under the GIL). The pool stays up between
searches; `close()` ends it. `stop()` reaches the workers through a shared event, checked
between chunks of iterations.
"""

from __future__ import annotations

import multiprocessing as mp

from .mcts import MCTSSearch
from .params import SearchLimits, SearchParams
from .result import Candidate, SearchResult, sum_edges

_STOP = None      # the shared stop event, set in each worker by _init_worker
ALL_ACTIONS = 128  # each tree reports every root action; the merge keeps the top K


def _init_worker(stop_event):
    global _STOP
    _STOP = stop_event


def _rebuild(snapshot, components, options):
    from engine.state import State
    return State.from_snapshot(snapshot, components, options)


def _search_one(job):
    """One worker's search: returns its root edges, each with the line it would play."""
    snapshot, components, options, params, seat, limits, top_k = job
    state = _rebuild(snapshot, components, options)
    searcher = MCTSSearch(params)

    def watch(_progress):
        if _STOP is not None and _STOP.is_set():
            searcher.stop()

    result = searcher.search(state, seat, limits, callback=watch, top_k=top_k)
    return result


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


class RootParallelSearch:
    """ISMCTS or MCTS on `processes` processes (this one and processes - 1 workers)."""

    def __init__(self, params: SearchParams, processes: int = 2):
        if processes < 1:
            raise ValueError("processes must be >= 1")
        self.params = params
        self.processes = processes
        self.local = MCTSSearch(params)
        self._context = mp.get_context("fork")
        self._stop = self._context.Event()
        self._pool = None
        self._searches = 0

    def _ensure_pool(self):
        if self._pool is None and self.processes > 1:
            self._pool = self._context.Pool(self.processes - 1, initializer=_init_worker,
                                            initargs=(self._stop,))

    def stop(self) -> None:
        self._stop.set()
        self.local.stop()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def search(self, state, seat=None, limits=None, callback=None, top_k=5) -> SearchResult:
        limits = limits or SearchLimits(iterations=10_000)
        seat = state.to_move if seat is None else seat
        self._stop.clear()
        self._ensure_pool()
        self._searches += 1
        pending = None
        if self._pool is not None:
            jobs = [(state.snapshot(), state.components, state.options,
                     self.params.with_(seed=self.params.seed + 1_000_003 * (i + 1) + self._searches),
                     seat, limits, ALL_ACTIONS) for i in range(self.processes - 1)]
            pending = self._pool.map_async(_search_one, jobs)
        results = [self.local.search(state, seat, limits, callback=callback, top_k=ALL_ACTIONS)]
        if self._stop.is_set() or limits.infinite:
            self._stop.set()          # an infinite search ends when this one is stopped
        if pending is not None:
            results.extend(pending.get())
        return merge_results(results, seat, top_k)
