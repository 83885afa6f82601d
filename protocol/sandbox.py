"""The sandbox every engine process the project starts runs in: it sees only what the protocol
sends it, keeps nothing from one game to the next, and cannot take the machine down.

Built on bubblewrap (`bwrap`, Debian's package bubblewrap; the sandbox Flatpak runs apps in):
a small setuid-free program that sets up the kernel's namespaces from a command line, so the
whole policy is the argument list below, readable and testable, and nothing of ours runs as
root. Per engine process (docs/tournament.md, "The sandbox"):
- namespaces of its own: user (all capabilities dropped, uid 65534), PID (no other process
  in /proc), network (loopback only, its own), IPC, UTS, cgroup; a new terminal session;
- a file system that is read-only and shows only the system's folders and what the command
  needs (protocol/engine_paths.py), plus `read_only` paths; `hidden` paths (the run folder,
  the server's database) are covered even where they lie inside a visible folder; /tmp and
  /dev/shm are empty private folders (HOME and TMPDIR point there) discarded at its end;
- a minimal environment: PATH, LANG, HOME, TMPDIR, and PALAIS_MEMORY_LIMIT (bytes), so an
  engine can size itself to its limit (ours does: search/params.py);
- limits: memory and processes in a cgroup of its own (protocol/cgroups.py), open files and
  CPU seconds as rlimits; what it passed is named when it fails (`Confinement.explain`).

Modes: "required" refuses to start an engine unsandboxed, "auto" sandboxes where it can and
otherwise says once, plainly, that engines are trusted in this run, "off" trusts them.
An unsandboxed engine still gets no variable that looks like a secret (SECRET_WORDS).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from common.errors import PalaisError
from common.memory import MEMORY_LIMIT_VARIABLE

from .cgroups import CgroupUnavailable, EngineCgroup
from .cgroups import probe as probe_cgroups
from .engine_paths import SYSTEM_PATHS, needed_paths

MODES = ("auto", "required", "off")
DEFAULT_MODE = "auto"
SANDBOX_UID = 65534                   # "nobody" inside the sandbox's user namespace
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH")
SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "TOKEN", "KEY", "CREDENTIAL", "DSN",
                "DATABASE_URL", "PGPASS", "AUTH", "COOKIE")
HIDDEN_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers")
HIDDEN_FOLDERS = ("/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d")
CPU_MARGIN = 4                        # the CPU limit is at least this many times a game's thinking time
LAUNCHER_FAILED = 125                 # the launcher's exit code when it could not enter the limits


class SandboxUnavailable(PalaisError):
    """--sandbox required, and no sandbox can be made here (the message says why)."""


@dataclass(frozen=True)
class Limits:
    """What one sandboxed engine process (with everything it starts) may use."""
    memory_mib: int = 2048            # resident memory, the private /tmp included
    processes: int = 512              # processes and threads at once (Threads=64 with its helper threads fits)
    open_files: int = 1024            # per process
    cpu_seconds: int = 3600           # per process: a safety net far beyond any clock
    tmp_mib: int = 256                # the private /tmp (and /dev/shm) size


@dataclass(frozen=True)
class SandboxPolicy:
    """How engines are started: the mode, the limits, what else they may read, and what
    they must never see."""
    mode: str = DEFAULT_MODE
    limits: Limits = field(default_factory=Limits)
    read_only: tuple = ()             # more paths to show read-only (--sandbox-read)
    hidden: tuple = ()                # paths never shown, even inside a shown folder

    def __post_init__(self):
        if self.mode not in MODES:
            raise PalaisError(f"sandbox mode {self.mode!r}: expected one of {', '.join(MODES)}")

    def to_dict(self) -> dict:
        return {"mode": self.mode, "limits": asdict(self.limits), "read_only": list(self.read_only),
                "hidden": list(self.hidden)}

    @classmethod
    def from_dict(cls, data) -> "SandboxPolicy":
        return cls(data["mode"], Limits(**data["limits"]), tuple(data["read_only"]), tuple(data["hidden"]))

    def with_cpu_for(self, budget_s: float | None) -> "SandboxPolicy":
        """The same policy with a CPU-time limit at least CPU_MARGIN times `budget_s` (the
        most thinking time a game can give one engine process; None: unknown)."""
        if budget_s is None or CPU_MARGIN * budget_s <= self.limits.cpu_seconds:
            return self
        limits = replace(self.limits, cpu_seconds=int(CPU_MARGIN * budget_s) + 1)
        return SandboxPolicy(self.mode, limits, self.read_only, self.hidden)

    def hiding(self, *paths) -> "SandboxPolicy":
        """The same policy with more paths hidden (a run folder, a database)."""
        more = tuple(str(Path(p).absolute()) for p in paths if p)
        return SandboxPolicy(self.mode, self.limits, self.read_only, self.hidden + more)


OFF = SandboxPolicy("off")


@dataclass(frozen=True)
class Support:
    """What this machine can do: the bwrap found, whether its namespaces work, whether the
    limits can be set; `why` says what is missing."""
    bwrap: str | None
    namespaces: bool
    limits: bool
    why: str = ""

    @property
    def full(self) -> bool:
        return self.namespaces and self.limits


@functools.lru_cache(maxsize=1)
def support() -> Support:
    """Probed once per process: bwrap is run once with the namespaces the sandbox uses, and a
    cgroup is made and removed."""
    if not hasattr(os, "fork") or not Path("/proc/self").exists():
        return Support(None, False, False, "engines can be sandboxed only on Linux")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Support(None, False, False, "bubblewrap (bwrap) is not installed "
                                           "(Debian, Ubuntu: apt-get install bubblewrap)")
    try:
        done = subprocess.run([bwrap, *_namespace_args(), "--ro-bind", "/", "/", "--proc", "/proc",
                               "--", "true"], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Support(bwrap, False, False, f"{bwrap} could not run: {exc}")
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Support(bwrap, False, False, f"this kernel does not let bwrap make namespaces: {said}")
    why = probe_cgroups()
    return Support(bwrap, True, why is None, why or "")


def _namespace_args() -> list:
    return ["--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--cap-drop", "ALL", "--new-session", "--die-with-parent"]


def in_force(policy: SandboxPolicy | None) -> str:
    """What will be in force for engines started under `policy`, in words (for the run's
    results, and for `auto` to say when engines are trusted). SandboxUnavailable for a
    `required` policy that cannot be met here."""
    if policy is None or policy.mode == "off":
        return "off: engines are trusted (they run as this user and can read what it can)"
    found = support()
    if found.full:
        limits = policy.limits
        return (f"bubblewrap: own namespaces, read-only files, no network; limits {limits.memory_mib} MiB, "
                f"{limits.processes} processes")
    if policy.mode == "required":
        raise SandboxUnavailable(f"--sandbox required, but engines cannot be sandboxed here: {found.why}")
    return f"off (auto: {found.why}): engines are trusted"


def is_confined(policy: SandboxPolicy | None) -> bool:
    """Whether engines started under `policy` run sandboxed here (SandboxUnavailable as in_force)."""
    in_force(policy)
    return policy is not None and policy.mode != "off" and support().full


def trusted_environment(environ=None) -> dict:
    """The environment an unsandboxed engine gets: this process's, less anything whose name
    looks like it holds a secret."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if not any(w in k.upper() for w in SECRET_WORDS)}


