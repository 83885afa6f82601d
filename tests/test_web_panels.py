"""Issue 26, the page around the board: the analysis board's endpoint through the app's test
client (POST /api/games/{game}/explore: a line from a position, checked legal in turn, on the
asking seat's view only, its fair evaluation, hostile input refused with a clear 400), and in
Chromium the log in words, the end screen, the new-game dialog, the analysis board and the
phone layout (screenshots of each step in the test's tmp folder)."""

from __future__ import annotations

import contextlib
import os
import random

import pytest
from starlette.testclient import TestClient

from web.app import create_app
from web.config import ServerConfig

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def client():
    config = ServerConfig(hint_iterations=200, analysis_iterations=50, seeds=random.Random(0))
    with TestClient(create_app(config), base_url=BASE) as c:
        yield c


def started(client, decisions: int = 30):
    """A game between two people, each playing a seeded random legal action `decisions`
    times: (game id, {seat: key}, the last view)."""
    rng = random.Random(3)
    r = client.post("/api/games", json={"players": [{"kind": "human"}] * 2, "seed": 7, "budget_ms": 50})
    assert r.status_code == 200, r.text
    data = r.json()
    keys = {s["seat"]: s["key"] for s in data["seats"]}
    view = data["view"]
    for _ in range(decisions):
        seat = view["to_move"]
        mine = client.get(f"/api/games/{data['game']}/view", headers={"x-palais-key": keys[seat]}).json()
        r = client.post(f"/api/games/{data['game']}/action", json={"action": rng.choice(mine["legal"])["token"],
                                                                   "version": mine["version"]},
                        headers={"x-palais-key": keys[seat]})
        assert r.status_code == 200, r.text
        view = r.json()
    return data["game"], keys, view


def explore(client, game, key, body):
    return client.post(f"/api/games/{game}/explore", json=body, headers={"x-palais-key": key} if key else {})


def game_tokens(view):
    return " ".join(turn["tokens"] for turn in view["log"]).split()


def test_a_line_that_differs_from_the_game_is_played_and_valued(client):
    game, keys, view = started(client)
    tokens = game_tokens(view)
    # a position where seat 1 decides, and a legal action there that the game did not play
    for ply in range(len(tokens)):
        start = explore(client, game, keys[1], {"ply": ply, "actions": []})
        assert start.status_code == 200, start.text
        shown = start.json()["view"]
        other = [e for e in shown["legal"] if e["token"] != tokens[ply]]
        if shown["to_move"] == 1 and other:
            break
    else:
        raise AssertionError("no position with another choice for seat 1")
    choice = other[0]["token"]
    r = explore(client, game, keys[1], {"ply": ply, "actions": [choice]})
    assert r.status_code == 200, r.text
    answer = r.json()
    explored = answer["view"]["explore"]
    assert explored["from"] == ply and explored["line"] == [choice]
    assert [step["token"] for step in explored["steps"]] == [choice]
    evaluation = answer["evaluation"]
    assert evaluation["seat"] == 1 and 0 <= evaluation["win"] <= 1 and evaluation["score"] >= 0
    assert len(evaluation["win_by_seat"]) == 2 and abs(sum(evaluation["win_by_seat"]) - 1) < 0.01
    # the game's own line from there is another position
    own = explore(client, game, keys[1], {"ply": ply, "actions": [tokens[ply]]}).json()
    assert own["view"]["rooms"] != answer["view"]["rooms"] or own["view"]["turn"] != answer["view"]["turn"] \
        or own["view"]["stage"] != answer["view"]["stage"]
    # the same line, the same opinion (a seeded valuation)
    assert explore(client, game, keys[1], {"ply": ply, "actions": [choice]}).json() == answer


def test_the_line_is_played_on_the_asking_seats_view_only(client):
    game, keys, view = started(client, 40)
    for ply in range(view["ply"], -1, -1):
        r = explore(client, game, keys[1], {"ply": ply, "actions": []})
        shown = r.json()["view"]
        if shown["to_move"] == 2 and shown["legal"]:
            break
    else:
        raise AssertionError("no position where seat 2 decides")
    assert shown["players"][1]["hand"] is None                   # seat 2's cards stay hidden
    assert shown["players"][0]["hand"] is not None
    # what seat 2 may do is what seat 1 can imagine (the pool), the same whatever seat 2 holds:
    # asked by seat 2 itself, its real hand gives its real choices
    mine = explore(client, game, keys[2], {"ply": ply, "actions": []}).json()["view"]
    assert {e["token"] for e in mine["legal"]} <= {e["token"] for e in shown["legal"]}


