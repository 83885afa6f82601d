"""A suggested turn, explained in a few plain words.

Hint mode ("palais hint/play/analyse") shows, beside each suggested turn, what the turn does
for the seat that plays it. Those words are made here from what the turn changes, by playing
it on a copy of the position and comparing before and after: nobles recruited, majorities
taken or lost, gold, seals for the next recruitment, cards played and drawn, park sides
contested. Only public information and the seat's own hand are used, so a seat's view
(`state.view(seat)`) gives the same words as the full state.

    turn_changes(state, actions, seat) -> ["recruits noble 25 (3 VP, INCOME(2))", "+1 gold"]
    explain(state, actions, seat)      -> "Recruits noble 25 (3 VP, INCOME(2)); +1 gold."

Setup placements are explained in setup terms instead: which rooms the servants build up
and what each gives in the first turns (moves, gold, seals, cards, ...), and the majorities
held so far. `wrap_lines` fits any of these texts to a terminal, breaking only at spaces.

Plain Python: it runs once per hint, not inside a search.
"""

from __future__ import annotations

import textwrap

from engine.constants import (
    A_DRAW, A_GATE, A_MOVE, A_PLAY, A_RECRUIT, A_TAKE, BACKDOOR, CARDS, C_HONOUR,
    GATE, KING, MADAME, MINT, OFFICE, PARADE, PRIVILEGES, P_INCOME, P_NONE, P_SUPPLY, ROOMS,
    SIDES, STAIRS, S_DRAW, S_GAME_OVER, S_KING_BONUS, S_MADAME_BONUS, S_SETUP,
)
from engine.notation import action_to_token
from engine.words import and_list, plural

# The rooms whose majority gives a bonus (RULES.md §1); a majority anywhere else means nothing.
BONUS_ROOMS = (PARADE, STAIRS, MINT, KING, MADAME)
# The four park sides, in the order of constants.SIDES / SIDE_NAMES.
SIDE_WORDS = ("rank-1", "rank-6", "file-a", "file-f")
NO_CHANGE = "no change on the board"


def _privilege(tile) -> str:
    name = PRIVILEGES[tile.privilege]
    return f"{name}({tile.amount})" if tile.privilege in (P_INCOME, P_SUPPLY) else name


def _on_side(snap, squares, q: int) -> int:
    return sum(1 for sq in squares if snap.park_servant[sq] == q)


def _majorities(state) -> list:
    """[seat][room] -> has the majority, as a standing fact (an INTRIGUE lasts one turn only)."""
    snap = state.snapshot()
    if snap.intrigue:
        # without the INTRIGUE the game might not wait at this stage (a KING bonus it gave):
        # the copy is asked about majorities only, so it is put where any position waits
        snap.intrigue = 0
        snap.stage = S_GAME_OVER
        state = type(state).from_snapshot(snap, components=state.components, options=state.options)
    return [{room: state.has_majority(q, room) for room in BONUS_ROOMS}
            for q in range(snap.n_players)]


def _play(state, actions, seat):
    """The copy after the actions, with what the actions themselves say (ValueError if illegal)."""
    if state.is_terminal() or state.to_move != seat:
        raise ValueError(f"it is not seat {seat + 1}'s turn")
    after = state.copy()
    turn = (state.round, seat)            # a round can pass unseen if no one else has a decision
    recruited, played, gate, bonuses = [], [], 0, []
    for i, a in enumerate(actions):
        token = action_to_token(a)        # NotationError (a ValueError) for a non-action
        if after.is_terminal() or (after.round, after.to_move) != turn:
            raise ValueError(f"action {i + 1} ({token}) comes after seat {seat + 1}'s turn")
        if a not in after.legal_actions():
            raise ValueError(f"action {i + 1} ({token}) is not legal here")
        if A_RECRUIT <= a < A_PLAY:
            recruited.append(after.snapshot().tile_at[a - A_RECRUIT])
        elif A_PLAY <= a < A_DRAW:
            played.append(a - A_PLAY)
        elif A_GATE <= a < A_MOVE:
            gate += a - A_GATE
        elif a == A_TAKE and after.stage in (S_KING_BONUS, S_MADAME_BONUS):
            bonuses.append(KING if after.stage == S_KING_BONUS else MADAME)
        after.apply(a)
    return after, recruited, played, gate, bonuses


