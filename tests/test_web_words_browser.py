"""Issue 39 items 4: the page's words follow the player's language and the moment, in
Chromium. A hint shown and the turn log redraw in the language chosen after them; the log
says each turn in one line of what it changed, its steps one click (or Enter) away."""

from __future__ import annotations

import re

import pytest

from test_web_panels import docs_shot, needs_browser, opened, play_until, start_game
from web_page import Policy

CODES = re.compile(r"\b(HONOUR|LETTER|MADAMESEAL|KINGSEAL|TURQUOISE|INTRIGUE|FOOTMAN|GUARDS|"
                   r"MINT|STAIRS|PARADE|BACKDOOR|CARDINAL|OFFICE)\b")


@pytest.mark.slow
@needs_browser
def test_a_hint_and_the_log_redraw_in_the_language_chosen_after_them(tmp_path):
    with opened(tmp_path) as (url, page, driver):
        start_game(driver, ["human", "random"])
        play_until(driver, Policy(3), lambda v: v["round"] >= 3 and v["stage"] == "MOVES" and v["legal"])
        # the log: one line per turn of what changed; a turn of several steps hides them
        grouped = page.locator("#log li:has(.steps-toggle)")
        assert grouped.count() >= 3
        first = grouped.nth(grouped.count() - 2)             # a whole turn of round 2
        line = first.locator(".turn-summary").inner_text()
        assert line and not CODES.search(line)
        assert first.locator(".turn-steps").is_hidden()
        toggle = first.locator(".steps-toggle")
        assert toggle.get_attribute("aria-expanded") == "false"
        toggle.focus()
        page.keyboard.press("Enter")                        # the keyboard opens the steps
        assert first.locator(".turn-steps").is_visible()
        assert toggle.get_attribute("aria-expanded") == "true"
        assert first.locator(".turn-steps .step").count() >= 2
        assert page.is_hidden("#review-back")               # the steps, not the position after
        docs_shot(driver, "web-log-grouped.png")
        # a hint, in English names
        page.click("#hint-button")
        page.wait_for_selector("#hint-list li.hint .explanation")
        english = page.locator("#hint-list li.hint .explanation").first.inner_text()
        assert english and not CODES.search(english)
        summaries_en = page.locator("#log .turn-summary").all_inner_texts()
        # the language switch: the hint shown and the log's lines follow, no new search
        page.select_option("#language-select", "fr")
        page.wait_for_function("document.getElementById('new-game-button').textContent === 'Nouvelle partie'")
        french = page.locator("#hint-list li.hint .explanation").first.inner_text()
        assert french != english and not CODES.search(french)
        summaries_fr = page.locator("#log .turn-summary").all_inner_texts()
        assert len(summaries_fr) == len(summaries_en) and summaries_fr != summaries_en
        assert any(re.search(r"serviteur|joue|pioche|or\b", s) for s in summaries_fr), summaries_fr
        page.select_option("#language-select", "zh")
        page.wait_for_function("document.getElementById('new-game-button').textContent !== 'Nouvelle partie'")
        chinese = page.locator("#hint-list li.hint .explanation").first.inner_text()
        assert re.search(r"[\u4e00-\u9fff]", chinese) and not CODES.search(chinese)
        assert not driver.errors, driver.errors
