// The page's entry: it keeps which game and seat this browser shows, asks the server for
// views, turns clicks on legal targets into actions, and switches between playing,
// passing the device and reviewing. The board and the chart only draw (board.js, chart.js).
// A seat is the seat's key: the page holds the keys it was given (its own, from its
// link; every person's at a shared screen) and sends them with each request; with none
// it is a spectator. The games this browser holds keys for are kept in localStorage.

import { api, openGameSocket } from "./api.js";
import { createBoard, SEAT_LETTERS } from "./board.js";
import { drawChart } from "./chart.js";
import { t, tf, language, preferredLanguage, setLanguage, translateStatic } from "./i18n.js";

const $ = (id) => document.getElementById(id);

const state = {
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
  socket: null,
  busy: false,
  hints: null,
  info: null,            // the latest engine `info` message
  infoCount: 0,          // engine `info` messages received
  waitingForSeat: 0,     // a human seat the device must be passed to, else 0
};

const board = createBoard($("board"), {
  onChoose: (entry) => act(entry.token),
  onSelect: (room) => { state.selectedFrom = room; render(); },
  meta: () => state.meta,
});

// How fast the board plays out the others' turns: "instant" | "fast" | "normal" | "slow".
const SPEED_KEY = "palais.speed";
function boardSpeed() {
  try { return localStorage.getItem(SPEED_KEY) || "normal"; } catch (_) { return "normal"; }
}

// ---- showing errors -------------------------------------------------------------------

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function guarded(work) {
  if (state.busy) return;
  state.busy = true;
  try {
    showError("");
    await work();
  } catch (error) {
    showError(error.message || String(error));
  } finally {
    state.busy = false;
  }
}

// ---- the game and its socket ----------------------------------------------------------

function humanSeat(view, seat) {
  return seat >= 1 && view.kinds[seat - 1] === "human";
}

const keyOf = (seat) => state.keys[seat] || null;

// ---- the games this browser holds links for ("My games") ---------------------------------

const STORE = "palais-games";

function storedGames() {
  try {
    return JSON.parse(localStorage.getItem(STORE) || "{}") || {};
  } catch (_) {
    return {};
  }
}

function storeGame(gameId, entry) {
  const games = storedGames();
  games[gameId] = { ...(games[gameId] || {}), ...entry, seen: Date.now() };
  try { localStorage.setItem(STORE, JSON.stringify(games)); } catch (_) { /* private mode */ }
}

function forgetGame(gameId) {
  const games = storedGames();
  delete games[gameId];
  try { localStorage.setItem(STORE, JSON.stringify(games)); } catch (_) { /* private mode */ }
}

function seatLink(gameId, key) {
  const base = `${location.origin}${location.pathname}#game=${encodeURIComponent(gameId)}`;
  return key ? `${base}&key=${encodeURIComponent(key)}` : base;
}

function connect(gameId, seat) {
  if (state.socket) state.socket.close();
  state.socket = openGameSocket(gameId, keyOf(seat), onSocketMessage);
}

function onSocketMessage(message) {
  if (message.type === "view") {
    const view = message.view;
    if (!state.view || view.game !== state.gameId || view.seat !== state.seat) return;
    receiveView(view);
  } else if (message.type === "info") {
    state.info = message;
    state.infoCount += 1;
    renderEngineInfo();
  } else if (message.type === "analysis") {
    if (message.result) {
      state.analysis = message.result;
      state.analysing = false;
      $("analysis-progress").hidden = true;
      renderChart();
    } else {
      const progress = $("analysis-progress");
      progress.hidden = false;
      progress.max = Math.max(1, message.total);
      progress.value = message.done;
    }
  } else if (message.type === "error") {
    showError(message.error);
  } else if (message.type === "gone") {
    showError(t("This game is no longer on the server."));
  }
}

