"""The guided first game (web/static/views/guide.js) in a real headless Chromium: started from
the New game dialog on a first visit, played to its end against the Beginner level by
following the guide's hint at every decision, with the guide left mid-game and shown again.
The guide's hints search GUIDE_HINT_ITERATIONS (200) iterations each, as on the page.

Set PALAIS_WEB_DOCS_SHOTS to a folder to also write docs/web-guided-game.png and
docs/web-guided-game-fr.png there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_web_browser import docs_shot
from web_page import PageDriver, browser, chromium_missing_reason, served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(chromium_missing_reason() is not None,
                                                   reason=chromium_missing_reason() or "")]

GUIDE_HINT_ITERATIONS = 200          # views/guide.js's budget for each of the guide's hints
FIRST_GAME_LAYOUT = ["BACKDOOR", "OFFICE", "CARDINAL", "MINT", "GATE", "MADAME", "STAIRS", "KING", "PARADE"]
HOWTO_SECTIONS = {"goal", "board", "turn", "rooms", "servants", "park", "privileges", "cards", "majorities", "scoring"}
LEFT_FOR = 6                         # decisions played with the guide hidden

# The guide's group of choices for each kind of legal decision (a room: placed at setup,
# else the source of a servant).
GROUP_OF_KIND = {"gate": "gate", "move": "move", "recruit": "recruit", "play": "play", "take": "take",
                 "decline": "decline", "continue": "continue", "end": "end"}


def guide_iterations_in_the_page() -> int:
    source = (Path(__file__).parent.parent / "web/static/views/guide.js").read_text()
    return int(re.search(r"GUIDE_HINT_ITERATIONS = (\d+);", source).group(1))


def expected_groups(view: dict) -> set:
    return {("place" if view["stage"] == "SETUP" else "source") if e["kind"] == "room" else GROUP_OF_KIND[e["kind"]]
            for e in view["legal"]}


def wait_for_the_guides_hint(driver: PageDriver, view: dict) -> str:
    """Until the guide shows its hint for the decision of `view`; its token."""
    return driver.page.wait_for_function(
        "v => { const g = document.getElementById('guide'); return g.dataset.version === String(v) && g.dataset.hint; }",
        arg=view["version"]).json_value()


# What the guide shows of a decision, read in one go (a test of some 200 decisions).
GUIDE_SHOWS = """t => {
  const all = (selector) => [...document.querySelectorAll(selector)];
  const text = (selector) => (document.querySelector(selector) || {}).textContent || "";
  return {
    groups: all('#guide .guide-group').map((n) => n.dataset.kind),
    sections: all('#guide a.guide-more').map((n) => n.dataset.section),
    stage: text('#guide h3'),
    explanation: text('#guide .guide-hint .explanation'),
    marked: all('#board .hint-layer .hint-badge').length
      + all('#actions button.guide-hinted').filter((n) => n.dataset.token === t).length,
    explained: Number(document.getElementById('guide').dataset.explained),
  };
}"""


def check_the_explanation(driver: PageDriver, view: dict, token: str) -> int:
    """The guide's explanation of the decision of `view` whose hint is `token`; returns the
    guide's count of decisions explained."""
    assert token in {e["token"] for e in view["legal"]}
    shows = driver.page.evaluate(GUIDE_SHOWS, token)
    assert set(shows["groups"]) == expected_groups(view), (view["stage"], shows["groups"])
    assert shows["sections"] and set(shows["sections"]) <= HOWTO_SECTIONS
    assert shows["stage"].strip() and shows["explanation"].strip()
    assert shows["marked"] >= 1, token          # a badge on the board, or the button outlined
    return shows["explained"]


def explained(driver: PageDriver) -> int:
    return int(driver.page.get_attribute("#guide", "data-explained") or 0)


def test_a_guided_first_game_against_beginner_to_its_end(tmp_path):
    assert guide_iterations_in_the_page() == GUIDE_HINT_ITERATIONS
    with served() as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        driver = PageDriver(page, tmp_path)
        page.goto(url)
        page.wait_for_selector("#new-game-dialog[open]")
        assert page.is_visible("#guided-intro")                 # a first visit: the guided game is offered first
        before = driver.renders()
        page.click("#guided-start")
        driver.wait_redrawn(before)
        view = driver.view()
        assert view["kinds"] == ["human", "greedy"] and view["seat"] == 1
        assert view["layout"] == FIRST_GAME_LAYOUT
        assert page.evaluate("window.palaisPage.view().seat_labels[1]") == {"key": "level:beginner", "level": True}

        guided = left = 0
        kinds = set()
        shot = {"en": False}
        for _ in range(2000):
            if driver.wait_for_decision_or_end() == "over":
                break
            view = driver.view()
            if page.is_visible("#guide"):
                token = wait_for_the_guides_hint(driver, view)
                guided += 1
                assert check_the_explanation(driver, view, token) == guided
                kinds.add(view["stage"])
                if not shot["en"] and view["stage"] == "MOVES" and view["round"] >= 2:
                    shot["en"] = True
                    driver.shot("guide-en")
                    docs_shot(driver, "web-guided-game.png")
                    check_the_guide_in_french(driver, view)
                if guided == 40:                                 # leave the guide mid-game
                    page.click("#guide-leave")
                    assert page.is_hidden("#guide") and page.is_visible("#guide-show")
                    assert page.eval_on_selector_all(".hint-layer .hint-badge", "n => n.length") == 0
                    continue
            else:
                left += 1
                driver.choose(view["legal"][0]["token"])             # the first legal target, unguided
                assert explained(driver) == guided
                if left == LEFT_FOR:                                 # and the guide back on
                    page.click("#guide-show")
                    assert page.is_visible("#guide") and page.is_hidden("#guide-show")
                continue
            driver.choose(token)
        else:
            raise AssertionError("the guided game did not end")

        final = driver.view()
        assert final["over"]
        assert left == LEFT_FOR and guided > 60, (guided, left)
        assert explained(driver) == guided                       # every decision made with the guide on was explained
        assert {"SETUP", "MOVES", "RECRUIT", "STEP1"} <= kinds, kinds
        assert "over" in page.inner_text("#guide-body")
        assert not driver.errors, driver.errors


def check_the_guide_in_french(driver: PageDriver, view: dict) -> None:
    """The guide speaks the page's language: its words and the hint's explanation in French;
    then back to English."""
    page = driver.page
    english = page.inner_text("#guide .guide-hint .explanation")
    page.select_option("#language-select", "fr")
    page.wait_for_function("() => document.querySelector('#guide h2').textContent === 'Guide'"
                           " && document.querySelector('#guide-leave').textContent === 'Quitter le guide'")
    wait_for_the_guides_hint(driver, view)
    page.wait_for_function("e => document.querySelector('#guide .guide-hint .explanation').textContent !== e", arg=english)
    assert "Vos choix maintenant" in page.inner_text("#guide")
    docs_shot(driver, "web-guided-game-fr.png")
    page.select_option("#language-select", "en")
    page.wait_for_function("() => document.querySelector('#guide-leave').textContent === 'Leave the guide'")
    wait_for_the_guides_hint(driver, view)