@pytest.mark.parametrize("body, words", [
    ({}, "ply: missing"),
    ({"ply": -1}, "ply: expected a whole number"),
    ({"ply": True}, "ply: expected a whole number"),
    ({"ply": "3"}, "ply: expected a whole number"),
    ({"ply": 10 ** 7}, "ply: expected a whole number"),
    ({"ply": 9999}, "ply: expected a number 0.."),
    ({"ply": 0, "actions": "MINT"}, "actions: expected a list"),
    ({"ply": 0, "actions": ["MINT"] * 201}, "at most 200"),
    ({"ply": 0, "actions": [{"x": 1}]}, "actions[0]: expected a token or an action id"),
    ({"ply": 0, "actions": [None]}, "actions[0]: expected a token or an action id"),
    ({"ply": 0, "actions": [1.5]}, "actions[0]: expected a token or an action id"),
    ({"ply": 0, "actions": ["x" * 1000]}, "at most 32 characters"),
    ({"ply": 0, "actions": ["NOWHERE"]}, "actions[0]: unknown token"),
    ({"ply": 0, "actions": ["MINT MINT"]}, "actions[0]: "),
    ({"ply": 0, "actions": ["a1"]}, "actions[0]: a1 is not legal there"),
    ({"ply": 0, "actions": [10 ** 9]}, "actions[0]: 1000000000 is not legal there"),
    ({"ply": 0, "actions": [-5]}, "actions[0]: -5 is not legal there"),
])
def test_hostile_input_gets_a_clear_400(client, body, words):
    game, keys, _ = started(client, 2)
    r = explore(client, game, keys[1], body)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]
    assert "\n" not in r.json()["error"] and len(r.json()["error"]) < 300


def test_a_spectator_an_unknown_game_and_a_body_not_json_are_refused(client):
    game, keys, _ = started(client, 2)
    r = explore(client, game, None, {"ply": 0, "actions": []})
    assert r.status_code == 403 and "seats" in r.json()["error"]
    assert explore(client, "nosuchgame", keys[1], {"ply": 0}).status_code == 404
    r = client.post(f"/api/games/{game}/explore", content=b"{not json", headers={"x-palais-key": keys[1]})
    assert r.status_code == 400 and r.json()["error"] == "the body is not JSON"
    # the server goes on: a good request still works
    assert explore(client, game, keys[1], {"ply": 1, "actions": []}).status_code == 200


def test_a_line_stops_at_a_card_draw(client):
    game, keys, view = started(client, 60)
    tokens = game_tokens(view)
    # the game's own line up to a draw, then one action more: refused, naming the draw
    for ply, token in enumerate(tokens):
        if token.startswith("?"):
            break
    else:
        raise AssertionError("no draw in this game's first turns")
    start = max(e["ply"] for e in view["log"] if e["ply"] <= ply)
    line = tokens[start:ply]
    reached = explore(client, game, keys[1], {"ply": start, "actions": line})
    assert reached.status_code == 200, reached.text
    assert reached.json()["view"]["explore"]["draw_due"] and reached.json()["view"]["legal"] == []
    r = explore(client, game, keys[1], {"ply": start, "actions": line + ["continue"]})
    assert r.status_code == 400 and "a card draw is due" in r.json()["error"]


# ---- in Chromium ------------------------------------------------------------------------

from pathlib import Path  # noqa: E402

from web_page import PageDriver, Policy, browser, chromium_missing_reason, served  # noqa: E402

needs_browser = pytest.mark.skipif(chromium_missing_reason() is not None, reason=chromium_missing_reason() or "")
DOCS = Path(__file__).resolve().parent.parent / "docs"
DOCS_SHOTS = os.environ.get("PALAIS_WEB_DOCS_SHOTS")


def docs_shot(driver: PageDriver, name: str, full_page: bool = False) -> None:
    """A screenshot for docs/ (PALAIS_WEB_DOCS_SHOTS names the folder), reduced to 128
    colours so each stays small."""
    if not DOCS_SHOTS:
        return
    path = Path(DOCS_SHOTS) / name
    driver.page.screenshot(path=str(path), full_page=full_page)
    try:
        from PIL import Image
    except ImportError:                  # kept as taken (docs/web.md: reduced when Pillow is installed)
        return
    image = Image.open(path).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


@contextlib.contextmanager
def opened(tmp_path, **context):
    """The page of a fresh server in Chromium, ready (its meta and language loaded):
    (url, page, driver), each step's screenshot in the test's tmp folder."""
    shots = tmp_path / "shots"
    shots.mkdir()
    with served() as url, browser() as chromium:
        page = chromium.new_context(**{"viewport": {"width": 1366, "height": 768}, **context}).new_page()
        driver = PageDriver(page, shots)
        page.goto(url)
        page.wait_for_function("document.body.dataset.ready === '1'")
        yield url, page, driver


