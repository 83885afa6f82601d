"""The tournament runner: scheduling, statistics, broken engines, resume, hidden cards."""

import json
import os
import re
import sys
import time

import pytest
from click.testing import CliRunner

from engine.constants import A_DRAW, A_DRAW_UNKNOWN, N_CARDS
from engine.errors import PalaisError
from engine.notation import token_to_action
from engine.state import State
from protocol.commands import Go
from protocol.sandbox import OFF
from tournament.arbiter import TimeControl, _go_limits, play_game
from tournament.cli import main as cli_main
from tournament.engines import EngineSpec, EngineSpecError, parse_engine
from tournament.runner import Settings, run
from tournament.schedule import plan
from tournament.stats import SPRT, two_player

from helpers import run_folder
from processes import deaf_engine_cmd, left_running, pid_file, pids  # noqa: F401 (a fixture)

PY = sys.executable
OURS = f'cmd="{PY} -m protocol.cli"'
FAST = TimeControl(movetime_ms=None, iterations=60, margin_ms=20_000)


def spec(text):
    return parse_engine(text)


def test_engine_specs_parse_and_bad_ones_say_why():
    s = spec(f'name=new {OURS} option.Threads=1 option.Move\\ Overhead=5')
    assert s.name == "new" and s.cmd == (PY, "-m", "protocol.cli")
    assert s.options == (("Threads", "1"), ("Move Overhead", "5"))
    for bad, words in [("cmd=x", "needs name"), ("name=a", "needs cmd"), ("name=a cmd=x colour=red", "unknown key"),
                       ("name=a cmd=x option.=3", "option name"), ('name=a cmd="x', "quotation")]:
        with pytest.raises(EngineSpecError, match=words):
            parse_engine(bad)


def test_every_engine_sits_in_every_seat_over_the_same_deal():
    jobs = plan(4, 4, deals=2, schedule="round-robin")
    assert len(jobs) == 2 * 1 * 4
    for seed in (1, 2):
        seatings = [j.seats for j in jobs if j.deal_seed == seed]
        for engine in range(4):
            assert sorted(s.index(engine) for s in seatings) == [0, 1, 2, 3]
    gauntlet = plan(3, 2, deals=1, schedule="gauntlet")
    assert [j.seats for j in gauntlet] == [(0, 1), (1, 0), (0, 2), (2, 0)]
    assert [j.index for j in gauntlet] == [0, 1, 2, 3]


def test_time_controls_parse():
    assert TimeControl.parse("movetime=250").movetime_ms == 250
    tc = TimeControl.parse("clock=60000+500")
    assert (tc.clock_ms, tc.inc_ms, tc.movetime_ms) == (60000, 500, None)
    assert TimeControl.parse("iterations=40").iterations == 40
    for bad in ("fast", "movetime=0", "clock=x", "iterations=-1"):
        with pytest.raises(PalaisError, match="time control"):
            TimeControl.parse(bad)


def test_two_player_statistics_on_known_results():
    games = []
    for pair, (first, second) in enumerate([(1.0, 1.0), (1.0, 0.0), (1.0, 0.5), (0.0, 1.0)]):
        for k, ret in enumerate((first, second)):
            names = ["a", "b"] if k == 0 else ["b", "a"]
            seat = names.index("a")
            returns = [0.0, 0.0]
            returns[seat] = ret
            returns[1 - seat] = 1.0 - ret
            games.append({"index": 2 * pair + k, "deal_seed": pair, "group": 0, "names": names,
                          "returns": returns, "ranks": [1, 2]})
    stats = two_player(games, "a", "b")
    assert stats.games == 8 and stats.wins == 5 and stats.draws == 1 and stats.losses == 2
    assert stats.score == pytest.approx(5.5 / 8)
    assert stats.pentanomial == [0, 0, 2, 1, 1] and stats.pairs == 4      # pair scores 2, 1, 1.5, 1
    assert stats.elo_low < stats.elo < stats.elo_high and 0.5 < stats.los < 1.0
    sprt = SPRT(0, 10)
    assert sprt.decision([2.0] * 40)[0] == "H1"
    assert sprt.decision([0.0, 0.5] * 40)[0] == "H0"


