"""The languages of the browser GUI: the page's words, the choice of language, the catalog check.

The page calls `t("English text")` for every string it shows; `messages(lang)` is the table
it reads (GET /api/i18n/<lang>). It joins two gettext catalogs, both read with Babel at run
time from .po files (nothing compiled is committed):

    play/locale/<lang>/LC_MESSAGES/palais.po   the game's words: rooms, cards, privileges,
                                               stages, the hint explanations (play/i18n.py)
    web/locale/<lang>/LC_MESSAGES/palais.po    the page's own words ("New game", "Hint", ...)

Every msgid is the English text, and lives in exactly one of the two. English is the msgid
unless en's catalog gives a label (stage codes do: "stage:WINDOW1" -> "Cards before step 1").

    messages("fr")               -> {"New game": "Nouvelle partie", "MINT": "Hôtel de la monnaie", ...}
    translator("zh")("Hint")     -> "提示"
    negotiate("fr-FR,fr;q=0.9")  -> "fr"

`python -m web.i18n check` extracts the msgids the code uses (play/explain.py with Babel's
Python extractor, web/static/*.js with its JavaScript one, keywords `t` and `tf`, and the
data-i18n attributes of web/static/*.html), and says what is
missing, unused, untranslated or inconsistent; `python -m web.i18n update` adds the missing
msgids to every catalog, untranslated, for a translator to fill in, removes the unused
ones, and writes into en's catalog the English labels the code declares with their codes
(the rule options' in engine/options.py, the built-in players' in search/algorithms.py). Notation tokens (MINT-KING, c4, !GOLD) are never msgids: the page shows them as they
are.
"""

from __future__ import annotations

import functools
import string
import sys
from html.parser import HTMLParser
from pathlib import Path

import play.explain
from play.i18n import (
    DOMAIN, LANGUAGES, LOCALE_DIR as GAME_LOCALE_DIR, catalog_path, check_language,
    compile_catalog, english_labels, game_vocabulary, read_catalog,
)

__all__ = ["LANGUAGES", "messages", "translator", "translations", "negotiate", "check", "update"]

WEB_DIR = Path(__file__).resolve().parent
PAGE_LOCALE_DIR = WEB_DIR / "locale"
STATIC_DIR = WEB_DIR / "static"
GAME_SOURCES = (Path(play.explain.__file__),)      # where the game's msgids are written
# Babel's default Python keywords, plus the plural marker of play/explain.py.
PYTHON_KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None,
                   "N_plural": (1, 2), "pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3)}
PAGE_KEYWORDS = {"t": None, "tf": None,     # t("English"), tf("Seat {n}", {n: 2})
                 "tn": (1, 2)}              # tn("{n} card", "{n} cards", n)
PAGE_ATTRIBUTES = ("data-i18n", "data-i18n-title")
# Strings the page translates through a variable, t(BUTTON_TEXT[kind]) in app.js, which no
# extraction can see: keep this list as that table is.
PAGE_VARIABLE_MSGIDS = ("Take the bonus", "Decline", "Continue")
# fr/zh entries that may read as their English (the check's "English leftover" test):
# names that are the same word in the language, and punctuation.
SAME_AS_ENGLISH = {
    "fr": {("list separator", ", "), (None, "{phrases}."),                  # punctuation
           ("room", "CARDINAL"), ("card", "INTRIGUE"), ("level", "club"),      # the same word
           (None, "Nobles"), (None, "turquoise"), (None, "violet"), (None, "{n} actions"),
           (None, "Guide"),                                                   # (the guided game's panel)
           (None, "Palais Royal")},                                           # the game's name
    "zh": set(),
}


def server_vocabulary() -> list:
    """(msgctxt, msgid) of the words the server names by key for the page to translate
    (/api/meta): each built-in player's label and help ("player:ismcts", "player-help:..."),
    each strength level's ("level:club", "level-help:club"). English labels are in en's
    catalog (the players' written there from their registration: server_english_labels)."""
    from .config import BUILTIN_PLAYERS
    from .levels import LEVELS
    out = []
    for name in BUILTIN_PLAYERS:
        out += [("player", name), ("player-help", name)]
    for level in LEVELS:
        out += [("level", level.id), ("level-help", level.id)]
    return out


