"""The server's fault paths (issue 38): a database that is locked or damaged, a sweeper that
meets an error, a WebSocket's first message of any shape. The store is the truth: a change
it cannot keep is not made in memory either, and the answer says so (503)."""

from __future__ import annotations

import random
import sqlite3
import time

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.errors import PalaisError
from web.app import create_app
from web.config import ServerConfig
from web.sqlite_store import SqliteStore

from test_web_server import BASE, ORIGIN, as_seat, new_game, remember

WS = "ws://127.0.0.1:8000"


def db_app(path, **settings):
    config = ServerConfig(db=str(path), seeds=random.Random(0), hint_iterations=50, **settings)
    store = SqliteStore(str(path), config.max_games, config.idle_minutes * 60, busy_timeout_ms=200)
    return TestClient(create_app(config, store), base_url=BASE)


class Locked:
    """Another program holding the database file locked for writing (a backup, a shell)."""

    def __init__(self, path):
        self.db = sqlite3.connect(str(path), isolation_level=None)

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(self, *exc):
        self.db.execute("ROLLBACK")
        self.db.close()


def stored_actions(path, game) -> int:
    import json
    with sqlite3.connect(str(path)) as db:
        return len(json.loads(db.execute("SELECT actions FROM games WHERE id=?", (game,)).fetchone()[0]))


def test_a_move_the_database_cannot_keep_is_not_played_and_can_be_tried_again(tmp_path):
    path = tmp_path / "games.sqlite3"
    with db_app(path) as client:
        start = new_game(client)
        game, view = start["game"], start["view"]
        body = {"action": view["legal"][0]["token"], "version": view["version"]}
        with Locked(path):
            refused = client.post(f"/api/games/{game}/action", json=body, headers=as_seat(game, 1))
            assert refused.status_code == 503
            assert refused.json()["error"].startswith("the game could not be stored, so nothing was changed")
            now = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
            assert now["ply"] == view["ply"] and now["version"] == view["version"]    # memory as it was
            assert stored_actions(path, game) == 0
            undo = client.post(f"/api/games/{game}/undo", json={"version": view["version"]}, headers=as_seat(game, 1))
            assert undo.status_code == 400                                          # nothing to take back
        again = client.post(f"/api/games/{game}/action", json=body, headers=as_seat(game, 1))
        assert again.status_code == 200 and again.json()["ply"] == view["ply"] + 1
        assert stored_actions(path, game) == 1


def test_a_resignation_the_database_cannot_keep_leaves_the_seat_to_its_person(tmp_path):
    path = tmp_path / "games.sqlite3"
    with db_app(path) as client:
        start = new_game(client)
        game, view = start["game"], start["view"]
        with Locked(path):
            r = client.post(f"/api/games/{game}/resign", json={"version": view["version"]}, headers=as_seat(game, 1))
            assert r.status_code == 503
        now = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        assert now["resigned"] == [] and now["kinds"][0] == "human" and now["legal"]
        session = client.app.state.store.get(game)
        assert session.seats[0] is None                                 # no greedy player left running


def test_the_sweeper_lives_on_after_a_failure_and_stopping_closes_every_game(tmp_path, caplog):
    path = tmp_path / "games.sqlite3"
    calls = []
    with db_app(path, sweep_interval_s=0.05) as client:
        store = client.app.state.store
        real = store.expire_idle
        def flaky():
            calls.append(time.monotonic())
            if len(calls) == 1:
                raise sqlite3.OperationalError("database is locked")
            return real()

        game = new_game(client)["game"]
        session = store.get(game)
        store.expire_idle = flaky                    # from now on only the sweeper calls it
        deadline = time.monotonic() + 10
        while len(calls) < 3:
            assert time.monotonic() < deadline, "the sweeper stopped after its failure"
            time.sleep(0.02)
    assert "sweeping idle games failed (OperationalError: database is locked)" in caplog.text
    assert session.closed                                               # closed when the server stopped


def test_a_damaged_database_is_refused_at_start_saying_what_to_do(tmp_path):
    path = tmp_path / "games.sqlite3"
    with db_app(path) as client:
        for seed in range(3):
            new_game(client, seed=seed)
    with sqlite3.connect(str(path)) as db:                            # everything into the main file
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = db.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    assert len(data) >= 3 * page
    for start in range(page, len(data), page):                       # every page's header scribbled over
        data[start:start + 8] = b"\x0d\xff\xff\xff\xff\xff\xff\xff"
    path.write_bytes(bytes(data))
    with pytest.raises(PalaisError) as refused:
        SqliteStore(str(path), 4)
    message = str(refused.value)
    assert message.startswith(f"--db {path}: ") and "Restore a backup of the file, or start with a new one" in message
    garbage = tmp_path / "not-a-db.sqlite3"
    garbage.write_bytes(b"hello, this is not a database" * 100)
    with pytest.raises(PalaisError, match="cannot open the database: file is not a database. Restore a backup"):
        SqliteStore(str(garbage), 4)


