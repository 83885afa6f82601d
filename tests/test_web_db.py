"""Games that survive a restart (issue 25): `palais serve --db FILE` keeps every game in
SQLite (web/sqlite_store.py). A game round-trips through the file, a file of the first
schema version (tests/data/web-games-v1.sqlite3) opens, a link to an unknown game says
"no such game", and a server killed with SIGKILL mid-game, started again, finishes the
game exactly as the same game played without the kill.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from test_web_server import BASE, KEYS, ORIGIN, as_seat, remember, watch
from web.app import create_app
from web.config import ServerConfig

DATA = Path(__file__).resolve().parent / "data"
V1_FILE = DATA / "web-games-v1.sqlite3"
PEOPLE_AND_GREEDY = [{"kind": "human"}, {"kind": "human"}, {"kind": "engine", "name": "greedy"}]


def db_client(path, **settings) -> TestClient:
    settings.setdefault("hint_iterations", 200)
    return TestClient(create_app(ServerConfig(db=str(path), **settings)), base_url=BASE)


def play(client, game: str, decisions: int) -> list:
    """The people play their first legal action, `decisions` times (the engine its own in
    between); the views of the people's decisions, for comparing."""
    seen = []
    with watch(client, game) as ws:
        after = -1
        for _ in range(decisions):
            while True:
                message = ws.receive_json()
                if message["type"] == "view" and message["view"]["version"] >= after \
                        and message["view"]["thinking"] == 0 \
                        and (message["view"]["over"] or message["view"]["to_move"] in (1, 2)):
                    break
            view = message["view"]
            if view["over"]:
                break
            seat = view["to_move"]
            mover = client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()
            r = client.post(f"/api/games/{game}/action", json={"action": mover["legal"][0]["token"],
                                                               "version": mover["version"]},
                            headers={**as_seat(game, seat), **ORIGIN})
            assert r.status_code == 200, r.text
            after = r.json()["version"]
            seen.append(mover["legal"][0]["token"])
    return seen


def test_a_game_round_trips_through_the_database(tmp_path):
    path = tmp_path / "games.sqlite3"
    with db_client(path) as c:
        start = remember(c.post("/api/games", json={"players": PEOPLE_AND_GREEDY, "seed": 4}).json())
        game = start["game"]
        play(c, game, 12)
        before = c.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        actions = list(c.app.state.store.get(game).game.actions)
        secret = c.app.state.store.get(game).game.secret
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    stored = db.execute("SELECT secret, owner FROM seats JOIN games ON games.id = seats.game "
                        "WHERE seats.key_hash IS NOT NULL").fetchall()
    text = json.dumps(db.execute("SELECT * FROM seats").fetchall()) + json.dumps(stored)
    assert KEYS[game][1] not in text and start["owner"] not in text      # keys stored hashed
    db.close()
    with db_client(path) as c:                  # a new server over the same file
        after = c.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        session = c.app.state.store.get(game)
        assert session.game.actions == actions and session.game.secret == secret
        assert session.game.chance.drawn == sum(q is not None for q in session.game.drawers)
        assert after["seat"] == 1 and after["players"] == before["players"]
        assert after["log"] == before["log"] and after["fairness"] == before["fairness"]
        assert after["version"] > before["version"]     # a page keeps it: not dropped as older
        assert c.get(f"/api/games/{game}/view", headers=as_seat(game, 2)).json()["seat"] == 2
        r = c.get("/api/games/NoSuchGameAtAll/view")
        assert r.status_code == 404 and r.json()["error"].startswith("no such game")
        assert c.post("/api/my-games", json={"games": [game, "gone"]}, headers=ORIGIN).json()["games"][0]["game"] == game


def test_a_database_of_the_first_schema_version_opens(tmp_path):
    path = tmp_path / "old.sqlite3"
    shutil.copy(V1_FILE, path)
    meta = json.loads((DATA / "web-games-v1.json").read_text())
    with db_client(path) as c:
        view = c.get(f"/api/games/{meta['game']}/view", headers={"x-palais-key": meta["key"]}).json()
        assert view["seat"] == 1 and view["ply"] >= meta["ply"] and view["players"][0]["hand"] is not None
        assert view["fairness"]["commitment"] == meta["commitment"]
    db = sqlite3.connect(path)                   # migrated forward: version 2 marks uploads
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("SELECT count(*) FROM games WHERE uploaded = 0").fetchone()[0] >= 1
    db.close()


def test_a_newer_or_foreign_file_is_refused_with_one_line(tmp_path):
    newer = tmp_path / "newer.sqlite3"
    db = sqlite3.connect(newer)
    db.execute("CREATE TABLE games (id TEXT)")
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    from engine.errors import PalaisError
    with pytest.raises(PalaisError, match="schema version 99, newer"):
        create_app(ServerConfig(db=str(newer)))
    foreign = tmp_path / "foreign.sqlite3"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(PalaisError, match="not a palais serve database"):
        create_app(ServerConfig(db=str(foreign)))
    text = tmp_path / "text.sqlite3"
    text.write_text("hello, not a database\n" * 100)
    with pytest.raises(PalaisError, match="cannot open the database"):
        create_app(ServerConfig(db=str(text)))


