"""How fast `palais serve` answers, with its games in SQLite (--db, as `palais serve` runs
by default): the time from a click to the redrawn board in Chromium (server round trip plus
rendering; two people at one screen, so no engine thinks), the p50/p95 of an action's round
trip at --games concurrent games against the random engine (each player pausing about
--think-ms before each action), how many concurrent games stay under 50 ms (p95), and the
database's size per finished game.

    python bench/web.py [--clicks 150] [--actions 30] [--games 16] [--max-games 48]
                        [--think-ms 500] [--finished 8] [--no-browser] [--db :memory:]

The server runs in its own process group, as `palais serve` does, and is ended (the whole
group) however the benchmark ends. Only the standard library and the project's own
dependencies (websockets) are used. Last line:
click_to_board_ms_p50=<x> click_to_board_ms_p95=<y> action_ms_p50=<a> action_ms_p95=<b>
games_under_50ms=<n> db_bytes_per_finished_game=<s>
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.insert(0, str(Path(_HERE).parent / "tests"))

from web_page import PageDriver, Policy, browser, chromium_missing_reason  # noqa: E402

LIMIT_MS = 50.0
SERVER = """
import sys, uvicorn
from web.app import create_app
from web.cli import uvicorn_options
from web.config import ServerConfig
port, max_games, db = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
config = ServerConfig(port=port, max_games=max_games, db=db)
uvicorn.run(create_app(config), host="127.0.0.1", port=port, **uvicorn_options(config))
"""

# One click on a target, timed in the page from the click to the end of the redraw that
# answers it (the page counts its redraws in body[data-renders]).
TIMED_CLICK = """async (selector) => {
  const before = Number(document.body.dataset.renders || 0);
  const done = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (Number(document.body.dataset.renders || 0) > before && document.body.dataset.busy !== '1') {
        observer.disconnect();
        resolve(performance.now());
      }
    });
    observer.observe(document.body, { attributes: true });
  });
  const start = performance.now();
  document.querySelector(selector).dispatchEvent(new MouseEvent('click', { bubbles: true }));
  return (await done) - start;
}"""


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def start_server(max_games: int, db: str):
    """The server in a process group of its own (its engines too); (process, url)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(max_games), db],
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/meta", timeout=2):
                return process, url
        except (urllib.error.URLError, ConnectionError):
            if process.poll() is not None or time.monotonic() > deadline:
                stop_server(process)
                raise SystemExit("the server did not start")
            time.sleep(0.1)


