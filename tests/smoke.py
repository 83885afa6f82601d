"""The smoke test of an installed palais-engine, as a player would try it (no source tree).

Run by .ci/run after installing the wheel with no compiler, and by cibuildwheel on every
platform (pyproject.toml [tool.cibuildwheel] test-command):

    python tests/smoke.py

It runs the installed commands (next to this Python): `palais --version`, a search that
must run with flush-to-zero (search/fp_mode.h) where the platform has the control, `palais
random-game`, `palais-engine compliance -- palais-engine`, `palais hint` on a position (the start of a seeded game, written by the installed package), and `palais serve`
until its page answers; and it checks that the package was imported
from the installation, not from a source tree. Each step prints `ok <step>` or the output of
what failed, and the exit status is the number of steps that failed.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).parent


def command(name: str) -> str:
    """The installed console script `name` beside this interpreter (or on PATH)."""
    for candidate in (BIN / name, BIN / f"{name}.exe"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if not found:
        raise SystemExit(f"smoke: the command {name!r} is not installed")
    return found


def run(step: str, args: list, expect: str, timeout: float = 300) -> bool:
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
    if done.returncode == 0 and expect in done.stdout:
        print(f"ok {step}")
        return True
    print(f"FAILED {step}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_answers(step: str) -> bool:
    port = free_port()
    server = subprocess.Popen([command("palais"), "serve", "--port", str(port), "--db", ":memory:"]
                              if _serve_has_db() else [command("palais"), "serve", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              cwd=tempfile.gettempdir())
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    page = answer.read().decode("utf-8", "replace")
                if answer.status == 200 and "<html" in page.lower():
                    print(f"ok {step}")
                    return True
            except OSError:
                time.sleep(0.3)
            if server.poll() is not None:
                break
        print(f"FAILED {step}: the page did not answer\n{server.stdout.read() if server.poll() is not None else ''}")
        return False
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _serve_has_db() -> bool:
    done = subprocess.run([command("palais"), "serve", "--help"], capture_output=True, text=True)
    return "--db" in done.stdout


def installed_not_from_source() -> bool:
    code = ("import engine, pathlib; p = pathlib.Path(engine.__file__).resolve(); "
            "print(p); assert 'site-packages' in p.parts or 'dist-packages' in p.parts, p")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())
    if done.returncode == 0:
        print(f"ok imported from the installation: {done.stdout.strip()}")
        return True
    print(f"FAILED not imported from an installation:\n{done.stdout}{done.stderr}")
    return False


FLUSH_TO_ZERO_MACHINES = ("x86_64", "amd64", "aarch64", "arm64")   # search/fp_mode.h


def search_flushes_subnormals(step: str) -> bool:
    """A search of the installed build runs with flush-to-zero and denormals-are-zero set and
    restores the mode after (search/fp_mode.h): on every wheel platform cibuildwheel runs this
    on, the evidence that the compiled code path works there."""
    code = ("import platform; from engine.state import State; from search import _value; "
            "from search.mcts import new_tree; from search.params import SearchParams; "
            "s = State.new_game(2, seed=3); t = new_tree(SearchParams(seed=1, hash_mb=1), True, 1, 2); "
            "t.set_root(s.view(s.to_move), s.to_move); t.run(20, 0.0, 0); "
            "print(platform.machine(), repr(_value.floating_point_control()), t.fp_mode_in_run, "
            "_value.floating_point_mode())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())
    words = done.stdout.split()
    if done.returncode == 0 and len(words) >= 4:
        machine, in_run, after = words[0].lower(), words[-2], words[-1]
        if machine not in FLUSH_TO_ZERO_MACHINES and in_run == "0":
            print(f"ok {step}: untested here, {machine} has no flush-to-zero control in this build")
            return True
        if in_run == "3" and after == "0":
            print(f"ok {step}: {done.stdout.strip()}")
            return True
    print(f"FAILED {step}: {done.stdout}{done.stderr[-2000:]}")
    return False


def a_position() -> str:
    """The position string of a seeded new game, written by the installed package."""
    code = ("from engine.notation import position_to_string; from engine.state import State; "
            "print(position_to_string(State.new_game(2, seed=3)))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=tempfile.gettempdir()).stdout.strip()


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    results = [
        installed_not_from_source(),
        run("palais --version", [command("palais"), "--version"], "flush-to-zero: "),
        search_flushes_subnormals("a search runs with flush-to-zero and restores the mode"),
        run("palais random-game", [command("palais"), "random-game", "--players", "3", "--seed", "1"], "winner"),
        run("palais-engine compliance", [command("palais-engine"), "compliance", "--timeout", "60", "--",
                                         command("palais-engine")], "PASS"),
        run("palais hint", [command("palais"), "hint", a_position(), "--iterations", "300"], " 1. "),
        serve_answers("palais serve answers its page"),
    ]
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    sys.exit(main())
