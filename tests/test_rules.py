"""One test (or more) per rule of RULES.md, against both implementations (`impl`).

Positions are built with tests/helpers.py: every room empty unless named, 7 servants in each
general supply and the rest in the play area, the seat to move holding one HONOUR (so each of
his card windows is a decision and the state stops there), first-game layout:

    row 1 (park side):  BACKDOOR  OFFICE  CARDINAL
    row 2:              MINT      GATE    MADAME
    row 3:              STAIRS    KING    PARADE

Park squares are named a1..f6 (file a-f, rank 1 next to the castle); the border is rank 1,
rank 6, file a and file f. Tiles are named by their printed number (tile(n)) and stored by
index n - 1. Counts in comments are seat 1 / seat 2 (seat 1 is index 0).
"""

import pytest

from engine.constants import (
    A_CONTINUE, A_DECLINE, A_END, A_TAKE, BACKDOOR, CARDINAL, CHANCE, C_FOOTMAN, C_GOLD,
    C_GUARDS, C_HONOUR, C_INTRIGUE, C_KINGSEAL, C_LETTER, C_MADAMESEAL, C_MOVES, GATE, KING,
    MADAME, MINT, N_CARDS, N_ROOMS, OFFICE, PARADE, P_CARDS, P_MOVE, P_REINFORCE,
    P_SECRETARY, P_SUPPLY, P_TURQUOISE, P_VIOLET, SOURCE_PARK, STAIRS, S_DRAW, S_GAME_OVER,
    S_KING_BONUS, S_MADAME_BONUS, S_MOVES, S_RECRUIT, S_SETUP, S_SOURCE,
    S_STEP1, S_TURN_START, S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5, TERMINAL,
)
from engine.errors import IllegalAction
from engine.validate import SnapshotError
from engine.options import RuleOptions
from engine.rng import Rng
from engine.random_play import random_action

from helpers import (
    accounting_errors, build_snapshot, draw, finish_turn, gate, kick, move, passive_action,
    play, position, recruit, room, run_until, sq, tile, with_tiles,
)

BOTH_STOP = {0: {C_HONOUR: 1}, 1: {C_HONOUR: 1}}
ALL_WINDOWS = (S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5)


def twelve_tiles():
    """A park of exactly 12 tiles (numbers 13..24 on a1..f2)."""
    return {square: 12 + square for square in range(12)}


# =======================================================================================
# §2 Setup

@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 99])
def test_setup_deals_36_of_the_42_tiles(impl, n, seed):
    snap = impl.new_game(n, seed=seed).snapshot()
    dealt = [t for t in snap.tile_at if t >= 0]
    assert len(dealt) == 36 and len(set(dealt)) == 36
    assert all(0 <= t < 42 for t in dealt)
    assert len(snap.owner) == 42 and snap.owner == [-1] * 42   # 6 back in the box, unowned
    assert impl.new_game(n, seed=seed).tiles_in_park() == 36


def test_the_deal_and_layout_depend_on_the_seed(impl):
    deals = {tuple(impl.new_game(2, seed=s).snapshot().tile_at) for s in range(10)}
    boxed = {frozenset(set(range(42)) - set(d)) for d in deals}
    layouts = {tuple(impl.new_game(2, seed=s).snapshot().layout) for s in range(10)}
    assert len(deals) == 10 and len(boxed) > 1 and len(layouts) > 1
    for layout in layouts:
        assert sorted(layout) == list(range(N_ROOMS))
    # the same seed deals the same game
    assert impl.new_game(3, seed=5).snapshot() == impl.new_game(3, seed=5).snapshot()


def test_first_game_layout(impl):
    # row 1: BACKDOOR OFFICE CARDINAL / row 2: MINT GATE MADAME / row 3: STAIRS KING PARADE
    for seed in (0, 1, 2):
        snap = impl.new_game(2, seed=seed, first_game=True).snapshot()
        assert snap.layout == [BACKDOOR, OFFICE, CARDINAL, MINT, GATE, MADAME, STAIRS, KING,
                               PARADE]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_servants_gold_and_cards(impl, n):
    state = impl.new_game(n, seed=3)
    snap = state.snapshot()
    for q in range(n):
        expected = [0] * N_ROOMS
        expected[STAIRS] = 3
        expected[PARADE] = 2
        assert snap.rooms[q] == expected
        assert snap.area[q] == 18 - 5
        assert snap.supply[q] == 7
        assert snap.hand[q] == [0] * N_CARDS and snap.hand_size[q] == 0
    assert snap.gold == [0, 1, 2, 3][:n]
    assert snap.deck == [4] * N_CARDS and snap.deck_size == 36
    assert snap.park_servant == [-1] * 36
    assert state.stage == S_SETUP and state.current_player() == 0
    assert not accounting_errors(snap)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_placements_are_five_decisions_per_seat_in_seat_order(impl, n):
    state = impl.new_game(n, seed=11)
    for i in range(5 * n):
        seat = i // 5
        assert state.stage == S_SETUP
        assert state.current_player() == seat
        assert state.legal_actions() == [room(r) for r in range(N_ROOMS)]   # GATE included
        target = (i * 4) % N_ROOMS
        before = state.snapshot()
        state.apply(room(target))
        after = state.snapshot()
        assert after.rooms[seat][target] == before.rooms[seat][target] + 1
        assert after.area[seat] == before.area[seat] - 1
    snap = state.snapshot()
    assert snap.area == [8] * n                    # 18 - 3 - 2 - 5
    assert snap.round == 1
    assert state.stage != S_SETUP
    assert state.to_move == 0                      # seat 1 starts


@pytest.mark.parametrize("n", [1, 5])
def test_two_to_four_players(impl, n):
    with pytest.raises(ValueError):
        impl.new_game(n, seed=0)


def test_setup_on_the_gate_can_be_switched_off(impl):
    state = impl.new_game(2, seed=0, options=RuleOptions(setup_on_gate=False))
    assert state.legal_actions() == [room(r) for r in range(1, N_ROOMS)]
    with pytest.raises(IllegalAction):
        state.apply(room(GATE))


# =======================================================================================
# §10 Decisions: the order within a turn, automatic single-option points, card windows

def test_decision_order_within_a_turn(impl):
    #            PARADE STAIRS KING MADAME OFFICE BACKDOOR   gold 10, one card in hand
    #   seat 1:    1      1     1     1      1       1       tile 4 (2/1/1) on c3
    state = position(impl, rooms={0: {PARADE: 1, STAIRS: 1, KING: 1, MADAME: 1, OFFICE: 1,
                                      BACKDOOR: 1}},
                     gold={0: 10}, tiles={"c3": 3}, to_move=1, stage=S_WINDOW5,
                     hands=BOTH_STOP)
    kick(state)                    # seat 2 ends his turn: seat 1's turn begins
    seen = []
    policy = {S_STEP1: gate(1), S_KING_BONUS: A_TAKE, S_MADAME_BONUS: A_TAKE,
              S_RECRUIT: recruit("c3")}
    while state.to_move == 0:
        st = state.stage
        seen.append(st)
        if st in policy:
            action = policy[st]
        elif st == S_MOVES:
            action = state.legal_actions()[0] if seen.count(S_MOVES) == 1 else A_END
        elif st == S_DRAW:
            assert state.current_player() == CHANCE
            action = state.chance_outcomes()[0][0]
        else:
            assert st in ALL_WINDOWS
            action = A_CONTINUE
        state.apply(action)
    assert seen == [S_WINDOW1, S_STEP1, S_WINDOW2, S_MOVES, S_MOVES, S_WINDOW3,
                    S_KING_BONUS, S_MADAME_BONUS, S_WINDOW4, S_RECRUIT, S_DRAW, S_WINDOW5]
    assert state.snapshot().owner[3] == 0


