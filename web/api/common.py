"""What every route module shares: the Server (configuration, game store, Host policy), the
error answers, and the seat check `seat_route` that every route naming a seat goes through."""

from __future__ import annotations

from dataclasses import dataclass
from functools import wraps

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from engine.errors import PalaisError

from ..config import ServerConfig
from ..credentials import KEY_HEADER
from ..security import HostPolicy
from ..session import GameSession, Refused
from ..store import GameStore


@dataclass
class Server:
    config: ServerConfig
    store: GameStore
    policy: HostPolicy
    open_seat: object                      # how an engine seat is started (web/engine_seat.py)
    analyses: object                       # the server's queue of analyses (web/analyses.py)


@dataclass
class Access:
    """Who is asking about a game: its session, the seat (0-based) whose key the request
    carries or None (a spectator), and whether it carries the owner's key."""
    session: GameSession
    seat: int | None
    owner: bool


def error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def api(handler):
    """Answer Refused with its status and any other PalaisError with 400, as `{"error"}`."""
    @wraps(handler)
    async def wrapper(request):
        try:
            return await handler(request)
        except Refused as exc:
            return JSONResponse({"error": str(exc), **exc.extra}, status_code=exc.status)
        except PalaisError as exc:
            return error(str(exc))
    return wrapper


BAD_KEY = "this seat link is not valid for this game"


def access(session: GameSession, key) -> Access:
    """The Access a key gives to `session`: no key (None or empty) is a spectator's; a key of
    one of its seats is that seat's, the owner key the owner's. Any other key is refused
    (403, `bad_key`: the page says its link is not valid, rather than quietly showing a
    spectator's page): every seat's hash and the owner's are compared in constant time
    whatever the key, and the answer is the same for every wrong key, so it tells nothing
    about which keys exist, and nothing of the game beyond what a spectator sees."""
    keys = session.keys
    seat = session.seat_of(key)
    owner = keys is not None and keys.is_owner(key)
    if key not in (None, "") and seat is None and not owner:
        raise Refused(BAD_KEY, 403, {"bad_key": True})
    return Access(session, seat, owner)


def seat_route(server: Server):
    """The seat check, as one decorator: the handler gets (request, Access) for the game of
    the path, with the seat whose key the X-Palais-Key header carries (None without one);
    a key of no seat of this game (nor its owner's) is refused (`access`)."""
    def decorate(handler):
        @api
        @wraps(handler)
        async def wrapper(request):
            # in a worker thread: bringing a stored game back starts its engines
            session = await run_in_threadpool(server.store.get, request.path_params["game"])
            return await handler(request, access(session, request.headers.get(KEY_HEADER)))
        return wrapper
    return decorate


def answer(data: dict, session) -> JSONResponse:
    """`data` as JSON, and once it is sent, the engine turn the request handed out (so the
    page gets this answer before the engine's moves come over the WebSocket)."""
    return JSONResponse(data, background=BackgroundTask(session.release))


def language(server: Server, data: dict) -> str:
    lang = data.get("lang", "en")
    if not isinstance(lang, str) or lang not in server.config.languages:
        raise Refused(f"lang: expected one of {', '.join(server.config.languages)}")
    return lang
