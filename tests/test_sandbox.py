"""Untrusted engines: what a spying engine (tests/spying_engine.py) learns or breaks in a real
tournament, with the sandbox (protocol/sandbox.py) and without it.

Each attempt runs `palais-tournament` as a user would, with the spy against the random
mover over one deal (two games, seats swapped). A read that succeeds makes the spy answer an
action that does not exist, so its success shows as a forfeit naming the attempt. Off, the
reads succeed (the sandbox is what stops them); required, none does, the spy plays on, and
the table is the games' own. The fork bomb and the 10 GiB allocation run sandboxed only, and
end in a forfeit naming the limit passed. After every run no process of the spy is left.

These tests need bubblewrap and a kernel that allows user namespaces and cgroups; they skip
where it cannot (saying why), except under PALAIS_SANDBOX_TESTS=required (.ci/run sets it
once it has installed bubblewrap), where a missing sandbox fails them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from protocol.engine_paths import needed_paths
from protocol.launch import OptionRefused, check_option
from protocol.sandbox import Confinement, SandboxPolicy, SandboxUnavailable, in_force, support

PY = sys.executable
SPY = Path(__file__).with_name("spying_engine.py")
ROOT = Path(__file__).resolve().parent.parent
HONEST = f'name=honest cmd="{PY} -m tournament.testing_engines --mode random --seed 4"'


def _need_sandbox():
    found = support()
    if found.full:
        return
    if os.environ.get("PALAIS_SANDBOX_TESTS") == "required":
        pytest.fail(f"PALAIS_SANDBOX_TESTS=required, but engines cannot be sandboxed here: {found.why}")
    pytest.skip(f"engines cannot be sandboxed on this machine: {found.why}")


@pytest.fixture
def sandboxed():
    _need_sandbox()


def spy_processes() -> list:
    """The pids of every process running the spying engine (zombies are not counted)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                if handle.read().rpartition(")")[2].split()[0] == "Z":
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if str(SPY).encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            pass
    return found


def tournament(tmp_path, attempt, target, mode, *extra, env=None, cwd=None, tc="movetime=100"):
    """Run palais-tournament (spy against the random mover, one deal); its JSON summary."""
    out = tmp_path / f"run-{attempt}-{mode}"
    spy = f'name=spy cmd="{PY} {SPY} --attempt {attempt}" option.Spy\\ Target={target}'
    command = [PY, "-m", "tournament.cli", "--engine", spy, "--engine", HONEST, "--deals", "1",
               "--tc", tc, "--margin-ms", "1500", "--out", str(out), "--json", "--quiet",
               "--sandbox", mode, *extra]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=environ,
                          cwd=cwd or tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    deadline = time.monotonic() + 10
    while spy_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert spy_processes() == [], "a process of the spying engine was left running"
    return json.loads(done.stdout)


def spied(summary, attempt) -> list:
    return [f for f in summary["forfeits"] if f"spied-{attempt}" in f["reason"]]


def a_fair_table(summary):
    """Two games, no forfeit, the spy and the random mover each in both."""
    assert summary["games"] == 2 and summary["complete"]
    assert summary["forfeits"] == []
    assert {name: e["games"] for name, e in summary["engines"].items()} == {"spy": 2, "honest": 2}


class Listener:
    """A TCP server on 127.0.0.1 whose port the spy tries to reach."""

    def __enter__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        return self.sock.getsockname()[1]

    def __exit__(self, *exc):
        self.sock.close()