@pytest.mark.parametrize("build, skipped", [
    # PARADE empty: step 1 offers only k = 0
    (dict(rooms={0: {MINT: 1}}), S_STEP1),
    # no STAIRS servant, no MOVE privilege, no card: no moves
    (dict(rooms={0: {PARADE: 1}}), S_MOVES),
    # KING/MADAME without the majority: no bonus
    (dict(rooms={0: {KING: 1, MADAME: 1}, 1: {KING: 1, MADAME: 2}}), S_KING_BONUS),
    # OFFICE servant but no gold: nothing to recruit
    (dict(rooms={0: {OFFICE: 2, KING: 2, MADAME: 2}}), S_RECRUIT),
    # gold but no recruitment
    (dict(rooms={0: {KING: 2, MADAME: 2}}, gold={0: 30}), S_RECRUIT),
])
def test_points_with_a_single_option_are_automatic(impl, build, skipped):
    state = position(impl, hands=BOTH_STOP, **build)
    for _ in range(5):               # the five windows of the turn
        while state.stage not in ALL_WINDOWS:
            assert state.stage != skipped
            state.apply(passive_action(state))
        assert state.stage != skipped
        state.apply(A_CONTINUE)
        if state.to_move != 0:
            break
    assert state.to_move == 1


def test_step1_with_one_servant_allowed_is_a_decision(impl):
    # gate_max 1 still means two options: 0 or 1
    state = position(impl, rooms={0: {PARADE: 1}, 1: {PARADE: 1}})
    kick(state)
    assert state.stage == S_STEP1
    assert state.legal_actions() == [gate(0), gate(1)]


def test_a_card_window_is_a_decision_whenever_the_hand_is_not_empty(impl):
    # Seat 1 holds only GUARDS (a step-1 card): every one of his five windows still asks,
    # with "continue" as the only option where GUARDS is not allowed.
    state = position(impl, to_move=1, stage=S_WINDOW5, hands={0: {C_GUARDS: 1}, 1: {C_HONOUR: 1}})
    kick(state)
    seen = []
    while state.to_move == 0:
        seen.append((state.stage, state.legal_actions()))
        state.apply(passive_action(state))
    assert seen == [(S_WINDOW1, [play(C_GUARDS), A_CONTINUE]),
                    (S_WINDOW2, [A_CONTINUE]),
                    (S_WINDOW3, [A_CONTINUE]),
                    (S_WINDOW4, [A_CONTINUE]),
                    (S_WINDOW5, [A_CONTINUE])]


def test_no_card_window_with_an_empty_hand(impl):
    state = position(impl, rooms={0: {PARADE: 1, STAIRS: 1}}, to_move=1, stage=S_WINDOW5,
                     hands={1: {C_HONOUR: 1}})
    kick(state)
    seen = []
    while state.to_move == 0:
        seen.append(state.stage)
        state.apply(passive_action(state))
    assert seen == [S_STEP1, S_MOVES]


# Which cards each window allows (RULES.md §6), written out from the table:
ANY_STEP = [C_GOLD, C_INTRIGUE, C_FOOTMAN, C_HONOUR]
ALLOWED = {
    S_WINDOW1: sorted(ANY_STEP + [C_GUARDS]),
    S_WINDOW2: sorted(ANY_STEP + [C_MOVES]),
    S_WINDOW3: ANY_STEP,
    S_WINDOW4: sorted(ANY_STEP + [C_KINGSEAL, C_MADAMESEAL, C_LETTER]),
    S_WINDOW5: ANY_STEP,
}


@pytest.mark.parametrize("window", ALL_WINDOWS)
def test_window_card_permissions(impl, window):
    state = position(impl, hands={0: {c: 1 for c in range(N_CARDS)}}, stage=window)
    assert state.legal_actions() == [play(c) for c in ALLOWED[window]] + [A_CONTINUE]
    for c in range(N_CARDS):
        if c not in ALLOWED[window]:
            with pytest.raises(IllegalAction):
                state.copy().apply(play(c))


def test_window_stays_open_after_a_play_and_closes_when_the_hand_is_empty(impl):
    state = position(impl, hands={0: {C_GOLD: 2}}, stage=S_WINDOW1)
    state.apply(play(C_GOLD))
    assert state.stage == S_WINDOW1
    assert state.legal_actions() == [play(C_GOLD), A_CONTINUE]
    state.apply(play(C_GOLD))
    assert state.stage != S_WINDOW1          # closed by itself: nothing left to play
    assert state.snapshot().gold[0] == 6


def test_only_cards_in_hand_are_offered(impl):
    state = position(impl, hands={0: {C_GOLD: 1, C_LETTER: 2}}, stage=S_WINDOW4)
    assert state.legal_actions() == [play(C_GOLD), play(C_LETTER), A_CONTINUE]


# =======================================================================================
# §6 Card effects

def played(state, card):
    """Play `card` at the current window; return (snapshot before, snapshot after)."""
    before = state.snapshot()
    state.apply(play(card))
    return before, state.snapshot()


@pytest.mark.parametrize("window", [S_WINDOW1, S_WINDOW3, S_WINDOW5])
def test_gold_card_gives_three_gold_and_goes_to_the_discard_pile(impl, window):
    state = position(impl, gold={0: 2}, hands={0: {C_GOLD: 1, C_HONOUR: 1}}, stage=window)
    before, after = played(state, C_GOLD)
    assert after.gold[0] == 5
    assert after.hand[0][C_GOLD] == 0 and after.hand_size[0] == before.hand_size[0] - 1
    assert after.discard[C_GOLD] == before.discard[C_GOLD] + 1
    assert after.played_since[0][C_GOLD] == before.played_since[0][C_GOLD] + 1
    assert after.deck == before.deck


@pytest.mark.parametrize("cards, moves", [(0, 2), (1, 4), (2, 6)])
def test_moves_card_adds_two_moves(impl, cards, moves):
    # 1 on STAIRS with the majority: 2 moves, +2 per MOVES card played at window 2
    state = position(impl, rooms={0: {STAIRS: 1}}, stage=S_WINDOW2,
                     hands={0: {C_MOVES: cards, C_HONOUR: 1}})
    for _ in range(cards):
        state.apply(play(C_MOVES))
    kick(state)
    assert state.stage == S_MOVES
    assert state.snapshot().moves_left == moves


@pytest.mark.parametrize("parade, cards, kmax", [(1, 0, 2), (1, 1, 4), (1, 2, 6), (0, 1, 2)])
def test_guards_card_allows_two_more_servants(impl, parade, cards, kmax):
    state = position(impl, rooms={0: {PARADE: parade}},
                     hands={0: {C_GUARDS: cards, C_HONOUR: 1}})
    for _ in range(cards):
        state.apply(play(C_GUARDS))
    kick(state)
    assert state.stage == S_STEP1
    assert state.legal_actions() == [gate(k) for k in range(kmax + 1)]


@pytest.mark.parametrize("card, number, pool", [
    (C_KINGSEAL, 2, "turq"),     # tile 2: 3 gold, 1 turquoise
    (C_MADAMESEAL, 1, "viol"),   # tile 1: 3 gold, 1 violet
])
def test_seal_cards_pay_seals_before_servants(impl, card, number, pool):
    seal_room = KING if card == C_KINGSEAL else MADAME
    t = tile(number)
    assert (t.turquoise, t.violet) == ((1, 0) if card == C_KINGSEAL else (0, 1))
    # Without the card and without a servant in the seal room the tile cannot be paid.
    state = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 3}, park={"c3": number - 1},
                     stage=S_WINDOW4, hands={0: {card: 1, C_HONOUR: 1}})
    probe = state.copy()
    probe.apply(A_CONTINUE)
    assert probe.stage != S_RECRUIT
    state.apply(play(card))
    assert getattr(state.snapshot(), pool) == 1
    kick(state)
    assert state.legal_actions() == [recruit("c3"), A_END]
    # With a servant in the seal room too, the card's seal is used first.
    state = position(impl, rooms={0: {OFFICE: 1, seal_room: 1}}, gold={0: 3},
                     park={"c3": number - 1}, stage=S_WINDOW4,
                     hands={0: {card: 1, C_HONOUR: 1}})
    state.apply(play(card))
    kick(state)
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.owner[number - 1] == 0
    assert snap.rooms[0][seal_room] == 1           # the servant stays
    assert getattr(snap, pool) == 0


