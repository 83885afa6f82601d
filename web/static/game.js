// The controller: what the page does when a person acts or the server speaks. It asks the
// server (api.js), follows the game's socket (socket.js) and changes the state (store.js);
// it draws nothing itself (the page's parts, views/*.js, do, on each update). They call these functions.

import { api, WS_IDLE } from "./api.js";
import { language, t } from "./i18n.js";
import { forgetGame, gameAddress, storeGame, storedGames } from "./saved.js";
import { connect, disconnect } from "./socket.js";
import { humanSeat, keyOf, state, update } from "./store.js";
import { seatIndex, seatNumber } from "./seats.js";

// What the controller needs from the page that it does not own (set by app.js).
export const hooks = {
  board: null,                 // the board (its hint layer is cleared on a review step)
  openNewGameDialog: () => {},
  beforeShow: null,            // async (shownView, nextView) before a new live view is shown
};

// ---- showing errors -------------------------------------------------------------------

export function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

export async function guarded(work) {
  if (state.busy) return;
  state.busy = true;
  try {
    showError("");
    await work();
  } catch (error) {
    if (isStale(error)) {
      // Chosen from a view the game has left (another tab or device, a missed message):
      // nothing was played; show where the game is now, and say so.
      await receiveView(error.data.view);
      showError(t("The game moved on: your choice was not played."));
    } else {
      showError(error.message || String(error));
    }
  } finally {
    state.busy = false;
  }
}

const isStale = (error) => error && error.status === 409 && error.data && error.data.stale && error.data.view;

// A change (an action, a take-back, a resignation) is sent with the version of the view it
// was chosen from.
const shownVersion = () => state.view.version;

// ---- the game and its socket ----------------------------------------------------------

const socketHandlers = {
  view: (message) => {
    const view = message.view;
    if (!state.view || view.game !== state.gameId || view.seat !== state.seat) return;
    receiveView(view);
  },
  info: (message) => update({ info: message, infoCount: state.infoCount + 1 }, "info"),
  analysis: (message) => {
    if (message.result) update({ analysis: message.result, analysing: false, progress: null });
    else update({ progress: { done: message.done, total: message.total } }, "progress");
  },
  error: (message) => (message.bad_key ? showNotice("bad-key", state.gameId) : showError(message.error)),
  gone: () => showError(t("This game is no longer on the server.")),
  disconnected: (message) => connectionIs(message.code === WS_IDLE ? "idle" : "lost"),
  reconnected: () => {
    connectionIs("back");
    setTimeout(() => { if (state.connection === "back") connectionIs("open"); }, CONNECTED_AGAIN_MS);
  },
};

// How long "Connected again" stays before the page is as it always is.
const CONNECTED_AGAIN_MS = 4000;

function connectionIs(connection) {
  update({ connection }, "standing");
  updateTitle();
}

// A link that opens nothing: no such game, or a key of no seat of the game (views/standing.js
// says which, with a way on). This page then shows no game.
export function showNotice(kind, gameId) {
  disconnect();
  showError("");
  Object.assign(state, { view: null, gameId: null, review: null, explore: null, hints: null, info: null });
  document.getElementById("end-screen").hidden = true;
  update({ notice: { kind, gameId } }, "standing");
  updateTitle();
}

export const watchAsSpectator = (gameId) => { location.hash = `game=${encodeURIComponent(gameId)}`; };

function follow(gameId, seat) {
  connect(gameId, keyOf(seat), socketHandlers);
}

export function startGame(gameId, view, { fromRecord = false, keys = null, owner = null } = {}) {
  const stored = storedGames()[gameId] || {};
  Object.assign(state, {
    gameId, fromRecord, keys: keys || stored.keys || {}, owner: owner || stored.owner || null,
    shared: Boolean(view.shared), seat: view.seat, view: null, review: null, analysis: null,
    analysing: false, progress: null, hints: null, info: null, waitingForSeat: 0, explore: null,
    notice: null, connection: "open",
  });
  if (Object.keys(state.keys).length || state.owner) {
    storeGame(gameId, { keys: state.keys, owner: state.owner, invitations: stored.invitations });
  }
  history.replaceState(null, "", gameAddress(gameId, keyOf(view.seat)));
  follow(gameId, view.seat);
  receiveView(view);
  if (view.over) {
    api.analysis(gameId, keyOf(view.seat)).then((analysis) => {      // an analysis made before, if any
      if (state.gameId === gameId) update({ analysis });
    }).catch(() => {});
  }
}

// Views shown one after the other: a view that arrives while the board still plays the
// turn before waits for it (the board's animation, hooks.beforeShow). The page's own
// answers go through it too: an engine may have played before the answer came back (the
// board plays only the other seats' steps).
let showing = Promise.resolve();

