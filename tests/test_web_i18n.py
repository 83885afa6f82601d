"""Languages (web/i18n.py, play/i18n.py, play/explain.py): the catalogs are whole and
consistent, the hint explanations speak French and Chinese, and English is unchanged.

Positions come from tests/helpers.py as in tests/test_explain.py (first-game layout, seat 1
to move holding one HONOUR; tile 25 is stored at index 24: 4 gold, 2 turquoise, 3 VP,
INCOME(2)).
"""

import shutil

import pytest

import play.explain
import web.i18n
from engine.constants import A_CONTINUE, A_END, KING, MINT, OFFICE, STAIRS, S_WINDOW2, S_WINDOW4
from engine.random_play import random_action
from engine.rng import Rng
from engine.state import State
from play.explain import explain, turn_changes
from play.hints import find_hints
from play.i18n import LANGUAGES, catalog_path, read_catalog, translations
from search.params import SearchLimits
from web.i18n import check, messages, negotiate, page_msgids, placeholders, translator, update

from helpers import move, position, recruit

T25 = 24


def _recruit_25(impl=State):
    s = position(impl, rooms={0: {OFFICE: 1, KING: 2}}, gold={0: 5}, tiles={"c3": T25},
                 stage=S_WINDOW4)
    return s, [A_CONTINUE, recruit("c3")]


def _take_mint(impl=State):
    s = position(impl, rooms={0: {STAIRS: 3}, 1: {STAIRS: 3, MINT: 1}}, stage=S_WINDOW2)
    return s, [A_CONTINUE, move(STAIRS, MINT), move(STAIRS, MINT), A_END]


# ------------------------------------------------------------------------------ catalogs

def test_every_catalog_parses_and_the_check_finds_nothing():
    # The check covers: every msgid play/explain.py and web/static/*.js use is in the
    # catalogs, fr and zh translate every entry (no empty msgstr, no fuzzy), the
    # placeholders of each translation are its msgid's, en/fr/zh hold the same msgids.
    for locale_dir in (play.i18n.LOCALE_DIR, web.i18n.PAGE_LOCALE_DIR):
        for lang in LANGUAGES:
            assert len(list(read_catalog(catalog_path(lang, locale_dir)))) > 20
    assert check() == []


def test_fr_and_zh_translate_every_msgid_of_both_catalogs():
    for locale_dir in (play.i18n.LOCALE_DIR, web.i18n.PAGE_LOCALE_DIR):
        english = {(m.context, m.id) for m in read_catalog(catalog_path("en", locale_dir)) if m.id}
        for lang in ("fr", "zh"):
            catalog = read_catalog(catalog_path(lang, locale_dir))
            assert {(m.context, m.id) for m in catalog if m.id} == english
            for m in catalog:
                if m.id:
                    forms = m.string if isinstance(m.string, tuple) else (m.string,)
                    assert forms and all(forms), (lang, m.id)


@pytest.fixture
def scratch_catalogs(tmp_path, monkeypatch):
    """Copies of both catalogs and of web/static, where the check and update run."""
    game, page, static = tmp_path / "game", tmp_path / "page", tmp_path / "static"
    shutil.copytree(play.i18n.LOCALE_DIR, game)
    shutil.copytree(web.i18n.PAGE_LOCALE_DIR, page)
    shutil.copytree(web.i18n.STATIC_DIR, static)
    monkeypatch.setattr(web.i18n, "GAME_LOCALE_DIR", game)
    monkeypatch.setattr(web.i18n, "PAGE_LOCALE_DIR", page)
    monkeypatch.setattr(web.i18n, "STATIC_DIR", static)
    return game, page, static


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_check_finds_a_new_page_string_and_update_adds_it_untranslated(scratch_catalogs):
    _game, page, static = scratch_catalogs
    (static / "extra.js").write_text(
        'import { t } from "./i18n.js";\n'
        'export const title = (v) => `${t("Brand new string")}: ${v}`;\n'
        'const room = t("MINT"), stage = t("stage:MOVES");\n', encoding="utf-8")
    assert check() == [f"page catalogs, {lang}: 'Brand new string' used at extra.js:2 is missing"
                       for lang in LANGUAGES]
    # The game's names and stages are found in the game's catalog: only the new one is added.
    assert update() == [f"added to the page catalog, {lang}: 'Brand new string'"
                        for lang in LANGUAGES]
    assert check() == ["page catalog, fr: 'Brand new string' is not translated",
                       "page catalog, zh: 'Brand new string' is not translated"]
    for lang, text in (("fr", "Chaîne toute neuve"), ("zh", "全新字符串")):
        _edit(catalog_path(lang, page), 'msgid "Brand new string"\nmsgstr ""',
              f'msgid "Brand new string"\nmsgstr "{text}"')
    assert check() == []
    assert update() == []
    # The page drops the string again: the check names it, update removes it.
    (static / "extra.js").unlink()
    assert check() == ["page catalog: 'Brand new string' is not used by the page"]
    assert update() == [f"removed from the page catalog, {lang}: 'Brand new string'"
                        for lang in LANGUAGES]
    assert check() == []


