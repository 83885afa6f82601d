"""Load: how long an action takes to reach every watcher, with one or several `palais serve`
processes over one database (issue 42, item 5).

Starts PROCESSES servers over one --db (a PostgreSQL DSN, `private-postgres` for a private
cluster made for the run in a temporary folder as tests/postgres_cluster.py makes it, or an
SQLite file), makes GAMES games of two people through the first, opens WATCHERS spectator
WebSockets spread evenly over the games and the processes, then plays ACTIONS actions in all
(each game's actions one after another, the games at once, each action sent to the
processes in turn; the watchers in a process of their own), and measures, for every watcher and every action, the time from the
action's request to that watcher's view of it. A 409 (the game moved on) is looked at
again and sent anew; anything else is an error.

    python bench/servers_load.py --db private-postgres --processes 2 [--games 50] [--watchers 200] [--actions 5000]
    python bench/servers_load.py --db /tmp/load.sqlite3 --processes 1

Last line: `processes=.. backend=.. actions=.. deliveries=.. p50_ms=.. p95_ms=.. p99_ms=..
errors=.. missed=.. actions_per_s=..` (missed: watcher deliveries that never came). A
figure, not a test: run it with nothing else on the machine and give the load with it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HUMANS = [{"kind": "human"}, {"kind": "human"}]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http(method: str, url: str, body=None, key=None):
    data = None if body is None else json.dumps(body).encode()
    origin = url.split("/api")[0]
    request = urllib.request.Request(url, data=data, method=method, headers={
        "content-type": "application/json", "origin": origin, **({"x-palais-key": key} if key else {})})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def start_server(db: str, port: int, max_games: int) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--port", str(port), "--db", db,
                               "--max-games", str(max_games), "--sandbox", "off"], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            http("GET", f"http://127.0.0.1:{port}/api/meta")
            return server
        except (urllib.error.URLError, ConnectionError):
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server on port {port} did not start")
            time.sleep(0.1)


@contextlib.contextmanager
def database(db: str):
    if db != "private-postgres":
        yield db
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from postgres_cluster import missing_reason, private_cluster
    why = missing_reason()
    if why:
        raise SystemExit(f"private-postgres: {why}")
    with private_cluster() as dsn:
        yield dsn


async def watch(url: str, game: str, seen: dict, ready: asyncio.Event, stop: asyncio.Event, errors: list):
    """One spectator socket: the time each ply of `game` was first shown to it."""
    from websockets.asyncio.client import connect
    port_url = url.replace("http://", "ws://")
    try:
        async with connect(f"{port_url}/ws/games/{game}", origin=url, open_timeout=60,
                           max_size=None) as ws:
            await ws.send(json.dumps({"key": None}))
            ready.set()
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 0.5)
                except asyncio.TimeoutError:
                    continue
                message = json.loads(raw)
                if message.get("type") == "view":
                    seen.setdefault(message["view"]["ply"], time.monotonic())
    except Exception as exc:                  # noqa: BLE001 (counted, the run goes on)
        ready.set()
        errors.append(f"watcher: {type(exc).__name__}: {exc}")


def play(urls: list, game: str, keys: dict, actions: int, sent: dict, errors: list) -> None:
    """`actions` decisions of `game`, sent to the processes in turn; the time each ply was asked for."""
    done, turn = 0, 0
    while done < actions:
        url = urls[turn % len(urls)]
        turn += 1
        view = None
        for key in keys.values():
            candidate = http("GET", f"{url}/api/games/{game}/view", key=key)
            if candidate["legal"]:
                view, mover_key = candidate, key
                break
        if view is None:
            if candidate["over"]:
                return
            time.sleep(0.005)
            continue
        t0 = time.monotonic()
        try:
            answer = http("POST", f"{url}/api/games/{game}/action",
                          {"action": view["legal"][0]["token"], "version": view["version"]}, key=mover_key)
        except urllib.error.HTTPError as exc:
            if exc.code != 409:
                errors.append(f"action: HTTP {exc.code}")
            continue
        sent[answer["ply"]] = t0
        done += 1


def watchers_process(urls: list, games: list, count: int, conn) -> None:
    """The watchers, in a process of their own (their clock is the machine's monotonic one,
    so their times compare with the actors'): ready once each socket had its first view,
    then at "stop" the times each saw each ply."""
    async def body():
        stop, errors, seen, tasks, readies = asyncio.Event(), [], [], [], []
        for w in range(count):
            g = w % len(games)
            ready, times = asyncio.Event(), {}
            seen.append((g, times))
            readies.append(ready)
            tasks.append(asyncio.create_task(watch(urls[(w // len(games)) % len(urls)], games[g],
                                                   times, ready, stop, errors)))
        for ready in readies:
            await ready.wait()
        await asyncio.sleep(1.0)                    # every socket has had its first view
        conn.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        stop.set()
        await asyncio.gather(*tasks)
        conn.send({"seen": [(g, list(times.items())) for g, times in seen], "errors": errors})
    asyncio.run(body())


def run(args, db: str) -> None:
    import multiprocessing
    ports = [free_port() for _ in range(args.processes)]
    servers = [start_server(db, port, max(args.games + 8, 16)) for port in ports]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    errors: list = []
    try:
        games = []
        for i in range(args.games):
            made = http("POST", f"{urls[0]}/api/games", {"players": HUMANS, "seed": 1000 + i, "budget_ms": 50})
            games.append((made["game"], {s["seat"]: s["key"] for s in made["seats"] if s["key"]}))
        here, there = multiprocessing.Pipe()
        watching = multiprocessing.get_context("spawn").Process(
            target=watchers_process, args=(urls, [g for g, _ in games], args.watchers, there))
        watching.start()
        if here.recv() != "ready":
            raise SystemExit("the watchers did not start")
        sent = [dict() for _ in games]
        per_game = [args.actions // args.games + (1 if i < args.actions % args.games else 0)
                    for i in range(args.games)]
        started = time.monotonic()
        threads = [threading.Thread(target=play, args=(urls, game, keys, n, sent[i], errors))
                   for i, ((game, keys), n) in enumerate(zip(games, per_game))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        time.sleep(2.0)                             # the last views on their way
        here.send("stop")
        result = here.recv()
        watching.join(30)
        errors += result["errors"]
        delays, missed = [], 0
        for g, times in result["seen"]:
            times = dict(times)
            for ply, t0 in sent[g].items():
                if ply in times:
                    delays.append((times[ply] - t0) * 1000)
                else:
                    missed += 1
        played = sum(len(s) for s in sent)
        p50, p95, p99 = (np.percentile(delays, q) if delays else float("nan") for q in (50, 95, 99))
        backend = "postgres" if db.startswith("postgres") else "sqlite"
        for error in sorted(set(errors))[:10]:
            print("error:", error)
        print(f"processes={args.processes} backend={backend} actions={played} deliveries={len(delays)} "
              f"p50_ms={p50:.1f} p95_ms={p95:.1f} p99_ms={p99:.1f} errors={len(errors)} missed={missed} "
              f"actions_per_s={played / elapsed:.1f}")
    finally:
        for server in servers:
            server.kill()
            server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="private-postgres",
                        help="a postgresql:// DSN, private-postgres, or an SQLite file")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--actions", type=int, default=5000)
    args = parser.parse_args()
    if args.processes < 1 or args.games < 1 or args.watchers < 0 or args.actions < 1:
        parser.error("--processes, --games and --actions must be at least 1, --watchers at least 0")
    if not args.db.startswith("postgres") and args.db != "private-postgres" and args.processes > 1:
        print("note: several processes over one SQLite file: each checks the versions, but only "
              "PostgreSQL tells the others' watchers (LISTEN/NOTIFY)", file=sys.stderr)
    with database(args.db) as db:
        if not db.startswith("postgres") and os.path.exists(db):
            os.remove(db)
        run(args, db)


if __name__ == "__main__":
    main()
