// A turn played out on the board, step by step: a servant walks from its seat (or its room,
// along the stairway) to where it goes, a card flies from the hand or to it. Each step is a
// short Web Animation of a ghost shape over the board; "instant" plays nothing.

import { el } from "./dom.js";
import { centre, SEAT_COLOURS, SEAT_LETTERS } from "./geometry.js";
import { stairPoint } from "./castle.js";
import { placeOf } from "./state.js";
import { pieceName } from "./speech.js";

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
  if (place && place.from && boxes[place.from] && boxes[place.to]) {
    const p = stairPoint(boxes[place.from], boxes[place.to]);
    return { shape: "servant", points: [centre(boxes[place.from]), { x: p.x, y: p.y }, centre(boxes[place.to])] };
  }
  if (place && place.room && boxes[place.room]) return { shape: "servant", points: [seat, centre(boxes[place.room])] };
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
  const g = el("g", { class: `anim-ghost anim-${path.shape}` }, layer);
  if (path.shape === "servant") {
    el("circle", { cx: 0, cy: 0, r: 11, fill: SEAT_COLOURS[seat - 1] || "#555", class: "servant" }, g);
    el("text", { x: 0, y: 4.6, class: "servant-letter", "text-anchor": "middle", "font-size": 13 }, g, SEAT_LETTERS[seat - 1] || "");
  } else {
    el("rect", { x: -34, y: -11, width: 68, height: 22, rx: 3, class: "card-box anim-card-box", stroke: SEAT_COLOURS[seat - 1] || null }, g);
    el("text", { x: 0, y: 4, class: "card-text", "text-anchor": "middle" }, g, path.label);
  }
  return g;
}

// Plays `steps` (each with its `seat`) on `layer`; `running` collects the animations (so a
// newer turn can finish them at once); `cancelled()` stops between steps; `onStep(step)`
// marks the step's place while it plays.
export async function playSteps(layer, steps, ctx, ms, running, cancelled, onStep) {
  for (const step of steps) {
    if (cancelled()) return;
    const path = pathOf(step, ctx);
    if (!path) continue;
    const done = onStep(step);
    const ghost = ghostOf(layer, path, step.seat);
    const n = path.points.length - 1;
    const frames = path.points.map((p, k) => ({
      transform: `translate(${p.x}px, ${p.y}px)`, opacity: path.shape === "card" && k === n ? 0.2 : 1, offset: k / n }));
    const animation = ghost.animate(frames, { duration: ms, easing: "ease-in-out", fill: "forwards" });
    running.add(animation);
    try {
      await animation.finished;
    } catch (_) { /* cancelled */ }
    running.delete(animation);
    ghost.remove();
    if (done) done();
  }
}
