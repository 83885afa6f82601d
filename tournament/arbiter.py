"""The arbiter: one game between engine processes, refereed with the rules core.

Step 1  Deal from the seed: the tiles and the layout. The card draws come from a stream keyed
        by the run's secret and the deal seed (engine/chance.py), so the same deal gives the
        same draws whoever sits where, and no engine can predict them.
Step 2  Start each seat's engine, handshake, set its options.
Step 3  At each decision, send the seat to move the setup written out (never the seed) and
        the moves as that seat sees them (its own draws typed, others' as `?`;
        protocol/referee.py), and `go`. Check every token of its bestmove against the
        true state, and apply the tokens while it stays that seat's turn.
Step 4  Whatever goes wrong with an engine ends the game, and that engine loses it, with the
        reason recorded: it dies, stays silent past the time control and margin (past the
        safety timeout for a search by iterations, which has no time budget), answers out of
        protocol, plays an illegal action, or runs out of clock. The others are ranked by
        the score so far. Every engine process is ended (protocol/client.py close()).
Step 5  Record everything: the game record, the result, and (optionally) every line sent.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from engine.chance import ChanceStream, new_secret
from engine.errors import NotationError, PalaisError
from engine.notation import token_to_action
from engine.record import record_from_actions, write_record
from engine.state import State
from engine.views import seen_by
from protocol.client import SAFETY_TIMEOUT_S, ClientError, InvalidOutput, close_all
from protocol.launch import open_engine
from protocol.sandbox import SandboxPolicy, in_force
from protocol.commands import Go
from protocol.referee import start_position



MAX_DECISIONS = 1000        # more searches than one seat makes in any game (a bound, not a rule)


@dataclass(frozen=True)
class TimeControl:
    movetime_ms: int | None = 250      # per search; or None with a clock or iterations
    clock_ms: int | None = None        # per seat per game
    iterations: int | None = None      # per search (fast, reproducible games for tests)
    inc_ms: int = 0                    # added to a seat's clock after each of its searches
    margin_ms: int = 500               # tolerance on top of what the engine was given
    # How long an answer with no time budget may take (a search by iterations, the
    # handshake): a safety net for hung engines, never reached through load alone. Not a
    # setting of the run (not in to_dict): it changes no game an engine finishes.
    safety_timeout_s: float = SAFETY_TIMEOUT_S

    @classmethod
    def parse(cls, text: str, margin_ms: int = 500,
              safety_timeout_s: float = SAFETY_TIMEOUT_S) -> "TimeControl":
        """`movetime=250`, `clock=60000`, `clock=60000+1000` (milliseconds) or `iterations=N`."""
        key, eq, value = text.partition("=")
        common = {"margin_ms": margin_ms, "safety_timeout_s": safety_timeout_s}
        try:
            if key == "movetime" and eq and int(value) > 0:
                return cls(movetime_ms=int(value), **common)
            if key == "iterations" and eq and int(value) > 0:
                return cls(movetime_ms=None, iterations=int(value), **common)
            if key == "clock" and eq:
                base, _, inc = value.partition("+")
                if int(base) > 0 and int(inc or 0) >= 0:
                    return cls(movetime_ms=None, clock_ms=int(base), inc_ms=int(inc or 0), **common)
        except ValueError:
            pass
        raise PalaisError(f"time control {text!r}: expected movetime=MS, clock=MS, clock=MS+INC "
                          f"or iterations=N (positive whole numbers)")

    def thinking_s(self) -> float | None:
        """The most time one engine can think in a game (a bound for its CPU-time limit):
        its clock with every increment, or MAX_DECISIONS searches of its movetime; None
        for iterations (no time at all: the default limit stands)."""
        if self.clock_ms is not None:
            return (self.clock_ms + self.inc_ms * MAX_DECISIONS) / 1000
        if self.movetime_ms is not None:
            return self.movetime_ms * MAX_DECISIONS / 1000
        return None

    def to_dict(self) -> dict:
        return {"movetime_ms": self.movetime_ms, "clock_ms": self.clock_ms, "iterations": self.iterations,
                "inc_ms": self.inc_ms, "margin_ms": self.margin_ms}


@dataclass
class GameResult:
    index: int
    deal_seed: int
    names: list                       # engine name per seat
    scores: list
    returns: list                     # 1/k for each of k winners
    ranks: list                       # 1 = best; ties share a rank
    forfeits: dict                    # seat (str) -> reason
    record: str
    actions: int
    group: int = 0                    # the schedule's group of engines (pairs share deal and group)
    sent: list = field(default_factory=list)   # (seat, line) when asked to log
    sandbox: str = ""                 # the sandbox its engines ran in, in words (protocol/sandbox.py)

    def to_dict(self) -> dict:
        return {"index": self.index, "deal_seed": self.deal_seed, "group": self.group,
                "names": self.names, "scores": self.scores, "returns": self.returns,
                "ranks": self.ranks, "forfeits": self.forfeits, "record": self.record,
                "actions": self.actions, "sandbox": self.sandbox}


MAX_REASON_CHARS = 300      # a forfeit's reason in the record: an engine's words, cut to this


class Forfeit(Exception):
    def __init__(self, seat: int, reason: str):
        if len(reason) > MAX_REASON_CHARS:
            reason = f"{reason[:MAX_REASON_CHARS]}... ({len(reason)} characters)"
        super().__init__(reason)
        self.seat = seat
        self.reason = reason


def rank_seats(scores, gold, loser=None) -> list:
    """Rank 1 = most VP, then most gold; equal keys share a rank; `loser` is ranked last."""
    keys = [(-1, -1) if q == loser else (scores[q], gold[q]) for q in range(len(scores))]
    return [1 + sum(other > keys[q] for other in keys) for q in range(len(scores))]


class SentLog:
    """The lines sent to the engines, in order, as (seat, line): read from each client's
    transcript after every exchange with it."""

    def __init__(self, clients):
        self.clients = clients
        self.lines = []
        self._read = [0] * len(clients)       # per seat: transcript entries already read

    def catch_up(self, seat: int) -> None:
        client = self.clients[seat]
        if client is None:
            return
        new = client.transcript[self._read[seat]:]
        self._read[seat] += len(new)
        self.lines += [(seat, line) for way, line in new if way == ">"]


def _go_limits(tc: TimeControl, clocks, n_players) -> tuple[Go, float]:
    """The `go` command and how long to wait for the bestmove (s): a time budget plus the
    margin; for iterations, which take as long as the machine needs, the safety timeout."""
    if tc.movetime_ms is not None:
        return Go(movetime_ms=tc.movetime_ms), (tc.movetime_ms + tc.margin_ms) / 1000
    if tc.iterations is not None:
        return Go(iterations=tc.iterations), tc.safety_timeout_s
    seats = range(n_players)
    return Go(time_ms=tuple((q, max(0, int(clocks[q]))) for q in seats),
              inc_ms=tuple((q, tc.inc_ms) for q in seats) if tc.inc_ms else ()), None


def play_game(index: int, deal_seed: int, seats, tc: TimeControl, log_sent: bool = False,
              group: int = 0, secret: bytes | None = None,
              sandbox: SandboxPolicy | None = None) -> GameResult:
    """Play one game; seats[q] is the EngineSpec in seat q. `secret` keys the card draws
    (a run's, so that its games reproduce; a fresh one if None). Each engine starts in the
    sandbox `sandbox` asks for (protocol/sandbox.py; None: unsandboxed), a new one each game."""
    n = len(seats)
    sandbox_words = in_force(sandbox)       # SandboxUnavailable if required and impossible here
    if sandbox is not None:
        sandbox = sandbox.with_cpu_for(tc.thinking_s())
    state = State.new_game(n, seed=deal_seed)                             # Step 1
    start = state.copy()
    chance = ChanceStream(secret if secret is not None else new_secret(), deal_seed)
    history = []
    clients = [None] * n
    sent = SentLog(clients)
    clocks = [float(tc.clock_ms or 0)] * n
    loser = reason = None
    try:
        for q, spec in enumerate(seats):                                  # Step 2
            try:
                clients[q] = open_engine(spec.cmd, spec.options, sandbox=sandbox,
                                         read_timeout=tc.safety_timeout_s)
            except ClientError as exc:
                raise Forfeit(q, f"did not start: {exc}")
            finally:
                sent.catch_up(q)
        while not state.is_terminal():                                     # Step 3
            if state.is_chance():
                action = chance.draw(state)
                history.append((action, state.to_move))
                state.apply(action)
                continue
            seat = state.to_move
            client = clients[seat]
            limits, wait_s = _go_limits(tc, clocks, n)
            if wait_s is None:
                wait_s = (max(0.0, clocks[seat]) + tc.margin_ms) / 1000
            started = time.monotonic()
            try:
                client.position(start_position(start, seen_by(seat, history)))
                answer = client.go(limits, timeout=wait_s)
            except ClientError as exc:
                raise Forfeit(seat, str(exc) if isinstance(exc, InvalidOutput) else f"{type(exc).__name__}: {exc}")
            finally:
                sent.catch_up(seat)
            if tc.clock_ms is not None:
                clocks[seat] -= (time.monotonic() - started) * 1000
                if clocks[seat] < -tc.margin_ms:
                    raise Forfeit(seat, "lost on time")
                clocks[seat] += tc.inc_ms
            if answer.errors:
                raise Forfeit(seat, f"reported an error: {answer.errors[0]}")
            if not answer.bestmove:
                raise Forfeit(seat, "answered bestmove (none) where a decision was due")
            for i, token in enumerate(answer.bestmove, 1):
                if state.is_terminal() or state.is_chance() or state.to_move != seat:
                    break
                try:
                    action = token_to_action(token)
                except NotationError as exc:
                    raise Forfeit(seat, f"bestmove token {i}: {exc}")
                if action not in state.legal_actions():
                    raise Forfeit(seat, f"illegal action: bestmove token {i} '{token}'")
                history.append((action, None))
                state.apply(action)
    except Forfeit as exc:                                                # Step 4
        loser, reason = exc.seat, exc.reason
    finally:
        close_all(clients)
        for q in range(n):
            sent.catch_up(q)
    snap = state.snapshot()                                               # Step 5
    scores = state.scores()
    ranks = rank_seats(scores, snap.gold, loser)
    winners = [q for q in range(n) if ranks[q] == 1]
    returns = [1.0 / len(winners) if q in winners else 0.0 for q in range(n)]
    headers = {"Termination": "normal" if loser is None else f"seat {loser + 1} forfeits: {reason}",
               "Ranks": ",".join(map(str, ranks)), "Sandbox": sandbox_words}
    record = record_from_actions(n, [a for a, _ in history], seed=deal_seed,
                                 names=[s.name for s in seats], headers=headers)
    return GameResult(index, deal_seed, [s.name for s in seats], scores, returns, ranks,
                      {} if loser is None else {str(loser): reason}, write_record(record),
                      len(history), group, sent.lines if log_sent else [], sandbox_words)
