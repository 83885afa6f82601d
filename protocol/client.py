"""The GUI side of PRI: start any engine command and drive it, with a timeout on every read.

`EngineClient` runs the engine as a subprocess. A reader thread queues its stdout lines, and
every read waits at most a stated time. It raises:
- `EngineDied` when the process ends;
- `EngineTimeout` when it stays silent too long;
- `ProtocolViolation` when it answers out of protocol; `InvalidOutput` (a ProtocolViolation,
  its message starting "invalid output") at once for a line that is no PRI line where an
  answer is due, and for a line that is no text at all: not UTF-8, holding a NUL or another
  control character, or longer than MAX_LINE_BYTES. The reader reads bytes and decodes each
  line itself (with errors="replace" for the transcript), so no byte can stop it.
The tournament runner, `palais play`, the compliance check and the tests drive engines
through it. Commands are the parser's own dataclasses (protocol/commands.py), written by
`format_command`, so the client speaks exactly the grammar the engine parses:
`client.position(PositionStart(players=2, seed=9))`, `client.go(Go(movetime_ms=250), timeout=1)`,
or `for info in client.search(Go(movetime_ms=250), timeout=1): ...` to follow its `info` lines.

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
from .info import Info, InfoError
from .parser import format_command
from .sandbox import Confinement, SandboxPolicy, SandboxUnavailable, is_confined, trusted_environment


class ClientError(PalaisError):
    """Base class: something went wrong talking to an engine."""


class EngineDied(ClientError):
    pass


class EngineTimeout(ClientError):
    pass


class ProtocolViolation(ClientError):
    pass


class InvalidOutput(ProtocolViolation):
    """The engine wrote something that is not PRI: the tournament forfeits it at once."""

    def __init__(self, why: str):
        super().__init__(f"invalid output: {why}")


SAFETY_TIMEOUT_S = 600.0
"""How long an engine may stay silent when no time budget bounds its answer (a search by
iterations or nodes, the handshake): long enough that load alone never trips it."""

CLOSE_GRACE_S = 2.0
"""How long `close()` waits after `quit`, and again after terminating, before the next step."""

MAX_LINE_BYTES = 1 << 16
"""The longest line an engine may write (64 KiB, far above any PRI line); a longer one is
invalid output, and the reader skips the rest of it without keeping it."""

# POSIX: each engine gets a process group of its own, so closing it also ends what it started
# (a launcher's engine, its helpers). Windows has no process groups to signal: there an engine
# is ended alone (terminate, then kill), and a launcher's child may outlive it (docs/protocol.md).
_GROUPS = hasattr(os, "killpg")
_PEEK = hasattr(os, "waitid")              # Linux and others: see an exit without reaping it


PRI_WORDS = ("id", "option", "priok", "readyok", "info", "bestmove")
"""The first words of the lines an engine writes (docs/protocol.md, Engine to GUI)."""

def parse_info(line: str) -> Info:
    """An `info` line as the typed record the engine wrote it from (protocol/info.py)."""
    try:
        return Info.parse(line)
    except InfoError as exc:
        raise ProtocolViolation(str(exc)) from None


@dataclass(frozen=True)
class _Garbage:
    """A line the reader could not take as text: why, and what it looked like."""
    why: str
    text: str


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def decode_line(raw: bytes):
    """One line of engine output (its end of line removed) as text, or a _Garbage."""
    raw = raw.removesuffix(b"\n").removesuffix(b"\r")
    text = raw.decode("utf-8", errors="replace")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _Garbage(f"a line that is not UTF-8 (byte {exc.start + 1}): {_shown(text)}", text)
    bad = next((c for c in text if (c < " " and c != "\t") or c == "\x7f"), None)
    if bad is not None:
        what = "a NUL byte" if bad == "\0" else f"a control character ({ord(bad):#04x})"
        return _Garbage(f"a line holding {what}: {_shown(text)}", text)
    return text


def _not_pri(line: str, where: str) -> InvalidOutput:
    return InvalidOutput(f"a line that is not PRI {where}: {_shown(line)}")


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
    infos: list                    # the info lines (protocol/info.py's Info), in order
    errors: list                   # `info string error: ...` texts seen meanwhile


class Search:
    """One `go` in progress (as python-chess's analysis handle): iterating it yields each
    `info` record (protocol/info.py) as the engine writes it and ends at `bestmove`; then
    `answer` holds the SearchAnswer. `stop()` (from any thread) sends `stop`. Every read
    keeps to the deadline given at the start; the client's errors (EngineTimeout,
    EngineDied, ProtocolViolation) come out of the iteration."""

    def __init__(self, client: "EngineClient", timeout: float):
        self.client = client
        self.deadline = time.monotonic() + timeout
        self.answer: SearchAnswer | None = None
        self._infos, self._errors = [], []

    def __iter__(self):
        while self.answer is None:
            line = self.client.read_line(max(0.0, self.deadline - time.monotonic()))
            if line.startswith("bestmove "):
                rest = line[9:].split()
                self.answer = SearchAnswer([] if rest == ["(none)"] else rest, self._infos, self._errors)
            elif line.startswith("info string error: "):
                self._errors.append(line[len("info string error: "):])
            elif line.startswith("info "):
                self._infos.append(parse_info(line))
                yield self._infos[-1]
            elif line != "readyok":
                raise _not_pri(line, "while searching")

    def wait(self) -> SearchAnswer:
        """Read to the end; the answer."""
        for _ in self:
            pass
        return self.answer

    def stop(self) -> None:
        if self.answer is None:
            self.client.send("stop")


class EngineClient:
    """`sandbox`: the policy the process starts under (protocol/sandbox.py); None or mode
    "off" trusts it (it still gets no variable that looks like a secret)."""

    def __init__(self, command, read_timeout: float = 10.0, stderr=subprocess.DEVNULL,
                 sandbox: SandboxPolicy | None = None):
        self.command = list(command)
        self.read_timeout = read_timeout
        self._stderr = stderr
        self.sandbox = sandbox
        self.confinement = None            # the sandbox in force, once started confined
        self.process = None
        self._lines = queue.Queue()
        self.info = EngineInfo()
        self.transcript = []        # (">" or "<", line) for diagnostics

    # ------------------------------------------------------------------ process
    def start(self) -> "EngineClient":
        argv, env = self.command, trusted_environment()
        try:
            with deferred_signals():       # a signal acts once the process is ours to close
                if is_confined(self.sandbox):
                    self.confinement = Confinement(self.sandbox, self.command)
                    argv, env = self.confinement.argv, self.confinement.env
                self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                stderr=self._stderr, start_new_session=_GROUPS, env=env)
        except (OSError, SandboxUnavailable) as exc:
            self._release()
            raise EngineDied(f"cannot start {' '.join(self.command)}: {exc}") from None
        threading.Thread(target=self._pump, daemon=True).start()
        return self

    def _pump(self) -> None:
        """The reader thread: each line of bytes, decoded or judged garbage; None at the end.
        A line longer than MAX_LINE_BYTES is queued as garbage at once and its rest skipped."""
        stream = self.process.stdout
        try:
            while True:
                raw = stream.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    text = raw[:40].decode("utf-8", errors="replace")
                    self._lines.put(_Garbage(f"a line longer than {MAX_LINE_BYTES} bytes, "
                                             f"starting {text!r}", text + "..."))
                    while raw and not raw.endswith(b"\n"):
                        raw = stream.readline(MAX_LINE_BYTES + 1)
                    continue
                self._lines.put(decode_line(raw))
        except (OSError, ValueError):      # the pipe closed under the reader
            pass
        finally:
            self._lines.put(None)          # end of output

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
            self.process.stdin.write((line + "\n").encode("utf-8"))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineDied("the engine closed its input") from None

    def read_line(self, timeout: float | None = None) -> str:
        try:
            line = self._lines.get(timeout=self.read_timeout if timeout is None else timeout)
        except queue.Empty:
            raise EngineTimeout(self._why(f"no answer within {self.read_timeout if timeout is None else timeout:.1f} s")) from None
        if line is None:
            self._lines.put(None)
            self._wait_for_exit(5.0)
            raise EngineDied(self._why(f"the engine exited (code {self.exit_code()})"))
        if isinstance(line, _Garbage):
            self.transcript.append(("<", line.text))
            raise InvalidOutput(line.why)
        self.transcript.append(("<", line))
        return line

    def _why(self, what: str) -> str:
        """`what` happened, and the sandbox's limit the engine passed, if it passed one."""
        if self.confinement is None:
            return what
        reason = self.confinement.explain(self.exit_code())
        return what if reason is None else f"{what}: {reason}"

    def _release(self) -> None:
        """Kill what is left of a confined engine and remove its cgroup (idempotent)."""
        if self.confinement is not None:
            self.confinement.close()

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
            self._release()
            return
        with deferred_signals():
            self._end(grace)
            self._release()

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
                raise _not_pri(line, "in the handshake")

    def is_ready(self, timeout: float | None = None) -> list:
        """Send isready and wait for readyok; returns the lines read before it."""
        self.send_command(IsReady())
        seen = []
        deadline = time.monotonic() + (timeout or self.read_timeout)
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line == "readyok":
                return seen
            if line.split(" ", 1)[0] not in PRI_WORDS:
                raise _not_pri(line, "before readyok")
            seen.append(line)

    def set_option(self, name: str, value=None) -> None:
        self.send_command(SetOption(name, None if value is None else str(value)))

    def new_game(self) -> None:
        self.send_command(NewGame())

    def position(self, command: PositionStart | PositionString) -> None:
        if not isinstance(command, (PositionStart, PositionString)):
            raise TypeError(f"position() takes a PositionStart or PositionString, not {command!r}")
        self.send_command(command)

    def search(self, limits: Go, timeout: float) -> "Search":
        """Send `limits` (a Go) and return the search's handle: iterate it for the `info`
        records as they come; its `answer` is there once the iteration ends (at `bestmove`,
        at most `timeout` seconds from now); `stop()` asks the engine to answer now."""
        if not isinstance(limits, Go):
            raise TypeError(f"search() takes a Go, not {limits!r}")
        self.send_command(limits)
        return Search(self, timeout)

    def go(self, limits: Go, timeout: float) -> SearchAnswer:
        """Send `limits` (a Go) and read until bestmove (at most `timeout` seconds)."""
        return self.search(limits, timeout).wait()

    def read_bestmove(self, timeout: float) -> SearchAnswer:
        """The answer of a search already asked for (a `go` sent as a raw line, say)."""
        return Search(self, timeout).wait()
