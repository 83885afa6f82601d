"""Games that survive a restart in one SQLite file: the GameStore of `palais serve --db PATH`,
the embedded default (web/sql_store.py holds what it shares with PostgreSQL).

One connection in WAL mode (synchronous=NORMAL: durable across a process crash), guarded by
a lock; a write waits BUSY_TIMEOUT_MS for a file another program holds locked (a backup, an
`sqlite3` shell). The schema version is PRAGMA user_version; the file is checked at start
(SQLite's quick_check) and a damaged one refused with what to do.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager

from engine.errors import PalaisError

from .sql_store import SCHEMA_VERSION, TABLES, SqlStore

MIGRATIONS = {                      # version k -> SQL bringing a file from k to k + 1
    1: "ALTER TABLE games ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0;"
       "UPDATE games SET uploaded = 1 WHERE settings LIKE '%\"from_record\": true%';",
}
BUSY_TIMEOUT_MS = 5000              # how long a write waits for a file another program holds locked
DAMAGED_HELP = ("Restore a backup of the file, or start with a new one (--db NEW_FILE); "
                "`sqlite3 FILE .recover` may save its games")


class SqliteStore(SqlStore):
    errors = (sqlite3.Error,)

    def __init__(self, path: str, max_games: int, idle_s=None, clock=time.monotonic,
                 keep_days: int = 30, wall=time.time, busy_timeout_ms: int = BUSY_TIMEOUT_MS,
                 max_bytes: int | None = None):
        super().__init__(max_games, idle_s, clock, keep_days, wall, max_bytes)
        self.path = self.where = path
        self._db_lock = threading.RLock()
        try:
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")    # durable across a process crash
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            self._schema()
            found = self.db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.Error as exc:
            raise PalaisError(f"--db {path}: cannot open the database: {exc}. {DAMAGED_HELP}") from None
        if found != "ok":
            raise PalaisError(f"--db {path}: the database is damaged (SQLite's quick_check: "
                              f"{found}). {DAMAGED_HELP}")

    def _schema(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = self.db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
        if version == 0 and tables == 0:
            with self._db_lock:
                self.db.executescript("BEGIN;" + TABLES + f"PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
            return
        if version > SCHEMA_VERSION:
            raise PalaisError(f"--db {self.path}: the file is of schema version {version}, newer "
                              f"than this server's {SCHEMA_VERSION}: use a newer palais")
        if version == 0:
            raise PalaisError(f"--db {self.path}: not a palais serve database")
        while version < SCHEMA_VERSION:
            self.db.executescript("BEGIN;" + MIGRATIONS[version]
                                  + f"PRAGMA user_version={version + 1};COMMIT;")
            version += 1

    @contextmanager
    def _transaction(self):
        with self._db_lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield lambda sql, params=(): self.db.execute(sql, params).rowcount
                self.db.execute("COMMIT")
            except BaseException:
                try:
                    self.db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise

    def _query(self, sql: str, params=()) -> list:
        with self._db_lock:
            return self.db.execute(sql, params).fetchall()

    def stored_bytes(self) -> int:
        """The pages in use (freed pages are reused, so the file's size can stay larger)."""
        with self._db_lock:
            pages, free, size = (self.db.execute(f"PRAGMA {name}").fetchone()[0]
                                 for name in ("page_count", "freelist_count", "page_size"))
        return (pages - free) * size

    def _disconnect(self) -> None:
        with self._db_lock:
            self.db.close()
