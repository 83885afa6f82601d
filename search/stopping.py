"""A search's stop request that counts only while a search runs.

A player's stop() may come from another thread at any moment, also just after its search
ended; remembered until the next search, it would cut that one short. A StopSwitch ignores
a stop with no search running, and runs its hooks (a tree's stop flag) under one lock, so a
stop is either seen by the running search or not at all. Never blocks for long.
"""

from __future__ import annotations

import threading


class StopSwitch:
    def __init__(self):
        self._lock = threading.Lock()
        self._running = False
        self._hooks = []
        self.requested = False

    def begin(self) -> None:
        """A search starts: earlier stops do not count."""
        with self._lock:
            self._running, self.requested, self._hooks = True, False, []

    def end(self) -> None:
        with self._lock:
            self._running, self.requested, self._hooks = False, False, []

    def __enter__(self):
        """`with switch:` runs one search between begin() and end()."""
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()

    def on_stop(self, hook) -> None:
        """Call `hook()` when this search is stopped (at once if it already is)."""
        with self._lock:
            self._hooks.append(hook)
            if self.requested:
                hook()

    def stop(self) -> bool:
        """Stop the running search; False (and nothing done) when none runs."""
        with self._lock:
            if not self._running:
                return False
            self.requested = True
            for hook in self._hooks:
                hook()
            return True