def test_an_english_label_is_written_from_its_declaration(scratch_catalogs):
    """The rule options' and built-in players' English labels are declared with them
    (engine/options.py, search/algorithms.py): en's catalog holding another is a problem, and
    update writes the declared one."""
    game, page, _static = scratch_catalogs
    _edit(catalog_path("en", game), 'msgid "round_cap"\nmsgstr "Round cap"',
          'msgid "round_cap"\nmsgstr "Round limit"')
    _edit(catalog_path("en", page), 'msgid "greedy"\nmsgstr "Greedy player"',
          'msgid "greedy"\nmsgstr "Greedy"')
    assert check() == [
        "game catalog, en: the label of 'rule option:round_cap' is 'Round limit', the code declares "
        "'Round cap' (python -m web.i18n update writes it)",
        "page catalog, en: the label of 'player:greedy' is 'Greedy', the code declares "
        "'Greedy player' (python -m web.i18n update writes it)"]
    assert update() == ["labelled in the game catalog, en: 'rule option:round_cap' -> 'Round cap'",
                        "labelled in the page catalog, en: 'player:greedy' -> 'Greedy player'"]
    assert check() == []


def test_the_check_finds_a_wrong_placeholder_an_empty_plural_and_a_broken_file(scratch_catalogs):
    game, page, _static = scratch_catalogs
    _edit(catalog_path("fr", page), 'msgstr "Siège {n}"', 'msgstr "Siège {numero}"')
    _edit(catalog_path("zh", game), 'msgstr[0] "抽{n}张牌"', 'msgstr[0] ""')
    problems = check()
    assert ("page catalog, fr: 'Siège {numero}' has placeholders ['numero'], "
            "its msgid 'Seat {n}' has ['n']") in problems
    assert "game catalog, zh: 'draws {n} card' is not translated" in problems
    assert len(problems) == 2
    catalog_path("fr", game).write_text('msgid "x"\nmsgstr "y"\nmsgid "z"\n', encoding="utf-8")
    assert any(p.startswith("game catalog, fr: ") and "cannot read the catalog" in p
               for p in check())


def test_a_game_msgid_missing_or_unused_is_named(scratch_catalogs):
    game, _page, _static = scratch_catalogs
    for lang in LANGUAGES:
        _edit(catalog_path(lang, game), 'msgid "wins tied majorities"', 'msgid "wins ties"')
    problems = check()
    for lang in LANGUAGES:
        assert any(p.startswith(f"game catalog, {lang}: 'wins tied majorities' used at explain.py:")
                   for p in problems)
    assert "game catalog: 'wins ties' is not used by the code" in problems


def test_the_command_line_check_exits_1_on_a_problem(scratch_catalogs, capsys):
    _game, page, _static = scratch_catalogs
    assert web.i18n.main(["check"]) == 0
    assert capsys.readouterr().out == "catalogs ok\n"
    _edit(catalog_path("zh", page), 'msgstr "新游戏"', 'msgstr ""')
    assert web.i18n.main(["check"]) == 1
    assert capsys.readouterr().out == ("page catalog, zh: 'New game' is not translated\n"
                                       "1 problem(s) in the catalogs\n")
    assert web.i18n.main([]) == 2 and "usage" in capsys.readouterr().err


def test_placeholders_reads_format_fields():
    assert placeholders("{n} in {room} ({use})") == {"n", "room", "use"}
    assert placeholders("no change") == set()
    with pytest.raises(ValueError):
        placeholders("a { b")


