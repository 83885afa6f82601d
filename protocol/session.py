"""From a PRI `position` command to the position the engine searches: the seat's view.

The engine plays for the seat to move at the end of the moves and knows only what that seat
knows (docs/protocol.md, "Whose eyes the engine has"). Two passes over the moves:

1. on the onlooker's view (every hand unknown) to find the seat to move at the end, which
   depends only on public information (RULES.md §10);
2. on that seat's view, where its own draws must name their card and other seats' draws are
   taken as unknown whatever the line says.

Every problem raises PositionError with a message naming the word or token at fault.
"""

from __future__ import annotations

from engine.components import ComponentSet, load_components
from engine.constants import A_DRAW, A_DRAW_UNKNOWN, CARDS, ROOM_INDEX, ROOMS
from engine.errors import NotationError, PalaisError
from engine.notation import state_from_position, token_to_action
from engine.options import RuleOptions
from engine.state import State

from .commands import PositionStart, PositionString


class PositionError(PalaisError):
    """A `position` command that names no playable position; says where and why."""


def _is_draw(action: int) -> bool:
    return A_DRAW <= action < A_DRAW + len(CARDS) or action == A_DRAW_UNKNOWN


def rule_options(pairs) -> RuleOptions:
    """RuleOptions from the text pairs of `position start ... options k=v,...`."""
    try:
        return RuleOptions.from_pairs(pairs)
    except PalaisError as exc:
        raise PositionError(f"options: {exc}") from None


def start_state(command, components: ComponentSet):
    """The state a `position` command starts from, before its moves."""
    if isinstance(command, PositionString):
        try:
            return state_from_position(command.text, components=components)
        except PalaisError as exc:
            raise PositionError(str(exc)) from None
    assert isinstance(command, PositionStart)
    if command.components is not None:
        try:
            components = load_components(command.components)
        except PalaisError as exc:
            raise PositionError(f"components: {exc}") from None
    layout = None
    if command.layout is not None:
        unknown = [r for r in command.layout if r.upper() not in ROOMS]
        if unknown:
            raise PositionError(f"layout: '{unknown[0]}' is not a room ({', '.join(ROOMS)})")
        layout = [ROOM_INDEX[r.upper()] for r in command.layout]
    deal = None
    if command.deal is not None:
        count = len(components.tiles)
        wrong = [number for number in command.deal if not 1 <= number <= count]
        if wrong:
            raise PositionError(f"deal: tile {wrong[0]} is not in the component set (tiles 1..{count})")
        deal = [number - 1 for number in command.deal]
    try:
        return State.new_game(command.players, seed=command.seed, components=components,
                              options=rule_options(command.options),
                              first_game=command.first_game, deal=deal, layout=layout)
    except PositionError:
        raise
    except PalaisError as exc:
        raise PositionError(str(exc)) from None


def _actions(tokens) -> list:
    out = []
    for i, token in enumerate(tokens, 1):
        try:
            out.append(token_to_action(token))
        except NotationError as exc:
            raise PositionError(f"moves: token {i}: {exc}") from None
    return out


def _apply(state, action: int, i: int, token: str) -> None:
    if action not in state.legal_actions():
        from engine.notation import legal_text
        raise PositionError(f"moves: token {i} '{token}' is not legal here (legal: {legal_text(state)})")
    state.apply(action)


def view_from_position(command, components: ComponentSet):
    """(the view of the seat to move after the moves, or None at the end, the seat)."""
    start = start_state(command, components)
    actions = _actions(command.moves)
    onlooker = start.public_view()                                   # pass 1
    for i, (token, action) in enumerate(zip(command.moves, actions), 1):
        if onlooker.is_terminal():
            raise PositionError(f"moves: token {i} '{token}' comes after the end of the game")
        _apply(onlooker, A_DRAW_UNKNOWN if _is_draw(action) else action, i, token)
    if onlooker.is_terminal():
        return None, None
    seat = onlooker.to_move
    if 0 <= start.observer != seat:
        raise PositionError(f"the position string is seat {start.observer + 1}'s view, but seat "
                            f"{seat + 1} is to move after the moves")
    view = start if start.observer == seat else start.view(seat)     # pass 2
    for i, (token, action) in enumerate(zip(command.moves, actions), 1):
        if _is_draw(action) and view.to_move != seat:
            action = A_DRAW_UNKNOWN
        elif action == A_DRAW_UNKNOWN:
            raise PositionError(f"moves: token {i} '?': seat {seat + 1} plays next, so its own "
                                f"draws must name their card (?GOLD, ?HONOUR, ...)")
        _apply(view, action, i, token)
    return view, seat
