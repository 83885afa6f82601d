// The hint list: the engine's best ways to finish the turn, each with its fair win chance
// and expected VP; hovering (or focusing) one shows it on the board. Redrawn only when the
// hints change (a new answer, a new turn, a new language: the server sends each hint's words
// in every language, so a language switch redraws them without a new search).

import { language, tf, t } from "../i18n.js";
import { expectedScore } from "../words.js";

export function createHints(box, list, { board, drawLine }) {
  let drawn;
  return {
    render(state) {
      const key = [state.hints, state.lang];
      if (drawn && drawn[0] === key[0] && drawn[1] === key[1]) return;
      drawn = key;
      list.innerHTML = "";
      box.hidden = !state.hints;
      if (!state.hints) return;
      if (state.hints === "thinking") {
        const wait = document.createElement("li");
        wait.textContent = t("Thinking…");
        list.appendChild(wait);
        return;
      }
      for (const h of state.hints) {
        const item = document.createElement("li");
        item.tabIndex = 0;
        item.className = "hint";
        const head = document.createElement("div");
        head.append(drawLine(h), document.createTextNode(
          ` — ${tf("win {win}%", { win: Math.round(h.win * 100) })} · ${expectedScore(h.score)}`));
        const words = document.createElement("div");
        words.className = "explanation";
        words.textContent = (h.explanations || {})[language()] || h.explanation;
        item.append(head, words);
        const show = () => board.showHints(h);
        const hide = () => board.showHints(null);
        item.addEventListener("mouseenter", show);
        item.addEventListener("focus", show);
        item.addEventListener("mouseleave", hide);
        item.addEventListener("blur", hide);
        list.appendChild(item);
      }
    },
  };
}