def test_letter_is_a_recruitment_used_before_office_servants(impl):
    # tile 3 (5 gold) on c3 and tile 7 (6 gold) on d3; one OFFICE servant and one LETTER
    state = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 11}, park={"c3": 2, "d3": 6},
                     stage=S_WINDOW4, hands={0: {C_LETTER: 1, C_HONOUR: 1}})
    state.apply(play(C_LETTER))
    assert state.snapshot().rec == 1
    kick(state)
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.rec == 0 and snap.rooms[0][OFFICE] == 1     # the LETTER was used first
    assert state.legal_actions() == [recruit("d3"), A_END]
    state.apply(recruit("d3"))
    assert state.snapshot().rooms[0][OFFICE] == 0


def test_letter_alone_allows_a_recruitment(impl):
    state = position(impl, gold={0: 5}, park={"c3": 2}, stage=S_WINDOW4,
                     hands={0: {C_LETTER: 1, C_HONOUR: 1}})
    state.apply(play(C_LETTER))
    kick(state)
    assert state.legal_actions() == [recruit("c3"), A_END]


def test_unused_step4_pools_are_lost_at_the_end_of_the_step(impl):
    state = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 3}, park={"c3": 1},
                     stage=S_WINDOW4,
                     hands={0: {C_KINGSEAL: 2, C_MADAMESEAL: 1, C_LETTER: 1, C_HONOUR: 1}})
    for card in (C_KINGSEAL, C_KINGSEAL, C_MADAMESEAL, C_LETTER):
        state.apply(play(card))
    kick(state)
    state.apply(A_END)
    assert state.stage == S_WINDOW5
    snap = state.snapshot()
    assert (snap.turq, snap.viol, snap.rec) == (0, 0, 0)


@pytest.mark.parametrize("supply", [7, 1, 0])
def test_footman_takes_a_servant_from_the_general_supply(impl, supply):
    state = position(impl, supply={0: supply}, hands={0: {C_FOOTMAN: 1, C_HONOUR: 1}})
    before, after = played(state, C_FOOTMAN)
    moved = 1 if supply else 0              # none when the general supply is empty
    assert after.supply[0] == supply - moved
    assert after.area[0] == before.area[0] + moved
    assert after.discard[C_FOOTMAN] == 1    # played anyway, even without effect


def test_honour_is_kept_face_up_and_scores_three(impl):
    state = position(impl, hands={0: {C_HONOUR: 2}})
    assert state.scores()[0] == 2                # 1 per card in hand
    before, after = played(state, C_HONOUR)
    assert after.honours[0] == 1
    assert after.discard == before.discard       # not in the discard pile
    assert after.hand_size[0] == 1
    assert state.scores()[0] == 3 + 1


# =======================================================================================
# §3 Step 1: Parade Ground, and where new servants come from

def test_step1_servants_come_from_the_play_area_first(impl):
    state = position(impl, rooms={0: {PARADE: 2, MINT: 1}}, area={0: 1})
    kick(state)
    state.apply(gate(1))
    snap = state.snapshot()
    assert snap.area[0] == 0 and snap.rooms[0][GATE] == 1 and snap.rooms[0][MINT] == 1
    assert state.stage == S_WINDOW2


def test_step1_source_room_decisions_when_the_play_area_is_empty(impl):
    #            PARADE MINT KING   play area 0
    #   seat 1:    2     1    1     -> k <= 2 + 1 (majority) = 3
    state = position(impl, rooms={0: {PARADE: 2, MINT: 1, KING: 1}}, area={0: 0})
    kick(state)
    assert state.legal_actions() == [gate(k) for k in range(4)]
    state.apply(gate(3))
    assert state.stage == S_SOURCE
    assert state.snapshot().source_for == GATE
    assert state.legal_actions() == [room(PARADE), room(MINT), room(KING)]   # never the GATE
    state.apply(room(MINT))
    assert state.stage == S_SOURCE
    assert state.legal_actions() == [room(PARADE), room(KING)]
    state.apply(room(KING))
    # only PARADE is left: the third servant comes from there by itself
    assert state.stage == S_WINDOW2
    snap = state.snapshot()
    assert snap.rooms[0][GATE] == 3
    assert snap.rooms[0][PARADE] == 1 and snap.rooms[0][MINT] == 0 and snap.rooms[0][KING] == 0


def test_step1_source_is_automatic_with_one_room_and_k_is_limited(impl):
    # 3 on PARADE with the majority would allow 4, but only 3 servants can be placed
    state = position(impl, rooms={0: {PARADE: 3}}, area={0: 0})
    kick(state)
    assert state.legal_actions() == [gate(0), gate(1), gate(2), gate(3)]
    state.apply(gate(3))
    assert state.stage == S_WINDOW2
    snap = state.snapshot()
    assert snap.rooms[0][GATE] == 3 and snap.rooms[0][PARADE] == 0


def test_step1_servants_on_the_gate_and_in_the_park_cannot_be_placed(impl):
    # 25 = 2 on PARADE + 4 on the GATE + 7 in the general supply + 12 in the park
    state = position(impl, rooms={0: {PARADE: 2, GATE: 4}}, area={0: 0}, supply={0: 7},
                     park_servants={square: 0 for square in range(20, 32)}, park={"c3": 0})
    kick(state)
    assert state.legal_actions() == [gate(0), gate(1), gate(2)]


# =======================================================================================
# §3 Step 2: Stairway

# Adjacency in the first-game layout, read off the grid of RULES.md §1.
ADJACENT = {
    BACKDOOR: {OFFICE, MINT}, OFFICE: {BACKDOOR, CARDINAL, GATE}, CARDINAL: {OFFICE, MADAME},
    MINT: {BACKDOOR, GATE, STAIRS}, GATE: {OFFICE, MINT, MADAME, KING},
    MADAME: {CARDINAL, GATE, PARADE}, STAIRS: {MINT, KING}, KING: {STAIRS, GATE, PARADE},
    PARADE: {MADAME, KING},
}


def test_moves_go_to_adjacent_rooms_only(impl):
    state = position(impl, rooms={0: {r: 1 for r in range(N_ROOMS)}}, stage=S_WINDOW2)
    kick(state)
    assert state.stage == S_MOVES
    expected = [move(a, b) for a in range(N_ROOMS) for b in sorted(ADJACENT[a])] + [A_END]
    assert state.legal_actions() == expected
    assert len(expected) == 24 + 1
    with pytest.raises(IllegalAction):
        state.apply(move(STAIRS, PARADE))         # same row, not adjacent
    with pytest.raises(IllegalAction):
        state.apply(move(BACKDOOR, GATE))         # diagonal


def test_moves_only_from_rooms_with_own_servants(impl):
    state = position(impl, rooms={0: {STAIRS: 1}, 1: {MINT: 3}}, stage=S_WINDOW2)
    kick(state)
    assert state.legal_actions() == [move(STAIRS, MINT), move(STAIRS, KING), A_END]


