"""The vector value head (weights format 2, search/value.py and search/_value.pyx): every
seat's share and score from one seat's view in one forward pass. A file round-trips and
loads, a bad one is refused with one line naming it, the C pass (both kernels) agrees with
the numpy twin, the search runs on it, format-1 files are untouched, and `palais train
--head vector` writes one."""

import copy
import json

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import SHIPPED_VALUE_DIGESTS, bench_script
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE, observation
from engine.state import State
from play.cli import main as palais
from search import _value
from search.mcts import MCTSSearch
from search.params import SearchLimits, SearchParams
from search.train import (GameOptions, Head, RunFolder, generate, vector_gradients, vector_loss,
                          vector_targets, vector_training_rows)
from search.value import (SCORE_SCALE, SHIPPED_WEIGHTS, VECTOR_NAMES, arrays_from_bytes, check_players, load_value_model,
                          numpy_vector, players_of, save_weights, to_seats, vector_arrays)
from search.weights_file import npz_bytes

from test_value_kernel import random_positions

KERNELS = _value.available_kernels()
TINY = np.finfo(np.float32).tiny


def vector_weights(players, seed=0, h1=40, h2=24):
    """Random format-2 arrays (widths that are not multiples of 8 take every kernel's tail)."""
    rng = np.random.default_rng(seed)
    return vector_arrays({
        "w1": (rng.standard_normal((FEATURE_SIZE, h1)) * 0.05).astype(np.float32),
        "b1": (rng.standard_normal(h1) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((h1, h2)) * 0.2).astype(np.float32),
        "b2": (rng.standard_normal(h2) * 0.1).astype(np.float32),
        "w3": (rng.standard_normal((h2, 2 * players)) * 0.3).astype(np.float32),
        "b3": (rng.standard_normal(2 * players) * 0.1).astype(np.float32)}, players)


def vector_file(tmp_path, players, seed=0, **hidden):
    path = tmp_path / f"vector{players}-{seed}.npz"
    save_weights(path, vector_weights(players, seed, **hidden))
    return str(path)


@pytest.fixture
def kernel():
    before = _value.kernel_name()
    yield
    _value.set_kernel(before)


def test_a_vector_file_round_trips_and_loads(tmp_path):
    arrays = vector_weights(3, seed=1)
    path = tmp_path / "v.npz"
    digest = save_weights(path, arrays)
    assert save_weights(tmp_path / "again.npz", arrays) == digest      # the same arrays, the same bytes
    back = arrays_from_bytes(path.read_bytes(), "back")
    assert sorted(back) == sorted(VECTOR_NAMES) and players_of(back) == 3
    for name in VECTOR_NAMES:
        assert np.array_equal(back[name], arrays[name])
    assert back["format"].tolist() == [2] and back["players"].tolist() == [3]
    model = load_value_model(str(path))
    assert (model.players, model.hidden, model.digest, model.flushed) == (3, (40, 24), digest, 0)
    assert check_players(model, 3) is model


def changed(**changes):
    arrays = vector_weights(3)
    arrays.update(changes)
    return {k: v for k, v in arrays.items() if v is not None}


@pytest.mark.parametrize("arrays, why", [
    (changed(format=np.array([3], np.int32)), "weights format 3 is unknown"),
    (changed(format=np.array([1], np.int32)), "weights format 1 is unknown"),
    (changed(format=np.array([2, 2], np.int32)), "array format has shape (2,), expected (1,)"),
    (changed(format=np.array([2.0], np.float32)), "array format is float32, expected an integer type"),
    (changed(players=np.array([5], np.int32)), "a vector head for 5 players"),
    (changed(players=np.array([1], np.int32)), "a vector head for 1 players"),
    (changed(players=None), "expected the arrays"),
    (changed(format=None), "expected the arrays"),
    (changed(extra=np.zeros(1, np.float32)), "expected the arrays"),
    (changed(w3=np.zeros((24, 8), np.float32)), "array w3 has shape (24, 8), expected (24, 6)"),
    (changed(w3=np.zeros(24, np.float32)), "array w3 has shape (24,), expected (24, 6)"),
    (changed(b3=np.zeros(1, np.float32)), "array b3 has shape (1,), expected (6,)"),
    (changed(w2=np.zeros((24, 40), np.float32)), "array w2 has shape"),
    (changed(w3=np.full((24, 6), np.nan, np.float32)), "w3 holds a value that is not finite"),
    (changed(b3=np.full(6, np.inf, np.float32)), "b3 holds a value that is not finite"),
    (changed(w1=np.zeros((FEATURE_SIZE, 40), np.float64)), "w1 is float64, expected float32"),
    (changed(players=np.array([object()])), "array players is unreadable"),
])
def test_bad_vector_files_are_refused_naming_the_file(tmp_path, arrays, why):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(PalaisError) as caught:
        load_value_model(str(path))
    message = str(caught.value)
    assert message.startswith(f"value weights {path}: ") and why in message and "\n" not in message


