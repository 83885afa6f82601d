// The words of the game for the page, from the catalogs (GET /api/i18n/<lang>): the names
// and effects of rooms, cards and privileges (RULES.md's wording), a noble tile in words,
// each step of a turn in words (the log and the hint lines), the score breakdown's sources
// and the few counted phrases of the page. Nothing here knows a language: every text is a
// catalog entry ("room:MINT", "card-help:GOLD", "step:move", plural msgids through tn).

import { t, tf, tn, formatNumber } from "./i18n.js";
import { seatIndex } from "./seats.js";

const SEAT_LETTERS = "ABCD";

// A catalog entry by its key ("room:MINT"), or `fallback` when no catalog has it.
function entry(key, fallback) {
  const text = t(key);
  return text === key ? fallback : text;
}

export function seatLetter(seat) {
  return SEAT_LETTERS[seatIndex(seat)] || "?";
}

// kind: "room" | "card" | "privilege" | "stage"; id: its code (MINT, GOLD, INCOME, WINDOW1).
export function pieceName(kind, id) {
  return entry(`${kind}:${id}`, id);
}

// The effect of a room, card or privilege, RULES.md's wording ("" if the catalog has none).
export function pieceHelp(kind, id) {
  return entry(`${kind}-help:${id}`, "");
}

// A room named inside a sentence (French needs its article: "l'Hôtel de la monnaie").
function roomInText(id) {
  return entry(`room in a sentence:${id}`, pieceName("room", id));
}

function privilegeText(tile) {
  const name = pieceName("privilege", tile.privilege);
  if (tile.privilege === "INCOME") return tf("{name} (+{n} gold each turn)", { name, n: formatNumber(tile.amount) });
  if (tile.privilege === "SUPPLY") return tn("{name} ({n} servant)", "{name} ({n} servants)", tile.amount, { name });
  return name;
}

// A tile's cost in words: "4 gold, 2 turquoise seals", or "nothing".
export function costText(tile) {
  const parts = [];
  if (tile.gold) parts.push(tn("{n} gold", "{n} gold", tile.gold));
  if (tile.turquoise) parts.push(tn("{n} turquoise seal", "{n} turquoise seals", tile.turquoise));
  if (tile.violet) parts.push(tn("{n} violet seal", "{n} violet seals", tile.violet));
  return parts.length ? parts.join(t("list separator:, ")) : t("nothing");
}

// A noble tile (the View's tile JSON) in words: number, VP, cost and privilege.
export function nobleText(tile) {
  const values = { number: tile.number, vp: tn("{n} VP", "{n} VP", tile.vp), cost: costText(tile) };
  if (!tile.privilege || tile.privilege === "NONE") return tf("Noble {number}: {vp}, costs {cost}", values);
  return tf("Noble {number}: {vp}, costs {cost}; {privilege}", { ...values, privilege: privilegeText(tile) });
}

// Which words a step takes: the catalog's step template and its glyph.
function wordsKind(step) {
  switch (step.kind) {
    case "room": return step.stage === "SETUP" ? "place" : "source";
    case "draw": return step.card ? "draw" : "draw-hidden";
    case "end": return step.stage === "MOVES" ? "end-moves" : "end-recruit";
    default: return step.kind;
  }
}

const ICONS = {
  place: "servant", source: "servant", gate: "gate", move: "move", recruit: "recruit", play: "card",
  draw: "card", "draw-hidden": "card", take: "seal", decline: "decline", continue: "continue",
  "end-moves": "end", "end-recruit": "end",
};

// One step of a turn (a log entry's or a hint's `steps` item) -> {icon, text, token}.
export function stepWords(step, view) {
  const kind = wordsKind(step);
  const values = {};
  if (step.room) values.room = roomInText(step.room);
  if (step.from) values.from = roomInText(step.from);
  if (step.to) values.to = roomInText(step.to);
  if (step.card) values.card = pieceName("card", step.card);
  if (step.bonus) values.room = roomInText(step.bonus);
  if (step.square) values.square = step.square;
  if (step.tile) values.number = step.tile.number;
  let text;
  if (kind === "gate") text = tn("Puts {n} servant on the Gate", "Puts {n} servants on the Gate", step.count);
  else text = fill(entry(`step:${kind}`, step.token), values);
  return { icon: ICONS[kind] || "step", text, token: step.token };
}

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// A whole turn in words: one {icon, text, token} per step.
export function turnWords(steps, view) {
  return (steps || []).map((step) => stepWords(step, view));
}

// A seat's name as the page shows it: the name a person typed, or the translated default
// (the View's `seat_labels`: "Player 2", an engine chosen by its level as "Club (engine)",
// an engine chosen by name by its label).
export function seatName(view, seat) {
  const label = (view.seat_labels || [])[seatIndex(seat)];
  if (label && label.key === "Player {n}") return tf("Player {n}", { n: seat });
  if (label && label.level) return tf("{level} (engine)", { level: entry(label.key, label.key) });
  if (label && label.key) return entry(label.key, (view.names || [])[seatIndex(seat)] || "");
  return (view.names || [])[seatIndex(seat)] || tf("Player {n}", { n: seat });
}

