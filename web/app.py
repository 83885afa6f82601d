"""The `palais serve` web app: static page, JSON API and WebSockets (docs/web.md).

`create_app(config, store)` puts together the route modules of web/api/ (games, seats,
records, analysis, pages) over one GameStore (web/store.py: in memory; web/sql_store.py: in
SQLite or PostgreSQL), behind the Host/Origin guard (web/guard.py). Every handler checks its input and
answers a 4xx `{"error": "<one line>"}` for anything wrong; every engine comes from the
server's configuration, never from a request; every route naming a seat goes through
one seat check (web/api/common.py's seat_route).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.responses import JSONResponse

from .api import analysis, explore, games, howto, pages, records, seats
from .analyses import AnalysisGate
from .api.common import Server
from .config import ServerConfig
from .engine_seat import opener
from .guard import GuardMiddleware
from .security import HostPolicy
from .store import GameStore, MemoryStore

log = logging.getLogger("palais.serve")
SWEEP_BACKOFF = 16                  # a failing sweeper waits at most this many intervals


def open_store(config: ServerConfig) -> GameStore:
    """The store `config.db` names: in memory for ":memory:" (or None), PostgreSQL for a
    postgresql:// DSN, else an SQLite file."""
    if config.db in (None, ":memory:"):
        return MemoryStore(config.max_games, config.idle_minutes * 60, config.clock)
    from .postgres_store import PostgresStore, is_postgres
    if is_postgres(config.db):
        return PostgresStore(config.db, config.max_games, config.idle_minutes * 60, config.clock,
                             keep_days=config.keep_days, max_bytes=config.max_db_mb * 2 ** 20,
                             password=config.db_password)
    from .sqlite_store import SqliteStore
    return SqliteStore(config.db, config.max_games, config.idle_minutes * 60, config.clock,
                       keep_days=config.keep_days, max_bytes=config.max_db_mb * 2 ** 20)


def create_app(config: ServerConfig | None = None, store: GameStore | None = None) -> Starlette:
    config = config or ServerConfig()
    store = store if store is not None else open_store(config)      # (an empty store is falsy: it has a len)
    policy = HostPolicy.of(config.host, config.allow_hosts, config.port)
    server = Server(config, store, policy, opener(config.engine_start_timeout_s, config.engine_overrun_s, config.sandbox),
                    AnalysisGate(config.analysis_slots, config.analysis_queue, config.analysis_processes))
    if hasattr(store, "bind"):
        store.bind(server)                  # a lasting store brings games back through the server

    async def sweep():
        """End the games left unused past --idle-minutes, every sweep_interval_s. A sweep
        that fails (a database locked past its busy timeout, say) is logged and tried again,
        the wait doubling after each failure in a row (at most SWEEP_BACKOFF times)."""
        failures = 0
        while True:
            await asyncio.sleep(config.sweep_interval_s * min(2 ** failures, SWEEP_BACKOFF))
            try:
                await run_in_threadpool(store.expire_idle)
                failures = 0
            except Exception as exc:         # noqa: BLE001 (any fault: the sweeper must live on)
                failures += 1
                log.error("sweeping idle games failed (%s: %s); trying again in %g s", type(exc).__name__,
                          exc, config.sweep_interval_s * min(2 ** failures, SWEEP_BACKOFF))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        sweeper = asyncio.create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sweeper
            await run_in_threadpool(store.close_all)     # every game and engine, whatever failed before

    async def store_failed(request, exc):
        """A database fault a route did not expect (a damaged or locked file): 503, never 500."""
        log.error("the game store failed: %s: %s", type(exc).__name__, exc)
        return JSONResponse({"error": f"the game store failed ({exc}); try again in a moment"},
                            status_code=503)

    routes = []
    for module in (games, seats, records, analysis, explore, howto, pages):
        routes += module.routes(server)
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(GuardMiddleware, policy=policy)],
                    exception_handlers={error: store_failed for error in getattr(store, "errors", ())})
    app.state.config = config
    app.state.store = store
    app.state.analyses = server.analyses
    return app
