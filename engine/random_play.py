"""Uniformly random play, the same in both rules implementations.

A decision takes a uniformly random legal action; a chance event draws a card type with the
pile's probabilities. For a seed, the Cython `State.playout` plays exactly the game that
`random_playout` plays here through either implementation (the tests check it), which lets
the benchmark compare the two on the same games.
"""

from .constants import A_DRAW
from .determinize import weighted_pick


def random_action(state, rng) -> int:
    if state.is_chance() and not (0 <= state.observer != state.to_move):
        return A_DRAW + weighted_pick(state.deck_counts(), rng)
    legal = state.legal_actions()
    return legal[rng.below(len(legal))]


def random_playout(state, rng) -> int:
    """Play `state` to the end in place; returns the number of actions applied."""
    steps = 0
    while not state.is_terminal():
        state.apply(random_action(state, rng))
        steps += 1
    return steps
