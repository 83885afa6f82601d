"""A suggested turn, explained in a few plain words.

Hint mode ("palais hint/play/analyse") shows, beside each suggested turn, what the turn does
for the seat that plays it. Those words are made here from what the turn changes, by playing
it on a copy of the position and comparing before and after: nobles recruited, majorities
taken or lost, gold, seals for the next recruitment, cards played and drawn, park sides
contested. Only public information and the seat's own hand are used, so a seat's view
(`state.view(seat)`) gives the same words as the full state.

    turn_changes(state, actions, seat) -> ["recruits noble 25 (3 VP, Income(2))", "+1 gold"]
    explain(state, actions, seat)      -> "Recruits noble 25 (3 VP, Income(2)); +1 gold."
    explain(state, actions, seat, lang="fr")
                                       -> "Recrute le noble 25 (3 PV, Revenu(2)) ; +1 or."

Setup placements are explained in setup terms instead: which rooms the servants build up
and what each gives in the first turns (moves, gold, seals, cards, ...), and the majorities
held so far. `wrap_lines` fits any of these texts to a terminal, breaking only at spaces.

Every piece is a gettext message with named placeholders, English in the code and French and
Chinese in play/locale (play/i18n.py); `lang` picks the language, and English reads as the
msgids say, with the pieces named as the board names them (en's labels: "the Mint", "Honour";
a code such as MINT or HONOUR is notation, never a word for people). Plurals go through ngettext (French and Chinese count differently).

Plain Python: it runs once per hint, not inside a search.
"""

from __future__ import annotations

import textwrap

from engine.constants import (
    A_DRAW, A_GATE, A_MOVE, A_PLAY, A_RECRUIT, A_TAKE, BACKDOOR, CARDS, C_HONOUR,
    GATE, KING, MADAME, MINT, OFFICE, PARADE, PRIVILEGES, P_INCOME, P_NONE, P_SUPPLY, ROOMS,
    SIDES, STAIRS, S_DRAW, S_GAME_OVER, S_KING_BONUS, S_MADAME_BONUS, S_SETUP,
)
from common.words import and_list
from engine.notation import action_to_token

from .i18n import ROOM_IN_TEXT, piece_labels, translations


def N_(msgid: str) -> str:
    """Marks a msgid for extraction where it is translated later (gettext's convention)."""
    return msgid


def N_plural(singular: str, plural: str) -> tuple:
    """Marks a plural msgid (for ngettext later), as N_ marks a plain one."""
    return singular, plural


# The rooms whose majority gives a bonus (RULES.md §1); a majority anywhere else means nothing.
BONUS_ROOMS = (PARADE, STAIRS, MINT, KING, MADAME)
# The four park sides, in the order of constants.SIDES / SIDE_NAMES.
SIDE_WORDS = (N_("rank-1"), N_("rank-6"), N_("file-a"), N_("file-f"))
NO_CHANGE = N_("no change on the board")


class _Words:
    """The messages of one language, formatted: `w._("+{n} gold", n=2)`, `w.ngettext(...)`."""

    def __init__(self, lang: str):
        self.t = translations(lang)
        # English msgids are the codes; the pieces' English names are en's labels
        self.labels = piece_labels() if lang == "en" else None

    def _(self, msgid: str, **values) -> str:
        return self.t.gettext(msgid).format(**values)

    def ngettext(self, singular: str, plural: str, n: int, **values) -> str:
        return self.t.ngettext(singular, plural, n).format(n=n, **values)

    def room(self, room: int) -> str:
        """A room's name inside a sentence ("the Mint", "l'Hôtel de la monnaie")."""
        return (self.t if self.labels is None else self.labels).pgettext(ROOM_IN_TEXT, ROOMS[room])

    def name(self, kind: str, code: str) -> str:
        """A room, card or privilege (`kind`: "room", "card", "privilege") by itself, as the
        board labels it ("Honour", "Honneur", never the code HONOUR)."""
        return self.t.gettext(code) if self.labels is None else self.labels.pgettext(kind, code)

    def and_list(self, items) -> str:
        """"A", "A and B", "A, B and C" in this language."""
        return and_list(items, self.t.pgettext("list separator", ", "),
                        self.t.gettext("{items} and {last}"))

    def comma_list(self, items) -> str:
        """"A, B, C" in this language."""
        return self.t.pgettext("list separator", ", ").join(str(x) for x in items)


def _privilege(tile, w: _Words) -> str:
    name = w.name("privilege", PRIVILEGES[tile.privilege])
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


