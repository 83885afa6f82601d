"""The observation vector (engine/features.py): a seat sees everything it may know and
nothing it may not, the names match the entries, and 2, 3 and 4 players share one layout."""

import numpy as np
import pytest

from engine.constants import (
    CARDS, C_GOLD, C_HONOUR, C_INTRIGUE, C_LETTER, MINT, OFFICE, P_INCOME, PRIVILEGES, ROOMS,
    SIDE_NAMES, SIDES, SQUARE_NAMES, STAGES, S_DRAW, S_KING_BONUS, S_MADAME_BONUS,
    S_RECRUIT, S_SOURCE, S_WINDOW1,
)
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE, feature_names, observation, observation_into
from engine.reference import ReferenceState
from engine.rng import Rng
from engine.state import State
from tests.helpers import build_snapshot, sq

NAMES = feature_names()


def value(vector, name):
    return float(vector[NAMES.index(name)])


def played_position(n, seed, steps):
    """A position `steps` random actions into a game of n players (cards drawn by the pile)."""
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    return state


def positions_with_hidden_cards(n):
    """Random-play positions in which some other seat holds cards (so hidden cards exist)."""
    found = []
    for seed in range(40):
        state = played_position(n, seed, 150 + 7 * seed)
        snap = state.snapshot()
        if not state.is_terminal() and sum(snap.hand_size[1:]) > 0:
            found.append(state)
        if len(found) == 4:
            break
    assert found, "random play drew no cards"
    return found


def rare_positions(n):
    """From random games: the first position at each stage below that is rarely met, a
    position in the last round, and a finished game."""
    wanted = {S_SOURCE, S_DRAW, S_KING_BONUS, S_MADAME_BONUS}
    found = []
    for seed in range(30):
        state = State.new_game(n, seed=seed)
        rng = Rng(seed)
        last_round_seen = False
        while not state.is_terminal():
            if state.stage in wanted:
                wanted.discard(state.stage)
                found.append(state.copy())
            if state.snapshot().last_round and not last_round_seen:
                last_round_seen = True
                found.append(state.copy())
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
        found.append(state)
        if not wanted:
            break
    assert not wanted, f"random play never reached stages {wanted}"
    built = build_snapshot(State, 3, last_round=1, round=9, stage=S_RECRUIT, viol=1, turq=2,
                           rec=1, rooms={0: {OFFICE: 1}}, gold={0: 9}, honours={1: 1},
                           discard={C_HONOUR: 1})
    return found + [State.from_snapshot(build_snapshot(State, n, last_round=1, round=9))] \
        + ([State.from_snapshot(built)] if n == 3 else [])


# ---------------------------------------------------------------------------------------
# Layout

def test_names_and_length_agree():
    assert len(NAMES) == FEATURE_SIZE == len(set(NAMES))
    for n in (2, 3, 4):
        vector = observation(State.new_game(n, seed=1), 0)
        assert vector.shape == (FEATURE_SIZE,) and vector.dtype == np.float32


@pytest.mark.parametrize("n", [2, 3, 4])
def test_values_are_finite_and_about_unit_range(n):
    for state in positions_with_hidden_cards(n):
        for seat in range(n):
            vector = observation(state, seat)
            assert np.isfinite(vector).all()
            assert vector.min() >= 0.0 and vector.max() <= 3.0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_absent_seats_are_zero_padding(n):
    state = positions_with_hidden_cards(n)[0]
    vector = observation(state, 0)
    for rel in range(4):
        block = [value(vector, name) for name in NAMES if name.startswith(
            "self." if rel == 0 else f"next{rel}.")]
        present = value(vector, "self.present" if rel == 0 else f"next{rel}.present")
        assert present == (1.0 if rel < n else 0.0)
        if rel >= n:
            assert not any(block)
            assert not any(value(vector, f"{square}.servant.next{rel}") for square in ("a1", "c1", "f6"))
    assert value(vector, f"players.{n}") == 1.0
    assert sum(value(vector, f"players.{k}") for k in (2, 3, 4)) == 1.0


