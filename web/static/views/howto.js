// The How-to-play page (GET /how-to-play, docs/web.md "How to play"): the rules in short, in
// English, French or Chinese, with pictures of the board's own pieces.
//
// Why one document per language (web/static/howto/{en,fr,zh}.html) and not catalog entries:
// the page is a few pages of prose, which reads, translates and reviews best as a whole text
// in each language (sentences reordered, French articles, Chinese phrasing), where dozens of
// paragraph-long msgids cut out of context would not. What must agree with the game is not
// copied into them: the names of rooms, cards, privileges and steps (data-word="room:MINT")
// and the lists of every room, card and privilege with its effect (data-list="room") come from
// the game's catalogs, and every picture (data-picture) is drawn by the board's code. The
// three documents keep the same sections under the same ids (the anchors the legend links
// to), which tests/test_web_howto.py checks.
//
// The address: /how-to-play?lang=fr#majorities (the language, then a section). Without
// ?lang, the language the game's page last used (i18n.js's preferredLanguage).

import { api } from "../api.js";
import { PHONE } from "../board.js";
import { piecesOf } from "../board/state.js";
import { preferredLanguage, setLanguage, t, translateStatic } from "../i18n.js";
import { pieceHelp, pieceName } from "../words.js";
import { drawPicture } from "./pictures.js";

const $ = (id) => document.getElementById(id);

let meta = null;
let demo = null;
let shownLang = null;

// The document of `lang` with its words, lists, contents and pictures filled in.
async function show(lang) {
  await setLanguage(lang, api.catalog);
  translateStatic();
  const response = await fetch(`/static/howto/${encodeURIComponent(lang)}.html`);
  if (!response.ok) throw new Error(`no How-to-play page in ${lang} (${response.status})`);
  const article = $("howto");
  article.innerHTML = await response.text();            // our own file, served with the page
  for (const node of article.querySelectorAll("[data-word]")) {
    const [kind, id] = node.dataset.word.split(":");
    node.textContent = pieceName(kind, id);
  }
  const pieces = piecesOf(demo, meta);
  const lists = { room: pieces.rooms, card: pieces.cards, privilege: pieces.privileges.filter((p) => p !== "NONE") };
  for (const list of article.querySelectorAll("[data-list]")) {
    for (const id of lists[list.dataset.list] || []) {
      const term = document.createElement("dt");
      term.textContent = pieceName(list.dataset.list, id);
      const effect = document.createElement("dd");
      effect.textContent = pieceHelp(list.dataset.list, id);
      list.append(term, effect);
    }
  }
  const contents = $("howto-toc");
  contents.replaceChildren();
  for (const section of article.querySelectorAll("section[id]")) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#${section.id}`;
    link.textContent = section.querySelector("h2").textContent;
    item.appendChild(link);
    contents.appendChild(item);
  }
  drawPictures(article);
  document.title = `${t("How to play")} · ${t("Palais Royal")}`;
  shownLang = lang;
  document.body.dataset.lang = lang;
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
}

function drawPictures(article) {
  for (const figure of article.querySelectorAll("figure[data-picture]")) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    figure.replaceChildren(svg);
    drawPicture(svg, figure.dataset.picture, demo, meta);
  }
}

function addressLanguage(offered) {
  const asked = new URLSearchParams(location.search).get("lang");
  return asked && offered.includes(asked) ? asked : preferredLanguage(offered);
}

async function main() {
  [meta, demo] = await Promise.all([api.meta(), api.howToPlayView()]);
  const select = $("howto-language");
  for (const code of meta.languages) select.add(new Option(meta.language_names[code] || code, code));
  const lang = addressLanguage(meta.languages);
  select.value = lang;
  select.addEventListener("change", async () => {
    const url = new URL(location.href);
    url.searchParams.set("lang", select.value);
    history.replaceState(null, "", url);
    await show(select.value);
  });
  // (the board draws its other layout on a narrow screen: the pictures are cropped again)
  const narrow = window.matchMedia ? window.matchMedia(PHONE) : null;
  if (narrow && narrow.addEventListener) narrow.addEventListener("change", () => drawPictures($("howto")));
  await show(lang);
  document.body.dataset.ready = "1";
}

window.palaisHowTo = { language: () => shownLang };

main().catch((error) => {
  $("howto").textContent = error.message;
});
