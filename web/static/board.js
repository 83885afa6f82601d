// The board as SVG: it only draws a View and reports clicks on legal targets (the rules and
// the list of legal actions come from the server, view.legal). Split as chessground splits
// its board: the state worked out from the View (board/state.js), drawing by difference
// into nodes kept from one render to the next (board/castle.js, park.js, panels.js over
// board/dom.js), the events bound once (board/events.js), the motion of a turn
// (board/motion.js) and hints (board/hints.js). Every target carries its notation token
// (data-token), so nothing but a token the server offered can be chosen.
//
// createBoard(svg, {onChoose(entry), onSelect(room|null), meta(): /api/meta, foldedSvg}) returns
// (foldedSvg: where a phone's legend and panels go, folded under the prompt; without it the
// board keeps its wide layout)
//   render(view, {selectedFrom, interactive, live})  redraws what changed (live: false, a
//                                              review's or an analysis board's View);
//   drawn()                                    the View last drawn;
//   advance(view, speed)                       the board's own motion: the steps between the
//                                              View it drew last and `view` (the other seats',
//                                              board/state.js's stepsBetween), played at
//                                              `speed`, then `view` drawn: {steps, finished}
//                                              (a Promise);
//   playTurn(fromView, toView, steps, speed)   a Promise: plays the steps (null: the ones
//                                              between the two Views) at "instant" | "fast" |
//                                              "normal" | "slow"; renders wait for its end;
//   showHints(hint)                            a hint line ({steps} or {actions}), a list of
//                                              steps, or null to clear;
//   destroy()                                  takes the board down: its listeners, its
//                                              nodes and its popup go, a turn playing stops.

import { clearKids, el, kid, nextGeneration, setAttrs } from "./board/dom.js";
import { geometry, SEAT_COLOURS, SEAT_LETTERS } from "./board/geometry.js";
import { drawCastle, drawStairs, roomBoxes } from "./board/castle.js";
import { drawPark } from "./board/park.js";
import { drawLegend, drawPanels } from "./board/panels.js";
import { bindEvents } from "./board/events.js";
import { drawHint } from "./board/hints.js";
import { animated, playSteps, stepMs, SPEEDS } from "./board/motion.js";
import { lastTurn, piecesOf, placeOf, stepsBetween, stepsOf, targetsOf, touchedBy } from "./board/state.js";
import { t } from "./i18n.js";
import { seatIndex } from "./seats.js";

export { SEAT_COLOURS, SEAT_LETTERS, SPEEDS };

// The phones' layouts (board/geometry.js): the same widths and heights as style.css's phone
// rules; PHONE is either (the How-to-play pictures crop again when it changes).
const PORTRAIT = "(max-width: 700px)";
const LANDSCAPE = "(max-height: 500px) and (min-width: 701px)";
export const PHONE = `${PORTRAIT}, ${LANDSCAPE}`;

