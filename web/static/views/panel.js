// The side panel's head: what the page asks now (the prompt), the buttons of the decisions
// that have no place on the board, the header's buttons (undo, hint, save, ...), an engine's
// live thinking, the draws' fairness and the pass-the-device screen. Each part is redrawn
// only when what it shows changed.

import { SEAT_LETTERS } from "../board.js";
import { act, exploreStep, select } from "../game.js";
import { t, tf } from "../i18n.js";
import { humanSeat, keyOf } from "../store.js";
import { expectedScore, movesLeft, passDeviceButton, passDeviceText, pieceName, reviewRound, seatName } from "../words.js";
import { seatIndex } from "../seats.js";

export { seatName };

const $ = (id) => document.getElementById(id);

export const seatLabel = (view, seat) => `${seatName(view, seat)} (${SEAT_LETTERS[seatIndex(seat)]})`;

// The seats, the winner first: the highest score, then the most gold (RULES.md's tie-break).
export function ranking(view) {
  return view.players.map((p) => p.seat)
    .sort((a, b) => view.scores[seatIndex(b)] - view.scores[seatIndex(a)] || view.players[seatIndex(b)].gold - view.players[seatIndex(a)].gold);
}

function promptFor(view, selectedFrom) {
  if (view.over) {
    const order = ranking(view);
    const winner = order[0];
    const line = order.map((s) => `${SEAT_LETTERS[seatIndex(s)]} ${view.scores[seatIndex(s)]}`).join(" · ");
    return `${t("Game over")}: ${line}. ${tf("{name} (seat {letter}) wins.", { name: seatName(view, winner), letter: SEAT_LETTERS[seatIndex(winner)] })}`;
  }
  const mover = seatLabel(view, view.to_move);
  const round = view.round ? `${tf("Round {n}", { n: view.round })}${view.last_round ? ` (${t("last round")})` : ""}` : t("Setup");
  if (!view.legal.length) {
    return `${round} · ${view.thinking ? tf("{who} is thinking…", { who: mover }) : tf("{who} to move", { who: mover })}`;
  }
  const kinds = new Set(view.legal.map((entry) => entry.kind));
  let what;
  if (kinds.has("gate")) what = t("Parade Ground: how many servants go to the GATE?");
  else if (kinds.has("move")) what = selectedFrom
    ? tf("Stairway: move from {room} to which room?", { room: pieceName("room", selectedFrom) })
    : tf("Stairway: pick a room to move a servant from ({left}), or end the moves.", { left: movesLeft(view.turn.moves_left) });
  else if (kinds.has("recruit")) what = t("Recruit a noble: click a square of the park, or end recruiting.");
  else if (kinds.has("take")) what = view.stage === "MADAME_BONUS" ? t("Madame's majority: put one more servant there?") : t("King's majority: put one more servant there?");
  else if (kinds.has("room")) what = view.stage === "SETUP" ? t("Setup: click a room to place a servant.") : t("Click the room to take the servant from.");
  else if (kinds.has("play") || kinds.has("continue")) what = t("Play a card from your hand, or continue.");
  else what = t("Your decision.");
  return `${round} · ${tf("{who} to move", { who: mover })}: ${what}`;
}

function reviewPrompt(shown) {
  if (shown.over) return `${t("Review")}: ${t("the end of the game")}`;
  const round = reviewRound(shown);
  return `${t("Review")}: ${round} · ${tf("{who} to move", { who: seatLabel(shown, shown.to_move) })}`;
}

const BUTTON_TEXT = {
  take: "Take the bonus",
  decline: "Decline",
  continue: "Continue",
};

function drawActions(view, state) {
  const box = $("actions");
  box.innerHTML = "";
  if (state.explore) view = state.explore.view;         // the analysis board's line goes on
  else if (state.review) return;
  const choose = state.explore ? exploreStep : act;
  const add = (label, token, primary = false, cls = null) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.dataset.token = token;
    if (primary) button.classList.add("primary");
    if (cls) button.classList.add(cls);
    button.addEventListener("click", () => choose(token));
    box.appendChild(button);
  };
  for (const entry of view.legal) {
    // (a phone folds the hand away with the panels: its cards are buttons here too)
    if (entry.kind === "play") add(tf("Play {card}", { card: pieceName("card", entry.card) }), entry.token, false, "phone-only");
    else if (entry.kind === "gate") add(tf("{n} to the GATE", { n: entry.count }), entry.token);
    else if (entry.kind in BUTTON_TEXT) add(t(BUTTON_TEXT[entry.kind]), entry.token, entry.kind !== "decline");
    else if (entry.kind === "end") {
      add(view.stage === "MOVES" ? t("End the moves") : view.stage === "RECRUIT" ? t("End recruiting") : t("End"), entry.token, true);
    }
  }
  if (state.selectedFrom) {
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = t("Cancel the move");
    cancel.addEventListener("click", () => select(null));
    box.appendChild(cancel);
  }
}

