// Drawing the seats' panels (gold, seals, majorities, nobles and privileges in words, the
// hand's cards, the page's own ones as targets) and the legend under the park (the draw
// pile and discard sizes, every card and privilege with its effect).

import { kid, setText, sweep, fit, wrapLabel } from "./dom.js";
import { SEAT_COLOURS } from "./geometry.js";
import { drawServant } from "./castle.js";
import { cardCount, nobleText, pieceHelp, pieceName, privilegeText, seatName } from "./speech.js";
import { classes, explain, setTarget } from "./targets.js";
import { t, tf } from "../i18n.js";
import { seatIndex } from "../seats.js";

// Chips in rows from (x, y) to maxX: each {key, label, name, help, cls, target, data}.
// Returns the y under the last row; `at` gets each chip's box by key.
function chips(g, items, { x, y, maxX, h, row, minW, measure, cls, at = null, fixedW = 0 }) {
  let cx = x;
  let cy = y;
  for (const item of items) {
    const w = fixedW || Math.min(maxX - x, Math.max(minW, measure(item.label, `${cls}-text`) + 14));
    if (cx + w > maxX && cx > x) { cx = x; cy += row; }
    const chip = kid(g, item.key, "g", { class: classes(cls, item.cls, item.target && "target"), ...(item.data || {}) });
    setTarget(chip, item.target || null);
    kid(chip, "box", "rect", { x: cx, y: cy, width: w, height: h, rx: 3, class: `${cls}-box`, stroke: item.stroke || null });
    const text = kid(chip, "text", "text", { x: cx + w / 2, y: cy + h / 2 + 4, class: `${cls}-text`, "text-anchor": "middle" });
    if (h >= 22) wrapLabel(text, item.label, w - 8);          // room for two lines: a long name wraps
    else fit(setText(text, item.label), w - 10);
    explain(chip, item.name, item.help);
    sweep(chip);
    if (at) at[item.id] = { x: cx, y: cy, w, h };
    cx += w + 5;
  }
  return items.length ? cy + row : y;
}

export function drawPanels(layer, ctx) {
  const { view, geo, pieces, targets, touched, handlers, centres, measure } = ctx;
  const P = geo.panels;
  const majorities = view.majorities || {};
  let top = P.y;
  view.players.forEach((player, i) => {
    const x = P.x;
    const y = P.grow ? top : P.y + i * (P.h + P.gap);
    const index = seatIndex(player.seat);
    const g = kid(layer, `panel:${player.seat}`, "g", { class: classes("panel", view.to_move === player.seat && "to-move"), "data-seat": player.seat });
    const box = kid(g, "box", "rect", { x, y, width: P.w, height: P.h, rx: 6, class: "panel-box" });
    const stripe = kid(g, "stripe", "rect", { x, y, width: 8, height: P.h, rx: 3, fill: SEAT_COLOURS[index] });
    drawServant(g, "servant", x + 24, y + 16, index, 10);
    centres.seats[player.seat] = { x: x + 24, y: y + 16 };
    const name = seatName(view, player.seat);
    const engine = (view.engines || [])[index];
    // (an engine's seat is named by its label, not by its kind again: no "ismcts (ismcts)")
    let heading = engine && engine.failed ? `${name} · ${t("engine failed")}` : name;
    if (view.seat === player.seat) heading += ` · ${t("you")}`;
    fit(kid(g, "name", "text", { x: x + 40, y: y + 20, class: "panel-name" }, heading), P.w - 150);
    const marks = [];
    if (view.thinking === player.seat) marks.push(t("thinking…"));
    else if (view.to_move === player.seat) marks.push(t("to move"));
    fit(kid(g, "vp", "text", { x: x + P.w - 8, y: y + 20, class: "panel-vp", "text-anchor": "end" },
      `${view.scores[index]} ${t("VP")}${marks.length ? " · " + marks.join(" ") : ""}`), 140);
    let line = y + 38;
    const row = (key, text) => { fit(kid(g, key, "text", { x: x + 16, y: line, class: "panel-text" }, text), P.w - 24); line += 15; };
    row("line1", `${t("Gold")} ${player.gold} · ${t("Play area")} ${player.area} · ${t("Supply")} ${player.supply} · ${t("Honours")} ${player.honours}`);
    row("line2", `${t("Seals")}: ${t("turquoise")} ${player.seals.turquoise} · ${t("violet")} ${player.seals.violet}`);
    const held = Object.keys(majorities).filter((room) => majorities[room] === player.seat).map((room) => pieceName("room", room));
    if (view.majorities) row("majorities", `${t("Majorities")}: ${held.length ? held.join(", ") : "—"}`);
    const common = { x: x + 16, maxX: x + P.w - 8, measure };
    // Nobles in words (their VP on the chip; cost, VP and privilege in the tooltip).
    const after = (label) => x + 16 + measure(label, "panel-text") + 6;
    const nobles = (player.nobles || []).map((tile, k) => ({
      key: `noble${k}`, id: k, label: tf("{vp} VP", { vp: tile.vp }), name: t("Noble tile"), help: nobleText(tile) }));
    const noblesLabel = `${t("Nobles")}:${nobles.length ? "" : " —"}`;
    kid(g, "nobles-label", "text", { x: x + 16, y: line, class: "panel-text" }, noblesLabel);
    line = chips(g, nobles, { ...common, x: after(noblesLabel), y: line - 12, h: 16, row: 19, minW: 34, cls: "noble" }) + (nobles.length ? 10 : 27);
    const privileges = (player.nobles || []).filter((tile) => tile.privilege && tile.privilege !== "NONE")
      .map((tile, k) => ({ key: `privilege${k}`, id: k, label: privilegeText(tile), name: privilegeText(tile),
        help: pieceHelp("privilege", tile.privilege), data: { "data-privilege": tile.privilege } }));
    const privilegesLabel = `${t("Privileges")}:${privileges.length ? "" : " —"}`;
    kid(g, "privileges-label", "text", { x: x + 16, y: line, class: "panel-text" }, privilegesLabel);
    line = chips(g, privileges, { ...common, x: after(privilegesLabel), y: line - 12, h: 16, row: 19, minW: 40, cls: "privilege-chip" }) + (privileges.length ? 10 : 27);
    if (player.hand) {
      const cards = pieces.cards.filter((card) => player.hand[card] > 0).map((card) => {
        const entry = player.seat === view.seat ? targets.cards.get(card) : null;
        const cardName = pieceName("card", card);
        return {
          key: `card:${card}`, id: card, label: `${cardName} ×${player.hand[card]}`, name: cardName, help: pieceHelp("card", card),
          data: { "data-card": card },
          target: entry ? { label: tf("Play {card}", { card: cardName }), action: () => handlers.onChoose(entry), token: entry.token } : null,
        };
      });
      kid(g, "hand-label", "text", { x: x + 16, y: line, class: "panel-text" }, `${t("Hand")}:${cards.length ? "" : " —"}`);
      const boxes = {};
      line = chips(g, cards, { ...common, y: line + 5, h: geo.card.h, row: geo.card.row, minW: geo.card.minW, cls: "card", at: boxes });
      for (const [card, box] of Object.entries(boxes)) centres.cards[card] = { x: box.x + box.w / 2, y: box.y + box.h / 2, box };
    } else {
      row("hand", `${t("Hand")}: ${cardCount(player.hand_size)}`);
    }
    if (P.grow) {
      const height = Math.max(P.h, line - y + 4);
      box.setAttribute("height", height);
      stripe.setAttribute("height", height);
      top = y + height + P.gap;
    }
    sweep(g);
  });
  sweep(layer);
  return P.grow ? top : P.y + view.players.length * (P.h + P.gap);
}

