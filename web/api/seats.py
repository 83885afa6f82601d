"""A seat's routes: its view, its decisions, take-backs, hints, resigning, and the game's
WebSocket. Every one goes through the seat check (common.seat_route, or the socket's first
message): without a key the caller is a spectator, who sees the public view and may do
nothing else; a key of no seat is refused (403; on the socket 4403)."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from search.params import SearchLimits

from ..clients import client_address
from ..inputs import int_field, json_body
from ..i18n import translator
from ..session import IDLE, RESTART, STALE_MESSAGE, Refused, Stale, Watcher
from .common import Server, access, answer, language, seat_route

MAX_HINTS = 10
# The least search a hint may ask for ("iterations"; the guided first game asks for 200):
# below it the engine's hint says little.
MIN_HINT_ITERATIONS = 50
WS_FORBIDDEN = 4403
WS_TOO_BIG = 1009
WS_BAD_REQUEST = 1008                # policy violation: a bad request, such as a bad hello
WS_GONE = 4404                       # no such game (any more): a page should not reconnect
WS_RESTART = 1012                    # service restart: the game is kept, a page reconnects
WS_IDLE = 4408                       # the game left memory unused: it is kept, a page reconnects
RESTART_REASON = "the game is kept on the server: reconnect to go on"
IDLE_REASON = "the game was put away after being idle; it is kept: reconnect to bring it back"
WS_TRY_LATER = 1013                  # too many sockets (of this game, this seat, the server)
WS_CLOSE_CODES = {403: WS_FORBIDDEN, 404: WS_GONE, 503: WS_TRY_LATER}     # a refusal's HTTP status -> close code
WS_REASON_BYTES = 123                # the most a close frame's reason may hold (RFC 6455)
WS_QUEUE = 256                       # messages waiting for a slow page; past that, dropped
HELLO_TIMEOUT_S = 10.0               # a socket's first message, with its key, must come by then


def close_reason(text: str) -> str:
    """`text` cut to what a WebSocket close frame can carry (whole characters only)."""
    return text.encode()[:WS_REASON_BYTES].decode(errors="ignore")


class SocketCount:
    """The open WebSockets: of the server, per game and seat (None: spectators), and per
    client address where a trusted proxy tells it (web/clients.py). A new one past a cap is
    refused (503, closed with 1013 "try again later"), so sockets can never starve the
    players' requests (docs/web.md, "Limits")."""

    def __init__(self, config):
        self.config = config
        self.lock = threading.Lock()
        self.total = 0
        self.open = {}                       # (game id, seat) -> sockets
        self.by_address = {}                 # client address -> sockets

    def admit(self, game_id: str, seat, address: str | None = None) -> tuple:
        config = self.config
        cap, who = ((config.max_spectator_sockets, "spectators of this game") if seat is None
                    else (config.max_seat_sockets, f"seat {seat + 1} of this game"))
        place = (game_id, seat, address)
        with self.lock:
            if self.total >= config.max_sockets:
                raise Refused(f"the server has {config.max_sockets} live connections open, its most: "
                              "try again later", 503)
            if self.open.get(place[:2], 0) >= cap:
                raise Refused(f"{cap} live connections are open for {who}, the most: close one "
                              "or try again later", 503)
            if address is not None and self.by_address.get(address, 0) >= config.max_address_sockets:
                raise Refused(f"{config.max_address_sockets} live connections are open from your "
                              "address, the most: close one or try again later", 503)
            self.total += 1
            count(self.open, place[:2], +1)
            if address is not None:
                count(self.by_address, address, +1)
        return place

    def leave(self, place: tuple) -> None:
        with self.lock:
            self.total -= 1
            count(self.open, place[:2], -1)
            if place[2] is not None:
                count(self.by_address, place[2], -1)


def count(counts: dict, key, step: int) -> None:
    """counts[key] += step, the key gone at zero (so the dict holds only what is open)."""
    counts[key] = counts.get(key, 0) + step
    if not counts[key]:
        del counts[key]