def _room_use(room: int, n: int, bonus: int) -> str:
    """What `n` own servants in `room` (+ `bonus` with its majority) give (RULES.md §3)."""
    if room == GATE:
        return f"{plural(n, 'servant')} to move up"
    if room == PARADE:
        return f"{plural(n + bonus, 'servant')} to the GATE a turn"
    if room == STAIRS:
        return f"{plural(n + bonus, 'move')} a turn"
    if room == MINT:
        return f"+{n + bonus} gold a turn"
    if room in (KING, MADAME):
        return f"{plural(n, ('turquoise' if room == KING else 'violet') + ' seal')} to recruit with"
    if room == OFFICE:
        return f"{plural(n, 'recruitment')} a turn"
    if room == BACKDOOR:
        return f"{plural(n, 'card')} drawn a turn"
    return "wins tied majorities"           # CARDINAL


def setup_changes(state, actions, seat: int) -> list:
    """Phrases for setup placements: where the servants go and what those rooms then give in
    the first turns (majority bonus included), then the bonus-room majorities held so far."""
    after_state = _play(state, actions, seat)[0]
    before, after = state.snapshot(), after_state.snapshot()
    majorities = _majorities(after_state)[seat]
    added = {r: after.rooms[seat][r] - before.rooms[seat][r] for r in range(len(ROOMS))}
    rooms = sorted((r for r in added if added[r] > 0), key=lambda r: (-added[r], r))
    if not rooms:
        return [NO_CHANGE]
    placed = [f"{added[r]} in {ROOMS[r]} ({_room_use(r, after.rooms[seat][r], int(majorities.get(r, False)))})"
              for r in rooms]
    out = ["places " + and_list(placed)]
    held = [ROOMS[r] for r in BONUS_ROOMS if majorities[r]]
    if held:
        out.append(f"majority in {and_list(held)} so far"
                   + (" (later seats still place)" if after_state.stage == S_SETUP else ""))
    return out


