"""The engine facade behind the PRI server: options, position, search, tools.

Blocking contracts (DESIGN.md habit 1):
- `set_option`, `new_game` and `set_position` return at once. They refuse while a search
  (or a tool: `hint`, `perft`) runs (EngineError), except after `stop`: then they wait for
  the stopped job's answer (a short wait, bounded), so a GUI may pipeline `stop`, `position`, `go`.
- `go` never blocks (but as above after `stop`). The search runs on a worker thread, whose
  work is nogil C in chunks; `on_info`, `on_message` and `on_bestmove` are called from
  that thread, `on_bestmove` exactly once, even when the search fails.
- `run_tool` runs a tool the same way: on a worker thread, stopped by `stop`, one `on_done`.
- `stop` never blocks. A `stop` with nothing running is ignored.
- `wait` blocks until the running job has given its answer.
- `prepare` (isready) makes the player; with Threads > 1 it blocks until the search
  processes are up. During a job it does nothing (so `isready` is answered at once).
The facade knows nothing of text lines: the server formats what it reports.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from common.numbers import MAX_DIGITS, integer, shown
from engine.components import default_components
from engine.constants import S_DRAW
from engine.errors import PalaisError
from search.params import KNOBS, USES_PRIORS, USES_VALUE, Knob, SearchLimits, SearchParams, tree_memory_cap_mb
from search.factory import make_player
from search.timeman import clock_time_ms
from search.turns import play_turn
from search.kernel import kernel_name
from search.priors import load_priors, priors_identity
from search.value import load_value_model, value_identity

from .commands import RENAMED_OPTIONS, Go
from .session import view_from_position


STOPPING_WAIT_S = 30.0   # how long a command after `stop` waits for the stopped search's bestmove
CLOSE_WAIT_S = 5.0       # how long `close` waits for a stopped search before ending the workers


class EngineError(PalaisError):
    """A request the engine cannot honour now (bad option value, busy, no position)."""


EMPTY = "<empty>"          # an empty text option's value in option lines and setoption (as in UCI)
SPIN_MAX = 2 ** 63 - 1    # a spin's max when its search knob has no upper bound (a GUI's 64-bit spin)


@dataclass(frozen=True)
class OptionSpec:
    """One PRI option. A search option carries its search.params Knob, which reads and checks
    the value; the protocol's own options (MultiPV, Move Overhead) are spins checked here."""
    name: str
    type: str                     # spin, check, combo, string, button
    default: object
    low: int | None = None
    high: int | None = None
    choices: tuple = ()
    knob: Knob | None = None
    help: str = ""                # one line for people (docs/protocol.md's table); a knob's own help

    @classmethod
    def for_knob(cls, knob: Knob) -> "OptionSpec":
        """The PRI face of a search knob: a combo for choices, a check for a bool, a spin for
        a whole number and a string for any other number (PRI, like UCI, has no float type)."""
        if knob.choices:
            return cls(knob.pri, "combo", knob.default, choices=knob.choices, knob=knob, help=knob.help)
        if knob.kind is bool:
            return cls(knob.pri, "check", knob.default, knob=knob, help=knob.help)
        if knob.kind is int:
            return cls(knob.pri, "spin", knob.default, knob.low,
                       SPIN_MAX if knob.high is None else knob.high, knob=knob, help=knob.help)
        return cls(knob.pri, "string", str(knob.default), knob=knob, help=knob.help)

    def parse(self, text):
        if self.knob is not None and self.knob.kind is str and not self.knob.choices \
                and (text is None or text.strip() in ("", EMPTY)):
            text = ""                   # a text option set back to empty (UCI's `<empty>`)
        if self.knob is not None:
            try:
                value = self.knob.read(text)
            except ValueError as exc:
                raise EngineError(f"option {self.name}: {exc}") from None
            why = self.knob.problem(value)
            if why is None and self.type == "spin" and not self.low <= value <= self.high:
                why = f"{value!r} is outside {self.low}..{self.high}"
            if why is not None:
                raise EngineError(f"option {self.name}: {why}")
            return value
        if self.type == "spin":
            value = None if text is None else integer(text.strip())
            if value is None:
                raise EngineError(f"option {self.name}: expected a whole number, got "
                                  f"{text if text is None else shown(text)}")
            if not self.low <= value <= self.high:
                said = value if abs(value) < 10 ** MAX_DIGITS else shown(text.strip())
                raise EngineError(f"option {self.name}: {said} is outside {self.low}..{self.high}")
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
            if default == "":
                default = EMPTY
            out += f" default {default}"
        if self.type == "spin":
            out += f" min {self.low} max {self.high}"
        for choice in self.choices:
            out += f" var {choice}"
        return out