def test_the_same_servant_may_move_several_times(impl):
    state = position(impl, rooms={0: {STAIRS: 1}}, stage=S_WINDOW2,
                     hands={0: {C_MOVES: 1, C_HONOUR: 1}})
    state.apply(play(C_MOVES))
    kick(state)                                   # 1 + 1 (majority) + 2 = 4 moves
    for a, b in ((STAIRS, MINT), (MINT, BACKDOOR), (BACKDOOR, OFFICE), (OFFICE, CARDINAL)):
        assert state.stage == S_MOVES
        state.apply(move(a, b))
    snap = state.snapshot()
    assert snap.rooms[0][CARDINAL] == 1 and sum(snap.rooms[0]) == 1
    assert state.stage == S_WINDOW3


def test_moving_off_and_onto_stairs_does_not_change_the_moves(impl):
    # 2 on STAIRS with the majority: m = 3, counted once at the start of the step
    state = position(impl, rooms={0: {STAIRS: 2, MINT: 1}}, stage=S_WINDOW2)
    kick(state)
    assert state.snapshot().moves_left == 3
    state.apply(move(STAIRS, KING))
    assert state.snapshot().moves_left == 2
    state.apply(move(STAIRS, KING))              # STAIRS now empty: no servants there
    assert state.snapshot().moves_left == 1
    state.apply(move(MINT, STAIRS))
    assert state.stage == S_WINDOW3              # moving onto STAIRS gave no extra move


def test_end_moves_early_loses_the_rest(impl):
    state = position(impl, rooms={0: {STAIRS: 3}}, stage=S_WINDOW2)
    kick(state)
    state.apply(move(STAIRS, MINT))
    state.apply(A_END)
    assert state.stage == S_WINDOW3
    assert state.snapshot().moves_left == 0
    assert state.snapshot().rooms[0][MINT] == 1


def test_stairs_majority_is_judged_after_the_window2_cards(impl):
    # STAIRS tied 2/2 and seat 2 has the Cardinal; INTRIGUE at window 2 wins the tie.
    rooms = {0: {STAIRS: 2}, 1: {STAIRS: 2, CARDINAL: 1}}
    state = position(impl, rooms=rooms, stage=S_WINDOW2,
                     hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}})
    state.apply(play(C_INTRIGUE))
    kick(state)
    assert state.snapshot().moves_left == 3
    state = position(impl, rooms=rooms, stage=S_WINDOW2,
                     hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}})
    kick(state)
    assert state.snapshot().moves_left == 2


# =======================================================================================
# §3 Step 3: MINT, KING and MADAME

def test_mint_gold_is_collected_after_the_window3_cards(impl):
    # MINT tied 1/1, seat 2 holds the Cardinal: INTRIGUE at window 3 makes it 2 gold
    state = position(impl, rooms={0: {MINT: 1}, 1: {MINT: 1, CARDINAL: 1}}, stage=S_WINDOW3,
                     hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}})
    state.apply(play(C_INTRIGUE))
    kick(state)
    assert state.snapshot().gold[0] == 2
    assert state.stage == S_WINDOW4


def test_king_bonus_offered_with_the_majority_and_decline_works(impl):
    state = position(impl, rooms={0: {KING: 1}}, stage=S_WINDOW3)
    before = state.snapshot()
    kick(state)
    assert state.stage == S_KING_BONUS
    assert state.legal_actions() == [A_TAKE, A_DECLINE]
    state.apply(A_DECLINE)
    snap = state.snapshot()
    assert snap.rooms == before.rooms and snap.area == before.area
    assert state.stage == S_WINDOW4             # no MADAME majority: no second offer


def test_king_bonus_take_puts_a_servant_from_the_play_area(impl):
    state = position(impl, rooms={0: {KING: 1}}, stage=S_WINDOW3)
    area = state.snapshot().area[0]
    kick(state)
    state.apply(A_TAKE)
    snap = state.snapshot()
    assert snap.rooms[0][KING] == 2 and snap.area[0] == area - 1


def test_madame_bonus_follows_king_bonus(impl):
    state = position(impl, rooms={0: {KING: 1, MADAME: 1}}, stage=S_WINDOW3)
    kick(state)
    assert state.stage == S_KING_BONUS
    state.apply(A_DECLINE)
    assert state.stage == S_MADAME_BONUS
    assert state.legal_actions() == [A_TAKE, A_DECLINE]
    state.apply(A_TAKE)
    assert state.snapshot().rooms[0][MADAME] == 2 and state.snapshot().rooms[0][KING] == 1
    assert state.stage == S_WINDOW4


def test_madame_bonus_alone(impl):
    state = position(impl, rooms={0: {KING: 1, MADAME: 2}, 1: {KING: 1, MADAME: 1}},
                     stage=S_WINDOW3)
    kick(state)
    assert state.stage == S_MADAME_BONUS


@pytest.mark.parametrize("rooms, offered", [
    ({0: {KING: 1}, 1: {KING: 1}}, False),              # tie, no Cardinal: no majority
    ({0: {KING: 2}}, False),                            # play area empty, nothing else to take
    ({0: {KING: 2, CARDINAL: 1}}, True),                # ... but a servant in another room
])
def test_king_bonus_needs_majority_and_a_servant_to_place(impl, rooms, offered):
    state = position(impl, rooms=rooms, area={0: 0}, stage=S_WINDOW3)
    kick(state)
    assert (state.stage == S_KING_BONUS) is offered


def test_bonus_servant_from_another_room_when_the_play_area_is_empty(impl):
    # one other room: taken from there by itself
    state = position(impl, rooms={0: {KING: 1, CARDINAL: 1}}, area={0: 0}, stage=S_WINDOW3)
    kick(state)
    state.apply(A_TAKE)
    snap = state.snapshot()
    assert snap.rooms[0][KING] == 2 and snap.rooms[0][CARDINAL] == 0
    assert state.stage == S_WINDOW4
    # two other rooms: a source decision
    state = position(impl, rooms={0: {KING: 1, STAIRS: 1, CARDINAL: 1}}, area={0: 0},
                     stage=S_WINDOW3)
    kick(state)
    state.apply(A_TAKE)
    assert state.stage == S_SOURCE
    assert state.snapshot().source_for == KING
    assert state.legal_actions() == [room(STAIRS), room(CARDINAL)]
    state.apply(room(STAIRS))
    snap = state.snapshot()
    assert snap.rooms[0][KING] == 2 and snap.rooms[0][STAIRS] == 0 and snap.rooms[0][CARDINAL] == 1
    assert state.stage == S_WINDOW4


def test_madame_bonus_source_decision(impl):
    state = position(impl, rooms={0: {MADAME: 1, STAIRS: 1, MINT: 1}}, area={0: 0},
                     stage=S_WINDOW3)
    kick(state)
    assert state.stage == S_MADAME_BONUS
    state.apply(A_TAKE)
    assert state.stage == S_SOURCE
    assert state.legal_actions() == [room(STAIRS), room(MINT)]
    state.apply(room(MINT))
    assert state.snapshot().rooms[0][MADAME] == 2
    assert state.stage == S_WINDOW4


# =======================================================================================
# §3 Step 4: recruiting nobles

def test_recruiting_needs_a_recruitment(impl):
    state = position(impl, rooms={0: {KING: 3, MADAME: 3}}, gold={0: 50}, stage=S_WINDOW4)
    kick(state)
    assert state.stage == S_WINDOW5
    assert state.snapshot().owner == [-1] * 42


