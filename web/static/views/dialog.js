// The dialogs: a new game (who plays each seat, where, the deal, the rules), who plays a
// loaded record's seats, the invitation links, and "My games". Each reads its form and
// hands the result to the controller (game.js).

import { api } from "../api.js";
import { SEAT_LETTERS } from "../board.js";
import { guarded, loadSeat, startGame } from "../game.js";
import { t, tf } from "../i18n.js";
import { forgetGame, seatLink, storeGame, storedGames } from "../saved.js";
import { playerLabel, seatName } from "../words.js";
import { humanSeat, state } from "../store.js";
import { seatIndex, seatNumber } from "../seats.js";

const $ = (id) => document.getElementById(id);

// ---- invitations: a link per person's seat, and one to watch -----------------------------

export function showInvitations(gameId, seats) {
  const list = $("invite-list");
  list.innerHTML = "";
  const rows = seats.filter((s) => s.key && !(s.seat in state.keys))
    .map((s) => ({ label: tf("{name} (seat {letter})", { name: s.name, letter: SEAT_LETTERS[seatIndex(s.seat)] }), link: seatLink(gameId, s.key) }));
  rows.push({ label: t("Spectators"), link: seatLink(gameId, null) });
  for (const { label, link } of rows) {
    const item = document.createElement("li");
    const name = document.createElement("span");
    name.textContent = label;
    const field = document.createElement("input");
    field.readOnly = true;
    field.value = link;
    field.className = "invite-link";
    field.setAttribute("aria-label", label);
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = t("Copy");
    copy.addEventListener("click", async () => {
      field.select();
      try { await navigator.clipboard.writeText(link); } catch (_) { document.execCommand("copy"); }
      copy.textContent = t("Copied");
    });
    item.append(name, field, copy);
    list.appendChild(item);
  }
  const dialog = $("invite-dialog");
  if (!dialog.open) dialog.showModal();
}

// ---- My games ---------------------------------------------------------------------------

export async function showMyGames() {
  await guarded(async () => {
    const stored = storedGames();
    const ids = Object.keys(stored).sort((a, b) => (stored[b].seen || 0) - (stored[a].seen || 0)).slice(0, 100);
    const answer = await api.myGames(ids);
    const list = $("my-games-list");
    list.innerHTML = "";
    const known = new Set(answer.games.map((g) => g.game));
    for (const id of ids) if (!known.has(id)) forgetGame(id);
    for (const game of answer.games) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      const keys = stored[game.game].keys || {};
      const seat = Object.keys(keys)[0];
      link.href = seatLink(game.game, seat ? keys[seat] : null);
      link.textContent = game.names.map((_, i) => seatName(game, seatNumber(i))).join(" · ");
      link.addEventListener("click", () => $("my-games-dialog").close());
      const note = document.createElement("span");
      note.textContent = ` — ${game.over ? t("Game over") : tf("{n} actions", { n: game.ply })}`;
      item.append(link, note);
      list.appendChild(item);
    }
    $("my-games-empty").hidden = answer.games.length > 0;
    const dialog = $("my-games-dialog");
    if (!dialog.open) dialog.showModal();
  });
}

// ---- the new-game dialog ----------------------------------------------------------------

// The choices of a seat: a person, a strength level (/api/meta `levels`: Beginner, Club,
// Strong, Maximum, each a measured player and time per turn) or, under "Engines", any
// player the server offers by its name. A seat other than the first starts at the level
// marked default (the medium one).
function seatRow(index, meta, { levels = true } = {}) {
  const players = meta ? meta.players : [];
  const levelList = levels && meta && meta.levels ? meta.levels : [];
  const row = document.createElement("div");
  row.className = "seat-row";
  const letter = document.createElement("strong");
  letter.textContent = SEAT_LETTERS[index];
  const kind = document.createElement("select");
  kind.className = "seat-kind";
  kind.setAttribute("aria-label", tf("Seat {n}", { n: seatNumber(index) }));
  kind.add(new Option(t("Person"), "human"));
  if (levelList.length) {
    const group = document.createElement("optgroup");
    group.label = t("Strength");
    for (const level of levelList) {
      const option = new Option(playerLabel(level), `level:${level.id}`);
      option.title = level.help ? t(level.help) : "";
      group.appendChild(option);
    }
    kind.appendChild(group);
  }
  const engines = document.createElement("optgroup");
  engines.label = t("Engines");
  for (const player of players) {
    const option = new Option(playerLabel(player), `engine:${player.name}`);
    option.title = player.help ? (player.kind === "builtin" ? t(player.help) : player.help) : "";
    engines.appendChild(option);
  }
  kind.appendChild(engines);
  const preferred = levelList.find((level) => level.default);
  kind.value = index === 0 || !preferred ? "human" : `level:${preferred.id}`;
  kind.addEventListener("change", showLevelBudget);
  const name = document.createElement("input");
  name.className = "seat-name";
  name.placeholder = t("Name");
  name.maxLength = 40;
  name.setAttribute("aria-label", tf("Name of seat {n}", { n: seatNumber(index) }));
  row.append(letter, kind, name);
  return row;
}

