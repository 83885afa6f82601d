"""Games that survive a restart: the GameStore of a database, written once for SQLite
(web/sqlite_store.py, `--db PATH`, the embedded default) and PostgreSQL
(web/postgres_store.py, `--db postgresql://...`).

Every game, its seats (the hashes of their keys), its settings, its actions and its draw
secret are written in one transaction per change, and a change is in memory only once it is
stored (web/session.py's `_kept`), so a server killed at any moment, even by SIGKILL, brings
every game back exactly when it starts again: the same position, the same hands, the same
future draws (engine/chance.py's stream continues after the draws already made) and its
engine seats started again, thinking if it is their turn. A game is brought back into
memory when someone asks for it (its link); games unused for `--idle-minutes` leave memory
(their engines stop) but stay stored, finished games are kept, games untouched for
`--keep-days` are pruned, and past `--max-db-mb` the finished games nobody has open go,
uploads first.

A backend gives its connection (`_transaction`, `_query`), its errors, its schema steps and
its size; the SQL here is written with `?` placeholders (a backend with another style
converts them). The schema has a version; a newer server migrates an older database
forward, step by step, and refuses one newer than itself.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

from engine.chance import secret_from_hex
from engine.options import RuleOptions
from engine.record import record_from_actions
from engine.state import State
from play.game import SECRET_HEADER, PlayGame

from .credentials import SeatKeys
from .session import Conflict, Refused, StoreError
from .store import NO_SUCH_GAME, MemoryStore
from .views import seat_labels

SCHEMA_VERSION = 2
# The tables, in SQL both backends read (REAL is a double in both, TEXT unbounded).
TABLES = """
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
DAY_S = 24 * 3600
VERSION_MARGIN = 1000
PRUNE_MOST = 1000                   # finished games deleted for the room of one new game, at most


