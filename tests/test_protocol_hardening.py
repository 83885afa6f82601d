"""The engine never hangs, never dies of one command and never leaves a process behind.

Most tests drive `palais-engine` as a subprocess, as a GUI would; waits are generous and
bounded, and no assertion is about speed. The search processes of Threads > 1 are found in
/proc as the engine's descendants while it runs, and none of them may outlive it.
"""

import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.notation import action_to_token
from engine.state import State
from protocol.commands import Go
from protocol.engine import EngineFacade
from protocol.server import Server
from search.player import BasePlayer

from helpers import ServerSession

WAIT_S = 30.0
ENGINE = [sys.executable, "-c", "from protocol.cli import main; main()"]


class EngineProcess:
    """palais-engine on pipes: lines in, lines out (read by a thread, so no read blocks)."""

    def __init__(self):
        self.process = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines):
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def until(self, predicate) -> list:
        """Every line read up to the first one `predicate` accepts (which ends the list)."""
        seen = []
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer within {WAIT_S} s; read so far: {seen}") from None
            if line is None:
                raise AssertionError(f"the engine ended; read so far: {seen}")
            seen.append(line)
            if predicate(line):
                return seen

    def bestmove(self) -> list:
        return self.until(lambda line: line.startswith("bestmove "))

    def exits(self) -> int:
        return self.process.wait(timeout=WAIT_S)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT_S)


@pytest.fixture
def engine():
    process = EngineProcess()
    yield process
    process.close()


def descendants(pid: int) -> set:
    """The pids of every process below `pid`, read from /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def none_alive_within(pids, seconds=WAIT_S) -> set:
    """The pids still alive after waiting up to `seconds` for them all to end."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {p for p in pids if alive(p)}


def search_processes_of(engine) -> set:
    """The engine's descendants once a Threads 2 search reports progress (its workers exist)."""
    engine.until(lambda line: line.startswith("info iterations"))
    pids = descendants(engine.process.pid)
    assert pids, "a Threads 2 search runs in more than one process"
    return pids


@pytest.mark.slow
def test_threads_2_answers_go_stop_and_quit_and_leaves_no_process(engine):
    engine.send("setoption name Threads value 2", "position start players 2 seed 1", "go movetime 300")
    assert engine.bestmove()[-1].split()[1:]
    engine.send("go infinite")
    pids = search_processes_of(engine)
    engine.send("stop")
    assert engine.bestmove()[-1].split()[1:]
    engine.send("quit")
    assert engine.exits() == 0
    assert none_alive_within(pids) == set()


@pytest.mark.slow
def test_isready_starts_the_search_processes_and_quit_ends_them(engine):
    engine.send("setoption name Threads value 3", "isready")
    engine.until(lambda line: line == "readyok")
    pids = descendants(engine.process.pid)
    assert len(pids) >= 2                       # two workers (and multiprocessing's resource tracker)
    engine.send("quit")
    assert engine.exits() == 0
    assert none_alive_within(pids) == set()


@pytest.mark.slow
@pytest.mark.parametrize("end", ["sigkill", "sigterm", "end of input"])
def test_search_processes_end_with_the_engine_even_mid_search(engine, end):
    engine.send("setoption name Threads value 3", "position start players 3 seed 2", "go infinite")
    pids = search_processes_of(engine)
    if end == "sigkill":
        engine.process.kill()
    elif end == "sigterm":
        engine.process.send_signal(signal.SIGTERM)
    else:
        engine.process.stdin.close()
    engine.exits()
    assert none_alive_within(pids) == set()


@pytest.mark.slow
def test_threads_2_is_deterministic_for_a_seed_and_an_iteration_limit():
    answers = []
    for _ in range(2):
        process = EngineProcess()
        try:
            process.send("setoption name Threads value 2", "setoption name Seed value 3",
                         "position start players 2 seed 4", "go iterations 400")
            answers.append([re.sub(r"\b(time|nps) \d+", "", line) for line in process.bestmove()
                            if " multipv " in line or line.startswith("bestmove ")])
            process.send("quit")
            process.exits()
        finally:
            process.close()
    assert answers[0] == answers[1] and len(answers[0]) == 2


@pytest.mark.slow
def test_the_largest_hash_still_answers_every_go(engine):
    engine.send("pri")
    hash_line = next(line for line in engine.until(lambda line: line == "priok")
                     if line.startswith("option name Hash "))
    largest = hash_line.split(" max ")[1].split()[0]
    engine.send(f"setoption name Hash value {largest}", "position start players 2 seed 1",
                "go iterations 200")
    first = engine.bestmove()
    engine.send("go iterations 200")
    second = engine.bestmove()
    for lines in (first, second):
        assert not any("during a search" in line for line in lines)
        assert lines[-1].split()[1:]


@pytest.mark.slow
def test_go_right_after_stop_is_served_after_the_stopped_searchs_bestmove(engine):
    engine.send("position start players 2 seed 1", "go infinite")
    engine.until(lambda line: line.startswith("info iterations"))
    engine.send("stop", "go iterations 300", "isready")
    lines = engine.until(lambda line: line == "readyok")
    # isready is answered at once, so readyok may come before, between or after the two
    # bestmoves (the 300 iterations can end before the engine reads isready)
    while sum(line.startswith("bestmove ") for line in lines) < 2:
        lines += engine.bestmove()
    assert not any(line.startswith("info string error") for line in lines)
    assert sum(line.startswith("bestmove ") for line in lines) == 2
    final = [line for line in lines if " multipv 1 " in line]
    assert ran_in_full(final[-1], 300)                      # the second search ran in full


