// A turn, or a hint's line, drawn in words: one small icon and the words of each step
// (web-words' turnWords, in the page's language), the step's notation token on hover
// (title, data-token) and, behind the "Show notation" switch, the whole turn in notation.

import { t } from "../i18n.js";
import { turnWords } from "../words.js";

// The icons: glyphs every common font has (no emoji, no images).
const GLYPHS = {
  servant: "●", gate: "▤", move: "➜", recruit: "♛", card: "▭", seal: "✦", decline: "✕",
  continue: "»", end: "■", gold: "◉", step: "·",
};

const NOTATION_KEY = "palais.notation";

export function notationShown() {
  try { return localStorage.getItem(NOTATION_KEY) === "1"; } catch (_) { return false; }
}

export function showNotation(on) {
  document.body.classList.toggle("show-notation", on);
  try { localStorage.setItem(NOTATION_KEY, on ? "1" : "0"); } catch (_) { /* private mode */ }
}

// steps: the View's or a hint's `steps`; tokens: the same in notation (the fallback when a
// server gives no steps).
export function drawWords(steps, tokens, view) {
  const box = document.createElement("span");
  box.className = "turn-words";
  const words = steps && steps.length ? turnWords(steps, view) : [];
  let runStart = null;                   // the first step of a run of the same words
  words.forEach((word, i) => {
    if (i) box.appendChild(document.createTextNode(" "));
    const step = document.createElement("span");
    step.className = `step step-${word.icon}`;
    // the same words again ("Plays no more cards now" at each window): said once, "×3"
    const repeat = i > 0 && word.text === words[i - 1].text;
    if (repeat) {
      step.classList.add("step-repeat");
      runStart.dataset.times = String(Number(runStart.dataset.times || 1) + 1);
    } else {
      runStart = step;
    }
    step.dataset.token = word.token;
    step.title = word.token;
    const icon = document.createElement("span");
    icon.className = "icon";
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = GLYPHS[word.icon] || GLYPHS.step;
    const text = document.createElement("span");
    text.className = "step-text";
    text.textContent = word.text;
    step.append(icon, text);
    box.appendChild(step);
  });
  for (const first of box.querySelectorAll(".step[data-times]")) {
    const times = document.createElement("span");
    times.className = "step-times";
    times.textContent = ` ×${first.dataset.times}`;
    first.appendChild(times);
  }
  const notation = document.createElement("span");
  notation.className = "tokens";
  notation.textContent = tokens;
  notation.setAttribute("aria-label", t("Notation"));
  const out = document.createElement("span");
  out.className = "turn";
  out.title = tokens;
  out.append(box, notation);
  return out;
}

