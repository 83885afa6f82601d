"""The card draws of a deal: one seeded stream that every game loop draws from.

A deal seed fixes the tiles, the layout and (through this stream) every card drawn, so the
same deal replayed with the seats swapped gives each player the same luck. The tournament
arbiter, self-play and `palais play` all draw here: if they each wrote the formula, a change
to one would quietly make their deals differ.
"""

from __future__ import annotations

from .constants import A_DRAW
from .determinize import weighted_pick
from .errors import PalaisError
from .rng import Rng


class ChanceStream:
    """The draws of the deal `deal_seed`. A game reloaded after `resumed_after` actions
    cannot know how far the stream had gone, so it draws from a fresh stream of its own
    (one per length of the game so far); a new game has resumed_after 0."""

    def __init__(self, deal_seed: int, resumed_after: int = 0):
        self.rng = Rng(deal_seed * 1_000_003 + 17 + 7_919 * resumed_after)

    def draw(self, state) -> int:
        """The draw action for the card draw due in `state`, weighted by the pile's counts."""
        if not state.is_chance():
            raise PalaisError("no card draw is due")
        return A_DRAW + weighted_pick(state.deck_counts(), self.rng)
