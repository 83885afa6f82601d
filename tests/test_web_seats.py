"""Seats that belong to their players (issue 25): every route that names a seat answers only
to that seat's key; without it the caller is a spectator. No answer to one seat holds
another seat's key, card or the draw secret; the record of a live game is the seat's own
view; the finished one holds everything and opens the commitment shown at the start.
Through the app's test client, as a browser or an attacker would call it.
"""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

from engine.chance import ChanceStream, commitment
from engine.constants import A_DRAW_UNKNOWN
from play.game import read_game_text
from test_web_server import (  # noqa: F401 (a fixture)
    BASE, EXAMPLE, KEYS, ORIGIN, OWNERS, as_owner, as_seat, client, client_for, new_game, remember,
    watch,
)

HUMANS_2_ENGINE = [{"kind": "human"}, {"kind": "human"}, {"kind": "engine", "name": "greedy"}]


def with_key(key) -> dict:
    return {"x-palais-key": key, **ORIGIN} if key else dict(ORIGIN)


def route_answers(client, game: str, key) -> dict:
    """What each seat route answers to a request carrying `key` (None: no key), in a
    game where seat 1 is to move: route -> (status, what it showed)."""
    h = with_key(key)
    out = {}
    def shown(r):
        return f"seat {r.json()['seat']}" if r.status_code == 200 else r.json()["error"][:40]
    r = client.get(f"/api/games/{game}/view", headers=h)
    out["GET view"] = (r.status_code, shown(r))
    r = client.get(f"/api/games/{game}/position?ply=0", headers=h)
    out["GET position"] = (r.status_code, shown(r))
    r = client.get(f"/api/games/{game}/record", headers=h)
    out["GET record"] = (r.status_code, "View " + r.text.split('[View "')[1][0] if r.status_code == 200 else r.json()["error"][:40])
    version = client.get(f"/api/games/{game}/view", headers=with_key(None)).json()["version"]
    for name, path, body in (("POST hint", "hint", {"top": 1}), ("POST undo", "undo", {"version": version}),
                             ("POST action", "action", {"action": "XYZZY", "version": version}),
                             ("POST analyse", "analyse", {}), ("POST rematch", "rematch", {})):
        r = client.post(f"/api/games/{game}/{path}", json=body, headers=h)
        out[name] = (r.status_code, r.json().get("error", "ok")[:40])
    r = client.delete(f"/api/games/{game}", headers=h) if key != OWNERS.get(game) else None
    if r is not None:
        out["DELETE game"] = (r.status_code, r.json().get("error", "ok")[:40])
    try:
        with watch(client, game, key=key) as ws:
            message = ws.receive_json()
            out["WS /ws/games"] = ((101, f"seat {message['view']['seat']}") if message["type"] == "view"
                                   else (message["type"], message["error"][:40]))
            if message["type"] == "error":
                ws.receive_json()                        # the close that follows
    except WebSocketDisconnect as closed:
        out["WS /ws/games"] += (closed.code,)
    return out


