"""The Cython State and the reference twin in lock step over hundreds of random games.

Both implement RULES.md; engine/reference.py is the readable one. Each game is played
through both at once, the action chosen from one random stream, and at every step the two
must agree on the legal actions, the key, the whole snapshot, the current player and the
chance outcomes; at the end on the scores and returns. Every VIEW_EVERY steps they must also
agree on each seat's view, info key and determinization (the same algorithm with the same
random stream gives the same world), on privileges and majorities, and on a few steps
played inside a view. Finally `State.playout` (a whole game in C) must end exactly where
`random_playout` ends with the reference twin for the same seed.

Games: 3 player counts x GAMES_PER_COUNT seeds. Every third game uses a biased random
policy (recruits and takes bonuses more often, plays cards) so more games reach the end
trigger, recruit privilege tiles and need source rooms; seeds also vary the layout and the
rule options.
"""

import functools

import pytest

from engine.constants import A_TAKE, N_ROOMS, S_KING_BONUS, S_MADAME_BONUS, S_RECRUIT
from engine.options import RuleOptions
from engine.random_play import random_action, random_playout
from engine.reference import ReferenceState
from engine.rng import Rng
from engine.state import State

from helpers import WINDOWS

GAMES_PER_COUNT = 170          # x 3 player counts = 510 games
BLOCK = 10
VIEW_EVERY = 25
VIEW_PLAY_EVERY = 150

OPTION_VARIANTS = (
    RuleOptions(),
    RuleOptions(room_fallback=False),
    RuleOptions(setup_on_gate=False),
    RuleOptions(end_trigger_tiles=24),
    RuleOptions(round_cap=20, hand_vp_cap=3, honour_vp=5),
)


@pytest.fixture(autouse=True, scope="module")
def cached_zobrist():
    """The reference twin computes its key from scratch at every step, which would dominate
    this module's runtime. zobrist.z is a pure function of (field, index, value), so a
    memoised copy gives the very same keys, faster."""
    from engine import zobrist
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(zobrist, "z", functools.lru_cache(maxsize=None)(zobrist.z))
        yield


def biased_action(state, rng):
    """A random action that recruits, takes bonuses and plays cards more often."""
    if state.is_chance():
        return random_action(state, rng)
    legal = state.legal_actions()
    stage = state.stage
    if stage == S_RECRUIT and len(legal) > 1 and rng.below(4):
        return legal[rng.below(len(legal) - 1)]          # a recruitment (END is last)
    if stage in (S_KING_BONUS, S_MADAME_BONUS) and rng.below(4):
        return A_TAKE
    if stage in WINDOWS and len(legal) > 1 and rng.below(2):
        return legal[rng.below(len(legal) - 1)]          # a card (continue is last)
    return legal[rng.below(len(legal))]


def assert_same(cy, ref, where):
    assert cy.legal_actions() == ref.legal_actions(), where
    assert cy.key == ref.key, where
    assert cy.snapshot() == ref.snapshot(), where
    assert cy.current_player() == ref.current_player(), where
    assert cy.chance_outcomes() == ref.chance_outcomes(), where
    assert cy.is_terminal() == ref.is_terminal(), where


def assert_same_hidden(cy, ref, n, step, where):
    """Views, info keys, determinizations, privileges and majorities agree."""
    for seat in range(n):
        w = f"{where} seat {seat}"
        assert cy.info_key(seat) == ref.info_key(seat), w
        cv, rv = cy.view(seat), ref.view(seat)
        assert cv.snapshot() == rv.snapshot(), w
        assert cv.legal_actions() == rv.legal_actions(), w
        assert cv.chance_outcomes() == rv.chance_outcomes(), w
        assert cv.key == rv.key, w
        assert cy.privileges(seat) == ref.privileges(seat), w
        for r in range(N_ROOMS):
            assert cy.has_majority(seat, r) == ref.has_majority(seat, r), (w, r)
        if not cy.is_terminal():
            cr, rr = Rng(step * 31 + seat), Rng(step * 31 + seat)
            assert cy.determinize(seat, cr).snapshot() == ref.determinize(seat, rr).snapshot(), w
            assert cr.state == rr.state, w           # the same numbers were drawn
            cr, rr = Rng(step), Rng(step)
            assert cv.determinize(seat, cr).snapshot() == rv.determinize(seat, rr).snapshot(), w


