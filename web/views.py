"""The View: what one seat may see of a game, as the JSON the page draws (docs/web.md).

Everything here is read from the seat's own view of the state (`state.view(seat)`, or the
public view for a spectator), never from the true state, so two worlds that differ only in
cards the seat cannot see give the same View, byte for byte. The log shows other seats'
draws as `?` (engine/views.py's seen_by, as PRI engines are told).

Seats are 0-based in all of web/, with None for a spectator, as in the rules core. The JSON is
for people and the page, and numbers seats from 1 (0: no seat, the spectator):
common/seat_numbers.py is the one place that turns one into the other.
"""

from __future__ import annotations

import re

from common.seat_numbers import seat_number, seat_of_number
from engine.constants import (
    CARDS, KING, MADAME, PRIVILEGES, ROOMS, SQUARE_NAMES, STAGES, S_KING_BONUS, S_MADAME_BONUS,
    decode_action, room_adjacency,
)
from engine.notation import action_to_token
from engine.scoring import breakdown
from engine.views import seen_by

from .turn_summary import turn_summary


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


HIDDEN_DRAW = "?"


def step_json(state, action: int, token: str | None = None) -> dict:
    """One step of a turn for the page's words and animations (the log's and the hints'
    `steps`), shaped like a legal entry without its id, plus the stage it was taken at and
    what it names that the page would otherwise look up: a recruitment's tile, a bonus's
    room. `state` is the position before the action; a draw shown as `?` (another seat's)
    is {"token": "?", "kind": "draw", "card": None} and nothing more."""
    if token == HIDDEN_DRAW:
        return {"token": HIDDEN_DRAW, "kind": "draw", "card": None}
    out = action_json(action)
    del out["id"]
    if token is not None:
        out["token"] = token
    stage = state.stage
    out["stage"] = STAGES[stage]
    kind, x, _ = decode_action(action)
    if kind == "draw":
        out["card"] = CARDS[x]
    elif kind == "recruit":
        t = state.snapshot().tile_at[x]
        out["tile"] = tile_json(state.components.tiles[t]) if t >= 0 else None
    elif kind in ("take", "decline") and stage in (S_KING_BONUS, S_MADAME_BONUS):
        out["bonus"] = ROOMS[KING if stage == S_KING_BONUS else MADAME]
    return out


def turn_steps(state, actions) -> list:
    """The steps of `actions` played from `state` (a hint's turn), state left as it was."""
    state = state.copy()
    out = []
    for action in actions:
        out.append(step_json(state, action))
        state.apply(action)
    return out


def turn_log(start, actions, drawers, seat, reveal: bool = False) -> list:
    """The turns so far, one entry per turn as a record writes its lines (a new turn when the
    round or the seat to move changes), with tokens as `seat` may see them (every draw with
    `reveal`), each token's step (step_json) and what the turn changed (web.turn_summary:
    the log's one line per turn)."""
    if reveal:
        tokens = [action_to_token(a) for a in actions]
    else:
        tokens = seen_by(-1 if seat is None else seat, zip(actions, drawers))
    state = start.copy()
    log, befores = [], []
    for ply, (action, token) in enumerate(zip(actions, tokens)):
        label = (state.round, state.to_move)
        if not log or (log[-1]["round"], seat_of_number(log[-1]["seat"])) != label:
            log.append({"ply": ply, "seat": seat_number(state.to_move), "round": state.round,
                        "tokens": [], "steps": []})
            befores.append(state.snapshot())
        log[-1]["tokens"].append(token)
        log[-1]["steps"].append(step_json(state, action, token))
        state.apply(action)
    afters = befores[1:] + [state.snapshot()]
    for turn, before, after in zip(log, befores, afters):
        turn["tokens"] = " ".join(turn["tokens"])
        turn["summary"] = turn_summary(before, after, seat_of_number(turn["seat"]), turn["steps"],
                                       start.options.honour_vp)
    return log


def players_json(view, snap, seat, reveal: bool = False) -> list:
    comps = view.components
    out = []
    for q in range(snap.n_players):
        mine = seat == q or reveal
        out.append({
            "seat": seat_number(q), "gold": snap.gold[q], "area": snap.area[q], "supply": snap.supply[q],
            "honours": snap.honours[q],
            "nobles": [tile_json(comps.tiles[t]) for t, owner in enumerate(snap.owner) if owner == q],
            "hand": {card: snap.hand[q][c] for c, card in enumerate(CARDS)} if mine else None,
            "hand_size": snap.hand_size[q],
            "seals": {"turquoise": snap.rooms[q][KING], "violet": snap.rooms[q][MADAME]},
        })
    return out


