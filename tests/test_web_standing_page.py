"""The page always says where it stands (issue 39), in Chromium: a spectator's page says so
and how to get a seat; a seat link whose key is no seat of the game says it is not valid,
with a way on; a link to no game is a message with a way back; a lost connection is a
banner and a title that no longer claims the turn, until the page is connected again (a game
put away for being idle says so, and comes back); an
engine chosen by level is named by it, and its own estimate is hidden from the person
playing it until they turn it on."""

from __future__ import annotations

import socket

import pytest

from test_web_panels import docs_shot, needs_browser
from web_page import PageDriver, Policy, browser, served

pytestmark = [pytest.mark.slow, needs_browser]
VIEWPORT = {"width": 1366, "height": 768}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def new_game(driver: PageDriver, seats, budget_ms: int) -> dict:
    """The new-game dialog filled: `seats` holds "human" or "level:ID"; the seat's view."""
    page = driver.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.select_option("#seat-count", str(len(seats)))
    for i, seat in enumerate(seats):
        page.select_option(f"#seat-rows .seat-row:nth-child({i + 1}) .seat-kind", seat)
    page.check('input[name="deal"][value="first"]')
    page.check('input[name="where"][value="devices"]')
    page.fill("#seed-input", "5")
    page.fill("#budget-input", str(budget_ms))
    before = driver.renders()
    page.click("#new-game-start")
    driver.wait_redrawn(before)
    if page.is_visible("#invite-dialog[open]"):
        page.click("#invite-done")
    return driver.view()


def wait_for_estimate_or_decision(page, estimate: str = "shown") -> str:
    """Until the engine is seen thinking with its estimate `estimate` ("shown" or "hidden"),
    the page offers a decision ("decide") or the game is over ("over")."""
    return page.wait_for_function("""(estimate) => {
        if (document.querySelector(`#engine-info[data-estimate="${estimate}"]:not([hidden])`)) return estimate;
        if (document.body.dataset.busy === '1') return null;
        if (window.palaisPage.view() && window.palaisPage.view().over) return 'over';
        return document.querySelector('#board [data-token].target, #board [data-from].target, #actions [data-token]')
            ? 'decide' : null;
    }""", arg=estimate).json_value()


def play_until_the_engine_thinks(player, policy, estimate: str) -> None:
    """Make the person's decisions until the page shows the engine thinking, its estimate
    `estimate`: a loaded machine may show the page only after the engine's turn is over."""
    for _ in range(200):
        got = wait_for_estimate_or_decision(player.page, estimate)
        assert got != "over", "the game ended before the engine thought again"
        if got == estimate:
            return
        player.choose(policy.pick(player.view())["token"])
    raise AssertionError("the engine was never seen thinking")


