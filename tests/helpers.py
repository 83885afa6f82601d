"""Building positions for the rule tests, and small drivers for a turn.

A rule test wants a position that shows one rule and nothing else. `position()` starts from
`impl.new_game(n, seed, first_game=True)`, edits the snapshot (rooms, play areas, gold,
hands, park, stage, ...) and rebuilds a state with `impl.from_snapshot`, keeping the
accounting of RULES.md §1 consistent:

- every colour: rooms + play area + general supply + park servants = 25;
- every card type: draw pile + hands + discard pile + played HONOURs = 4.

Defaults: every room empty for every seat (so only the servants a test names exist), 7
servants in each general supply (the rest in the play area), no gold, no cards except ONE
HONOUR in the hand of the seat to move, stage WINDOW1, round 1, first-game layout:

    row 1 (park side):  BACKDOOR  OFFICE  CARDINAL
    row 2:              MINT      GATE    MADAME
    row 3:              STAIRS    KING    PARADE

`from_snapshot` runs no automatic step, so a test builds the position at a stage where the
state waits and then applies an action that runs the automatic steps after it. The card in
hand is what makes this robust: with a non-empty hand every card window of the mover is a
decision (RULES.md §10), so the state stops at each window and a test can look at the result
of one step at a time. `kick(state)` closes the window the position was built at.
"""

from __future__ import annotations

from engine.components import components_from_dict, default_components
from engine.constants import (
    A_CONTINUE, A_DECLINE, A_DRAW, A_END, A_GATE, A_MOVE, A_PLAY, A_RECRUIT, A_ROOM, CARDS,
    C_HONOUR, N_CARDS, N_ROOMS, N_SQUARES, SERVANTS_PER_COLOUR, SETUP_FREE_PLACEMENTS,
    SQUARE_NAMES, S_KING_BONUS, S_MADAME_BONUS, S_MOVES, S_RECRUIT, S_STEP1, S_WINDOW1,
    S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5,
)

WINDOWS = (S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5)
GENERAL_SUPPLY = 7
# The digests of the shipped weights for 2, 3 and 4 players (search/params.py; docs/train.md
# says how each was made): the tests that pin them read them here.
SHIPPED_VALUE_DIGESTS = ("5c15de319da1", "ebe7702cc36e", "439423d8cf61")
SHIPPED_POLICY_DIGESTS = ("88699bf1e994", "09723f6237c5", "2d082668e326")


# ---------------------------------------------------------------------------------------
# Names for actions and squares

def sq(name: str) -> int:
    """Park square index of a chess-like name: sq('a1') == 0, sq('f6') == 35."""
    return SQUARE_NAMES.index(name)


def gate(k: int) -> int:
    return A_GATE + k


def move(a: int, b: int) -> int:
    return A_MOVE + a * N_ROOMS + b


def recruit(square) -> int:
    return A_RECRUIT + (sq(square) if isinstance(square, str) else square)


def play(card: int) -> int:
    return A_PLAY + card


def draw(card: int) -> int:
    return A_DRAW + card


def room(r: int) -> int:
    return A_ROOM + r


def tile(number: int, components=None):
    """Noble tile by its printed number (1-based)."""
    return (components or default_components()).tiles[number - 1]


def with_tiles(changes: dict, park_points=None):
    """The default component set with some tiles changed: {number: dict of new fields}."""
    data = default_components().to_dict()
    for entry in data["tile"]:
        entry.update(changes.get(entry["number"], {}))
    if park_points is not None:
        data["park"] = {side: list(p) for side, p in park_points.items()}
    return components_from_dict(data, "<test>")


# ---------------------------------------------------------------------------------------
# Building positions

def _per_seat(value, n, default):
    out = [default() if callable(default) else default for _ in range(n)]
    for seat, v in (value or {}).items():
        out[seat] = v
    return out


def _room_row(spec) -> list:
    if isinstance(spec, dict):
        row = [0] * N_ROOMS
        for r, count in spec.items():
            row[r] = count
        return row
    return list(spec)


def _card_row(spec) -> list:
    if isinstance(spec, dict):
        row = [0] * N_CARDS
        for c, count in spec.items():
            row[c] += count
        return row
    return list(spec)