def test_recruiting_needs_the_payment(impl):
    # tile 3: 5 gold; tile 4: 2 gold, 1 turquoise, 1 violet; tile 1: 3 gold, 1 violet
    park = {"c3": 2, "d3": 3, "c4": 0}
    for gold, rooms, legal in [
        (4, {OFFICE: 1}, []),
        (5, {OFFICE: 1}, ["c3"]),
        (5, {OFFICE: 1, MADAME: 1}, ["c3", "c4"]),
        (5, {OFFICE: 1, MADAME: 1, KING: 1}, ["c3", "d3", "c4"]),
        (2, {OFFICE: 1, MADAME: 1, KING: 1}, ["d3"]),
    ]:
        state = position(impl, rooms={0: rooms}, gold={0: gold}, park=park, stage=S_WINDOW4)
        kick(state)
        if legal:
            assert state.legal_actions() == [recruit(s) for s in legal] + [A_END]
        else:
            assert state.stage == S_WINDOW5


def test_each_recruitment_lowers_the_seals_left(impl):
    # KING 2, OFFICE 2: tile 8 (3 gold, 2 turquoise) then tile 2 (3 gold, 1 turquoise)
    state = position(impl, rooms={0: {KING: 2, OFFICE: 2}}, gold={0: 20},
                     park={"c3": 7, "d3": 1}, stage=S_WINDOW4)
    kick(state)
    assert state.legal_actions() == [recruit("c3"), recruit("d3"), A_END]
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.rooms[0][KING] == 0 and snap.rooms[0][OFFICE] == 1
    assert snap.gold[0] == 17
    # no turquoise seal left: tile 2 cannot be paid, the step ends by itself
    assert state.stage == S_WINDOW5
    assert snap.tile_at[sq("d3")] == 1


def test_seal_servants_return_to_the_play_area(impl):
    # tile 9: 3 gold, 2 violet
    state = position(impl, rooms={0: {MADAME: 3, OFFICE: 1}}, gold={0: 3}, park={"c3": 8},
                     stage=S_WINDOW4)
    area = state.snapshot().area[0]
    kick(state)
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.rooms[0][MADAME] == 1 and snap.rooms[0][OFFICE] == 0
    assert snap.area[0] == area + 3
    assert snap.gold[0] == 0


def test_several_recruitments_in_one_turn(impl):
    state = position(impl, rooms={0: {OFFICE: 3}}, gold={0: 15}, park={"a1": 2, "c3": 2 + 4},
                     stage=S_WINDOW4)
    kick(state)
    state.apply(recruit("a1"))
    assert state.stage == S_RECRUIT
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.owner[2] == 0 and snap.owner[6] == 0 and snap.gold[0] == 4


@pytest.mark.parametrize("square, border", [("a1", True), ("f3", True), ("c6", True),
                                            ("a6", True), ("c3", False), ("e5", False)])
def test_border_tile_puts_a_park_servant(impl, square, border):
    state = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, park={square: 2},
                     stage=S_WINDOW4)
    area = state.snapshot().area[0]
    kick(state)
    state.apply(recruit(square))
    snap = state.snapshot()
    assert snap.park_servant[sq(square)] == (0 if border else -1)
    assert snap.area[0] == area + 1 - border        # OFFICE servant back, park servant out
    assert state.stage == S_WINDOW5                 # mandatory: no decision was asked


def test_park_servant_source_decision_when_the_play_area_is_empty(impl):
    # A LETTER recruits tile 3 (5 gold, no seals) on a1 with nothing in the play area.
    state = position(impl, rooms={0: {GATE: 1, MINT: 1, CARDINAL: 2}}, area={0: 0},
                     gold={0: 5}, park={"a1": 2}, stage=S_WINDOW4,
                     hands={0: {C_LETTER: 1, C_HONOUR: 1}})
    state.apply(play(C_LETTER))
    kick(state)
    state.apply(recruit("a1"))
    assert state.stage == S_SOURCE
    snap = state.snapshot()
    assert snap.source_for == SOURCE_PARK and snap.park_target == sq("a1")
    assert state.legal_actions() == [room(GATE), room(MINT), room(CARDINAL)]
    state.apply(room(CARDINAL))
    snap = state.snapshot()
    assert snap.park_servant[sq("a1")] == 0
    assert snap.rooms[0][CARDINAL] == 1
    assert state.stage == S_WINDOW5


def test_park_servant_from_the_only_room_by_itself(impl):
    state = position(impl, rooms={0: {MINT: 2}}, area={0: 0}, gold={0: 5}, park={"a1": 2},
                     stage=S_WINDOW4, hands={0: {C_LETTER: 1, C_HONOUR: 1}})
    state.apply(play(C_LETTER))
    kick(state)
    state.apply(recruit("a1"))
    snap = state.snapshot()
    assert snap.park_servant[sq("a1")] == 0 and snap.rooms[0][MINT] == 1
    assert state.stage == S_WINDOW5


def test_no_servant_anywhere_places_none_but_recruits(impl):
    # 18 servants already in the park, 7 in the general supply, none in rooms or play area
    servants = {square: 0 for square in range(12, 30)}
    state = position(impl, area={0: 0}, supply={0: 7}, park_servants=servants, gold={0: 5},
                     park={"a1": 2}, stage=S_WINDOW4, hands={0: {C_LETTER: 1, C_HONOUR: 1}})
    state.apply(play(C_LETTER))
    kick(state)
    state.apply(recruit("a1"))
    snap = state.snapshot()
    assert snap.owner[2] == 0
    assert snap.park_servant[sq("a1")] == -1
    assert state.stage == S_WINDOW5


def test_supply_privilege_acts_at_once_before_the_park_servant(impl):
    # Tile 27 (2 gold, 2/2 seals, SUPPLY 3) on a1, paid with seal cards and a LETTER, play
    # area empty: the 3 servants arrive first, so the park servant comes from the play area
    # with no source decision although two rooms hold servants.
    assert (tile(27).privilege, tile(27).amount) == (P_SUPPLY, 3)
    # 25 = 2 in rooms + 7 in the general supply + 16 in the park
    state = position(impl, rooms={0: {MINT: 1, CARDINAL: 1}}, area={0: 0}, supply={0: 7},
                     park_servants={square: 0 for square in range(18, 34)},
                     gold={0: 2}, park={"a1": 26}, stage=S_WINDOW4,
                     hands={0: {C_KINGSEAL: 2, C_MADAMESEAL: 2, C_LETTER: 1, C_HONOUR: 1}})
    for card in (C_KINGSEAL, C_KINGSEAL, C_MADAMESEAL, C_MADAMESEAL, C_LETTER):
        state.apply(play(card))
    kick(state)
    state.apply(recruit("a1"))
    snap = state.snapshot()
    assert state.stage == S_WINDOW5
    assert snap.supply[0] == 4
    assert snap.area[0] == 2                          # 3 in, 1 to the park
    assert snap.park_servant[sq("a1")] == 0
    assert snap.rooms[0][MINT] == 1 and snap.rooms[0][CARDINAL] == 1


@pytest.mark.parametrize("supply, moved", [(7, 5), (5, 5), (2, 2), (0, 0)])
def test_supply_privilege_is_limited_by_the_general_supply(impl, supply, moved):
    # tile 28: 4 gold, 1 turquoise, 2 violet, SUPPLY 5; on c3 (no park servant)
    assert (tile(28).privilege, tile(28).amount) == (P_SUPPLY, 5)
    state = position(impl, rooms={0: {OFFICE: 1, KING: 1, MADAME: 2}}, supply={0: supply},
                     gold={0: 4}, park={"c3": 27}, stage=S_WINDOW4)
    area = state.snapshot().area[0]
    kick(state)
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.supply[0] == supply - moved
    assert snap.area[0] == area + 4 + moved           # OFFICE + 3 seal servants + SUPPLY


# =======================================================================================
# §4 Privileges: from the next turn on, except CARDS (this turn) and FAVOUR (at once)