def test_a_database_fault_a_route_meets_later_answers_503_not_500(tmp_path):
    path = tmp_path / "games.sqlite3"
    with db_app(path) as client:
        game = new_game(client)["game"]

        def broken(_ids):
            raise sqlite3.DatabaseError("database disk image is malformed")

        client.app.state.store.summaries = broken
        r = client.post("/api/my-games", json={"games": [game]}, headers=ORIGIN)
        assert r.status_code == 503
        assert r.json()["error"] == ("the game store failed (database disk image is malformed); "
                                     "try again in a moment")


MALFORMED = [b"[" * 2040 + b"]" * 2040, b"{\"key\": " + b"[" * 3000 + b"]" * 3000 + b"}", b"not json",
             b"\xff\xfe", b"[]", b"null", b"3", b"{\"key\": 5}", b"{\"key\": {\"a\": 1}}", b""]


@pytest.mark.parametrize("raw", MALFORMED, ids=range(len(MALFORMED)))
def test_any_malformed_first_websocket_message_gets_1008_and_an_error(tmp_path, raw):
    with db_app(tmp_path / "games.sqlite3") as client:
        game = new_game(client)["game"]
        with client.websocket_connect(f"{WS}/ws/games/{game}", headers=ORIGIN) as ws:
            ws.send_bytes(raw) if raw[:1] == b"\xff" else ws.send_text(raw.decode())
            message = ws.receive_json()
            assert message == {"type": "error", "error": "expected a first message {\"key\": KEY or null}"}
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1008


def test_a_new_game_is_made_even_when_the_sweep_before_it_fails(tmp_path, caplog):
    with db_app(tmp_path / "games.sqlite3") as client:
        store = client.app.state.store

        def locked():
            raise sqlite3.OperationalError("database is locked")

        store.expire_idle = locked
        assert new_game(client)["view"]["ply"] == 0
    assert "sweeping idle games before a new one failed (OperationalError: database is locked)" in caplog.text


def test_an_engine_decision_the_store_cannot_keep_is_tried_again_while_the_game_waits(monkeypatch):
    """The store fails twice as the engine's decision is kept: the game waits (its view
    unchanged, the watchers told), and the third try keeps it, played once."""
    import web.session as sessions
    from engine.state import State
    from play.game import PlayGame
    from play.seats import SeatSpec, open_seat
    from search.params import SearchLimits
    from web.session import GameSession, StoreError, Watcher

    import threading

    monkeypatch.setattr(sessions, "STORE_RETRY_S", (0.01, 0.02))
    stored, failures = [], [0]

    def keep(session):
        """The store: it fails the first two times an engine's decision is kept."""
        if threading.current_thread().name.startswith("engine-") and failures[0] < 2:
            failures[0] += 1
            raise StoreError("database is locked")
        stored.append(len(session.game.actions))

    game = PlayGame(State.new_game(2, seed=3), 3, ["a", "b"])
    session = GameSession("g", game, ["human", "greedy"], [SeatSpec("human"), SeatSpec("greedy")],
                          SearchLimits(iterations=5), 3, open_seat=open_seat, on_change=keep)
    messages = []
    session.watch(Watcher(None, messages.append))
    try:
        view = session.start(0)
        while session.game.state.to_move == 0:
            view = session.act(0, view["legal"][0]["token"], view["version"])
        ply = len(session.game.actions)
        session.release()
        deadline = time.monotonic() + 30
        while session.thinking >= 0 or len(session.game.actions) == ply:
            assert time.monotonic() < deadline, "the engine's decision was never kept"
            time.sleep(0.01)
    finally:
        session.close()
    assert failures[0] == 2
    errors = [m["error"] for m in messages if isinstance(m, dict) and m.get("type") == "error"]
    assert sum("could not be stored" in e and "trying again in" in e for e in errors) == 2
    assert stored[-1] == len(session.game.actions) > ply                  # kept on the third try


