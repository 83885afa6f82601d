// The game's live updates: one WebSocket per shown game and seat (api.js opens and reopens
// it), its messages turned into calls of the handlers the controller gives (a view, an
// engine's thinking, the analysis' progress, an error, the game gone). Nothing else in the
// page reads the socket.

import { openGameSocket } from "./api.js";

let socket = null;

export function connect(gameId, key, handlers) {
  disconnect();
  socket = openGameSocket(gameId, key, (message) => dispatch(message, handlers));
}

export function disconnect() {
  if (socket) socket.close();
  socket = null;
}

function dispatch(message, handlers) {
  const handler = handlers[message.type];
  if (handler) handler(message);
}
