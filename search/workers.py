"""Search worker processes that are safe to start from a threaded process and cannot outlive it.

Why not multiprocessing.Pool with fork: forking a process that already runs threads (the PRI
server's reader and search threads) copies locks other threads hold, and the child can wait
on one forever. These workers are spawned (a fresh interpreter each), and each talks to its
parent over its own pipe. The pipe is also the worker's lifeline: only the parent holds the
other end, so when the parent ends, even killed, the worker reads end-of-file and exits,
whether it is idle (in recv) or searching (it polls the pipe between chunks of iterations).

Parent to worker: ("job", job), ("stop",), or None (exit). Worker to parent: ("ready",) once
it has started, then ("result", value) or ("error", text) for each job. A worker runs `function(job, poll_stop)`, where `poll_stop()` is True once
the parent asked for a stop and raises ParentGone when the parent has ended.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from multiprocessing.connection import wait

from engine.errors import PalaisError

SPAWN = mp.get_context("spawn")
CLOSE_GRACE_S = 2.0       # how long close() lets a worker exit by itself before ending it
START_WAIT_S = 60.0       # how long start() waits for the workers to be ready
STOP_WAIT_S = 10.0        # how long after stop() a worker may take to answer its job


class WorkerError(PalaisError):
    """A worker failed its job or ended unexpectedly; the pool is closed."""


class ParentGone(Exception):
    """The parent process ended: the worker stops what it does and exits."""


def _serve(conn, function) -> None:
    """A worker's life: run each job it is sent until told to exit or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the parent's; we end with it
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)                     # stdout belongs to the parent's protocol
    os.close(devnull)
    stop_requested = False
    try:
        conn.send(("ready",))
    except OSError:
        return

    def poll_stop() -> bool:
        nonlocal stop_requested
        try:
            while conn.poll():
                message = conn.recv()
                if message is None:
                    raise ParentGone
                if message[0] == "stop":
                    stop_requested = True
        except (EOFError, OSError):
            raise ParentGone from None
        return stop_requested

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if message[0] != "job":             # a stop that arrived after its job ended
            continue
        stop_requested = False
        try:
            reply = ("result", function(message[1], poll_stop))
        except ParentGone:
            return
        except Exception as exc:            # reported to the parent, which reports it
            reply = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except OSError:
            return


class WorkerPool:
    """`size` spawned workers running `function`; started on the first `submit`."""

    def __init__(self, size: int, function):
        self.size = size
        self.function = function
        self._workers = []                  # (process, connection)
        self._ready = set()                 # workers whose ("ready",) was read
        self._stopped_at = None             # when stop() was sent for the current jobs
        self._send_lock = threading.Lock()  # stop() comes from another thread than submit()

    def pids(self) -> list:
        return [process.pid for process, _ in self._workers]

    def _spawn(self) -> None:
        for _ in range(self.size):
            parent_end, child_end = SPAWN.Pipe()
            process = SPAWN.Process(target=_serve, args=(child_end, self.function), daemon=True,
                                    name="palais-search-worker")
            process.start()
            child_end.close()
            self._workers.append((process, parent_end))

    def start(self) -> None:
        """Start the workers (if they are not running) and wait until every one is ready.
        Not needed before submit(), which starts them without waiting."""
        if not self._workers:
            self._spawn()
        self._replies(self._unready, "ready", START_WAIT_S)

    @property
    def _unready(self) -> list:
        return [i for i in range(len(self._workers)) if i not in self._ready]

    def _send_all(self, message) -> None:
        with self._send_lock:
            for _, conn in self._workers:
                try:
                    conn.send(message)
                except OSError:
                    pass                    # a dead worker is noticed by collect()

    def submit(self, jobs) -> None:
        """Give job i to worker i (one job per worker)."""
        if len(jobs) != self.size:
            raise ValueError(f"{len(jobs)} jobs for {self.size} workers")
        if not self._workers:
            self._spawn()
        with self._send_lock:
            self._stopped_at = None
            for (_, conn), job in zip(self._workers, jobs):
                conn.send(("job", job))

    def stop(self) -> None:
        """Ask every worker to end its job now; never blocks for long. A worker that has not
        answered STOP_WAIT_S later is ended, and collect() reports it."""
        with self._send_lock:
            if self._stopped_at is None:
                self._stopped_at = time.monotonic()
        self._send_all(("stop",))

    def collect(self) -> list:
        """Every worker's result, in job order. On a failure the pool is closed and WorkerError
        raised, once every worker has answered or ended."""
        return self._replies(range(self.size), "result", None)

    def _overdue(self, i: int, now: float) -> bool:
        """Worker i was asked to stop (or to start) too long ago and has not answered."""
        stopped_at = self._stopped_at
        if stopped_at is None:
            return False
        return now >= stopped_at + (STOP_WAIT_S if i in self._ready else START_WAIT_S)

    def _replies(self, indices, wanted: str, timeout) -> list:
        """The next `wanted` reply of each worker in `indices` (a "ready" on the way is noted)."""
        replies, failures = {}, []
        waiting = {self._workers[i][1]: (i, self._workers[i][0]) for i in indices}
        by_sentinel = {process.sentinel: conn for process, conn in self._workers}
        deadline = None if timeout is None else time.monotonic() + timeout
        while waiting:
            # Wait in slices, to notice a stop() sent meanwhile and bound the wait after it.
            now = time.monotonic()
            late = [i for i, _ in waiting.values()
                    if (deadline is not None and now >= deadline)
                    or (wanted == "result" and self._overdue(i, now))]
            if late:
                failures += [f"search worker {i + 1}: no answer in time" for i in late]
                break
            left = 0.25 if deadline is None else min(0.25, max(0.0, deadline - now))
            ready = wait(list(waiting) + [process.sentinel for _, process in waiting.values()], left)
            for item in ready:
                conn = by_sentinel.get(item, item)
                if conn not in waiting:
                    continue
                i, process = waiting[conn]
                try:
                    if conn.poll():
                        message = conn.recv()
                    else:                   # ended without a word
                        process.join(CLOSE_GRACE_S)
                        message = ("error", f"it ended (exit code {process.exitcode})")
                except (EOFError, OSError):
                    process.join(CLOSE_GRACE_S)
                    message = ("error", f"it ended (exit code {process.exitcode})")
                if message[0] == "ready":
                    self._ready.add(i)
                    if wanted != "ready":
                        continue
                del waiting[conn]
                if message[0] == wanted:
                    replies[i] = message[1] if len(message) > 1 else None
                else:
                    failures.append(f"search worker {i + 1}: {message[1]}")
        if failures:
            self.close()
            raise WorkerError("; ".join(failures))
        return [replies[i] for i in indices]

    def close(self) -> None:
        """End every worker: ask, wait a little, then terminate and kill what is left."""
        workers, self._workers = self._workers, []
        self._ready = set()
        with self._send_lock:
            for _, conn in workers:
                try:
                    conn.send(None)
                except OSError:
                    pass
        for process, _ in workers:
            process.join(CLOSE_GRACE_S)
            if process.is_alive():
                process.terminate()
                process.join(CLOSE_GRACE_S)
            if process.is_alive():
                process.kill()
                process.join()
        for _, conn in workers:
            conn.close()
