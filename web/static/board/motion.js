// A turn played out on the board, step by step: a servant walks from its seat (or its room,
// along the stairway) to where it goes, a card flies from the hand or to it. Each step moves
// a ghost shape over the board by its transform attribute, frame by frame (painted like any
// other change, screenshots included); "instant" plays nothing. A hidden tab plays nothing
// either, and a timer ends a step even if frames stop coming, so a turn always ends.

import { el } from "./dom.js";
import { centre, SEAT_COLOURS, SEAT_LETTERS } from "./geometry.js";
import { servantSpot, stairPoint } from "./castle.js";
import { placeOf } from "./state.js";
import { pieceName } from "./speech.js";
import { seatIndex } from "../seats.js";

const GHOST_R = 14;          // a moving servant's disc, shrinking to a room's disc as it lands
const LANDED_R = 9;

// Milliseconds per step.
export const SPEEDS = { instant: 0, fast: 200, normal: 450, slow: 950 };

export function stepMs(speed) {
  return Object.prototype.hasOwnProperty.call(SPEEDS, speed) ? SPEEDS[speed] : SPEEDS.normal;
}

// Does this step show on the board (a place, or a draw going to a hand)?
export function animated(step) {
  return Boolean(placeOf(step) || step.kind === "draw");
}

// The path (points in board units) and the shape of a step, or null.
function pathOf(step, ctx) {
  const { boxes, centres } = ctx;
  const seat = centres.seats[step.seat] || { x: ctx.geo.w / 2, y: 0 };
  const place = placeOf(step);
  // (a servant goes from its seat's disc in a room to its seat's disc in the next, so it
  // never comes to rest over a room's counts)
  const inRoom = (room) => servantSpot(room, seatIndex(step.seat), ctx) || centre(boxes[room]);
  if (place && place.from && boxes[place.from] && boxes[place.to]) {
    const p = stairPoint(boxes[place.from], boxes[place.to]);
    return { shape: "servant", points: [inRoom(place.from), { x: p.x, y: p.y }, inRoom(place.to)], shrink: LANDED_R / GHOST_R };
  }
  if (place && place.room && boxes[place.room]) return { shape: "servant", points: [seat, inRoom(place.room)], shrink: LANDED_R / GHOST_R };
  if (place && place.square && centres.squares[place.square]) return { shape: "servant", points: [seat, centres.squares[place.square]] };
  if (place && place.card) {
    const to = centres.legendCards[place.card] || centre(boxes[Object.keys(boxes)[4]] || { x: 200, y: 120, w: 0, h: 0 });
    return { shape: "card", label: pieceName("card", place.card), points: [seat, to] };
  }
  if (step.kind === "draw" && centres.pile) {
    return { shape: "card", label: step.card ? pieceName("card", step.card) : "?", points: [centres.pile, seat] };
  }
  return null;
}

function ghostOf(layer, path, seat) {
  const ghost = el("g", { class: `anim-ghost anim-${path.shape}` }, layer);
  const g = el("g", { class: "anim-body" }, ghost);         // (what shrinks as it lands)
  if (path.shape === "servant") {
    el("circle", { cx: 0, cy: 0, r: GHOST_R, fill: SEAT_COLOURS[seatIndex(seat)] || "#555", class: "servant anim-servant" }, g);
    el("text", { x: 0, y: 5.8, class: "servant-letter", "text-anchor": "middle", "font-size": 16 }, g, SEAT_LETTERS[seatIndex(seat)] || "");
  } else {
    el("rect", { x: -34, y: -11, width: 68, height: 22, rx: 3, class: "card-box anim-card-box", stroke: SEAT_COLOURS[seatIndex(seat)] || null }, g);
    el("text", { x: 0, y: 4, class: "card-text", "text-anchor": "middle" }, g, path.label);
  }
  return ghost;
}

// Moves `ghost` along `points` in `ms`, fading to `fade` and shrinking to `shrink` of its
// size at the end: {finished, finish()}.
function fly(ghost, points, ms, fade, shrink = 1) {
  const lengths = points.slice(1).map((p, k) => Math.hypot(p.x - points[k].x, p.y - points[k].y));
  const total = lengths.reduce((a, b) => a + b, 0) || 1;
  const place = (f) => {
    let left = f * total;
    let k = 0;
    while (k < lengths.length - 1 && left > lengths[k]) { left -= lengths[k]; k += 1; }
    const a = points[k];
    const b = points[k + 1] || a;
    const u = lengths[k] ? Math.min(1, left / lengths[k]) : 1;
    ghost.setAttribute("transform", `translate(${(a.x + (b.x - a.x) * u).toFixed(1)} ${(a.y + (b.y - a.y) * u).toFixed(1)})`);
    if (shrink !== 1) ghost.firstChild.setAttribute("transform", `scale(${(1 - (1 - shrink) * f).toFixed(3)})`);
    ghost.setAttribute("opacity", (1 - (1 - fade) * f).toFixed(2));
  };
  let stop = null;
  const finished = new Promise((resolve) => {
    const start = performance.now();
    let over = false;
    stop = () => { if (!over) { over = true; place(1); resolve(); } };
    const frame = (now) => {
      if (over) return;
      const f = Math.min(1, (now - start) / ms);
      place(0.5 - Math.cos(Math.PI * f) / 2);         // ease in and out
      if (f < 1) requestAnimationFrame(frame); else stop();
    };
    place(0);
    requestAnimationFrame(frame);
    setTimeout(stop, ms + 250);
  });
  return { finished, finish: () => stop() };
}

// Plays `steps` (each with its `seat`) on `layer`; `running` collects the moving ghosts (so
// a newer turn can finish them at once); `cancelled()` stops between steps; `onStep(step)`
// marks the step's place while it plays.
export async function playSteps(layer, steps, ctx, ms, running, cancelled, onStep) {
  for (const step of steps) {
    if (cancelled() || document.hidden) return;
    const path = pathOf(step, ctx);
    if (!path) continue;
    const done = onStep(step);
    const ghost = ghostOf(layer, path, step.seat);
    const flight = fly(ghost, path.points, ms, path.shape === "card" ? 0.2 : 1, path.shrink || 1);
    running.add(flight);
    await flight.finished;
    running.delete(flight);
    ghost.remove();
    if (done) done();
  }
}
