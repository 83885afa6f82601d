"""One bounded queue of review analyses for the whole server.

An analysis searches every turn of a game over `processes` worker processes (by default one
per core: play/analyse.py), so
a few of them at once would starve the games. Here at most `slots` run at once and
`waiting` more wait their turn; past that a new one is refused (503, "try again later"). An
analysis still waiting when its game is deleted or leaves memory never starts; one running
stops at its next turn (web/session.py), and its worker processes end with it (they also
end with the server, even when it is killed: jobs/backends.py).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from .session import Refused

POLL_S = 0.1                   # how often a waiting analysis looks whether its game went away


class AnalysisGate:
    def __init__(self, slots: int, waiting: int, processes: int = 1):
        self.slots = slots
        self.waiting = waiting
        self.processes = processes             # the worker processes of the one running (--analysis-processes)
        self._free = threading.Semaphore(slots)
        self._lock = threading.Lock()
        self.admitted = 0          # running or waiting

    def admit(self) -> None:
        """Take a place in the queue (Refused 503 when it is full); turn() must follow."""
        with self._lock:
            if self.admitted >= self.slots + self.waiting:
                raise Refused(f"the server is analysing {self.slots} game(s) with {self.waiting} more "
                              f"waiting, its most: try again later", 503)
            self.admitted += 1

    @contextmanager
    def turn(self, cancelled):
        """Wait for a free slot, then hold it for the block; yields False (and holds none)
        when `cancelled()` turns true while waiting. Frees the place admit() took."""
        got = False
        try:
            while not cancelled():
                if self._free.acquire(timeout=POLL_S):
                    got = True
                    break
            yield got
        finally:
            if got:
                self._free.release()
            with self._lock:
                self.admitted -= 1

    def busy(self) -> int:
        with self._lock:
            return self.admitted

