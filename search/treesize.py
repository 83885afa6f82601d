"""How much memory a search tree gets: the Hash option (`hash_mb`), or with `hash_mb` 0
("auto") as much as the search's own budget can fill.

The tree gains at most one node per iteration (search/_ismcts.pyx) and stops growing when its
arrays are full, so a fixed bound stops a long search from learning anything new below the
nodes it already has. Auto sizes the tree for the iterations the search's limits allow: its
iteration limit, or its time x the searcher's measured iterations per second, times
AUTO_ROOM (a reused tree, at most half full, still has room for the next search), never
below AUTO_FLOOR_MB (the old fixed default, so auto is never smaller) and never above what
the machine can hold per search process (params.tree_memory_cap_mb). The arrays are
allocated lazily by the system: memory is only used as nodes are made.
"""

from __future__ import annotations

from ._ismcts import MAX_PLAYERS, TreeSearch
from .params import SearchLimits, SearchParams, tree_memory_cap_mb

AUTO_FLOOR_MB = 64
AUTO_ROOM = 2
# Iterations per second assumed before a searcher has measured its own: above what
# bench/search.py measures at any player count on the development machine, so a first
# search's tree is sized too large rather than too small.
PRIOR_ITERATIONS_PER_S = 200_000
AUTO_INFINITE_MB = 1024       # a search only stop() ends (go infinite): about 25 s of 4 players


def iterations_within(limits: SearchLimits, iterations_per_s: float | None) -> float | None:
    """The most iterations `limits` let a search run at `iterations_per_s` (None: unknown,
    the prior); None when only stop() ends it. Node visits bound iterations too (each
    iteration walks at least the root)."""
    bounds = [b for b in (limits.iterations, limits.visits) if b]
    if limits.time_ms:
        bounds.append(limits.time_ms / 1000 * (iterations_per_s or PRIOR_ITERATIONS_PER_S))
    return min(bounds) if bounds else None


def node_bytes(params: SearchParams, n_players: int = MAX_PLAYERS) -> int:
    """The bytes a node of a tree of `n_players` with `params` provisions: with priors for
    puct/gumbel, with win sums unless reward=win (reward=adaptive keeps them only if its
    first root blends the margin: this is the larger size; search/_ismcts.pyx, top)."""
    return TreeSearch.bytes_per_node(params.selection != "uct", n_players, params.reward != "win")


def tree_mb(params: SearchParams, limits: SearchLimits, iterations_per_s: float | None = None,
            n_players: int = MAX_PLAYERS) -> int:
    """The tree memory in MiB of a search of an `n_players` game with `params` within
    `limits`: params.hash_mb, or with hash_mb 0 (auto) room for AUTO_ROOM x the nodes the
    search can make."""
    if params.hash_mb:
        return params.hash_mb
    cap = tree_memory_cap_mb(params.processes)
    iterations = iterations_within(limits, iterations_per_s)
    if iterations is None:
        return min(cap, AUTO_INFINITE_MB)
    per_node = node_bytes(params, n_players)
    wanted = -(-int(AUTO_ROOM * iterations * per_node) // (1 << 20))
    return max(1, min(cap, max(AUTO_FLOOR_MB, wanted)))


def has_room(tree, params: SearchParams, limits: SearchLimits, iterations_per_s: float | None) -> bool:
    """True if `tree` can take every node a search within `limits` makes (always true with a
    fixed hash_mb, or a search only stop() ends: there a tree is reused as it is)."""
    iterations = iterations_within(limits, iterations_per_s)
    if params.hash_mb or iterations is None:
        return True
    stats = tree.stats()
    return stats["node_capacity"] - stats["nodes"] >= iterations