export function createBoard(svg, handlers) {
  const meta = () => (handlers.meta ? handlers.meta() : null);
  setAttrs(svg, { role: "group", class: "board", preserveAspectRatio: "xMidYMin meet" });   // (a board narrower than its box sits at its top)
  const defs = el("defs", {}, svg);
  for (const [id, cls] of [["board-arrow", "move-arrow-head"], ["board-hint-arrow", "hint-arrow-head"]]) {
    const marker = el("marker", { id, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", class: cls }, marker);
  }
  const layers = {};
  for (const name of ["castle", "stairs", "park", "legend", "panels", "anim", "hint"]) {
    layers[name] = el("g", { class: `layer-${name}` }, svg);
  }
  setAttrs(layers.anim, { "pointer-events": "none" });
  setAttrs(layers.hint, { class: "hint-layer layer-hint" });
  const events = bindEvents(svg);
  const foldedEvents = handlers.foldedSvg ? bindEvents(handlers.foldedSvg) : null;
  const media = window.matchMedia ? [window.matchMedia(PORTRAIT), window.matchMedia(LANDSCAPE)] : [];
  const folded = handlers.foldedSvg || null;     // where a phone's legend and panels go
  if (folded) setAttrs(folded, { role: "group", class: "board board-folded" });
  let layout = null;
  let shown = null;             // [view, ui] last drawn
  let wanted = null;            // [view, ui] last asked for (drawn once a turn has played out)
  let ctx = null;
  let hint = null;
  let animating = false;
  let playingTo = null;         // the View a turn playing out ends on
  let turnId = 0;
  const running = new Set();

  function draw(view, ui = {}) {
    nextGeneration();
    const kind = !folded || !media.length ? "wide" : media[0].matches ? "tall" : media[1].matches ? "side" : "wide";
    if (kind !== layout) {
      for (const layer of Object.values(layers)) clearKids(layer);
      layout = kind;
      widths.clear();                      // (the layouts' words differ in size: style.css)
      setAttrs(svg, { "data-layout": kind });
      const home = kind === "wide" ? svg : folded;
      home.insertBefore(layers.panels, home === svg ? layers.anim : null);
      home.insertBefore(layers.legend, layers.panels);
    }
    if (shown && shown[0] && (shown[0].game !== view.game || shown[0].ply !== view.ply)) hint = null;
    const geo = geometry(kind, view.n_players);
    const pieces = piecesOf(view, meta());
    const selectedFrom = ui.selectedFrom || null;
    const legal = ui.interactive === false ? [] : view.legal;
    const last = lastTurn(view);
    const pickingSeat = view.seat || view.to_move || 1;
    ctx = {
      view, geo, pieces, handlers, selectedFrom,
      targets: targetsOf(legal, selectedFrom),
      touched: touchedBy(last, view, pieces),
      mover: { last: last ? SEAT_COLOURS[seatIndex(last.seat)] : null, picking: SEAT_COLOURS[seatIndex(pickingSeat)] },
      boxes: roomBoxes(view, geo),
      centres: { squares: {}, cards: {}, legendCards: {}, seats: {}, pile: null },
      measure,
    };
    drawCastle(layers.castle, ctx);
    drawStairs(layers.stairs, ctx);
    drawPark(layers.park, ctx);
    drawLegend(layers.legend, ctx);
    const bottom = drawPanels(layers.panels, ctx);
    const height = geo.folded ? geo.h : Math.max(geo.h, Math.ceil(bottom));
    setAttrs(svg, { viewBox: `0 0 ${geo.w} ${height}`, "aria-label": t("Board"),
      "data-layout": kind, "data-last-seat": last ? last.seat : null });
    if (geo.folded) {
      setAttrs(folded, { viewBox: `0 0 ${geo.folded.w} ${Math.ceil(bottom)}`, "aria-label": t("Players and cards") });
      // (the pieces there are in another SVG: the board's motion starts at its top edge)
      const n = view.players.length;
      view.players.forEach((player, k) => { ctx.centres.seats[player.seat] = { x: (geo.w * (k + 1)) / (n + 1), y: -20 }; });
      Object.assign(ctx.centres, { cards: {}, legendCards: {}, pile: { x: geo.w / 2, y: -20 } });
    }
    drawHint(layers.hint, hint, ctx);
    shown = [view, ui];
  }

  // Text widths for the chips, measured once per text and class.
  const widths = new Map();
  let ruler = null;
  function measure(text, cls) {
    const key = `${cls}|${text}`;
    if (widths.has(key)) return widths.get(key);
    if (!ruler) ruler = el("text", { x: -1000, y: -1000, "aria-hidden": "true" }, svg);
    ruler.setAttribute("class", cls);
    ruler.textContent = text;
    const width = ruler.getComputedTextLength ? ruler.getComputedTextLength() : text.length * 6.5;
    widths.set(key, width);
    return width;
  }

  function render(view, ui = {}) {
    wanted = [view, ui];
    if (!animating) draw(view, ui);
  }

  async function playTurn(fromView, toView, steps = null, speed = "normal") {
    const ms = stepMs(speed);
    const pieces = piecesOf(toView, meta());
    const list = (steps || stepsBetween(fromView, toView, pieces))
      .map((step) => ({ ...step, seat: step.seat || (fromView && fromView.to_move) || 1 }))
      .filter(animated);
    const id = ++turnId;
    for (const flight of running) flight.finish();
    if (!ms || !list.length || !fromView) return;
    animating = true;
    playingTo = toView;
    svg.classList.add("animating");
    draw(fromView, { interactive: false });
    try {
      await playSteps(layers.anim, list, ctx, ms, running, () => id !== turnId, (step) => markStep(step));
    } finally {
      if (id === turnId) {
        animating = false;
        playingTo = null;
        svg.classList.remove("animating");
        const [view, ui] = wanted && wanted[0].version >= toView.version ? wanted : [toView, {}];
        draw(view, ui);
      }
    }
  }

  // A new state of the same game and seat, further on than the one drawn: what changed
  // between the two is played out, then the new state drawn (as chessground animates from
  // the difference between the pieces it drew and the new ones).
  function advance(view, speed = "normal") {
    // (a turn still playing counts as drawn; never from a review's or an analysis board's state)
    const from = animating && playingTo ? playingTo : shown && shown[1].live !== false && shown[0];
    const further = from && from.game === view.game && from.seat === view.seat && view.ply > from.ply;
    const steps = further ? stepsBetween(from, view, piecesOf(view, meta())) : [];
    const finished = steps.length ? playTurn(from, view, steps, speed) : Promise.resolve();
    return { steps, finished };
  }

  // The place a step is playing at, outlined while it plays.
  function markStep(step) {
    const place = placeOf(step);
    const nodes = [];
    if (place && place.room) nodes.push(kid(layers.castle, `room:${place.room}`, "g"));
    if (place && place.from) nodes.push(kid(layers.castle, `room:${place.from}`, "g"), kid(layers.castle, `room:${place.to}`, "g"));
    if (place && place.square) nodes.push(kid(layers.park, `sq:${place.square}`, "g"));
    for (const node of nodes) node.classList.add("step-now");
    return () => { for (const node of nodes) node.classList.remove("step-now"); };
  }

  function showHints(given) {
    if (!given) hint = null;
    else if (Array.isArray(given)) hint = given;
    else hint = stepsOf(given, ctx ? ctx.view : {}, ctx ? ctx.pieces : piecesOf(null, meta()));
    if (ctx) drawHint(layers.hint, hint, ctx);
  }

  const relayout = () => { if (shown && !animating) draw(...shown); };
  for (const query of media) if (query.addEventListener) query.addEventListener("change", relayout);

  let destroyed = false;
  function destroy() {
    if (destroyed) return;
    destroyed = true;
    turnId += 1;                                   // (a turn playing stops between steps)
    for (const flight of running) flight.finish();
    for (const query of media) if (query.removeEventListener) query.removeEventListener("change", relayout);
    events.destroy();
    if (foldedEvents) foldedEvents.destroy();
    for (const node of [defs, ruler, ...Object.values(layers)]) if (node) node.remove();
    for (const home of [svg, folded]) {
      if (!home) continue;
      home.classList.remove("animating");
      for (const name of ["role", "class", "viewBox", "aria-label", "data-layout", "data-last-seat", "preserveAspectRatio"]) {
        home.removeAttribute(name);
      }
    }
    shown = wanted = ctx = hint = null;
  }

  // (a board taken down draws nothing more)
  const alive = (fn) => (...args) => (destroyed ? undefined : fn(...args));
  return { render: alive(render),
    drawn: () => (animating && playingTo ? playingTo : shown ? shown[0] : null),
    advance: (view, speed) => (destroyed ? { steps: [], finished: Promise.resolve() } : advance(view, speed)),
    playTurn: (...args) => (destroyed ? Promise.resolve() : playTurn(...args)), showHints: alive(showHints), hideTip: events.hide, destroy };
}
