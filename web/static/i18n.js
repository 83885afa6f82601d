// Every visible string of the page goes through t("English text"). The catalog for the
// chosen language comes from the server (GET /api/i18n/<lang>, built from the gettext
// catalogs); a string it lacks stays English. The choice is remembered in localStorage.

const STORE_KEY = "palais.lang";
let messages = {};
let current = "en";

export function t(english) {
  const translated = messages[english];
  return translated ? translated : english;
}

// t() with {name} placeholders filled in after translation: tf("Seat {n}", {n: 2}).
export function tf(english, values) {
  return t(english).replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
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

// Loads `lang`'s catalog (English needs none) and remembers the choice. A catalog that
// cannot be loaded leaves the page in English rather than broken.
export async function setLanguage(lang, fetchCatalog) {
  let loaded = {};
  if (lang !== "en") {
    try {
      loaded = (await fetchCatalog(lang)).messages || {};
    } catch (_) {
      loaded = {};
    }
  }
  messages = loaded;
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
