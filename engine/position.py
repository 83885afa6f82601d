"""Position strings: a whole game state, or one seat's view of it, on one line (like a FEN).

A position string is the version tag `pr1` followed by space-separated `key=value` fields in
the fixed order of FIELDS; it holds every field of a Snapshot (docs/notation.md, field by
field). `position_to_string` writes one, `parse_position` reads one back into a Snapshot and
checks it (NotationError naming the field, the seat or entry, and why), and
`state_from_position` builds a state from it. engine.notation re-exports all three.

In a view (Snapshot.observer >= 0) the other seats' hands and card draws and the draw pile
are hidden: the string shows their sizes as `?N`, and reading it rebuilds the viewer's
unknown pool (the Snapshot's `deck` field in a view) from the component set.
"""

from __future__ import annotations

from urllib.parse import unquote

from common.numbers import natural, shown

from .components import ComponentSet, default_components
from .constants import (
    BORDER, CARDS, C_HONOUR, MAX_PLAYERS, MIN_PLAYERS, N_CARDS, N_ROOMS, N_SQUARES,
    ROOM_INDEX, ROOMS, SERVANTS_PER_COLOUR, SETUP_FREE_PLACEMENTS, SOURCE_PARK, SQUARE_NAMES, STAGES,
    layout_text,
)
from .errors import NotationError
from .snapshot import Snapshot
from .validate import MAX_GOLD, MAX_ROUND, TURN_COUNTER_MAX

SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
_ROOM_LIST = ", ".join(ROOMS)

VERSION = "pr1"
FIELDS = ("set", "players", "view", "stage", "seat", "round", "last", "setup", "layout",
          "park", "rooms", "area", "supply", "gold", "honours", "nobles", "hands", "deck",
          "discard", "epoch", "drawn", "played", "turn")
# The `turn=` counters, in this order, each written `name:value`.
TURN_COUNTERS = ("gate_left", "gate_max", "moves_left", "source_for", "park_target", "turq",
                 "viol", "rec", "guards", "moves_bonus", "intrigue", "draws_left")


def _encode_name(name: str) -> str:
    """A set name as one token: whitespace, '%' and unprintable characters %-escaped (UTF-8)."""
    return "".join(ch if ch.isprintable() and not ch.isspace() and ch != "%"
                   else "".join(f"%{b:02X}" for b in ch.encode("utf-8")) for ch in name)


def _counts(values) -> str:
    return ".".join(str(v) for v in values)


def _seat_of(value: int) -> str:
    return "-" if value < 0 else str(value + 1)


def position_to_string(state_or_snapshot, components: ComponentSet | None = None) -> str:
    """The position string of a state or Snapshot (a full state, or a seat's view).

    The component set names the `set=` field and gives the card counts; it defaults to the
    state's own set, or for a bare Snapshot to default_components().
    """
    if isinstance(state_or_snapshot, Snapshot):
        s = state_or_snapshot
        comps = components or default_components()
    else:
        s = state_or_snapshot.snapshot()
        comps = components or state_or_snapshot.components
    _check_writable(s, comps)
    n, obs = s.n_players, s.observer
    seats = range(n)

    def hidden(q: int) -> bool:
        return obs >= 0 and q != obs

    park_entries = []
    for sq in range(N_SQUARES):
        if s.tile_at[sq] >= 0:
            park_entries.append(str(s.tile_at[sq] + 1))
        elif s.park_servant[sq] >= 0:
            park_entries.append(f"s{s.park_servant[sq] + 1}")
        else:
            park_entries.append(".")
    nobles = []
    for q in seats:
        owned = [str(t + 1) for t, o in enumerate(s.owner) if o == q]
        nobles.append(".".join(owned) or "-")
    turn = {name: getattr(s, name) for name in TURN_COUNTERS}
    turn["source_for"] = "park" if s.source_for == SOURCE_PARK else ROOMS[s.source_for]
    turn["park_target"] = "-" if s.park_target < 0 else SQUARE_NAMES[s.park_target]

    values = {
        "set": _encode_name(comps.name),
        "players": n,
        "view": _seat_of(obs),
        "stage": STAGES[s.stage],
        "seat": s.to_move + 1,
        "round": s.round,
        "last": s.last_round,
        "setup": s.setup_count,
        "layout": layout_text(ROOMS[r] for r in s.layout),
        "park": "/".join(",".join(park_entries[rank * 6:rank * 6 + 6]) for rank in range(6)),
        "rooms": "/".join(_counts(s.rooms[q]) for q in seats),
        "area": "/".join(str(s.area[q]) for q in seats),
        "supply": "/".join(str(s.supply[q]) for q in seats),
        "gold": "/".join(str(s.gold[q]) for q in seats),
        "honours": "/".join(str(s.honours[q]) for q in seats),
        "nobles": "/".join(nobles),
        "hands": "/".join(f"?{s.hand_size[q]}" if hidden(q) else _counts(s.hand[q]) for q in seats),
        "deck": f"?{s.deck_size}" if obs >= 0 else _counts(s.deck),
        "discard": _counts(s.discard),
        "epoch": _counts(s.epoch),
        "drawn": "/".join(f"{s.drawn_n[q]}:" + ("?" if hidden(q) else _counts(s.drawn_t[q]))
                          for q in seats),
        "played": "/".join(_counts(s.played_since[q]) for q in seats),
        "turn": ",".join(f"{name}:{turn[name]}" for name in TURN_COUNTERS),
    }
    return " ".join([VERSION] + [f"{key}={values[key]}" for key in FIELDS])


