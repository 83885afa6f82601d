"""The terminal board of play/board.py: hidden cards stay hidden, the park and rooms are drawn
faithfully, colour is all-or-nothing, and every line fits in 100 columns."""

import io
import re

import click
import pytest

from engine.constants import A_DRAW, CARDS, ROOMS
from engine.determinize import weighted_pick
from engine.reference import ReferenceState
from engine.rng import Rng
from engine.state import State
from play.board import SEAT_MARK, WIDTH, cost_text, draw_board, privilege_text, want_color

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SEAT_LINE = re.compile(r"^[> ] ([A-D]) seat (\d)")


def step(state, rng):
    """One random legal action; a chance node draws a card type with the pile's odds."""
    if state.is_chance():
        state.apply(A_DRAW + weighted_pick(state.deck_counts(), rng))
    else:
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])


def play(n, seed, actions, impl=State):
    state = impl.new_game(n, seed=seed)
    rng = Rng(seed * 7919 + n)
    for _ in range(actions):
        if state.is_terminal():
            break
        step(state, rng)
    return state


def game_positions(n, seed, every=20):
    """Positions along one whole random game (decision points only, each a copy)."""
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    count = 0
    while not state.is_terminal():
        step(state, rng)
        count += 1
        if count % every == 0 and not state.is_chance():
            yield state.copy()
    yield state


def with_two_hands(n, seed):
    """(state, holders): the decision point of a random game where the most cards are held
    while at least two seats hold some, and the seats holding cards there."""
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    best, best_total = None, 0
    while not state.is_terminal():
        step(state, rng)
        sizes = state.snapshot().hand_size
        holders = [q for q in range(n) if sizes[q]]
        if not state.is_chance() and len(holders) >= 2 and sum(sizes) > best_total:
            best, best_total = (state.copy(), holders), sum(sizes)
    assert best is not None, "no position with two non-empty hands"
    return best


def seat_blocks(text):
    """Seat index -> that seat's lines in the player section."""
    blocks, current = {}, None
    for line in text.splitlines():
        m = SEAT_LINE.match(line)
        if m:
            current = int(m.group(2)) - 1
            assert SEAT_MARK[current] == m.group(1)
            blocks[current] = [line]
        elif current is not None and line.startswith("      "):
            blocks[current].append(line)
        else:
            current = None
    return {q: "\n".join(lines) for q, lines in blocks.items()}


def park_cells(text):
    """(rank 0..5, file 0..5) -> (first line, second line) of that park square, stripped."""
    lines = text.splitlines()
    cells = {}
    for i, line in enumerate(lines):
        m = re.match(r"^ ([1-6])  \|", line)
        if m:
            rank = int(m.group(1)) - 1
            tops, bottoms = line.split("|")[1:7], lines[i + 1].split("|")[1:7]
            for file in range(6):
                cells[rank, file] = (tops[file].strip(), bottoms[file].strip())
    return cells


def castle_counts(text, n):
    """Room name -> per-seat servant counts as drawn in the castle boxes."""
    lines = text.splitlines()
    out = {}
    for i, line in enumerate(lines):
        if re.match(r"^row [1-3] \|", line):
            names = [c.strip() for c in line.split("|")[1:4]]
            counts = [c.strip() for c in lines[i + 1].split("|")[1:4]]
            for name, drawn in zip(names, counts):
                tokens = drawn.split()
                assert [t[0] for t in tokens] == list(SEAT_MARK[:n])
                out[name] = [int(t[1:]) for t in tokens]
    return out


@pytest.mark.parametrize("n,seed", [(2, 11), (4, 5)])
def test_colour_is_all_or_nothing(n, seed):
    state = play(n, seed, 120)
    plain = draw_board(state, seat=0, color=False)
    coloured = draw_board(state, seat=0, color=True)
    assert "\x1b" not in plain
    assert ANSI.search(coloured)
    assert click.unstyle(coloured) == plain          # colour adds escapes and nothing else


