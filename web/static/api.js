// The page's only door to the server: JSON over HTTP and the game's WebSocket
// (docs/web.md, "HTTP and WebSocket API"). Every failed request becomes an ApiError whose
// message is the server's one-line {"error": ...}, so the page can show it as it is.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// Requests in flight, shown as body[data-busy] so a test (or a style) can tell the page is
// waiting for the server.
let pending = 0;
function setPending(delta) {
  pending += delta;
  document.body.dataset.busy = pending > 0 ? "1" : "0";
}

async function request(method, path, body, raw = false) {
  setPending(1);
  try {
    return await send(method, path, body, raw);
  } finally {
    setPending(-1);
  }
}

async function send(method, path, body, raw) {
  const init = { method, headers: {} };
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
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return data;
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

export const api = {
  meta: () => request("GET", "/api/meta"),
  catalog: (lang) => request("GET", `/api/i18n/${encodeURIComponent(lang)}`),
  newGame: (settings) => request("POST", "/api/games", settings),
  view: (id, seat) => request("GET", `${game(id)}/view?seat=${seat}`),
  act: (id, seat, token) => request("POST", `${game(id)}/action`, { seat, action: token }),
  undo: (id, seat) => request("POST", `${game(id)}/undo`, { seat }),
  hint: (id, seat, lang) => request("POST", `${game(id)}/hint`, { seat, top: 3, lang }),
  position: (id, ply, seat) => request("GET", `${game(id)}/position?ply=${ply}&seat=${seat}`),
  analyse: (id, lang) => request("POST", `${game(id)}/analyse`, { budget_ms: null, lang }),
  analysis: (id) => request("GET", `${game(id)}/analysis`),
  load: (text) => request("POST", "/api/records", text, true),
  recordUrl: (id) => `${game(id)}/record`,
};

// The game's WebSocket: each server message is handed to onMessage as an object. It is
// reopened (after a pause that grows) when the connection drops, until close() is called.
export function openGameSocket(id, seat, onMessage) {
  let socket = null;
  let closed = false;
  let delayMs = 250;
  const connect = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(id)}?seat=${seat}`);
    socket.onopen = () => { delayMs = 250; };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      onMessage(message);
    };
    socket.onclose = (event) => {
      if (closed || event.code === 4403 || event.code === 4404) return;
      setTimeout(() => { if (!closed) connect(); }, delayMs);
      delayMs = Math.min(delayMs * 2, 5000);
    };
  };
  connect();
  return { close() { closed = true; if (socket) socket.close(); } };
}
