"""The page for a screen reader and a keyboard (lichess's blind mode is the model), and the
board's drawing (chessground's): in a real headless Chromium against the real server,
a decision is found in the accessibility tree by its name and played with Tab and Enter
alone, each turn's steps are said once through the live region, several store updates in
one task draw once, and a board taken down (destroy) leaves no node and hears no event.
"""

from __future__ import annotations

import re

import pytest

from test_web_browser import game_against_random, new_game
from web_page import PageDriver, Policy, browser, chromium_missing_reason, served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(chromium_missing_reason() is not None,
                                                   reason=chromium_missing_reason() or "")]

# Every announcement the live region makes (each time its text is set), with the ply it
# was made at: installed before the game starts.
RECORD_ANNOUNCEMENTS = """() => {
    const region = document.getElementById('announce');
    window.__announced = [];
    new MutationObserver((records) => {
        for (const record of records) {
            if (record.type === 'childList') window.__announced.push({ text: region.textContent, ply: region.dataset.ply });
        }
    }).observe(region, { childList: true, subtree: true, characterData: true });
}"""


def tab_to(page, name: str, limit: int = 300) -> None:
    """Presses Tab until the focused element's accessible name is `name`."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => { const a = document.activeElement; return a && (a.getAttribute('aria-label') || a.textContent.trim()); }")
        if focused == name:
            return
    raise AssertionError(f"Tab never reached {name!r}")


def wait_for_my_decision(driver: PageDriver) -> dict:
    assert driver.wait_for_decision_or_end() == "decide"
    return driver.view()


def test_a_turn_played_by_its_accessible_name_with_the_keyboard_is_announced_once(tmp_path):
    with served() as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        driver = PageDriver(page, tmp_path)
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        page.evaluate(RECORD_ANNOUNCEMENTS)
        new_game(driver, ["human", "random"], seed=11)
        view = wait_for_my_decision(driver)
        assert view["stage"] == "SETUP"
        assert page.evaluate("window.__announced.length") == 0        # the game's start is not read out

        # Every decision of the board and the buttons is named by what it does, in words.
        tree = page.locator("main").aria_snapshot()
        buttons = re.findall(r'- button(?: "([^"]*)")?', tree)
        assert buttons and all(buttons), tree                         # no button without a name
        places = [name for name in buttons if name.startswith("Place a servant in ")]
        legal_rooms = {entry["room"] for entry in view["legal"] if entry["kind"] == "room"}
        assert len(places) == len(legal_rooms)
        assert not any(room in name for name in places for room in legal_rooms)   # names, not codes

        # Played with the keyboard alone: Tab to a decision found by its name, Enter, until
        # the engine has played its turn after this seat's.
        names = []
        for _ in range(12):
            tree = page.locator("main").aria_snapshot()
            name = next(n for n in re.findall(r'- button "([^"]*)"', tree) if n.startswith("Place a servant in "))
            tab_to(page, name)
            page.keyboard.press("Enter")
            page.wait_for_function("n => window.palaisPage.view().ply > n", arg=view["ply"])
            names.append(name)
            view = wait_for_my_decision(driver)
            # the focus stays on the board, on a decision, so Tab and Enter go on from there
            assert page.evaluate("document.activeElement.closest('#board, #actions') !== null "
                                 "&& document.activeElement.matches('.target, button')")
            if any(entry["seat"] == 2 for entry in view["log"]):
                break
        mine = [step for entry in view["log"] if entry["seat"] == 1 for step in entry["steps"]]
        assert len(mine) == len(names)

        # Each step said once, as it came: the page's own steps and the engine's turn.
        page.wait_for_function("() => document.getElementById('announce').dataset.ply == String(window.palaisPage.view().ply)")
        announced = page.evaluate("window.__announced")
        plies = [int(a["ply"]) for a in announced]
        assert plies == sorted(set(plies)), announced                    # nothing said twice
        said = " ".join(a["text"] for a in announced)
        assert said.count("Places a servant in") == view["ply"], announced   # every step once
        for name in names:
            assert name.replace("Place a servant in ", "") in said
        assert "(A): " in said and "(B): " in said

        # A redraw of the same position says nothing again.
        before = driver.renders()
        page.evaluate("async () => { const store = await import('/static/store.js'); store.update({}); }")
        driver.wait_redrawn(before)
        assert page.evaluate("window.__announced.length") == len(announced)
        assert not driver.errors


NAME_OF = """sel => { const n = document.querySelector(sel); return n && (n.getAttribute('aria-label') || n.textContent.trim()); }"""


def press(driver: PageDriver, name: str) -> None:
    """Tab to the decision named `name`, Enter, and wait for the page to draw again."""
    before = driver.renders()
    tab_to(driver.page, name)
    driver.page.keyboard.press("Enter")
    driver.wait_redrawn(before)


def test_turns_of_every_kind_played_with_tab_and_enter_only(tmp_path):
    """Setup, the gate, moves (a source, then its destination), bonuses, recruitments,
    cards: each decision reached by Tab from where the focus was left, by its name alone."""
    with game_against_random(tmp_path, 11) as (page, driver):
        policy = Policy(3)
        kinds = set()
        for _ in range(150):
            view = wait_for_my_decision(driver)
            if view["round"] >= 3:
                break
            entry = policy.pick(view)
            kinds.add(entry["kind"])
            token = entry["token"]
            if entry["kind"] == "move":
                source = page.evaluate(NAME_OF, f'#board [data-from="{entry["from"]}"]')
                assert source and entry["from"] not in source            # a name, not a code
                press(driver, source)
            name = page.evaluate(NAME_OF, f'#board .target[data-token="{token}"], #actions [data-token="{token}"]')
            # (a square of the park is named by its place, c3, as the board writes it)
            assert name and (entry["kind"] == "recruit" or token not in name.split()), (token, name)
            press(driver, name)
            assert page.evaluate("window.palaisPage.view().ply") > view["ply"]
        assert {"room", "move", "end", "recruit"} <= kinds, kinds
        assert not driver.errors


def test_several_updates_in_one_task_draw_once(tmp_path):
    with game_against_random(tmp_path, 3) as (page, driver):
        wait_for_my_decision(driver)
        counts = page.evaluate("""async () => {
            const store = await import('/static/store.js');
            const renders = () => Number(document.body.dataset.renders);
            const before = renders();
            store.update({});
            store.update({ selectedFrom: null });
            store.update({}, 'info');
            const during = renders();                       // nothing drawn within the task
            await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
            return { before, during, after: renders() };
        }""")
        assert counts["during"] == counts["before"]
        assert counts["after"] == counts["before"] + 1
        assert not driver.errors


def test_a_board_destroyed_leaves_no_node_and_hears_no_event(tmp_path):
    with game_against_random(tmp_path, 5) as (page, driver):
        wait_for_my_decision(driver)
        result = page.evaluate("""async () => {
            const { createBoard } = await import('/static/board.js');
            const { state } = await import('/static/store.js');
            const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
            svg.id = 'spare-board';
            document.body.appendChild(svg);
            const tips = () => document.querySelectorAll('.board-tip').length;
            const tipsBefore = tips();
            let chosen = 0;
            const board = createBoard(svg, { onChoose: () => { chosen += 1; }, onSelect: () => {}, meta: () => state.meta });
            board.render(window.palaisPage.view(), { interactive: true });
            const target = svg.querySelector('.target');
            const drawn = { nodes: svg.querySelectorAll('*').length, tips: tips() };
            target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
            const chosenAlive = chosen;
            board.destroy();
            const left = { nodes: svg.childNodes.length, tips: tips() - tipsBefore, attrs: svg.getAttributeNames() };
            svg.appendChild(target);                              // a former target, clicked and keyed
            target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
            target.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
            board.render(window.palaisPage.view(), { interactive: true });
            await board.playTurn(null, window.palaisPage.view(), [], 'fast');
            const redrawn = svg.childNodes.length;
            svg.remove();
            return { drawn, chosenAlive, left, chosenDead: chosen - chosenAlive, redrawn, tipsBefore };
        }""")
        assert result["drawn"]["nodes"] > 100 and result["drawn"]["tips"] == result["tipsBefore"] + 1
        assert result["chosenAlive"] == 1                                 # alive, a click plays
        assert result["left"] == {"nodes": 0, "tips": 0, "attrs": ["id"]}
        assert result["chosenDead"] == 0                                  # destroyed, nothing reaches it
        assert result["redrawn"] == 1                                     # (only the target put back)
        assert not driver.errors
