"""One live game of `palais serve`: the game model, its engine seats, and who is watching.

A GameSession wraps play/game.py's PlayGame (the true state, seeded draws, take-backs, the
record) and play/seats.py's engine seats. Every change happens under the session's lock;
an engine seat thinks in a worker thread of its own (the request that gave it the turn
returns at once) and its progress, its moves and every other change are pushed to the
session's watchers (WebSockets) as messages. Closing a session stops its searches and ends
its engine processes.
"""

from __future__ import annotations

import json
import math
import threading
import time
from contextlib import contextmanager

from common.seat_numbers import seat_number
from engine.chance import commitment
from engine.errors import NotationError, PalaisError
from engine.notation import action_to_token, legal_text, token_to_action
from play.analyse import Analyser, analyse_game
from play.game import SECRET_HEADER
from play.seats import EngineFailed, SeatSpec, open_seat
from search.params import SearchLimits, SearchParams
from search.factory import make_player
from search.turns import choose_turn

from .engine_seat import KeptSeat
from .review import analysis_json, best_steps
from .views import build_view, seat_labels

RESIGNED_PLAYER = "greedy"       # who plays a resigned seat's decisions (docs/web.md)
INFO_INTERVAL_S = 0.25           # at most ~4 info messages a second per thinking seat


class Refused(PalaisError):
    """A request the game cannot grant now; `status` is the HTTP status to answer with, and
    `extra` more fields of the answer's JSON beside its "error"."""

    def __init__(self, message: str, status: int = 400, extra: dict | None = None):
        super().__init__(message)
        self.status = status
        self.extra = extra or {}


class StoreError(Refused):
    """The store could not keep a change (a database locked past its busy timeout, a disk
    full or damaged): 503. The change is then not made in memory either (GameSession._kept)."""

    def __init__(self, why: str):
        super().__init__(f"the game could not be stored, so nothing was changed: {why}. "
                         f"Try again in a moment", 503)


class Conflict(StoreError):
    """Another server process changed the game first (the store's version check refused
    this change). Nothing is changed; the session is brought up to the stored game
    (on_conflict), and the change's author is told the game moved on."""

    def __init__(self):
        Refused.__init__(self, "another server process changed the game first", 409)


STORE_RETRY_S = (0.5, 1, 2, 4, 8, 15)     # an engine's decision waits so between tries to store it (then 15 s each)
STALE_MESSAGE = "The game moved on: your choice was not played."


class Stale(Refused):
    """A change chosen from a view older than the game (docs/web.md, "version"): nothing is
    applied; the answer (409) carries the current view, so the page shows it at once."""

    def __init__(self, view: dict):
        super().__init__(STALE_MESSAGE, 409, {"stale": True, "view": view})


def finite(x):
    """A number JSON can carry (an engine may say nan or inf): None otherwise."""
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


MAX_LINE_TOKENS = 40             # an engine's line shown: far more than a turn's decisions


def public_line(pv: str) -> str:
    """An engine's line cut before its first card play or draw: the cards it plans to play
    are in its hidden hand, so they are not shown to the people watching."""
    shown = []
    for token in pv.split()[:MAX_LINE_TOKENS]:
        if token.startswith(("!", "?")):
            break
        shown.append(token[:16])
    return " ".join(shown)


class _Closed(Exception):
    """The session closed while its analysis ran."""


RESTART = object()               # what a Watcher is sent when the server stops (the game is kept)
IDLE = object()                  # ... when the game leaves memory unused (it is kept: it comes back)
CLOSED_MESSAGE = "this game is closed on the server (deleted, replaced by a new one, or the server stopped)"


class Watcher:
    """Someone watching a game as one seat (0-based; None: a spectator): `send(message)` delivers a
    message to it from any thread (the app wires it to a WebSocket's queue); `send(None)`
    says the game is gone (the app closes the socket)."""

    def __init__(self, seat, send):
        self.seat = seat
        self.send = send


