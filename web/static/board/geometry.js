// Where things go on the board, for its two layouts: "wide" (the castle and park beside
// the seats' panels, for screens wider than tall) and "tall" (everything stacked, for a phone
// in portrait: the board scales to the width, so its targets keep 40 px and more).

export const SEAT_LETTERS = ["A", "B", "C", "D"];
export const SEAT_COLOURS = ["#b03a2e", "#1f5f99", "#1e7a46", "#8a4fa3"];

const CASTLE = { x: 10, y: 8, w: 140, h: 80 };
const PARK = { x: 10, y: 272, cell: 70 };

export function geometry(kind, nPlayers) {
  const n = Math.max(1, nPlayers || 2);
  if (kind === "tall") {
    // (the panels' heights follow their content: panels.h is the least one)
    const legend = { x: 10, y: 702, w: 420, chipW: 100, chipH: 24, perRow: 4 };
    const panels = { x: 10, y: 702 + 226, w: 420, h: 150, gap: 8, grow: true };
    return {
      kind, w: 440, h: panels.y + n * (panels.h + panels.gap), castle: CASTLE, park: PARK, legend, panels,
      card: { h: 50, row: 56, minW: 64 },
    };
  }
  const legend = { x: 10, y: 700, w: 762, chipW: 72, chipH: 20, perRow: 9 };
  // (a panel grows past its share when its content needs it, a hand of many cards: the board
  // is then taller, never a panel drawn over the next)
  const panels = { x: 450, y: 8, w: 322, h: 0, gap: 6, grow: true };
  panels.h = Math.min(230, (682 - panels.gap * (n - 1)) / n);
  return { kind, w: 780, h: 772, castle: CASTLE, park: PARK, legend, panels, card: { h: 24, row: 30, minW: 50 } };
}

// The rectangle of the room in layout cell `cell` (row 1 lies next to the park, at the bottom).
export function roomBox(geo, cell) {
  const row = Math.floor(cell / 3);
  const col = cell % 3;
  const c = geo.castle;
  return { x: c.x + col * c.w, y: c.y + (2 - row) * c.h, w: c.w, h: c.h };
}

export function squareBox(geo, index) {
  const c = geo.park.cell;
  return { x: geo.park.x + (index % 6) * c, y: geo.park.y + Math.floor(index / 6) * c, w: c, h: c };
}

export const centre = (box) => ({ x: box.x + box.w / 2, y: box.y + box.h / 2 });
