"""The How-to-play page (GET /how-to-play, docs/web.md "How to play") and the one position its
pictures show (GET /api/how-to-play/view).

The pictures are drawn in the browser by the board's own code from a real View, so they can
never disagree with the board: the View is built here, by web/views.py like any game's, from
a short record shipped with the page (web/static/howto/demo.rec: five rounds of a 3-player
game, nobles recruited, servants in the park, majorities held), seen by seat 1.
"""

from __future__ import annotations

import functools

from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from play.game import PlayGame, read_game_text

from ..views import build_view
from .common import Server
from .pages import STATIC_DIR

PAGE = STATIC_DIR / "how-to-play.html"
DEMO_RECORD = STATIC_DIR / "howto" / "demo.rec"
DEMO_GAME_ID = "how-to-play"


@functools.lru_cache(maxsize=1)
def demo_view() -> dict:
    """The View of the demo record's last position for seat 1 (0-based 0): its hand shown,
    nobody to decide (no legal actions, so nothing in a picture is a target)."""
    record, start = read_game_text(DEMO_RECORD.read_text(encoding="utf-8"))
    game = PlayGame.from_record(record, start)
    n = game.n_players
    return build_view(DEMO_GAME_ID, game.state, game.start_state(), game.actions, game.drawers, 0,
                      names=game.names, kinds=["human"] * n, human_seats=set())


def routes(server: Server) -> list:
    async def page(request):
        return FileResponse(PAGE)

    async def view(request):
        return JSONResponse(demo_view(), headers={"cache-control": "max-age=3600"})

    return [Route("/how-to-play", page), Route("/api/how-to-play/view", view)]
