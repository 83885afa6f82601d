"""The final score of each seat, source by source (RULES.md §7 "Final scoring").

The rules core (engine/_state.pyx final_scores) gives each seat's total only; the end of a
game in the browser and in the terminal shows where the points came from. This module
computes the same total from the same public facts, part by part, so the parts of a seat
always add up to `state.scores()` (tests/test_scoring.py checks it over many random games):

    nobles       the VP of every recruited noble tile
    honours      honour_vp (a rule option, 3) per HONOUR card played
    hand         1 VP per card still in hand, at most hand_vp_cap (a rule option, 6)
    park-rank1, park-rank6, park-filea, park-filef
                 each park side, scored among the servants on its six squares: the most
                 servants score the side's first value, the second most its second value
                 (the component set's park points, 8 and 4 by default); players tied for a
                 place share the points of the places they take up, rounded down.

Only public information is read (tiles' owners, honours, hand sizes, park servants), so a
seat's view or the public view gives the same breakdown as the full state.
"""

from __future__ import annotations

from dataclasses import dataclass

from .constants import SIDES

PARK_SOURCES = ("park-rank1", "park-rank6", "park-filea", "park-filef")   # constants.SIDES order
SOURCES = ("nobles", "honours", "hand") + PARK_SOURCES


@dataclass(frozen=True)
class SeatScore:
    seat: int                   # 0-based
    parts: tuple                # ((source, vp), ...) in SOURCES order
    total: int


def side_points(counts, points) -> list:
    """VP per seat for one park side: `counts` servants per seat there, `points` (first,
    second) the side's values; tied seats share the places they take up, rounded down."""
    counts = list(counts)
    out = [0] * len(counts)
    place = 0
    while place < len(points):
        best = max(counts, default=0)
        if best <= 0:
            break
        group = [q for q, c in enumerate(counts) if c == best]
        shared = sum(points[place:place + len(group)])
        for q in group:
            out[q] = shared // len(group)
            counts[q] = 0
        place += len(group)
    return out


def breakdown(state) -> list:
    """Each seat's SeatScore of `state` (any position: at the end, the final score)."""
    snap = state.snapshot()
    comps, options = state.components, state.options
    n = snap.n_players
    nobles = [0] * n
    for t, owner in enumerate(snap.owner):
        if owner >= 0:
            nobles[owner] += comps.tiles[t].vp
    park = []
    for squares, points in zip(SIDES, comps.park_points):
        counts = [0] * n
        for sq in squares:
            if snap.park_servant[sq] >= 0:
                counts[snap.park_servant[sq]] += 1
        park.append(side_points(counts, points))
    out = []
    for q in range(n):
        parts = (("nobles", nobles[q]), ("honours", options.honour_vp * snap.honours[q]),
                 ("hand", min(snap.hand_size[q], options.hand_vp_cap)))
        parts += tuple((source, side[q]) for source, side in zip(PARK_SOURCES, park))
        out.append(SeatScore(q, parts, sum(vp for _, vp in parts)))
    return out


def breakdown_lines(state, names=None) -> list:
    """The breakdown as text lines for a terminal, one per seat (English)."""
    lines = []
    for score in breakdown(state):
        name = names[score.seat] if names else f"seat {score.seat + 1}"
        parts = ", ".join(f"{source} {vp}" for source, vp in score.parts if vp)
        lines.append(f"  {name}: {score.total} VP ({parts or 'nothing'})")
    return lines
