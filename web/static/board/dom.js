// The board's SVG nodes, kept from one render to the next (as chessground's render keeps its
// piece and square elements): each node has a key within its parent, is created the first
// time its key is drawn and afterwards only has its changed attributes and text updated.
// A render starts a new generation; nodes not drawn in it are removed by sweep().

export const NS = "http://www.w3.org/2000/svg";

let generation = 0;

export function nextGeneration() {
  generation += 1;
  return generation;
}

// Sets the attributes that differ (null/undefined removes one).
export function setAttrs(node, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) {
      if (node.hasAttribute(name)) node.removeAttribute(name);
    } else {
      const text = String(value);
      if (node.getAttribute(name) !== text) node.setAttribute(name, text);
    }
  }
  return node;
}

export function setText(node, text) {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
  return node;
}

// The child of `parent` under `key` (a `tag` element), created on first use; marked as drawn
// in this generation. `text`, when given, becomes its text content.
export function kid(parent, key, tag, attrs = null, text = null) {
  const kids = parent.__kids || (parent.__kids = new Map());
  let node = kids.get(key);
  if (!node || node.tagName !== tag) {
    if (node) node.remove();
    node = document.createElementNS(NS, tag);
    parent.appendChild(node);
    kids.set(key, node);
  }
  node.__generation = generation;
  if (attrs) setAttrs(node, attrs);
  if (text !== null && text !== undefined) setText(node, text);
  return node;
}

// Removes the keyed children of `parent` not drawn in this generation.
export function sweep(parent) {
  if (!parent.__kids) return;
  for (const [key, node] of parent.__kids) {
    if (node.__generation !== generation) {
      node.remove();
      parent.__kids.delete(key);
    }
  }
}

// Forgets every keyed child (a new layout draws everything anew).
export function clearKids(parent) {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  parent.__kids = new Map();
}

// A free-standing node, for the short-lived shapes of an animation.
export function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  setAttrs(node, attrs);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// Squeezes a text into `width` user units when it is longer (a long translation): the
// glyphs are narrowed rather than cut off or spilled over the next cell.
// Measured again only when the text or the width changed (measuring forces a layout).
export function fit(node, width) {
  const key = `${node.textContent}|${width}`;
  if (node.__fit === key) return node;
  node.__fit = key;
  node.removeAttribute("textLength");
  node.removeAttribute("lengthAdjust");
  if (node.getComputedTextLength && node.getComputedTextLength() > width) {
    node.setAttribute("textLength", width);
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}
