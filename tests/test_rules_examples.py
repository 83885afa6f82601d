"""The worked examples of the rules (RULES.md §1, §3, §4, §5), against both implementations.

Each test builds the position of one example (tests/helpers.py: every room empty unless
named, the seat to move holds one HONOUR so each of his card windows is a decision, first-game
layout) and checks the numbers the rules give. Counts are written seat 1 / seat 2 / ...
(seat 1 is index 0).

    row 1 (park side):  BACKDOOR  OFFICE  CARDINAL
    row 2:              MINT      GATE    MADAME
    row 3:              STAIRS    KING    PARADE
"""

import pytest

from engine.constants import (
    A_CONTINUE, A_DECLINE, A_END, A_TAKE, CARDINAL, C_HONOUR, C_INTRIGUE, GATE, KING, MADAME,
    MINT, OFFICE, PARADE, P_FAVOUR, P_INCOME, STAIRS, S_KING_BONUS, S_MADAME_BONUS, S_MOVES,
    S_RECRUIT, S_STEP1, S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5,
)

from helpers import (
    finish_turn, gate, kick, move, play, position, recruit, sq, tile, with_tiles,
)

BOTH_STOP = {0: {C_HONOUR: 1}, 1: {C_HONOUR: 1}}


def gate_max_after_window1(state):
    """Close window 1 and return how many servants step 1 allows (0: no decision)."""
    kick(state)
    if state.stage == S_STEP1:
        assert state.legal_actions() == [gate(k) for k in range(state.snapshot().gate_max + 1)]
        return state.snapshot().gate_max
    assert state.stage == S_WINDOW2        # step 1 offered nothing, so it was skipped
    return 0


# ---------------------------------------------------------------------------------------
# Step 1: 3 servants on PARADE with the majority may put up to 4 on the GATE.
#
#            PARADE
#   seat 1:    3      <- majority (3 > 2): n = 3 + 1 = 4
#   seat 2:    2

def test_three_on_parade_with_majority_put_up_to_four_on_the_gate(impl):
    state = position(impl, rooms={0: {PARADE: 3}, 1: {PARADE: 2}})
    area = state.snapshot().area[0]
    kick(state)
    assert state.stage == S_STEP1
    assert state.snapshot().gate_max == 4
    assert state.legal_actions() == [gate(0), gate(1), gate(2), gate(3), gate(4)]
    state.apply(gate(4))
    snap = state.snapshot()
    assert snap.rooms[0][GATE] == 4
    assert snap.rooms[0][PARADE] == 3
    assert snap.area[0] == area - 4
    assert state.stage == S_WINDOW2


def test_three_on_parade_without_majority_put_up_to_three(impl):
    state = position(impl, rooms={0: {PARADE: 3}, 1: {PARADE: 4}})
    assert gate_max_after_window1(state) == 3


# ---------------------------------------------------------------------------------------
# Step 2: 4 servants on STAIRS with the majority give 5 moves.

def test_four_on_stairs_with_majority_give_five_moves(impl):
    state = position(impl, rooms={0: {STAIRS: 4}, 1: {STAIRS: 3}}, stage=S_WINDOW2)
    kick(state)
    assert state.stage == S_MOVES
    assert state.snapshot().moves_left == 5
    # STAIRS is next to MINT and KING only (first-game layout).
    assert state.legal_actions() == [move(STAIRS, MINT), move(STAIRS, KING), A_END]
    for i in range(5):
        assert state.stage == S_MOVES, f"move {i + 1} of 5 not offered"
        state.apply(move(STAIRS, MINT) if i % 2 == 0 else move(MINT, STAIRS))
    # The fifth move used the last one up: the step ended by itself.
    assert state.stage == S_WINDOW3
    assert state.snapshot().rooms[0][STAIRS] == 3 and state.snapshot().rooms[0][MINT] == 1


def test_four_on_stairs_without_majority_give_four_moves(impl):
    state = position(impl, rooms={0: {STAIRS: 4}, 1: {STAIRS: 4}}, stage=S_WINDOW2)
    kick(state)
    assert state.snapshot().moves_left == 4


# ---------------------------------------------------------------------------------------
# Step 3a: 2 servants in MINT with the majority give 3 gold (automatically).

