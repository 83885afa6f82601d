"""Games kept in PostgreSQL: the GameStore of `palais serve --db postgresql://...`, for a site
that outgrows one SQLite file (web/sql_store.py holds what it shares with SQLite).

Why psycopg 3 and its pool: it is the maintained PostgreSQL driver (libpq underneath, the
binary wheel needs no compiler), with real server-side parameters, `LISTEN/NOTIFY` for the
changes other processes make, and psycopg_pool's ConnectionPool, which checks connections
before handing them out and reconnects after the server restarts. A transaction per change,
as on SQLite; the pool holds a few connections (MIN_CONNECTIONS to MAX_CONNECTIONS), each
request thread borrowing one for one statement or transaction.

The schema's version lives in a one-row table `palais_schema` (PostgreSQL has no
user_version); a newer server migrates an older database forward in one transaction per
step and refuses one newer than itself. The password is never shown: messages name the
database by its DSN with the password removed (`shown_dsn`), and the DSN should carry no
password at all (PGPASSWORD or ~/.pgpass, or --db-password-file: docs/web.md).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from contextlib import contextmanager

from engine.errors import PalaisError

from .sql_store import SCHEMA_VERSION, TABLES, SqlStore

MIN_CONNECTIONS = 1
MAX_CONNECTIONS = 8
CONNECT_TIMEOUT_S = 10
LOCK_TIMEOUT_MS = 5000              # how long a change waits for rows another session holds locked
CHANNEL = "palais_games"           # NOTIFY payload: "<game id> <version>" or "<game id> gone"
LISTEN_POLL_S = 0.5                 # how often the listener looks whether the store is closing
log = logging.getLogger("palais.serve")
MIGRATIONS = {}                     # version k -> SQL bringing a database from k to k + 1 (from 2 on)
FIRST_VERSION = 2                   # the first schema a PostgreSQL store was written with


def is_postgres(db: str | None) -> bool:
    return bool(db) and db.startswith(("postgresql://", "postgres://"))


def shown_dsn(dsn: str) -> str:
    """The DSN with any password replaced by ***, for messages and logs: in a URL's user part
    (`postgresql://me:secret@host/db`), a query parameter (`?password=secret`) or a
    key=value word (`password=secret`)."""
    dsn = re.sub(r"(://[^:/@?]*):[^@/?]*@", r"\1:***@", dsn)
    return re.sub(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)", r"\1***", dsn)


class PostgresStore(SqlStore):

    def __init__(self, dsn: str, max_games: int, idle_s=None, clock=time.monotonic,
                 keep_days: int = 30, wall=time.time, max_bytes: int | None = None,
                 password: str | None = None, lock_timeout_ms: int = LOCK_TIMEOUT_MS):
        super().__init__(max_games, idle_s, clock, keep_days, wall, max_bytes)
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise PalaisError("--db postgresql://...: PostgreSQL needs psycopg (pip install "
                              "'palais-engine[postgres]')") from None
        self.errors = (psycopg.Error,)
        self.where = shown_dsn(dsn)
        extra = {"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "palais serve",
                 "options": f"-c lock_timeout={int(lock_timeout_ms)}"}
        if password is not None:
            extra["password"] = password
        try:
            with psycopg.connect(dsn, **extra) as probe:      # a clear error before any pool
                probe.execute("SELECT 1")
        except psycopg.Error as exc:
            raise PalaisError(f"--db {self.where}: cannot connect: {_first_line(exc)}") from None
        self.pool = ConnectionPool(dsn, min_size=MIN_CONNECTIONS, max_size=MAX_CONNECTIONS,
                                   kwargs=extra, open=True, name="palais")
        try:
            self._schema()
        except BaseException:
            self.pool.close()
            raise
        self._dsn, self._extra = dsn, extra
        self._closing = threading.Event()
        self._listening = threading.Event()
        self._listener = threading.Thread(target=self._listen, daemon=True, name="palais-listen")
        self._listener.start()
        self._listening.wait(CONNECT_TIMEOUT_S)

    # ---- several server processes over one database -----------------------------------------

    def _notify(self, execute, game_id: str, version) -> None:
        execute("SELECT pg_notify(?, ?)", (CHANNEL, f"{game_id} {version}"))

    def _listen(self) -> None:
        """The other processes' changes, as they commit (LISTEN): a live game whose stored
        version is not the one this process last saw is brought up to it (refresh), or ended
        if it was deleted. A lost connection is made again; until then the versions' check
        still keeps every change safe, only the watchers here wait."""
        import psycopg
        wait = 0.5
        while not self._closing.is_set():
            try:
                with psycopg.connect(self._dsn, autocommit=True, **self._extra) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    wait = 0.5
                    while not self._closing.is_set():
                        for note in conn.notifies(timeout=LISTEN_POLL_S):
                            self._heard(note.payload)
            except psycopg.Error as exc:
                self._listening.set()
                if self._closing.is_set():
                    return
                log.error("listening for other server processes' changes failed (%s); again in %g s",
                          _first_line(exc), wait)
                self._closing.wait(wait)
                wait = min(wait * 2, 30.0)

    def _heard(self, payload: str) -> None:
        game_id, _, version = payload.partition(" ")
        session = self.peek(game_id)
        if session is None or (version.isdigit() and int(version) <= session.stored_version):
            return                                  # not live here, or nothing newer than it holds
        try:
            self.refresh(session)
        except Exception as exc:                    # noqa: BLE001 (the listener must live on)
            log.error("bringing game %s up to another process's change failed: %s: %s",
                      game_id[:8], type(exc).__name__, exc)

    def _schema(self) -> None:
        import psycopg
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(7310)")    # one server migrates at a time
                have = conn.execute("SELECT to_regclass('palais_schema') IS NOT NULL").fetchone()[0]
                games = conn.execute("SELECT to_regclass('games') IS NOT NULL").fetchone()[0]
                if not have and not games:
                    for statement in _statements(TABLES):
                        conn.execute(statement)
                    conn.execute("CREATE TABLE palais_schema (version INTEGER NOT NULL)")
                    conn.execute("INSERT INTO palais_schema VALUES (%s)", (SCHEMA_VERSION,))
                    return
                if not have:
                    raise PalaisError(f"--db {self.where}: the database has a `games` table but is "
                                      f"not a palais serve database; use another database")
                version = conn.execute("SELECT version FROM palais_schema").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise PalaisError(f"--db {self.where}: the database is of schema version "
                                      f"{version}, newer than this server's {SCHEMA_VERSION}: use a "
                                      f"newer palais")
                while version < SCHEMA_VERSION:
                    for statement in _statements(MIGRATIONS[version]):
                        conn.execute(statement)
                    version += 1
                    conn.execute("UPDATE palais_schema SET version = %s", (version,))
        except psycopg.Error as exc:
            raise PalaisError(f"--db {self.where}: cannot prepare the tables: {_first_line(exc)}") from None

    @contextmanager
    def _transaction(self):
        with self.pool.connection() as conn, conn.transaction():
            yield lambda sql, params=(): conn.execute(_pg(sql), params).rowcount

    def _query(self, sql: str, params=()) -> list:
        with self.pool.connection() as conn:
            return conn.execute(_pg(sql), params).fetchall()

    def stored_bytes(self) -> int:
        """The tables' and their indexes' size on disk (dead rows count until vacuumed)."""
        row = self._query("SELECT pg_total_relation_size('games') + pg_total_relation_size('seats')")
        return int(row[0][0])

    def _disconnect(self) -> None:
        self._closing.set()
        self._listener.join(timeout=2 * LISTEN_POLL_S + 1)
        self.pool.close()


def _pg(sql: str) -> str:
    """SQL written with `?` placeholders in psycopg's `%s` style."""
    return sql.replace("%", "%%").replace("?", "%s")


def _statements(script: str) -> list:
    """The statements of a script (no `;` inside our statements), comments dropped."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _first_line(exc) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
