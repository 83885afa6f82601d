"""The How-to-play page as the server serves it (GET /how-to-play, its document in each
language, the demo View its pictures are drawn from) and what the board's legend links to.

The three documents (web/static/howto/{en,fr,zh}.html) must keep the same sections under the
same ids, in the same order, with the same pictures and lists: the legend links to those ids
in every language, and a reader switching language stays at the same place. Every name they
take from the catalogs (data-word) must be there, and every section the legend links to must
exist. The browser side (pictures drawn, legend notes, links followed) is in
tests/test_web_howto_browser.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from web import i18n
from web.app import create_app
from web.config import ServerConfig

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
BASE = "http://127.0.0.1:8000"


class Outline(HTMLParser):
    """What a How-to-play document is made of: its sections' ids (with their h2 counts), its
    pictures and lists in order, the catalog names it uses and its in-page links."""

    def __init__(self):
        super().__init__()
        self.sections, self.headings, self.pictures, self.lists, self.words, self.links = [], [], [], [], set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs.get("id"))
            self.headings.append(0)
        if tag == "h2":
            self.headings[-1] += 1
        if "data-picture" in attrs:
            self.pictures.append(attrs["data-picture"])
        if "data-list" in attrs:
            self.lists.append(attrs["data-list"])
        if "data-word" in attrs:
            self.words.add(attrs["data-word"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.links.append(attrs["href"][1:])


def outline(text: str) -> Outline:
    parsed = Outline()
    parsed.feed(text)
    return parsed


def legend_sections() -> set:
    """The sections views/legend.js links pieces to (its TOPICS' `section: "..."`)."""
    text = (STATIC / "views" / "legend.js").read_text(encoding="utf-8")
    found = set(re.findall(r'section: "([a-z-]+)"', text))
    assert len(found) >= 6, "legend.js's TOPICS are not written as this test reads them"
    return found


def picture_names() -> set:
    """The pictures views/pictures.js can draw (the keys of its KINDS)."""
    text = (STATIC / "views" / "pictures.js").read_text(encoding="utf-8")
    block = text[text.index("const KINDS = {"):text.index("\n};", text.index("const KINDS = {"))]
    return set(re.findall(r"^  (\w+): \{", block, re.M))


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(ServerConfig()), base_url=BASE) as c:
        yield c


@pytest.fixture(scope="module")
def documents(client) -> dict:
    out = {}
    for lang in i18n.LANGUAGES:
        answer = client.get(f"/static/howto/{lang}.html")
        assert answer.status_code == 200, lang
        out[lang] = outline(answer.text)
    return out


def test_the_page_is_served_at_its_address(client):
    answer = client.get("/how-to-play")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/views/howto.js">' in answer.text
    assert 'id="how-to-play-link"' in client.get("/").text      # the game page's rules link
    assert client.get("/static/howto/de.html").status_code == 404


def test_every_language_has_the_same_sections_pictures_and_lists(documents):
    english = documents["en"]
    assert english.sections == ["goal", "board", "turn", "rooms", "servants", "park", "privileges",
                                "cards", "majorities", "scoring"]
    assert english.headings == [1] * len(english.sections)
    assert set(english.pictures) <= picture_names()
    assert sorted(english.lists) == ["card", "privilege", "room"]
    for lang, document in documents.items():
        assert document.sections == english.sections, lang
        assert document.headings == english.headings, lang
        assert document.pictures == english.pictures, lang
        assert document.lists == english.lists, lang
        assert set(document.links) <= set(document.sections), lang


def test_the_names_the_documents_use_are_in_the_catalogs(documents):
    for lang, document in documents.items():
        known = i18n.messages(lang)
        assert document.words, lang
        missing = {key for key in document.words if key not in known}
        assert not missing, (lang, missing)


def test_every_section_the_legend_links_to_exists(documents):
    for lang, document in documents.items():
        assert legend_sections() <= set(document.sections), lang


def test_the_demo_view_holds_what_the_pictures_show(client):
    view = client.get("/api/how-to-play/view").json()
    assert view["seat"] == 1 and view["legal"] == [] and view["players"][0]["hand"] is not None
    assert any(seat > 0 for seat in view["majorities"].values())
    tiles = [place["tile"] for place in view["park"] if place["tile"]]
    assert any(tile["privilege"] != "NONE" for tile in tiles)
    assert any(tile["privilege"] == "NONE" and tile["turquoise"] + tile["violet"] > 0 for tile in tiles)
    assert any(place["servant"] for place in view["park"])
    assert any(player["nobles"] for player in view["players"])