// A new view of the page's seat: shown at once, unless the next decision belongs to
// another person at this screen (then the pass-the-device screen comes first).
// Views come both as answers and over the socket, and an answer can arrive after the
// socket has already shown later changes (engine moves): a view older than the one shown
// (a lower `version`, the game's count of changes) is dropped, and so is one of the same version.
// A page that falls behind (views come faster than their turns play out) catches up: a
// view with a later one already waiting is shown without playing its turn.
let waiting = 0;

export function receiveView(view) {
  waiting += 1;
  showing = showing.then(() => show(view, waiting > 1))
    .catch((error) => showError(error.message || String(error)))
    .finally(() => { waiting -= 1; });
  return showing;
}

async function show(view, behind = false) {
  const shown = state.view;
  // (the same version again, a socket's copy of an answer or a reconnection's first view,
  // is the same View: not redrawn, so a hint hovered stays shown)
  if (shown && shown.game === view.game && shown.seat === view.seat && view.version <= shown.version) return;
  if (shown && hooks.beforeShow && !behind && shown.game === view.game && shown.seat === view.seat && !state.review) {
    await hooks.beforeShow(shown, view);
  }
  const turnChanged = !state.view || state.view.ply !== view.ply;
  state.view = view;
  if (turnChanged) {
    state.selectedFrom = null;
    state.hints = null;
  }
  if (!view.thinking) state.info = null;
  const next = view.to_move;
  // Only a shared screen follows the seat to move: a page opened with a seat's link
  // stays on that seat (it holds no other key).
  if (state.shared && !view.over && next !== view.seat && humanSeat(view, next) && keyOf(next)) {
    if (view.passing) {
      state.waitingForSeat = next;
    } else {
      loadSeat(next).catch((error) => showError(error.message));
      return;
    }
  }
  update();
  announceTurn(view);
}

// The tab's title says when it is this page's decision (never while the connection is
// lost: the page cannot know), and a notification (if the person allowed them) says so
// when the tab is not in front.
let announcedPly = -1;
const myDecision = (view) => Boolean(view) && !view.over && view.legal.length > 0;

export function updateTitle() {
  const view = state.view;
  if (view && (state.connection === "lost" || state.connection === "idle")) {
    document.title = `${t("Reconnecting…")} — ${t("Palais Royal")}`;
  } else {
    document.title = myDecision(view) ? `● ${t("Your turn")} — ${t("Palais Royal")}` : t("Palais Royal");
  }
}

function announceTurn(view) {
  const mine = myDecision(view);
  updateTitle();
  if (!mine || announcedPly === view.ply) return;
  announcedPly = view.ply;
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification(t("Palais Royal"), { body: t("Your turn"), tag: view.game }); } catch (_) { /* none */ }
  }
}

export function askToNotify() {
  if ("Notification" in window && Notification.permission === "default") {
    // only the button changes: a whole redraw would drop what the mouse is over
    Notification.requestPermission().then(() => {
      document.getElementById("notify-button").hidden = Notification.permission !== "default";
    }).catch(() => {});
  }
}

// Shows the game from `seat` from now on (its view, its socket).
export async function loadSeat(seat) {
  const view = await api.view(state.gameId, keyOf(seat));
  state.seat = seat;
  state.waitingForSeat = 0;
  history.replaceState(null, "", gameAddress(state.gameId, keyOf(seat)));
  follow(state.gameId, seat);
  state.view = null;
  await show(view);
}

export const switchSeat = (seat) => guarded(() => loadSeat(seat));

export const select = (room) => update({ selectedFrom: room });

export async function act(token) {
  await guarded(async () => {
    const view = await api.act(state.gameId, keyOf(state.seat), token, shownVersion(), language());
    state.selectedFrom = null;
    state.hints = null;
    await receiveView(view);
  });
}

export async function undo() {
  if (!state.view || !state.view.can_undo || state.review) return;
  await guarded(async () => {
    const view = await api.undo(state.gameId, keyOf(state.seat), shownVersion(), language());
    state.hints = null;
    state.selectedFrom = null;
    await receiveView(view);
  });
}

export async function hint() {
  if (!state.view || !state.view.legal.length || state.review) return;
  await guarded(async () => {
    update({ hints: "thinking" });
    const answer = await api.hint(state.gameId, keyOf(state.seat), language());
    update({ hints: answer.hints });
  });
}

export async function resign() {
  if (!window.confirm(t("Resign? The built-in greedy player plays your seat to the end of the game."))) return;
  await guarded(async () => receiveView(await api.resign(state.gameId, keyOf(state.seat), shownVersion(), language())));
}

// In a rematch every seat moves one place on: seat n's key now opens seat n + 1 (the last
// seat's, seat 1).
const seatAfter = (seat, n) => seatNumber((seatIndex(Number(seat)) + 1) % n);

function rotatedKeys(keys, n) {
  const out = {};
  for (const [seat, key] of Object.entries(keys)) out[seatAfter(seat, n)] = key;
  return out;
}