const levelOf = (value) => (state.meta && state.meta.levels || []).find((level) => `level:${level.id}` === value);

// A game has one time per turn for its engines: the strongest level chosen sets it (the
// field shows it, and can still be changed).
function showLevelBudget() {
  const chosen = [...$("seat-rows").querySelectorAll(".seat-kind")].map((select) => levelOf(select.value)).filter(Boolean);
  if (chosen.length) $("budget-input").value = Math.max(...chosen.map((level) => level.budget_ms));
}

// The seat rows for the count chosen; `relabel`: drawn again in the page's language, each
// keeping what was chosen and typed.
export function buildSeatRows(relabel = false) {
  const rows = $("seat-rows");
  const count = Number($("seat-count").value);
  if (relabel) {
    const kept = [...rows.children].map((row) => [row.querySelector(".seat-kind").value, row.querySelector(".seat-name").value]);
    rows.innerHTML = "";
    kept.forEach(([kind, name], i) => {
      const row = seatRow(i, state.meta);
      row.querySelector(".seat-kind").value = kind;
      row.querySelector(".seat-name").value = name;
      rows.appendChild(row);
    });
  }
  while (rows.children.length > count) rows.removeChild(rows.lastChild);
  while (rows.children.length < count) rows.appendChild(seatRow(rows.children.length, state.meta));
  if (!relabel) showLevelBudget();
}

// The rule options, each with its translated label (meta's `label` msgid) and help (its
// `help` msgid: a tooltip and a line under it); values already set are kept.
export function buildRuleOptions() {
  const box = $("rule-options");
  const kept = {};
  for (const input of box.querySelectorAll("input")) kept[input.dataset.option] = input.type === "checkbox" ? input.checked : input.value;
  for (const old of box.querySelectorAll("label, .help")) old.remove();
  const options = state.meta ? state.meta.rule_options : [];
  box.hidden = !options.length;
  for (const option of options) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.dataset.option = option.name;
    input.dataset.type = option.type;
    const key = option.label || `rule option:${option.name}`;
    const name = t(key) === key ? option.name : t(key);
    if (option.type === "bool") {
      input.type = "checkbox";
      input.checked = option.name in kept ? kept[option.name] : Boolean(option.default);
      label.append(input, document.createTextNode(` ${name}`));
    } else {
      input.type = "number";
      input.step = "1";
      if (option.min !== undefined) input.min = option.min;
      if (option.max !== undefined) input.max = option.max;
      input.value = option.name in kept ? kept[option.name] : option.default;
      label.append(document.createTextNode(`${name} `), input);
    }
    const help = option.help ? t(option.help) : "";
    label.title = help;
    box.appendChild(label);
    if (help) {
      const line = document.createElement("small");
      line.className = "help";
      line.textContent = help;
      box.appendChild(line);
    }
  }
}

export function openNewGameDialog() {
  buildSeatRows();
  // a first visit (no game in this browser yet) is offered the guided first game first
  const firstVisit = Object.keys(storedGames()).length === 0;
  $("guided-intro").hidden = !firstVisit;
  $("guided-start").classList.toggle("primary", firstVisit);
  $("new-game-error").hidden = true;
  const dialog = $("new-game-dialog");
  if (!dialog.open) dialog.showModal();
}

