# The board as a person playing in a terminal sees it. engine/board_text.py is the compact
# plain dump the protocol's `d` command prints; this one is drawn for play: boxed castle rooms,
# a park that shows every tile's cost, points and privilege, one block per seat, the looking
# seat's own cards (and nobody else's), and colour per seat that degrades to plain marks
# (A B C D) when the terminal has none. Everything fits in WIDTH columns.
"""The board drawn for a person playing in a terminal (`draw_board`, `want_color`)."""

from __future__ import annotations

import os
import textwrap

import click

from common.words import plural
from engine.constants import CARDS, P_INCOME, P_NONE, P_SUPPLY, ROOMS, SOURCE_PARK, STAGES

WIDTH = 100                                   # no line is wider (ANSI codes not counted)
SEAT_MARK = "ABCD"
SEAT_COLOUR = ("red", "bright_blue", "green", "yellow")
PRIV_ABBR = ("", "INC", "SUP", "MOV", "REI", "TUR", "VIO", "SEC", "CRD", "FAV")
LEGEND = (
    "tiles: #number VP / cost (g gold, t turquoise, v violet) privilege; [A] servant, . empty",
    "privileges: INCn +n gold a turn, SUPn n servants once, MOV +1 move, REI +1 parade, "
    "TUR/VIO +1 seal,",
    "            SEC +1 recruitment, CRD +1 card, FAV +2 cardinal weight",
)
STAGE_WORDS = {
    "SETUP": "placing starting servants",
    "TURN_START": "start of the turn",
    "WINDOW1": "card window before step 1 (parade ground)",
    "STEP1": "step 1: parade ground",
    "GATE_PLACE": "step 1: servants to the GATE",
    "WINDOW2": "card window before step 2 (stairway)",
    "STEP2": "step 2: stairway",
    "MOVES": "step 2: moving servants",
    "WINDOW3": "card window before step 3 (rooms)",
    "STEP3": "step 3: rooms",
    "KING_BONUS": "step 3: take the KING majority bonus?",
    "MADAME_BONUS": "step 3: take the MADAME majority bonus?",
    "WINDOW4": "card window before step 4 (recruiting)",
    "STEP4": "step 4: recruiting",
    "RECRUIT": "step 4: recruiting nobles",
    "SOURCE": "choosing where a servant comes from",
    "STEP5": "step 5: back door",
    "DRAW": "step 5: drawing cards",
    "WINDOW5": "card window at the end of the turn",
    "TURN_END": "end of the turn",
    "GAME_OVER": "game over",
}

ROOM_BOX = 18          # inner width of a castle box
NBSP = "\xa0"          # a space textwrap does not break at ("GUARDS x2" stays whole)
NAME_MAX = 24          # display names are cut to this
PARK_CELL = 14         # inner width of a park cell: (WIDTH - 4 - 7) // 6


def want_color(flag: bool | None, stream) -> bool:
    """Colour or not: an explicit --color/--no-color wins; else none under NO_COLOR, on a
    dumb terminal or when `stream` is not a terminal."""
    if flag is not None:
        return bool(flag)
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class _Paint:
    """Seat marks and emphasis, in colour or as plain text."""

    def __init__(self, color: bool, to_move: int):
        self.color = color
        self.to_move = to_move

    def seat(self, q: int, text: str) -> str:
        if not self.color:
            return text
        return click.style(text, fg=SEAT_COLOUR[q], bold=True if q == self.to_move else None)

    def bold(self, text: str) -> str:
        return click.style(text, bold=True) if self.color else text

    def dim(self, text: str) -> str:
        return click.style(text, dim=True) if self.color else text


def _visible(text: str) -> int:
    return len(click.unstyle(text))


def _pad(text: str, width: int) -> str:
    """Left-justify `text` to `width` visible columns (clipped if longer and plain)."""
    if _visible(text) > width and text == click.unstyle(text):
        text = text[:width]
    return text + " " * max(0, width - _visible(text))