def _unseen_pool(comps: ComponentSet, own_hand, discard, honours) -> list:
    """Per card type, the cards a viewer cannot see: not in his hand, the discard or honours."""
    return [comps.cards_per_type[c] - own_hand[c] - discard[c]
            - (sum(honours) if c == C_HONOUR else 0) for c in range(N_CARDS)]


def _check_writable(s: Snapshot, comps: ComponentSet) -> None:
    """Refuse a snapshot the string cannot hold exactly (it could not come from a game)."""
    def fail(why: str):
        raise NotationError(f"cannot write this position: {why}")

    if len(s.owner) != len(comps.tiles):
        fail(f"it has {len(s.owner)} tiles but component set {comps.name!r} has {len(comps.tiles)}")
    for sq in range(N_SQUARES):
        if s.tile_at[sq] >= 0 and s.park_servant[sq] >= 0:
            fail(f"square {SQUARE_NAMES[sq]} holds both a tile and a servant")
    for q in range(s.n_players):
        if s.observer >= 0 and q != s.observer:
            if any(s.hand[q]) or any(s.drawn_t[q]):
                fail(f"seat {q + 1}'s cards are hidden in seat {s.observer + 1}'s view, "
                     f"but its hand or drawn row is not all zero")
        elif sum(s.hand[q]) != s.hand_size[q]:
            fail(f"seat {q + 1}'s hand holds {sum(s.hand[q])} cards but its size says {s.hand_size[q]}")
    if s.observer < 0 and sum(s.deck) != s.deck_size:
        fail(f"the draw pile holds {sum(s.deck)} cards but its size says {s.deck_size}")
    if s.observer >= 0:
        pool = _unseen_pool(comps, s.hand[s.observer], s.discard, s.honours)
        if list(s.deck) != pool:
            fail(f"the unknown pool of seat {s.observer + 1}'s view is {list(s.deck)}, but the "
                 f"set less his hand, the discard pile and the honours is {pool}")


# ---------------------------------------------------------------------- reading helpers