def _room_use(room: int, n: int, bonus: int, w: _Words) -> str:
    """What `n` own servants in `room` (+ `bonus` with its majority) give (RULES.md §3)."""
    if room == GATE:
        return w.ngettext("{n} servant to move up", "{n} servants to move up", n)
    if room == PARADE:
        return w.ngettext("{n} servant to the Gate a turn", "{n} servants to the Gate a turn",
                          n + bonus)
    if room == STAIRS:
        return w.ngettext("{n} move a turn", "{n} moves a turn", n + bonus)
    if room == MINT:
        return w._("+{n} gold a turn", n=n + bonus)
    if room == KING:
        return w.ngettext("{n} turquoise seal to recruit with",
                          "{n} turquoise seals to recruit with", n)
    if room == MADAME:
        return w.ngettext("{n} violet seal to recruit with", "{n} violet seals to recruit with", n)
    if room == OFFICE:
        return w.ngettext("{n} recruitment a turn", "{n} recruitments a turn", n)
    if room == BACKDOOR:
        return w.ngettext("{n} card drawn a turn", "{n} cards drawn a turn", n)
    return w._("wins tied majorities")           # CARDINAL


def setup_changes(state, actions, seat: int, lang: str = "en") -> list:
    """Phrases for setup placements: where the servants go and what those rooms then give in
    the first turns (majority bonus included), then the bonus-room majorities held so far."""
    w = _Words(lang)
    after_state = _play(state, actions, seat)[0]
    before, after = state.snapshot(), after_state.snapshot()
    majorities = _majorities(after_state)[seat]
    added = {r: after.rooms[seat][r] - before.rooms[seat][r] for r in range(len(ROOMS))}
    rooms = sorted((r for r in added if added[r] > 0), key=lambda r: (-added[r], r))
    if not rooms:
        return [w._(NO_CHANGE)]
    placed = [w._("{n} in {room} ({use})", n=added[r], room=w.room(r),
                  use=_room_use(r, after.rooms[seat][r], int(majorities.get(r, False)), w))
              for r in rooms]
    out = [w._("places {placements}", placements=w.and_list(placed))]
    held = [w.room(r) for r in BONUS_ROOMS if majorities[r]]
    if held and after_state.stage == S_SETUP:
        out.append(w._("majority in {rooms} so far (later seats still place)",
                       rooms=w.and_list(held)))
    elif held:
        out.append(w._("majority in {rooms} so far", rooms=w.and_list(held)))
    return out


# What a turn does to a park side, by verb: contests (not ahead), takes (now ahead), holds
# (was and is ahead); one message for one side and one for several said together.
SIDE_PHRASES = {
    "contests": N_plural("contests the {sides} side of the park ({servants} vs {best})",
                         "contests the {sides} sides of the park ({servants} vs {best})"),
    "takes": N_plural("takes the {sides} side of the park ({servants} vs {best})",
                      "takes the {sides} sides of the park ({servants} vs {best})"),
    "holds": N_plural("holds the {sides} side of the park ({servants} vs {best})",
                      "holds the {sides} sides of the park ({servants} vs {best})"),
}
# Seals gained, spent on a recruitment, or given up, per seal colour: (singular, plural).
SEAL_PHRASES = {
    (KING, "gains"): N_plural("gains {n} turquoise seal", "gains {n} turquoise seals"),
    (KING, "bonus"): N_plural("gains {n} turquoise seal (King's Chamber bonus)",
                              "gains {n} turquoise seals (King's Chamber bonus)"),
    (KING, "spends"): N_plural("spends {n} turquoise seal", "spends {n} turquoise seals"),
    (KING, "gives up"): N_plural("gives up {n} turquoise seal", "gives up {n} turquoise seals"),
    (MADAME, "gains"): N_plural("gains {n} violet seal", "gains {n} violet seals"),
    (MADAME, "bonus"): N_plural("gains {n} violet seal (Madame de Pompadour bonus)",
                                "gains {n} violet seals (Madame de Pompadour bonus)"),
    (MADAME, "spends"): N_plural("spends {n} violet seal", "spends {n} violet seals"),
    (MADAME, "gives up"): N_plural("gives up {n} violet seal", "gives up {n} violet seals"),
}
BONUS_TAKEN = {KING: N_("takes the King's Chamber bonus"), MADAME: N_("takes the Madame de Pompadour bonus")}


