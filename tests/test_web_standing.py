"""Where a page stands (issue 39): a seat link whose key is not one of the game's is told so
(HTTP and WebSocket) and sees nothing a spectator does not; a game that leaves memory for
being idle closes its sockets with its own code and reason (not the server's restart); an
engine chosen by its strength level is named by it."""

from __future__ import annotations

import random

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from web.app import create_app
from web.config import ServerConfig
from web.sqlite_store import SqliteStore

from test_web_server import BASE, KEYS, OWNERS, ORIGIN, client, new_game, watch  # noqa: F401 (a fixture)

BAD_KEY = {"error": "this seat link is not valid for this game", "bad_key": True}
ENGINE_GAME = [{"kind": "human"}, {"kind": "engine", "name": "random"}]


def wrong_keys(game: str) -> list:
    """Keys that open no seat of `game`: a guess, one far too long, a seat's key changed by
    one character, a dash."""
    key = KEYS[game][1]
    return ["nonsense", "x" * 5000, key[:-1] + ("A" if key[-1] != "A" else "B"), "-"]


@pytest.mark.parametrize("route", ["view", "position?ply=0", "record", "analysis"])
def test_a_wrong_key_is_refused_saying_the_link_is_not_valid_the_same_for_every_key(client, route):
    game = new_game(client, ENGINE_GAME)["game"]
    other = new_game(client, ENGINE_GAME)["game"]
    for key in wrong_keys(game) + [KEYS[other][1]]:
        r = client.get(f"/api/games/{game}/{route}", headers={"x-palais-key": key})
        assert (r.status_code, r.json()) == (403, BAD_KEY), key[:20]     # nothing of the game
    assert client.get(f"/api/games/{game}/view").json()["seat"] == 0    # no key: a spectator
    assert client.get(f"/api/games/{game}/view", headers={"x-palais-key": KEYS[game][1]}).json()["seat"] == 1


def test_a_wrong_key_may_change_nothing_and_the_owner_key_still_opens_the_owners_routes(client):
    game = new_game(client, ENGINE_GAME)["game"]
    version = client.get(f"/api/games/{game}/view").json()["version"]
    for path, body in (("action", {"action": "MINT", "version": version}), ("undo", {"version": version}),
                       ("hint", {"top": 1}), ("resign", {"version": version}), ("rematch", {})):
        r = client.post(f"/api/games/{game}/{path}", json=body, headers={"x-palais-key": "guess", **ORIGIN})
        assert (r.status_code, r.json()) == (403, BAD_KEY), path
    r = client.delete(f"/api/games/{game}", headers={"x-palais-key": "guess", **ORIGIN})
    assert (r.status_code, r.json()) == (403, BAD_KEY)
    r = client.delete(f"/api/games/{game}", headers={"x-palais-key": OWNERS[game], **ORIGIN})
    assert r.json() == {"deleted": True}


def test_a_socket_with_a_wrong_key_is_told_so_and_closed_not_to_retry(client):
    game = new_game(client, ENGINE_GAME)["game"]
    for key in wrong_keys(game)[:3]:
        with pytest.raises(WebSocketDisconnect) as closed:
            with watch(client, game, key=key) as ws:
                assert ws.receive_json() == {"type": "error", **BAD_KEY}     # no view at all
                ws.receive_json()
        assert closed.value.code == 4403
    for key in (None, ""):                                  # no key: the spectator's view
        with watch(client, game, key=key) as ws:
            view = ws.receive_json()["view"]
            assert view["seat"] == 0 and all(p["hand"] is None for p in view["players"])


def test_a_game_leaving_memory_idle_says_so_and_the_server_stopping_says_restart(tmp_path):
    now = [1000.0]
    path = tmp_path / "games.sqlite3"
    config = ServerConfig(db=str(path), seeds=random.Random(0), idle_minutes=1, clock=lambda: now[0])
    store = SqliteStore(str(path), 16, 60, clock=lambda: now[0], wall=lambda: now[0])
    with TestClient(create_app(config, store), base_url=BASE) as c:
        from test_web_server import remember
        game = remember(c.post("/api/games", json={"players": ENGINE_GAME, "seed": 3, "budget_ms": 50}).json())["game"]
        with pytest.raises(WebSocketDisconnect) as closed:
            with watch(c, game, 1) as ws:
                assert ws.receive_json()["type"] == "view"
                now[0] += 120
                store.expire_idle()
                while True:
                    ws.receive_json()
        assert closed.value.code == 4408
        assert closed.value.reason == ("the game was put away after being idle; it is kept: "
                                       "reconnect to bring it back")
        with pytest.raises(WebSocketDisconnect) as closed:
            with watch(c, game, 1) as ws:               # reconnecting brings it back
                assert ws.receive_json()["view"]["seat"] == 1
                store.close_all()
                while True:
                    ws.receive_json()
        assert (closed.value.code, closed.value.reason) == (1012, "the game is kept on the server: reconnect to go on")


def test_an_engine_chosen_by_its_level_is_labelled_by_it_and_a_named_one_keeps_its_name(client):
    players = [{"kind": "human"}, {"kind": "engine", "name": "ismcts", "level": "club"},
               {"kind": "engine", "name": "random"}]
    start = new_game(client, players)
    labels = start["view"]["seat_labels"]
    assert labels == [{"key": "Player {n}", "n": 1}, {"key": "level:club", "level": True},
                      {"key": "player:random"}]
    for bad in ({"kind": "engine", "name": "greedy", "level": "club"},   # club is ismcts
                {"kind": "engine", "name": "ismcts", "level": "grandmaster"},
                {"kind": "human", "level": "club"}):
        r = client.post("/api/games", json={"players": [{"kind": "human"}, bad]})
        assert r.status_code == 400 and r.json()["error"].startswith("players[1].level: expected one of")


def test_a_level_names_a_seat_only_when_its_name_is_the_one_the_server_chose():
    from web.views import seat_labels
    assert seat_labels(["Ann", "greedy"], ["human", "greedy"], [None, "beginner"])[1] == \
        {"key": "level:beginner", "level": True}
    assert seat_labels(["Ann", "Bob"], ["human", "greedy"], [None, "beginner"])[1] is None   # a typed name


def test_my_games_names_an_engine_by_its_level_live_and_from_the_file(tmp_path):
    now = [1000.0]
    path = tmp_path / "games.sqlite3"
    config = ServerConfig(db=str(path), seeds=random.Random(0), idle_minutes=1, clock=lambda: now[0])
    store = SqliteStore(str(path), 16, 60, clock=lambda: now[0], wall=lambda: now[0])
    players = [{"kind": "human"}, {"kind": "engine", "name": "greedy", "level": "beginner"}]
    with TestClient(create_app(config, store), base_url=BASE) as c:
        game = c.post("/api/games", json={"players": players, "seed": 3, "budget_ms": 50}).json()["game"]
        expected = [{"key": "Player {n}", "n": 1}, {"key": "level:beginner", "level": True}]
        listed = c.post("/api/my-games", json={"games": [game]}).json()["games"]
        assert listed[0]["seat_labels"] == expected
        now[0] += 120
        assert store.expire_idle() == [game]                  # out of memory: read from the file
        listed = c.post("/api/my-games", json={"games": [game]}).json()["games"]
        assert listed[0]["seat_labels"] == expected
        assert c.get(f"/api/games/{game}/view").json()["seat_labels"] == expected    # and back again
