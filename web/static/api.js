// The page's only door to the server: JSON over HTTP and the game's WebSocket
// (docs/web.md, "HTTP and WebSocket API"). Every failed request becomes an ApiError whose
// message is the server's one-line {"error": ...}, so the page can show it as it is.

export class ApiError extends Error {
  constructor(status, message, data = null) {
    super(message);
    this.status = status;
    this.data = data;            // the answer's whole JSON: a stale change's current `view`
  }
}

// Requests in flight, shown as body[data-busy] so a test (or a style) can tell the page is
// waiting for the server.
let pending = 0;
function setPending(delta) {
  pending += delta;
  document.body.dataset.busy = pending > 0 ? "1" : "0";
}

async function request(method, path, body, raw = false, key = null) {
  setPending(1);
  try {
    return await send(method, path, body, raw, key);
  } finally {
    setPending(-1);
  }
}

// `key`: the seat key (or owner key) the request is made with, sent in a header so it
// never appears in an address, a log line or a Referer (docs/web.md, "Seats and links").
async function send(method, path, body, raw, key, asText = false) {
  const init = { method, headers: {} };
  if (key) init.headers["X-Palais-Key"] = key;
  if (body !== undefined) {
    if (raw) {
      init.body = body;
      init.headers["Content-Type"] = "text/plain; charset=utf-8";
    } else {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
  }
  const response = await fetch(path, init);
  const text = await response.text();
  if (asText && response.ok) return text;
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, data);
  }
  return data;
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

export const api = {
  meta: () => request("GET", "/api/meta"),
  catalog: (lang) => request("GET", `/api/i18n/${encodeURIComponent(lang)}`),
  howToPlayView: () => request("GET", "/api/how-to-play/view"),
  newGame: (settings) => request("POST", "/api/games", settings),
  view: (id, key) => request("GET", `${game(id)}/view`, undefined, false, key),
  // A change names the version of the view it was chosen from: the server plays it only if
  // the game is still there (else 409 with the current view; docs/web.md, "version").
  act: (id, key, token, version, lang) => request("POST", `${game(id)}/action`, { action: token, version, lang }, false, key),
  undo: (id, key, version, lang) => request("POST", `${game(id)}/undo`, { version, lang }, false, key),
  resign: (id, key, version, lang) => request("POST", `${game(id)}/resign`, { version, lang }, false, key),
  hint: (id, key, lang) => request("POST", `${game(id)}/hint`, { top: 3, lang }, false, key),
  // the guided game's hint: the best way only, from a smaller search than the server's
  guideHint: (id, key, lang, iterations) => request("POST", `${game(id)}/hint`, { top: 1, lang, iterations }, false, key),
  position: (id, ply, key) => request("GET", `${game(id)}/position?ply=${ply}`, undefined, false, key),
  analyse: (id, key, lang) => request("POST", `${game(id)}/analyse`, { budget_ms: null, lang }, false, key),
  explore: (id, key, ply, actions) => request("POST", `${game(id)}/explore`, { ply, actions }, false, key),
  analysis: (id, key) => request("GET", `${game(id)}/analysis`, undefined, false, key),
  load: (text, players) => request("POST", `/api/records${players ? `?players=${encodeURIComponent(players)}` : ""}`, text, true),
  remove: (id, owner) => request("DELETE", game(id), undefined, false, owner),
  rematch: (id, owner) => request("POST", `${game(id)}/rematch`, {}, false, owner),
  myGames: (ids) => request("POST", "/api/my-games", { games: ids }),
  record: async (id, key) => {
    setPending(1);
    try {
      return await send("GET", `${game(id)}/record`, undefined, false, key, true);
    } finally {
      setPending(-1);
    }
  },
};

// The game's WebSocket: each server message is handed to onMessage as an object. It is
// reopened (after a pause that grows) when the connection drops, until close() is called.
// Its first message carries the seat's key (null: a spectator), not the address.
// The page is told where the connection stands by two messages of its own: {"type":
// "disconnected", "code"} when it drops (1012: the server stopped; 4408: the game was put
// away after being idle; anything else: the network), and {"type": "reconnected"} with the
// first message after it is open again.
export const WS_IDLE = 4408;
export function openGameSocket(id, key, onMessage) {
  let socket = null;
  let closed = false;
  let delayMs = 250;
  let dropped = false;
  const connect = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(id)}`);
    socket.onopen = () => { delayMs = 250; socket.send(JSON.stringify({ key: key || null })); };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      if (dropped && message.type === "view") {
        dropped = false;
        onMessage({ type: "reconnected" });
      }
      onMessage(message);
    };
    socket.onclose = (event) => {
      if (event.code === 4404) onMessage({ type: "gone" });
      if (closed || event.code === 4403 || event.code === 4404) return;
      if (!dropped) onMessage({ type: "disconnected", code: event.code });
      dropped = true;
      setTimeout(() => { if (!closed) connect(); }, delayMs);
      delayMs = Math.min(delayMs * 2, 5000);
    };
  };
  connect();
  return { close() { closed = true; if (socket) socket.close(); } };
}