def test_colour_marks_each_seat_and_bolds_the_mover():
    state = play(4, 5, 120)
    snap = state.snapshot()
    coloured = draw_board(state, color=True)
    for q, colour in enumerate(("31", "94", "32", "33")):
        assert f"\x1b[{colour}m" in coloured
        line = next(ln for ln in coloured.splitlines() if f"{SEAT_MARK[q]} seat {q + 1}" in ln)
        assert ("\x1b[1m" in line) == (q == snap.to_move)


@pytest.mark.parametrize("n,seed", [(2, 1), (4, 5)])
def test_own_cards_shown_other_cards_hidden(n, seed):
    state, holders = with_two_hands(n, seed)
    snap = state.snapshot()
    card_word = re.compile(r"\b(" + "|".join(CARDS) + r")\b")
    for seat in holders:
        text = draw_board(state, seat=seat)
        blocks = seat_blocks(text)
        assert set(blocks) == set(range(n))
        for c, count in enumerate(snap.hand[seat]):
            if count:
                assert re.search(rf"\b{CARDS[c]}{f' x{count}' if count > 1 else ''}\b", blocks[seat])
        assert f"hand {snap.hand_size[seat]}:" in blocks[seat]
        for other in range(n):
            if other != seat:
                assert not card_word.search(blocks[other])
                size = snap.hand_size[other]
                assert f"hand {size} card{'' if size == 1 else 's'}" in blocks[other]
        # the seat's own view draws exactly the same board
        assert draw_board(state.view(seat), seat=seat) == text
        assert draw_board(state.view(seat), seat=seat, color=True) == draw_board(state, seat=seat, color=True)


def test_nobody_looking_shows_no_cards():
    state, holders = with_two_hands(3, 4)
    card_word = re.compile(r"\b(" + "|".join(CARDS) + r")\b")
    for block in seat_blocks(draw_board(state)).values():
        assert not card_word.search(block)
    # a view asked for another seat's cards has none to show, and does not invent any
    a, b = holders[:2]
    assert draw_board(state.view(a), seat=b) == draw_board(state.view(a), seat=None)
    assert card_word.search(seat_blocks(draw_board(state.view(a), seat=a))[a])


def test_reveal_lists_every_hand_the_state_knows():
    state, holders = with_two_hands(3, 4)
    snap = state.snapshot()
    card_word = re.compile(r"\b(" + "|".join(CARDS) + r")\b")
    blocks = seat_blocks(draw_board(state, reveal=True))
    for q in holders:
        assert f"hand {snap.hand_size[q]}:" in blocks[q] and card_word.search(blocks[q])
    # a view reveals its own hand only: the others' cards are not in it
    a, b = holders[:2]
    seen = seat_blocks(draw_board(state.view(a), reveal=True))
    assert card_word.search(seen[a]) and not card_word.search(seen[b])
    assert draw_board(state.view(a), reveal=True) == draw_board(state.view(a), seat=a)


