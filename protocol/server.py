"""The PRI server loop: read a line, parse it, dispatch it, print the answer.

It only parses, dispatches and prints; the engine facade (protocol/engine.py EngineFacade) does the work. Every line written
goes through one lock, so the search thread's info lines and the reader's answers never
interleave inside a line. Only protocol reaches the output stream. No line ends the engine
but `quit`: an unexpected failure in a handler is one error line (and a traceback on
stderr), and the loop goes on.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import traceback

from common.version import PACKAGE, installed_version
from engine.board_text import board_lines
from engine.errors import PalaisError
from engine.notation import turn_to_text

from .commands import COMMANDS, RENAMED_NOTES, ParseError, PositionString, Quit
from .engine import EngineFacade
from .info import Info
from .parser import parse_line

ENGINE_NAME = f"{PACKAGE} {installed_version()}"      # the one version source: pyproject.toml
ENGINE_AUTHOR = "the palais-engine developers"
INFO_INTERVAL_S = 0.25          # progress info lines at most this often


class Server:
    def __init__(self, output=None, engine: EngineFacade | None = None):
        self.output = output or sys.stdout
        self.engine = engine or EngineFacade()
        self._lock = threading.Lock()
        self._last_info = 0.0
        # each command type of protocol/commands.py to its handler on_<handler> (quit ends the loop)
        self.handlers = {cls: getattr(self, f"on_{cls.handler}")
                         for cls in (*COMMANDS.values(), PositionString) if cls is not Quit}

    # ------------------------------------------------------------------ output
    def send(self, line: str) -> None:
        with self._lock:
            self.output.write(line + "\n")
            self.output.flush()

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    # ------------------------------------------------------------------ the loop
    def handle(self, line: str) -> bool:
        """Act on one line; False once the engine should exit."""
        try:
            command = parse_line(line)
            if command is None:
                return True
            if isinstance(command, ParseError):
                self.error(command.message)
                return True
            if isinstance(command, Quit):
                self.engine.close()
                return False
            self.handlers[type(command)](command)
        except PalaisError as exc:
            self.error(str(exc))
        except Exception as exc:                # a defect: say so, keep serving
            self._defect(line.split()[0] if line.split() else "", exc)
        return True

    def run(self, lines) -> None:
        """Serve until `quit` or the end of `lines`; the search processes end with it."""
        try:
            for line in lines:
                if not self.handle(line):
                    return
        finally:
            self.engine.close()

    # ------------------------------------------------------------------ handlers
    def on_pri(self, _):
        digest, priors = self.engine.value_digest(), self.engine.policy_digest()
        self.send(f"id name {ENGINE_NAME}" + (f" value {digest}" if digest else "")
                  + (f" policy {priors}" if priors else ""))
        self.send(f"id author {ENGINE_AUTHOR}")
        self.send(f"info string value kernel {self.engine.value_kernel()}")
        for note in RENAMED_NOTES:
            self.send(f"info string {note}")
        self._send_notes()
        for line in self.engine.option_lines():
            self.send(line)
        self.send("priok")

    def on_isready(self, _):
        try:
            self.engine.prepare(self._info_string)
        except PalaisError as exc:
            self.error(str(exc))
        except Exception as exc:                # readyok must come whatever happens
            traceback.print_exc(file=sys.stderr)
            self.error(f"could not get ready to search: {type(exc).__name__}: {exc}")
        self.send("readyok")

    def on_setoption(self, command):
        self.engine.set_option(command.name, command.value)
        self._send_notes()

    def _send_notes(self) -> None:
        for note in self.engine.take_notes():
            self._info_string(note)

    def on_newgame(self, _):
        self.engine.new_game()

    def on_position(self, command):
        self.engine.set_position(command)

    def on_go(self, command):
        self._last_info = 0.0
        self.engine.go(command, self._report, self._bestmove, self._info_string)

    def on_stop(self, _):
        self.engine.stop()

    def _report(self, report) -> None:
        now = time.monotonic()
        if not report.final and now - self._last_info < INFO_INTERVAL_S:
            return
        self._last_info = now
        for line in info_lines(report.result, report.final):
            self.send(line)

    def _info_string(self, text: str) -> None:
        self.send(f"info string {text}")

    def _bestmove(self, turn) -> None:
        self.send("bestmove " + (turn_to_text(turn) if turn else "(none)"))

    def _need_position(self):
        if self.engine.view is None:
            raise PalaisError("no position: send 'position ...' first (or the game is over)")
        return self.engine.view

    def on_display(self, _):
        for line in board_lines(self._need_position()):
            self.send(f"info string {line}")

    def on_perft(self, command):
        from engine.perft import PerftStopped, perft
        self.engine.ensure_idle("count perft")
        view = self._need_position()
        depth = command.depth

        def count(stop):
            try:
                return [f"perft {depth} nodes {perft(view, depth, stop=stop.is_set)}"]
            except PerftStopped as stopped:
                return [f"perft {depth} stopped: {stopped.counted} nodes counted so far"]
        self.engine.run_tool("count perft", "perft", count, self._tool_done("perft"))

    def on_bench(self, _):
        from search.signature import signature
        self.send(f"info string Nodes searched: {signature()}")

    def on_hint(self, command):
        from search.analysis import analyse_turn
        from search.params import SearchLimits
        self.engine.ensure_idle("give a hint")
        view = self._need_position()
        limits = SearchLimits(iterations=command.iterations, time_ms=command.movetime_ms) \
            if (command.iterations or command.movetime_ms) else None    # None: the hint default
        params = self.engine.params()

        def hint(stop):
            analysis = analyse_turn(view, limits, top=command.top, seed=params.seed, params=params,
                                    stop=stop)
            seat = analysis.seat
            lines = [f"hint {rank}: {turn_to_text(c.turn)} | win {c.win_prob[seat]:.0%} "
                     f"| expected VP {c.expected_score[seat]:.1f} | {c.visits} visits"
                     for rank, c in enumerate(analysis.candidates, 1)]
            end = "stopped" if stop.is_set() else "done"
            return lines + [f"hint {end}: {len(analysis.candidates)} candidates, "
                            f"{analysis.iterations} iterations"]
        self.engine.run_tool("give a hint", "a hint", hint, self._tool_done("hint"))

    def _tool_done(self, word: str):
        """What a tool's worker calls at its end: its `info string` lines, or its error."""
        def done(texts, failure):
            if failure is None:
                for text in texts:
                    self._info_string(text)
            elif isinstance(failure, PalaisError):
                self.error(str(failure))
            else:
                self._defect(word, failure)
        return done

    def _defect(self, word: str, exc: BaseException) -> None:
        """An unexpected failure: its traceback on stderr, one error line, and the engine goes on."""
        traceback.print_exception(exc, file=sys.stderr)
        self.error(f"internal error in '{word}': {type(exc).__name__}: {exc}")


def info_lines(result, final: bool) -> list:
    """`info` lines for a search result (final: one per candidate) or a progress report."""
    common = {"iterations": result.iterations, "visits": result.node_visits, "nodes": result.node_visits,
              "time_ms": round(result.time_ms),
              "nps": round(result.node_visits * 1000 / result.time_ms) if result.time_ms > 0 else None}
    if not final:
        best = result.best
        return [Info(**common, pv=None if best is None else turn_to_text(best.turn)).to_line()]
    return [Info(**common, multipv=k, winprob=tuple(c.win_prob), score=tuple(c.expected_score),
                 pv=turn_to_text(c.turn)).to_line()
            for k, c in enumerate(result.candidates, 1)]


def main(start: dict | None = None) -> None:
    """Serve PRI on standard input and output until `quit` or the end of input; `start`
    replaces search option defaults (knob name -> value)."""
    signal.signal(signal.SIGTERM, _exit_on_signal)
    server = Server(sys.stdout, EngineFacade(start=start))
    server.run(sys.stdin)


def _exit_on_signal(signum, _frame):
    """SIGTERM ends the engine like the end of input: the search processes end with it."""
    sys.exit(128 + signum)
