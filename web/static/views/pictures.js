// The How-to-play page's pictures, drawn by the board itself (board.js over the demo game's
// View, GET /api/how-to-play/view) and cropped to one part of it, so a picture can never
// show a piece otherwise than the board does. Each picture is a whole board in its own SVG
// whose viewBox is narrowed to the drawn nodes of its part (their bounding box, so both
// board layouts crop alike). Nothing in a picture can be played: its targets take no focus.
//
// drawPicture(svg, name, view, meta) draws one; PICTURES lists the names the documents use.

import { createBoard } from "../board.js";

const PAD = 6;

// A room holding a majority, the room with the most neighbours, a square whose noble has a
// privilege, one without: picked from the View, so any demo position does.
const majorityRoom = (view) => (view.layout || []).find((room) => (view.majorities || {})[room] > 0);
const centreRoom = (view) => (view.layout || [])[4];
const nobleSquare = (view, withPrivilege) => (view.park || []).find((place) => place.tile
  && (place.tile.privilege !== "NONE") === withPrivilege && place.tile.turquoise + place.tile.violet > 0);

// The moves from `room` to each adjacent room, as the server would offer them (so the board
// draws its arrows through the stairways); they only draw, a picture's handlers do nothing.
function movesFrom(view, room) {
  return (view.adjacent[room] || []).map((to) => ({ kind: "move", from: room, to, token: `${room}-${to}`, id: -1 }));
}

// name -> {ui(view): what to draw, part(view): the selector of the nodes to show}.
const KINDS = {
  board: { part: () => null },
  castle: { part: () => ".layer-castle" },
  stairway: {
    ui: (view) => ({ view: { ...view, legal: movesFrom(view, centreRoom(view)) }, selectedFrom: centreRoom(view) }),
    part: () => ".layer-castle",
  },
  park: { part: () => ".layer-park" },
  noble: { part: (view) => `.square[data-square="${nobleSquare(view, false).square}"]`, scale: 2.4, pad: 0 },
  privilege: { part: (view) => `.square[data-square="${(nobleSquare(view, true) || nobleSquare(view, false)).square}"]`, scale: 2.4, pad: 0 },
  cards: { part: () => ".layer-legend" },
  majority: { part: (view) => `.room[data-room="${majorityRoom(view) || centreRoom(view)}"]`, scale: 2, pad: 0 },
  panel: { part: (view) => `.panel[data-seat="${view.seat || 1}"]` },
};

export const PICTURES = Object.keys(KINDS);

export function drawPicture(svg, name, view, meta) {
  const kind = KINDS[name];
  if (!kind) throw new Error(`no picture named ${name} (pictures: ${PICTURES.join(", ")})`);
  const still = { ...view, log: [], legal: [] };           // no last turn outlined, no target
  const { view: drawn, selectedFrom } = kind.ui ? kind.ui(still) : { view: still, selectedFrom: null };
  const board = createBoard(svg, { meta: () => meta, onChoose: () => {}, onSelect: () => {} });
  board.render(drawn, { selectedFrom, interactive: true });
  for (const node of svg.querySelectorAll("[tabindex]")) node.setAttribute("tabindex", "-1");
  svg.dataset.picture = name;
  const selector = kind.part(drawn);
  const node = selector ? svg.querySelector(selector) : null;
  if (selector && !node) throw new Error(`picture ${name}: nothing drawn at ${selector}`);
  if (node) {
    const box = node.getBBox();
    const pad = kind.pad ?? PAD;
    svg.setAttribute("viewBox", `${box.x - pad} ${box.y - pad} ${box.width + 2 * pad} ${box.height + 2 * pad}`);
    svg.style.width = `${Math.round((box.width + 2 * pad) * (kind.scale || 1))}px`;
  }
  return board;
}
