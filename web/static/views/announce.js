// What a screen reader hears as the game goes on (as lichess's blind mode reads each move):
// the steps each turn took, said once through a polite live region (#announce) when the
// live view moves on, in the page's words (words.js's stepWords, the log's words). A redraw
// of the same position, a review or the analysis board says nothing; the first view of a
// game (or of another seat, or after an undo) is where the next announcement starts, so the
// turns before it are not read out.

import { seatLabel } from "./panel.js";
import { stepWords } from "../words.js";

// The steps of `view`'s log from ply `from` on, grouped by the seat that took them:
// [{seat, steps}].
function stepsSince(view, from) {
  const turns = [];
  for (const entry of view.log || []) {
    (entry.steps || []).forEach((step, k) => {
      if (entry.ply + k < from || entry.ply + k >= view.ply) return;
      const last = turns[turns.length - 1];
      if (last && last.seat === entry.seat && last.ply === entry.ply) last.steps.push(step);
      else turns.push({ seat: entry.seat, ply: entry.ply, steps: [step] });
    });
  }
  return turns;
}

// The words said for `turns`: "Player 2 (B): Places a servant in the Mint; Draws a card."
export function turnsSaid(view, turns) {
  return turns.map((turn) => `${seatLabel(view, turn.seat)}: ${turn.steps.map((step) => stepWords(step, view).text).join("; ")}.`)
    .join(" ");
}

export function createAnnouncer(region) {
  let said = null;             // {game, seat, ply}: where the last announcement ended
  return {
    render(state) {
      const view = state.view;
      if (!view) return;
      const same = said && said.game === view.game && said.seat === view.seat;
      if (same && view.ply === said.ply) return;
      const from = same && view.ply > said.ply ? said.ply : null;
      said = { game: view.game, seat: view.seat, ply: view.ply };
      if (from === null) return;
      const text = turnsSaid(view, stepsSince(view, from));
      if (!text) return;
      region.textContent = text;
      region.dataset.ply = String(view.ply);
    },
  };
}
