"""play/explain.py: the words beside a hinted turn say what the turn changes, and only that.

Positions come from tests/helpers.py (every room empty unless named, the seat to move holding
one HONOUR so each of its card windows is a decision, first-game layout):

    row 1 (park side):  BACKDOOR  OFFICE  CARDINAL
    row 2:              MINT      GATE    MADAME
    row 3:              STAIRS    KING    PARADE

Seat 1 (index 0) plays; tile n is stored at index n - 1 (tile 25: 4 gold, 2 turquoise, 3 VP,
INCOME(2); tile 3: 5 gold, 3 VP).
"""

import re

import pytest

from engine.constants import (
    A_CONTINUE, A_DECLINE, A_END, A_TAKE, BACKDOOR, CARDINAL, CARDS, C_GOLD, C_GUARDS, C_HONOUR,
    C_INTRIGUE, C_MOVES, KING, MADAME, MINT, OFFICE, PARADE, PRIVILEGES, ROOMS, STAIRS,
    S_WINDOW1, S_WINDOW2,
    S_WINDOW4,
)
from engine.notation import parse_turn
from engine.random_play import random_action
from engine.rng import Rng
from engine.state import State
from play.explain import explain, turn_changes

from helpers import gate, move, play, position, recruit

T25, T3 = 24, 2
HIDDEN = {1: {C_GOLD: 2, C_MOVES: 1}}      # seat 2's cards: hidden in seat 1's view


def words(state, actions, seat=0):
    """turn_changes, checked to say the same on the seat's view."""
    out = turn_changes(state, actions, seat)
    assert turn_changes(state.view(seat), actions, seat) == out
    return out


def has(phrases, part):
    return any(part in p for p in phrases)


# ---------------------------------------------------------------------------------- nobles

def test_a_recruitment_names_the_tile_its_vp_and_privilege(impl):
    s = position(impl, rooms={0: {OFFICE: 1, KING: 2}}, gold={0: 5}, tiles={"c3": T25},
                 stage=S_WINDOW4)
    out = words(s, [A_CONTINUE, recruit("c3")])
    assert out[0] == "recruits noble 25 (3 VP, Income(2))"
    assert "spends 4 gold" in out
    assert "spends 2 turquoise seals" in out
    assert "loses the majority in the King's Chamber" in out    # the seals were its two KING servants
    assert not has(out, "side of the park")             # c3 is not on the border


def test_two_recruitments_add_their_vp_and_skip_no_privilege(impl):
    s = position(impl, rooms={0: {OFFICE: 2, KING: 2}}, gold={0: 9},
                 tiles={"c3": T25, "d3": T3}, stage=S_WINDOW4)
    out = words(s, [A_CONTINUE, recruit("d3"), recruit("c3")])
    assert out[0] == "recruits nobles 3 and 25 (6 VP, Income(2))"   # in the order recruited
    assert "spends 9 gold" in out
    out = words(s, [A_CONTINUE, recruit("d3"), A_END])
    assert out[0] == "recruits noble 3 (3 VP)"                       # NONE is not named
    assert "spends 5 gold" in out and not has(out, "seal")


def test_no_recruitment_no_recruit_phrase(impl):
    s = position(impl, rooms={0: {OFFICE: 1, KING: 2}}, gold={0: 5}, tiles={"c3": T25},
                 stage=S_WINDOW4)
    out = words(s, [A_CONTINUE, A_END])
    assert out == ["no change on the board"]
    assert explain(s, [A_CONTINUE, A_END], 0) == "No change on the board."


# ------------------------------------------------------------------------------ majorities