export async function rematch() {
  await guarded(async () => {
    const answer = await api.rematch(state.gameId, state.owner);
    const keys = rotatedKeys(state.keys, state.view.n_players);
    storeGame(answer.game, { keys, owner: state.owner });
    await openGame(answer.game, keys[seatAfter(state.seat, state.view.n_players)]);
  });
}

export async function deleteGame() {
  if (!window.confirm(t("Delete this game on the server, for every seat?"))) return;
  await guarded(async () => {
    await api.remove(state.gameId, state.owner);
    forgetGame(state.gameId);
    disconnect();
    state.view = null;
    state.gameId = null;
    history.replaceState(null, "", location.pathname);
    hooks.openNewGameDialog();
  });
}

// Back to the lobby: this page shows no game any more, and the new-game dialog opens (the
// game stays under "My games").
export function backToLobby() {
  disconnect();
  state.view = null;
  state.gameId = null;
  state.review = null;
  state.explore = null;
  history.replaceState(null, "", location.pathname);
  document.getElementById("end-screen").hidden = true;
  hooks.openNewGameDialog();
}

export async function saveRecord() {
  await guarded(async () => {
    const text = await api.record(state.gameId, keyOf(state.seat));
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    link.download = `palais-${state.gameId.slice(0, 8)}.txt`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  });
}

// A game opened by its address: `#game=ID&key=KEY` (a seat's link) or `#game=ID` (to
// watch). The seat is the one the key opens; the keys this browser holds for the game
// (a shared screen's, the owner's) come back from localStorage.
export async function openGame(gameId, key) {
  const stored = storedGames()[gameId] || {};
  const view = await api.view(gameId, key);
  const keys = { ...(stored.keys || {}) };
  if (key && view.seat) keys[view.seat] = key;
  startGame(gameId, view, { keys, owner: stored.owner || null });
}

export async function resumeFromAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  const gameId = params.get("game");
  if (!gameId) return false;
  try {
    await openGame(gameId, params.get("key"));
    return true;
  } catch (error) {
    if (error.status === 404) {
      forgetGame(gameId);
      showNotice("no-game", gameId);
    } else if (error.status === 403 && error.data && error.data.bad_key) {
      showNotice("bad-key", gameId);
    } else {
      showError(error.message || String(error));
    }
    return true;
  }
}

// ---- review: stepping through positions and the analysis ------------------------------

// The positions review steps through: the start, and the position after each turn.
function turnStarts() {
  const starts = (state.view ? state.view.log : []).map((entry) => entry.ply);
  starts.push(0);
  if (state.view) starts.push(state.view.ply);
  return [...new Set(starts)].sort((a, b) => a - b);
}

export async function showPosition(ply) {
  await guarded(async () => {
    const view = await api.position(state.gameId, ply, keyOf(state.seat));
    if (hooks.board) hooks.board.showHints(null);
    update({ review: { ply, view }, explore: null });
  });
}

export function step(direction) {
  if (!state.view) return;
  const starts = turnStarts();
  const here = state.review ? state.review.ply : state.view.ply;
  let target = null;
  if (direction < 0) target = [...starts].reverse().find((ply) => ply < here);
  else target = starts.find((ply) => ply > here);
  if (target === undefined || target === null) return;
  if (target === state.view.ply && !state.view.over) leaveReview();
  else showPosition(target);
}

export function leaveReview() {
  update({ review: null, explore: null });
}

export async function analyse() {
  await guarded(async () => {
    update({ analysing: true, progress: { done: 0, total: 1 } });
    try {
      await api.analyse(state.gameId, keyOf(state.seat), language());
    } catch (error) {
      update({ analysing: false, progress: null });
      throw error;
    }
  });
}

// ---- the analysis board: another line from a reviewed position --------------------------

// Another line from the position shown in review (or the live one): the server plays it on
// this seat's view and gives the engine's opinion (web/api/explore.py).
async function exploreLine(from, line) {
  const answer = await api.explore(state.gameId, keyOf(state.seat), from, line);
  if (hooks.board) hooks.board.showHints(null);
  // origin: the position the line starts from, for its words (rounds and turns, not a ply)
  const origin = state.explore ? state.explore.origin : (state.review ? state.review.view : state.view);
  update({ explore: { from, origin, line, view: answer.view, evaluation: answer.evaluation }, selectedFrom: null });
}

export async function startExplore() {
  if (!state.view || !keyOf(state.seat)) return;
  const from = state.review ? state.review.ply : state.view.ply;
  await guarded(() => exploreLine(from, []));
}

export async function exploreStep(token) {
  if (!state.explore) return;
  await guarded(() => exploreLine(state.explore.from, [...state.explore.line, token]));
}

export async function exploreBack() {
  if (!state.explore || !state.explore.line.length) return;
  await guarded(() => exploreLine(state.explore.from, state.explore.line.slice(0, -1)));
}

// Back to the game's own line, at the position the line started from.
export function leaveExplore() {
  update({ explore: null, selectedFrom: null });
}
