"""ISMCTS and perfect-information MCTS: the Python face of search/_ismcts.pyx.

`MCTSSearch.search(state, seat, limits)` runs the C loop in chunks (so a progress callback
and stop() are served between chunks without any Python work per iteration), then reads the
tree: the root's edges become candidates, each extended by the most visited line to the end
of the current turn.

ISMCTS searches from the seat's view (it never looks at hidden cards: a full state is turned
into the seat's view first); perfect-information MCTS searches the true state (the
"cheating" reference, and analysis with all cards open).

Tree reuse: a searcher keeps its last tree. When it is asked again, for the same seat, from a
position that tree holds (the next decision of the turn, or a later turn the search looked
into), the search goes on in that tree, so the subtree's statistics count from the start.
"""

from __future__ import annotations

from engine.constants import S_DRAW

from ._ismcts import TreeSearch
from .params import SearchLimits, SearchParams
from .player import BasePlayer
from .result import Candidate, Progress, SearchResult
from .stopping import StopSwitch
from .treesize import has_room, iterations_within, tree_mb

CHUNK_ITERATIONS = 256
REUSE_MAX_FILL = 0.5
RATE_MIN_MS = 20.0     # a search shorter than this is not timed (its rate is mostly overhead)
# selection=gumbel plans sequential halving over the search's budget: its iteration limit,
# or its time at the searcher's measured rate; before one is measured, at this rate (low on
# purpose: a schedule that ends early gives the rest to the chosen action, one cut short
# chooses among more survivors), and for a search only stop() ends, this many iterations.
GUMBEL_PLANNING_RATE = 20_000
GUMBEL_INFINITE_BUDGET = 1_000_000


def new_tree(params: SearchParams, determinize: bool, seed: int, n_players: int,
             limits: SearchLimits | None = None, iterations_per_s: float | None = None) -> TreeSearch:
    """A tree for a search within `limits`, of params.hash_mb MiB or, with hash_mb 0 (auto),
    sized for those limits (search/treesize.py)."""
    mb = tree_mb(params, limits or SearchLimits(infinite=True), iterations_per_s, n_players)
    return TreeSearch(params.for_players(n_players).with_(hash_mb=mb), determinize, seed & ((1 << 64) - 1))


def best_edge(edges, seat: int):
    """The search's choice: the most visited edge; on a tie the better mean reward for
    `seat`, then the lower action."""
    return max(edges, key=lambda e: (e.visits, e.mean_reward(seat), -e.action))


def root_visits(tree: TreeSearch, root) -> dict:
    """{action: visits} of the root's edges (every iteration so far, a reused tree's too):
    the visit distribution self-play's policy targets are made of."""
    return {e.action: e.visits for e in tree.node_edges(tree.key_for(root)) or []}


def root_values(tree: TreeSearch, root, seat: int) -> dict:
    """{action: mean reward for `seat`} of the root's edges (0 for an edge never taken)."""
    return {e.action: e.mean_reward(seat) for e in tree.node_edges(tree.key_for(root)) or []}


def turn_goes_on(state, seat: int, turn_round: int) -> bool:
    """True while `seat` still has decisions of the turn it plays in round `turn_round`
    before its own draw. A seat plays one turn a round, so the same seat to move in a later
    round is its next turn: the other seats had nothing to decide in between (RULES.md §10
    skips a decision point with one option), and a line must not run on into it."""
    return (not state.is_terminal() and state.stage != S_DRAW and state.to_move == seat
            and state.round == turn_round)


def most_visited_line(tree: TreeSearch, state, seat: int, turn_round: int | None = None,
                      limit: int = 200):
    """The most visited actions from `state` while `seat`'s turn of round `turn_round`
    (default: `state`'s round) goes on and a node exists: (actions, the state they reach).
    `state` itself is not changed."""
    line = []
    turn_round = state.round if turn_round is None else turn_round
    state = state.copy()
    while len(line) < limit and turn_goes_on(state, seat, turn_round):
        edges = tree.node_edges(tree.key_for(state))
        if not edges:
            break
        edge = best_edge(edges, seat)
        if edge.visits == 0:
            break
        line.append(edge.action)
        state.apply(edge.action)
    return line, state


def continue_turn(tree: TreeSearch, state, seat: int, first: int, limit: int = 200) -> list:
    """`first`, then the most visited actions while `seat`'s turn (the one `state` is in)
    goes on and a node exists."""
    after = state.copy()
    after.apply(first)
    return [first] + most_visited_line(tree, after, seat, state.round, limit - 1)[0]


