"""`palais play`'s conversation with people: the board, the menu of legal actions, commands.

The game itself (state, take-backs, records) is play/game.py; the engine seats are
play/seats.py. This module only reads lines and writes text, through the functions it is
given, so a test can drive it without a terminal and a person can drive it with one.
Each human decision is typed as a token (`gate2`, `MINT-KING`, `c4`, `!GOLD`, `end`, several
in a row for a whole turn) or as its number in the menu; the other commands are listed by
HELP.
"""

from __future__ import annotations

from engine.constants import (CARDS, S_GATE_PLACE, S_KING_BONUS, S_MADAME_BONUS, S_MOVES,
                              S_RECRUIT, S_SETUP, S_SOURCE, S_STEP1, S_WINDOW1, S_WINDOW2,
                              S_WINDOW3, S_WINDOW4, S_WINDOW5, A_DRAW)
from engine.errors import NotationError, PalaisError
from engine.notation import action_to_token, token_to_action, turn_to_text

from .board import draw_board
from .hints import find_hints, hint_lines
from .seats import EngineFailed

HELP = """commands:
  TOKEN ...     play one action or several in a row (gate2, MINT-KING, c4, !GOLD, end, ...)
  NUMBER        play the action with that number in the menu
  menu, m       show the menu of legal actions again
  hint, h       the engine's top 3 ways to finish this turn (from what you know)
  undo, u       take back your last action of this turn (not a card drawn)
  board, b      draw the board again
  save FILE     write the game so far as a game record (load it with palais play --load FILE)
  help          this list
  quit, q       leave the game (save first if you want it)"""

STAGE_WORDS = {
    S_SETUP: "setup: place a servant in a room",
    S_WINDOW1: "card window before step 1: play a card or continue",
    S_STEP1: "step 1: how many servants go to the GATE",
    S_GATE_PLACE: "step 1: which room a GATE servant comes from",
    S_WINDOW2: "card window before step 2: play a card or continue",
    S_MOVES: "step 2: move a servant up the stairway, or end",
    S_WINDOW3: "card window before step 3: play a card or continue",
    S_KING_BONUS: "step 3: take or decline the KING bonus servant",
    S_MADAME_BONUS: "step 3: take or decline the MADAME bonus servant",
    S_WINDOW4: "card window before step 4: play a card or continue",
    S_RECRUIT: "step 4: recruit a noble, or end",
    S_SOURCE: "which room the new servant comes from",
    S_WINDOW5: "card window at the end of the turn: play a card or continue",
}


def menu_lines(state, columns: int = 4) -> list:
    """The legal actions, numbered from 1, a few to a line."""
    legal = state.legal_actions()
    cells = [f"{i:>2} {action_to_token(a):<14}" for i, a in enumerate(legal, 1)]
    return ["  " + "".join(cells[i:i + columns]).rstrip() for i in range(0, len(cells), columns)]


