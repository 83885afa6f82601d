"""What a search found, for people (hint mode) and programs (the protocol, tournaments)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class EdgeStats(NamedTuple):
    """One edge of a search tree: an action at a node and the sums backed up through it."""

    action: int
    visits: int                # iterations that took this action here
    avail: int                 # iterations in which it was legal here
    reward: list               # per seat: sum of rewards (what the search maximises)
    win: list                  # per seat: sum of win shares
    score: list                # per seat: sum of final (or expected) scores

    def mean_reward(self, seat: int) -> float:
        return self.reward[seat] / self.visits if self.visits else 0.0


def _add(a: list, b: list) -> list:
    return [x + y for x, y in zip(a, b)]


def sum_edges(edges: list) -> EdgeStats:
    """The statistics of one action summed over several trees (PIMC worlds, parallel roots)."""
    total = edges[0]
    for e in edges[1:]:
        total = EdgeStats(total.action, total.visits + e.visits, total.avail + e.avail,
                          _add(total.reward, e.reward), _add(total.win, e.win), _add(total.score, e.score))
    return total


@dataclass
class Candidate:
    """One way to go on from the searched position: a first action and the turn it starts."""

    turn: list                 # actions: the first, then the most visited line to the turn's end
    visits: int                # iterations through the line (through its first action at the root)
    win_prob: list             # per seat: the share of wins
    expected_score: list       # per seat: mean final score (estimated where rollouts were cut)
    value: list = None         # per seat: the mean reward the search maximised (None: win_prob)

    def __post_init__(self):
        if self.value is None:
            self.value = list(self.win_prob)

    @classmethod
    def from_edge(cls, turn: list, edge: EdgeStats) -> "Candidate":
        n = max(1, edge.visits)
        return cls(turn=list(turn), visits=edge.visits, win_prob=[w / n for w in edge.win],
                   expected_score=[s / n for s in edge.score], value=[r / n for r in edge.reward])

    def as_edge(self) -> EdgeStats:
        """Back to sums (for merging candidates of several searches by first action)."""
        return EdgeStats(self.turn[0], self.visits, self.visits, [v * self.visits for v in self.value],
                         [w * self.visits for w in self.win_prob],
                         [s * self.visits for s in self.expected_score])


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
    root_visits: dict = field(default_factory=dict)   # action -> visits of the root's edge (self-play's policy targets)
    root_values: dict = field(default_factory=dict)   # action -> the root edge's mean reward for `seat`

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