@pytest.mark.slow
def test_a_small_tournament_with_the_random_mover_completes(tmp_path):
    settings = Settings([spec(f"name=ismcts {OURS} option.Seed=2"),
                         spec(f'name=random cmd="{PY} -m tournament.testing_engines --mode random --seed 4"')],
                        players=2, deals=2, tc=FAST)
    summary = run(settings, tmp_path / "run", concurrency=2)
    assert summary["complete"] and summary["games"] == 4 and not summary["forfeits"]
    assert summary["engines"]["ismcts"]["win_share"] > summary["engines"]["random"]["win_share"]
    assert len(list((tmp_path / "run" / "records").glob("game-*.txt"))) == 4
    assert summary["pairings"]["ismcts vs random"]["pairs"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["crash", "stall", "illegal", "garbage"])
def test_a_broken_engine_loses_exactly_the_games_it_breaks(tmp_path, mode):
    settings = Settings([spec(f"name=good {OURS} option.Algorithm=greedy"),
                         spec(f'name=steady cmd="{PY} -m tournament.testing_engines --mode random"'),
                         spec(f'name=broken cmd="{PY} -m tournament.testing_engines --mode {mode} --after 3"')],
                        players=2, deals=1,
                        tc=TimeControl(movetime_ms=None, iterations=20, safety_timeout_s=3))
    summary = run(settings, tmp_path / mode)
    assert summary["complete"] and summary["games"] == 4
    games = [json.loads(l) for l in (tmp_path / mode / "games.jsonl").read_text().splitlines()]
    for g in games:
        if "broken" in g["names"]:
            seat = g["names"].index("broken")
            assert list(g["forfeits"]) == [str(seat)] and g["returns"][seat] == 0.0
        else:
            assert g["forfeits"] == {}
    assert {f["engine"] for f in summary["forfeits"]} == {"broken"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["bad-utf8", "nul", "long-line", "garbage"])
def test_an_engine_writing_garbage_forfeits_at_once_for_invalid_output(mode):
    """Before: a byte that is not UTF-8 killed the client's reader, and the game waited for
    the safety timeout (600 s by default, on every game of an iterations run)."""
    seats = [spec(f"name=good {OURS} option.Algorithm=greedy"),
             spec(f'name=broken cmd="{PY} -m tournament.testing_engines --mode {mode} --after 2"')]
    started = time.monotonic()
    result = play_game(0, 3, seats, TimeControl(movetime_ms=None, iterations=20, safety_timeout_s=120))
    assert list(result.forfeits) == ["1"] and "invalid output" in result.forfeits["1"]
    assert result.returns == [1.0, 0.0]
    assert time.monotonic() - started < 60          # generous; the broken engine says nothing more


@pytest.mark.slow
def test_a_run_killed_midway_and_resumed_gives_the_same_table(tmp_path):
    engines = [spec(f"name=a {OURS} option.Seed=1"), spec(f"name=b {OURS} option.Algorithm=pimc option.Seed=2")]
    settings = Settings(engines, players=2, deals=2, tc=FAST)
    # both folders hold one draw-secret, so their games draw the same cards (without it the
    # two runs played different games, and agreed only while one side won every game)
    whole = run(settings, run_folder(tmp_path / "whole"))
    partial = run(settings, run_folder(tmp_path / "cut"), stop_after=3)
    assert not partial["complete"] and partial["games"] == 3
    with pytest.raises(PalaisError, match="--resume"):
        run(settings, tmp_path / "cut")
    resumed = run(settings, tmp_path / "cut", resume=True)
    assert resumed == whole


