"""A cgroup of its own for one sandboxed engine: its memory and its number of processes bounded,
what it passed read back afterwards, and everything it started killed at the end.

Rlimits cannot do this job: RLIMIT_AS would break engines that reserve address space lazily
(ours does, for its tree), and RLIMIT_NPROC does not bind root, which these machines and CI
run as. So each engine gets a child of this process's own cgroup:
- cgroup v2 (one unified hierarchy): one folder with memory.max, memory.swap.max and
  pids.max, if this process's cgroup delegates the memory and pids controllers;
- cgroup v1: one folder in the memory hierarchy (memory.limit_in_bytes, and the swap
  limit where the kernel accounts it) and one in the pids hierarchy (pids.max).
The engine is placed in them before it starts (`procs_files`, written by the launcher with
the launcher's own pid, so every process it starts is inside from its first instruction).
Folders are named palais-<pid of this process>-<count>; those left by a process that has
died are removed when the next one is made.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

from common.errors import PalaisError

CGROUP_ROOT = Path("/sys/fs/cgroup")
PREFIX = "palais-"
_COUNT = itertools.count()


class CgroupUnavailable(PalaisError):
    """No cgroup with memory and process limits can be made here (the message says why)."""


def _own_paths() -> dict:
    """This process's cgroup path per v1 controller, and "" -> its v2 path."""
    paths = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _write(path: Path, value) -> None:
    path.write_text(f"{value}\n")


def _counter(path: Path, key: str) -> int:
    """The value of `key` in a flat-keyed cgroup file (memory.events, pids.events), or 0."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(parent: Path) -> None:
    """Remove the empty folders left in `parent` by arbiters that have died."""
    try:
        children = list(parent.glob(PREFIX + "*"))
    except OSError:
        return
    for child in children:
        owner = child.name[len(PREFIX):].split("-", 1)[0]
        if owner.isdigit() and not _pid_alive(int(owner)):
            try:
                child.rmdir()
            except OSError:
                pass


class EngineCgroup:
    """The cgroup (one folder in v2; one per controller in v1) of one engine process."""

    def __init__(self, memory_bytes: int, processes: int):
        self.memory_bytes = memory_bytes
        self.processes = processes
        name = f"{PREFIX}{os.getpid()}-{next(_COUNT)}"
        self.folders = []
        try:
            self._make(name)
        except OSError as exc:
            self.remove()
            raise CgroupUnavailable(f"cannot make a cgroup for the engine's limits: "
                                    f"{exc.filename or ''}: {exc.strerror or exc}") from None

    def _make(self, name: str) -> None:
        own = _own_paths()
        if (CGROUP_ROOT / "cgroup.controllers").exists():                  # v2
            parent = CGROUP_ROOT / own.get("", "/").lstrip("/")
            enabled = (parent / "cgroup.subtree_control").read_text().split()
            missing = [c for c in ("memory", "pids") if c not in enabled]
            if missing:
                _write(parent / "cgroup.subtree_control", " ".join("+" + c for c in missing))
            _sweep(parent)
            folder = parent / name
            folder.mkdir()
            self.folders = [folder]
            _write(folder / "memory.max", self.memory_bytes)
            if (folder / "memory.swap.max").exists():
                _write(folder / "memory.swap.max", 0)
            _write(folder / "pids.max", self.processes)
            self.memory = self.pids = folder
            self.memory_events = (folder / "memory.events", "oom_kill")
            self.pids_events = (folder / "pids.events", "max")
            return
        made = {}                                                             # v1
        for controller in ("memory", "pids"):
            if controller not in own:
                raise OSError(0, f"no {controller} controller in /proc/self/cgroup", "/proc/self/cgroup")
            parent = CGROUP_ROOT / controller / own[controller].lstrip("/")
            _sweep(parent)
            folder = parent / name
            folder.mkdir()
            self.folders.append(folder)
            made[controller] = folder
        self.memory, self.pids = made["memory"], made["pids"]
        _write(self.memory / "memory.limit_in_bytes", self.memory_bytes)
        swap = self.memory / "memory.memsw.limit_in_bytes"
        if swap.exists():
            _write(swap, self.memory_bytes)
        _write(self.pids / "pids.max", self.processes)
        self.memory_events = (self.memory / "memory.oom_control", "oom_kill")
        self.pids_events = (self.pids / "pids.events", "max")

    @property
    def procs_files(self) -> list:
        """The files a process writes its pid to, to enter this cgroup."""
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def passed(self) -> list:
        """The limits the engine has run into: "memory" (a process killed for it), "processes"
        (a fork refused)."""
        hits = []
        if _counter(*self.memory_events):
            hits.append("memory")
        if _counter(*self.pids_events):
            hits.append("processes")
        return hits

    def members(self) -> list:
        try:
            return [int(p) for p in (self.pids / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, timeout: float = 5.0) -> bool:
        """SIGKILL every process inside (cgroup.kill where the kernel has it); whether none is
        left within `timeout` seconds."""
        kill_file = self.pids / "cgroup.kill"
        deadline = time.monotonic() + timeout
        while True:
            pids = self.members()
            if not pids:
                return True
            if time.monotonic() >= deadline:
                return False
            if kill_file.exists():
                try:
                    _write(kill_file, 1)
                except OSError:
                    pass
            else:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left inside, then remove the folders (idempotent)."""
        if self.folders and hasattr(self, "pids"):
            self.kill_all()
        for folder in self.folders:
            for _ in range(100):             # a killed process leaves its cgroup a moment later
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.folders = []


def probe() -> str | None:
    """None if an engine cgroup with limits can be made here, else why not."""
    try:
        EngineCgroup(64 << 20, 8).remove()
    except CgroupUnavailable as exc:
        return str(exc)
    except (OSError, ValueError) as exc:
        return f"cannot read this process's cgroup: {exc}"
    return None