@pytest.mark.parametrize("n,seed,actions", [(2, 1, 0), (2, 21, 300), (4, 6, 250)])
def test_park_shows_every_tile_and_servant(n, seed, actions):
    state = play(n, seed, actions)
    snap = state.snapshot()
    cells = park_cells(draw_board(state, seat=0))
    assert len(cells) == 36
    tiles_seen = 0
    for sq in range(36):
        top, bottom = cells[sq // 6, sq % 6]
        t = snap.tile_at[sq]
        if t >= 0:
            tile = state.components.tiles[t]
            assert top == f"#{tile.number} {tile.vp}VP"
            assert bottom.split()[0] == cost_text(tile)
            assert bottom == f"{cost_text(tile)} {privilege_text(tile)}".strip()
            tiles_seen += 1
        elif snap.park_servant[sq] >= 0:
            assert (top, bottom) == (f"[{SEAT_MARK[snap.park_servant[sq]]}]", "")
        else:
            assert (top, bottom) == (".", "")
    assert tiles_seen == sum(1 for t in snap.tile_at if t >= 0)
    if actions == 0:
        assert tiles_seen == 36


def test_cost_and_privilege_text():
    tiles = State.new_game(2, seed=0).components.tiles
    by_number = {t.number: t for t in tiles}
    assert cost_text(by_number[25]) == "4g2t" and privilege_text(by_number[25]) == "INC2"
    assert cost_text(by_number[12]) == "1g1t2v" and privilege_text(by_number[12]) == ""
    assert privilege_text(by_number[28]) == "SUP5" and privilege_text(by_number[41]) == "FAV"


@pytest.mark.parametrize("n,seed,actions", [(2, 2, 0), (2, 9, 200), (4, 4, 300)])
def test_room_counts_match_snapshot(n, seed, actions):
    state = play(n, seed, actions)
    snap = state.snapshot()
    drawn = castle_counts(click.unstyle(draw_board(state, color=True)), n)
    assert set(drawn) == set(ROOMS)
    for room, name in enumerate(ROOMS):
        assert drawn[name] == [snap.rooms[q][room] for q in range(n)]
    # the grid follows the layout: row 1 (next to the park) is drawn last, left to right
    rows = [ln for ln in draw_board(state).splitlines() if ln.startswith("row ")]
    assert [c.strip() for c in rows[-1].split("|")[1:4]] == [ROOMS[r] for r in snap.layout[:3]]


@pytest.mark.parametrize("n,seed", [(2, 31), (4, 32)])
def test_lines_fit_in_100_columns(n, seed):
    names = ["a rather long display name for a seat"] * n
    for state in game_positions(n, seed):
        snap = state.snapshot()
        for seat in (None, snap.to_move):
            text = draw_board(state, seat=seat, color=True, names=names)
            assert max(len(ANSI.sub("", line)) for line in text.splitlines()) <= WIDTH


def test_seat_lines_report_the_snapshot():
    state = play(4, 12, 260)
    snap = state.snapshot()
    blocks = seat_blocks(draw_board(state, seat=2, names=["you", "random", "mcts", "bob"]))
    for q, name in enumerate(["you", "random", "mcts", "bob"]):
        block = blocks[q]
        assert f"seat {q + 1} ({name})" in block
        assert f"gold {snap.gold[q]}, play area {snap.area[q]}, supply {snap.supply[q]}, " \
               f"honours {snap.honours[q]}," in block
        owned = [state.components.tiles[t] for t, o in enumerate(snap.owner) if o == q]
        if owned:
            assert f"nobles {len(owned)} ({sum(t.vp for t in owned)} VP):" in block
            for tile in owned:
                assert re.search(rf"#{tile.number}\b", block)
        else:
            assert "nobles: none" in block
        if state.privileges(q)[1]:
            assert f"INC+{state.privileges(q)[1]}" in block
    assert sum(1 for o in snap.owner if o >= 0) > 0       # the game got far enough to test nobles
    text = draw_board(state, seat=2)
    assert f"draw pile {snap.deck_size}, discard {sum(snap.discard)}" in text


def test_header_names_round_mover_stage_and_last_round():
    state = play(3, 14, 150)
    snap = state.snapshot()
    header = draw_board(state, names=["x", "y", "z"]).splitlines()[0]
    assert header.startswith(f"Round {snap.round} | {SEAT_MARK[snap.to_move]} seat {snap.to_move + 1}")
    assert "LAST ROUND" not in header or snap.last_round
    first = draw_board(State.new_game(2, seed=1)).splitlines()[0]
    assert first.startswith("Setup | A seat 1 to move | placing")
    for state in game_positions(2, 15, every=10):
        if state.snapshot().last_round:
            assert "LAST ROUND" in draw_board(state).splitlines()[0]
            break
    else:
        raise AssertionError("the game never reached its last round")
    finished = play(2, 15, 10_000)
    assert finished.is_terminal()
    assert "game over" in draw_board(finished).splitlines()[0]


def test_reference_twin_draws_the_same_board():
    fast, ref = play(3, 17, 150), play(3, 17, 150, impl=ReferenceState)
    assert draw_board(ref, seat=1, color=True) == draw_board(fast, seat=1, color=True)


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_want_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert want_color(None, _Stream(True)) is True
    assert want_color(None, _Stream(False)) is False
    assert want_color(None, object()) is False
    assert want_color(True, _Stream(False)) is True
    assert want_color(False, _Stream(True)) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert want_color(None, _Stream(True)) is False
    assert want_color(True, _Stream(True)) is True      # an explicit --color wins
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert want_color(None, _Stream(True)) is False
