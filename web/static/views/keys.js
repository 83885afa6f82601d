// The keyboard: u undoes, h asks for hints, the arrows step through the game's positions,
// Escape drops a picked move source, leaves the analysis board or the review. Keys typed in a field or while
// the new-game dialog is open are the field's.

import { hint, leaveExplore, leaveReview, select, step, undo } from "../game.js";
import { state } from "../store.js";

function onKey(event) {
  if (document.getElementById("new-game-dialog").open || event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = (event.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") return;
  if (event.key === "u") undo();
  else if (event.key === "h") hint();
  else if (event.key === "ArrowLeft") { event.preventDefault(); step(-1); }
  else if (event.key === "ArrowRight") { event.preventDefault(); step(1); }
  else if (event.key === "Escape") {
    if (state.selectedFrom) select(null);
    else if (state.explore) leaveExplore();
    else if (state.review) leaveReview();
  }
}

// Starts listening; the function returned stops.
export function listenToKeys() {
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
