"""Engine processes for the tests that check none is left behind: a deaf engine (it ignores
`quit`, the end of its input and SIGTERM) started through a launcher process, as a shell
script would start it, with the pid of each of its processes written to a file."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest


def deaf_engine_cmd(pid_file) -> list:
    return [sys.executable, "-m", "tournament.testing_engines", "--mode", "deaf", "--launcher",
            "--pid-file", str(pid_file)]


def alive(pid: int, marker: str = "") -> bool:
    """Whether the process runs (a zombie, ended but not yet reaped, does not count) and, on
    a busy machine where its pid may have gone to another process since, still has `marker`
    in its command line."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            if handle.read().rpartition(")")[2].split()[0] == "Z":
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return marker.encode() in handle.read()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def pids(pid_file) -> list:
    return [int(line) for line in pid_file.read_text().split()] if pid_file.exists() else []


def left_running(pid_file, wait_s: float = 10.0) -> list:
    """The engine's processes still running after a bounded wait for them to go."""
    deadline = time.monotonic() + wait_s
    while True:
        running = [pid for pid in pids(pid_file) if alive(pid, str(pid_file))]
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.05)


@pytest.fixture
def pid_file(tmp_path):
    """A file for the engine's pids; whatever is still running at the end is killed."""
    path = tmp_path / "engine.pids"
    yield path
    for pid in pids(path):
        if alive(pid, str(path)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
