"""Issue 26, the page around the board: the analysis board's endpoint through the app's test
client (POST /api/games/{game}/explore: a line from a position, checked legal in turn, on the
asking seat's view only, its fair evaluation, hostile input refused with a clear 400), and in
Chromium the log in words, the end screen, the new-game dialog, the analysis board and the
phone layout (screenshots of each step in the test's tmp folder)."""

from __future__ import annotations

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
        r = client.post(f"/api/games/{data['game']}/action", json={"action": rng.choice(mine["legal"])["token"]},
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
    assert answer["view"]["explore"] == {"from": ply, "line": [choice], "draw_due": answer["view"]["explore"]["draw_due"]}
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
