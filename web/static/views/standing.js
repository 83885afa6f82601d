// Where the page stands, always said: the connection to the server (lost, the game put away
// while idle, connected again), a spectator's page (and how to get a seat), and a link that
// opens nothing (no such game, or a key that is no seat of the game) as a message with a way
// on. The tab's title follows the connection too (game.js's updateTitle).

import { t } from "../i18n.js";

const $ = (id) => document.getElementById(id);

// state.connection -> the banner's words ("open": no banner).
const CONNECTION_TEXT = {
  lost: () => t("Connection to the server lost: reconnecting…"),
  idle: () => t("This game was put away on the server after being idle: bringing it back…"),
  back: () => t("Connected again."),
};

function drawConnection(state) {
  const box = $("connection");
  const text = state.view ? CONNECTION_TEXT[state.connection] : null;
  box.hidden = !text;
  box.dataset.state = state.connection;
  // (while the connection is lost nothing can be played: style.css greys the board out)
  document.body.dataset.connection = text ? state.connection : "open";
  box.classList.toggle("back", state.connection === "back");
  if (text) box.textContent = text();
}

function drawSpectator(state) {
  const box = $("standing");
  const watching = Boolean(state.view) && !state.seat && !state.notice;
  box.hidden = !watching;
  if (!watching) return;
  box.innerHTML = "";
  const head = document.createElement("strong");
  head.textContent = t("You are watching this game as a spectator: you see no hand and cannot play.");
  box.append(head);
  if (!state.view.kinds.includes("human")) return;        // engines only: no seat to get
  const how = document.createElement("span");
  how.textContent = t("To play, ask a player for a seat link: the page of the game's creator shares seats with Invite.");
  box.append(how);
}

// state.notice: null, or {kind: "no-game" | "bad-key", gameId}.
function drawNotice(state, actions) {
  const box = $("notice");
  const notice = state.notice;
  box.hidden = !notice;
  box.dataset.kind = notice ? notice.kind : "";
  if (!notice) return;
  const buttons = $("notice-buttons");
  buttons.innerHTML = "";
  const add = (label, action, name) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.dataset.notice = name;
    button.addEventListener("click", action);
    buttons.appendChild(button);
  };
  if (notice.kind === "bad-key") {
    $("notice-title").textContent = t("This seat link is not valid for this game");
    $("notice-text").textContent = t("Its key opens no seat of this game: it may be mistyped or cut short, or come from another game. Ask the player who sent it for the link again, or watch the game as a spectator.");
    add(t("Watch as a spectator"), () => actions.watch(notice.gameId), "watch");
    add(t("My games"), actions.myGames, "my-games");
  } else {
    $("notice-title").textContent = t("No such game");
    $("notice-text").textContent = t("It may have been deleted or never existed.");
    add(t("My games"), actions.myGames, "my-games");
    add(t("New game"), actions.newGame, "new-game");
  }
}

// actions: {watch(gameId), myGames(), newGame()}.
export function createStanding(actions) {
  return {
    render(state) {
      drawConnection(state);
      drawSpectator(state);
      drawNotice(state, actions);
    },
  };
}
