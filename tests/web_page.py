"""Driving `palais serve`'s page in a real headless Chromium, for the browser tests and
bench/web.py: the server in a thread on a free port, the browser, and the page's targets.

The page marks every clickable legal target with its notation token (data-token) and counts
its redraws (body data-renders) and requests in flight (body data-busy), so a driver waits
for the page to have drawn an answer, never for a length of time.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import threading
import time

CHROMIUM = "/usr/bin/chromium"
WAIT_MS = 120_000          # generous bound for anything the page waits for (engines included)
PREFERRED_ROOMS = ("OFFICE", "KING", "MADAME", "BACKDOOR", "MINT")


def chromium_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None. CI installs Chromium (.ci/run)."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is not installed (apt-get install chromium); CI installs it"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


SEED = 20261201           # the deals of the page's new games in the browser tests


@contextlib.contextmanager
def served(config=None, port: int = 0):
    """The app of `config` (web.config.ServerConfig) served by uvicorn in a thread on a free
    loopback port (or `port`); yields its base URL and stops the server (and its games) on exit."""
    import uvicorn

    from web.app import create_app
    from web.cli import uvicorn_options
    from web.config import ServerConfig

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    # A seeded generator for the deals (the draws' secrets are seeded in test processes too:
    # tests/conftest.py), so a browser test plays the same game on every run.
    config = config or ServerConfig(seeds=random.Random(SEED))
    config.port = port
    server = uvicorn.Server(uvicorn.Config(create_app(config), lifespan="on",
                                           **uvicorn_options(config)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)
        sock.close()


@contextlib.contextmanager
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


class PageDriver:
    """One browser tab on the page, with the waits every step needs and a screenshot of
    each step in `shots` (a folder)."""

    def __init__(self, page, shots=None, speed=None):
        self.page = page
        # The board plays the others' turns out at this speed (the page's "palais.speed"):
        # "instant" unless told (PALAIS_WEB_SPEED, or a test's own choice), so no wait is for an animation.
        speed = speed or os.environ.get("PALAIS_WEB_SPEED") or "instant"
        page.add_init_script(f"try {{ if (!localStorage.getItem('palais.speed')) localStorage.setItem('palais.speed', '{speed}'); }} catch (e) {{}}")
        self.shots = shots
        self.errors = []
        self.step = 0
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.set_default_timeout(WAIT_MS)

    def shot(self, name: str) -> None:
        if self.shots is not None:
            self.step += 1
            self.page.screenshot(path=str(self.shots / f"{self.step:03d}-{name}.png"))

    def renders(self) -> int:
        return int(self.page.evaluate("Number(document.body.dataset.renders || 0)"))

    def wait_redrawn(self, before: int) -> None:
        """Until the page has drawn again after `before` redraws and has nothing in flight."""
        self.page.wait_for_function(
            "n => Number(document.body.dataset.renders || 0) > n && document.body.dataset.busy !== '1'", arg=before)

    def click_and_wait(self, selector: str) -> None:
        before = self.renders()
        self.page.click(selector)
        self.wait_redrawn(before)

    def view(self) -> dict:
        """The view the page shows (its live view; the page keeps it for the tests). It
        crosses as one JSON string: Playwright checks a returned object node by node, which
        cost a browser test a quarter of its time."""
        return json.loads(self.page.evaluate("JSON.stringify(window.palaisPage.view())"))

    def targets(self) -> list:
        """The tokens of every legal target the page offers now (board and buttons)."""
        return self.page.eval_on_selector_all(
            "#board [data-token].target, #actions [data-token]", "nodes => nodes.map(n => n.dataset.token)")

    def move_sources(self) -> list:
        return self.page.eval_on_selector_all("#board [data-from].target", "nodes => nodes.map(n => n.dataset.from)")

    def choose(self, token: str) -> None:
        """Clicks the target of `token` (a move: its source room, then its destination)."""
        if "-" in token:
            source, _ = token.split("-")
            self.click_and_wait(f'#board [data-from="{source}"]')
        selector = f'#board [data-token="{token}"].target, #actions [data-token="{token}"]'
        self.click_and_wait(selector)

    def wait_for_decision_or_end(self) -> str:
        """Until the page offers a decision, the pass-the-device screen or the end of the
        game: "decide", "pass" or "over"."""
        handle = self.page.wait_for_function("""() => {
            if (document.body.dataset.busy === '1') return null;
            if (document.querySelector('#board.animating')) return null;     // a turn still playing out
            if (!document.getElementById('pass-screen').hidden) return 'pass';
            const v = window.palaisPage.view();
            if (v && v.over) return 'over';
            if (document.querySelector('#board [data-token].target, #board [data-from].target, #actions [data-token]')) return 'decide';
            return null;
        }""")
        return handle.json_value()


class Policy:
    """A seeded player that recruits whenever it can, so a game ends, and uses every kind
    of decision the tests must cover: setup placements (BACKDOOR among them, so cards come),
    moves from the GATE and the PARADE towards useful rooms (up to 3 a turn), cards, the
    GATE count and the bonuses (taken or declined at random)."""

    SETUP = ("BACKDOOR", "OFFICE", "MINT", "BACKDOOR", "KING")
    MOVE_FROM = ("GATE", "PARADE", "CARDINAL")
    MOVE_TO = ("OFFICE", "BACKDOOR", "MINT", "KING", "MADAME")

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.moves_this_turn = 0
        self.placed = 0

    def pick(self, view: dict) -> dict:
        legal = view["legal"]
        by_kind = {}
        for entry in legal:
            by_kind.setdefault(entry["kind"], []).append(entry)
        if "move" not in by_kind:
            self.moves_this_turn = 0
        if "take" in by_kind:
            return by_kind["take" if self.rng.random() < 0.5 else "decline"][0]
        for kind in ("play", "recruit"):
            if kind in by_kind:
                return by_kind[kind][0]
        if "gate" in by_kind:
            return max(by_kind["gate"], key=lambda e: e["count"])
        if "move" in by_kind and self.moves_this_turn < 3:
            useful = [e for e in by_kind["move"] if e["from"] in self.MOVE_FROM and e["to"] in self.MOVE_TO]
            if useful:
                self.moves_this_turn += 1
                return self.rng.choice(useful)
        if "room" in by_kind:
            rooms = {e["room"]: e for e in by_kind["room"]}
            if view["stage"] == "SETUP":
                wanted = self.SETUP[self.placed % len(self.SETUP)]
                self.placed += 1
                if wanted in rooms:
                    return rooms[wanted]
            return by_kind["room"][0]
        for kind in ("end", "continue", "decline"):
            if kind in by_kind:
                return by_kind[kind][0]
        return legal[0]