def server_english_labels() -> dict:
    """{(msgctxt, code): English} of the page's words declared with their English in the code:
    each built-in player's label and summary (search/algorithms.py `register`). `update` writes
    them into en's page catalog and `check` fails while one differs (play/i18n.py
    english_labels is the game catalog's)."""
    from search.algorithms import REGISTRY
    from .config import BUILTIN_PLAYERS
    out = {}
    for name in BUILTIN_PLAYERS:
        out[("player", name)] = REGISTRY[name].label
        out[("player-help", name)] = REGISTRY[name].summary
    return out
MAX_ACCEPT_LANGUAGE = 4096          # characters of an Accept-Language header looked at


def _key_of(context, msgid) -> str:
    """The page's key of a catalog entry: its msgid, or "context:msgid" with a context."""
    return f"{context}:{msgid}" if context else msgid


def messages(lang: str) -> dict:
    """{msgid: text in `lang`} for the page: every entry of both catalogs but the plural
    ones (those are in catalog_json's "plurals"), an untranslated one as its msgid.
    ValueError for a language not in LANGUAGES (the server answers 404)."""
    return dict(_messages(check_language(lang)))


@functools.lru_cache(maxsize=None)
def _messages(lang: str) -> dict:
    out = {}
    for locale_dir in (GAME_LOCALE_DIR, PAGE_LOCALE_DIR):
        for message in read_catalog(catalog_path(lang, locale_dir)):
            if message.id and not message.pluralizable:
                out[_key_of(message.context, message.id)] = message.string or message.id
    return out


def plural_rule(lang: str) -> tuple:
    """(number of forms, gettext expression choosing one for n) of `lang`, from Babel's CLDR
    data: what the catalogs' Plural-Forms header must say and what the page evaluates."""
    from babel.messages.catalog import Catalog
    catalog = Catalog(locale=check_language(lang))
    return catalog.num_plurals, catalog.plural_expr


def plurals(lang: str) -> dict:
    """{singular msgid (or "context:singular"): [form, ...]} of every plural entry of both
    catalogs, as many forms as plural_rule(lang) says; an untranslated one as its msgid and
    msgid_plural."""
    return {key: list(forms) for key, forms in _plurals(check_language(lang)).items()}


@functools.lru_cache(maxsize=None)
def _plurals(lang: str) -> dict:
    out = {}
    for locale_dir in (GAME_LOCALE_DIR, PAGE_LOCALE_DIR):
        for message in read_catalog(catalog_path(lang, locale_dir)):
            if message.id and message.pluralizable:
                forms = tuple(message.string) if all(message.string) else tuple(message.id)
                out[_key_of(message.context, message.id[0])] = forms
    return out


def catalog_json(lang: str) -> dict:
    """The page's table of `lang` (GET /api/i18n/<lang>): messages, plural entries and the
    plural rule (Babel's CLDR rule as a gettext expression, evaluated by i18n.js's tn)."""
    n, expr = plural_rule(lang)
    return {"lang": lang, "messages": messages(lang), "plurals": plurals(lang),
            "plural_forms": {"nplurals": n, "plural": expr}}


def translations(lang: str):
    """gettext translations of both catalogs (the page's first, the game's behind it)."""
    return _translations(check_language(lang))


@functools.lru_cache(maxsize=None)
def _translations(lang: str):
    page = compile_catalog(read_catalog(catalog_path(lang, PAGE_LOCALE_DIR)))
    page.add_fallback(compile_catalog(read_catalog(catalog_path(lang, GAME_LOCALE_DIR))))
    return page


def translator(lang: str):
    """A gettext callable for Python code: translator("fr")("New game") -> "Nouvelle partie".
    For plurals and contexts, translations(lang).ngettext / .pgettext."""
    return translations(lang).gettext


def negotiate(accept_language) -> str:
    """The language of LANGUAGES a browser prefers most (its Accept-Language header, or
    navigator.language), by quality then order; "en" when none fits or the header is bad."""
    best, best_q = "en", 0.0
    for part in str(accept_language or "")[:MAX_ACCEPT_LANGUAGE].split(","):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().lower().replace("_", "-").split("-")[0]
        q = 1.0
        params = params.strip().replace(" ", "")
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                continue
        if lang in LANGUAGES and 0 < q <= 1 and q > best_q:
            best, best_q = lang, q
    return best


