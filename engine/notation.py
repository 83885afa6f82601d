"""Text forms of the game: action tokens and turns here, positions and records beside.

- An **action token** names one action id, e.g. `MINT`, `gate3`, `MINT-KING`, `c4`, `!GOLD`,
  `?HONOUR`, `?`, `take`, `continue`, `end`, `decline`. Tokens and ids are in bijection; a
  room token means a setup placement or a source room, whichever the position asks for.
- A **turn** is tokens separated by whitespace; `apply_tokens` plays one on a state.
- A **position string** (like a chess FEN) is every field of a Snapshot as space-separated
  `key=value` fields after the version tag `pr1`, for a full state or one seat's view.

Position strings are written and read by engine/position.py (re-exported here), game records
(like PGN) by engine/record.py; docs/notation.md describes every form. Every reading error
raises NotationError saying where (token, field, seat, line) and why.
"""

from __future__ import annotations

import operator
import re

from common.numbers import natural

from .constants import (
    A_DRAW, A_DRAW_UNKNOWN, A_GATE, A_MOVE, A_PLAY, A_RECRUIT, A_ROOM, CARDS, KEYWORD_ACTIONS,
    MAX_GATE, N_ACTIONS, N_ROOMS, ROOM_INDEX, ROOMS, SQUARE_NAMES, decode_action,
)
from .errors import NotationError
# Position strings live in engine/position.py; they are part of this module's API too.
from .position import (
    FIELDS, TURN_COUNTERS, VERSION, parse_position, position_to_string, state_from_position,
)

# ======================================================================================
# Action tokens

CARD_INDEX = {name: i for i, name in enumerate(CARDS)}
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
KEYWORDS = {word: a for a, word in KEYWORD_ACTIONS.items()}

_ROOM_LIST = ", ".join(ROOMS)
_CARD_LIST = ", ".join(CARDS)
_TOKEN_FORMS = ("a room code, gate<k>, <ROOM>-<ROOM>, a square a1..f6, !<CARD>, ?<CARD>, ?, "
                "take, continue, end or decline")


class _TokenProblem(Exception):
    """Why a token cannot be read; `unknown` says whether it has no recognisable form at all."""

    def __init__(self, reason: str, unknown: bool):
        super().__init__(reason)
        self.reason = reason
        self.unknown = unknown


def action_to_token(action: int) -> str:
    """The canonical token of an action id (room and card codes upper case, the rest lower)."""
    try:
        a = operator.index(action)
    except TypeError:
        raise NotationError(f"action {action!r} is not an action id "
                            f"(an integer 0..{N_ACTIONS - 1})") from None
    if not 0 <= a < N_ACTIONS:
        raise NotationError(f"action {a} is not an action id (0..{N_ACTIONS - 1})")
    kind, x, y = decode_action(a)
    if kind == "room":
        return ROOMS[x]
    if kind == "gate":
        return f"gate{x}"
    if kind == "move":
        return f"{ROOMS[x]}-{ROOMS[y]}"
    if kind == "recruit":
        return SQUARE_NAMES[x]
    if kind == "play":
        return "!" + CARDS[x]
    if kind == "draw":
        return "?" + CARDS[x]
    if kind == "unknown draw":
        return "?"
    return kind


