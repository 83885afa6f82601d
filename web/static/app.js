// The page's entry: it makes the board and the page's parts, subscribes them to the store, wires
// the header's buttons to the controller, and starts (the server's offer, the language,
// the game the address names or the new-game dialog). The modules:
//   store.js (the state, update, subscribers; one redraw a frame)   game.js (the controller: server and socket)
//   socket.js (the game's live updates)         saved.js (the games this browser holds)
//   views/*.js, the page's parts (panel, log, hints, review, ending, dialog, keys, legend, guide), each redrawing what changed;
//   views/standing.js says where the page stands (the connection, a spectator, a bad link);
//   views/announce.js says each turn's steps once to a screen reader (a live region);
//   board.js and chart.js only draw.

import { api } from "./api.js";
import { createBoard } from "./board.js";
import * as game from "./game.js";
import { preferredLanguage, setLanguage, t, translateStatic } from "./i18n.js";
import { state, subscribe, update } from "./store.js";
import { buildRuleOptions, buildSeatRows, listenToDialogs, openNewGameDialog, showMyGames } from "./views/dialog.js";
import { createEnding } from "./views/ending.js";
import { createGuide } from "./views/guide.js";
import { listenToFolds } from "./views/folds.js";
import { createHints } from "./views/hints.js";
import { createLegend } from "./views/legend.js";
import { listenToKeys } from "./views/keys.js";
import { createLog } from "./views/log.js";
import { createPanel, drawPassScreen } from "./views/panel.js";
import { createReview } from "./views/review.js";
import { createAnnouncer } from "./views/announce.js";
import { createStanding } from "./views/standing.js";
import { bounded, listenToSpeed, speed } from "./views/speed.js";
import { drawWords, notationShown, showNotation } from "./views/words.js";

const $ = (id) => document.getElementById(id);

const board = createBoard($("board"), {
  onChoose: (entry) => (state.explore ? game.exploreStep(entry.token) : game.act(entry.token)),
  onSelect: (room) => game.select(room),
  meta: () => state.meta,
  foldedSvg: $("board-more"),
});
game.hooks.board = board;
const legend = createLegend({ svg: $("board"), button: $("legend-button"), link: $("how-to-play-link"), hideTip: board.hideTip });
game.hooks.openNewGameDialog = openNewGameDialog;

// A view that follows the shown one by the other seats' actions: the board plays them out
// first, at the page's speed ("instant" plays nothing), from the difference between the
// state it drew and the new one (board.advance). The page's own answers come here
// too (an engine may have played before the answer came back): its own steps are not
// played again. The analysis board is left as it is (the live view is drawn on leaving it).
// What was played is kept for the tests (palaisPage.played).
const STEP_BOUND_MS = 2500;          // the most a step may take before the page goes on
let played = [];
game.hooks.beforeShow = (shown, view) => {
  if (view.ply <= shown.ply || state.explore) return null;
  const from = board.drawn() || shown;                 // (read before advance draws anew)
  const { steps, finished } = board.advance(view, speed());
  if (!steps.length) return null;
  played = [...played.slice(-19), { from: from.ply, to: view.ply, speed: speed(), tokens: steps.map((step) => step.token) }];
  return bounded(finished, 1000 + STEP_BOUND_MS * steps.length);
};

const panel = createPanel();
const log = createLog($("log"), { drawTurn: (entry, view) => drawWords(entry.steps, entry.tokens, view) });
const hints = createHints($("hints"), $("hint-list"), { board, drawLine: (h) => drawWords(h.steps, h.turn, state.view) });
const review = createReview();
const ending = createEnding({ onRematch: game.rematch, onLobby: game.backToLobby });
const announcer = createAnnouncer($("announce"));
const guide = createGuide({ box: $("guide"), showButton: $("guide-show"), startButton: $("guided-start"), board });
const standing = createStanding({ watch: game.watchAsSpectator, myGames: showMyGames, newGame: openNewGameDialog });

let renderCount = 0;

// Keyboard play: the board is drawn anew after each action, so the focus is carried over to
// the same place (room, square, card or button) when it is still a target, else to the
// first target, so Tab and Enter can go on from where they were.
const FOCUS_KEYS = ["room", "square", "card", "from", "token"];

function focusKey() {
  const active = document.activeElement;
  if (!active || !(active.closest && active.closest("#board, #actions"))) return null;
  for (const key of FOCUS_KEYS) if (active.dataset && active.dataset[key]) return [key, active.dataset[key]];
  return ["", ""];
}

function restoreFocus(key) {
  if (!key) return true;
  const [name, value] = key;
  const same = name ? document.querySelector(`#board .target[data-${name}="${CSS.escape(value)}"], #actions [data-${name}="${CSS.escape(value)}"]`) : null;
  const target = same || document.querySelector("#board .target, #actions button");
  if (target && target !== document.activeElement) target.focus({ preventScroll: true });   // (never scroll the page away from the board)
  return Boolean(target);
}