class SqlStore(MemoryStore):
    keeps_games = True               # an evicted game leaves memory, not the database
    errors: tuple = ()               # the driver's exception classes (a fault of the database)
    where: str = ""                  # how messages name the database (--db PATH, a DSN without password)

    def __init__(self, max_games: int, idle_s=None, clock=time.monotonic, keep_days: int = 30,
                 wall=time.time, max_bytes: int | None = None):
        super().__init__(max_games, idle_s, clock)
        self.keep_days = keep_days
        self.wall = wall
        self.max_bytes = max_bytes
        self.server = None
        self._reviving = threading.Lock()

    # ---- what a backend gives --------------------------------------------------------------

    @contextmanager
    def _transaction(self):
        """One transaction: yields `execute(sql, params)`; committed at the end, rolled back
        if the block raises."""
        raise NotImplementedError

    def _query(self, sql: str, params=()) -> list:
        """The rows of one read."""
        raise NotImplementedError

    def stored_bytes(self) -> int:
        """The size of what the database holds for the games."""
        raise NotImplementedError

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
            with self._transaction() as execute:
                execute("INSERT INTO games (id, created, touched, over, settings, deal, layout, "
                        "secret, actions, owner, uploaded, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (session.id, now, now, int(game.over()), json.dumps(session.settings),
                         json.dumps(game.deal()), json.dumps(game.layout()), game.secret.hex(),
                         json.dumps(game.actions), keys.owner,
                         int(bool(session.settings.get("from_record"))), session.version))
                for q in range(game.n_players):
                    execute("INSERT INTO seats VALUES (?, ?, ?, ?, ?)",
                            (session.id, q, session.kinds[q], game.names[q], keys.seats[q]))
        except self.errors as exc:
            self._drop(session.id)
            raise Refused(f"the game could not be stored: {exc}", 503) from None
        session.stored_version = session.version
        return session

    def make_room(self) -> None:
        """Room for one more game under max_bytes (--max-db-mb): while the database is over
        it, the finished games nobody has open are deleted, uploads first, the least
        recently used first; unfinished games are never deleted for room (only by
        --keep-days). If it is still over, the new game is refused (507), and the moves of
        the games already made are still stored."""
        if self.max_bytes is None:
            return
        try:
            if self.stored_bytes() < self.max_bytes:
                return
            with self._lock:
                live = set(self._games)
            finished = [game_id for (game_id,) in self._query(
                "SELECT id FROM games WHERE over = 1 ORDER BY uploaded DESC, touched ASC")
                if game_id not in live]
            for game_id in finished[:PRUNE_MOST]:
                with self._transaction() as execute:
                    execute("DELETE FROM games WHERE id = ?", (game_id,))
                if self.stored_bytes() < self.max_bytes:
                    break
            full = self.stored_bytes() >= self.max_bytes
        except self.errors as exc:
            raise Refused(f"the game could not be stored: {exc}", 503) from None
        if full:
            raise Refused(f"the server's storage is full (its {self.max_bytes / 2 ** 20:.3g} MiB "
                          f"hold games not yet finished): finish or delete a game first", 507)

    def saved(self, session) -> None:
        """One transaction per change: the actions, the settings (a resigned seat) and, at
        the end, the full record. A compare-and-set on the version: the change is stored
        only over the version this process last stored or read, so of two server processes
        changing one game at once, the second is refused (Conflict) and reloads."""
        game = session.game
        over = game.over()
        record = game.record_text({SECRET_HEADER: game.secret.hex()}) if over else None
        try:
            with self._transaction() as execute:
                changed = execute("UPDATE games SET touched=?, over=?, settings=?, actions=?, rematch=?, "
                                  "version=?, record=coalesce(?, record) WHERE id=? AND version=?",
                                  (self.wall(), int(over), json.dumps(session.settings),
                                   json.dumps(game.actions), session.rematch_id, session.version,
                                   record, session.id, session.stored_version))
                if not changed:
                    raise Conflict()
                if session.settings.get("resigned"):
                    for q in session.resigned:
                        execute("UPDATE seats SET kind=? WHERE game=? AND seat=?",
                                (session.kinds[q], session.id, q))
                self._notify(execute, session.id, session.version)
        except self.errors as exc:
            raise StoreError(f"{self.where}: {exc}") from None
        session.stored_version = session.version

    def _notify(self, execute, game_id: str, version) -> None:
        """Tell the other server processes that `game_id` changed (to `version`, or "gone"),
        in the transaction of the change: a backend with a channel (PostgreSQL's NOTIFY) does."""

    def refresh(self, session) -> None:
        """Bring the live `session` up to its stored game (another process changed it), or
        end it if the game is no longer stored."""
        row, seats = self._row(session.id)
        if row is None:
            with self._lock:
                if self._games.get(session.id) is session:
                    del self._games[session.id]
            session.close("this game was deleted")
            return
        settings_text, deal, layout, secret, actions, _owner, rematch, version = row
        if version <= session.stored_version:
            return                                 # nothing newer than what this process holds
        settings, actions = json.loads(settings_text), json.loads(actions)
        names = [name for _, _, name, _ in seats]

        def build():
            game = self._game(settings, names, json.loads(deal), json.loads(layout), actions, secret)
            game.rebuild_take_backs(settings.get("stood_at", 0))
            return game
        session.reload(build, actions, settings, [kind for _, kind, _, _ in seats],
                       set(settings.get("resigned", [])), rematch, version)

    def _drop(self, game_id: str) -> None:
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is not None:
            session.close()

    # ---- reading ---------------------------------------------------------------------------

    def _row(self, game_id: str):
        row = self._query("SELECT settings, deal, layout, secret, actions, owner, rematch, version "
                          "FROM games WHERE id=?", (game_id,))
        seats = self._query("SELECT seat, kind, name, key_hash FROM seats WHERE game=? "
                            "ORDER BY seat", (game_id,))
        return (row[0] if row else None), seats

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
        session.stored_version = version
        # Views count on from past what any page was shown (a page drops a View older than
        # the one it shows; a few changes, an engine's failure say, are pushed unsaved).
        session.version = version + VERSION_MARGIN
        for q in settings.get("resigned", []):
            session.resigned.add(q)
        # An engine whose turn it is thinks again; nothing is due (the game was stored after
        # its draws), so nothing is written: a process bringing a game back changes nothing.
        session.start(None, store=False)
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
        return self._make_in(game_id, make_session)

    def summaries(self, game_ids) -> list:
        out = []
        for game_id in game_ids:
            session = self._games.get(game_id)
            if session is not None:
                out.append(session.summary())
                continue
            row = self._query("SELECT over, actions, rematch, settings FROM games WHERE id=?", (game_id,))
            seats = self._query("SELECT kind, name FROM seats WHERE game=? ORDER BY seat", (game_id,))
            if not row:
                continue
            over, actions, rematch, settings = row[0]
            names, kinds = [n for _, n in seats], [k for k, _ in seats]
            out.append({"game": game_id, "names": names, "kinds": kinds,
                        "seat_labels": seat_labels(names, kinds, json.loads(settings).get("levels")),
                        "over": bool(over), "ply": len(json.loads(actions)), "to_move": None,
                        "rematch": rematch})
        return out

    # ---- ending ----------------------------------------------------------------------------

    def delete(self, game_id: str) -> None:
        with self._transaction() as execute:
            gone = execute("DELETE FROM games WHERE id=?", (game_id,))
            self._notify(execute, game_id, "gone")
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is None and not gone:
            raise Refused(NO_SUCH_GAME, 404)
        if session is not None:
            session.close()

    def expire_idle(self) -> list:
        """Games unused for the idle time leave memory (they stay stored); games untouched
        for keep_days are pruned from the database."""
        ids = []
        if self.idle_s is not None:
            idle = self._take_idle()
            for session in idle:
                session.close(kept=True, idle=True)    # a page still open comes back and revives it
            ids = [s.id for s in idle]
        with self._transaction() as execute:
            execute("DELETE FROM games WHERE touched < ?", (self.wall() - self.keep_days * DAY_S,))
        return ids

    def close_all(self) -> None:
        """The server stops: every game leaves memory (its engines end) and stays stored;
        the pages watching are told to reconnect (close code 1012)."""
        with self._lock:
            sessions = [s for s in self._games.values() if s is not None]
            self._games.clear()
        for session in sessions:
            session.close(kept=True)
        self._disconnect()

    def _disconnect(self) -> None:
        """Close the connection(s) to the database."""