# ----------------------------------------------------------------------------------- checks

def _extract(method: str, paths, keywords, options=None) -> dict:
    """{(context, msgid or (singular, plural)): "file:line"} of every message the files use."""
    from babel.messages.extract import extract_from_file
    found = {}
    for path in paths:
        for lineno, message, _comments, context in extract_from_file(
                method, path, keywords=keywords, options=options):
            found.setdefault((context, message), f"{Path(path).name}:{lineno}")
    return found


def game_msgids() -> dict:
    """The msgids of the game's catalog: the explanations' pieces and the game's names."""
    found = _extract("python", GAME_SOURCES, PYTHON_KEYWORDS)
    for context, msgid in game_vocabulary():
        found.setdefault((context, msgid), "engine/constants.py")
    return found


class _I18nAttributes(HTMLParser):
    """The English text of every data-i18n / data-i18n-title attribute of an HTML file (the
    page translates those elements' text and tooltips)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in PAGE_ATTRIBUTES and value:
                self.found.append((self.getpos()[0], value))


def page_msgids(static_dir: Path | None = None) -> dict:
    """The msgids the page uses: every t("...") and tf("...", {...}) in web/static/**/*.js
    (calls inside `${...}` of template literals too), and every data-i18n and
    data-i18n-title attribute in web/static/**/*.html; with a page, PAGE_VARIABLE_MSGIDS too.
    A t(variable) cannot be seen: the game's names are in the game's catalog by their codes."""
    static_dir = Path(static_dir or STATIC_DIR)
    if not static_dir.is_dir():
        return {}
    found = {(None, msgid): "app.js (through a variable)" for msgid in PAGE_VARIABLE_MSGIDS}
    found |= {key: "web/api/games.py (/api/meta)" for key in server_vocabulary()}
    found |= _extract("javascript", sorted(static_dir.rglob("*.js")), PAGE_KEYWORDS,
                     {"parse_template_string": True})
    for path in sorted(static_dir.rglob("*.html")):
        parser = _I18nAttributes()
        parser.feed(path.read_text(encoding="utf-8"))
        for lineno, text in parser.found:
            found.setdefault((None, text), f"{path.name}:{lineno}")
    return found


def placeholders(text: str) -> set:
    """The {named} fields of a message (ValueError for a malformed one, e.g. a lone '{')."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def _entry_problems(where: str, message, lang: str, english=None) -> list:
    """The problems of one fr/zh entry: fuzzy, untranslated, other placeholders than its
    English (the msgid, or en's label for a code such as "step:move"), a form left in
    English (equal to the msgid or en's label, unless SAME_AS_ENGLISH allows it). (The
    number of plural forms is checked on the file itself: plural_form_counts.)"""
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    forms = message.string if isinstance(message.string, tuple) else (message.string,)
    english_texts = set(ids)
    if english is not None:
        english_texts |= {text for text in (english if isinstance(english, tuple) else (english,)) if text}
    label = english if isinstance(english, str) and english else None
    try:
        wanted = set().union(*(placeholders(i) for i in ((label,) if label else ids)))
    except ValueError as e:
        return [f"{where}: msgid {ids[0]!r} is not a valid format string ({e})"]
    out = []
    if message.fuzzy:
        out.append(f"{where}: {ids[0]!r} is marked fuzzy")
    allowed = (message.context, message.id) in SAME_AS_ENGLISH.get(lang, ())
    for form in forms:
        if not form:
            out.append(f"{where}: {ids[0]!r} is not translated")
            continue
        if form in english_texts and not allowed:
            out.append(f"{where}: {form!r} is English (the translation of {ids[0]!r} is its English text)")
        try:
            got = placeholders(form)
        except ValueError as e:
            out.append(f"{where}: {form!r} is not a valid format string ({e})")
            continue
        if got != wanted:
            out.append(f"{where}: {form!r} has placeholders {sorted(got)}, "
                       f"its msgid {(label or ids[0])!r} has {sorted(wanted)}")
    return out


