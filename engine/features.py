"""The observation vector of a seat: everything that seat may know of a position, nothing
it may not, as a fixed-length float32 numpy vector for learned models and research
environments.

The vector is computed in C from the seat's view (engine/_features.pyx); this module is its
Python API and names every entry, so a vector can be read and debugged. The layout and the
scales are documented in docs/features.md; feature_names() follows it entry by entry.
"""

from __future__ import annotations

import numpy as np

from ._features import feature_size, observation_into
from .constants import CARDS, MAX_PLAYERS, N_ROOMS, N_SQUARES, PRIVILEGES, ROOMS, SIDE_NAMES, \
    SQUARE_NAMES, STAGES
from .state import State

FEATURE_SIZE = feature_size()

__all__ = ["FEATURE_SIZE", "feature_names", "observation", "observation_into"]


def _global_names() -> list:
    names = [f"players.{n}" for n in (2, 3, 4)]
    names += ["round", "last_round"]
    names += [f"stage.{name}" for name in STAGES]
    names += ["setup_count", "gate_left", "gate_max", "moves_left"]
    names += [f"source_for.{room}" for room in ROOMS] + ["source_for.PARK"]
    names += ["pool.turquoise", "pool.violet", "pool.recruitments", "guards", "moves_bonus",
              "intrigue", "draws_left", "tiles_in_park", "deck_size"]
    names += [f"unknown.{card}" for card in CARDS]
    names += [f"discard.{card}" for card in CARDS]
    names += [f"hand.{card}" for card in CARDS]
    names += [f"layout.cell{cell + 1}.{room}" for cell in range(N_ROOMS) for room in ROOMS]
    return names


def _seat_names(rel: int) -> list:
    who = "self" if rel == 0 else f"next{rel}"
    names = ["present", "to_move"]
    names += [f"rooms.{room}" for room in ROOMS]
    names += [f"majority.{room}" for room in ROOMS]
    names += ["area", "supply", "gold", "hand_size", "honours", "nobles", "nobles_vp"]
    names += [f"privilege.{name}" for name in PRIVILEGES[1:]]
    names += ["park_servants"] + [f"side.{name}" for name in SIDE_NAMES] + ["score"]
    return [f"{who}.{name}" for name in names]


def _square_names(sq: int) -> list:
    names = ["tile", "vp", "gold", "turquoise", "violet"]
    names += [f"privilege.{name}" for name in PRIVILEGES[1:]] + ["amount"]
    names += ["servant.self"] + [f"servant.next{rel}" for rel in range(1, MAX_PLAYERS)]
    return [f"{SQUARE_NAMES[sq]}.{name}" for name in names]


_NAMES = tuple(_global_names()
               + [name for rel in range(MAX_PLAYERS) for name in _seat_names(rel)]
               + [name for sq in range(N_SQUARES) for name in _square_names(sq)])
assert len(_NAMES) == FEATURE_SIZE, "feature_names() and engine/_features.pyx disagree"


def feature_names() -> tuple:
    """One name per entry of the vector, in order (docs/features.md explains each)."""
    return _NAMES


def observation(state, seat: int) -> np.ndarray:
    """`seat`'s observation of `state` (a full state or that seat's own view; a
    ReferenceState is read through its snapshot) as a new float32 array of FEATURE_SIZE."""
    if not isinstance(state, State):
        state = State.from_snapshot(state.snapshot(), state.components, state.options)
    out = np.zeros(FEATURE_SIZE, dtype=np.float32)
    observation_into(state, seat, out)
    return out