class _Reader:
    """Reads the fields of one position string; every error names the field and the entry."""

    def __init__(self, comps: ComponentSet):
        self.comps = comps

    @staticmethod
    def fail(field: str, where: str, why: str):
        place = f"field '{field}'" + (f", {where}" if where else "")
        raise NotationError(f"position: {place}: {why}")

    def int(self, field: str, where: str, text: str, high: int, low: int = 0) -> int:
        if text.startswith("-") and natural(text[1:]) is not None:
            self.fail(field, where, f"negative number {text if len(text) <= 13 else shown(text)} (expected {low}..{high})")
        value = natural(text)
        if value is None:
            self.fail(field, where, f"expected an integer, got {shown(text)}")
        if not low <= value <= high:
            self.fail(field, where, f"{shown(text) if len(text) > 20 else value} is out of "
                                    f"range (expected {low}..{high})")
        return value

    def split(self, field: str, where: str, text: str, sep: str, count: int, what: str) -> list:
        parts = text.split(sep)
        if len(parts) != count:
            self.fail(field, where, f"expected {count} {what} separated by {sep!r}, got {len(parts)}")
        return parts

    def per_seat(self, field: str, text: str, n: int) -> list:
        return self.split(field, "", text, "/", n, "entries (one per seat)")

    def counts(self, field: str, where: str, text: str, high: int) -> list:
        """9 counts separated by '.': per room (rooms=) or per card type (everything else)."""
        size = N_ROOMS if field == "rooms" else N_CARDS
        parts = self.split(field, where, text, ".", size, "counts")
        return [self.int(field, where, p, high) for p in parts]

    def seat(self, field: str, where: str, text: str, n: int) -> int:
        return self.int(field, where, text, high=n, low=1) - 1

    def room(self, field: str, where: str, text: str) -> int:
        if text.upper() not in ROOM_INDEX:
            self.fail(field, where, f"{shown(text)} is not a room (rooms: {_ROOM_LIST})")
        return ROOM_INDEX[text.upper()]


def _split_fields(text: str) -> dict:
    if not isinstance(text, str):
        raise NotationError(f"position: expected a string, got {type(text).__name__}")
    items = text.split()
    if not items:
        raise NotationError("position: empty string")
    if items[0] != VERSION:
        raise NotationError(f"position: expected the version tag {VERSION!r} first, got {shown(items[0])}")
    found = {}
    for item in items[1:]:
        key, eq, value = item.partition("=")
        if not eq:
            raise NotationError(f"position: {shown(item)} is not a key=value field")
        if key not in FIELDS:
            raise NotationError(f"position: unknown field {shown(key)} (fields: {', '.join(FIELDS)})")
        if key in found:
            raise NotationError(f"position: field {key!r} appears twice")
        if not value:
            raise NotationError(f"position: field {key!r}: empty value")
        found[key] = value
    for key in FIELDS:
        if key not in found:
            raise NotationError(f"position: missing field {key!r}")
    return found


