// Drawing the castle: its nine rooms (servants per seat, the majority holder, the targets of
// the decision at hand) and the stairways between adjacent rooms, keyed nodes updated in place.

import { kid, sweep, wrapLabel } from "./dom.js";
import { centre, roomBox, SEAT_COLOURS, SEAT_LETTERS } from "./geometry.js";
import { pieceHelp, pieceName } from "./speech.js";
import { stairKey } from "./state.js";
import { classes, explain, setTarget } from "./targets.js";
import { tf, t } from "../i18n.js";
import { seatIndex } from "../seats.js";

export function drawServant(parent, key, cx, cy, index, r = 9) {
  kid(parent, `${key}:c`, "circle", { cx, cy, r, fill: SEAT_COLOURS[index], class: "servant" });
  kid(parent, `${key}:t`, "text", { x: cx, y: cy + r * 0.42, class: "servant-letter", "text-anchor": "middle",
    "font-size": r * 1.2 }, SEAT_LETTERS[index]);
}

const CHIP_R = 8;                 // a servant's disc in a room
const CHIP_GAP = 3;               // between one seat's count and the next seat's disc
// (a count is "×12": the sign small, so four two-digit counts fit a room in two rows)
const countWidth = (n, measure) => measure("×", "count count-times") + measure(`${n}`, "count");

// Where each seat's disc goes in a room `box` for `present` ([index, count] pairs, a seat's index from 0):
// {index: {x, y}} (the disc's centre), in rows as wide as the measured counts let them
// be, so two-digit counts of several seats never overlap. The first row runs under the
// name (`twoLines`: a name on two lines); in a low room the second one keeps clear of the
// stairway down at the left (stairPoint) and of the bottom-right corner, where a hint's
// badge goes (board/hints.js).
export function chipSpots(box, present, measure, twoLines = false) {
  const low = box.h <= 100;
  const rowY = low ? [box.y + (twoLines ? 46 : 45), box.y + 65] : [box.y + box.h / 2, box.y + box.h / 2 + 24];
  const rowX = [box.x + 8, low ? box.x + 30 : box.x + 8];
  const rowEnd = [box.x + box.w - 6, box.x + box.w - (low ? 21 : 6)];
  const widths = present.map(([, n]) => 2 * CHIP_R + 1 + countWidth(n, measure));
  const fits = (row, r) => row.reduce((x, k) => x + widths[k] + CHIP_GAP, rowX[r]) - CHIP_GAP <= rowEnd[r];
  const rows = [[]];
  present.forEach((_, k) => {
    const row = rows[rows.length - 1];
    const r = Math.min(rows.length - 1, 1);
    if (row.length && !fits([...row, k], r)) rows.push([k]);
    else row.push(k);
  });
  if (rows.length === 1 && low && !twoLines) rowY[0] = box.y + 50;    // one row: in the room's middle
  const spots = {};
  rows.forEach((row, r) => {
    let x = rowX[Math.min(r, 1)];
    for (const k of row) {
      spots[present[k][0]] = { x: x + CHIP_R, y: rowY[Math.min(r, rowY.length - 1)] };
      x += widths[k] + CHIP_GAP;
    }
  });
  return spots;
}

// Where a servant of `index` lands in (or leaves) `room` as drawn now: its seat's disc
// there, or where that disc will be once it is there, never over the counts.
export function servantSpot(room, index, ctx) {
  const { view, pieces, boxes, measure } = ctx;
  const box = boxes[room];
  const roomIndex = pieces.rooms.indexOf(room);
  if (!box || roomIndex < 0) return null;
  const present = view.rooms.map((counts, s) => [s, counts[roomIndex] || (s === index ? 1 : 0)]).filter(([, n]) => n > 0);
  const name = ctx.roomNames && ctx.roomNames[room];
  return chipSpots(box, present, measure, Boolean(name && name.childElementCount > 1))[index];
}

// Where each room is this render: {ROOM: {x, y, w, h}}.
export function roomBoxes(view, geo) {
  const boxes = {};
  (view.layout || []).forEach((room, cell) => { boxes[room] = roomBox(geo, cell); });
  return boxes;
}