def test_a_vector_file_for_another_player_count_is_refused_by_the_search(tmp_path):
    path = vector_file(tmp_path, 3)
    with pytest.raises(PalaisError, match=f"value weights {path}: a vector head for 3 players "
                                          "cannot evaluate a 4-player game"):
        check_players(load_value_model(path), 4)
    search = MCTSSearch(SearchParams(leaf_eval="value", value_weights=path, rollout_turns=4))
    with pytest.raises(PalaisError, match="a vector head for 3 players cannot evaluate a 4-player game"):
        search.search(State.new_game(4, seed=1), limits=SearchLimits(iterations=10))
    assert check_players(load_value_model(""), 4).players == 0   # a one-seat head serves any count


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_c_pass_agrees_with_the_numpy_twin_with_each_kernel(tmp_path, kernel, n):
    arrays = vector_weights(n, seed=n)
    model = load_value_model(vector_file(tmp_path, n, seed=n))
    positions = [s for seed in (1, 2) for s in random_positions(n, 500 + 10 * n + seed, 10)]
    outputs = {}
    for name in KERNELS:
        _value.set_kernel(name)
        outputs[name] = [model.outputs(state, view) for state in positions for view in range(n)]
    compared = 0
    for name in KERNELS:
        for (shares, scores), (state, view) in zip(outputs[name], [(s, v) for s in positions for v in range(n)]):
            expected_shares, expected_scores = numpy_vector(arrays, observation(state, view)[None])
            assert sum(shares) == pytest.approx(1.0, abs=1e-12)
            assert min(shares) > 0
            assert np.allclose(shares, to_seats(expected_shares[0], view), rtol=0, atol=1e-5)
            # the head's score outputs are VP / SCORE_SCALE: they agree to 1e-5 as outputs
            assert np.allclose(np.array(scores) / SCORE_SCALE, to_seats(expected_scores[0], view) / SCORE_SCALE,
                               rtol=0, atol=1e-5)
            compared += 1
    assert compared == len(KERNELS) * len(positions) * n >= 2 * n * len(KERNELS)
    if len(KERNELS) == 2:
        for (a, sa), (b, sb) in zip(outputs["portable"], outputs["avx2+fma"]):
            assert np.allclose(a, b, rtol=0, atol=1e-5)
            assert np.allclose(np.array(sa) / SCORE_SCALE, np.array(sb) / SCORE_SCALE, rtol=0, atol=1e-5)


def test_rewards_value_and_views_of_a_vector_head(tmp_path):
    model = load_value_model(vector_file(tmp_path, 3, seed=4))
    state = random_positions(3, 77, 3)[-1]
    for seat in range(3):
        shares, _ = model.outputs(state, seat)
        assert model.value(state, seat) == shares[seat]          # seat's share from its own view
        view = state.view(seat)
        assert model.outputs(view) == model.outputs(state, seat)  # a view is read from its observer
        assert model.rewards(view) == shares
        assert model.value(view, (seat + 1) % 3) == 0.5          # not readable from another seat
        with pytest.raises(ValueError, match="cannot read"):
            model.outputs(view, (seat + 1) % 3)
    assert model.rewards(state) == model.outputs(state, state.to_move)[0]
    assert model.work(state)["seats"] == 1
    with pytest.raises(ValueError, match="vector head"):
        model.dense_value(state, 0)
    with pytest.raises(ValueError, match="one-seat head"):
        load_value_model("").outputs(state)


def run_search(path, n, seed=3, iterations=300):
    params = SearchParams(leaf_eval="value", value_weights=path, rollout_turns=4, seed=seed)
    state = State.new_game(n, seed=seed)
    for _ in range(12):                     # past the setup, into play
        state.apply(state.legal_actions()[0])
    result = MCTSSearch(params).search(state, limits=SearchLimits(iterations=iterations))
    return state, result