def parse_position(text: str, components: ComponentSet | None = None) -> Snapshot:
    """The Snapshot of a position string; NotationError naming the field, entry and why.

    `components` (default: default_components()) must be the set named by `set=`. Besides
    the syntax of every field, the reading checks what any position of a game satisfies:
    the layout holds each room once, no tile is dealt or owned twice, owned tiles match the
    empty park squares, park servants stand on border squares, each seat has its 25
    servants, and every card is accounted for (in a view: the viewer's unknown pool is not
    negative and holds exactly the draw pile and the other hands). Whether the position can
    be reached, or is at a decision, is not checked.
    """
    comps = components or default_components()
    f = _split_fields(text)
    r = _Reader(comps)
    n_cards = comps.n_cards

    # ---- header fields
    try:
        set_name = unquote(f["set"], errors="strict")
    except UnicodeDecodeError:
        r.fail("set", "", f"{shown(f['set'])} is not a %-escaped UTF-8 name")
    if set_name != comps.name:
        r.fail("set", "", f"the position is for component set {shown(set_name)}, but the components "
                          f"given are {comps.name!r} (pass that set as components)")
    n = r.int("players", "", f["players"], high=MAX_PLAYERS, low=MIN_PLAYERS)
    observer = -1 if f["view"] == "-" else r.seat("view", "", f["view"], n)
    if f["stage"].upper() not in STAGES:
        r.fail("stage", "", f"unknown stage {shown(f['stage'])} (stages: {', '.join(STAGES)})")
    stage = STAGES.index(f["stage"].upper())
    to_move = r.seat("seat", "", f["seat"], n)
    round_ = r.int("round", "", f["round"], high=MAX_ROUND)
    last_round = r.int("last", "", f["last"], high=1)
    setup_count = r.int("setup", "", f["setup"], high=SETUP_FREE_PLACEMENTS * n)

    # ---- the board: layout, park, servants, gold, tiles
    layout = _read_layout(r, f["layout"])
    tile_at, park_servant, where_tile = _read_park(r, f["park"], n)
    rooms = [r.counts("rooms", f"seat {q + 1}", e, SERVANTS_PER_COLOUR)
             for q, e in enumerate(r.per_seat("rooms", f["rooms"], n))]
    area, supply, honours = (
        [r.int(key, f"seat {q + 1}", e, high=SERVANTS_PER_COLOUR if key != "honours" else n_cards)
         for q, e in enumerate(r.per_seat(key, f[key], n))]
        for key in ("area", "supply", "honours"))
    gold = [r.int("gold", f"seat {q + 1}", e, high=MAX_GOLD) for q, e in enumerate(r.per_seat("gold", f["gold"], n))]
    _check_servants(rooms, area, supply, park_servant)
    owner = _read_nobles(r, f["nobles"], n, where_tile)
    empty = tile_at.count(-1)
    owned = sum(1 for o in owner if o >= 0)
    if owned != empty:
        raise NotationError(f"position: fields 'park', 'nobles': {empty} park squares are empty "
                            f"but {owned} tiles are owned (each recruit empties one square)")

    # ---- cards: hands (hidden ones as ?N in a view), piles, epoch bookkeeping
    hand, hand_size = _read_hands(r, f["hands"], n, observer)
    discard = r.counts("discard", "", f["discard"], n_cards)
    epoch = r.counts("epoch", "", f["epoch"], n_cards)
    for c in range(N_CARDS):
        if epoch[c] > comps.cards_per_type[c]:
            r.fail("epoch", f"card {CARDS[c]}", f"{epoch[c]} cards, the set has {comps.cards_per_type[c]}")
    played = [r.counts("played", f"seat {q + 1}", e, n_cards)
              for q, e in enumerate(r.per_seat("played", f["played"], n))]
    drawn_n, drawn_t = _read_drawn(r, f["drawn"], n, observer)
    deck, deck_size = _read_deck(r, f["deck"], comps, observer, hand, hand_size, discard, honours)

    turn = _read_turn(r, f["turn"])
    snap = Snapshot(
        n_players=n, layout=layout, tile_at=tile_at, park_servant=park_servant, rooms=rooms,
        area=area, supply=supply, gold=gold, owner=owner, hand=hand, hand_size=hand_size,
        deck=deck, deck_size=deck_size, discard=discard, honours=honours, epoch=epoch,
        drawn_t=drawn_t, drawn_n=drawn_n, played_since=played, round=round_,
        last_round=last_round, stage=stage, to_move=to_move, setup_count=setup_count,
        observer=observer, **turn)
    _check_runnable(snap, comps)
    return snap


def _read_layout(r, text: str) -> list:
    """The room in each castle cell: 3 rows of 3 codes, each of the 9 rooms once."""
    layout = []
    for i, row in enumerate(r.split("layout", "", text, "/", 3, "rows"), start=1):
        for code in r.split("layout", f"row {i}", row, ",", 3, "room codes"):
            layout.append(r.room("layout", f"row {i}", code))
    if sorted(layout) != list(range(N_ROOMS)):
        twice = [ROOMS[x] for x in range(N_ROOMS) if layout.count(x) > 1]
        missing = [ROOMS[x] for x in range(N_ROOMS) if x not in layout]
        r.fail("layout", "", f"{', '.join(twice)} twice, {', '.join(missing)} missing "
                             f"(each of the 9 rooms exactly once)")
    return layout


def _read_park(r, text: str, n: int):
    """(tile per square or -1, park servant per square or -1, square name per tile dealt)."""
    n_tiles = len(r.comps.tiles)
    tile_at, park_servant = [-1] * N_SQUARES, [-1] * N_SQUARES
    where_tile = {}
    for rank, row in enumerate(r.split("park", "", text, "/", 6, "ranks"), start=1):
        for file, entry in enumerate(r.split("park", f"rank {rank}", row, ",", 6, "squares")):
            sq = (rank - 1) * 6 + file
            where = f"square {SQUARE_NAMES[sq]}"
            if entry == ".":
                continue
            if not entry:
                r.fail("park", where, "empty entry (a tile number, s<seat> or '.')")
            if entry[0] in "sS":
                park_servant[sq] = r.seat("park", where, entry[1:], n)
                if sq not in BORDER:
                    r.fail("park", where, "a servant stands only on a border square")
                continue
            t = r.int("park", where, entry, high=n_tiles, low=1) - 1
            if t in where_tile:
                r.fail("park", where, f"tile {t + 1} is already on {where_tile[t]}")
            where_tile[t] = SQUARE_NAMES[sq]
            tile_at[sq] = t
    return tile_at, park_servant, where_tile