def turn_changes(state, actions, seat: int) -> list:
    """Short phrases for what `actions` (the rest of `seat`'s turn) change, most important first.

    `state` is a full state or a seat's view, at a decision of `seat`; it is not changed.
    Order: nobles recruited, majorities, gold, seals (with a KING / MADAME bonus taken),
    park sides, cards played and drawn, servants put on the GATE; if none of these, the
    servants moved, or "no change on the board". ValueError names an action that is not
    legal where it comes, or that comes after the seat's turn.
    """
    if state.stage == S_SETUP:
        return setup_changes(state, actions, seat)
    after_state, recruited, played, gate, bonuses = _play(state, actions, seat)
    before, after = state.snapshot(), after_state.snapshot()
    tiles = state.components.tiles
    n = before.n_players
    out = []

    # Nobles: every tile the seat owns now and did not before, in the order recruited.
    new = [t for t in range(len(after.owner)) if after.owner[t] == seat and before.owner[t] != seat]
    new.sort(key=lambda t: recruited.index(t) if t in recruited else len(recruited))
    if new:
        numbers = and_list([tiles[t].number for t in new])
        extras = [f"{sum(tiles[t].vp for t in new)} VP"]
        extras += [_privilege(tiles[t]) for t in new if tiles[t].privilege != P_NONE]
        noun = "noble" if len(new) == 1 else "nobles"
        out.append(f"recruits {noun} {numbers} ({', '.join(extras)})")

    # Majorities in the rooms with a bonus, the seat's own first, then what it does to others.
    had, has = _majorities(state), _majorities(after_state)
    others = [q for q in range(n) if q != seat]
    for room in BONUS_ROOMS:
        name = ROOMS[room]
        was = [q for q in others if had[q][room]]
        now = [q for q in others if has[q][room]]
        if has[seat][room] and not had[seat][room]:
            out.append(f"takes the majority in {name}"
                       + (f" from seat {was[0] + 1}" if was else ""))
        elif had[seat][room] and not has[seat][room]:
            out.append(f"loses the majority in {name}"
                       + (f" to seat {now[0] + 1}" if now else ""))
        else:
            own = after.rooms[seat][room]
            best = max(after.rooms[q][room] for q in others)
            was_level = before.rooms[seat][room] >= max(before.rooms[q][room] for q in others)
            if not has[seat][room] and own > 0 and own == best and not was_level:
                out.append(f"draws level in {name} ({own} each)")
        for q in others:
            if had[q][room] and not has[q][room] and not has[seat][room]:
                out.append(f"breaks seat {q + 1}'s majority in {name}")
            elif has[q][room] and not had[q][room] and not had[seat][room]:
                out.append(f"hands seat {q + 1} the majority in {name}")

    # Gold: the net change over the turn.
    gold = after.gold[seat] - before.gold[seat]
    if gold > 0:
        out.append(f"+{gold} gold")
    elif gold < 0:
        out.append(f"spends {-gold} gold" if new else f"{gold} gold")

    # Seals: own servants in KING / MADAME pay the seals of the next recruitment (§3 step 4);
    # a KING / MADAME bonus taken is named here, or on its own if its seal was spent again.
    for room, colour in ((KING, "turquoise"), (MADAME, "violet")):
        d = after.rooms[seat][room] - before.rooms[seat][room]
        if d > 0:
            bonus = f" ({ROOMS[room]} bonus)" if room in bonuses else ""
            out.append(f"gains {plural(d, colour + ' seal')}{bonus}")
            bonuses = [b for b in bonuses if b != room]
        elif d < 0:
            paid = any(getattr(tiles[t], colour) for t in new)
            out.append(f"{'spends' if paid else 'gives up'} {plural(-d, colour + ' seal')}")

    # Park sides (§7): where the seat put servants, who leads there now. Sides that read
    # alike are said together: "takes the rank-1 and file-a sides of the park (1 servant vs 0)".
    said = {}
    for side, squares in enumerate(SIDES):
        mine, mine_before = _on_side(after, squares, seat), _on_side(before, squares, seat)
        if mine <= mine_before:
            continue
        best = max(_on_side(after, squares, q) for q in others)
        best_before = max(_on_side(before, squares, q) for q in others)
        verb = "contests" if mine <= best else "holds" if mine_before > best_before else "takes"
        said.setdefault((verb, mine, best), []).append(SIDE_WORDS[side])
    for (verb, mine, best), sides in said.items():
        what = f"the {and_list(sides)} side" + ("s" if len(sides) > 1 else "")
        out.append(f"{verb} {what} of the park ({plural(mine, 'servant')} vs {best})")

    # Cards: played (from the actions), drawn (hand growth, and a draw still to come).
    if played:
        honour = f" (+{state.options.honour_vp} VP)" if state.options.honour_vp else ""
        out.append("plays " + ", ".join(CARDS[c] + (honour if c == C_HONOUR else "")
                                        for c in played))
    drawn = after.hand_size[seat] - before.hand_size[seat] + len(played)
    if after_state.stage == S_DRAW and after.to_move == seat:
        drawn += after.draws_left
    if drawn > 0:
        out.append(f"draws {plural(drawn, 'card')}")

    if gate:
        out.append(f"puts {plural(gate, 'servant')} on the GATE")
    for room in bonuses:
        out.append(f"takes the {ROOMS[room]} bonus")

    if not out:
        moved = [f"{ROOMS[r]} {d:+d}" for r in range(len(ROOMS))
                 if (d := after.rooms[seat][r] - before.rooms[seat][r])]
        out.append(f"moves servants ({', '.join(moved)})" if moved else NO_CHANGE)
    return out


def explain(state, actions, seat: int) -> str:
    """The phrases of turn_changes as one sentence: 'Takes the majority in MINT; +2 gold.'"""
    text = "; ".join(turn_changes(state, actions, seat))
    return text[0].upper() + text[1:] + "."


def wrap_lines(lines, width: int) -> list:
    """Each line fitted to `width` columns, broken only at spaces (a word longer than the
    width stays whole), continuation lines indented as the line itself is."""
    out = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out += textwrap.wrap(line, width=max(width, len(indent) + 20), subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False) or [line]
    return out