def _read_token(text: str) -> int:
    """The action id of one token (already stripped); raises _TokenProblem."""
    low, up = text.lower(), text.upper()
    if low in KEYWORDS:
        return KEYWORDS[low]
    if up in ROOM_INDEX:
        return A_ROOM + ROOM_INDEX[up]
    if low in SQUARE_INDEX:
        return A_RECRUIT + SQUARE_INDEX[low]
    if text == "?":
        return A_DRAW_UNKNOWN
    if text[0] in "!?":
        kind = "play" if text[0] == "!" else "draw"
        card = up[1:]
        if card not in CARD_INDEX:
            raise _TokenProblem(f"{text[1:]!r} is not a card (cards: {_CARD_LIST}); "
                                f"a {kind} is {text[0]}<CARD>", unknown=True)
        return (A_PLAY if kind == "play" else A_DRAW) + CARD_INDEX[card]
    m = re.fullmatch(r"gate([0-9]+)", low)
    if m:
        k = natural(m.group(1))
        if k > MAX_GATE:
            raise _TokenProblem(f"at most {MAX_GATE} servants (gate0..gate{MAX_GATE})", unknown=False)
        return A_GATE + k
    if "-" in text:
        ends = text.split("-")
        if len(ends) != 2:
            raise _TokenProblem("a move is <ROOM>-<ROOM>, with one '-'", unknown=True)
        for end in ends:
            if end.upper() not in ROOM_INDEX:
                what = "an empty room name" if not end else f"{end!r} is not a room"
                raise _TokenProblem(f"{what} (rooms: {_ROOM_LIST})", unknown=True)
        src, dst = (ROOM_INDEX[end.upper()] for end in ends)
        return A_MOVE + src * N_ROOMS + dst
    if re.fullmatch(r"[a-z][0-9]+", low):
        raise _TokenProblem(f"no square {low} on the park (squares a1..f6)", unknown=True)
    raise _TokenProblem(f"expected {_TOKEN_FORMS}", unknown=True)


def _check_one_token(token) -> str:
    if not isinstance(token, str):
        raise NotationError(f"a token is a string, got {token!r}")
    text = token.strip()
    if not text:
        raise NotationError("empty token")
    if any(ch.isspace() for ch in text):
        raise NotationError(f"{token!r} is several tokens (use parse_turn for a turn)")
    return text


def token_to_action(token: str) -> int:
    """The action id of a token (case-insensitive); NotationError saying why if unknown."""
    text = _check_one_token(token)
    try:
        return _read_token(text)
    except _TokenProblem as p:
        kind = "unknown token" if p.unknown else "bad token"
        raise NotationError(f"{kind} {text!r}: {p.reason}") from None


# ======================================================================================
# Turns

def turn_to_text(actions) -> str:
    """Tokens of the actions, separated by single spaces."""
    return " ".join(action_to_token(a) for a in actions)


def _turn_tokens(text: str) -> list[str]:
    if not isinstance(text, str):
        raise NotationError(f"a turn is a string of tokens, got {text!r}")
    return text.split()


def parse_turn(text: str) -> list[int]:
    """Action ids of whitespace-separated tokens; errors name the token (1-based) and why."""
    actions = []
    for i, tok in enumerate(_turn_tokens(text), start=1):
        try:
            actions.append(_read_token(tok))
        except _TokenProblem as p:
            raise NotationError(f"token {i} {tok!r}: {p.reason}") from None
    return actions


def legal_text(state) -> str:
    """The legal actions of a state as tokens, for messages."""
    legal = state.legal_actions()
    return turn_to_text(legal) if legal else "none, the game is over"


def apply_tokens(state, text: str) -> list[int]:
    """Apply a turn's tokens to `state` in place and return their action ids.

    Every token is checked first, in sequence on a copy; if one is unknown or not legal
    where it comes, NotationError names it and `state` is left unchanged.
    """
    tokens = _turn_tokens(text)
    actions = parse_turn(text)
    trial = state.copy()
    for i, (tok, a) in enumerate(zip(tokens, actions), start=1):
        if a not in trial.legal_actions():
            raise NotationError(f"token {i} {tok!r}: not legal here; legal: {legal_text(trial)}")
        trial.apply(a)
    for a in actions:
        state.apply(a)
    return actions


__all__ = ["action_to_token", "token_to_action", "turn_to_text", "parse_turn", "apply_tokens",
           "legal_text", "position_to_string", "parse_position", "state_from_position",
           "VERSION", "FIELDS", "TURN_COUNTERS"]