def test_sockets_past_their_caps_are_refused_and_requests_still_answer(tmp_path):
    """A flood of spectator sockets of one game (any local program can make a game and
    watch it) is refused past its cap with 1013, as are a seat's past its own; the players'
    requests still answer, and a socket that closes frees its place."""
    from contextlib import ExitStack, contextmanager
    with db_app(tmp_path / "games.sqlite3", max_spectator_sockets=3, max_seat_sockets=2, max_sockets=6) as client:
        game = new_game(client)["game"]
        other = new_game(client, seed=8)["game"]

        @contextmanager
        def opened(game_id, key=None):
            with client.websocket_connect(f"{WS}/ws/games/{game_id}", headers=ORIGIN) as ws:
                ws.send_json({"key": key})
                yield ws

        def refused(game_id, key=None):
            with client.websocket_connect(f"{WS}/ws/games/{game_id}", headers=ORIGIN) as ws:
                ws.send_json({"key": key})
                message = ws.receive_json()
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
            return message, closed.value.code

        from test_web_server import KEYS
        with ExitStack() as stack:
            watching = [stack.enter_context(opened(game)) for _ in range(3)]
            assert all(ws.receive_json()["type"] == "view" for ws in watching)
            message, code = refused(game)
            assert code == 1013 and "3 live connections are open for spectators of this game" in message["error"]
            seat = [stack.enter_context(opened(game, KEYS[game][1])) for _ in range(2)]
            assert all(ws.receive_json()["view"]["seat"] == 1 for ws in seat)
            message, code = refused(game, KEYS[game][1])
            assert code == 1013 and "for seat 1 of this game" in message["error"]
            assert client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).status_code == 200
            stack.enter_context(opened(other)).receive_json()               # the sixth: the server's cap
            message, code = refused(other)
            assert code == 1013 and "the server has 6 live connections open" in message["error"]
            assert client.get(f"/api/games/{other}/view").status_code == 200   # requests still answer
        with opened(game) as again:                                           # closed ones freed their places
            assert again.receive_json()["type"] == "view"


def _children() -> set:
    """The pids of this process's live children (the analyses' worker processes among them)."""
    import os
    return _children_of(os.getpid())


@pytest.mark.slow
def test_analyses_wait_in_one_bounded_queue_and_end_with_their_game(tmp_path):
    """One analysis runs, one waits, a third is refused (503). Deleting the running game's
    record stops its analysis (and its worker processes); the waiting one then runs. A
    budget past the cap is refused."""
    from test_web_server import EXAMPLE, as_owner
    with db_app(tmp_path / "games.sqlite3", analysis_slots=1, analysis_queue=1,
                analysis_budget_ms_max=2000) as client:
        games = [remember(client.post("/api/records", content=EXAMPLE.read_bytes(), headers=ORIGIN).json())["game"]
                 for _ in range(3)]
        before = _children()
        too_long = client.post(f"/api/games/{games[0]}/analyse", json={"budget_ms": 2001}, headers=ORIGIN)
        assert too_long.status_code == 400
        for game in games[:2]:
            r = client.post(f"/api/games/{game}/analyse", json={"budget_ms": 1000}, headers=ORIGIN)
            assert r.json() == {"started": True}
        full = client.post(f"/api/games/{games[2]}/analyse", json={"budget_ms": 1000}, headers=ORIGIN)
        assert full.status_code == 503 and "its most: try again later" in full.json()["error"]
        store = client.app.state.store
        first, second = store.get(games[0]), store.get(games[1])
        deadline = time.monotonic() + 30
        while len(_children() - before) == 0:                  # the first analysis' workers
            assert time.monotonic() < deadline, "the first analysis never started"
            time.sleep(0.05)
        assert client.delete(f"/api/games/{games[0]}", headers={**as_owner(games[0]), **ORIGIN}).json() == {"deleted": True}
        deadline = time.monotonic() + 30
        while first.analysing or not second.analysing:
            assert time.monotonic() < deadline, "the deleted game's analysis did not stop"
            time.sleep(0.05)
        client.delete(f"/api/games/{games[1]}", headers={**as_owner(games[1]), **ORIGIN})
        deadline = time.monotonic() + 30
        while client.app.state.analyses.busy():                # every analysis has ended
            assert time.monotonic() < deadline, "an analysis did not end"
            time.sleep(0.02)
        deadline = time.monotonic() + 30
        while _children() - before:                            # every worker ended with its analysis
            assert time.monotonic() < deadline, f"workers left: {_children() - before}"
            time.sleep(0.05)