@pytest.mark.parametrize("n", [3, 4])
def test_a_search_on_a_vector_head_returns_legal_actions(tmp_path, n):
    path = vector_file(tmp_path, n, seed=9)
    state, result = run_search(path, n)
    assert result.iterations == 300
    probe = copy.copy(state)
    for action in result.best_turn:
        assert action in probe.legal_actions()
        probe.apply(action)
    assert sum(result.stats["root_win"]) == pytest.approx(1.0, abs=1e-6)
    again = run_search(path, n)[1]
    assert (again.best_turn, again.stats["root_win"]) == (result.best_turn, result.stats["root_win"])
    # the head, not the static evaluation, judged the cutoffs: another head, other values
    other = run_search(vector_file(tmp_path, n, seed=10), n)[1]
    assert other.stats["root_win"] != result.stats["root_win"]


def test_format_1_files_are_untouched(tmp_path):
    """The shipped files keep their digests and load as one-seat heads; the writer still
    writes a format-1 file's six arrays alone (tests/test_value_kernel.py holds their values
    to the bits of before)."""
    assert [load_value_model("", n).digest for n in (2, 3, 4)] == list(SHIPPED_VALUE_DIGESTS)
    assert load_value_model("").digest == "6f474a8b4123"           # the presets' file (v26 .. v28)
    for n in (2, 3, 4):
        assert load_value_model("", n).players == 0
    arrays = arrays_from_bytes(SHIPPED_WEIGHTS.read_bytes(), "shipped")
    assert players_of(arrays) == 0 and sorted(arrays) == sorted(VECTOR_NAMES[:6])
    path = tmp_path / "one.npz"
    save_weights(path, arrays)
    assert sorted(arrays_from_bytes(path.read_bytes(), "one")) == sorted(VECTOR_NAMES[:6])


def test_subnormals_are_flushed_by_the_writer_and_on_load(tmp_path):
    arrays = vector_weights(4, seed=2)
    arrays["w3"].reshape(-1)[::5] = TINY / 8
    arrays["b3"][0] = -TINY / 4
    raw = tmp_path / "raw.npz"
    np.savez(raw, **arrays)
    model = load_value_model(str(raw))
    assert model.flushed == arrays["w3"].size // 5 + (arrays["w3"].size % 5 > 0) + 1
    clean = tmp_path / "clean.npz"
    save_weights(clean, arrays)
    written = arrays_from_bytes(clean.read_bytes(), "clean")
    assert not any(((a != 0) & (np.abs(a) < TINY)).any() for a in written.values())
    assert load_value_model(str(clean)).flushed == 0
    state = random_positions(4, 5, 2)[-1]
    assert load_value_model(str(clean)).outputs(state, 1) == model.outputs(state, 1)


@pytest.mark.parametrize("score_weight", [1.0, 0.25, 0.0])
def test_the_vector_gradients_are_those_of_the_loss(score_weight):
    rng = np.random.default_rng(3)
    head = Head(3)
    w = {k: v.astype(np.float64) for k, v in head.initial((6, 5), rng).items()}
    x = (rng.random((7, FEATURE_SIZE)) < 0.1).astype(np.float64)
    returns = rng.dirichlet(np.ones(3), size=7)
    y = np.concatenate([returns, rng.random((7, 3))], axis=1)
    grads = vector_gradients(w, x, y, score_weight)
    if score_weight == 0.0:            # no score target: the score outputs learn nothing
        assert not grads["w3"][:, 3:].any() and not grads["b3"][3:].any()
    for name, index in [("w3", (2, 1)), ("w3", (4, 5)), ("b3", (0,)), ("b3", (4,)), ("w2", (1, 3)),
                        ("b1", (4,)), ("w1", tuple(np.argwhere(x[0] > 0)[0]) + (2,))]:
        step = 1e-6
        up = {k: v.copy() for k, v in w.items()}
        up[name][index] += step
        down = {k: v.copy() for k, v in w.items()}
        down[name][index] -= step
        numeric = (vector_loss(vector_arrays(up, 3), x, y, score_weight)
                   - vector_loss(vector_arrays(down, 3), x, y, score_weight)) / (2 * step)
        assert grads[name][index] == pytest.approx(numeric, rel=1e-3, abs=1e-7)


def test_vector_targets_are_every_seats_return_and_score_from_the_rows_seat(tmp_path):
    run = RunFolder(tmp_path, GameOptions(seed=4, players=3, iterations=8, positions=2))
    generate(run, 1)
    targets = vector_targets(run)
    game = run.games[0]
    assert targets.shape == (6, 6)
    for row in range(6):
        seat = row % 3
        order = [(seat + k) % 3 for k in range(3)]
        assert targets[row, :3].tolist() == pytest.approx([game["returns"][q] for q in order])
        assert targets[row, 3:].tolist() == pytest.approx([game["scores"][q] / SCORE_SCALE for q in order])
    x, y, games = vector_training_rows([run])
    assert x.shape == (6, FEATURE_SIZE) and np.array_equal(y, targets)
    other = RunFolder(tmp_path / "two", GameOptions(seed=4, players=2, iterations=8, positions=1))
    with pytest.raises(PalaisError, match="one player count"):
        vector_training_rows([run, other])


