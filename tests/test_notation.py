"""Text forms (docs/notation.md): action tokens, turns, position strings and game records.

Round trips are checked over whole random games with the Cython State (full states and every
seat's view, at every step); the reference twin gets a few shorter checks. Every reading
error must say where and why, so the malformed inputs below assert on message content.
"""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.components import components_from_dict, default_components
from engine.constants import (
    A_CONTINUE, A_DECLINE, A_DRAW, A_DRAW_UNKNOWN, A_END, A_GATE, A_MOVE, A_PLAY, A_RECRUIT,
    A_ROOM, A_TAKE, C_GOLD, FIRST_GAME_LAYOUT, KING, MINT, N_ACTIONS, OFFICE, S_DRAW, S_STEP1,
)
from engine.errors import NotationError
from engine.notation import (
    FIELDS, action_to_token, apply_tokens, parse_position, parse_turn, position_to_string,
    state_from_position, token_to_action, turn_to_text,
)
from engine.options import RuleOptions
from engine.random_play import random_action
from engine.record import GameRecord, read_record, record_from_actions, replay, write_record
from engine.reference import ReferenceState
from engine.rng import Rng
from engine.state import State

IMPLS = [State, ReferenceState]


def play(impl, n, seed, limit=None, **kw):
    """A random game: (start state, actions, final state)."""
    start = impl.new_game(n, seed=seed, **kw)
    state = start.copy()
    rng = Rng(seed * 7919 + n)
    actions = []
    while not state.is_terminal() and (limit is None or len(actions) < limit):
        a = random_action(state, rng)
        actions.append(a)
        state.apply(a)
    return start, actions, state


# ======================================================================================
# Tokens

def test_every_action_id_round_trips():
    tokens = [action_to_token(a) for a in range(N_ACTIONS)]
    assert len(set(tokens)) == N_ACTIONS
    for a, tok in enumerate(tokens):
        assert token_to_action(tok) == a


@pytest.mark.parametrize("action, token", [
    (A_ROOM + MINT, "MINT"), (A_GATE + 3, "gate3"), (A_GATE + 25, "gate25"),
    (A_MOVE + MINT * 9 + KING, "MINT-KING"), (A_MOVE + OFFICE * 9 + OFFICE, "OFFICE-OFFICE"),
    (A_RECRUIT, "a1"), (A_RECRUIT + 35, "f6"), (A_RECRUIT + 8, "c2"),
    (A_PLAY + C_GOLD, "!GOLD"), (A_DRAW + 8, "?HONOUR"), (A_DRAW_UNKNOWN, "?"),
    (A_TAKE, "take"), (A_CONTINUE, "continue"), (A_END, "end"), (A_DECLINE, "decline"),
])
def test_canonical_tokens(action, token):
    assert action_to_token(action) == token
    assert token_to_action(token) == action


@settings(derandomize=True, max_examples=300)
@given(st.integers(0, N_ACTIONS - 1), st.randoms(use_true_random=False))
def test_parsing_ignores_case_and_surrounding_space(action, rnd):
    token = action_to_token(action)
    mangled = "".join(ch.upper() if rnd.random() < 0.5 else ch.lower() for ch in token)
    assert token_to_action(f" {mangled}\t") == action


@pytest.mark.parametrize("token, pieces", [
    ("MINT-OFICE", ["unknown token 'MINT-OFICE'", "'OFICE' is not a room", "rooms: GATE, PARADE"]),
    ("gate26", ["gate26", "at most 25 servants"]),
    ("!GOLDEN", ["'GOLDEN' is not a card", "cards: GOLD, MOVES"]),
    ("?FOO", ["'FOO' is not a card"]),
    ("g7", ["no square g7"]),
    ("a0", ["no square a0"]),
    ("MINT-", ["empty room name"]),
    ("MINT-KING-GATE", ["one '-'"]),
    ("hello", ["unknown token 'hello'", "gate<k>", "take, continue, end or decline"]),
    ("gate-1", ["'1' is not a room"]),
    ("", ["empty token"]),
    ("MINT KING", ["several tokens"]),
])
def test_bad_tokens_say_why(token, pieces):
    with pytest.raises(NotationError) as err:
        token_to_action(token)
    for piece in pieces:
        assert piece in str(err.value)