def test_every_seat_route_answers_only_to_that_seats_key(client):
    start = new_game(client, HUMANS_2_ENGINE)
    game = start["game"]
    assert start["view"]["to_move"] == 1
    mine, other = KEYS[game][1], KEYS[game][2]
    table = {"none": route_answers(client, game, None),
             "a wrong key": route_answers(client, game, mine[:-2] + "xx"),
             "seat 2's key": route_answers(client, game, other),
             "seat 1's key (own)": route_answers(client, game, mine)}
    print(json.dumps(table, indent=1))
    answers = table["none"]                       # a spectator: sees, may do nothing
    assert answers["GET view"] == (200, "seat 0") and answers["GET position"] == (200, "seat 0")
    assert answers["WS /ws/games"][:2] == (101, "seat 0")
    for route in ("GET record", "POST hint", "POST undo", "POST action", "POST analyse",
                  "POST rematch", "DELETE game"):
        assert answers[route][0] == 403, ("none", route, answers[route])
    bad = "this seat link is not valid for this game"[:40]
    for route, answer in table["a wrong key"].items():   # refused everywhere, saying so
        assert answer[:2] == ((("error", bad)) if route.startswith("WS") else (403, bad)), route
    assert table["a wrong key"]["WS /ws/games"][2] == 4403      # a close code not to retry
    other_answers = table["seat 2's key"]         # seat 2 is itself, never seat 1
    assert other_answers["GET view"] == (200, "seat 2") and other_answers["WS /ws/games"][:2] == (101, "seat 2")
    assert other_answers["GET record"] == (200, "View 2")
    for route in ("POST hint", "POST undo", "POST action"):
        assert other_answers[route][0] == 409 and "not seat 2's" in other_answers[route][1], route
    assert other_answers["POST rematch"][0] == 403 and other_answers["DELETE game"][0] == 403
    own = table["seat 1's key (own)"]
    assert own["GET view"] == (200, "seat 1") and own["GET record"] == (200, "View 1")
    assert own["POST hint"] == (200, "ok") and own["POST action"][0] == 400   # XYZZY: a bad token
    assert own["POST undo"][0] == 400                                         # nothing to take back
    assert own["DELETE game"][0] == 403                                       # only the owner's key
    r = client.delete(f"/api/games/{game}", headers={**as_owner(game), **ORIGIN})
    assert r.status_code == 200


def test_keys_are_long_random_distinct_and_stored_hashed(client):
    start = new_game(client, HUMANS_2_ENGINE)
    keys = [s["key"] for s in start["seats"]]
    assert keys[2] is None                                    # an engine's seat has none
    assert len({keys[0], keys[1], start["owner"]}) == 3
    assert all(len(k) >= 32 for k in keys[:2])                # 24 bytes = 192 bits, base64
    session = client.app.state.store.get(start["game"])
    stored = json.dumps(session.keys.to_json())
    assert not any(k in stored for k in (keys[0], keys[1], start["owner"]))


def _seat_2_traffic(client, game: str, moves: int) -> list:
    """Everything seat 2 receives while the game is played `moves` decisions on (seat 1
    and seat 2 each playing their first legal action, the engine its own): answers,
    socket messages, a hint, the live record, errors."""
    from web_page import Policy
    policy = Policy(1)                               # a player that goes for cards
    received = []
    after = -1
    with watch(client, game, 2) as ws:
        for _ in range(moves):
            view = None
            while True:                              # the socket's views until a person is to move
                message = ws.receive_json()
                received.append(json.dumps(message))
                if message["type"] == "view" and message["view"]["version"] >= after \
                        and message["view"]["thinking"] == 0 \
                        and (message["view"]["to_move"] in (1, 2) or message["view"]["over"]):
                    view = message["view"]
                    break
            seat = view["to_move"]
            if view["over"]:
                break
            mover = client.get(f"/api/games/{game}/view", headers=as_seat(game, seat)).json()
            legal = [policy.pick(mover)]
            r = client.post(f"/api/games/{game}/action", json={"action": legal[0]["token"],
                                                               "version": mover["version"]},
                            headers={**as_seat(game, seat), **ORIGIN})
            assert r.status_code == 200, r.text
            after = r.json()["version"]
            if seat == 2:
                received.append(r.text)
                if r.json()["legal"]:                # still seat 2's turn: a hint
                    hint = client.post(f"/api/games/{game}/hint", json={"top": 1},
                                       headers={**as_seat(game, 2), **ORIGIN})
                    assert hint.status_code == 200, hint.text
                    received.append(hint.text)
            else:                                    # seat 2 trying to act out of turn
                r = client.post(f"/api/games/{game}/action", json={"action": legal[0]["token"],
                                                                   "version": after},
                                headers={**as_seat(game, 2), **ORIGIN})
                received.append(r.text)
    received.append(client.get(f"/api/games/{game}/record", headers=as_seat(game, 2)).text)
    return received


