// The board's legend: what any piece of the board is, in one line, with a link to its section
// of the How-to-play page (views/howto.js). A note opens on a piece
//   - clicked when it is not something to play (a click on a legal target still plays it);
//   - right-clicked, or long-pressed on a touch screen (which browsers report as a
//     contextmenu), whatever it is;
//   - clicked, or chosen with Enter, while the header's "?" button is pressed (the legend
//     mode, where nothing on the board plays).
// The note is drawn again in the new language when the language changes, and the header's
// "How to play" link follows the language too.
//
// createLegend({svg, button, link, hideTip}) returns {refresh(), close()}.

import { language, t } from "../i18n.js";

// The kinds of pieces, innermost first: the first whose selector a clicked node lies in is
// the piece. `section` is the id of its section in every How-to-play document (the test of
// the page checks each exists); `line`, the words of a piece that has none of its own (else
// the board's: node.__tip); `anonymous`, a piece named by its kind, not by the board's words
// of what holds it (a servant in a room is a servant, not the room).
export const TOPICS = [
  { selector: ".servant, .servant-letter", section: "servants", anonymous: true, kind: () => t("Servant"),
    line: () => t("A player's servant, in his colour with his seat's letter; beside it, how many he has there.") },
  { selector: ".majority", section: "majorities", kind: () => t("Majority star"),
    line: () => t("The seat of this colour has the majority in this room: a bonus in its turn.") },
  { selector: ".stair", section: "servants", kind: () => t("Stairway") },
  { selector: ".cost-gold, .cost-turquoise, .cost-violet, .cost-text", section: "park", kind: () => t("Cost of a noble"),
    line: () => t("What recruiting this noble costs: gold (a coin), turquoise seals and violet seals (squares).") },
  { selector: ".vp, .vp-label", section: "scoring", kind: () => t("Victory points"),
    line: () => t("The victory points (VP) this noble is worth at the end of the game.") },
  { selector: ".privilege-mark, .privilege-chip, .legend-chip[data-privilege]", section: "privileges",
    kind: () => t("Privilege of a noble") },
  { selector: ".card, .legend-chip[data-card]", section: "cards", kind: () => t("Privilege card") },
  { selector: ".legend-title", section: "cards", anonymous: true, kind: () => t("Draw pile and discard pile"),
    line: () => t("The privilege cards left to draw, and those played.") },
  { selector: ".noble", section: "park", kind: () => t("Noble tile") },
  { selector: ".room", section: "rooms", kind: () => t("Room") },
  { selector: ".square", section: "park", kind: () => t("Square of the park") },
  { selector: ".panel", section: "board", anonymous: true, kind: () => t("Player's panel"),
    line: () => t("A player's gold, servants (play area and supply), seals, majorities, nobles, privileges and hand; his VP so far.") },
  { selector: ".layer-park .label", section: "park", anonymous: true, kind: () => t("Park"),
    line: () => t("The park: 36 nobles to recruit; servants on its four sides score at the end.") },
];

// The How-to-play page's address, in the page's language, at `section`.
export function howToPlayAddress(section = "") {
  return `/how-to-play?lang=${encodeURIComponent(language())}${section ? `#${section}` : ""}`;
}

// The piece under `node` (an element of the board): {topic, piece}, or null.
export function pieceAt(node, svg) {
  for (const topic of TOPICS) {
    const piece = node.closest && node.closest(topic.selector);
    if (piece && svg.contains(piece)) return { topic, piece };
  }
  return null;
}