def test_action_ids_out_of_range_are_rejected():
    for bad in (-1, N_ACTIONS, "3", 2.0):
        with pytest.raises(NotationError, match="not an action id"):
            action_to_token(bad)


# ======================================================================================
# Turns

def test_turn_round_trip():
    actions = [A_PLAY + C_GOLD, A_CONTINUE, A_GATE + 2, A_MOVE + MINT * 9 + KING, A_END,
               A_TAKE, A_RECRUIT + 14, A_END, A_DRAW + 3, A_DRAW_UNKNOWN]
    text = turn_to_text(actions)
    assert text == "!GOLD continue gate2 MINT-KING end take c3 end ?KINGSEAL ?"
    assert parse_turn(text) == actions
    assert parse_turn("  !gold\tCONTINUE\n gate2 ") == actions[:3]
    assert parse_turn("") == []


def test_turn_errors_name_the_token_position():
    with pytest.raises(NotationError, match=r"^token 3 'MINT-OFICE': 'OFICE' is not a room"):
        parse_turn("continue gate2 MINT-OFICE end")
    with pytest.raises(NotationError, match=r"^token 1 'gate30': at most 25 servants"):
        parse_turn("gate30")


def _at_step1(impl):
    """A state at the start of a STEP1 decision (how many servants to the GATE)."""
    state = impl.new_game(3, seed=11)
    rng = Rng(5)
    while state.stage != S_STEP1:
        state.apply(random_action(state, rng))
    return state


@pytest.mark.parametrize("impl", IMPLS)
def test_apply_tokens_applies_in_place(impl):
    state = impl.new_game(2, seed=3)
    assert apply_tokens(state, "MINT mint KING gate office") == [
        A_ROOM + MINT, A_ROOM + MINT, A_ROOM + KING, A_ROOM, A_ROOM + OFFICE]
    snap = state.snapshot()
    assert snap.setup_count == 5 and snap.rooms[0][MINT] == 2 and state.to_move == 1


@pytest.mark.parametrize("impl", IMPLS)
def test_apply_tokens_leaves_the_state_alone_on_error(impl):
    state = impl.new_game(2, seed=3)
    before = state.snapshot()
    with pytest.raises(NotationError) as err:
        apply_tokens(state, "MINT MINT KING a1 OFFICE")
    assert str(err.value).startswith("token 4 'a1': not legal here; legal: GATE PARADE STAIRS")
    assert state.snapshot() == before
    with pytest.raises(NotationError, match="token 2 'bogus'"):
        apply_tokens(state, "MINT bogus")
    assert state.snapshot() == before

    state = _at_step1(impl)
    legal = " ".join(action_to_token(a) for a in state.legal_actions())
    assert legal.startswith("gate0 gate1")
    with pytest.raises(NotationError, match=f"^token 1 'gate25': not legal here; legal: {legal}$"):
        apply_tokens(state, "gate25")


# ======================================================================================
# Position strings

def _views(state):
    return [state] + [state.view(q) for q in range(state.n_players)]


def check_position(state, components=None):
    text = position_to_string(state)
    snap = state.snapshot()
    assert parse_position(text, components) == snap, text
    return text


# One whole game (2 players, seed 1) stays in the fast loop; the other eight are slow.
@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)])
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)])
def test_position_round_trip_over_whole_games(n, seed):
    """Full state and every seat's view, after every action of a random game (Cython),
    and every seat's determinization now and then."""
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    steps = 0
    while True:
        for v in _views(state):
            check_position(v)
        if steps % 20 == 0:
            for q in range(n):
                check_position(state.determinize(q, Rng(steps)))
        if state.is_terminal():
            break
        state.apply(random_action(state, rng))
        steps += 1
    assert steps > 100


