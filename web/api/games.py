"""Games: the server's offer (meta), a new game with its seat keys, rematch, delete, and
the public summary of the games a browser holds links for ("My games")."""

from __future__ import annotations

import importlib.metadata

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from common.seat_numbers import seat_number
from engine.components import default_components
from engine.constants import CARDS, PRIVILEGES, P_NONE, ROOMS
from engine.options import OPTIONS as RULE_OPTIONS
from play.i18n import LANGUAGE_NAMES, RULE_OPTION

from .. import making
from ..config import BUILTIN_PLAYERS
from ..credentials import SeatKeys
from ..inputs import json_body
from ..levels import levels_json
from ..session import Refused
from .common import Server, answer, api, seat_route

MAX_LISTED = 100                         # games asked about in one "My games" request


def pieces(components=None) -> dict:
    """The rooms, cards (with how many of each the set holds) and privileges, by code, in
    the rules' order: the page's one source of these lists."""
    components = components or default_components()
    return {"rooms": list(ROOMS),
            "cards": [{"id": card, "count": n} for card, n in zip(CARDS, components.cards_per_type)],
            "privileges": [name for p, name in enumerate(PRIVILEGES) if p != P_NONE]}


def meta(config) -> dict:
    """What the server offers. Every `label` and `help` is a catalog key the page
    translates (players: "player:NAME"; rule options: "rule option:NAME" and the help line's
    msgid); an --engine's label is its name, shown as it is, and its help its command."""
    players = [{"name": name, "kind": "builtin", "label": f"player:{name}", "help": f"player-help:{name}"}
               for name in BUILTIN_PLAYERS]
    players += [{"name": spec.name, "kind": "engine", "label": spec.name, "help": " ".join(spec.cmd)}
                for spec in config.engines]
    # each rule option as its declaration describes it for a form, its label a key of the catalogs
    options = [{**spec.describe(), "label": f"{RULE_OPTION}:{spec.name}"} for spec in RULE_OPTIONS]
    return {"version": importlib.metadata.version("palais-engine"), "players": players,
            "levels": levels_json(config.budget_ms_min, config.budget_ms_max), "pieces": pieces(),
            "languages": list(config.languages),
            "language_names": {code: LANGUAGE_NAMES[code] for code in config.languages},
            "rule_options": options,
            "limits": {"max_games": config.max_games, "idle_minutes": config.idle_minutes,
                       "max_upload_bytes": config.max_upload_bytes,
                       "max_message_bytes": config.max_message_bytes,
                       "engine_restarts": config.engine_restarts,
                       "budget_ms": {"min": config.budget_ms_min, "max": config.budget_ms_max,
                                     "default": config.budget_ms_default}}}


def created(session, keys, owner) -> dict:
    """The answer to whoever made a game: its id, the owner key, and per seat its key (the
    creator hands the others theirs as invitation links). `mine`: the seats this page plays
    (every person's in a shared game, else the first person's)."""
    people = sorted(session.human_seats)
    mine = people if session.shared else people[:1]
    view = session.start(mine[0] if mine else None)
    return {"game": session.id, "view": view, "owner": owner, "shared": session.shared,
            "mine": [seat_number(q) for q in mine],
            "seats": [{"seat": seat_number(q), "name": session.game.names[q],
                       "kind": session.kinds[q], "key": key} for q, key in enumerate(keys)],
            "commitment": session.commitment()}


def routes(server: Server) -> list:
    config, store = server.config, server.store

    @api
    async def get_meta(request):
        return JSONResponse(meta(config))

    @api
    async def new_game(request):
        data = await json_body(request, config.max_upload_bytes)
        settings = making.settings_of(config, data)
        session, keys, owner = await run_in_threadpool(making.create, server, settings)
        return answer(created(session, keys, owner), session)

    @seat_route(server)
    async def delete_game(request, access):
        if not access.owner:
            raise Refused("only the game's creator (the owner key) may delete it", 403)
        await run_in_threadpool(store.delete, access.session.id)
        return JSONResponse({"deleted": True})

    @seat_route(server)
    async def rematch(request, access):
        """The same people and engines, a new deal, every seat moved one place on (seat 1
        plays as seat 2, ...): each person's key now opens their new seat, so the links
        they hold bring them to the rematch. Only once the game is over; a seat an engine
        plays (one a person resigned included) gets no person's key."""
        session = access.session
        if not access.owner:
            raise Refused("only the game's creator (the owner key) may start a rematch", 403)
        with session.lock:
            if session.rematch_id is not None:
                raise Refused("this game has a rematch already", 409)
            if not session.game.over():
                raise Refused("a rematch starts once this game is over", 409)
            old = session.settings
            n = len(old["players"])

            def turned(values):
                return [values[(q - 1) % n] for q in range(n)]
            settings = {**old, "players": turned(old["players"]), "names": turned(old["names"]),
                        "levels": turned(old.get("levels") or [None] * n),
                        "seed": config.seeds.randrange(2 ** 31), "from_record": False}
            people = [player["kind"] == "human" for player in settings["players"]]
            keys = SeatKeys([key if person else None for key, person in zip(turned(session.keys.seats), people)],
                            session.keys.owner)
        new, _, _ = await run_in_threadpool(making.create, server, settings, None, keys)
        session.set_rematch(new.id)
        return answer({"game": new.id, "view": new.start(None)}, new)

    @api
    async def my_games(request):
        data = await json_body(request, config.max_upload_bytes)
        ids = data.get("games")
        if not isinstance(ids, list) or len(ids) > MAX_LISTED or not all(isinstance(i, str) for i in ids):
            raise Refused(f"games: expected a list of at most {MAX_LISTED} game ids")
        return JSONResponse({"games": await run_in_threadpool(store.summaries, ids)})

    return [
        Route("/api/meta", get_meta),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game}", delete_game, methods=["DELETE"]),
        Route("/api/games/{game}/rematch", rematch, methods=["POST"]),
        Route("/api/my-games", my_games, methods=["POST"]),
    ]
