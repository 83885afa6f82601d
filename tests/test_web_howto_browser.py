"""The board's legend and the How-to-play page in a real headless Chromium: a note opened
from a piece of a game's board (a click on a piece that is not a target, the "?" legend mode
on a target, by click or Enter, which then plays nothing, a right-click), its link followed to its section of
the How-to-play page, and both pages switched to another language.

Set PALAIS_WEB_DOCS_SHOTS to a folder to also write docs/web-legend.png,
docs/web-how-to-play.png and docs/web-how-to-play-zh.png there.
"""

from __future__ import annotations

import pytest

from test_web_browser import docs_shot, new_game
from web_page import SEED, PageDriver, browser, chromium_missing_reason, served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(chromium_missing_reason() is not None,
                                                   reason=chromium_missing_reason() or "")]

SECTIONS = "[...document.querySelectorAll('#howto section[id]')].map(s => s.id)"


def note(page) -> dict:
    """The legend's note as shown: its section, words and link."""
    return page.evaluate("""() => {
        const note = document.getElementById('legend-note');
        if (!note || note.hidden) return null;
        const link = document.getElementById('legend-link');
        return {section: note.dataset.section, text: note.innerText, link: link.textContent,
                href: link.getAttribute('href')};
    }""")


def test_the_legend_opens_from_a_piece_and_links_to_its_how_to_play_section(tmp_path):
    with served() as url, browser() as chromium:
        context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
        page = context.new_page()
        driver = PageDriver(page)
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        new_game(driver, ["human", "random"], seed=SEED)
        assert driver.wait_for_decision_or_end() == "decide"
        assert page.get_attribute("#how-to-play-link", "href") == "/how-to-play?lang=en"

        # A piece that is not a target (a noble of the park during setup): its note.
        page.click('#board .square[data-square="c4"] .vp')
        shown = note(page)
        assert shown["section"] == "scoring" and "victory points" in shown["text"]
        assert shown["href"] == "/how-to-play?lang=en#scoring"

        # The "?" mode: a click on a target opens its note and plays nothing.
        ply = driver.view()["ply"]
        room = driver.targets()[0]
        page.click("#legend-button")
        page.click(f'#board .target[data-token="{room}"] .cell')
        shown = note(page)
        assert shown["section"] == "rooms"
        assert driver.view()["ply"] == ply and room in driver.targets()
        # ... and from the keyboard: Enter on the target opens it, its link takes the focus,
        # Escape closes it and gives the focus back
        page.focus(f'#board .target[data-token="{room}"]')
        page.keyboard.press("Enter")
        assert note(page)["section"] == "rooms"
        assert page.evaluate("document.activeElement.id") == "legend-link"
        page.keyboard.press("Escape")
        assert note(page) is None
        assert page.evaluate("document.activeElement.dataset.token") == room
        assert driver.view()["ply"] == ply
        page.click("#legend-button")
        assert note(page) is None

        # A right-click on a stairway; then the note follows the page's language.
        page.click("#board .stair", button="right")
        assert note(page)["section"] == "servants"
        page.select_option("#language-select", "fr")
        page.wait_for_function("document.getElementById('legend-link').textContent.includes('Comment jouer')")
        shown = note(page)
        assert shown["section"] == "servants" and shown["href"] == "/how-to-play?lang=fr#servants"
        assert page.get_attribute("#how-to-play-link", "href") == "/how-to-play?lang=fr"
        page.select_option("#language-select", "en")
        page.wait_for_function("document.getElementById('legend-link').textContent.includes('How to play')")
        docs_shot(driver, "web-legend.png")

        # The link opens the How-to-play page at that section.
        with context.expect_page() as opened:
            page.click("#legend-link")
        howto = opened.value
        howto_driver = PageDriver(howto)
        howto.wait_for_selector("body[data-ready='1']")
        assert howto.url.endswith("/how-to-play?lang=en#servants")
        english = howto.evaluate(SECTIONS)
        assert {"goal", "turn", "rooms", "servants", "park", "cards", "majorities", "scoring"} <= set(english)
        top = howto.evaluate("document.getElementById('servants').getBoundingClientRect().top")
        assert 0 <= top < 200, top                       # scrolled to its section
        # every picture is drawn by the board: a board SVG cropped to one of its parts
        pictures = howto.evaluate("[...document.querySelectorAll('#howto figure svg.board')].map(s => s.dataset.picture)")
        assert len(pictures) == howto.evaluate("document.querySelectorAll('#howto figure[data-picture]').length") >= 8
        assert howto.evaluate("document.querySelectorAll('#howto .howto-list[data-list=room] dt').length") == 9
        assert howto.locator("#howto [data-word='room:MINT']").first.text_content() == "Mint"
        howto.goto(f"{url}/how-to-play?lang=en#goal")
        howto.wait_for_selector("body[data-ready='1']")
        docs_shot(howto_driver, "web-how-to-play.png")

        # ... and in Chinese: the same sections, the game's own words.
        howto.select_option("#howto-language", "zh")
        howto.wait_for_selector("body[data-lang='zh']")
        assert howto.evaluate(SECTIONS) == english
        assert howto.locator("#howto [data-word='room:MINT']").first.text_content() == "铸币房"
        assert "玩法说明" in howto.text_content("header h1")
        assert "lang=zh" in howto.url
        howto.evaluate("window.scrollTo(0, 0)")
        docs_shot(howto_driver, "web-how-to-play-zh.png")
        assert driver.errors == [] and howto_driver.errors == []
        context.close()