def _name(q: int, names) -> str:
    if names and q < len(names) and names[q]:
        return f"seat {q + 1} ({str(names[q])[:NAME_MAX]})"
    return f"seat {q + 1}"


def cost_text(tile) -> str:
    """A tile's cost, e.g. "3g1t" (zero parts left out; "free" if it costs nothing)."""
    parts = [f"{n}{unit}" for n, unit in ((tile.gold, "g"), (tile.turquoise, "t"), (tile.violet, "v")) if n]
    return "".join(parts) or "free"


def privilege_text(tile) -> str:
    """A tile's privilege abbreviated, with its amount where it has one ("INC2", "MOV", "")."""
    if tile.privilege == P_NONE:
        return ""
    amount = tile.amount if tile.privilege in (P_INCOME, P_SUPPLY) else ""
    return f"{PRIV_ABBR[tile.privilege]}{amount}"


# --- header ------------------------------------------------------------------------------

def _stage_detail(snap) -> str:
    name = STAGES[snap.stage]
    if name == "GATE_PLACE":
        return f"{snap.gate_left} to place"
    if name == "MOVES":
        return f"{plural(snap.moves_left, 'move')} left"
    if name == "DRAW":
        return f"{snap.draws_left} to draw"
    if name == "SOURCE":
        return "for the park" if snap.source_for == SOURCE_PARK else f"for {ROOMS[snap.source_for]}"
    return ""


def _header(snap, paint, names) -> list:
    stage = STAGE_WORDS.get(STAGES[snap.stage], STAGES[snap.stage].lower())
    detail = _stage_detail(snap)
    mover = paint.seat(snap.to_move, f"{SEAT_MARK[snap.to_move]} {_name(snap.to_move, names)}")
    parts = ["Setup" if snap.round == 0 else f"Round {snap.round}", mover + " to move",
             stage + (f" ({detail})" if detail else "")]
    if snap.last_round:
        parts.append(paint.bold("LAST ROUND"))
    lines = [parts[0]]
    for part in parts[1:]:          # " | " between parts, a new line when one would not fit
        if _visible(lines[-1]) + 3 + _visible(part) <= WIDTH:
            lines[-1] += " | " + part
        else:
            lines.append("  " + part)
    return lines


# --- castle ------------------------------------------------------------------------------

def _room_counts(snap, room: int, paint) -> str:
    parts = []
    for q in range(snap.n_players):
        n = snap.rooms[q][room]
        text = f"{SEAT_MARK[q]}{n}"
        parts.append(paint.seat(q, text) if n else paint.dim(text))
    return " ".join(parts)


def _castle(snap, paint) -> list:
    rule = "      " + ("+" + "-" * (ROOM_BOX + 2)) * 3 + "+"
    lines = ["Castle (row 1 is next to the park)", rule]
    for row in (2, 1, 0):
        rooms = [snap.layout[row * 3 + col] for col in range(3)]
        lines.append(f"row {row + 1} | " + " | ".join(_pad(ROOMS[r], ROOM_BOX) for r in rooms) + " |")
        counts = [_pad(_room_counts(snap, r, paint), ROOM_BOX) for r in rooms]
        lines.append("      | " + " | ".join(counts) + " |")
        lines.append(rule)
    return lines


# --- park --------------------------------------------------------------------------------

def _park_cell(snap, comps, sq: int, paint) -> tuple:
    """The two lines of one park square."""
    t = snap.tile_at[sq]
    if t >= 0:
        tile = comps.tiles[t]
        return f"#{tile.number} {tile.vp}VP", f"{cost_text(tile)} {privilege_text(tile)}".rstrip()
    q = snap.park_servant[sq]
    if q >= 0:
        return paint.seat(q, f"[{SEAT_MARK[q]}]"), ""
    return ".", ""


