"""The analysis board (as on lichess): from a position of the game, another line of play, and
the engine's opinion of it. POST /api/games/{game}/explore {"ply": N, "actions": [...]}.

Why it is safe: the line is played on the asking seat's view of the position (engine
State.view: other hands and the pile are one unknown pool), never on the true state, so
whether an action is legal, the View returned and the evaluation hold nothing that seat
could not know; a seat's own draws and everyone's are chance events, where a line stops.
The evaluation is the hints' fair valuation (search/analysis.py's TurnValuer: a search of
its own from the position reached, from the asking seat's view, at the hints' fair budget),
for the seat that moves at the line's start. A spectator gets no analysis board (it would
need a seat's view to search from).
"""

from __future__ import annotations

import threading

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from common.seat_numbers import seat_number
from engine.errors import PalaisError
from engine.notation import action_to_token, token_to_action
from search.analysis import TurnValuer, engine_params, fair_iterations, review_params

from ..inputs import int_field, json_body
from ..session import Refused
from ..views import action_json, build_view, turn_steps
from .common import Server, seat_route

MAX_LINE = 200                   # actions of one explored line at the most
MAX_TOKEN = 32                   # characters of one token at the most (the longest is 19)
EXPLORE_SEED = 0xA11CE           # mixed with the game's seed: the same line, the same opinion

_busy: set = set()               # the games whose line is being valued now
_busy_lock = threading.Lock()


def read_line(data: dict, limit: int) -> tuple[int, list]:
    """(ply, actions) from the body: ply a whole number 0..limit; actions a list of at most
    MAX_LINE tokens (strings) or action ids (whole numbers), each read to an action id."""
    ply = int_field(data, "ply", 0, limit)
    if ply is None:
        raise Refused(f"ply: missing (a whole number 0..{limit})")
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise Refused("actions: expected a list of tokens or action ids")
    if len(actions) > MAX_LINE:
        raise Refused(f"actions: at most {MAX_LINE} in one line, got {len(actions)}")
    out = []
    for i, item in enumerate(actions):
        if type(item) is int:
            out.append(item)
        elif isinstance(item, str):
            if len(item) > MAX_TOKEN:
                raise Refused(f"actions[{i}]: a token has at most {MAX_TOKEN} characters")
            try:
                out.append(token_to_action(item))
            except PalaisError as exc:
                raise Refused(f"actions[{i}]: {exc}") from None
        else:
            raise Refused(f"actions[{i}]: expected a token or an action id, got {type(item).__name__}")
    return ply, out


def token_of(action: int) -> str:
    """The token of an action id, or the id itself when it names no action."""
    try:
        return action_to_token(action)
    except (PalaisError, ValueError, IndexError, OverflowError):
        return str(action)


def play_line(start, actions: list) -> object:
    """`start` (a seat's view) after `actions`, each checked legal in turn (Refused naming
    the first that is not, or the chance event or end of game that stops the line)."""
    after = start.copy()
    for i, action in enumerate(actions):
        if after.is_terminal():
            raise Refused(f"actions[{i}]: the game is over before it")
        if after.is_chance():
            raise Refused(f"actions[{i}]: a card draw is due before it; an explored line "
                          f"stops at a draw")
        if action not in after.legal_actions():
            raise Refused(f"actions[{i}]: {token_of(action)} is not legal there")
        after.apply(action)
    return after


def explore(session, seat: int, ply: int, actions: list, iterations: int) -> dict:
    """The View of the position the line reaches, as `seat` sees it, and its evaluation."""
    with session.lock:
        game = session.game
        if ply > len(game.actions):
            raise Refused(f"ply: expected a number 0..{len(game.actions)}, got {ply}")
        state = game.start_state()
        for action in game.actions[:ply]:
            state.apply(action)
        start = state.view(seat)
        start_log = (game.start_state(), list(game.actions[:ply]), list(game.drawers[:ply]))
        common = {"names": game.names, "kinds": session.kinds, "levels": session.levels,
                  "engines": session.engines(),
                  "fairness": session.fairness(), "resigned": session.resigned,
                  "shared": session.shared, "version": session.version}
        seed = session.seed
    if start.is_terminal():
        raise Refused("the game is over at that position: there is no line to try")
    mover = start.to_move
    after = play_line(start, actions)
    players = len(common["names"])
    valuer = TurnValuer(start, seat, engine_params(review_params(None, players), seed ^ EXPLORE_SEED, players),
                        iterations)
    win, score = valuer.values(actions)
    view = build_view(session.id, after, *start_log, seat, human_seats=set(), **common)
    deciding = not after.is_terminal() and not after.is_chance()
    view["legal"] = [action_json(a) for a in after.legal_actions()] if deciding else []
    view["explore"] = {"from": ply, "line": [action_to_token(a) for a in actions],
                       "steps": turn_steps(start, actions),
                       "draw_due": bool(after.is_chance() and not after.is_terminal())}
    return {"view": view,
            "evaluation": {"seat": seat_number(mover), "win": round(win[mover], 4),
                           "score": round(score[mover], 2),
                           "win_by_seat": [round(w, 4) for w in win],
                           "score_by_seat": [round(s, 2) for s in score],
                           "iterations": iterations}}


def routes(server: Server) -> list:
    config = server.config

    @seat_route(server)
    async def post_explore(request, access):
        session = access.session
        data = await json_body(request, config.max_message_bytes)
        if access.seat is None:
            raise Refused("the analysis board is for the game's seats (a seat's link): it "
                          "searches from a seat's view", 403)
        ply, actions = read_line(data, 10 ** 6)
        with _busy_lock:
            if session.id in _busy:
                raise Refused("a line of this game is being valued already", 409)
            _busy.add(session.id)
        try:
            answer = await run_in_threadpool(explore, session, access.seat, ply, actions,
                                             fair_iterations(config.hint_iterations))
        finally:
            with _busy_lock:
                _busy.discard(session.id)
        return JSONResponse(answer)

    return [Route("/api/games/{game}/explore", post_explore, methods=["POST"])]
