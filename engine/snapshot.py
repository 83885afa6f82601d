"""A plain-Python copy of every field of a game state.

The Cython state and the reference twin both convert to and from this record, so the
notation (position strings), the tests and the differential checks work on one format and
never on either implementation's internals. Per-seat lists have one entry per seat.
"""

from dataclasses import dataclass, fields, replace


@dataclass
class Snapshot:
    n_players: int
    layout: list                 # 9 rooms, grid cell order (row 1 next to the park, left to right)
    tile_at: list                # 36 squares -> tile index (0-based) or -1
    park_servant: list           # 36 squares -> seat or -1
    rooms: list                  # [seat][room] servants
    area: list                   # [seat] servants in the play area
    supply: list                 # [seat] servants in the general supply
    gold: list                   # [seat]
    owner: list                  # [tile] -> seat or -1 (in the park, boxed, or not in the set)
    hand: list                   # [seat][card]; in a seat's view other seats' rows are 0
    hand_size: list              # [seat]
    deck: list                   # [card] draw pile; in a view: every card the observer cannot see
    deck_size: int               # cards in the draw pile
    discard: list                # [card] discard pile (public)
    honours: list                # [seat] HONOUR cards played
    epoch: list                  # [card] make-up of the draw pile at the last reshuffle (start: all)
    drawn_t: list                # [seat][card] drawn since the epoch began (private)
    drawn_n: list                # [seat] drawn since the epoch began (public)
    played_since: list           # [seat][card] played since the epoch began (public)
    round: int = 0               # 0 during setup, then 1, 2, ...
    last_round: int = 0          # 1 once the end has been triggered
    stage: int = 0               # constants.S_*
    to_move: int = 0             # the seat whose turn (or setup placement) it is
    setup_count: int = 0         # setup placements made so far
    gate_left: int = 0           # step 1: servants still to put on the GATE
    gate_max: int = 0            # step 1: the most servants allowed this turn
    moves_left: int = 0          # step 2
    source_for: int = 0          # stage SOURCE: target room, or constants.SOURCE_PARK
    park_target: int = -1        # stage SOURCE for the park: the square
    turq: int = 0                # step 4 pools: turquoise seals, violet seals, recruitments
    viol: int = 0
    rec: int = 0
    guards: int = 0              # servants added to step 1 by GUARDS cards this turn
    moves_bonus: int = 0         # moves added to step 2 by MOVES cards this turn
    intrigue: int = 0            # 1 if INTRIGUE was played this turn
    draws_left: int = 0          # step 5
    observer: int = -1           # -1: the whole state; else the seat whose view this is

    def copy(self) -> "Snapshot":
        out = replace(self)
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, list):
                setattr(out, f.name, [list(x) if isinstance(x, list) else x for x in v])
        return out


SNAPSHOT_FIELDS = tuple(f.name for f in fields(Snapshot))
