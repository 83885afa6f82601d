"""`palais train` (search/train.py): a tiny run is reproducible under its seed, a restart
skips the games already played, and bad options or folders get clear errors."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.errors import PalaisError
from engine.features import FEATURE_SIZE
from play.cli import main as palais
from search.train import (ROW, VALIDATION_EVERY, FitOptions, GameOptions, RunFolder, fit, generate,
                          gradients, initial_weights, log_loss, match, training_rows)
from search.value import ARRAY_NAMES, load_value_model, save_weights

TINY = GameOptions(seed=4, players=2, iterations=12, positions=3)


def tiny_run(folder, games=4, epochs=3, seed=4):
    run = RunFolder(folder, TINY)
    generate(run, games)
    x, y, g = run.rows()
    return fit(x, y, g, FitOptions(hidden=(8, 4), epochs=epochs, batch=8, seed=seed))


@pytest.mark.slow
def test_a_tiny_run_is_reproducible_under_its_seed(tmp_path):
    first, curve = tiny_run(tmp_path / "a")
    second, again = tiny_run(tmp_path / "b")
    for name in ARRAY_NAMES:
        assert np.array_equal(first[name], second[name])
    assert curve == again
    assert curve[-1]["train"] < curve[0]["train"]          # the fit learns something
    other, _ = tiny_run(tmp_path / "c", seed=5)
    assert not np.array_equal(first["w1"], other["w1"])


def test_rows_hold_each_seats_observation_and_outcome(tmp_path):
    run = RunFolder(tmp_path, TINY)
    generate(run, 2)
    x, y, games = run.rows()
    assert x.shape == (2 * 3 * 2, FEATURE_SIZE)
    for game in run.games:
        rows = y[games == game["index"]]
        assert game["rows"] == 6
        assert list(rows) == game["returns"] * 3          # positions x seats, in seat order
    assert (tmp_path / "samples.f32").stat().st_size == len(x) * ROW * 4


def test_a_restart_skips_the_games_already_played(tmp_path):
    run = RunFolder(tmp_path / "r", TINY)
    assert generate(run, 2) == 2
    again = RunFolder(tmp_path / "r", TINY)
    assert len(again.games) == 2
    assert generate(again, 3) == 1                           # only the third is played
    assert generate(again, 3) == 0
    fresh = RunFolder(tmp_path / "f", TINY)
    generate(fresh, 3)
    assert np.array_equal(again.rows()[0], fresh.rows()[0])
    assert (tmp_path / "r" / "games.jsonl").read_text() == (tmp_path / "f" / "games.jsonl").read_text()


def test_games_played_at_once_in_processes_are_the_games_played_one_by_one(tmp_path):
    """Each game depends only on the run's options and its index: a pool of processes gives
    the same files, appended in index order, and a restart on either goes on from there."""
    one = RunFolder(tmp_path / "one", TINY)
    assert generate(one, 3) == 3
    pool = RunFolder(tmp_path / "pool", TINY)
    assert generate(pool, 2, concurrency=2) == 2
    assert generate(RunFolder(tmp_path / "pool", TINY), 5, concurrency=3) == 3
    assert generate(one, 5) == 2
    for name in ("games.jsonl", "samples.f32", "policy.f32"):
        assert (tmp_path / "pool" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert [g["index"] for g in pool.games] == [0, 1]       # the folder object read at its opening


def test_rows_of_a_game_cut_short_are_dropped_on_restart(tmp_path):
    run = RunFolder(tmp_path, TINY)
    generate(run, 1)
    size = (tmp_path / "samples.f32").stat().st_size
    with open(tmp_path / "samples.f32", "ab") as out:          # a crash after half a game's rows
        out.write(b"\0" * 1000)
    again = RunFolder(tmp_path, TINY)
    assert (tmp_path / "samples.f32").stat().st_size == size
    generate(again, 2)
    fresh = RunFolder(tmp_path / "fresh", TINY)
    generate(fresh, 2)
    assert np.array_equal(again.rows()[0], fresh.rows()[0])


def test_a_game_line_torn_by_a_kill_is_dropped_with_its_rows_and_played_again(tmp_path):
    fresh = RunFolder(tmp_path / "f", TINY)
    generate(fresh, 2)
    run = RunFolder(tmp_path / "r", TINY)
    generate(run, 2)
    index = tmp_path / "r" / "games.jsonl"
    text = index.read_text()
    index.write_text(text[:-20])                              # the kill: the second line cut short
    other = RunFolder.existing(tmp_path / "r")                # another run's reader: no mending
    assert len(other.games) == 1 and index.read_text() == text[:-20]
    again = RunFolder(tmp_path / "r", TINY)
    assert len(again.games) == 1 and index.read_text() == text.splitlines(keepends=True)[0]
    assert (tmp_path / "r" / "samples.f32").stat().st_size == again.games[0]["rows"] * ROW * 4
    assert generate(again, 2) == 1
    assert index.read_text() == (tmp_path / "f" / "games.jsonl").read_text()
    assert np.array_equal(again.rows()[0], fresh.rows()[0])


def test_a_run_folder_refuses_other_options_and_damage(tmp_path):
    RunFolder(tmp_path, TINY)
    with pytest.raises(PalaisError, match="this run was made with"):
        RunFolder(tmp_path, GameOptions(seed=5, players=2, iterations=12, positions=3))
    run = RunFolder(tmp_path, TINY)
    generate(run, 1)
    (tmp_path / "games.jsonl").write_text("{not json\n")
    with pytest.raises(PalaisError, match="games.jsonl, line 1: not a game line"):
        RunFolder(tmp_path, TINY)
    (tmp_path / "games.jsonl").write_text(json.dumps({"index": 0, "rows": 99}) + "\n")
    with pytest.raises(PalaisError, match="fewer than the 99 rows"):
        RunFolder(tmp_path, TINY)
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(PalaisError, match="not a folder"):
        RunFolder(afile, TINY)


TINY_3P = GameOptions(seed=4, players=3, iterations=12, positions=2)


def two_runs(folder, games=(12, 3)):
    """A finished 2-player and 3-player run, reopened from their folders."""
    for name, options, count in [("p2", TINY, games[0]), ("p3", TINY_3P, games[1])]:
        generate(RunFolder(folder / name, options), count)
    return [RunFolder.existing(folder / "p2"), RunFolder.existing(folder / "p3")]


@pytest.mark.slow
def test_one_fit_on_several_runs_is_reproducible_and_holds_out_each_runs_games(tmp_path):
    runs = two_runs(tmp_path)
    assert [run.options for run in runs] == [TINY, TINY_3P]
    x, y, games = training_rows(runs)
    x2, y2, g2 = runs[0].rows()
    x3, y3, g3 = runs[1].rows()
    assert np.array_equal(x, np.concatenate([x2, x3])) and np.array_equal(y, np.concatenate([y2, y3]))
    held = games % VALIDATION_EVERY == VALIDATION_EVERY - 1
    assert np.array_equal(held, np.concatenate([g2 % 10 == 9, g3 % 10 == 9]))
    assert held[:len(x2)].any() and not held[len(x2):].any()
    assert set(games[:len(x2)]).isdisjoint(games[len(x2):])
    options = FitOptions(hidden=(8, 4), epochs=2, batch=8, seed=3)
    first, curve = fit(x, y, games, options)
    again, curve_again = fit(*training_rows(two_runs(tmp_path / "again")), options)
    assert curve == curve_again
    for name in ARRAY_NAMES:
        assert np.array_equal(first[name], again[name])
    alone, _ = fit(x2, y2, g2, options)
    assert not np.array_equal(first["w1"], alone["w1"])


def test_an_earlier_run_is_opened_only_from_a_run_folder(tmp_path):
    with pytest.raises(PalaisError, match="no such folder"):
        RunFolder.existing(tmp_path / "none")
    with pytest.raises(PalaisError, match="no run.json"):
        RunFolder.existing(tmp_path)
    (tmp_path / "run.json").write_text('{"seed": 1, "colour": 2}\n')
    with pytest.raises(PalaisError, match="run.json: not the options of a run"):
        RunFolder.existing(tmp_path)
    (tmp_path / "run.json").write_text('{"seed": 1, "players": 7}\n')
    with pytest.raises(PalaisError, match="players: 7"):
        RunFolder.existing(tmp_path)
    runs = two_runs(tmp_path / "ok", games=(1, 1))
    with pytest.raises(PalaisError, match="named twice"):
        training_rows([runs[0], runs[1], RunFolder.existing(tmp_path / "ok" / "p2")])


@pytest.mark.parametrize("options, why", [
    (GameOptions(players=5), "players"),
    (GameOptions(iterations=0), "iterations"),
    (GameOptions(positions=0), "positions"),
    (GameOptions(seed=-1), "seed"),
])
def test_bad_game_options_are_refused(tmp_path, options, why):
    with pytest.raises(PalaisError, match=why):
        RunFolder(tmp_path, options)


@pytest.mark.parametrize("options, why", [
    (FitOptions(hidden=(8,)), "hidden"), (FitOptions(hidden=(8, 300)), "hidden"),
    (FitOptions(epochs=0), "epochs"), (FitOptions(batch=0), "batch"),
    (FitOptions(learning_rate=0), "learning rate"), (FitOptions(weight_decay=-1), "weight decay"),
])
def test_bad_fit_options_are_refused(options, why):
    with pytest.raises(PalaisError, match=why):
        options.check()


def test_the_gradients_are_those_of_the_loss():
    rng = np.random.default_rng(2)
    w = initial_weights((6, 5), rng)
    w = {k: v.astype(np.float64) for k, v in w.items()}
    x = (rng.random((7, FEATURE_SIZE)) < 0.1).astype(np.float64)
    y = rng.random(7)
    grads = gradients(w, x, y)
    for name, index in [("w3", (2,)), ("b3", (0,)), ("w2", (1, 3)), ("b1", (4,)),
                        ("w1", tuple(np.argwhere(x[0] > 0)[0]) + (2,))]:
        step = 1e-6
        up = {k: v.copy() for k, v in w.items()}
        up[name][index] += step
        down = {k: v.copy() for k, v in w.items()}
        down[name][index] -= step
        numeric = (log_loss(up, x, y) - log_loss(down, x, y)) / (2 * step)
        assert grads[name][index] == pytest.approx(numeric, rel=1e-3, abs=1e-7)


def test_the_match_plays_each_deal_once_per_seat(tmp_path):
    arrays, _ = tiny_run(tmp_path / "run", games=2, epochs=1)
    path = tmp_path / "new.npz"
    save_weights(path, arrays)
    result = match(str(path), "heuristic", deals=1, players=2, iterations=10, seed=1)
    assert result.games == 2 and 0 <= result.low <= result.score <= result.high <= 1
    assert match(str(path), "heuristic", deals=1, players=2, iterations=10, seed=1) == result
    assert match(str(path), "heuristic", deals=1, players=2, iterations=10, seed=1,
                 concurrency=2) == result


def test_palais_train_end_to_end(tmp_path):
    current = tmp_path / "current.npz"
    save_weights(current, tiny_run(tmp_path / "seedrun", games=2, epochs=1)[0])
    args = ["train", str(tmp_path / "run"), "--games", "3", "--iterations", "10", "--positions", "2",
            "--epochs", "2", "--hidden", "6,4", "--eval-deals", "1", "--eval-iterations", "10",
            "--current", str(current), "--out", str(tmp_path / "kept.npz")]
    result = CliRunner().invoke(palais, args)
    assert result.exit_code == 0, result.output
    assert "3 games, 12 rows" in result.output
    assert "new weights score" in result.output
    kept = any(line.startswith("kept: ") for line in result.output.splitlines())
    assert kept or "not kept: " in result.output
    assert (tmp_path / "kept.npz").exists() == kept
    load_value_model(str(tmp_path / "run" / "candidate.npz"))
    assert len(json.loads((tmp_path / "run" / "curve.json").read_text())) == 2
    again = CliRunner().invoke(palais, args[:-4] + ["--eval-deals", "0"])
    assert again.exit_code == 0 and "3 games already in" in again.output


def test_palais_train_fits_on_the_runs_named_with_with(tmp_path):
    two_runs(tmp_path, games=(2, 1))
    args = ["train", str(tmp_path / "p3"), "--games", "1", "--players", "3", "--iterations", "12",
            "--positions", "2", "--seed", "4", "--epochs", "1", "--hidden", "6,4", "--eval-deals", "0"]
    alone = CliRunner().invoke(palais, args)
    assert alone.exit_code == 0 and "1 games, 6 rows" in alone.output
    both = CliRunner().invoke(palais, args + ["--with", str(tmp_path / "p2")])
    assert both.exit_code == 0, both.output
    assert "3 games, 18 rows" in both.output                 # 1 x 2 x 3 + 2 x 3 x 2


@pytest.mark.parametrize("extra, why", [
    (["--with", "RUN"], "named twice"),
    (["--with", "NONE"], "no such folder"),
    (["--hidden", "64"], "expected two sizes"),
    (["--hidden", "a,b"], "expected two sizes"),
    (["--players", "5"], "--players"),
    (["--games", "0"], "--games"),
    (["--current", "/no/such/file.npz"], "no such value weights file"),
    (["--ray-address", "auto"], "--ray-address needs --backend ray"),
    (["--backend", "cluster"], "--backend"),
    (["--concurrency", "0"], "--concurrency"),
])
def test_palais_train_refuses_bad_options(tmp_path, extra, why):
    extra = [str(tmp_path / "run") if e == "RUN" else str(tmp_path / "none") if e == "NONE" else e
             for e in extra]
    result = CliRunner().invoke(palais, ["train", str(tmp_path / "run"), "--games", "1"] + extra)
    assert result.exit_code != 0 and why in result.output
    assert not (tmp_path / "run" / "games.jsonl").exists()


def test_the_fit_keeps_the_epoch_with_the_lowest_held_out_loss():
    rng = np.random.default_rng(1)
    x = (rng.random((400, FEATURE_SIZE)) < 0.05).astype(np.float32)
    y = rng.integers(0, 2, 400).astype(np.float32)          # noise: held-out loss soon rises
    games = np.repeat(np.arange(20), 20)
    arrays, curve = fit(x, y, games, FitOptions(hidden=(32, 16), epochs=15, batch=16,
                                                learning_rate=3e-3, weight_decay=0, seed=1))
    kept = [p for p in curve if p["kept"]]
    best = min(curve, key=lambda p: p["validation"])
    assert kept == [best] and best["epoch"] < len(curve)
    held = games % 10 == 9
    assert log_loss(arrays, x[held], y[held]) == pytest.approx(best["validation"], abs=1e-6)


def test_the_training_curve_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from search.train import plot_curve
    curve = [{"epoch": 1, "train": 0.6, "validation": 0.65, "kept": False},
             {"epoch": 2, "train": 0.5, "validation": 0.6, "kept": True}]
    plot_curve(curve, str(tmp_path / "curve.png"))
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(PalaisError, match="cannot write the plot"):
        plot_curve(curve, str(tmp_path / "missing" / "curve.png"))


class CountingPlayer:
    """A stand-in search: remembers the iteration limit of each call."""

    def __init__(self):
        self.budgets = []

    def search(self, state, seat=None, limits=None, **extra):
        self.budgets.append(limits.iterations)
        return "result"


def test_playout_cap_randomisation_makes_a_share_of_the_searches_fast_and_does_not_record_them(monkeypatch):
    import search.policy_fit as policy_fit
    from search.params import SearchLimits
    monkeypatch.setattr(policy_fit.VisitRecorder, "search",
                        lambda self, state, seat=None, limits=None, **extra:
                        self.rows.append(limits.iterations) or self.inner.search(state, seat, limits))
    inner, rows = CountingPlayer(), []
    capped = policy_fit.CappedRecorder(inner, rows, 0.25, 3, np.random.default_rng(1))
    for _ in range(400):
        capped.search("state", 0, SearchLimits(iterations=20))
    fast = inner.budgets.count(3)
    assert fast + inner.budgets.count(20) == 400 and 70 < fast < 130
    assert rows == [20] * (400 - fast)                       # only the full searches are targets
    again = CountingPlayer()
    replay = policy_fit.CappedRecorder(again, [], 0.25, 3, np.random.default_rng(1))
    for _ in range(400):
        replay.search("state", 0, SearchLimits(iterations=20))
    assert again.budgets == inner.budgets                    # the seed fixes which are fast


CAPPED = GameOptions(seed=4, players=2, iterations=12, positions=3, fast_share=0.5, fast_iterations=2)


def test_a_run_with_a_playout_cap_is_reproducible_and_keeps_its_options(tmp_path):
    plain = RunFolder(tmp_path / "plain", TINY)
    generate(plain, 1)
    assert "fast_share" not in json.loads((tmp_path / "plain" / "run.json").read_text())   # runs made before
    capped = RunFolder(tmp_path / "capped", CAPPED)
    generate(capped, 1)
    assert json.loads((tmp_path / "capped" / "run.json").read_text())["fast_share"] == 0.5
    assert RunFolder.existing(tmp_path / "capped").options == CAPPED
    again = RunFolder(tmp_path / "again", CAPPED)
    generate(again, 1)
    for name in ("games.jsonl", "samples.f32", "policy.f32"):
        assert (tmp_path / "capped" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
    assert (tmp_path / "capped" / "policy.f32").read_bytes() != (tmp_path / "plain" / "policy.f32").read_bytes()
    with pytest.raises(PalaisError, match="this run was made with"):
        RunFolder(tmp_path / "capped", TINY)


@pytest.mark.parametrize("options, why", [
    (GameOptions(iterations=12, fast_share=1.0, fast_iterations=2), "fast share"),
    (GameOptions(iterations=12, fast_share=0.5, fast_iterations=12), "fast iterations: 12 is outside 1..11"),
    (GameOptions(iterations=12, fast_share=0.5, fast_iterations=0), "fast iterations"),
])
def test_a_bad_playout_cap_is_refused(tmp_path, options, why):
    with pytest.raises(PalaisError, match=why):
        RunFolder(tmp_path / "run", options)
    assert not (tmp_path / "run").exists()


def test_palais_train_refuses_a_fast_share_without_fast_iterations(tmp_path):
    result = CliRunner().invoke(palais, ["train", str(tmp_path / "run"), "--games", "1", "--fast-share", "0.5"])
    assert result.exit_code != 0 and "fast iterations: 0 is outside 1..199" in result.output
    assert not (tmp_path / "run").exists()
