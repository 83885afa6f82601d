"""The GUI side of PRI: start any engine command and drive it, with a timeout on every read.

`EngineClient` runs the engine as a subprocess. A reader thread queues its stdout lines, and
every read waits at most a stated time. It raises:
- `EngineDied` when the process ends;
- `EngineTimeout` when it stays silent too long;
- `ProtocolViolation` when it answers out of protocol.
The tournament runner, `palais play`, the compliance check and the tests drive engines
through it. Commands are the parser's own dataclasses (protocol/commands.py), written by
`format_command`, so the client speaks exactly the grammar the engine parses:
`client.position(PositionStart(players=2, seed=9))`, `client.go(Go(movetime_ms=250), timeout=1)`.

`close()` never leaves a process behind: the engine runs in a process group of its own (so a
launcher script and the engine it starts go together), and closing sends `quit` and ends its
input, waits a short grace period, then terminates the group, waits again, and kills it.
The engine is reaped only after its group has been signalled, so the group id cannot have
been reused by then.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from engine.errors import PalaisError

from .commands import Go, IsReady, NewGame, PositionStart, PositionString, Pri, Quit, SetOption
from .parser import format_command


class ClientError(PalaisError):
    """Base class: something went wrong talking to an engine."""


class EngineDied(ClientError):
    pass


class EngineTimeout(ClientError):
    pass


class ProtocolViolation(ClientError):
    pass


SAFETY_TIMEOUT_S = 600.0
"""How long an engine may stay silent when no time budget bounds its answer (a search by
iterations or nodes, the handshake): long enough that load alone never trips it."""

CLOSE_GRACE_S = 2.0
"""How long `close()` waits after `quit`, and again after terminating, before the next step."""

_GROUPS = hasattr(os, "killpg")            # POSIX: engines get a process group of their own
_PEEK = hasattr(os, "waitid")              # Linux and others: see an exit without reaping it


MULTI_VALUE_KEYS = ("winprob", "score")
REST_KEYS = ("pv", "string")


def parse_info(line: str) -> dict:
    """The key-value pairs of an `info` line; winprob/score give lists, pv/string the rest."""
    words = line.split()
    if not words or words[0] != "info":
        raise ProtocolViolation(f"not an info line: {line!r}")
    out = {}
    i = 1
    while i < len(words):
        key = words[i]
        if key in REST_KEYS:
            out[key] = " ".join(words[i + 1:])
            break
        if key in MULTI_VALUE_KEYS:
            values = []
            i += 1
            while i < len(words):
                try:
                    values.append(float(words[i]))
                except ValueError:
                    break
                i += 1
            out[key] = values
            continue
        out[key] = words[i + 1] if i + 1 < len(words) else ""
        i += 2
    return out


@contextmanager
def deferred_signals():
    """SIGINT and SIGTERM that arrive inside the block act when it ends (their handlers are
    set aside meanwhile; only the main thread can do that, elsewhere this does nothing).
    Ending engines must not be cut short: an exception raised by Ctrl+C, or by a process
    pool's terminate(), would leave them running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    saved = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        saved[sig] = signal.signal(sig, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)


def close_all(clients) -> None:
    """Close every engine of `clients` (None entries are skipped), uninterrupted."""
    with deferred_signals():
        for client in clients:
            if client is not None:
                client.close()


@dataclass
class EngineInfo:
    name: str = ""
    author: str = ""
    options: dict = field(default_factory=dict)     # name -> the rest of its option line


@dataclass
class SearchAnswer:
    bestmove: list                 # tokens; [] for "(none)"
    infos: list                    # parsed info lines (dicts), in order
    errors: list                   # `info string error: ...` texts seen meanwhile