function startGame(gameId, view, { fromRecord = false, keys = null, owner = null } = {}) {
  const stored = storedGames()[gameId] || {};
  state.gameId = gameId;
  state.fromRecord = fromRecord;
  state.keys = keys || stored.keys || {};
  state.owner = owner || stored.owner || null;
  state.shared = Boolean(view.shared);
  state.seat = view.seat;
  if (Object.keys(state.keys).length || state.owner) {
    storeGame(gameId, { keys: state.keys, owner: state.owner, invitations: stored.invitations });
  }
  state.view = null;
  state.review = null;
  state.analysis = null;
  state.analysing = false;
  state.hints = null;
  state.info = null;
  state.waitingForSeat = 0;
  $("chart").toggleAttribute("hidden", true);     // an SVG element has no .hidden
  history.replaceState(null, "", `#game=${encodeURIComponent(gameId)}${keyOf(view.seat) ? `&key=${encodeURIComponent(keyOf(view.seat))}` : ""}`);
  connect(gameId, view.seat);
  receiveView(view);
  if (view.over) {
    api.analysis(gameId, keyOf(view.seat)).then((analysis) => {      // an analysis made before, if any
      if (state.gameId === gameId) { state.analysis = analysis; render(); }
    }).catch(() => {});
  }
}

// A new view of the page's seat: shown at once, unless the next decision belongs to
// another person at this screen (then the pass-the-device screen comes first).
// Views come both as answers and over the socket, and an answer can arrive after the
// socket has already shown later changes (engine moves): a view older than the one shown
// (a lower `version`, the game's count of changes) is dropped, and so is one of the same version.
function receiveView(view) {
  const shown = state.view;
  // (the same version again, a socket's copy of an answer or a reconnection's first view,
  // is the same View: not redrawn, so a hint hovered stays shown)
  if (shown && shown.game === view.game && shown.seat === view.seat && view.version <= shown.version) return;
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
  if (shown && !state.review && shown.game === view.game && shown.seat === view.seat && view.ply > shown.ply) {
    board.playTurn(shown, view, null, boardSpeed());     // the others' steps, played out before the redraw
  }
  render();
  announceTurn(view);
}

// The tab's title says when it is this page's decision, and a notification (if the
// person allowed them) says so when the tab is not in front.
let announcedPly = -1;
function announceTurn(view) {
  const mine = !view.over && view.legal.length > 0;
  document.title = mine ? `● ${t("Your turn")} — ${t("Palais Royal")}` : t("Palais Royal");
  if (!mine || announcedPly === view.ply) return;
  announcedPly = view.ply;
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification(t("Palais Royal"), { body: t("Your turn"), tag: view.game }); } catch (_) { /* none */ }
  }
}

function askToNotify() {
  if ("Notification" in window && Notification.permission === "default") {
    // only the button changes: a whole redraw would drop what the mouse is over
    Notification.requestPermission().then(() => {
      $("notify-button").hidden = Notification.permission !== "default";
    }).catch(() => {});
  }
}

// Shows the game from `seat` from now on (its view, its socket).
async function loadSeat(seat) {
  const view = await api.view(state.gameId, keyOf(seat));
  state.seat = seat;
  state.waitingForSeat = 0;
  history.replaceState(null, "", `#game=${encodeURIComponent(state.gameId)}${keyOf(seat) ? `&key=${encodeURIComponent(keyOf(seat))}` : ""}`);
  connect(state.gameId, seat);
  state.view = null;
  receiveView(view);
}

const switchSeat = (seat) => guarded(() => loadSeat(seat));

async function act(token) {
  await guarded(async () => {
    const view = await api.act(state.gameId, keyOf(state.seat), token);
    state.selectedFrom = null;
    state.hints = null;
    receiveView(view);
  });
}

async function undo() {
  if (!state.view || !state.view.can_undo || state.review) return;
  await guarded(async () => {
    const view = await api.undo(state.gameId, keyOf(state.seat));
    state.hints = null;
    state.selectedFrom = null;
    receiveView(view);
  });
}

async function hint() {
  if (!state.view || !state.view.legal.length || state.review) return;
  await guarded(async () => {
    $("hints").hidden = false;
    $("hint-list").innerHTML = "";
    const wait = document.createElement("li");
    wait.textContent = t("Thinking…");
    $("hint-list").appendChild(wait);
    const answer = await api.hint(state.gameId, keyOf(state.seat), language());
    state.hints = answer.hints;
    renderHints();
  });
}

// ---- review: stepping through positions and the analysis chart ------------------------

// The positions review steps through: the start, and the position after each turn.
function turnStarts() {
  const starts = (state.view ? state.view.log : []).map((entry) => entry.ply);
  starts.push(0);
  if (state.view) starts.push(state.view.ply);
  return [...new Set(starts)].sort((a, b) => a - b);
}