// A player the server offers (/api/meta `players` or `levels` entry) by its label msgid.
export function playerLabel(player) {
  return entry(player.label, player.label || player.name || player.id);
}

// The name of a source of VP in the final breakdown ("nobles", "park-rank1", ...).
export function scorePartName(source) {
  return entry(`score:${source}`, source);
}

// An engine's or a hint's expected final score, one decimal in the page's language
// ("106,2 PV attendus" in French).
export function expectedScore(score) {
  return tf("{score} VP expected", { score: formatNumber(Number(score), { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
}

// The counted phrases of the page.
export function cardCount(n) {
  return tn("{n} card", "{n} cards", n);
}

export function movesLeft(n) {
  return tn("{n} move left", "{n} moves left", n);
}

export function passDeviceText(view, seat) {
  return tf("Pass the device to {name} (seat {letter}).", { name: seatName(view, seat), letter: seatLetter(seat) });
}

export function passDeviceButton(seat) {
  return tf("I am seat {letter}", { letter: seatLetter(seat) });
}

// Where a position stands, in rounds, turns and decisions rather than a count of actions:
// after a whole turn (a reviewed position), or inside one (the analysis board can start
// from the live position: "Round 10, turn of Ann (seat B): decision 3").
export function reviewPosition(view) {
  const log = view.log || [];
  const last = log[log.length - 1];
  if (!last) return t("Position at the start of the game");
  const values = { name: seatName(view, last.seat), letter: seatLetter(last.seat), round: last.round };
  if (!view.over && last.round === view.round && last.seat === view.to_move && last.round > 0) {
    return tf("Round {round}, turn of {name} (seat {letter}): decision {n}", { ...values, n: last.steps.length + 1 });
  }
  if (last.round === 0) return tf("Setup: after a placement by {name} (seat {letter})", values);
  return tf("Round {round}: after the turn of {name} (seat {letter})", values);
}

// The review's header: the round of the reviewed position, said so that it agrees with the
// position's line below it (after the last turn of round 10, "Round 11 begins", not a bare
// "Round 11" over "Round 10: after the turn of ...").
export function reviewRound(view) {
  if (!view.round) return t("Setup");
  const last = (view.log || [])[(view.log || []).length - 1];
  if (last && last.round < view.round) return tf("Round {n} begins", { n: view.round });
  return tf("Round {n}", { n: view.round });
}

// The bonus a KING / MADAME "take" gives, by room: the game's own phrase.
const BONUS_TAKEN = { KING: "takes the King's Chamber bonus", MADAME: "takes the Madame de Pompadour bonus" };

// What a turn changed (a log entry's `summary`, web/turn_summary.py) in one line: servants
// placed in the setup, nobles
// recruited with their VP, cards played, servants put on the Gate and moved, bonuses taken,
// gold, cards drawn; "No change on the board" when none of these. The game's phrases where
// they exist (play/locale), so the log says what the hints say.
export function turnSummaryText(summary) {
  const parts = [];
  const s = summary || {};
  const list = (items) => joinList(items);
  const placed = s.placed || [];
  if (placed.length) {
    const placements = placed.map(placementText);
    parts.push(tf("places {placements}", { placements: list(placements) }));
  }
  const recruited = s.recruited || [];
  if (recruited.length) {
    const vp = recruited.reduce((sum, tile) => sum + tile.vp, 0);
    parts.push(tn("recruits noble {numbers} ({extras})", "recruits nobles {numbers} ({extras})", recruited.length,
      { numbers: list(recruited.map((tile) => String(tile.number))), extras: tf("{vp} VP", { vp: formatNumber(vp) }) }));
  }
  if ((s.played || []).length) {
    const cards = s.played.map((card) => (card === "HONOUR" && s.honour_vp
      ? tf("{card} (+{vp} VP)", { card: pieceName("card", card), vp: formatNumber(s.honour_vp) })
      : pieceName("card", card)));
    parts.push(tf("plays {cards}", { cards: cards.join(t("list separator:, ")) }));
  }
  if (s.gate) parts.push(tn("puts {n} servant on the Gate", "puts {n} servants on the Gate", s.gate));
  if (s.moves) parts.push(tn("moves {n} servant", "moves {n} servants", s.moves));
  for (const room of s.bonuses || []) if (BONUS_TAKEN[room]) parts.push(t(BONUS_TAKEN[room]));
  if (s.gold > 0) parts.push(tf("+{n} gold", { n: formatNumber(s.gold) }));
  if (s.gold < 0) parts.push(tf("spends {n} gold", { n: formatNumber(-s.gold) }));
  if (s.drawn) parts.push(tn("draws {n} card", "draws {n} cards", s.drawn));
  const text = parts.length ? parts.join(t("phrase separator:; ")) : t("no change on the board");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// One room of a setup turn's placements: "2 in the Back Door".
function placementText(placement) {
  return tf("{n} in {room}", { n: formatNumber(placement.n), room: roomInText(placement.room) });
}

// "A", "A and B", "A, B and C" in the page's language (the game's list words).
function joinList(items) {
  if (items.length < 2) return items.join("");
  return tf("{items} and {last}", { items: items.slice(0, -1).join(t("list separator:, ")), last: items[items.length - 1] });
}
