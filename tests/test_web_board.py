"""The SVG board of `palais serve` in a real headless Chromium (issue 26): the others' turns
played out step by step (or not at all at "instant") and left highlighted, every room, card
and privilege explained in English, French and Chinese, nodes kept from one render to the
next, a phone's portrait screen with 40 px targets, and hints numbered 1, 2, 3... beside the
labels. Screenshots of each step go to the test's tmp_path (and, with PALAIS_WEB_DOCS_SHOTS
set to a folder, the docs' docs/web-board-*.png).
"""

from __future__ import annotations

import re

import pytest

from test_web_browser import docs_shot, game_against_random, new_game
from web_page import PageDriver, Policy, browser, chromium_missing_reason, served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(chromium_missing_reason() is not None,
                                                   reason=chromium_missing_reason() or "")]

SEAT_B_COLOUR = "#1f5f99"        # board/geometry.js SEAT_COLOURS[1]

# Counts the animation ghosts ever put on the board, from before the page's first script.
COUNT_GHOSTS = """
window.__ghosts = 0;
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.classList && node.classList.contains('anim-ghost')) window.__ghosts += 1;
  }
}).observe(document, { childList: true, subtree: true });
"""


def play(driver: PageDriver, policy: Policy, decisions: int, on_decision=None) -> None:
    """Plays the page's seat for `decisions` decisions (fewer if the game ends)."""
    for _ in range(decisions):
        if driver.wait_for_decision_or_end() != "decide":
            return
        view = driver.view()
        if on_decision:
            on_decision(view)
        driver.choose(policy.pick(view)["token"])


def test_an_engine_turn_plays_out_step_by_step_and_stays_highlighted(tmp_path):
    with game_against_random(tmp_path, 5, speed="slow") as (page, driver):
        policy = Policy(1)
        seen = False
        for _ in range(20):                   # until the engine plays after one of our clicks
            assert driver.wait_for_decision_or_end() == "decide"
            before = driver.renders()
            token = policy.pick(driver.view())["token"]
            if "-" in token:
                driver.click_and_wait(f'#board [data-from="{token.split("-")[0]}"]')
                before = driver.renders()
            page.click(f'#board [data-token="{token}"].target, #actions [data-token="{token}"]')
            # The engine's steps: a servant (or card) on its way, the board marked as animating.
            state = page.wait_for_function("""n => {
                const ghost = document.querySelector('#board.animating .anim-ghost');
                if (ghost) return { state: 'moving', transform: ghost.getAttribute('transform') };
                // (our turn again, no engine's turn in between: nothing was to be played out)
                const v = window.palaisPage.view();
                const ours = v && v.to_move === 1 && !v.thinking && !document.querySelector('#board.animating');
                return Number(document.body.dataset.renders) > n && document.body.dataset.busy !== '1' && ours
                    ? { state: 'drawn' } : null;
            }""", arg=before).json_value()
            if state["state"] == "moving":
                seen = True
                break
        assert seen
        assert state["transform"].startswith("translate(")    # on its way: moved frame by frame
        # (the picture once the ghost is well on its way, or gone)
        page.wait_for_function("""start => { const g = document.querySelector('#board .anim-ghost');
            if (!g) return true;
            const [x, y] = g.getAttribute('transform').match(/[-\\d.]+/g).map(Number);
            return Math.hypot(x - start[0], y - start[1]) > 60; }""",
                               arg=[float(v) for v in state["transform"][10:-1].split()])
        driver.shot("mid-animation")
        docs_shot(driver, "web-board-animation.png")
        # At the end: the board redrawn, the engine's turn outlined in its colour until the next.
        page.wait_for_function("!document.getElementById('board').classList.contains('animating') && "
                               "window.palaisPage.view().to_move === 1")
        page.wait_for_selector("#board .room.last .last-mark")
        view = driver.view()
        engine_turn = view["log"][-1]
        assert engine_turn["seat"] == 2
        rooms = {step[key] for step in engine_turn["steps"] for key in ("room", "from", "to") if step.get(key)}
        outlined = page.eval_on_selector_all("#board .room.last", "nodes => nodes.map(n => n.dataset.room)")
        assert rooms and set(outlined) == rooms
        stroke = page.eval_on_selector("#board .room.last .last-mark", "n => n.getAttribute('stroke')")
        assert stroke == SEAT_B_COLOUR
        assert page.get_attribute("#board", "data-last-seat") == "2"
        driver.shot("highlighted")
        assert page.eval_on_selector_all("#board .anim-ghost", "nodes => nodes.length") == 0
        assert not driver.errors, driver.errors