def build_snapshot(impl, n=2, *, seed=0, components=None, options=None, layout=None,
                   rooms=None, area=None, supply=None, gold=None, hands=None, discard=None,
                   honours=None, owned=None, park=None, tiles=None, park_servants=None,
                   stage=S_WINDOW1, to_move=0, round=1, **fields):
    """A consistent snapshot; see the module docstring for the defaults.

    rooms:         {seat: {room: count}}
    area, supply:  {seat: count}; give one of them and the other follows from the 25 (so
                   an empty play area puts the rest in the general supply unless the
                   servants are given a place); give both only if they add up
    gold:          {seat: gold}
    hands:         {seat: {card: count}} (default: one HONOUR for the seat to move)
    discard:       {card: count};  honours: {seat: HONOUR cards played}
    owned:         {tile index: seat}: the tile leaves the park and belongs to the seat
    park:          {square: tile index}: the whole park (every other square empty);
                   None keeps the deal of `seed`
    tiles:         {square: tile index}: put these tiles there, keeping the rest of the
                   park (a tile already in the park swaps squares with the one it displaces;
                   otherwise the displaced tile goes back to the box)
    park_servants: {square: seat}
    fields:        any other Snapshot field (gate_max, turq, intrigue, last_round, ...)
    """
    comps = components or default_components()
    snap = impl.new_game(n, seed=seed, components=comps, options=options, first_game=True,
                         layout=layout).snapshot()
    snap.rooms = [_room_row(r) for r in _per_seat(rooms, n, lambda: {})]
    snap.park_servant = [-1] * N_SQUARES
    for square, seat in (park_servants or {}).items():
        snap.park_servant[sq(square) if isinstance(square, str) else square] = seat
    if park is not None:
        snap.tile_at = [-1] * N_SQUARES
        for square, t in park.items():
            snap.tile_at[sq(square) if isinstance(square, str) else square] = t
    for square, t in (tiles or {}).items():
        square = sq(square) if isinstance(square, str) else square
        if t in snap.tile_at:
            other = snap.tile_at.index(t)
            snap.tile_at[other] = snap.tile_at[square]
        snap.tile_at[square] = t
    snap.owner = [-1] * len(comps.tiles)
    for t, seat in (owned or {}).items():
        snap.owner[t] = seat
        snap.tile_at = [-1 if x == t else x for x in snap.tile_at]

    # Servants: 25 per colour.
    area = area or {}
    supply = supply or {}
    snap.area, snap.supply = [], []
    for q in range(n):
        placed = sum(snap.rooms[q]) + snap.park_servant.count(q)
        if q in area and q in supply:
            a, s = area[q], supply[q]
        elif q in area:
            a = area[q]
            s = SERVANTS_PER_COLOUR - placed - a
        else:
            s = supply.get(q, GENERAL_SUPPLY)
            a = SERVANTS_PER_COLOUR - placed - s
        assert a >= 0 and s >= 0 and a + s + placed == SERVANTS_PER_COLOUR, (
            f"seat {q}: {placed} placed + area {a} + supply {s} != 25")
        snap.area.append(a)
        snap.supply.append(s)
    snap.gold = _per_seat(gold, n, 0)

    # Cards: as if no reshuffle happened yet, so the epoch is the whole set; every card out
    # of the pile was drawn since the epoch began (hands by their holders, played cards by
    # seat 0 unless they are a seat's HONOURs).
    if hands is None:
        hands = {to_move: {C_HONOUR: 1}}
    snap.hand = [_card_row(h) for h in _per_seat(hands, n, lambda: {})]
    snap.hand_size = [sum(h) for h in snap.hand]
    snap.discard = _card_row(discard or {})
    snap.honours = _per_seat(honours, n, 0)
    snap.played_since = [[0] * N_CARDS for _ in range(n)]
    snap.played_since[0] = list(snap.discard)
    for q in range(n):
        snap.played_since[q][C_HONOUR] += snap.honours[q]
    snap.drawn_t = [[snap.hand[q][c] + snap.played_since[q][c] for c in range(N_CARDS)]
                    for q in range(n)]
    snap.drawn_n = [sum(row) for row in snap.drawn_t]
    snap.epoch = list(comps.cards_per_type)
    snap.deck = [comps.cards_per_type[c] - sum(snap.hand[q][c] for q in range(n))
                 - snap.discard[c] - (sum(snap.honours) if c == C_HONOUR else 0)
                 for c in range(N_CARDS)]
    assert min(snap.deck) >= 0, f"more cards placed than the set holds: pile {snap.deck}"
    snap.deck_size = sum(snap.deck)

    snap.stage = stage
    snap.to_move = to_move
    snap.round = round
    snap.setup_count = SETUP_FREE_PLACEMENTS * n
    for name, value in fields.items():
        assert hasattr(snap, name), name
        setattr(snap, name, value)
    errors = accounting_errors(snap, comps)
    assert not errors, errors
    return snap