def privilege_position(impl, number, rooms=None, recruit_too=False):
    """Seat 1 at window 4, able to pay tile `number` (on c3) and then tile 3 (5 gold, on d4)
    with two OFFICE servants; `rooms` adds servants elsewhere."""
    t = tile(number)
    castle = {OFFICE: 2, KING: t.turquoise, MADAME: t.violet}
    castle.update(rooms or {})
    return position(impl, rooms={0: castle}, gold={0: t.gold + 5},
                    park={"c3": number - 1, "d4": 2}, stage=S_WINDOW4, hands=BOTH_STOP,
                    options=RuleOptions(end_trigger_tiles=0))


def recruit_then_next_turn(impl, number, rooms=None, recruit_it=True):
    """Seat 1 recruits tile `number` (or not), then both seats pass; returns the state at
    seat 1's next window 1."""
    state = privilege_position(impl, number, rooms)
    kick(state)
    state.apply(recruit("c3") if recruit_it else A_END)
    assert state.snapshot().owner[number - 1] == (0 if recruit_it else -1)
    finish_turn(state)
    finish_turn(state)
    assert state.to_move == 0 and state.stage == S_WINDOW1
    return state


@pytest.mark.parametrize("number", [29, 30])
def test_move_privilege_from_the_next_turn(impl, number):
    assert tile(number).privilege == P_MOVE
    for recruit_it, moves in ((True, 3), (False, 2)):
        state = recruit_then_next_turn(impl, number, {STAIRS: 1}, recruit_it)
        kick(state)
        assert state.stage == S_WINDOW2
        kick(state)
        assert state.snapshot().moves_left == moves


@pytest.mark.parametrize("number", [31, 32])
def test_reinforce_privilege_from_the_next_turn(impl, number):
    assert tile(number).privilege == P_REINFORCE
    for recruit_it, kmax in ((True, 3), (False, 2)):
        state = recruit_then_next_turn(impl, number, {PARADE: 1}, recruit_it)
        kick(state)
        assert state.legal_actions() == [gate(k) for k in range(kmax + 1)]


@pytest.mark.parametrize("number, pool", [(33, "turq"), (34, "turq"), (35, "viol"),
                                          (36, "viol"), (37, "rec"), (38, "rec")])
def test_step4_privileges_act_from_the_next_turn(impl, number, pool):
    assert tile(number).privilege == {"turq": P_TURQUOISE, "viol": P_VIOLET,
                                      "rec": P_SECRETARY}[pool]
    # In the turn it is recruited the pool stays empty (tile 3 is still to be recruited).
    state = privilege_position(impl, number)
    kick(state)
    state.apply(recruit("c3"))
    assert state.stage == S_RECRUIT
    assert getattr(state.snapshot(), pool) == 0
    # From the next turn on the pool holds 1 at step 4.
    for recruit_it, expected in ((True, 1), (False, 0)):
        state = recruit_then_next_turn(impl, number, recruit_it=recruit_it)
        run_until(state, S_WINDOW4)        # passing: continue, decline the bonuses
        kick(state)
        assert state.stage == S_RECRUIT
        assert getattr(state.snapshot(), pool) == expected


def test_owned_secretary_recruits_without_an_office_servant(impl):
    # tile 3 (5 gold) on c3; SECRETARY owned, no OFFICE servant
    state = position(impl, owned={36: 0}, gold={0: 5}, park={"c3": 2}, stage=S_WINDOW4)
    kick(state)
    assert state.snapshot().rec == 1
    assert state.legal_actions() == [recruit("c3"), A_END]


@pytest.mark.parametrize("owned, pool", [({32: 0}, "turq"), ({34: 0}, "viol"),
                                         ({32: 0, 33: 0}, "turq")])
def test_owned_seal_privileges_fill_the_step4_pool(impl, owned, pool):
    state = position(impl, owned=owned, rooms={0: {OFFICE: 1}}, gold={0: 9},
                     park={"c3": 1 if pool == "turq" else 0}, stage=S_WINDOW4)
    kick(state)
    assert getattr(state.snapshot(), pool) == len(owned)
    assert state.legal_actions() == [recruit("c3"), A_END]
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.owner[1 if pool == "turq" else 0] == 0     # paid with no KING/MADAME servant


def test_cards_privilege_already_draws_in_the_turn_it_was_recruited(impl):
    # tile 40: 4 gold, no seals, CARDS. No BACKDOOR servant: the one draw is the privilege's.
    assert tile(40).privilege == P_CARDS
    state = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 4}, park={"c3": 39},
                     stage=S_WINDOW4)
    kick(state)
    state.apply(recruit("c3"))
    assert state.stage == S_DRAW
    assert state.snapshot().draws_left == 1


def test_owned_income_pays_at_the_start_of_each_own_turn(impl):
    # tiles 25 (INCOME 2) and 26 (INCOME 1) owned; seat 2 ends his turn
    state = position(impl, owned={24: 0, 25: 0}, gold={0: 1}, to_move=1, stage=S_WINDOW5,
                     hands=BOTH_STOP)
    kick(state)
    assert state.to_move == 0 and state.stage == S_WINDOW1
    assert state.snapshot().gold == [4, 0]


# =======================================================================================
# §3 Step 5: drawing privilege cards (chance events)

def test_backdoor_draws_one_card_per_servant(impl):
    state = position(impl, rooms={0: {BACKDOOR: 2}}, stage=S_WINDOW4)
    kick(state)
    assert state.stage == S_DRAW and state.is_chance()
    assert state.current_player() == CHANCE
    assert state.snapshot().draws_left == 2
    pile = state.snapshot().deck
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [draw(c) for c in range(N_CARDS) if pile[c] > 0]
    for a, p in outcomes:
        assert p == pytest.approx(pile[a - draw(0)] / sum(pile))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.legal_actions() == [a for a, _ in outcomes]
    state.apply(draw(C_GOLD))
    assert state.stage == S_DRAW
    state.apply(draw(C_LETTER))
    snap = state.snapshot()
    assert state.stage == S_WINDOW5
    assert snap.hand[0][C_GOLD] == 1 and snap.hand[0][C_LETTER] == 1
    assert snap.hand[0][C_HONOUR] == 1 and snap.hand_size[0] == 3
    assert snap.deck[C_GOLD] == pile[C_GOLD] - 1 and snap.deck_size == sum(pile) - 2
    assert snap.drawn_n[0] == 1 + 2
    # a card just drawn can be played at the end-of-turn window
    assert play(C_GOLD) in state.legal_actions()


def test_cards_privilege_adds_a_draw(impl):
    state = position(impl, rooms={0: {BACKDOOR: 1}}, owned={38: 0, 39: 0}, stage=S_WINDOW4)
    kick(state)
    assert state.snapshot().draws_left == 3


def test_no_backdoor_no_draw(impl):
    state = position(impl, stage=S_WINDOW4)
    kick(state)
    assert state.stage == S_WINDOW5
    assert state.snapshot().hand_size[0] == 1


def test_draw_probabilities_follow_the_pile(impl):
    # pile: 3 GOLD, 1 MOVES, 4 KINGSEAL (everything else is in seat 2's hand)
    rest = {c: 4 for c in range(N_CARDS)}
    rest.update({C_GOLD: 1, C_MOVES: 3, C_KINGSEAL: 0, C_HONOUR: 3})
    state = position(impl, rooms={0: {BACKDOOR: 1}}, stage=S_WINDOW4,
                     hands={0: {C_HONOUR: 1}, 1: rest})
    kick(state)
    assert state.chance_outcomes() == [(draw(C_GOLD), 3 / 8), (draw(C_MOVES), 1 / 8),
                                       (draw(C_KINGSEAL), 4 / 8)]
    with pytest.raises(IllegalAction):
        state.apply(draw(C_LETTER))            # none left in the pile