export function createLegend({ svg, button, link, hideTip = () => {} }) {
  const note = document.createElement("div");
  note.id = "legend-note";
  note.className = "legend-note";
  note.setAttribute("aria-live", "polite");         // read out when it opens
  note.hidden = true;
  document.body.appendChild(note);
  let shown = null;            // {node, x, y}: what the note explains and where it was asked for
  const bound = new AbortController();           // the listeners below go with destroy()
  const signal = bound.signal;

  const legendMode = () => button.getAttribute("aria-pressed") === "true";

  // `focus`: asked for from the keyboard, so the focus goes to the note's link (and back to
  // the piece when the note closes).
  function open(node, x, y, focus = false) {
    shown = { node, x, y };
    hideTip();
    draw();
    if (focus && !note.hidden) note.querySelector("a").focus();
  }

  function close() {
    const piece = shown && note.contains(document.activeElement) ? shown.node.closest("[tabindex]") : null;
    shown = null;
    note.hidden = true;
    if (piece) piece.focus();
  }

  // The note's words, in the page's language: the piece's own name and effect (the board's,
  // node.__tip, drawn again by each render) or the kind's line, and the link to its section.
  function draw() {
    const found = shown && shown.node.isConnected ? pieceAt(shown.node, svg) : null;
    if (!found) { close(); return; }
    const { topic, piece } = found;
    const explained = piece.closest("[data-tip]");
    const words = explained && svg.contains(explained) ? explained.__tip : null;
    const kind = document.createElement("div");
    kind.className = "legend-kind";
    kind.textContent = topic.kind();
    const name = document.createElement("strong");
    name.textContent = words && !topic.anonymous ? words.name : topic.kind();
    const line = document.createElement("p");
    line.textContent = topic.line ? topic.line() : (words && words.help) || "";
    const more = document.createElement("a");
    more.id = "legend-link";
    more.href = howToPlayAddress(topic.section);
    more.target = "palais-how-to-play";
    more.dataset.section = topic.section;
    more.textContent = t("More in How to play");
    const shut = document.createElement("button");
    shut.type = "button";
    shut.className = "legend-close";
    shut.setAttribute("aria-label", t("Close"));
    shut.textContent = "×";
    shut.addEventListener("click", close);
    note.replaceChildren(shut, ...(name.textContent === kind.textContent ? [] : [kind]), name, line, more);
    note.dataset.section = topic.section;
    note.hidden = false;
    const left = Math.max(4, Math.min(shown.x + 12, window.innerWidth - note.offsetWidth - 4));
    const below = shown.y + 14 + note.offsetHeight <= window.innerHeight;
    note.style.left = `${left}px`;
    note.style.top = `${below ? shown.y + 14 : Math.max(4, shown.y - note.offsetHeight - 10)}px`;
  }

  // (capture: the legend sees a click before the board plays it)
  svg.addEventListener("click", (event) => {
    const found = pieceAt(event.target, svg);
    const target = event.target.closest && event.target.closest(".target");
    const playable = Boolean(target && target.__act);
    if (legendMode()) {
      event.stopPropagation();
      event.preventDefault();
      if (found) open(found.piece, event.clientX, event.clientY);
    } else if (found && !playable) {
      open(found.piece, event.clientX, event.clientY);
    }
  }, { capture: true, signal });
  svg.addEventListener("keydown", (event) => {
    if (!legendMode() || (event.key !== "Enter" && event.key !== " ")) return;
    const found = pieceAt(event.target, svg);
    if (!found) return;
    event.stopPropagation();
    event.preventDefault();
    const box = found.piece.getBoundingClientRect();
    open(found.piece, box.left + box.width / 2, box.top + box.height / 2, true);
  }, { capture: true, signal });
  svg.addEventListener("contextmenu", (event) => {
    const found = pieceAt(event.target, svg);
    if (!found) return;
    event.preventDefault();
    open(found.piece, event.clientX, event.clientY);
  }, { signal });
  button.addEventListener("click", () => {
    const on = !legendMode();
    button.setAttribute("aria-pressed", String(on));
    document.body.classList.toggle("legend-mode", on);
    if (!on) close();
  }, { signal });
  document.addEventListener("pointerdown", (event) => {
    // (the header's controls leave it open: the language select draws it again)
    const outside = !note.contains(event.target) && !svg.contains(event.target) && !event.target.closest("header");
    if (shown && outside) close();
  }, { signal });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape" && shown) close(); }, { signal });

  function refresh() {
    link.href = howToPlayAddress();
    if (shown) draw();
  }
  // Takes the legend down: its listeners and its note go.
  function destroy() {
    bound.abort();
    note.remove();
    shown = null;
  }

  refresh();
  return { refresh, close, destroy };
}
