"""Random full-game playouts per second through the Cython state and the reference twin.

Prints, for 2, 3 and 4 players, playouts per second and ns per action through the Cython
state (each game played entirely in C), the twin's rate on the same games, and the cost of
one legal_actions and one apply call measured on real positions. The last line is exactly
`rollouts_per_s_4p=<N> twin_ratio=<R>`: N is Cython playouts/s with 4 players, R is how many
times faster the Cython state plays the very same 4-player games than the twin.

Uniformly random play often stalls until the round cap; that is measured as it is.
Rates are per CPU-second of this process (time.process_time), the unit of issue 27's target,
so another program sharing the processor slows them less than it would wall-clock rates.
Run: python bench/rollouts.py [--games 2000] [--twin-games 20] [--seed 1]
"""

import argparse
import time

from engine.random_play import random_action, random_playout
from engine.reference import ReferenceState
from engine.rng import Rng
from engine.state import State
from engine._microbench import time_operations


def cython_rate(starts, seeds, repeats=1):
    """(seconds per game, actions per game) playing each start from its own seed."""
    steps = 0
    t0 = time.process_time()
    for _ in range(repeats):
        for start, seed in zip(starts, seeds):
            steps += start.copy().playout(Rng(seed))
    elapsed = time.process_time() - t0
    games = len(starts) * repeats
    return elapsed / games, steps / games


def twin_rate(n_players, game_seeds, rng_seeds):
    starts = [ReferenceState.new_game(n_players, seed=s) for s in game_seeds]
    steps = 0
    t0 = time.process_time()
    for start, seed in zip(starts, rng_seeds):
        steps += random_playout(start, Rng(seed))
    elapsed = time.process_time() - t0
    return elapsed / len(starts), steps / len(starts)


def sample_positions(n_players, games, seed):
    """Positions met in random games, with the action played from each."""
    states, actions = [], []
    for g in range(games):
        state = State.new_game(n_players, seed=seed + g)
        rng = Rng(seed + g)
        while not state.is_terminal():
            action = random_action(state, rng)
            states.append(state.copy())
            actions.append(action)
            state.apply(action)
    return states, actions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="Cython games per player count")
    parser.add_argument("--twin-games", type=int, default=20, help="games played by the twin per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"{'players':>7} {'cython games/s':>15} {'ns/action':>10} {'actions/game':>13} "
          f"{'twin games/s':>13} {'ratio':>7}")
    figures = {}
    for n in (2, 3, 4):
        game_seeds = [args.seed * 100000 + n * 10000 + i for i in range(args.games)]
        rng_seeds = [s ^ 0x5A5A for s in game_seeds]
        starts = [State.new_game(n, seed=s) for s in game_seeds]
        per_game, actions = cython_rate(starts, rng_seeds)
        # the twin's games, and the Cython state on exactly those games
        k = args.twin_games
        twin_per_game, _ = twin_rate(n, game_seeds[:k], rng_seeds[:k])
        same_per_game, _ = cython_rate(starts[:k], rng_seeds[:k], repeats=max(1, 2000 // k))
        ratio = twin_per_game / same_per_game
        figures[n] = (1.0 / per_game, ratio)
        print(f"{n:>7} {1.0 / per_game:>15.0f} {per_game / actions * 1e9:>10.1f} {actions:>13.1f} "
              f"{1.0 / twin_per_game:>13.1f} {ratio:>7.1f}")

    states, actions = sample_positions(4, 10, args.seed)
    ns_legal, ns_apply = time_operations(states, actions, 20)
    print(f"4 players, {len(states)} positions: {ns_legal:.1f} ns per legal_actions, "
          f"{ns_apply:.1f} ns per apply (automatic steps included)")
    print(f"rollouts_per_s_4p={figures[4][0]:.0f} twin_ratio={figures[4][1]:.0f}")


if __name__ == "__main__":
    main()