def start_game(driver: PageDriver, seats, seed: int = 11) -> dict:
    """The new-game dialog filled: `seats` holds "human", "level:ID" or an engine name."""
    page = driver.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.select_option("#seat-count", str(len(seats)))
    for i, seat in enumerate(seats):
        value = seat if seat == "human" or seat.startswith("level:") else f"engine:{seat}"
        page.select_option(f"#seat-rows .seat-row:nth-child({i + 1}) .seat-kind", value)
    page.check('input[name="deal"][value="first"]')
    page.fill("#seed-input", str(seed))
    page.fill("#budget-input", "50")
    before = driver.renders()
    page.click("#new-game-start")
    driver.wait_redrawn(before)
    return driver.view()


def play_until(driver: PageDriver, policy: Policy, done) -> None:
    for _ in range(2000):
        state = driver.wait_for_decision_or_end()
        if state == "over" or done(driver.view()):
            return
        driver.choose(policy.pick(driver.view())["token"])
    raise AssertionError("the game did not get there")


def catalog(url: str, lang: str) -> dict:
    import json
    import urllib.request
    with urllib.request.urlopen(f"{url}/api/i18n/{lang}") as answer:
        return json.load(answer)["messages"]


def step_names(step: dict, names: dict) -> list:
    """The names a step's words must hold: its rooms and its card, in the page's language."""
    out = [names.get(f"room:{step[key]}", step[key]) for key in ("room", "from", "to") if step.get(key)]
    if step.get("card"):
        out.append(names.get(f"card:{step['card']}", step["card"]))
    return out


@pytest.mark.slow
@needs_browser
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_log_reads_in_words_that_match_the_notation_and_the_analysis_board(tmp_path, lang):
    with opened(tmp_path) as (url, page, driver):
        if lang != "en":
            page.select_option("#dialog-language", lang)
            page.wait_for_function("lang => document.documentElement.lang === lang", arg=lang)
        start_game(driver, ["human", "random"])
        play_until(driver, Policy(3), lambda v: v["ply"] >= 45)
        names = catalog(url, lang)
        view = driver.view()
        items = page.query_selector_all("#log li")
        assert len(items) == len(view["log"]) > 5
        for item, entry in zip(items, view["log"]):
            tokens = item.eval_on_selector_all(".turn-words .step", "nodes => nodes.map(n => n.dataset.token)")
            assert tokens == entry["tokens"].split()                 # a step's words per token
            texts = item.eval_on_selector_all(".turn-words .step-text", "nodes => nodes.map(n => n.textContent)")
            titles = item.eval_on_selector_all(".turn-words .step", "nodes => nodes.map(n => n.title)")
            assert titles == tokens                                  # the notation on hover
            for step, text, token in zip(entry["steps"], texts, tokens):
                assert text and text != token, (token, text)
                for name in step_names(step, names):
                    assert name in text, (token, name, text)
        assert not page.is_visible("#log .tokens")                   # notation behind the switch
        driver.shot("log-in-words")          # (docs/web-log-grouped.png: test_web_words_browser.py)
        page.check("#notation-switch")
        assert page.is_visible("#log li >> nth=0 >> .tokens")
        assert page.inner_text("#log li >> nth=0 >> .tokens") == view["log"][0]["tokens"]
        driver.shot("notation-shown")
        page.uncheck("#notation-switch")

        # the analysis board: from a reviewed position, a line the game did not play
        entry = next(e for e in reversed(view["log"][:-1]) if e["seat"] == 1 and e["round"] >= 1)
        i = view["log"].index(entry)
        start = entry["ply"]
        driver.click_and_wait(f'#log li:nth-child({i})')              # the position after the turn before
        assert page.evaluate("window.palaisPage.shownPly()") == start
        before = driver.renders()
        page.click("#explore-button")
        driver.wait_redrawn(before)
        explored = page.evaluate("window.palaisPage.explore()")
        assert explored and explored["line"] == []
        # the game's own steps while they are the only choice, then another one
        own = entry["tokens"].split()
        for k, played in enumerate(own):
            legal = [e["token"] for e in explored["view"]["legal"]]
            other = [t for t in legal if t != played]
            driver.choose(other[0] if other else played)
            explored = page.evaluate("window.palaisPage.explore()")
            if other:
                break
        else:
            raise AssertionError("the turn offered no other choice")
        assert explored["line"] == own[:k] + [other[0]] and explored["line"] != own[:k + 1]
        evaluation = explored["evaluation"]
        assert evaluation["seat"] == 1 and 0 <= evaluation["win"] <= 1
        assert str(round(evaluation["win"] * 100)) in page.inner_text("#explore-eval")
        assert page.is_visible("#explore-line .turn-words .step")
        driver.shot("analysis-board")
        if lang == "en":
            docs_shot(driver, "web-analysis-board.png")
        before = driver.renders()
        page.click("#explore-leave")                                   # back to the game's line
        driver.wait_redrawn(before)
        assert page.evaluate("window.palaisPage.explore()") is None
        assert page.evaluate("window.palaisPage.shownView().ply") == start