def stop_server(process) -> None:
    """End the server's whole process group: politely, then for good after 10 s."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
    except ProcessLookupError:
        pass


class Http:
    """A minimal HTTP/1.1 client over one keep-alive connection (asyncio streams): JSON in,
    JSON out, enough for this benchmark without another package."""

    def __init__(self, url: str):
        self.host, self.port = url.split("//")[1].split(":")
        self.port = int(self.port)
        self.origin = url
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body=None, key=None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nOrigin: {self.origin}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                + (f"X-Palais-Key: {key}\r\n" if key else "") + "\r\n")
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "connection" and "close" in value.lower():
                close = True
        payload = await self.reader.readexactly(length)
        if close:
            await self.close()
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {payload[:200]!r}")
        return json.loads(payload) if payload else None

    async def close(self):
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


def click_to_board_ms(url: str, clicks: int, seed: int) -> list:
    """Times `clicks` actions clicked on the page in a game between two people."""
    times = []
    policy = Policy(seed)
    with browser() as chromium:
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        driver = PageDriver(page)
        page.goto(url)
        page.wait_for_selector("#new-game-dialog[open]")
        page.select_option("#seat-rows .seat-row:nth-child(2) .seat-kind", "human")
        page.check('input[name="where"][value="shared"]')
        page.fill("#seed-input", str(seed))
        before = driver.renders()
        page.click("#new-game-start")
        driver.wait_redrawn(before)
        while len(times) < clicks:
            state = driver.wait_for_decision_or_end()
            if state == "over":
                break
            if state == "pass":
                driver.click_and_wait("#pass-button")
                continue
            token = policy.pick(driver.view())["token"]
            if "-" in token:
                driver.click_and_wait(f'#board [data-from="{token.split("-")[0]}"]')
            selector = f'#board [data-token="{token}"].target, #actions [data-token="{token}"]'
            times.append(page.evaluate(TIMED_CLICK, selector))
    return times


async def game_action_ms(url: str, actions: int, seed: int, think_ms: float, keep=False) -> list:
    """One game, seat 1 played through the API against the random engine (its turns are
    awaited on the game's WebSocket), its player pausing about `think_ms` before each action
    as a quick person would: the time of each action request (`actions` of them; 0: to the
    end). The game is deleted after, unless `keep`."""
    import websockets

    rng = random.Random(seed)
    client = Http(url)
    answer = await client.request("POST", "/api/games", {
        "players": [{"kind": "human"}, {"kind": "engine", "name": "random"}],
        "first_game": True, "seed": seed, "budget_ms": 1000, "options": {}, "names": None})
    game, view, key, owner = answer["game"], answer["view"], answer["seats"][0]["key"], answer["owner"]
    times = []
    async with websockets.connect(f"ws{url[4:]}/ws/games/{game}", max_size=None,
                                  origin=url) as socket:
        await socket.send(json.dumps({"key": key}))
        while (not actions or len(times) < actions) and not view["over"]:
            while not view["legal"] and not view["over"]:       # the engine's turn
                message = json.loads(await socket.recv())
                if message["type"] == "view" and message["view"]["ply"] >= view["ply"]:
                    view = message["view"]
            if view["over"]:
                break
            token = rng.choice(view["legal"])["token"]
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
            start = time.perf_counter()
            view = await client.request("POST", f"/api/games/{game}/action",
                                        {"action": token, "version": view["version"]}, key)
            times.append((time.perf_counter() - start) * 1000)
    if not keep:
        await client.request("DELETE", f"/api/games/{game}", key=owner)
    await client.close()
    return times


async def concurrent(url: str, games: int, actions: int, think_ms: float) -> list:
    results = await asyncio.gather(*(game_action_ms(url, actions, seed, think_ms) for seed in range(games)))
    return [ms for times in results for ms in times]


async def finished_games(url: str, count: int) -> None:
    await asyncio.gather(*(game_action_ms(url, 0, 1000 + seed, 0, keep=True) for seed in range(count)))


def db_bytes(path: str) -> int:
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return os.path.getsize(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=150, help="clicks timed in Chromium")
    parser.add_argument("--actions", type=int, default=30, help="actions per concurrent game")
    parser.add_argument("--games", type=int, default=16, help="concurrent games for the p50/p95 line")
    parser.add_argument("--max-games", type=int, default=48, help="the most concurrent games tried")
    parser.add_argument("--finished", type=int, default=8, help="games played to the end to size the database")
    parser.add_argument("--no-browser", action="store_true", help="skip the clicks in Chromium")
    parser.add_argument("--db", default=None, help="the server's --db (default: a fresh temporary file)")
    parser.add_argument("--think-ms", type=float, default=500,
                        help="a player's mean pause before each action in the concurrent games")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    reason = None if args.no_browser else chromium_missing_reason()
    if reason:
        raise SystemExit(reason + " (or --no-browser)")
    folder = tempfile.mkdtemp(prefix="palais-bench-")
    db = args.db or os.path.join(folder, "games.sqlite3")
    p50 = p95 = float("nan")
    process, url = start_server(max(args.max_games, args.games, args.finished) + 2, db)
    try:
        if not args.no_browser:
            times = click_to_board_ms(url, args.clicks, args.seed)
            p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
            print(f"click to redrawn board over {len(times)} clicks: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
                  f"mean {statistics.mean(times):.1f} ms", flush=True)
        times = asyncio.run(concurrent(url, args.games, args.actions, args.think_ms))
        a50, a95 = percentile(times, 0.5), percentile(times, 0.95)
        print(f"{args.games} concurrent games, database {'on' if db != ':memory:' else 'off'}: "
              f"action round trip p50 {a50:.1f} ms, p95 {a95:.1f} ms over {len(times)} actions", flush=True)
        under = 0
        for games in [n for n in (1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64) if n <= args.max_games]:
            p95_games = percentile(asyncio.run(concurrent(url, games, args.actions, args.think_ms)), 0.95)
            print(f"{games} concurrent games against random: action p95 {p95_games:.1f} ms", flush=True)
            if p95_games >= LIMIT_MS:
                break
            under = games
        per_game = float("nan")
        if db != ":memory:" and args.finished:
            empty = db_bytes(db)
            asyncio.run(finished_games(url, args.finished))
            per_game = (db_bytes(db) - empty) / args.finished
            print(f"database: {per_game:.0f} bytes per finished game ({args.finished} games)", flush=True)
    finally:
        stop_server(process)
    print(f"click_to_board_ms_p50={p50:.1f} click_to_board_ms_p95={p95:.1f} action_ms_p50={a50:.1f} "
          f"action_ms_p95={a95:.1f} games_under_50ms={under} db_bytes_per_finished_game={per_game:.0f}")


if __name__ == "__main__":
    main()
