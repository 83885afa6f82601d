"""An engine seat of a web game that is restarted when it fails, and given up on after a few
restarts.

play/seats.py's seats (an in-process player, or a PRI engine process) are asked for a turn;
one that fails (it crashes, stays silent past its budget, answers no legal decision, or
raises) would otherwise be asked again at every later decision: a silent engine costing its
budget and more each time, a crashed one giving an error each time. Here a failed engine is
ended (its process and everything it started) and a new one started in its place, at most
`max_restarts` times per seat and game. After that the seat has `failed`: it is not asked
again, the session plays its decisions at random (web/session.py) and its View says so.
"""

from __future__ import annotations

import contextlib
import threading

from play.seats import EngineFailed, PriSeat, open_seat


TURN_SEED_STRIDE = 1_000_003


def opener(start_timeout_s: float, overrun_s: float, sandbox=None):
    """How the web starts an engine seat: as play/seats.py's open_seat, a PRI engine with
    at most `start_timeout_s` to start and `overrun_s` past its budget to answer, in the
    sandbox `sandbox` asks for (protocol/sandbox.py)."""
    def open_web_seat(spec, limits, seed):
        if spec.kind == "cmd":
            return PriSeat(spec.cmd, limits, safety_timeout=start_timeout_s, options=spec.options,
                           overrun_s=overrun_s, sandbox=sandbox)
        return open_seat(spec, limits, seed)
    return open_web_seat


def end(seat) -> None:
    """Stop a seat's search and end it (its process group, for a PRI engine)."""
    if seat is None:
        return
    with contextlib.suppress(Exception):
        seat.stop()
    with contextlib.suppress(Exception):
        seat.close()


class KeptSeat:
    """An engine seat with its restarts. choose_turn() is called from the session's engine
    thread only; close() may come from any thread, at any time."""

    def __init__(self, spec, limits, seed: int, max_restarts: int = 2, open_with=open_seat):
        self.spec = spec
        self.limits = limits
        self.seed = seed
        self.max_restarts = max_restarts
        self.restarts = 0
        self.failed = False
        self.closed = False
        self.problems = []                    # why each engine failed, oldest first
        self._open = open_with
        self._lock = threading.Lock()
        self._settled = threading.Event()    # set unless a new engine is being started
        self._settled.set()
        self._seat = open_with(spec, limits, seed)     # EngineFailed: no game is made

    @property
    def current(self):
        """The engine seat in use now (play/seats.py's), or None once failed or closed."""
        return self._seat

    def choose_turn(self, game, on_info=None) -> list:
        if self.spec.kind != "cmd":
            self._reseed(len(game.actions))
        seat = self._seat
        if seat is None:
            raise EngineFailed("the engine seat is closed")
        return seat.choose_turn(game, on_info)

    def _reseed(self, ply: int) -> None:
        """A built-in player starts each turn afresh, seeded by the seat and the ply: its
        choice depends on the position only, not on how many turns it searched before, so
        a game brought back after a restart (web/sqlite_store.py) goes on exactly as it
        would have."""
        new = self._open(self.spec, self.limits, self.seed + TURN_SEED_STRIDE * ply)
        with self._lock:
            if self.closed or self._seat is None:
                old = new
            else:
                old, self._seat = self._seat, new
        end(old)

    def replace(self, problem: str) -> None:
        """The engine failed (`problem` says how): end it and start another, or, past
        max_restarts (or when none will start), mark the seat failed."""
        self.problems.append(problem)
        with self._lock:
            old, self._seat = self._seat, None
            self._settled.clear()
        try:
            end(old)
            while not self.closed:
                if self.restarts >= self.max_restarts:
                    self.failed = True
                    return
                self.restarts += 1
                try:
                    new = self._open(self.spec, self.limits, self.seed)
                except Exception as exc:      # it would not start: that restart is spent
                    self.problems.append(str(exc))
                    continue
                with self._lock:
                    if not self.closed:
                        self._seat, new = new, None
                end(new)                      # closed while it started: end it at once
                return
        finally:
            self._settled.set()

    def state(self) -> dict:
        """What the View shows of the seat: its restarts so far and whether it failed."""
        return {"restarts": self.restarts, "failed": self.failed}

    def stop(self) -> None:
        seat = self._seat
        if seat is not None:
            with contextlib.suppress(Exception):
                seat.stop()

    def close(self, wait_s: float = 120.0) -> None:
        """End the engine; one being started in its place is ended as soon as it has
        started, and close() waits for that (at most `wait_s`), so that no engine process
        outlives the server."""
        with self._lock:
            self.closed = True
            seat, self._seat = self._seat, None
        end(seat)
        self._settled.wait(wait_s)
