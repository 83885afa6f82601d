"""Who sits in each seat of `palais play`: a person, one of our players in-process, or any PRI
engine command through the protocol client.

Parsed from `--seat` values: `human`, a registered algorithm that searches the seat's own view
(search/algorithms.py VIEW_ALGORITHMS: `ismcts`, `greedy`, ...), or `cmd:COMMAND ARGS` (a PRI
engine). An engine seat is asked for a whole turn and is shown only
its own view: in-process players get `state.view(seat)`, PRI engines the moves with others'
draws as `?` (as the tournament arbiter does). While a seat thinks, `choose_turn(game,
on_info)` reports its progress to `on_info` as a `ThinkingInfo` (PRI `info` lines, or the
search callback of an in-process player), so a GUI can show it live.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from engine.errors import NotationError, PalaisError
from engine.notation import token_to_action, turn_to_text
from protocol.client import SAFETY_TIMEOUT_S, ClientError
from protocol.launch import open_engine
from protocol.sandbox import SandboxPolicy
from protocol.commands import Go, PositionStart
from protocol.referee import start_position
from search.algorithms import VIEW_ALGORITHMS
from search.params import SearchLimits, SearchParams, parse_params
from search.factory import make_player
from search.turns import choose_turn

IN_PROCESS = VIEW_ALGORITHMS      # not "mcts": it needs the true state


@dataclass(frozen=True)
class SeatSpec:
    kind: str               # "human", one of IN_PROCESS, or "cmd"
    cmd: tuple = ()         # for "cmd": the command and its arguments
    options: tuple = ()     # for "cmd": (PRI option name, value) pairs, sent after the handshake
    params: tuple = ()      # for an in-process engine: (search parameter, value) pairs

    @property
    def label(self) -> str:
        return self.cmd[0].rsplit("/", 1)[-1] if self.kind == "cmd" else self.kind


def parse_seat(text: str) -> SeatSpec:
    text = text.strip()
    if text in ("human",) + IN_PROCESS:
        return SeatSpec(text)
    kind, colon, params = text.partition(":")
    if colon and kind in IN_PROCESS:
        try:
            chosen = parse_params(params)
        except PalaisError as exc:
            raise PalaisError(f"--seat {text[:80]!r}: {exc}") from None
        if "algorithm" in chosen:
            raise PalaisError(f"--seat {text[:80]!r}: the algorithm is the seat's kind ({kind})")
        return SeatSpec(kind, params=tuple(sorted(chosen.items())))
    if text.startswith("cmd:"):
        try:
            cmd = tuple(shlex.split(text[4:]))
        except ValueError as exc:
            raise PalaisError(f"--seat {text!r}: {exc}") from None
        if not cmd:
            raise PalaisError(f"--seat {text!r}: cmd: needs a command")
        return SeatSpec("cmd", cmd)
    raise PalaisError(f"--seat {text[:80]!r}: expected human, {', '.join(IN_PROCESS)} (or one of "
                      f"them with search parameters, ismcts:NAME=VALUE,...) or cmd:COMMAND")


class EngineFailed(PalaisError):
    """An engine seat could not give a legal turn (the message says why)."""


@dataclass(frozen=True)
class ThinkingInfo:
    """What a thinking engine seat says it sees: per seat win probability and expected
    score (lists, maybe empty when the engine does not say), its line, its iterations."""
    win: tuple
    score: tuple
    pv: str
    iterations: int


def _floats(values) -> tuple:
    return tuple(float(v) for v in values or ())


class InProcessSeat:
    def __init__(self, kind: str, limits: SearchLimits, seed: int, params: tuple = ()):
        self.kind = kind
        self.limits = limits
        self.player = make_player(SearchParams(algorithm=kind, seed=seed, **dict(params)))

    def choose_turn(self, game, on_info=None) -> list:
        seat = game.state.to_move
        callback = None
        if on_info is not None:
            def callback(progress):
                best = progress.best
                if best is not None:
                    on_info(ThinkingInfo(_floats(best.win_prob), _floats(best.expected_score),
                                         turn_to_text(best.turn), progress.iterations))
        return choose_turn(self.player, game.state, seat, self.limits, callback=callback)[0]

    def stop(self) -> None:
        """Ask a search in progress (in another thread) to end soon."""
        self.player.stop()

    def close(self) -> None:
        self.player.close()


OVERRUN_S = 10.0         # how long past its time budget a PRI engine may take to answer


class PriSeat:
    """A PRI engine process. A search by time may run `overrun_s` (10 s) over before the seat
    fails; one by iterations (no time budget: it takes what the machine needs) and the
    handshake wait up to `safety_timeout` seconds. close() ends the process and all it started."""

    def __init__(self, cmd: tuple, limits: SearchLimits, safety_timeout: float = SAFETY_TIMEOUT_S,
                 options: tuple = (), overrun_s: float = OVERRUN_S, sandbox: SandboxPolicy | None = None):
        self.cmd = cmd
        self.limits = limits
        self.safety_timeout = safety_timeout
        self.overrun_s = overrun_s
        self.search = None                 # the search in progress (protocol/client.py's handle)
        try:                               # open_engine ends the process on any failure
            self.client = open_engine(cmd, options, sandbox=sandbox, read_timeout=safety_timeout)
        except (ClientError, OSError) as exc:
            raise EngineFailed(f"engine {' '.join(cmd)!r} did not start: {exc}") from None

    def _go(self) -> tuple[Go, float]:
        if self.limits.time_ms:
            return Go(movetime_ms=int(self.limits.time_ms)), self.limits.time_ms / 1000 + self.overrun_s
        return Go(iterations=self.limits.iterations), self.safety_timeout

    @staticmethod
    def _position(game, seat: int) -> PositionStart:
        """The game so far as `seat` may see it (protocol/referee.py: the setup written out,
        no seed, others' draws as `?`)."""
        return start_position(game.start_state(), game.seen_by(seat))

    def choose_turn(self, game, on_info=None) -> list:
        seat = game.state.to_move
        try:
            self.client.position(self._position(game, seat))
            limits, wait = self._go()
            self.search = self.client.search(limits, timeout=wait)
            for info in self.search:
                if on_info is not None and (info.pv is not None or info.winprob):
                    on_info(ThinkingInfo(_floats(info.winprob), _floats(info.score), info.pv or "",
                                         info.iterations or 0))
            answer = self.search.answer
        except ClientError as exc:
            raise EngineFailed(f"engine {' '.join(self.cmd)!r}: {exc}") from None
        if answer.errors:
            raise EngineFailed(f"engine {' '.join(self.cmd)!r} reported: {answer.errors[0]}")
        try:
            return [token_to_action(t) for t in answer.bestmove]
        except NotationError as exc:
            raise EngineFailed(f"engine {' '.join(self.cmd)!r} answered a bad token: {exc}") from None

    def stop(self) -> None:
        """Ask the search in progress (in another thread) to answer now (PRI `stop`)."""
        search = self.search
        if search is not None:
            try:
                search.stop()
            except ClientError:
                pass                        # the engine is gone: choose_turn says so

    def close(self) -> None:
        self.client.close()


def open_seat(spec: SeatSpec, limits: SearchLimits, seed: int, sandbox: SandboxPolicy | None = None):
    """The player object for an engine seat (None for a human seat); a PRI engine starts in
    the sandbox `sandbox` asks for (protocol/sandbox.py)."""
    if spec.kind == "human":
        return None
    if spec.kind == "cmd":
        return PriSeat(spec.cmd, limits, options=spec.options, sandbox=sandbox)
    return InProcessSeat(spec.kind, limits, seed, spec.params)
