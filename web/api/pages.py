"""The page itself, its static files and its language catalogs."""

from __future__ import annotations

from pathlib import Path

from starlette.responses import FileResponse, HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..session import Refused
from .common import Server, api

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"


def routes(server: Server) -> list:
    config = server.config

    async def index(request):
        page = STATIC_DIR / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse("<!doctype html><title>palais serve</title><p>The page is not installed; "
                            "the API is under /api.</p>")

    @api
    async def get_i18n(request):
        lang = request.path_params["lang"]
        try:
            from .. import i18n
            table = i18n.catalog_json(lang)
        except (ImportError, ValueError):
            raise Refused(f"no language {lang[:20]!r} (languages: {', '.join(config.languages)})", 404) from None
        return JSONResponse(table)

    async def favicon(request):
        """The tab's icon (a small SVG), where browsers look for it first."""
        return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml",
                            headers={"cache-control": "max-age=86400"})

    return [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/i18n/{lang}", get_i18n),
        Mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static"),
    ]
