// The games this browser holds links for ("My games"), kept in localStorage, and the
// links themselves: a game's address with a seat's key, or without one to watch.

const STORE = "palais-games";

export function storedGames() {
  try {
    return JSON.parse(localStorage.getItem(STORE) || "{}") || {};
  } catch (_) {
    return {};
  }
}

export function storeGame(gameId, entry) {
  const games = storedGames();
  games[gameId] = { ...(games[gameId] || {}), ...entry, seen: Date.now() };
  try { localStorage.setItem(STORE, JSON.stringify(games)); } catch (_) { /* private mode */ }
}

export function forgetGame(gameId) {
  const games = storedGames();
  delete games[gameId];
  try { localStorage.setItem(STORE, JSON.stringify(games)); } catch (_) { /* private mode */ }
}

export function seatLink(gameId, key) {
  const base = `${location.origin}${location.pathname}#game=${encodeURIComponent(gameId)}`;
  return key ? `${base}&key=${encodeURIComponent(key)}` : base;
}

// The page's own address for a game (and the seat whose key it holds).
export function gameAddress(gameId, key) {
  return `#game=${encodeURIComponent(gameId)}${key ? `&key=${encodeURIComponent(key)}` : ""}`;
}