def test_page_strings_are_extracted_from_modern_javascript(tmp_path):
    (tmp_path / "board.js").write_text(
        "export class Board {\n"
        "  #seat = 0;\n"
        "  label(n) { return `${t(\"Seat {n}\").replace(\"{n}\", n)} / ${t('Gold')}`; }\n"
        "  draw = async (v) => { const re = /a\"b/g; return [t(\"Undo\"), t(v.room)]; };\n"
        "}\n", encoding="utf-8")
    variables = {(None, msgid) for msgid in web.i18n.PAGE_VARIABLE_MSGIDS}
    variables |= set(web.i18n.server_vocabulary())
    assert set(page_msgids(tmp_path)) - variables == {
        (None, "Seat {n}"), (None, "Gold"), (None, "Undo")}


# ------------------------------------------------------------------------- page's table

def test_messages_give_the_page_the_names_of_the_rules_texts():
    fr, zh, en = messages("fr"), messages("zh"), messages("en")
    assert fr["MINT"] == "Hôtel de la monnaie" and zh["MINT"] == "铸币房"
    assert fr["PARADE"] == "Cour d'honneur" and zh["PARADE"] == "阅兵场"
    assert fr["KING"] == "Cabinet du Roi" and zh["MADAME"] == "庞巴度夫人"
    assert fr["New game"] == "Nouvelle partie" and zh["Hint"] == "提示"
    assert fr["stage:MOVES"] == "Déplacements" and fr["MOVES"] == "Commission"   # stage vs card
    assert en["MINT"] == "MINT" and en["New game"] == "New game"
    assert en["stage:WINDOW1"] == "Cards before step 1"
    assert set(fr) == set(zh) == set(en)
    assert "{n} servant" not in fr                       # plural entries are for Python only
    fr["MINT"] = "changed"
    assert messages("fr")["MINT"] == "Hôtel de la monnaie"


@pytest.mark.parametrize("lang", ["de", "", "FR", "../fr", None, ["fr"], {"fr": 1}])
def test_an_unknown_language_is_refused_clearly(lang):
    for call in (messages, translator, translations):
        with pytest.raises(ValueError, match=r"unknown language .*expected one of en, fr, zh"):
            call(lang)


def test_translator_for_python_code():
    assert translator("fr")("New game") == "Nouvelle partie"
    assert translator("zh")("MINT") == "铸币房"           # the game's catalog behind the page's
    assert translator("en")("Hint") == "Hint"
    assert translator("fr")("not a msgid") == "not a msgid"


@pytest.mark.parametrize("header, lang", [
    ("fr-FR,fr;q=0.9", "fr"), ("zh-CN", "zh"), ("de", "en"), ("zh-Hans-CN,zh;q=0.9", "zh"),
    ("de-DE,de;q=0.9,fr;q=0.5,zh;q=0.6", "zh"), ("en-GB,fr;q=0.8", "en"), ("zh_TW", "zh"),
    ("fr;q=0", "en"), ("fr;q=abc,zh;q=0.2", "zh"), ("fr;q=7", "en"), ("*", "en"), ("", "en"),
    (None, "en"), (",;,=;q=", "en"), ("x" * 100000 + ",fr", "en"),
])
def test_negotiate(header, lang):
    assert negotiate(header) == lang


# --------------------------------------------------------------------------- explanations

def test_a_recruitment_in_french_and_chinese(impl):
    s, turn = _recruit_25(impl)
    assert explain(s, turn, 0) == (
        "Recruits noble 25 (3 VP, Income(2)); loses the majority in the King's Chamber; "
        "spends 4 gold; spends 2 turquoise seals.")
    assert explain(s, turn, 0, lang="fr") == (
        "Recrute le noble 25 (3 PV, Revenu(2)) ; perd la majorité dans le Cabinet du Roi ; "
        "dépense 4 or ; dépense 2 sceaux turquoise.")
    assert explain(s, turn, 0, lang="zh") == (
        "招募贵族25（3分、收入(2)）；失去国王居所的多数；花费4金币；花费2个青绿色印章。")


def test_a_majority_taken_in_french_and_chinese(impl):
    s, turn = _take_mint(impl)
    assert turn_changes(s, turn, 0, "fr") == [
        "donne au siège 2 la majorité dans la Cage d'escalier",
        "prend la majorité dans l'Hôtel de la monnaie au siège 2"]
    assert turn_changes(s, turn, 0, "zh") == ["让2号座位取得阶梯的多数", "从2号座位手中夺得铸币房的多数"]


