"""Every change is chosen against a position (issue 45): an action, take-back or resignation
names the `version` of the view it was chosen from, and is played only if the game is still
there. A retried, stale or racing request plays nothing: 409 with the current view."""

from __future__ import annotations

import threading
import time

from test_web_server import (  # noqa: F401 (a fixture)
    HUMANS_2, ORIGIN, act, as_seat, client, new_game, version_of,
)
from web.session import STALE_MESSAGE



def _view(client, game, seat):
    return client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()


def test_the_same_request_twice_plays_once(client):
    start = new_game(client)
    game, view = start["game"], start["view"]
    token = view["legal"][0]["token"]
    first = act(client, game, 1, token, version=view["version"])
    assert first.status_code == 200
    again = act(client, game, 1, token, version=view["version"])      # a retry of the same request
    assert again.status_code == 409
    body = again.json()
    assert body["stale"] is True and body["error"] == STALE_MESSAGE
    assert body["view"] == first.json()                                 # the current view, to show at once
    assert _view(client, game, 1)["ply"] == first.json()["ply"] == view["ply"] + 1


def test_a_choice_from_an_older_view_plays_nothing_even_if_legal_now(client):
    start = new_game(client)
    game, old = start["game"], start["view"]
    # Seat 1's setup: each decision leaves seat 1 to move, with the same tokens legal.
    now = act(client, game, 1, old["legal"][0]["token"], version=old["version"]).json()
    assert now["to_move"] == 1
    still_legal = [m["token"] for m in now["legal"] if m["token"] in {o["token"] for o in old["legal"]}]
    assert still_legal, "the test needs a token legal in both views"
    stale = act(client, game, 1, still_legal[0], version=old["version"])
    assert stale.status_code == 409 and stale.json()["view"]["version"] == now["version"]
    assert _view(client, game, 1)["ply"] == now["ply"]


def test_eight_racing_choices_from_one_view_play_exactly_one(client):
    start = new_game(client)
    game, view = start["game"], start["view"]
    tokens = [m["token"] for m in view["legal"]]
    assert len(tokens) >= 3
    answers = []
    go = threading.Barrier(8)

    def post(i):
        go.wait()
        answers.append(act(client, game, 1, tokens[i % len(tokens)], version=view["version"]).status_code)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [200] + [409] * 7
    assert _view(client, game, 1)["ply"] == view["ply"] + 1


def test_undo_and_resign_from_a_stale_view_change_nothing(client):
    start = new_game(client)
    game, view = start["game"], start["view"]
    after = act(client, game, 1, view["legal"][0]["token"], version=view["version"]).json()
    assert after["can_undo"]
    undo = client.post(f"/api/games/{game}/undo", json={"version": view["version"]}, headers=as_seat(game, 1))
    assert undo.status_code == 409 and undo.json()["stale"]
    resign = client.post(f"/api/games/{game}/resign", json={"version": view["version"]}, headers=as_seat(game, 1))
    assert resign.status_code == 409 and resign.json()["stale"]
    now = _view(client, game, 1)
    assert now["ply"] == after["ply"] and now["resigned"] == [] and now["version"] == after["version"]
    # with the current version both are played
    undone = client.post(f"/api/games/{game}/undo", json={"version": now["version"]}, headers=as_seat(game, 1))
    assert undone.status_code == 200 and undone.json()["ply"] == view["ply"]


def test_a_change_without_a_version_is_refused_saying_what_it_needs(client):
    game = new_game(client)["game"]
    token = _view(client, game, 1)["legal"][0]["token"]
    for path, body in (("action", {"action": token}), ("undo", {}), ("resign", {}),
                       ("action", {"action": token, "version": "3"}), ("action", {"action": token, "version": True})):
        r = client.post(f"/api/games/{game}/{path}", json=body, headers={**as_seat(game, 1), **ORIGIN})
        assert r.status_code == 400 and r.json()["error"].startswith("version: expected the version"), (path, body)
    assert _view(client, game, 1)["ply"] == 0


def test_the_stale_message_is_in_the_seats_language(client):
    start = new_game(client)
    game, view = start["game"], start["view"]
    act(client, game, 1, view["legal"][0]["token"], version=view["version"])
    for lang, words in (("fr", "La partie a avancé"), ("zh", "对局已经继续")):
        r = client.post(f"/api/games/{game}/action", json={"action": view["legal"][0]["token"],
                                                           "version": view["version"], "lang": lang},
                        headers=as_seat(game, 1))
        assert r.status_code == 409 and r.json()["error"].startswith(words)


class SlowSeat:
    """An engine seat (play/seats.py's interface) whose first search waits until it is let
    go, so that its decision arrives after the game has changed. It notes the ply each
    search started from."""

    def __init__(self):
        self.plies = []
        self.let_go = threading.Event()

    def choose_turn(self, game, on_info=None):
        self.plies.append(len(game.actions))
        if len(self.plies) == 1:
            self.let_go.wait(30)
        return [game.state.legal_actions()[0]]

    def stop(self):
        self.let_go.set()

    def close(self):
        self.let_go.set()


def _wait(condition, what):
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_an_engine_decision_that_arrives_after_the_game_changed_is_dropped():
    from engine.state import State
    from play.game import PlayGame
    from play.seats import SeatSpec, open_seat
    from search.params import SearchLimits
    from web.session import GameSession

    slow = SlowSeat()
    game = PlayGame(State.new_game(3, seed=5), 5, ["a", "b", "c"])
    session = GameSession("g", game, ["human", "slow", "human"],
                          [SeatSpec("human"), SeatSpec("cmd", ("slow",)), SeatSpec("human")],
                          SearchLimits(iterations=1), 5,
                          open_seat=lambda spec, limits, seed: slow if spec.kind == "cmd" else open_seat(spec, limits, seed))
    try:
        view = session.start(0)
        while session.game.state.to_move == 0:                    # seat 1's setup, by its person
            view = session.act(0, view["legal"][0]["token"], view["version"])
            session.release()
        _wait(lambda: slow.plies, "the engine was never asked")
        ply = len(session.game.actions)
        assert slow.plies == [ply] and session.thinking == 1
        resigned = session.resign(2, session.version)             # seat 3's person leaves meanwhile
        session.release()
        assert resigned["resigned"] == [3]
        slow.let_go.set()                          # its decision comes, for the version before that
        _wait(lambda: len(slow.plies) >= 2, "the engine was not asked again")
        # Its first decision was dropped: it was asked again from the same position ...
        assert slow.plies[:2] == [ply, ply]
        # ... and that second decision was played.
        _wait(lambda: len(session.game.actions) > ply, "the second decision was not played")
    finally:
        session.close()
