// The review chart: each seat's win probability after every turn, as an SVG line marked
// with its seat letter; mistakes and blunders marked on the line of the seat that made
// them; round numbers on the x axis. Clicking a point reports the ply after that turn.

import { t, tf } from "./i18n.js";
import { SEAT_COLOURS, SEAT_LETTERS } from "./board.js";
import { seatIndex, seatNumber } from "./seats.js";

const NS = "http://www.w3.org/2000/svg";
const W = 760;
const H = 220;
const PAD = { left: 40, right: 26, top: 14, bottom: 30 };

function el(name, attrs, parent, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  parent.appendChild(node);
  return node;
}

// plyAfter(i) gives the position to jump to for turn i; onPick(ply) is called on a click;
// describe(turn) and describeBest(turn) say the turn played and the engine's preferred one in
// a point's tooltip (their notation unless told).
export function drawChart(svg, analysis, nPlayers, plyAfter, onPick, describe = (turn) => turn.tokens,
  describeBest = (turn) => turn.best) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("Win probability of each seat after every turn"));
  const turns = analysis.turns || [];
  if (!turns.length) {
    el("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "chart-empty" }, svg, t("No turns to show"));
    return;
  }
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const xOf = (i) => PAD.left + (turns.length === 1 ? plotW / 2 : (i * plotW) / (turns.length - 1));
  const yOf = (p) => PAD.top + (1 - p) * plotH;

  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    el("line", { x1: PAD.left, x2: W - PAD.right, y1: yOf(p), y2: yOf(p), class: "chart-grid" }, svg);
    el("text", { x: PAD.left - 5, y: yOf(p) + 4, "text-anchor": "end", class: "chart-axis" }, svg, `${Math.round(p * 100)}%`);
  }
  let lastRound = null;
  turns.forEach((turn, i) => {
    if (turn.round !== lastRound) {
      lastRound = turn.round;
      el("line", { x1: xOf(i), x2: xOf(i), y1: PAD.top, y2: PAD.top + plotH, class: "chart-round" }, svg);
      if (turn.round % 2 === 1 || turns.length < 40) {
        el("text", { x: xOf(i), y: H - PAD.bottom + 14, "text-anchor": "middle", class: "chart-axis" }, svg, `${turn.round}`);
      }
    }
  });
  el("text", { x: PAD.left + plotW / 2, y: H - 3, "text-anchor": "middle", class: "chart-axis" }, svg, t("Round"));
  // whose estimate the lines are: one observer for every point (play/analyse.py)
  const observer = analysis.observer === "full" ? t("Seen with every hand open")
    : analysis.observer ? tf("Seen from seat {letter}'s view", { letter: SEAT_LETTERS[seatIndex(analysis.observer)] }) : "";
  if (observer) el("text", { x: W - PAD.right, y: PAD.top - 3, "text-anchor": "end", class: "chart-axis chart-observer" }, svg, observer);

  for (let index = 0; index < nPlayers; index += 1) {
    const points = turns.map((turn, i) => `${xOf(i)},${yOf(turn.win_after[index])}`).join(" ");
    el("polyline", { points, fill: "none", stroke: SEAT_COLOURS[index], class: "chart-line", "data-seat": seatNumber(index) }, svg);
    const lastY = yOf(turns[turns.length - 1].win_after[index]);
    el("text", { x: W - PAD.right + 6, y: lastY + 4, fill: SEAT_COLOURS[index], class: "chart-letter" }, svg, SEAT_LETTERS[index]);
  }
  turns.forEach((turn, i) => {
    const index = seatIndex(turn.seat);
    const x = xOf(i);
    const y = yOf(turn.win_after[index]);
    const g = el("g", { class: "chart-point", tabindex: "0", role: "button", "data-index": i, "data-ply": plyAfter(i) }, svg);
    const label = tf("Round {round}, seat {letter}: {tokens}", { round: turn.round, letter: SEAT_LETTERS[index], tokens: describe(turn) });
    const markText = turn.mark === "blunder" ? t("blunder") : turn.mark === "mistake" ? t("mistake") : "";
    const bestText = describeBest(turn);
    const best = turn.best && turn.best !== turn.tokens ? ` (${markText ? `${markText}; ` : ""}${t("best")}: ${bestText})` : markText ? ` (${markText})` : "";
    el("title", {}, g, label + best);
    el("circle", { cx: x, cy: y, r: 7, class: "chart-hit" }, g);
    el("circle", { cx: x, cy: y, r: turn.mark ? 5 : 2.5, fill: SEAT_COLOURS[index], class: turn.mark ? `chart-mark ${turn.mark}` : "chart-dot" }, g);
    if (turn.mark) {
      el("text", { x, y: y - 8, "text-anchor": "middle", class: `chart-mark-text ${turn.mark}` }, g, turn.mark === "blunder" ? "??" : "?");
    }
    const pick = () => onPick(plyAfter(i), i);
    g.addEventListener("click", pick);
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pick(); }
    });
  });
}