def test_a_majority_taken_names_who_held_it(impl):
    # STAIRS 3/3 (3 moves), MINT 0/1: two servants to MINT take it from seat 2.
    s = position(impl, rooms={0: {STAIRS: 3}, 1: {STAIRS: 3, MINT: 1}}, stage=S_WINDOW2)
    out = words(s, [A_CONTINUE, move(STAIRS, MINT), move(STAIRS, MINT), A_END])
    assert "takes the majority in the Mint from seat 2" in out
    assert "hands seat 2 the majority in the Stairway" in out   # 1 against 3 left behind
    assert not has(out, "loses")
    # One servant only draws level: nobody has the majority in a tie without the Cardinal.
    out = words(s, [A_CONTINUE, move(STAIRS, MINT), A_END])
    assert "draws level in the Mint (1 each)" in out
    assert "breaks seat 2's majority in the Mint" in out
    assert not has(out, "takes the majority")


def test_a_majority_lost(impl):
    # MINT 2/1: one servant away leaves a tie, and nobody has the Cardinal.
    s = position(impl, rooms={0: {STAIRS: 1, MINT: 2}, 1: {MINT: 1}}, stage=S_WINDOW2)
    out = words(s, [A_CONTINUE, move(MINT, STAIRS), A_END])
    assert out == ["loses the majority in the Mint"]
    # With the Cardinal the tie is still his: nothing lost.
    s = position(impl, rooms={0: {STAIRS: 1, MINT: 2, CARDINAL: 1}, 1: {MINT: 1}},
                 stage=S_WINDOW2)
    out = words(s, [A_CONTINUE, move(MINT, STAIRS), A_END])
    assert not has(out, "majority")


def test_no_move_no_majority_phrase(impl):
    s = position(impl, rooms={0: {STAIRS: 1, MINT: 2}, 1: {MINT: 1}}, stage=S_WINDOW2)
    assert words(s, [A_CONTINUE, A_END]) == ["no change on the board"]


def test_an_intrigue_wins_ties_this_turn_only(impl):
    # MINT 1/1: the INTRIGUE gives the bonus gold now, but no lasting majority.
    s = position(impl, rooms={0: {MINT: 1}, 1: {MINT: 1}},
                 hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}}, stage=S_WINDOW1)
    out = words(s, [play(C_INTRIGUE), A_CONTINUE, A_CONTINUE, A_CONTINUE])
    assert out == ["+2 gold", "plays Intrigue"]


def test_a_turn_stopped_at_a_bonus_only_the_intrigue_gives_is_explained(impl):
    # KING 1/1: the INTRIGUE gives the KING bonus now, and the turn stops there. The lasting
    # majorities are judged without the INTRIGUE, where the game would not wait at the bonus.
    s = position(impl, rooms={0: {KING: 1}, 1: {KING: 1}},
                 hands={0: {C_INTRIGUE: 1, C_HONOUR: 1}}, stage=S_WINDOW1)
    out = words(s, [play(C_INTRIGUE), A_CONTINUE, A_CONTINUE, A_CONTINUE])
    assert out == ["plays Intrigue"]


# ------------------------------------------------------------------------- gold and seals

def test_gold_is_the_net_change(impl):
    s = position(impl, rooms={0: {STAIRS: 1, MINT: 2}, 1: {MINT: 1}}, stage=S_WINDOW2)
    assert "+3 gold" in words(s, [A_CONTINUE, A_END, A_CONTINUE])             # 2 + majority
    out = words(s, [A_CONTINUE, move(MINT, STAIRS), A_END, A_CONTINUE])        # 1, tied
    assert "+1 gold" in out and not has(out, "+3 gold")
    # Treasury +3 and recruiting for 5: net -2, said as spending.
    s = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, tiles={"c3": T3},
                 hands={0: {C_GOLD: 1, C_HONOUR: 1}}, stage=S_WINDOW4)
    out = words(s, [play(C_GOLD), A_CONTINUE, recruit("c3")])
    assert "spends 2 gold" in out and "plays Treasury" in out


