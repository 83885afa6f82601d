"""The knobs of every search, in one place: one commented line per parameter, and the limits.

A search is reproducible: the same params (seed included), position and iteration limit give
the same result on one machine. Time limits depend on the machine's speed, by nature.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from engine.errors import PalaisError

ALGORITHMS = ("ismcts", "mcts", "pimc", "greedy", "random")
ROLLOUT_POLICIES = ("heuristic", "uniform")
REWARDS = ("win", "margin", "dynamic")
FIRST_PLAYS = ("random", "policy")


@dataclass(frozen=True)
class SearchParams:
    algorithm: str = "ismcts"          # ismcts | mcts (perfect information: needs the true state) | pimc | greedy | random
    exploration: float = 0.7           # UCB1 exploration constant c (rewards are in [0, 1])
    rollout_policy: str = "heuristic"  # heuristic (keeps an economy going) | uniform (stalls: see RULES.md §7)
    rollout_turns: int = -1            # -1: to the end of the game (strongest at equal time: docs/search.md) | N: N turns, then evaluate
    eval_temperature: float = 8.0      # VP scale of the softmax that turns estimated scores into rewards
    reward: str = "margin"             # win: 1 shared among the winners | margin: blended with the VP margin over the best other seat | dynamic: the margin centred on the static evaluation's expectation
    margin_weight: float = 0.5         # with reward=margin: the weight of the margin part
    margin_scale: float = 30.0         # with reward=margin/dynamic: the VP margin that earns 3/4 of the margin part
    first_play: str = "policy"         # which untried action a node tries first: policy (the rollout policy's choice, then random) | random
    decision_share: float = 0.0        # a turn's budget: 0 = one search, its line played | x = a search at each decision with x of what is left (search/timeman.py)
    reuse_tree: bool = True            # a search from a position the last search's tree holds goes on with that subtree
    hash_mb: int = 64                  # tree memory bound in MiB (like UCI's Hash); a full tree stops growing
    determinizations: int = 8          # pimc: how many worlds share the budget
    processes: int = 1                 # ismcts/mcts: root-parallel search over this many processes
    seed: int = 0                      # seeds every random choice of the search

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise PalaisError(f"search algorithm {self.algorithm!r} is not one of {', '.join(ALGORITHMS)}")
        if self.rollout_policy not in ROLLOUT_POLICIES:
            raise PalaisError(f"rollout policy {self.rollout_policy!r} is not one of {', '.join(ROLLOUT_POLICIES)}")
        if self.reward not in REWARDS:
            raise PalaisError(f"reward {self.reward!r} is not one of {', '.join(REWARDS)}")
        if self.first_play not in FIRST_PLAYS:
            raise PalaisError(f"first_play {self.first_play!r} is not one of {', '.join(FIRST_PLAYS)}")
        if not 0 <= self.exploration <= 10:
            raise PalaisError("exploration must be in 0..10")
        if self.rollout_turns < -1:
            raise PalaisError("rollout_turns must be -1 (to the end) or >= 0")
        if not self.eval_temperature > 0:
            raise PalaisError("eval_temperature must be > 0")
        if not 0 <= self.decision_share <= 1:
            raise PalaisError("decision_share must be in 0..1")
        if not 0 < self.margin_scale <= 1000:
            raise PalaisError("margin_scale must be in (0, 1000]")
        if not 0 <= self.margin_weight <= 1:
            raise PalaisError("margin_weight must be in 0..1")
        if not 1 <= self.hash_mb <= 65536:
            raise PalaisError("hash_mb must be in 1..65536")
        if not 1 <= self.processes <= 256:
            raise PalaisError("processes must be in 1..256")
        if not 1 <= self.determinizations <= 1024:
            raise PalaisError("determinizations must be in 1..1024")


    def with_(self, **changes) -> "SearchParams":
        return replace(self, **changes)

    @classmethod
    def preset(cls, name: str, **changes) -> "SearchParams":
        """The named set of defaults (PRESETS), with `changes` on top."""
        if name not in PRESETS:
            raise PalaisError(f"search preset {name!r} is not one of {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], **changes})


# Named sets of defaults, so an earlier engine stays reachable for comparisons (bench/tune.py
# `--b preset=classic`): "current" is today's defaults; "classic" the defaults before the
# reward kept direction for a seat that can no longer win (the 0/1 win reward).
PRESETS = {
    "current": {},
    "classic": {"reward": "win", "margin_scale": 8.0, "reuse_tree": False, "decision_share": 0.0},
}


def tree_memory_cap_mb(processes: int = 1) -> int:
    """The most tree memory (`hash_mb`) each of `processes` search processes may take on this
    machine: half its physical memory, shared among them; at least 1. Every process
    allocates its own tree, and the other half is left to everything else."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):     # not known here: no cap below the range
        return 65536
    return max(1, (total // 2 // max(1, processes)) >> 20)


@dataclass(frozen=True)
class SearchLimits:
    """When a search stops: the first limit reached, or stop(). None means no such limit."""

    iterations: int | None = None      # iterations (one determinization + one rollout each)
    nodes: int | None = None           # tree decisions walked, summed over iterations
    time_ms: float | None = None       # wall time
    infinite: bool = False             # only stop() ends it

    def __post_init__(self):
        for name in ("iterations", "nodes", "time_ms"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise PalaisError(f"search limit {name} must be > 0")
        if not self.infinite and self.iterations is None and self.nodes is None and self.time_ms is None:
            raise PalaisError("a search needs a limit: iterations, nodes, time_ms or infinite")