// A focus with nowhere to go (the others' turn: no target on the board) waits for the next
// decision, so a keyboard's player finds it where they were when their turn comes back.
let carriedFocus = null;
const focusLost = () => !document.activeElement || document.activeElement === document.body;

function render(_, part = null) {
  if (part === "standing") return standing.render(state);
  if (part && state.view) {            // a small change: only its part is drawn
    if (part === "info") panel.render(state);
    else review.render(state);
    return;
  }
  renderCount += 1;
  document.body.dataset.renders = String(renderCount);
  drawPassScreen(state);
  standing.render(state);
  const view = state.view;
  if (!view) return;
  const shown = state.explore ? state.explore.view : state.review ? state.review.view : view;
  const waiting = Boolean(state.waitingForSeat);
  const focused = focusKey() || (focusLost() ? carriedFocus : null);
  board.render(shown, { selectedFrom: state.selectedFrom, interactive: Boolean(state.explore) || (!state.review && !waiting), live: shown === view });
  panel.render(state);
  log.render(state);
  hints.render(state);
  review.render(state);
  ending.render(state);
  announcer.render(state);
  guide.render(state);
  if (!waiting) carriedFocus = restoreFocus(focused) ? null : focused;
}

subscribe(render);

// The language can change anywhere, the new-game dialog open included (it has its own
// select, since a modal dialog keeps the header out of reach): what is chosen and typed
// in the dialog stays.
async function changeLanguage(lang) {
  await setLanguage(lang, api.catalog);
  for (const id of LANGUAGE_SELECTS) $(id).value = lang;
  translateStatic();
  labelForScreenReaders();
  buildRuleOptions();
  buildSeatRows(true);
  update({ lang: state.lang + 1 });
  legend.refresh();
}

const LANGUAGE_SELECTS = ["language-select", "dialog-language"];

// The names a screen reader gives the page's regions and its icon-like controls.
function labelForScreenReaders() {
  const labels = {
    "board-area": t("Board"), side: t("Game panel"), actions: t("Your decisions"),
    log: t("Turns"), "hint-list": t("Hints"), chart: t("Analysis chart"),
    "seat-count": t("Players"), "speed-select": t("Animation"), "language-select": t("Language"),
    "dialog-language": t("Language"), "end-table": t("Score breakdown"),
  };
  for (const [id, label] of Object.entries(labels)) if ($(id)) $(id).setAttribute("aria-label", label);
}

async function main() {
  listenToDialogs();
  listenToKeys();
  listenToFolds();
  $("undo-button").addEventListener("click", game.undo);
  $("hint-button").addEventListener("click", game.hint);
  $("analyse-button").addEventListener("click", game.analyse);
  $("review-back").addEventListener("click", game.leaveReview);
  $("explore-button").addEventListener("click", game.startExplore);
  $("explore-undo").addEventListener("click", game.exploreBack);
  $("explore-leave").addEventListener("click", game.leaveExplore);
  $("pass-button").addEventListener("click", () => game.switchSeat(Number($("pass-button").dataset.seat)));
  $("save-button").addEventListener("click", game.saveRecord);
  $("resign-button").addEventListener("click", game.resign);
  $("rematch-button").addEventListener("click", game.rematch);
  $("delete-button").addEventListener("click", game.deleteGame);
  $("notify-button").addEventListener("click", game.askToNotify);
  window.addEventListener("hashchange", () => game.resumeFromAddress());
  for (const id of LANGUAGE_SELECTS) $(id).addEventListener("change", (event) => changeLanguage(event.target.value));
  listenToSpeed($("speed-select"));
  $("notation-switch").checked = notationShown();
  showNotation(notationShown());
  $("notation-switch").addEventListener("change", (event) => showNotation(event.target.checked));

  try {
    state.meta = await api.meta();
  } catch (error) {
    game.showError(error.message);
    return;
  }
  const budget = state.meta.limits.budget_ms;
  Object.assign($("budget-input"), { min: budget.min, max: budget.max, value: budget.default });
  const names = state.meta.language_names;
  const lang = preferredLanguage(state.meta.languages);
  for (const id of LANGUAGE_SELECTS) {
    for (const code of state.meta.languages) $(id).add(new Option(names[code] || code, code));
    $(id).value = lang;
  }
  await setLanguage(lang, api.catalog);
  translateStatic();
  labelForScreenReaders();
  buildRuleOptions();
  legend.refresh();
  document.body.dataset.ready = "1";
  if (!(await game.resumeFromAddress())) openNewGameDialog();
}

// What the page shows, for the browser tests and bench/web.py (read only).
window.palaisPage = {
  view: () => state.view,
  seat: () => state.seat,
  keys: () => ({ ...state.keys }),
  reviewing: () => Boolean(state.review),
  shownPly: () => (state.review ? state.review.ply : state.view && state.view.ply),
  shownView: () => (state.explore ? state.explore.view : state.review ? state.review.view : state.view),
  explore: () => state.explore,
  played: () => played.slice(),
  infoSeen: () => state.infoCount,
  connection: () => state.connection,
};

main();