def _check_servants(rooms, area, supply, park_servant) -> None:
    """Each seat has its 25 servants: in rooms, play area, supply and on the park."""
    for q in range(len(rooms)):
        park = park_servant.count(q)
        total = sum(rooms[q]) + area[q] + supply[q] + park
        if total != SERVANTS_PER_COLOUR:
            raise NotationError(
                f"position: fields 'rooms', 'area', 'supply', 'park', seat {q + 1}: servants in "
                f"rooms {sum(rooms[q])} + area {area[q]} + supply {supply[q]} + park {park} = "
                f"{total}, expected {SERVANTS_PER_COLOUR}")


def _read_nobles(r, text: str, n: int, where_tile: dict) -> list:
    """The owner of each tile (-1: none); no tile both dealt and owned, or owned twice."""
    n_tiles = len(r.comps.tiles)
    owner = [-1] * n_tiles
    for q, entry in enumerate(r.per_seat("nobles", text, n)):
        if entry == "-":
            continue
        where = f"seat {q + 1}"
        for number in entry.split("."):
            t = r.int("nobles", where, number, high=n_tiles, low=1) - 1
            if t in where_tile:
                r.fail("nobles", where, f"tile {t + 1} is also on {where_tile[t]}")
            if owner[t] >= 0:
                r.fail("nobles", where, f"tile {t + 1} is also owned by seat {owner[t] + 1}")
            owner[t] = q
    return owner


def _read_hands(r, text: str, n: int, observer: int):
    """(per seat the 9 card counts, per seat the hand size); in a view, others' as ?N."""
    n_cards = r.comps.n_cards
    hand, hand_size = [], []
    for q, entry in enumerate(r.per_seat("hands", text, n)):
        where = f"seat {q + 1}"
        if observer >= 0 and q != observer:
            if not entry.startswith("?"):
                r.fail("hands", where, f"seat {q + 1}'s hand is hidden from the viewer "
                                       f"(seat {observer + 1}): write ?N, N = its size")
            hand.append([0] * N_CARDS)
            hand_size.append(r.int("hands", where, entry[1:], high=n_cards))
        else:
            if entry.startswith("?"):
                r.fail("hands", where, "a hidden hand (?N) is allowed only for other seats in "
                                       "a view; write its 9 counts")
            hand.append(r.counts("hands", where, entry, n_cards))
            hand_size.append(sum(hand[q]))
    return hand, hand_size


def _read_drawn(r, text: str, n: int, observer: int):
    """(per seat the cards drawn since the epoch, per seat their types); in a view, others' N:?."""
    n_cards = r.comps.n_cards
    drawn_n, drawn_t = [], []
    for q, entry in enumerate(r.per_seat("drawn", text, n)):
        where = f"seat {q + 1}"
        count, colon, types = entry.partition(":")
        if not colon:
            r.fail("drawn", where, f"expected N:<9 counts> or N:?, got {shown(entry)}")
        drawn_n.append(r.int("drawn", where, count, high=n_cards))
        if observer >= 0 and q != observer:
            if types != "?":
                r.fail("drawn", where, f"seat {q + 1}'s draws are hidden from the viewer "
                                       f"(seat {observer + 1}): write {count}:?")
            drawn_t.append([0] * N_CARDS)
        else:
            if types == "?":
                r.fail("drawn", where, "hidden draws (N:?) are allowed only for other seats in a view")
            drawn_t.append(r.counts("drawn", where, types, n_cards))
    return drawn_n, drawn_t


