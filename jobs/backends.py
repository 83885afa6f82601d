"""Where a batch of independent jobs runs: here (in-process, or a pool of local processes),
or as Ray tasks spread over a cluster. A tournament's games (tournament/runner.py) and
`palais train`'s self-play and evaluation games (search/train.py) are such jobs; their loops
(save, progress, stop) are the same on every backend, which only turns tasks into results
as the jobs finish.

    with open_backend("ray", play_task, concurrency=8, ray_address="auto") as backend:
        for result in backend.run(tasks):       # play_task(task) -> result, for each task
            ...

`work` must be a module-level function (the pool and Ray send it by name). Leaving the
`with` stops the jobs still in flight (Ctrl+C, an SPRT decision, an error); a job that started
processes ends them on the way out (SystemExit in a pool worker, Ray's cancel).
A result must depend only on its task, never on the backend, so a run may switch backends
when it resumes. Ray is imported only when the Ray backend is chosen; it is an optional extra.
"""

from __future__ import annotations

import importlib.util
import multiprocessing as mp
import os
import secrets
import shutil
import signal
import socket
import sys
import tempfile
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

import click

from common.errors import PalaisError

BACKENDS = ("local", "ray")
RAY_MISSING = "--backend ray needs Ray: pip install 'palais-engine[ray]'"


class BackendError(PalaisError):
    pass


# How a local pool starts its processes: fork where the platform has it (fast, and the job
# function need not be importable by name), else spawn (Windows). Jobs are module-level
# functions, so both work.
POOL_START = "fork" if "fork" in mp.get_all_start_methods() else "spawn"

def _exit_on_sigterm(parent: int | None = None) -> None:
    """In a pool worker: the pool's terminate() (SIGTERM) raises SystemExit, so a game in
    flight ends its engines on the way out instead of leaving them running. On Linux the
    worker is also sent SIGTERM when the thread that made it ends, the process that owns
    the pool included, even killed with SIGKILL (a parent-death signal), so no worker
    outlives it by more than the job in hand; elsewhere the pool ends its workers on the way
    out only (docs/web.md says what remains after a SIGKILL there)."""
    signal.signal(signal.SIGTERM, _raise_exit)
    _die_with_parent(signal.SIGTERM)
    if parent is not None and os.getppid() != parent:        # it died before the signal was set
        raise SystemExit(128 + signal.SIGTERM)


def _die_with_parent(sig) -> None:
    """prctl(PR_SET_PDEATHSIG, sig) where the system has it (Linux); nothing elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig), 0, 0, 0)      # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _raise_exit(signum, _frame):
    raise SystemExit(128 + signum)


class LocalBackend:
    """Concurrency 1: every job in this process. More: a pool of forked processes (spawned
    where the platform cannot fork: Windows); results come back in the tasks' order."""

    def __init__(self, work, concurrency: int):
        self.work = work
        self.concurrency = concurrency
        self.pool = None
        self.unfinished = 0             # jobs handed to the pool whose results were not read

    def __enter__(self):
        if self.concurrency > 1:
            self.pool = mp.get_context(POOL_START).Pool(self.concurrency, initializer=_exit_on_sigterm,
                                                        initargs=(os.getpid(),))
        return self

    def run(self, tasks):
        if not self.pool:
            return map(self.work, tasks)
        tasks = list(tasks)
        self.unfinished += len(tasks)
        return self._results(self.pool.imap(self.work, tasks))

    def _results(self, results):
        for result in results:
            self.unfinished -= 1
            yield result

    def __exit__(self, exc_type, *exc):
        if self.pool is not None:
            if exc_type is None and self.unfinished == 0:
                # Every job is done: let the workers end by themselves. (terminate() here
                # could race with the pool replacing a worker that just ended, and then wait
                # forever for a new worker idling on the task queue.)
                self.pool.close()
            else:
                self.pool.terminate()     # stopped early: end the jobs in flight (SIGTERM)
            self.pool.join()
            self.pool = None


