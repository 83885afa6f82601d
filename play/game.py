"""A game being played by people and engines: the true state, its history, take-backs, saving.

This is the model behind `palais play`, with no input or output of its own. It keeps the
true state (the referee's), draws the cards from a seeded stream, remembers who drew what
(so each seat is told only its own draws), lets the seat to move take back the actions of
its turn in progress, and writes the game as a record (docs/notation.md). A card drawn
cannot be taken back: it was seen.
"""

from __future__ import annotations

from common.atomic_write import write_text_atomic
from common.files import read_text_file
from engine.constants import A_DRAW_UNKNOWN
from engine.chance import ChanceStream, draws_made, new_secret, secret_from_hex
from engine.errors import PalaisError
from engine.notation import action_to_token
from engine.record import read_record, record_from_actions, replay, write_record
from engine.state import State
from engine.views import seen_by


def read_game(path: str, components=None):
    """(record, its start state) from a record file, every action checked by replaying it.
    The start state is the full one, or the observer's view for a seat's-view record."""
    return read_game_text(read_text_file(path, "game record"), components)


def read_game_text(text: str, components=None):
    """read_game for a record's text (an upload, say)."""
    rec = read_record(text, components)
    replay(rec, components=components)
    state = State.new_game(rec.n_players, seed=rec.seed or 0, components=components,
                           options=rec.rule_options(), first_game=rec.first_game,
                           deal=rec.deal, layout=rec.layout)
    return rec, state.view(rec.observer) if rec.observer >= 0 else state


SECRET_HEADER = "DrawSecret"     # a saved game's draw secret (docs/play.md), so a load goes on alike