// The ply after the log's turn i (where the next turn starts).
function plyAfterTurn(view, i) {
  return i + 1 < view.log.length ? view.log[i + 1].ply : view.ply;
}

async function showPosition(ply) {
  await guarded(async () => {
    const view = await api.position(state.gameId, ply, keyOf(state.seat));
    state.review = { ply, view };
    board.showHints(null);
    render();
  });
}

function step(direction) {
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

function leaveReview() {
  state.review = null;
  render();
}

async function analyse() {
  await guarded(async () => {
    const progress = $("analysis-progress");
    progress.hidden = false;
    progress.value = 0;
    $("review").hidden = false;
    state.analysing = true;
    try {
      await api.analyse(state.gameId, keyOf(state.seat), language());
    } catch (error) {
      state.analysing = false;
      progress.hidden = true;
      throw error;
    }
  });
}

function renderChart() {
  const chart = $("chart");
  if (!state.analysis || !state.view) {
    chart.toggleAttribute("hidden", true);
    return;
  }
  const turns = state.analysis.turns || [];
  const plyAfter = (i) => (i + 1 < turns.length ? turns[i + 1].ply : state.view.ply);   // after turn i
  chart.toggleAttribute("hidden", false);
  $("review").hidden = false;
  drawChart(chart, state.analysis, state.view.n_players, plyAfter, (ply) => showPosition(ply));
}

// ---- drawing the page -------------------------------------------------------------------

function seatName(view, seat) {
  return view.names[seat - 1] || tf("Seat {n}", { n: seat });
}

function promptFor(view) {
  if (view.over) {
    const order = view.players.map((p) => p.seat)
      .sort((a, b) => view.scores[b - 1] - view.scores[a - 1] || view.players[b - 1].gold - view.players[a - 1].gold);
    const winner = order[0];
    const line = order.map((s) => `${SEAT_LETTERS[s - 1]} ${view.scores[s - 1]}`).join(" · ");
    return `${t("Game over")}: ${line}. ${tf("{name} (seat {letter}) wins.", { name: seatName(view, winner), letter: SEAT_LETTERS[winner - 1] })}`;
  }
  const mover = `${seatName(view, view.to_move)} (${SEAT_LETTERS[view.to_move - 1]})`;
  const round = view.round ? `${tf("Round {n}", { n: view.round })}${view.last_round ? ` (${t("last round")})` : ""}` : t("Setup");
  if (!view.legal.length) {
    return `${round} · ${view.thinking ? tf("{who} is thinking…", { who: mover }) : tf("{who} to move", { who: mover })}`;
  }
  const kinds = new Set(view.legal.map((entry) => entry.kind));
  let what;
  if (kinds.has("gate")) what = t("Parade Ground: how many servants go to the GATE?");
  else if (kinds.has("move")) what = state.selectedFrom
    ? tf("Stairway: move from {room} to which room?", { room: t(state.selectedFrom) })
    : tf("Stairway: pick a room to move a servant from ({n} moves left), or end the moves.", { n: view.turn.moves_left });
  else if (kinds.has("recruit")) what = t("Recruit a noble: click a square of the park, or end recruiting.");
  else if (kinds.has("take")) what = view.stage === "MADAME_BONUS" ? t("Madame's majority: put one more servant there?") : t("King's majority: put one more servant there?");
  else if (kinds.has("room")) what = view.stage === "SETUP" ? t("Setup: click a room to place a servant.") : t("Click the room to take the servant from.");
  else if (kinds.has("play") || kinds.has("continue")) what = t("Play a card from your hand, or continue.");
  else what = t("Your decision.");
  return `${round} · ${tf("{who} to move", { who: mover })}: ${what}`;
}

function reviewPrompt(shown) {
  if (shown.over) return `${t("Review")}: ${t("the end of the game")}`;
  const round = shown.round ? tf("Round {n}", { n: shown.round }) : t("Setup");
  const mover = `${seatName(shown, shown.to_move)} (${SEAT_LETTERS[shown.to_move - 1]})`;
  return `${t("Review")}: ${round} · ${tf("{who} to move", { who: mover })}`;
}

const BUTTON_TEXT = {
  take: "Take the bonus",
  decline: "Decline",
  continue: "Continue",
};

function renderActions(view) {
  const box = $("actions");
  box.innerHTML = "";
  if (state.review) return;
  const add = (label, token, primary = false) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.dataset.token = token;
    if (primary) button.classList.add("primary");
    button.addEventListener("click", () => act(token));
    box.appendChild(button);
  };
  for (const entry of view.legal) {
    if (entry.kind === "gate") add(tf("{n} to the GATE", { n: entry.count }), entry.token);
    else if (entry.kind in BUTTON_TEXT) add(t(BUTTON_TEXT[entry.kind]), entry.token, entry.kind !== "decline");
    else if (entry.kind === "end") {
      add(view.stage === "MOVES" ? t("End the moves") : view.stage === "RECRUIT" ? t("End recruiting") : t("End"), entry.token, true);
    }
  }
  if (state.selectedFrom) {
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = t("Cancel the move");
    cancel.addEventListener("click", () => { state.selectedFrom = null; render(); });
    box.appendChild(cancel);
  }
}