def test_nothing_seat_2_receives_holds_seat_1s_key_cards_or_the_secret(client):
    start = new_game(client, HUMANS_2_ENGINE, seed=3)
    game = start["game"]
    session = client.app.state.store.get(game)
    received = _seat_2_traffic(client, game, 60)
    secret = session.game.secret.hex()
    drawn_by_others = [a for a, q in zip(session.game.actions, session.game.drawers) if q not in (None, 1)]
    assert drawn_by_others, "no other seat drew a card: the test would prove nothing"
    for text in received:
        assert KEYS[game][1] not in text and OWNERS[game] not in text and secret not in text
        if text.startswith("{"):
            data = json.loads(text)
            view = data.get("view", data)
            for player in view.get("players", []):
                assert player["hand"] is None or player["seat"] == 2
    record = received[-1]
    assert '[View "2"]' in record and "DrawSecret" not in record
    rec, _ = read_game_text(record)
    for a, q in zip(rec.actions, session.game.drawers):
        if q not in (None, 1):
            assert a == A_DRAW_UNKNOWN
    assert f'[Commitment "{start["commitment"]}"]' in record


@pytest.mark.slow
def test_a_finished_game_reveals_the_secret_that_opens_the_commitment(client):
    start = new_game(client, [{"kind": "engine", "name": "random"}, {"kind": "engine", "name": "random"}],
                     seed=9, budget_ms=50)
    game = start["game"]
    promised = start["commitment"]
    assert start["view"]["fairness"] == {"commitment": promised, "secret": None}
    with watch(client, game) as ws:
        for _ in range(100_000):
            message = ws.receive_json()
            if message["type"] == "view" and message["view"]["over"]:
                break
    fair = message["view"]["fairness"]
    secret = bytes.fromhex(fair["secret"])
    assert fair["commitment"] == promised == commitment(secret, 9)
    record = client.get(f"/api/games/{game}/record").text     # anyone, once it is over
    assert f'[DrawSecret "{fair["secret"]}"]' in record and "View" not in record
    rec, state = read_game_text(record)
    stream = ChanceStream(secret, rec.seed)                   # the draws replay from the secret
    for a in rec.actions:
        if state.is_chance():
            assert stream.draw(state) == a
        state.apply(a)


# ---- a game's whole life ------------------------------------------------------------------

@pytest.mark.slow
def test_a_resigned_seat_is_played_by_greedy_to_the_end_and_can_no_longer_act(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "human"}])
    game = start["game"]
    assert client.post(f"/api/games/{game}/resign", json={}, headers=ORIGIN).status_code == 403
    r = client.post(f"/api/games/{game}/resign", json={"version": start["view"]["version"]},
                    headers=with_key(KEYS[game][1]))
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["resigned"] == [1] and view["kinds"][0] == "greedy" and view["legal"] == []
    with watch(client, game, 2) as ws:                      # seat 2 plays on against greedy
        for _ in range(20000):
            message = ws.receive_json()
            if message["type"] != "view":
                continue
            v = message["view"]
            if v["over"]:
                break
            if v["legal"]:
                r = client.post(f"/api/games/{game}/action", json={"action": v["legal"][0]["token"],
                                                                   "version": v["version"]},
                                headers=with_key(KEYS[game][2]))
                assert r.status_code == 200, r.text
    assert v["over"] and v["resigned"] == [1] and len(v["scores"]) == 2
    r = client.post(f"/api/games/{game}/action", json={"action": "MINT", "version": v["version"]},
                    headers=with_key(KEYS[game][1]))
    assert r.status_code == 409 and not r.json().get("stale")        # refused for what it is, not its version