def _read_deck(r, text: str, comps, observer: int, hand, hand_size, discard, honours):
    """(the draw pile's counts, its size) with every card accounted for; in a view the pile
    is ?N and its counts are the viewer's unknown pool, rebuilt and checked."""
    n_cards = comps.n_cards
    n = len(hand)
    if observer < 0:
        if text.startswith("?"):
            r.fail("deck", "", "a hidden draw pile (?N) is allowed only in a view; write its 9 counts")
        deck = r.counts("deck", "", text, n_cards)
        for c in range(N_CARDS):
            held = sum(hand[q][c] for q in range(n))
            kept = sum(honours) if c == C_HONOUR else 0
            total = deck[c] + held + discard[c] + kept
            if total != comps.cards_per_type[c]:
                raise NotationError(
                    f"position: fields 'deck', 'hands', 'discard', 'honours', card {CARDS[c]}: "
                    f"deck {deck[c]} + hands {held} + discard {discard[c]} + honours {kept} = "
                    f"{total}, the set has {comps.cards_per_type[c]}")
        return deck, sum(deck)
    if not text.startswith("?"):
        r.fail("deck", "", "in a view the draw pile is hidden: write ?N, N = its size")
    deck_size = r.int("deck", "", text[1:], high=n_cards)
    deck = _unseen_pool(comps, hand[observer], discard, honours)
    for c in range(N_CARDS):
        if deck[c] < 0:
            raise NotationError(
                f"position: fields 'hands', 'discard', 'honours', card {CARDS[c]}: seat "
                f"{observer + 1}'s hand, the discard pile and the honours hold "
                f"{comps.cards_per_type[c] - deck[c]}, the set has {comps.cards_per_type[c]}")
    unseen = deck_size + sum(hand_size[q] for q in range(n) if q != observer)
    if sum(deck) != unseen:
        raise NotationError(
            f"position: fields 'deck', 'hands': seat {observer + 1} cannot see {sum(deck)} "
            f"cards, but the draw pile ({deck_size}) and the other hands hold {unseen}")
    return deck, deck_size


# The position field that holds each Snapshot field (the turn counters are in `turn`).
_FIELD_OF = {"n_players": "players", "observer": "view", "to_move": "seat",
             "last_round": "last", "setup_count": "setup", "tile_at": "park",
             "park_servant": "park", "owner": "nobles", "hand": "hands", "hand_size": "hands",
             "deck_size": "deck", "drawn_t": "drawn", "drawn_n": "drawn",
             "played_since": "played"}


def _check_runnable(snap: Snapshot, comps: ComponentSet) -> None:
    """NotationError unless the rules core can run the position: it is built once, which
    checks every count, the bookkeeping and the stage against the counters
    (engine/validate.py), that the game waits at this stage, and that a decision there has a
    legal option (default rule options; state_from_position checks again with the game's)."""
    from .state import State
    from .validate import SnapshotError
    try:
        State.from_snapshot(snap, comps)
    except SnapshotError as exc:
        if exc.field in TURN_COUNTERS:
            place = f"field 'turn', counter {exc.field}"
        else:
            place = f"field '{_FIELD_OF.get(exc.field, exc.field)}'"
        raise NotationError(f"position: {place}: {exc.why}") from None


def _read_turn(r: _Reader, text: str) -> dict:
    values = {}
    for entry in r.split("turn", "", text, ",", len(TURN_COUNTERS), "counters"):
        name, colon, value = entry.partition(":")
        if not colon or name not in TURN_COUNTERS:
            r.fail("turn", f"entry {shown(entry)}", f"expected name:value with a name among "
                                                f"{', '.join(TURN_COUNTERS)}")
        where = f"counter {name}"
        if name in values:
            r.fail("turn", where, "appears twice")
        if name == "source_for":
            values[name] = SOURCE_PARK if value.lower() == "park" else r.room("turn", where, value)
        elif name == "park_target":
            if value != "-" and value.lower() not in SQUARE_INDEX:
                r.fail("turn", where, f"expected a square a1..f6 or '-', got {shown(value)}")
            values[name] = -1 if value == "-" else SQUARE_INDEX[value.lower()]
        else:
            values[name] = r.int("turn", where, value, high=TURN_COUNTER_MAX[name])
    return values


def state_from_position(text: str, impl=None, components: ComponentSet | None = None,
                        options=None):
    """A state (default: the Cython engine.state.State) built from a position string."""
    if impl is None:
        from .state import State as impl
    comps = components or default_components()
    return impl.from_snapshot(parse_position(text, comps), comps, options)


__all__ = ["position_to_string", "parse_position", "state_from_position", "VERSION", "FIELDS",
           "TURN_COUNTERS"]