function renderLog(view) {
  const list = $("log");
  list.innerHTML = "";
  const here = state.review ? state.review.ply : null;
  view.log.forEach((entry, i) => {
    const item = document.createElement("li");
    item.tabIndex = 0;
    const end = plyAfterTurn(view, i);
    item.dataset.ply = end;
    if (here !== null && here === end) item.classList.add("current");
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = entry.round ? `${entry.round}${SEAT_LETTERS[entry.seat - 1]}` : `0${SEAT_LETTERS[entry.seat - 1]}`;
    const tokens = document.createElement("span");
    tokens.className = "tokens";
    tokens.textContent = entry.tokens;
    item.append(who, tokens);
    const open = () => showPosition(end);     // the position after this turn, as on lichess
    item.addEventListener("click", open);
    item.addEventListener("keydown", (event) => { if (event.key === "Enter") open(); });
    list.appendChild(item);
  });
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
  else if (!state.review && list.lastChild) list.lastChild.scrollIntoView({ block: "nearest" });
}

function renderHints() {
  const list = $("hint-list");
  list.innerHTML = "";
  $("hints").hidden = !state.hints;
  if (!state.hints) return;
  for (const h of state.hints) {
    const item = document.createElement("li");
    item.tabIndex = 0;
    item.className = "hint";
    const head = document.createElement("div");
    head.innerHTML = "";
    const tokens = document.createElement("span");
    tokens.className = "tokens";
    tokens.textContent = h.turn;
    head.append(tokens, document.createTextNode(
      ` — ${tf("win {win}%", { win: Math.round(h.win * 100) })} · ${tf("{score} VP expected", { score: h.score.toFixed(1) })}`));
    const words = document.createElement("div");
    words.className = "explanation";
    words.textContent = h.explanation;
    item.append(head, words);
    const show = () => board.showHints(h);
    const hide = () => board.showHints(null);
    item.addEventListener("mouseenter", show);
    item.addEventListener("focus", show);
    item.addEventListener("mouseleave", hide);
    item.addEventListener("blur", hide);
    list.appendChild(item);
  }
}

function renderEngineInfo() {
  const box = $("engine-info");
  const info = state.info;
  if (!info || !state.view || state.view.thinking !== info.seat) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.innerHTML = "";
  const head = document.createElement("div");
  head.textContent = `${tf("{name} (seat {letter}) is thinking", { name: seatName(state.view, info.seat), letter: SEAT_LETTERS[info.seat - 1] })}: `
    + `${tf("win {win}%", { win: Math.round(info.win * 100) })} · ${tf("{score} VP expected", { score: Number(info.score).toFixed(1) })}`
    + ` · ${tf("{n} iterations", { n: info.iterations })}`;
  const line = document.createElement("div");
  line.className = "pv";
  line.textContent = info.pv;
  box.append(head, line);
}

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
  if (!key) return;
  const [name, value] = key;
  const same = name ? document.querySelector(`#board .target[data-${name}="${CSS.escape(value)}"], #actions [data-${name}="${CSS.escape(value)}"]`) : null;
  const target = same || document.querySelector("#board .target, #actions button");
  if (target) target.focus();
}