def position(impl, n=2, *, components=None, options=None, **kw):
    """A state of implementation `impl` built by build_snapshot (same arguments)."""
    snap = build_snapshot(impl, n, components=components, options=options, **kw)
    return impl.from_snapshot(snap, components=components, options=options)


def kick(state) -> None:
    """Close the card window the position was built at, which runs the steps after it."""
    assert A_CONTINUE in state.legal_actions(), state.legal_actions()
    state.apply(A_CONTINUE)


# ---------------------------------------------------------------------------------------
# Accounting (RULES.md §1, §6)

def accounting_errors(snap, components=None) -> list:
    """What is wrong with the servant and card accounting of a full-state snapshot."""
    comps = components or default_components()
    errors = []
    for q in range(snap.n_players):
        total = (sum(snap.rooms[q]) + snap.area[q] + snap.supply[q]
                 + sum(1 for o in snap.park_servant if o == q))
        if total != SERVANTS_PER_COLOUR:
            errors.append(f"seat {q}: {total} servants")
        if min(snap.rooms[q]) < 0 or snap.area[q] < 0 or snap.supply[q] < 0:
            errors.append(f"seat {q}: a negative servant count")
        if snap.gold[q] < 0:
            errors.append(f"seat {q}: gold {snap.gold[q]}")
        if sum(snap.hand[q]) != snap.hand_size[q] and snap.observer in (-1, q):
            errors.append(f"seat {q}: hand {snap.hand[q]} but hand_size {snap.hand_size[q]}")
    for c in range(N_CARDS):
        total = (snap.deck[c] + sum(snap.hand[q][c] for q in range(snap.n_players))
                 + snap.discard[c] + (sum(snap.honours) if c == C_HONOUR else 0))
        if total != comps.cards_per_type[c]:
            errors.append(f"{CARDS[c]}: {total} cards")
        if snap.deck[c] < 0 or snap.discard[c] < 0:
            errors.append(f"{CARDS[c]}: negative count")
    if snap.observer == -1 and sum(snap.deck) != snap.deck_size:
        errors.append(f"pile {snap.deck} but deck_size {snap.deck_size}")
    return errors


# ---------------------------------------------------------------------------------------
# Driving a turn

def passive_action(state) -> int:
    """The do-nothing option of the current decision (continue, 0, end, decline, ...)."""
    legal = state.legal_actions()
    st = state.stage
    if st in WINDOWS:
        return A_CONTINUE
    if st == S_STEP1:
        return A_GATE
    if st in (S_MOVES, S_RECRUIT):
        return A_END
    if st in (S_KING_BONUS, S_MADAME_BONUS):
        return A_DECLINE
    return legal[0]          # setup, source room, chance: the first option


def finish_turn(state) -> None:
    """Take passive actions until another turn (or the end of the game) begins."""
    start = (state.snapshot().round, state.to_move)
    while not state.is_terminal() and (state.snapshot().round, state.to_move) == start:
        state.apply(passive_action(state))


def run_until(state, stage, policy=passive_action, limit=200) -> None:
    """Apply `policy` until the state waits at `stage`."""
    for _ in range(limit):
        if state.stage == stage:
            return
        assert not state.is_terminal(), f"game over before stage {stage}"
        state.apply(policy(state))
    raise AssertionError(f"stage {stage} not reached")



class ServerSession:
    """A PRI server in-process, writing to a buffer: send lines, read what came back."""

    WAIT_S = 30.0

    def __init__(self):
        import io
        from protocol.server import Server
        self.out = io.StringIO()
        self.server = Server(self.out)
        self.read = 0

    def send(self, *lines):
        for line in lines:
            assert self.server.handle(line)

    def new_lines(self):
        assert self.server.engine.wait(self.WAIT_S), "the engine did not become idle"
        lines = self.out.getvalue().splitlines()
        fresh, self.read = lines[self.read:], len(lines)
        return fresh


RUN_SECRET = "5e" * 32      # one fixed draw secret for tournament runs a test compares


def run_folder(path):
    """A tournament's --out folder holding RUN_SECRET as its draw-secret, so runs into
    different folders draw the same cards (docs/tournament.md: copy a run's draw-secret)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "draw-secret").write_text(RUN_SECRET + "\n")
    return path


def bench_script(name: str):
    """bench/<name>.py loaded as the module `bench_<name>` (bench/ is not a package, and its
    search.py would shadow the search package on the import path). Registered in sys.modules
    first, since a script's dataclasses look their module up there; loaded once, so every
    test file that asks for a script gets the module its classes are registered under."""
    import importlib.util
    import sys
    from pathlib import Path
    if f"bench_{name}" in sys.modules:
        return sys.modules[f"bench_{name}"]
    path = Path(__file__).resolve().parent.parent / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
