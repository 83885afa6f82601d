"""bench/tune.py with 3-4 players (issue 27, item 4): one seat of A against n - 1 seats of B,
which may be another algorithm; each side's first places, mean VP, share under half the
winner's VP and mean gold left unspent at the end, worked out by hand here, and the gold kept
in --record (older records without it still read)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tournament.stats import seat_outcomes

from helpers import bench_script

TUNE = Path(__file__).resolve().parent.parent / "bench" / "tune.py"
tune = bench_script("tune")


def test_each_sides_first_places_vp_collapses_and_unspent_gold_by_hand():
    # (returns, scores, A's seat, gold at the end), 4 players
    results = [
        ([1.0, 0.0, 0.0, 0.0], [80, 60, 30, 50], 0, [2, 10, 40, 0]),    # A first; seat 2 under half
        ([0.5, 0.5, 0.0, 0.0], [70, 70, 20, 34], 2, [6, 1, 30, 3]),     # A (seat 2) under half; B shares
        ([0.0, 0.0, 0.0, 1.0], [40, 50, 45, 90], 1, [5, 8, 12, 0]),     # A second, not under half (50 >= 45)
    ]
    a, b = tune.sides(results, 4)
    assert a.seats == 3 and b.seats == 9
    assert a.won == 1.0 and b.won == 2.0            # a shared first place counts as a half each
    assert a.mean_vp == pytest.approx((80 + 20 + 50) / 3)
    assert b.mean_vp == pytest.approx((60 + 30 + 50 + 70 + 70 + 34 + 40 + 45 + 90) / 9)
    assert a.collapses == 1 and a.collapse_share == pytest.approx(1 / 3)
    assert b.collapses == 3                         # 30 < 40; 34 < 35; 40 < 45
    assert a.mean_gold == pytest.approx((2 + 30 + 8) / 3)
    assert b.mean_gold == pytest.approx((10 + 40 + 0 + 6 + 1 + 3 + 5 + 12 + 0) / 9)
    assert tune.gold_text(a) == "13.33" and "unspent gold 13.3 (over 3)" in a.line()


def test_games_recorded_without_the_gold_count_everywhere_but_in_the_gold_mean():
    side = seat_outcomes([(1.0, [50, 40], 0, None), (0.0, [30, 40], 0, [7, 1]), (0.0, [10, 40], 0)])
    assert side.seats == 3 and side.gold == [7] and side.mean_gold == 7.0
    nothing = seat_outcomes([(1.0, [50, 40], 0)])
    assert nothing.mean_gold is None and "unspent gold" not in nothing.line()
    assert tune.gold_text(nothing) == "nan"


def run_tune(*args):
    return subprocess.run([sys.executable, str(TUNE), "--iterations", "20", "--workers", "1", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_four_players_one_seat_against_three_pimc_reports_and_records_the_gold(tmp_path):
    record = tmp_path / "four.jsonl"
    run = run_tune("--players", "4", "--games", "4", "--b", "algorithm=pimc,determinizations=2",
                   "--record", str(record))
    assert run.returncode == 0, run.stderr
    header, *games = record.read_text().splitlines()
    assert json.loads(header)["b"]["params"]["algorithm"] == "pimc"
    games = [json.loads(g) for g in games]
    assert [g["a_seat"] for g in games] == [0, 1, 2, 3]       # A rotated over one deal
    assert all(len(g["gold"]) == 4 and min(g["gold"]) >= 0 for g in games)
    a, b = tune.sides([(g["returns"], g["scores"], g["a_seat"], g["gold"]) for g in games], 4)
    last = run.stdout.splitlines()[-1]
    assert f"gold_a={tune.gold_text(a)} gold_b={tune.gold_text(b)}" in last
    assert "(over 4)" in run.stdout and "(over 12)" in run.stdout
    # a record written before the gold was kept: its games still count, the gold of the new ones only
    lines = record.read_text().splitlines()
    old = [lines[0]] + [json.dumps({k: v for k, v in json.loads(g).items() if k != "gold"}) for g in lines[1:3]]
    record.write_text("\n".join(old) + "\n")
    resumed = run_tune("--players", "4", "--games", "4", "--b", "algorithm=pimc,determinizations=2",
                       "--record", str(record))
    assert resumed.returncode == 0, resumed.stderr
    assert "2 of 4 games already in" in resumed.stderr
    assert "(over 2)" in resumed.stdout and "(over 6)" in resumed.stdout
    assert "over 4," in resumed.stdout                         # A's first places still over 4 games


@pytest.mark.slow
def test_a_bad_side_is_one_usage_line():
    for b, message in [("algorithm=alphazero", "algorithm: 'alphazero' is not one of"),
                       ("value_turns=-1", "value_turns: -1 is outside 0..1000"),
                       ("value_turns=x", "value_turns: expected a whole number"),
                       ("preset=v99", "no such preset")]:
        run = run_tune("--players", "4", "--games", "4", "--b", b)
        assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr, b
