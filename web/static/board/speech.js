// The board's words for its pieces, from words.js (web-words: names and effects from the
// catalogs) when the page has it; until then the catalog's own entry for the code. The board
// never keeps its own list of names or effects.

import * as i18n from "../i18n.js";

let words = null;
try {
  words = await import("../words.js");
} catch (_) {
  words = null;             // an older server: names only, from the catalog
}

const { t, tf } = i18n;

// "room" | "card" | "privilege" | "stage", and the piece's code (GATE, GOLD, FAVOUR, ...).
export function pieceName(kind, id) {
  if (words && words.pieceName) return words.pieceName(kind, id);
  return t(id);
}

// The piece's effect in words, or "" when words.js cannot say.
export function pieceHelp(kind, id) {
  if (words && words.pieceHelp) return words.pieceHelp(kind, id) || "";
  return "";
}

// A noble tile in words: cost, VP, privilege.
export function nobleText(tile) {
  if (words && words.nobleText) return words.nobleText(tile);
  const privilege = tile.privilege && tile.privilege !== "NONE" ? `, ${privilegeText(tile)}` : "";
  return tf("{vp} VP, cost {gold} gold, {turquoise} turquoise, {violet} violet", {
    vp: tile.vp, gold: tile.gold, turquoise: tile.turquoise, violet: tile.violet,
  }) + privilege;
}

// A tile's privilege with its amount ("Favour 2").
export function privilegeText(tile) {
  const name = pieceName("privilege", tile.privilege);
  return tile.amount ? `${name} ${tile.amount}` : name;
}

export function stepText(step, view) {
  if (words && words.stepWords) {
    const said = words.stepWords(step, view);
    if (said && said.text) return said.text;
  }
  return step.token;
}