class RayBackend:
    """Every job a Ray task (a game's engine processes start on the worker that runs it), at
    most `concurrency` in flight, results in the order the jobs finish.

    address None attaches to the Ray instance this machine knows of (RAY_ADDRESS, or the
    latest one started here) or starts a local one (_start_local_ray: no dashboard, token
    auth with a token file only this user can read, every port on 127.0.0.1, its files in a
    folder only this user can enter, removed at the end);
    "local" always starts one; "auto" joins a running cluster and fails if there is none;
    "HOST:PORT" or "ray://HOST:PORT" names one. If Ray is already
    initialised in this process, that instance is used and left running."""

    def __init__(self, work, concurrency: int, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise BackendError(RAY_MISSING) from None
        self.ray = ray
        self.work = work
        self.concurrency = concurrency
        self.address = address
        self.connected_here = False
        self.private_folder = None      # the files of an instance started here (removed at the end)
        self.pending = {}               # ObjectRef -> task, the jobs in flight

    def __enter__(self):
        ray = self.ray
        if not ray.is_initialized():
            _check_answers(self.address)
            try:
                self.private_folder = _init_ray(ray, self.address)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                where = self.address or "a local instance"
                raise BackendError(f"--backend ray: could not start or join Ray ({where}): "
                                   f"{str(exc).strip().splitlines()[0]}") from None
            self.connected_here = True
        self.remote_work = ray.remote(self.work)
        return self

    def run(self, tasks):
        ray = self.ray
        todo = iter(tasks)

        def submit():
            for task in islice(todo, self.concurrency - len(self.pending)):
                self.pending[self.remote_work.remote(task)] = task

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
            self.ray.cancel(ref)        # a KeyboardInterrupt in the job: a game closes its engines
        self.pending.clear()
        if self.connected_here:
            self.ray.shutdown()         # stops the instance if it was started here, else detaches
            self.connected_here = False
        if self.private_folder is not None:
            shutil.rmtree(self.private_folder, ignore_errors=True)
            self.private_folder = None


LOCAL_RAY = {"address": "local", "include_dashboard": False}
"""How a run starts a Ray instance of its own (_start_local_ray): without the dashboard (an
HTTP server that can run jobs), with token authentication where Ray has it (2.52 and later;
set RAY_AUTH_MODE to choose otherwise), every port on 127.0.0.1, and its session files
(logs, port numbers, Unix sockets) under a folder only this user can enter.
docs/tournament.md says what stays exposed; a cluster must live on a trusted network."""

TOKEN_AUTH_SINCE = (2, 52)
TOKEN_ENV = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")      # a token given otherwise than by file


def _version(text: str) -> tuple:
    parts = []
    for part in text.split(".")[:2]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _reread_ray_config(ray) -> None:
    """Make this process's Ray see RAY_AUTH_MODE set after `import ray`, as Ray's own
    ray.init does when it turns token authentication on: its configuration is read once, at
    import. Without this the instance (a new process) wants a token this process neither
    makes nor sends, and Ray fails to start ("Failed to start GCS")."""
    config = getattr(getattr(ray, "_raylet", None), "Config", None)
    initialize = getattr(config, "initialize", None)
    if callable(initialize):
        initialize("")


def _private_token_file() -> None:
    """Token authentication with no token yet: make Ray's default token file, ~/.ray/auth_token,
    readable by this user only. (Ray would write it with the umask's mode, 0644 as a rule,
    for every user of the machine to read.) A token file that exists already, or a token
    given by RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH, is used as it is."""
    if any(os.environ.get(name) for name in TOKEN_ENV):
        return
    folder = Path.home() / ".ray"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(folder / "auth_token", os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:                     # there already, or no home to write to: Ray's business
        return
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_hex(32))          # as Ray's own generator makes them


@contextmanager
def _on_loopback(ray):
    """While Ray starts an instance: its node address is 127.0.0.1, so the GCS, the raylet,
    the workers and the agents listen there only. ray.init(_node_ip_address="127.0.0.1")
    cannot do it: Ray replaces a loopback address with the machine's own. What it does on
    macOS and Windows (local-only instances, ray_constants.ENABLE_RAY_CLUSTER False) is done
    here for the start only, so that joining a cluster later in this process is not
    affected. Where a Ray version lacks that switch, its defaults stay (every interface)."""
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    before = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if not isinstance(before, bool):
        yield
        return
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = before


def _private_folder() -> str:
    """A new folder only this user can enter (0700), for an instance's session files: Ray makes
    its own folders there world-writable and its files world-readable."""
    base = os.environ.get("RAY_TMPDIR") or ("/tmp" if os.path.isdir("/tmp") else None)
    return tempfile.mkdtemp(prefix="palais-ray-", dir=base)


def _start_local_ray(ray) -> str:
    """Start a Ray instance for this run (LOCAL_RAY's rules); the folder to remove after it."""
    if "RAY_AUTH_MODE" not in os.environ and _version(ray.__version__) >= TOKEN_AUTH_SINCE:
        os.environ["RAY_AUTH_MODE"] = "token"       # the instance and its workers inherit it
        _reread_ray_config(ray)
    if os.environ.get("RAY_AUTH_MODE", "").strip().lower() == "token":
        _private_token_file()
    folder = _private_folder()
    try:
        with _on_loopback(ray):
            ray.init(**LOCAL_RAY, _temp_dir=os.path.join(folder, "ray"))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def _init_ray(ray, address: str | None) -> str | None:
    """Join the cluster at `address`; or, with None, the instance this machine knows of
    (RAY_ADDRESS, or the latest one started here), else start one (_start_local_ray);
    "local" always starts one. Returns the folder of an instance started here, else None."""
    if address is None:
        named = os.environ.get("RAY_ADDRESS", "").strip()
        if named and named != "local":
            ray.init()                         # the cluster RAY_ADDRESS names, or an error
            return None
        if not named:
            try:
                ray.init(address="auto")       # the latest instance started here
                return None
            except ConnectionError:
                pass
        address = "local"                      # none running: start our own
    if address == "local":
        return _start_local_ray(ray)
    ray.init(address=address)
    return None


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


def check_backend(name: str, ray_address: str | None = None) -> None:
    """Refuse, before any work starts, a backend that cannot run: an unknown name, an address
    without Ray, Ray not installed."""
    if name not in BACKENDS:
        raise BackendError(f"backend {name!r} is not one of {', '.join(BACKENDS)}")
    if name == "local" and ray_address is not None:
        raise BackendError("--ray-address needs --backend ray")
    if name == "ray" and importlib.util.find_spec("ray") is None:
        raise BackendError(RAY_MISSING)


def open_backend(name: str, work, concurrency: int = 1, ray_address: str | None = None):
    """The backend called `name` running `work` on each task, to be entered with `with`;
    checks what it needs now (check_backend)."""
    check_backend(name, ray_address)
    if name == "local":
        return LocalBackend(work, concurrency)
    return RayBackend(work, concurrency, ray_address)


def backend_options(command):
    """The --concurrency, --backend and --ray-address options of a command whose games run
    on a backend (palais-tournament, palais train), declared once."""
    options = [
        click.option("--concurrency", type=click.IntRange(1, 256), default=1, show_default=True,
                     help="Games played at once (local processes, or Ray tasks in flight)."),
        click.option("--backend", type=click.Choice(BACKENDS), default="local", show_default=True,
                     help="Where games run: local processes, or Ray tasks (needs the [ray] extra)."),
        click.option("--ray-address", default=None, metavar="ADDRESS",
                     help="With --backend ray: 'auto' joins the running cluster, HOST:PORT or "
                          "ray://HOST:PORT names one; default: this machine's instance, started if none."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
