// Marking a node as a target (focusable, announced as a button with its action in words)
// or as explained (a <title> and the words the hover/long-press popup shows). The clicks and
// keys themselves are caught once for the whole board (events.js), which calls node.__act.
// (The "target" class is part of the class each drawing sets.)

import { tf } from "../i18n.js";
import { kid, setAttrs } from "./dom.js";

// target: {label, action, token?, from?} or null (not a target this time).
export function setTarget(node, target) {
  if (target) {
    node.__act = target.action;
    setAttrs(node, { tabindex: 0, role: "button", "aria-label": target.label,
      "data-token": target.token || null, "data-from": target.from || null });
  } else {
    node.__act = null;
    setAttrs(node, { tabindex: null, role: null, "aria-label": null, "data-token": null, "data-from": null });
  }
}

// A piece's name and effect: the <title> (what a screen reader and a long hover show) and
// the popup's words (events.js).
export function explain(node, name, help = "") {
  node.__tip = { name, help };
  setAttrs(node, { "data-tip": "1" });
  kid(node, "title", "title", null, help ? tf("{name}: {help}", { name, help }) : name);
}

export const classes = (...names) => names.filter(Boolean).join(" ");
