// The turn log: one line per turn, who played it and what; a click shows the position
// after it (review, as on lichess). Redrawn by difference: the turns already listed stay
// (a new turn is appended, a taken-back one removed), only the current mark moves.

import { SEAT_LETTERS } from "../board.js";
import { showPosition } from "../game.js";

// The ply after the log's turn i (where the next turn starts).
export function plyAfterTurn(view, i) {
  return i + 1 < view.log.length ? view.log[i + 1].ply : view.ply;
}

export function turnLabel(entry) {
  return `${entry.round || 0}${SEAT_LETTERS[entry.seat - 1]}`;
}

export function createLog(list, { drawTurn }) {
  let shown = [];            // the signature of each listed turn
  let context = null;        // the game, seat and language the list was drawn for

  function item(entry, view) {
    const li = document.createElement("li");
    li.tabIndex = 0;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = turnLabel(entry);
    li.append(who, drawTurn(entry, view));
    const open = () => showPosition(Number(li.dataset.ply));     // the position after this turn
    li.addEventListener("click", open);
    li.addEventListener("keydown", (event) => { if (event.key === "Enter") open(); });
    return li;
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
