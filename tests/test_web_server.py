"""The web server of `palais serve` through the app's own test client (web/app.py).

The API of docs/web.md: a new game, actions by token, refusals (illegal, not your turn),
take-backs, hidden information (two worlds that differ only in cards a seat cannot see give
it byte-identical JSON), save and load, the limits (uploads, --max-games, foreign Origins),
engine seats in-process and as PRI processes, and no engine process left behind.
"""

from __future__ import annotations

import json
import random
from contextlib import contextmanager
import shutil
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.chance import ARENA_SECRET
from engine.rng import Rng
from play.game import PlayGame
from play.seats import SeatSpec
from search.params import SearchLimits
from tournament.engines import EngineSpec
from web.app import create_app
from web.config import ServerConfig
from web.session import GameSession, Refused

from processes import deaf_engine_cmd, left_running, pid_file, pids  # noqa: F401 (a fixture)

BASE = "http://127.0.0.1:8000"
WS = "ws://127.0.0.1:8000"
ORIGIN = {"origin": BASE}
EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "game-3p.rec"
HUMANS_2 = [{"kind": "human"}, {"kind": "human"}]


def client_for(**settings) -> TestClient:
    settings.setdefault("hint_iterations", 200)
    settings.setdefault("analysis_iterations", 50)
    settings.setdefault("seeds", random.Random(0))
    return TestClient(create_app(ServerConfig(**settings)), base_url=BASE)


@pytest.fixture
def client():
    with client_for() as c:
        yield c


KEYS = {}                    # game id -> {seat number (1-based): that seat's key}
OWNERS = {}                  # game id -> its owner key


def remember(data: dict) -> dict:
    """Keep the seat keys of a new game's answer (for as_seat and watch); the answer."""
    KEYS[data["game"]] = {s["seat"]: s["key"] for s in data["seats"] if s["key"]}
    OWNERS[data["game"]] = data["owner"]
    return data


def as_owner(game: str) -> dict:
    return {"x-palais-key": OWNERS[game]}


def as_seat(game: str, seat: int) -> dict:
    """The headers of a request made as `seat` (1-based; 0: a spectator, no key)."""
    key = KEYS.get(game, {}).get(seat) if seat else None
    return {"x-palais-key": key} if key else {}


@contextmanager
def watch(client, game: str, seat: int = 0, key=None, **kwargs):
    """The game's WebSocket, watched as `seat` (1-based, with its key; 0: no key) or with
    `key` as given."""
    with client.websocket_connect(f"{WS}/ws/games/{game}", **kwargs) as ws:
        ws.send_json({"key": key if key is not None else KEYS.get(game, {}).get(seat)})
        yield ws


def new_game(client, players=HUMANS_2, **body):
    body.setdefault("seed", 7)
    body.setdefault("budget_ms", 50)
    r = client.post("/api/games", json={"players": players, **body})
    assert r.status_code == 200, r.text
    return remember(r.json())


def version_of(client, game, seat=0) -> int:
    return client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()["version"]


def act(client, game, seat, token, version=None):
    """Play `token` as `seat`, chosen from the view of `version` (default: the game's now)."""
    version = version_of(client, game, seat) if version is None else version
    return client.post(f"/api/games/{game}/action", json={"action": token, "version": version},
                       headers=as_seat(game, seat))


def my_turn_again(client, ws, game, seat, token):
    """Play `token` for `seat`, then the View once it is `seat`'s decision again (after any
    engine turns, pushed over the socket `ws`) or the game is over."""
    r = act(client, game, seat, token)
    assert r.status_code == 200, r.text
    view = r.json()
    ready = lambda v: v["over"] or (v["to_move"] == seat and v["thinking"] == 0)  # noqa: E731
    if ready(view):
        return view
    ply = view["ply"]
    return next_view(ws, lambda v: v["ply"] > ply and ready(v))


def next_view(ws, until, most: int = 2000):
    """The first `view` message on the socket that satisfies `until` (bounded)."""
    for _ in range(most):
        message = ws.receive_json()
        if message["type"] == "view" and until(message["view"]):
            return message["view"]
        assert message["type"] != "error", message
    raise AssertionError("no such view came")


# ---- meta, new game, views ----------------------------------------------------------------

def test_meta_offers_the_builtin_players_the_engines_given_and_the_limits():
    spec = EngineSpec("mine", (sys.executable, "-m", "protocol.cli"))
    with client_for(engines=(spec,), max_games=3) as c:
        meta = c.get("/api/meta").json()
    names = [(p["name"], p["kind"]) for p in meta["players"]]
    assert names == [("ismcts", "builtin"), ("pimc", "builtin"), ("greedy", "builtin"),
                     ("random", "builtin"), ("mine", "engine")]
    assert meta["limits"]["max_games"] == 3 and meta["languages"] == ["en", "fr", "zh"]
    assert meta["language_names"] == {"en": "English", "fr": "Français", "zh": "中文"}
    assert {o["name"] for o in meta["rule_options"]} >= {"round_cap", "honour_vp"}


def test_a_new_game_gives_an_unguessable_id_and_the_first_human_seats_view(client):
    a = new_game(client, [{"kind": "engine", "name": "random"}, {"kind": "human"}])
    b = new_game(client)
    assert a["game"] != b["game"] and len(a["game"]) >= 20
    view = b["view"]
    assert view["seat"] == 1 and view["n_players"] == 2 and view["to_move"] == 1
    assert view["stage"] == "SETUP" and view["ply"] == 0 and not view["over"]
    assert {m["kind"] for m in view["legal"]} == {"room"}
    assert len(view["park"]) == 36 and len(view["layout"]) == 9
    assert view["players"][0]["hand"] is not None and view["players"][1]["hand"] is None
    assert a["view"]["seat"] == 2


@pytest.mark.parametrize("body, field", [
    ({"players": [{"kind": "human"}]}, "players"),
    ({"players": [{"kind": "engine", "name": "rm -rf"}, {"kind": "human"}]}, "players[0]"),
    ({"players": [{"kind": "engine", "cmd": "sh"}, {"kind": "human"}]}, "players[0]"),
    ({"players": HUMANS_2, "seed": "x"}, "seed"),
    ({"players": HUMANS_2, "budget_ms": 10 ** 9}, "budget_ms"),
    ({"players": HUMANS_2, "options": {"round_cap": 0}}, "options"),
    ({"players": HUMANS_2, "options": {"nonsense": 1}}, "options"),
    ({"players": HUMANS_2, "names": ["a,b", "c"]}, "names[0]"),
])
def test_a_bad_new_game_is_refused_naming_the_field(client, body, field):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and r.json()["error"].startswith(field), r.text


def test_the_spectator_sees_no_hand_and_an_engine_seats_view_stays_hidden(client):
    game = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])["game"]
    spectator = client.get(f"/api/games/{game}/view", headers=as_seat(game, 0)).json()
    assert all(p["hand"] is None for p in spectator["players"]) and spectator["legal"] == []
    assert KEYS[game].keys() == {1}, "an engine's seat has no key: no one can read its view"
    r = client.get(f"/api/games/{game}/view", headers={"x-palais-key": ""})     # an empty key: none
    assert r.status_code == 200 and r.json()["seat"] == 0
    assert all(p["hand"] is None for p in r.json()["players"])
    assert client.get("/api/games/nope/view").status_code == 404
    assert client.get("/api/games/nope/view").json()["error"].startswith("no such game")


