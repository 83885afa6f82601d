"""What a seat may know: its view of a state, and the moves so far as it may see them.

Every part that shows a seat the game (the analysis core, the baseline players, `palais
play`, the tournament arbiter, the PRI compliance check) asks here, so no seat is ever shown
another seat's cards by one of them and not by the others.
"""

from __future__ import annotations

from .errors import PalaisError
from .notation import action_to_token


def view_for(state, seat: int):
    """What `seat` knows: the state itself if it already is that seat's view, else its view.
    Another seat's view cannot give it (a PalaisError says so)."""
    if state.observer == seat:
        return state
    if state.observer >= 0:
        raise PalaisError(f"this position is seat {state.observer + 1}'s view; it cannot give "
                          f"seat {seat + 1}'s")
    return state.view(seat)


def seen_by(seat: int, history) -> list:
    """The tokens of `history`, (action, drawer) pairs with drawer the seat that drew a card
    (None for a decision), as `seat` may see them: other seats' draws as `?`."""
    return [action_to_token(action) if drawer in (None, seat) else "?" for action, drawer in history]
