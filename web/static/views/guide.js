// The guided first game: a game of the person against the Beginner level, on the first-game
// layout, where a panel beside the board explains each of the person's decisions as it
// comes: which step of the turn it is (RULES.md §10's order), the choices open now grouped
// by kind with what each costs, a link to the How-to-play section of each, and the engine's
// hint for this decision in words (a small search: GUIDE_HINT_ITERATIONS), its target
// highlighted on the board. "Leave the guide" hides the panel and the game goes on; "Show
// the guide" brings it back. Which games are guided, and whether the guide is on, is kept
// with the game in this browser (saved.js).
//
// createGuide({box, showButton, startButton, board}) returns {render(state)}.

import { api } from "../api.js";
import { startMadeGame } from "./dialog.js";
import { showError } from "../game.js";
import { language, t, tf } from "../i18n.js";
import { storedGames, storeGame } from "../saved.js";
import { keyOf, state as pageState } from "../store.js";
import { cardCount, movesLeft, nobleText, pieceHelp, pieceName, stepWords } from "../words.js";
import { howToPlayAddress } from "./legend.js";
import { seatIndex } from "../seats.js";

// The guide's hints search this many iterations (the server allows 50..hint_iterations):
// a Beginner's game has some 200 decisions, each explained in a fraction of a second.
export const GUIDE_HINT_ITERATIONS = 200;

const GUIDE_LEVEL = "beginner";
const THEN_SHOWN = 4;             // the hint's later steps of the turn shown after this decision's

// ---- which games are guided -------------------------------------------------------------

const guided = (gameId) => Boolean(gameId && (storedGames()[gameId] || {}).guided);
const guideOn = (gameId) => guided(gameId) && (storedGames()[gameId] || {}).guide !== false;

// A new game: the person (seat A) against the Beginner level, first-game layout, standard rules.
export async function startGuidedGame() {
  const level = ((pageState.meta || {}).levels || []).find((entry) => entry.id === GUIDE_LEVEL);
  if (!level) throw new Error(t("This server offers no Beginner level."));
  const answer = await api.newGame({
    players: [{ kind: "human" }, { kind: "engine", name: level.player, level: level.id }],
    first_game: true, seed: null, budget_ms: level.budget_ms, options: {}, names: null, shared: false,
  });
  storeGame(answer.game, { guided: true, guide: true });
  startMadeGame(answer);
}

// ---- the words of a decision ---------------------------------------------------------------

// The five steps of a turn (RULES.md §3).
const TURN_STEPS = [
  { name: () => pieceName("room", "PARADE") },
  { name: () => pieceName("room", "STAIRS") },
  { name: () => t("Rooms") },
  { name: () => t("Recruit") },
  { name: () => pieceName("room", "BACKDOOR") },
];

// The step of the turn a stage belongs to (1..5), 0 for setup, null when it is not one.
const STAGE_STEP = {
  SETUP: 0, WINDOW1: 1, STEP1: 1, GATE_PLACE: 1, WINDOW2: 2, MOVES: 2, WINDOW3: 3,
  KING_BONUS: 3, MADAME_BONUS: 3, WINDOW4: 4, RECRUIT: 4, WINDOW5: 5,
};

// What this stage of the turn is: {title, text, section}.
function stageWords(view) {
  const stage = view.stage;
  if (stage === "SETUP") {
    return { title: t("Setup"), section: "rooms",
      text: t("Before the first round, each player places 5 more servants, one at a time, in any room (the Gate included). A servant in a room works for you every turn: choose the rooms whose actions you want.") };
  }
  if (/^WINDOW[1-4]$/.test(stage)) {
    return { title: tf("Card window before step {n}", { n: stage.slice(-1) }), section: "cards",
      text: t("You may play privilege cards from your hand now, or continue the turn. A card played is spent; a card kept is worth 1 VP at the end.") };
  }
  if (stage === "WINDOW5") {
    return { title: t("Card window at the end of the turn"), section: "cards",
      text: t("You may play privilege cards from your hand now, or continue the turn. A card played is spent; a card kept is worth 1 VP at the end.") };
  }
  if (stage === "STEP1") {
    return { title: t("Step 1: Parade Ground"), section: "rooms",
      text: t("Put servants from your play area on the Gate: up to one per servant of yours on the Parade Ground, one more with the majority there. From the Gate they can move to other rooms in step 2.") };
  }
  if (stage === "MOVES") {
    return { title: t("Step 2: Stairway"), section: "servants",
      text: tf("Each move takes one of your servants to an adjacent room (across a stairway). You have {left}; moves not used are lost. Click a room to move from, then the room to go to.",
        { left: movesLeft(view.turn.moves_left) }) };
  }
  if (stage === "KING_BONUS" || stage === "MADAME_BONUS") {
    const room = pieceName("room", stage === "KING_BONUS" ? "KING" : "MADAME");
    return { title: t("Step 3: the rooms"), section: "majorities",
      text: tf("You have the majority in {room}: you may put one more servant there, from your play area. More servants there are more seals for recruiting.", { room }) };
  }
  if (stage === "RECRUIT") {
    return { title: t("Step 4: recruit nobles"), section: "park",
      text: t("Each noble costs one recruitment (a servant of yours leaves the Office), its seals (servants leave the King's Chamber for turquoise, Madame for violet) and its gold. A noble taken from the park's border leaves its square to one of your servants.") };
  }
  return { title: t("Where the servant comes from"), section: "servants",
    text: t("Your play area is empty: choose the room a servant is taken from.") };
}

