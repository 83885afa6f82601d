"""Review: stepping through the positions of a game (as the asking seat sees them) and the
engine's analysis of a finished game (or of an uploaded record)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from search.params import SearchLimits

from ..inputs import int_field, json_body, query_int
from ..session import Refused
from .common import Server, language, seat_route


def routes(server: Server) -> list:
    config = server.config

    @seat_route(server)
    async def post_analyse(request, access):
        session = access.session
        data = await json_body(request, config.max_message_bytes)
        budget = int_field(data, "budget_ms", config.budget_ms_min, config.analysis_budget_ms_max)
        limits = SearchLimits(time_ms=budget) if budget else SearchLimits(iterations=config.analysis_iterations)
        if not session.analysis_open_to(access.seat):
            raise Refused("a game is analysed once it is over (the analysis shows every "
                          "hand); a loaded record, at once, by one of its seats", 403)
        session.start_analysis(limits, session.seed, language(server, data), server.analyses)
        return JSONResponse({"started": True})

    @seat_route(server)
    async def get_analysis(request, access):
        session = access.session
        if session.analysis is None:
            raise Refused("no finished analysis of this game yet", 404)
        if not session.analysis_open_to(access.seat):
            raise Refused("the analysis of a game still going on is for its seats", 403)
        return JSONResponse(session.analysis)

    @seat_route(server)
    async def get_position(request, access):
        ply = query_int(request, "ply")
        view = await run_in_threadpool(access.session.position, ply, access.seat)
        return JSONResponse(view)

    return [
        Route("/api/games/{game}/analyse", post_analyse, methods=["POST"]),
        Route("/api/games/{game}/analysis", get_analysis),
        Route("/api/games/{game}/position", get_position),
    ]