@settings(derandomize=True, max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(0, 2 ** 32), st.integers(0, 1500), st.booleans())
def test_position_round_trip_anywhere(n, seed, length, first_game):
    """Any game, cut anywhere: the string reads back, and rebuilds a state with the same key."""
    _, _, state = play(State, n, seed, limit=length, first_game=first_game)
    for v in _views(state):
        text = check_position(v)
        assert state_from_position(text).key == v.key


@pytest.mark.parametrize("n", [2, 3, 4])
def test_position_round_trip_reference_twin(n):
    """The twin: a shorter stretch of a game, every few steps, full state and views."""
    state = ReferenceState.new_game(n, seed=20 + n)
    rng = Rng(n)
    for step in range(400):
        if state.is_terminal():
            break
        if step % 2 == 0:
            texts = [check_position(v) for v in _views(state)]
            cython = State.from_snapshot(state.snapshot())
            assert [position_to_string(v) for v in _views(cython)] == texts
        state.apply(random_action(state, rng))


def test_views_played_forward_and_determinizations_round_trip():
    """A view that goes on playing (other seats' draws are '?') and sampled worlds."""
    start, actions, _ = play(State, 3, 8)
    view = start.view(1)
    for i, a in enumerate(actions):
        if view.is_chance() and view.to_move != 1:
            a = A_DRAW_UNKNOWN
        view.apply(a)
        check_position(view)
        if i % 25 == 0:
            check_position(view.determinize(1, Rng(i)))


def test_rebuilt_state_has_the_same_key_and_moves():
    start, actions, _ = play(State, 4, 5)
    state = start
    for i, a in enumerate(actions):
        if i % 7 == 0:
            for v in _views(state):
                text = position_to_string(v)
                for impl in ([State, ReferenceState] if i % 70 == 0 else [State]):
                    rebuilt = state_from_position(text, impl=impl)
                    assert rebuilt.key == v.key
                    assert rebuilt.legal_actions() == v.legal_actions()
                    assert position_to_string(rebuilt) == text
        state.apply(a)


def test_position_of_a_start_and_of_a_snapshot():
    state = State.new_game(2, seed=0, first_game=True)
    text = position_to_string(state)
    assert text.startswith("pr1 set=reconstructed-v1 players=2 view=- stage=SETUP seat=1 round=0 ")
    assert "layout=BACKDOOR,OFFICE,CARDINAL/MINT,GATE,MADAME/STAIRS,KING,PARADE" in text
    assert "rooms=0.2.3.0.0.0.0.0.0/0.2.3.0.0.0.0.0.0 area=13/13 supply=7/7 gold=0/1 " in text
    assert "deck=4.4.4.4.4.4.4.4.4" in text and "nobles=-/-" in text
    assert [item.split("=")[0] for item in text.split()[1:]] == list(FIELDS)
    assert position_to_string(state.snapshot()) == text
    view = position_to_string(state.view(1))
    assert "view=2" in view and "hands=?0/0.0.0.0.0.0.0.0.0" in view and "deck=?36" in view
    assert "drawn=0:?/0:0.0.0.0.0.0.0.0.0" in view


def test_position_with_another_component_set():
    data = default_components().to_dict()
    data["set"]["name"] = "my printed set"
    data["cards"]["GOLD"] = 3
    other = components_from_dict(data, "<test>")
    state = State.new_game(2, seed=4, components=other)
    text = position_to_string(state)
    assert "set=my%20printed%20set" in text and "deck=3.4.4" in text
    assert parse_position(text, other) == state.snapshot()
    assert parse_position(position_to_string(state.view(0)), other) == state.view(0).snapshot()
    with pytest.raises(NotationError, match="component set 'my printed set'.*'reconstructed-v1'"):
        parse_position(text)
    with pytest.raises(NotationError, match="component set 'reconstructed-v1'.*'my printed set'"):
        parse_position(position_to_string(State.new_game(2)), other)


