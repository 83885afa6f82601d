"""Records: the download (a seat's own view while the game goes on, the full record with
the draw secret once it is over) and the upload of a record as a new game, any of whose
seats may be given to an engine."""

from __future__ import annotations

import collections
import threading
import time

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.routing import Route

from engine.errors import PalaisError
from play.game import PlayGame, read_game_text

from .. import making
from ..clients import client_address
from ..inputs import read_body
from ..session import Refused
from .common import Server, answer, api, seat_route
from .games import created


def capped_name(name: str, q: int) -> str:
    """A record's seat name as a new game's: at most MAX_NAME characters (a record may hold
    any length; the rest is dropped, marked with an ellipsis), "Player N" for none."""
    name = (name or "").strip() or f"Player {q + 1}"
    return name if len(name) <= making.MAX_NAME else name[:making.MAX_NAME - 1] + "…"


class UploadRate:
    """At most `per_hour` uploads in any hour for the whole server, and `per_address` from
    one client address where a trusted proxy tells it (web/clients.py): on 127.0.0.1 every
    program of the machine is one address, so without a proxy it counts uploads only."""

    def __init__(self, per_hour: int, per_address: int, clock=time.monotonic):
        self.per_hour = per_hour
        self.per_address = per_address
        self.clock = clock
        self.times = collections.deque()             # (time, address) of each upload
        self.lock = threading.Lock()

    def take(self, address: str | None = None) -> None:
        now = self.clock()
        with self.lock:
            while self.times and now - self.times[0][0] >= 3600:
                self.times.popleft()
            if len(self.times) >= self.per_hour:
                raise Refused(f"{self.per_hour} records were loaded in the last hour, the server's most: "
                              f"try again in {self._wait(now, self.times[0][0])} s", 429)
            if address is not None:
                mine = [t for t, a in self.times if a == address]
                if len(mine) >= self.per_address:
                    raise Refused(f"{self.per_address} records were loaded from your address in the "
                                  f"last hour, the most: try again in {self._wait(now, mine[0])} s", 429)
            self.times.append((now, address))

    @staticmethod
    def _wait(now: float, oldest: float) -> int:
        return int(3600 - (now - oldest)) + 1


def load_record(server: Server, raw: bytes, players_text: str | None):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"the record is not UTF-8 text (byte {exc.start})") from None
    try:
        rec, start = read_game_text(text)
        game = PlayGame.from_record(rec, start)
    except (PalaisError, ValueError, RecursionError) as exc:
        raise Refused(f"cannot load the record: {exc}") from None
    n = game.n_players
    kinds = ["human"] * n
    if players_text:
        kinds = players_text.split(",")
        if len(kinds) != n:
            raise Refused(f"players: expected {n} comma-separated players (human or an engine's "
                          f"name), one per seat of the record")
    players = making.players_of(kinds)
    making.seat_specs(server.config, players)
    game.names = [capped_name(name, q) for q, name in enumerate(game.names)]
    settings = {"players": players, "names": list(game.names), "seed": game.seed,
                "budget_ms": server.config.budget_ms_default,
                "options": game.options.to_dict() if game.options else {},
                "first_game": game.first_game, "shared": True, "from_record": True}
    return making.create(server, settings, game)


def routes(server: Server) -> list:
    config = server.config

    @seat_route(server)
    async def get_record(request, access):
        session = access.session
        text = await run_in_threadpool(session.record_text, access.seat)
        return Response(text, media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="palais-{session.id[:8]}.txt"',
            "Cache-Control": "no-store"})

    uploads = UploadRate(config.max_uploads_per_hour, config.max_address_uploads_per_hour, config.clock)

    @api
    async def post_record(request):
        raw = await read_body(request, config.max_upload_bytes)
        uploads.take(client_address(request.scope, config.trusted_proxies))
        players = request.query_params.get("players")
        session, keys, owner = await run_in_threadpool(load_record, server, raw, players)
        return answer(created(session, keys, owner), session)

    return [
        Route("/api/games/{game}/record", get_record),
        Route("/api/records", post_record, methods=["POST"]),
    ]
