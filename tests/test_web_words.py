"""Issue 26, the server's words (web-words): /api/meta's pieces, levels and translatable
labels; the View's log steps, majorities, final breakdown and seat labels; hint steps; the
page's plural table; the catalogs' check against English leftovers and wrong plurals; a
finished game's hands shown to everyone; the favicon. The page's JavaScript (i18n.js's tn,
words.js) runs under node where it is installed."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import web.i18n
from engine.constants import CARDINAL, CARDS, MINT, PARADE, PRIVILEGES, ROOMS, STAIRS, S_WINDOW2
from engine.state import State
from play.i18n import STEP_KINDS
from web.views import majorities_json

from helpers import position
from test_web_i18n import _edit, scratch_catalogs  # noqa: F401 (a fixture)
from test_web_server import (  # noqa: F401 (a fixture)
    EXAMPLE, act, as_owner, as_seat, client, my_turn_again, new_game, watch,
)

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "web" / "static"
PIECES = {"room": ROOMS, "card": CARDS, "privilege": PRIVILEGES[1:]}


def _tables():
    return {lang: web.i18n.messages(lang) for lang in ("en", "fr", "zh")}


# ---- /api/meta ----------------------------------------------------------------------------

def test_meta_lists_the_pieces_the_levels_and_label_keys_every_language_translates(client):
    meta = client.get("/api/meta").json()
    assert meta["pieces"]["rooms"] == list(ROOMS)
    assert meta["pieces"]["cards"] == [{"id": c, "count": 4} for c in CARDS]
    assert meta["pieces"]["privileges"] == list(PRIVILEGES[1:])
    levels = meta["levels"]
    assert [lv["id"] for lv in levels] == ["beginner", "club", "strong", "maximum"]
    assert [lv["id"] for lv in levels if lv["default"]] == ["club"]
    budgets = [lv["budget_ms"] for lv in levels]
    assert budgets == sorted(budgets) and all(50 <= b <= 60_000 for b in budgets)
    names = {p["name"] for p in meta["players"]}
    assert all(lv["player"] in names for lv in levels)
    keys = [p[k] for p in meta["players"] for k in ("label", "help")]
    keys += [o[k] for o in meta["rule_options"] for k in ("label", "help")]
    keys += [lv[k] for lv in levels for k in ("label", "help")]
    tables = _tables()
    for key in keys:
        en = tables["en"][key]
        assert en and en != key.partition(":")[2], key          # an English label, not a code
        for lang in ("fr", "zh"):
            assert tables[lang][key] and tables[lang][key] != en or key == "level:club", (lang, key)
    assert "round_cap" not in {tables["en"][o["label"]] for o in meta["rule_options"]}


def test_every_room_card_and_privilege_has_a_name_and_an_effect_in_three_languages():
    tables = _tables()
    for kind, codes in PIECES.items():
        for code in codes:
            for key in (f"{kind}:{code}", f"{kind}-help:{code}"):
                en = tables["en"][key]
                assert en and en != code, key
                for lang in ("fr", "zh"):
                    text = tables[lang][key]
                    assert text and (text != en or key in ("room:CARDINAL", "card:INTRIGUE")), (lang, key)
    assert tables["en"]["room:PARADE"] == "Parade Ground" and tables["fr"]["room:PARADE"] == "Cour d'honneur"
    assert tables["zh"]["room:MINT"] == "铸币房"
    assert "+3 gold" in tables["en"]["card-help:GOLD"]
    for kind in STEP_KINDS:
        assert tables["en"][f"step:{kind}"] != kind and tables["zh"][f"step:{kind}"] != tables["en"][f"step:{kind}"]


# ---- the View -----------------------------------------------------------------------------

def _play_to_end(client, **options):
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}],
                     options={"round_cap": 3, **options})
    game, view = start["game"], start["view"]
    assert view["final"] is None
    rng = random.Random(5)
    with watch(client, game, 1) as ws:
        while not view["over"]:
            assert view["final"] is None
            view = my_turn_again(client, ws, game, 1, rng.choice(view["legal"])["token"])
    return game, view


def _finish_by_random_play(client, start):
    """A game of two people played to its end by random choices over the API."""
    game, view = start["game"], start["view"]
    rng = random.Random(1)
    while not view["over"]:
        seat = view["to_move"]
        legal = client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()["legal"]
        view = act(client, game, seat, rng.choice(legal)["token"]).json()
    return game, view


def _check_steps(log, seat):
    kinds = set()
    for turn in log:
        steps = turn["steps"]
        assert [s["token"] for s in steps] == turn["tokens"].split()
        for s in steps:
            kinds.add(s["kind"])
            if s["token"] == "?":
                assert s == {"token": "?", "kind": "draw", "card": None}
            else:
                assert s["stage"] and "id" not in s
            if s["kind"] == "draw" and s["token"] != "?":
                assert s["card"] in CARDS and s["token"] == "?" + s["card"]
            if s["kind"] == "recruit":
                assert s["tile"]["number"] >= 1
            if s["kind"] == "move":
                assert s["from"] in ROOMS and s["to"] in ROOMS
    return kinds


def test_log_steps_match_the_tokens_and_the_final_breakdown_adds_up(client):
    game, view = _play_to_end(client)
    kinds = _check_steps(view["log"], 1)
    assert {"room", "move", "continue"} <= kinds
    final = view["final"]
    assert [f["seat"] for f in final] == [1, 2]
    assert [f["total"] for f in final] == view["scores"]
    for f in final:
        assert sum(p["vp"] for p in f["parts"]) == f["total"]
        assert {p["source"] for p in f["parts"]} == {"nobles", "honours", "hand", "park-rank1",
                                                     "park-rank6", "park-filea", "park-filef"}


def test_a_live_views_log_hides_other_seats_draws_in_its_steps(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}],
                     options={"round_cap": 5})
    game, view = start["game"], start["view"]
    rng = random.Random(2)
    with watch(client, game, 1) as ws:
        while not view["over"] and view["round"] < 3:
            view = my_turn_again(client, ws, game, 1, rng.choice(view["legal"])["token"])
    spectator = client.get(f"/api/games/{game}/view").json()
    _check_steps(spectator["log"], 0)
    _check_steps(view["log"], 1)
    draws = [s for turn in spectator["log"] for s in turn["steps"] if s["kind"] == "draw"]
    assert draws and all(s["card"] is None for s in draws)
    assert all(p["hand"] is None for p in spectator["players"])


def _majorities(**kw):
    return majorities_json(position(State, stage=S_WINDOW2, **kw))


def test_majorities_follow_the_cardinal_and_the_intrigue_of_the_seat_to_move():
    # seat 1 (index 0) is to move; RULES.md §3 "Majority and the Cardinal"
    m = _majorities(rooms={0: {MINT: 2}, 1: {MINT: 1, STAIRS: 3}})
    assert m["MINT"] == 1 and m["STAIRS"] == 2 and m["PARADE"] == 0
    # a tie: broken by the Cardinal weight (servants there, +2 per FAVOUR), else nobody
    assert _majorities(rooms={0: {MINT: 1}, 1: {MINT: 1}})["MINT"] == 0
    assert _majorities(rooms={0: {MINT: 1}, 1: {MINT: 1, CARDINAL: 1}})["MINT"] == 2
    assert _majorities(rooms={0: {MINT: 1, CARDINAL: 1}, 1: {MINT: 1, CARDINAL: 1}})["MINT"] == 0
    assert _majorities(rooms={0: {MINT: 1}, 1: {MINT: 1, CARDINAL: 1}}, owned={40: 0})["MINT"] == 1
    # the INTRIGUE of the seat to move wins its ties this turn
    m = _majorities(rooms={0: {MINT: 1, PARADE: 2}, 1: {MINT: 1, CARDINAL: 1, PARADE: 2}}, intrigue=1)
    assert m["MINT"] == 1 and m["PARADE"] == 1


def test_default_names_go_to_the_page_as_catalog_keys_and_typed_names_as_they_are(client):
    view = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])["view"]
    assert view["names"] == ["Player 1", "random"]
    assert view["seat_labels"] == [{"key": "Player {n}", "n": 1}, {"key": "player:random"}]
    view = new_game(client, names=["Ann", "Bo"])["view"]
    assert view["seat_labels"] == [None, None]
    # a rematch turns the seats: "Player 1" plays seat 2 and is still written in the page's words
    start = new_game(client, [{"kind": "human"}, {"kind": "human"}], options={"round_cap": 2})
    game, _ = _finish_by_random_play(client, start)
    rematch = client.post(f"/api/games/{game}/rematch", headers=as_owner(game)).json()["view"]
    assert rematch["names"] == ["Player 2", "Player 1"]
    assert rematch["seat_labels"] == [{"key": "Player {n}", "n": 2}, {"key": "Player {n}", "n": 1}]


def test_hint_lines_carry_their_steps(client):
    start = new_game(client)
    game = start["game"]
    hints = client.post(f"/api/games/{game}/hint", json={}, headers=as_seat(game, 1)).json()["hints"]
    assert hints
    for h in hints:
        assert [s["token"] for s in h["steps"]] == h["actions"] == h["turn"].split()
        assert all(s["kind"] == "room" and s["stage"] == "SETUP" for s in h["steps"])


def test_a_finished_record_shows_every_hand_to_a_spectator_and_a_live_game_none(client):
    loaded = client.post("/api/records", content=EXAMPLE.read_bytes()).json()
    game = loaded["game"]
    view = client.get(f"/api/games/{game}/view").json()
    assert view["over"] and view["seat"] == 0
    assert all(p["hand"] is not None and sum(p["hand"].values()) == p["hand_size"] for p in view["players"])
    assert any(p["hand_size"] for p in view["players"])
    assert "?" not in " ".join(t["tokens"] for t in view["log"]).split()     # every draw named
    past = client.get(f"/api/games/{game}/position", params={"ply": view["ply"] // 2}).json()
    assert all(p["hand"] is not None for p in past["players"])
    live = new_game(client)["game"]
    assert all(p["hand"] is None for p in client.get(f"/api/games/{live}/view").json()["players"])


def test_the_favicon_is_served(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert len(r.content) < 4096 and b"<svg" in r.content


# ---- the languages' plurals and the check -------------------------------------------------

def test_the_page_table_ships_plural_forms_by_babels_rule(client):
    wanted = {"en": 2, "fr": 3, "zh": 1}
    for lang, n in wanted.items():
        table = client.get(f"/api/i18n/{lang}").json()
        assert table["plural_forms"]["nplurals"] == n
        assert len(table["plurals"]["{n} card"]) == n
        assert all(len(forms) == n for forms in table["plurals"].values())


@pytest.mark.parametrize("lang, expected", [
    ("en", ["0 cards", "1 card", "2 cards"]),
    ("fr", ["0 carte", "1 carte", "2 cartes"]),
    ("zh", ["0张牌", "1张牌", "2张牌"]),
])
def test_plurals_are_right_for_0_1_and_2(lang, expected):
    t = web.i18n.translations(lang)
    assert [t.ngettext("{n} card", "{n} cards", n).format(n=n) for n in (0, 1, 2)] == expected
    assert t.ngettext("{n} move left", "{n} moves left", 1).format(n=1) != t.ngettext(
        "{n} move left", "{n} moves left", 2).format(n=2)


def test_the_check_fails_on_english_left_in_french_or_chinese(scratch_catalogs):
    game, page, _ = scratch_catalogs
    assert web.i18n.check() == []
    _edit(page / "fr" / "LC_MESSAGES" / "palais.po", 'msgstr "Nouvelle partie"', 'msgstr "New game"')
    _edit(game / "zh" / "LC_MESSAGES" / "palais.po", 'msgctxt "room"\nmsgid "MINT"\nmsgstr "铸币房"',
          'msgctxt "room"\nmsgid "MINT"\nmsgstr "Mint"')
    problems = web.i18n.check()
    assert any("'New game' is English" in p for p in problems), problems
    assert any("'Mint' is English" in p for p in problems), problems
    assert web.i18n.main(["check"]) == 1


def test_the_check_fails_on_a_plural_with_the_wrong_number_of_forms(scratch_catalogs):
    _, page, _ = scratch_catalogs
    path = page / "fr" / "LC_MESSAGES" / "palais.po"
    _edit(path, 'msgstr[2] "{n} cartes"\n', "")
    problems = web.i18n.check()
    assert any("'{n} card' has 2 plural form(s), fr has 3" in p for p in problems), problems
    # a header that is not Babel's CLDR rule for French (Babel then refuses the file's 3 forms)
    _edit(path, "nplurals=3;", "nplurals=2;")
    assert any("Plural-Forms says nplurals=2" in p or "cannot read the catalog" in p
               for p in web.i18n.check())


@pytest.mark.slow
def test_the_check_command_passes_on_the_shipped_catalogs():
    r = subprocess.run([sys.executable, "-m", "web.i18n", "check"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and r.stdout.strip().endswith("catalogs ok"), r.stdout + r.stderr


# ---- the page's JavaScript under node -------------------------------------------------------

# What both node scripts begin with: the page's i18n.js and words.js loaded, with the
# catalogs given as a file (argv: the static folder, the catalogs' JSON).
NODE_PRELUDE = r"""
globalThis.document = { documentElement: {} };
globalThis.localStorage = { getItem: () => null, setItem: () => {} };
const [static_, tablesPath] = process.argv.slice(2);
const i18n = await import(static_ + "/i18n.js");
const words = await import(static_ + "/words.js");
const tables = JSON.parse((await import("fs")).readFileSync(tablesPath, "utf8"));
"""

NODE_SCRIPT = NODE_PRELUDE + r"""
const out = {};
for (const lang of Object.keys(tables)) {
  await i18n.setLanguage(lang, async () => tables[lang]);
  out[lang] = {
    cards: [0, 1, 2].map((n) => i18n.tn("{n} card", "{n} cards", n)),
    number: i18n.formatNumber(106.2),
    mint: words.pieceName("room", "MINT"), goldHelp: words.pieceHelp("card", "GOLD"),
    noble: words.nobleText({ number: 25, vp: 3, gold: 4, turquoise: 2, violet: 0, privilege: "INCOME", amount: 2 }),
    turn: words.turnWords(STEPS, {}),
    seat: words.seatName({ names: ["Player 1"], seat_labels: [{ key: "Player {n}", n: 1 }] }, 1),
    pass: words.passDeviceButton(2),
    expected: words.expectedScore(106.24),
  };
}
const refused = [];
for (const junk of ["alert(1)", "n ++ 1", "(n == 1", "constructor", ""]) {
  try { i18n.compilePlural(junk); } catch (_) { refused.push(junk); }
}
out.refused = refused;
out.frenchRule = [0, 1, 2, 1000000].map(i18n.compilePlural(tables.fr.plural_forms.plural));
console.log(JSON.stringify(out));
"""
STEPS = [{"token": "STAIRS-MINT", "kind": "move", "from": "STAIRS", "to": "MINT", "stage": "MOVES"},
         {"token": "gate1", "kind": "gate", "count": 1, "stage": "STEP1"},
         {"token": "?", "kind": "draw", "card": None},
         {"token": "take", "kind": "take", "bonus": "KING", "stage": "KING_BONUS"},
         {"token": "end", "kind": "end", "stage": "RECRUIT"}]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_tn_and_words_speak_each_language_with_the_shipped_plural_rule(tmp_path):
    tables = {lang: web.i18n.catalog_json(lang) for lang in ("en", "fr", "zh")}
    (tmp_path / "tables.json").write_text(json.dumps(tables), encoding="utf-8")
    script = tmp_path / "run.mjs"
    script.write_text(NODE_SCRIPT.replace("STEPS", json.dumps(STEPS)), encoding="utf-8")
    r = subprocess.run(["node", str(script), STATIC.as_uri(), str(tmp_path / "tables.json")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["en"]["cards"] == ["0 cards", "1 card", "2 cards"]
    assert out["fr"]["cards"] == ["0 carte", "1 carte", "2 cartes"]
    assert out["zh"]["cards"] == ["0张牌", "1张牌", "2张牌"]
    assert out["fr"]["number"] == "106,2" and out["en"]["number"] == "106.2"
    assert out["en"]["mint"] == "Mint" and out["fr"]["mint"] == "Hôtel de la monnaie"
    assert out["en"]["goldHelp"] == "Any step: +3 gold."
    assert out["en"]["noble"] == "Noble 25: 3 VP, costs 4 gold, 2 turquoise seals; Income (+2 gold each turn)"
    assert [w["text"] for w in out["en"]["turn"]] == [
        "Moves a servant from the Stairway to the Mint", "Puts 1 servant on the Gate", "Draws a card",
        "Takes the bonus of the King's Chamber", "Ends the recruiting"]
    assert [w["token"] for w in out["zh"]["turn"]] == [s["token"] for s in STEPS]
    assert out["zh"]["turn"][0]["text"] == "把一个仆人从阶梯移到铸币房"
    assert out["fr"]["seat"] == "Joueur 1" and out["zh"]["pass"] == "我是座位B"
    assert out["refused"] == ["alert(1)", "n ++ 1", "(n == 1", "constructor", ""]   # not code: a rule
    assert out["frenchRule"] == [0, 0, 2, 1]                   # CLDR fr: one, one, other, many
    assert out["en"]["expected"] == "106.2 VP expected" and out["fr"]["expected"].startswith("106,2 ")


def test_the_page_font_stack_names_cjk_fonts_of_linux_windows_and_macos():
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    body = next(line for line in css.splitlines() if line.startswith("body {"))
    for font in ("Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", "PingFang SC"):
        assert f'"{font}"' in body, font
    assert body.index("PingFang SC") < body.index("sans-serif;")
    docs = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    assert "fonts-noto-cjk" in docs and "fonts-wqy-microhei" in docs


def test_the_levels_are_the_measured_ones_docs_web_md_gives():
    from web.levels import LEVELS
    docs = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    table = docs[docs.index("## Strength levels"):docs.index("## Engine seats")]
    tables = _tables()
    for level in LEVELS:
        label = tables["en"][level.label]
        row = next(line for line in table.splitlines() if line.startswith(f"| {label}"))
        budget = f"{level.budget_ms} ms" if level.budget_ms < 1000 else f"{level.budget_ms // 1000} s"
        assert f"`{level.player}`" in row and f"| {budget} |" in row, row
    assert [level.id for level in LEVELS if level.default] == ["club"]
    assert "620 games" in table


# ---- the log's one line per turn (web/turn_summary.py) --------------------------------------

def test_each_logged_turn_carries_what_it_changed_and_every_seat_reads_the_same(client):
    game, view = _play_to_end(client)
    log = view["log"]
    spectator = client.get(f"/api/games/{game}/view").json()["log"]
    assert [e["summary"] for e in spectator] == [e["summary"] for e in log]   # public facts only
    gold = {1: 0, 2: 0}
    for entry in log:
        s, steps = entry["summary"], entry["steps"]
        assert s["played"] == [x["card"] for x in steps if x["kind"] == "play"]
        assert s["moves"] == sum(x["kind"] == "move" for x in steps)
        assert s["gate"] == sum(x.get("count", 0) for x in steps if x["kind"] == "gate")
        assert s["drawn"] == sum(x["kind"] == "draw" for x in steps)
        assert [t["number"] for t in s["recruited"]] == [x["tile"]["number"] for x in steps
                                                          if x["kind"] == "recruit"]
        assert s["bonuses"] == [x["bonus"] for x in steps if x["kind"] == "take"]
        assert s["honour_vp"] == 3
        rooms = [x["room"] for x in steps if x["kind"] == "room" and x["stage"] == "SETUP"]
        assert s["placed"] == [{"room": r, "n": rooms.count(r)} for r in dict.fromkeys(rooms)]
        gold[entry["seat"]] += s["gold"]
    start_gold = State.new_game(2).snapshot().gold      # the same for every seed
    assert [start_gold[q] + gold[q + 1] for q in range(2)] == [p["gold"] for p in view["players"]]
    assert any(e["summary"]["moves"] > 1 for e in log)
    assert any(e["summary"]["gold"] for e in log)


def test_a_turn_summary_counts_each_kind_of_step():
    from web.turn_summary import turn_summary
    s = State.new_game(2, seed=1)
    before = s.snapshot()
    after = s.snapshot()
    after.gold[0] += 2
    steps = [{"kind": "gate", "count": 2}, {"kind": "move"}, {"kind": "move"},
             {"kind": "play", "card": "HONOUR"}, {"kind": "continue"}, {"kind": "continue"},
             {"kind": "recruit", "tile": {"number": 25, "vp": 3}}, {"kind": "take", "bonus": "KING"},
             {"kind": "draw", "card": None}]
    assert turn_summary(before, after, 0, steps, 3) == {
        "placed": [], "recruited": [{"number": 25, "vp": 3}], "played": ["HONOUR"], "moves": 2, "gate": 2,
        "bonuses": ["KING"], "gold": 2, "drawn": 1, "honour_vp": 3}


WORDS_SCRIPT = NODE_PRELUDE + r"""
const names = { names: ["Ann", "Bob"], seat_labels: [{}, {}] };
const turn = (round, seat, n) => ({ round, seat, steps: new Array(n).fill({}) });
const out = {};
for (const lang of Object.keys(tables)) {
  await i18n.setLanguage(lang, async () => tables[lang]);
  out[lang] = {
    summary: words.turnSummaryText({ recruited: [{ number: 25, vp: 3 }], played: ["HONOUR", "LETTER"],
      gate: 2, moves: 3, bonuses: ["KING"], gold: -4, drawn: 1, honour_vp: 3 }),
    setup: words.turnSummaryText({ placed: [{ room: "BACKDOOR", n: 2 }, { room: "MINT", n: 1 }] }),
    quiet: words.turnSummaryText({ recruited: [], played: [], gate: 0, moves: 0, bonuses: [], gold: 0, drawn: 0 }),
    // after the last turn of round 10 (round 11 has begun) and after a turn inside round 10
    roundEnd: [words.reviewRound({ ...names, round: 11, log: [turn(10, 2, 5)] }),
               words.reviewPosition({ ...names, round: 11, to_move: 1, log: [turn(10, 2, 5)] })],
    roundMid: [words.reviewRound({ ...names, round: 10, log: [turn(10, 1, 5)] }),
               words.reviewPosition({ ...names, round: 10, to_move: 2, log: [turn(10, 1, 5)] })],
    // the analysis board from the live position, two decisions into Bob's turn
    inside: words.reviewPosition({ ...names, round: 10, to_move: 2, log: [turn(10, 1, 5), turn(10, 2, 2)] }),
  };
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_logs_turn_line_and_the_review_speak_rounds_and_names_in_three_languages(tmp_path):
    tables = {lang: web.i18n.catalog_json(lang) for lang in ("en", "fr", "zh")}
    (tmp_path / "tables.json").write_text(json.dumps(tables), encoding="utf-8")
    script = tmp_path / "run.mjs"
    script.write_text(WORDS_SCRIPT, encoding="utf-8")
    r = subprocess.run(["node", str(script), STATIC.as_uri(), str(tmp_path / "tables.json")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    en, fr, zh = out["en"], out["fr"], out["zh"]
    assert en["summary"] == ("Recruits noble 25 (3 VP); plays Honour (+3 VP), Letter of introduction; "
                             "puts 2 servants on the Gate; moves 3 servants; takes the King's "
                             "Chamber bonus; spends 4 gold; draws 1 card")
    assert fr["summary"].startswith("Recrute le noble 25 (3 PV) ; joue Honneur (+3 PV), Lettre de "
                                    "recommandation ; ")
    assert "déplace 3 serviteurs" in fr["summary"] and "移动3个仆人" in zh["summary"]
    assert en["quiet"] == "No change on the board"
    assert en["setup"] == "Places 2 in the Back Door and 1 in the Mint"
    assert fr["setup"] == "Place 2 dans la Porte de service et 1 dans l'Hôtel de la monnaie"
    for lang in out.values():                       # no code of a piece in any language
        assert not re.search(r"\b(HONOUR|LETTER|KING|GATE)\b", lang["summary"])
    assert en["roundEnd"] == ["Round 11 begins", "Round 10: after the turn of Bob (seat B)"]
    assert en["roundMid"] == ["Round 10", "Round 10: after the turn of Ann (seat A)"]
    assert en["inside"] == "Round 10, turn of Bob (seat B): decision 3"
    assert fr["roundEnd"] == ["Début de la manche 11", "Manche 10 : après le tour de Bob (siège B)"]
    assert fr["inside"] == "Manche 10, tour de Bob (siège B) : décision 3"
    assert zh["roundEnd"][0] == "第11轮开始" and zh["inside"].startswith("第10轮，Bob（座位B）的回合")