def gumbel_first(edges: list, choice) -> list:
    """`edges` (best first) with the Gumbel root's choice moved to the front: the action a
    Gumbel search plays, whatever its visits (None: no Gumbel root, `edges` as they are)."""
    if choice is None:
        return edges
    return [e for e in edges if e.action == choice] + [e for e in edges if e.action != choice]


class MCTSSearch(BasePlayer):
    """ISMCTS (params.algorithm == "ismcts") or perfect-information MCTS ("mcts")."""

    def __init__(self, params: SearchParams | None = None):
        self.params = params or SearchParams()
        if self.params.algorithm not in ("ismcts", "mcts"):
            raise ValueError("MCTSSearch runs ismcts or mcts")
        self.determinize = self.params.algorithm == "ismcts"
        self._stop = StopSwitch()
        self._searches = 0
        self.last_tree = None          # the tree of the last search (the analysis core walks it)
        self._last_seat = None
        self.iterations_per_s = None   # the fastest rate measured (sizes an auto Hash's trees)

    def _reusable_tree(self, root, seat, limits):
        """The last search's tree, if it may go on from `root`: reuse is on, the seat is the
        same, the tree holds a node for `root` (the position was searched below the last
        root), at most half the tree's room is used (else a fresh tree is faster to fill) and,
        with an auto Hash, it has room for every node this search can make."""
        tree = self.last_tree
        if (not self.params.reuse_tree or tree is None or seat != self._last_seat
                or tree.fill() > REUSE_MAX_FILL or not tree.has_node(root)
                or not has_room(tree, self.params, limits, self.iterations_per_s)):
            return None
        return tree

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
        with self._stop:
            return self._search(root, seat, limits, callback, top_k, seed)

    def _search(self, root, seat, limits, callback, top_k, seed) -> SearchResult:
        tree = self._reusable_tree(root, seat, limits)
        if tree is not None:
            blended = tree.blends_margin()
            tree.reseed(seed & ((1 << 64) - 1))
            tree.set_root(root, seat)             # (also clears a stop flag left from before)
            if tree.blends_margin() != blended:   # reward=adaptive changed its reward: start afresh
                tree = None
        if tree is None:
            tree = new_tree(self.params, self.determinize, seed, root.n_players, limits,
                            self.iterations_per_s)
            tree.set_root(root, seat)
        self._last_seat = seat
        self.last_tree = tree
        self._start_gumbel(tree, limits)
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
            ran = tree.run(chunk, deadline, limits.visits or 0)
            done += ran
            stats = tree.stats()
            if callback is not None:
                def leader(tree=tree):
                    leaders = self._candidates(tree, root, seat, 1)
                    return leaders[0] if leaders else None
                callback(Progress(done, stats["node_visits"], TreeSearch.clock_ms() - start, leader))
            if ran < chunk or tree.stop_flag:
                break
            if limits.visits and stats["node_visits"] >= limits.visits:
                break
            if deadline and TreeSearch.clock_ms() >= deadline:
                break
        stats = tree.stats()
        candidates = self._candidates(tree, root, seat, top_k)
        elapsed = TreeSearch.clock_ms() - start
        self._measure(done, elapsed)
        return SearchResult(
            seat=seat, best_turn=candidates[0].turn if candidates else [],
            candidates=candidates, iterations=done, nodes=stats["nodes"],
            node_visits=stats["node_visits"], time_ms=elapsed, stats=stats,
            root_visits=root_visits(tree, root), root_values=root_values(tree, root, seat))

    def _start_gumbel(self, tree, limits: SearchLimits) -> None:
        """selection=gumbel: make the root a Gumbel root planned for this search's budget."""
        if self.params.selection == "gumbel":
            budget = iterations_within(limits, self.iterations_per_s or GUMBEL_PLANNING_RATE)
            tree.gumbel_start(int(budget) if budget is not None else GUMBEL_INFINITE_BUDGET)

    def _measure(self, iterations: int, elapsed_ms: float) -> None:
        """Keep the fastest rate seen over a search long enough to time (RATE_MIN_MS)."""
        if elapsed_ms >= RATE_MIN_MS:
            rate = iterations * 1000 / elapsed_ms
            self.iterations_per_s = max(rate, self.iterations_per_s or 0.0)

    def _candidates(self, tree, root, seat, top_k):
        edges = tree.node_edges(tree.key_for(root)) or []
        edges = sorted((e for e in edges if e.visits > 0),
                       key=lambda e: (-e.visits, -e.mean_reward(seat), e.action))
        edges = gumbel_first(edges, tree.gumbel_choice())[:top_k]
        return [Candidate.from_edge(continue_turn(tree, root, seat, e.action), e) for e in edges]