function render() {
  renderCount += 1;
  document.body.dataset.renders = String(renderCount);
  const view = state.view;
  const pass = $("pass-screen");
  if (state.waitingForSeat && view) {
    const seat = state.waitingForSeat;
    $("pass-text").textContent = tf("Pass the device to {name} (seat {letter}).", { name: seatName(view, seat), letter: SEAT_LETTERS[seat - 1] });
    $("pass-button").textContent = tf("I am seat {n}", { n: seat });
    $("pass-button").dataset.seat = seat;
    pass.hidden = false;
    $("pass-button").focus();
  } else {
    pass.hidden = true;
  }
  if (!view) return;
  const shown = state.review ? state.review.view : view;
  const waiting = Boolean(state.waitingForSeat);
  const focused = focusKey();
  board.render(shown, { selectedFrom: state.selectedFrom, interactive: !state.review && !waiting });
  $("status").textContent = state.review ? reviewPrompt(shown) : promptFor(view);
  renderActions(view);
  renderLog(view);
  renderHints();
  renderEngineInfo();
  const reviewing = Boolean(state.review);
  $("review").hidden = !(reviewing || state.analysis || state.analysing || view.over);
  $("review-position").textContent = reviewing ? tf("Position after {n} actions", { n: state.review.ply }) : "";
  $("review-back").hidden = !reviewing;
  $("undo-button").disabled = reviewing || !view.can_undo;
  $("hint-button").disabled = reviewing || !view.legal.length;
  $("analyse-button").disabled = state.analysing || !(view.over || state.fromRecord);
  const mine = Boolean(keyOf(state.seat));
  $("save-button").disabled = !(mine || view.over);
  $("resign-button").hidden = !mine || view.over || !humanSeat(view, state.seat);
  $("rematch-button").hidden = !state.owner || !view.over || Boolean(view.rematch);
  $("delete-button").hidden = !state.owner;
  $("invite-button").hidden = !state.owner || state.shared;
  $("notify-button").hidden = !("Notification" in window) || Notification.permission !== "default" || !mine;
  renderFairness(view);
  renderGameOver(view);
  if (state.analysis) renderChart();
  if (!waiting) restoreFocus(focused);
}

// The draws' commitment from the start, and once the game is over the secret that opens it.
function renderFairness(view) {
  const box = $("fairness");
  const fair = view.fairness || {};
  box.hidden = !fair.commitment;
  if (!fair.commitment) return;
  $("commitment").textContent = fair.commitment;
  $("draw-secret-row").hidden = !fair.secret;
  $("draw-secret").textContent = fair.secret || "";
}

// The end: every seat's score, the winner first, and what comes next.
function renderGameOver(view) {
  const box = $("game-over");
  box.hidden = !view.over;
  if (!view.over) return;
  const order = view.players.map((p) => p.seat)
    .sort((a, b) => view.scores[b - 1] - view.scores[a - 1] || view.players[b - 1].gold - view.players[a - 1].gold);
  const rows = $("game-over-scores");
  rows.innerHTML = "";
  order.forEach((seat, i) => {
    const row = document.createElement("tr");
    const resigned = (view.resigned || []).includes(seat) ? ` (${t("resigned")})` : "";
    for (const text of [String(i + 1), `${SEAT_LETTERS[seat - 1]} ${seatName(view, seat)}${resigned}`,
      String(view.scores[seat - 1]), String(view.players[seat - 1].gold)]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.appendChild(cell);
    }
    rows.appendChild(row);
  });
  const next = $("rematch-link");
  next.hidden = !view.rematch;
  if (view.rematch) next.href = seatLink(view.rematch, keyOf(state.seat));
}