@pytest.mark.slow
@needs_browser
def test_the_end_screen_adds_up_and_a_rematch_starts_from_it(tmp_path):
    with opened(tmp_path) as (url, page, driver):
        first = start_game(driver, ["random", "greedy"])
        assert driver.wait_for_decision_or_end() == "over"
        page.wait_for_selector("#end-screen:not([hidden])")
        view = driver.view()
        assert view["final"]
        driver.shot("end-screen")
        docs_shot(driver, "web-end-screen.png")
        rows = page.query_selector_all("#end-rows tr")
        assert len(rows) == 2
        sources = {part["source"] for seat in view["final"] for part in seat["parts"]}
        shown = set(page.eval_on_selector_all("#end-head th[data-source]", "nodes => nodes.map(n => n.dataset.source)"))
        assert shown == sources                                   # every part of the breakdown
        for row in rows:
            seat = int(row.get_attribute("data-seat"))
            parts = row.eval_on_selector_all("td.part", "nodes => nodes.map(n => Number(n.dataset.vp))")
            total = float(row.eval_on_selector("td.total", "n => n.dataset.vp"))
            assert sum(parts) == total == view["scores"][seat - 1]  # it adds up to the score
        winner = max(range(2), key=lambda q: (view["scores"][q], view["players"][q]["gold"]))
        assert page.get_attribute("#end-rows tr:first-child", "data-seat") == str(winner + 1)
        # a rematch: the same seats, a new deal, from the end screen
        page.click("#end-rematch")
        page.wait_for_function("id => window.palaisPage.view() && window.palaisPage.view().game !== id", arg=first["game"])
        second = driver.view()
        assert second["kinds"] == ["greedy", "random"]            # every seat moved one place on
        assert second["game"] != first["game"]
        driver.shot("rematch")
        # and back to the lobby from the rematch's end
        assert driver.wait_for_decision_or_end() == "over"
        page.wait_for_selector("#end-screen:not([hidden])")
        page.click("#end-lobby")
        page.wait_for_selector("#new-game-dialog[open]")
        assert "#game=" not in page.url
        driver.shot("lobby")


@pytest.mark.slow
@needs_browser
def test_the_dialog_offers_levels_defaults_to_the_medium_one_and_switches_language_open(tmp_path):
    with opened(tmp_path) as (url, page, driver):
        page.wait_for_selector("#new-game-dialog[open]")
        page.wait_for_function("document.body.dataset.ready === '1'")
        meta = page.evaluate("fetch('/api/meta').then(r => r.json())")
        default = next(level for level in meta["levels"] if level["default"])
        assert default["id"] == "club"                             # the medium level
        seat_b = "#seat-rows .seat-row:nth-child(2) .seat-kind"
        assert page.eval_on_selector(seat_b, "s => s.value") == "level:club"
        labels = page.eval_on_selector_all(f"{seat_b} optgroup:first-of-type option", "nodes => nodes.map(n => n.textContent)")
        assert labels == ["Beginner", "Club", "Strong", "Maximum"]
        assert page.input_value("#budget-input") == str(default["budget_ms"])
        assert page.locator("#rule-options label", has_text="round_cap").count() == 0
        assert page.locator("#rule-options .help").count() >= 1
        page.select_option(seat_b, "level:strong")
        page.fill("#seed-input", "42")
        driver.shot("dialog-en")
        docs_shot(driver, "web-new-game-dialog.png")
        # the language, while the dialog is open: everything is redrawn, nothing chosen is lost
        page.select_option("#dialog-language", "fr")
        page.wait_for_function("document.querySelector('#new-game-dialog h2').textContent === 'Nouvelle partie'")
        assert page.eval_on_selector("#new-game-dialog", "d => d.open")
        labels = page.eval_on_selector_all(f"{seat_b} optgroup:first-of-type option", "nodes => nodes.map(n => n.textContent)")
        assert labels == ["Débutant", "Club", "Fort", "Le plus fort"]
        assert page.eval_on_selector(seat_b, "s => s.value") == "level:strong"
        assert page.input_value("#seed-input") == "42"
        assert page.locator("#rule-options label", has_text="Limite de manches").count() == 1
        assert page.input_value("#language-select") == "fr"        # the header follows
        driver.shot("dialog-fr")
        page.select_option("#dialog-language", "zh")
        page.wait_for_function("document.documentElement.lang === 'zh'")
        assert page.eval_on_selector(seat_b, "s => s.value") == "level:strong"
        driver.shot("dialog-zh")
        # the game is made with the level's player
        page.select_option(seat_b, "level:beginner")
        before = driver.renders()
        page.click("#new-game-start")
        driver.wait_redrawn(before)
        beginner = next(level for level in meta["levels"] if level["id"] == "beginner")
        assert driver.view()["kinds"] == ["human", beginner["player"]]