def _covered(path: str, shown: list) -> bool:
    return any(path == s or path.startswith(s.rstrip("/") + "/") for s in shown)


class Confinement:
    """The sandbox of one engine process: `argv` and `env` start it, `explain()` names a
    limit it passed, `close()` kills whatever is left and removes its cgroup."""

    def __init__(self, policy: SandboxPolicy, command, cwd: str | None = None):
        found = support()
        if not found.full:
            raise SandboxUnavailable(f"engines cannot be sandboxed here: {found.why}")
        self.policy = policy
        self.limits = policy.limits
        cwd = os.path.abspath(cwd or os.getcwd())
        path_env = os.environ.get("PATH", os.defpath)
        python_path = os.environ.get("PYTHONPATH")
        try:
            self.cgroup = EngineCgroup(self.limits.memory_mib << 20, self.limits.processes)
        except CgroupUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from None
        try:
            self._build(command, cwd, path_env, python_path, found.bwrap)
        except BaseException:
            self.cgroup.remove()
            raise

    def _build(self, command, cwd: str, path_env: str, python_path: str | None, bwrap: str) -> None:
        memory = str(self.limits.memory_mib << 20)
        self.env = {"PATH": path_env, "LANG": os.environ.get("LANG", "C.UTF-8"), "HOME": "/tmp",
                    "TMPDIR": "/tmp", MEMORY_LIMIT_VARIABLE: memory}
        for name in PASSED_ENV:
            if name in os.environ and name not in self.env:
                self.env[name] = os.environ[name]
        shown = needed_paths(command, cwd, path_env, python_path) + [Path(p) for p in self.policy.read_only]
        self.argv = self._launcher() + [bwrap, *_namespace_args(), *self._mounts(shown, cwd), "--clearenv"]
        for name, value in self.env.items():
            self.argv += ["--setenv", name, value]
        self.argv += ["--chdir", cwd, "--", *command]

    def _launcher(self) -> list:
        """sh enters the cgroup and sets the rlimits, then runs bwrap as its child (not by
        exec: bwrap's --die-with-parent then ties the sandbox to this launcher, not to the
        thread of ours that started it) and passes on its exit status."""
        script = ('for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit %d; shift; done; shift; '
                  '{ ulimit -c 0 && ulimit -n %d && ulimit -t %d; } || exit %d; exec 3<&0; "$@" <&3 3<&- & '
                  'trap "kill -KILL $! 2>/dev/null" TERM INT; wait $!; status=$?; wait $! 2>/dev/null; exit $status'
                  % (LAUNCHER_FAILED, self.limits.open_files, self.limits.cpu_seconds, LAUNCHER_FAILED))
        return ["/bin/sh", "-c", script, "palais-sandbox", *self.cgroup.procs_files, "--"]

    def _mounts(self, shown, cwd: str) -> list:
        size = str(self.limits.tmp_mib << 20)
        args = ["--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
                "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
        bound = []
        for path in sorted({os.path.abspath(p) for p in shown}, key=lambda p: (p.count("/"), p)):
            if _covered(path, bound) or path in ("/tmp", "/dev") or _covered(path, ["/proc", "/sys"]):
                continue                      # (the sandbox's own /proc; never the machine's)
            if path in SYSTEM_PATHS and os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            else:
                args += ["--ro-bind", path, path]
            bound.append(path)
        for path in HIDDEN_FILES:
            if os.path.exists(path) and _covered(path, bound):
                args += ["--ro-bind", "/dev/null", path]
        hidden = list(HIDDEN_FOLDERS) + [os.path.abspath(p) for p in self.policy.hidden]
        hidden.append(os.path.expanduser("~"))
        for path in hidden:
            if not os.path.exists(path):
                # A file still to be written: hide its folder, unless that folder is one the
                # engine was given to read (or holds one): then it shows once written.
                path = os.path.dirname(path)
                if (path in SYSTEM_PATHS or not os.path.isdir(path)
                        or any(_covered(b, [path]) for b in bound)):
                    continue
            if _covered(path, bound):
                if os.path.isdir(path):
                    args += ["--tmpfs", path]
                else:
                    args += ["--ro-bind", "/dev/null", path]
        if not _covered(cwd, bound):
            args += ["--dir", cwd]
        return args

    def explain(self, exit_code: int | None = None) -> str | None:
        """The limits the engine passed, in words, or None."""
        hits = self.cgroup.passed() if self.cgroup.folders else []
        said = []
        if "memory" in hits:
            said.append(f"it passed its memory limit ({self.limits.memory_mib} MiB)")
        if "processes" in hits:
            said.append(f"it reached its process limit ({self.limits.processes})")
        if exit_code in (-24, 128 + 24):                       # SIGXCPU, itself or through bwrap
            said.append(f"it passed its CPU-time limit ({self.limits.cpu_seconds} s)")
        if exit_code == LAUNCHER_FAILED and not said:
            said.append("the sandbox could not place it in its cgroup")
        return "; ".join(said) or None

    def close(self) -> None:
        """Kill every process of the engine that is left, and remove its cgroup."""
        self.cgroup.remove()
