"""Untrusted input where it enters: position strings, game records, component files and the
snapshots of the Python API. Each bad input must end in one clean error naming the place and
why, through the command a user would run, and never take the process down.

The cases that crashed the process (SIGSEGV, SIGFPE, memory eaten by /dev/zero) run in a
child process, with a memory limit, so that a regression fails the test instead of the run.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.components import ComponentError, default_components, load_components
from engine.constants import N_CARDS, S_DRAW, S_SOURCE
from engine.errors import NotationError, PalaisError
from engine.position import parse_position
from engine.reference import ReferenceState
from engine.state import State
from play.cli import main as palais

ROOT = Path(__file__).resolve().parent.parent
NOTATION = (ROOT / "docs" / "notation.md").read_text(encoding="utf-8")
# The mid-turn example of docs/notation.md: seat 1's view, stage MOVES.
MID_TURN = next(line for line in NOTATION.splitlines()
                if line.startswith("pr1 ") and "stage=MOVES" in line)
MID_TURN_AT_SETUP = MID_TURN.replace("stage=MOVES", "stage=SETUP")
MID_TURN_AT_STEP5 = MID_TURN.replace("stage=MOVES", "stage=STEP5")
EMPTY_PARK_ENTRY = re.sub(r"park=\d+,", "park=,", MID_TURN)
HUGE = "9" * 5000


def _limit_memory():
    limit = 2 << 30          # 2 GiB: the old code ran out of it on /dev/zero, not the machine
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_child(args, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], input=stdin, text=True, capture_output=True,
                          timeout=timeout, cwd=ROOT, preexec_fn=_limit_memory)


# ---------------------------------------------------------------------------------------
# Positions the core cannot run

@pytest.mark.slow
def test_the_engine_answers_unrunnable_positions_with_an_error_and_keeps_running():
    script = (f"position pos {MID_TURN_AT_SETUP}\ngo iterations 50\n"
              f"position pos {MID_TURN_AT_STEP5}\ngo iterations 50\n"
              f"position pos {EMPTY_PARK_ENTRY}\nisready\nquit\n")
    done = run_child(["-m", "protocol.cli"], script)
    assert done.returncode == 0, done.stderr
    errors = [l for l in done.stdout.splitlines() if l.startswith("info string error:")]
    assert any("field 'setup': all 15 setup placements are made, but the stage is SETUP" in l
               for l in errors), errors
    assert any("field 'stage': the game does not wait at STEP5" in l for l in errors), errors
    assert any("field 'park', square a1: empty entry" in l for l in errors), errors
    assert not any(l.startswith("bestmove") for l in done.stdout.splitlines())
    assert done.stdout.splitlines()[-1] == "readyok"
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_palais_hint_refuses_a_setup_stage_in_the_middle_of_a_game():
    done = run_child(["-m", "play.cli", "hint", MID_TURN_AT_SETUP, "--iterations", "50"])
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "position: field 'setup': all 15 setup placements are made" in done.stderr


def test_palais_perft_refuses_a_stage_where_the_game_does_not_wait():
    result = CliRunner().invoke(palais, ["perft", "1", "--position", MID_TURN_AT_STEP5])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "field 'stage': the game does not wait at STEP5" in result.output


@pytest.mark.parametrize("edit, where", [
    (lambda p: p.replace("stage=MOVES", "stage=RECRUIT"), "field 'stage'"),
    (lambda p: p.replace("moves_left:2", "moves_left:0"), "field 'turn', counter moves_left"),
    (lambda p: p.replace("seat=1 round=8", "seat=1 round=0"), "field 'round'"),
    (lambda p: p.replace("setup=15", "setup=14"), "field 'setup'"),
    (lambda p: p.replace("gold=14/", "gold=1000001/"), "field 'gold'"),
    (lambda p: p.replace("round=8", "round=201"), "field 'round'"),
    (lambda p: p.replace("moves_bonus:2", "moves_bonus:17"), "field 'turn', counter moves_bonus"),
    (lambda p: p.replace("drawn=10:", "drawn=11:"), "field 'drawn'"),
])
def test_positions_are_accepted_only_when_the_core_can_run_them(edit, where):
    parse_position(MID_TURN)
    with pytest.raises(NotationError, match=rf"^position: {re.escape(where)}"):
        parse_position(edit(MID_TURN))


def test_a_park_entry_left_empty_is_named():
    with pytest.raises(NotationError, match=r"field 'park', square a1: empty entry"):
        parse_position(EMPTY_PARK_ENTRY)


# ---------------------------------------------------------------------------------------
# Numbers of thousands of digits, bytes that are not UTF-8

def test_a_huge_number_in_a_position_is_out_of_range_not_a_traceback():
    result = CliRunner().invoke(palais, ["hint", MID_TURN.replace("gold=14/", f"gold={HUGE}/")])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    assert "field 'gold', seat 1: '99999" in result.output and "(5000 characters)" in result.output
    assert len(result.output) < 300


def _record_text() -> str:
    from engine.record import record_from_actions, write_record
    return write_record(record_from_actions(2, [], seed=3))


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('[Seed "3"]', f'[Seed "{HUGE}"]'), "header 'Seed': expected 0.."),
    (lambda t: t.replace('[Players "2"]', f'[Players "{HUGE}"]'), "header 'Players': expected 2..4"),
    (lambda t: t + f"{HUGE}.1: MINT\n", "round '99999"),
    (lambda t: t + f"0.{HUGE}: MINT\n", "no seat '99999"),
    (lambda t: t + f"0.1: gate{HUGE}\n", "at most 25 servants"),
])
def test_a_huge_number_in_a_record_is_a_clean_error(tmp_path, edit, message):
    path = tmp_path / "game.rec"
    path.write_text(edit(_record_text()), encoding="utf-8")
    result = CliRunner().invoke(palais, ["hint", str(path)])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    assert message in result.output


def _with_header(value: str) -> str:
    return _record_text().replace('[Players "2"]', f'[Players "2"]\n[Note "{value}"]')


def _peak_bytes(call) -> int:
    """The most memory Python held at once (above what it held before) while `call` ran."""
    import tracemalloc
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_long_header_is_read_in_memory_linear_in_its_length():
    """Near the cap, a header full of escapes: the old pattern held ~170 bytes per character
    (8 MB here), the possessive one a copy or two of the line."""
    from engine.record import MAX_HEADER_CHARS, read_record
    value = 'ab\\"c\\\\' * 8500                              # ab\"c\\\\, 59500 characters
    assert len(value) + 10 < MAX_HEADER_CHARS
    text = _with_header(value)
    read_record(_record_text())                             # warm: caches, deals
    found = {}
    peak = _peak_bytes(lambda: found.update(read_record(text).headers))
    assert found["Note"] == 'ab"c\\' * 8500
    assert peak < 3 * 1024 * 1024, peak


def test_a_header_of_megabytes_is_refused_with_little_memory(tmp_path):
    """4 MB of escapes in one header (a 15 MB one took 2.6 GB and seconds): one error line."""
    path = tmp_path / "game.rec"
    path.write_text(_with_header('\\"' * 2_000_000), encoding="utf-8")
    results = []
    peak = _peak_bytes(lambda: results.append(CliRunner().invoke(palais, ["hint", str(path)])))
    result = results[0]
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    assert result.output.splitlines()[-1].endswith(
        "line 3: a header line of 4000009 characters, more than the 65536 a header may have")
    assert peak < 64 * 1024 * 1024, peak                   # the text and a few copies of it


def test_a_record_that_is_not_utf8_is_a_clean_error(tmp_path):
    path = tmp_path / "game.rec"
    path.write_bytes(_record_text().encode("utf-8").replace(b"Palais", b"Pal\xffais"))
    result = CliRunner().invoke(palais, ["play", "--load", str(path)])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, result.exception
    assert f"{path}: not UTF-8 text (byte 10: b'\\xff')" in result.output


def test_palais_hint_reads_a_position_file(tmp_path):
    path = tmp_path / "where.pos"
    path.write_text(MID_TURN + "\n", encoding="utf-8")
    result = CliRunner().invoke(palais, ["hint", str(path), "--iterations", "30", "--json"])
    assert result.exit_code == 0, result.output
    assert '"seat": 1' in result.output


# ---------------------------------------------------------------------------------------
# Files: regular files only, 16 MiB at most

@pytest.mark.parametrize("args, stdin, message", [
    (["-m", "play.cli", "hint", "/dev/zero"], "",
     "/dev/zero: not a regular file (a device, pipe or socket), not a game record"),
    (["-m", "play.cli", "perft", "1", "--components", "/dev/zero"], "",
     "/dev/zero: not a regular file (a device, pipe or socket), not a component file"),
    (["-m", "protocol.cli"], "position start players 2 components /dev/zero\nisready\nquit\n",
     "info string error: components: /dev/zero: not a regular file"),
])
@pytest.mark.slow
def test_dev_zero_is_refused_at_once(args, stdin, message):
    done = run_child(args, stdin, timeout=60)
    assert message in done.stdout + done.stderr, (done.returncode, done.stderr[-500:])
    assert "MemoryError" not in done.stderr


MAX_FILE_BYTES = 16 * 1024 * 1024       # common.files.MAX_FILE_BYTES, as documented


def test_a_file_over_the_cap_is_refused(tmp_path):
    path = tmp_path / "big.rec"
    with open(path, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)          # sparse: no disk used
    result = CliRunner().invoke(palais, ["hint", str(path)])
    assert result.exit_code == 1
    assert f"{path}: {MAX_FILE_BYTES + 1} bytes, more than the 16 MiB a game record" in result.output


def test_the_reader_refuses_directories_pipes_and_bad_bytes(tmp_path):
    from common.files import MAX_FILE_BYTES as documented, read_text_file
    assert documented == MAX_FILE_BYTES
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(PalaisError, match="not a regular file"):
        read_text_file(fifo, "game record")          # no writer: must not block
    with pytest.raises(PalaisError, match="is a directory"):
        read_text_file(tmp_path, "game record")
    with pytest.raises(PalaisError, match="no such game record"):
        read_text_file(tmp_path / "missing", "game record")
    small = tmp_path / "small"
    small.write_bytes(b"12345")
    assert read_text_file(small, "x") == "12345"
    with pytest.raises(PalaisError, match="5 bytes, more than the 4 bytes"):
        read_text_file(small, "x", limit=4)
    with pytest.raises(ComponentError, match="not UTF-8"):
        small.write_bytes(b"\xc3(")
        load_components(small)


# ---------------------------------------------------------------------------------------
# The core guards itself: a bad snapshot from the Python API is refused at construction

def _snapshot():
    return State.from_snapshot(parse_position(MID_TURN)).snapshot()


def _edit(**changes):
    def apply(snap):
        for name, value in changes.items():
            setattr(snap, name, value)
        return snap
    return apply


def _set_item(name, index, value):
    def apply(snap):
        getattr(snap, name)[index] = value
        return snap
    return apply


BAD_SNAPSHOTS = [
    ("stage", _edit(stage=50)),                         # indexes the stage tables
    ("stage", _edit(stage=-1)),
    ("to_move", _edit(to_move=3)),                      # a seat the game does not have
    ("observer", _edit(observer=3)),
    ("tile_at", _set_item("tile_at", 0, 47)),           # a tile the set does not have
    ("layout", _set_item("layout", 1, 1)),              # a room twice: no adjacency for one
    ("rooms", lambda s: (s.rooms[0].__setitem__(0, 100), s)[1]),
    ("gold", _set_item("gold", 0, 2 ** 31 - 1)),        # would overflow
    ("moves_left", _edit(moves_left=0)),                # MOVES with none left
    ("moves_bonus", _edit(moves_bonus=120)),            # would overflow the 8-bit moves
    ("stage", _edit(stage=S_DRAW)),                     # no draw is due
    ("source_for", _edit(stage=S_SOURCE, source_for=3)),
    ("park_target", _edit(stage=S_SOURCE, source_for=9, park_target=14)),
    ("deck", _set_item("deck", 0, N_CARDS)),
    ("hand_size", _set_item("hand_size", 0, 5)),
    ("drawn_n", _set_item("drawn_n", 1, 60)),
    ("n_players", _edit(n_players=9)),
    ("rooms", _edit(rooms=[[0] * 9])),                  # rows missing
    ("gold", _set_item("gold", 0, "14")),
]


@pytest.mark.parametrize("impl", [State, ReferenceState], ids=["cython", "reference"])
@pytest.mark.parametrize("field, edit", BAD_SNAPSHOTS, ids=[f"{f}-{i}" for i, (f, _) in enumerate(BAD_SNAPSHOTS)])
def test_a_bad_snapshot_is_refused_at_construction(impl, field, edit):
    snap = edit(_snapshot())
    with pytest.raises(PalaisError) as caught:
        impl.from_snapshot(snap)
    assert type(caught.value).__name__ == "SnapshotError"
    assert caught.value.field == field, str(caught.value)
    assert str(caught.value).startswith(f"snapshot field {field!r}: ")


def test_a_component_set_the_core_cannot_hold_is_refused():
    from dataclasses import replace
    comps = default_components()
    tiles = tuple(replace(t, privilege=1, amount=9) for t in comps.tiles)   # 42 INCOME tiles
    with pytest.raises(PalaisError, match="42 tiles have privilege INCOME, at most 12"):
        State.new_game(2, components=replace(comps, tiles=tiles))
    tiles = tuple(replace(t, privilege=12) for t in comps.tiles)
    with pytest.raises(PalaisError, match="privilege 12 is not 0..9"):
        State.new_game(2, components=replace(comps, tiles=tiles))
