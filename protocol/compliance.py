"""The PRI compliance check: named steps run against any engine command, PASS/FAIL each.

Every step starts from a fresh, handshaken engine process, so one failure cannot hide
another. The rules core checks every bestmove: each token must be legal, in turn, for the
seat to move. Run: `palais-engine compliance -- <engine command ...>`.
"""

from __future__ import annotations

import time

from engine.constants import S_SETUP
from engine.notation import parse_turn
from engine.random_play import random_action
from engine.rng import Rng
from engine.state import State
from engine.views import seen_by

from .client import ClientError, EngineClient, EngineTimeout
from .commands import Go, PositionStart, Quit, Stop


class StepFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise StepFailed(message)


def game_prefix(players: int, seed: int, until):
    """Random play from a new game until until(state) holds: (tokens as the seat to move
    writes them, that seat, the true state)."""
    state = State.new_game(players, seed=seed)
    rng = Rng(seed)
    played = []
    while not until(state):
        if state.is_terminal():
            raise ValueError("the game ended first")
        drawer = state.to_move if state.is_chance() else None
        action = random_action(state, rng)
        played.append((action, drawer))
        state.apply(action)
    seat = state.to_move
    return seen_by(seat, played), seat, state


def check_bestmove(answer, state, seat) -> None:
    check(answer.bestmove, "bestmove is empty or (none) where a decision is due")
    view = state.view(seat)
    for i, token in enumerate(answer.bestmove, 1):
        try:
            action = parse_turn(token)[0]
        except ClientError as exc:            # pragma: no cover - parse errors are PalaisError
            raise StepFailed(str(exc))
        except Exception as exc:
            raise StepFailed(f"bestmove token {i} '{token}': {exc}")
        check(view.to_move == seat and not view.is_chance(),
              f"bestmove token {i} '{token}' goes past the end of the seat's turn")
        check(action in view.legal_actions(), f"bestmove token {i} '{token}' is not legal")
        view.apply(action)


class Compliance:
    def __init__(self, command, timeout: float = 10.0, out=print):
        self.command = command
        self.timeout = timeout
        self.out = out
        self.results = []

    def engine(self) -> EngineClient:
        client = EngineClient(self.command, read_timeout=self.timeout).start()
        client.handshake()
        return client

    def run(self) -> bool:
        steps = [
            ("handshake", self.step_handshake),
            ("isready", self.step_isready),
            ("options", self.step_options),
            ("position at setup", self.step_setup),
            ("position mid turn", self.step_mid_turn),
            ("position near the end", self.step_near_end),
            ("go movetime", lambda: self.step_limit(Go(movetime_ms=100))),
            ("go iterations", lambda: self.step_limit(Go(iterations=500))),
            ("go nodes", lambda: self.step_limit(Go(nodes=5000))),
            ("stop during infinite", self.step_infinite),
            ("malformed input", self.step_malformed),
            ("quit", self.step_quit),
        ]
        for name, step in steps:
            started = time.monotonic()
            try:
                detail = step() or ""
                self.results.append((name, True))
                self.out(f"PASS {name}" + (f" ({detail})" if detail else "")
                         + f" [{time.monotonic() - started:.1f} s]")
            except (StepFailed, ClientError) as exc:
                self.results.append((name, False))
                self.out(f"FAIL {name}: {exc}")
        failed = sum(not ok for _, ok in self.results)
        self.out(f"{len(self.results) - failed} passed, {failed} failed")
        return failed == 0

    # ------------------------------------------------------------------ steps
    def step_handshake(self):
        with EngineClient(self.command, read_timeout=self.timeout) as client:
            info = client.handshake()
            check(info.name, "no 'id name' line")
            for name, rest in info.options.items():
                check(rest.startswith("type ") and rest.split()[1] in ("spin", "check", "combo", "string", "button"),
                      f"option {name!r}: bad type in {rest!r}")
            return f"{info.name}, {len(info.options)} options"

    def step_isready(self):
        with self.engine() as client:
            check(client.is_ready() == [], "lines before readyok")

    def step_options(self):
        with self.engine() as client:
            count = 0
            for name, rest in client.info.options.items():
                words = rest.split()
                if "default" in words and words[1] in ("spin", "check", "combo", "string"):
                    client.set_option(name, words[words.index("default") + 1])
                    count += 1
            seen = client.is_ready()
            errors = [l for l in seen if l.startswith("info string error")]
            check(not errors, f"setting options to their defaults gave {errors[0] if errors else ''}")
            return f"{count} options set to their defaults"

    def _search(self, tokens, seat, state, players, seed, limits=Go(iterations=300)):
        with self.engine() as client:
            client.position(PositionStart(players=players, seed=seed, moves=tuple(tokens)))
            answer = client.go(limits, timeout=3 * self.timeout)
            check(not answer.errors, f"error: {answer.errors[:1]}")
            check_bestmove(answer, state, seat)
            return f"bestmove {' '.join(answer.bestmove)}"

    def step_setup(self):
        state = State.new_game(3, seed=1)
        return self._search([], 0, state, 3, 1)

    def step_mid_turn(self):
        tokens, seat, state = game_prefix(4, 7, lambda s: s.round >= 3 and s.stage not in (S_SETUP,)
                                          and not s.is_chance() and len(s.legal_actions()) > 2)
        return self._search(tokens, seat, state, 4, 7)

    def step_near_end(self):
        tokens, seat, state = game_prefix(2, 14, lambda s: s.snapshot().last_round and not s.is_chance())
        return self._search(tokens, seat, state, 2, 14)

    def step_limit(self, limits):
        tokens, seat, state = game_prefix(2, 5, lambda s: s.round >= 2 and not s.is_chance())
        with self.engine() as client:
            client.position(PositionStart(players=2, seed=5, moves=tuple(tokens)))
            started = time.monotonic()
            answer = client.go(limits, timeout=3 * self.timeout)
            check_bestmove(answer, state, seat)
            return f"{time.monotonic() - started:.2f} s"

    def step_infinite(self):
        with self.engine() as client:
            client.position(PositionStart(players=2, seed=3))
            client.send_command(Go(infinite=True))
            quiet_until = time.monotonic() + 0.5          # no bestmove may come before stop
            while True:
                left = quiet_until - time.monotonic()
                if left <= 0:
                    break
                try:
                    line = client.read_line(left)
                except EngineTimeout:
                    break
                check(not line.startswith("bestmove"), f"answered {line!r} before stop")
            client.send_command(Stop())
            started = time.monotonic()
            answer = client.read_bestmove(self.timeout)
            latency_ms = (time.monotonic() - started) * 1000
            check_bestmove(answer, State.new_game(2, seed=3), 0)
            return f"bestmove {latency_ms:.0f} ms after stop"

    def step_malformed(self):
        bad = ["hello", "go fast", "position start players 9", "setoption value 3", "perft x",
               "position start players 2 seed 1 moves NOWHERE"]
        with self.engine() as client:
            for line in bad:
                client.send(line)
            seen = client.is_ready()
            errors = [l for l in seen if l.startswith("info string error")]
            check(len(errors) == len(bad), f"{len(errors)} error lines for {len(bad)} bad lines")
            return f"{len(bad)} bad lines, {len(errors)} error lines, still ready"

    def step_quit(self):
        client = self.engine()
        client.send_command(Quit())
        try:
            code = client.process.wait(timeout=5)
        except Exception:
            client.close()
            raise StepFailed("still running 5 s after quit")
        check(code == 0, f"exit code {code}")
