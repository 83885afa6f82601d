// The board as SVG: it only draws a View and reports clicks on legal targets (the rules
// and the list of legal actions come from the server, view.legal). The castle's 3x3 rooms,
// the 6x6 park and one panel per seat. Every clickable target carries its notation token,
// so nothing but a token the server offered can be chosen.

import { t, tf } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
export const SEAT_LETTERS = ["A", "B", "C", "D"];
export const SEAT_COLOURS = ["#b03a2e", "#1f5f99", "#1e7a46", "#8a4fa3"];
export const ROOMS = ["GATE", "PARADE", "STAIRS", "MINT", "KING", "MADAME", "OFFICE", "BACKDOOR", "CARDINAL"];
export const CARDS = ["GOLD", "MOVES", "GUARDS", "KINGSEAL", "MADAMESEAL", "LETTER", "INTRIGUE", "FOOTMAN", "HONOUR"];

const CASTLE = { x: 10, y: 8, w: 140, h: 80 };
const PARK = { x: 10, y: 262, cell: 70 };
const PANELS = { x: 450, y: 8, w: 322, h: 672 };
export const BOARD_SIZE = { w: 780, h: 692 };

function el(name, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// Squeezes a text into `width` user units when it is longer (a long translation, a long
// name): the glyphs are narrowed rather than cut off or spilled over the next cell.
function fit(node, width) {
  if (node.getComputedTextLength && node.getComputedTextLength() > width) {
    node.setAttribute("textLength", width);
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}

// What can be clicked in a view, by place: rooms, move sources and destinations, squares
// and cards, each mapped to the legal entry (or entries) it stands for.
export function targetsOf(legal, selectedFrom) {
  const targets = { rooms: new Map(), moveFrom: new Map(), moveTo: new Map(), squares: new Map(), cards: new Map() };
  for (const entry of legal || []) {
    if (entry.kind === "room") targets.rooms.set(entry.room, entry);
    else if (entry.kind === "recruit") targets.squares.set(entry.square, entry);
    else if (entry.kind === "play") targets.cards.set(entry.card, entry);
    else if (entry.kind === "move") {
      if (!targets.moveFrom.has(entry.from)) targets.moveFrom.set(entry.from, []);
      targets.moveFrom.get(entry.from).push(entry);
      if (entry.from === selectedFrom) targets.moveTo.set(entry.to, entry);
    }
  }
  return targets;
}

// Where each token of a turn points on the board, for drawing a hint: a room, a move
// (two rooms), a square or a card. Tokens with no place (gate counts, end, ...) give null.
export function placeOfToken(token) {
  const upper = token.toUpperCase();
  if (ROOMS.includes(upper)) return { room: upper };
  const move = upper.match(/^([A-Z]+)-([A-Z]+)$/);
  if (move && ROOMS.includes(move[1]) && ROOMS.includes(move[2])) return { from: move[1], to: move[2] };
  if (/^[A-F][1-6]$/.test(upper)) return { square: token.toLowerCase() };
  if (upper.startsWith("!") && CARDS.includes(upper.slice(1))) return { card: upper.slice(1) };
  return null;
}

export class Board {
  // onChoose(entry) is called with a legal entry of view.legal when its target is clicked
  // (or Enter/Space is pressed on it); onSelect(room|null) when a move source is picked.
  constructor(svg, { onChoose, onSelect }) {
    this.svg = svg;
    this.onChoose = onChoose;
    this.onSelect = onSelect;
    this.roomCentres = {};
    this.squareCentres = {};
    this.cardCentres = {};
    svg.setAttribute("viewBox", `0 0 ${BOARD_SIZE.w} ${BOARD_SIZE.h}`);
    svg.setAttribute("role", "group");
  }

  render(view, { selectedFrom = null, interactive = true } = {}) {
    const svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    this.view = view;
    const legal = interactive ? view.legal : [];
    const targets = targetsOf(legal, selectedFrom);
    svg.setAttribute("aria-label", t("Board"));
    this.drawCastle(view, targets, selectedFrom);
    this.drawPark(view, targets);
    this.drawPanels(view, targets);
    this.hintLayer = el("g", { class: "hint-layer" }, svg);
  }

  // A clickable target: focusable, announced as a button, Enter/Space act like a click.
  makeTarget(node, label, action) {
    node.classList.add("target");
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", label);
    node.addEventListener("click", (event) => { event.stopPropagation(); action(); });
    node.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        action();
      }
    });
  }

  drawCastle(view, targets, selectedFrom) {
    const group = el("g", { class: "castle" }, this.svg);
    view.layout.forEach((room, cell) => {
      const row = Math.floor(cell / 3);
      const col = cell % 3;
      const x = CASTLE.x + col * CASTLE.w;
      const y = CASTLE.y + (2 - row) * CASTLE.h;     // row 1 lies next to the park, at the bottom
      const roomIndex = ROOMS.indexOf(room);
      const g = el("g", { class: `room room-${room.toLowerCase()}`, "data-room": room }, group);
      el("rect", { x: x + 2, y: y + 2, width: CASTLE.w - 4, height: CASTLE.h - 4, rx: 6, class: "cell" }, g);
      fit(el("text", { x: x + CASTLE.w / 2, y: y + 20, class: "room-name", "text-anchor": "middle" }, g, t(room)), CASTLE.w - 12);
      el("title", {}, g, t(room));
      // Each seat present: its letter on its colour and the count; two rows when crowded.
      const present = view.rooms.map((counts, seatIndex) => [seatIndex, counts[roomIndex]]).filter(([, n]) => n > 0);
      present.forEach(([seatIndex, n], k) => {
        const perRow = present.length > 3 ? 2 : 3;
        const chipX = x + 5 + (k % perRow) * 45;
        const chipY = present.length > 3 ? y + 40 + Math.floor(k / perRow) * 22 : y + 50;
        drawServant(g, chipX + 9, chipY, seatIndex);
        el("text", { x: chipX + 21, y: chipY + 5, class: "count" }, g, `×${n}`);
      });
      this.roomCentres[room] = { x: x + CASTLE.w / 2, y: y + CASTLE.h / 2 };
      let action = null;
      let label = t(room);
      if (targets.rooms.has(room)) {
        const entry = targets.rooms.get(room);
        action = () => this.onChoose(entry);
        g.dataset.token = entry.token;
      } else if (selectedFrom && targets.moveTo.has(room)) {
        const entry = targets.moveTo.get(room);
        action = () => this.onChoose(entry);
        label = tf("Move from {from} to {to}", { from: t(selectedFrom), to: t(room) });
        g.dataset.token = entry.token;
        g.classList.add("move-to");
      } else if (targets.moveFrom.has(room)) {
        const picked = selectedFrom === room;
        action = () => this.onSelect(picked ? null : room);
        label = picked ? tf("Cancel the move from {room}", { room: t(room) }) : tf("Move a servant from {room}", { room: t(room) });
        g.classList.add(picked ? "selected" : "move-from");
        g.dataset.from = room;
      }
      if (action) this.makeTarget(g, label, action);
    });
  }

  drawPark(view, targets) {
    const group = el("g", { class: "park" }, this.svg);
    const c = PARK.cell;
    view.park.forEach((place, index) => {
      const file = index % 6;
      const rank = Math.floor(index / 6);
      const x = PARK.x + file * c;
      const y = PARK.y + rank * c;
      const border = rank === 0 || rank === 5 || file === 0 || file === 5;
      const g = el("g", { class: `square${border ? " border" : ""}`, "data-square": place.square }, group);
      el("rect", { x: x + 1, y: y + 1, width: c - 2, height: c - 2, rx: 4, class: "cell" }, g);
      el("text", { x: x + 4, y: y + 12, class: "square-name" }, g, place.square);
      const tile = place.tile;
      if (tile) {
        el("text", { x: x + c - 5, y: y + 16, class: "vp", "text-anchor": "end" }, g, `${tile.vp}`);
        el("text", { x: x + c - 5, y: y + 25, class: "vp-label", "text-anchor": "end" }, g, t("VP"));
        if (tile.privilege && tile.privilege !== "NONE") {
          fit(el("text", { x: x + c / 2, y: y + 38, class: "privilege", "text-anchor": "middle" }, g,
            privilegeText(tile)), c - 8);
        }
        drawCost(g, x + 5, y + c - 16, tile);
        el("title", {}, g, tileDescription(tile, place.square));
      }
      if (place.servant) {
        drawServant(g, x + c / 2, y + c / 2 + 2, place.servant - 1, 13);
        el("title", {}, g, tf("{square}: a servant of seat {letter}", { square: place.square, letter: SEAT_LETTERS[place.servant - 1] }));
      }
      this.squareCentres[place.square] = { x: x + c / 2, y: y + c / 2 };
      if (targets.squares.has(place.square)) {
        const entry = targets.squares.get(place.square);
        g.dataset.token = entry.token;
        this.makeTarget(g, tf("Recruit the noble on {square}", { square: place.square }), () => this.onChoose(entry));
      }
    });
    el("text", { x: PARK.x, y: PARK.y - 6, class: "label" }, group, t("Park"));
  }

  drawPanels(view, targets) {
    const group = el("g", { class: "panels" }, this.svg);
    const n = view.n_players;
    const gap = 6;
    const h = Math.min(230, (PANELS.h - gap * (n - 1)) / n);
    view.players.forEach((player, i) => {
      const x = PANELS.x;
      const y = PANELS.y + i * (h + gap);
      const seatIndex = player.seat - 1;
      const g = el("g", { class: `panel${view.to_move === player.seat ? " to-move" : ""}`, "data-seat": player.seat }, group);
      el("rect", { x, y, width: PANELS.w, height: h, rx: 6, class: "panel-box" }, g);
      el("rect", { x, y, width: 8, height: h, rx: 3, fill: SEAT_COLOURS[seatIndex] }, g);
      drawServant(g, x + 24, y + 16, seatIndex, 10);
      const name = view.names[seatIndex] || tf("Seat {n}", { n: player.seat });
      const engine = (view.engines || [])[seatIndex];
      const kind = engine && engine.failed ? `${view.kinds[seatIndex]} · ${t("engine failed")}` : view.kinds[seatIndex];
      let heading = view.kinds[seatIndex] === "human" ? name : `${name} (${kind})`;
      if (view.seat === player.seat) heading += ` · ${t("you")}`;
      fit(el("text", { x: x + 40, y: y + 20, class: "panel-name" }, g, heading), PANELS.w - 150);
      const marks = [];
      if (view.thinking === player.seat) marks.push(t("thinking…"));
      else if (view.to_move === player.seat) marks.push(t("to move"));
      fit(el("text", { x: x + PANELS.w - 8, y: y + 20, class: "panel-vp", "text-anchor": "end" }, g,
        `${view.scores[seatIndex]} ${t("VP")}${marks.length ? " · " + marks.join(" ") : ""}`), 140);
      let line = y + 38;
      const row = (text) => { fit(el("text", { x: x + 16, y: line, class: "panel-text" }, g, text), PANELS.w - 24); line += 15; };
      row(`${t("Gold")} ${player.gold} · ${t("Play area")} ${player.area} · ${t("Supply")} ${player.supply} · ${t("Honours")} ${player.honours}`);
      row(`${t("Seals")}: ${t("turquoise")} ${player.seals.turquoise} · ${t("violet")} ${player.seals.violet}`);
      // A list that does not fit one line goes on over the next ones (as many as the
      // panel has room for; the last is narrowed if need be).
      const wrapped = (label, items, separator, reserve) => {
        if (!items.length) { row(`${label}: —`); return; }
        let text = el("text", { x: x + 16, y: line, class: "panel-text" }, g, `${label}:`);
        let count = 0;
        for (const item of items) {
          const before = text.textContent;
          text.textContent = `${before}${count ? separator : " "}${item}`;
          const room = line + 15 <= y + h - reserve;
          if (count && room && text.getComputedTextLength && text.getComputedTextLength() > PANELS.w - 24) {
            text.textContent = before;
            line += 15;
            text = el("text", { x: x + 24, y: line, class: "panel-text" }, g, item);
          }
          count += 1;
        }
        fit(text, PANELS.w - 24 - (text.getAttribute("x") - x - 16));
        line += 15;
      };
      const nobles = player.nobles || [];
      const privilegeCounts = new Map();
      for (const tile of nobles) {
        if (tile.privilege && tile.privilege !== "NONE") {
          const name = privilegeText(tile);
          privilegeCounts.set(name, (privilegeCounts.get(name) || 0) + 1);
        }
      }
      const privileges = [...privilegeCounts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name));
      const handRows = player.hand ? 40 : 15;
      wrapped(t("Nobles"), nobles.map((tile) => `#${tile.number}`), " ", handRows + 15);
      wrapped(t("Privileges"), privileges, ", ", handRows);
      if (player.hand) {
        const held = CARDS.filter((card) => player.hand[card] > 0);
        if (!held.length) {
          row(`${t("Hand")}: —`);
        } else {
          el("text", { x: x + 16, y: line, class: "panel-text" }, g, `${t("Hand")}:`);
          let cx = x + 16;
          let cy = line + 4;
          for (const card of held) {
            const label = `${t(card)} ×${player.hand[card]}`;
            const cardGroup = el("g", { class: "card", "data-card": card }, g);
            const text = el("text", { class: "card-text" }, cardGroup, label);
            const w = Math.min(PANELS.w - 24, Math.max(50, (text.getComputedTextLength ? text.getComputedTextLength() : label.length * 6.4) + 12));
            if (cx + w > x + PANELS.w - 6) { cx = x + 16; cy += 22; }
            text.setAttribute("x", cx + 6);
            text.setAttribute("y", cy + 14);
            fit(text, w - 12);
            cardGroup.insertBefore(el("rect", { x: cx, y: cy, width: w, height: 19, rx: 3, class: "card-box" }), text);
            this.cardCentres[card] = { x: cx + w / 2, y: cy + 10 };
            if (targets.cards.has(card) && seatIndex === view.seat - 1) {
              const entry = targets.cards.get(card);
              cardGroup.dataset.token = entry.token;
              this.makeTarget(cardGroup, tf("Play {card}", { card: t(card) }), () => this.onChoose(entry));
            }
            cx += w + 5;
          }
        }
      } else {
        row(`${t("Hand")}: ${tf("{n} cards", { n: player.hand_size })}`);
      }
    });
  }

  // Shows a hint's actions on the board: each place numbered in the order of the turn,
  // moves as arrows. clearHint() takes it away.
  showHint(tokens) {
    this.clearHint();
    let order = 0;
    for (const token of tokens) {
      order += 1;
      const place = placeOfToken(token);
      if (!place) continue;
      let at = null;
      if (place.room) at = this.roomCentres[place.room];
      else if (place.square) at = this.squareCentres[place.square];
      else if (place.card) at = this.cardCentres[place.card];
      else if (place.from) {
        const a = this.roomCentres[place.from];
        const b = this.roomCentres[place.to];
        if (a && b) {
          el("line", { x1: a.x, y1: a.y + 10, x2: b.x, y2: b.y + 10, class: "hint-arrow", "marker-end": "url(#arrow)" }, this.hintLayer);
          at = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 + 10 };
        }
      }
      if (!at) continue;
      el("circle", { cx: at.x + 30, cy: at.y - 18, r: 10, class: "hint-badge" }, this.hintLayer);
      el("text", { x: at.x + 30, y: at.y - 14, class: "hint-badge-text", "text-anchor": "middle" }, this.hintLayer, `${order}`);
    }
  }

  clearHint() {
    if (!this.hintLayer) return;
    while (this.hintLayer.firstChild) this.hintLayer.removeChild(this.hintLayer.firstChild);
    const defs = el("defs", {}, this.hintLayer);
    const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", class: "hint-arrow-head" }, marker);
  }
}

