"""The page's layout in a real headless Chromium (issue 39): on a phone, in portrait (390x844)
and in landscape (844x390), the board, the prompt and its buttons are on one screen with
44 px targets, the seats' panels and the turns folded behind a tap; and at every size, from
the phones to 1920 px, in English, French and Chinese, no label of the board (or button of
the header) is drawn over another, on the most crowded position kept in tests/data
(crowded-4p.rec: four seats with ten servants and more in one room). Screenshots go to the
test's tmp_path (and, with PALAIS_WEB_DOCS_SHOTS set, docs/web-phone-*.png).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.constants import ROOMS
from test_web_board import play
from test_web_browser import docs_shot, new_game
from web_page import PageDriver, Policy, browser, chromium_missing_reason, served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(chromium_missing_reason() is not None,
                                                   reason=chromium_missing_reason() or "")]

CROWDED = Path(__file__).parent / "data" / "crowded-4p.rec"
FINGER_PX = 44            # the least a target a finger taps may measure each way

# Where the board, the prompt and the decision's buttons are (client pixels), and whether
# the page has scrolled.
ON_SCREEN = """() => {
  const box = (node) => { const r = node.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, w: r.width, h: r.height }; };
  const shown = (node) => node.getClientRects().length > 0;
  return {
    board: box(document.getElementById('board')),
    status: box(document.getElementById('status')),
    buttons: [...document.querySelectorAll('#actions button')].filter(shown).map(b => ({ text: b.textContent, ...box(b) })),
    targets: [...document.querySelectorAll('#board .target')].map(n => ({ key: n.dataset.token || n.dataset.from, ...box(n) })),
    scrollY: window.scrollY, width: window.innerWidth, height: window.innerHeight,
    sideways: document.documentElement.scrollWidth > window.innerWidth,
  };
}"""


def check_on_one_screen(found: dict) -> None:
    width, height = found["width"], found["height"]

    def inside(box, what):
        assert box["top"] >= -0.5 and box["bottom"] <= height + 0.5, (what, box, height)
        assert box["left"] >= -0.5 and box["right"] <= width + 0.5, (what, box, width)

    assert found["scrollY"] == 0 and not found["sideways"], found
    inside(found["board"], "the board")
    inside(found["status"], "the prompt")
    assert found["buttons"], "no decision button"
    for button in found["buttons"]:
        inside(button, button["text"])
        assert button["h"] >= FINGER_PX and button["w"] >= FINGER_PX, button
    small = [t for t in found["targets"] if t["w"] < FINGER_PX - 0.5 or t["h"] < FINGER_PX - 0.5]
    assert not small, small


@pytest.mark.parametrize("width,height,layout", [(390, 844, "tall"), (844, 390, "side")])
def test_a_phone_shows_the_board_and_the_decision_on_one_screen(tmp_path, width, height, layout):
    with served() as url, browser() as chromium:
        context = chromium.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
        page = context.new_page()
        driver = PageDriver(page, tmp_path)
        page.goto(url)
        new_game(driver, ["human", "random"], seed=5)
        assert page.get_attribute("#board", "data-layout") == layout
        seen = {"decisions": 0, "with buttons": 0}

        def check(view):
            seen["decisions"] += 1
            found = page.evaluate(ON_SCREEN)
            if found["buttons"]:                     # (a setup placement has none: the board is all)
                seen["with buttons"] += 1
                check_on_one_screen(found)
            else:
                assert found["scrollY"] == 0 and found["board"]["bottom"] <= height + 0.5, found

        play(driver, Policy(6), 30, on_decision=check)
        assert seen["with buttons"] >= 3, seen
        driver.wait_for_decision_or_end()
        driver.shot("phone")
        docs_shot(driver, f"web-phone-{'portrait' if layout == 'tall' else 'landscape'}.png")
        # The seats' panels and the turns are folded away; a tap opens each.
        assert not page.is_visible("#board-more") and not page.is_visible("#log")
        page.tap("#players-toggle")
        page.wait_for_selector("#board-more .panel", state="visible")
        assert page.locator("#board-more .panel").count() == 2
        # (drawn while folded, its long names wrapped all the same)
        found = page.evaluate(OVERLAPS, False)
        assert not found["found"] and not found["narrowed"], found
        assert page.locator('#board-more .legend-cards [data-card="LETTER"] tspan').count() == 2
        assert page.locator("#board-more").bounding_box()["height"] > 200
        assert page.get_attribute("#players-toggle", "aria-expanded") == "true"
        page.tap("#log-toggle")
        page.wait_for_selector("#log li", state="visible")
        driver.shot("phone-folds-open")
        page.tap("#players-toggle")
        page.wait_for_selector("#board-more", state="hidden")
        assert not driver.errors, driver.errors
        context.close()


# Every label drawn over another: the board's texts (in each of its SVGs) against each other and
# against the servants' discs (a disc's own letter excepted), and the header's controls
# against each other; a label narrowed to less than 3/4 of its width; the header's controls
# beyond the screen's width or, from 1280 px, on more than one row.
OVERLAPS = """(checkHeader) => {
  const boxOf = (node) => node.getBoundingClientRect();
  const cross = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const name = (node) => `${node.getAttribute('class') || node.tagName}:${node.textContent}`;
  const layers = '.layer-castle, .layer-stairs, .layer-park, .layer-legend, .layer-panels';
  const texts = [...document.querySelectorAll('#board text, #board-more text')]
    .filter((n) => n.closest(layers) && n.textContent.trim() && n.getClientRects().length);
  const discs = [...document.querySelectorAll('#board circle.servant, #board-more circle.servant')];
  const found = [];
  const boxes = texts.map(boxOf);
  for (let i = 0; i < texts.length; i += 1) {
    const svg = texts[i].ownerSVGElement;        // (a landscape phone's open panels cover the board)
    for (let j = i + 1; j < texts.length; j += 1) {
      if (texts[j].ownerSVGElement === svg && cross(boxes[i], boxes[j])) found.push([name(texts[i]), name(texts[j])]);
    }
    if (!texts[i].classList.contains('servant-letter')) {
      for (const disc of discs) {
        if (disc.ownerSVGElement === svg && cross(boxes[i], boxOf(disc))) found.push([name(texts[i]), 'disc ' + disc.getAttribute('fill')]);
      }
    }
  }
  const narrowed = [];
  for (const node of document.querySelectorAll('#board [textLength], #board-more [textLength]')) {
    if (!node.closest(layers) || !node.getClientRects().length) continue;
    const copy = node.cloneNode(true);
    copy.removeAttribute('textLength');
    copy.removeAttribute('lengthAdjust');
    node.parentNode.appendChild(copy);
    const natural = copy.getComputedTextLength();
    copy.remove();
    const ratio = Number(node.getAttribute('textLength')) / natural;
    if (ratio < 0.75) narrowed.push([node.textContent, ratio]);
  }
  const controls = [...document.querySelectorAll('header > *')].filter((n) => n.getClientRects().length && getComputedStyle(n).display !== 'none' && boxOf(n).width > 0);
  const header = [];
  if (checkHeader) {
    const rects = controls.map(boxOf);
    for (let i = 0; i < rects.length; i += 1) {
      if (rects[i].right > window.innerWidth + 0.5) header.push(['beyond the screen', controls[i].textContent.trim()]);
      for (let j = i + 1; j < rects.length; j += 1) if (cross(rects[i], rects[j])) header.push([controls[i].textContent.trim(), controls[j].textContent.trim()]);
    }
    const buttons = controls.filter((n) => n.matches('button, .button'));
    for (const b of buttons) if (b.scrollHeight > b.clientHeight + 1 || boxOf(b).height > 40) header.push(['two lines', b.textContent.trim()]);
    if (window.innerWidth >= 1280 && new Set(buttons.map((b) => Math.round(boxOf(b).top))).size > 1) header.push(['rows', buttons.length]);
  }
  return { found, narrowed, header, texts: texts.length };
}"""

SIZES = [(390, 844), (844, 390), (1024, 768), (1366, 768), (1920, 1080)]

# Where a moving servant lands in each room (board/castle.js servantSpot, what the board's
# motion uses), against the discs drawn: on its seat's disc when the seat is there, else on
# no count and no disc of the room.
LANDINGS = """async () => {
  const { servantSpot } = await import('/static/board/castle.js');
  const { geometry, roomBox } = await import('/static/board/geometry.js');
  const view = window.palaisPage.view();
  const board = document.getElementById('board');
  const geo = geometry(board.dataset.layout, view.players.length);
  const pieces = (await (await fetch('/api/meta')).json()).pieces;
  const boxes = {};
  view.layout.forEach((room, cell) => { boxes[room] = roomBox(geo, cell); });
  const ruler = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  board.appendChild(ruler);
  const measure = (text, cls) => { ruler.setAttribute('class', cls); ruler.textContent = text; return ruler.getComputedTextLength(); };
  const roomNames = {};
  for (const room of view.layout) roomNames[room] = board.querySelector(`.room[data-room="${room}"] .room-name`);
  const ctx = { view, pieces: { rooms: pieces.rooms }, boxes, measure, roomNames };
  const wrong = [];
  for (const room of view.layout) {
    const g = board.querySelector(`.room[data-room="${room}"]`);
    const counts = [...g.querySelectorAll('.count')].map((n) => n.getBBox());
    view.players.forEach((player, seat) => {
      const spot = servantSpot(room, seat, ctx);
      const disc = g.querySelector(`circle.servant[fill="${['#b03a2e', '#1f5f99', '#1e7a46', '#8a4fa3'][seat]}"]`);
      if (view.rooms[seat][pieces.rooms.indexOf(room)] > 0) {
        if (!disc || Math.abs(disc.cx.baseVal.value - spot.x) > 0.5 || Math.abs(disc.cy.baseVal.value - spot.y) > 0.5) wrong.push([room, seat, "not on its disc", spot, disc && [disc.cx.baseVal.value, disc.cy.baseVal.value]]);
      } else {
        const r = 9;
        if (counts.some((b) => spot.x + r > b.x && spot.x - r < b.x + b.width && spot.y + r > b.y && spot.y - r < b.y + b.height)) wrong.push([room, seat, 'over a count']);
      }
    });
  }
  ruler.remove();
  return wrong;
}"""


def load_record(driver: PageDriver, record: Path) -> None:
    page = driver.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-cancel")
    page.set_input_files("#load-input", str(record))
    page.wait_for_selector("#load-dialog[open]")
    before = driver.renders()
    page.click("#load-start")
    driver.wait_redrawn(before)
    page.wait_for_function("window.palaisPage.view() && document.body.dataset.busy !== '1'")


def test_no_label_of_a_crowded_board_is_drawn_over_another(tmp_path):
    problems = {}
    with served() as url, browser() as chromium:
        for width, height in SIZES:
            phone = width <= 844 and height <= 844
            context = chromium.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone)
            page = context.new_page()
            driver = PageDriver(page, tmp_path)
            page.goto(url)
            load_record(driver, CROWDED)
            view = driver.view()
            assert len(view["players"]) == 4
            assert sum(row[ROOMS.index("MINT")] >= 10 for row in view["rooms"]) == 4
            assert page.evaluate(LANDINGS) == []
            if phone:
                page.click("#players-toggle")
                page.wait_for_selector("#board-more .panel", state="visible")
            for lang in ("fr", "zh", "en"):           # (the page starts in English: a change each time)
                before = driver.renders()
                page.select_option("#language-select", lang)
                driver.wait_redrawn(before)
                found = page.evaluate(OVERLAPS, not phone)
                assert found["texts"] > 150, found["texts"]
                driver.shot(f"{width}x{height}-{lang}")
                for kind in ("found", "narrowed", "header"):
                    if found[kind]:
                        problems[f"{width}x{height} {lang} {kind}"] = found[kind][:12]
            assert not driver.errors, driver.errors
            context.close()
    assert not problems, "\n".join(f"{where}: {what}" for where, what in problems.items())

