"""Soak: `palais serve --db FILE` under clients playing, a program locking the file, and kill -9.

Clients play several games of two people as fast as they can (an action chosen from the
View they hold, sent with its version). Meanwhile another program holds the database locked
for writing now and then, sometimes past the server's 5 s busy timeout, and the server is
killed with SIGKILL at random moments and started again on the same file and port. At the
end the file is read back and checked against what the clients were told (issue 38, "store
first, then show"):
- every action answered 200 is in the file, at the ply it was chosen for;
- every person's decision in the file was answered 200, or was in flight when the server was
  killed (its answer lost with the connection) and is that request's token;
- the answers: 200, 409 (stale or not its turn: the game moved on), 503 (the file locked),
  and connection errors while the server was down. Never a 500.

    python bench/soak_server.py [--seconds 60] [--games 4] [--seed 1]     (--games: clients at once)

Prints the counts and `soak: OK` or each violation; exit status 1 on any violation. It only
talks to 127.0.0.1, and stops by itself.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.notation import action_to_token  # noqa: E402
from web.sql_store import SqlStore  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, db: Path, port: int):
        self.db, self.port, self.process = db, port, None
        self.url = f"http://127.0.0.1:{port}"

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--port", str(self.port),
                                         "--db", str(self.db)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                call("GET", f"{self.url}/api/meta", timeout=2)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.05)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def call(method, url, body=None, key=None, timeout=30):
    """(status, JSON answer); OSError when there was no answer at all."""
    headers = {"content-type": "application/json"}
    if key:
        headers["x-palais-key"] = key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def client(server: Server, rng: random.Random, stop: threading.Event, logs: dict):
    """One client: a new game of two people, played to its end, then another, until `stop`;
    what it was told of each game goes to logs[game]."""
    while not stop.is_set():
        try:
            status, made = call("POST", f"{server.url}/api/games",
                                {"players": [{"kind": "human"}, {"kind": "human"}], "seed": rng.randrange(1 << 30)})
        except OSError:
            time.sleep(0.1)
            continue
        if status != 200:
            time.sleep(0.1)
            continue
        game = made["game"]
        logs[game] = {"answered": [], "unknown": [], "statuses": Counter()}
        play(server, game, {s["seat"]: s["key"] for s in made["seats"]}, rng, stop, logs[game])


def play(server: Server, game: str, keys: dict, rng: random.Random, stop: threading.Event, log: dict):
    """Both seats of `game`, a person's pace (20 to 100 ms a decision), until it is over or
    `stop`; what it was told goes to `log`."""
    while not stop.is_set():
        time.sleep(rng.uniform(0.02, 0.1))
        try:
            status, view = call("GET", f"{server.url}/api/games/{game}/view", key=keys[1])
            if status != 200:
                time.sleep(0.05)
                continue
            if view["over"]:
                return
            seat = view["to_move"]
            status, mine = call("GET", f"{server.url}/api/games/{game}/view", key=keys[seat])
            if status != 200 or not mine["legal"]:
                continue
            token = rng.choice(mine["legal"])["token"]
        except OSError:
            time.sleep(0.05)
            continue
        try:
            status, answer = call("POST", f"{server.url}/api/games/{game}/action",
                                  {"action": token, "version": mine["version"]}, key=keys[seat])
        except OSError:                     # no answer: the server died, maybe after storing it
            log["unknown"].append((mine["ply"], token))
            time.sleep(0.05)
            continue
        log["statuses"][status] += 1
        if status == 200:
            log["answered"].append((mine["ply"], token, answer["ply"]))


def lock_now_and_then(db: Path, rng: random.Random, stop: threading.Event, held: list):
    """Another program holding the file locked for writing, 0.2 to 7 s at a time."""
    while not stop.wait(rng.uniform(1, 3)):
        try:
            with sqlite3.connect(str(db), timeout=10, isolation_level=None) as conn:
                conn.execute("BEGIN IMMEDIATE")
                hold = rng.uniform(0.2, 7)
                held.append(hold)
                stop.wait(hold)
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


def stored_game(db: Path, game: str):
    """The PlayGame the file holds for `game` (its drawers tell draws from decisions)."""
    with sqlite3.connect(str(db)) as conn:
        settings, deal, layout, secret, actions = conn.execute(
            "SELECT settings, deal, layout, secret, actions FROM games WHERE id=?", (game,)).fetchone()
        names = [row[0] for row in conn.execute("SELECT name FROM seats WHERE game=? ORDER BY seat", (game,))]
    return SqlStore._game(json.loads(settings), names, json.loads(deal), json.loads(layout),
                             json.loads(actions), secret)


def check(db: Path, game: str, log: dict) -> list:
    stored = stored_game(db, game)
    tokens = [action_to_token(a) for a in stored.actions]
    problems = []
    answered = {ply: token for ply, token, _after in log["answered"]}
    for ply, token, after in log["answered"]:
        if len(tokens) < after or tokens[ply] != token:
            problems.append(f"{game}: {token} answered 200 at ply {ply} is not in the file")
    unknown = set(log["unknown"])
    for ply, (token, drawer) in enumerate(zip(tokens, stored.drawers)):
        if drawer is None and answered.get(ply) != token and (ply, token) not in unknown:
            problems.append(f"{game}: ply {ply} {token} is in the file, but no request for it was answered")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "games.sqlite3"
        server = Server(db, free_port())
        server.start()
        stop = threading.Event()
        logs = {}
        held = []
        threads = [threading.Thread(target=client, args=(server, random.Random(rng.random()), stop, logs))
                   for _ in range(args.games)]
        threads.append(threading.Thread(target=lock_now_and_then, args=(db, random.Random(rng.random()), stop, held)))
        for thread in threads:
            thread.start()
        kills = 0
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            time.sleep(rng.uniform(3, 10))
            server.kill()
            kills += 1
            time.sleep(rng.uniform(0, 1))
            server.start()
        stop.set()
        for thread in threads:
            thread.join(60)
        server.kill()
        problems = [p for game in list(logs) for p in check(db, game, logs[game])]
    statuses = sum((log["statuses"] for log in logs.values()), Counter())
    print(f"{args.seconds:g} s, {args.games} clients, {len(logs)} games, {kills} kills (SIGKILL), the file locked {len(held)} times "
          f"({sum(h > 5 for h in held)} past the 5 s busy timeout)")
    print(f"answers: {dict(sorted(statuses.items()))}; no answer (server down): "
          f"{sum(len(log['unknown']) for log in logs.values())}")
    print(f"actions answered 200: {sum(len(log['answered']) for log in logs.values())}")
    for problem in problems:
        print("VIOLATION:", problem)
    bad = problems or statuses.get(500)
    print("soak: " + ("FAILED" if bad else "OK: every answered action is in the file, and nothing else"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
