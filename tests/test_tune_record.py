"""bench/tune.py: with --record, a long comparison that is stopped loses none of its finished games,
resumes where it stopped, and never mixes games played under other settings; a count or budget
below one is a usage error."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

TUNE = Path(__file__).resolve().parent.parent / "bench" / "tune.py"
TINY = ["--iterations", "30", "--workers", "1"]      # iterations, not time: games reproduce


def tune(*args):
    return subprocess.run([sys.executable, str(TUNE), *TINY, *args], capture_output=True,
                          text=True, timeout=300)


def summary(run):
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()[-1]


@pytest.mark.slow
def test_a_stopped_run_resumes_from_its_record_and_ends_as_an_unbroken_run(tmp_path):
    record = tmp_path / "games.jsonl"
    summary(tune("--games", "2", "--record", str(record)))
    header, *games = record.read_text().splitlines()
    assert json.loads(header)["tune_record"] == 1 and len(games) == 2
    assert [(json.loads(g)["deal"], json.loads(g)["a_seat"]) for g in games] == [(1, 0), (1, 1)]
    with record.open("a") as handle:
        handle.write('{"deal": 2, "a_se')          # a kill in the middle of a write
    resumed = tune("--games", "4", "--record", str(record))
    assert "2 of 4 games already in" in resumed.stderr
    lines = record.read_text().splitlines()
    assert lines[:3] == [header, *games]           # the finished games are kept as they were
    assert [(json.loads(g)["deal"], json.loads(g)["a_seat"]) for g in lines[1:]] == [
        (1, 0), (1, 1), (2, 0), (2, 1)]
    assert summary(resumed) == summary(tune("--games", "4"))   # the same as never stopping


def test_a_record_of_other_settings_or_another_file_is_refused_and_left_alone(tmp_path):
    record = tmp_path / "games.jsonl"
    summary(tune("--games", "2", "--record", str(record)))
    before = record.read_bytes()
    other = tune("--games", "2", "--b", "preset=classic", "--record", str(record))
    assert other.returncode == 2 and "recorded with other settings" in other.stderr
    assert record.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    stranger = tune("--games", "2", "--record", str(notes))
    assert stranger.returncode == 2 and "not a bench/tune.py record" in stranger.stderr
    assert notes.read_text() == "my notes\n"
    nowhere = tune("--games", "2", "--record", str(tmp_path / "missing" / "games.jsonl"))
    assert nowhere.returncode == 2 and "cannot write the record" in nowhere.stderr


def test_a_damaged_line_inside_the_record_is_an_error_not_a_lost_game(tmp_path):
    record = tmp_path / "games.jsonl"
    summary(tune("--games", "4", "--record", str(record)))
    header, first, *rest = record.read_text().splitlines()
    record.write_text("\n".join([header, "garbage", *rest]) + "\n")
    damaged = tune("--games", "4", "--record", str(record))
    assert damaged.returncode == 2 and "line 2: not a recorded game" in damaged.stderr


@pytest.mark.slow
def test_a_count_or_budget_below_one_is_a_usage_error_not_a_traceback():
    for args, message in [(["--games", "0"], "--games must be at least 1"),
                          (["--workers", "0"], "--workers must be at least 1"),
                          (["--first-deal", "-1"], "--first-deal must be at least 0"),
                          (["--b-iterations", "0"], "search limit iterations must be > 0"),
                          (["--time-ms", "-5"], "search limit time_ms must be > 0"),
                          (["--time-ms", "100", "--b-time-ms", "-5"], "search limit time_ms must be > 0"),
                          (["--time-ms", "nan"], "--time-ms must be a finite number of ms"),
                          (["--time-ms", "100", "--b-time-ms", "inf"], "--b-time-ms must be a finite number of ms"),
                          (["--b-time-ms", "100"], "--b-time-ms needs --time-ms")]:
        run = tune(*args)
        assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr, args


@pytest.mark.slow
def test_a_file_that_is_no_record_is_left_alone_even_without_a_last_newline(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")                    # no newline: a 'torn' line, still not ours
    stranger = tune("--games", "2", "--record", str(notes))
    assert stranger.returncode == 2 and "not a bench/tune.py record" in stranger.stderr
    assert notes.read_text() == "my notes"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)                                 # was read (and waited on) for ever
    piped = tune("--games", "2", "--record", str(fifo))
    assert piped.returncode == 2 and "not a regular file" in piped.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_the_summary_says_how_the_deals_played_both_ways_went():
    """Each deal is played twice with the seats swapped: A won both, the same seat won both
    (by seat), B won both, or one of the two was a shared win; they add up to the deals."""
    import re
    run = tune("--games", "4")
    line = next(l for l in run.stdout.splitlines() if l.startswith("deals played both ways"))
    found = re.fullmatch(r"deals played both ways: (\d+): A won both (\d+), the same seat won both "
                         r"(\d+) \(seat 1: (\d+), seat 2: (\d+)\), B won both (\d+), with a shared win (\d+)",
                         line)
    assert found, line
    deals, a_both, same, seat_1, seat_2, b_both, shared = map(int, found.groups())
    assert deals == 2 and a_both + same + b_both + shared == 2 and seat_1 + seat_2 == same
    assert summary(run).startswith("score_a=")


def test_the_record_names_the_priors_of_the_games_player_count():
    """The shipped policy is chosen by player count: the record's header names the file the
    games' searches read, not policy.npz at every count."""
    import argparse
    from helpers import SHIPPED_POLICY_DIGESTS, SHIPPED_VALUE_DIGESTS, bench_script
    tune_script = bench_script("tune")
    for players in (2, 3, 4):
        args = argparse.Namespace(players=players, iterations=30, time_ms=None, b_iterations=30, b_time_ms=None)
        header = tune_script.record_header(args, {}, {"policy_weights": "uniform"})
        assert header["a"]["policy"] == SHIPPED_POLICY_DIGESTS[players - 2]
        assert header["a"]["weights"] == header["b"]["weights"] == SHIPPED_VALUE_DIGESTS[players - 2]
        assert "policy" not in header["b"]                  # uniform priors: no file
