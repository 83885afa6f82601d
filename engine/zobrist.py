"""Zobrist keys without tables: each (field, index, value) triple is hashed by SplitMix64.

What the key covers: every field of the state that can differ between two positions of one
game (rooms, park, gold, play areas, supplies, owners, hands, card piles' public counts, the
epoch bookkeeping, the turn stage and its counters, the round). What it leaves out: the
component set and rule options (fixed for a game), the deck's per-type counts (derived from
the rest: every card is in the deck, a hand, the discard pile or an HONOUR row), the cached
privilege counts (derived from tile owners) and `observer`.

Hands and per-type draw counts are a player's private part; `info_key(seat)` leaves out
every other seat's private part, so it names the seat's information set.
The Cython state keeps the key incrementally and mirrors `z` in C; the reference twin
computes it from scratch with `full_key`.
"""

from .rng import mix64, GOLDEN, MASK64

SEED = 0x9A1A15E0D0C5EED1

# Field ids. The comment says the index and the value hashed.
F_LAYOUT = 1          # cell -> room
F_NPLAYERS = 2        # 0 -> n
F_TILE_AT = 3         # square -> tile index or -1
F_PARK_SERVANT = 4    # square -> seat or -1
F_ROOMS = 5           # seat*9+room -> servants
F_AREA = 6            # seat -> servants in play area
F_SUPPLY = 7          # seat -> servants in general supply
F_GOLD = 8            # seat -> gold
F_OWNER = 9           # tile -> seat or -1
F_HAND = 10           # seat*9+card -> count            (private)
F_HAND_SIZE = 11      # seat -> cards in hand
F_DECK_SIZE = 12      # 0 -> cards in draw pile
F_DISCARD = 13        # card -> count in discard pile
F_HONOURS = 14        # seat -> HONOUR cards played
F_EPOCH = 15          # card -> count in the pile at the last reshuffle (or the start)
F_DRAWN_T = 16        # seat*9+card -> drawn since the epoch began (private)
F_DRAWN_N = 17        # seat -> cards drawn since the epoch began
F_PLAYED_SINCE = 18   # seat*9+card -> played since the epoch began
F_ROUND = 19
F_LAST_ROUND = 20
F_STAGE = 21
F_TO_MOVE = 22
F_SETUP_COUNT = 23
F_GATE_LEFT = 24
F_GATE_MAX = 25
F_MOVES_LEFT = 26
F_SOURCE_FOR = 27
F_PARK_TARGET = 28
F_TURQ = 29
F_VIOL = 30
F_REC = 31
F_GUARDS = 32
F_MOVES_BONUS = 33
F_INTRIGUE = 34
F_DRAWS_LEFT = 35


def z(field: int, index: int, value: int) -> int:
    """The key of one (field, index, value) triple; value is taken modulo 2^24."""
    x = SEED ^ (field << 40) ^ (index << 24) ^ (value & 0xFFFFFF)
    return mix64((x + GOLDEN) & MASK64)


# (field, snapshot attribute) pairs for the scalar fields, hashed at index 0.
SCALAR_FIELDS = (
    (F_NPLAYERS, "n_players"), (F_DECK_SIZE, "deck_size"), (F_ROUND, "round"),
    (F_LAST_ROUND, "last_round"), (F_STAGE, "stage"), (F_TO_MOVE, "to_move"),
    (F_SETUP_COUNT, "setup_count"), (F_GATE_LEFT, "gate_left"), (F_GATE_MAX, "gate_max"),
    (F_MOVES_LEFT, "moves_left"), (F_SOURCE_FOR, "source_for"),
    (F_PARK_TARGET, "park_target"), (F_TURQ, "turq"), (F_VIOL, "viol"), (F_REC, "rec"),
    (F_GUARDS, "guards"), (F_MOVES_BONUS, "moves_bonus"), (F_INTRIGUE, "intrigue"),
    (F_DRAWS_LEFT, "draws_left"),
)
# Flat per-index lists: (field, attribute).
LIST_FIELDS = (
    (F_LAYOUT, "layout"), (F_TILE_AT, "tile_at"), (F_PARK_SERVANT, "park_servant"),
    (F_AREA, "area"), (F_SUPPLY, "supply"), (F_GOLD, "gold"), (F_OWNER, "owner"),
    (F_HAND_SIZE, "hand_size"), (F_DISCARD, "discard"), (F_HONOURS, "honours"),
    (F_EPOCH, "epoch"), (F_DRAWN_N, "drawn_n"),
)
# Per-seat lists of 9 (seat*9+i): (field, attribute).
SEAT_FIELDS = ((F_ROOMS, "rooms"), (F_PLAYED_SINCE, "played_since"))
PRIVATE_FIELDS = ((F_HAND, "hand"), (F_DRAWN_T, "drawn_t"))


def private_key(snap, seat: int) -> int:
    key = 0
    for field, attr in PRIVATE_FIELDS:
        row = getattr(snap, attr)[seat]
        for i, v in enumerate(row):
            key ^= z(field, seat * 9 + i, v)
    return key


def public_key(snap) -> int:
    key = 0
    for field, attr in SCALAR_FIELDS:
        key ^= z(field, 0, getattr(snap, attr))
    for field, attr in LIST_FIELDS:
        for i, v in enumerate(getattr(snap, attr)):
            key ^= z(field, i, v)
    for field, attr in SEAT_FIELDS:
        for seat, row in enumerate(getattr(snap, attr)):
            for i, v in enumerate(row):
                key ^= z(field, seat * 9 + i, v)
    return key


def full_key(snap) -> int:
    """The from-scratch key of a whole state (all private parts included)."""
    key = public_key(snap)
    for seat in range(snap.n_players):
        key ^= private_key(snap, seat)
    return key


def info_key(snap, seat: int) -> int:
    """The key of `seat`'s information set: the public part and his own private part."""
    return public_key(snap) ^ private_key(snap, seat)
