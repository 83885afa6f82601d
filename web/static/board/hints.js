// A hint on the board: each step that has a place (a room, a move, a square, a card) gets a
// badge numbered 1, 2, 3... in the order of the turn, beside the place's label (never over
// it); moves are drawn as arrows along their stairway. Steps without a place get no badge.

import { el } from "./dom.js";
import { placeOf } from "./state.js";
import { stairPoint } from "./castle.js";
import { centre } from "./geometry.js";

// Where a badge goes for a place, or null when the board does not show that place now.
function spotOf(place, ctx) {
  const { boxes, centres } = ctx;
  if (place.room && boxes[place.room]) {
    const b = boxes[place.room];
    return { x: b.x + b.w - 13, y: b.y + b.h - 12, r: 9, key: `room:${place.room}` };
  }
  if (place.square && centres.squares[place.square]) {
    const b = centres.squares[place.square].box;
    return { x: b.x + b.w / 2, y: b.y + 9, r: 8, key: `sq:${place.square}` };
  }
  if (place.card) {
    const held = centres.cards[place.card];
    if (held) return { x: held.box.x + held.box.w - 2, y: held.box.y, r: 7.5, key: `card:${place.card}` };
    const shown = centres.legendCards[place.card];
    if (shown) return { x: shown.x, y: shown.y - 12, r: 7.5, key: `legend:${place.card}` };
  }
  if (place.from && boxes[place.from] && boxes[place.to]) {
    const p = stairPoint(boxes[place.from], boxes[place.to]);
    return { x: p.x, y: p.y, r: 9, key: `stair:${p.x},${p.y}` };       // on the stairway itself
  }
  return null;
}

export function drawHint(layer, steps, ctx) {
  layer.replaceChildren();
  if (!steps || !steps.length) return [];
  let order = 0;
  const used = new Map();
  const badges = [];
  for (const step of steps) {
    const place = placeOf(step);
    if (!place) continue;
    const spot = spotOf(place, ctx);
    if (!spot) continue;
    order += 1;
    if (place.from) {
      const a = centre(ctx.boxes[place.from]);
      const b = centre(ctx.boxes[place.to]);
      const p = stairPoint(ctx.boxes[place.from], ctx.boxes[place.to]);
      el("polyline", { points: `${a.x},${a.y + 10} ${p.x},${p.y} ${b.x},${b.y + 10}`, class: "hint-arrow",
        "marker-end": "url(#board-hint-arrow)" }, layer);
    }
    const repeat = used.get(spot.key) || 0;
    used.set(spot.key, repeat + 1);
    const x = spot.x - repeat * (spot.r * 2 + 3);
    const g = el("g", { class: "hint-badge-group", "data-order": order }, layer);
    el("circle", { cx: x, cy: spot.y, r: spot.r, class: "hint-badge" }, g);
    el("text", { x, y: spot.y + spot.r * 0.42, class: "hint-badge-text", "text-anchor": "middle", "font-size": spot.r * 1.25 }, g, `${order}`);
    badges.push(order);
  }
  return badges;
}