class PlayGame:
    """`seed` deals the public setup; the cards are drawn from a stream keyed by `secret`
    (engine/chance.py: a fresh one unless given), which no seat is ever told."""

    def __init__(self, state, seed: int, names, components=None, options=None,
                 first_game: bool = False, actions=(), drawers=(), start=None, secret=None):
        self.state = state
        self.seed = seed
        self.secret = secret if secret is not None else new_secret()
        self.names = list(names)
        self.components = components
        self.options = options
        self.first_game = first_game
        self.actions = list(actions)          # every action, draws included
        self.drawers = list(drawers)          # per action: the seat that drew, or None
        self.chance = ChanceStream(self.secret, seed, drawn=draws_made(self.actions))
        self._undo = []                       # (state copy, len(actions)) before each take-back-able action
        # The state before any action: `start` when given (a record's own deal and layout).
        self._start = start.copy() if start is not None else State.new_game(
            state.n_players, seed=seed, components=components, options=options, first_game=first_game)

    @classmethod
    def new(cls, n_players: int, seed: int, names, components=None, options=None,
            first_game: bool = False, secret=None) -> "PlayGame":
        state = State.new_game(n_players, seed=seed, components=components, options=options,
                               first_game=first_game)
        return cls(state, seed, names, components, options, first_game, secret=secret)

    @classmethod
    def load(cls, path: str, names=None, components=None) -> "PlayGame":
        """A game from a full record file (not a seat's view), ready to go on."""
        rec, state = read_game(path, components)
        return cls.from_record(rec, state, names, components, where=path)

    @classmethod
    def from_record(cls, rec, state, names=None, components=None, where: str = "") -> "PlayGame":
        """A game from a record already read and replayed (read_game's pair), ready to go on."""
        if rec.observer >= 0:
            raise PalaisError(f"{where + ': ' if where else ''}this record is seat "
                              f"{rec.observer + 1}'s view; a game can only go on from a full record")
        start, state = state, state.copy()
        drawers = []
        for a in rec.actions:
            drawers.append(state.to_move if state.is_chance() else None)
            state.apply(a)
        secret = rec.headers.get(SECRET_HEADER)
        if secret is not None:
            secret = secret_from_hex(secret, f"{where or 'the record'}: header {SECRET_HEADER}")
        return cls(state, rec.seed or 0, names or rec.names or [f"seat {q + 1}" for q in range(rec.n_players)],
                   components, rec.rule_options(), rec.first_game, rec.actions, drawers, start,
                   secret=secret)

    # ---- playing -------------------------------------------------------------------------

    @property
    def n_players(self) -> int:
        return self.state.n_players

    def over(self) -> bool:
        return self.state.is_terminal()

    def draw_cards(self) -> list:
        """Resolve every pending card draw; returns [(seat, action)] for the draws made."""
        made = []
        while self.state.is_chance():
            seat = self.state.to_move
            action = self.chance.draw(self.state)
            self._record(action, seat)
            made.append((seat, action))
        if made:
            self._undo.clear()
        return made

    def play(self, action: int) -> None:
        """One decision by the seat to move (a PalaisError if it is not legal)."""
        if self.state.is_terminal() or self.state.is_chance():
            raise PalaisError("no decision is due")
        if action not in self.state.legal_actions():
            raise PalaisError(f"'{action_to_token(action)}' is not legal here")
        seat = self.state.to_move
        self._undo.append((self.state.copy(), len(self.actions)))
        self._record(action, None)
        if self.state.is_terminal() or self.state.to_move != seat:
            self._undo.clear()                  # the turn is over: it stands

    def extend(self, actions) -> None:
        """Go on with `actions` as they were played elsewhere (another server process, from
        the store): decisions and card draws alike, take-backs kept as play() and
        draw_cards() keep them, the draw stream moved past the draws. A PalaisError if one
        is not legal."""
        for action in actions:
            if self.state.is_chance():
                if action not in self.state.legal_actions():
                    raise PalaisError(f"'{action_to_token(action)}' is not a card this draw can give")
                self._record(action, self.state.to_move)
                self._undo.clear()
            else:
                self.play(action)
        if actions:
            self.chance = ChanceStream(self.secret, self.seed, drawn=draws_made(self.actions))

    def _record(self, action: int, drawer) -> None:
        self.state.apply(action)
        self.actions.append(action)
        self.drawers.append(drawer)

    def let_stand(self) -> None:
        """The turn in progress stands as it is: nothing of it can be taken back."""
        self._undo.clear()

    def can_take_back(self) -> bool:
        return bool(self._undo)

    def take_back(self) -> int:
        """Undo the last decision of the turn in progress; returns it."""
        if not self._undo:
            raise PalaisError("nothing to take back: no action of this turn since its start or "
                              "the last card drawn")
        state, length = self._undo.pop()
        action = self.actions[length]
        self.state = state
        del self.actions[length:]
        del self.drawers[length:]
        return action

    def memento(self):
        """Everything a change can alter, to put back with restore() when the change cannot
        be kept (the web server's store failed to save it)."""
        return (self.state.copy(), len(self.actions), [(s.copy(), n) for s, n in self._undo])

    def restore(self, memento) -> None:
        """The game as it was when `memento` was taken (its later actions and draws undone)."""
        state, length, undo = memento
        self.state = state.copy()
        del self.actions[length:]
        del self.drawers[length:]
        self._undo = [(s.copy(), n) for s, n in undo]
        self.chance = ChanceStream(self.secret, self.seed, drawn=draws_made(self.actions))

    def rebuild_take_backs(self, stood_at: int = 0) -> None:
        """The take-backs of the turn in progress, made again from the actions (a game
        brought back from its record has none): as play() and draw_cards() keep them, less
        those before `stood_at` (the ply of the last let_stand())."""
        state, undo = self._start.copy(), []
        for i, (action, drawer) in enumerate(zip(self.actions, self.drawers)):
            if drawer is not None:                  # a card drawn: what came before stands
                state.apply(action)
                undo.clear()
                continue
            seat = state.to_move
            undo.append((state.copy(), i))
            state.apply(action)
            if state.is_terminal() or state.to_move != seat:
                undo.clear()
        self._undo = [(s, i) for s, i in undo if i >= stood_at]

    def seen_by(self, seat: int) -> list:
        """The moves so far as `seat` may see them: others' draws as `?` (for PRI engines)."""
        return seen_by(seat, zip(self.actions, self.drawers))

    # ---- records -------------------------------------------------------------------------

    def layout(self) -> list:
        """The room in each castle cell (grid order)."""
        return list(self._start.snapshot().layout)

    def deal(self) -> list:
        """The tile index (0-based) dealt on each park square a1..f6."""
        return list(self._start.snapshot().tile_at)

    def deal_numbers(self) -> list:
        """The same as printed tile numbers (as the protocol's `deal` takes them)."""
        return [self.state.components.tiles[t].number for t in self.deal()]

    def start_state(self):
        """A copy of the state the game started from (before any action)."""
        return self._start.copy()

    def record(self, headers=None):
        """The game so far as a GameRecord (engine/record.py)."""
        return record_from_actions(self.n_players, self.actions, seed=self.seed,
                                   components=self.components, options=self.options,
                                   first_game=self.first_game, deal=self.deal(), layout=self.layout(),
                                   names=self.names, headers=headers)

    def record_text(self, headers=None) -> str:
        return write_record(self.record(headers), components=self.components)

    def seat_record_text(self, seat: int, headers=None) -> str:
        """The game so far as `seat` (0-based) saw it: a seat's-view record (header View),
        other seats' draws as `?`, no draw secret (what `palais analyse` reads for one
        observer, and all a seat may download while the game goes on)."""
        actions = [a if drawer in (None, seat) else A_DRAW_UNKNOWN
                   for a, drawer in zip(self.actions, self.drawers)]
        rec = record_from_actions(self.n_players, actions, seed=self.seed,
                                  components=self.components, options=self.options,
                                  first_game=self.first_game, deal=self.deal(),
                                  layout=self.layout(), names=self.names, headers=headers,
                                  observer=seat)
        return write_record(rec, components=self.components)

    def save(self, path: str, headers=None) -> None:
        """Write the record to `path` in one step (a temporary file renamed over it), so a
        failed save leaves any earlier file whole. A saved game is its owner's: it holds every
        hand and the draw secret, so a load goes on with the draws the game would have had."""
        text = self.record_text({**(headers or {}), SECRET_HEADER: self.secret.hex()})
        try:
            write_text_atomic(path, text)
        except OSError as exc:
            raise PalaisError(f"{path}: cannot write: {exc.strerror or exc}") from None