def test_two_in_mint_with_majority_give_three_gold(impl):
    state = position(impl, rooms={0: {MINT: 2}, 1: {MINT: 1}}, gold={0: 5}, stage=S_WINDOW3)
    kick(state)
    assert state.snapshot().gold[0] == 5 + 3
    assert state.snapshot().gold[1] == 0
    assert state.stage == S_WINDOW4      # MINT asked nothing; no KING/MADAME bonus to offer


def test_two_in_mint_without_majority_give_two_gold(impl):
    state = position(impl, rooms={0: {MINT: 2}, 1: {MINT: 2}}, stage=S_WINDOW3)
    kick(state)
    assert state.snapshot().gold[0] == 2


# ---------------------------------------------------------------------------------------
# Step 3b/4: 2 in KING and 3 in MADAME with both majorities. The bonuses let him put one
# more servant in each, so step 4 has 3 turquoise and 4 violet seals.
#
#            KING  MADAME  OFFICE
#   seat 1:    2      3       1
#   seat 2:    1      2       0
#
# The whole park (tile number: gold/turquoise/violet):  c3: test tile 3/4 (1 gold)   d3: 21 (5/3/0)
#                                             c4: 22 (5/0/3)              d4: 4 (2/1/1)
# The default set has no tile costing 4 violet seals, so tile 1 is changed into one.

SEALS_SET = with_tiles({1: {"gold": 1, "turquoise": 3, "violet": 4}})
SEALS_PARK = {"c3": 0, "d3": 20, "c4": 21, "d4": 3}


def seals_position(impl):
    return position(impl, components=SEALS_SET, rooms={0: {KING: 2, MADAME: 3, OFFICE: 1},
                                                        1: {KING: 1, MADAME: 2}},
                    gold={0: 20}, park=SEALS_PARK, stage=S_WINDOW3)


@pytest.mark.parametrize("take_king, take_madame, recruitable", [
    (True, True, ["c3", "d3", "c4", "d4"]),   # 3 turquoise, 4 violet: everything
    (True, False, ["d3", "c4", "d4"]),        # 3 turquoise, 3 violet: not the 4-violet tile
    (False, True, ["c4", "d4"]),              # 2 turquoise: neither 3-turquoise tile
    (False, False, ["c4", "d4"]),
])
def test_king_and_madame_bonuses_add_a_seal_each(impl, take_king, take_madame, recruitable):
    state = seals_position(impl)
    assert tile(1, SEALS_SET).violet == 4 and tile(21).turquoise == 3 and tile(22).violet == 3
    kick(state)
    assert state.stage == S_KING_BONUS
    assert state.legal_actions() == [A_TAKE, A_DECLINE]
    state.apply(A_TAKE if take_king else A_DECLINE)
    assert state.stage == S_MADAME_BONUS
    assert state.legal_actions() == [A_TAKE, A_DECLINE]
    state.apply(A_TAKE if take_madame else A_DECLINE)
    snap = state.snapshot()
    assert snap.rooms[0][KING] == 2 + take_king
    assert snap.rooms[0][MADAME] == 3 + take_madame
    assert state.stage == S_WINDOW4
    state.apply(A_CONTINUE)
    assert state.stage == S_RECRUIT
    squares = [sq(name) for name in sorted(recruitable, key=sq)]
    assert state.legal_actions() == [recruit(s) for s in squares] + [A_END]


def test_seven_seals_pay_for_the_four_violet_three_turquoise_tile(impl):
    state = seals_position(impl)
    kick(state)
    state.apply(A_TAKE)
    state.apply(A_TAKE)
    state.apply(A_CONTINUE)
    area = state.snapshot().area[0]
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.owner[0] == 0
    assert snap.rooms[0][KING] == 0 and snap.rooms[0][MADAME] == 0 and snap.rooms[0][OFFICE] == 0
    assert snap.area[0] == area + 3 + 4 + 1     # the seals and the OFFICE servant come back
    assert snap.gold[0] == 19


# ---------------------------------------------------------------------------------------
# Step 4 and privileges: the rulebook's own tile 25 (4 gold, 2 turquoise, 3 VP, +2 gold at
# the start of each later turn of its owner).
#
#            KING  OFFICE   gold
#   seat 1:    2      1       4          tile 25 on c3 (not on the border)

def test_tile_25_is_the_rulebook_example():
    t = tile(25)
    assert (t.gold, t.turquoise, t.violet, t.vp) == (4, 2, 0, 3)
    assert (t.privilege, t.amount) == (P_INCOME, 2)


