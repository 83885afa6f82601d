// Drawing the park: 36 squares, each with its noble (VP, privilege, cost) and the servant
// that recruited it; the squares a recruitment may take are targets.

import { kid, sweep, wrapLabel } from "./dom.js";
import { squareBox, SEAT_LETTERS } from "./geometry.js";
import { drawServant } from "./castle.js";
import { costText, nobleText, pieceHelp, privilegeText } from "./speech.js";
import { classes, explain, setTarget } from "./targets.js";
import { t, tf } from "../i18n.js";
import { seatIndex } from "../seats.js";

// A tile's cost as three small marks: gold (a coin), turquoise and violet seals.
function drawCost(g, x, y, tile) {
  const parts = [["gold", tile.gold], ["turquoise", tile.turquoise], ["violet", tile.violet]];
  let cx = x;
  for (const [kind, n] of parts) {
    if (!n) continue;
    if (kind === "gold") kid(g, `cost-${kind}`, "circle", { cx: cx + 6, cy: y + 6, r: 7, class: "cost-gold" });
    else kid(g, `cost-${kind}`, "rect", { x: cx - 1, y: y - 1, width: 14, height: 14, rx: 2, class: `cost-${kind}` });
    kid(g, `cost-${kind}:n`, "text", { x: cx + 6, y: y + 10, class: "cost-text", "text-anchor": "middle" }, `${n}`);
    cx += 19;
  }
}

export function drawPark(layer, ctx) {
  const { view, geo, targets, touched, mover, handlers, centres } = ctx;
  (view.park || []).forEach((place, index) => {
    const box = squareBox(geo, index);
    const c = box.w;
    const file = index % 6;
    const rank = Math.floor(index / 6);
    const border = rank === 0 || rank === 5 || file === 0 || file === 5;
    const entry = targets.squares.get(place.square);
    const last = touched.squares.has(place.square);
    const g = kid(layer, `sq:${place.square}`, "g", {
      class: classes("square", border && "border", entry && "target", last && "last"), "data-square": place.square });
    // (said as a decision: which noble, where, and what it costs)
    const recruit = place.tile ? tf("Recruit noble {number} on {square} for {cost}", { number: place.tile.number, square: place.square, cost: costText(place.tile) })
      : tf("Recruit the noble on {square}", { square: place.square });
    setTarget(g, entry ? { label: recruit,
      action: () => handlers.onChoose(entry), token: entry.token } : null);
    kid(g, "cell", "rect", { x: box.x + 1, y: box.y + 1, width: c - 2, height: c - 2, rx: 4, class: "cell" });
    if (last) kid(g, "last", "rect", { x: box.x + 3, y: box.y + 3, width: c - 6, height: c - 6, rx: 3, class: "last-mark", stroke: mover.last });
    kid(g, "name", "text", { x: box.x + 4, y: box.y + 12, class: "square-name" }, place.square);
    const tile = place.tile;
    if (tile) {
      kid(g, "vp", "text", { x: box.x + c - 5, y: box.y + 16, class: "vp", "text-anchor": "end" }, `${tile.vp}`);
      kid(g, "vp-label", "text", { x: box.x + c - 5, y: box.y + 27, class: "vp-label", "text-anchor": "end" }, t("VP"));
      if (tile.privilege && tile.privilege !== "NONE") {
        const mark = kid(g, "privilege", "g", { class: "privilege-mark", "data-privilege": tile.privilege });
        wrapLabel(kid(mark, "text", "text", { x: box.x + c / 2, y: box.y + c * 0.6, class: "privilege", "text-anchor": "middle" }),
          privilegeText(tile), c - 8);
        explain(mark, privilegeText(tile), pieceHelp("privilege", tile.privilege));
      }
      drawCost(g, box.x + 5, box.y + c - 16, tile);
      explain(g, tf("Noble on {square}", { square: place.square }), nobleText(tile));
    } else {
      explain(g, place.square, place.servant ? tf("{square}: a servant of seat {letter}", {
        square: place.square, letter: SEAT_LETTERS[seatIndex(place.servant)] }) : "");
    }
    if (place.servant) drawServant(g, "servant", box.x + c / 2, box.y + c / 2 + 2, seatIndex(place.servant), 13);
    centres.squares[place.square] = { x: box.x + c / 2, y: box.y + c / 2, box };
    sweep(g);
  });
  kid(layer, "label", "text", { x: geo.park.x, y: geo.park.y - 6, class: "label" }, t("Park"));
  sweep(layer);
}
