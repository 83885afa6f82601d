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
from common.words import and_list, plural
from engine.errors import NotationError, PalaisError
from engine.notation import action_to_token, token_to_action, turn_to_text
from engine.scoring import breakdown_lines

from .board import draw_board
from .explain import wrap_lines
from .hints import find_hints, hint_lines
from .seats import EngineFailed

# The header of a saved game that lists the seats played by people (1-based, "1,3").
PEOPLE_HEADER = "People"

HELP = """commands:
  TOKEN ...     play one action or several in a row (gate2, MINT-KING, c4, !GOLD, end, ...)
  NUMBER        play the action with that number in the menu; numbers and tokens mix on
                one line (1 KING end): each number means the menu as it stands by then
  menu, m       show the menu of legal actions again
  hint, h       the engine's top 3 ways to finish this turn (from what you know)
  undo, u       take back your last action of this turn (not a card drawn)
  board, b      draw the board again (board full, board compact: that one)
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


MENU_GAP = 3                                # spaces between two menu columns


def menu_lines(state, width: int = 80) -> list:
    """The legal actions, numbered from 1, in aligned columns: as many as fit in `width`."""
    tokens = [action_to_token(a) for a in state.legal_actions()]
    digits = len(str(len(tokens)))
    cells = [f"{i:>{digits}} {token}" for i, token in enumerate(tokens, 1)]
    cell = max((len(c) for c in cells), default=0)
    columns = max(1, (width - 2 + MENU_GAP) // (cell + MENU_GAP))
    rows = [cells[i:i + columns] for i in range(0, len(cells), columns)]
    return ["  " + (" " * MENU_GAP).join(c.ljust(cell) for c in row).rstrip() for row in rows]


class Terminal:
    """One game in a terminal. `seats[q]` is an engine seat object, or None for a person."""

    def __init__(self, game, seats, write, read_line, color: bool = False, hint_limits=None,
                 hint_seed: int = 0, autosave: str | None = None, width: int = 80,
                 height: int | None = None, compact: bool | None = None):
        self.game = game
        self.seats = list(seats)
        self.write = write                  # write(text): one line or more
        self.read_line = read_line          # read_line(prompt) -> str, or None at end of input
        self.color = color
        self.hint_limits = hint_limits
        self.hint_seed = hint_seed
        self.autosave = autosave
        self.width = width                  # the terminal's columns (menu and hint layout)
        self.height = height                # its lines, or None: unknown (never compact by itself)
        self.compact = compact              # the compact board: True, False, or None = when the full one is too tall
        self._board_shown_to = None         # the seat whose turn the board was last drawn for
        self._human_turn = None             # ((round, seat), len(actions) at its start)
        self._engine_line = None            # ((round, seat), actions): an engine's, not yet printed

    # ---- the game loop -------------------------------------------------------------------

    def run(self) -> int:
        """Play to the end (0) or until the person quits (1)."""
        self._introduce()
        while not self.game.over():
            self._announce_draws(self.game.draw_cards())
            self._confirm_finished_turn()
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
        """One line per seat for the cards it drew in a row: the card names to the only
        person at the table for their own draws, the number of cards otherwise."""
        if draws:
            self._flush_engine_line()
        groups = []
        for seat, action in draws:
            if groups and groups[-1][0] == seat:
                groups[-1][1].append(CARDS[action - A_DRAW])
            else:
                groups.append((seat, [CARDS[action - A_DRAW]]))
        for seat, cards in groups:
            if self.seats[seat] is None and self._humans() == [seat]:
                self.write(f"You draw {and_list(cards)}.")
            else:
                self.write(f"Seat {seat + 1} draws {plural(len(cards), 'card')}.")

    def _confirm_finished_turn(self) -> None:
        """Once a person's turn is over, one line with what they played in it (their own
        decisions; their draws were announced as they came)."""
        if self._human_turn is None:
            return
        state = self.game.state
        (round_, seat), start = self._human_turn
        if not self.game.over() and (state.round, state.to_move) == (round_, seat):
            return
        self._human_turn = None
        played = [a for a, drawer in zip(self.game.actions[start:], self.game.drawers[start:])
                  if drawer is None]
        if played:
            self.write(f"Seat {seat + 1} {self._who(seat)} played: {turn_to_text(played)}")

    def _engine_turn(self, seat: int) -> None:
        game = self.game
        key = (game.state.round, seat)
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
            self._flush_engine_line()
            self.write(f"Error: {exc}. Seat {seat + 1} is played by hand from now on.")
            self.seats[seat].close()
            self.seats[seat] = None
            return
        if self._engine_line is not None and self._engine_line[0] != key:
            self._flush_engine_line()
        if self._engine_line is None:
            self._engine_line = (key, [])
        self._engine_line[1].extend(played)

    def _flush_engine_line(self) -> None:
        """Print what an engine seat played since the last line: one line per turn (or per
        part of a turn, when its own draw comes in between), however its engine answered."""
        if self._engine_line is not None:
            (_round, seat), played = self._engine_line
            self._engine_line = None
            self.write(f"Seat {seat + 1} {self._who(seat)} plays: {turn_to_text(played)}")

    def _human_step(self, seat: int) -> bool:
        """Show what is due and handle one line; False when the person leaves."""
        self._flush_engine_line()
        if self._human_turn is None:
            self._human_turn = ((self.game.state.round, seat), len(self.game.actions))
        if self._board_shown_to != seat:
            self._board_shown_to = seat
            self.write("")
            self.write(self._board(seat))
            self.write(f"Your turn, seat {seat + 1}.")
        self._show_menu(seat)
        line = self.read_line(f"seat {seat + 1}> ")
        if line is None:
            return False
        return self._command(seat, line.strip())

    def _show_menu(self, seat: int) -> None:
        stage = STAGE_WORDS.get(self.game.state.stage, "decide")
        self.write(f"{stage}:")
        for row in menu_lines(self.game.state, self.width):
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
            kind = rest.strip()
            if kind not in ("", "full", "compact"):
                self.write("Error: board, board full or board compact")
            else:
                self.write(self._board(seat, compact={"": None, "full": False, "compact": True}[kind]))
        elif word in ("hint", "h"):
            self._hint()
        elif word in ("undo", "u"):
            try:
                self.write(f"Took back {action_to_token(self.game.take_back())}.")
            except PalaisError as exc:
                self.write(f"Error: {exc}")
        elif word == "save":
            self._save(rest.strip())
        else:
            self._play_line(seat, line)
        return True

    def _board(self, seat, reveal: bool = False, compact: bool | None = None) -> str:
        """The board as `seat` sees it: compact if asked (here or by --compact), else the
        full one unless it is taller than the terminal."""
        state, names = self.game.state, self.game.names
        compact = self.compact if compact is None else compact
        full = None
        if not compact:
            full = draw_board(state, seat=seat, color=self.color, names=names, reveal=reveal)
            too_tall = self.height is not None and len(full.splitlines()) > self.height
            if compact is False or not too_tall:
                return full
        return draw_board(state, seat=seat, color=self.color, names=names, reveal=reveal, compact=True)

    def _hint(self) -> None:
        self.write("Thinking...")
        try:
            report = find_hints(self.game.state, self.hint_limits, top=3, seed=self.hint_seed)
        except PalaisError as exc:
            self.write(f"Error: {exc}")
            return
        except Exception as exc:        # a bug in the hint must not end the person's game
            self.write(f"Error: internal error in the hint ({type(exc).__name__}: {exc}); "
                       f"the game goes on (please report it)")
            return
        self.write("\n".join(wrap_lines(hint_lines(report, self.game.names), self.width)))

    def _save_headers(self) -> dict:
        """The headers a saved game adds: who the people are (so `palais hint` keeps the
        engines' cards hidden) and a plain warning to anyone who opens the file."""
        return {PEOPLE_HEADER: ",".join(str(q + 1) for q in self._humans()),
                "Hidden": "this file holds every seat's cards drawn, the engines' too, and "
                          "the draw secret: reading it shows their hands and the coming draws"}

    def _save(self, path: str) -> None:
        if not path:
            self.write("Error: save needs a file name: save FILE")
            return
        try:
            self.game.save(path, headers=self._save_headers())
        except PalaisError as exc:
            self.write(f"Error: {exc}")
            return
        self.write(f"Saved to {path}.")

    def _save_quietly(self) -> None:
        if self.autosave:
            try:
                self.game.save(self.autosave, headers=self._save_headers())
            except PalaisError as exc:
                self.write(f"Error: autosave failed: {exc}")

    def _play_line(self, seat: int, line: str) -> None:
        """Play the words of a line in order: each a token, or a number in the menu as it
        stands when that word comes (after the words before it were played). A word that
        cannot be played stops the line; the words before it stay played, and the error says
        which they were ("Played 1 (STAIRS-MINT); then 'end' is not legal here: ...")."""
        played = []                       # the words played so far, with their tokens

        def refuse(message: str) -> None:
            if played:
                self.write(f"Played {', '.join(played)}, which stays played; "
                           f"then {message}")
            else:
                self.write(f"Error: {message}")

        for i, word in enumerate(line.split(), 1):
            if self.game.over() or self.game.state.is_chance() or self.game.state.to_move != seat:
                refuse(f"your turn ended before word {i} '{word}': the rest is ignored")
                return
            legal = self.game.state.legal_actions()
            if word.isdigit():
                number = int(word)
                if not 1 <= number <= len(legal):
                    refuse(f"no action {number} in the menu (1..{len(legal)})"
                           + (f" at word {i}" if i > 1 else ""))
                    return
                action = legal[number - 1]
            else:
                try:
                    action = token_to_action(word)
                except NotationError as exc:
                    refuse(f"{exc} (type help for the commands)")
                    return
                if action not in legal:
                    refuse(f"'{word}' is not legal here: see the menu")
                    return
            token = action_to_token(action)
            played.append(word if word == token else f"{word} ({token})")
            self._play(action)

    def _play(self, action: int) -> None:
        seat = self.game.state.to_move
        self.game.play(action)
        if self.game.over() or self.game.state.to_move != seat:
            self._save_quietly()
        elif self.game.state.is_chance():
            self._announce_draws(self.game.draw_cards())

    def _finish(self) -> None:
        self._flush_engine_line()
        self._confirm_finished_turn()
        state = self.game.state
        self.write("")
        self.write(self._board(None, reveal=True))
        scores = state.scores()
        returns = state.returns()
        self.write("Game over. Final scores: " + ", ".join(
            f"seat {q + 1} {self._who(q)} {scores[q]} VP" for q in range(state.n_players)))
        self.write("\n".join(["Where the points came from:"] + breakdown_lines(
            state, [f"seat {q + 1} {self._who(q)}" for q in range(state.n_players)])))
        winners = [q for q in range(state.n_players) if returns[q] > 0]
        self.write("Winner: " + " and ".join(f"seat {q + 1} {self._who(q)}" for q in winners) + ".")
        self._save_quietly()
