"""The policy head's self-play targets and fit (search/policy_fit.py, search/train.py): a
searched decision's row holds the mover's inputs and the root's visit distribution, rows are
stored restart-safely beside the value's, a tiny training run is reproducible under its seed,
and the fit's gradients are those of its loss."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.errors import PalaisError
from engine.rng import Rng
from engine.state import State
from play.cli import main as palais
from search.mcts import MCTSSearch
from search.params import SearchLimits, SearchParams
from search.policy import ARRAY_NAMES, PolicyModel, load_policy_model, save_policy_weights
from search.policy_fit import (IDX, POLICY_ROW, PolicyFitOptions, cross_entropy, fit_policy, forward,
                               initial_policy, policy_gradients, policy_row, unpack)
from search.train import GameOptions, RunFolder, generate, policy_training_rows

TINY = GameOptions(seed=4, players=2, iterations=12, positions=3)


def tiny_policy(folder, seed=4, games=3, options=TINY):
    run = RunFolder(folder, GameOptions(**{**options.__dict__, "seed": seed}))
    generate(run, games)
    rows, games_of = run.policy_rows()
    arrays, curve = fit_policy(unpack(rows), games_of, PolicyFitOptions(hidden=8, epochs=3, batch=4, seed=seed))
    return save_policy_weights(folder / "policy.npz", arrays), curve


def test_a_tiny_policy_training_run_is_reproducible_under_a_seed(tmp_path):
    first, curve = tiny_policy(tmp_path / "a")
    second, again = tiny_policy(tmp_path / "b")
    assert first == second and curve == again
    assert curve[-1]["train"] < curve[0]["train"]          # the fit learns something
    other, _ = tiny_policy(tmp_path / "c", seed=5)
    assert other != first


def searched_position(n=3, seed=2):
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    for _ in range(40):
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    while state.is_chance() or len(state.legal_actions()) < 3:
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    return state


def test_a_searched_decisions_row_is_its_inputs_and_the_roots_visit_shares():
    state = searched_position()
    view = state.view(state.to_move)
    result = MCTSSearch(SearchParams(seed=1)).search(view, limits=SearchLimits(iterations=200))
    legal = view.legal_actions()
    assert set(result.root_visits) == set(legal)
    assert sum(result.root_visits.values()) == 200
    row = policy_row(view, result.root_visits)
    data = unpack(row)
    assert list(np.diff(data.starts)) == [len(legal)]
    shares = [result.root_visits[a] / 200 for a in legal]
    assert np.allclose(data.targets, shares)
    # the fit's forward pass over a row is the C head's at the position
    rng = np.random.default_rng(3)
    w = {k: (v + rng.standard_normal(v.shape).astype(np.float32) * 0.3) for k, v in initial_policy(16, rng).items()}
    priors = forward(w, data)[-1]
    assert np.allclose(priors, PolicyModel(*(w[k] for k in ARRAY_NAMES)).priors(view), atol=1e-5)
    assert policy_row(view, {}) is None                       # no visits: nothing to learn


def test_self_play_stores_policy_rows_beside_the_value_rows(tmp_path):
    run = RunFolder(tmp_path, TINY)
    generate(run, 2)
    rows, games = run.policy_rows()
    assert [g["policy_rows"] for g in run.games] == [3, 3] and list(games) == [0, 0, 0, 1, 1, 1]
    assert (tmp_path / "policy.f32").stat().st_size == len(rows) * POLICY_ROW * 4
    data = unpack(rows)
    sums = np.add.reduceat(data.targets, data.starts[:-1])
    assert np.allclose(sums, 1.0) and (np.diff(data.starts) >= 2).all()


def test_policy_rows_of_a_game_cut_short_are_dropped_on_restart(tmp_path):
    run = RunFolder(tmp_path / "r", TINY)
    generate(run, 1)
    size = (tmp_path / "r" / "policy.f32").stat().st_size
    with open(tmp_path / "r" / "policy.f32", "ab") as out:      # a crash after a game's rows
        out.write(b"\0" * 5000)
    again = RunFolder(tmp_path / "r", TINY)
    assert (tmp_path / "r" / "policy.f32").stat().st_size == size
    generate(again, 2)
    fresh = RunFolder(tmp_path / "f", TINY)
    generate(fresh, 2)
    assert (tmp_path / "r" / "policy.f32").read_bytes() == (tmp_path / "f" / "policy.f32").read_bytes()
    (tmp_path / "r" / "policy.f32").write_bytes(b"\0" * 10)
    with pytest.raises(PalaisError, match="fewer than the 6 rows"):
        RunFolder(tmp_path / "r", TINY)


def test_a_run_made_before_the_policy_head_stays_readable(tmp_path):
    run = RunFolder(tmp_path, TINY)
    generate(run, 2)
    index = tmp_path / "games.jsonl"
    lines = [json.loads(line) for line in index.read_text().splitlines()]
    index.write_text("".join(json.dumps({k: v for k, v in g.items() if k != "policy_rows"}) + "\n"
                             for g in lines))
    (tmp_path / "policy.f32").unlink()
    old = RunFolder.existing(tmp_path)
    assert len(old.games) == 2 and len(old.rows()[0]) == 12
    rows, games = policy_training_rows([old])
    assert len(rows) == 0
    with pytest.raises(PalaisError, match="no policy rows"):
        fit_policy(unpack(rows), games, PolicyFitOptions())
    assert generate(RunFolder(tmp_path, TINY), 3) == 1        # continued: the new game has some
    assert RunFolder.existing(tmp_path).policy_rows()[0].shape == (3, POLICY_ROW)


def test_bad_policy_rows_and_options_are_refused(tmp_path):
    run = RunFolder(tmp_path, TINY)
    generate(run, 1)
    rows, _ = run.policy_rows()
    broken = rows.copy()
    broken[0, 1009] = 99
    with pytest.raises(PalaisError, match="action count"):
        unpack(broken)
    broken = rows.copy()
    broken[0, 1009 + 1 + IDX] = 5000
    with pytest.raises(PalaisError, match="outside the table"):
        unpack(broken)
    for options, why in [(PolicyFitOptions(hidden=0), "policy hidden"), (PolicyFitOptions(epochs=0), "epochs"),
                         (PolicyFitOptions(learning_rate=0), "learning rate")]:
        with pytest.raises(PalaisError, match=why):
            options.check()


def test_the_policy_gradients_are_those_of_the_loss(tmp_path):
    run = RunFolder(tmp_path, TINY)
    generate(run, 1)
    data = unpack(run.policy_rows()[0])
    rng = np.random.default_rng(2)
    w = {k: (v + rng.standard_normal(v.shape).astype(np.float32) * 0.2).astype(np.float64)
         for k, v in initial_policy(5, rng).items()}
    data.x = data.x.astype(np.float64)
    data.features = data.dense().astype(np.float64)
    grads = policy_gradients(w, data)
    for name, at in [("c", (0,)), ("c", (180,)), ("u", (0, 1)), ("b1", (2,)), ("w1", (0, 3))]:
        if name == "w1":
            at = (int(np.flatnonzero(data.x[0])[0]), 3)
        step = 1e-5
        up = {k: v.copy() for k, v in w.items()}
        up[name][at] += step
        down = {k: v.copy() for k, v in w.items()}
        down[name][at] -= step
        numeric = (cross_entropy(up, data) - cross_entropy(down, data)) / (2 * step)
        assert grads[name][at] == pytest.approx(numeric, rel=1e-3, abs=1e-7), name


# ---- `palais train` trains both heads ---------------------------------------------------

def test_palais_train_fits_the_policy_and_gates_it_with_a_puct_match(tmp_path):
    args = ["train", str(tmp_path / "run"), "--games", "3", "--iterations", "10", "--positions", "2",
            "--epochs", "2", "--hidden", "6,4", "--policy-hidden", "8", "--eval-deals", "1",
            "--eval-iterations", "10", "--current", "heuristic", "--out", str(tmp_path / "kept.npz"),
            "--policy-out", str(tmp_path / "policy-kept.npz")]
    result = CliRunner().invoke(palais, args)
    assert result.exit_code == 0, result.output
    assert "6 policy rows; policy weights of epoch" in result.output
    candidate = load_policy_model(str(tmp_path / "run" / "policy-candidate.npz"))
    assert f"({candidate.digest})" in result.output
    assert len(json.loads((tmp_path / "run" / "policy-curve.json").read_text())) == 2
    assert "policy: PUCT on the candidate score" in result.output
    kept = any(line.startswith("policy kept: ") for line in result.output.splitlines())
    assert kept or "policy not kept: it did not beat uniform" in result.output
    assert (tmp_path / "policy-kept.npz").exists() == kept
    if kept:
        assert load_policy_model(str(tmp_path / "policy-kept.npz")).digest == candidate.digest
    # the same options again: the same candidate, bit for bit
    again = CliRunner().invoke(palais, args[:2] + ["--games", "3", "--iterations", "10", "--positions", "2",
                                                   "--epochs", "2", "--hidden", "6,4", "--policy-hidden", "8",
                                                   "--eval-deals", "0"])
    assert again.exit_code == 0 and f"({candidate.digest})" in again.output


def test_the_policy_match_plays_puct_on_the_candidate_against_the_search_without_it(tmp_path, monkeypatch):
    import search.train as train
    seen = []
    monkeypatch.chdir(tmp_path)             # the files by absolute path (train.job_file)
    monkeypatch.setattr(train, "play_match", lambda new, old, *rest, **kw: seen.append((new, old)))
    for current, old in [("uniform", {"selection": "puct", "policy_weights": "uniform"}), ("uct", {"selection": "uct"}),
                         ("p.npz", {"selection": "puct", "policy_weights": str(tmp_path / "p.npz")})]:
        train.policy_match("cand.npz", current, 1, 2, 10, 1)
        assert seen[-1] == ({"selection": "puct", "policy_weights": str(tmp_path / "cand.npz")}, old)


@pytest.mark.parametrize("extra, why", [
    (["--policy-current", "/no/such/policy.npz"], "no such policy weights file"),
    (["--policy-hidden", "0"], "--policy-hidden"),
    (["--policy-learning-rate", "0"], "--policy-learning-rate"),
    (["--policy-target", "value"], "--policy-target"),
    (["--policy-q-scale", "0"], "--policy-q-scale"),
])
def test_palais_train_refuses_bad_policy_options(tmp_path, extra, why):
    result = CliRunner().invoke(palais, ["train", str(tmp_path / "run"), "--games", "1"] + extra)
    assert result.exit_code != 0 and why in result.output
    assert not (tmp_path / "run" / "games.jsonl").exists()


@pytest.mark.parametrize("policy_rows", [-1, "3", True, 3.0, None])
def test_a_game_line_with_a_bad_policy_row_count_is_refused(tmp_path, policy_rows):
    run = RunFolder(tmp_path, TINY)
    generate(run, 1)
    index = tmp_path / "games.jsonl"
    game = json.loads(index.read_text())
    game["policy_rows"] = policy_rows
    index.write_text(json.dumps(game) + "\n" + json.dumps({**game, "index": 1}) + "\n")
    with pytest.raises(PalaisError, match="games.jsonl, line 1: not a game line of this run"):
        RunFolder(tmp_path, TINY)


def test_recording_the_visits_does_not_change_the_games(tmp_path, monkeypatch):
    import search.train as train
    generate(RunFolder(tmp_path / "recorded", TINY), 2)
    monkeypatch.setattr(train, "CappedRecorder", lambda inner, rows, *playout_cap: inner)
    generate(RunFolder(tmp_path / "plain", TINY), 2)
    assert (tmp_path / "recorded" / "samples.f32").read_bytes() == (tmp_path / "plain" / "samples.f32").read_bytes()
    lines = [[{k: v for k, v in json.loads(line).items() if k != "policy_rows"}
              for line in (tmp_path / name / "games.jsonl").read_text().splitlines()] for name in ("recorded", "plain")]
    assert lines[0] == lines[1]


def test_the_q_target_is_a_softmax_of_the_roots_mean_rewards(tmp_path):
    state = searched_position(2, 5)
    view = state.view(state.to_move)
    result = MCTSSearch(SearchParams(seed=1)).search(view, limits=SearchLimits(iterations=200))
    legal = view.legal_actions()
    assert set(result.root_values) == set(legal)
    data = unpack(policy_row(view, result.root_visits, result.root_values))
    q = np.array([result.root_values[a] for a in legal])
    assert np.allclose(data.values, q, atol=1e-6)
    expected = np.exp(20 * q - (20 * q).max())
    assert np.allclose(data.with_value_targets(20.0).targets, expected / expected.sum(), atol=1e-6)
    # a fit on the q targets is seeded too, and learns other weights than on the visits
    run = RunFolder(tmp_path, TINY)
    generate(run, 2)
    rows, games = run.policy_rows()
    fits = [fit_policy(unpack(rows), games, PolicyFitOptions(hidden=4, epochs=2, batch=4, target=t))[0]
            for t in ("q", "q", "visits")]
    assert all(np.array_equal(fits[0][k], fits[1][k]) for k in ARRAY_NAMES)
    assert not np.array_equal(fits[0]["c"], fits[2]["c"])


@pytest.mark.parametrize("options, why", [
    (PolicyFitOptions(target="value"), "policy target: 'value' is not one of visits, q"),
    (PolicyFitOptions(q_scale=0), "policy q scale"), (PolicyFitOptions(q_scale=1e9), "policy q scale")])
def test_bad_policy_targets_are_refused(options, why):
    with pytest.raises(PalaisError, match=why):
        options.check()


def test_the_policy_matchs_opponents_are_the_searches_their_names_say(tmp_path, monkeypatch):
    # `uct` must name UCB1 even now that PUCT is the default selection.
    from search.params import SearchParams
    from search.train import policy_opponent
    monkeypatch.chdir(tmp_path)
    assert SearchParams(**policy_opponent("uct")).selection == "uct"
    uniform = SearchParams(**policy_opponent("uniform"))
    assert (uniform.selection, uniform.policy_weights) == ("puct", "uniform")
    assert SearchParams(**policy_opponent("x.npz")).policy_weights == str(tmp_path / "x.npz")


def test_a_job_names_its_weights_files_by_absolute_path(tmp_path, monkeypatch):
    """A game's params name files so that a worker in another working directory (a Ray worker
    on another machine) opens the same ones: the gate's best, the match's candidate and
    current, whatever the user typed (tests/test_tournament_ray.py runs it on two nodes)."""
    from search import train
    from search.generations import Best
    from search.train import job_file, value_params
    monkeypatch.chdir(tmp_path)
    assert job_file("run/gen-001/candidate.npz") == str(tmp_path / "run" / "gen-001" / "candidate.npz")
    assert job_file(tmp_path / "w.npz") == str(tmp_path / "w.npz")       # absolute: as it is
    assert job_file("") == ""                 # the shipped weights
    assert value_params("heuristic") == {"leaf_eval": "heuristic"}
    assert value_params("w.npz") == {"value_weights": str(tmp_path / "w.npz")}
    assert Best("v.npz", "p.npz", 1).params() == {"value_weights": str(tmp_path / "v.npz"), "selection": "puct",
                                                  "policy_weights": str(tmp_path / "p.npz")}
    assert Best("", "uniform").params() == {"value_weights": "", "selection": "puct", "policy_weights": "uniform"}
    monkeypatch.setattr(train, "play_match", lambda new, old, *_, **__: (new, old))
    new, old = train.match("run/candidate.npz", "w.npz", 1, 2, 10, 1)
    assert (new["value_weights"], old["value_weights"]) == (str(tmp_path / "run" / "candidate.npz"),
                                                            str(tmp_path / "w.npz"))
