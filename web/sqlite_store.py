"""Games that survive a restart: the GameStore of `palais serve --db PATH`, over SQLite.

Every game, its seats (the hashes of their keys), its settings, its actions and its draw
secret are written in one transaction per change (WAL mode), so a server killed at any
moment, even by SIGKILL, brings every game back exactly when it starts again: the same
position, the same hands, the same future draws (engine/chance.py's stream continues after
the draws already made) and its engine seats started again, thinking if it is their turn.
A game is brought back into memory when someone asks for it (its link); games unused for
`--idle-minutes` leave memory (their engines stop) but stay in the file, finished games
are kept, and games untouched for `--keep-days` are pruned.

The file has a schema version (PRAGMA user_version); a newer server migrates an older file
forward, step by step (MIGRATIONS), and refuses one newer than itself.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time

from engine.chance import secret_from_hex
from engine.errors import PalaisError
from engine.options import RuleOptions
from engine.record import record_from_actions
from play.game import SECRET_HEADER, PlayGame
from engine.state import State

from .credentials import SeatKeys
from .session import Refused, StoreError
from .store import NO_SUCH_GAME, MemoryStore
from .views import seat_labels

SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE games (
    id        TEXT PRIMARY KEY,
    created   REAL NOT NULL,              -- seconds since the epoch
    touched   REAL NOT NULL,              -- the last change or request
    over      INTEGER NOT NULL DEFAULT 0,
    settings  TEXT NOT NULL,              -- JSON: players, names, seed, budget, options, ...
    deal      TEXT NOT NULL,              -- JSON: the tile index on each park square
    layout    TEXT NOT NULL,              -- JSON: the room in each castle cell
    secret    TEXT NOT NULL,              -- the draw secret (hex): the referee's, never sent
    actions   TEXT NOT NULL,              -- JSON: every action so far, draws included
    owner     TEXT NOT NULL,              -- SHA-256 of the owner key
    rematch   TEXT,                       -- the game that followed, if any
    version   INTEGER NOT NULL DEFAULT 0, -- the session's count of changes (a View's "version")
    record    TEXT,                       -- the full record, once the game is over
    uploaded  INTEGER NOT NULL DEFAULT 0  -- 1: made from an uploaded record (pruned first when full)
);
CREATE TABLE seats (
    game      TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL,           -- 0-based
    kind      TEXT NOT NULL,              -- "human" or the player's name
    name      TEXT NOT NULL,
    key_hash  TEXT,                       -- SHA-256 of the seat's key; NULL for an engine
    PRIMARY KEY (game, seat)
);
CREATE INDEX games_touched ON games(touched);
"""
MIGRATIONS = {                      # version k -> SQL bringing a file from k to k + 1
    1: "ALTER TABLE games ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0;"
       "UPDATE games SET uploaded = 1 WHERE settings LIKE '%\"from_record\": true%';",
}
PRUNE_MOST = 1000                   # finished games deleted for the room of one new game, at most
DAY_S = 24 * 3600
VERSION_MARGIN = 1000
BUSY_TIMEOUT_MS = 5000              # how long a write waits for a file another program holds locked
DAMAGED_HELP = ("Restore a backup of the file, or start with a new one (--db NEW_FILE); "
                "`sqlite3 FILE .recover` may save its games")


