// Every visible string of the page goes through t("English text"). The catalog for the
// chosen language comes from the server (GET /api/i18n/<lang>, built from the gettext
// catalogs); a string it lacks stays English. The choice is remembered in localStorage.
// Plurals: tn(singular, plural, n) picks the form by the catalog's own Plural-Forms rule
// (Babel's CLDR rule, shipped by the server as a gettext expression and evaluated here by a
// small generic parser: no language's rule is written in this file). Numbers are written
// in the page's language (formatNumber: "106,2" in French).

const STORE_KEY = "palais.lang";
// gettext's rule for a catalog without a Plural-Forms header (before any catalog is loaded).
const DEFAULT_PLURAL = "n != 1";
let messages = {};
let plurals = {};
let pluralIndex = compilePlural(DEFAULT_PLURAL);
let current = "en";

export function t(english) {
  const translated = messages[english];
  return translated ? translated : english;
}

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// t() with {name} placeholders filled in after translation: tf("Seat {n}", {n: 2}).
export function tf(english, values) {
  return fill(t(english), values);
}

// A number in the page's language: formatNumber(106.2) is "106.2" in English, "106,2" in French.
export function formatNumber(x, options = {}) {
  try {
    return new Intl.NumberFormat(current, options).format(x);
  } catch (_) {
    return String(x);
  }
}

// The plural form for n: tn("{n} card", "{n} cards", n, {other: ...}). {n} and every
// numeric value are written with formatNumber; the form is the catalog's for this language.
export function tn(singular, plural, n, values = {}) {
  const forms = plurals[singular];
  const index = pluralIndex(n);
  let text = forms && forms[index];
  if (!text) text = [singular, plural][compilePlural(DEFAULT_PLURAL)(n)];
  const shown = { n: formatNumber(n) };
  for (const [name, value] of Object.entries(values)) {
    shown[name] = typeof value === "number" ? formatNumber(value) : value;
  }
  return fill(text, shown);
}

// A gettext Plural-Forms expression ("(n == 0 || n == 1) ? 0 : 2") as a function of n. Only
// the C operators gettext allows; anything else throws (the caller keeps its old rule).
export function compilePlural(expr) {
  const tokens = String(expr).match(/\d+|n|\|\||&&|[=!<>]=|[<>%?:!()*/+-]|\S/g) || [];
  let at = 0;
  const peek = () => tokens[at];
  const take = (want) => {
    if (tokens[at] !== want) throw new Error(`plural rule: expected ${want} at ${tokens[at]}`);
    at += 1;
  };
  const LEVELS = [["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["+", "-"], ["*", "/", "%"]];
  const OPS = {
    "||": (a, b) => (a || b ? 1 : 0), "&&": (a, b) => (a && b ? 1 : 0),
    "==": (a, b) => (a === b ? 1 : 0), "!=": (a, b) => (a !== b ? 1 : 0),
    "<": (a, b) => (a < b ? 1 : 0), ">": (a, b) => (a > b ? 1 : 0),
    "<=": (a, b) => (a <= b ? 1 : 0), ">=": (a, b) => (a >= b ? 1 : 0),
    "+": (a, b) => a + b, "-": (a, b) => a - b, "*": (a, b) => a * b,
    "/": (a, b) => Math.trunc(a / b), "%": (a, b) => a % b,
  };
  function unary() {
    const token = tokens[at++];
    if (token === "!") { const inner = unary(); return (n) => (inner(n) ? 0 : 1); }
    if (token === "(") { const inner = ternary(); take(")"); return inner; }
    if (token === "n") return (n) => n;
    if (/^\d+$/.test(token || "")) { const value = Number(token); return () => value; }
    throw new Error(`plural rule: unexpected ${token}`);
  }
  function binary(level) {
    if (level === LEVELS.length) return unary();
    let left = binary(level + 1);
    while (LEVELS[level].includes(peek())) {
      const op = OPS[tokens[at++]];
      const a = left;
      const b = binary(level + 1);
      left = (n) => op(a(n), b(n));
    }
    return left;
  }
  function ternary() {
    const test = binary(0);
    if (peek() !== "?") return test;
    take("?");
    const yes = ternary();
    take(":");
    const no = ternary();
    return (n) => (test(n) ? yes(n) : no(n));
  }
  const rule = ternary();
  if (at !== tokens.length) throw new Error(`plural rule: unexpected ${tokens[at]}`);
  return (n) => Number(rule(Math.abs(Math.trunc(Number(n)) || 0)));
}

export function language() {
  return current;
}

// The language to start with: the one chosen before, else the browser's, else English;
// always one the server offers.
export function preferredLanguage(offered) {
  const wanted = [];
  try {
    const stored = localStorage.getItem(STORE_KEY);
    if (stored) wanted.push(stored);
  } catch (_) { /* storage may be disabled */ }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    wanted.push(tag.toLowerCase(), tag.toLowerCase().split("-")[0]);
  }
  return wanted.find((lang) => offered.includes(lang)) || "en";
}

// Loads `lang`'s catalog (English too: it gives the codes of stages, rooms and steps their
// English words) and remembers the choice. A catalog that cannot be loaded leaves the page
// with English msgids rather than broken.
export async function setLanguage(lang, fetchCatalog) {
  let loaded = {};
  try {
    loaded = (await fetchCatalog(lang)) || {};
  } catch (_) {
    loaded = {};
  }
  messages = loaded.messages || {};
  plurals = loaded.plurals || {};
  try {
    pluralIndex = compilePlural((loaded.plural_forms || {}).plural || DEFAULT_PLURAL);
  } catch (_) {
    pluralIndex = compilePlural(DEFAULT_PLURAL);
  }
  current = lang;
  document.documentElement.lang = lang;
  try {
    localStorage.setItem(STORE_KEY, lang);
  } catch (_) { /* storage may be disabled */ }
}

// Translates the page's fixed text: elements with data-i18n (their English text is kept in
// the attribute) and data-i18n-title (a tooltip).
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
  }
}
