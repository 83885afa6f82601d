// The page's state in one place, and who is told when it changes. The page's parts read it and
// redraw (each only what changed); the controller (game.js) and the socket change it,
// always through update(), so there is one way a change reaches the screen (as
// chessground keeps its state apart from its rendering and its events).
// The state changes at once, the screen once per animation frame: several updates in one
// task (an answer, then its hints, then the socket's copy) are drawn together, once (as
// chessground batches its redraws with requestAnimationFrame).
// A seat is the seat's key: the page holds the keys it was given (its own, from its link;
// every person's at a shared screen) and sends them with each request; with none it is
// a spectator.

import { seatIndex } from "./seats.js";

export const state = {
  meta: null,
  gameId: null,
  seat: 0,               // the seat whose view this page shows (0: spectator)
  keys: {},              // seat number -> that seat's key, for the seats this page plays
  owner: null,           // the owner key (the creator's page): delete, rematch
  shared: false,         // every person at this screen (pass the device)
  view: null,            // the live view of that seat
  selectedFrom: null,    // a room picked as the source of a stairway move
  review: null,          // {ply, view} while stepping through positions, else null
  fromRecord: false,     // the game came from a loaded record (it can be analysed at once)
  analysis: null,        // the last finished analysis of this game
  analysing: false,      // an analysis asked for and not yet finished
  busy: false,
  hints: null,
  info: null,            // the latest engine `info` message
  infoCount: 0,          // engine `info` messages received
  waitingForSeat: 0,     // a human seat the device must be passed to, else 0
  lang: 0,               // counts language changes (a view redraws its words on a change)
  connection: "open",    // the game's socket: "open", "lost", "idle" (put away), "back" (open again)
  notice: null,          // a link that opens nothing: {kind: "no-game"|"bad-key", gameId}
};

const subscribers = [];

// fn(state, part) is called once per frame after updates, in the order subscribed; `part`
// names the one part of the page a small change concerns ("info", "progress",
// "standing"), else null (everything).
export function subscribe(fn) {
  subscribers.push(fn);
  return () => { const at = subscribers.indexOf(fn); if (at >= 0) subscribers.splice(at, 1); };
}

// The parts asked for since the last drawing (null: everything), and the frame that draws them.
let pending = null;
let scheduled = null;

// A frame that never comes (a tab put away stops them) must not keep the page undrawn:
// a timer draws after this long.
const FRAME_FALLBACK_MS = 100;

// Changes the state (`patch`'s fields) and asks for a drawing in the next frame.
export function update(patch = {}, part = null) {
  Object.assign(state, patch);
  if (!pending) pending = new Set();
  pending.add(part);
  if (scheduled) return;
  const frame = typeof requestAnimationFrame === "function" ? requestAnimationFrame(flush) : null;
  const timer = setTimeout(flush, FRAME_FALLBACK_MS);
  scheduled = { frame, timer };
}

// Draws what was asked for now (the frame's callback; a test or a caller that must read
// the screen at once may call it too): everything once if any update asked for it, else
// each small part once.
export function flush() {
  if (scheduled) {
    if (scheduled.frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(scheduled.frame);
    clearTimeout(scheduled.timer);
    scheduled = null;
  }
  const parts = pending;
  pending = null;
  if (!parts) return;
  const asked = parts.has(null) ? [null] : [...parts];
  for (const part of asked) for (const fn of subscribers.slice()) fn(state, part);
}

export const keyOf = (seat) => state.keys[seat] || null;

export function humanSeat(view, seat) {
  return seat >= 1 && view.kinds[seatIndex(seat)] === "human";
}