class SqliteStore(MemoryStore):
    keeps_games = True               # an evicted game leaves memory, not the database

    def __init__(self, path: str, max_games: int, idle_s=None, clock=time.monotonic,
                 keep_days: int = 30, wall=time.time, busy_timeout_ms: int = BUSY_TIMEOUT_MS,
                 max_bytes: int | None = None):
        super().__init__(max_games, idle_s, clock)
        self.path = path
        self.keep_days = keep_days
        self.max_bytes = max_bytes
        self.wall = wall
        self.server = None
        self._db_lock = threading.RLock()
        self._reviving = threading.Lock()
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
            with self._tx():
                self.db.executescript("BEGIN;" + SCHEMA + f"PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
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

    def _tx(self):
        store = self

        class Tx:
            def __enter__(self):
                store._db_lock.acquire()
                return store.db

            def __exit__(self, kind, exc, tb):
                store._db_lock.release()
        return Tx()

    def bind(self, server) -> None:
        """The server whose configuration brings a stored game back (its engines)."""
        self.server = server

    # ---- writing ---------------------------------------------------------------------------

    def create(self, make_session):
        self.make_room()
        session = super().create(make_session)
        game, keys = session.game, session.keys
        now = self.wall()
        try:
            with self._tx() as db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("INSERT INTO games (id, created, touched, over, settings, deal, layout, "
                           "secret, actions, owner, uploaded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           (session.id, now, now, int(game.over()), json.dumps(session.settings),
                            json.dumps(game.deal()), json.dumps(game.layout()), game.secret.hex(),
                            json.dumps(game.actions), keys.owner,
                            int(bool(session.settings.get("from_record")))))
                db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?)",
                               [(session.id, q, session.kinds[q], game.names[q], keys.seats[q])
                                for q in range(game.n_players)])
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            self._drop(session.id)
            raise Refused(f"the game could not be stored: {exc}", 503) from None
        return session

    def stored_bytes(self) -> int:
        """The size of what the file holds (its pages in use; freed pages are reused)."""
        with self._tx() as db:
            pages, free, size = (db.execute(f"PRAGMA {name}").fetchone()[0]
                                 for name in ("page_count", "freelist_count", "page_size"))
        return (pages - free) * size

    def make_room(self) -> None:
        """Room for one more game under max_bytes (--max-db-mb): while the file is over it,
        the finished games nobody has open are deleted, uploads first, the least recently
        used first; unfinished games are never deleted for room (only by --keep-days). If
        the file is still over, the new game is refused (507), and the moves of the games
        already made are still stored."""
        if self.max_bytes is None:
            return
        try:
            if self.stored_bytes() < self.max_bytes:
                return
            with self._lock:
                live = set(self._games)
            with self._tx() as db:
                finished = [game_id for (game_id,) in db.execute(
                    "SELECT id FROM games WHERE over = 1 ORDER BY uploaded DESC, touched ASC")
                    if game_id not in live]
            for game_id in finished[:PRUNE_MOST]:
                with self._tx() as db:
                    db.execute("DELETE FROM games WHERE id = ?", (game_id,))
                if self.stored_bytes() < self.max_bytes:
                    break
            full = self.stored_bytes() >= self.max_bytes
        except sqlite3.Error as exc:
            raise Refused(f"the game could not be stored: {exc}", 503) from None
        if full:
            raise Refused(f"the server's storage is full (its {self.max_bytes / 2 ** 20:.3g} MiB "
                          f"hold games not yet finished): finish or delete a game first", 507)

    def saved(self, session) -> None:
        """One transaction per change: the actions, the settings (a resigned seat) and, at
        the end, the full record."""
        game = session.game
        over = game.over()
        record = game.record_text({SECRET_HEADER: game.secret.hex()}) if over else None
        try:
            with self._tx() as db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("UPDATE games SET touched=?, over=?, settings=?, actions=?, rematch=?, "
                           "version=?, record=coalesce(?, record) WHERE id=?",
                           (self.wall(), int(over), json.dumps(session.settings),
                            json.dumps(game.actions), session.rematch_id, session.version,
                            record, session.id))
                if session.settings.get("resigned"):
                    db.executemany("UPDATE seats SET kind=? WHERE game=? AND seat=?",
                                   [(session.kinds[q], session.id, q) for q in session.resigned])
                db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise StoreError(f"{self.path}: {exc}") from None

    def _rollback(self) -> None:
        with self._tx() as db:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _drop(self, game_id: str) -> None:
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is not None:
            session.close()

    # ---- reading ---------------------------------------------------------------------------

    def _row(self, game_id: str):
        with self._tx() as db:
            row = db.execute("SELECT settings, deal, layout, secret, actions, owner, rematch, version "
                             "FROM games WHERE id=?", (game_id,)).fetchone()
            seats = db.execute("SELECT seat, kind, name, key_hash FROM seats WHERE game=? "
                               "ORDER BY seat", (game_id,)).fetchall()
        return row, seats

    def get(self, game_id: str):
        session = self._games.get(game_id)
        if session is not None:
            session.touch()
            return session
        if not isinstance(game_id, str) or len(game_id) > 64:
            raise Refused(NO_SUCH_GAME, 404)
        with self._reviving:                       # one request brings a game back, once
            session = self._games.get(game_id)
            if session is None:
                session = self._revive(game_id)
        session.touch()
        return session

    def _revive(self, game_id: str):
        row, seats = self._row(game_id)
        if row is None:
            raise Refused(NO_SUCH_GAME, 404)
        settings_text, deal, layout, secret, actions, owner, rematch, version = row
        settings = json.loads(settings_text)
        names = [name for _, _, name, _ in seats]
        settings["players"] = [{"kind": "human"} if kind == "human" else {"kind": "engine", "name": kind}
                               for _, kind, _, _ in seats]
        keys = SeatKeys([key for _, _, _, key in seats], owner)
        game = self._game(settings, names, json.loads(deal), json.loads(layout),
                          json.loads(actions), secret)
        game.rebuild_take_backs(settings.get("stood_at", 0))      # the turn in progress, as it was
        from .making import make_session
        session = self._create_as(game_id, lambda gid: make_session(self.server, gid, settings, game, keys))
        session.rematch_id = rematch
        # Views count on from past what any page was shown (a page drops a View older than
        # the one it shows; a few changes, an engine's failure say, are pushed unsaved).
        session.version = version + VERSION_MARGIN
        for q in settings.get("resigned", []):
            session.resigned.add(q)
        session.start(None)                        # an engine whose turn it is thinks again
        session.release()
        return session

    @staticmethod
    def _game(settings, names, deal, layout, actions, secret) -> PlayGame:
        """The PlayGame of a stored game: its actions replayed from its deal and layout, its
        draws going on from the stored secret."""
        options = RuleOptions.from_dict(settings["options"])
        n = len(settings["players"])
        rec = record_from_actions(n, actions, seed=settings["seed"], options=options,
                                  first_game=settings["first_game"], deal=deal, layout=layout,
                                  names=names, headers={SECRET_HEADER: secret})
        start = State.new_game(n, seed=settings["seed"], options=options,
                               first_game=settings["first_game"], deal=deal, layout=layout)
        game = PlayGame.from_record(rec, start)
        assert game.secret == secret_from_hex(secret)
        return game

    def _create_as(self, game_id: str, make_session):
        """A stored game made live again under its own id (a place counts, as for a new one)."""
        self._take_place(game_id, "come back later")
        try:
            session = make_session(game_id)
        except BaseException:
            self.release(game_id)
            raise
        self.put(game_id, session)
        return session

    def summaries(self, game_ids) -> list:
        out = []
        for game_id in game_ids:
            session = self._games.get(game_id)
            if session is not None:
                out.append(session.summary())
                continue
            with self._tx() as db:
                row = db.execute("SELECT over, actions, rematch, settings FROM games WHERE id=?",
                                 (game_id,)).fetchone()
                seats = db.execute("SELECT kind, name FROM seats WHERE game=? ORDER BY seat", (game_id,)).fetchall()
            if row is None:
                continue
            names, kinds = [n for _, n in seats], [k for k, _ in seats]
            out.append({"game": game_id, "names": names, "kinds": kinds,
                        "seat_labels": seat_labels(names, kinds, json.loads(row[3]).get("levels")),
                        "over": bool(row[0]), "ply": len(json.loads(row[1])), "to_move": None,
                        "rematch": row[2]})
        return out

    # ---- ending ----------------------------------------------------------------------------

    def delete(self, game_id: str) -> None:
        with self._tx() as db:
            gone = db.execute("DELETE FROM games WHERE id=?", (game_id,)).rowcount
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is None and not gone:
            raise Refused(NO_SUCH_GAME, 404)
        if session is not None:
            session.close()

    def expire_idle(self) -> list:
        """Games unused for the idle time leave memory (they stay in the file); games
        untouched for keep_days are pruned from the file."""
        ids = []
        if self.idle_s is not None:
            now = self.clock()
            with self._lock:
                idle = [s for s in self._games.values()
                        if s is not None and not s.analysing and now - s.touched >= self.idle_s]
                for session in idle:
                    del self._games[session.id]
            for session in idle:
                session.close(kept=True, idle=True)    # a page still open comes back and revives it
            ids = [s.id for s in idle]
        with self._tx() as db:
            db.execute("DELETE FROM games WHERE touched < ?", (self.wall() - self.keep_days * DAY_S,))
        return ids

    def close_all(self) -> None:
        """The server stops: every game leaves memory (its engines end) and stays stored;
        the pages watching are told to reconnect (close code 1012)."""
        with self._lock:
            sessions = [s for s in self._games.values() if s is not None]
            self._games.clear()
        for session in sessions:
            session.close(kept=True)
        with self._tx() as db:
            db.close()