def test_named_entries_hold_what_their_names_say():
    """A three-player position seen from seat 2: its own block first, then seat 3, then seat 1."""
    snap = build_snapshot(State, 3, to_move=1,
                          rooms={0: {MINT: 4}, 1: {OFFICE: 2}, 2: {MINT: 1}},
                          gold={0: 10, 1: 4, 2: 7},
                          hands={1: {C_GOLD: 1, C_LETTER: 2}, 2: {C_INTRIGUE: 1}},
                          park_servants={"a1": 2, "c1": 0})
    state = State.from_snapshot(snap)
    vector = observation(state, 1)
    assert value(vector, "stage.WINDOW1") == 1.0 and STAGES[S_WINDOW1] == "WINDOW1"
    assert value(vector, "self.to_move") == 1.0 and value(vector, "next1.to_move") == 0.0
    assert value(vector, "self.gold") == pytest.approx(4 / 20)
    assert value(vector, "next1.gold") == pytest.approx(7 / 20)     # seat 3
    assert value(vector, "next2.gold") == pytest.approx(10 / 20)    # seat 1
    assert value(vector, "self.rooms.OFFICE") == pytest.approx(2 / 10)
    assert value(vector, "next2.rooms.MINT") == pytest.approx(4 / 10)
    assert value(vector, "next2.majority.MINT") == 1.0
    assert value(vector, "next1.majority.MINT") == 0.0
    assert value(vector, "self.majority.OFFICE") == 1.0
    assert value(vector, "hand.LETTER") == pytest.approx(2 / 4)
    assert value(vector, "hand.GOLD") == pytest.approx(1 / 4)
    assert value(vector, "hand.INTRIGUE") == 0.0                    # seat 3's card: unknown
    assert value(vector, "self.hand_size") == pytest.approx(3 / 8)
    assert value(vector, "next1.hand_size") == pytest.approx(1 / 8)
    assert value(vector, "unknown.INTRIGUE") == pytest.approx(4 / 4)  # pile 3 + seat 3's 1
    assert value(vector, "a1.servant.next1") == 1.0                 # seat 3's servant
    assert value(vector, "c1.servant.next2") == 1.0                 # seat 1's servant
    assert value(vector, "next1.side.rank1") == pytest.approx(1 / 6)
    assert value(vector, "next1.side.fileA") == pytest.approx(1 / 6)
    tile = snap.tile_at[sq("b2")]
    assert value(vector, "b2.tile") == 1.0
    assert value(vector, "b2.vp") == pytest.approx(state.components.tiles[tile].vp / 12)
    assert value(vector, "layout.cell1.BACKDOOR") == 1.0            # the first-game layout
    assert value(vector, "layout.cell5.GATE") == 1.0
    scores = state.scores()
    assert value(vector, "self.score") == pytest.approx(scores[1] / 60)
    assert value(vector, "next1.score") == pytest.approx(scores[2] / 60)


# ---------------------------------------------------------------------------------------
# A plain-Python twin, written from the tables of docs/features.md by name, so every entry of
# the C code is checked against the documented meaning (over positions of real play).