# ---- actions ------------------------------------------------------------------------------

def test_a_legal_action_is_played_and_an_illegal_one_refused_with_the_legal_list(client):
    start = new_game(client)
    game, legal = start["game"], [m["token"] for m in start["view"]["legal"]]
    r = act(client, game, 1, "MINT-KING")
    assert r.status_code == 400
    error = r.json()["error"]
    assert error.startswith("'MINT-KING' is not legal here; legal: ") and legal[0] in error
    r = act(client, game, 1, "XYZZY")
    assert r.status_code == 400 and "unknown token" in r.json()["error"] and "legal: " in r.json()["error"]
    r = act(client, game, 1, legal[0])
    assert r.status_code == 200
    view = r.json()
    assert view["ply"] == 1 and view["log"][0] == {
        "ply": 0, "seat": 1, "round": 0, "tokens": legal[0],
        "steps": [{"token": legal[0], "kind": "room", "room": legal[0], "stage": "SETUP"}],
        "summary": {"placed": [{"room": legal[0], "n": 1}], "recruited": [], "played": [], "moves": 0, "gate": 0, "bonuses": [],
                    "gold": 0, "drawn": 0, "honour_vp": 3}}


def test_passing_is_shown_when_the_decision_goes_to_another_person(client):
    start = new_game(client, shared=True)
    game, view = start["game"], start["view"]
    assert not view["passing"]
    while view["to_move"] == 1:
        view = act(client, game, 1, view["legal"][0]["token"]).json()
        assert view["passing"] == (view["to_move"] == 2)
    assert view["passing"]
    view = act(client, game, 2, client.get(f"/api/games/{game}/view", headers=as_seat(game, 2)).json()["legal"][0]["token"]).json()
    assert view["passing"] == (view["to_move"] == 1)


def test_no_passing_screen_against_an_engine(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])
    game, view = start["game"], start["view"]
    with watch(client, game, 1) as ws:
        for _ in range(8):
            view = my_turn_again(client, ws, game, 1, view["legal"][0]["token"])
            assert not view["passing"]


def test_not_your_turn_is_409(client):
    game = new_game(client)["game"]
    r = act(client, game, 2, "MINT")
    assert r.status_code == 409 and "seat 1's decision" in r.json()["error"]


def test_undo_takes_back_a_decision_of_the_turn_and_no_more(client):
    start = new_game(client)
    game, view = start["game"], start["view"]
    seat = 1
    assert client.post(f"/api/games/{game}/undo", json={"version": view["version"]},
                       headers=as_seat(game, 1)).status_code == 400
    while True:                  # the first decision that leaves the same seat to move
        before = view
        view = act(client, game, seat, view["legal"][-1]["token"]).json()
        if view["to_move"] == seat and view["can_undo"]:
            break
        seat = view["to_move"]
        view = client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()
    r = client.post(f"/api/games/{game}/undo", json={"version": view["version"]}, headers=as_seat(game, seat))
    assert r.status_code == 200
    undone = r.json()
    assert undone["ply"] == before["ply"] and undone["legal"] == before["legal"]


# ---- hidden information -------------------------------------------------------------------

def _game_in_progress(seed: int = 11, decisions: int = 120):
    """A 2-player game between people, played by a seeded random hand for a while."""
    game = PlayGame.new(2, seed, ["a", "b"], secret=ARENA_SECRET)     # draws that reproduce
    rng = random.Random(seed)
    for _ in range(decisions):
        game.draw_cards()
        if game.over():
            break
        game.play(rng.choice(game.state.legal_actions()))
    game.draw_cards()
    return game


def _session(game, game_id="g"):
    return GameSession(game_id, game, ["human", "human"], [SeatSpec("human")] * 2,
                       SearchLimits(iterations=10), 0)


def test_worlds_that_differ_only_in_hidden_cards_give_a_seat_byte_identical_json():
    played = _game_in_progress(6)                # the other seat holds 7 cards here
    seat = played.state.to_move + 1
    other = 3 - seat

    def world_of(state):
        return PlayGame(state, played.seed, played.names, actions=played.actions, drawers=played.drawers,
                        secret=played.secret)

    game = world_of(played.state)
    mine = json.dumps(_session(game).view(seat - 1))
    spectator = json.dumps(_session(game).view(None))
    assert json.loads(mine)["legal"], "the seat looking should be the one to move"
    differed = 0
    for k in range(8):
        world = game.state.view(seat - 1).determinize(seat - 1, Rng(k))
        twin = world_of(world)
        differed += world.snapshot().hand[other - 1] != game.state.snapshot().hand[other - 1]
        assert json.dumps(_session(twin).view(seat - 1)) == mine
        assert json.dumps(_session(twin).view(None)) == spectator
    assert differed, "the worlds never differed: the test would prove nothing"
    # ...while the other seat, who can see its own hand, is shown the difference
    view = _session(game).view(other - 1)
    assert view["players"][other - 1]["hand"] is not None
    assert json.dumps(view) != json.dumps(_session(game).view(seat - 1))


def test_the_log_shows_other_seats_draws_as_question_marks():
    game = _game_in_progress()
    session = _session(game)
    drawn = [(q, a) for a, q in zip(game.actions, game.drawers) if q is not None]
    assert drawn
    for seat in (1, 2):
        tokens = " ".join(turn["tokens"] for turn in session.view(seat - 1)["log"]).split()
        assert len(tokens) == len(game.actions)
        for token, q in zip(tokens, game.drawers):
            if q is not None:
                assert (token == "?") == (q != seat - 1)


# ---- save and load ------------------------------------------------------------------------

def first_legal_actions(client, n: int):
    """A new game between two people, each playing its first legal action, n actions in all:
    (the new game's answer, the view of the seat to move then)."""
    start = new_game(client)
    game, view = start["game"], start["view"]
    for _ in range(n):
        view = act(client, game, view["to_move"], view["legal"][0]["token"]).json()
        view = client.get(f"/api/games/{game}/view", headers=as_seat(game, view['to_move'])).json()
    return start, view


def test_a_live_record_is_the_seats_own_view_and_a_finished_one_round_trips(client):
    start, view = first_legal_actions(client, 12)
    game = start["game"]
    r = client.get(f"/api/games/{game}/record", headers=as_seat(game, 1))
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert '[View "1"]' in r.text and "DrawSecret" not in r.text
    assert f'[Commitment "{start["commitment"]}"]' in r.text
    assert client.get(f"/api/games/{game}/record").status_code == 403      # a spectator: none yet
    # a finished game's record is the full one, and uploaded again it is the same game
    first = remember(client.post("/api/records", content=EXAMPLE.read_bytes(), headers=ORIGIN).json())
    text = client.get(f"/api/games/{first['game']}/record").text
    assert "DrawSecret" in text and "View" not in text
    r = client.post("/api/records", content=text.encode(), headers=ORIGIN)
    assert r.status_code == 200, r.text
    loaded = remember(r.json())
    assert loaded["view"]["seat"] == 1 and loaded["view"]["over"]
    assert loaded["mine"] == [1, 2, 3] and loaded["shared"]
    assert client.get(f"/api/games/{loaded['game']}/record").text == text


