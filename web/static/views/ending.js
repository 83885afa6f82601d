// The end screen, over the board once the game is over (the View's `final`): each seat's
// score broken down by source (every part of final[].parts; the parts add up to the total,
// which is the View's score), the winner first, and what comes next: a rematch (the same
// seats on a new deal, for the game's creator; then a link to it for everyone), back to
// the lobby (the new-game dialog), or a look at the board. Redrawn when the game or the
// language changes.

import { SEAT_LETTERS } from "../board.js";
import { t, tf, formatNumber } from "../i18n.js";
import { seatLink } from "../saved.js";
import { keyOf } from "../store.js";
import { scorePartName } from "../words.js";
import { ranking, seatName } from "./panel.js";
import { seatIndex } from "../seats.js";

const $ = (id) => document.getElementById(id);

function cell(row, text, tag = "td", cls = null) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (cls) node.className = cls;
  row.appendChild(node);
  return node;
}

// The sources of VP in the order they first appear (the rules core's order).
function sourcesOf(final) {
  const out = [];
  for (const seat of final) for (const part of seat.parts) if (!out.includes(part.source)) out.push(part.source);
  return out;
}

export function createEnding({ onRematch, onLobby }) {
  let drawn = null;
  let closed = null;           // the game whose end screen was put away
  $("end-close").addEventListener("click", () => { closed = drawn && drawn.game; $("end-screen").hidden = true; });
  $("end-rematch").addEventListener("click", onRematch);
  $("end-lobby").addEventListener("click", onLobby);
  return {
    render(state) {
      const view = state.view;
      const box = $("end-screen");
      const over = view.over && Array.isArray(view.final);
      box.hidden = !over || Boolean(state.review) || closed === view.game;
      if (!over) return;
      $("end-rematch").hidden = !state.owner || Boolean(view.rematch);
      const link = $("end-rematch-link");
      link.hidden = !view.rematch;
      if (view.rematch) link.href = seatLink(view.rematch, keyOf(state.seat));
      const key = JSON.stringify([view.game, view.seat, view.version, state.lang]);
      if (drawn && key === drawn.key) return;
      drawn = { key, game: view.game };
      const order = ranking(view);
      const winner = order[0];
      $("end-winner").textContent = tf("{name} (seat {letter}) wins.", { name: seatName(view, winner), letter: SEAT_LETTERS[seatIndex(winner)] });
      const sources = sourcesOf(view.final);
      const head = $("end-head");
      head.innerHTML = "";
      cell(head, "#", "th");
      cell(head, t("Seat"), "th");
      for (const source of sources) cell(head, scorePartName(source), "th").dataset.source = source;
      cell(head, t("Total"), "th");
      const rows = $("end-rows");
      rows.innerHTML = "";
      order.forEach((seat, i) => {
        const row = document.createElement("tr");
        row.dataset.seat = seat;
        const entry = view.final.find((f) => f.seat === seat) || { parts: [], total: view.scores[seatIndex(seat)] };
        const resigned = (view.resigned || []).includes(seat) ? ` (${t("resigned")})` : "";
        cell(row, String(i + 1));
        cell(row, `${SEAT_LETTERS[seatIndex(seat)]} ${seatName(view, seat)}${resigned}`, "th");
        for (const source of sources) {
          const vp = entry.parts.filter((p) => p.source === source).reduce((sum, p) => sum + p.vp, 0);
          const node = cell(row, formatNumber(vp), "td", "part");
          node.dataset.source = source;
          node.dataset.vp = vp;
        }
        const total = cell(row, formatNumber(entry.total), "td", "total");
        total.dataset.vp = entry.total;
        rows.appendChild(row);
      });
    },
  };
}
