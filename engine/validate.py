"""What a Snapshot must satisfy before the rules core may run it.

The Cython core (engine/_state.pyx) trusts its struct: it indexes arrays by seats, rooms,
tiles and squares, keeps 8-bit counters and assumes the bookkeeping of a real game. A
Snapshot can come from anywhere (a position string, a test, a program using the API), so
`check_snapshot` is run on every one at construction, before a single field reaches C. It
checks, naming the Snapshot field and why:

- shape and types: every list has its length, every value is an int;
- ranges: seats, rooms, squares, tiles and stages exist; every count is within what a game
  can hold (servants per colour, cards of the set, gold, round, the turn counters), with
  room to grow through the rest of the game without overflowing the 8-bit counters;
- the accounting of RULES.md §1: 25 servants per colour, every card of the set in exactly
  one place (in a view: the viewer's unknown pool), the card-draw bookkeeping of the epoch;
- the stage against the counters: setup placements, round, the seat to move, and what the
  stage itself needs (moves left in MOVES, a valid target in SOURCE).

Whether the stage is one where the game waits for a decision, and that the decision has a
legal option, needs the rules themselves: the core checks that after loading.
"""

from __future__ import annotations

from .constants import (
    BORDER, CARDS, C_HONOUR, GATE, KING, MADAME, MAX_GATE, MAX_PLAYERS, MIN_PLAYERS,
    N_CARDS, N_ROOMS, N_SQUARES, SERVANTS_PER_COLOUR, SETUP_FREE_PLACEMENTS, SOURCE_PARK,
    STAGES, S_MOVES, S_SETUP, S_SOURCE,
)
from .errors import PalaisError
from .options import MAX_ROUND_CAP

MAX_GOLD = 1_000_000          # far above any game's gold, far below the 32-bit counter
MAX_ROUND = MAX_ROUND_CAP     # no game goes past the largest round_cap
ONLOOKER = MAX_PLAYERS        # the observer of State.public_view(): no seat
# The largest value of each turn counter (8-bit in the core). The pools (turq, viol, rec),
# the card bonuses and the moves still grow during a turn by privileges and cards, so
# their limits leave that room.
TURN_COUNTER_MAX = {
    "gate_left": MAX_GATE, "gate_max": MAX_GATE, "moves_left": 100,
    "source_for": SOURCE_PARK, "park_target": N_SQUARES - 1, "turq": 50, "viol": 50,
    "rec": 50, "guards": 16, "moves_bonus": 16, "intrigue": 1, "draws_left": 100,
}
# Placement targets a SOURCE decision can be for (RULES.md §3): the GATE (step 1), the KING
# and MADAME bonus servants, and the park servant of a border tile.
SOURCE_TARGETS = (GATE, KING, MADAME, SOURCE_PARK)


class SnapshotError(PalaisError):
    """A Snapshot the core cannot run; `field` names the Snapshot field, `why` says why."""

    def __init__(self, field: str, why: str):
        super().__init__(f"snapshot field {field!r}: {why}")
        self.field = field
        self.why = why


def _fail(field: str, why: str):
    raise SnapshotError(field, why)


def _int(field: str, value, low: int, high: int, where: str = "") -> int:
    if not isinstance(value, int):
        _fail(field, f"{where}expected an integer, got {type(value).__name__}")
    if not low <= value <= high:
        _fail(field, f"{where}{value} is out of range ({low}..{high})")
    return value


def _row(field: str, value, length: int, low: int, high, where: str = "") -> list:
    """A list of `length` ints, each in low..high (high: an int, or a list per index)."""
    if not isinstance(value, (list, tuple)) or len(value) != length:
        got = len(value) if isinstance(value, (list, tuple)) else type(value).__name__
        _fail(field, f"{where}expected a list of {length} integers, got {got}")
    for i, v in enumerate(value):
        _int(field, v, low, high[i] if isinstance(high, (list, tuple)) else high,
             f"{where}entry {i + 1}: ")
    return list(value)


def _table(field: str, value, n: int, length: int, low: int, high) -> list:
    """Per seat, a row of `length` ints."""
    if not isinstance(value, (list, tuple)) or len(value) != n:
        _fail(field, f"expected one row per seat ({n})")
    return [_row(field, row, length, low, high, f"seat {q + 1}, ") for q, row in enumerate(value)]