def test_a_rematch_rotates_the_seats_and_each_key_opens_its_new_seat(client):
    first = remember(client.post("/api/records", content=EXAMPLE.read_bytes(), headers=ORIGIN).json())
    old = first["game"]
    assert client.post(f"/api/games/{old}/rematch", json={}, headers=with_key(KEYS[old][1])).status_code == 403
    r = client.post(f"/api/games/{old}/rematch", json={}, headers={**as_owner(old), **ORIGIN})
    assert r.status_code == 200, r.text
    new = r.json()["game"]
    assert new != old and not r.json()["view"]["over"] and r.json()["view"]["ply"] == 0
    assert client.get(f"/api/games/{old}/view").json()["rematch"] == new
    for seat, key in KEYS[old].items():                     # seat n's key now opens seat n + 1
        view = client.get(f"/api/games/{new}/view", headers={"x-palais-key": key}).json()
        assert view["seat"] == seat % 3 + 1
    r = client.post(f"/api/games/{old}/rematch", json={}, headers={**as_owner(old), **ORIGIN})
    assert r.status_code == 409
    games = client.post("/api/my-games", json={"games": [old, new, "nope"]}, headers=ORIGIN).json()["games"]
    assert [g["game"] for g in games] == [old, new] and games[0]["rematch"] == new
    assert client.post("/api/my-games", json={"games": "x"}, headers=ORIGIN).status_code == 400


def test_a_record_loaded_as_a_new_game_can_give_any_seat_to_an_engine(client):
    start = new_game(client, [{"kind": "human"}, {"kind": "human"}])
    game = start["game"]
    session = client.app.state.store.get(game)
    with session.lock:                                      # the owner's full save of a live game
        text = session.game.record_text({"DrawSecret": session.game.secret.hex()})
    r = client.post("/api/records?players=human,greedy", content=text.encode(), headers=ORIGIN)
    assert r.status_code == 200, r.text
    loaded = r.json()
    assert loaded["view"]["kinds"] == ["human", "greedy"] and [s["key"] is None for s in loaded["seats"]] == [False, True]
    r = client.post("/api/records?players=human", content=text.encode(), headers=ORIGIN)
    assert r.status_code == 400 and r.json()["error"].startswith("players: expected 2")
    r = client.post("/api/records?players=human,nobody", content=text.encode(), headers=ORIGIN)
    assert r.status_code == 400 and "no player 'nobody'" in r.json()["error"]


def test_a_rematch_waits_for_the_end_and_gives_no_person_the_seat_an_engine_plays(client):
    """Seat 3's person resigns (greedy plays it): the rematch, allowed only once the game is
    over, gives the seat greedy plays no key, so that person's key opens no engine's hand."""
    start = new_game(client, [{"kind": "human"}] * 3, options={"round_cap": 1})
    game = start["game"]
    r = client.post(f"/api/games/{game}/resign", json={"version": start["view"]["version"]},
                    headers=with_key(KEYS[game][3]))
    assert r.status_code == 200
    early = client.post(f"/api/games/{game}/rematch", json={}, headers={**as_owner(game), **ORIGIN})
    assert early.status_code == 409 and early.json()["error"] == "a rematch starts once this game is over"
    with watch(client, game, 1) as ws:
        for _ in range(20000):
            v = ws.receive_json().get("view")
            if v is None:
                continue
            if v["over"]:
                break
            seat = v["to_move"]
            if seat in (1, 2) and not v["thinking"]:
                mover = client.get(f"/api/games/{game}/view", headers=with_key(KEYS[game][seat])).json()
                if mover["legal"]:
                    client.post(f"/api/games/{game}/action", json={"action": mover["legal"][0]["token"],
                                                                   "version": mover["version"]},
                                headers=with_key(KEYS[game][seat]))
    assert v["over"]
    r = client.post(f"/api/games/{game}/rematch", json={}, headers={**as_owner(game), **ORIGIN})
    assert r.status_code == 200, r.text
    new = r.json()["game"]
    assert r.json()["view"]["kinds"] == ["greedy", "human", "human"]    # seats moved one place on
    resigned_key = client.get(f"/api/games/{new}/view", headers={"x-palais-key": KEYS[game][3]})
    assert resigned_key.status_code == 403 and resigned_key.json()["bad_key"]  # opens no seat: no engine's hand
    assert "players" not in resigned_key.json()
    for seat in (1, 2):                                                 # the people keep their places
        assert client.get(f"/api/games/{new}/view", headers={"x-palais-key": KEYS[game][seat]}).json()["seat"] == seat + 1
