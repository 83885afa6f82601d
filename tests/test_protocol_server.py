"""The PRI server in-process: handshake, positions, go/stop contracts, tools, bad input."""

import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.notation import parse_turn
from engine.random_play import random_action
from engine.rng import Rng
from engine.state import State
from engine.notation import action_to_token
from protocol.compliance import game_prefix

from helpers import ServerSession

PROTOCOL_LINE = re.compile(r"^(id (name|author) .+|option name .+|priok|readyok|bestmove .+|info .+)$")


Session = ServerSession


def test_handshake_lists_every_option_then_priok():
    s = Session()
    s.send("pri")
    lines = s.new_lines()
    assert lines[0].startswith("id name palais-engine") and lines[1].startswith("id author ")
    assert lines[-1] == "priok"
    names = [re.match(r"option name (.+?) type", l).group(1) for l in lines if l.startswith("option")]
    assert names == ["Algorithm", "Processes", "Hash", "MultiPV", "Seed", "Exploration",
                     "Rollout Policy", "Rollout Turns", "Leaf Eval", "Value Weights", "Selection", "Prior C",
                     "Policy Weights", "Gumbel K", "Gumbel Scale", "Decision Share",
                     "Move Overhead"]
    assert "info string option Threads is the old name of Processes, still accepted (deprecated)" in lines


def test_the_old_name_threads_sets_processes():
    s = Session()
    s.send("setoption name Threads value 3")
    assert s.new_lines() == [] and s.server.engine.values["Processes"] == 3


def test_go_answers_with_info_and_exactly_one_legal_bestmove():
    s = Session()
    s.send("position start players 3 seed 8", "go iterations 2000 multipv 2")
    lines = s.new_lines()
    best = [l for l in lines if l.startswith("bestmove ")]
    assert len(best) == 1 and lines[-1] == best[0]
    assert [l for l in lines if " multipv " in l][0].split(" multipv ")[1].startswith("1 ")
    view = State.new_game(3, seed=8).view(0)
    for action in parse_turn(best[0][len("bestmove "):]):
        assert action in view.legal_actions() and view.to_move == 0
        view.apply(action)


def test_same_seed_same_iterations_same_answer():
    answers = []
    for _ in range(2):
        s = Session()
        s.send("setoption name Seed value 11", "position start players 2 seed 3", "go iterations 1500")
        answers.append([l for l in s.new_lines() if l.startswith("bestmove")])
    assert answers[0] == answers[1]


def test_infinite_search_waits_for_stop():
    s = Session()
    s.send("position start players 2 seed 4", "go infinite")
    assert not s.server.engine.wait(0.3)           # still searching: no bestmove without stop
    s.send("isready")
    assert "readyok" in s.out.getvalue()
    assert "bestmove" not in s.out.getvalue()
    s.send("stop")
    assert s.server.engine.wait(5)                  # a generous bound; the compliance step measures it
    lines = s.new_lines()
    assert sum(l.startswith("bestmove ") for l in lines) == 1


def test_position_with_moves_is_the_seats_view_and_d_hides_other_hands():
    steps = iter(range(261))
    tokens, seat, state = game_prefix(3, 21, lambda s: next(steps) == 260)
    moves = " ".join(tokens)
    s = Session()
    s.send(f"position start players 3 seed 21 moves {moves}")
    assert s.server.engine.view.snapshot() == state.view(seat).snapshot()
    s.send("d")
    board = s.new_lines()
    assert board[0].startswith(f"info string round {state.round}, seat {seat + 1} to move")
    others = [l for l in board if l.startswith("info string seat ") and not l.startswith(f"info string seat {seat + 1} ")]
    assert others and all("hidden" in l for l in others)


def test_after_the_last_move_of_the_game_bestmove_is_none():
    state = State.new_game(2, seed=6)
    rng = Rng(6)
    played = []
    while not state.is_terminal():
        action = random_action(state, rng)
        played.append(action_to_token(action))
        state.apply(action)
    s = Session()
    s.send(f"position start players 2 seed 6 moves {' '.join(played)}", "go movetime 50")
    assert s.new_lines() == ["bestmove (none)"]


def test_perft_answers_as_an_info_string():
    s = Session()
    s.send("position start players 2 seed 1", "perft 3")
    assert s.new_lines() == ["info string perft 3 nodes 729"]


@pytest.mark.parametrize("line,words", [
    ("go movetime 10", "no position"),
    ("perft 2", "no position"),
    ("setoption name Hash value lots", "expected a whole number"),
    ("setoption name Hash value -1", "-1 is outside 0..65536"),
    ("setoption name Hash value autumn", "expected a whole number"),
    ("setoption name Decision Share value 1.5", "1.5 is outside 0..1"),
    ("setoption name Decision Share value half", "expected a number"),
    ("setoption name Colour value red", "unknown option 'Colour'"),
    ("position start players 2 seed 1 moves MINT gate2", "token 2 'gate2' is not legal here"),
    ("frobnicate", "unknown command 'frobnicate'"),
])
def test_bad_input_gets_one_error_line_and_the_engine_goes_on(line, words):
    s = Session()
    s.send(line, "isready")
    lines = s.new_lines()
    assert len(lines) == 2 and lines[0].startswith("info string error: ") and words in lines[0]
    assert lines[1] == "readyok"


