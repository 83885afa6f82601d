"""Where a tournament's games run: here (in-process, or a pool of local processes), or as
Ray tasks spread over a cluster. The runner's loop (save, progress, SPRT, stop) is the same
for both; a backend only turns games to play into results as the games finish.

    with open_backend("ray", concurrency=8, ray_address="auto") as backend:
        for result in backend.play(tasks):      # tasks: (Job, [EngineSpec per seat], TimeControl)
            ...

Leaving the `with` stops the games still in flight (Ctrl+C, an SPRT decision, an error);
each of them ends its engine processes.
A game's result depends only on its task, never on the backend, so `--resume` may switch
backends. Ray is imported only when the Ray backend is chosen; it is an optional extra.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import socket
from itertools import islice

from engine.errors import PalaisError

from .arbiter import play_game

BACKENDS = ("local", "ray")
RAY_MISSING = "--backend ray needs Ray: pip install 'palais-engine[ray]'"


class BackendError(PalaisError):
    pass


def play_task(task):
    """One game from its task; runs wherever the backend puts it (and starts the engines there)."""
    job, seats, tc = task
    return play_game(job.index, job.deal_seed, seats, tc, group=job.group)


def _exit_on_sigterm() -> None:
    """In a pool worker: the pool's terminate() (SIGTERM) raises SystemExit, so a game in
    flight ends its engines on the way out instead of leaving them running."""
    signal.signal(signal.SIGTERM, _raise_exit)


def _raise_exit(signum, _frame):
    raise SystemExit(128 + signum)


class LocalBackend:
    """Concurrency 1: every game in this process. More: a pool of forked processes; results
    come back in plan order."""

    def __init__(self, concurrency: int):
        self.concurrency = concurrency
        self.pool = None
        self.unfinished = 0             # games handed to the pool whose results were not read

    def __enter__(self):
        if self.concurrency > 1:
            self.pool = mp.get_context("fork").Pool(self.concurrency, initializer=_exit_on_sigterm)
        return self

    def play(self, tasks):
        if not self.pool:
            return map(play_task, tasks)
        tasks = list(tasks)
        self.unfinished += len(tasks)
        return self._results(self.pool.imap(play_task, tasks))

    def _results(self, results):
        for result in results:
            self.unfinished -= 1
            yield result

    def __exit__(self, exc_type, *exc):
        if self.pool is not None:
            if exc_type is None and self.unfinished == 0:
                # Every game is done: let the workers end by themselves. (terminate() here
                # could race with the pool replacing a worker that just ended, and then wait
                # forever for a new worker idling on the task queue.)
                self.pool.close()
            else:
                self.pool.terminate()     # stopped early: end the games in flight (SIGTERM)
            self.pool.join()
            self.pool = None


class RayBackend:
    """Every game a Ray task (the engine processes start on the worker that runs it), at most
    `concurrency` in flight, results in the order the games finish.

    address None attaches to the Ray instance this machine knows of (RAY_ADDRESS, or the
    latest one started here) or starts a local one (LOCAL_RAY: no dashboard, token auth);
    "local" always starts one; "auto" joins a running cluster and fails if there is none;
    "HOST:PORT" or "ray://HOST:PORT" names one. If Ray is already
    initialised in this process, that instance is used and left running."""

    def __init__(self, concurrency: int, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise BackendError(RAY_MISSING) from None
        self.ray = ray
        self.concurrency = concurrency
        self.address = address
        self.connected_here = False
        self.pending = {}               # ObjectRef -> task, the games in flight

    def __enter__(self):
        ray = self.ray
        if not ray.is_initialized():
            _check_answers(self.address)
            try:
                _init_ray(ray, self.address)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                where = self.address or "a local instance"
                raise BackendError(f"--backend ray: could not start or join Ray ({where}): "
                                   f"{str(exc).strip().splitlines()[0]}") from None
            self.connected_here = True
        self.remote_play = ray.remote(play_task)
        return self

    def play(self, tasks):
        ray = self.ray
        todo = iter(tasks)

        def submit():
            for task in islice(todo, self.concurrency - len(self.pending)):
                self.pending[self.remote_play.remote(task)] = task

        submit()
        while self.pending:
            ready, _ = ray.wait(list(self.pending), num_returns=1)
            for ref in ready:
                del self.pending[ref]
                result = ray.get(ref)
                submit()
                yield result

    def __exit__(self, *exc):
        for ref in self.pending:
            self.ray.cancel(ref)        # a KeyboardInterrupt in the game: it closes its engines
        self.pending.clear()
        if self.connected_here:
            self.ray.shutdown()         # stops the instance if it was started here, else detaches
            self.connected_here = False


LOCAL_RAY = {"address": "local", "include_dashboard": False}
"""How the runner starts a Ray instance of its own: without the dashboard (an HTTP server
that can run jobs). Ray's other ports listen on every interface whatever ray.init is told
(`_node_ip_address="127.0.0.1"` is turned into this machine's address), so the instance is
also given token authentication where Ray has it (2.52 and later; set RAY_AUTH_MODE to
choose otherwise). docs/tournament.md: a cluster must live on a trusted network."""

TOKEN_AUTH_SINCE = (2, 52)


def _version(text: str) -> tuple:
    parts = []
    for part in text.split(".")[:2]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _start_local_ray(ray) -> None:
    if "RAY_AUTH_MODE" not in os.environ and _version(ray.__version__) >= TOKEN_AUTH_SINCE:
        os.environ["RAY_AUTH_MODE"] = "token"       # the instance and its workers inherit it
    ray.init(**LOCAL_RAY)


def _init_ray(ray, address: str | None) -> None:
    """Join the cluster at `address`; or, with None, the instance this machine knows of
    (RAY_ADDRESS, or the latest one started here), else start one (_start_local_ray);
    "local" always starts one."""
    if address is None:
        named = os.environ.get("RAY_ADDRESS", "").strip()
        if named and named != "local":
            ray.init()                         # the cluster RAY_ADDRESS names, or an error
            return
        if not named:
            try:
                ray.init(address="auto")       # the latest instance started here
                return
            except ConnectionError:
                pass
        address = "local"                      # none running: start our own
    if address == "local":
        _start_local_ray(ray)
    else:
        ray.init(address=address)


def _check_answers(address: str | None) -> None:
    """Fail fast on a HOST:PORT nobody answers at: Ray would wait for it without end, deaf
    to Ctrl+C. (None, "auto", "local" and ray:// addresses are left to Ray.)"""
    if address is None or "://" in address:
        return
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as exc:
        raise BackendError(f"--ray-address {address}: no Ray cluster answers there "
                           f"({exc.strerror or exc})") from None


def open_backend(name: str, concurrency: int = 1, ray_address: str | None = None):
    """The backend called `name`, to be entered with `with`; checks what it needs now."""
    if name == "local":
        if ray_address is not None:
            raise BackendError("--ray-address needs --backend ray")
        return LocalBackend(concurrency)
    if name == "ray":
        return RayBackend(concurrency, ray_address)
    raise BackendError(f"backend {name!r} is not one of {', '.join(BACKENDS)}")