def test_seals_and_the_king_bonus(impl):
    # KING 1/0: the majority lets him add one servant there (one more turquoise seal).
    s = position(impl, rooms={0: {KING: 1, MADAME: 1}}, stage=S_WINDOW1)
    turn = [A_CONTINUE, A_CONTINUE, A_CONTINUE, A_TAKE, A_DECLINE]
    out = words(s, turn)
    assert "gains 1 turquoise seal (King's Chamber bonus)" in out
    assert not has(out, "violet")
    out = words(s, [A_CONTINUE, A_CONTINUE, A_CONTINUE, A_DECLINE, A_TAKE])
    assert "gains 1 violet seal (Madame de Pompadour bonus)" in out and not has(out, "turquoise")
    # Moving out of KING gives a seal up (nothing recruited with it).
    s = position(impl, rooms={0: {KING: 1, STAIRS: 1}}, stage=S_WINDOW2)
    out = words(s, [A_CONTINUE, move(KING, STAIRS), A_END])
    assert out == ["loses the majority in the King's Chamber", "gives up 1 turquoise seal"]


def test_moves_that_change_nothing_else_are_listed(impl):
    # MINT 1/2, BACKDOOR 0/0: no majority moves, no seal, no gold, no card yet.
    s = position(impl, rooms={0: {MINT: 1, STAIRS: 1}, 1: {MINT: 2}}, stage=S_WINDOW2)
    out = words(s, [A_CONTINUE, move(MINT, BACKDOOR), A_END])
    assert out == ["moves servants (Mint -1, Back Door +1)"]


# ---------------------------------------------------------------------------------- cards

def test_cards_played_are_named(impl):
    s = position(impl, rooms={0: {PARADE: 1}}, hands={0: {C_GUARDS: 1, C_HONOUR: 1}, **HIDDEN},
                 stage=S_WINDOW1)
    out = words(s, [play(C_GUARDS), A_CONTINUE, gate(3)])
    assert out == ["plays Guards", "puts 3 servants on the Gate"]
    out = words(s, [play(C_GUARDS), play(C_HONOUR), gate(1)])
    assert "plays Guards, Honour (+3 VP)" in out
    out = words(s, [A_CONTINUE, gate(1)])
    assert not has(out, "plays")


def test_cards_drawn_include_the_draw_still_to_come(impl):
    s = position(impl, rooms={0: {BACKDOOR: 2}}, hands={0: {C_HONOUR: 1}, **HIDDEN},
                 stage=S_WINDOW1)
    assert words(s, [A_CONTINUE] * 4) == ["draws 2 cards"]      # stops at the chance node


# ----------------------------------------------------------------------------- park sides

def test_a_park_side_contested_and_taken(impl):
    # a1 is a corner: rank 1 (seat 2 already on b1) and file a (nobody).
    s = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, tiles={"a1": T3},
                 park_servants={"b1": 1}, stage=S_WINDOW4)
    out = words(s, [A_CONTINUE, recruit("a1")])
    assert "contests the rank-1 side of the park (1 servant vs 1)" in out
    assert "takes the file-a side of the park (1 servant vs 0)" in out
    assert not has(out, "rank-6") and not has(out, "file-f")
    # The far corner f6: two sides taken alike are said together.
    s = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, tiles={"f6": T3}, stage=S_WINDOW4)
    out = words(s, [A_CONTINUE, recruit("f6")])
    assert "takes the rank-6 and file-f sides of the park (1 servant vs 0)" in out


def test_a_park_side_already_led_is_held(impl):
    s = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, tiles={"c1": T3},
                 park_servants={"b1": 0}, stage=S_WINDOW4)
    out = words(s, [A_CONTINUE, recruit("c1")])
    assert "holds the rank-1 side of the park (2 servants vs 0)" in out


def test_an_inner_square_contests_no_side(impl):
    s = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 5}, tiles={"c3": T3},
                 park_servants={"b1": 1}, stage=S_WINDOW4)
    assert not has(words(s, [A_CONTINUE, recruit("c3")]), "side")


# --------------------------------------------------------------------------------- the API

