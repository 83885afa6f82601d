"""Fixed, reproducible mid-game positions for benchmarks and the bench signature.

Each is a seeded new game played by the heuristic rollout policy until a given round starts,
so it looks like real play (a working economy, tiles recruited, cards in hands).
"""

from engine.rng import Rng
from engine.state import State

from ._policy import policy_playout

# (players, deal seed, round to stop at)
BENCH_POSITIONS = ((2, 101, 6), (2, 102, 10), (3, 103, 7), (4, 104, 5), (4, 105, 8), (4, 106, 11))


def midgame(n_players: int, seed: int, round_: int) -> State:
    state = State.new_game(n_players, seed=seed)
    policy_playout(state, ["heuristic"] * n_players, Rng(seed), until_round=round_)
    if state.is_terminal():
        raise ValueError(f"game {n_players}p seed {seed} ended before round {round_}")
    return state


def bench_positions(n_players: int | None = None) -> list:
    return [midgame(n, seed, r) for n, seed, r in BENCH_POSITIONS if n_players in (None, n)]