function readNewGameForm() {
  const players = [];
  const names = [];
  for (const row of $("seat-rows").children) {
    const kind = row.querySelector(".seat-kind").value;
    const level = levelOf(kind);
    players.push(kind === "human" ? { kind: "human" }
      : level ? { kind: "engine", name: level.player, level: level.id }
        : { kind: "engine", name: kind.slice("engine:".length) });
    names.push(row.querySelector(".seat-name").value.trim());
  }
  const seedText = $("seed-input").value.trim();
  const options = {};
  for (const input of $("rule-options").querySelectorAll("input")) {
    options[input.dataset.option] = input.dataset.type === "bool" ? input.checked : Number(input.value);
  }
  return {
    players,
    first_game: document.querySelector('input[name="deal"]:checked').value === "first",
    seed: seedText === "" ? null : Number(seedText),
    budget_ms: Number($("budget-input").value),
    options,
    names: names.some((name) => name) ? names.map((name, i) => name || (players[i].kind === "human" ? tf("Seat {n}", { n: seatNumber(i) }) : players[i].name)) : null,
    shared: document.querySelector('input[name="where"]:checked').value === "shared",
  };
}

// A game the server has just made (POST /api/games's answer): this page plays its own
// seats; the others get their invitation links.
export function startMadeGame(answer) {
  const keys = {};
  for (const seat of answer.mine) keys[seat] = answer.seats[seatIndex(seat)].key;
  storeGame(answer.game, { invitations: answer.shared ? null : answer.seats });
  startGame(answer.game, answer.view, { keys, owner: answer.owner });
  if (!answer.shared && answer.seats.some((s) => s.key && !(s.seat in keys))) showInvitations(answer.game, answer.seats);
}

async function submitNewGame(event) {
  event.preventDefault();
  const errorBox = $("new-game-error");
  try {
    const answer = await api.newGame(readNewGameForm());
    $("new-game-dialog").close();
    startMadeGame(answer);
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
}

// ---- loading a record -------------------------------------------------------------------

export async function loadRecord(file) {
  await guarded(async () => {
    if (state.meta && file.size > state.meta.limits.max_upload_bytes) {
      throw new Error(tf("{file} is too large ({size} bytes; the limit is {limit}).", {
        file: file.name, size: file.size, limit: state.meta.limits.max_upload_bytes }));
    }
    const text = await file.text();
    const players = isOver(text) ? null : await askLoadPlayers(text);
    if (players === undefined) return;                  // cancelled
    const answer = await api.load(text, players);
    const keys = {};
    for (const seat of answer.mine) keys[seat] = answer.seats[seatIndex(seat)].key;
    startGame(answer.game, answer.view, { fromRecord: true, keys, owner: answer.owner });
    const view = answer.view;
    if (!view.over && humanSeat(view, view.to_move) && keys[view.to_move]) await loadSeat(view.to_move);
  });
}

const isOver = (text) => /^\[Scores /m.test(text);

// A record that is not over can be played on: who plays each seat (a person at this screen,
// or an engine)? Resolves to "human,greedy,..." or undefined when cancelled.
function askLoadPlayers(text) {
  const count = Number((/^\[Players "(\d)"\]/m.exec(text) || [])[1] || 0);
  if (!(count >= 2 && count <= 4)) return Promise.resolve(null);   // the server says what is wrong
  const rows = $("load-seats");
  rows.innerHTML = "";
  for (let i = 0; i < count; i++) {
    const row = seatRow(i, state.meta, { levels: false });
    row.querySelector(".seat-kind").value = "human";
    row.querySelector(".seat-name").remove();
    rows.appendChild(row);
  }
  const dialog = $("load-dialog");
  return new Promise((resolve) => {
    const done = (value) => { dialog.close(); resolve(value); };
    $("load-start").onclick = (event) => {
      event.preventDefault();
      done([...rows.children].map((row) => {
        const kind = row.querySelector(".seat-kind").value;
        return kind === "human" ? "human" : kind.slice("engine:".length);
      }).join(","));
    };
    $("load-cancel").onclick = () => done(undefined);
    dialog.showModal();
  });
}

// Wires the dialogs' own buttons (once, at the start).
export function listenToDialogs() {
  $("new-game-button").addEventListener("click", openNewGameDialog);
  $("new-game-cancel").addEventListener("click", () => $("new-game-dialog").close());
  $("new-game-form").addEventListener("submit", submitNewGame);
  $("seat-count").addEventListener("change", () => buildSeatRows());
  $("invite-button").addEventListener("click", () => {
    const stored = storedGames()[state.gameId] || {};
    if (stored.invitations) showInvitations(state.gameId, stored.invitations);
  });
  $("invite-done").addEventListener("click", () => $("invite-dialog").close());
  $("my-games-button").addEventListener("click", showMyGames);
  $("my-games-close").addEventListener("click", () => $("my-games-dialog").close());
  $("load-input").addEventListener("change", (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (file) loadRecord(file);
  });
}