def test_recruiting_tile_25(impl):
    state = position(impl, rooms={0: {KING: 2, OFFICE: 1}}, gold={0: 4}, hands=BOTH_STOP,
                     tiles={"c3": 24}, stage=S_WINDOW4)
    before = state.snapshot()
    kick(state)
    assert state.stage == S_RECRUIT
    assert recruit("c3") in state.legal_actions()
    state.apply(recruit("c3"))
    snap = state.snapshot()
    assert snap.owner[24] == 0
    assert snap.tile_at[sq("c3")] == -1
    assert snap.gold[0] == 0                                  # paid 4 gold
    assert snap.rooms[0][OFFICE] == 0 and snap.rooms[0][KING] == 0
    assert snap.area[0] == before.area[0] + 3                 # 1 OFFICE + 2 KING servants back
    assert snap.park_servant[sq("c3")] == -1                  # not a border square
    assert state.privileges(0)[P_INCOME] == 2
    # The rest of the turn: no income in the turn the tile was recruited...
    assert state.stage == S_WINDOW5
    assert state.snapshot().gold[0] == 0
    finish_turn(state)
    # ...nor in another player's turn...
    assert state.to_move == 1 and state.stage == S_WINDOW1
    assert state.snapshot().gold[0] == 0
    finish_turn(state)
    # ...but at the start of each of his own later turns.
    assert state.to_move == 0 and state.stage == S_WINDOW1
    assert state.snapshot().gold[0] == 2
    finish_turn(state)
    finish_turn(state)
    assert state.to_move == 0 and state.snapshot().gold[0] == 4


# ---------------------------------------------------------------------------------------
# Majority and the Cardinal (RULES.md §3). PARADE shows the majority as the step-1 bonus.

@pytest.mark.parametrize("rooms, majority", [
    # tie broken by the Cardinal
    ({0: {PARADE: 2, CARDINAL: 1}, 1: {PARADE: 2}}, True),
    ({0: {PARADE: 2}, 1: {PARADE: 2, CARDINAL: 1}}, False),
    # tie with equal Cardinal weights: nobody has it
    ({0: {PARADE: 2, CARDINAL: 1}, 1: {PARADE: 2, CARDINAL: 1}}, False),
    # tie with Cardinal weight 0 all round: nobody has it
    ({0: {PARADE: 2}, 1: {PARADE: 2}}, False),
    # no tie: the Cardinal does not matter
    ({0: {PARADE: 3}, 1: {PARADE: 2, CARDINAL: 5}}, True),
    ({0: {PARADE: 1, CARDINAL: 5}, 1: {PARADE: 2}}, False),
])
def test_majority_ties_and_the_cardinal(impl, rooms, majority):
    state = position(impl, rooms=rooms)
    assert state.has_majority(0, PARADE) is majority
    assert gate_max_after_window1(state) == rooms[0][PARADE] + majority


@pytest.mark.parametrize("rooms, majority", [
    # weight 2 beats both tied players (1 and 0); seat 3 is not tied, its weight is ignored
    ({0: {PARADE: 2, CARDINAL: 2}, 1: {PARADE: 2, CARDINAL: 1}, 2: {PARADE: 2},
      3: {PARADE: 1, CARDINAL: 6}}, True),
    # greater than one tied player is not enough: it must beat every tied player
    ({0: {PARADE: 2, CARDINAL: 2}, 1: {PARADE: 2}, 2: {PARADE: 2, CARDINAL: 3}}, False),
    ({0: {PARADE: 2, CARDINAL: 2}, 1: {PARADE: 2}, 2: {PARADE: 2, CARDINAL: 2}}, False),
])
def test_majority_ties_among_several_players(impl, rooms, majority):
    state = position(impl, n=4, rooms=rooms)
    assert state.has_majority(0, PARADE) is majority
    assert gate_max_after_window1(state) == 2 + majority


