"""The position drawn as plain text, for people: the protocol's `d` and the command line.

The castle's 3x3 rooms with each seat's servants, the 6x6 park with tile numbers and park
servants, then one line per seat (gold, play area, supply, hand, nobles, honours).
"""

from .constants import CARDS, PRIVILEGES, ROOMS, STAGES

SEAT_MARK = "ABCD"      # park servants and room counts are written per seat: A2 = seat 1, two


def _room_cell(snap, room: int) -> str:
    counts = " ".join(f"{SEAT_MARK[q]}{snap.rooms[q][room]}" for q in range(snap.n_players)
                      if snap.rooms[q][room])
    return f"{ROOMS[room]:<8} {counts or '-'}"


def board_lines(state) -> list:
    snap = state.snapshot()
    comps = state.components
    lines = [f"round {snap.round}, seat {snap.to_move + 1} to move, stage {STAGES[snap.stage]}"
             + (", last round" if snap.last_round else "")]
    width = max(len(_room_cell(snap, r)) for r in range(9)) + 2
    lines.append("castle (row 1 next to the park):")
    for row in range(3):
        cells = [_room_cell(snap, snap.layout[row * 3 + col]).ljust(width) for col in range(3)]
        lines.append("  " + "| ".join(cells).rstrip())
    lines.append("park (tile number, or the seat's servant on an empty square):")
    for rank in range(5, -1, -1):
        cells = []
        for file in range(6):
            sq = rank * 6 + file
            if snap.tile_at[sq] >= 0:
                cells.append(f"{comps.tiles[snap.tile_at[sq]].number:>3}")
            elif snap.park_servant[sq] >= 0:
                cells.append(f"{SEAT_MARK[snap.park_servant[sq]]:>3}")
            else:
                cells.append("  .")
        lines.append(f"  {rank + 1} " + " ".join(cells))
    lines.append("     a   b   c   d   e   f")
    for q in range(snap.n_players):
        nobles = [comps.tiles[t] for t, owner in enumerate(snap.owner) if owner == q]
        shown = ", ".join(f"{t.number}({t.vp}VP{'' if t.privilege == 0 else ' ' + PRIVILEGES[t.privilege]})"
                          for t in nobles) or "none"
        if snap.observer >= 0 and snap.observer != q:
            hand = f"{snap.hand_size[q]} hidden"
        else:
            hand = " ".join(f"{CARDS[c]}x{n}" for c, n in enumerate(snap.hand[q]) if n) or "empty"
        lines.append(f"seat {q + 1} ({SEAT_MARK[q]}): gold {snap.gold[q]}, play area {snap.area[q]}, "
                     f"supply {snap.supply[q]}, honours {snap.honours[q]}, hand {hand}; nobles: {shown}")
    lines.append(f"draw pile {snap.deck_size}, discard {sum(snap.discard)}")
    return lines