def check_snapshot(snap, components) -> None:
    """SnapshotError unless `snap` is a position the core can hold and run (see the top)."""
    n = _int("n_players", snap.n_players, MIN_PLAYERS, MAX_PLAYERS)
    observer = snap.observer
    if observer != ONLOOKER:
        observer = _int("observer", observer, -1, n - 1)
    tile_at, park_servant = _check_board(snap, n, len(components.tiles))
    area = _check_servants(snap, n, park_servant)
    _check_cards(snap, n, observer, list(components.cards_per_type))
    _check_stage(snap, n, area, tile_at, park_servant)


def _check_board(snap, n: int, n_tiles: int):
    """The layout, the tiles on the park and their owners; returns (tile_at, park_servant)."""
    layout = _row("layout", snap.layout, N_ROOMS, 0, N_ROOMS - 1)
    if sorted(layout) != list(range(N_ROOMS)):
        _fail("layout", "each of the 9 rooms must appear exactly once")
    tile_at = _row("tile_at", snap.tile_at, N_SQUARES, -1, n_tiles - 1)
    park_servant = _row("park_servant", snap.park_servant, N_SQUARES, -1, n - 1)
    owner = _row("owner", snap.owner, n_tiles, -1, n - 1)
    seen = set()
    for sq in range(N_SQUARES):
        t = tile_at[sq]
        if t >= 0:
            if t in seen:
                _fail("tile_at", f"tile {t + 1} lies on two squares")
            seen.add(t)
            if owner[t] >= 0:
                _fail("owner", f"tile {t + 1} is owned by seat {owner[t] + 1} and in the park")
    return tile_at, park_servant


def _check_servants(snap, n: int, park_servant) -> list:
    """Rooms, play areas, supplies and gold; each seat's 25 servants; returns the play areas."""
    rooms = _table("rooms", snap.rooms, n, N_ROOMS, 0, SERVANTS_PER_COLOUR)
    area = _row("area", snap.area, n, 0, SERVANTS_PER_COLOUR)
    supply = _row("supply", snap.supply, n, 0, SERVANTS_PER_COLOUR)
    _row("gold", snap.gold, n, 0, MAX_GOLD)
    for q in range(n):
        total = sum(rooms[q]) + area[q] + supply[q] + park_servant.count(q)
        if total != SERVANTS_PER_COLOUR:
            _fail("rooms", f"seat {q + 1} has {total} servants in rooms, play area, supply "
                           f"and park, expected {SERVANTS_PER_COLOUR}")
    return area


def _check_cards(snap, n: int, observer: int, per_type: list) -> None:
    """Hands, piles, the epoch bookkeeping, and where each card of the set is (in a view,
    the viewer's unknown pool)."""
    n_cards = sum(per_type)

    def hidden(q: int) -> bool:
        return observer >= 0 and q != observer

    hand = _table("hand", snap.hand, n, N_CARDS, 0, per_type)
    hand_size = _row("hand_size", snap.hand_size, n, 0, n_cards)
    deck = _row("deck", snap.deck, N_CARDS, 0, per_type)
    deck_size = _int("deck_size", snap.deck_size, 0, n_cards)
    discard = _row("discard", snap.discard, N_CARDS, 0, per_type)
    honours = _row("honours", snap.honours, n, 0, per_type[C_HONOUR])
    epoch = _row("epoch", snap.epoch, N_CARDS, 0, per_type)
    drawn_t = _table("drawn_t", snap.drawn_t, n, N_CARDS, 0, per_type)
    drawn_n = _row("drawn_n", snap.drawn_n, n, 0, n_cards)
    played = _table("played_since", snap.played_since, n, N_CARDS, 0, per_type)
    for q in range(n):
        if hidden(q):
            if any(hand[q]) or any(drawn_t[q]):
                _fail("hand", f"seat {q + 1}'s cards are hidden in this view, but its hand or "
                              f"drawn row is not all zero")
        else:
            if sum(hand[q]) != hand_size[q]:
                _fail("hand_size", f"seat {q + 1} holds {sum(hand[q])} cards, its size says "
                                   f"{hand_size[q]}")
            if sum(drawn_t[q]) != drawn_n[q]:
                _fail("drawn_n", f"seat {q + 1} drew {sum(drawn_t[q])} cards by type, its "
                                 f"count says {drawn_n[q]}")
    for c in range(N_CARDS):
        kept = sum(honours) if c == C_HONOUR else 0
        held = sum(hand[q][c] for q in range(n))
        if observer < 0:
            where = deck[c] + held + discard[c] + kept
            if where != per_type[c]:
                _fail("deck", f"card {CARDS[c]}: pile {deck[c]} + hands {held} + discard "
                              f"{discard[c]} + honours {kept} = {where}, the set has {per_type[c]}")
            drawn = sum(drawn_t[q][c] for q in range(n))
            if drawn > epoch[c]:
                _fail("drawn_t", f"card {CARDS[c]}: {drawn} drawn since the last reshuffle, but "
                                 f"the pile then held {epoch[c]}")
        else:   # a view: `deck` is the unknown pool
            pool = per_type[c] - held - discard[c] - kept
            if deck[c] != pool:
                _fail("deck", f"card {CARDS[c]}: the viewer's unknown pool says {deck[c]}, the "
                              f"set less the known hands, discard and honours is {pool}")
        if sum(played[q][c] for q in range(n)) > per_type[c]:
            _fail("played_since", f"card {CARDS[c]}: more played since the last reshuffle than "
                                  f"the set has")
    if observer < 0:
        if deck_size != sum(deck):
            _fail("deck_size", f"the draw pile holds {sum(deck)} cards, its size says {deck_size}")
    else:
        unseen = deck_size + sum(hand_size[q] for q in range(n) if hidden(q))
        if sum(deck) != unseen:
            _fail("deck_size", f"the viewer cannot see {sum(deck)} cards, but the draw pile "
                               f"({deck_size}) and the hidden hands hold {unseen}")
    if deck_size + sum(drawn_n) > sum(epoch):
        _fail("drawn_n", f"{sum(drawn_n)} cards drawn since the last reshuffle and {deck_size} "
                         f"in the pile, but the pile then held {sum(epoch)}")