def handshake_order(search_options, after: dict, last: tuple) -> tuple:
    """The search options in search.params' order, each protocol option of `after` right after
    the option it names (where the handshake has always listed it), then `last`."""
    out = []
    for spec in search_options:
        out.append(spec)
        out.extend(after.get(spec.name, ()))
    return tuple(out) + last


# The search knobs with a PRI name (search/params.py), and the protocol's own options.
SEARCH_OPTIONS = tuple(OptionSpec.for_knob(k) for k in KNOBS if k.pri is not None)
OPTIONS = handshake_order(
    SEARCH_OPTIONS,
    after={"Hash": (OptionSpec("MultiPV", "spin", 1, 1, 64, help="candidate lines reported"),)},
    last=(OptionSpec("Move Overhead", "spin", 30, 0, 10000,
                     help="ms kept back from each clock-based search (`p<n>time`); never taken off `movetime`"),))
OPTION_BY_NAME = {spec.name.lower(): spec for spec in OPTIONS}
OPTION_BY_NAME.update({old.lower(): OPTION_BY_NAME[new.lower()] for old, new in RENAMED_OPTIONS.items()})
KNOB_OPTION = {spec.knob.name: spec.name for spec in SEARCH_OPTIONS}


@dataclass
class Report:
    """What a search reports: candidate lines (a SearchResult) and counters."""
    result: object
    final: bool


class _Job:
    """One `go` (or tool): its thread, its stop request, and how far its answer is."""

    def __init__(self, during: str = "a search"):
        self.during = during             # what runs, for the refusal "cannot ... during <it>"
        self.stop = threading.Event()
        self.reported = False            # the answer is being written: the engine is idle
        self.done = threading.Event()    # the answer is written
        self.thread = None


class _MultiPV:
    """A player whose searches keep `top_k` candidates (the MultiPV lines reported)."""

    def __init__(self, player, top_k: int):
        self.player, self.top_k = player, top_k
        self.params = getattr(player, "params", None)

    def search(self, state, seat=None, limits=None, callback=None):
        return self.player.search(state, seat, limits, callback=callback, top_k=self.top_k)


