"""The rules core's caches and shortcuts (engine/_state.pyx) agree with a recomputation.

park_mask caches which park squares hold a tile and park_tiles which tiles lie there; they
must equal the masks rebuilt from the snapshot's tile_at after every action of random 2-4 player games, in a seat's view, in a
determinization and after a position-string round trip. State.playout skips the key
updates (keyless) and recomputes the keys at its end: they must equal the keys of the same
game played one apply at a time. rng_below's division-free remainder must give the stream
of engine/rng.py for every divisor.
"""

import pytest

from engine import _state
from engine.position import position_to_string, state_from_position
from engine.random_play import random_action
from engine.rng import MASK64, Rng
from engine.state import State


def mask_from_tiles(state) -> int:
    return sum(1 << sq for sq, t in enumerate(state.snapshot().tile_at) if t >= 0)


def check_mask(state):
    assert state.park_mask == mask_from_tiles(state)
    assert state.park_tiles == sum(1 << t for t in state.snapshot().tile_at if t >= 0)
    assert state.tiles_in_park() == bin(state.park_mask).count("1")


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_park_mask_follows_every_action(n_players):
    recruited = 0
    for g in range(12):
        state = State.new_game(n_players, seed=700 + 10 * n_players + g)
        rng = Rng(g)
        step = 0
        while not state.is_terminal():
            before = state.park_mask
            state.apply(random_action(state, rng))
            recruited += before != state.park_mask
            check_mask(state)
            if step % 37 == 0:
                seat = state.to_move
                check_mask(state.view(seat))
                check_mask(state.determinize(seat, Rng(step)))
                again = state_from_position(position_to_string(state))
                check_mask(again)
                assert again.key == state.key
            step += 1
    assert recruited > 20          # the games really took tiles out of the park


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_keyless_playout_ends_with_the_keys_of_a_keyed_game(n_players):
    for g in range(15):
        start = State.new_game(n_players, seed=900 + g)
        fast = start.copy()
        steps = fast.playout(Rng(g ^ 0x5A5A))
        slow = start.copy()
        rng = Rng(g ^ 0x5A5A)
        n = 0
        while not slow.is_terminal():
            slow.apply(random_action(slow, rng))
            n += 1
        assert steps == n
        assert fast.snapshot() == slow.snapshot()
        assert fast.key == slow.key == slow.compute_key()
        for seat in range(n_players):
            assert fast.info_key(seat) == slow.info_key(seat)
        # a game after a playout goes on with correct incremental keys
        mid = start.copy()
        mid.playout(Rng(g))
        assert mid.key == mid.compute_key()


def test_rng_below_is_the_python_stream_for_every_divisor():
    states = [0, 1, MASK64, MASK64 - 0x9E3779B97F4A7C15, 0x8000000000000000, 12345678901234567]
    rng = Rng(77)
    states += [rng.next_u64() for _ in range(60)]
    for n in list(range(1, 300)) + [1 << 20, (1 << 31) - 1]:
        for s in states:
            ref = Rng(s)
            want = ref.below(n)
            assert _state._rng_below(s, n) == (want, ref.state), (s, n)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_room_majorities_is_has_majority_seat_by_seat(n_players):
    ties = 0
    for g in range(10):
        state = State.new_game(n_players, seed=300 + g)
        rng = Rng(g)
        while not state.is_terminal():
            snap = state.snapshot()
            for room in range(9):
                want = [state.has_majority(p, room) for p in range(n_players)]
                assert _state._room_majorities(state, room) == want, (room, snap)
                counts = [snap.rooms[p][room] for p in range(n_players)]
                ties += max(counts) > 0 and counts.count(max(counts)) > 1
            state.apply(random_action(state, rng))
    assert ties > 100               # the tie-breaks (intrigue, cardinal) were exercised


def feature_digest():
    """sha256 over the dense and sparse observations of many positions of random games."""
    import hashlib
    import numpy as np
    from engine._features import feature_size, observation_into, sparse_observations
    h = hashlib.sha256()
    out = np.zeros(feature_size(), dtype=np.float32)
    for n in (2, 3, 4):
        for g in range(6):
            s = State.new_game(n, seed=4200 + 10 * n + g)
            rng = Rng(g)
            step = 0
            while not s.is_terminal():
                if step % 5 == 0:
                    for seat in range(n):
                        observation_into(s, seat, out)
                        h.update(out.tobytes())
                        observation_into(s.view(seat), seat, out)
                        h.update(out.tobytes())
                    so = sparse_observations(s)
                    for p in sorted(so):
                        idx, val, ns = so[p]
                        h.update(np.array(idx, dtype=np.int32).tobytes())
                        h.update(np.array(val, dtype=np.float32).tobytes())
                        h.update(bytes([ns % 256]))
                s.apply(random_action(s, rng))
                step += 1
    return h.hexdigest()


def test_features_are_bit_for_bit_those_of_the_builder_before_the_speed_up():
    # the digest of the feature builder as it was before the rules-core speed-up (issue 27):
    # every float of 2,608 positions' observations, dense and sparse, must stay the same
    assert feature_digest() == "4fbff983adda758f81425104467aa9b3a5b816c3cdd6f1ac7718b6dc74983852"


def test_payable_tile_tables_follow_the_twin_with_odd_tile_costs():
    # costs at the table's ends (0 and 100 gold) and seal costs up to 3: the recruitment
    # options of the mask tables equal the reference twin's at every step
    import dataclasses
    from engine.components import default_components
    from engine.reference import ReferenceState
    base = default_components()
    tiles = tuple(dataclasses.replace(t, gold=(0, 100, t.gold, 1)[i % 4], turquoise=i % 4 if i % 3 else 0,
                                      violet=(i // 2) % 3)
                  for i, t in enumerate(base.tiles))
    comps = dataclasses.replace(base, tiles=tiles)
    recruit_points = 0
    for n_players in (2, 4):
        for g in range(4):
            fast = State.new_game(n_players, seed=50 + g, components=comps)
            twin = ReferenceState.new_game(n_players, seed=50 + g, components=comps)
            rng = Rng(g)
            while not fast.is_terminal():
                assert fast.legal_actions() == twin.legal_actions()
                recruit_points += fast.stage == 14          # S_RECRUIT
                action = random_action(fast, rng)
                fast.apply(action)
                twin.apply(action)
            assert fast.scores() == twin.scores()
    assert recruit_points > 20


@pytest.mark.parametrize("seat, room", [(0, 9), (0, -1), (2, 0), (-1, 0), (0, 1000)])
def test_majority_of_a_seat_or_room_not_in_the_game_is_a_clear_error(seat, room):
    from engine.errors import PalaisError
    state = State.new_game(2, seed=1)
    with pytest.raises(PalaisError, match="no seat|no room"):
        state.has_majority(seat, room)
    if seat == 0:
        with pytest.raises(PalaisError, match="no room"):
            _state._room_majorities(state, room)
    assert state.has_majority(0, 1) in (True, False)        # the state is still usable