def _children_of(pid: int) -> set:
    import os
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rpartition(")")[2].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[1]) == pid:
                out.add(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
def test_an_analysis_workers_end_when_the_server_is_killed(tmp_path):
    """SIGKILL of `palais serve` while an analysis runs: its worker processes end too (a
    parent-death signal) at once, not after the turn they were searching."""
    import signal
    import subprocess
    import sys
    import urllib.request
    from test_web_server import EXAMPLE, _free_port, _http
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--port", str(port), "--db", ":memory:"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    workers = set()
    try:
        assert f"http://127.0.0.1:{port}/" in server.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                request = urllib.request.Request(f"{url}/api/records", data=EXAMPLE.read_bytes(), method="POST",
                                                 headers={"content-type": "text/plain"})
                with urllib.request.urlopen(request, timeout=30) as answer:
                    import json
                    game = json.load(answer)["game"]
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        assert _http("POST", f"{url}/api/games/{game}/analyse", {"budget_ms": 5000}) == {"started": True}
        deadline = time.monotonic() + 60
        while not workers:
            workers = _children_of(server.pid)
            assert time.monotonic() < deadline, "the analysis started no worker"
            time.sleep(0.05)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
        # Without the parent-death signal a worker finishes its turn (5 s a search) first:
        # 6.8 s measured with 2 s searches. With it, it ends at once (0.05 s measured).
        deadline = time.monotonic() + 3
        while any(_alive(pid) for pid in workers):
            assert time.monotonic() < deadline, f"workers outlived the server: {workers}"
            time.sleep(0.05)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for pid in workers:
            if _alive(pid):
                import os
                os.kill(pid, signal.SIGKILL)


def test_uploads_are_counted_per_hour_and_their_names_capped_as_new_games(tmp_path):
    from engine.record import read_record, write_record
    from test_web_server import EXAMPLE
    now = [1000.0]
    rec = read_record(EXAMPLE.read_text())
    rec.names = ["x" * 30_000, "Bob", ""]
    text = write_record(rec).encode()
    with db_app(tmp_path / "games.sqlite3", max_uploads_per_hour=3, clock=lambda: now[0]) as client:
        loaded = [client.post("/api/records", content=text, headers=ORIGIN) for _ in range(3)]
        assert all(r.status_code == 200 for r in loaded)
        assert loaded[0].json()["view"]["names"] == ["x" * 23 + "…", "Bob", "Player 3"]
        fourth = client.post("/api/records", content=text, headers=ORIGIN)
        assert fourth.status_code == 429
        assert fourth.json()["error"] == ("3 records were loaded in the last hour, the server's most: "
                                          "try again in 3601 s")
        now[0] += 3600
        assert client.post("/api/records", content=text, headers=ORIGIN).status_code == 200


def _stored_ids(path) -> set:
    with sqlite3.connect(str(path)) as db:
        return {game_id for (game_id,) in db.execute("SELECT id FROM games")}


def test_the_database_keeps_under_its_size_pruning_the_oldest_finished_uploads_first(tmp_path):
    """--max-db-mb: past it the finished games nobody has open go, uploads first and the
    least recently used first; an unfinished game never goes, and when only such games are
    left a new game is refused (507) while their moves are still stored."""
    from test_web_server import EXAMPLE
    now = [1000.0]
    path = tmp_path / "games.sqlite3"
    config = ServerConfig(db=str(path), seeds=random.Random(0), idle_minutes=1, clock=lambda: now[0])
    store = SqliteStore(str(path), 16, 60, clock=lambda: now[0], wall=lambda: now[0])
    text = EXAMPLE.read_bytes()
    with TestClient(create_app(config, store), base_url=BASE) as client:
        def upload():
            now[0] += 1
            r = client.post("/api/records", content=text, headers=ORIGIN)
            return r.status_code, r.json()
        uploads = [upload()[1]["game"] for _ in range(3)]
        playing = new_game(client)
        now[0] += 120
        store.expire_idle()                                # all leave memory, stay stored
        store.max_bytes = store.stored_bytes()             # the file is full now
        status, fourth = upload()
        assert status == 200
        kept = _stored_ids(path)
        assert uploads[0] not in kept and {uploads[1], uploads[2], playing["game"], fourth["game"]} <= kept
        store.max_bytes = 4096                             # far too small: only the unfinished game may stay
        now[0] += 120
        store.expire_idle()
        status, refused = upload()
        assert status == 507 and "storage is full" in refused["error"]
        assert _stored_ids(path) == {playing["game"]}
        game = playing["game"]
        view = client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()
        r = client.post(f"/api/games/{game}/action", headers={**as_seat(game, 1), **ORIGIN},
                        json={"action": view["legal"][0]["token"], "version": view["version"]})
        assert r.status_code == 200 and stored_actions(path, game) == 1     # moves still stored


def test_behind_a_trusted_proxy_limits_count_per_client_address(tmp_path):
    """--trusted-proxy: the proxy's X-Forwarded-For names the client (read from the right,
    so a forged left part changes nothing); sockets and uploads then count per address too.
    Without it, the header is ignored: every client behind a proxy is one address."""
    from web.clients import client_address, proxy_addresses
    trusted = proxy_addresses(["127.0.0.1", "::1"])
    scope = lambda peer, *values: {"client": (peer, 5000), "headers": [(b"x-forwarded-for", v.encode()) for v in values]}
    assert client_address(scope("127.0.0.1", "6.6.6.6, 203.0.113.7"), trusted) == "203.0.113.7"
    assert client_address(scope("127.0.0.1", "203.0.113.7, 127.0.0.1"), trusted) == "203.0.113.7"
    assert client_address(scope("127.0.0.1", "6.6.6.6", "203.0.113.8"), trusted) == "203.0.113.8"
    assert client_address(scope("198.51.100.1", "203.0.113.7"), trusted) is None      # not a proxy of ours
    assert client_address(scope("127.0.0.1"), trusted) is None
    assert client_address(scope("127.0.0.1", "203.0.113.7"), frozenset()) is None
    with pytest.raises(PalaisError, match="--trusted-proxy 'proxy.lan': expected an IP address"):
        proxy_addresses(["proxy.lan"])

    from test_web_server import EXAMPLE
    text = EXAMPLE.read_bytes()
    path = tmp_path / "games.sqlite3"
    config = ServerConfig(db=str(path), seeds=random.Random(0), trusted_proxies=trusted,
                          max_address_uploads_per_hour=2, max_address_sockets=2)
    with TestClient(create_app(config), base_url=BASE, client=("127.0.0.1", 40000)) as client:
        via = lambda address: {**ORIGIN, "x-forwarded-for": address}
        assert [client.post("/api/records", content=text, headers=via(f"6.6.6.{i}, 203.0.113.7")).status_code
                for i in range(3)] == [200, 200, 429]                  # a forged left part changes nothing
        third = client.post("/api/records", content=text, headers=via("203.0.113.7")).json()
        assert third["error"].startswith("2 records were loaded from your address in the last hour")
        game = client.post("/api/records", content=text, headers=via("203.0.113.9")).json()["game"]

        from contextlib import ExitStack
        with ExitStack() as stack:
            def socket(address):
                ws = stack.enter_context(client.websocket_connect(f"{WS}/ws/games/{game}", headers=via(address)))
                ws.send_json({"key": None})
                return ws
            first, second = socket("203.0.113.7"), socket("203.0.113.7")
            assert first.receive_json()["type"] == second.receive_json()["type"] == "view"
            third = socket("203.0.113.7")
            assert "2 live connections are open from your address" in third.receive_json()["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                third.receive_json()
            assert closed.value.code == 1013
            assert socket("203.0.113.9").receive_json()["type"] == "view"   # another client still gets in
    with TestClient(create_app(ServerConfig(max_address_uploads_per_hour=1)), base_url=BASE,
                    client=("127.0.0.1", 40000)) as client:             # no --trusted-proxy: header ignored
        assert [client.post("/api/records", content=text, headers=via("203.0.113.7")).status_code
                for _ in range(2)] == [200, 200]


def test_serve_refuses_a_trusted_proxy_that_is_not_an_address_with_one_line():
    from click.testing import CliRunner

    from web.cli import main
    result = CliRunner().invoke(main, ["serve", "--db", ":memory:", "--trusted-proxy", "proxy.lan"])
    assert result.exit_code == 1
    assert "Error: --trusted-proxy 'proxy.lan': expected an IP address" in result.output
    result = CliRunner().invoke(main, ["serve", "--db", ":memory:", "--max-db-mb", "0"])
    assert result.exit_code == 2 and "--max-db-mb" in result.output


def test_the_analysis_options_reach_the_servers_one_queue():
    from web.cli import server_config
    config = server_config("127.0.0.1", 8000, [], 16, db=":memory:",
                           analysis={"analysis_processes": 3, "analysis_queue": 0, "analysis_budget_ms_max": 500})
    app = create_app(config)
    gate = app.state.analyses
    assert (gate.processes, gate.waiting, config.analysis_budget_ms_max) == (3, 0, 500)
    assert ServerConfig().analysis_processes == max(1, __import__("os").cpu_count() or 1)