// The choices open now, by kind: [{kind, title, cost, section, items: [text]}].
function choiceGroups(view) {
  const groups = new Map();
  const group = (kind, title, cost, section) => {
    if (!groups.has(kind)) groups.set(kind, { kind, title, cost, section, items: [] });
    return groups.get(kind);
  };
  const tiles = Object.fromEntries(view.park.map((square) => [square.square, square.tile]));
  const moves = new Map();
  for (const entry of view.legal) {
    const kind = entry.kind;
    if (kind === "room" && view.stage === "SETUP") {
      group("place", t("Place a servant in a room"), t("1 servant from your play area"), "rooms").items.push(pieceName("room", entry.room));
    } else if (kind === "room") {
      group("source", t("Take the servant from"), t("it leaves that room"), "servants").items.push(pieceName("room", entry.room));
    } else if (kind === "gate") {
      group("gate", t("Servants to the Gate"), t("each one comes from your play area"), "rooms").items.push(String(entry.count));
    } else if (kind === "move") {
      if (!moves.has(entry.from)) moves.set(entry.from, []);
      moves.get(entry.from).push(pieceName("room", entry.to));
      group("move", t("Move a servant"), t("1 move each"), "servants");
    } else if (kind === "recruit") {
      const tile = tiles[entry.square];
      group("recruit", t("Recruit a noble"), t("1 recruitment, and the noble's cost"), "park")
        .items.push(`${entry.square}: ${tile ? nobleText(tile) : ""}`);
    } else if (kind === "play") {
      const help = pieceHelp("card", entry.card);
      group("play", t("Play a card"), t("the card is spent"), "cards")
        .items.push(help ? `${pieceName("card", entry.card)}: ${help}` : pieceName("card", entry.card));
    } else if (kind === "take") {
      group("take", t("Take the bonus"), t("1 servant from your play area"), "majorities").items.push(t("one more servant in the room"));
    } else if (kind === "decline") {
      group("decline", t("Decline"), t("nothing"), "majorities").items.push(t("no servant is placed"));
    } else if (kind === "continue") {
      group("continue", t("Continue"), t("nothing"), "turn").items.push(t("go on with the turn, cards kept"));
    } else if (kind === "end") {
      const moving = view.stage === "MOVES";
      group("end", moving ? t("End the moves") : t("End recruiting"), t("nothing"), "turn")
        .items.push(moving ? t("the moves left are lost") : t("the recruitments left are lost"));
    }
  }
  if (groups.has("gate")) groups.get("gate").items = [groups.get("gate").items.join(t("list separator:, "))];
  if (groups.has("move")) {
    groups.get("move").items = [...moves].map(([from, to]) => tf("from {from} to {to}", { from: pieceName("room", from), to: to.join(t("list separator:, ")) }));
  }
  return [...groups.values()];
}

// What the person holds, to weigh the costs.
function holdings(view) {
  const me = view.players[seatIndex(view.seat)];
  return tf("You have {gold} gold, {area} servants in your play area, {cards}.",
    { gold: me.gold, area: me.area, cards: cardCount(me.hand_size) });
}

// ---- the panel ---------------------------------------------------------------------------

const el = (tag, text = "", cls = "") => {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (cls) node.className = cls;
  return node;
};

function moreLink(section) {
  const link = el("a", t("More in How to play"), "guide-more");
  link.href = howToPlayAddress(section);
  link.target = "palais-how-to-play";
  link.dataset.section = section;
  return link;
}