def test_the_page_says_where_it_stands(tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    port = free_port()
    db = tmp_path / "games.sqlite3"
    from web.config import ServerConfig
    with browser() as chromium:
        player = PageDriver(chromium.new_context(viewport=VIEWPORT).new_page(), shots)
        page = player.page
        with served(ServerConfig(db=str(db)), port=port) as url:
            # a link to no game: a message with a way back, not a blank page
            page.goto(f"{url}/#game=no-such-game")
            page.wait_for_selector('#notice[data-kind="no-game"]:not([hidden])')
            assert "No such game" in page.inner_text("#notice")
            assert page.eval_on_selector_all("#notice button", "b => b.map(n => n.dataset.notice)") == ["my-games", "new-game"]
            player.shot("no-such-game")
            page.click('#notice [data-notice="new-game"]')

            # seat A plays at the Maximum level (1 s a turn, so it thinks long enough to be seen)
            view = new_game(player, ["level:maximum", "human"], budget_ms=1000)
            game, key = view["game"], page.evaluate("window.palaisPage.keys()")["2"]
            assert view["seat"] == 2 and page.is_hidden("#notice") and page.is_hidden("#standing")
            page.wait_for_function("document.querySelector('#board').textContent.includes('Maximum (engine)')")

            # the engine's estimate is hidden from the person playing it, until turned on
            assert page.is_visible("#estimate-toggle") and not page.is_checked("#estimate-switch")
            policy = Policy(2)
            play_until_the_engine_thinks(player, policy, "hidden")
            text = page.inner_text("#engine-info")
            assert "Maximum (engine) (seat A) is thinking" in text and "%" not in text and "VP expected" not in text
            player.shot("estimate-hidden")
            page.check("#estimate-switch")
            assert page.evaluate("localStorage.getItem('palais.estimate')") == "1"
            play_until_the_engine_thinks(player, policy, "shown")
            shown = page.inner_text('#engine-info[data-estimate="shown"]')
            assert "win " in shown and "%" in shown and "VP expected" in shown
            player.shot("estimate-shown")

            # a spectator's page says so, and how to get a seat
            spectator = PageDriver(chromium.new_context(viewport=VIEWPORT).new_page(), shots)
            spectator.page.goto(f"{url}/#game={game}")
            spectator.page.wait_for_selector("#standing:not([hidden])")
            words = spectator.page.inner_text("#standing")
            assert "spectator" in words and "seat link" in words and "Invite" in words
            assert spectator.page.is_hidden("#estimate-toggle")
            spectator.shot("spectator")
            docs_shot(spectator, "web-spectator.png")

            # a key that is no seat of this game: said so, with a way on
            forged = chromium.new_context(viewport=VIEWPORT).new_page()
            forger = PageDriver(forged, shots)
            forged.goto(f"{url}/#game={game}&key={key[:-3]}xyz")
            forged.wait_for_selector('#notice[data-kind="bad-key"]:not([hidden])')
            assert "This seat link is not valid for this game" in forged.inner_text("#notice")
            assert forged.evaluate("window.palaisPage.view()") is None       # nothing of the game shown
            forger.shot("bad-key")
            forged.click('#notice [data-notice="watch"]')
            forged.wait_for_function("window.palaisPage.view() && window.palaisPage.view().seat === 0")
            assert forged.is_hidden("#notice") and forged.is_visible("#standing")

            # the player's own turn, then the server goes away
            for _ in range(200):
                if player.wait_for_decision_or_end() == "decide":
                    break
            page.wait_for_function("document.title.startsWith('●')")
        page.wait_for_selector('#connection[data-state="lost"]:not([hidden])')
        assert "reconnecting" in page.inner_text("#connection")
        assert page.title().startswith("Reconnecting") and "Your turn" not in page.title()
        assert page.eval_on_selector("#board", "n => getComputedStyle(n).pointerEvents") == "none"   # nothing to play
        player.shot("reconnecting")
        docs_shot(player, "web-reconnecting.png")
        now = [1000.0]                          # the server's clock for idle times, moved by hand
        config = ServerConfig(db=str(db), clock=lambda: now[0], idle_minutes=1, sweep_interval_s=0.05)
        with served(config, port=port):
            page.wait_for_function("window.palaisPage.connection() !== 'lost'")
            assert page.evaluate("window.palaisPage.connection()") in ("back", "open")
            page.wait_for_function("document.title.startsWith('●')")
            page.wait_for_function("window.palaisPage.connection() === 'open'")
            assert page.is_hidden("#connection")
            assert page.eval_on_selector("#board", "n => getComputedStyle(n).pointerEvents") != "none"
            # the game left unused past --idle-minutes leaves memory: the page says so, and
            # its reconnection brings the game back (every banner it showed is kept)
            page.evaluate("""() => {
                window.banners = [];
                const box = document.getElementById('connection');
                new MutationObserver(() => { if (!box.hidden) window.banners.push([box.dataset.state, box.textContent]); })
                    .observe(box, {attributes: true, childList: true, characterData: true, subtree: true});
            }""")
            now[0] += 120
            page.wait_for_function("window.banners.some(([state]) => state === 'back')")
            banners = page.evaluate("window.banners")
            assert ["idle", "This game was put away on the server after being idle: bringing it back…"] in banners
            assert not any(state == "lost" for state, _ in banners)
            page.wait_for_function("document.title.startsWith('●') && window.palaisPage.view().legal.length > 0")
        assert not player.errors and not spectator.errors and not forger.errors
