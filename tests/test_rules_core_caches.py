"""The rules core's caches and shortcuts (engine/_state.pyx) agree with a recomputation.

park_mask caches which park squares hold a tile; it must equal the mask rebuilt from the
snapshot's tile_at after every action of random 2-4 player games, in a seat's view, in a
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