def documented_observation(state, seat):
    view = ReferenceState.from_snapshot(state.view(seat).snapshot())
    snap, comps, n = view.snapshot(), view.components, view.n_players
    named = {f"players.{n}": 1, "round": snap.round / 20, "last_round": snap.last_round,
             f"stage.{STAGES[snap.stage]}": 1, "setup_count": snap.setup_count / 20,
             "gate_left": snap.gate_left / 10, "gate_max": snap.gate_max / 10,
             "moves_left": snap.moves_left / 10,
             "pool.turquoise": snap.turq / 5, "pool.violet": snap.viol / 5,
             "pool.recruitments": snap.rec / 5, "guards": snap.guards / 4,
             "moves_bonus": snap.moves_bonus / 10, "intrigue": snap.intrigue,
             "draws_left": snap.draws_left / 5, "tiles_in_park": view.tiles_in_park() / 36,
             "deck_size": snap.deck_size / 36}
    if snap.stage == S_SOURCE:
        named[f"source_for.{(ROOMS + ('PARK',))[snap.source_for]}"] = 1
    for c, card in enumerate(CARDS):
        named[f"unknown.{card}"] = snap.deck[c] / 4
        named[f"discard.{card}"] = snap.discard[c] / 4
        named[f"hand.{card}"] = snap.hand[seat][c] / 4
    for cell, room in enumerate(snap.layout):
        named[f"layout.cell{cell + 1}.{ROOMS[room]}"] = 1
    scores = view.scores()
    for rel in range(n):
        p = (seat + rel) % n
        who = "self" if rel == 0 else f"next{rel}"
        owned = [comps.tiles[t] for t, owner in enumerate(snap.owner) if owner == p]
        privileges = view.privileges(p)
        entries = {"present": 1, "to_move": int(snap.to_move == p), "area": snap.area[p] / 18,
                   "supply": snap.supply[p] / 7, "gold": snap.gold[p] / 20,
                   "hand_size": snap.hand_size[p] / 8, "honours": snap.honours[p] / 4,
                   "nobles": len(owned) / 12, "nobles_vp": sum(t.vp for t in owned) / 60,
                   "park_servants": snap.park_servant.count(p) / 12, "score": scores[p] / 60}
        for r, room in enumerate(ROOMS):
            entries[f"rooms.{room}"] = snap.rooms[p][r] / 10
            entries[f"majority.{room}"] = int(view.has_majority(p, r))
        for code in range(1, len(PRIVILEGES)):
            entries[f"privilege.{PRIVILEGES[code]}"] = privileges[code] / (3 if code == P_INCOME else 2)
        for side, squares in zip(SIDE_NAMES, SIDES):
            entries[f"side.{side}"] = sum(snap.park_servant[q] == p for q in squares) / 6
        named.update({f"{who}.{name}": v for name, v in entries.items()})
    for square, name in enumerate(SQUARE_NAMES):
        t = snap.tile_at[square]
        if t >= 0:
            tile = comps.tiles[t]
            named.update({f"{name}.tile": 1, f"{name}.vp": tile.vp / 12, f"{name}.gold": tile.gold / 9,
                          f"{name}.turquoise": tile.turquoise / 3, f"{name}.violet": tile.violet / 3})
            if tile.privilege:
                named[f"{name}.privilege.{PRIVILEGES[tile.privilege]}"] = 1
                named[f"{name}.amount"] = tile.amount / 5
        owner = snap.park_servant[square]
        if owner >= 0:
            rel = (owner - seat) % n
            named[f"{name}.servant.{'self' if rel == 0 else f'next{rel}'}"] = 1
    assert set(named) <= set(NAMES), set(named) - set(NAMES)
    return np.array([named.get(name, 0) for name in NAMES], dtype=np.float32)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_entry_means_what_docs_features_md_says(n):
    positions = positions_with_hidden_cards(n) + [State.new_game(n, seed=n)]
    positions += [played_position(n, seed, 400) for seed in (1, 2)] + rare_positions(n)
    for state in positions:
        for seat in range(n):
            np.testing.assert_allclose(observation(state, seat), documented_observation(state, seat),
                                       rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------------------------------
# Only what the seat may know

@pytest.mark.parametrize("n", [2, 3, 4])
def test_worlds_differing_only_in_hidden_cards_look_the_same(n):
    for state in positions_with_hidden_cards(n):
        for seat in range(n):
            seen = observation(state, seat)
            assert np.array_equal(seen, observation(state.view(seat), seat))
            hands = set()
            for k in range(8):
                world = state.determinize(seat, Rng(k))
                hands.add(tuple(tuple(row) for row in world.snapshot().hand))
                assert np.array_equal(observation(world, seat), seen)
            if sum(state.snapshot().hand_size) - state.snapshot().hand_size[seat] > 1:
                assert len(hands) > 1, "the worlds should differ in hidden cards"


def swap_card(snap, seat, from_type, to_type):
    """`seat` holds one card of to_type instead of from_type; the pile the other way round."""
    out = snap.copy()
    out.hand[seat][from_type] -= 1
    out.hand[seat][to_type] += 1
    out.drawn_t[seat][from_type] -= 1
    out.drawn_t[seat][to_type] += 1
    out.deck[from_type] += 1
    out.deck[to_type] -= 1
    return out


def test_another_seats_hand_is_invisible_and_ones_own_is_seen():
    snap = build_snapshot(State, 3, hands={0: {C_GOLD: 1}, 1: {C_GOLD: 1}, 2: {C_LETTER: 1}})
    other_changed = State.from_snapshot(swap_card(snap, 1, C_GOLD, C_HONOUR))
    own_changed = State.from_snapshot(swap_card(snap, 0, C_GOLD, C_HONOUR))
    state = State.from_snapshot(snap)
    assert np.array_equal(observation(other_changed, 0), observation(state, 0))
    assert not np.array_equal(observation(other_changed, 1), observation(state, 1))
    assert not np.array_equal(observation(own_changed, 0), observation(state, 0))


def test_what_the_seat_sees_changes_the_vector():
    snap = build_snapshot(State, 2, gold={0: 3, 1: 5}, rooms={1: {MINT: 2}})
    base = observation(State.from_snapshot(snap), 0)
    for edit in (lambda s: s.gold.__setitem__(1, 6),
                 lambda s: s.park_servant.__setitem__(sq("a1"), 1),
                 lambda s: s.rooms[1].__setitem__(MINT, 3)):
        changed = snap.copy()
        edit(changed)
        if changed.park_servant[sq("a1")] == 1:
            changed.supply[1] -= 1
        if changed.rooms[1][MINT] == 3:
            changed.supply[1] -= 1
        assert not np.array_equal(observation(State.from_snapshot(changed), 0), base)


def test_every_action_of_a_game_is_seen_by_the_mover():
    """Each decision changes what its mover sees (a card draw by another seat changes at
    least the hand size and the pile size)."""
    state = State.new_game(2, seed=4)
    rng = Rng(4)
    for _ in range(120):
        mover = state.to_move
        before = observation(state, mover)
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
        assert not np.array_equal(observation(state, mover), before)


# ---------------------------------------------------------------------------------------
# Inputs

def test_views_of_other_seats_and_onlookers_are_refused():
    state = played_position(3, 2, 60)
    with pytest.raises(PalaisError, match="seat 2"):
        observation(state.view(1), 0)
    with pytest.raises(PalaisError, match="public view"):
        observation(state.public_view(), 0)
    with pytest.raises(PalaisError, match="no seat 4"):
        observation(state, 3)
    with pytest.raises(ValueError, match="expected"):
        observation_into(state, 0, np.zeros(10, dtype=np.float32))


def test_reference_state_gives_the_same_vector():
    state = played_position(3, 5, 90)
    twin = ReferenceState.from_snapshot(state.snapshot())
    for seat in range(3):
        assert np.array_equal(observation(twin, seat), observation(state, seat))


def test_observation_into_fills_a_reused_buffer():
    state = played_position(4, 6, 80)
    out = np.full(FEATURE_SIZE, 7.0, dtype=np.float32)
    observation_into(state, 2, out)
    assert np.array_equal(out, observation(state, 2))