def plural_form_counts(path: Path) -> dict:
    """{(context, singular msgid): msgstr[i] lines} of every plural entry of a .po file, as
    written (Babel pads a short entry with empty forms and drops extra ones when reading)."""
    import ast
    counts, context, msgid, plural = {}, None, None, False
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("msgctxt "):
            context = ast.literal_eval(line[8:])
        elif line.startswith("msgid "):
            msgid, plural = ast.literal_eval(line[6:]), False
        elif line.startswith("msgid_plural "):
            plural = True
            counts[(context, msgid)] = 0
        elif line.startswith("msgstr[") and plural:
            counts[(context, msgid)] += 1
        elif not line:
            context, msgid, plural = None, None, False
    return counts


def _form_count_problems(where: str, lang: str, locale_dir: Path) -> list:
    n = plural_rule(lang)[0]
    try:
        counts = plural_form_counts(catalog_path(lang, locale_dir))
    except (OSError, ValueError, SyntaxError):
        return []           # said by _read_entries
    return [f"{where}: {msgid!r} has {k} plural form(s), {lang} has {n}"
            for (_, msgid), k in counts.items() if k != n]


def _header_problems(where: str, lang: str, locale_dir: Path) -> list:
    """A catalog whose Plural-Forms header is not Babel's CLDR rule for its language."""
    try:
        catalog = read_catalog(catalog_path(lang, locale_dir))
    except ValueError:
        return []           # said by _read_entries
    n, expr = plural_rule(lang)
    if (catalog.num_plurals, catalog.plural_expr) != (n, expr):
        return [f"{where}: Plural-Forms says nplurals={catalog.num_plurals}; plural={catalog.plural_expr}, "
                f"Babel's rule for {lang} is nplurals={n}; plural={expr}"]
    return []


def _read_entries(name: str, locale_dir: Path, lang: str, problems: list) -> dict:
    """{(context, msgid): Message} of one catalog; an unreadable one is a problem, and empty."""
    try:
        catalog = read_catalog(catalog_path(lang, locale_dir))
    except ValueError as e:
        problems.append(f"{name} catalog, {lang}: {e}")
        return {}
    return {(m.context, m.id): m for m in catalog if m.id}


def check() -> list:
    """Every problem with the catalogs, one line each (none: all is well):
    - a msgid the game's code uses (play/explain.py, the game's names) missing from the game's
      catalog, or an entry there that the code no longer uses;
    - a t("...") of the page found in neither catalog (the page may use the game's names),
      or an entry of the page's catalog that the page no longer uses;
    - en, fr and zh of a catalog not holding the same msgids; a msgid in both catalogs;
    - an English label in en's catalog other than the one the code declares (english_labels,
      server_english_labels: the rule options' and the built-in players');
    - an fr or zh entry untranslated, fuzzy, or with other {placeholders} than its msgid
      (or than en's label of a code), or left in English (SAME_AS_ENGLISH excepted), or a
      plural entry with another number of forms than the language's CLDR rule (Babel), or a
      catalog whose Plural-Forms header is not that rule."""
    problems = []
    game_used, page_used = game_msgids(), page_msgids()
    for lang in LANGUAGES:
        game = _read_entries("game", GAME_LOCALE_DIR, lang, problems)
        page = _read_entries("page", PAGE_LOCALE_DIR, lang, problems)
        for key, place in game_used.items():
            if key not in game:
                problems.append(f"game catalog, {lang}: {key[1]!r} used at {place} is missing")
        known = {_key_of(*key) for key in list(game) + list(page)}
        for key, place in page_used.items():
            if _key_of(*key) not in known:
                problems.append(f"page catalogs, {lang}: {key[1]!r} used at {place} is missing")
        for key in game.keys() & page.keys():
            problems.append(f"{lang}: {key[1]!r} is in both the game's and the page's catalogs")
        for name, locale_dir in (("game", GAME_LOCALE_DIR), ("page", PAGE_LOCALE_DIR)):
            problems += _header_problems(f"{name} catalog, {lang}", lang, locale_dir)
            problems += _form_count_problems(f"{name} catalog, {lang}", lang, locale_dir)
        if lang == "en":
            for name, entries, declared in (("game", game, english_labels()),
                                            ("page", page, server_english_labels())):
                for key, label in declared.items():
                    if key in entries and entries[key].string != label:
                        problems.append(f"{name} catalog, en: the label of {_key_of(*key)!r} is "
                                        f"{entries[key].string!r}, the code declares {label!r} "
                                        "(python -m web.i18n update writes it)")
            english = (set(game), set(page))
            labels = {key: m.string for key, m in list(game.items()) + list(page.items())}
            problems += [f"game catalog: {key[1]!r} is not used by the code"
                         for key in game if key not in game_used]
            problems += [f"page catalog: {key[1]!r} is not used by the page"
                         for key in page if key not in page_used]
            continue
        for name, entries, en_keys in (("game", game, english[0]), ("page", page, english[1])):
            for key in sorted(entries.keys() ^ en_keys, key=str):
                problems.append(f"{name} catalog: {key[1]!r} is in only one of en and {lang}")
            for key, message in entries.items():
                problems += _entry_problems(f"{name} catalog, {lang}", message, lang, labels.get(key))
    return problems