@pytest.mark.slow
def test_no_engine_ever_receives_another_seats_card():
    seats = [spec(f"name=p{q} {OURS} option.Algorithm=greedy") for q in range(3)]
    result = play_game(0, 8, seats, TimeControl(movetime_ms=None, iterations=10, margin_ms=20_000), log_sent=True)
    positions = [(seat, line) for seat, line in result.sent if line.startswith("position ")]
    assert positions and result.actions > 50
    typed_draws_checked = 0
    for seat, line in positions:
        tokens = line.split(" moves ")[1].split() if " moves " in line else []
        public = State.new_game(3, seed=8).public_view()
        for token in tokens:
            action = token_to_action(token)
            if public.is_chance():
                drawer = public.to_move
                if A_DRAW <= action < A_DRAW + N_CARDS:
                    assert drawer == seat, f"seat {seat + 1} was told seat {drawer + 1}'s card"
                    typed_draws_checked += 1
                public.apply(A_DRAW_UNKNOWN)
            else:
                public.apply(action)
    assert typed_draws_checked > 0


@pytest.mark.slow
def test_the_command_line_runs_a_tournament_and_rejects_bad_options(tmp_path):
    runner = CliRunner()
    out = tmp_path / "cli"
    result = runner.invoke(cli_main, ["--engine", f"name=a {OURS} option.Algorithm=greedy",
                                      "--engine", f'name=b cmd="{PY} -m tournament.testing_engines"',
                                      "--deals", "1", "--tc", "iterations=10", "--margin-ms", "20000",
                                      "--out", str(out), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["games"] == 2 and (out / "summary.csv").exists()
    bad = runner.invoke(cli_main, ["--engine", "name=a", "--out", str(tmp_path / "x")])
    assert bad.exit_code != 0 and "needs cmd" in bad.output
    again = runner.invoke(cli_main, ["--engine", f"name=a {OURS}", "--engine", f"name=b {OURS}",
                                     "--out", str(out)])
    assert again.exit_code != 0 and "--resume" in again.output


def test_the_ray_backend_without_ray_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)          # `import ray` now fails as if missing
    runner = CliRunner()
    args = ["--engine", f"name=a {OURS}", "--engine", f"name=b {OURS}", "--deals", "1"]
    missing = runner.invoke(cli_main, args + ["--backend", "ray", "--out", str(tmp_path / "r")])
    assert missing.exit_code == 1
    assert missing.output.strip() == "Error: --backend ray needs Ray: pip install 'palais-engine[ray]'"
    assert not (tmp_path / "r").exists()                  # nothing saved: a plain rerun works
    stray = runner.invoke(cli_main, args + ["--ray-address", "auto", "--out", str(tmp_path / "l")])
    assert stray.exit_code == 1 and "--ray-address needs --backend ray" in stray.output


@pytest.mark.slow
def test_no_engine_process_outlives_its_game(tmp_path, pid_file):
    """An engine that ignores quit, the end of its input and SIGTERM, started by a launcher
    process: after the game neither the launcher nor the engine runs."""
    deaf = EngineSpec("deaf", tuple(deaf_engine_cmd(pid_file)))
    steady = spec(f'name=steady cmd="{PY} -m tournament.testing_engines --mode random --seed 1"')
    summary = run(Settings([deaf, steady], players=2, deals=1, tc=FAST), tmp_path / "run", stop_after=1,
                  sandbox=OFF)                   # (its pid file is written outside a sandbox's view)
    assert summary["games"] == 1 and not summary["forfeits"]
    assert len(pids(pid_file)) == 2                       # the launcher and its engine
    assert left_running(pid_file) == []


@pytest.mark.slow
def test_an_iterations_budget_never_forfeits_a_slow_answer(tmp_path):
    """A search by iterations takes what the machine needs: an engine answering a second late
    (as on a busy machine) does not forfeit, however small the margin; only the safety
    timeout bounds it."""
    slow = f'name=slow cmd="{PY} -m tournament.testing_engines --mode slow --after 2"'
    steady = f'name=steady cmd="{PY} -m tournament.testing_engines --mode random --seed 1"'
    result = CliRunner().invoke(cli_main, ["--engine", slow, "--engine", steady, "--deals", "1",
                                           "--tc", "iterations=3000", "--margin-ms", "100",
                                           "--out", str(tmp_path / "run"), "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["games"] == 2 and summary["forfeits"] == []
    tc = TimeControl.parse("iterations=3000", margin_ms=100, safety_timeout_s=42)
    assert _go_limits(tc, [0, 0], 2) == (Go(iterations=3000), 42)
    assert _go_limits(TimeControl.parse("movetime=250", 100), [0, 0], 2) == (Go(movetime_ms=250), 0.35)


@pytest.mark.parametrize("first, message", [
    (f'name=a,b cmd="{PY} -m tournament.testing_engines"', "player name 'a,b'"),
    (f'name=b cmd="{PY} -m tournament.testing_engines"', "engine names must differ: 'b' is given twice"),
    ('name=a cmd="/no/such/engine --fast"', "engine 'a': command '/no/such/engine' not found"),
], ids=["comma-in-name", "name-twice", "no-such-command"])
def test_a_bad_engine_spec_is_refused_before_anything_is_written(tmp_path, first, message):
    out = tmp_path / "run"
    args = ["--engine", first, "--engine", f'name=b cmd="{PY} -m tournament.testing_engines"',
            "--deals", "1", "--tc", "iterations=10", "--out", str(out), "--quiet"]
    bad = CliRunner().invoke(cli_main, args)
    assert bad.exit_code == 1
    assert bad.output.startswith("Error: ") and message in bad.output and len(bad.output.splitlines()) == 1
    assert not out.exists()                               # no run.json: a fixed rerun may use the folder


def test_the_runner_checks_the_engines_before_it_writes(tmp_path):
    twice = Settings([spec(f"name=a {OURS}"), spec(f"name=a {OURS}")], deals=1, tc=FAST)
    with pytest.raises(EngineSpecError, match="must differ"):
        run(twice, tmp_path / "run")
    assert not (tmp_path / "run").exists()


class _FakeRay:
    """Stands in for the ray module: records how Ray is initialised; no instance is running."""

    def __init__(self, version):
        self.__version__ = version
        self.inits = []
        self.folders = []

    def is_initialized(self):
        return False

    def init(self, **kwargs):
        if kwargs.get("address") == "auto":
            raise ConnectionError("Could not find any running Ray instance.")
        temp = kwargs.pop("_temp_dir", None)
        if temp is not None:                     # where the instance keeps its files
            folder = os.path.dirname(temp)
            self.folders.append((folder, os.stat(folder).st_mode & 0o777))
        self.inits.append((kwargs, os.environ.get("RAY_AUTH_MODE")))

    def remote(self, function):
        return function

    def shutdown(self):
        pass


@pytest.mark.parametrize("version, preset, auth", [("2.60.0", None, "token"), ("2.9.3", None, None),
                                                   ("2.55.1", "disabled", "disabled")])
def test_a_ray_instance_started_for_the_run_has_no_dashboard(monkeypatch, tmp_path, version, preset, auth):
    from jobs.backends import RayBackend
    fake = _FakeRay(version)
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))               # where Ray keeps its token file
    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAY_AUTH_MODE", "x")              # so that teardown restores the old value
    if preset is None:
        monkeypatch.delenv("RAY_AUTH_MODE")
    else:
        monkeypatch.setenv("RAY_AUTH_MODE", preset)
    with RayBackend(print, 1, None):
        pass
    with RayBackend(print, 1, "local"):
        pass
    started = ({"address": "local", "include_dashboard": False}, auth)
    assert fake.inits == [started, started]
    # its files in a folder of its own that only this user may enter, removed at the end
    assert [mode for _, mode in fake.folders] == [0o700, 0o700]
    assert not any(os.path.exists(folder) for folder, _ in fake.folders)
    token = tmp_path / ".ray" / "auth_token"
    if auth == "token":                                    # made for Ray, for this user only
        assert token.stat().st_mode & 0o777 == 0o600 and len(token.read_text()) == 64
        assert (tmp_path / ".ray").stat().st_mode & 0o777 == 0o700
    else:
        assert not token.exists()
    with RayBackend(print, 1, "ray://head:10001"):
        pass
    assert fake.inits[2] == ({"address": "ray://head:10001"}, auth)   # a cluster's own settings
    assert len(fake.folders) == 2


def test_a_token_file_that_exists_or_a_token_given_otherwise_is_left_alone(monkeypatch, tmp_path):
    from jobs.backends import RayBackend
    monkeypatch.setitem(sys.modules, "ray", _FakeRay("2.60.0"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RAY_AUTH_TOKEN", "given")
    with RayBackend(print, 1, "local"):
        pass
    assert not (tmp_path / ".ray").exists()
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("mine")
    with RayBackend(print, 1, "local"):
        pass
    assert (tmp_path / ".ray" / "auth_token").read_text() == "mine"


@pytest.mark.slow
def test_games_cut_short_by_a_stop_leave_no_engine_process(tmp_path, pid_file):
    """Two games at once, the run stopped after the first: the game still in flight is
    stopped too, and it ends its engines (deaf ones behind launchers) on the way out."""
    deaf = [EngineSpec(f"deaf{q}", tuple(deaf_engine_cmd(pid_file))) for q in range(2)]
    summary = run(Settings(deaf, players=2, deals=2, tc=FAST), tmp_path / "run", concurrency=2, sandbox=OFF,
                  stop_after=1)
    assert summary["games"] == 1
    assert len(pids(pid_file)) >= 4                       # a launcher and an engine per seat, per game
    assert left_running(pid_file) == []


def test_an_out_folder_that_cannot_be_made_is_one_error_line(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    result = CliRunner().invoke(cli_main, ["--engine", f"name=a {OURS}", "--engine", f"name=b {OURS}",
                                           "--out", str(tmp_path / "a-file" / "run"), "--quiet"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "cannot write: Not a directory" in result.output
    assert (tmp_path / "a-file").read_text() == "not a folder"


@pytest.mark.slow
def test_the_sent_log_holds_every_line_in_the_order_sent():
    seats = [spec(f'name=r{q} cmd="{PY} -m tournament.testing_engines --mode random --seed {q}"')
             for q in range(2)]
    result = play_game(0, 13, seats, TimeControl(movetime_ms=None, iterations=10, margin_ms=20_000),
                       log_sent=True)
    sent = result.sent
    assert sent[:6] == [(0, "pri"), (0, "newgame"), (0, "isready"), (1, "pri"), (1, "newgame"), (1, "isready")]
    assert sent[-2:] == [(0, "quit"), (1, "quit")]
    searches = sent[6:-2]
    assert searches and len(searches) % 2 == 0
    for (seat, position), (same, go) in zip(searches[::2], searches[1::2]):
        assert position.startswith("position start players 2 layout ") and go == "go iterations 10"
        assert " seed " not in position                      # the setup is written out, never a seed
        assert seat == same
    assert play_game(0, 13, seats, TimeControl(movetime_ms=None, iterations=10, margin_ms=20_000)).sent == []


# games.jsonl after a kill in the middle of a line (tournament/store.py, common/json_lines.py)

RANDOM_PAIR = [f'name=r1 cmd="{PY} -m tournament.testing_engines --mode random --seed 1"',
               f'name=r2 cmd="{PY} -m tournament.testing_engines --mode random --seed 2"']


def tournament(out, *extra):
    args = [a for e in RANDOM_PAIR for a in ("--engine", e)] + [
        "--deals", "2", "--tc", "iterations=10", "--out", str(out), "--json", "--quiet", *extra]
    return CliRunner().invoke(cli_main, args)


@pytest.mark.slow
def test_a_line_torn_by_a_kill_is_played_again_on_resume_and_the_file_mended(tmp_path):
    whole = tournament(run_folder(tmp_path / "whole"))
    assert whole.exit_code == 0, whole.output
    games = tmp_path / "cut" / "games.jsonl"
    assert tournament(run_folder(tmp_path / "cut")).exit_code == 0
    text = games.read_text()
    lines = text.splitlines()
    assert len(lines) == 4
    games.write_text(text[:len(text) - len(lines[-1]) // 2 - 1])     # the kill: half a last line
    resumed = tournament(tmp_path / "cut", "--resume")
    assert resumed.exit_code == 0, resumed.output
    summary = json.loads(resumed.stdout)
    assert summary["complete"] and summary["games"] == 4
    assert summary == json.loads(whole.stdout)
    on_disk = [json.loads(line) for line in games.read_text().splitlines()]   # every line whole
    assert sorted(g["index"] for g in on_disk) == [0, 1, 2, 3]
    assert games.read_text() == (tmp_path / "whole" / "games.jsonl").read_text()
    assert (tmp_path / "cut" / "records" / "game-00003.txt").read_text() == (
        tmp_path / "whole" / "records" / "game-00003.txt").read_text()


@pytest.mark.slow
def test_a_damaged_line_inside_games_jsonl_stops_the_resume_with_its_number(tmp_path):
    assert tournament(tmp_path / "run").exit_code == 0
    games = tmp_path / "run" / "games.jsonl"
    lines = games.read_text().splitlines()
    games.write_text("\n".join([lines[0], "garbage", *lines[2:]]) + "\n")
    before = games.read_bytes()
    resumed = tournament(tmp_path / "run", "--resume")
    assert resumed.exit_code == 1
    assert resumed.output.splitlines()[-1] == (
        f"Error: {games}, line 2: not a game line of this run (not JSON)")
    assert games.read_bytes() == before


def test_the_store_drops_a_torn_last_line_and_completes_a_whole_one(tmp_path):
    from tournament.store import RunStore
    store = RunStore(tmp_path / "run")
    store.create({"players": 2}, resume=False)
    games = tmp_path / "run" / "games.jsonl"
    one, two = json.dumps({"index": 0, "names": ["a", "b"]}), json.dumps({"index": 1, "names": ["b", "a"]})
    games.write_text(f"{one}\n{two[:9]}")                      # torn in the middle
    assert [g["index"] for g in store.create({"players": 2}, resume=True)] == [0]
    assert games.read_text() == f"{one}\n"
    games.write_text(f"{one}\n{two}")                          # torn just before the newline
    assert [g["index"] for g in store.create({"players": 2}, resume=True)] == [0, 1]
    assert games.read_text() == f"{one}\n{two}\n"
    for damage, why in [(f"{one}\n[1, 2]\n{two}\n", "line 2: not a game line of this run"),
                        (f"{one}\n{{\"index\": -1}}", "line 2: not a game line of this run"),
                        (f"\xff\n{one}\n", "line 1: not a game line of this run (not JSON)"),
                        ("[" * 100_000 + "\n", "line 1: not a game line of this run (not JSON)")]:
        games.write_text(damage, encoding="latin-1")
        with pytest.raises(PalaisError, match=re.escape(why)):
            store.create({"players": 2}, resume=True)
    (tmp_path / "run" / "run.json").write_text("{damaged")
    with pytest.raises(PalaisError, match="run.json: not the settings of a run"):
        store.create({"players": 2}, resume=True)
    games.unlink()
    os.mkfifo(games)                                            # not read (it would hang), refused
    (tmp_path / "run" / "run.json").write_text(json.dumps({"players": 2}))
    with pytest.raises(PalaisError, match="games.jsonl: not a regular file"):
        store.create({"players": 2}, resume=True)


def test_a_forfeit_reason_of_any_length_is_cut_so_the_record_reads_back():
    """An engine's words reach the reason (a bad token, its error line): a hostile one could
    make the Termination header longer than a record may hold."""
    from engine.record import read_record, record_from_actions, write_record
    from tournament.arbiter import MAX_REASON_CHARS, Forfeit
    reason = Forfeit(1, "bestmove token 1: " + "X" * 200_000).reason
    assert len(reason) < MAX_REASON_CHARS + 40 and reason.endswith("(200018 characters)")
    text = write_record(record_from_actions(2, [], seed=1, headers={"Termination": f"seat 2 forfeits: {reason}"}))
    assert read_record(text).headers["Termination"].startswith("seat 2 forfeits: bestmove token 1: XXX")
