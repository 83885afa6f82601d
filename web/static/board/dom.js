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

// Sets `text` into a label `width` user units wide: one line when it fits; else two lines
// (split between words, or in the middle of a text without spaces, Chinese say) in a font
// a tenth smaller, centred on the one line's place; a line still too long is narrowed (the
// least a long translation needs), never squeezed to a sliver of its size. The node is
// made without text (kid(..., null)): this sets it, and only when text, width or place changed.
export const WRAP_SCALE = 0.9;

export function wrapLabel(node, text, width) {
  const key = `${text}|${width}|${node.getAttribute("x")}|${node.getAttribute("y")}|${node.getAttribute("class")}`;
  if (node.__wrap === key) return node;
  node.__wrap = key;
  for (const name of ["textLength", "lengthAdjust"]) node.removeAttribute(name);
  node.style.fontSize = "";
  node.textContent = text;
  if (!node.getComputedTextLength || node.getComputedTextLength() <= width) return node;
  const size = parseFloat(getComputedStyle(node).fontSize) * WRAP_SCALE;
  node.style.fontSize = `${size}px`;
  const widthOf = (line) => { node.textContent = line; return node.getComputedTextLength(); };
  const lines = splitInTwo(text, widthOf);
  if (lines.length === 1) node.style.fontSize = "";        // one long word: narrowed at its size
  node.textContent = "";
  const x = node.getAttribute("x");
  const y = Number(node.getAttribute("y"));
  const gap = size * 1.08;
  lines.forEach((line, k) => {
    const span = document.createElementNS(NS, "tspan");
    setAttrs(span, { x, y: (lines.length === 1 ? y : y + (k - 0.5) * gap - size * 0.05).toFixed(1) });
    span.textContent = k === 0 && lines.length > 1 && !CJK.test(text) ? `${line} ` : line;   // (the text reads whole)
    node.appendChild(span);
    if (span.getComputedTextLength() > width) setAttrs(span, { textLength: width, lengthAdjust: "spacingAndGlyphs" });
  });
  return node;
}

// The two lines of `text` whose longer one is the shortest (widthOf measures a line): cut
// between words, or anywhere in a Chinese text; a single word stays whole (one line).
const CJK = /[\u3000-\u9fff\uff00-\uffef]/;

function splitInTwo(text, widthOf) {
  const words = text.split(" ");
  let cuts = words.slice(1).map((_, k) => [words.slice(0, k + 1).join(" "), words.slice(k + 1).join(" ")]);
  if (CJK.test(text)) cuts = [...text].slice(1).map((_, k) => [[...text].slice(0, k + 1).join(""), [...text].slice(k + 1).join("")]);
  if (!cuts.length) return [text];
  let best = null;
  for (const cut of cuts) {
    const longest = Math.max(widthOf(cut[0]), widthOf(cut[1]));
    if (!best || longest < best[0]) best = [longest, cut];
  }
  return best[1];
}