def update() -> list:
    """Brings the catalogs in line with the code: adds every msgid the code uses and no
    catalog holds to en, fr and zh (untranslated, for a translator), the game's to the game's
    catalog and the page's to the page's, and removes the entries the code no longer uses;
    creates a missing catalog. Returns one line per change."""
    from babel.messages.catalog import Catalog
    changes = []
    game_used, page_used = game_msgids(), page_msgids()
    for lang in LANGUAGES:
        catalogs = {}
        for name, locale_dir in (("game", GAME_LOCALE_DIR), ("page", PAGE_LOCALE_DIR)):
            path = catalog_path(lang, locale_dir)
            catalogs[name] = (path, read_catalog(path) if path.exists() else
                              Catalog(locale=lang, domain=DOMAIN, project="palais-engine"))
        known = {_key_of(m.context, m.id) for _, c in catalogs.values() for m in c if m.id}
        for name, used in (("game", game_used), ("page", page_used)):
            path, catalog = catalogs[name]
            have = {(m.context, m.id) for m in catalog if m.id}
            missing = [key for key in used if (_key_of(*key) not in known if name == "page"
                                               else key not in have)]
            unused = [key for key in have if key not in used]
            for context, msgid in missing:
                catalog.add(msgid, "" if isinstance(msgid, str) else ("",) * catalog.num_plurals,
                            context=context)
                changes.append(f"added to the {name} catalog, {lang}: {msgid!r}")
            for context, msgid in unused:
                catalog.delete(msgid, context=context)
                changes.append(f"removed from the {name} catalog, {lang}: {msgid!r}")
            relabelled = _write_english_labels(catalog, name) if lang == "en" else []
            changes += relabelled
            if missing or unused or relabelled or not path.exists():
                write_catalog(path, catalog)
    return changes


def _write_english_labels(catalog, name: str) -> list:
    """en's `name` catalog given the English labels the code declares; one line per change."""
    declared = english_labels() if name == "game" else server_english_labels()
    changes = []
    for (context, msgid), label in declared.items():
        message = catalog.get(msgid, context=context)
        if message is not None and message.string != label:
            message.string = label
            changes.append(f"labelled in the {name} catalog, en: {_key_of(context, msgid)!r} -> {label!r}")
    return changes


def write_catalog(path: Path, catalog) -> None:
    """A catalog written as a .po file, without source locations (they would change with
    every edit of the code), whole or not at all."""
    import io
    from babel.messages.pofile import write_po
    from common.atomic_write import write_text_atomic
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, no_location=True, omit_header=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, buffer.getvalue().decode("utf-8"))


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["check"]:
        problems = check()
        for line in problems:
            print(line)
        print(f"{len(problems)} problem(s) in the catalogs" if problems else "catalogs ok")
        return 1 if problems else 0
    if args == ["update"]:
        for line in update():
            print(line)
        return 0
    print("usage: python -m web.i18n check|update", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