function drawServant(parent, cx, cy, seatIndex, r = 9) {
  el("circle", { cx, cy, r, fill: SEAT_COLOURS[seatIndex], class: "servant" }, parent);
  el("text", { x: cx, y: cy + r * 0.42, class: "servant-letter", "text-anchor": "middle", "font-size": r * 1.2 }, parent,
    SEAT_LETTERS[seatIndex]);
}

// A tile's cost as three small marks: gold (a coin), turquoise and violet seals.
function drawCost(parent, x, y, tile) {
  const parts = [["gold", tile.gold], ["turquoise", tile.turquoise], ["violet", tile.violet]];
  let cx = x;
  for (const [kind, n] of parts) {
    if (!n) continue;
    if (kind === "gold") el("circle", { cx: cx + 6, cy: y + 6, r: 7, class: "cost-gold" }, parent);
    else el("rect", { x: cx - 1, y: y - 1, width: 14, height: 14, rx: 2, class: `cost-${kind}` }, parent);
    el("text", { x: cx + 6, y: y + 10, class: "cost-text", "text-anchor": "middle" }, parent, `${n}`);
    cx += 19;
  }
}

export function privilegeText(tile) {
  const name = t(tile.privilege);
  return tile.amount ? `${name} ${tile.amount}` : name;
}

export function tileDescription(tile, square) {
  const privilege = tile.privilege && tile.privilege !== "NONE" ? `, ${privilegeText(tile)}` : "";
  return tf("{square}: noble #{number}, {vp} VP, cost {gold} gold, {turquoise} turquoise, {violet} violet", {
    square, number: tile.number, vp: tile.vp, gold: tile.gold, turquoise: tile.turquoise, violet: tile.violet,
  }) + privilege;
}
