// The board's words for its pieces, all from words.js (web-words: names and effects from
// the catalogs, counted phrases with their plural forms); the board keeps no list of names
// or effects of its own. privilegeText() is the short label of a tile's privilege on a chip.

import { cardCount, costText, nobleText, pieceHelp, pieceName, seatName, stepWords } from "../words.js";

export { cardCount, costText, nobleText, pieceHelp, pieceName, seatName, stepWords };

// A tile's privilege with its amount ("Favour 2"), short enough for a square of the park.
export function privilegeText(tile) {
  const name = pieceName("privilege", tile.privilege);
  return tile.amount ? `${name} ${tile.amount}` : name;
}
