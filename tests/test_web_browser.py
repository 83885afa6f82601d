"""The page of `palais serve` in a real headless Chromium against the real server: games
played to the end by clicking the board, hints, undo, save and load, the pass-the-device
screen, review and its chart. Screenshots of each step go to the test's tmp_path.

Set PALAIS_WEB_DOCS_SHOTS to a folder to also write the screenshots of docs/web.md there.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import pytest

from web_page import PageDriver, Policy, browser, chromium_missing_reason, served

pytestmark = [pytest.mark.slow, pytest.mark.skipif(chromium_missing_reason() is not None,
                                                   reason=chromium_missing_reason() or "")]

DOCS_SHOTS = os.environ.get("PALAIS_WEB_DOCS_SHOTS")


def docs_shot(driver: PageDriver, name: str) -> None:
    """A screenshot for docs/web.md, reduced to 128 colours when Pillow is installed (the
    docs keep each image small)."""
    if not DOCS_SHOTS:
        return
    path = Path(DOCS_SHOTS) / name
    driver.page.screenshot(path=str(path))
    try:
        from PIL import Image
    except ImportError:
        return
    image = Image.open(path).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


@contextlib.contextmanager
def game_against_random(tmp_path, seed: int, *, speed=None, budget_ms=None, **page_options):
    """A fresh server, a page in Chromium (1366x768 unless `page_options` say otherwise) and a
    new game of a person against the random player: (page, driver)."""
    with served() as url, browser() as chromium:
        page = chromium.new_page(**{"viewport": {"width": 1366, "height": 768}, **page_options})
        driver = PageDriver(page, tmp_path, speed=speed)
        page.goto(url)
        new_game(driver, ["human", "random"], seed=seed, budget_ms=budget_ms)
        yield page, driver


def new_game(driver: PageDriver, seats, *, seed: int, budget_ms=None, first_game=True,
             shared=False) -> dict:
    """Fills the new-game dialog: `seats` holds "human" or an engine name per seat;
    `shared`: every person at this screen (else a link each, and the invitations open)."""
    page = driver.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.select_option("#seat-count", str(len(seats)))
    for i, seat in enumerate(seats):
        page.select_option(f"#seat-rows .seat-row:nth-child({i + 1}) .seat-kind",
                           "human" if seat == "human" else f"engine:{seat}")
    page.check('input[name="deal"][value="first"]' if first_game else 'input[name="deal"][value="random"]')
    page.fill("#seed-input", str(seed))
    if budget_ms is not None:
        page.fill("#budget-input", str(budget_ms))
    page.check(f'input[name="where"][value="{"shared" if shared else "devices"}"]')
    before = driver.renders()
    page.click("#new-game-start")
    driver.wait_redrawn(before)
    return driver.view()


def check_targets_are_the_legal_actions(driver: PageDriver, view: dict) -> None:
    """The page offers exactly the legal actions: a target per token (moves: a source
    room per source), and nothing else."""
    legal = {e["token"] for e in view["legal"] if e["kind"] != "move"}
    assert set(driver.targets()) == legal
    assert set(driver.move_sources()) == {e["from"] for e in view["legal"] if e["kind"] == "move"}


def play_to_the_end(driver: PageDriver, policy: Policy, on_decision=None, limit: int = 4000) -> dict:
    """Plays the page's human seats by clicking until the game is over; returns how many
    actions of each kind were clicked. `on_decision(view)` may do more before each click."""
    clicked = {}
    for _ in range(limit):
        state = driver.wait_for_decision_or_end()
        if state == "over":
            return clicked
        if state == "pass":
            driver.click_and_wait("#pass-button")
            continue
        view = driver.view()
        check_targets_are_the_legal_actions(driver, view)
        if on_decision is not None and on_decision(view):
            continue
        entry = policy.pick(view)
        kind = "setup" if entry["kind"] == "room" and view["stage"] == "SETUP" else entry["kind"]
        clicked[kind] = clicked.get(kind, 0) + 1
        driver.choose(entry["token"])
    raise AssertionError(f"the game did not end within {limit} decisions")


def test_two_player_game_against_random_by_clicking(tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    with served() as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768}, accept_downloads=True)
        driver = PageDriver(page, shots)
        page.goto(url)
        view = new_game(driver, ["human", "random"], seed=11)
        driver.shot("new-game")
        assert view["seat"] == 1 and view["kinds"] == ["human", "random"]
        # The board fits a 1366x768 screen: nothing scrolls.
        assert page.evaluate("document.documentElement.scrollHeight <= innerHeight && document.documentElement.scrollWidth <= innerWidth")
        done = {"hint": False, "undo": False}

        def extras(view):
            if not done["hint"] and view["stage"] == "MOVES" and view["round"] >= 2:
                done["hint"] = True
                page.click("#hint-button")
                page.wait_for_selector("#hint-list li.hint")
                hints = page.eval_on_selector_all("#hint-list li.hint", "nodes => nodes.length")
                assert 1 <= hints <= 3
                page.hover("#hint-list li.hint")
                assert page.eval_on_selector_all(".hint-layer circle", "nodes => nodes.length") >= 1
                driver.shot("hint")
                docs_shot(driver, "web-game-hint.png")
                page.mouse.move(5, 5)
            if not done["undo"] and view["can_undo"] and view["stage"] == "MOVES":
                done["undo"] = True
                ply = view["ply"]
                assert page.is_enabled("#undo-button")
                before = driver.renders()
                page.keyboard.press("u")         # the undo button's key
                driver.wait_redrawn(before)
                assert driver.view()["ply"] < ply
                driver.shot("undo")
                return True
            return False

        clicked = play_to_the_end(driver, Policy(3), extras)
        driver.shot("over")
        assert done == {"hint": True, "undo": True}
        for kind in ("setup", "move", "recruit", "play", "gate"):
            assert clicked.get(kind), f"no {kind} was clicked: {clicked}"
        assert clicked.get("take") or clicked.get("decline"), clicked
        final = driver.view()
        assert final["over"]

        with page.expect_download() as download:
            page.click("#save-button")
        record = tmp_path / "game.txt"
        download.value.save_as(record)
        assert record.read_text().strip()

        page.reload()          # the address names the game: the page shows it again
        page.wait_for_function("id => window.palaisPage.view() && window.palaisPage.view().game === id", arg=final["game"])
        page.set_input_files("#load-input", str(record))
        page.wait_for_function("id => window.palaisPage.view() && window.palaisPage.view().game !== id "
                               "&& document.body.dataset.busy !== '1'", arg=final["game"])
        loaded = driver.view()
        assert loaded["over"]
        assert loaded["scores"] == final["scores"]
        driver.shot("loaded")

        page.click("#analyse-button")
        page.wait_for_selector("#chart .chart-point", timeout=300_000)
        points = page.query_selector_all("#chart .chart-point")
        assert len(points) > 10      # a point per turn of a whole game
        target = points[len(points) // 2]
        ply = int(target.get_attribute("data-ply"))
        before = driver.renders()
        target.click()
        driver.wait_redrawn(before)
        assert page.evaluate("window.palaisPage.reviewing()")
        assert page.evaluate("window.palaisPage.shownPly()") == ply
        assert page.evaluate("window.palaisPage.shownView().ply") == ply     # the server's position there
        driver.shot("review-chart")
        docs_shot(driver, "web-review.png")
        before = driver.renders()
        page.keyboard.press("ArrowLeft")
        driver.wait_redrawn(before)
        assert page.evaluate("window.palaisPage.shownPly()") < ply
        assert page.evaluate("window.palaisPage.shownView().ply") < ply
        assert not driver.errors, driver.errors


def test_pass_the_device_between_two_people(tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    with served() as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        driver = PageDriver(page, shots)
        page.goto(url)
        new_game(driver, ["human", "human"], seed=2, shared=True)
        # The keyboard alone: a target takes the focus and Enter chooses it; the redrawn
        # board keeps the focus there, so Enter again places a second servant.
        assert driver.wait_for_decision_or_end() == "decide"
        page.focus('#board [data-token="MINT"]')
        for placed in (1, 2):
            before = driver.renders()
            page.keyboard.press("Enter")
            driver.wait_redrawn(before)
            assert driver.view()["rooms"][0][3] == placed          # seat 1's servants in the MINT
        for room in ("KING", "OFFICE", "MADAME"):
            assert driver.wait_for_decision_or_end() == "decide"
            driver.choose(room)
        assert driver.wait_for_decision_or_end() == "pass"
        driver.shot("pass")
        docs_shot(driver, "web-pass-device.png")
        assert page.inner_text("#pass-button") == "I am seat B"
        assert page.evaluate("window.palaisPage.seat()") == 1
        driver.click_and_wait("#pass-button")
        assert page.is_hidden("#pass-screen")
        view = driver.view()
        assert view["seat"] == 2 and view["to_move"] == 2 and view["legal"]
        assert view["players"][0]["hand"] is None and view["players"][1]["hand"] is not None
        driver.shot("seat-2")
        # The language switch: French at once, and still French after a reload.
        page.select_option("#language-select", "fr")
        page.wait_for_function("document.getElementById('new-game-button').textContent === 'Nouvelle partie'")
        page.reload()
        page.wait_for_function("window.palaisPage.view() !== null && document.body.dataset.ready === '1'")
        assert page.inner_text("#new-game-button") == "Nouvelle partie"
        # (a name too long for its room goes onto two lines: two tspans, one text)
        assert page.is_visible('#board [data-room="MINT"] .room-name')
        assert page.text_content('#board [data-room="MINT"] .room-name') == "Hôtel de la monnaie"
        driver.shot("french")
        # The new-game form's rule options, by their French labels, with their help as tooltips.
        page.click("#new-game-button")
        label = page.locator("#rule-options label", has_text="Limite de manches")
        label.wait_for()
        assert label.get_attribute("title").startswith("la partie se termine")
        assert page.locator("#rule-options label", has_text="round_cap").count() == 0
        page.keyboard.press("Escape")
        assert not driver.errors, driver.errors


def test_four_players_two_process_engines_two_in_process_watched(tmp_path):
    from tournament.engines import parse_engine
    from web.config import ServerConfig

    shots = tmp_path / "shots"
    shots.mkdir()
    engine = parse_engine(f'name=pri cmd="{sys.executable} -m protocol.cli"')
    with served(ServerConfig(engines=(engine,))) as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        driver = PageDriver(page, shots)
        page.goto(url)
        view = new_game(driver, ["pri", "random", "pri", "greedy"], seed=5, budget_ms=50)
        assert view["seat"] == 0 and view["kinds"][0] == "pri"
        driver.shot("started")
        assert driver.wait_for_decision_or_end() == "over"
        driver.shot("over")
        final = driver.view()
        assert final["over"] and len(final["scores"]) == 4
        # Once over, the game is public (its record holds every hand): a spectator sees them all.
        assert all(sum(player["hand"].values()) == player["hand_size"] for player in final["players"])
        assert page.eval_on_selector_all("#board .card", "nodes => nodes.length") == sum(
            1 for player in final["players"] for n in player["hand"].values() if n)
        assert page.evaluate("window.palaisPage.infoSeen()") > 0
        assert not driver.errors, driver.errors


DOCS = Path(__file__).resolve().parent.parent / "docs"


def side_by_side(left: Path, right: Path, out: Path) -> None:
    """Two screenshots as one PNG (the two seats' pages), when Pillow is installed."""
    try:
        from PIL import Image
    except ImportError:
        return
    a, b = Image.open(left).convert("RGB"), Image.open(right).convert("RGB")
    both = Image.new("RGB", (a.width + b.width + 16, max(a.height, b.height)), "white")
    both.paste(a, (0, 0))
    both.paste(b, (a.width + 16, 0))
    both = both.resize((both.width // 2, both.height // 2))
    both.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(out, optimize=True)


class Traffic:
    """Every HTTP answer body and WebSocket frame one browser context receives."""

    def __init__(self, context):
        self.texts = []
        context.on("response", self._response)
        context.on("page", lambda page: page.on("websocket", self._socket))

    def _response(self, response):
        try:
            self.texts.append(response.text())
        except Exception:            # a redirect or a body already gone
            pass

    def _socket(self, ws):
        ws.on("framereceived", lambda payload: self.texts.append(payload if isinstance(payload, str) else payload.decode(errors="replace")))


def choose_or_fail(driver: PageDriver, token: str) -> None:
    """Click `token`'s target and wait for the page's redraw, or for the error it shows
    (a view made stale by the restart is refused, and the page redraws on the next view)."""
    page = driver.page
    steps = [f'#board [data-from="{token.split("-")[0]}"]'] if "-" in token else []
    steps.append(f'#board [data-token="{token}"].target, #actions [data-token="{token}"]')
    for selector in steps:
        before = driver.renders()
        if not page.query_selector(selector):
            return
        page.click(selector)
        page.wait_for_function("n => (Number(document.body.dataset.renders || 0) > n "
                               "|| !document.getElementById('error').hidden) "
                               "&& document.body.dataset.busy !== '1'", arg=before)
        if page.is_visible("#error"):
            return


def play_turns(pairs, done, limit: int = 6000) -> None:
    """Each page plays its own seat's decisions (its policy's pick) until `done()`."""
    for _ in range(limit):
        if done():
            return
        moved = False
        for driver, policy in pairs:
            if driver.page.evaluate("document.body.dataset.busy") == "1":
                continue
            view = driver.view()
            if view and view["legal"] and not view["over"]:
                choose_or_fail(driver, policy.pick(view)["token"])
                moved = True
        if not moved:
            pairs[0][0].page.wait_for_timeout(30)
    raise AssertionError("the game did not get there")


def test_two_people_on_two_devices_with_an_engine_and_a_restart(tmp_path):
    """Two browser contexts as two devices. The first person makes a game for two people
    and the greedy engine; the second joins with their link. Nothing the second receives
    before the end holds the first seat's cards or the draw secret; a spectator sees no
    hand; the server restarts mid-game (same --db) and both pages go on to the end."""
    from web.config import ServerConfig

    shots = tmp_path / "shots"
    shots.mkdir()
    db = tmp_path / "games.sqlite3"
    import socket as sockets
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with browser() as chromium:
        first_context = chromium.new_context(viewport={"width": 1366, "height": 768})
        second_context = chromium.new_context(viewport={"width": 1366, "height": 768})
        watcher_context = chromium.new_context(viewport={"width": 1366, "height": 768})
        traffic = Traffic(second_context)
        first, second = first_context.new_page(), second_context.new_page()
        one, two = PageDriver(first, shots), PageDriver(second, shots)
        with served(ServerConfig(db=str(db)), port=port) as url:
            first.goto(url)
            view = new_game(one, ["human", "human", "greedy"], seed=4)
            assert view["seat"] == 1
            first.wait_for_selector("#invite-dialog[open]")
            links = first.eval_on_selector_all(".invite-link", "nodes => nodes.map(n => n.value)")
            assert len(links) == 2 and "&key=" in links[0] and "&key=" not in links[1]
            one.shot("invite")
            if DOCS_SHOTS:
                docs_shot(one, "web-invite.png")
            first.click("#invite-done")
            second.goto(links[0])
            second.wait_for_function("window.palaisPage.view() && window.palaisPage.view().seat === 2")
            spectator = watcher_context.new_page()
            watcher = PageDriver(spectator)      # its waits, and the turns shown at once (speed instant)
            spectator.goto(links[1])
            spectator.wait_for_function("window.palaisPage.view() && window.palaisPage.view().seat === 0")
            p1, p2 = Policy(1), Policy(2)
            pairs = ((one, p1), (two, p2))
            play_turns(pairs, lambda: one.view()["ply"] >= 60 or one.view()["over"])
            first.wait_for_function("document.body.dataset.busy !== '1'")
            # The title follows the view it shows (it may be redrawn a moment after the view).
            first.wait_for_function("document.title.startsWith('●') === "
                                    "(window.palaisPage.view().legal.length > 0)", timeout=15_000)
            one.shot("seat-1")
            two.shot("seat-2")
            if DOCS_SHOTS:
                first.screenshot(path=str(tmp_path / "left.png"))
                second.screenshot(path=str(tmp_path / "right.png"))
                side_by_side(tmp_path / "left.png", tmp_path / "right.png", Path(DOCS_SHOTS) / "web-two-seats.png")
            ply_before = one.view()["ply"]
        # the server is down; it comes back on the same port over the same file
        with served(ServerConfig(db=str(db)), port=port):
            for page in (first, second):
                page.wait_for_function("p => window.palaisPage.view().ply >= p && document.body.dataset.busy !== '1'",
                                       arg=ply_before)
            play_turns(pairs, lambda: one.view()["over"] and two.view()["over"])
            assert one.view()["over"] and two.view()["over"]
            final = two.view()
            spectator.wait_for_function("window.palaisPage.view().over")
            watched = watcher.view()["players"]      # over: every hand shown
            assert all(sum(p["hand"].values()) == p["hand_size"] for p in watched)
        secret = final["fairness"]["secret"]
        assert secret and len(secret) == 64
        before_end = []
        for text in traffic.texts:
            if '"over": true' in text or '"over":true' in text or "DrawSecret" in text:
                break
            before_end.append(text)
        assert len(before_end) > 20
        key_1 = first.evaluate("window.palaisPage.keys()")["1"]
        for text in before_end:
            assert secret not in text and key_1 not in text
            if text.startswith("{"):
                import json
                data = json.loads(text)
                shown = data.get("view", data)
                for player in (shown.get("players", []) if isinstance(shown, dict) and "log" in shown else []):
                    assert player["hand"] is None or player["seat"] == 2, player
        assert not one.errors and not two.errors, (one.errors, two.errors)


def test_a_record_loaded_to_play_on_can_seat_an_engine(tmp_path):
    """A full record of a game not over (a `palais play` save, say) loaded from the page:
    the dialog asks who plays each seat, and seat B is given to the greedy engine."""
    import random

    from play.game import PlayGame
    game = PlayGame.new(2, 5, ["Ann", "Bob"])
    rng = random.Random(1)
    for _ in range(12):
        game.draw_cards()
        game.play(rng.choice(game.state.legal_actions()))
    game.draw_cards()
    record = tmp_path / "saved.txt"
    game.save(str(record))
    with served() as url, browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        driver = PageDriver(page, tmp_path)
        page.goto(url)
        page.wait_for_selector("#new-game-dialog[open]")
        page.click("#new-game-cancel")
        page.set_input_files("#load-input", str(record))
        page.wait_for_selector("#load-dialog[open]")
        assert page.eval_on_selector_all("#load-seats .seat-row", "rows => rows.length") == 2
        page.select_option("#load-seats .seat-row:nth-child(2) .seat-kind", "engine:greedy")
        driver.shot("load-seats")
        page.click("#load-start")
        page.wait_for_function("window.palaisPage.view() && document.body.dataset.busy !== '1'")
        view = driver.view()
        assert view["kinds"] == ["human", "greedy"] and view["ply"] >= len(game.actions)
        assert not driver.errors, driver.errors


# Holds the page's socket messages while window.__holdSocket is true (a page that missed
# them: a slow socket, a laptop asleep), so it shows an older view than the game's.
HOLD_SOCKET = """
(() => {
  const Real = window.WebSocket;
  window.__holdSocket = false;
  window.WebSocket = function (...args) {
    const socket = new Real(...args);
    const deliver = (handler) => (event) => { if (!window.__holdSocket) handler(event); };
    let onmessage = null;
    Object.defineProperty(socket, "onmessage", {
      get: () => onmessage,
      set: (handler) => { onmessage = handler; socket.addEventListener("message", deliver((e) => onmessage && onmessage(e))); },
    });
    return socket;
  };
  window.WebSocket.prototype = Real.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();
"""


def test_a_choice_made_in_a_stale_page_plays_nothing_and_says_the_game_moved_on(tmp_path):
    """One seat open in two pages (a laptop and a phone). The first plays; the second, which
    missed that, offers the old position; a choice there plays nothing: it shows the game as
    it is now and says so, in the page's language."""
    shots = tmp_path / "shots"
    shots.mkdir()
    with served() as url, browser() as chromium:
        laptop_page = chromium.new_context(viewport={"width": 1366, "height": 768}).new_page()
        laptop = PageDriver(laptop_page, shots)
        laptop_page.goto(url)
        new_game(laptop, ["human", "human"], seed=3)
        laptop_page.click("#invite-done")
        phone_page = chromium.new_context(viewport={"width": 412, "height": 860}, locale="fr-FR").new_page()
        phone_page.add_init_script(HOLD_SOCKET)
        phone = PageDriver(phone_page, shots)
        phone_page.goto(laptop_page.url)                      # the same seat's link
        phone_page.wait_for_function("window.palaisPage.view() && window.palaisPage.view().seat === 1")
        phone.wait_for_decision_or_end()
        stale = phone.view()
        phone_page.evaluate("window.__holdSocket = true")
        first = laptop.view()["legal"][0]["token"]
        laptop.choose(first)                                  # played on the laptop
        moved_on = laptop.view()
        assert moved_on["ply"] == stale["ply"] + 1
        phone.choose(phone.targets()[-1])                     # chosen from the old position
        phone_page.wait_for_function("v => window.palaisPage.view().version === v", arg=moved_on["version"])
        notice = phone_page.text_content("#error")
        assert notice == "La partie a avancé : votre choix n'a pas été joué.", notice
        phone.shot("stale-choice")
        assert laptop.view()["ply"] == moved_on["ply"]        # nothing more was played
        phone_page.evaluate("window.__holdSocket = false")
        assert not laptop.errors and not phone.errors, (laptop.errors, phone.errors)