# ---- the kill test ---------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(method: str, url: str, body=None, key=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "content-type": "application/json", "origin": url.split("/api")[0], **({"x-palais-key": key} if key else {})})
    with urllib.request.urlopen(request, timeout=60) as r:
        return json.loads(r.read())


def _start(db: Path, port: int):
    server = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--port", str(port), "--db", str(db)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", os.getcwd())})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            _http("GET", f"{url}/api/meta")
            return server, url
        except (urllib.error.URLError, ConnectionError):
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)


def _decide(url: str, game: str, keys: dict, most: int = 20000) -> int:
    """Play the people's decisions (their first legal action) until the game is over or
    `most` are made; the engine plays in between. The number of decisions made."""
    made = 0
    deadline = time.monotonic() + 300
    while made < most:
        views = {seat: _http("GET", f"{url}/api/games/{game}/view", key=key) for seat, key in keys.items()}
        any_view = next(iter(views.values()))
        if any_view["over"]:
            return made
        mover = next((v for v in views.values() if v["legal"]), None)
        if mover is None:                          # the engine is thinking
            assert time.monotonic() < deadline, "the game stopped moving"
            time.sleep(0.02)
            continue
        _http("POST", f"{url}/api/games/{game}/action", {"action": mover["legal"][0]["token"],
                                                          "version": mover["version"]},
              key=keys[mover["seat"]])
        made += 1
    return made


def _full_record(url: str, game: str, key: str) -> str:
    request = urllib.request.Request(f"{url}/api/games/{game}/record", headers={"x-palais-key": key})
    with urllib.request.urlopen(request, timeout=60) as r:
        return r.read().decode()


@pytest.mark.slow
def test_a_server_killed_mid_game_goes_on_exactly_as_without_the_kill(tmp_path):
    """The same game twice through `palais serve --db FILE` (people and a greedy engine):
    once straight through, once killed with SIGKILL after 30 decisions and started again.
    Everything after the kill, draws and the engine's decisions included, is the same."""
    def game_on(db: Path, kill_after):
        port = _free_port()
        server, url = _start(db, port)
        try:
            start = _http("POST", f"{url}/api/games", {"players": PEOPLE_AND_GREEDY, "seed": 12,
                                                       "budget_ms": 50})
            game = start["game"]
            keys = {s["seat"]: s["key"] for s in start["seats"] if s["key"]}
            # the same secret in both runs: put it into the file (the referee's, as a test may)
            db_conn = sqlite3.connect(db)
            assert db_conn.execute("SELECT actions FROM games").fetchone()[0] == "[]"   # no draw yet
            db_conn.execute("UPDATE games SET secret=? WHERE id=?", ("ab" * 32, game))
            db_conn.commit()
            db_conn.close()
            server.send_signal(signal.SIGKILL)          # so the secret is read back from the file
            server.wait(30)
            server, url = _start(db, port)
            if kill_after is not None:
                _decide(url, game, keys, kill_after)
                server.send_signal(signal.SIGKILL)
                server.wait(30)
                server, url = _start(db, port)
            _decide(url, game, keys)
            return _full_record(url, game, keys[1])
        finally:
            server.send_signal(signal.SIGKILL)
            server.wait(30)

    straight = game_on(tmp_path / "straight.sqlite3", None)
    killed = game_on(tmp_path / "killed.sqlite3", 30)
    assert "[Scores " in straight
    assert straight == killed


def test_the_take_backs_of_the_turn_in_progress_survive_a_restart(tmp_path):
    """Seat 1 places its first servants (each a decision of one turn, each undoable); after
    a restart the same take-backs are there, and take the game back to the same positions.
    A resignation stands: its turn's take-backs do not come back."""
    path = tmp_path / "games.sqlite3"
    with db_client(path) as c:
        start = remember(c.post("/api/games", json={"players": [{"kind": "human"}] * 3, "seed": 4}).json())
        game, view = start["game"], start["view"]
        views = [view]
        for _ in range(3):
            view = c.post(f"/api/games/{game}/action", json={"action": view["legal"][0]["token"],
                                                             "version": view["version"]},
                          headers=as_seat(game, 1)).json()
            views.append(view)
        assert view["can_undo"] and view["to_move"] == 1
    with db_client(path) as c:                              # the server started again
        back = c.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        assert back["can_undo"] and back["ply"] == view["ply"]
        for before in reversed(views[:-1]):                 # each take-back, to the turn's start
            back = c.post(f"/api/games/{game}/undo", json={"version": back["version"]},
                          headers=as_seat(game, 1)).json()
            assert back["ply"] == before["ply"] and back["legal"] == before["legal"]
        assert not back["can_undo"]
        after = c.post(f"/api/games/{game}/action", json={"action": back["legal"][0]["token"],
                                                          "version": back["version"]},
                       headers=as_seat(game, 1)).json()
        assert after["can_undo"]
        resigned = c.post(f"/api/games/{game}/resign", json={"version": after["version"]},
                          headers=as_seat(game, 2)).json()
        assert resigned["resigned"] == [2]
    with db_client(path) as c:
        back = c.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        assert not back["can_undo"]                         # the resignation let the turn stand
