"""In-process games between players, with fair deals: the benchmark's and the tests' arena.

A deal seed fixes the tiles, the layout and the stream that decides every card drawn (the
public arena stream of engine/chance.py: the players here are our own code, each given only
its view), so the same deal replayed with the seats swapped gives both players the same luck. Each player
sees only its own view, except a player registered `sees_hidden` ("mcts", the cheating
reference), which is given the true state. A turn is played by search/turns.py, as the PRI
engine plays it: with decision_share > 0 (the default) a search at every decision, sharing
the turn's budget (search/timeman.py); with decision_share 0 one search at the first decision
and its best line to the turn's end, and where the line stops early (an unexpanded node) a
new search for the rest of the turn. The seat's own draw (step 5) starts a new budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.chance import ChanceStream
from engine.state import State

from .algorithms import algorithm
from .turns import choose_turn


@dataclass
class GameOutcome:
    deal_seed: int
    names: list          # per seat
    scores: list         # per seat
    returns: list        # per seat: 1/k for each of k winners
    turns: int
    searches: int
    gold: list = None    # per seat: the gold left unspent at the end


def _sees_hidden(name: str) -> bool:
    """True for a player registered to search the true state (the cheating reference)."""
    registered = algorithm(name)
    return registered is not None and registered.sees_hidden


def play_game(players, names, deal_seed: int, limits, max_searches: int = 100_000,
              on_turn=None) -> GameOutcome:
    """Play one game; players[q] sits in seat q and names[q] says which algorithm it is.
    `limits` is one SearchLimits for every seat, or a list of one per seat: the budget of a
    search, or of a whole turn for a player whose params have decision_share > 0 (the default).
    `on_turn(state)`, if given, sees the true state (not to be changed) before each search
    of a turn: its start, and again where a line stopped early (training samples positions
    this way)."""
    per_seat = list(limits) if isinstance(limits, (list, tuple)) else [limits] * len(players)
    state = State.new_game(len(players), seed=deal_seed)
    chance = ChanceStream.arena(deal_seed)
    turns = searches = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(chance.draw(state))
            continue
        seat = state.to_move
        if on_turn is not None:
            on_turn(state)
        actions, made = choose_turn(players[seat], state, seat, per_seat[seat],
                                    sees_all=_sees_hidden(names[seat]))
        searches += made
        if searches > max_searches:
            raise RuntimeError("the game did not end")
        apply_turn(state, seat, actions)
        if state.is_terminal() or state.to_move != seat:
            turns += 1
    return GameOutcome(deal_seed, list(names), state.scores(), state.returns(), turns, searches,
                       list(state.snapshot().gold))


def apply_turn(state, seat: int, actions) -> None:
    """Apply a chosen turn's actions to `state` for as long as they are `seat`'s legal
    decisions (a line may stop early, or meet a draw it did not plan)."""
    for action in actions:
        if state.is_terminal() or state.to_move != seat or state.is_chance() \
                or action not in state.legal_actions():
            break
        state.apply(action)


def play_on(state, players, chance: ChanceStream, limits):
    """A copy of `state` played to the end, players[q] choosing seat q's turns from its own
    view within `limits` a turn, the cards drawn from `chance`; the final state."""
    state = state.copy()
    while not state.is_terminal():
        if state.is_chance():
            state.apply(chance.draw(state))
            continue
        seat = state.to_move
        actions, _searches = choose_turn(players[seat], state, seat, limits)
        apply_turn(state, seat, actions)
    return state