def _park(snap, comps, paint) -> list:
    rule = "    " + ("+" + "-" * PARK_CELL) * 6 + "+"
    files = "    " + "".join(" " + _pad(f, PARK_CELL) for f in "abcdef")
    lines = ["Park (rank 1 is next to the castle)", files.rstrip(), rule]
    for rank in range(6):
        cells = [_park_cell(snap, comps, rank * 6 + file, paint) for file in range(6)]
        for part, label in ((0, f" {rank + 1}  "), (1, "    ")):
            lines.append(label + "|" + "|".join(_pad(c[part], PARK_CELL) for c in cells) + "|")
        lines.append(rule)
    return lines + list(LEGEND)


# --- seats -------------------------------------------------------------------------------

def _hand_text(snap, q: int, seat, reveal: bool = False) -> str:
    size = snap.hand_size[q]
    shown = (reveal or q == seat) and snap.observer in (-1, q)
    if not shown or size == 0:
        return f"hand {plural(size, 'card')}"
    cards = ", ".join(CARDS[c] + (f"{NBSP}x{n}" if n > 1 else "") for c, n in enumerate(snap.hand[q]) if n)
    return f"hand {size}: {cards}"


def _nobles_text(snap, comps, q: int) -> str:
    tiles = [comps.tiles[t] for t, owner in enumerate(snap.owner) if owner == q]
    if not tiles:
        return "nobles: none"
    listed = " ".join(f"#{t.number}" + (f"({privilege_text(t)})" if t.privilege else "") for t in tiles)
    return f"nobles {len(tiles)} ({sum(t.vp for t in tiles)} VP): {listed}"


def _privileges_text(state, q: int) -> str:
    """The privileges seat q holds (state.privileges: per code, tiles held; INCOME: gold)."""
    held = []
    for code, count in enumerate(state.privileges(q)):
        if code == P_NONE or not count:
            continue
        if code == P_INCOME:
            held.append(f"INC+{count}")
        else:
            held.append(PRIV_ABBR[code] + (f"{NBSP}x{count}" if count > 1 else ""))
    return "privileges: " + " ".join(held) if held else ""


def _wrap(prefix: str, body: str, indent: int) -> list:
    """`prefix` (maybe coloured) then `body` wrapped to WIDTH, continuation lines indented;
    NBSP in `body` holds words together and is drawn as a plain space."""
    placeholder = "\0" * _visible(prefix)
    lines = textwrap.wrap(body, width=WIDTH, initial_indent=placeholder,
                          subsequent_indent=" " * indent, break_on_hyphens=False)
    lines[0] = prefix + lines[0][len(placeholder):]
    return [line.replace(NBSP, " ") for line in lines]


def _seat_block(state, snap, comps, q: int, seat, names, paint, reveal) -> list:
    pointer = ">" if q == snap.to_move else " "
    prefix = paint.seat(q, f"{pointer} {SEAT_MARK[q]} {_name(q, names)}") + ": "
    first = (f"gold {snap.gold[q]}, play area {snap.area[q]}, supply {snap.supply[q]}, "
             f"honours {snap.honours[q]}, {_hand_text(snap, q, seat, reveal)}")
    nobles, privileges = _nobles_text(snap, comps, q), _privileges_text(state, q)
    if privileges and 6 + len(nobles) + 2 + len(privileges) <= WIDTH:
        nobles, privileges = f"{nobles}; {privileges}", ""
    lines = _wrap(prefix, first, 6) + _wrap(" " * 6, nobles, 8)
    return lines + (_wrap(" " * 6, privileges, 8) if privileges else [])


def _seats(state, snap, comps, seat, names, paint, reveal) -> list:
    lines = ["Players"]
    for q in range(snap.n_players):
        lines += _seat_block(state, snap, comps, q, seat, names, paint, reveal)
    lines.append(f"draw pile {snap.deck_size}, discard {sum(snap.discard)}")
    return lines


# --- the compact board: the same facts in at most COMPACT_LINES lines ----------------------

COMPACT_LINES = 24          # the board never takes more (4 seats with long names included);
                            # with 2 seats it leaves room for the menu on a 24-line terminal
