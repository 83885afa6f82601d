// The end of a game: every seat's score, the winner first, and what comes next (the
// rematch once there is one). Redrawn when the game or the language changes.

import { SEAT_LETTERS } from "../board.js";
import { t } from "../i18n.js";
import { seatLink } from "../saved.js";
import { keyOf } from "../store.js";
import { ranking, seatName } from "./panel.js";

const $ = (id) => document.getElementById(id);

export function createEnding() {
  let drawn = null;
  return {
    render(state) {
      const view = state.view;
      const box = $("game-over");
      box.hidden = !view.over;
      if (!view.over) { drawn = null; return; }
      const key = JSON.stringify([view.game, view.seat, view.version, state.lang]);
      if (key === drawn) return;
      drawn = key;
      const rows = $("game-over-scores");
      rows.innerHTML = "";
      ranking(view).forEach((seat, i) => {
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
    },
  };
}