class EngineFacade:
    def __init__(self, components=None, start: dict | None = None):
        """`start`: search knob values that replace the defaults (palais-engine --weights)."""
        self.components = components or default_components()
        self.values = {spec.name: spec.knob.default if spec.knob else spec.default for spec in OPTIONS}
        for knob_name, value in (start or {}).items():
            self.values[KNOB_OPTION[knob_name]] = value
        self._notes = []              # what to tell the user once (take_notes)
        self._noted = set()
        self._check_value_weights()
        self._check_policy_weights()
        self.view = None              # the view of the seat to move, or None at the end
        self.seat = None
        self.has_position = False
        self._player = None
        self._current = None          # the latest _Job (a search or a tool)
        self._lock = threading.Lock()  # between stop() (reader) and the search thread

    # ------------------------------------------------------------------ options, position
    def option_lines(self) -> list:
        return [spec.line() for spec in OPTIONS]

    def busy(self) -> bool:
        """True from `go` until the bestmove is being reported (not until the thread ends:
        a GUI may send the next position the moment it reads the bestmove)."""
        search = self._current
        return search is not None and not search.reported

    def ensure_idle(self, what: str) -> None:
        """Return once no search runs; after `stop`, wait for the stopped search's bestmove."""
        search = self._current
        if search is None or search.done.is_set():
            return
        if not search.stop.is_set() and not search.reported:
            raise EngineError(f"cannot {what} during {search.during}; send stop first")
        if not search.done.wait(STOPPING_WAIT_S):
            raise EngineError(f"cannot {what}: the stopped {search.during.split()[-1]} has not answered yet")

    def set_option(self, name: str, text) -> None:
        self.ensure_idle("set an option")
        spec = OPTION_BY_NAME.get(name.lower())
        if spec is None:
            raise EngineError(f"unknown option '{name}' (options: {', '.join(s.name for s in OPTIONS)})")
        value = spec.parse(text)
        before = self.values[spec.name]
        self.values[spec.name] = value
        try:
            self._check_value_weights(spec.knob is not None and spec.knob.name == "value_weights")
            self._check_policy_weights(spec.knob is not None and spec.knob.name == "policy_weights")
        except PalaisError as exc:
            self.values[spec.name] = before
            raise EngineError(f"option {spec.name}: {exc}") from None
        self._drop_player()

    def _check_value_weights(self, chosen: bool = False) -> None:
        """With Leaf Eval value, or as it is `chosen`, the weights file must load (checked
        now, not at `go`)."""
        if chosen or self.search_value("leaf_eval") in USES_VALUE:
            self._note_flushed("value", load_value_model(self.search_value("value_weights")))

    def _check_policy_weights(self, chosen: bool = False) -> None:
        """With Selection puct or gumbel, or as it is `chosen`, the policy weights must load."""
        if chosen or self.search_value("selection") in USES_PRIORS:
            self._note_flushed("policy", load_priors(self.search_value("policy_weights")))

    def _note_flushed(self, what: str, model) -> None:
        """Once per weights file: a note that values below float32's normal range were read as
        zero (search/fp_mode.h says why), so a user's older file runs at full speed."""
        if model is None or not model.flushed or (model.source, model.digest) in self._noted:
            return
        self._noted.add((model.source, model.digest))
        self._notes.append(f"{what} weights {model.source} ({model.digest}): {model.flushed} values "
                           "below float32's normal range read as zero")

    def take_notes(self) -> list:
        """The notes for the user gathered since the last call (sent as `info string`)."""
        notes, self._notes = self._notes, []
        return notes

    def value_kernel(self) -> str:
        """The value model's kernel in use ("avx2+fma" or "portable": search/kernel.py)."""
        return kernel_name()

    def value_digest(self) -> str | None:
        """The short sha256 of the value weights when the learned evaluation may be used (value,
        or auto), else None; for the shipped weights, one per player count (value_identity)."""
        if self.search_value("leaf_eval") not in USES_VALUE:
            return None
        return value_identity(self.search_value("value_weights"))

    def policy_digest(self) -> str | None:
        """The priors' identity while the selection uses them (puct, gumbel), else None: "uniform",
        a file's short sha256, or for the shipped weights one per player count (priors_identity)."""
        if self.search_value("selection") not in USES_PRIORS:
            return None
        return priors_identity(self.search_value("policy_weights"))

    def new_game(self) -> None:
        self.ensure_idle("start a new game")
        self._drop_player()

    def set_position(self, command) -> None:
        self.ensure_idle("change the position")
        view, seat = view_from_position(command, self.components)
        self.view, self.seat = view, seat
        self.has_position = True

    def search_value(self, knob_name: str):
        """The value of the PRI option of the search knob `knob_name`."""
        return self.values[KNOB_OPTION[knob_name]]

    def hash_mb(self) -> int:
        """The Hash option, capped to what each search process can hold on this machine."""
        return min(self.search_value("hash_mb"), tree_memory_cap_mb(self.search_value("processes")))

    def params(self) -> SearchParams:
        values = {spec.knob.name: self.values[spec.name] for spec in SEARCH_OPTIONS}
        return SearchParams(**{**values, "hash_mb": self.hash_mb()})

    # ------------------------------------------------------------------ search
    def limits_for(self, go: Go) -> SearchLimits:
        """`movetime` is the search's time exactly; Move Overhead is kept back from clocks only."""
        overhead = self.values["Move Overhead"]
        if go.infinite:
            return SearchLimits(infinite=True, iterations=go.iterations, visits=go.nodes)
        time_ms = None
        if go.movetime_ms:
            time_ms = go.movetime_ms
        else:
            left = dict(go.time_ms).get(self.seat)
            if left is not None:
                time_ms = clock_time_ms(left, dict(go.inc_ms).get(self.seat, 0), overhead)
        if time_ms is None and go.iterations is None and go.nodes is None:
            return SearchLimits(infinite=True)
        return SearchLimits(iterations=go.iterations, visits=go.nodes, time_ms=time_ms)

    def go(self, command: Go, on_info, on_bestmove, on_message=None) -> None:
        """Start searching; never blocks (but after `stop`, see the module's contracts).
        on_bestmove(turn or None) is called exactly once; on_message(text) gets notes and
        errors for people (the server writes them as `info string`)."""
        self.ensure_idle("start a search")
        if not self.has_position:
            raise EngineError("no position: send 'position ...' first")
        self.check_clocks(command)
        limits = self.limits_for(command)
        multipv = command.multipv or self.values["MultiPV"]
        search = _Job()
        search.thread = threading.Thread(
            target=self._run, daemon=True,
            args=(search, limits, multipv, on_info, on_bestmove, on_message or (lambda _text: None)))
        self._current = search
        search.thread.start()

    def check_clocks(self, go: Go) -> None:
        """Refuse a clock (or increment) of a seat that is not in the game, and clocks none of
        which is the seat to move's (that seat would have no clock: an endless search).
        At the end of the game (no seat to move) only the first rule applies."""
        if self.view is None:
            return
        players = self.view.n_players
        for pairs, word in ((go.time_ms, "time"), (go.inc_ms, "inc")):
            for seat, _ in pairs:
                if seat >= players:
                    raise EngineError(f"go: p{seat + 1}{word}: there is no seat {seat + 1} "
                                      f"in a {players}-player game")
        if go.time_ms and self.seat not in dict(go.time_ms):
            given = ", ".join(f"p{seat + 1}time" for seat, _ in go.time_ms)
            raise EngineError(f"go: seat {self.seat + 1} is to move but has no clock "
                              f"(given: {given}); send p{self.seat + 1}time too")

    def run_tool(self, what: str, during: str, work, on_done) -> None:
        """Run `work(stop)` on a worker thread, as a search runs: never blocks (but after
        `stop`, as `go`); `stop` is a threading.Event set by stop() and close(). Then
        `on_done(result, failure)` is called once from that thread (failure: the exception
        `work` raised, else None), after the engine is idle again."""
        self.ensure_idle(what)
        job = _Job(during)

        def run():
            result = failure = None
            try:
                result = work(job.stop)
            except Exception as exc:
                failure = exc
            finally:
                with self._lock:
                    job.reported = True
                try:
                    on_done(result, failure)
                finally:
                    job.done.set()

        job.thread = threading.Thread(target=run, daemon=True)
        self._current = job
        job.thread.start()

    def _run(self, search, limits, multipv, on_info, on_bestmove, on_message) -> None:
        """The search thread: one bestmove, whatever happens; a failed search answers with a
        legal fallback and leaves the engine ready for the next `go`."""
        turn = None
        try:
            try:
                turn = self._search(search, limits, multipv, on_info, on_message)
            except Exception as exc:
                self._drop_player()
                turn = self._fallback_turn()
                on_message(f"error: the search failed ({type(exc).__name__}: {exc}); "
                           f"answering with the first legal action")
                if limits.infinite:
                    search.stop.wait()
        finally:
            with self._lock:
                search.reported = True
            try:
                on_bestmove(turn)
            finally:
                search.done.set()

    def _fallback_turn(self):
        view = self.view
        try:
            if view is None or view.is_terminal() or view.stage == S_DRAW:
                return None
            return [view.legal_actions()[0]]
        except Exception:
            return None

    def prepare(self, on_message=None) -> None:
        """Be ready to search at once (isready): make the player and start its processes.
        Does nothing during a search."""
        if self.busy():
            return
        self._player_for(on_message or (lambda _text: None)).prepare()

    def _player_for(self, on_message):
        if self._player is None:
            params = self.params()
            if params.hash_mb < self.search_value("hash_mb"):
                on_message(f"Hash {self.search_value('hash_mb')} MiB is more than this machine can hold: "
                           f"each of the {params.processes} search processes uses {params.hash_mb} MiB")
            self._player = make_player(params)
        return self._player

    def _drop_player(self) -> None:
        player, self._player = self._player, None
        if player is not None:
            player.close()

    def _search(self, search, limits, multipv, on_info, on_message):
        view = self.view
        if view is None or view.is_terminal() or view.stage == S_DRAW:
            if limits.infinite:
                search.stop.wait()
            return None
        player = self._player_for(on_message)

        def watch(p):
            if search.stop.is_set():
                player.stop()

        def progress(p):
            watch(p)
            on_info(Report(p, final=False))

        # The turn is played as every in-process seat plays it (search/turns.py): one search
        # and its line, or with Decision Share > 0 one search per decision of the turn. Only
        # the first search's lines (from the position given) are reported; a stop that came before a
        # search began is seen by its callback at the end of its first chunk (a player
        # ignores stop() while it is not searching), and no search starts after it.
        turn = play_turn(_MultiPV(player, multipv), view, self.seat, limits, callback=progress,
                         stopped=search.stop.is_set, later_callback=watch)
        result = turn.first        # its lines, with what the whole turn's searches spent
        actions = turn.actions or self._fallback_turn()    # stopped before the first iteration
        result.best_turn = actions
        result.iterations, result.node_visits, result.time_ms = turn.iterations, turn.node_visits, turn.time_ms
        on_info(Report(result, final=True))
        if limits.infinite:
            search.stop.wait()
        return actions

    def stop(self) -> None:
        """Ask the running search (or tool) to end; never blocks. Ignored when none runs."""
        with self._lock:
            search = self._current
            if search is None or search.reported:
                return
            search.stop.set()
            player = self._player
        if player is not None:
            player.stop()                 # ignored by the player if its search has ended

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the running search (or tool) has given its answer (False on timeout)."""
        search = self._current
        if search is None:
            return True
        search.thread.join(timeout)
        return not search.thread.is_alive()

    def close(self) -> None:
        """Stop, give the search a moment to answer, and end every search process."""
        self.stop()
        self.wait(CLOSE_WAIT_S)
        self._drop_player()