async function saveRecord() {
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

async function resign() {
  if (!window.confirm(t("Resign? The built-in greedy player plays your seat to the end of the game."))) return;
  await guarded(async () => receiveView(await api.resign(state.gameId, keyOf(state.seat))));
}

async function rematch() {
  await guarded(async () => {
    const answer = await api.rematch(state.gameId, state.owner);
    storeGame(answer.game, { keys: rotatedKeys(state.keys, state.view.n_players), owner: state.owner });
    await openGame(answer.game, rotatedKeys(state.keys, state.view.n_players)[state.seat % state.view.n_players + 1]);
  });
}

// In a rematch every seat moves one place on: seat n's key now opens seat n + 1.
function rotatedKeys(keys, n) {
  const out = {};
  for (const [seat, key] of Object.entries(keys)) out[(Number(seat) % n) + 1] = key;
  return out;
}

async function deleteGame() {
  if (!window.confirm(t("Delete this game on the server, for every seat?"))) return;
  await guarded(async () => {
    await api.remove(state.gameId, state.owner);
    forgetGame(state.gameId);
    if (state.socket) state.socket.close();
    state.view = null;
    state.gameId = null;
    history.replaceState(null, "", location.pathname);
    openNewGameDialog();
  });
}

// ---- invitations: a link per person's seat, and one to watch -----------------------------

function showInvitations(gameId, seats) {
  const list = $("invite-list");
  list.innerHTML = "";
  const rows = seats.filter((s) => s.key && !(s.seat in state.keys))
    .map((s) => ({ label: tf("{name} (seat {letter})", { name: s.name, letter: SEAT_LETTERS[s.seat - 1] }), link: seatLink(gameId, s.key) }));
  rows.push({ label: t("Spectators"), link: seatLink(gameId, null) });
  for (const { label, link } of rows) {
    const item = document.createElement("li");
    const name = document.createElement("span");
    name.textContent = label;
    const field = document.createElement("input");
    field.readOnly = true;
    field.value = link;
    field.className = "invite-link";
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = t("Copy");
    copy.addEventListener("click", async () => {
      field.select();
      try { await navigator.clipboard.writeText(link); } catch (_) { document.execCommand("copy"); }
      copy.textContent = t("Copied");
    });
    item.append(name, field, copy);
    list.appendChild(item);
  }
  const dialog = $("invite-dialog");
  if (!dialog.open) dialog.showModal();
}

// ---- My games ---------------------------------------------------------------------------

async function showMyGames() {
  await guarded(async () => {
    const stored = storedGames();
    const ids = Object.keys(stored).sort((a, b) => (stored[b].seen || 0) - (stored[a].seen || 0)).slice(0, 100);
    const answer = await api.myGames(ids);
    const list = $("my-games-list");
    list.innerHTML = "";
    const known = new Set(answer.games.map((g) => g.game));
    for (const id of ids) if (!known.has(id)) forgetGame(id);
    for (const game of answer.games) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      const keys = stored[game.game].keys || {};
      const seat = Object.keys(keys)[0];
      link.href = seatLink(game.game, seat ? keys[seat] : null);
      link.textContent = game.names.join(" · ");
      link.addEventListener("click", () => $("my-games-dialog").close());
      const note = document.createElement("span");
      note.textContent = ` — ${game.over ? t("Game over") : tf("{n} actions", { n: game.ply })}`;
      item.append(link, note);
      list.appendChild(item);
    }
    $("my-games-empty").hidden = answer.games.length > 0;
    const dialog = $("my-games-dialog");
    if (!dialog.open) dialog.showModal();
  });
}

// ---- the new-game dialog ----------------------------------------------------------------

function seatRow(index, players) {
  const row = document.createElement("div");
  row.className = "seat-row";
  const letter = document.createElement("strong");
  letter.textContent = SEAT_LETTERS[index];
  const kind = document.createElement("select");
  kind.className = "seat-kind";
  kind.setAttribute("aria-label", tf("Seat {n}", { n: index + 1 }));
  const person = new Option(t("Person"), "human");
  kind.add(person);
  for (const player of players) kind.add(new Option(player.label || player.name, `engine:${player.name}`));
  kind.value = index === 0 ? "human" : (players.find((p) => p.name === "random") ? "engine:random" : "human");
  const name = document.createElement("input");
  name.className = "seat-name";
  name.placeholder = t("Name");
  name.maxLength = 40;
  name.setAttribute("aria-label", tf("Name of seat {n}", { n: index + 1 }));
  row.append(letter, kind, name);
  return row;
}

function buildSeatRows() {
  const rows = $("seat-rows");
  const count = Number($("seat-count").value);
  const players = state.meta ? state.meta.players : [];
  while (rows.children.length > count) rows.removeChild(rows.lastChild);
  while (rows.children.length < count) rows.appendChild(seatRow(rows.children.length, players));
}

function buildRuleOptions() {
  const box = $("rule-options");
  for (const old of box.querySelectorAll("label")) old.remove();
  const options = state.meta ? state.meta.rule_options : [];
  box.hidden = !options.length;
  for (const option of options) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.dataset.option = option.name;
    input.dataset.type = option.type;
    // The game's catalog names each option by its code (msgctxt "rule option") and holds
    // its help line as written (play/i18n.py game_vocabulary).
    const key = `rule option:${option.name}`;
    const name = t(key) === key ? option.name : t(key);
    if (option.type === "bool") {
      input.type = "checkbox";
      input.checked = Boolean(option.default);
      label.append(input, document.createTextNode(` ${name}`));
    } else {
      input.type = "number";
      input.step = "1";
      input.value = option.default;
      label.append(document.createTextNode(`${name} `), input);
    }
    label.title = option.help ? t(option.help) : "";
    box.appendChild(label);
  }
}

