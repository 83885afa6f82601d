"""The game store's guarantees on both backends (issue 42): the same tests against an SQLite
file and a private PostgreSQL server (tests/postgres_cluster.py; skipped, with the reason,
where PostgreSQL is not installed). A game comes back exactly after its server is gone, a
resignation and a deletion are stored, idle games leave memory and come back, the stored
size stays under --max-db-mb, a newer schema is refused, and a PostgreSQL password never
shows.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error

import pytest
from starlette.testclient import TestClient

from engine.errors import PalaisError
from test_web_server import BASE, ORIGIN, as_owner, as_seat, new_game
from web.app import create_app, open_store
from web.config import ServerConfig


def app_over(db: str, **settings):
    """A server over `db`, its store opened as `palais serve` opens it."""
    config = ServerConfig(db=db, seeds=random.Random(0), hint_iterations=50, **settings)
    store = open_store(config)
    return TestClient(create_app(config, store), base_url=BASE), store


def act(client, game: str, seat: int) -> dict:
    view = client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()
    r = client.post(f"/api/games/{game}/action", headers={**as_seat(game, seat), **ORIGIN},
                    json={"action": view["legal"][0]["token"], "version": view["version"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_game_comes_back_exactly_from_the_store(store_db):
    client, store = app_over(store_db)
    with client:
        game = new_game(client)["game"]
        for _ in range(6):
            view = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
            act(client, game, view["to_move"])
        before = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        actions = list(store.get(game).game.actions)
    client, store = app_over(store_db)                   # a new server over the same database
    with client:
        after = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        assert store.get(game).game.actions == actions
        assert after["players"] == before["players"] and after["log"] == before["log"]
        assert after["version"] > before["version"]
        assert client.post("/api/my-games", json={"games": [game, "gone"]}, headers=ORIGIN).json()["games"][0]["game"] == game
        r = client.get("/api/games/NoSuchGameAtAll/view")
        assert r.status_code == 404 and r.json()["error"].startswith("no such game")


def test_a_resignation_and_a_deletion_are_stored(store_db):
    client, store = app_over(store_db)
    with client:
        game = new_game(client, players=[{"kind": "human"}] * 3)["game"]
        view = client.get(f"/api/games/{game}/view", headers=as_seat(game, 2)).json()
        r = client.post(f"/api/games/{game}/resign", json={"version": view["version"]},
                        headers={**as_seat(game, 2), **ORIGIN})
        assert r.status_code == 200, r.text
        other = new_game(client, seed=9)["game"]
        assert client.delete(f"/api/games/{other}", headers={**as_owner(other), **ORIGIN}).json() == {"deleted": True}
    client, store = app_over(store_db)
    with client:
        assert store.get(game).resigned == {1}
        assert client.get(f"/api/games/{other}/view").status_code == 404


def test_idle_games_leave_memory_and_come_back_and_old_ones_are_pruned(store_db):
    now = [1000.0]
    client, store = app_over(store_db, idle_minutes=1, clock=lambda: now[0])
    store.wall = lambda: now[0] + 10 ** 6
    with client:
        game = new_game(client)["game"]
        act(client, game, 1)
        now[0] += 120
        assert store.expire_idle() == [game] and store.peek(game) is None
        assert client.get(f"/api/games/{game}/view").json()["ply"] == 1    # back from the store
        store.wall = lambda: now[0] + 10 ** 6 + 31 * 24 * 3600     # a month later: pruned
        now[0] += 120
        store.expire_idle()
        assert client.get(f"/api/games/{game}/view").status_code == 404


def test_the_stored_size_stays_under_its_cap_pruning_finished_uploads_first(store_db):
    from test_web_server import EXAMPLE
    now = [1000.0]
    client, store = app_over(store_db, idle_minutes=1, clock=lambda: now[0])
    store.wall = lambda: now[0]
    with client:
        def upload():
            now[0] += 1
            return client.post("/api/records", content=EXAMPLE.read_bytes(), headers=ORIGIN)
        uploads = [upload().json()["game"] for _ in range(3)]
        playing = new_game(client)["game"]
        now[0] += 120
        store.expire_idle()
        store.max_bytes = 1                                   # full: only the unfinished game may stay
        refused = upload()
        assert refused.status_code == 507 and "storage is full" in refused.json()["error"]
        assert [client.get(f"/api/games/{g}/view").status_code for g in uploads] == [404] * 3
        assert client.get(f"/api/games/{playing}/view").status_code == 200
        act(client, playing, 1)                               # its moves are still stored


def test_a_database_of_a_newer_schema_is_refused(store_db):
    client, store = app_over(store_db)
    store.close_all()
    if store_db.startswith("postgresql"):
        import psycopg
        with psycopg.connect(store_db, autocommit=True) as conn:
            conn.execute("UPDATE palais_schema SET version = 99")
    else:
        import sqlite3
        with sqlite3.connect(store_db) as db:
            db.execute("PRAGMA user_version=99")
    with pytest.raises(PalaisError, match="schema version 99, newer than this server's"):
        open_store(ServerConfig(db=store_db))


def test_postgres_errors_are_one_line_and_never_show_the_password(postgres_server, tmp_path):
    from click.testing import CliRunner

    from web.cli import main
    from web.postgres_store import shown_dsn
    socket_dir = postgres_server.split("host=")[1].split("&")[0]
    unreachable = f"postgresql://postgres@/palais?host={tmp_path}&port=1"
    with pytest.raises(PalaisError, match=r"^--db postgresql://postgres@/palais\?host=.*: cannot connect: "):
        open_store(ServerConfig(db=unreachable))
    with pytest.raises(PalaisError, match='database "nosuch" does not exist'):
        open_store(ServerConfig(db=f"postgresql://postgres@/nosuch?host={socket_dir}&port=5432"))
    assert shown_dsn("postgresql://me:hunter2@db.example/palais") == "postgresql://me:***@db.example/palais"
    result = CliRunner().invoke(main, ["serve", "--db", "postgresql://me:hunter2@db.example/palais"])
    assert result.exit_code == 1 and "hunter2" not in result.output
    assert "the DSN holds a password" in result.output
    secret = tmp_path / "password"
    secret.write_text("hunter2\n")
    from web.cli import server_config
    config = server_config("127.0.0.1", 8000, [], 16, db=postgres_server, db_password_file=str(secret))
    assert config.db_password == "hunter2" and "hunter2" not in repr(config.db)
    with pytest.raises(PalaisError, match="--db-password-file is for a PostgreSQL --db"):
        server_config("127.0.0.1", 8000, [], 16, db=str(tmp_path / "g.sqlite3"), db_password_file=str(secret))


class Locked:
    """Another program holding the games locked for writing (a backup, a shell, a migration)."""

    def __init__(self, db: str):
        self.db = db

    def __enter__(self):
        if self.db.startswith("postgresql"):
            import psycopg
            self.conn = psycopg.connect(self.db)
            self.conn.execute("LOCK TABLE games IN EXCLUSIVE MODE")       # reads go on, writes wait
        else:
            import sqlite3
            self.conn = sqlite3.connect(self.db, isolation_level=None)
            self.conn.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, *exc):
        self.conn.rollback() if self.db.startswith("postgresql") else self.conn.execute("ROLLBACK")
        self.conn.close()


def test_a_move_the_store_cannot_keep_is_not_played_and_can_be_tried_again(store_db):
    if store_db.startswith("postgresql"):
        from web.postgres_store import PostgresStore
        store = PostgresStore(store_db, 16, lock_timeout_ms=200)
    else:
        from web.sqlite_store import SqliteStore
        store = SqliteStore(store_db, 16, busy_timeout_ms=200)
    with TestClient(create_app(ServerConfig(db=store_db, seeds=random.Random(0)), store), base_url=BASE) as client:
        start = new_game(client)
        game, view = start["game"], start["view"]
        body = {"action": view["legal"][0]["token"], "version": view["version"]}
        with Locked(store_db):
            refused = client.post(f"/api/games/{game}/action", json=body, headers={**as_seat(game, 1), **ORIGIN})
            assert refused.status_code == 503
            assert refused.json()["error"].startswith("the game could not be stored, so nothing was changed")
            now = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
            assert now["ply"] == view["ply"] and now["version"] == view["version"]
        again = client.post(f"/api/games/{game}/action", json=body, headers={**as_seat(game, 1), **ORIGIN})
        assert again.status_code == 200 and again.json()["ply"] == view["ply"] + 1


# ---- several server processes over one PostgreSQL database ---------------------------------

def test_two_servers_over_one_postgres_database_share_a_game(postgres_server):
    """Two server processes' stores over one database (each with its pool and its LISTEN): an
    action taken on one reaches a watcher of the other; a change made on a server that has
    not heard of the other's is refused by the version check (409 with the game as it is)
    and that server is brought up to the stored game; the decision of an engine seat both
    servers hold is stored once."""
    from postgres_cluster import reset
    from test_web_server import watch
    reset(postgres_server)
    first, first_store = app_over(postgres_server)
    second, second_store = app_over(postgres_server)
    with first, second:
        game = new_game(first)["game"]
        with watch(second, game, 2) as ws:                        # watching on the second server
            assert ws.receive_json()["view"]["ply"] == 0
            copy = second_store.peek(game).game
            played = act(first, game, 1)                          # acting on the first
            while (message := ws.receive_json())["type"] != "view" or message["view"]["ply"] < 1:
                pass
            assert message["view"]["to_move"] == played["to_move"] and message["view"]["ply"] == played["ply"]
            assert second_store.peek(game).game is copy            # went on with the new actions only
        second_store._closing.set()                               # the second hears nothing more
        second_store._listener.join()
        mover = played["to_move"]
        view = second.get(f"/api/games/{game}/view", headers=as_seat(game, mover)).json()
        act(first, game, mover)                                   # the first moves on, unheard
        r = second.post(f"/api/games/{game}/action", headers={**as_seat(game, mover), **ORIGIN},
                        json={"action": view["legal"][0]["token"], "version": view["version"]})
        assert r.status_code == 409 and r.json()["stale"] is True
        assert r.json()["view"]["ply"] == 2                       # brought up to the stored game
        assert second_store.peek(game).game.actions == first_store.peek(game).game.actions



def test_an_engine_seat_two_servers_hold_plays_on_and_both_agree(postgres_server):
    """Both servers hold the game live, so both search for the engine seat: the first
    decision stored stands, the other server's is refused by the version check and that
    server takes the stored game (each decision stored once); the game goes on and both
    hold the same actions as the database."""
    from postgres_cluster import reset
    reset(postgres_server)
    first, first_store = app_over(postgres_server)
    second, second_store = app_over(postgres_server)
    with first, second:
        greedy = new_game(first, players=[{"kind": "human"}, {"kind": "engine", "name": "greedy"}])["game"]
        second.get(f"/api/games/{greedy}/view")                   # live on both servers
        deadline = time.monotonic() + 120
        while True:                                               # the person plays on the first
            now = first.get(f"/api/games/{greedy}/view", headers=as_seat(greedy, 1)).json()
            engine_turns = sum(entry["seat"] == 2 for entry in now["log"])
            if engine_turns >= 3 and now["thinking"] == 0:
                break
            assert time.monotonic() < deadline, "the engine seat did not play"
            if now["to_move"] == 1 and now["thinking"] == 0:
                r = first.post(f"/api/games/{greedy}/action", headers={**as_seat(greedy, 1), **ORIGIN},
                               json={"action": now["legal"][0]["token"], "version": now["version"]})
                assert r.status_code in (200, 409), r.text     # 409: the other server's engine stored first
            else:
                time.sleep(0.02)
        stored = json.loads(first_store._query("SELECT actions FROM games WHERE id=?", (greedy,))[0][0])
        assert stored == first_store.peek(greedy).game.actions
        deadline = time.monotonic() + 30
        while second_store.peek(greedy).game.actions != stored:  # the second heard it all
            assert time.monotonic() < deadline, "the second server did not catch up"
            time.sleep(0.02)


@pytest.mark.slow
def test_two_server_processes_share_a_game_and_one_killed_loses_nothing(postgres_server):
    """Two `palais serve --db postgresql://...` processes: a person plays through the first
    against an engine seat while a watcher follows on the second; the first is killed with
    SIGKILL mid-game; the game goes on through the second, the engine seat now played
    there, and every action the first answered is in it."""
    import signal

    from postgres_cluster import reset
    from test_web_db import _free_port, _http, _start

    def _decide(url, game, keys, most):
        """The person's first legal action, `most` times, as a page plays: a 409 (the other
        server's engine stored its decision first, or is still thinking here) is a view to
        look at again."""
        made, deadline = 0, time.monotonic() + 300
        while made < most:
            assert time.monotonic() < deadline, "the game stopped moving"
            view = _http("GET", f"{url}/api/games/{game}/view", key=keys[1])
            if view["over"]:
                return made
            if view["to_move"] != 1 or view["thinking"] or not view["legal"]:
                time.sleep(0.02)
                continue
            try:
                _http("POST", f"{url}/api/games/{game}/action", {"action": view["legal"][0]["token"],
                                                                  "version": view["version"]}, key=keys[1])
                made += 1
            except urllib.error.HTTPError as exc:
                assert exc.code == 409, exc.read()
        return made
    from websockets.sync.client import connect
    reset(postgres_server)
    first, first_url = _start(postgres_server, _free_port())
    second, second_url = _start(postgres_server, _free_port())
    try:
        start = _http("POST", f"{first_url}/api/games", {"players": [{"kind": "human"},
                      {"kind": "engine", "name": "greedy"}], "seed": 3, "budget_ms": 50})
        game, key = start["game"], start["seats"][0]["key"]
        port = second_url.rsplit(":", 1)[1]
        with connect(f"ws://127.0.0.1:{port}/ws/games/{game}", origin=second_url, open_timeout=30) as ws:
            ws.send(json.dumps({"key": key}))
            assert _decide(first_url, game, {1: key}, most=8) == 8
            answered = _http("GET", f"{first_url}/api/games/{game}/view", key=key)
            deadline = time.monotonic() + 30
            while True:                                     # the watcher on the second saw it
                message = json.loads(ws.recv(timeout=30))
                if message["type"] == "view" and message["view"]["ply"] >= answered["ply"]:
                    break
                assert time.monotonic() < deadline, "the second server's watcher was not told"
        first.send_signal(signal.SIGKILL)
        first.wait(30)
        there = _http("GET", f"{second_url}/api/games/{game}/view", key=key)
        assert there["ply"] >= answered["ply"] and there["log"][:len(answered["log"])] == answered["log"]
        assert _decide(second_url, game, {1: key}, most=8) == 8      # the engine plays on the second
        after = _http("GET", f"{second_url}/api/games/{game}/view", key=key)
        assert sum(entry["seat"] == 2 for entry in after["log"]) > sum(entry["seat"] == 2 for entry in answered["log"])
    finally:
        for server in (first, second):
            if server.poll() is None:
                server.kill()
            server.wait(30)


def test_a_read_older_than_what_a_server_holds_never_takes_its_game_back(store_db):
    """A change heard late (its row read before this server stored a newer one) is ignored:
    the stored versions only grow, and a reload applies only a newer one."""
    client, store = app_over(store_db)
    with client:
        game = new_game(client)["game"]
        act(client, game, 1)
        session = store.peek(game)
        older = list(session.game.actions)
        act(client, game, session.game.state.to_move + 1)
        held, version = list(session.game.actions), session.version
        assert session.stored_version > 0 and len(held) > len(older)
        session.reload(lambda: pytest.fail("rebuilt from an older read"), older, dict(session.settings),
                       list(session.kinds), set(), None, session.stored_version - 1)
        assert session.game.actions == held and session.version == version