export function drawCastle(layer, ctx) {
  const { view, pieces, targets, selectedFrom, touched, mover, boxes, handlers } = ctx;
  const majorities = view.majorities || {};
  const picking = Boolean(selectedFrom && targets.moveFrom.has(selectedFrom));
  ctx.roomNames = {};
  for (const room of view.layout || []) {
    const box = boxes[room];
    const roomIndex = pieces.rooms.indexOf(room);
    const name = pieceName("room", room);
    let target = null;
    let state = "";
    if (targets.rooms.has(room)) {
      const entry = targets.rooms.get(room);
      const label = view.stage === "SETUP" ? tf("Place a servant in {room}", { room: name }) : tf("Take the servant from {room}", { room: name });
      target = { label, action: () => handlers.onChoose(entry), token: entry.token };
    } else if (picking && targets.moveTo.has(room)) {
      const entry = targets.moveTo.get(room);
      target = { label: tf("Move from {from} to {to}", { from: pieceName("room", selectedFrom), to: name }),
        action: () => handlers.onChoose(entry), token: entry.token };
      state = "move-to";
    } else if (targets.moveFrom.has(room)) {
      const picked = selectedFrom === room;
      target = { label: picked ? tf("Cancel the move from {room}", { room: name }) : tf("Move a servant from {room}", { room: name }),
        action: () => handlers.onSelect(picked ? null : room), from: room };
      state = picked ? "selected" : (picking ? "move-from dimmed" : "move-from");
    }
    const last = touched.rooms.has(room);
    const g = kid(layer, `room:${room}`, "g", {
      class: classes("room", `room-${room.toLowerCase()}`, state, target && "target", last && "last"), "data-room": room,
      style: picking && state === "move-to" ? `--mover:${mover.picking}` : null,
    });
    setTarget(g, target);
    explain(g, name, pieceHelp("room", room));
    kid(g, "cell", "rect", { x: box.x + 2, y: box.y + 2, width: box.w - 4, height: box.h - 4, rx: 6, class: "cell" });
    if (last) {
      kid(g, "last", "rect", { x: box.x + 4, y: box.y + 4, width: box.w - 8, height: box.h - 8, rx: 5, class: "last-mark", stroke: mover.last });
    }
    const nameNode = wrapLabel(kid(g, "name", "text", { x: box.x + box.w / 2, y: box.y + (box.h > 100 ? 30 : 22), class: "room-name", "text-anchor": "middle" }),
      name, box.w - 40);
    ctx.roomNames[room] = nameNode;
    const holder = majorities[room];
    if (holder > 0) {
      const mark = kid(g, "majority", "g", { class: "majority" });
      kid(mark, "c", "circle", { cx: box.x + box.w - 13, cy: box.y + 14, r: 8, fill: SEAT_COLOURS[seatIndex(holder)], class: "majority-mark" });
      kid(mark, "t", "text", { x: box.x + box.w - 13, y: box.y + 18, class: "majority-text", "text-anchor": "middle" }, "★");
      explain(mark, tf("Majority: seat {letter}", { letter: SEAT_LETTERS[seatIndex(holder)] }), pieceHelp("room", room));
    }
    // Each seat present: its letter on its colour and its count, in rows that never overlap.
    const present = view.rooms.map((counts, index) => [index, counts[roomIndex]]).filter(([, n]) => n > 0);
    const spots = chipSpots(box, present, ctx.measure, nameNode.childElementCount > 1);
    for (const [index, n] of present) {
      const spot = spots[index];
      drawServant(g, `chip${index}`, spot.x, spot.y, index, CHIP_R);
      const count = kid(g, `chip${index}:n`, "text", { x: spot.x + CHIP_R + 1, y: spot.y + 4.5, class: "count" });
      kid(count, "times", "tspan", { class: "count-times" }, "×");
      kid(count, "n", "tspan", null, `${n}`);
    }
    sweep(g);
  }
  sweep(layer);
}

// The stairway between two adjacent rooms: a short flight of steps across their shared side.
// stairPoint() is where it crosses (a move's path goes through it).
export function stairPoint(a, b) {
  if (a.y === b.y) {
    const x = Math.max(a.x, b.x);
    return { x, y: a.y + 30, across: "x" };
  }
  const y = Math.max(a.y, b.y);
  return { x: a.x + 18, y, across: "y" };
}

export function drawStairs(layer, ctx) {
  const { view, boxes, selectedFrom, targets, touched, mover } = ctx;
  const open = new Set();
  if (selectedFrom && targets.moveFrom.has(selectedFrom)) {
    for (const room of targets.moveTo.keys()) open.add(stairKey(selectedFrom, room));
  }
  for (const [a, near] of Object.entries(view.adjacent || {})) {
    for (const b of near) {
      if (!(a < b) || !boxes[a] || !boxes[b]) continue;
      const key = stairKey(a, b);
      const p = stairPoint(boxes[a], boxes[b]);
      const isOpen = open.has(key);
      const isLast = touched.stairs.has(key);
      const g = kid(layer, `stair:${key}`, "g", { class: classes("stair", isOpen && "open", isLast && "last"), "data-stair": key });
      const long = 24;
      const short = 12;
      const rect = p.across === "x"
        ? { x: p.x - long / 2, y: p.y - short / 2, width: long, height: short }
        : { x: p.x - short / 2, y: p.y - long / 2, width: short, height: long };
      kid(g, "box", "rect", { ...rect, rx: 2, class: "stair-box", stroke: isLast ? mover.last : null });
      for (let k = -1; k <= 1; k += 1) {
        const d = k * 6;
        const line = p.across === "x"
          ? { x1: p.x + d, y1: rect.y + 2, x2: p.x + d, y2: rect.y + short - 2 }
          : { x1: rect.x + 2, y1: p.y + d, x2: rect.x + short - 2, y2: p.y + d };
        kid(g, `rung${k}`, "line", { ...line, class: "stair-rung" });
      }
      explain(g, tf("Stairway between {a} and {b}", { a: pieceName("room", a), b: pieceName("room", b) }),
        t("A move takes one servant along a stairway to the next room."));
      sweep(g);
    }
  }
  // Once a source is picked: an arrow from it through each open stairway.
  const arrows = kid(layer, "arrows", "g", { class: "move-arrows" });
  if (selectedFrom && boxes[selectedFrom]) {
    for (const room of targets.moveTo.keys()) {
      if (!boxes[room]) continue;
      const p = stairPoint(boxes[selectedFrom], boxes[room]);
      const from = centre(boxes[selectedFrom]);
      const to = centre(boxes[room]);
      const ux = Math.sign(to.x - from.x);
      const uy = Math.sign(to.y - from.y);
      kid(arrows, room, "line", { x1: p.x - ux * 18, y1: p.y - uy * 18, x2: p.x + ux * 18, y2: p.y + uy * 18,
        class: "move-arrow", "marker-end": "url(#board-arrow)", stroke: mover.picking });
    }
  }
  sweep(arrows);
  sweep(layer);
}
