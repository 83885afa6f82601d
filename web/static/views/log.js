// The turn log: one line per turn, who played it and what it changed (its steps one click
// away, behind a ▸ button); a click on the line shows the position after it (review, as on
// lichess). Redrawn by difference: the turns already listed stay
// (a new turn is appended, a taken-back one removed), only the current mark moves.

import { SEAT_LETTERS } from "../board.js";
import { showPosition } from "../game.js";
import { t } from "../i18n.js";
import { turnSummaryText } from "../words.js";
import { seatIndex } from "../seats.js";

// The ply after the log's turn i (where the next turn starts).
export function plyAfterTurn(view, i) {
  return i + 1 < view.log.length ? view.log[i + 1].ply : view.ply;
}

export function turnLabel(entry) {
  return `${entry.round || 0}${SEAT_LETTERS[seatIndex(entry.seat)]}`;
}

export function createLog(list, { drawTurn }) {
  let shown = [];            // the signature of each listed turn
  let context = null;        // the game, seat and language the list was drawn for

  // A turn of one step is that step's words; a longer one is what it changed (one line),
  // its steps behind a button (Enter or a click on it shows them; elsewhere on the line a
  // click shows the position after the turn).
  function item(entry, view) {
    const li = document.createElement("li");
    li.tabIndex = 0;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = turnLabel(entry);
    li.append(who);
    if (!entry.summary || entry.steps.length < 2) li.append(drawTurn(entry, view));
    else li.append(...drawGrouped(entry, view));
    const open = () => showPosition(Number(li.dataset.ply));     // the position after this turn
    li.addEventListener("click", open);
    li.addEventListener("keydown", (event) => { if (event.key === "Enter" && event.target === li) open(); });
    return li;
  }

  function drawGrouped(entry, view) {
    const line = document.createElement("span");
    line.className = "turn turn-summary";
    line.textContent = turnSummaryText(entry.summary);
    const notation = document.createElement("span");
    notation.className = "tokens";
    notation.textContent = entry.tokens;
    notation.setAttribute("aria-label", t("Notation"));
    line.append(" ", notation);
    const steps = document.createElement("div");
    steps.className = "turn-steps";
    steps.hidden = true;
    steps.append(drawTurn(entry, view));
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "steps-toggle";
    const label = () => {
      toggle.textContent = steps.hidden ? "▸" : "▾";
      toggle.title = steps.hidden ? t("Show the steps") : t("Hide the steps");
      toggle.setAttribute("aria-label", toggle.title);
      toggle.setAttribute("aria-expanded", String(!steps.hidden));
    };
    label();
    toggle.addEventListener("click", (event) => {
      event.stopPropagation();             // the steps, not the position
      steps.hidden = !steps.hidden;
      label();
    });
    return [toggle, line, steps];
  }

  return {
    render(state, extra = "") {
      const view = state.view;
      const here = state.review ? state.review.ply : null;
      const now = JSON.stringify([view.game, view.seat, state.lang, extra]);
      if (now !== context) {
        list.innerHTML = "";
        shown = [];
        context = now;
      }
      const signs = view.log.map((entry) => `${entry.ply}:${entry.seat}:${entry.tokens}`);
      let same = 0;
      while (same < shown.length && same < signs.length && shown[same] === signs[same]) same += 1;
      while (list.children.length > same) list.lastChild.remove();
      for (let i = same; i < signs.length; i++) list.appendChild(item(view.log[i], view));
      shown = signs;
      let current = null;
      [...list.children].forEach((li, i) => {
        const end = plyAfterTurn(view, i);
        li.dataset.ply = end;
        const isCurrent = here !== null && here === end;
        li.classList.toggle("current", isCurrent);
        if (isCurrent) current = li;
      });
      if (current) current.scrollIntoView({ block: "nearest" });
      else if (!state.review && list.lastChild && same < signs.length) list.lastChild.scrollIntoView({ block: "nearest" });
    },
  };
}
