// Where things go on the board, for its three layouts: "wide" (the castle and park beside
// the seats' panels, for screens wider than tall), "tall" (a phone in portrait: the castle
// over the park, scaled to the width) and "side" (a phone in landscape: the castle beside the
// park, so the park's squares keep 44 px on a 390 px high screen). On the phones the legend
// and the seats' panels are drawn in a second SVG folded under the prompt (geo.folded).

export const SEAT_LETTERS = ["A", "B", "C", "D"];
export const SEAT_COLOURS = ["#b03a2e", "#1f5f99", "#1e7a46", "#8a4fa3"];

const CASTLE = { x: 10, y: 8, w: 140, h: 80 };
const PARK = { x: 10, y: 272, cell: 70 };

export function geometry(kind, nPlayers) {
  const n = Math.max(1, nPlayers || 2);
  if (kind === "tall" || kind === "side") {
    // (the panels' heights follow their content: panels.h is the least one)
    const legend = { x: 10, y: 8, w: 420, chipW: 100, chipH: 26, perRow: 4 };
    const panels = { x: 10, y: 8 + 240, w: 420, h: 150, gap: 8, grow: true };
    const folded = { w: 440, h: panels.y + n * (panels.h + panels.gap) };
    const card = { h: 50, row: 56, minW: 64 };
    if (kind === "tall") return { kind, w: 440, h: 698, castle: CASTLE, park: PARK, legend, panels, folded, card };
    return { kind, w: 858, h: 434, castle: { x: 10, y: 20, w: 140, h: 136 }, park: { x: 440, y: 20, cell: 68 },
      legend, panels, folded, card };
  }
  const legend = { x: 10, y: 700, w: 762, chipW: 72, chipH: 24, perRow: 9 };
  // (a panel grows past its share when its content needs it, a hand of many cards: the board
  // is then taller, never a panel drawn over the next)
  const panels = { x: 450, y: 8, w: 322, h: 0, gap: 6, grow: true };
  panels.h = Math.min(230, (682 - panels.gap * (n - 1)) / n);
  return { kind, w: 780, h: 780, castle: CASTLE, park: PARK, legend, panels, card: { h: 24, row: 30, minW: 50 } };
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
