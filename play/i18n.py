"""The game's words in English, French and Chinese: gettext catalogs read with Babel.

The rules reached us in French and Chinese, so the words said to players (the hint
explanations of play/explain.py, and the names of rooms, cards, privileges and stages) can
be said in those languages too. The code writes them in English, as gettext msgids;
`play/locale/<lang>/LC_MESSAGES/palais.po` holds their translations. The .po files are read
with Babel when a language is first asked for and turned into `gettext` translations in
memory: nothing compiled is committed, and English is the msgid itself (no catalog read), so
English output never depends on a catalog. The web page adds its own strings on top
(web/i18n.py).

Notation tokens (MINT-KING, c4, !GOLD) are never translated: only words for people are.
Room, card and privilege codes are msgids as they stand ("MINT" -> "Hôtel de la monnaie"),
so a name in a sentence reads as the rules' French or Chinese text names it.

    translations("fr").gettext("MINT")                       -> "Hôtel de la monnaie"
    translations("fr").pgettext(ROOM_IN_TEXT, "MINT")        -> "l'Hôtel de la monnaie"
    translations("zh").ngettext("draws {n} card", "draws {n} cards", 2)  -> "抽{n}张牌"
"""

from __future__ import annotations

import functools
import gettext
import io
from pathlib import Path

from engine.constants import CARDS, PRIVILEGES, P_NONE, ROOMS, STAGES
from engine.options import OPTION_HELP, OPTIONS as RULE_OPTIONS
from engine.scoring import SOURCES as SCORE_SOURCES

# The languages, declared once: each code with its name in itself (the page's language menus).
# English first: the msgids themselves. A new language is a line here and its translation
# files: play/locale/<code>/, web/locale/<code>/ (`python -m web.i18n update` makes them) and
# the How-to-play document web/static/howto/<code>.html.
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "zh": "中文"}
LANGUAGES = tuple(LANGUAGE_NAMES)
DOMAIN = "palais"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

# msgctxt of a room named inside a sentence, where French needs the room's article
# ("prend la majorité dans l'Hôtel de la monnaie"); the bare name labels the board.
ROOM_IN_TEXT = "room in a sentence"
# msgctxt of a stage name (the stage code MOVES is also a card's code).
STAGE = "stage"
# msgctxt of a rule option's label, by its name (engine/options.py); en's catalog gives the
# English label ("round_cap" -> "Round cap"), written there from the option's declared label
# (english_labels). Its help line is a msgid as it is written.
RULE_OPTION = "rule option"
# The page's words for the pieces, by code, each with its English label in en's catalog:
# msgctxt "room" / "card" / "privilege" (the name) and "room-help" / "card-help" /
# "privilege-help" (the effect, RULES.md's wording); the page's key is "room:MINT".
PIECE_KINDS = (("room", ROOMS), ("card", CARDS),
               ("privilege", tuple(name for p, name in enumerate(PRIVILEGES) if p != P_NONE)))
# msgctxt "step": the template of one step of a turn in words (web/static/words.js), by the
# kind of step: a setup placement, a source room, a move, ...
STEP_KINDS = ("place", "source", "move", "recruit", "play", "draw", "draw-hidden", "take",
              "decline", "continue", "end-moves", "end-recruit")
# msgctxt "score": the sources of VP in the final breakdown (engine/scoring.py).
SCORE = "score"


def game_vocabulary() -> list:
    """(msgctxt or None, msgid) of every game name a player reads: rooms (bare and in a
    sentence), cards, privileges (NONE is never shown), stages, the rule options' labels
    and help lines (`palais serve`'s new-game form), the pieces' names and effects by kind
    (PIECE_KINDS), the step templates (STEP_KINDS) and the score breakdown's sources. They are msgids by their codes (the
    help by its English line in engine/options.py), so no source file spells them out for
    extraction; this list does."""
    out = [(None, name) for name in ROOMS]
    out += [(ROOM_IN_TEXT, name) for name in ROOMS]
    out += [(None, name) for name in CARDS]
    out += [(None, name) for p, name in enumerate(PRIVILEGES) if p != P_NONE]
    out += [(STAGE, name) for name in STAGES]
    out += [(RULE_OPTION, name) for name in OPTION_HELP]
    out += [(None, line) for line in OPTION_HELP.values()]
    for kind, codes in PIECE_KINDS:
        out += [(kind, code) for code in codes] + [(f"{kind}-help", code) for code in codes]
    out += [("step", kind) for kind in STEP_KINDS]
    out += [(SCORE, source) for source in SCORE_SOURCES]
    return out


def english_labels() -> dict:
    """{(msgctxt, code): English label} of the game's words whose English is declared with
    them in the code rather than in en's catalog: the rule options' labels (engine/options.py).
    `python -m web.i18n update` writes them into en's catalog and `check` fails while one
    differs, so a label is written once, where its option is declared."""
    return {(RULE_OPTION, spec.name): spec.label for spec in RULE_OPTIONS}


def check_language(lang) -> str:
    """`lang` if it is one of LANGUAGES, else a ValueError naming it and the choices."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    return lang


def catalog_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return Path(locale_dir) / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(path: Path):
    """The Babel Catalog of one .po file; ValueError naming the file when it cannot be read."""
    from babel.messages.pofile import PoFileError, read_po
    try:
        with open(path, "rb") as f:
            return read_po(f, abort_invalid=True)
    except (OSError, PoFileError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read the catalog: {e}") from None


def compile_catalog(catalog) -> gettext.GNUTranslations:
    """A Babel Catalog as gettext translations (gettext, ngettext, pgettext, npgettext), built
    in memory. Untranslated (empty) and fuzzy entries are left out: they fall back to English."""
    from babel.messages.mofile import write_mo
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def translations(lang: str = "en") -> gettext.NullTranslations:
    """The game's words in `lang` (ValueError for a language not in LANGUAGES). English is
    gettext's NullTranslations: every msgid stands for itself."""
    return _translations(check_language(lang))


@functools.lru_cache(maxsize=None)
def _translations(lang: str) -> gettext.NullTranslations:
    if lang == "en":
        return gettext.NullTranslations()
    return compile_catalog(read_catalog(catalog_path(lang)))


@functools.lru_cache(maxsize=None)
def piece_labels() -> gettext.GNUTranslations:
    """en's catalog: the pieces' English names by kind (msgctxt "room", "card", "privilege",
    ROOM_IN_TEXT), as the board labels them: `piece_labels().pgettext("card", "HONOUR")` ->
    "Honour". English sentences are their msgids, but a piece's code is not an English word."""
    return compile_catalog(read_catalog(catalog_path("en")))
