"""No value below float32's normal range can slow the search (issue 36): the weights writer
and the trainer flush such values to zero, loading a file that holds them flushes them in
memory (its digest still the file's bytes, and the engine says so once), no shipped weights
file holds any, and the search and each evaluation run with flush-to-zero and
denormals-are-zero set (search/fp_mode.h), restored before Python runs again."""

import hashlib

import numpy as np
import pytest

from engine.features import FEATURE_SIZE
from engine.state import State
from search import _value
from search.adam import Adam
from search.mcts import new_tree
from search.params import SHIPPED_DATA, SearchParams
from search.policy import ARRAY_NAMES as POLICY_ARRAYS
from search.policy import load_policy_model
from search.value import ARRAY_NAMES, load_value_model, save_weights
from search.weights_file import flush_subnormals

TINY = np.finfo(np.float32).tiny          # the least normal float32, 1.18e-38
FLUSH_AND_DENORMALS_ZERO = 3              # floating_point_mode(): both bits


def subnormal_count(array) -> int:
    array = np.asarray(array)
    return int(((array != 0) & (np.abs(array) < TINY)).sum())


def weights_with_subnormals(seed=0, h1=16, h2=8):
    """Value weights where every tenth entry of w1 and w2 is a subnormal of either sign."""
    rng = np.random.default_rng(seed)
    arrays = {"w1": (rng.standard_normal((FEATURE_SIZE, h1)) * 0.05).astype(np.float32),
              "b1": (rng.standard_normal(h1) * 0.1).astype(np.float32),
              "w2": (rng.standard_normal((h1, h2)) * 0.2).astype(np.float32),
              "b2": (rng.standard_normal(h2) * 0.1).astype(np.float32),
              "w3": (rng.standard_normal(h2) * 0.5).astype(np.float32),
              "b3": np.array([0.1], np.float32)}
    for name in ("w1", "w2"):
        flat = arrays[name].reshape(-1)
        flat[::10] = np.float32(3e-39) * np.sign(flat[::10])
    return arrays


def write_raw(path, arrays):
    """A weights file as an older trainer wrote it: numpy's savez, nothing flushed."""
    np.savez(path, **arrays)
    return path


def a_position(n_players=3):
    state = State.new_game(n_players, seed=11)
    for _ in range(40):
        state.apply(state.legal_actions()[0])
    return state


def test_flush_subnormals_zeroes_exactly_the_values_below_the_normal_range():
    array = np.array([0.0, -0.0, 1e-39, -1e-39, TINY, -TINY, 1e-45, 0.5, -3.0], np.float32)
    flushed = flush_subnormals(array)
    assert flushed.dtype == np.float32
    assert flushed.tolist() == [0.0, 0.0, 0.0, 0.0, TINY, -TINY, 0.0, 0.5, -3.0]
    assert subnormal_count(array) == 3 and subnormal_count(flushed) == 0
    normal = np.array([1.0, TINY], np.float32)
    assert flush_subnormals(normal) is normal              # nothing to flush: the array itself


def test_every_shipped_weights_file_holds_no_subnormal():
    files = sorted(SHIPPED_DATA.glob("*.npz"))
    assert {f.name for f in files} >= {"value.npz", "value-4p.npz", "policy.npz"}
    for path in files:
        with np.load(path) as npz:
            for name in npz.files:
                assert subnormal_count(npz[name]) == 0, f"{path.name}: {name}"
    for n in (2, 3, 4):
        assert load_value_model("", n).flushed == 0
    assert load_policy_model("").flushed == 0


def test_a_file_with_subnormals_loads_flushed_and_keeps_the_digest_of_its_bytes(tmp_path):
    arrays = weights_with_subnormals()
    expected = sum(subnormal_count(arrays[name]) for name in ARRAY_NAMES)
    assert expected > 1000
    raw = write_raw(tmp_path / "old.npz", arrays)
    model = load_value_model(str(raw))
    assert model.flushed == expected
    assert model.digest == hashlib.sha256(raw.read_bytes()).hexdigest()[:12]
    clean_path = tmp_path / "clean.npz"
    digest = save_weights(clean_path, arrays)              # the writer flushes what it writes
    with np.load(clean_path) as npz:
        assert sum(subnormal_count(npz[name]) for name in npz.files) == 0
        assert np.array_equal(npz["w1"], flush_subnormals(arrays["w1"]))
    clean = load_value_model(str(clean_path))
    assert clean.flushed == 0 and digest == clean.digest != model.digest
    state = a_position()
    for seat in range(state.n_players):                    # the same numbers, flushed or not
        assert model.value(state, seat) == clean.value(state, seat)


def test_a_policy_file_with_subnormals_loads_flushed(tmp_path):
    rng = np.random.default_rng(3)
    shapes = {"w1": (FEATURE_SIZE, 8), "b1": (8,), "u": (223, 8), "c": (223,)}
    arrays = {name: (rng.standard_normal(shape) * 0.1).astype(np.float32) for name, shape in shapes.items()}
    arrays["u"].reshape(-1)[::7] = np.float32(-2e-39)
    assert set(arrays) == set(POLICY_ARRAYS)
    model = load_policy_model(str(write_raw(tmp_path / "policy.npz", arrays)))
    assert model.flushed == subnormal_count(arrays["u"]) > 100


def test_the_trainer_step_leaves_no_subnormal():
    # a step of 1e-38 takes 1.5e-38 (normal) to 5e-39 (subnormal) unless the step flushes it
    weights = {"w": np.full(64, 1.5e-38, np.float32), "b": np.full(4, 0.5, np.float32)}
    adam = Adam(weights, learning_rate=1e-38, weight_decay=0.0, decayed=[])
    adam.update(weights, {"w": np.ones(64, np.float32), "b": np.ones(4, np.float32)})
    assert weights["w"].dtype == np.float32
    assert subnormal_count(weights["w"]) == 0 and np.all(weights["w"] == 0)
    assert np.all(weights["b"] == np.float32(0.5))         # a normal step is kept as it was


