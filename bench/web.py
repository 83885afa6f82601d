"""How fast `palais serve` answers: the time from a click to the redrawn board in Chromium
(server round trip plus rendering; two people at one screen, so no engine thinks), and how
many concurrent games against the random engine the server keeps under 50 ms per action
(95th percentile), each game's player pausing about --think-ms before each action.

    python bench/web.py [--clicks 150] [--actions 30] [--max-games 48] [--think-ms 500]

The server runs in its own process, as `palais serve` does. Last line:
click_to_board_ms_p50=<x> click_to_board_ms_p95=<y> games_under_50ms=<n>
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
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
port, max_games = int(sys.argv[1]), int(sys.argv[2])
config = ServerConfig(port=port, max_games=max_games)
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


def start_server(max_games: int):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(max_games)])
    url = f"http://127.0.0.1:{port}"
    import httpx
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{url}/api/meta", timeout=2).raise_for_status()
            return process, url
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise SystemExit("the server did not start")
            time.sleep(0.1)


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


async def game_action_ms(client, url: str, actions: int, seed: int, think_ms: float) -> list:
    """One game, seat 1 played through the API against the random engine (its turns are
    awaited on the game's WebSocket), its player pausing about `think_ms` before each action
    as a quick person would: the time of each action request."""
    import websockets

    rng = random.Random(seed)
    answer = (await client.post(f"{url}/api/games", json={
        "players": [{"kind": "human"}, {"kind": "engine", "name": "random"}],
        "first_game": True, "seed": seed, "budget_ms": 1000, "options": {}, "names": None})).json()
    game, view = answer["game"], answer["view"]
    times = []
    async with websockets.connect(f"ws{url[4:]}/ws/games/{game}?seat=1", max_size=None) as socket:
        while len(times) < actions and not view["over"]:
            while not view["legal"] and not view["over"]:       # the engine's turn
                message = json.loads(await socket.recv())
                if message["type"] == "view" and message["view"]["ply"] >= view["ply"]:
                    view = message["view"]
            if view["over"]:
                break
            token = rng.choice(view["legal"])["token"]
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
            start = time.perf_counter()
            response = await client.post(f"{url}/api/games/{game}/action", json={"seat": 1, "action": token})
            times.append((time.perf_counter() - start) * 1000)
            view = response.json()
    await client.delete(f"{url}/api/games/{game}")
    return times


async def concurrent_p95(url: str, games: int, actions: int, think_ms: float) -> float:
    import httpx
    limits = httpx.Limits(max_connections=games + 4)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        results = await asyncio.gather(*(game_action_ms(client, url, actions, seed, think_ms) for seed in range(games)))
    return percentile([ms for times in results for ms in times], 0.95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=150, help="clicks timed in Chromium")
    parser.add_argument("--actions", type=int, default=30, help="actions per concurrent game")
    parser.add_argument("--max-games", type=int, default=48, help="the most concurrent games tried")
    parser.add_argument("--think-ms", type=float, default=500,
                        help="a player's mean pause before each action in the concurrent games")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    reason = chromium_missing_reason()
    if reason:
        raise SystemExit(reason)
    process, url = start_server(args.max_games + 2)
    try:
        times = click_to_board_ms(url, args.clicks, args.seed)
        p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
        print(f"click to redrawn board over {len(times)} clicks: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
              f"mean {statistics.mean(times):.1f} ms", flush=True)
        under = 0
        for games in [n for n in (1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64) if n <= args.max_games]:
            p95_games = asyncio.run(concurrent_p95(url, games, args.actions, args.think_ms))
            print(f"{games} concurrent games against random: action p95 {p95_games:.1f} ms", flush=True)
            if p95_games >= LIMIT_MS:
                break
            under = games
    finally:
        process.terminate()
        process.wait(30)
    print(f"click_to_board_ms_p50={p50:.1f} click_to_board_ms_p95={p95:.1f} games_under_50ms={under}")


if __name__ == "__main__":
    main()