def majorities_json(view) -> dict:
    """{ROOM: seat number} of the seat that holds the majority in each room now (0: nobody),
    by RULES.md §3 "Majority and the Cardinal": the most servants, or tied for the most with
    a Cardinal weight of at least 1 above every tied seat's. The INTRIGUE of the seat to
    move counts (it wins every tie of that seat this turn), so ties are seen as the seat to
    move sees them; at most one seat holds a room."""
    n = view.n_players
    mover = view.to_move if 0 <= view.to_move < n else None
    order = ([mover] if mover is not None else []) + [q for q in range(n) if q != mover]
    out = {}
    for room, name in enumerate(ROOMS):
        holder = next((q for q in order if view.has_majority(q, room)), None)
        out[name] = seat_number(holder)
    return out


def final_json(view) -> list | None:
    """None while the game goes on; once it is over, per seat the total and its parts
    (engine/scoring.py), which add up to `scores`."""
    if not view.is_terminal():
        return None
    return [{"seat": seat_number(s.seat), "total": s.total,
             "parts": [{"source": source, "vp": vp} for source, vp in s.parts]}
            for s in breakdown(view)]


DEFAULT_PERSON = re.compile(r"Player ([1-4])")      # default_name of a person


def default_name(q: int, kind: str) -> str:
    """The name a seat gets when none is given: "Player N" for a person, else the engine's."""
    return f"Player {q + 1}" if kind == "human" else kind


def seat_labels(names, kinds, levels=None) -> list:
    """Per seat, how the page writes a name the server chose (in the page's language): a
    catalog key {"key": "Player {n}", "n": N}, {"key": "level:ID", "level": true} (an
    engine chosen by its strength level, web/levels.py: "Club (engine)") or
    {"key": "player:NAME"}; None for a name someone typed (shown as it is)."""
    out = []
    for name, kind, level in zip(names, kinds, levels or [None] * len(kinds)):
        number = DEFAULT_PERSON.fullmatch(name)
        if kind == "human" and number:            # a rematch moves "Player 1" to seat 2
            out.append({"key": "Player {n}", "n": int(number.group(1))})
        elif kind != "human" and name == kind and level:
            out.append({"key": f"level:{level}", "level": True})
        elif kind != "human" and name == kind:
            out.append({"key": f"player:{kind}"})
        else:
            out.append(None)
    return out


def build_view(game_id: str, state, start, actions, drawers, seat, *, names, kinds,
               human_seats, levels=None, can_undo: bool = False, thinking: int = -1, passing: bool = False,
               version: int = 0, engines=None, fairness=None, resigned=(),
               shared: bool = False, rematch=None, reveal: bool = False) -> dict:
    """The View of `state` (the true state, or a full state of a past ply) for `seat`
    (0-based, None: a spectator).
    `human_seats`: 0-based seats played by people (their legal actions are listed to them);
    `thinking`: the seat whose engine is searching, or -1;
    `fairness`: {"commitment", "secret"} (the secret only once the game is over);
    `version`: the game's count of changes (a later View of a game has a higher one);
    `engines`: per seat, None or {"restarts": k, "failed": bool} (web/engine_seat.py);
    `levels`: per seat, the strength level (web/levels.py) an engine was chosen by, or None;
    `reveal`: every hand and every draw shown, to every seat and spectator (only for a
    finished game, whose full record anyone may download: never for a live one)."""
    view = state if reveal else seat_state(state, seat)
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
        "over": over, "scores": list(view.scores()), "final": final_json(view),
        "majorities": majorities_json(view),
        "seat_labels": seat_labels(names, kinds, levels),
        "layout": layout,
        "adjacent": {ROOMS[r]: [ROOMS[x] for x in adjacency[r]] for r in range(len(ROOMS))},
        "rooms": [list(row) for row in snap.rooms],
        "park": park,
        "players": players_json(view, snap, seat, reveal),
        "draw_pile": snap.deck_size, "discard": sum(snap.discard),
        "turn": {"gate_left": snap.gate_left, "gate_max": snap.gate_max,
                 "moves_left": snap.moves_left, "turq": snap.turq, "viol": snap.viol,
                 "rec": snap.rec, "draws_left": snap.draws_left},
        "legal": [action_json(a) for a in view.legal_actions()] if deciding else [],
        "can_undo": bool(can_undo and deciding),
        "thinking": seat_number(thinking if thinking >= 0 else None),
        "log": turn_log(start, actions, drawers, seat, reveal),
        "passing": passing,
        "version": version,
        "fairness": dict(fairness or {"commitment": None, "secret": None}),
        "resigned": [seat_number(q) for q in sorted(resigned)],
        "shared": shared,
        "rematch": rematch,
    }
