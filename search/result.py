"""What a search found, for people (hint mode) and programs (the protocol, tournaments)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Candidate:
    """One way to go on from the searched position: a first action and the turn it starts."""

    turn: list                 # actions: the first, then the most visited line to the turn's end
    visits: int                # iterations through the first action
    win_prob: list             # per seat: mean reward (with reward=win: the win probability)
    expected_score: list       # per seat: mean final score (estimated where rollouts were cut)


@dataclass
class SearchResult:
    seat: int                  # the seat searched for
    best_turn: list            # the rest of the current turn, most visited first
    candidates: list           # Candidate, most visited first (top K)
    iterations: int = 0
    nodes: int = 0             # tree nodes made
    node_visits: int = 0       # decisions walked in the tree, summed over iterations
    time_ms: float = 0.0
    stats: dict = field(default_factory=dict)

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


class Progress:
    """Passed to a search's progress callback, between chunks of iterations.

    `best` (the leading candidate) is worked out only if read: the callback runs every
    chunk, and most readers look at it far less often.
    """

    def __init__(self, iterations: int, node_visits: int, time_ms: float, best_fn):
        self.iterations = iterations
        self.node_visits = node_visits
        self.time_ms = time_ms
        self._best_fn = best_fn
        self._best = None
        self._known = False

    @property
    def best(self) -> Candidate | None:
        if not self._known:
            self._best, self._known = self._best_fn(), True
        return self._best