# The targets nothing covers: the point at the middle of each is the target's own (a hand of
# many cards once ran under the next seat's panel).
UNCOVERED = """() => [...document.querySelectorAll('#board .target')].filter(node => {
  node.scrollIntoView({ block: 'nearest' });
  const box = node.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return !(hit && node.contains(hit));
}).map(node => node.dataset.token || node.dataset.from)"""


def test_instant_plays_nothing_and_still_highlights(tmp_path):
    with served() as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        page.add_init_script(COUNT_GHOSTS)
        driver = PageDriver(page, tmp_path, speed="instant")
        page.goto(url)
        new_game(driver, ["human", "random"], seed=11)      # the deal of test_web_browser, whose hand once ran under the next panel
        cards = set()

        def uncovered(view):
            assert page.evaluate(UNCOVERED) == []
            cards.update(e["card"] for e in view["legal"] if e["kind"] == "play")

        play(driver, Policy(3), 400, on_decision=uncovered)
        assert cards                               # cards in hand were among the targets
        assert page.evaluate("window.__ghosts") == 0
        assert page.eval_on_selector_all("#board.animating", "nodes => nodes.length") == 0
        assert page.eval_on_selector_all("#board .last", "nodes => nodes.length") >= 1
        driver.shot("instant")
        assert not driver.errors, driver.errors


# name and effect in a <title>, as each language writes it ("{name}: {help}", "{name} : {help}",
# "{name}：{help}")
TIP_SEPARATOR = re.compile(r" ?[:：] ?")


def titles(page, selector: str) -> dict:
    return dict(page.eval_on_selector_all(
        selector, "nodes => nodes.map(n => [n.dataset.room || n.dataset.card || n.dataset.privilege, "
                  "(n.querySelector(':scope > title') || {}).textContent || ''])"))


def test_every_room_card_and_privilege_is_explained_in_three_languages(tmp_path):
    with game_against_random(tmp_path, 5) as (page, driver):
        pieces = page.evaluate("fetch('/api/meta').then(r => r.json()).then(m => m.pieces)")
        rooms = set(pieces["rooms"])
        cards = {card["id"] for card in pieces["cards"]}
        privileges = set(pieces["privileges"]) - {"NONE"}
        seen = {}
        for lang in ("en", "fr", "zh"):
            before = driver.renders()
            page.select_option("#language-select", lang)
            page.wait_for_function("lang => document.documentElement.lang === lang", arg=lang)
            if lang != "en":
                driver.wait_redrawn(before)
            got = {
                "room": titles(page, "#board .room[data-room]"),
                "card": titles(page, "#board .legend-chip[data-card]"),
                "privilege": titles(page, "#board .legend-chip[data-privilege]"),
            }
            assert set(got["room"]) == rooms and set(got["card"]) == cards and set(got["privilege"]) == privileges
            for kind, found in got.items():
                for code, title in found.items():
                    name, help_ = (TIP_SEPARATOR.split(title, maxsplit=1) + [""])[:2]
                    assert name and help_, (lang, kind, code, title)      # a name and an effect
                    assert code not in name, (lang, kind, code, title)    # words, not the code
            seen[lang] = got
            # The popup: hovering a piece shows its name and effect.
            page.hover('#board .room[data-room="MINT"] .room-name')
            page.wait_for_selector(".board-tip:not([hidden])")
            tip = page.inner_text(".board-tip")
            assert tip.split("\n")[0] == TIP_SEPARATOR.split(seen[lang]["room"]["MINT"], maxsplit=1)[0]
            driver.shot(f"tooltip-{lang}")
            if lang == "en":
                docs_shot(driver, "web-board-tooltip.png")
            page.mouse.move(1300, 700)
        for kind in ("room", "card", "privilege"):
            for code in seen["en"][kind]:
                assert seen["fr"][kind][code] != seen["en"][kind][code], (kind, code)
                assert seen["zh"][kind][code] != seen["en"][kind][code], (kind, code)
        # Nobles in words, not as #12: the park's tiles and the panels' chips.
        noble = page.eval_on_selector("#board .square[data-square] > title", "n => n.textContent")
        assert "#" not in noble and any(ch.isdigit() for ch in noble)
        assert not driver.errors, driver.errors


def test_the_board_keeps_its_nodes_from_one_render_to_the_next(tmp_path):
    with game_against_random(tmp_path, 5) as (page, driver):
        keep = """() => { window.__kept = ['#board .room[data-room="GATE"]', '#board .room[data-room="GATE"] .cell',
                   '#board .square[data-square="c3"]', '#board .panel[data-seat="1"]', '#board .stair']
                   .map(s => document.querySelector(s)); return window.__kept.every(Boolean); }"""
        assert page.evaluate(keep)
        play(driver, Policy(4), 6)
        same = page.evaluate("""() => ['#board .room[data-room="GATE"]', '#board .room[data-room="GATE"] .cell',
                   '#board .square[data-square="c3"]', '#board .panel[data-seat="1"]', '#board .stair']
                   .map((s, i) => document.querySelector(s) === window.__kept[i])""")
        assert same == [True] * 5
        assert driver.renders() > 6
        assert not driver.errors, driver.errors