@settings(max_examples=2000, derandomize=True, suppress_health_check=[HealthCheck.too_slow],
          deadline=None)
@given(st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(["pri", "isready", "setoption", "name", "value", "Hash", "Seed", "1",
                              "-3", "position", "start", "players", "2", "seed", "moves", "MINT",
                              "gate2", "d", "perft", "bench", "hint", "top", "newgame", "x",
                              "Algorithm", "random", "pos", "pr1"]),
             max_size=10).map(" ".join)))
@pytest.mark.slow
def test_fuzz_lines_never_break_the_engine(line):
    s = Session()
    if line.split()[:1] == ["quit"]:
        return
    s.send(line)
    s.send("isready")
    lines = s.new_lines()
    assert lines[-1] == "readyok"
    assert all(PROTOCOL_LINE.match(l) for l in lines), lines


@pytest.mark.slow
def test_the_console_engine_speaks_only_protocol_on_stdout():
    script = "pri\nposition start players 2 seed 2\ngo iterations 500\nisready\nnonsense\nquit\n"
    done = subprocess.run([sys.executable, "-m", "protocol.cli"], input=script, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(PROTOCOL_LINE.match(l) for l in lines), lines
    assert sum(l.startswith("bestmove ") for l in lines) == 1 and "readyok" in lines
    assert sum(l.startswith("info string error: unknown command 'nonsense'") for l in lines) == 1


def test_position_can_load_another_component_set(tmp_path):
    from engine.components import default_components
    toml = default_components().to_toml().replace('name = "reconstructed-v1"', 'name = "my-set"')
    path = tmp_path / "set.toml"
    path.write_text(toml)
    s = Session()
    s.send(f"position start players 2 seed 1 components {path}", "perft 2")
    assert s.new_lines() == ["info string perft 2 nodes 81"]      # perft runs as a search does
    s.send(f"position start players 2 components {tmp_path}/missing.toml", "isready")
    lines = [""] + s.new_lines()
    assert lines[1].startswith("info string error: components: ") and "missing.toml" in lines[1]
    assert s.server.engine.view.components.name == "my-set"


# ---------------------------------------------------------------------- numbers and clocks
TILES = ",".join(str(t) for t in range(2, 37))


@pytest.mark.parametrize("line,words", [
    (f"position start players 2 deal ²,{TILES}", "'deal item 1' needs a whole number, got '²'"),
    (f"position start players 2 deal {'9' * 5000},{TILES}", "(5000 characters)"),
    (f"position start players 2 deal 43,{TILES}", "deal: tile 43 is not in the component set (tiles 1..42)"),
    (f"position start players 2 deal 0,{TILES}", "deal: tile 0 is not in the component set"),
    ("perft +5", "'perft' needs a whole number, got '+5'"),
    ("go movetime 1_000", "'movetime' needs a whole number, got '1_000'"),
    ("hint top ٣", "'top' needs a whole number, got '٣'"),
    ("setoption name MultiPV value +2", "option MultiPV: expected a whole number, got '+2'"),
    ("setoption name Move Overhead value ٣", "option Move Overhead: expected a whole number, got '٣'"),
    ("setoption name Move Overhead value " + "9" * 5000, "(5000 characters) is outside 0..10000"),
    ("setoption name Seed value 1_000", "option Seed: expected a whole number, got '1_000'"),
    ("setoption name Threads value ²", "option Processes: expected a whole number, got '²'"),
    ("setoption name Exploration value 1_0", "option Exploration: expected a number, got '1_0'"),
    ("setoption name Exploration value nan", "option Exploration: expected a number, got 'nan'"),
    ("setoption name Rollout Turns value +4", "option Rollout Turns: expected a whole number, got '+4'"),
])
def test_a_bad_number_is_one_short_error_line_without_a_traceback(line, words, capsys):
    s = Session()
    s.send(line, "isready")
    lines = s.new_lines()
    assert len(lines) == 2 and lines[0].startswith("info string error: ") and lines[1] == "readyok"
    assert words in lines[0] and len(lines[0]) < 200 and "internal error" not in lines[0]
    assert "Traceback" not in capsys.readouterr().err
    assert s.server.engine.values["MultiPV"] == 1 and s.server.engine.values["Seed"] == 0


@pytest.mark.parametrize("players,line,words", [
    (2, "go p2time 3000", "go: seat 1 is to move but has no clock (given: p2time); send p1time too"),
    (2, "go p2time 3000 p1inc 100", "go: seat 1 is to move but has no clock"),
    (2, "go p3time 3000", "go: p3time: there is no seat 3 in a 2-player game"),
    (2, "go p1time 3000 p2time 3000 p3inc 100", "go: p3inc: there is no seat 3 in a 2-player game"),
    (3, "go p1time 3000 p4time 3000", "go: p4time: there is no seat 4 in a 3-player game"),
    (4, "go p2time 3000 p3time 3000 p4time 3000 movetime 100", "go: seat 1 is to move but has no clock"),
])
def test_a_go_with_no_clock_for_the_seat_to_move_or_a_seat_not_in_the_game_is_refused(players, line, words):
    """Before: such a go searched until `stop` (the seat to move had no clock, no limit)."""
    s = Session()
    s.send(f"position start players {players} seed 1", line, "isready")
    lines = s.new_lines()
    assert len(lines) == 2 and lines[0].startswith("info string error: go: ") and lines[1] == "readyok"
    assert words in lines[0] and not s.server.engine.busy()
    s.send("go p1time 3000 " + " ".join(f"p{q}time 3000" for q in range(2, players + 1)))
    lines = s.new_lines()                             # every seat's clock: a search, as before
    assert lines[-1].startswith("bestmove ") and not any("error" in l for l in lines)


def test_the_seat_to_move_is_the_one_whose_clock_is_needed():
    tokens, seat, _ = game_prefix(3, 4, lambda st: not st.is_chance() and st.to_move == 1 and st.round >= 2)
    s = Session()
    s.send(f"position start players 3 seed 4 moves {' '.join(tokens)}", "go p1time 3000 p3time 3000", "isready")
    assert s.new_lines() == ["info string error: go: seat 2 is to move but has no clock "
                             "(given: p1time, p3time); send p2time too", "readyok"]


# ---------------------------------------------------------------------- perft and hint as jobs
def handled_within(server, line: str, seconds: float = 10.0) -> bool:
    """Whether server.handle(line) returns within `seconds` (on a thread: a handler that
    blocks the reader cannot hang the test)."""
    import threading
    thread = threading.Thread(target=server.handle, args=(line,), daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def test_perft_runs_off_the_reader_isready_is_answered_and_stop_ends_it_with_the_count_so_far():
    s = Session()
    s.send("position start players 2 seed 1")
    assert handled_within(s.server, "perft 12"), "perft 12 blocked the reader"
    s.send("isready", "go movetime 10", "hint", "position start players 2 seed 2", "stop")
    lines = s.new_lines()
    assert lines[:4] == ["readyok",
                         "info string error: cannot start a search during perft; send stop first",
                         "info string error: cannot give a hint during perft; send stop first",
                         "info string error: cannot change the position during perft; send stop first"]
    assert len(lines) == 5 and re.fullmatch(r"info string perft 12 stopped: \d+ nodes counted so far", lines[4])
    s.send("perft 12", "stop", "perft 3")             # pipelined: perft 3 waits for the stopped one
    lines = s.new_lines()
    assert len(lines) == 2 and "perft 12 stopped" in lines[0] and lines[1] == "info string perft 3 nodes 729"


def test_hint_runs_off_the_reader_and_stop_ends_it_with_what_it_found():
    s = Session()
    s.send("position start players 2 seed 1")
    assert handled_within(s.server, "hint movetime 60000"), "hint blocked the reader"
    s.send("isready", "stop")
    lines = s.new_lines()
    assert lines[0] == "readyok"
    assert re.fullmatch(r"info string hint stopped: [1-3] candidates, \d+ iterations", lines[-1])
    assert lines[1:-1] and all(re.match(r"info string hint [1-3]: ", l) for l in lines[1:-1])


def test_a_hint_without_a_decision_is_one_error_line():
    state = State.new_game(2, seed=6)
    rng = Rng(6)
    played = []
    while not state.is_terminal():
        action = random_action(state, rng)
        played.append(action_to_token(action))
        state.apply(action)
    s = Session()
    s.send(f"position start players 2 seed 6 moves {' '.join(played)}", "hint", "perft 2", "isready")
    assert s.new_lines() == ["info string error: no position: send 'position ...' first (or the game is over)"] * 2 \
        + ["readyok"]


@pytest.mark.parametrize("end", ["quit", "end of input"])
def test_quit_and_the_end_of_input_end_a_running_perft_or_hint(end):
    import threading
    for job in ("perft 12", "hint movetime 60000"):
        s = Session()
        lines = ["position start players 2 seed 1", job] + (["quit"] if end == "quit" else [])
        serving = threading.Thread(target=s.server.run, args=(iter(lines),), daemon=True)
        serving.start()
        serving.join(15)                                # generous: the job ends at its next step
        assert not serving.is_alive(), f"{job}: {end} did not end the server"
        assert s.server.engine.wait(5)