// The engine's own estimate (its win probability, expected score and line) is hidden from a
// person playing against it unless they turn it on (as lichess hides its evaluation during
// play): the setting `palais.estimate` in localStorage, off by default. A spectator sees it.
const ESTIMATE_KEY = "palais.estimate";

function estimateWanted() {
  try { return localStorage.getItem(ESTIMATE_KEY) === "1"; } catch (_) { return false; }
}

const estimateShown = (state) => !state.seat || Boolean(state.view && state.view.over) || estimateWanted();

function drawEngineInfo(state) {
  const box = $("engine-info");
  const info = state.info;
  if (!info || !state.view || state.view.thinking !== info.seat) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.innerHTML = "";
  const shown = estimateShown(state);
  box.dataset.estimate = shown ? "shown" : "hidden";
  const thinking = tf("{name} (seat {letter}) is thinking", { name: seatName(state.view, info.seat), letter: SEAT_LETTERS[seatIndex(info.seat)] });
  const iterations = tf("{n} iterations", { n: info.iterations });
  const head = document.createElement("div");
  if (!shown) {
    head.textContent = `${thinking} · ${iterations}`;
    box.append(head);
    return;
  }
  head.textContent = `${thinking}: `
    + `${tf("win {win}%", { win: Math.round(info.win * 100) })} · ${expectedScore(Number(info.score))}`
    + ` · ${iterations}`;
  const line = document.createElement("div");
  line.className = "pv";
  line.textContent = info.pv;
  box.append(head, line);
}

// The draws' commitment from the start, and once the game is over the secret that opens it.
function drawFairness(view) {
  const box = $("fairness");
  const fair = view.fairness || {};
  box.hidden = !fair.commitment;
  if (!fair.commitment) return;
  $("commitment").textContent = fair.commitment;
  $("draw-secret-row").hidden = !fair.secret;
  $("draw-secret").textContent = fair.secret || "";
}

export function drawPassScreen(state) {
  const view = state.view;
  const pass = $("pass-screen");
  if (state.waitingForSeat && view) {
    const seat = state.waitingForSeat;
    $("pass-text").textContent = passDeviceText(view, seat);
    $("pass-button").textContent = passDeviceButton(seat);
    $("pass-button").dataset.seat = seat;
    if (pass.hidden) {
      pass.hidden = false;
      $("pass-button").focus();
    }
  } else {
    pass.hidden = true;
  }
}

// Redraws a part only when its key (what it shows) changed since the last time.
function keyed() {
  let last = null;
  return (key, draw) => {
    if (key === last) return;
    last = key;
    draw();
  };
}

export function createPanel() {
  const actions = keyed();
  const info = keyed();
  let last = null;
  $("estimate-switch").checked = estimateWanted();
  $("estimate-switch").addEventListener("change", (event) => {
    try { localStorage.setItem(ESTIMATE_KEY, event.target.checked ? "1" : "0"); } catch (_) { /* private mode */ }
    if (last) drawEngineInfo(last);
  });
  return {
    render(state) {
      const view = state.view;
      const shown = state.review ? state.review.view : view;
      const prompt = state.explore ? `${t("Analysis board")}: ${promptFor(state.explore.view, state.selectedFrom)}`
        : state.review ? reviewPrompt(shown) : promptFor(view, state.selectedFrom);
      if ($("status").textContent !== prompt) $("status").textContent = prompt;   // (a live region: said again only when it changed)
      actions(JSON.stringify([view.game, view.version, view.seat, state.selectedFrom, Boolean(state.review),
        state.explore && state.explore.line, state.lang]),
        () => drawActions(view, state));
      last = state;
      info(JSON.stringify([state.infoCount, view.thinking, state.lang, estimateShown(state)]), () => drawEngineInfo(state));
      $("estimate-toggle").hidden = !state.seat || view.over || view.kinds.every((kind) => kind === "human");
      const reviewing = Boolean(state.review);
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
      drawFairness(view);
    },
  };
}