def test_review_shows_the_position_after_n_actions_from_one_seat(client):
    start, view = first_legal_actions(client, 12)
    game = start["game"]
    tokens = " ".join(t["tokens"] for t in view["log"]).split()
    for ply in (0, 3, len(tokens)):
        position = client.get(f"/api/games/{game}/position?ply={ply}", headers=as_seat(game, 1)).json()
        assert position["ply"] == ply and position["legal"] == []
        assert " ".join(t["tokens"] for t in position["log"]).split() == tokens[:ply]
    assert client.get(f"/api/games/{game}/position?ply=0", headers=as_seat(game, 1)).json()["rooms"] == start["view"]["rooms"]
    r = client.get(f"/api/games/{game}/position?ply={len(tokens) + 1}", headers=as_seat(game, 1))
    assert r.status_code == 400 and r.json()["error"].startswith("ply: ")


@pytest.mark.parametrize("body, status, words", [
    (b"not a record", 400, "cannot load the record"),
    (b'[Game "Palais Royal"]\n[Players "2"]\n[Set "original"]\n\n0.1: NOWHERE\n', 400, "cannot load the record"),
    (b"\xff\xfe\x00", 400, "not UTF-8"),
    (b"x" * 300_000, 413, "over the limit"),
])
def test_a_bad_or_oversized_record_is_refused_with_a_clear_line(client, body, status, words):
    r = client.post("/api/records", content=body)
    assert r.status_code == status and words in r.json()["error"], r.text
    assert "\n" not in r.json()["error"]


# ---- numbers from the request -------------------------------------------------------------

# Each is refused by the project's number reader (common/numbers.py): ASCII digits only.
BAD_NUMBERS = ["\u00b2", "\u00b3", "\u0663", "\uff11", "\u0661\u0662", "+1", "-1", "1_0", " 1", "1 ",
               "0x1", "1e2", "1.0", "", "9" * 5000]


@pytest.mark.parametrize("text", BAD_NUMBERS)
def test_a_bad_number_in_a_query_string_is_a_400_naming_the_field(client, text):
    game = new_game(client)["game"]
    for seat in (0, 1):
        r = client.get(f"/api/games/{game}/position", params={"ply": text}, headers=as_seat(game, seat))
        assert r.status_code == 400, (seat, r.status_code)
        error = r.json()["error"]
        assert error.startswith("ply: expected a whole number") and "\n" not in error
        assert len(error) < 200


def test_a_query_number_given_twice_or_with_leading_zeros():
    with client_for() as c:
        game = new_game(c)["game"]
        r = c.get(f"/api/games/{game}/position?ply=0&ply=1", headers=as_seat(game, 1))
        assert r.status_code == 400 and "given 2 times" in r.json()["error"]
        assert c.get(f"/api/games/{game}/position?ply=000", headers=as_seat(game, 1)).json()["ply"] == 0


@pytest.mark.parametrize("hello", ["not json", "[1, 2]", "7"])
def test_a_socket_with_a_bad_first_message_is_closed_with_a_reason(client, hello):
    game = new_game(client)["game"]
    with pytest.raises(WebSocketDisconnect) as closed:
        with client.websocket_connect(f"{WS}/ws/games/{game}") as ws:
            ws.send_text(hello)
            message = ws.receive_json()
            assert message["type"] == "error" and "first message" in message["error"]
            ws.receive_json()
    assert closed.value.code == 1008
    assert closed.value.reason.startswith("expected a first message")


@pytest.mark.parametrize("body, field", [
    (b'{"seed": 1' + b"0" * 3000 + b'}', "seed"),
    (b'{"seed": -1' + b"0" * 40 + b'}', "seed"),
    (b'{"seed": 1.0}', "seed"),
    (b'{"seed": true}', "seed"),
    (b'{"seed": NaN}', "the body is not JSON"),
    (b'{"seed": Infinity}', "the body is not JSON"),
])
def test_a_bad_number_in_a_json_body_is_a_400_naming_the_field(client, body, field):
    body = body.replace(b'{"seed"', b'{"players": [{"kind": "human"}, {"kind": "human"}], "seed"', 1)
    r = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"].startswith(field), r.text
    assert len(r.json()["error"]) < 200