def _check_stage(snap, n: int, area, tile_at, park_servant) -> None:
    """Where the game is: stage, seat, round, setup and turn counters, against each other."""
    stage = _int("stage", snap.stage, 0, len(STAGES) - 1)
    to_move = _int("to_move", snap.to_move, 0, n - 1)
    round_ = _int("round", snap.round, 0, MAX_ROUND)
    _int("last_round", snap.last_round, 0, 1)
    setup = _int("setup_count", snap.setup_count, 0, SETUP_FREE_PLACEMENTS * n)
    counters = {name: _int(name, getattr(snap, name), -1 if name == "park_target" else 0, high)
                for name, high in TURN_COUNTER_MAX.items()}
    if stage == S_SETUP:
        if setup == SETUP_FREE_PLACEMENTS * n:
            _fail("setup_count", f"all {setup} setup placements are made, but the stage is SETUP")
        if round_ != 0 or snap.last_round:
            _fail("round", "the setup is round 0 (and not the last round)")
        if to_move != setup // SETUP_FREE_PLACEMENTS:
            _fail("to_move", f"after {setup} setup placements seat "
                             f"{setup // SETUP_FREE_PLACEMENTS + 1} places, not seat {to_move + 1}")
        for q in range(to_move, n):
            left = SETUP_FREE_PLACEMENTS - (setup % SETUP_FREE_PLACEMENTS if q == to_move else 0)
            if area[q] < left:
                _fail("area", f"seat {q + 1} has {left} setup placements to make but "
                              f"{area[q]} servants in the play area")
    else:
        if setup != SETUP_FREE_PLACEMENTS * n:
            _fail("setup_count", f"the setup is over ({STAGES[stage]}), so all "
                                 f"{SETUP_FREE_PLACEMENTS * n} placements are made, not {setup}")
        if round_ < 1:
            _fail("round", f"round 0 is the setup, but the stage is {STAGES[stage]}")
    if stage == S_MOVES and counters["moves_left"] < 1:
        _fail("moves_left", "the stage is MOVES but no move is left")
    if stage == S_SOURCE:
        target = counters["source_for"]
        if target not in SOURCE_TARGETS:
            _fail("source_for", "a source room is chosen only for the GATE, KING, MADAME or "
                                "the park")
        sq = counters["park_target"]
        if target == SOURCE_PARK:
            if sq < 0 or sq not in BORDER or tile_at[sq] >= 0 or park_servant[sq] >= 0:
                _fail("park_target", "a park servant goes to an empty border square")
        elif sq != -1:
            _fail("park_target", "only a park servant has a target square")
        if target == GATE and counters["gate_left"] < 1:
            _fail("gate_left", "a servant for the GATE is pending, so at least 1 is left")


__all__ = ["check_snapshot", "SnapshotError", "TURN_COUNTER_MAX", "MAX_GOLD", "MAX_ROUND",
           "ONLOOKER"]