@pytest.mark.slow
def test_a_stop_with_no_search_running_does_not_cut_the_next_search(engine):
    engine.send("position start players 2 seed 1", "go iterations 300")
    engine.bestmove()
    engine.send("stop", "go iterations 300")
    final = [line for line in engine.bestmove() if " multipv 1 " in line]
    assert final and ran_in_full(final[0], 300)


def ran_in_full(info: str, iterations: int) -> bool:
    """True if a final info line reports the turn's whole budget: all of it with Decision
    Share 0; with a share, the searches of the turn's decisions leave at most 1/16 of it
    (search/timeman.py: less than that is not searched)."""
    spent = int(info.split()[2])
    return iterations - iterations // 16 <= spent <= iterations


@pytest.mark.slow
def test_perft_12_leaves_the_engine_answering_isready_and_stop_ends_it(engine):
    engine.send("position start players 2 seed 1", "perft 12", "isready")
    assert engine.until(lambda line: line == "readyok") == ["readyok"]     # within WAIT_S
    engine.send("stop")
    stopped = engine.until(lambda line: line.startswith("info string perft"))
    assert re.fullmatch(r"info string perft 12 stopped: \d+ nodes counted so far", stopped[-1])
    engine.send("perft 3")
    assert engine.until(lambda line: line.startswith("info string perft")) == ["info string perft 3 nodes 729"]


@pytest.mark.slow
def test_hint_for_a_minute_leaves_the_engine_answering_isready_and_stop_ends_it(engine):
    engine.send("position start players 2 seed 1", "hint movetime 60000", "isready")
    assert engine.until(lambda line: line == "readyok") == ["readyok"]
    engine.send("stop")
    lines = engine.until(lambda line: line.startswith("info string hint stopped: "))
    assert any(line.startswith("info string hint 1: ") for line in lines)


@pytest.mark.slow
@pytest.mark.parametrize("job", ["perft 12", "hint movetime 60000"])
@pytest.mark.parametrize("end", ["quit", "end of input"])
def test_quit_and_the_end_of_input_end_the_engine_during_perft_or_hint(engine, job, end):
    engine.send("position start players 2 seed 1", job, "isready")
    engine.until(lambda line: line == "readyok")
    if end == "quit":
        engine.send("quit")
    else:
        engine.process.stdin.close()
    assert engine.exits() == 0                   # within WAIT_S; before, perft 12 needed SIGKILL


# ---------------------------------------------------------------------- in-process failures
Session = ServerSession


class FailingOnce:
    """make_player whose first player's search raises; later players are real."""

    def __init__(self, real):
        self.real = real
        self.made = 0

    def __call__(self, params):
        self.made += 1
        if self.made > 1:
            return self.real(params)

        class Broken(BasePlayer):
            def stop(self):
                pass

            def search(self, *args, **kwargs):
                raise RuntimeError("injected failure")
        return Broken()


def test_a_failing_search_answers_once_with_a_legal_move_and_the_next_go_works(monkeypatch):
    import protocol.engine
    monkeypatch.setattr(protocol.engine, "make_player", FailingOnce(protocol.engine.make_player))
    s = Session()
    s.send("position start players 2 seed 1", "go iterations 200")
    lines = s.new_lines()
    first_legal = action_to_token(State.new_game(2, seed=1).view(0).legal_actions()[0])
    assert lines[0].startswith("info string error: the search failed (RuntimeError: injected failure)")
    assert lines[1:] == [f"bestmove {first_legal}"]
    s.send("go iterations 200")
    lines = s.new_lines()
    assert sum(line.startswith("bestmove ") for line in lines) == 1
    final = [int(line.split()[2]) for line in lines if line.startswith("info iterations ") and " multipv " in line]
    assert final and 100 <= final[-1] <= 200       # the turn's searches (Decision Share) spent the budget


def test_an_unexpected_failure_in_a_command_is_one_error_line_and_the_engine_goes_on(monkeypatch):
    def broken(self, command):
        raise RuntimeError("injected failure")
    monkeypatch.setattr(Server, "on_display", broken)
    s = Session()
    s.send("position start players 2 seed 1", "d", "isready")
    assert s.new_lines() == ["info string error: internal error in 'd': RuntimeError: injected failure",
                             "readyok"]


@pytest.mark.parametrize("overhead", [30, 400])
def test_movetime_is_the_search_time_and_move_overhead_comes_off_clocks_only(overhead):
    e = EngineFacade()
    e.set_option("Move Overhead", str(overhead))
    e.seat = 0
    assert e.limits_for(Go(movetime_ms=500)).time_ms == 500
    clock = e.limits_for(Go(time_ms=((0, 60_000),), inc_ms=((0, 1_000),))).time_ms
    assert clock == 60_000 // 20 + 1_000 * 4 // 5 - overhead


def test_isready_is_answered_even_when_getting_ready_fails(monkeypatch):
    import protocol.engine

    def broken(params):
        raise RuntimeError("no player today")
    monkeypatch.setattr(protocol.engine, "make_player", broken)
    s = Session()
    s.send("position start players 2 seed 1", "isready")
    assert s.new_lines() == ["info string error: could not get ready to search: RuntimeError: no player today",
                             "readyok"]
    s.send("go iterations 100")
    lines = s.new_lines()
    assert lines[0].startswith("info string error: the search failed (RuntimeError: no player today)")
    assert len(lines) == 2 and lines[1].startswith("bestmove ")