# ---------------------------------------------------------------------- malformed positions

def _mid_game_full_and_view():
    """A full position and seat 1's view, mid-game with cards in hands."""
    state = State.new_game(3, seed=9)
    rng = Rng(9)
    while not (sum(state.snapshot().hand_size) >= 3 and state.snapshot().round >= 4):
        state.apply(random_action(state, rng))
    return position_to_string(state), position_to_string(state.view(0))


FULL, VIEW = _mid_game_full_and_view()


def field_of(text, key):
    return re.search(rf" {key}=(\S+)", text).group(1)


def with_field(text, key, value):
    return re.sub(rf" {key}=\S+", f" {key}={value}", text)


def test_mid_game_fixtures_are_sane():
    assert "view=-" in FULL and "view=1" in VIEW
    assert field_of(VIEW, "hands").count("?") == 2 and field_of(VIEW, "deck").startswith("?")


def _rooms_with_8_counts():
    seats = field_of(FULL, "rooms").split("/")
    seats[1] = seats[1].rsplit(".", 1)[0]
    return with_field(FULL, "rooms", "/".join(seats))


def _bump(text, key, seat, delta):
    """Add delta to one seat's entry of a per-seat integer field."""
    seats = field_of(text, key).split("/")
    seats[seat] = str(int(seats[seat]) + delta)
    return with_field(text, key, "/".join(seats))


def _park_entry(text, sq, value):
    """The park field with square sq (0 = a1) replaced."""
    entries = field_of(text, "park").replace("/", ",").split(",")
    entries[sq] = value
    return with_field(text, "park", "/".join(",".join(entries[r * 6:r * 6 + 6]) for r in range(6)))


def _first_tile_twice(text):
    """The first tile of the park copied onto the next square that holds a tile."""
    entries = field_of(text, "park").replace("/", ",").split(",")
    tiles = [sq for sq, e in enumerate(entries) if e.isdigit()]
    return _park_entry(text, tiles[1], entries[tiles[0]])


def _servant_inland(text):
    return _park_entry(text, 14, "s1")          # c3 is not a border square


def _more_gold_cards():
    deck = field_of(FULL, "deck").split(".")
    deck[0] = str(int(deck[0]) + 1)
    return with_field(FULL, "deck", ".".join(deck))