def turn_changes(state, actions, seat: int, lang: str = "en") -> list:
    """Short phrases for what `actions` (the rest of `seat`'s turn) change, most important first.

    `state` is a full state or a seat's view, at a decision of `seat`; it is not changed.
    Order: nobles recruited, majorities, gold, seals (with a KING / MADAME bonus taken),
    park sides, cards played and drawn, servants put on the GATE; if none of these, the
    servants moved, or "no change on the board". ValueError names an action that is not
    legal where it comes, or that comes after the seat's turn, or a language not in
    play.i18n.LANGUAGES.
    """
    w = _Words(lang)
    if state.stage == S_SETUP:
        return setup_changes(state, actions, seat, lang)
    after_state, recruited, played, gate, bonuses = _play(state, actions, seat)
    before, after = state.snapshot(), after_state.snapshot()
    tiles = state.components.tiles
    n = before.n_players
    out = []

    # Nobles: every tile the seat owns now and did not before, in the order recruited.
    new = [t for t in range(len(after.owner)) if after.owner[t] == seat and before.owner[t] != seat]
    new.sort(key=lambda t: recruited.index(t) if t in recruited else len(recruited))
    if new:
        extras = [w._("{vp} VP", vp=sum(tiles[t].vp for t in new))]
        extras += [_privilege(tiles[t], w) for t in new if tiles[t].privilege != P_NONE]
        out.append(w.ngettext("recruits noble {numbers} ({extras})",
                              "recruits nobles {numbers} ({extras})", len(new),
                              numbers=w.and_list([tiles[t].number for t in new]),
                              extras=w.comma_list(extras)))

    # Majorities in the rooms with a bonus, the seat's own first, then what it does to others.
    had, has = _majorities(state), _majorities(after_state)
    others = [q for q in range(n) if q != seat]
    for room in BONUS_ROOMS:
        name = w.room(room)
        was = [q for q in others if had[q][room]]
        now = [q for q in others if has[q][room]]
        if has[seat][room] and not had[seat][room]:
            out.append(w._("takes the majority in {room} from seat {seat}", room=name,
                           seat=was[0] + 1) if was else
                       w._("takes the majority in {room}", room=name))
        elif had[seat][room] and not has[seat][room]:
            out.append(w._("loses the majority in {room} to seat {seat}", room=name,
                           seat=now[0] + 1) if now else
                       w._("loses the majority in {room}", room=name))
        else:
            own = after.rooms[seat][room]
            best = max(after.rooms[q][room] for q in others)
            was_level = before.rooms[seat][room] >= max(before.rooms[q][room] for q in others)
            if not has[seat][room] and own > 0 and own == best and not was_level:
                out.append(w._("draws level in {room} ({n} each)", room=name, n=own))
        for q in others:
            if had[q][room] and not has[q][room] and not has[seat][room]:
                out.append(w._("breaks seat {seat}'s majority in {room}", seat=q + 1, room=name))
            elif has[q][room] and not had[q][room] and not had[seat][room]:
                out.append(w._("hands seat {seat} the majority in {room}", seat=q + 1, room=name))

    # Gold: the net change over the turn.
    gold = after.gold[seat] - before.gold[seat]
    if gold > 0:
        out.append(w._("+{n} gold", n=gold))
    elif gold < 0:
        out.append(w._("spends {n} gold", n=-gold) if new else w._("{n} gold", n=gold))

    # Seals: own servants in KING / MADAME pay the seals of the next recruitment (§3 step 4);
    # a KING / MADAME bonus taken is named here, or on its own if its seal was spent again.
    for room, colour in ((KING, "turquoise"), (MADAME, "violet")):
        d = after.rooms[seat][room] - before.rooms[seat][room]
        if d > 0:
            out.append(w.ngettext(*SEAL_PHRASES[room, "bonus" if room in bonuses else "gains"], d))
            bonuses = [b for b in bonuses if b != room]
        elif d < 0:
            paid = any(getattr(tiles[t], colour) for t in new)
            out.append(w.ngettext(*SEAL_PHRASES[room, "spends" if paid else "gives up"], -d))

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
        out.append(w.ngettext(*SIDE_PHRASES[verb], len(sides),
                              sides=w.and_list(w._(side) for side in sides),
                              servants=w.ngettext("{n} servant", "{n} servants", mine), best=best))

    # Cards: played (from the actions), drawn (hand growth, and a draw still to come).
    if played:
        honour_vp, cards = state.options.honour_vp, []
        for c in played:
            name = w.name("card", CARDS[c])
            cards.append(w._("{card} (+{vp} VP)", card=name, vp=honour_vp)
                         if c == C_HONOUR and honour_vp else name)
        out.append(w._("plays {cards}", cards=w.comma_list(cards)))
    drawn = after.hand_size[seat] - before.hand_size[seat] + len(played)
    if after_state.stage == S_DRAW and after.to_move == seat:
        drawn += after.draws_left
    if drawn > 0:
        out.append(w.ngettext("draws {n} card", "draws {n} cards", drawn))

    if gate:
        out.append(w.ngettext("puts {n} servant on the Gate", "puts {n} servants on the Gate",
                              gate))
    for room in bonuses:
        out.append(w._(BONUS_TAKEN[room]))

    if not out:
        moved = [f"{w.name('room', ROOMS[r])} {d:+d}" for r in range(len(ROOMS))
                 if (d := after.rooms[seat][r] - before.rooms[seat][r])]
        out.append(w._("moves servants ({moves})", moves=w.comma_list(moved)) if moved
                   else w._(NO_CHANGE))
    return out


def explain(state, actions, seat: int, lang: str = "en") -> str:
    """The phrases of turn_changes as one sentence: 'Takes the majority in the Mint; +2 gold.'"""
    w = _Words(lang)
    text = w.t.pgettext("phrase separator", "; ").join(turn_changes(state, actions, seat, lang))
    return w._("{phrases}.", phrases=text[0].upper() + text[1:])


def wrap_lines(lines, width: int) -> list:
    """Each line fitted to `width` columns, broken only at spaces (a word longer than the
    width stays whole), continuation lines indented as the line itself is."""
    out = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out += textwrap.wrap(line, width=max(width, len(indent) + 20), subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False) or [line]
    return out
