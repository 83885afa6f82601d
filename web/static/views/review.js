// The review bar: which position is shown, the way back to the game, the analysis' progress
// and its chart (a click on a point shows that position). The chart is drawn again only
// when the analysis or the shown position changed.

import { drawChart } from "../chart.js";
import { leaveReview, showPosition } from "../game.js";
import { t, tf } from "../i18n.js";
import { keyOf } from "../store.js";
import { expectedScore, reviewPosition, turnSummaryText, turnWords } from "../words.js";
import { seatLabel } from "./panel.js";
import { drawWords } from "./words.js";

const $ = (id) => document.getElementById(id);

export function createReview() {
  let charted = null;
  return {
    render(state) {
      const view = state.view;
      const reviewing = Boolean(state.review);
      $("review").hidden = !(reviewing || state.analysis || state.analysing || view.over);
      $("review-position").textContent = reviewing ? reviewPosition(state.review.view) : "";
      $("review-back").hidden = !reviewing;
      drawExplore(state);
      const progress = $("analysis-progress");
      progress.hidden = !state.progress;
      if (state.progress) {
        progress.max = Math.max(1, state.progress.total);
        progress.value = state.progress.done;
      }
      const chart = $("chart");
      if (!state.analysis) {
        chart.toggleAttribute("hidden", true);         // an SVG element has no .hidden
        charted = null;
        return;
      }
      const key = [state.analysis, view.ply, view.n_players, state.lang];
      if (charted && key.every((part, i) => part === charted[i])) return;
      charted = key;
      const turns = state.analysis.turns || [];
      const plyAfter = (i) => (i + 1 < turns.length ? turns[i + 1].ply : view.ply);   // after turn i
      chart.toggleAttribute("hidden", false);
      // a point's tooltip says the turn as the log does (what it changed, in the page's language)
      const describe = (turn) => {
        const entry = (view.log || []).find((e) => e.ply === turn.ply);
        return entry && entry.summary ? turnSummaryText(entry.summary) : turn.tokens;
      };
      const describeBest = (turn) => (turn.best_steps && turn.best_steps.length
        ? turnWords(turn.best_steps, view).map((word) => word.text).join(t("list separator:, ")) : turn.best);
      drawChart(chart, state.analysis, view.n_players, plyAfter, (ply) => showPosition(ply), describe, describeBest);
    },
    leave: leaveReview,
  };
}

// The analysis board: the line tried, and the engine's opinion of the position it reaches
// for the seat that moves where the line starts (the hints' fair valuation).
function drawExplore(state) {
  const explore = state.explore;
  $("explore-button").hidden = !state.review || Boolean(explore) || !keyOf(state.seat) || state.review.view.over;
  $("explore").hidden = !explore;
  if (!explore) return;
  const box = $("explore-line");
  box.textContent = `${tf("{position}. Line tried:", { position: reviewPosition(explore.origin) })} `;
  if (explore.line.length) box.appendChild(drawWords(explore.view.explore.steps, explore.line.join(" "), explore.view));
  else box.appendChild(document.createTextNode(t("(the game's own position)")));
  const e = explore.evaluation;
  const draw = explore.view.explore && explore.view.explore.draw_due ? ` ${t("A card draw is due: the line stops here.")}` : "";
  $("explore-eval").textContent = `${seatLabel(explore.view, e.seat)}: ${tf("win {win}%", { win: Math.round(e.win * 100) })}`
    + ` · ${expectedScore(e.score)}${draw}`;
  $("explore-undo").disabled = !explore.line.length;
}
