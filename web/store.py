"""Where a server keeps its games: the GameStore interface, and MemoryStore (live games in
memory, for unit tests and `--db :memory:`). web/sqlite_store.py keeps them in SQLite too.

Every route reaches games through a GameStore only (create, get, delete, saved, the list of
a browser's games), so another backend (PostgreSQL under several server processes,
docs/web.md "Serving many more players") can follow without touching the routes.

The live games of one server, by unguessable id, at most `max_games` of them.

When the server is full, a new game evicts the finished game nobody watches that was
touched longest ago; with none such, it is refused. A game nobody has used for
`idle_s` seconds (no request named it, nothing changed in it) is ended, finished or not,
so games left behind cannot hold the places of `--max-games` for good: the server sweeps
them out every so often (web/app.py) and before it makes a new game. Removing a game
(deleted by the page, evicted, expired, or when the server stops) closes it: its watchers
are told, its searches stop and its engine processes end, so no child process outlives
its game.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from abc import ABC, abstractmethod

from .session import Refused


log = logging.getLogger("palais.serve")

NO_SUCH_GAME = "no such game (it may have ended, been deleted, or been pruned)"


class GameStore(ABC):
    """What the routes need of a store of games."""

    @abstractmethod
    def create(self, make_session):
        """A new game: `make_session(game_id)` made under a fresh id, and kept."""

    @abstractmethod
    def get(self, game_id: str):
        """The game of `game_id` (Refused 404 "no such game" if none), touched."""

    @abstractmethod
    def delete(self, game_id: str) -> None:
        """End the game and forget it (Refused 404 if none)."""

    def saved(self, session) -> None:
        """The session changed (called under its lock, once per action): keep it. A store
        in memory has nothing to do."""

    def summaries(self, game_ids) -> list:
        """For "My games": per id known, {"game", "names", "kinds", "seat_labels", "over", "ply"}."""
        return [session.summary() for session in map(self.peek, game_ids) if session is not None]

    def peek(self, game_id: str):
        """The live game of `game_id` or None, not touched (a listing is no use of it)."""
        return None

    @abstractmethod
    def expire_idle(self) -> list:
        """End the games unused past the idle time; their ids."""

    @abstractmethod
    def close_all(self) -> None:
        """End every live game (the server stops); a lasting store keeps them."""


class MemoryStore(GameStore):
    keeps_games = False              # an evicted game is gone (a database store keeps it)

    def __init__(self, max_games: int, idle_s: float | None = None, clock=time.monotonic):
        self.max_games = max_games
        self.idle_s = idle_s
        self.clock = clock
        self._games = {}
        self._lock = threading.Lock()

    def new_id(self) -> str:
        return secrets.token_urlsafe(16)

    def reserve(self) -> str:
        """An id for a game about to be made (its place counts towards the limit at once, so
        two requests cannot both take the last one); Refused 429 when the server is full."""
        game_id = self.new_id()
        self._take_place(game_id, "delete one first")
        return game_id

    def _take_place(self, game_id: str, advice: str) -> None:
        """Count `game_id` towards --max-games now, making room by evicting the finished,
        unwatched game touched longest ago; Refused 429 (with `advice`) when none can go.
        A sweep that fails first (a locked database) is logged: the new game goes on."""
        try:
            self.expire_idle()
        except Exception as exc:              # noqa: BLE001 (housekeeping must not refuse a game)
            log.error("sweeping idle games before a new one failed (%s: %s)", type(exc).__name__, exc)
        evicted = None
        with self._lock:
            if len(self._games) >= self.max_games:
                evicted = self._evictable()
                if evicted is None:
                    raise Refused(f"{self.max_games} games are live already (--max-games); "
                                  f"{advice}", 429)
                del self._games[evicted.id]
            self._games[game_id] = None
        if evicted is not None:
            evicted.close(kept=self.keeps_games)

    def _evictable(self):
        """The finished, unwatched, idle game touched longest ago, or None."""
        idle = [s for s in self._games.values()
                if s is not None and s.game.over() and not s.watchers and not s.analysing]
        return min(idle, key=lambda s: s.touched, default=None)

    def expire_idle(self) -> list:
        """End and remove every game unused for `idle_s` seconds (an analysis running
        counts as use); the ids removed."""
        if self.idle_s is None:
            return []
        expired = self._take_idle()
        minutes = self.idle_s / 60
        for session in expired:
            session.close(f"this game was ended after {minutes:g} minutes without activity "
                          f"(palais serve --idle-minutes)")
        return [session.id for session in expired]

    def _take_idle(self) -> list:
        """The live games unused for `idle_s` seconds (an analysis running counts as use),
        taken out of memory; closing them is the caller's."""
        now = self.clock()
        with self._lock:
            idle = [s for s in self._games.values()
                    if s is not None and not s.analysing and now - s.touched >= self.idle_s]
            for session in idle:
                del self._games[session.id]
        return idle

    def create(self, make_session):
        """A new game: a place reserved (Refused 429 when full), `make_session(game_id)`
        made in it, or the place given back if making it fails."""
        return self._make_in(self.reserve(), make_session)

    def _make_in(self, game_id: str, make_session):
        """`make_session(game_id)` in the place reserved for `game_id`, or the place given
        back if making it fails."""
        try:
            session = make_session(game_id)
        except BaseException:
            self.release(game_id)
            raise
        self.put(game_id, session)
        return session

    def put(self, game_id: str, session) -> None:
        with self._lock:
            self._games[game_id] = session

    def release(self, game_id: str) -> None:
        """Give back a reserved place whose game could not be made."""
        with self._lock:
            if self._games.get(game_id, 0) is None:
                del self._games[game_id]

    def peek(self, game_id: str):
        return self._games.get(game_id) if isinstance(game_id, str) else None

    def get(self, game_id: str):
        """The live game of `game_id` (Refused 404 if none), touched: a request used it."""
        session = self._games.get(game_id)
        if session is None:
            raise Refused(NO_SUCH_GAME, 404)
        session.touch()
        return session

    def delete(self, game_id: str) -> None:
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is None:
            raise Refused(NO_SUCH_GAME, 404)
        session.close()

    def close_all(self) -> None:
        with self._lock:
            sessions = [s for s in self._games.values() if s is not None]
            self._games.clear()
        for session in sessions:
            session.close()

    def __len__(self) -> int:
        return len(self._games)