MALFORMED = [
    # (position text, pieces the message must hold)
    ("", ["position: empty"]),
    (FULL.replace("pr1", "pr9", 1), ["version tag 'pr1'", "'pr9'"]),
    (FULL + " colour=red", ["unknown field 'colour'"]),
    (FULL + " gold=1/2/3", ["field 'gold' appears twice"]),
    (FULL.replace(" epoch=" + field_of(FULL, "epoch"), ""), ["missing field 'epoch'"]),
    (FULL.replace(" last=", " last"), ["'last0' is not a key=value field"]),
    (with_field(FULL, "players", "5"), ["field 'players'", "out of range", "2..4"]),
    (_rooms_with_8_counts(), ["position: field 'rooms', seat 2: expected 9 counts separated by '.', got 8"]),
    (with_field(FULL, "gold", "3/x/4"), ["field 'gold', seat 2: expected an integer, got 'x'"]),
    (with_field(FULL, "area", "-1/0/0"), ["field 'area', seat 1: negative number -1"]),
    (with_field(FULL, "gold", "1/2"), ["field 'gold': expected 3 entries (one per seat) separated by '/', got 2"]),
    (with_field(FULL, "stage", "LUNCH"), ["field 'stage': unknown stage 'LUNCH'", "TURN_START"]),
    (with_field(FULL, "seat", "4"), ["field 'seat'", "4 is out of range (expected 1..3)"]),
    (with_field(VIEW, "view", "0"), ["field 'view'", "out of range"]),
    (with_field(FULL, "layout", "GATE,GATE,MINT/KING,MADAME,OFFICE/BACKDOOR,CARDINAL,STAIRS"),
     ["field 'layout': GATE twice, PARADE missing (each of the 9 rooms exactly once)"]),
    (with_field(FULL, "layout", "GATE,PARADE,MINT/KING,MADAME,OFICE/BACKDOOR,CARDINAL,STAIRS"),
     ["field 'layout', row 2: 'OFICE' is not a room"]),
    (with_field(FULL, "layout", "GATE,PARADE,MINT,KING/MADAME,OFFICE/BACKDOOR,CARDINAL,STAIRS"),
     ["field 'layout', row 1: expected 3 room codes"]),
    (_first_tile_twice(FULL), ["field 'park', square", "is already on a1"]),
    (_park_entry(FULL, 0, "43"), ["field 'park', square a1: 43 is out of range (expected 1..42)"]),
    (_park_entry(FULL, 0, "x"), ["field 'park', square a1: expected an integer, got 'x'"]),
    (_bump(FULL, "supply", 1, 1), ["fields 'rooms', 'area', 'supply', 'park', seat 2", "expected 25"]),
    (_more_gold_cards(), ["fields 'deck', 'hands', 'discard', 'honours', card GOLD", "the set has 4"]),
    (with_field(FULL, "hands", "?1/" + "/".join(field_of(FULL, "hands").split("/")[1:])),
     ["field 'hands', seat 1: a hidden hand (?N) is allowed only"]),
    (with_field(VIEW, "hands", "?0/" + "/".join(field_of(VIEW, "hands").split("/")[1:])),
     ["field 'hands', seat 1: a hidden hand (?N) is allowed only for other seats in a view"]),
    (with_field(VIEW, "hands", "/".join(field_of(VIEW, "hands").split("/")[:1] + ["0.0.0.0.0.0.0.0.0"] * 2)),
     ["field 'hands', seat 2: seat 2's hand is hidden from the viewer (seat 1)"]),
    (with_field(VIEW, "deck", "?" + str(int(field_of(VIEW, "deck")[1:]) + 1)),
     ["fields 'deck', 'hands': seat 1 cannot see"]),
    (with_field(FULL, "deck", "?5"), ["field 'deck': a hidden draw pile (?N) is allowed only in a view"]),
    (with_field(VIEW, "deck", "4.4.4.4.4.4.4.4.4"), ["field 'deck': in a view the draw pile is hidden"]),
    (with_field(VIEW, "drawn", "0:0.0.0.0.0.0.0.0.0/0:0.0.0.0.0.0.0.0.0/0:?"),
     ["field 'drawn', seat 2: seat 2's draws are hidden from the viewer (seat 1)"]),
    (with_field(VIEW, "drawn", "0:?/0:?/0:?"), ["field 'drawn', seat 1: hidden draws (N:?) are allowed only"]),
    (with_field(FULL, "drawn", "0/0/0"), ["field 'drawn', seat 1: expected N:<9 counts> or N:?"]),
    (with_field(FULL, "nobles", "1.1/-/-"), ["field 'nobles'"]),
    (with_field(FULL, "epoch", "9.4.4.4.4.4.4.4.4"), ["field 'epoch', card GOLD: 9 cards, the set has 4"]),
    (with_field(FULL, "turn", field_of(FULL, "turn").replace("gate_max:", "gate_mux:")),
     ["field 'turn', entry 'gate_mux:", "expected name:value"]),
    (with_field(FULL, "turn", field_of(FULL, "turn").replace("gate_left:0", "gate_left:26")),
     ["field 'turn', counter gate_left: 26 is out of range (expected 0..25)"]),
    (with_field(FULL, "turn", field_of(FULL, "turn").replace("park_target:-", "park_target:z9")),
     ["field 'turn', counter park_target: expected a square a1..f6 or '-', got 'z9'"]),
    (with_field(FULL, "turn", "gate_left:0"), ["field 'turn': expected 12 counters"]),
    (with_field(FULL, "set", "other-set"), ["field 'set'", "component set 'other-set'"]),
    (with_field(FULL, "setup", "99"), ["field 'setup'", "99 is out of range (expected 0..15)"]),
]