def _read_attempts(tmp_path):
    """Each read attempt with what it looks for, set up for one run: (attempt, target,
    environment, working folder)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "notes.txt").write_text("the user's own file\n")
    cwd = tmp_path / "arbiter-cwd"
    cwd.mkdir(exist_ok=True)
    (cwd / "arbiter-notes-5521").write_text("beside the run\n")
    return {
        "proc": ("run-proc", {}, None),                                  # the --out on the arbiter's command line
        "parent-cwd": ("arbiter-notes-5521", {}, cwd),
        "home": (str(home / "notes.txt"), {"HOME": str(home)}, None),
        "secret": (None, {}, None),                                       # the run's draw-secret, by its path
        "remember": (f"note-{os.getpid()}-{time.monotonic_ns()}", {}, None),
    }


READS = ("proc", "parent-cwd", "home", "secret", "remember", "connect")


@pytest.mark.slow
@pytest.mark.parametrize("attempt", READS)
def test_every_read_succeeds_unsandboxed_and_fails_in_the_sandbox(tmp_path, attempt, sandboxed):
    for mode in ("off", "required"):
        if attempt == "connect":
            with Listener() as port:
                summary = tournament(tmp_path, attempt, port, mode)
        else:
            target, env, cwd = _read_attempts(tmp_path)[attempt]
            if attempt == "secret":
                target = tmp_path / f"run-{attempt}-{mode}" / "draw-secret"
            if attempt == "proc":
                target = f"run-proc-{mode}"
            summary = tournament(tmp_path, attempt, target, mode, env=env, cwd=cwd)
        if attempt == "remember":
            for place in ("/tmp", "/dev/shm", tmp_path):
                Path(place, f"palais-spy-memory-{target}").unlink(missing_ok=True)
        if mode == "off":
            # Unsandboxed, the spy finds it: at its first go in each game, or (remembering
            # across games) in the second game, from a file it wrote in the first.
            assert len(spied(summary, attempt)) == (1 if attempt == "remember" else 2), summary["forfeits"]
            assert summary["sandbox"][0].startswith("off")
        else:
            a_fair_table(summary)
            assert summary["sandbox"][0].startswith("bubblewrap")


@pytest.mark.slow
@pytest.mark.parametrize("attempt, memory, reason", [
    ("fork-bomb", "1024", "it reached its process limit (512)"),
    ("allocate", "256", "it passed its memory limit (256 MiB)")])
def test_a_fork_bomb_and_a_huge_allocation_forfeit_naming_the_limit(tmp_path, attempt, memory, reason, sandboxed):
    # A margin long enough for the bomb to reach its limit before the move is late, even on
    # a loaded machine (else the forfeit is, truly, for time).
    summary = tournament(tmp_path, attempt, "-", "required", "--sandbox-memory", memory, "--margin-ms", "12000")
    assert summary["games"] == 2 and summary["complete"]
    assert [f["engine"] for f in summary["forfeits"]] == ["spy", "spy"], summary["forfeits"]
    assert all(reason in f["reason"] for f in summary["forfeits"]), summary["forfeits"]
    assert summary["engines"]["honest"]["win_share"] == 1.0


def test_required_refuses_to_start_where_no_sandbox_can_be_made(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))           # no bwrap on this PATH
    support.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="bubblewrap"):
            in_force(SandboxPolicy("required"))
        assert in_force(SandboxPolicy("auto")).startswith("off (auto: bubblewrap (bwrap) is not installed")
        assert in_force(SandboxPolicy("off")).startswith("off: engines are trusted")
    finally:
        support.cache_clear()
    command = [PY, "-m", "tournament.cli", "--engine", HONEST, "--engine", HONEST.replace("honest", "other"),
               "--deals", "1", "--tc", "iterations=5", "--out", str(tmp_path / "run"), "--quiet",
               "--sandbox", "required"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert done.returncode != 0
    assert "--sandbox required, but engines cannot be sandboxed here: bubblewrap (bwrap) is not installed" in done.stderr
    assert not (tmp_path / "run").exists()          # refused before anything was written


def test_what_a_command_needs_is_found_without_running_it(tmp_path):
    weights = tmp_path / "mine.npz"
    weights.write_bytes(b"not read here")
    paths = needed_paths([PY, "-m", "protocol.cli", "--weights", "mine.npz", "--x=" + str(weights),
                          "--root", "/", "--home=" + os.path.expanduser("~")], cwd=tmp_path)
    assert Path("/usr") in paths
    assert weights in paths                         # named on the command line, relative or after --x=
    assert Path(os.path.realpath(PY)) in paths      # the interpreter, through its links
    assert Path(sys.base_prefix) in paths           # and its installation
    assert not any(p in (Path("/"), Path("/root"), Path("/home"), Path("/tmp")) for p in paths)


def test_options_are_checked_against_the_engines_declarations_before_sending():
    options = {"Threads": "type spin default 1 min 1 max 64", "Selection": "type combo default puct var uct var puct",
               "Ponder": "type check default false", "Hash": "type spin default 0 min 0 max 65536"}
    check_option(options, "Threads", "8")
    check_option(options, "Selection", "UCT")
    check_option(options, "Hash", "auto")           # a word: the engine judges it
    for name, value, words in [("Thread", "2", "no such option"), ("Threads", "65", "outside 1..64"),
                               ("Selection", "alphabeta", "not one of uct, puct"),
                               ("Ponder", "maybe", "not true or false")]:
        with pytest.raises(OptionRefused, match=words):
            check_option(options, name, value)


def test_a_renamed_option_is_sent_under_the_name_the_engine_declares():
    old_engine = {"Threads": "type spin default 1 min 1 max 64"}
    new_engine = {"Processes": "type spin default 1 min 1 max 64"}
    assert check_option(old_engine, "Processes", "2") == "Threads"
    assert check_option(old_engine, "threads", "2") == "Threads"
    assert check_option(new_engine, "Threads", "2") == "Processes"
    assert check_option(new_engine, "Processes", "2") == "Processes"
    with pytest.raises(OptionRefused, match="outside 1..64"):
        check_option(new_engine, "Threads", "65")


def test_the_sandbox_shows_the_engine_nothing_of_the_callers_environment(sandboxed, monkeypatch):
    monkeypatch.setenv("PALAIS_DB_PASSWORD", "hunter2")
    confinement = Confinement(SandboxPolicy("required"), [PY, "-c", "import os; print(sorted(os.environ))"])
    try:
        done = subprocess.run(confinement.argv, env=confinement.env, capture_output=True, text=True, timeout=60)
    finally:
        confinement.close()
    assert done.returncode == 0, done.stderr
    names = eval(done.stdout)                           # noqa: S307 (a list of names printed above)
    assert "PALAIS_DB_PASSWORD" not in names
    assert {"PATH", "HOME", "TMPDIR", "PALAIS_MEMORY_LIMIT"} <= set(names)


def test_our_engine_sizes_its_tree_to_the_sandboxs_memory_limit(monkeypatch):
    from search.params import tree_memory_cap_mb
    monkeypatch.setenv("PALAIS_MEMORY_LIMIT", str(256 << 20))
    assert tree_memory_cap_mb() == 128 and tree_memory_cap_mb(4) == 32
    monkeypatch.setenv("PALAIS_MEMORY_LIMIT", "lots")        # not a number: the machine's memory
    assert tree_memory_cap_mb() > 128


def test_a_command_line_that_works_unsandboxed_works_unchanged_inside(tmp_path, sandboxed, monkeypatch):
    """Our engine with its weights named on the command line, relative to the working folder
    (itself under /tmp, which is the engine's private folder inside), and an option."""
    import shutil as files

    from protocol.commands import Go, PositionStart
    from protocol.launch import open_engine
    from search.value import load_value_model
    files.copy(load_value_model("").source, tmp_path / "mine.npz")
    monkeypatch.chdir(tmp_path)
    client = open_engine(["palais-engine", "--weights", "mine.npz"], [("Threads", "2")],
                         sandbox=SandboxPolicy("required"), read_timeout=120)
    try:
        assert client.confinement is not None
        assert load_value_model("").digest[:12] in client.info.name
        client.position(PositionStart(players=2, seed=3))
        answer = client.go(Go(iterations=200), timeout=120)
        assert answer.bestmove and not answer.errors
    finally:
        client.close()
    assert client.confinement.cgroup.folders == []          # its cgroup is gone with it


def test_palais_serve_starts_its_engine_seats_sandboxed_without_its_database(tmp_path, sandboxed):
    """An `--engine` seat of the web server runs in the sandbox, its database hidden."""
    import random

    from starlette.testclient import TestClient


    from web.app import create_app
    from web.cli import server_config
    db = tmp_path / "games.sqlite3"
    config = server_config("127.0.0.1", 8000, [f'name=mine cmd="{PY} -m protocol.cli" option.Algorithm=greedy'],
                           4, db=str(db), sandbox=SandboxPolicy("required"))
    assert str(db) in config.sandbox.hidden
    config.seeds = random.Random(0)
    with TestClient(create_app(config), base_url="http://127.0.0.1:8000") as client:
        r = client.post("/api/games", json={"players": [{"kind": "engine", "name": "mine"}, {"kind": "human"}],
                                            "seed": 3, "budget_ms": 100}, headers={"origin": "http://127.0.0.1:8000"})
        assert r.status_code == 200, r.text
        session = client.app.state.store.get(r.json()["game"])
        engine = session.seats[0].current
        assert str(db) in engine.client.confinement.policy.hidden         # never shown, even inside a shown folder
        deadline = time.monotonic() + 60
        while len(session.game.actions) == 0:                               # it plays its setup
            assert time.monotonic() < deadline, session.engines()
            time.sleep(0.05)


def test_a_hidden_path_inside_a_shown_folder_stays_hidden(tmp_path, sandboxed):
    """The run folder, a database: hidden even where a folder the engine may read holds them
    (a project folder named on its command line, say), and a file still to be written too."""
    shown = tmp_path / "project"
    (shown / "run").mkdir(parents=True)
    (shown / "saves").mkdir()
    (shown / "run" / "draw-secret").write_text("00" * 32)
    (shown / "weights.txt").write_text("mine")
    policy = SandboxPolicy("required", read_only=(str(shown),)).hiding(shown / "run", shown / "saves" / "later.rec")
    script = ("import os, sys; p = sys.argv[1]; "
              "print(open(p + '/weights.txt').read(), os.listdir(p + '/run'), os.path.exists(p + '/saves/later.rec'))")
    confinement = Confinement(policy, [PY, "-c", script, str(shown)])
    (shown / "saves" / "later.rec").write_text("written after the engine started")
    try:
        done = subprocess.run(confinement.argv, env=confinement.env, capture_output=True, text=True, timeout=60)
    finally:
        confinement.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mine", "[]", "False"]


def test_the_cpu_limit_grows_with_the_time_a_game_gives_an_engine():
    from tournament.arbiter import TimeControl
    policy = SandboxPolicy("required")
    assert policy.with_cpu_for(TimeControl.parse("movetime=250").thinking_s()) is policy     # 250 s: under 3600
    long = policy.with_cpu_for(TimeControl.parse("clock=7200000+1000").thinking_s())          # 2 h + 1000 s
    assert long.limits.cpu_seconds == 4 * (7200 + 1000) + 1 and long.limits.memory_mib == policy.limits.memory_mib
    assert policy.with_cpu_for(TimeControl.parse("iterations=100").thinking_s()) is policy