export function drawLegend(layer, ctx) {
  const { view, geo, pieces, touched, mover, measure, centres } = ctx;
  const L = geo.legend;
  kid(layer, "pile", "text", { x: L.x, y: L.y + 10, class: "legend-title", "data-pile": view.draw_pile },
    `${tf("Draw pile: {n}", { n: view.draw_pile })} · ${tf("Discard: {n}", { n: view.discard })}`);
  centres.pile = { x: L.x + 40, y: L.y + 6 };
  const common = { maxX: L.x + L.w, measure, h: L.chipH, row: L.chipH + 4, minW: 30, fixedW: L.chipW };
  const labelW = geo.folded ? 0 : 64;
  let y = L.y + 18;
  const cards = pieces.cards.map((card) => ({
    key: `card:${card}`, id: card, label: pieceName("card", card), name: pieceName("card", card), help: pieceHelp("card", card),
    data: { "data-card": card }, cls: touched.cards.has(card) ? "last" : "", stroke: touched.cards.has(card) ? mover.last : null }));
  const privileges = pieces.privileges.filter((p) => p !== "NONE").map((p) => ({
    key: `privilege:${p}`, id: p, label: pieceName("privilege", p), name: pieceName("privilege", p),
    help: pieceHelp("privilege", p), data: { "data-privilege": p } }));
  for (const [key, label, items] of [["cards", t("Cards"), cards], ["privileges", t("Privileges"), privileges]]) {
    const group = kid(layer, key, "g", { class: `legend-${key}` });
    if (!items.length) { sweep(group); continue; }
    if (labelW) fit(kid(group, "label", "text", { x: L.x, y: y + L.chipH / 2 + 4, class: "legend-label" }, `${label}:`), labelW - 6);
    else { kid(group, "label", "text", { x: L.x, y: y + 11, class: "legend-label" }, `${label}:`); y += 15; }
    const at = {};
    y = chips(group, items, { ...common, x: L.x + labelW, y, cls: "legend-chip", at });
    if (key === "cards") for (const [card, box] of Object.entries(at)) centres.legendCards[card] = { x: box.x + box.w / 2, y: box.y + box.h / 2 };
    sweep(group);
  }
  sweep(layer);
}