def test_french_plurals_and_park_sides():
    s = position(State, rooms={0: {OFFICE: 1}}, gold={0: 5}, tiles={"f6": 2}, stage=S_WINDOW4)
    assert turn_changes(s, [A_CONTINUE, recruit("f6")], 0, "fr")[-1] == (
        "prend les côtés rangée 6 et colonne f du parc (1 serviteur contre 0)")
    assert turn_changes(s, [A_CONTINUE, recruit("f6")], 0, "zh")[-1] == (
        "拿下庭院的第6排和f列边（1个仆人对0）")


def test_setup_placements_in_french():
    s = State.new_game(2, seed=3)
    assert explain(s, [MINT], 0, lang="fr") == (
        "Place 1 dans l'Hôtel de la monnaie (+2 or par tour) ; majorité dans l'Hôtel de la "
        "monnaie pour l'instant (les sièges suivants placent encore).")


class _Recording:
    """Translations that note every message the explanation asks for."""

    def __init__(self, inner):
        self.inner, self.asked = inner, set()

    def gettext(self, msgid):
        self.asked.add((None, msgid))
        return self.inner.gettext(msgid)

    def ngettext(self, singular, plural, n):
        self.asked.add((None, (singular, plural)))
        return self.inner.ngettext(singular, plural, n)

    def pgettext(self, context, msgid):
        self.asked.add((context, msgid))
        return self.inner.pgettext(context, msgid)


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_every_message_asked_for_by_random_turns_is_translated(lang, monkeypatch):
    """What extraction might miss (a msgid built at run time) shows up here: whole random
    turns of 2-4 player games, setup included, explained in lang, ask only for msgids that
    the catalog translates, and no phrase comes out in English."""
    recording = _Recording(translations(lang))
    monkeypatch.setattr(play.explain, "translations",
                        lambda asked: recording if asked == lang else translations(asked))
    translated = {(m.context, m.id) for m in read_catalog(catalog_path(lang, play.i18n.LOCALE_DIR))
                  if m.id and m.string}
    phrases = 0
    for seed in range(12):
        rng = Rng(seed)
        s = State.new_game(2 + seed % 3, seed=seed)
        while s.round < 1 + seed % 5 and not s.is_terminal():
            seat, start, turn = s.to_move, s.copy(), []
            while (not s.is_terminal() and not s.is_chance()
                   and (s.round, s.to_move) == (start.round, seat) and len(turn) < 40):
                a = random_action(s, rng)
                turn.append(a)
                s.apply(a)
            if turn and seat >= 0:
                english = turn_changes(start, turn, seat)
                local = turn_changes(start, turn, seat, lang)
                assert len(local) == len(english)
                assert all(a != b for a, b in zip(english, local)), (english, local)
                phrases += len(local)
            while s.is_chance():
                s.apply(random_action(s, rng))
    assert phrases > 50
    assert recording.asked and recording.asked <= translated, recording.asked - translated


@pytest.mark.parametrize("lang", ["de", ["fr"]])
def test_an_unknown_language_is_refused_by_explain(lang):
    s, turn = _recruit_25()
    with pytest.raises(ValueError, match="unknown language"):
        explain(s, turn, 0, lang=lang)


def test_hints_in_french_are_the_same_turns_explained_in_french():
    s = State.new_game(2, seed=5)
    rng = Rng(5)
    while s.round < 2:
        s.apply(random_action(s, rng))
    limits = SearchLimits(iterations=300)
    english = find_hints(s, limits, top=2, seed=3)
    french = find_hints(s, limits, top=2, seed=3, lang="fr")
    view = s.view(s.to_move)
    assert [h.turn for h in french.hints] == [h.turn for h in english.hints]
    assert french.hints
    for fr, en in zip(french.hints, english.hints):
        assert fr.explanation == explain(view, fr.turn, s.to_move, "fr")
        assert fr.explanation != en.explanation
    with pytest.raises(ValueError, match="unknown language"):
        find_hints(s, limits, lang="xx")


def test_a_review_explains_each_turn_in_the_language_asked():
    from play.analyse import Analyser
    s = State.new_game(2, seed=2)
    line = [MINT]
    turn = Analyser(SearchLimits(iterations=100), seed=1, lang="zh").turn(1, s, 0, line)
    assert turn.explanation == explain(s.view(0), line, 0, "zh")
    assert turn.explanation.startswith("放置：1个在铸币房")
    with pytest.raises(ValueError, match="unknown language 'de'"):
        Analyser(SearchLimits(iterations=100), lang="de")
