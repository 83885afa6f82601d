// The animation-speed setting: how fast the board plays out the turns of the other seats
// (instant, fast, normal, slow), remembered in localStorage under the board's own key.

const SPEED_KEY = "palais.speed";
export const SPEEDS = ["instant", "fast", "normal", "slow"];

export function speed() {
  try {
    const stored = localStorage.getItem(SPEED_KEY);
    return SPEEDS.includes(stored) ? stored : "normal";
  } catch (_) {
    return "normal";
  }
}

export function setSpeed(value) {
  if (!SPEEDS.includes(value)) return;
  try { localStorage.setItem(SPEED_KEY, value); } catch (_) { /* private mode */ }
}

// The select of the page's header, showing the setting and changing it.
export function listenToSpeed(select) {
  select.value = speed();
  select.addEventListener("change", () => setSpeed(select.value));
}

// `promise`, or nothing more to wait for after `ms` (a page never waits forever on a motion).
export function bounded(promise, ms) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms))]);
}
