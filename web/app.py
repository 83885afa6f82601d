"""The `palais serve` web app: static page, JSON API and WebSockets (docs/web.md).

`create_app(config)` builds a Starlette app over a SessionStore of live games. Every
handler checks its input and answers a 4xx `{"error": "<one line>"}` for anything wrong;
every engine comes from the server's configuration, never from a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
from functools import wraps
from pathlib import Path

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.errors import PalaisError
from engine.options import OPTION_HELP, RuleOptions, int_range
from play.game import PlayGame, read_game_text
from play.seats import SeatSpec
from search.algorithms import REGISTRY
from search.params import SearchLimits
from tournament.engines import EngineSpecError, check_name

from .config import BUILTIN_PLAYERS, ServerConfig
from .engine_seat import opener
from .inputs import int_field, json_body, query_int, read_body
from .security import HostPolicy
from .session import GameSession, Refused, Watcher
from .store import SessionStore
from .views import SPECTATOR

STATIC_DIR = Path(__file__).resolve().parent / "static"
MAX_NAME = 24
MAX_HINTS = 10
WS_FORBIDDEN = 4403
WS_TOO_BIG = 1009
WS_BAD_REQUEST = 1008                # policy violation: a bad request, such as ?seat=x
WS_GONE = 4404                       # no such game (any more): a page should not reconnect
WS_CLOSE_CODES = {403: WS_FORBIDDEN, 404: WS_GONE}     # a refusal's HTTP status -> close code
WS_REASON_BYTES = 123                # the most a close frame's reason may hold (RFC 6455)
WS_QUEUE = 256                      # messages waiting for a slow page; past that, dropped


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def api(handler):
    """Answer Refused with its status and any other PalaisError with 400, as `{"error"}`."""
    @wraps(handler)
    async def wrapper(request):
        try:
            return await handler(request)
        except Refused as exc:
            return _error(str(exc), exc.status)
        except PalaisError as exc:
            return _error(str(exc))
    return wrapper


def close_reason(text: str) -> str:
    """`text` cut to what a WebSocket close frame can carry (whole characters only)."""
    return text.encode()[:WS_REASON_BYTES].decode(errors="ignore")


def answer(data: dict, session) -> JSONResponse:
    """`data` as JSON, and once it is sent, the engine turn the request handed out (so the
    page gets this answer before the engine's moves come over the WebSocket)."""
    return JSONResponse(data, background=BackgroundTask(session.release))


def create_app(config: ServerConfig | None = None) -> Starlette:
    config = config or ServerConfig()
    store = SessionStore(config.max_games, config.idle_minutes * 60, config.clock)
    policy = HostPolicy.of(config.host, config.allow_hosts, config.port)
    seat_opener = opener(config.engine_start_timeout_s, config.engine_overrun_s)

    # ---- meta ----------------------------------------------------------------------------

    def meta() -> dict:
        players = [{"name": name, "kind": "builtin", "label": REGISTRY[name].help}
                   for name in BUILTIN_PLAYERS]
        players += [{"name": spec.name, "kind": "engine", "label": " ".join(spec.cmd)}
                    for spec in config.engines]
        options = []
        for name, default in RuleOptions().to_dict().items():
            entry = {"name": name, "type": "bool" if isinstance(default, bool) else "int",
                     "default": default, "help": OPTION_HELP.get(name, "")}
            if int_range(name):
                entry["min"], entry["max"] = int_range(name)
            options.append(entry)
        return {"version": importlib.metadata.version("palais-engine"), "players": players,
                "languages": list(config.languages), "rule_options": options,
                "limits": {"max_games": config.max_games, "idle_minutes": config.idle_minutes,
                           "max_upload_bytes": config.max_upload_bytes,
                           "max_message_bytes": config.max_message_bytes,
                           "engine_restarts": config.engine_restarts,
                           "budget_ms": {"min": config.budget_ms_min, "max": config.budget_ms_max,
                                         "default": config.budget_ms_default}}}

    @api
    async def get_meta(request):
        return JSONResponse(meta())

    # ---- games ---------------------------------------------------------------------------

    def seat_specs(players) -> tuple:
        if not isinstance(players, list) or not 2 <= len(players) <= 4:
            raise Refused("players: expected a list of 2 to 4 seats")
        specs, kinds = [], []
        for q, player in enumerate(players, 1):
            kind = player.get("kind") if isinstance(player, dict) else None
            if kind == "human":
                specs.append(SeatSpec("human"))
                kinds.append("human")
                continue
            name = player.get("name") if kind == "engine" else None
            if kind != "engine" or not isinstance(name, str):
                raise Refused(f"players[{q - 1}]: expected {{\"kind\": \"human\"}} or "
                              f"{{\"kind\": \"engine\", \"name\": NAME}}")
            engine = config.engine(name)
            if name in BUILTIN_PLAYERS:
                specs.append(SeatSpec(name))
            elif engine is not None:
                specs.append(SeatSpec("cmd", engine.cmd, engine.options))
            else:
                raise Refused(f"players[{q - 1}]: no player {name[:40]!r} "
                              f"(players: {', '.join(config.player_names())})")
            kinds.append(name)
        return specs, kinds

    def seat_names(names, kinds) -> list:
        if names is None:
            return [f"Player {q + 1}" if k == "human" else k for q, k in enumerate(kinds)]
        if not isinstance(names, list) or len(names) != len(kinds):
            raise Refused(f"names: expected a list of {len(kinds)} names or null")
        for q, name in enumerate(names):
            if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
                raise Refused(f"names[{q}]: expected a name of 1..{MAX_NAME} characters")
            try:
                check_name(name)
            except EngineSpecError as exc:
                raise Refused(f"names[{q}]: {exc}") from None
        return list(names)

    def make_game(data: dict) -> GameSession:
        specs, kinds = seat_specs(data.get("players"))
        first_game = data.get("first_game", False)
        if not isinstance(first_game, bool):
            raise Refused("first_game: expected true or false")
        seed = int_field(data, "seed", 0, 2 ** 63 - 1)
        if seed is None:
            seed = config.seeds.randrange(2 ** 31)
        budget = int_field(data, "budget_ms", config.budget_ms_min, config.budget_ms_max,
                           config.budget_ms_default)
        options = data.get("options") or {}
        try:
            options = RuleOptions.from_dict(options)
        except (PalaisError, TypeError) as exc:
            raise Refused(f"options: {exc}") from None
        names = seat_names(data.get("names"), kinds)
        game = PlayGame.new(len(specs), seed, names, options=options, first_game=first_game)
        return store.create(lambda game_id: GameSession(
            game_id, game, kinds, specs, SearchLimits(time_ms=budget), seed, clock=config.clock,
            engine_restarts=config.engine_restarts, open_seat=seat_opener))

    @api
    async def new_game(request):
        data = await json_body(request, config.max_upload_bytes)
        session = await run_in_threadpool(make_game, data)
        humans = sorted(session.human_seats)
        view = session.start(humans[0] if humans else SPECTATOR)
        return answer({"game": session.id, "view": view}, session)

    @api
    async def delete_game(request):
        await run_in_threadpool(store.delete, request.path_params["game"])
        return JSONResponse({"deleted": True})

    @api
    async def get_view(request):
        session = store.get(request.path_params["game"])
        seat = session.check_seat(query_int(request, "seat", SPECTATOR))
        session.release()
        return JSONResponse(session.view(seat))

    @api
    async def post_action(request):
        session = store.get(request.path_params["game"])
        data = await json_body(request, config.max_message_bytes)
        return answer(session.act(data.get("seat"), data.get("action")), session)

    @api
    async def post_undo(request):
        session = store.get(request.path_params["game"])
        data = await json_body(request, config.max_message_bytes)
        return answer(session.undo(data.get("seat")), session)

    def language(data: dict) -> str:
        lang = data.get("lang", "en")
        if not isinstance(lang, str) or lang not in config.languages:
            raise Refused(f"lang: expected one of {', '.join(config.languages)}")
        return lang

    @api
    async def post_hint(request):
        from play.hints import find_hints

        from .review import hints_json
        session = store.get(request.path_params["game"])
        data = await json_body(request, config.max_message_bytes)
        top = int_field(data, "top", 1, MAX_HINTS, 3)
        lang = language(data)
        with session.hint_state(data.get("seat")) as state:
            report = await run_in_threadpool(find_hints, state, SearchLimits(iterations=config.hint_iterations),
                                             top=top, seed=session.seed, lang=lang)
        return JSONResponse(hints_json(report))

    @api
    async def get_record(request):
        session = store.get(request.path_params["game"])
        with session.lock:
            text = session.game.record_text()
        return Response(text, media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="palais-{session.id[:8]}.txt"'})

    def load_record(raw: bytes) -> GameSession:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused(f"the record is not UTF-8 text (byte {exc.start})") from None
        try:
            rec, start = read_game_text(text)
            game = PlayGame.from_record(rec, start)
        except (PalaisError, ValueError, RecursionError) as exc:
            raise Refused(f"cannot load the record: {exc}") from None
        kinds = ["human"] * game.n_players
        return store.create(lambda game_id: GameSession(
            game_id, game, kinds, [SeatSpec("human")] * game.n_players,
            SearchLimits(time_ms=config.budget_ms_default), game.seed, from_record=True,
            clock=config.clock))

    @api
    async def post_record(request):
        raw = await read_body(request, config.max_upload_bytes)
        session = await run_in_threadpool(load_record, raw)
        return answer({"game": session.id, "view": session.start(SPECTATOR)}, session)

    @api
    async def post_analyse(request):
        session = store.get(request.path_params["game"])
        data = await json_body(request, config.max_message_bytes)
        budget = int_field(data, "budget_ms", config.budget_ms_min, config.budget_ms_max)
        limits = SearchLimits(time_ms=budget) if budget else SearchLimits(iterations=config.analysis_iterations)
        session.start_analysis(limits, session.seed, language(data))
        return JSONResponse({"started": True})

    @api
    async def get_analysis(request):
        session = store.get(request.path_params["game"])
        if session.analysis is None:
            raise Refused("no finished analysis of this game yet", 404)
        return JSONResponse(session.analysis)

    @api
    async def get_position(request):
        session = store.get(request.path_params["game"])
        seat = session.check_seat(query_int(request, "seat", SPECTATOR))
        ply = query_int(request, "ply")
        view = await run_in_threadpool(session.position, ply, seat)
        return JSONResponse(view)

    @api
    async def get_i18n(request):
        lang = request.path_params["lang"]
        try:
            from . import i18n
            messages = i18n.messages(lang)
        except (ImportError, ValueError):
            raise Refused(f"no language {lang[:20]!r} (languages: {', '.join(config.languages)})", 404) from None
        return JSONResponse({"lang": lang, "messages": messages})

    # ---- the page --------------------------------------------------------------------------

    async def index(request):
        page = STATIC_DIR / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse("<!doctype html><title>palais serve</title><p>The page is not installed; "
                            "the API is under /api.</p>")

    # ---- WebSocket -------------------------------------------------------------------------

    async def game_socket(websocket: WebSocket):
        await websocket.accept()
        if not policy.origin_allowed(websocket.headers.get("origin"), server_port(websocket.scope)):
            await websocket.close(code=WS_FORBIDDEN, reason="foreign Origin")
            return
        try:
            session = store.get(websocket.path_params["game"])
            seat = session.check_seat(query_int(websocket, "seat", SPECTATOR))
        except Refused as exc:
            await websocket.send_json({"type": "error", "error": str(exc)})
            await websocket.close(code=WS_CLOSE_CODES.get(exc.status, WS_BAD_REQUEST),
                                  reason=close_reason(str(exc)))
            return
        session.release()                       # an engine turn whose request was cut short
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue(WS_QUEUE)

        def put(message):
            if message is None:                 # the game is gone: make room for the end
                while queue.full():
                    queue.get_nowait()
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(message)

        def send(message):              # from any thread; nothing once the loop has closed
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(put, message)

        watcher = Watcher(seat, send)
        session.watch(watcher)
        put({"type": "view", "view": session.view(seat)})

        async def pump():
            while True:
                message = await queue.get()
                if message is None:
                    await websocket.close(code=WS_GONE, reason="this game is closed on the server")
                    return
                await websocket.send_json(message)

        sender = asyncio.create_task(pump())
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                size = len(message.get("bytes") or b"") + len((message.get("text") or "").encode())
                if size > config.max_message_bytes:
                    await websocket.close(code=WS_TOO_BIG, reason="message too big")
                    break
        except WebSocketDisconnect:
            pass
        finally:
            session.unwatch(watcher)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    # ---- the app -------------------------------------------------------------------------

    async def sweep():
        """End the games left unused past --idle-minutes, every sweep_interval_s."""
        while True:
            await asyncio.sleep(config.sweep_interval_s)
            await run_in_threadpool(store.expire_idle)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        sweeper = asyncio.create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await run_in_threadpool(store.close_all)

    routes = [
        Route("/", index),
        Route("/api/meta", get_meta),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game}", delete_game, methods=["DELETE"]),
        Route("/api/games/{game}/view", get_view),
        Route("/api/games/{game}/action", post_action, methods=["POST"]),
        Route("/api/games/{game}/undo", post_undo, methods=["POST"]),
        Route("/api/games/{game}/hint", post_hint, methods=["POST"]),
        Route("/api/games/{game}/record", get_record),
        Route("/api/records", post_record, methods=["POST"]),
        Route("/api/games/{game}/analyse", post_analyse, methods=["POST"]),
        Route("/api/games/{game}/analysis", get_analysis),
        Route("/api/games/{game}/position", get_position),
        Route("/api/i18n/{lang}", get_i18n),
        WebSocketRoute("/ws/games/{game}", game_socket),
        Mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(GuardMiddleware, policy=policy)])
    app.state.config = config
    app.state.store = store
    return app


def server_port(scope) -> int | None:
    """The port the request reached (the ASGI server's socket), if the server says."""
    server = scope.get("server")
    return server[1] if server and len(server) > 1 and isinstance(server[1], int) else None


class GuardMiddleware:
    """The Host and Origin checks of web/security.py in front of every request, WebSockets
    included (a plain ASGI middleware)."""

    def __init__(self, app, policy: HostPolicy):
        self.app = app
        self.policy = policy

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
            host, port = headers.get("host", ""), server_port(scope)
            refusal = None
            if not self.policy.host_allowed(host, port):
                refusal = (f"refused: Host {host[:60]!r} is not a name of this server "
                           f"({self.policy.shown_names()}; palais serve --allow-host NAME adds one)")
            elif scope["type"] == "http" and scope.get("method") not in ("GET", "HEAD", "OPTIONS") \
                    and not self.policy.origin_allowed(headers.get("origin"), port):
                refusal = (f"refused: Origin {headers.get('origin', '')[:60]!r} is not this "
                           f"server's page; this server answers only its own page")
            if refusal is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": WS_FORBIDDEN})
                    return
                await _error(refusal, 403)(scope, receive, send)
                return
        await self.app(scope, receive, send)