PHONE_CHECK = """() => {
  const small = [];
  for (const node of document.querySelectorAll('#board .target')) {
    const box = node.getBoundingClientRect();
    if (box.width < 40 || box.height < 40) small.push([node.dataset.token || node.dataset.from, box.width, box.height]);
    if (node.getAttribute('role') !== 'button' || !node.getAttribute('aria-label')) small.push(['no label', node.outerHTML.slice(0, 80)]);
  }
  return { small, targets: document.querySelectorAll('#board .target').length,
           scroll: document.documentElement.scrollWidth, width: window.innerWidth };
}"""


def test_a_phone_in_portrait_gets_40px_targets_and_no_sideways_scroll(tmp_path):
    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    with game_against_random(tmp_path, 5, **phone) as (page, driver):
        assert page.get_attribute("#board", "data-layout") == "tall"
        checked = {"targets": 0, "kinds": set(), "sources": 0}

        def check(view):
            found = page.evaluate(PHONE_CHECK)
            assert not found["small"], found["small"]
            assert found["scroll"] <= found["width"], found
            checked["targets"] += found["targets"]
            checked["kinds"] |= {e["kind"] for e in view["legal"]}
            moves = [e for e in view["legal"] if e["kind"] == "move"]
            if moves and checked["sources"] < 3:           # a source picked: its destinations too
                checked["sources"] += 1
                driver.click_and_wait(f'#board [data-from="{moves[0]["from"]}"]')
                found = page.evaluate(PHONE_CHECK)
                assert not found["small"], found["small"]
                if checked["sources"] == 1:
                    driver.shot("phone-move")
                driver.click_and_wait(f'#board [data-from="{moves[0]["from"]}"]')

        play(driver, Policy(6), 40, on_decision=check)
        assert checked["targets"] > 40 and {"room", "move"} <= checked["kinds"], checked
        page.evaluate("window.scrollTo(0, 0)")
        driver.shot("phone")
        docs_shot(driver, "web-board-phone.png")
        # A long press on a touch screen explains the piece (no hover there).
        box = page.locator('#board .room[data-room="KING"]').bounding_box()
        at = {"pointerType": "touch", "isPrimary": True, "bubbles": True,
              "clientX": box["x"] + 20, "clientY": box["y"] + 30}
        page.dispatch_event('#board .room[data-room="KING"] .cell', "pointerdown", at)
        page.wait_for_selector(".board-tip:not([hidden])")
        page.dispatch_event('#board .room[data-room="KING"] .cell', "pointerup", at)
        assert page.inner_text(".board-tip").split("\n")[0] == "King's Chamber"
        driver.shot("long-press")
        assert not driver.errors, driver.errors


BADGES = """() => {
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const labels = [...document.querySelectorAll('#board .room-name, #board .square-name, #board .vp, #board .privilege, '
                  + '#board .card-text, #board .legend-chip-text, #board .count')].map(n => n.getBoundingClientRect());
  const badges = [...document.querySelectorAll('#board .hint-badge-group')];
  return { order: badges.map(b => Number(b.dataset.order)),
           over: badges.filter(b => labels.some(l => overlaps(l, b.querySelector('circle').getBoundingClientRect()))).length };
}"""


def test_hint_badges_are_numbered_1_2_3_and_sit_beside_the_labels(tmp_path):
    with game_against_random(tmp_path, 5, budget_ms=300) as (page, driver):
        shown = {"hints": 0}

        def ask(view):
            if shown["hints"] or view["stage"] != "MOVES" or view["round"] < 2:
                return
            page.click("#hint-button")
            page.wait_for_selector("#hint-list li.hint")
            lines = page.evaluate("window.palaisPage.hints ? window.palaisPage.hints() : null")
            for k in range(page.locator("#hint-list li.hint").count()):
                page.hover(f"#hint-list li.hint >> nth={k}")
                found = page.evaluate(BADGES)
                assert found["order"] == list(range(1, len(found["order"]) + 1)), found
                assert found["over"] == 0, found
                if lines:
                    placed = [s for s in lines[k]["steps"] if s["kind"] in ("room", "move", "recruit", "play")]
                    assert len(found["order"]) == len(placed)
                shown["hints"] += 1
                driver.shot(f"hint-{k + 1}")
            page.mouse.move(1300, 700)

        play(driver, Policy(8), 80, on_decision=ask)
        assert shown["hints"] >= 1
        assert not driver.errors, driver.errors