def test_a_huge_seed_or_option_is_refused_saying_how_long_it_was(client):
    huge = "7" * 5000
    for body, field in ((f'{{"players": [{{"kind": "human"}}, {{"kind": "human"}}], "seed": {huge}}}', "seed"),
                        (f'{{"players": [{{"kind": "human"}}, {{"kind": "human"}}], "options": {{"round_cap": {huge}}}}}',
                         "options")):
        r = client.post("/api/games", content=body.encode(), headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"].startswith(field), r.text
        assert "a number of 5000 digits" in r.json()["error"]


@pytest.mark.parametrize("length", [b"\xb2", b"\xd9\xa3", b"+5", b"1_0", b"-1"])
def test_a_bad_content_length_is_a_400(client, length):
    r = client.post("/api/records", content=b"xxxxx", headers={"content-length": length})
    assert r.status_code == 400 and r.json()["error"].startswith("Content-Length: "), r.text


# ---- limits and security -----------------------------------------------------------------

def test_max_games_refuses_one_more_until_one_is_deleted():
    with client_for(max_games=2) as c:
        first = new_game(c)["game"]
        new_game(c)
        r = c.post("/api/games", json={"players": HUMANS_2})
        assert r.status_code == 429 and "--max-games" in r.json()["error"]
        assert c.delete(f"/api/games/{first}", headers=as_owner(first)).status_code == 200
        new_game(c)


def test_when_full_a_finished_unwatched_game_makes_room():
    record = EXAMPLE.read_bytes()               # a finished game
    with client_for(max_games=2) as c:
        finished = c.post("/api/records", content=record).json()["game"]
        live = new_game(c)["game"]
        with watch(c, finished, 0) as ws:
            ws.receive_json()                   # watched: it stays
            assert c.post("/api/games", json={"players": HUMANS_2}).status_code == 429
        new_game(c)
        assert c.get(f"/api/games/{finished}/view", headers=as_seat(finished, 0)).status_code == 404
        assert c.get(f"/api/games/{live}/view", headers=as_seat(live, 1)).status_code == 200


class Clock:
    """A clock the test moves (no sleeping): seconds, as time.monotonic."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_game_left_unused_is_ended_after_idle_minutes_and_frees_its_place():
    clock = Clock()
    with client_for(max_games=1, idle_minutes=30, clock=clock) as c:
        old = new_game(c, [{"kind": "human"}, {"kind": "engine", "name": "random"}])["game"]
        with watch(c, old, 1) as ws:
            assert ws.receive_json()["type"] == "view"
            clock.now += 29 * 60
            assert c.post("/api/games", json={"players": HUMANS_2}).status_code == 429
            assert c.get(f"/api/games/{old}/view", headers=as_seat(old, 1)).status_code == 200   # used: 30 more minutes
            clock.now += 29 * 60
            assert c.post("/api/games", json={"players": HUMANS_2}).status_code == 429
            clock.now += 2 * 60                  # 31 minutes since it was last used
            session = c.app.state.store._games[old]
            fresh = new_game(c)["game"]
            messages = []
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    messages.append(ws.receive_json())
        assert closed.value.code == 4404
        assert messages[-1]["type"] == "error"
        assert "ended after 30 minutes without activity" in messages[-1]["error"]
        assert session.closed and session.seats[1] is not None
        assert c.get(f"/api/games/{old}/view", headers=as_seat(old, 1)).status_code == 404
        assert c.get(f"/api/games/{fresh}/view", headers=as_seat(fresh, 1)).status_code == 200


def test_the_server_sweeps_out_unused_games_on_its_own():
    import time
    clock = Clock()
    with client_for(idle_minutes=5, clock=clock, sweep_interval_s=0.02) as c:
        games = [new_game(c)["game"] for _ in range(3)]
        clock.now += 4 * 60
        assert c.get(f"/api/games/{games[0]}/view", headers=as_seat(games[0], 1)).status_code == 200
        clock.now += 2 * 60                      # games[1] and [2]: 6 minutes unused
        deadline = time.monotonic() + 30
        while len(c.app.state.store) > 1:
            assert time.monotonic() < deadline, "the sweep did not run"
            time.sleep(0.01)
        assert c.get(f"/api/games/{games[0]}/view", headers=as_seat(games[0], 1)).status_code == 200
        assert c.get(f"/api/games/{games[1]}/view", headers=as_seat(games[1], 1)).status_code == 404


def test_the_watchers_of_a_deleted_game_are_told(client):
    game = new_game(client)["game"]
    with watch(client, game, 1) as ws:
        assert ws.receive_json()["type"] == "view"
        assert client.delete(f"/api/games/{game}").status_code == 403
        assert client.delete(f"/api/games/{game}", headers=as_seat(game, 1)).status_code == 403
        assert client.delete(f"/api/games/{game}", headers=as_owner(game)).status_code == 200
        message = ws.receive_json()
    assert message["type"] == "error" and "closed" in message["error"]
    assert client.delete(f"/api/games/{game}", headers=as_owner(game)).status_code == 404


def test_a_foreign_origin_is_refused_on_the_websocket_and_on_changes(client):
    game = new_game(client)["game"]
    with pytest.raises(WebSocketDisconnect) as closed:
        with watch(client, game, 1,
                                      headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    assert closed.value.code == 4403
    r = client.post(f"/api/games/{game}/action", json={"seat": 1, "action": "MINT"},
                    headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    with watch(client, game, 1, headers=ORIGIN) as ws:
        assert ws.receive_json()["type"] == "view"


def test_a_socket_for_no_game_or_an_engine_seat_is_closed_with_a_code_not_to_retry(client):
    game = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])["game"]
    with pytest.raises(WebSocketDisconnect) as closed:
        with client.websocket_connect(f"{WS}/ws/games/nope") as ws:
            assert ws.receive_json()["type"] == "error"
            ws.receive_json()
    assert closed.value.code == 4404
    with pytest.raises(WebSocketDisconnect) as closed:
        with watch(client, game, key="a guess at the engine seat's key") as ws:
            message = ws.receive_json()                   # no key of a seat: refused, no view
            assert message == {"type": "error", "error": "this seat link is not valid for this game",
                               "bad_key": True}
            ws.receive_json()
    assert closed.value.code == 4403


def test_a_host_name_not_of_this_machine_is_refused_when_bound_to_loopback():
    with TestClient(create_app(ServerConfig()), base_url="http://rebound.example:8000") as c:
        assert c.get("/api/meta").status_code == 403
    with TestClient(create_app(ServerConfig(host="0.0.0.0", allow_hosts=("box.lan",))),
                    base_url="http://box.lan:8000") as c:
        assert c.get("/api/meta").status_code == 200


def _start_body():
    return {"players": HUMANS_2, "seed": 1}


@pytest.mark.parametrize("base", [
    "http://127.attacker.example:8000",         # begins like 127.0.0.1: a DNS name all the same
    "http://127.0.0.1.nip.io:8000",             # a public DNS name that resolves to 127.0.0.1
    "http://localhost.attacker.example:8000",
    "http://127.1:8000",
    "http://0.0.0.0:8000",
])
def test_a_rebound_name_that_looks_like_loopback_gets_nothing(base):
    """DNS rebinding: a page of `base` whose name now points at 127.0.0.1 sends its own
    Host and, being its own origin, a matching Origin. It must get no part of the API."""
    with TestClient(create_app(ServerConfig(seeds=random.Random(0))), base_url=base) as c:
        r = c.get("/api/meta")
        assert r.status_code == 403 and "is not a name of this server" in r.json()["error"]
        assert "--allow-host" in r.json()["error"]
        assert c.post("/api/games", json=_start_body(), headers={"origin": base}).status_code == 403
        assert len(c.app.state.store) == 0
        with pytest.raises(WebSocketDisconnect) as closed:
            with c.websocket_connect(f"ws{base[4:]}/ws/games/nope?seat=0", headers={"origin": base}):
                pass
        assert closed.value.code == 4403


@pytest.mark.parametrize("host, allowed", [
    ("127.0.0.1:8000", True), ("127.0.0.1", True), ("localhost:8000", True), ("LocalHost", True),
    ("[::1]:8000", True), ("[::1]", True),
    ("127.0.0.1:8001", False),                  # another port: not this server
    ("127.0.0.1:", False), (b"127.0.0.1:80\xb2\xb3", False), ("127.0.0.1:+8000", False),
    ("::1", False), ("[::1", False), ("", False), ("localhost.", False), ("127.0.0.2:8000", False),
    ("box.lan:8000", False),
])
def test_only_exact_loopback_names_with_the_servers_port_are_answered(host, allowed):
    with client_for() as c:
        r = c.get("/api/meta", headers={"host": host})
        assert (r.status_code == 200) == allowed, (host, r.status_code)


def test_allow_host_and_a_named_host_add_names_and_their_origins():
    config = dict(host="box.lan", allow_hosts=("palais.home", "192.168.1.5"))
    for base in ("http://box.lan:8000", "http://palais.home:8000", "http://192.168.1.5:8000",
                 "http://127.0.0.1:8000"):
        with TestClient(create_app(ServerConfig(**config)), base_url=base) as c:
            assert c.get("/api/meta").status_code == 200, base
            assert c.post("/api/games", json=_start_body(), headers={"origin": base}).status_code == 200
    with TestClient(create_app(ServerConfig(**config)), base_url="http://elsewhere.lan:8000") as c:
        assert c.get("/api/meta").status_code == 403
    with TestClient(create_app(ServerConfig(host="0.0.0.0")), base_url="http://box.lan:8000") as c:
        assert c.get("/api/meta").status_code == 403       # a wildcard address names nothing


@pytest.mark.parametrize("origin", [
    "http://127.attacker.example:8000", "http://127.0.0.1.nip.io:8000", "http://127.0.0.1:8001",
    "http://127.0.0.1", "null", "file://", "http://127.0.0.1:8000/page", "http://a@127.0.0.1:8000",
    "http://[::1", "ftp://127.0.0.1:8000",
])
def test_an_origin_not_of_the_allowed_names_and_port_changes_nothing(client, origin):
    r = client.post("/api/games", json=_start_body(), headers={"origin": origin})
    assert r.status_code == 403 and "Origin" in r.json()["error"], (origin, r.text)
    game = new_game(client)["game"]
    with pytest.raises(WebSocketDisconnect) as closed:
        with watch(client, game, 1, headers={"origin": origin}) as ws:
            ws.receive_json()
    assert closed.value.code == 4403


def test_the_servers_other_names_are_its_own_origins(client):
    for origin in ("http://localhost:8000", "http://[::1]:8000", BASE):
        assert client.post("/api/games", json=_start_body(), headers={"origin": origin}).status_code == 200


def test_an_oversized_websocket_message_closes_the_socket(client):
    game = new_game(client)["game"]
    with watch(client, game, 1) as ws:
        assert ws.receive_json()["type"] == "view"
        ws.send_text("x" * 10_000)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
    assert closed.value.code == 1009


# ---- engines ------------------------------------------------------------------------------

def test_an_engine_seat_moves_and_the_socket_pushes_the_views(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])
    game = start["game"]
    with watch(client, game, 1) as ws:
        view = next_view(ws, lambda v: True)
        while [t["seat"] for t in view["log"]] != [1, 2]:
            view = my_turn_again(client, ws, game, 1, view["legal"][0]["token"])
    assert view["to_move"] == 1 and view["legal"] and view["round"] == 1


def test_an_answer_is_older_than_the_engine_moves_pushed_after_it(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])
    game, view = start["game"], start["view"]
    with watch(client, game, 1) as ws:
        while view["to_move"] == 1:
            view = act(client, game, 1, view["legal"][0]["token"]).json()
        assert view["thinking"] == 2            # the engine's turn, not one of its moves yet
        after = next_view(ws, lambda v: v["ply"] > view["ply"] and v["thinking"] == 0)
    assert after["version"] > view["version"] and after["ply"] > view["ply"]


@pytest.mark.slow
def test_an_in_process_engine_reports_its_thinking(client):
    # The engine starts thinking as the game is created, before the socket connects, and
    # infos come at most every INFO_INTERVAL_S: a budget of several intervals leaves some to see.
    start = new_game(client, [{"kind": "engine", "name": "ismcts"}, {"kind": "human"}], budget_ms=1500)
    with watch(client, start['game'], 2) as ws:
        infos = []
        for _ in range(2000):
            message = ws.receive_json()
            if message["type"] == "info":
                infos.append(message)
            if message["type"] == "view" and message["view"]["to_move"] == 2:
                break
    assert infos and infos[0]["seat"] == 1 and 0 <= infos[0]["win"] <= 1
    assert infos[0]["iterations"] > 0 and "!" not in infos[0]["pv"]


def test_an_engine_line_shown_stops_before_its_cards_and_is_bounded():
    from web.session import public_line
    assert public_line("continue gate2 MINT-KING !GOLD end ?HONOUR") == "continue gate2 MINT-KING"
    assert public_line("?GOLD continue") == ""
    assert len(public_line("MINT-KING " * 5000).split()) == 40


def test_a_two_player_game_against_random_is_played_to_the_end_over_the_api(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}],
                     options={"round_cap": 4})
    game, view = start["game"], start["view"]
    rng = random.Random(3)
    with watch(client, game, 1) as ws:
        while not view["over"]:
            view = my_turn_again(client, ws, game, 1, rng.choice(view["legal"])["token"])
    assert view["to_move"] == 0 and view["legal"] == [] and len(view["scores"]) == 2
    text = client.get(f"/api/games/{game}/record").text
    assert "[Winners " in text


@pytest.mark.slow
def test_a_pri_engine_process_plays_a_turn_and_is_ended_with_its_game(tmp_path, pid_file):
    engine = shutil.which("palais-engine") or sys.executable
    cmd = (engine,) if engine != sys.executable else (sys.executable, "-m", "protocol.cli")
    specs = (EngineSpec("pri", cmd), EngineSpec("deaf", tuple(deaf_engine_cmd(pid_file))))
    with client_for(engines=specs) as c:
        # The engine thinks a whole second, so the watcher is there for its progress lines (at
        # 50 ms a loaded machine could finish the turn before the socket opened: no info seen).
        start = new_game(c, [{"kind": "engine", "name": "pri"}, {"kind": "human"}], budget_ms=1000)
        game = start["game"]
        with watch(c, game, 2) as ws:
            infos = []
            for _ in range(2000):
                message = ws.receive_json()
                infos += [message] if message["type"] == "info" else []
                if message["type"] == "view" and message["view"]["to_move"] == 2 \
                        and message["view"]["thinking"] == 0:
                    break
        view = message["view"]
        assert view["ply"] >= 1 and view["log"][0]["seat"] == 1
        assert infos and infos[0]["seat"] == 1 and infos[0]["iterations"] > 0
        session = c.app.state.store.get(game)
        process = session.seats[0].current.client.process
        assert c.delete(f"/api/games/{game}", headers=as_owner(game)).status_code == 200
        assert process.poll() is not None
        # an engine that ignores quit and SIGTERM, behind a launcher, ends at server shutdown
        deaf = new_game(c, [{"kind": "human"}, {"kind": "engine", "name": "deaf"}])
        assert act(c, deaf["game"], 1, deaf["view"]["legal"][0]["token"]).status_code == 200
    assert left_running(pid_file) == []


@pytest.mark.slow
def test_an_expired_game_ends_its_engine_processes(pid_file):
    clock = Clock()
    specs = (EngineSpec("deaf", tuple(deaf_engine_cmd(pid_file))),)
    with client_for(engines=specs, idle_minutes=10, clock=clock, max_games=1) as c:
        start = new_game(c, [{"kind": "human"}, {"kind": "engine", "name": "deaf"}])
        assert act(c, start["game"], 1, start["view"]["legal"][0]["token"]).status_code == 200
        assert pid_file.exists()
        clock.now += 11 * 60
        new_game(c)                              # the server is full: the unused game goes
        assert c.get(f"/api/games/{start['game']}/view", headers=as_seat(start['game'], 1)).status_code == 404
        assert left_running(pid_file) == []      # while the server still runs


def engine_turn_messages(ws, seat: int, after: int = -1, most: int = 5000):
    """The messages on `ws` until a View newer than version `after` shows `seat` (a
    person) to decide, no engine thinking: (the error lines meanwhile, that View)."""
    errors = []
    for _ in range(most):
        message = ws.receive_json()
        if message["type"] == "error":
            errors.append(message["error"])
        if message["type"] == "view" and message["view"]["version"] > after \
                and message["view"]["to_move"] == seat and message["view"]["thinking"] == 0:
            return errors, message["view"]
    raise AssertionError("the engine's turn did not end")


def play_rounds(client, ws, game, view, rounds: int):
    """Seat 1 (a person) plays its first legal action until `rounds` more rounds have
    started (the engine seats playing in between); the errors meanwhile, and the View."""
    errors, until = [], view["round"] + rounds
    while not view["over"] and view["round"] < until:
        r = act(client, game, 1, view["legal"][0]["token"])
        assert r.status_code == 200, r.text
        view = r.json()
        if view["to_move"] != 1 or view["thinking"]:
            more, view = engine_turn_messages(ws, 1, view["version"])
            errors += more
    return errors, view


@pytest.mark.parametrize("failure", ["raises", "illegal"])
def test_a_builtin_seat_that_keeps_failing_is_restarted_twice_then_given_up(client, monkeypatch, failure):
    import play.seats
    from engine.constants import A_MOVE
    asked = []

    def broken(player, state, seat, limits, callback=None, **_):
        asked.append(seat)
        if failure == "raises":
            raise RuntimeError("a bug in the player")
        return [A_MOVE], 1                      # MINT-MINT: a room to itself, never legal

    monkeypatch.setattr(play.seats, "choose_turn", broken)
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "greedy"}])
    game, view = start["game"], start["view"]
    assert view["engines"] == [None, {"restarts": 0, "failed": False}]
    with watch(client, game, 1) as ws:
        errors, view = play_rounds(client, ws, game, view, 1)
        assert len(asked) == 3 and len(errors) == 3, errors
        why = "a bug in the player" if failure == "raises" else "gave no legal action"
        assert all(f"engine seat 2 (greedy) failed: " in e and why in e for e in errors)
        assert "restarted (1 of 2 restarts)" in errors[0] and "(2 of 2 restarts)" in errors[1]
        assert "given up" in errors[2] and "at random" in errors[2]
        assert view["engines"] == [None, {"restarts": 2, "failed": True}]
        assert any(turn["seat"] == 2 for turn in view["log"])      # its turns are played
        errors, view = play_rounds(client, ws, game, view, 2)
    assert errors == [] and len(asked) == 3                        # and it is not asked again
    assert any(turn["seat"] == 2 and turn["round"] >= 2 for turn in view["log"])
    assert client.get(f"/api/games/{game}/view", headers=as_seat(game, 1)).json()["engines"][1]["failed"]


def test_a_builtin_seat_that_fails_once_is_restarted_and_plays_on(client, monkeypatch):
    import play.seats
    real, asked = play.seats.choose_turn, []

    def once(*args, **kwargs):
        asked.append(1)
        if len(asked) == 1:
            raise RuntimeError("a passing fault")
        return real(*args, **kwargs)

    monkeypatch.setattr(play.seats, "choose_turn", once)
    start = new_game(client, [{"kind": "human"}, {"kind": "engine", "name": "random"}])
    game = start["game"]
    with watch(client, game, 1) as ws:
        errors, view = play_rounds(client, ws, game, start["view"], 2)
    assert len(errors) == 1 and "restarted (1 of 2 restarts)" in errors[0]
    assert view["engines"][1] == {"restarts": 1, "failed": False} and len(asked) > 2


def test_the_page_says_engine_failed_in_every_language(client):
    words = {"en": "engine failed", "fr": "moteur en panne", "zh": "引擎故障"}
    for lang, text in words.items():
        assert client.get(f"/api/i18n/{lang}").json()["messages"]["engine failed"] == text
    static = Path(__file__).resolve().parent.parent / "web" / "static"
    board = "".join(path.read_text() for path in [static / "board.js", *sorted((static / "board").glob("*.js"))])
    assert 't("engine failed")' in board and "view.engines" in board


def test_an_engine_started_while_its_game_closes_is_ended_and_waited_for():
    """A restart in progress when the game closes: the engine that comes up is ended at
    once, and close() returns only after that (no process can outlive the server)."""
    import threading
    from web.engine_seat import KeptSeat
    started, release, events = threading.Event(), threading.Event(), []

    class Fake:
        def __init__(self, n):
            self.n = n

        def stop(self):
            events.append(("stop", self.n))

        def close(self):
            events.append(("close", self.n))

    opened = []

    def opener(spec, limits, seed):
        if opened:                               # the restart: slow to come up
            started.set()
            release.wait(30)
        opened.append(Fake(len(opened) + 1))
        return opened[-1]

    seat = KeptSeat(SeatSpec("cmd", ("x",)), SearchLimits(time_ms=50), 0, 2, opener)
    restarting = threading.Thread(target=seat.replace, args=("it crashed",))
    restarting.start()
    assert started.wait(30)
    closing = threading.Thread(target=seat.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()                    # it waits for the engine coming up...
    release.set()
    closing.join(30)
    restarting.join(30)
    assert not closing.is_alive() and ("close", 1) in events and ("close", 2) in events
    assert seat.current is None and seat.closed and not seat.failed


def _failing_engine(mode: str, pid_file) -> EngineSpec:
    return EngineSpec(mode, (sys.executable, "-m", "tournament.testing_engines", "--mode", mode,
                             "--after", "1", "--pid-file", str(pid_file)))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["crash", "stall", "garbage"])
def test_a_pri_engine_that_fails_is_ended_restarted_twice_then_given_up(pid_file, mode):
    """Each engine fails at its first `go`: crashing, never answering (past its budget and
    the overrun allowed), or answering what is not PRI. Each is ended, and restarted twice;
    then the seat has failed, and no process of it is left while the game goes on."""
    with client_for(engines=(_failing_engine(mode, pid_file),), engine_overrun_s=0.5) as c:
        start = new_game(c, [{"kind": "engine", "name": mode}, {"kind": "human"}], budget_ms=50)
        game = start["game"]
        with watch(c, game, 2) as ws:
            errors, view = engine_turn_messages(ws, 2)
            assert len(errors) == 3, errors
            assert "restarted (1 of 2 restarts)" in errors[0] and "given up" in errors[2]
            assert view["engines"] == [{"restarts": 2, "failed": True}, None]
            assert view["log"][0]["seat"] == 1 and view["legal"]
            assert len(pids(pid_file)) == 3                  # the first engine and two restarts
            assert left_running(pid_file) == []              # none left, the game still live
            for _ in range(3):                               # it is not asked again
                r = act(c, game, 2, view["legal"][0]["token"])
                view = r.json()
                if view["to_move"] != 2 or view["thinking"]:
                    more, view = engine_turn_messages(ws, 2, view["version"])
                    assert more == []
        assert len(pids(pid_file)) == 3
    assert left_running(pid_file) == []


def _free_port() -> int:
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _http(method: str, url: str, body=None):
    import urllib.request
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


@pytest.mark.slow
def test_palais_serve_stopped_leaves_no_engine_process_behind(pid_file):
    import signal
    import subprocess
    import time
    import urllib.error
    port = _free_port()
    deaf = " ".join(deaf_engine_cmd(pid_file))
    server = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--port", str(port),
                               "--db", ":memory:", "--engine", f"name=deaf cmd='{deaf}'",
                               "--sandbox", "off"],          # its pid file: outside a sandbox's view
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert f"http://127.0.0.1:{port}/" in server.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:                      # a bounded wait for the server to listen
            try:
                _http("GET", f"{url}/api/meta")
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        start = _http("POST", f"{url}/api/games", {"players": [{"kind": "engine", "name": "deaf"},
                                                               {"kind": "human"}], "seed": 2})
        assert start["view"]["kinds"] == ["deaf", "human"] and pid_file.exists()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert left_running(pid_file) == []


def _until_closed(sock, bound_s: float = 15.0, trickle: bytes = b"") -> tuple:
    """What the server sends on `sock` until it closes the connection, and how long that
    took; sending `trickle` a byte every 0.1 s meanwhile. Fails past `bound_s`."""
    import socket
    import time
    start = time.monotonic()
    sock.settimeout(0.1)
    received, sent = b"", 0
    while time.monotonic() - start < bound_s:
        if sent < len(trickle):
            try:
                sock.sendall(trickle[sent:sent + 1])
                sent += 1
            except OSError:              # the server closed it: read what it said
                sock.settimeout(1.0)
        try:
            chunk = sock.recv(4096)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return received, time.monotonic() - start
        if not chunk:
            return received, time.monotonic() - start
        received += chunk
    raise AssertionError(f"the server kept the connection open for {bound_s} s")


@pytest.mark.slow
def test_a_request_that_does_not_arrive_whole_is_cut_off_by_a_real_server():
    """Slow clients against uvicorn on a real socket: a request whose headers or body never
    arrive whole is answered 408 or cut within the deadline (1 s here), and the server
    keeps serving."""
    import socket
    from urllib.parse import urlsplit

    from web_page import served
    with served(ServerConfig(request_timeout_s=1.0, keep_alive_s=1)) as url:
        port = urlsplit(url).port
        connect = lambda: socket.create_connection(("127.0.0.1", port), timeout=5)  # noqa: E731
        with connect() as sock:                  # headers begun, never ended
            sock.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            said, took = _until_closed(sock)
        assert said.startswith(b"HTTP/1.1 408 ") and b"did not arrive whole within 1 s" in said
        assert took < 10
        with connect() as sock:                  # headers trickled a byte every 0.1 s
            said, took = _until_closed(sock, trickle=b"GET /api/meta HTTP/1.1\r\n" + b"X: y" * 100)
        assert said.startswith(b"HTTP/1.1 408 ") and took < 10
        with connect() as sock:                  # a body that never arrives whole
            sock.sendall(b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Length: 1000\r\n\r\n" + b"x" * 10)
            said, took = _until_closed(sock)
        assert took < 10
        with connect() as sock:                  # a connection opened and left silent
            said, took = _until_closed(sock)
        assert said == b"" and took < 10
        with connect() as sock:                  # one whole request, then silence: kept alive 1 s
            sock.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            said, took = _until_closed(sock)
        assert said.startswith(b"HTTP/1.1 200 ") and took < 10
        assert _http("GET", f"{url}/api/meta")["limits"]["max_games"] == 16


# ---- hints and review ---------------------------------------------------------------------

def test_a_hint_is_given_to_the_seat_to_move_only(client):
    game = new_game(client)["game"]
    r = client.post(f"/api/games/{game}/hint", headers=as_seat(game, 2), json={"top": 2})
    assert r.status_code == 409
    r = client.post(f"/api/games/{game}/hint", headers=as_seat(game, 1), json={"top": 2, "lang": "en"})
    assert r.status_code == 200, r.text
    hints = r.json()["hints"]
    assert 1 <= len(hints) <= 2 and hints[0]["rank"] == 1 and hints[0]["actions"]
    assert hints[0]["turn"] == " ".join(hints[0]["actions"]) and hints[0]["explanation"]


def test_a_hint_may_ask_for_a_smaller_search_never_a_larger_one(client):
    game = new_game(client)["game"]          # (the test server's hint_iterations: 200)
    r = client.post(f"/api/games/{game}/hint", headers=as_seat(game, 1), json={"top": 1, "iterations": 60})
    assert r.status_code == 200, r.text
    assert 0 < r.json()["iterations"] <= 60 and r.json()["hints"][0]["actions"]
    for bad in (49, 201, "100", 100.0, True):
        r = client.post(f"/api/games/{game}/hint", headers=as_seat(game, 1), json={"iterations": bad})
        assert r.status_code == 400 and r.json()["error"].startswith("iterations: expected a whole number 50..200"), r.text


def test_one_hint_of_a_game_is_searched_at_a_time():
    session = _session(PlayGame.new(2, 3, ["a", "b"]))
    with session.hint_state(0):
        with pytest.raises(Refused) as refused:
            with session.hint_state(0):
                pass
    assert refused.value.status == 409 and "already" in str(refused.value)
    with session.hint_state(0) as state:       # free again once the first is done
        assert state.to_move == 0


def test_hints_are_explained_in_the_language_asked(client):
    game = new_game(client)["game"]
    english, french = (client.post(f"/api/games/{game}/hint", headers=as_seat(game, 1), json={"top": 1, "lang": lang})
                       .json()["hints"][0] for lang in ("en", "fr"))
    assert english["turn"] == french["turn"] and english["explanation"] != french["explanation"]
    # every language's words come along, so the page redraws a hint shown in another
    assert french["explanations"] == english["explanations"]
    assert english["explanations"]["en"] == english["explanation"]
    assert english["explanations"]["fr"] == french["explanation"]
    assert set(english["explanations"]) == {"en", "fr", "zh"}
    r = client.post(f"/api/games/{game}/hint", headers=as_seat(game, 1), json={"lang": "de"})
    assert r.status_code == 400 and r.json()["error"].startswith("lang: ")


def test_the_page_gets_a_language_table_and_an_unknown_language_is_404(client):
    table = client.get("/api/i18n/fr").json()
    assert table["lang"] == "fr" and table["messages"]["MINT"] != "MINT"
    assert client.get("/api/i18n/de").status_code == 404


def test_analysis_is_refused_during_a_game(client):
    game = new_game(client)["game"]
    r = client.post(f"/api/games/{game}/analyse", json={})
    assert r.status_code == 403                  # a spectator
    r = client.post(f"/api/games/{game}/analyse", json={}, headers=as_seat(game, 1))
    assert r.status_code == 409                  # a seat: not before the end
    assert client.get(f"/api/games/{game}/analysis").status_code == 404


def test_an_uploaded_finished_game_is_analysed_with_progress(client):
    loaded = client.post("/api/records", content=EXAMPLE.read_bytes()).json()
    game = loaded["game"]
    assert loaded["view"]["over"]
    with watch(client, game, 0) as ws:
        assert client.post(f"/api/games/{game}/analyse", json={"budget_ms": None}).json() == {"started": True}
        progress, result = [], None
        for _ in range(10_000):
            message = ws.receive_json()
            if message["type"] == "analysis":
                if "result" in message:
                    result = message["result"]
                    break
                progress.append(message["done"])
            assert message["type"] != "error", message
    assert progress == sorted(progress) and result["turns"]
    turn = result["turns"][1]
    assert set(turn) >= {"ply", "seat", "round", "tokens", "win_before", "win_after", "loss", "mark", "best"}
    # the preferred line as steps too, for the chart's words: the same tokens
    for t in result["turns"]:
        assert [step["token"] for step in t["best_steps"]] == t["best"].split()
    assert result["turns"][1]["win_before"] == result["turns"][0]["win_after"]
    assert result["observer"] == "full"                  # one observer for the whole chart
    assert [s["seat"] for s in result["seats"]] == [1, 2, 3]
    assert all(0 <= s["accuracy"] <= 100 for s in result["seats"])
    assert all(abs(sum(t["win_after"]) - 1) < 0.03 for t in result["turns"])
    assert client.get(f"/api/games/{game}/analysis").json() == result


# ---- the command ----------------------------------------------------------------------------

@pytest.fixture
def serve(monkeypatch, tmp_path_factory):
    """_serve with a fresh data directory for each call, in pytest's temporary folders (which
    pytest prunes), so no run leaves folders behind in /tmp."""
    return lambda *args, check_port=False: _serve(monkeypatch, tmp_path_factory.mktemp("palais-data"), *args,
                                                  check_port=check_port)


def _serve(monkeypatch, data_home, *args, check_port=False):
    """`palais serve ARGS` with uvicorn.run replaced: (result, the run's arguments or None).
    The user's data directory is `data_home` (the default --db lives there); the port is
    not tried unless `check_port` (another server may hold 8000 on this machine)."""
    import uvicorn
    from click.testing import CliRunner

    import web.cli
    from web.cli import main
    runs = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: runs.append((app, kwargs)))
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    if not check_port:
        monkeypatch.setattr(web.cli, "port_free", lambda host, port: None)
    result = CliRunner().invoke(main, ["serve", *args])
    return result, (runs[0] if runs else None)


def test_a_port_in_use_is_one_error_line_and_exit_code_2(monkeypatch, serve):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result, run = serve("--port", str(port), "--db", ":memory:", check_port=True)
    assert result.exit_code == 2 and run is None
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: cannot listen on 127.0.0.1:{port}: "), lines
    assert "open http" not in result.output


def test_a_wildcard_host_prints_every_address_others_can_open(monkeypatch, serve):
    import web.addresses
    monkeypatch.setattr(web.addresses, "local_addresses", lambda ipv6=False: ["127.0.0.1", "192.168.1.7"])
    result, run = serve("--host", "0.0.0.0", "--port", "8124")
    assert result.exit_code == 0, result.output
    assert "open http://127.0.0.1:8124/" in result.output
    assert "from another machine, http://192.168.1.7:8124/" in result.output


def test_games_are_kept_in_the_users_data_directory_unless_db_says_otherwise(monkeypatch, tmp_path, serve):
    from web.sqlite_store import SqliteStore
    from web.store import MemoryStore
    result, run = serve()
    assert result.exit_code == 0, result.output
    db = run[0].state.config.db
    assert db.endswith("palais/games.sqlite3") and isinstance(run[0].state.store, SqliteStore)
    result, run = serve("--db", ":memory:")
    assert isinstance(run[0].state.store, MemoryStore) and not isinstance(run[0].state.store, SqliteStore)
    result, run = serve("--db", str(tmp_path / "no" / "such" / "dir" / "g.db"))
    assert result.exit_code == 1 and result.output.startswith("Error: --db ") and run is None


def test_palais_serve_prints_the_address_and_serves_loopback_by_default(monkeypatch, serve):
    result, run = serve("--port", "8123")
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8123/" in result.output and "WARNING" not in result.output
    app, kwargs = run
    assert kwargs["host"] == "127.0.0.1" and kwargs["port"] == 8123
    assert kwargs["ws_max_size"] == app.state.config.max_message_bytes


def test_palais_serve_warns_loudly_when_the_host_exposes_it(monkeypatch, serve):
    result, run = serve("--host", "0.0.0.0", "--max-games", "3")
    assert result.exit_code == 0 and "WARNING: --host 0.0.0.0 lets other machines" in result.output
    assert run[0].state.config.max_games == 3


@pytest.mark.parametrize("args, words", [
    (["--engine", "name=x"], "needs cmd="),
    (["--engine", "name=random cmd=palais-engine"], "a built-in player's"),
    (["--engine", "name=a cmd=no-such-command-here"], "not found"),
    (["--engine", "name=a cmd=sh", "--engine", "name=a cmd=sh"], "must differ"),
    (["--max-games", "0"], "--max-games"),
])
def test_palais_serve_refuses_bad_options_with_a_clear_error(monkeypatch, args, words, serve):
    result, run = serve(*args)
    assert result.exit_code != 0 and run is None
    assert words in result.output, result.output


def test_palais_serve_allow_host_adds_names_and_refuses_bad_ones(monkeypatch, serve):
    result, run = serve("--host", "0.0.0.0", "--allow-host", "Box.Lan",
                         "--allow-host", "192.168.1.5", "--allow-host", "fe80::1")
    assert result.exit_code == 0, result.output
    assert run[0].state.config.allow_hosts == ("box.lan", "192.168.1.5", "[fe80::1]")
    assert "box.lan" in result.output and "--allow-host NAME adds one" in result.output
    with TestClient(run[0], base_url="http://box.lan:8000") as c:
        assert c.get("/api/meta").status_code == 200
    for bad in ("box.lan:8000", "http://box.lan", "", "0.0.0.0", "a b", "-x.lan", "ｂox.lan"):
        result, run = serve("--allow-host", bad)
        assert result.exit_code != 0 and run is None, bad
        assert "--allow-host" in result.output and "Traceback" not in result.output


def test_palais_serve_idle_minutes(monkeypatch, serve):
    result, run = serve()
    assert run[0].state.config.idle_minutes == 120
    result, run = serve("--idle-minutes", "15")
    assert result.exit_code == 0 and run[0].state.config.idle_minutes == 15
    for bad in ("0", "-5", "\u00b2", "1e3", "99999999"):
        result, run = serve("--idle-minutes", bad)
        assert result.exit_code != 0 and run is None and "--idle-minutes" in result.output


def test_palais_serve_gives_uvicorn_its_timeouts_and_limits(monkeypatch, serve):
    from web.timeouts import DeadlineH11Protocol
    result, run = serve()
    kwargs = run[1]
    assert issubclass(kwargs["http"], DeadlineH11Protocol) and kwargs["http"].request_timeout_s == 10
    assert kwargs["timeout_keep_alive"] == 5 and kwargs["h11_max_incomplete_event_size"] == 16384
    assert kwargs["limit_concurrency"] == 512


def test_palais_serve_offers_the_engines_given(monkeypatch, serve):
    result, run = serve("--engine", "name=mine cmd=sh option.Threads=1")
    assert result.exit_code == 0, result.output
    spec = run[0].state.config.engines[0]
    assert (spec.name, spec.cmd, spec.options) == ("mine", ("sh",), (("Threads", "1"),))


def test_the_analysis_of_a_live_uploaded_game_goes_to_its_seats_only(client):
    """A record of a game still going on, loaded to play on: a seat may have it analysed
    at once (it shows every hand); a spectator's socket gets none of it, as its routes."""
    from engine.record import read_record, record_from_actions, write_record
    rec = read_record(EXAMPLE.read_text())
    live = record_from_actions(rec.n_players, rec.actions[:30], seed=rec.seed, deal=rec.deal,
                               layout=rec.layout, names=rec.names, headers=rec.headers)
    r = client.post("/api/records?players=human,human,human", content=write_record(live).encode(), headers=ORIGIN)
    assert r.status_code == 200, r.text
    loaded = remember(r.json())
    game = loaded["game"]
    assert not loaded["view"]["over"]
    with watch(client, game, 0) as spectator, watch(client, game, 1) as seat:
        assert client.post(f"/api/games/{game}/analyse", json={}).status_code == 403
        r = client.post(f"/api/games/{game}/analyse", json={"budget_ms": None}, headers=as_seat(game, 1))
        assert r.json() == {"started": True}
        while "result" not in (message := seat.receive_json()):
            assert message["type"] in ("view", "analysis"), message
        mover = loaded["view"]["to_move"]
        view = client.get(f"/api/games/{game}/view", headers=as_seat(game, mover)).json()
        assert act(client, game, mover, view["legal"][0]["token"], view["version"]).status_code == 200
        seen = []
        while not ((message := spectator.receive_json())["type"] == "view" and message["view"]["ply"] > view["ply"]):
            seen.append(message["type"])
        assert "analysis" not in seen, seen
    assert client.get(f"/api/games/{game}/analysis").status_code == 403


@pytest.mark.parametrize("opens", [False, True])
def test_serve_open_says_when_no_browser_could_be_opened(monkeypatch, capsys, opens):
    """`palais serve --open` on a machine with no display (webbrowser.open returns False):
    it says it could not open a browser and gives the address; when one opens, nothing."""
    import webbrowser

    from web.cli import open_in_browser
    asked = []
    monkeypatch.setattr(webbrowser, "open", lambda url: asked.append(url) or opens)
    assert open_in_browser("http://127.0.0.1:8123/") is opens
    assert asked == ["http://127.0.0.1:8123/"]
    said = capsys.readouterr().err
    if opens:
        assert said == ""
    else:
        assert "could not open a browser" in said and "http://127.0.0.1:8123/" in said