def play_inside_views(cy, ref, n, step, where):
    """A few random steps inside one seat's view, through both implementations."""
    seat = step % n
    cv, rv = cy.view(seat), ref.view(seat)
    rng = Rng(step)
    for i in range(10):
        if cv.is_terminal():
            break
        action = random_action(cv, rng)
        cv.apply(action)
        rv.apply(action)
        assert_same(cv, rv, f"{where} in view of seat {seat}, step {i}")


def new_pair(n, seed):
    """The game of (n, seed) in both implementations; the seed picks options and layout."""
    options = OPTION_VARIANTS[seed % len(OPTION_VARIANTS)]
    first_game = seed % 4 == 0
    return (State.new_game(n, seed=seed, options=options, first_game=first_game),
            ReferenceState.new_game(n, seed=seed, options=options, first_game=first_game))


def play_lockstep(n, seed):
    cy, ref = new_pair(n, seed)
    policy = biased_action if seed % 3 == 0 else random_action
    rng = Rng(seed ^ 0x5EED)
    step = 0
    while True:
        where = f"{n} players, seed {seed}, step {step}"
        assert_same(cy, ref, where)
        if step % VIEW_EVERY == 0:
            assert_same_hidden(cy, ref, n, step, where)
        if step % VIEW_PLAY_EVERY == 0 and not cy.is_terminal():
            play_inside_views(cy, ref, n, step, where)
        if cy.is_terminal():
            break
        action = policy(cy, rng)
        cy.apply(action)
        ref.apply(action)
        step += 1
    assert_same_hidden(cy, ref, n, step, f"{n} players, seed {seed}, end")
    assert cy.scores() == ref.scores()
    assert cy.returns() == ref.returns()
    assert sum(cy.returns()) == pytest.approx(1.0)
    return cy.snapshot()


@pytest.mark.parametrize("n", [2, 3, 4])
# The first block of games per player count stays in the fast loop; the rest are slow.
@pytest.mark.parametrize("block", [pytest.param(b, marks=pytest.mark.slow if b else ())
                                   for b in range(GAMES_PER_COUNT // BLOCK)])
def test_lockstep_random_games(n, block):
    for seed in range(block * BLOCK, (block + 1) * BLOCK):
        play_lockstep(n, seed)


def test_lockstep_games_cover_the_rules():
    # The differential games are worth something only if they reach the rare paths. Replay
    # some of them (same seeds, options and policy) through the Cython state alone.
    from engine.constants import S_SOURCE
    triggered = reshuffled = sources = supply_tiles = 0
    for seed in range(0, GAMES_PER_COUNT, 5):
        for n in (2, 3, 4):
            state = new_pair(n, seed)[0]
            policy = biased_action if seed % 3 == 0 else random_action
            rng = Rng(seed ^ 0x5EED)
            while not state.is_terminal():
                sources += state.stage == S_SOURCE
                state.apply(policy(state, rng))
            snap = state.snapshot()
            triggered += snap.last_round
            reshuffled += snap.epoch != [4] * 9
            supply_tiles += snap.owner[26] >= 0 or snap.owner[27] >= 0
    assert triggered > 10 and reshuffled > 10 and sources > 10 and supply_tiles > 5


@pytest.mark.parametrize("n", [2, 3, 4])
def test_playout_in_c_matches_the_reference(n):
    for seed in range(12):
        cy = State.new_game(n, seed=seed)
        ref = ReferenceState.new_game(n, seed=seed)
        cr, rr = Rng(seed), Rng(seed)
        steps = cy.playout(cr)
        assert random_playout(ref, rr) == steps
        assert cr.state == rr.state
        assert cy.snapshot() == ref.snapshot()
        assert cy.key == ref.key
        assert cy.scores() == ref.scores() and cy.returns() == ref.returns()


def test_playout_in_c_matches_python_random_play_through_the_twin():
    # random_playout drives the Cython State through the Python API: same game as in C
    for seed in range(5):
        a, b = State.new_game(4, seed=seed), State.new_game(4, seed=seed)
        assert a.playout(Rng(seed)) == random_playout(b, Rng(seed))
        assert a.snapshot() == b.snapshot()
