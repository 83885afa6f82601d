// The board's events, bound once on the SVG (as chessground binds its board element):
// a click, Enter or Space on a target calls its action (node.__act, set by each render);
// hovering a piece, or pressing it for half a second on a touch screen, shows its name and
// effect in a popup (node.__tip). destroy() unbinds them all and removes the popup.

const LONG_PRESS_MS = 450;

export function bindEvents(svg) {
  const tip = document.createElement("div");
  tip.className = "board-tip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.appendChild(tip);
  let pressTimer = null;
  let pressed = false;          // a long press showed the popup: the click that follows is not an action
  const bound = new AbortController();          // every listener below goes with destroy()
  const on = (target, name, fn) => target.addEventListener(name, fn, { signal: bound.signal });

  const targetOf = (event) => event.target.closest && event.target.closest(".target");
  const explainedOf = (event) => event.target.closest && event.target.closest("[data-tip]");

  function show(node, x, y) {
    const words = node && node.__tip;
    if (!words) { hide(); return; }
    tip.replaceChildren();
    const name = document.createElement("strong");
    name.textContent = words.name;
    tip.appendChild(name);
    if (words.help) {
      const help = document.createElement("div");
      help.textContent = words.help;
      tip.appendChild(help);
    }
    tip.hidden = false;
    const width = tip.offsetWidth;
    const height = tip.offsetHeight;
    const left = Math.max(4, Math.min(x + 14, window.innerWidth - width - 4));
    const top = y + 18 + height > window.innerHeight ? Math.max(4, y - height - 12) : y + 18;
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
    tip.__node = node;
  }

  function hide() {
    tip.hidden = true;
    tip.__node = null;
  }

  on(svg, "click", (event) => {
    if (pressed) { pressed = false; event.preventDefault(); return; }
    const node = targetOf(event);
    if (node && node.__act) { event.stopPropagation(); hide(); node.__act(); }
  });
  on(svg, "keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const node = targetOf(event);
    if (node && node.__act) { event.preventDefault(); node.__act(); }
  });
  on(svg, "pointermove", (event) => {
    if (event.pointerType !== "mouse") return;
    const node = explainedOf(event);
    if (!node) hide();
    else if (tip.__node !== node || tip.hidden) show(node, event.clientX, event.clientY);
  });
  on(svg, "pointerleave", hide);
  on(svg, "pointerdown", (event) => {
    pressed = false;
    if (event.pointerType === "mouse") return;
    const node = explainedOf(event);
    clearTimeout(pressTimer);
    if (!node) { hide(); return; }
    const { clientX, clientY } = event;
    pressTimer = setTimeout(() => { pressed = true; show(node, clientX, clientY); }, LONG_PRESS_MS);
  });
  for (const name of ["pointerup", "pointercancel"]) {
    on(svg, name, () => clearTimeout(pressTimer));
  }
  on(svg, "contextmenu", (event) => { if (pressed) event.preventDefault(); });
  on(document, "pointerdown", (event) => { if (!svg.contains(event.target)) hide(); });
  function destroy() {
    bound.abort();
    clearTimeout(pressTimer);
    tip.remove();
  }

  return { hide, show, destroy };
}