def test_a_draw_is_a_chance_event_even_with_one_type_left(impl):
    rest = {c: 4 for c in range(1, N_CARDS)}
    rest[C_HONOUR] = 3
    state = position(impl, rooms={0: {BACKDOOR: 1}}, stage=S_WINDOW4,
                     hands={0: {C_HONOUR: 1}, 1: rest})
    kick(state)
    assert state.is_chance()
    assert state.chance_outcomes() == [(draw(C_GOLD), 1.0)]
    assert state.legal_actions() == [draw(C_GOLD)]


def test_empty_pile_is_reshuffled_from_the_discards_without_honours(impl):
    # Pile empty; discards: 2 GOLD, 1 MOVES; seat 2 has played 2 HONOURs (kept face up);
    # every other card is in a hand.
    rest = {c: 4 for c in range(N_CARDS)}
    rest.update({C_GOLD: 2, C_MOVES: 3, C_HONOUR: 1})
    state = position(impl, rooms={0: {BACKDOOR: 1}}, stage=S_WINDOW4,
                     hands={0: {C_HONOUR: 1}, 1: rest}, discard={C_GOLD: 2, C_MOVES: 1},
                     honours={1: 2})
    assert state.snapshot().deck_size == 0
    kick(state)
    assert state.is_chance()
    assert state.chance_outcomes() == [(draw(C_GOLD), 2 / 3), (draw(C_MOVES), 1 / 3)]
    snap = state.snapshot()
    assert snap.deck_size == 3 and snap.discard == [0] * N_CARDS
    assert snap.epoch == [2, 1] + [0] * (N_CARDS - 2)
    assert snap.honours == [0, 2]
    assert snap.drawn_n == [0, 0]
    state.apply(draw(C_MOVES))
    assert state.snapshot().deck_size == 2
    assert not accounting_errors(state.snapshot())


def test_reshuffle_between_two_draws(impl):
    # one card left in the pile, two draws: the second comes from the reshuffled discards
    rest = {c: 4 for c in range(N_CARDS)}
    rest.update({C_GOLD: 3, C_MOVES: 0, C_HONOUR: 3})
    state = position(impl, rooms={0: {BACKDOOR: 2}}, stage=S_WINDOW4,
                     hands={0: {C_HONOUR: 1}, 1: rest}, discard={C_MOVES: 4})
    kick(state)
    assert state.chance_outcomes() == [(draw(C_GOLD), 1.0)]
    state.apply(draw(C_GOLD))
    assert state.is_chance()
    assert state.chance_outcomes() == [(draw(C_MOVES), 1.0)]
    assert state.snapshot().deck_size == 4


def test_no_reshuffle_unless_a_card_must_be_drawn(impl):
    rest = {c: 4 for c in range(N_CARDS)}
    rest.update({C_GOLD: 2, C_HONOUR: 3})
    state = position(impl, stage=S_WINDOW4, hands={0: {C_HONOUR: 1}, 1: rest},
                     discard={C_GOLD: 2})
    kick(state)
    assert state.stage == S_WINDOW5
    assert state.snapshot().discard[C_GOLD] == 2 and state.snapshot().deck_size == 0


def test_no_draw_when_there_is_nothing_to_shuffle(impl):
    rest = {c: 4 for c in range(N_CARDS)}
    rest[C_HONOUR] = 1
    state = position(impl, rooms={0: {BACKDOOR: 2}}, stage=S_WINDOW4,
                     hands={0: {C_HONOUR: 1}, 1: rest}, honours={1: 2})
    kick(state)
    assert state.stage == S_WINDOW5
    snap = state.snapshot()
    assert snap.hand_size == [1, 33] and snap.deck_size == 0 and snap.draws_left == 0


# =======================================================================================
# §7 End of the game

def test_end_trigger_at_the_start_of_seat_1s_turn(impl):
    state = position(impl, park=twelve_tiles(), to_move=1, stage=S_WINDOW5, round=7,
                     hands=BOTH_STOP)
    kick(state)
    snap = state.snapshot()
    assert state.to_move == 0 and snap.round == 8 and snap.last_round == 1
    finish_turn(state)                 # seat 1's last turn
    assert state.to_move == 1 and not state.is_terminal()
    finish_turn(state)                 # seat 2's last turn: the round is complete
    assert state.is_terminal()
    assert state.stage == S_GAME_OVER
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    with pytest.raises(IllegalAction):
        state.apply(A_CONTINUE)


def test_no_end_trigger_with_thirteen_tiles(impl):
    park = twelve_tiles()
    park[20] = 30
    state = position(impl, park=park, to_move=1, stage=S_WINDOW5, hands=BOTH_STOP)
    kick(state)
    assert state.snapshot().last_round == 0
    finish_turn(state)
    finish_turn(state)
    assert not state.is_terminal() and state.to_move == 0


def test_end_trigger_is_checked_only_at_seat_1s_turn(impl):
    state = position(impl, park=twelve_tiles(), to_move=0, stage=S_WINDOW5, hands=BOTH_STOP)
    kick(state)
    assert state.to_move == 1 and state.snapshot().last_round == 0
    finish_turn(state)
    assert state.to_move == 0 and state.snapshot().last_round == 1


@pytest.mark.parametrize("n", [3, 4])
def test_the_last_round_completes(impl, n):
    hands = {q: {C_HONOUR: 1} for q in range(n)}
    state = position(impl, n, park=twelve_tiles(), to_move=n - 1, stage=S_WINDOW5,
                     hands=hands)
    kick(state)
    order = []
    while not state.is_terminal():
        order.append(state.to_move)
        finish_turn(state)
    assert order == list(range(n))


def test_recruiting_down_to_twelve_tiles_ends_only_after_the_next_round(impl):
    # seat 2 recruits the 13th tile in his turn: the game goes on into seat 1's turn, which
    # starts the last round.
    park = twelve_tiles()
    park[sq("c3")] = 2
    state = position(impl, park=park, rooms={1: {OFFICE: 1}}, gold={1: 5}, to_move=1,
                     stage=S_WINDOW4, hands=BOTH_STOP)
    kick(state)
    state.apply(recruit("c3"))
    assert state.tiles_in_park() == 12
    finish_turn(state)
    assert not state.is_terminal() and state.to_move == 0
    assert state.snapshot().last_round == 1
    finish_turn(state)
    finish_turn(state)
    assert state.is_terminal()


@pytest.mark.parametrize("cap", [1, 3, 60])
def test_round_cap_ends_the_game(impl, cap):
    options = RuleOptions(round_cap=cap)
    state = position(impl, to_move=1, stage=S_WINDOW5, round=cap, hands=BOTH_STOP,
                     options=options)
    kick(state)
    assert state.is_terminal()
    if cap > 1:
        state = position(impl, to_move=1, stage=S_WINDOW5, round=cap - 1, hands=BOTH_STOP,
                         options=options)
        kick(state)
        assert not state.is_terminal() and state.snapshot().round == cap


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_random_game_stops_at_the_round_cap(impl, n):
    state = impl.new_game(n, seed=21, options=RuleOptions(round_cap=3))
    rng = Rng(5)
    while not state.is_terminal():
        state.apply(random_action(state, rng))
    snap = state.snapshot()
    assert snap.round == 3 and state.tiles_in_park() > 12 and snap.last_round == 0


# =======================================================================================
# §7 Final scoring

def test_scoring_tiles_honours_and_hand(impl):
    # seat 1: tiles 21 (10 VP) + 25 (3 VP), 2 HONOURs played, 3 cards in hand
    # seat 2: tile 40 (1 VP), 8 cards in hand (counts 6)
    state = position(impl, owned={20: 0, 24: 0, 39: 1}, honours={0: 2},
                     hands={0: {C_GOLD: 2, C_MOVES: 1}, 1: {C_GUARDS: 4, C_LETTER: 4}})
    assert state.scores() == [10 + 3 + 2 * 3 + 3, 1 + 6]


