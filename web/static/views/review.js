// The review bar: which position is shown, the way back to the game, the analysis' progress
// and its chart (a click on a point shows that position). The chart is drawn again only
// when the analysis or the shown position changed.

import { drawChart } from "../chart.js";
import { leaveReview, showPosition } from "../game.js";
import { tf } from "../i18n.js";

const $ = (id) => document.getElementById(id);

export function createReview() {
  let charted = null;
  return {
    render(state) {
      const view = state.view;
      const reviewing = Boolean(state.review);
      $("review").hidden = !(reviewing || state.analysis || state.analysing || view.over);
      $("review-position").textContent = reviewing ? tf("Position after {n} actions", { n: state.review.ply }) : "";
      $("review-back").hidden = !reviewing;
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
      drawChart(chart, state.analysis, view.n_players, plyAfter, (ply) => showPosition(ply));
    },
    leave: leaveReview,
  };
}