class Terminal:
    """One game in a terminal. `seats[q]` is an engine seat object, or None for a person."""

    def __init__(self, game, seats, write, read_line, color: bool = False, hint_limits=None,
                 hint_seed: int = 0, autosave: str | None = None):
        self.game = game
        self.seats = list(seats)
        self.write = write                  # write(text): one line or more
        self.read_line = read_line          # read_line(prompt) -> str, or None at end of input
        self.color = color
        self.hint_limits = hint_limits
        self.hint_seed = hint_seed
        self.autosave = autosave
        self._board_shown_to = None         # the seat whose turn the board was last drawn for

    # ---- the game loop -------------------------------------------------------------------

    def run(self) -> int:
        """Play to the end (0) or until the person quits (1)."""
        self._introduce()
        while not self.game.over():
            self._announce_draws(self.game.draw_cards())
            if self.game.over():
                break
            seat = self.game.state.to_move
            if self.seats[seat] is not None:
                self._board_shown_to = None
                self._engine_turn(seat)
                self._save_quietly()
            elif not self._human_step(seat):
                self.write("Game left unfinished." + (f" Saved to {self.autosave}." if self.autosave else ""))
                return 1
        self._finish()
        return 0

    def _introduce(self) -> None:
        names = ", ".join(f"seat {q + 1} {self._who(q)}" for q in range(self.game.n_players))
        self.write(f"Palais Royal, {self.game.n_players} players, seed {self.game.seed}: {names}.")
        self.write("Type help for the commands.")

    def _who(self, seat: int) -> str:
        name = self.game.names[seat] if seat < len(self.game.names) else f"seat {seat + 1}"
        return f"({name})"

    def _humans(self) -> list:
        return [q for q, s in enumerate(self.seats) if s is None]

    def _announce_draws(self, draws) -> None:
        for seat, action in draws:
            if self.seats[seat] is None and self._humans() == [seat]:
                self.write(f"You draw {CARDS[action - A_DRAW]}.")
            else:
                self.write(f"Seat {seat + 1} draws a card.")

    def _engine_turn(self, seat: int) -> None:
        game = self.game
        try:
            turn = self.seats[seat].choose_turn(game)
            played = []
            for action in turn:
                if game.over() or game.state.is_chance() or game.state.to_move != seat:
                    break
                if action not in game.state.legal_actions():
                    raise EngineFailed(f"seat {seat + 1}'s engine played an illegal action "
                                       f"'{action_to_token(action)}'")
                game.play(action)
                played.append(action)
            if not played:
                raise EngineFailed(f"seat {seat + 1}'s engine gave no action")
        except EngineFailed as exc:
            self.write(f"Error: {exc}. Seat {seat + 1} is played by hand from now on.")
            self.seats[seat].close()
            self.seats[seat] = None
            return
        self.write(f"Seat {seat + 1} {self._who(seat)} plays: {turn_to_text(played)}")

    def _human_step(self, seat: int) -> bool:
        """Show what is due and handle one line; False when the person leaves."""
        if self._board_shown_to != seat:
            self._board_shown_to = seat
            self.write("")
            self.write(draw_board(self.game.state, seat=seat, color=self.color, names=self.game.names))
            self.write(f"Your turn, seat {seat + 1}.")
        self._show_menu(seat)
        line = self.read_line(f"seat {seat + 1}> ")
        if line is None:
            return False
        return self._command(seat, line.strip())

    def _show_menu(self, seat: int) -> None:
        stage = STAGE_WORDS.get(self.game.state.stage, "decide")
        self.write(f"{stage}:")
        for row in menu_lines(self.game.state):
            self.write(row)

    # ---- commands ------------------------------------------------------------------------

    def _command(self, seat: int, line: str) -> bool:
        word, _, rest = line.partition(" ")
        if not line or word in ("menu", "m"):
            return True
        if word in ("quit", "q", "exit"):
            return False
        if word == "help":
            self.write(HELP)
        elif word in ("board", "b"):
            self.write(draw_board(self.game.state, seat=seat, color=self.color, names=self.game.names))
        elif word in ("hint", "h"):
            self._hint()
        elif word in ("undo", "u"):
            try:
                self.write(f"Took back {action_to_token(self.game.take_back())}.")
            except PalaisError as exc:
                self.write(f"Error: {exc}")
        elif word == "save":
            self._save(rest.strip())
        elif line.isdigit():
            self._play_number(int(line))
        else:
            self._play_tokens(seat, line)
        return True

    def _hint(self) -> None:
        self.write("Thinking...")
        try:
            report = find_hints(self.game.state, self.hint_limits, top=3, seed=self.hint_seed)
        except PalaisError as exc:
            self.write(f"Error: {exc}")
            return
        self.write("\n".join(hint_lines(report, self.game.names)))

    def _save(self, path: str) -> None:
        if not path:
            self.write("Error: save needs a file name: save FILE")
            return
        try:
            self.game.save(path)
        except PalaisError as exc:
            self.write(f"Error: {exc}")
            return
        self.write(f"Saved to {path}.")

    def _save_quietly(self) -> None:
        if self.autosave:
            try:
                self.game.save(self.autosave)
            except PalaisError as exc:
                self.write(f"Error: autosave failed: {exc}")

    def _play_number(self, number: int) -> None:
        legal = self.game.state.legal_actions()
        if not 1 <= number <= len(legal):
            self.write(f"Error: no action {number} in the menu (1..{len(legal)})")
            return
        self._play(legal[number - 1])

    def _play_tokens(self, seat: int, line: str) -> None:
        for i, token in enumerate(line.split(), 1):
            if self.game.over() or self.game.state.is_chance() or self.game.state.to_move != seat:
                self.write(f"Error: your turn ended before token {i} '{token}'; the rest is ignored")
                return
            try:
                action = token_to_action(token)
            except NotationError as exc:
                self.write(f"Error: {exc} (type help for the commands)")
                return
            if action not in self.game.state.legal_actions():
                self.write(f"Error: '{token}' is not legal here; see the menu")
                return
            self._play(action)

    def _play(self, action: int) -> None:
        seat = self.game.state.to_move
        self.game.play(action)
        if self.game.over() or self.game.state.to_move != seat:
            self._save_quietly()
        elif self.game.state.is_chance():
            self._announce_draws(self.game.draw_cards())

    def _finish(self) -> None:
        state = self.game.state
        self.write("")
        self.write(draw_board(state, seat=None, color=self.color, names=self.game.names, reveal=True))
        scores = state.scores()
        returns = state.returns()
        self.write("Game over. Final scores: " + ", ".join(
            f"seat {q + 1} {self._who(q)} {scores[q]} VP" for q in range(state.n_players)))
        winners = [q for q in range(state.n_players) if returns[q] > 0]
        self.write("Winner: " + " and ".join(f"seat {q + 1} {self._who(q)}" for q in winners) + ".")
        self._save_quietly()