# park scoring: squares of each side. rank 1 = a1..f1, rank 6 = a6..f6, file a, file f
@pytest.mark.parametrize("n, servants, expected", [
    # one player alone on a side: 8
    (2, {"c1": 0}, [8, 0]),
    # a corner counts for both of its sides
    (2, {"a1": 0}, [16, 0]),
    (2, {"f6": 1}, [0, 16]),
    # most and second most
    (2, {"b1": 0, "c1": 0, "d1": 1}, [8, 4]),
    # two tied for first: (8 + 4) / 2 = 6 each; the next is third and scores nothing
    (3, {"b6": 0, "c6": 0, "d6": 1, "e6": 1, "f6": 2}, [6, 6, 8]),   # f6 also wins file f
    (3, {"b6": 0, "c6": 0, "d6": 1, "e6": 1, "c3": 2}, [6, 6, 0]),
    # three tied for first: 4 each
    (4, {"a2": 0, "a3": 1, "a4": 2}, [4, 4, 4, 0]),
    # two tied for second: 4 / 2 = 2 each
    (3, {"f2": 0, "f3": 0, "f4": 1, "f5": 2}, [8, 2, 2]),
    (4, {"f2": 0, "f3": 0, "f4": 1, "f5": 2}, [8, 2, 2, 0]),
    # no servant on a side: nothing; a servant inside the park (not on a side): nothing
    (2, {"c3": 0, "d4": 1}, [0, 0]),
    # four sides at once
    (2, {"a1": 0, "f1": 1, "a6": 1, "f6": 0, "c1": 0}, [8 + 6 + 6 + 6, 4 + 6 + 6 + 6]),
])
def test_park_scoring(impl, n, servants, expected):
    state = position(impl, n, park={}, park_servants={sq(s): q for s, q in servants.items()},
                     hands={}, stage=S_GAME_OVER)
    assert state.scores() == expected


def test_park_points_are_per_side_component_data(impl):
    comps = with_tiles({}, park_points={"rank1": [10, 5], "rank6": [8, 4], "fileA": [2, 1],
                                        "fileF": [8, 0]})
    state = position(impl, components=comps, park={},
                     park_servants={sq("a1"): 0, sq("b1"): 1, sq("c1"): 1, sq("f2"): 1,
                                    sq("f3"): 0, sq("f4"): 0},
                     hands={}, stage=S_GAME_OVER)
    # rank 1: seat 2 (2) 10, seat 1 (1) 5; file a: seat 1 alone 2; file f: seat 1 (2) 8,
    # seat 2 (1) 0
    assert state.scores() == [5 + 2 + 8, 10 + 0]


@pytest.mark.parametrize("owned, gold, expected", [
    ({20: 0}, {0: 0, 1: 9}, [1.0, 0.0]),           # most VP wins
    ({20: 0, 21: 1}, {0: 1, 1: 2}, [0.0, 1.0]),    # tied VP: most gold
    ({20: 0, 21: 1}, {0: 3, 1: 3}, [0.5, 0.5]),    # tied VP and gold: shared
])
def test_winner(impl, owned, gold, expected):
    state = position(impl, owned=owned, gold=gold, hands={}, stage=S_GAME_OVER)
    assert state.returns() == expected


def test_winner_shared_among_three(impl):
    # seats 1 and 2: a 10-VP tile each; seat 3: 3 HONOURs and 1 card in hand; seat 4: 3 VP
    assert tile(21).vp == tile(22).vp == 10 and tile(3).vp == 3
    build = dict(owned={20: 0, 21: 1, 2: 3}, honours={2: 3}, hands={2: {C_GOLD: 1}},
                 stage=S_GAME_OVER)
    state = position(impl, 4, gold={0: 1, 1: 1, 2: 1, 3: 5}, **build)
    assert state.scores() == [10, 10, 10, 3]
    assert state.returns() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
    state = position(impl, 4, gold={0: 1, 1: 1, 2: 2}, **build)
    assert state.returns() == [0.0, 0.0, 1.0, 0.0]


# =======================================================================================
# Rule options (engine.options.RuleOptions): each one changes what it says

def test_option_end_trigger_tiles(impl):
    park = {s: s for s in range(20)}
    for trigger, ends in ((20, True), (19, False)):
        state = position(impl, park=park, to_move=1, stage=S_WINDOW5, hands=BOTH_STOP,
                         options=RuleOptions(end_trigger_tiles=trigger))
        kick(state)
        assert state.snapshot().last_round == ends


def test_option_room_fallback_off(impl):
    off = RuleOptions(room_fallback=False)
    # KING bonus: play area empty, a servant in CARDINAL: not offered
    state = position(impl, rooms={0: {KING: 1, CARDINAL: 1}}, area={0: 0}, stage=S_WINDOW3,
                     options=off)
    kick(state)
    assert state.stage == S_WINDOW4
    # park servant: none placed, no decision
    state = position(impl, rooms={0: {MINT: 1, CARDINAL: 1}}, area={0: 0}, gold={0: 5},
                     park={"a1": 2}, stage=S_WINDOW4, hands={0: {C_LETTER: 1, C_HONOUR: 1}},
                     options=off)
    state.apply(play(C_LETTER))
    kick(state)
    state.apply(recruit("a1"))
    assert state.stage == S_WINDOW5
    snap = state.snapshot()
    assert snap.park_servant[sq("a1")] == -1 and snap.rooms[0][MINT] == 1
    # ... but with a servant in the play area it is placed as usual
    state = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, park={"a1": 2},
                     stage=S_WINDOW4, options=off)
    kick(state)
    state.apply(recruit("a1"))
    assert state.snapshot().park_servant[sq("a1")] == 0
    # step 1 still takes servants from other rooms (that fallback is sourced, not an option)
    state = position(impl, rooms={0: {PARADE: 1, MINT: 1, KING: 1}}, area={0: 0}, options=off)
    kick(state)
    state.apply(gate(2))
    assert state.stage == S_SOURCE


@pytest.mark.parametrize("cap, hand, points", [(6, 8, 6), (6, 5, 5), (2, 5, 2), (0, 5, 0),
                                               (10, 8, 8)])
def test_option_hand_vp_cap(impl, cap, hand, points):
    state = position(impl, hands={0: {C_GOLD: 4, C_MOVES: hand - 4} if hand > 4 else {C_GOLD: hand}},
                     options=RuleOptions(hand_vp_cap=cap))
    assert state.scores()[0] == points


@pytest.mark.parametrize("vp", [0, 3, 5])
def test_option_honour_vp(impl, vp):
    state = position(impl, honours={0: 2, 1: 1}, hands={}, options=RuleOptions(honour_vp=vp),
                     stage=S_GAME_OVER)
    assert state.scores() == [2 * vp, vp]


def test_option_setup_on_gate_default_allows_the_gate(impl):
    state = impl.new_game(2, seed=0)
    assert room(GATE) in state.legal_actions()
    state.apply(room(GATE))
    assert state.snapshot().rooms[0][GATE] == 1


def test_positions_from_snapshots_keep_their_stage(impl):
    # from_snapshot runs no automatic step (the helpers rely on it) ...
    snap = build_snapshot(impl, stage=S_WINDOW1)
    assert impl.from_snapshot(snap).snapshot() == snap
    # ... and refuses a stage where one is due, where the game never waits
    snap = build_snapshot(impl, stage=S_TURN_START, hands={})
    with pytest.raises(SnapshotError, match="'stage': the game does not wait at TURN_START"):
        impl.from_snapshot(snap)