def routes(server: Server) -> list:
    config, store = server.config, server.store
    sockets = SocketCount(config)

    @seat_route(server)
    async def get_view(request, access):
        access.session.release()
        return JSONResponse(access.session.view(access.seat))

    def change(change):
        """A seat's change (act, undo, resign) from a body {"version": V, "lang": L, ...}:
        its answer, or a Stale refusal whose message is in the seat's language."""
        @seat_route(server)
        async def route(request, access):
            data = await json_body(request, config.max_message_bytes)
            lang = language(server, data)
            try:
                view = change(access.session, access.seat, data)
            except Stale as exc:
                raise Refused(translator(lang)(STALE_MESSAGE), exc.status, exc.extra) from None
            return answer(view, access.session)
        return route

    post_action = change(lambda session, seat, data: session.act(seat, data.get("action"), data.get("version")))
    post_undo = change(lambda session, seat, data: session.undo(seat, data.get("version")))
    post_resign = change(lambda session, seat, data: session.resign(seat, data.get("version")))

    @seat_route(server)
    async def post_hint(request, access):
        from play.hints import find_hints

        from ..review import hints_json
        session = access.session
        data = await json_body(request, config.max_message_bytes)
        top = int_field(data, "top", 1, MAX_HINTS, 3)
        # a smaller search than the server's may be asked for (the guided game's hints), never a larger one
        iterations = int_field(data, "iterations", min(MIN_HINT_ITERATIONS, config.hint_iterations),
                               config.hint_iterations, config.hint_iterations)
        lang = language(server, data)
        with session.hint_state(access.seat) as state:
            report = await run_in_threadpool(find_hints, state, SearchLimits(iterations=iterations),
                                             top=top, seed=session.seed, lang=lang)
            hints = hints_json(report, state, config.languages)
        return JSONResponse(hints)

    async def hello(websocket: WebSocket):
        """The socket's first message, {"key": KEY or null}: the seat it watches as."""
        expected = "expected a first message {\"key\": KEY or null}"
        try:
            message = await asyncio.wait_for(websocket.receive_json(), HELLO_TIMEOUT_S)
        except (asyncio.TimeoutError, ValueError, KeyError, TypeError, RecursionError):
            raise Refused(expected) from None        # (nested too deep for the parser: RecursionError)
        if not isinstance(message, dict):
            raise Refused(expected)
        key = message.get("key")
        if key is not None and not isinstance(key, str):
            raise Refused(expected)
        return key

    async def game_socket(websocket: WebSocket):
        await websocket.accept()
        if not server.policy.origin_allowed(websocket.headers.get("origin"),
                                            server_port(websocket.scope)):
            await websocket.close(code=WS_FORBIDDEN, reason="foreign Origin")
            return
        try:
            session = await run_in_threadpool(store.get, websocket.path_params["game"])
            seat = access(session, await hello(websocket)).seat
            place = sockets.admit(session.id, seat, client_address(websocket.scope, config.trusted_proxies))
        except Refused as exc:
            await websocket.send_json({"type": "error", "error": str(exc), **exc.extra})
            await websocket.close(code=WS_CLOSE_CODES.get(exc.status, WS_BAD_REQUEST),
                                  reason=close_reason(str(exc)))
            return
        except WebSocketDisconnect:
            return
        try:
            await follow(websocket, session, seat)
        finally:
            sockets.leave(place)

    async def follow(websocket: WebSocket, session, seat):
        """The socket of an admitted watcher, until either side ends it."""
        session.release()                       # an engine turn whose request was cut short
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue(WS_QUEUE)

        def put(message):
            if message is None or message is RESTART or message is IDLE:    # the end: make room for it
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
                if message is RESTART:          # the server stops; the game stays in the database
                    await websocket.close(code=WS_RESTART, reason=RESTART_REASON)
                    return
                if message is IDLE:             # the game left memory unused; it stays stored
                    await websocket.close(code=WS_IDLE, reason=IDLE_REASON)
                    return
                if isinstance(message, str):        # JSON text already (a View encoded once per seat)
                    await websocket.send_text(message)
                else:
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

    return [
        Route("/api/games/{game}/view", get_view),
        Route("/api/games/{game}/action", post_action, methods=["POST"]),
        Route("/api/games/{game}/undo", post_undo, methods=["POST"]),
        Route("/api/games/{game}/resign", post_resign, methods=["POST"]),
        Route("/api/games/{game}/hint", post_hint, methods=["POST"]),
        WebSocketRoute("/ws/games/{game}", game_socket),
    ]


def server_port(scope) -> int | None:
    """The port the request reached (the ASGI server's socket), if the server says."""
    server = scope.get("server")
    return server[1] if server and len(server) > 1 and isinstance(server[1], int) else None