def test_favour_counts_two_on_the_cardinal(impl):
    # seat 1 holds a FAVOUR tile (weight 2) against seat 2's 1 servant on CARDINAL: seat 1
    # wins the tie; against 2 servants the weights are equal and nobody wins.
    favour = 40
    assert tile(41).privilege == P_FAVOUR
    state = position(impl, rooms={0: {PARADE: 2}, 1: {PARADE: 2, CARDINAL: 1}},
                     owned={favour: 0})
    assert state.has_majority(0, PARADE)
    assert gate_max_after_window1(state) == 3
    state = position(impl, rooms={0: {PARADE: 2}, 1: {PARADE: 2, CARDINAL: 2}},
                     owned={favour: 0})
    assert not state.has_majority(0, PARADE)
    assert not state.has_majority(1, PARADE)
    assert gate_max_after_window1(state) == 2


@pytest.mark.parametrize("recruit_it", [True, False])
def test_favour_counts_at_once_also_in_other_players_turns(impl, recruit_it):
    # Seat 1 recruits tile 41 (2 gold, 1 turquoise, FAVOUR) in his step 4. In seat 2's very
    # next turn the FAVOUR already counts: seat 2 (1 on CARDINAL) no longer wins the PARADE
    # tie against seat 1's weight 2.
    state = position(impl, rooms={0: {PARADE: 2, KING: 1, OFFICE: 1},
                                  1: {PARADE: 2, CARDINAL: 1}},
                     gold={0: 2}, tiles={"c3": 40}, hands=BOTH_STOP, stage=S_WINDOW4)
    kick(state)
    state.apply(recruit("c3") if recruit_it else A_END)
    assert state.privileges(0)[P_FAVOUR] == (1 if recruit_it else 0)
    finish_turn(state)
    assert state.to_move == 1 and state.stage == S_WINDOW1
    assert state.has_majority(1, PARADE) is (not recruit_it)
    assert gate_max_after_window1(state) == (2 if recruit_it else 3)


def test_intrigue_wins_ties(impl):
    # Seat 2 would win the tie with the Cardinal; seat 1 plays INTRIGUE and wins it instead.
    rooms = {0: {PARADE: 2}, 1: {PARADE: 2, CARDINAL: 3}}
    hand = {0: {C_INTRIGUE: 1, C_HONOUR: 1}}
    state = position(impl, rooms=rooms, hands=hand)
    assert not state.has_majority(0, PARADE)
    state.apply(play(C_INTRIGUE))
    assert state.snapshot().intrigue == 1
    assert state.has_majority(0, PARADE)
    assert gate_max_after_window1(state) == 3
    # without it, no bonus
    assert gate_max_after_window1(position(impl, rooms=rooms, hands=hand)) == 2


def test_intrigue_does_not_beat_more_servants(impl):
    state = position(impl, rooms={0: {PARADE: 1}, 1: {PARADE: 2}},
                     hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}})
    state.apply(play(C_INTRIGUE))
    assert not state.has_majority(0, PARADE)
    assert gate_max_after_window1(state) == 1


def test_intrigue_lasts_the_whole_turn_and_only_that_turn(impl):
    # Played at window 1, it still wins the MINT tie in step 3; it is gone in the next turn.
    state = position(impl, rooms={0: {MINT: 1}, 1: {MINT: 1}},
                     hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}, 1: {C_HONOUR: 1}})
    state.apply(play(C_INTRIGUE))
    kick(state)                      # window 1 -> (no step 1) -> window 2
    assert state.stage == S_WINDOW2
    kick(state)                      # -> (no moves) -> window 3
    assert state.stage == S_WINDOW3
    kick(state)                      # -> MINT: 1 + majority
    assert state.snapshot().gold[0] == 2
    finish_turn(state)
    assert state.snapshot().intrigue == 0
    finish_turn(state)
    assert state.to_move == 0
    assert not state.has_majority(0, MINT)


def test_majority_needs_at_least_one_servant(impl):
    # Nobody in MINT: the empty room gives nobody the majority, even with INTRIGUE played or
    # every servant on the CARDINAL.
    state = position(impl, rooms={0: {CARDINAL: 5}}, hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}},
                     gold={0: 1})
    for r in range(9):
        assert not state.has_majority(0, r) or r == CARDINAL
        assert not state.has_majority(1, r)
    state.apply(play(C_INTRIGUE))
    assert not state.has_majority(0, MINT)
    assert not state.has_majority(0, PARADE)
    kick(state)
    assert state.stage == S_WINDOW2           # PARADE empty: no step-1 decision (0, not 1)
    kick(state)
    kick(state)
    assert state.snapshot().gold[0] == 1      # MINT empty: no +1 gold