SMALL = 40          # px: the least a button may measure each way on a phone


@pytest.mark.slow
@needs_browser
def test_a_phone_in_portrait_scrolls_no_sideways_and_every_button_is_a_finger_wide(tmp_path):
    check = """() => {
        const small = [];
        for (const node of document.querySelectorAll('button, .button, select')) {
            const box = node.getBoundingClientRect();
            if (!box.width || !box.height || getComputedStyle(node).visibility === 'hidden') continue;
            if (box.width < %d || box.height < %d) small.push(`${node.id || node.textContent.trim()} ${box.width}x${box.height}`);
        }
        const unlabelled = [...document.querySelectorAll('button')].filter(b => b.getBoundingClientRect().width
            && !(b.textContent.trim() || b.getAttribute('aria-label'))).map(b => b.id);
        return {wide: document.documentElement.scrollWidth <= innerWidth, small, unlabelled};
    }""" % (SMALL, SMALL)
    with opened(tmp_path, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True) as (url, page, driver):
        page.wait_for_selector("#new-game-dialog[open]")
        assert page.evaluate(check) == {"wide": True, "small": [], "unlabelled": []}
        driver.shot("phone-dialog")
        start_game(driver, ["human", "random"])
        play_until(driver, Policy(5), lambda v: v["ply"] >= 24 and v["legal"])
        result = page.evaluate(check)
        assert result == {"wide": True, "small": [], "unlabelled": []}, result
        # the panels are under the board, not beside it
        board = page.eval_on_selector("#board", "n => n.getBoundingClientRect().toJSON()")
        side = page.eval_on_selector("#side", "n => n.getBoundingClientRect().toJSON()")
        assert side["top"] >= board["bottom"] - 1 and board["width"] <= 390
        for region in ("#board-area", "#side", "#log", "#actions"):
            assert page.get_attribute(region, "aria-label")
        driver.shot("phone-game")
        docs_shot(driver, "web-phone.png", full_page=True)


@pytest.mark.slow
@needs_browser
def test_the_speed_setting_is_remembered_and_plays_the_other_seats_turns_and_hints_read_in_words(tmp_path):
    with opened(tmp_path) as (url, page, driver):
        assert page.input_value("#speed-select") == "instant"        # the test driver's default
        page.select_option("#speed-select", "fast")
        assert page.evaluate("localStorage.getItem('palais.speed')") == "fast"
        start_game(driver, ["human", "random"])
        play_until(driver, Policy(3), lambda v: v["round"] >= 2 and v["stage"] == "MOVES" and v["legal"])
        played = page.evaluate("window.palaisPage.played()")
        assert played, "no turn of the other seat was played out"
        view = driver.view()
        tokens = game_tokens(view)
        seats = [entry["seat"] for entry in view["log"] for _ in entry["tokens"].split()]
        for turn in played:
            assert turn["speed"] == "fast"
            others = [t for t, s in zip(tokens[turn["from"]:turn["to"]], seats[turn["from"]:turn["to"]]) if s != 1]
            assert turn["tokens"] == others                          # the other seat's steps, in order
        # a hint's line reads in words too, step by step as its tokens
        page.click("#hint-button")
        page.wait_for_selector("#hint-list li.hint")
        hints = page.query_selector_all("#hint-list li.hint")
        for item in hints:
            steps = item.eval_on_selector_all(".turn-words .step", "nodes => nodes.map(n => n.dataset.token)")
            assert steps and " ".join(steps) == item.eval_on_selector(".turn", "n => n.title")
        driver.shot("hints-in-words")
        page.reload()
        page.wait_for_function("document.body.dataset.ready === '1'")
        assert page.input_value("#speed-select") == "fast"           # remembered
