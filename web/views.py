"""The View: what one seat may see of a game, as the JSON the page draws (docs/web.md).

Everything here is read from the seat's own view of the state (`state.view(seat)`, or the
public view for a spectator), never from the true state, so two worlds that differ only in
cards the seat cannot see give the same View, byte for byte. The log shows other seats'
draws as `?` (engine/views.py's seen_by, as PRI engines are told).

Seats are 0-based in all of web/, with None for a spectator, as in the engine. The JSON is
for people and the page, and numbers seats from 1 (0: no seat, the spectator): seat_number()
here is the one place that turns one into the other.
"""

from __future__ import annotations

from engine.constants import (
    CARDS, KING, MADAME, PRIVILEGES, ROOMS, SQUARE_NAMES, STAGES, decode_action, room_adjacency,
)
from engine.notation import action_to_token
from engine.views import seen_by

SPECTATOR = None


def seat_number(q) -> int:
    """A 0-based seat (None: none) as the JSON numbers it: 1..n, 0 for none."""
    return 0 if q is None else q + 1


def seat_state(state, seat: int):
    """The state as `seat` (0-based; None: a spectator) sees it."""
    return state.public_view() if seat is None else state.view(seat)


def tile_json(tile) -> dict:
    return {"number": tile.number, "vp": tile.vp, "gold": tile.gold, "turquoise": tile.turquoise,
            "violet": tile.violet, "privilege": PRIVILEGES[tile.privilege], "amount": tile.amount}


def action_json(action: int) -> dict:
    """One legal decision for the page: its id, token, kind and what it names."""
    out = {"id": action, "token": action_to_token(action)}
    kind, x, y = decode_action(action)
    out["kind"] = kind
    if kind == "room":
        out["room"] = ROOMS[x]
    elif kind == "gate":
        out["count"] = x
    elif kind == "move":
        out.update(**{"from": ROOMS[x], "to": ROOMS[y]})
    elif kind == "recruit":
        out["square"] = SQUARE_NAMES[x]
    elif kind == "play":
        out["card"] = CARDS[x]
    return out


def turn_log(start, actions, drawers, seat) -> list:
    """The turns so far, one entry per turn as a record writes its lines (a new turn when the
    round or the seat to move changes), with tokens as `seat` may see them."""
    tokens = seen_by(-1 if seat is None else seat, zip(actions, drawers))
    state = start.copy()
    log = []
    for ply, (action, token) in enumerate(zip(actions, tokens)):
        label = (state.round, state.to_move)
        if not log or (log[-1]["round"], log[-1]["seat"] - 1) != label:
            log.append({"ply": ply, "seat": seat_number(state.to_move), "round": state.round, "tokens": []})
        log[-1]["tokens"].append(token)
        state.apply(action)
    for turn in log:
        turn["tokens"] = " ".join(turn["tokens"])
    return log


def players_json(view, snap, seat) -> list:
    comps = view.components
    out = []
    for q in range(snap.n_players):
        mine = seat == q
        out.append({
            "seat": seat_number(q), "gold": snap.gold[q], "area": snap.area[q], "supply": snap.supply[q],
            "honours": snap.honours[q],
            "nobles": [tile_json(comps.tiles[t]) for t, owner in enumerate(snap.owner) if owner == q],
            "hand": {card: snap.hand[q][c] for c, card in enumerate(CARDS)} if mine else None,
            "hand_size": snap.hand_size[q],
            "seals": {"turquoise": snap.rooms[q][KING], "violet": snap.rooms[q][MADAME]},
        })
    return out


def build_view(game_id: str, state, start, actions, drawers, seat, *, names, kinds,
               human_seats, can_undo: bool = False, thinking: int = -1, passing: bool = False,
               version: int = 0, engines=None, fairness=None, resigned=(),
               shared: bool = False, rematch=None) -> dict:
    """The View of `state` (the true state, or a full state of a past ply) for `seat`
    (0-based, None: a spectator).
    `human_seats`: 0-based seats played by people (their legal actions are listed to them);
    `thinking`: the seat whose engine is searching, or -1;
    `fairness`: {"commitment", "secret"} (the secret only once the game is over);
    `version`: the game's count of changes (a later View of a game has a higher one);
    `engines`: per seat, None or {"restarts": k, "failed": bool} (web/engine_seat.py)."""
    view = seat_state(state, seat)
    snap = view.snapshot()
    over = view.is_terminal()
    layout = [ROOMS[r] for r in snap.layout]
    adjacency = room_adjacency(snap.layout)
    to_move = None if over else snap.to_move
    deciding = (seat is not None and not over and not view.is_chance() and seat == to_move
                and seat in human_seats)
    comps = view.components
    park = []
    for sq, name in enumerate(SQUARE_NAMES):
        t = snap.tile_at[sq]
        park.append({"square": name, "tile": tile_json(comps.tiles[t]) if t >= 0 else None,
                     "servant": snap.park_servant[sq] + 1})
    return {
        "game": game_id, "seat": seat_number(seat), "n_players": snap.n_players, "names": list(names),
        "kinds": list(kinds), "engines": list(engines or [None] * snap.n_players),
        "ply": len(actions), "round": snap.round,
        "last_round": bool(snap.last_round), "stage": STAGES[snap.stage], "to_move": seat_number(to_move),
        "over": over, "scores": list(view.scores()),
        "layout": layout,
        "adjacent": {ROOMS[r]: [ROOMS[x] for x in adjacency[r]] for r in range(len(ROOMS))},
        "rooms": [list(row) for row in snap.rooms],
        "park": park,
        "players": players_json(view, snap, seat),
        "draw_pile": snap.deck_size, "discard": sum(snap.discard),
        "turn": {"gate_left": snap.gate_left, "gate_max": snap.gate_max,
                 "moves_left": snap.moves_left, "turq": snap.turq, "viol": snap.viol,
                 "rec": snap.rec, "draws_left": snap.draws_left},
        "legal": [action_json(a) for a in view.legal_actions()] if deciding else [],
        "can_undo": bool(can_undo and deciding),
        "thinking": seat_number(thinking if thinking >= 0 else None),
        "log": turn_log(start, actions, drawers, seat),
        "passing": passing,
        "version": version,
        "fairness": dict(fairness or {"commitment": None, "secret": None}),
        "resigned": [seat_number(q) for q in sorted(resigned)],
        "shared": shared,
        "rematch": rematch,
    }