def test_palais_train_head_vector_writes_a_loadable_format_2_file(tmp_path):
    args = ["train", str(tmp_path / "run"), "--players", "3", "--games", "3", "--iterations", "8",
            "--positions", "2", "--epochs", "2", "--hidden", "6,4", "--head", "vector", "--eval-deals", "0"]
    result = CliRunner().invoke(palais, args)
    assert result.exit_code == 0, result.output
    assert "3 games, 18 rows; a vector head for 3 players of epoch" in result.output
    path = tmp_path / "run" / "candidate.npz"
    arrays = arrays_from_bytes(path.read_bytes(), "candidate")
    assert players_of(arrays) == 3 and arrays["w3"].shape == (4, 6)
    assert not any(((a != 0) & (np.abs(a) < TINY)).any() for a in arrays.values())
    model = load_value_model(str(path))
    assert model.players == 3 and model.flushed == 0
    assert len(json.loads((tmp_path / "run" / "curve.json").read_text())) == 2
    _, searched = run_search(str(path), 3, iterations=50)
    assert searched.best_turn
    again = CliRunner().invoke(palais, args)                 # the same options, the same weights
    assert again.exit_code == 0 and path.read_bytes() == npz_bytes(arrays, VECTOR_NAMES)
    mixed = CliRunner().invoke(palais, ["train", str(tmp_path / "p2"), "--players", "2", "--games", "1",
                                        "--head", "vector", "--with", str(tmp_path / "run")])
    assert mixed.exit_code != 0 and "--head vector fits one player count (2)" in mixed.output
    assert not (tmp_path / "p2" / "games.jsonl").exists()


@pytest.mark.parametrize("n", [3, 4])
def test_the_search_backs_up_the_heads_shares_and_scores_from_the_root_seats_view(tmp_path, n):
    """A head whose outputs are its biases alone (w3 = 0): every cutoff gives the same shares
    and scores, in turn order from the viewing seat, so the root's means are exactly those,
    rotated by the root seat (the seat the search is for), and the static evaluation's
    scores are not among them."""
    arrays = vector_weights(n, seed=5)
    arrays["w3"][:] = 0
    logits = np.arange(n, dtype=np.float32) * 0.5
    scores = (0.5 + 0.1 * np.arange(n)).astype(np.float32)
    arrays["b3"] = np.concatenate([logits, scores])
    path = tmp_path / "constant.npz"
    save_weights(path, arrays)
    state = State.new_game(n, seed=2)
    for _ in range(20):                   # past the setup, and a seat other than 0 to move
        state.apply(state.legal_actions()[0])
    while state.to_move == 0:
        state.apply(state.legal_actions()[0])
    root = state.to_move
    params = SearchParams(leaf_eval="value", value_weights=str(path), rollout_turns=1, seed=1)
    result = MCTSSearch(params).search(state, limits=SearchLimits(iterations=200))
    shares = np.exp(logits.astype(np.float64)) / np.exp(logits.astype(np.float64)).sum()
    assert result.stats["root_win"] == pytest.approx(list(to_seats(shares, root)), abs=1e-9)
    assert result.stats["root_score"] == pytest.approx(list(to_seats(scores.astype(np.float64) * SCORE_SCALE, root)),
                                                       abs=1e-4)


def test_the_score_target_bench_fits_each_score_weight_on_the_same_rows(tmp_path, capsys):
    run = RunFolder(tmp_path / "run", GameOptions(seed=4, players=3, iterations=8, positions=2))
    generate(run, 10)                    # game 9's rows are held out
    bench = bench_script("score_target")
    assert bench.main([str(tmp_path / "run"), "--weights", "0,1", "--epochs", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "3 players, 60 rows (6 held out), 2 epochs, seed 1"
    rows = [line.split("|") for line in out if line.startswith("| 0 |") or line.startswith("| 1 |")]
    assert len(rows) == 2
    for cells in rows:
        cross, brier, top, rms = (float(c) for c in cells[2:6])
        assert cross > 0 and 0 <= brier <= 2 and 0 <= top <= 1 and rms > 0
    figures = dict(item.split("=") for item in out[-1].split())
    assert [float(v) for v in figures["cross_entropy"].split(",")] == [float(r[2]) for r in rows]
    assert bench.main([str(tmp_path / "none")]) == 2
    assert "not a run folder" in capsys.readouterr().err