@pytest.mark.parametrize("text, pieces", MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_malformed_positions_are_rejected_with_where_and_why(text, pieces):
    with pytest.raises(NotationError) as err:
        parse_position(text)
    for piece in pieces:
        assert piece in str(err.value), str(err.value)


def test_more_malformed_positions():
    text = _servant_inland(FULL)
    with pytest.raises(NotationError, match="field 'park', square c3: a servant stands only on a border square"):
        parse_position(text)
    # a tile both in the park and owned
    number = re.findall(r"\d+", field_of(FULL, "park"))[0]
    nobles = field_of(FULL, "nobles").split("/")
    nobles[2] = number if nobles[2] == "-" else nobles[2] + "." + number
    with pytest.raises(NotationError, match=f"field 'nobles', seat 3: tile {number} is also on a1"):
        parse_position(with_field(FULL, "nobles", "/".join(nobles)))
    # owned tiles must match the empty squares
    with pytest.raises(NotationError, match="fields 'park', 'nobles': .* empty but .* owned"):
        parse_position(with_field(FULL, "nobles", "-/-/-"))
    # a park servant of a seat that is not playing
    ranks = field_of(FULL, "park").split("/")
    first = ranks[0].split(",")
    first[0] = "s4"
    with pytest.raises(NotationError, match="field 'park', square a1: 4 is out of range"):
        parse_position(with_field(FULL, "park", "/".join([",".join(first)] + ranks[1:])))


def test_unwritable_snapshots_are_refused():
    snap = State.new_game(2).snapshot()
    snap.hand_size[0] = 2
    with pytest.raises(NotationError, match="cannot write this position: seat 1's hand"):
        position_to_string(snap)


# ======================================================================================
# Game records

def _record(impl, n, seed, **kw):
    start, actions, final = play(impl, n, seed, **{k: v for k, v in kw.items()
                                                     if k in ("options", "first_game")})
    rec = record_from_actions(n, actions, seed=seed, **kw)
    return rec, final


@pytest.mark.parametrize("n, seed", [(2, 31), (3, 32), (4, 33)])
def test_record_round_trip_and_replay(n, seed):
    names = ["Ann", "Bob", "Cy", "Dee"][:n]
    rec, final = _record(State, n, seed, names=names, headers={"Event": 'club "night"', "Round": "2"})
    assert final.is_terminal() and rec.scores == final.scores()
    text = write_record(rec)
    back = read_record(text)
    assert back == rec
    assert write_record(back) == text
    end = replay(back)
    assert end.snapshot() == final.snapshot() and end.scores() == final.scores()
    lines = text.splitlines()
    assert lines[0] == '[Game "Palais Royal"]' and f'[Players "{n}"]' in lines
    assert f'[Names "{",".join(names)}"]' in lines
    assert f'[Scores "{",".join(map(str, final.scores()))}"]' in lines
    assert '[Event "club \\"night\\""]' in lines
    body = lines[lines.index("") + 1:]
    assert body[0].startswith("0.1: ") and len(body[0].split()) == 6
    assert all(re.fullmatch(r"\d+\.\d: \S+( \S+)*", line) for line in body)


def test_record_with_options_first_game_and_the_reference_twin():
    options = RuleOptions(round_cap=12, hand_vp_cap=4, setup_on_gate=False)
    rec, final = _record(ReferenceState, 3, 40, options=options, first_game=True)
    text = write_record(rec, impl=ReferenceState)
    assert '[Options "round_cap=12,setup_on_gate=false,hand_vp_cap=4"]' in text
    assert '[FirstGame "true"]' in text
    back = read_record(text)
    assert back == rec and back.layout == list(FIRST_GAME_LAYOUT)
    assert back.rule_options() == options
    assert replay(back).snapshot() == final.snapshot()
    assert replay(back, impl=ReferenceState).snapshot() == final.snapshot()


def test_unfinished_game_and_a_seats_own_record():
    start, actions, _ = play(State, 3, 41, limit=300)
    rec = record_from_actions(3, actions, seed=41)
    assert rec.scores is None
    text = write_record(rec)
    assert "Scores" not in text and read_record(text) == rec
    # seat 2's record: other seats' draws are unknown ('?')
    view = start.view(1)
    seen = []
    for a in actions:
        if view.is_chance() and view.to_move != 1:
            a = A_DRAW_UNKNOWN
        seen.append(a)
        view.apply(a)
    assert A_DRAW_UNKNOWN in seen
    own = record_from_actions(3, seen, seed=41, observer=1)
    text = write_record(own)
    assert '[View "2"]' in text and re.search(r"\s\?(\s|$)", text)
    back = read_record(text)
    assert back == own and replay(back).snapshot() == view.snapshot()


def test_record_headers_can_be_dealt_from_the_seed():
    rec, final = _record(State, 2, 42)
    text = write_record(rec)
    short = "\n".join(line for line in text.splitlines()
                      if not line.startswith(("[Layout", "[Deal")))
    assert read_record(short) == rec


def test_game_record_dataclass_defaults():
    rec = GameRecord(n_players=2, layout=list(range(9)), deal=list(range(36)))
    assert rec.set_name == "reconstructed-v1" and rec.options == {} and rec.headers == {}
    assert "0.1: MINT" in write_record(GameRecord(2, list(range(9)), list(range(36)), actions=[A_ROOM + MINT]))


# ---------------------------------------------------------------------- malformed records

@pytest.fixture(scope="module")
def good_record():
    rec, _ = _record(State, 2, 50)
    return write_record(rec)


def _edit(text, old, new, count=1):
    assert old in text
    return text.replace(old, new, count)


def _line_no(text, prefix):
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def test_malformed_record_headers(good_record):
    t = good_record
    cases = [
        (_edit(t, '[Players "2"]', '[Players 2]'), r"^line 2: expected a header \[Key \"value\"\]"),
        (_edit(t, '[Players "2"]', '[Players "7"]'), r"^line 2: header 'Players': expected 2\.\.4, got 7"),
        (_edit(t, '[Players "2"]', '[Players "two"]'), r"^line 2: header 'Players': expected a non-negative integer"),
        (_edit(t, '[Players "2"]\n', ''), r"^line \d+: the headers end without 'Players'"),
        (_edit(t, '[Set "', '[Set "x"]\n[Set "'), r"^line 5: header 'Set' appears twice \(also line 4\)"),
        (_edit(t, '[Set "reconstructed-v1"]', '[Set "printed"]'), r"^line \d+: header 'Set': .*'printed'"),
        (_edit(t, '[Options ""]', '[Options "round_cap=500"]'), r"^line \d+: header 'Options': rule option 'round_cap'"),
        (_edit(t, '[Options ""]', '[Options "speed=3"]'), r"^line \d+: header 'Options': .*unknown option 'speed'"),
        (_edit(t, '[Options ""]', '[Options "round_cap"]'), r"^line \d+: header 'Options': expected name=value"),
        (_edit(t, '[Layout "', '[Layout "GATE,GATE,'), r"^line \d+: header 'Layout'"),
        (_edit(t, '[Deal "', '[Deal "1,'), r"^line \d+: header 'Deal': expected 36 tile numbers"),
        (re.sub(r'\[Deal "(\d+),(\d+),', r'[Deal "\1,\1,', t), r"^line \d+: header 'Deal': tile \d+ is dealt twice"),
        (_edit(t, '[FirstGame "false"]', '[FirstGame "maybe"]'), r"^line \d+: header 'FirstGame': expected true or false"),
        (_edit(t, '[Winners "', '[Winners "3,'), r"^line \d+: header 'Winners': 3 is out of range"),
    ]
    for text, pattern in cases:
        with pytest.raises(NotationError, match=pattern):
            read_record(text)


def test_malformed_record_turn_lines(good_record):
    t = good_record
    first = _line_no(t, "0.1:")
    with pytest.raises(NotationError, match=rf"^line {first}, token 2 'MINTT': expected a room code"):
        read_record(re.sub(r"^0\.1: (\S+) \S+", r"0.1: \1 MINTT", t, flags=re.M))
    with pytest.raises(NotationError, match=rf"^line {first}: expected '<round>\.<seat>: <tokens>'"):
        read_record(_edit(t, "0.1:", "0-1:"))
    with pytest.raises(NotationError, match=rf"^line {first}: no seat 3 in a 2-player game"):
        read_record(_edit(t, "0.1:", "0.3:"))
    with pytest.raises(NotationError, match=rf"^line {first + 1}: turn 0\.1 comes after 0\.1"):
        read_record(_edit(t, "0.2:", "0.1:"))
    with pytest.raises(NotationError, match=rf"^line {first}: no actions after '0\.1:'"):
        read_record(re.sub(r"^0\.1: .*$", "0.1:", t, flags=re.M))
    with pytest.raises(NotationError, match=r"^line 3: a turn line must follow a blank line"):
        read_record(_edit(t, "[Seed", "0.1: MINT\n[Seed"))


def test_replay_errors_name_line_and_token(good_record):
    t = good_record
    line = _line_no(t, "1.1:")
    tokens = re.search(r"^1\.1: (.*)$", t, flags=re.M).group(1).split()
    bad = tokens[:-1] + ["a1"] if tokens[-1] != "a1" else tokens[:-1] + ["b1"]
    text = re.sub(r"^1\.1: .*$", "1.1: " + " ".join(bad), t, flags=re.M)
    with pytest.raises(NotationError, match=rf"^line {line}, token {len(bad)} '{bad[-1]}': not legal here; legal: "):
        replay(read_record(text))
    # the last token of turn 1.1 moved to the next line: that line starts too early
    moved = re.sub(r"^(1\.1: .*) (\S+)\n1\.2: ", r"\1\n1.2: \2 ", t, flags=re.M)
    with pytest.raises(NotationError, match=rf"^line {line + 1}, token 1 .*labelled 1\.2, but the game is at 1\.1"):
        replay(read_record(moved))
    # a result that the game does not reach
    text = _edit(t, '[Scores "', '[Scores "1')
    with pytest.raises(NotationError, match=r"^line \d+: the record says the scores are"):
        replay(read_record(text))
    with pytest.raises(NotationError, match=r"^action 1 'a1': not legal here; legal: GATE PARADE"):
        replay(GameRecord(2, list(range(9)), list(range(36)), actions=[A_RECRUIT]))


def test_chance_is_recorded_even_with_one_outcome():
    """A draw is an action of its own in records and positions (RULES.md §10)."""
    start, actions, _ = play(State, 2, 60)
    state = start
    for a in actions:
        if state.stage == S_DRAW:
            assert A_DRAW <= a < A_DRAW + 9
        state.apply(a)
    assert any(A_DRAW <= a < A_DRAW + 9 for a in actions)


# ======================================================================================
# The examples of docs/notation.md are real

DOC = (Path(__file__).resolve().parents[1] / "docs" / "notation.md").read_text(encoding="utf-8")


def test_doc_positions_are_real():
    positions = [line for line in DOC.splitlines() if line.startswith("pr1 ")]
    assert len(positions) == 2
    assert positions[0] == position_to_string(State.new_game(3, seed=2024, first_game=True))
    view = state_from_position(positions[1])
    assert view.observer == 0 and turn_to_text(view.legal_actions()) in DOC


def test_doc_record_is_real():
    block = DOC.split("## Game records")[1].split("```\n")[1]
    rec = read_record(block)
    assert write_record(rec) == block
    assert replay(rec).snapshot().round == 3