function openNewGameDialog() {
  buildSeatRows();
  $("new-game-error").hidden = true;
  const dialog = $("new-game-dialog");
  if (!dialog.open) dialog.showModal();
}

function readNewGameForm() {
  const players = [];
  const names = [];
  for (const row of $("seat-rows").children) {
    const kind = row.querySelector(".seat-kind").value;
    players.push(kind === "human" ? { kind: "human" } : { kind: "engine", name: kind.slice("engine:".length) });
    names.push(row.querySelector(".seat-name").value.trim());
  }
  const seedText = $("seed-input").value.trim();
  const options = {};
  for (const input of $("rule-options").querySelectorAll("input")) {
    options[input.dataset.option] = input.dataset.type === "bool" ? input.checked : Number(input.value);
  }
  return {
    players,
    first_game: document.querySelector('input[name="deal"]:checked').value === "first",
    seed: seedText === "" ? null : Number(seedText),
    budget_ms: Number($("budget-input").value),
    options,
    names: names.some((name) => name) ? names.map((name, i) => name || (players[i].kind === "human" ? tf("Seat {n}", { n: i + 1 }) : players[i].name)) : null,
    shared: document.querySelector('input[name="where"]:checked').value === "shared",
  };
}

async function submitNewGame(event) {
  event.preventDefault();
  const errorBox = $("new-game-error");
  try {
    const answer = await api.newGame(readNewGameForm());
    $("new-game-dialog").close();
    const keys = {};
    for (const seat of answer.mine) keys[seat] = answer.seats[seat - 1].key;
    storeGame(answer.game, { invitations: answer.shared ? null : answer.seats });
    startGame(answer.game, answer.view, { keys, owner: answer.owner });
    if (!answer.shared && answer.seats.some((s) => s.key && !(s.seat in keys))) showInvitations(answer.game, answer.seats);
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
}

// ---- loading a record -------------------------------------------------------------------

async function loadRecord(file) {
  await guarded(async () => {
    if (state.meta && file.size > state.meta.limits.max_upload_bytes) {
      throw new Error(tf("{file} is too large ({size} bytes; the limit is {limit}).", {
        file: file.name, size: file.size, limit: state.meta.limits.max_upload_bytes }));
    }
    const text = await file.text();
    const players = isOver(text) ? null : await askLoadPlayers(text);
    if (players === undefined) return;                  // cancelled
    const answer = await api.load(text, players);
    const keys = {};
    for (const seat of answer.mine) keys[seat] = answer.seats[seat - 1].key;
    startGame(answer.game, answer.view, { fromRecord: true, keys, owner: answer.owner });
    const view = answer.view;
    if (!view.over && humanSeat(view, view.to_move) && keys[view.to_move]) await loadSeat(view.to_move);
  });
}

const isOver = (text) => /^\[Scores /m.test(text);

// A record that is not over can be played on: who plays each seat (a person at this screen,
// or an engine)? Resolves to "human,greedy,..." or undefined when cancelled.
function askLoadPlayers(text) {
  const count = Number((/^\[Players "(\d)"\]/m.exec(text) || [])[1] || 0);
  if (!(count >= 2 && count <= 4)) return Promise.resolve(null);   // the server says what is wrong
  const rows = $("load-seats");
  rows.innerHTML = "";
  for (let i = 0; i < count; i++) {
    const row = seatRow(i, state.meta ? state.meta.players : []);
    row.querySelector(".seat-kind").value = "human";
    row.querySelector(".seat-name").remove();
    rows.appendChild(row);
  }
  const dialog = $("load-dialog");
  return new Promise((resolve) => {
    const done = (value) => { dialog.close(); resolve(value); };
    $("load-start").onclick = (event) => {
      event.preventDefault();
      done([...rows.children].map((row) => {
        const kind = row.querySelector(".seat-kind").value;
        return kind === "human" ? "human" : kind.slice("engine:".length);
      }).join(","));
    };
    $("load-cancel").onclick = () => done(undefined);
    dialog.showModal();
  });
}

// ---- keyboard ---------------------------------------------------------------------------

function onKey(event) {
  if ($("new-game-dialog").open || event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = (event.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") return;
  if (event.key === "u") undo();
  else if (event.key === "h") hint();
  else if (event.key === "ArrowLeft") { event.preventDefault(); step(-1); }
  else if (event.key === "ArrowRight") { event.preventDefault(); step(1); }
  else if (event.key === "Escape") {
    if (state.selectedFrom) { state.selectedFrom = null; render(); } else if (state.review) leaveReview();
  }
}

// ---- start ------------------------------------------------------------------------------

async function changeLanguage(lang) {
  await setLanguage(lang, api.catalog);
  translateStatic();
  buildRuleOptions();
  $("seat-rows").innerHTML = "";
  buildSeatRows();
  render();
}

// A game opened by its address: `#game=ID&key=KEY` (a seat's link) or `#game=ID` (to
// watch). The seat is the one the key opens; the keys this browser holds for the game
// (a shared screen's, the owner's) come back from localStorage.
async function openGame(gameId, key) {
  const stored = storedGames()[gameId] || {};
  const view = await api.view(gameId, key);
  const keys = { ...(stored.keys || {}) };
  if (key && view.seat) keys[view.seat] = key;
  startGame(gameId, view, { keys, owner: stored.owner || null });
}

async function resumeFromAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  const gameId = params.get("game");
  if (!gameId) return false;
  try {
    await openGame(gameId, params.get("key"));
    return true;
  } catch (error) {
    if (error.status === 404) forgetGame(gameId);
    showError(error.message || String(error));
    return true;
  }
}

async function main() {
  $("new-game-button").addEventListener("click", openNewGameDialog);
  $("new-game-cancel").addEventListener("click", () => $("new-game-dialog").close());
  $("new-game-form").addEventListener("submit", submitNewGame);
  $("seat-count").addEventListener("change", buildSeatRows);
  $("undo-button").addEventListener("click", undo);
  $("hint-button").addEventListener("click", hint);
  $("analyse-button").addEventListener("click", analyse);
  $("review-back").addEventListener("click", leaveReview);
  $("pass-button").addEventListener("click", () => switchSeat(Number($("pass-button").dataset.seat)));
  $("save-button").addEventListener("click", saveRecord);
  $("resign-button").addEventListener("click", resign);
  $("rematch-button").addEventListener("click", rematch);
  $("delete-button").addEventListener("click", deleteGame);
  $("invite-button").addEventListener("click", () => {
    const stored = storedGames()[state.gameId] || {};
    if (stored.invitations) showInvitations(state.gameId, stored.invitations);
  });
  $("invite-done").addEventListener("click", () => $("invite-dialog").close());
  $("notify-button").addEventListener("click", askToNotify);
  $("my-games-button").addEventListener("click", showMyGames);
  $("my-games-close").addEventListener("click", () => $("my-games-dialog").close());
  window.addEventListener("hashchange", () => resumeFromAddress());
  $("load-input").addEventListener("change", (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (file) loadRecord(file);
  });
  $("language-select").addEventListener("change", (event) => changeLanguage(event.target.value));
  document.addEventListener("keydown", onKey);

  try {
    state.meta = await api.meta();
  } catch (error) {
    showError(error.message);
    return;
  }
  const budget = state.meta.limits.budget_ms;
  Object.assign($("budget-input"), { min: budget.min, max: budget.max, value: budget.default });
  const select = $("language-select");
  const names = { en: "English", fr: "Français", zh: "中文" };
  for (const lang of state.meta.languages) select.add(new Option(names[lang] || lang, lang));
  const lang = preferredLanguage(state.meta.languages);
  select.value = lang;
  await setLanguage(lang, api.catalog);
  translateStatic();
  buildRuleOptions();
  document.body.dataset.ready = "1";
  if (!(await resumeFromAddress())) openNewGameDialog();
}

// What the page shows, for the browser tests and bench/web.py (read only).
window.palaisPage = {
  view: () => state.view,
  seat: () => state.seat,
  keys: () => ({ ...state.keys }),
  reviewing: () => Boolean(state.review),
  shownPly: () => (state.review ? state.review.ply : state.view && state.view.ply),
  shownView: () => (state.review ? state.review.view : state.view),
  infoSeen: () => state.infoCount,
};

main();