class GameSession:
    def __init__(self, game_id: str, game, kinds, specs, limits: SearchLimits, seed: int,
                 from_record: bool = False, clock=time.monotonic, engine_restarts: int = 2,
                 open_seat=open_seat, keys=None, shared: bool = False, settings=None,
                 on_change=None, on_conflict=None):
        self.id = game_id
        self.keys = keys                         # web/credentials.py's SeatKeys (hashes only)
        self.shared = shared                     # one device for every person (pass-the-device)
        self.settings = dict(settings or {})     # how it was made (a rematch, the database)
        self.on_change = on_change               # called (lock held) after each change: the store saves
        self.on_conflict = on_conflict           # called (lock held) when another process stored first: reload
        self.stored_version = 0                  # the version the store holds, as this process last saw it
        self.resigned = set()                    # seats whose person left (docs/web.md, "Resign")
        self.rematch_id = None                   # the game that followed this one, if any
        self.clock = clock                       # when it was last used: for --idle-minutes
        self.game = game
        self.kinds = list(kinds)                 # per seat: "human" or the player's name
        # per seat: the strength level (web/levels.py) its engine was chosen by, or None
        self.levels = list(self.settings.get("levels") or [None] * len(self.kinds))
        self.limits = limits
        self.seed = seed
        self.from_record = from_record           # an uploaded record: its cards are all known
        self.lock = threading.RLock()
        self.watchers: list[Watcher] = []
        self.seats = []                          # per seat: None (a person) or a KeptSeat
        self.thinking = -1                       # the seat whose engine searches now
        self.last_human = None                   # the seat of the last decision by a person
        self.closed = False
        self.analysis = None                     # the last finished analysis (a dict)
        self.analysing = False
        self.hinting = False
        self.touched = clock()
        self.version = 0                         # counts the changes: a View's "version"
        self._held = None                        # an engine turn waiting for release()
        self._humans = {q for q, spec in enumerate(specs) if spec.kind == "human"}
        self.engine_restarts = engine_restarts
        self.open_seat = open_seat
        self._fallback = make_player(SearchParams(algorithm="random", seed=seed))
        try:
            for q, spec in enumerate(specs):
                self.seats.append(None if spec.kind == "human" else
                                  KeptSeat(spec, limits, seed * 10 + q, engine_restarts, open_seat))
        except BaseException:
            self.close()
            raise

    def touch(self) -> None:
        """Someone used the game now (a request named it, or it changed)."""
        self.touched = self.clock()

    # ---- what a seat sees ------------------------------------------------------------------

    @property
    def human_seats(self) -> set:
        return self._humans

    def commitment(self) -> str:
        """SHA-256 of the draw stream's key (engine/chance.py): shown from the start, so that
        once the secret is revealed at the end anyone can check the draws were fixed."""
        return commitment(self.game.secret, self.game.seed)

    def summary(self) -> dict:
        """What "My games" shows of the game: nothing hidden."""
        with self.lock:
            game = self.game
            return {"game": self.id, "names": list(game.names), "kinds": list(self.kinds),
                    "seat_labels": seat_labels(game.names, self.kinds, self.levels),
                    "over": game.over(), "ply": len(game.actions),
                    "to_move": seat_number(None if game.over() else game.state.to_move),
                    "rematch": self.rematch_id}

    def set_rematch(self, game_id: str) -> None:
        with self.lock:
            self.rematch_id = game_id
            self.version += 1
            if self.on_change is not None and not self.closed:
                self.on_change(self)
            self._push_views()

    def seat_of(self, key) -> int | None:
        """The seat (0-based) `key` belongs to, or None: the caller is a spectator."""
        return None if self.keys is None else self.keys.seat_of(key)

    def engines(self) -> list:
        """Per seat: None for a person, else the engine's restarts and whether it failed."""
        return [None if seat is None else seat.state() for seat in self.seats]

    def view(self, seat) -> dict:
        with self.lock:
            game = self.game
            human = self.human_seats
            to_move = game.state.to_move
            passing = (self.shared and not game.over() and to_move in human
                       and self.last_human is not None and to_move != self.last_human)
            return build_view(self.id, game.state, game.start_state(), game.actions, game.drawers,
                              seat, names=game.names, kinds=self.kinds, levels=self.levels,
                              human_seats=human,
                              can_undo=game.can_take_back(), thinking=self.thinking,
                              passing=passing, version=self.version, engines=self.engines(),
                              fairness=self.fairness(), resigned=self.resigned, shared=self.shared,
                              rematch=self.rematch_id, reveal=game.over())

    def fairness(self) -> dict:
        """The commitment, and once the game is over the secret that opens it."""
        out = {"commitment": self.commitment(), "secret": None}
        if self.game.over():
            out["secret"] = self.game.secret.hex()
        return out

    def record_text(self, seat) -> str:
        """The record `seat` may download: while the game goes on, only a seat's own
        seat's-view record (others' draws as `?`, no secret; a spectator gets none); once
        it is over, the full record with every hand and the draw secret."""
        with self.lock:
            headers = {"Commitment": self.commitment()}
            if self.game.over():
                return self.game.record_text({**headers, SECRET_HEADER: self.game.secret.hex()})
            if seat is None:
                raise Refused("a spectator gets the record once the game is over (during "
                              "the game a seat downloads only its own view of it)", 403)
            return self.game.seat_record_text(seat, headers)

    def position(self, ply, seat) -> dict:
        """The View of the position after the first `ply` actions (review stepping)."""
        with self.lock:
            game = self.game
            if type(ply) is not int or not 0 <= ply <= len(game.actions):
                raise Refused(f"ply: expected a number 0..{len(game.actions)}, got {ply!r}")
            state = game.start_state()
            for action in game.actions[:ply]:
                state.apply(action)
            return build_view(self.id, state, game.start_state(), game.actions[:ply],
                              game.drawers[:ply], seat, names=game.names, kinds=self.kinds,
                              levels=self.levels, human_seats=set(), version=self.version, engines=self.engines(),
                              fairness=self.fairness(), resigned=self.resigned, shared=self.shared,
                              reveal=game.over())

    # ---- changes ---------------------------------------------------------------------------

    @contextmanager
    def _kept(self, person=None):
        """A change (lock held) that stands only once it is stored: if the store fails
        (StoreError), the game and the session go back to how they were, and the error is
        raised on, so memory never holds a change the store does not. If another server
        process stored a change first (Conflict), the session is brought up to the stored
        game, and a change a `person` (their seat) asked for is refused as Stale, with the
        view as it now is."""
        game = self.game.memento()
        fields = (self.version, set(self.resigned), list(self.kinds), dict(self.settings),
                  list(self.seats), set(self._humans), self.last_human, self.thinking, self._held)
        try:
            yield
        except StoreError as exc:
            self.game.restore(game)
            new_seats = [seat for seat in self.seats if seat is not None and seat not in fields[4]]
            (self.version, self.resigned, self.kinds, self.settings, self.seats, self._humans,
             self.last_human, self.thinking, self._held) = fields
            for seat in new_seats:
                seat.close()
            if isinstance(exc, Conflict):
                if self.on_conflict is not None:
                    self.on_conflict(self)       # the stored game, as another process made it
                if person is not None:
                    raise Stale(self.view(person)) from None
            raise

    def _check_version(self, seat, version) -> None:
        """Stale unless `version` is the game's: the change was chosen from the view the game
        shows now (checked under the lock that makes the change, so two requests chosen from
        one view can never both pass)."""
        if type(version) is not int:
            raise Refused("version: expected the version (a whole number) of the view this "
                          f"choice was made from, got {str(version)[:40]!r}")
        if version != self.version:
            raise Stale(self.view(seat))

    def _check_decision(self, seat) -> None:
        game = self.game
        if seat is None:
            raise Refused("only a seat's own link may act for it: this page watches the game "
                          "(it holds no seat's key)", 403)
        if game.over():
            raise Refused("the game is over", 409)
        if self.thinking >= 0:
            raise Refused(f"seat {self.thinking + 1} (an engine) is thinking", 409)
        if seat not in self.human_seats:
            raise Refused(f"seat {seat + 1} is not played by a person", 409)
        if game.state.to_move != seat:
            raise Refused(f"it is seat {game.state.to_move + 1}'s decision, not seat {seat + 1}'s", 409)

    def act(self, seat, token, version) -> dict:
        """A person's decision, by its notation token (engine/notation.py's parser), chosen
        from the View of `version`; the seat's View after it."""
        with self.lock:
            if seat is not None:
                self._check_version(seat, version)
            self._check_decision(seat)
            state = self.game.state
            if not isinstance(token, str) or len(token) > 32:
                raise Refused(f"action: expected a token such as 'MINT-KING', got {str(token)[:40]!r}")
            try:
                action = token_to_action(token)
            except NotationError as exc:
                raise Refused(f"{exc}; legal: {legal_text(state)}") from None
            if action not in state.legal_actions():
                raise Refused(f"{action_to_token(action)!r} is not legal here; legal: {legal_text(state)}")
            with self._kept(person=seat):
                self.game.play(action)
                self.last_human = seat
                self._changed(start_engine=False)
            return self.view(seat)

    def undo(self, seat, version) -> dict:
        """Take back the seat's last decision of its turn, chosen from the View of `version`;
        its View after."""
        with self.lock:
            if seat is not None:
                self._check_version(seat, version)
            self._check_decision(seat)
            if not self.game.can_take_back():
                self.game.take_back()              # its PalaisError says why (nothing changes)
            with self._kept(person=seat):
                self.game.take_back()
                self._changed(start_engine=False)
            return self.view(seat)

    def resign(self, seat, version) -> dict:
        """The person of `seat` leaves (docs/web.md, "Resign"), chosen from the View of
        `version`. The rules know no resignation, so the game goes on: from now on the
        built-in greedy player plays the seat's decisions, to the end, and the seat is scored
        like any other (marked resigned). The seat's key still shows its view; it may no
        longer act."""
        with self.lock:
            if seat is None:
                raise Refused("only a seat's own link may resign it", 403)
            self._check_version(seat, version)
            if self.game.over():
                raise Refused("the game is over", 409)
            if seat not in self._humans:
                raise Refused(f"seat {seat + 1} is not played by a person", 409)
            spec = SeatSpec(RESIGNED_PLAYER)
            with self._kept(person=seat):
                self.seats[seat] = KeptSeat(spec, self.limits, self.seed * 10 + seat,
                                            self.engine_restarts, self.open_seat)
                self._humans = self._humans - {seat}
                self.resigned = self.resigned | {seat}
                self.kinds[seat] = RESIGNED_PLAYER
                players = list(self.settings.get("players", []))
                if seat < len(players):
                    players[seat] = {"kind": "engine", "name": RESIGNED_PLAYER}
                    self.settings["players"] = players
                self.settings["resigned"] = sorted(self.resigned)
                self.settings["stood_at"] = len(self.game.actions)     # take-backs end here, after a restart too
                self.game.let_stand()
                self._changed(start_engine=False)
            return self.view(seat)

    def reload(self, build, actions: list, settings: dict, kinds: list, resigned: set, rematch,
               stored_version: int) -> None:
        """Bring this live game up to the one another server process stored (web/sql_store.py's
        refresh): its PlayGame, settings and resignations, the seat a resignation gave to the
        built-in player; then the watchers are shown it, and an engine whose turn it now is
        thinks (its decision is stored once: the store's version check refuses a second).
        An engine searching here for the game as it was has its decision dropped. When the
        stored `actions` go on from this game's (the usual case), only the new ones are
        played; else the game is made anew by `build()`."""
        with self.lock:
            if self.closed or stored_version <= self.stored_version:
                return                             # this process's own change, or a read older than it
            if self.thinking >= 0 and self.seats[self.thinking] is not None:
                self.seats[self.thinking].stop()   # its search is of a game that no longer is
            for q in sorted(set(resigned) - self.resigned):
                if self.seats[q] is None:
                    self.seats[q] = KeptSeat(SeatSpec(RESIGNED_PLAYER), self.limits, self.seed * 10 + q,
                                             self.engine_restarts, self.open_seat)
            played = self.game.actions
            try:
                if actions[:len(played)] != played or settings.get("stood_at", 0) != self.settings.get("stood_at", 0):
                    raise PalaisError("not a continuation")
                self.game.extend(actions[len(played):])
            except PalaisError:
                self.game = build()
            self.settings = dict(settings)
            self.kinds = list(kinds)
            self.levels = list(self.settings.get("levels") or [None] * len(self.kinds))
            self.resigned = set(resigned)
            self._humans = self._humans - self.resigned
            self.rematch_id = rematch
            self.stored_version = stored_version
            # The stored versions only grow: each change stores a version above the one it
            # replaces (this session's count of changes is kept above the stored one).
            self.version = max(self.version, stored_version)
            self._changed(store=False)

    def start(self, seat, store: bool = True) -> dict:
        """Deal with what is due at once (card draws) and tell the watchers; `seat`'s View.
        An engine's turn, if one is due, starts on release(). `store` False: a game brought
        back from the store, where nothing is due, is not written again."""
        with self.lock:
            return self._changed_for(seat, store)

    def _changed_for(self, seat, store: bool = True) -> dict:
        """_changed() holding back any engine turn it hands out until release(), and the
        View of `seat` at this very point: a request's answer is built before an engine
        can move, and sent before the engine's moves are pushed (the app releases the
        engine once the answer is out), so the page never gets an older View after a newer one."""
        self._changed(start_engine=False, store=store)
        return self.view(seat)

    def release(self) -> None:
        """Start the engine turn held back by the last request, if any (idempotent)."""
        with self.lock:
            q, self._held = self._held, None
            if q is not None and not self.closed:
                self._start_engine(q)

    def _changed(self, start_engine: bool = True, store: bool = True) -> None:
        """After any change (lock held): draw due cards, store the game (a StoreError goes
        up before anything else happens: see _kept), hand the turn to an engine seat if it
        is one's (held back until release() unless `start_engine`), and push the new views.
        `store` False: the game itself did not change (an engine's decision dropped, the
        game reloaded from the store), so nothing is stored."""
        self.version += 1
        self.touch()
        self.game.draw_cards()
        if store and self.on_change is not None and not self.closed:
            self.on_change(self)
        if not self.closed and not self.game.over() and self.thinking < 0:
            q = self.game.state.to_move
            if self.seats[q] is not None:
                self.thinking = q
                if start_engine:
                    self._start_engine(q)
                else:
                    self._held = q
        self._push_views()

    def _start_engine(self, q: int) -> None:
        threading.Thread(target=self._engine_turn, args=(q,), daemon=True,
                         name=f"engine-{self.id[:6]}-{q + 1}").start()

    # ---- engine seats ----------------------------------------------------------------------

    def _engine_turn(self, q: int) -> None:
        """The engine of seat q+1 plays its turn (a thread of its own). An engine that fails
        is replaced and asked again (web/engine_seat.py); once the seat has failed for good,
        its decisions are played at random without asking it."""
        seat = self.seats[q]
        last = [0.0]

        def on_info(info):
            now = time.monotonic()
            if now - last[0] < INFO_INTERVAL_S:
                return
            last[0] = now
            self.publish({"type": "info", "seat": seat_number(q),
                          "win": finite(info.win[q]) if q < len(info.win) else None,
                          "score": finite(info.score[q]) if q < len(info.score) else None,
                          "pv": public_line(info.pv), "iterations": info.iterations})

        while not seat.failed:
            with self.lock:
                searched_from = self.version     # its decision stands only against this version
            try:
                actions, problem = seat.choose_turn(self.game, on_info), None
            except EngineFailed as exc:
                actions, problem = [], str(exc)
            except Exception as exc:             # a bug must not leave the game stuck
                actions, problem = [], f"engine seat {q + 1} failed: {exc}"
            with self.lock:
                if self.closed:
                    return
                if self.version != searched_from:
                    # The game changed while it searched (a resignation, say): its decision
                    # was made for a game that no longer is. Dropped; the seat is asked again
                    # if the decision is still its own.
                    self.thinking = -1
                    self._changed(store=False)
                    return
                if problem is None and self._store_engine_turn(q, actions):
                    return
            problem = problem or f"engine seat {q + 1} gave no legal action"
            seat.replace(problem)
            with self.lock:
                if self.closed:
                    return
                self.publish({"type": "error", "error": self._failure_line(q, problem)})
                self.version += 1
                self._push_views()              # its restarts, or its failure, show
        with self.lock:
            if self.closed:
                return
            turn = choose_turn(self._fallback, self.game.state, q, SearchLimits(iterations=1))[0]
            if not self._store_engine_turn(q, turn):
                self.thinking = -1
                self._changed(store=False)

    def _store_engine_turn(self, q: int, actions) -> bool:
        """Play and store an engine's decision (lock held); whether any of it was legal. A
        store that fails is tried again with growing waits (the lock let go meanwhile, the
        game waiting, the watchers told), while the game is still where the engine searched."""
        searched_from = self.version
        tries = 0
        while True:
            try:
                with self._kept():
                    if not self._play_engine_actions(q, actions):
                        return False
                    self.thinking = -1
                    self._changed()
                return True
            except Conflict:
                # Another process stored first: this session now holds the stored game, and
                # the next decision is asked for if it is an engine's.
                self.thinking = -1
                self._changed(store=False)
                return True
            except StoreError as exc:
                wait = STORE_RETRY_S[min(tries, len(STORE_RETRY_S) - 1)]
                tries += 1
                self.publish({"type": "error", "error": f"{exc} (engine seat {q + 1}'s decision: "
                                                        f"trying again in {wait:g} s)"})
                self.lock.release()
                try:
                    time.sleep(wait)
                finally:
                    self.lock.acquire()
                if self.closed or self.version != searched_from:
                    return True                # the game went on without it (closed, or changed)

    def _failure_line(self, q: int, problem: str) -> str:
        seat = self.seats[q]
        who = f"engine seat {q + 1} ({self.kinds[q]})"
        if not seat.failed:
            return (f"{who} failed: {problem}; it was restarted "
                    f"({seat.restarts} of {seat.max_restarts} restarts)")
        return (f"{who} failed: {problem}; after {seat.restarts} restarts it is given up: "
                f"the game no longer asks it, and plays its decisions at random")

    def _play_engine_actions(self, q: int, actions) -> int:
        """Play the engine's actions while they are legal and its decision; how many were."""
        played = 0
        for action in actions:
            self.game.draw_cards()
            state = self.game.state
            if state.is_terminal() or state.to_move != q or action not in state.legal_actions():
                break
            self.game.play(action)
            played += 1
        return played

    # ---- hints and analysis ----------------------------------------------------------------

    @contextmanager
    def hint_state(self, seat):
        """A copy of the state for a hint to `seat`, whose decision it must be; one hint of
        a game is searched at a time (a second one meanwhile is refused, 409)."""
        with self.lock:
            self._check_decision(seat)
            if self.hinting:
                raise Refused("a hint for this game is being searched already", 409)
            self.hinting = True
            state = self.game.state.copy()
        try:
            yield state
        finally:
            self.hinting = False

    def analysis_open_to(self, seat) -> bool:
        """Whether `seat` (None: a spectator) may see the analysis: everyone once the game is
        over; while an uploaded game goes on, its seats only (it shows every hand)."""
        return self.game.over() or seat is not None

    def start_analysis(self, limits: SearchLimits, seed: int, lang: str, gate) -> None:
        """Analyse the game in a worker thread, pushing `analysis` progress messages and then
        the result, once the server's queue `gate` (web/analyses.py) gives it a slot. Only
        for a finished game or an uploaded record: the engine's preferred turns of other
        seats would show their hidden cards during a game."""
        with self.lock:
            if not (self.game.over() or self.from_record):
                raise Refused("a game is analysed once it is over (the analysis shows every "
                              "seat's preferred turns, hidden cards included)", 409)
            if self.analysing:
                raise Refused("an analysis of this game is running already", 409)
            gate.admit()                         # Refused 503 when the server's queue is full
            self.analysing = True
            rec, start = self.game.record(), self.game.start_state()
        analyser = Analyser(limits, seed, lang=lang)
        threading.Thread(target=self._analyse, args=(rec, start, analyser, gate), daemon=True,
                         name=f"analysis-{self.id[:6]}").start()

    def _analyse(self, rec, start, analyser, gate) -> None:
        with gate.turn(lambda: self.closed) as started:
            if started:
                self._analysed(rec, start, analyser, gate.processes)
            else:
                self.analysing = False           # its game went away while it waited

    def _analysed(self, rec, start, analyser, processes: int) -> None:

        def progress(done, total):
            if self.closed:
                raise _Closed()                  # its game went away: stop at this turn
            self.publish({"type": "analysis", "done": done, "total": total}, to=self.analysis_open_to)

        try:
            if self.closed:
                raise _Closed()
            analyses = analyse_game(rec, start, analyser, on_turn=progress, processes=processes)
            result = analysis_json(rec.n_players, analyses, rec.observer,
                                   best_steps(start, rec.actions, analyses))
        except _Closed:
            return
        except PalaisError as exc:
            self.publish({"type": "error", "error": f"analysis failed: {exc}"}, to=self.analysis_open_to)
            return
        finally:
            self.analysing = False
            self.touch()                         # its idle time counts from the result
        self.analysis = result
        self.publish({"type": "analysis", "result": result}, to=self.analysis_open_to)

    # ---- watchers --------------------------------------------------------------------------

    def watch(self, watcher: Watcher) -> None:
        with self.lock:
            self.watchers.append(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        with self.lock:
            if watcher in self.watchers:
                self.watchers.remove(watcher)

    def publish(self, message: dict | None, to=None) -> None:
        """`message` to every watcher (None: the game is gone, end the sockets), or to those
        whose seat `to(seat)` allows (what the HTTP routes would show that seat)."""
        for watcher in list(self.watchers):
            if to is None or to(watcher.seat):
                watcher.send(message)

    def _push_views(self) -> None:
        """The new View to every watcher: built and encoded once per seat watched (a str
        message is JSON text already; the sockets send it as it is)."""
        texts = {}
        for watcher in list(self.watchers):
            if watcher.seat not in texts:
                texts[watcher.seat] = json.dumps({"type": "view", "view": self.view(watcher.seat)},
                                                 separators=(",", ":"), ensure_ascii=False)
            watcher.send(texts[watcher.seat])

    # ---- the end ---------------------------------------------------------------------------

    def close(self, message: str = CLOSED_MESSAGE, kept: bool = False, idle: bool = False) -> None:
        """Stop every search, end every engine process, tell the watchers `message` and
        end their sockets (idempotent). `kept`: the game stays in the database (the server
        stops, or it leaves memory): the pages are told to come back, not that it is gone;
        `idle` (with `kept`): it leaves memory for being unused, which the pages are told."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            seats = list(self.seats)
        if not kept:
            self.publish({"type": "error", "error": message})
        self.publish((IDLE if idle else RESTART) if kept else None)
        for seat in seats:
            if seat is not None:
                seat.stop()
        for seat in seats:
            if seat is not None:
                seat.close()
        self._fallback.close()
