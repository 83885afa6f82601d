"""The start of a game (RULES.md §2 steps 1-6): the deal, the layout and the first snapshot.

Both rules implementations start from the snapshot built here, so a seed deals the same game
in either. Step 7 (the five free placements per seat) is played as decisions.
"""

from .constants import (
    FIRST_GAME_LAYOUT, MAX_PLAYERS, MIN_PLAYERS, N_CARDS, N_ROOMS, N_SQUARES, PARADE, S_SETUP,
    SERVANTS_PER_COLOUR, SERVANTS_TO_PLAY_AREA, SETUP_PARADE, SETUP_STAIRS, STAIRS, START_GOLD,
)
from .errors import PalaisError
from .rng import Rng
from .snapshot import Snapshot


def make_deal(n_tiles: int, seed: int, first_game: bool = False, deal=None, layout=None):
    """(tiles on squares a1..f6, layout) from a seed, unless given explicitly (then checked)."""
    rng = Rng(seed)
    if deal is None:
        order = list(range(n_tiles))
        rng.shuffle(order)
        deal = order[:N_SQUARES]
    else:
        deal = [int(t) for t in deal]
        if len(deal) != N_SQUARES:
            raise PalaisError(f"a deal names {N_SQUARES} tiles, got {len(deal)}")
        bad = [t for t in deal if not 0 <= t < n_tiles]
        if bad:
            raise PalaisError(f"tile index {bad[0]} is not in the component set (0..{n_tiles - 1})")
        if len(set(deal)) != N_SQUARES:
            raise PalaisError("a deal names a tile twice")
    if layout is None:
        if first_game:
            layout = list(FIRST_GAME_LAYOUT)
        else:
            layout = list(range(N_ROOMS))
            rng.shuffle(layout)
    else:
        layout = [int(r) for r in layout]
        if sorted(layout) != list(range(N_ROOMS)):
            raise PalaisError("a layout names each of the 9 rooms exactly once")
    return deal, layout


def initial_snapshot(n_players: int, seed: int, components, first_game=False, deal=None, layout=None) -> Snapshot:
    if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise PalaisError(f"Palais Royal is played by 2, 3 or 4 players, not {n_players}")
    n_tiles = len(components.tiles)
    deal, layout = make_deal(n_tiles, seed, first_game, deal, layout)
    rooms = []
    for _ in range(n_players):
        row = [0] * N_ROOMS
        row[STAIRS] = SETUP_STAIRS
        row[PARADE] = SETUP_PARADE
        rooms.append(row)
    cards = list(components.cards_per_type)
    return Snapshot(
        n_players=n_players,
        layout=layout,
        tile_at=list(deal),
        park_servant=[-1] * N_SQUARES,
        rooms=rooms,
        area=[SERVANTS_TO_PLAY_AREA - SETUP_STAIRS - SETUP_PARADE] * n_players,
        supply=[SERVANTS_PER_COLOUR - SERVANTS_TO_PLAY_AREA] * n_players,
        gold=list(START_GOLD[:n_players]),
        owner=[-1] * n_tiles,
        hand=[[0] * N_CARDS for _ in range(n_players)],
        hand_size=[0] * n_players,
        deck=list(cards),
        deck_size=sum(cards),
        discard=[0] * N_CARDS,
        honours=[0] * n_players,
        epoch=list(cards),
        drawn_t=[[0] * N_CARDS for _ in range(n_players)],
        drawn_n=[0] * n_players,
        played_since=[[0] * N_CARDS for _ in range(n_players)],
        round=0,
        stage=S_SETUP,
        to_move=0,
    )
