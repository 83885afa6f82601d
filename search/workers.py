"""Search worker processes that are safe to start from a threaded process and cannot outlive it.

Why not multiprocessing.Pool with fork: forking a process that already runs threads (the PRI
server's reader and search threads) copies locks other threads hold, and the child can wait
on one forever. These workers are spawned (a fresh interpreter each), and each talks to its
parent over its own pipe. The pipe is also the worker's lifeline: only the parent holds the
other end, so when the parent ends, even killed, the worker reads end-of-file and exits,
whether it is idle (in recv) or searching (it polls the pipe between chunks of iterations).

Parent to worker: ("job", job), ("stop",), or None (exit). Worker to parent: ("result", value)
or ("error", text). A worker runs `function(job, poll_stop)`, where `poll_stop()` is True once
the parent asked for a stop and raises ParentGone when the parent has ended.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from multiprocessing.connection import wait

from engine.errors import PalaisError

SPAWN = mp.get_context("spawn")
CLOSE_GRACE_S = 2.0       # how long close() lets a worker exit by itself before ending it


class WorkerError(PalaisError):
    """A worker failed its job or ended unexpectedly; the pool is closed."""


class ParentGone(Exception):
    """The parent process ended: the worker stops what it does and exits."""


def _serve(conn, function) -> None:
    """A worker's life: run each job it is sent until told to exit or the parent is gone."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)                     # stdout belongs to the parent's protocol
    os.close(devnull)
    stop_requested = False

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
        self._send_lock = threading.Lock()  # stop() comes from another thread than submit()

    def pids(self) -> list:
        return [process.pid for process, _ in self._workers]

    def _start(self) -> None:
        for _ in range(self.size):
            parent_end, child_end = SPAWN.Pipe()
            process = SPAWN.Process(target=_serve, args=(child_end, self.function), daemon=True,
                                    name="palais-search-worker")
            process.start()
            child_end.close()
            self._workers.append((process, parent_end))

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
            self._start()
        with self._send_lock:
            for (_, conn), job in zip(self._workers, jobs):
                conn.send(("job", job))

    def stop(self) -> None:
        """Ask every worker to end its job now; never blocks for long."""
        self._send_all(("stop",))

    def collect(self) -> list:
        """Every worker's result, in job order. On a failure the pool is closed and WorkerError
        raised, once every worker has answered or ended."""
        replies, failures = {}, []
        waiting = {conn: (i, process) for i, (process, conn) in enumerate(self._workers)}
        by_sentinel = {process.sentinel: conn for process, conn in self._workers}
        while waiting:
            ready = wait(list(waiting) + [process.sentinel for _, process in waiting.values()])
            for item in ready:
                conn = by_sentinel.get(item, item)
                if conn not in waiting:
                    continue
                i, process = waiting.pop(conn)
                try:
                    if conn.poll():
                        kind, value = conn.recv()
                    else:                   # ended without a word
                        process.join(CLOSE_GRACE_S)
                        kind, value = "error", f"it ended (exit code {process.exitcode})"
                except (EOFError, OSError):
                    process.join(CLOSE_GRACE_S)
                    kind, value = "error", f"it ended (exit code {process.exitcode})"
                if kind == "result":
                    replies[i] = value
                else:
                    failures.append(f"search worker {i + 1}: {value}")
        if failures:
            self.close()
            raise WorkerError("; ".join(failures))
        return [replies[i] for i in range(self.size)]

    def close(self) -> None:
        """End every worker: ask, wait a little, then terminate and kill what is left."""
        workers, self._workers = self._workers, []
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
