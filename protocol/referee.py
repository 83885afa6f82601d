"""What a referee tells an engine about the game: the public setup written out, and the moves
as the engine's seat may see them. Never the deal's seed.

The tournament arbiter and the engine seats of `palais play` and `palais serve` send every
position through `start_position`, so they cannot differ in what they give away. The tiles
and layout are public (every seat sees the board), so they are sent as they are; the seed they
were dealt from is not, because a seed is something to expand, and the card draws are keyed
by a secret the engine never receives (engine/chance.py; docs/protocol.md, "What an engine is
told").
"""

from __future__ import annotations

from engine.constants import ROOMS

from .commands import PositionStart


def start_position(start, moves=()) -> PositionStart:
    """The `position start` for a game that began at the state `start` (before any action),
    followed by `moves` (tokens, others' draws already `?` for the seat being told)."""
    snap = start.snapshot()
    tiles = start.components.tiles
    return PositionStart(players=start.n_players,
                         layout=tuple(ROOMS[r] for r in snap.layout),
                         deal=tuple(tiles[t].number for t in snap.tile_at),
                         options=start.options.changed_pairs(),
                         moves=tuple(moves))