@pytest.mark.skipif(not _value.floating_point_control(), reason="no flush-to-zero control on this target")
@pytest.mark.parametrize("n_players", [2, 4])
@pytest.mark.parametrize("kernel", _value.KERNEL_NAMES)
def test_the_search_runs_with_flush_to_zero_and_restores_the_mode(n_players, kernel):
    if kernel not in _value.available_kernels():
        pytest.skip(f"the {kernel} kernel is not available on this build or processor")
    previous = _value.set_kernel(kernel)
    try:
        assert _value.floating_point_mode() == 0           # Python runs in the default mode
        params = SearchParams(seed=3, hash_mb=1, leaf_eval="value", rollout_turns=2)
        tree = new_tree(params, True, 3, n_players)
        state = a_position(n_players)
        assert tree.fp_mode_in_run == 0                    # no run yet
        tree.set_root(state.view(state.to_move), state.to_move)
        assert tree.run(40, 0.0, 0) == 40
        assert tree.fp_mode_in_run == FLUSH_AND_DENORMALS_ZERO
        assert _value.floating_point_mode() == 0           # and restored after it
    finally:
        _value.set_kernel(previous)


@pytest.mark.skipif(not _value.floating_point_control(), reason="no flush-to-zero control on this target")
def test_evaluations_called_from_python_restore_the_mode(tmp_path):
    model = load_value_model(str(write_raw(tmp_path / "old.npz", weights_with_subnormals())))
    state = a_position(4)
    model.value(state, 0)
    model.rewards(state)
    model.ns_per_rewards(state, 3)
    load_policy_model("").priors(state)
    assert _value.floating_point_mode() == 0


def test_the_engine_says_once_that_a_files_values_were_flushed(tmp_path):
    from helpers import ServerSession
    raw = write_raw(tmp_path / "old.npz", weights_with_subnormals())
    flushed = load_value_model(str(raw)).flushed
    s = ServerSession()
    s.send("pri")
    assert not [line for line in s.new_lines() if "normal range" in line]   # shipped: none
    s.send(f"setoption name Value Weights value {raw}")
    notes = [line for line in s.new_lines() if "normal range" in line]
    assert notes == [f"info string value weights {raw} ({load_value_model(str(raw)).digest}): "
                     f"{flushed} values below float32's normal range read as zero"]
    s.send("setoption name Value Weights value <empty>", f"setoption name Value Weights value {raw}")
    assert not [line for line in s.new_lines() if "normal range" in line]   # once per file


class _SlowModel:
    """A value model whose reward vector is measured at `factor` times its arithmetic."""

    def __init__(self, model, factor):
        self.model, self.factor = model, factor

    def work(self, state):
        return self.model.work(state)

    def ns_per_rewards(self, state, repeats):
        from search.kernel import arithmetic_estimate_ns
        return self.factor * arithmetic_estimate_ns(self.work(state)["madds"])


@pytest.mark.parametrize("factor,warned", [(1.0, False), (3.9, False), (4.0, True), (20.0, True)])
def test_the_bench_warns_when_an_evaluation_costs_several_times_its_arithmetic(capsys, factor, warned):
    from helpers import bench_script
    bench_script("search").arithmetic_guard(_SlowModel(load_value_model(""), factor))
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("value arithmetic: ")]
    assert [row.split(":")[1].strip() for row in rows] == ["2 players", "3 players", "4 players"]
    assert all(f"{factor:.2f}x the estimate" in row for row in rows)
    assert any(line.startswith("WARNING: ") for line in lines) == warned


def test_the_arithmetic_of_a_reward_vector_follows_the_kernel_and_the_shape():
    state = a_position(4)
    model = load_value_model("", 4)
    h1, h2 = model.hidden
    previous = _value.set_kernel("portable")
    try:
        portable = model.work(state)
        if "avx2+fma" in _value.available_kernels():
            _value.set_kernel("avx2+fma")
            avx2 = model.work(state)
            assert avx2["rows"] < portable["rows"]          # the shared rows once, not per seat
    finally:
        _value.set_kernel(previous)
    assert portable["seats"] == 4
    assert portable["madds"] == portable["rows"] * h1 + 4 * (h1 * h2 + h2)
    assert model.work(state.view(0))["seats"] == 1


def test_the_waits_bench_refuses_counts_below_one(capsys, monkeypatch):
    import sys
    from helpers import bench_script
    for flag in ("--positions", "--processes"):
        monkeypatch.setattr(sys, "argv", ["user_waits.py", flag, "0"])
        with pytest.raises(SystemExit) as exit_:
            bench_script("user_waits").main()
        assert exit_.value.code == 2 and "must be at least 1" in capsys.readouterr().err


@pytest.mark.slow
def test_the_waits_bench_prints_each_wait_and_its_last_line(capsys, monkeypatch):
    import re
    import sys
    from helpers import bench_script
    monkeypatch.setattr(sys, "argv", ["user_waits.py", "--positions", "1", "--processes", "1", "--skip-analyse"])
    bench_script("user_waits").main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("record ") and "3 players" in lines[0]
    assert sum(line.startswith("hint at round ") for line in lines) == 1
    assert sum(line.startswith("analysis board step at round ") for line in lines) == 1
    assert re.fullmatch(r"hint_s=[\d.]+ board_step_s=[\d.]+ review_s=[\d.]+ review_cpu_s=[\d.]+", lines[-1])