COMPACT_ROOM = 30           # a castle room and its counts, "MADAME    A0 B1 C0 D0"
COMPACT_CELL = 15           # a park square, "28:2 4g1t2vSUP5" at the longest


def _compact_castle(snap, paint) -> list:
    lines = ["Castle (row 1 is next to the park): servants per seat in each room"]
    for row in (2, 1, 0):
        rooms = [snap.layout[row * 3 + col] for col in range(3)]
        cells = [_pad(f"{ROOMS[r]:<9}{_room_counts(snap, r, paint)}", COMPACT_ROOM) for r in rooms]
        lines.append((f"  row {row + 1}  " + "| ".join(cells)).rstrip())
    return lines


def _compact_square(snap, comps, sq: int, paint) -> str:
    t = snap.tile_at[sq]
    if t >= 0:
        tile = comps.tiles[t]
        text = f"{tile.number}:{tile.vp} {cost_text(tile)} {privilege_text(tile)}".rstrip()
        return text if len(text) <= COMPACT_CELL else text[::-1].replace(" ", "", 1)[::-1]
    q = snap.park_servant[sq]
    return paint.seat(q, f"[{SEAT_MARK[q]}]") if q >= 0 else "."


def _compact_park(snap, comps, paint) -> list:
    lines = ["Park (rank 1 is next to the castle): number:VP cost privilege, [A] servant, . empty",
             "    " + "".join(_pad(f, COMPACT_CELL + 1) for f in "abcdef").rstrip()]
    for rank in range(6):
        cells = [_pad(_compact_square(snap, comps, rank * 6 + f, paint), COMPACT_CELL) for f in range(6)]
        lines.append(f" {rank + 1} |" + "|".join(cells) + "|")
    return lines


def _compact_seat(state, snap, comps, q: int, seat, names, paint, reveal) -> list:
    pointer = ">" if q == snap.to_move else " "
    prefix = paint.seat(q, f"{pointer} {SEAT_MARK[q]} {_name(q, names)}") + ": "
    tiles = [comps.tiles[t] for t, owner in enumerate(snap.owner) if owner == q]
    nobles = f"nobles {len(tiles)} ({sum(t.vp for t in tiles)} VP)"
    held = _privileges_text(state, q)
    body = (f"gold {snap.gold[q]}, area {snap.area[q]}, supply {snap.supply[q]}, "
            f"honours {snap.honours[q]}, {_hand_text(snap, q, seat, reveal)}; {nobles}"
            + (f"; {held}" if held else ""))
    return _wrap(prefix, body, 6)


def _compact(state, snap, comps, seat, names, paint, reveal) -> list:
    lines = _header(snap, paint, names) + _compact_castle(snap, paint) + _compact_park(snap, comps, paint)
    for q in range(snap.n_players):
        lines += _compact_seat(state, snap, comps, q, seat, names, paint, reveal)
    lines.append(f"draw pile {snap.deck_size}, discard {sum(snap.discard)}  "
                 f"(the full board explains the abbreviations)")
    return lines


# --- the whole board ---------------------------------------------------------------------

def draw_board(state, seat: int | None = None, color: bool = False, names=None,
               reveal: bool = False, compact: bool = False) -> str:
    """The position drawn for a terminal, seen by `seat` (whose own cards alone are listed).

    `state` is a full state or a seat's view; `names` optional display names per seat;
    `color` adds ANSI colours per seat (none at all when False); `reveal` lists every hand
    the state knows (a full state's all, a view's own only), as at the end of a game;
    `compact` draws the same in at most COMPACT_LINES lines (for a short terminal)."""
    snap = state.snapshot()
    comps = state.components
    paint = _Paint(color, snap.to_move)
    if compact:
        return "\n".join(_compact(state, snap, comps, seat, names, paint, reveal))
    lines = (_header(snap, paint, names) + [""] + _castle(snap, paint) + [""]
             + _park(snap, comps, paint) + [""] + _seats(state, snap, comps, seat, names, paint, reveal))
    return "\n".join(lines)

