// The board's state, worked out from a View and nothing else (no DOM here): which pieces
// exist (from /api/meta's `pieces`, else from the View itself), what can be clicked, where
// each step of a turn happened, and which turn is the last one to keep highlighted.

// The rooms and cards, in the rules core's order (view.rooms[seat][i] counts servants in rooms[i]).
// /api/meta's `pieces` gives them; a server without it still orders the View's `adjacent`
// (rooms) and each hand (cards) the rules core's way, so those are read, never a copy in JS.
export function piecesOf(view, meta) {
  const given = meta && meta.pieces;
  const rooms = given && Array.isArray(given.rooms) ? given.rooms.slice()
    : Object.keys((view && view.adjacent) || {});
  let cards = [];
  if (given && Array.isArray(given.cards)) {
    cards = given.cards.map((card) => (typeof card === "string" ? card : card.id));
  } else {
    const hand = ((view && view.players) || []).map((p) => p.hand).find((h) => h);
    cards = hand ? Object.keys(hand) : [];
  }
  const counts = {};
  if (given && Array.isArray(given.cards)) {
    for (const card of given.cards) if (card && typeof card === "object") counts[card.id] = card.count;
  }
  const privileges = given && Array.isArray(given.privileges) ? given.privileges.slice() : [];
  return { rooms, cards, counts, privileges };
}

// What can be clicked, by place: rooms, move sources and destinations, squares and cards,
// each mapped to the legal entry (or entries) it stands for.
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

// A step from a token, for a server whose log has no `steps` yet: matched against the
// pieces the server named (rooms, squares of the park, cards), never against copies.
function stepOfToken(token, view, pieces) {
  const upper = token.toUpperCase();
  if (pieces.rooms.includes(upper)) return { token, kind: "room", room: upper };
  const [from, to, more] = upper.split("-");
  if (to && !more && pieces.rooms.includes(from) && pieces.rooms.includes(to)) return { token, kind: "move", from, to };
  if ((view.park || []).some((place) => place.square === token)) return { token, kind: "recruit", square: token };
  if (upper.startsWith("!") && pieces.cards.includes(upper.slice(1))) return { token, kind: "play", card: upper.slice(1) };
  return { token, kind: "other" };
}

// The steps of one log entry (or a hint): its `steps` when the server sends them.
export function stepsOf(entry, view, pieces) {
  if (!entry) return [];
  if (Array.isArray(entry.steps)) return entry.steps;
  let tokens = entry.tokens !== undefined ? entry.tokens : entry.actions;
  if (typeof tokens === "string") tokens = tokens.split(/\s+/).filter(Boolean);
  return (tokens || []).map((token) => stepOfToken(token, view, pieces));
}

// Where a step happened on the board: {room} | {from, to} | {square} | {card}, or null
// (gate counts, bonuses, end of turn, hidden draws).
export function placeOf(step) {
  if (!step) return null;
  if (step.kind === "room" && step.room) return { room: step.room };
  if (step.kind === "move" && step.from && step.to) return { from: step.from, to: step.to };
  if (step.kind === "recruit" && step.square) return { square: step.square };
  if (step.kind === "play" && step.card) return { card: step.card };
  return null;
}

// The turn to keep highlighted: the last of the log, or while the page's own seat is in
// the middle of its turn, the one before (what the others just did stays in sight).
export function lastTurn(view) {
  const log = (view && view.log) || [];
  if (!log.length) return null;
  let i = log.length - 1;
  const mine = view.seat && !view.over && view.to_move === view.seat && log[i].seat === view.seat;
  if (mine) i -= 1;
  return i >= 0 ? log[i] : null;
}

// The places a turn touched: {rooms: Set, squares: Set, cards: Set, stairs: Set("A|B")}.
export function touchedBy(entry, view, pieces) {
  const touched = { rooms: new Set(), squares: new Set(), cards: new Set(), stairs: new Set() };
  for (const step of stepsOf(entry, view, pieces)) {
    const place = placeOf(step);
    if (!place) continue;
    if (place.room) touched.rooms.add(place.room);
    if (place.square) touched.squares.add(place.square);
    if (place.card) touched.cards.add(place.card);
    if (place.from) {
      touched.rooms.add(place.from);
      touched.rooms.add(place.to);
      touched.stairs.add(stairKey(place.from, place.to));
    }
  }
  return touched;
}

export function stairKey(a, b) {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

// The steps between two Views of one game, with the seat that took each: those of
// `toView`'s log from `fromView`'s ply on, except the page's own seat's (it clicked them).
export function stepsBetween(fromView, toView, pieces) {
  const out = [];
  if (!fromView || !toView || toView.ply <= fromView.ply) return out;
  for (const entry of toView.log || []) {
    const steps = stepsOf(entry, toView, pieces);
    steps.forEach((step, k) => {
      const ply = entry.ply + k;
      if (ply >= fromView.ply && ply < toView.ply && entry.seat !== toView.seat) out.push({ ...step, seat: entry.seat });
    });
  }
  return out;
}