export function createGuide({ box, showButton, startButton, board }) {
  let drawnKey = null;
  let explained = new Set();        // "game:version" of each decision of the person the guide explained (with its hint)
  let asking = null;                // the decision ("game:version") a hint is being asked for
  let answered = null;              // {decision, hint, failed} of the last hint received
  let last = null;                  // the state last rendered

  startButton.addEventListener("click", async () => {
    const dialog = document.getElementById("new-game-dialog");
    const errorBox = document.getElementById("new-game-error");
    try {
      await startGuidedGame();
      if (dialog.open) dialog.close();
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    }
  });
  box.querySelector("#guide-leave").addEventListener("click", () => switchGuide(false));
  showButton.addEventListener("click", () => switchGuide(true));

  function switchGuide(on) {
    if (!last || !last.gameId) return;
    storeGame(last.gameId, { guide: on });
    drawnKey = null;
    if (!on) board.showHints(null);
    render(last);
  }

  const decisionOf = (state) => `${state.gameId}:${state.view.version}`;
  const askedFor = (state) => `${decisionOf(state)}:${language()}`;     // (a new language asks again)
  const hintFor = (state) => Boolean(answered) && answered.decision === askedFor(state);

  // The engine's hint for the decision shown, one request at a time (the server
  // searches one hint of a game at a time); a decision that has passed meanwhile is asked
  // for again at the one shown now.
  async function askHint(state) {
    if (asking !== null || hintFor(state)) return;
    asking = askedFor(state);
    let hint = null;
    let failed = null;
    try {
      const answer = await api.guideHint(state.gameId, keyOf(state.seat), language(), GUIDE_HINT_ITERATIONS);
      hint = answer.hints[0] || null;
    } catch (error) {
      failed = error.message || String(error);
    }
    answered = { decision: asking, hint, failed };
    asking = null;
    drawnKey = null;
    if (last) render(last);
  }

  function drawHintPart(state, part) {
    const view = state.view;
    part.replaceChildren(el("h3", t("The engine's hint for this decision")));
    if (!hintFor(state)) {
      part.append(el("p", t("Thinking…")));
      return false;
    }
    if (!answered.hint) {
      part.append(el("p", answered.failed ? tf("No hint now: {error}", { error: answered.failed }) : t("No hint now.")));
      return false;
    }
    const hint = answered.hint;
    const [now, ...then] = hint.steps;
    part.append(el("p", tf("Now: {step}", { step: stepWords(now, view).text }), "guide-now"));
    if (then.length) {
      const words = then.slice(0, THEN_SHOWN).map((step) => stepWords(step, view).text);
      if (then.length > THEN_SHOWN) words.push("…");
      part.append(el("p", tf("Then: {steps}", { steps: words.join(t("list separator:, ")) }), "guide-then"));
    }
    part.append(el("p", hint.explanation, "explanation"));
    part.append(el("p", tf("(a quick search of {n} iterations; the Hint button searches longer)", { n: GUIDE_HINT_ITERATIONS }), "guide-note"));
    box.dataset.hint = now.token;
    board.showHints({ steps: [now] });
    for (const button of document.querySelectorAll("#actions [data-token]")) {
      button.classList.toggle("guide-hinted", button.dataset.token === now.token);
    }
    return true;
  }

  function drawDecision(view, hintPart) {
    const stage = stageWords(view);
    const step = STAGE_STEP[view.stage];
    const parts = [];
    const order = el("p", `${t("A turn, in order:")} `, "guide-steps");
    TURN_STEPS.forEach((turnStep, i) => {
      const item = el("span", `${i + 1}. ${turnStep.name()}`);
      if (step === i + 1) item.className = "guide-current";
      order.append(...(i ? [" · "] : []), item);
    });
    const head = el("h3", stage.title);
    const text = el("p", stage.text);
    text.append(" ", moreLink(stage.section));
    parts.push(head, text);
    if (step) parts.push(order);
    parts.push(el("p", holdings(view), "guide-holdings"), hintPart);
    const choices = el("div", "", "guide-choices");
    choices.append(el("h3", t("Your choices now")));
    for (const group of choiceGroups(view)) {
      const part = el("div", "", "guide-group");
      part.dataset.kind = group.kind;
      const title = el("strong", group.title);
      const cost = el("span", ` — ${tf("costs: {cost}", { cost: group.cost })} `, "guide-cost");
      part.append(title, cost, moreLink(group.section));
      const list = el("ul");
      for (const item of group.items.slice(0, 8)) list.appendChild(el("li", item));
      if (group.items.length > 8) list.appendChild(el("li", tf("… and {n} more", { n: group.items.length - 8 })));
      part.append(list);
      choices.append(part);
    }
    parts.push(choices);
    return parts;
  }

  function render(state) {
    last = state;
    if (state.gameId && ![...explained].every((done) => done.startsWith(`${state.gameId}:`))) explained = new Set();
    const view = state.view;
    const isGuided = Boolean(view) && guided(state.gameId) && Boolean(keyOf(state.seat));
    const on = isGuided && guideOn(state.gameId);
    showButton.hidden = !isGuided || on || view.over;
    box.hidden = !on;
    if (!on) return;
    const deciding = !view.over && view.legal.length > 0 && !state.review && !state.explore;
    const key = JSON.stringify([state.gameId, view.version, state.lang, deciding, hintFor(state)]);
    if (key === drawnKey) return;
    drawnKey = key;
    const body = box.querySelector("#guide-body");
    box.dataset.version = deciding ? String(view.version) : "";
    delete box.dataset.hint;
    board.showHints(null);
    if (view.over) {
      body.replaceChildren(el("p", t("The game is over: the table shows how each player scored. A rematch, or a new game at a stronger level, is one click away.")));
    } else if (!deciding) {
      body.replaceChildren(el("p", state.review || state.explore ? t("The guide waits while you look back.") : t("The other player is playing; the guide speaks again at your next decision.")));
    } else {
      const hintPart = el("div", "", "guide-hint");
      body.replaceChildren(...drawDecision(view, hintPart));
      if (drawHintPart(state, hintPart)) explained.add(decisionOf(state));
      if (!hintFor(state)) askHint(state).catch((error) => showError(error.message));
    }
    box.querySelector("#guide-count").textContent = tf("Decisions explained: {n}", { n: explained.size });
    box.dataset.explained = String(explained.size);
  }

  return { render };
}
