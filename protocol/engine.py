"""The engine facade behind the PRI server: options, position, search, tools.

Blocking contracts (DESIGN.md habit 1):
- `set_option`, `new_game` and `set_position` return at once. They refuse while a search
  runs (EngineBusy).
- `go` never blocks. The search runs on a worker thread, whose work is nogil C in chunks;
  `on_info` and `on_bestmove` are called from that thread.
- `stop` never blocks.
- `wait` blocks until the running search has reported its bestmove.
The facade knows nothing of text lines: the server formats what it reports.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from engine.components import default_components
from engine.constants import S_DRAW
from engine.errors import PalaisError
from search.params import ALGORITHMS, ROLLOUT_POLICIES, SearchLimits, SearchParams
from search.players import make_player

from .commands import Go
from .session import seat_view


class EngineError(PalaisError):
    """A request the engine cannot honour now (bad option value, busy, no position)."""


@dataclass(frozen=True)
class OptionSpec:
    name: str
    type: str                     # spin, check, combo, string, button
    default: object
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def parse(self, text):
        if self.type == "spin":
            try:
                value = int(text)
            except (TypeError, ValueError):
                raise EngineError(f"option {self.name}: expected a whole number, got {text!r}") from None
            if not self.low <= value <= self.high:
                raise EngineError(f"option {self.name}: {value} is outside {self.low}..{self.high}")
            return value
        if self.type == "check":
            if text not in ("true", "false"):
                raise EngineError(f"option {self.name}: expected true or false, got {text!r}")
            return text == "true"
        if self.type == "combo":
            if text not in self.choices:
                raise EngineError(f"option {self.name}: {text!r} is not one of {', '.join(self.choices)}")
            return text
        if self.type == "string":
            if text is None:
                raise EngineError(f"option {self.name}: needs a value")
            return text
        return None

    def line(self) -> str:
        out = f"option name {self.name} type {self.type}"
        if self.type != "button":
            default = str(self.default).lower() if isinstance(self.default, bool) else self.default
            out += f" default {default}"
        if self.type == "spin":
            out += f" min {self.low} max {self.high}"
        for choice in self.choices:
            out += f" var {choice}"
        return out


OPTIONS = (
    OptionSpec("Algorithm", "combo", "ismcts", choices=ALGORITHMS),
    OptionSpec("Threads", "spin", 1, 1, 256),
    OptionSpec("Hash", "spin", 64, 1, 65536),
    OptionSpec("MultiPV", "spin", 1, 1, 64),
    OptionSpec("Seed", "spin", 0, 0, 2 ** 63 - 1),
    OptionSpec("Exploration", "string", "0.7"),
    OptionSpec("Rollout Policy", "combo", "heuristic", choices=ROLLOUT_POLICIES),
    OptionSpec("Move Overhead", "spin", 30, 0, 10000),
)
OPTION_BY_NAME = {spec.name.lower(): spec for spec in OPTIONS}


@dataclass
class Report:
    """What a search reports: candidate lines (a SearchResult) and counters."""
    result: object
    final: bool


class Engine:
    def __init__(self, components=None):
        self.components = components or default_components()
        self.values = {spec.name: spec.default for spec in OPTIONS}
        self.view = None              # the view of the seat to move, or None at the end
        self.seat = None
        self.has_position = False
        self._player = None
        self._thread = None
        self._stop_requested = threading.Event()
        self._searching = False
        self._searches = 0

    # ------------------------------------------------------------------ options, position
    def option_lines(self) -> list:
        return [spec.line() for spec in OPTIONS]

    def busy(self) -> bool:
        """True from `go` until the bestmove is being reported (not until the thread ends:
        a GUI may send the next position the moment it reads the bestmove)."""
        return self._searching

    def _idle(self, what: str) -> None:
        if self.busy():
            raise EngineError(f"cannot {what} during a search; send stop first")

    def set_option(self, name: str, text) -> None:
        self._idle("set an option")
        spec = OPTION_BY_NAME.get(name.lower())
        if spec is None:
            raise EngineError(f"unknown option '{name}' (options: {', '.join(s.name for s in OPTIONS)})")
        value = spec.parse(text)
        if spec.name == "Exploration":
            try:
                number = float(value)
            except ValueError:
                raise EngineError(f"option Exploration: expected a number, got {value!r}") from None
            if not 0 <= number <= 10:
                raise EngineError("option Exploration: must be in 0..10")
        self.values[spec.name] = value
        self._player = None

    def new_game(self) -> None:
        self._idle("start a new game")
        self._player = None

    def set_position(self, command) -> None:
        self._idle("change the position")
        view, seat = seat_view(command, self.components)
        self.view, self.seat = view, seat
        self.has_position = True

    def params(self) -> SearchParams:
        v = self.values
        return SearchParams(algorithm=v["Algorithm"], processes=v["Threads"], hash_mb=v["Hash"],
                            seed=v["Seed"], exploration=float(v["Exploration"]),
                            rollout_policy=v["Rollout Policy"])

    # ------------------------------------------------------------------ search
    def limits_for(self, go: Go) -> SearchLimits:
        overhead = self.values["Move Overhead"]
        if go.infinite:
            return SearchLimits(infinite=True, iterations=go.iterations, nodes=go.nodes)
        time_ms = None
        if go.movetime_ms:
            time_ms = max(1, go.movetime_ms - overhead)
        else:
            left = dict(go.time_ms).get(self.seat)
            if left is not None:
                inc = dict(go.inc_ms).get(self.seat, 0)
                time_ms = max(1, min(left - overhead, left // 20 + inc * 4 // 5 - overhead))
        if time_ms is None and go.iterations is None and go.nodes is None:
            return SearchLimits(infinite=True)
        return SearchLimits(iterations=go.iterations, nodes=go.nodes, time_ms=time_ms)

    def go(self, command: Go, on_info, on_bestmove) -> None:
        """Start searching; never blocks. on_bestmove(turn or None) is called exactly once."""
        self._idle("start a search")
        if not self.has_position:
            raise EngineError("no position: send 'position ...' first")
        self._stop_requested.clear()
        limits = self.limits_for(command)
        multipv = command.multipv or self.values["MultiPV"]
        self._searching = True
        self._thread = threading.Thread(target=self._search, daemon=True,
                                        args=(limits, multipv, on_info, self._finish(on_bestmove)))
        self._thread.start()

    def _finish(self, on_bestmove):
        """on_bestmove, once the engine is idle again."""
        def report(turn):
            self._searching = False
            on_bestmove(turn)
        return report

    def _search(self, limits, multipv, on_info, on_bestmove) -> None:
        view = self.view
        if view is None or view.is_terminal() or view.stage == S_DRAW:
            if limits.infinite:
                self._stop_requested.wait()
            on_bestmove(None)
            return
        if self._player is None:
            self._player = make_player(self.params())
        player = self._player
        stopped = self._stop_requested

        def progress(p):
            if stopped.is_set():
                player.stop()
            on_info(Report(p, final=False))

        if stopped.is_set():
            player.stop()
        result = player.search(view, self.seat, limits, callback=progress, top_k=multipv)
        if not result.best_turn:              # stopped before the first iteration
            result.best_turn = [view.legal_actions()[0]]
        on_info(Report(result, final=True))
        if limits.infinite:
            stopped.wait()
        on_bestmove(result.best_turn)

    def stop(self) -> None:
        """Ask the running search to end; never blocks."""
        self._stop_requested.set()
        player = self._player
        if player is not None:
            player.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the running search has reported its bestmove (False on timeout)."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def close(self) -> None:
        self.stop()
        self.wait()
        closer = getattr(self._player, "close", None)
        if closer is not None:
            closer()
