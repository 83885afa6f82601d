// The page's state in one place, and who is told when it changes. The views read it and
// redraw (each only what changed); the controller (game.js) and the socket change it,
// always through update(), so there is one way a change reaches the screen (as
// chessground keeps its state apart from its rendering and its events).
// A seat is the seat's key: the page holds the keys it was given (its own, from its link;
// every person's at a shared screen) and sends them with each request; with none it is
// a spectator.

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

// fn(state, part) is called after every update, in the order subscribed; `part` names the
// one part of the page a small change concerns ("info", "progress"), else null.
export function subscribe(fn) {
  subscribers.push(fn);
}

// Changes the state (`patch`'s fields) and tells every subscriber.
export function update(patch = {}, part = null) {
  Object.assign(state, patch);
  for (const fn of subscribers) fn(state, part);
}

export const keyOf = (seat) => state.keys[seat] || null;

export function humanSeat(view, seat) {
  return seat >= 1 && view.kinds[seat - 1] === "human";
}