class EngineClient:
    def __init__(self, command, read_timeout: float = 10.0, stderr=subprocess.DEVNULL):
        self.command = list(command)
        self.read_timeout = read_timeout
        self._stderr = stderr
        self.process = None
        self._lines = queue.Queue()
        self.info = EngineInfo()
        self.transcript = []        # (">" or "<", line) for diagnostics

    # ------------------------------------------------------------------ process
    def start(self) -> "EngineClient":
        try:
            with deferred_signals():       # a signal acts once the process is ours to close
                self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                stderr=self._stderr, text=True, bufsize=1,
                                                start_new_session=_GROUPS)
        except OSError as exc:
            raise EngineDied(f"cannot start {' '.join(self.command)}: {exc}") from None
        threading.Thread(target=self._pump, daemon=True).start()
        return self

    def _pump(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)      # end of output

    def __enter__(self):
        return self if self.process is not None else self.start()     # started already: the same process

    def __exit__(self, *exc):
        self.close()

    def send_command(self, command) -> None:
        """Send a command dataclass as its PRI line (a BadCommand, nothing sent, if it has none)."""
        self.send(format_command(command))

    def send(self, line: str) -> None:
        """Send one raw line (the compliance check sends malformed ones on purpose)."""
        if self.process is None or self.exit_code() is not None:
            raise EngineDied(f"the engine is not running (exit code {self.process and self.exit_code()})")
        self.transcript.append((">", line))
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineDied("the engine closed its input") from None

    def read_line(self, timeout: float | None = None) -> str:
        try:
            line = self._lines.get(timeout=self.read_timeout if timeout is None else timeout)
        except queue.Empty:
            raise EngineTimeout(f"no answer within {self.read_timeout if timeout is None else timeout:.1f} s") from None
        if line is None:
            self._lines.put(None)
            self._wait_for_exit(5.0)
            raise EngineDied(f"the engine exited (code {self.exit_code()})")
        self.transcript.append(("<", line))
        return line

    def exit_code(self):
        """The engine's exit code (negative: the signal that ended it), or None while it runs.
        Where the system allows, the process is not reaped here (close() does that)."""
        process = self.process
        if process.returncode is not None or not _PEEK:
            return process.poll()
        try:
            seen = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:          # reaped already (by Popen itself)
            return process.poll()
        if seen is None or seen.si_pid == 0:
            return None
        return seen.si_status if seen.si_code == os.CLD_EXITED else -seen.si_status

    def _wait_for_exit(self, timeout: float) -> bool:
        """Whether the engine has ended within `timeout` seconds (checked every 20 ms)."""
        deadline = time.monotonic() + timeout
        while self.exit_code() is None:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def _signal(self, sig) -> None:
        """Send `sig` to the engine's process group (to the engine alone without groups)."""
        try:
            if _GROUPS:
                os.killpg(self.process.pid, sig)
            else:
                self.process.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass                               # nothing left in the group

    def close(self, grace: float = CLOSE_GRACE_S) -> None:
        """End the engine and everything it started: `quit` and end of input, then after
        `grace` seconds terminate, then after `grace` more kill; then reap it. Idempotent.
        Ctrl+C and SIGTERM wait until it is done (deferred_signals)."""
        if self.process is None or self.process.returncode is not None:
            return
        with deferred_signals():
            self._end(grace)

    def _end(self, grace: float) -> None:
        if self.exit_code() is None:
            try:
                self.send_command(Quit())
            except EngineDied:
                pass
        try:
            self.process.stdin.close()
        except OSError:
            pass
        if not self._wait_for_exit(grace):
            self._signal(signal.SIGTERM)
            self._wait_for_exit(grace)
        if _GROUPS and self.process.returncode is None:
            # The engine is ended but not reaped, so its group id is still its own: sweep
            # whatever it left running (a launcher's engine, a helper of the engine).
            self._signal(signal.SIGKILL)
        elif self.exit_code() is None:
            self.process.kill()
        self.process.wait()

    # ------------------------------------------------------------------ protocol
    def handshake(self, timeout: float | None = None) -> EngineInfo:
        self.send_command(Pri())
        deadline = time.monotonic() + (timeout or self.read_timeout)
        info = EngineInfo()
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line == "priok":
                self.info = info
                return info
            if line.startswith("id name "):
                info.name = line[8:]
            elif line.startswith("id author "):
                info.author = line[10:]
            elif line.startswith("option name "):
                rest = line[12:]
                name = rest.split(" type ")[0]
                info.options[name] = rest[len(name):].strip()
            elif not line.startswith("info "):
                raise ProtocolViolation(f"unexpected line in the handshake: {line!r}")

    def is_ready(self, timeout: float | None = None) -> list:
        """Send isready and wait for readyok; returns the lines read before it."""
        self.send_command(IsReady())
        seen = []
        deadline = time.monotonic() + (timeout or self.read_timeout)
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line == "readyok":
                return seen
            seen.append(line)

    def set_option(self, name: str, value=None) -> None:
        self.send_command(SetOption(name, None if value is None else str(value)))

    def new_game(self) -> None:
        self.send_command(NewGame())

    def position(self, command: PositionStart | PositionString) -> None:
        if not isinstance(command, (PositionStart, PositionString)):
            raise TypeError(f"position() takes a PositionStart or PositionString, not {command!r}")
        self.send_command(command)

    def go(self, limits: Go, timeout: float, on_info=None) -> SearchAnswer:
        """Send `limits` (a Go) and read until bestmove (at most `timeout` seconds);
        `on_info` (optional) is called with each parsed info line as it arrives."""
        if not isinstance(limits, Go):
            raise TypeError(f"go() takes a Go, not {limits!r}")
        self.send_command(limits)
        return self.read_bestmove(timeout, on_info)

    def read_bestmove(self, timeout: float, on_info=None) -> SearchAnswer:
        deadline = time.monotonic() + timeout
        infos, errors = [], []
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line.startswith("bestmove "):
                rest = line[9:].split()
                return SearchAnswer([] if rest == ["(none)"] else rest, infos, errors)
            if line.startswith("info string error: "):
                errors.append(line[len("info string error: "):])
            elif line.startswith("info "):
                infos.append(parse_info(line))
                if on_info is not None:
                    on_info(infos[-1])
            elif line != "readyok":
                raise ProtocolViolation(f"unexpected line while searching: {line!r}")
