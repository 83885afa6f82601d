"""The live games of one server, by unguessable id, at most `max_games` of them.

When the server is full, a new game evicts the finished game nobody watches that was
touched longest ago; with none such, it is refused. Removing a game (deleted by the page,
evicted, or when the server stops) closes it: its searches stop and its engine processes
end, so no child process outlives its game.
"""

from __future__ import annotations

import secrets
import threading

from .session import Refused


class SessionStore:
    def __init__(self, max_games: int):
        self.max_games = max_games
        self._games = {}
        self._lock = threading.Lock()

    def new_id(self) -> str:
        return secrets.token_urlsafe(16)

    def reserve(self) -> str:
        """An id for a game about to be made (its place counts towards the limit at once, so
        two requests cannot both take the last one); Refused 429 when the server is full."""
        evicted = None
        with self._lock:
            if len(self._games) >= self.max_games:
                evicted = self._evictable()
                if evicted is None:
                    raise Refused(f"{self.max_games} games are live already (--max-games); "
                                  f"delete one first", 429)
                del self._games[evicted.id]
            game_id = self.new_id()
            self._games[game_id] = None
        if evicted is not None:
            evicted.close()
        return game_id

    def _evictable(self):
        """The finished, unwatched, idle game touched longest ago, or None."""
        idle = [s for s in self._games.values()
                if s is not None and s.game.over() and not s.watchers and not s.analysing]
        return min(idle, key=lambda s: s.touched, default=None)

    def create(self, make_session):
        """A new game: a place reserved (Refused 429 when full), `make_session(game_id)`
        made in it, or the place given back if making it fails."""
        game_id = self.reserve()
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

    def get(self, game_id: str):
        session = self._games.get(game_id)
        if session is None:
            raise Refused("no such game (it may have been deleted, or the server restarted)", 404)
        return session

    def delete(self, game_id: str) -> None:
        with self._lock:
            session = self._games.pop(game_id, None)
        if session is None:
            raise Refused("no such game", 404)
        session.close()

    def close_all(self) -> None:
        with self._lock:
            sessions = [s for s in self._games.values() if s is not None]
            self._games.clear()
        for session in sessions:
            session.close()

    def __len__(self) -> int:
        return len(self._games)