def test_explain_is_one_sentence():
    s = position(State, rooms={0: {OFFICE: 1, KING: 2}}, gold={0: 5}, tiles={"c3": T25},
                 stage=S_WINDOW4)
    assert explain(s, [A_CONTINUE, recruit("c3")], 0) == (
        "Recruits noble 25 (3 VP, Income(2)); loses the majority in the King's Chamber; "
        "spends 4 gold; spends 2 turquoise seals.")


def test_the_state_is_not_changed():
    s = position(State, rooms={0: {OFFICE: 1, KING: 2}}, gold={0: 5}, tiles={"c3": T25},
                 stage=S_WINDOW4)
    before = s.snapshot()
    turn_changes(s, [A_CONTINUE, recruit("c3")], 0)
    assert s.snapshot() == before


def test_an_illegal_action_raises_and_names_it(impl):
    s = position(impl, rooms={0: {OFFICE: 1}}, gold={0: 2}, tiles={"c3": T3}, stage=S_WINDOW4)
    with pytest.raises(ValueError, match=r"action 2 \(c3\) is not legal"):
        turn_changes(s, [A_CONTINUE, recruit("c3")], 0)           # 5 gold needed
    # A move at the end-of-turn card window.
    with pytest.raises(ValueError, match=r"action 2 \(MINT-KING\)"):
        turn_changes(s, parse_turn("continue MINT-KING"), 0)
    with pytest.raises(ValueError, match="not seat 2's turn"):
        turn_changes(s, [A_CONTINUE], 1)


def test_actions_past_the_turn_are_refused(impl):
    # Seat 2 has no decision at all, so a whole round passes after seat 1's last window.
    s = position(impl, stage=S_WINDOW1)
    assert turn_changes(s, [A_CONTINUE] * 5, 0) == ["no change on the board"]
    with pytest.raises(ValueError, match=r"action 6 \(continue\) comes after seat 1's turn"):
        turn_changes(s, [A_CONTINUE] * 6, 0)


@pytest.mark.parametrize("seed", range(8))
def test_random_turns_read_the_same_on_the_view(seed):
    """Whole random turns mid-game: the seat's view explains them exactly as the full state."""
    rng = Rng(seed)
    s = State.new_game(3, seed=seed)
    while s.round < 3 + seed % 3 and not s.is_terminal():
        s.apply(random_action(s, rng))
    seat, start, turn = s.to_move, s.copy(), []
    before = start.snapshot()
    while (not s.is_terminal() and not s.is_chance()
           and (s.round, s.to_move) == (start.round, seat)):
        a = random_action(s, rng)
        turn.append(a)
        s.apply(a)
    out = turn_changes(start, turn, seat)
    assert out and all(isinstance(p, str) and p for p in out)
    assert turn_changes(start.view(seat), turn, seat) == out
    assert start.snapshot() == before


CODES = re.compile(r"\b(" + "|".join(sorted({*ROOMS, *CARDS, *PRIVILEGES}, key=len, reverse=True))
                   + r")\b")


@pytest.mark.parametrize("seed", range(4))
def test_english_names_the_pieces_never_their_codes(seed):
    """Every turn of random games, setup included: no room, card or privilege code (HONOUR,
    MINT, MADAMESEAL, TURQUOISE) in the English words; the board's names instead."""
    rng = Rng(seed)
    s = State.new_game(2 + seed % 3, seed=seed)
    said = []
    while not s.is_terminal() and s.round < 12:
        if s.is_chance():
            s.apply(random_action(s, rng))
            continue
        seat, start, turn = s.to_move, s.copy(), []
        while (not s.is_terminal() and not s.is_chance()
               and (s.round, s.to_move) == (start.round, seat)):
            turn.append(random_action(s, rng))
            s.apply(turn[-1])
        text = explain(start, turn, seat)
        assert not CODES.search(text), text
        said.append(text)
    words = " ".join(said)
    assert len(said) > 15 and "Places " in words and "plays " in words and "the " in words
