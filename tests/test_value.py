"""The learned value model (search/_value.pyx, search/value.py): the C forward pass equals
numpy's, a weights file is checked before its numbers reach C, and the search with the
value at a cutoff is reproducible and reachable over PRI."""

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from helpers import SHIPPED_POLICY_DIGESTS, SHIPPED_VALUE_DIGESTS
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE, observation
from engine.rng import Rng
from engine.state import State
from search.mcts import MCTSSearch
from search.params import SearchLimits, SearchParams, value_rollout_turns
from search.value import (MAX_WEIGHTS_BYTES, SHIPPED_WEIGHTS, load_value_model, npz_bytes,
                          numpy_values, save_weights)


def random_weights(seed=0, h1=64, h2=32):
    rng = np.random.default_rng(seed)
    return {"w1": (rng.standard_normal((FEATURE_SIZE, h1)) * 0.05).astype(np.float32),
            "b1": (rng.standard_normal(h1) * 0.1).astype(np.float32),
            "w2": (rng.standard_normal((h1, h2)) * 0.2).astype(np.float32),
            "b2": (rng.standard_normal(h2) * 0.1).astype(np.float32),
            "w3": (rng.standard_normal(h2) * 0.5).astype(np.float32),
            "b3": np.array([0.1], np.float32)}


def played_positions(count, seed=7):
    """Positions of 2-4 players after a random number of random actions (finished ones too)."""
    rng = Rng(seed)
    out = []
    for i in range(count):
        state = State.new_game(2 + i % 3, seed=seed + i)
        for _ in range(rng.below(400)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
        out.append(state)
    return out


@pytest.fixture
def weights_file(tmp_path):
    path = tmp_path / "w.npz"
    save_weights(path, random_weights())
    return path


@pytest.mark.parametrize("hidden", [(64, 32), (5, 3)])
def test_c_value_equals_numpy_forward_pass(tmp_path, hidden):
    arrays = random_weights(3, *hidden)
    path = tmp_path / "w.npz"
    save_weights(path, arrays)
    model = load_value_model(str(path))
    assert model.hidden == hidden
    checked = 0
    for state in played_positions(60):
        for seat in range(state.n_players):
            expected = numpy_values(arrays, observation(state, seat)[None])[0]
            assert model.value(state, seat) == pytest.approx(expected, abs=1e-5)
            checked += 1
        shares = model.rewards(state)
        values = [model.value(state, q) for q in range(state.n_players)]
        assert shares == pytest.approx([v / sum(values) for v in values], abs=1e-12)
    assert checked > 150
    # the values are not all alike, so agreement means something
    spread = [model.value(s, 0) for s in played_positions(20)]
    assert max(spread) - min(spread) > 0.05


def test_a_view_and_the_full_state_give_one_value(weights_file):
    model = load_value_model(str(weights_file))
    for state in played_positions(12, seed=40):
        for seat in range(state.n_players):
            assert model.value(state.view(seat), seat) == model.value(state, seat)


def test_the_digest_is_the_files_and_equal_weights_give_equal_bytes(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert save_weights(a, random_weights(1)) == save_weights(b, random_weights(1))
    assert a.read_bytes() == b.read_bytes()
    assert load_value_model(str(a)).digest == load_value_model(str(b)).digest
    digest = save_weights(b, random_weights(2))       # the same file name, other weights
    assert load_value_model(str(b)).digest == digest != load_value_model(str(a)).digest


def write_npz(path, arrays):
    path.write_bytes(npz_bytes_any(arrays))
    return str(path)


def npz_bytes_any(arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def changed(**changes):
    arrays = random_weights()
    arrays.update(changes)
    return {k: v for k, v in arrays.items() if v is not None}


@pytest.mark.parametrize("arrays, why", [
    (changed(b3=None), "expected the arrays"),
    (changed(extra=np.zeros(1, np.float32)), "expected the arrays"),
    (changed(w1=np.zeros((FEATURE_SIZE, 64), np.float64)), "w1 is float64, expected float32"),
    (changed(w1=np.zeros((FEATURE_SIZE - 1, 64), np.float32)), "w1 has shape"),
    (changed(w2=np.zeros((32, 64), np.float32)), "w2 has shape"),
    (changed(w3=np.zeros((32, 1), np.float32)), "w3 has shape"),
    (changed(b1=np.zeros((64, 1), np.float32)), "must be vectors"),
    (changed(b1=np.zeros(0, np.float32), w1=np.zeros((FEATURE_SIZE, 0), np.float32),
             w2=np.zeros((0, 32), np.float32)), "each must be 1..256"),
    (changed(b1=np.zeros(300, np.float32), w1=np.zeros((FEATURE_SIZE, 300), np.float32),
             w2=np.zeros((300, 32), np.float32)), "each must be 1..256"),
    (changed(w2=np.full((64, 32), np.nan, np.float32)), "w2 holds a value that is not finite"),
    (changed(b3=np.array([np.inf], np.float32)), "b3 holds a value that is not finite"),
    (changed(w1=np.array([object()] * 3)), "array w1 is unreadable"),
])
def test_bad_weights_are_refused_naming_the_file(tmp_path, arrays, why):
    path = write_npz(tmp_path / "bad.npz", arrays)
    with pytest.raises(PalaisError) as caught:
        load_value_model(path)
    assert str(path) in str(caught.value) and why in str(caught.value)


def test_files_that_are_not_weights_are_refused(tmp_path):
    cases = {
        "missing.npz": None,
        "text.npz": b"not a zip at all",
        "empty.npz": b"",
        "cut.npz": npz_bytes(random_weights())[:5000],
        "big.npz": b"\0" * (MAX_WEIGHTS_BYTES + 1),
    }
    for name, data in cases.items():
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        with pytest.raises(PalaisError, match=str(path)):
            load_value_model(str(path))
    with pytest.raises(PalaisError, match="is a directory"):
        load_value_model(str(tmp_path))


def test_a_small_file_that_unpacks_huge_is_refused_unread(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("w1.npy", b"\0" * (64 * 1024 * 1024))
    path = tmp_path / "bomb.npz"
    path.write_bytes(buffer.getvalue())
    assert path.stat().st_size < MAX_WEIGHTS_BYTES
    with pytest.raises(PalaisError, match="unpacks to"):
        load_value_model(str(path))


def test_the_shipped_weights_load():
    model = load_value_model("")
    assert model.source == str(SHIPPED_WEIGHTS) and len(model.digest) == 12
    assert SHIPPED_WEIGHTS.stat().st_size < 400 * 1024


def search(params, n=2, seed=5, iterations=600):
    state = State.new_game(n, seed=seed)
    result = MCTSSearch(params).search(state, limits=SearchLimits(iterations=iterations))
    return result.best_turn, [(c.turn, c.visits) for c in result.candidates], result.stats["root_win"]


def test_the_search_with_the_value_is_deterministic_and_uses_it(weights_file):
    value = SearchParams(seed=3, rollout_turns=2, leaf_eval="value", value_weights=str(weights_file))
    first = search(value)
    assert search(value) == first
    assert search(value.with_(leaf_eval="heuristic")) != first
    other = weights_file.parent / "other.npz"
    save_weights(other, random_weights(9))
    assert search(value.with_(value_weights=str(other))) != first


def test_the_value_cuts_rollouts_after_a_few_turns_unless_a_cutoff_is_set(weights_file):
    # rollout_turns=-1 with the value: a rollout to the end would never ask it, so it cuts
    # after value_turns turns (4; 0: two rounds, value_rollout_turns: 2 turns per player); the
    # heuristic evaluation with -1 never evaluates
    value = SearchParams(seed=3, leaf_eval="value", value_weights=str(weights_file))
    assert search(value) == search(value.with_(rollout_turns=4))
    assert search(value) != search(value.with_(rollout_turns=6))
    rounds = value.with_(value_turns=0)
    for n in (2, 4):
        turns = value_rollout_turns(n)
        assert search(rounds, n) == search(value.with_(rollout_turns=turns), n)
        assert search(rounds, n) != search(value.with_(rollout_turns=turns + 2), n)
        assert search(value.with_(value_turns=turns + 2), n) == search(value.with_(rollout_turns=turns + 2), n)
    heuristic = SearchParams(seed=3, leaf_eval="heuristic")
    assert search(heuristic) == search(heuristic.with_(value_weights=str(weights_file)))


def test_a_bad_weights_file_fails_the_search_with_its_name(tmp_path):
    path = tmp_path / "bad.npz"
    path.write_bytes(b"junk")
    with pytest.raises(PalaisError, match="bad.npz"):
        search(SearchParams(rollout_turns=2, leaf_eval="value", value_weights=str(path)))


def test_knobs_refuse_bad_values():
    with pytest.raises(PalaisError, match="leaf_eval"):
        SearchParams(leaf_eval="network")
    with pytest.raises(PalaisError, match="value_weights"):
        SearchParams(value_weights=3)
    with pytest.raises(PalaisError, match="value_weights"):
        SearchParams(value_weights="a\0b")


def test_pri_shows_the_digests_in_id_name_only_with_the_value_and_the_priors_on(weights_file):
    from helpers import ServerSession
    s = ServerSession()
    s.send("pri")        # the default, leaf_eval=auto, uses the shipped weights: one per player count
    shipped = "/".join(load_value_model("", n).digest for n in (2, 3, 4))
    assert shipped == "/".join(SHIPPED_VALUE_DIGESTS)
    priors = "policy " + "/".join(SHIPPED_POLICY_DIGESTS)     # selection=puct: the shipped priors too
    assert s.new_lines()[0] == f"id name palais-engine 0.1.0 value {shipped} {priors}"
    s.send("setoption name Leaf Eval value heuristic", "pri")
    assert s.new_lines()[0] == f"id name palais-engine 0.1.0 {priors}"
    s.send("setoption name Selection value uct", "pri")
    assert s.new_lines()[0] == "id name palais-engine 0.1.0"
    s.send("setoption name Selection value puct", "setoption name Policy Weights value uniform", "pri")
    assert s.new_lines()[0] == "id name palais-engine 0.1.0 policy uniform"
    s.send(f"setoption name Value Weights value {weights_file}", "setoption name Leaf Eval value value",
           "setoption name Rollout Turns value 2", "pri")
    digest = load_value_model(str(weights_file)).digest
    assert s.new_lines()[0] == f"id name palais-engine 0.1.0 value {digest} policy uniform"
    s.send("position start players 2 seed 4", "go iterations 300")
    assert s.new_lines()[-1].startswith("bestmove ")
    s.send("setoption name Value Weights value <empty>", "setoption name Policy Weights value <empty>", "pri")
    assert s.new_lines()[0] == f"id name palais-engine 0.1.0 value {shipped} {priors}"


def test_the_shipped_weights_are_chosen_by_the_player_count_and_presets_keep_the_old_ones(weights_file):
    from search.params import SHIPPED_VALUE, SHIPPED_VALUE_BY_PLAYERS, shipped_value_path
    for n, digest in zip((2, 3, 4), SHIPPED_VALUE_DIGESTS):
        chosen = SearchParams().for_players(n)
        own_file = str(shipped_value_path(n)) if n in SHIPPED_VALUE_BY_PLAYERS else ""   # "": value.npz
        assert chosen.leaf_eval == "value" and chosen.value_weights == own_file
        assert load_value_model(chosen.value_weights, n).digest == load_value_model("", n).digest == digest
    assert load_value_model("").digest == "6f474a8b4123"          # value.npz: the presets' file
    own = SearchParams(value_weights=str(weights_file)).for_players(4)
    assert own.value_weights == str(weights_file)            # a file chosen is never replaced
    assert SearchParams(leaf_eval="heuristic").for_players(4).value_weights == ""
    for preset in ("v26", "v27", "v28"):                      # the engines before the per-count weights
        for n in (2, 3, 4):
            assert SearchParams.preset(preset).for_players(n).value_weights == str(SHIPPED_VALUE)


def test_pri_refuses_a_bad_weights_file_and_keeps_the_old_one(tmp_path, weights_file):
    from helpers import ServerSession
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    s = ServerSession()
    s.send(f"setoption name Value Weights value {weights_file}", "setoption name Leaf Eval value value")
    s.send(f"setoption name Value Weights value {bad}")
    assert s.new_lines() == [f"info string error: option Value Weights: value weights {bad}: not a numpy .npz file"]
    assert s.server.engine.params().value_weights == str(weights_file)


def test_palais_engine_weights_starts_with_the_learned_preset(tmp_path, weights_file):
    import subprocess
    import sys
    digest = load_value_model(str(weights_file)).digest
    run = subprocess.run([sys.executable, "-m", "protocol.cli", "--weights", str(weights_file)],
                         input="pri\nquit\n", capture_output=True, text=True, timeout=60)
    priors = "/".join(SHIPPED_POLICY_DIGESTS)
    assert run.stdout.splitlines()[0] == f"id name palais-engine 0.1.0 value {digest} policy {priors}"
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    run = subprocess.run([sys.executable, "-m", "protocol.cli", "--weights", str(bad)],
                         input="pri\nquit\n", capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    assert f"value weights {bad}: not a numpy .npz file" in run.stderr


def test_the_c_model_itself_refuses_arrays_of_the_wrong_shapes():
    from search._value import ValueModel
    good = random_weights(h1=8, h2=4)
    ValueModel(*(good[k] for k in ("w1", "b1", "w2", "b2", "w3", "b3")))
    for name, bad in [("w1", np.zeros((10, 8), np.float32)), ("w2", np.zeros((4, 8), np.float32)),
                      ("b1", np.zeros(300, np.float32)), ("w3", np.zeros(5, np.float32))]:
        arrays = {**good, name: bad}
        with pytest.raises(ValueError, match="wrong shapes"):
            ValueModel(*(arrays[k] for k in ("w1", "b1", "w2", "b2", "w3", "b3")))


def test_the_shipped_policy_is_chosen_by_the_player_count_where_one_of_its_own_is_shipped(tmp_path):
    import search.policy
    from search.params import SHIPPED_POLICY, SHIPPED_POLICY_BY_PLAYERS, shipped_policy_path
    assert all(hasattr(search.policy, name) for name in search.policy.__all__)   # its names, one definition
    assert search.policy.SHIPPED_POLICY is SHIPPED_POLICY
    for n in (2, 3, 4):
        chosen = SearchParams().for_players(n).policy_weights
        if n in SHIPPED_POLICY_BY_PLAYERS:
            assert chosen == str(shipped_policy_path(n)) != str(SHIPPED_POLICY)
            assert Path(chosen).is_file()
        else:
            assert chosen == "" and shipped_policy_path(n) == SHIPPED_POLICY
        for kept in ("uniform", str(tmp_path / "mine.npz")):      # a choice is never replaced
            assert SearchParams(policy_weights=kept).for_players(n).policy_weights == kept
        assert SearchParams(selection="uct").for_players(n).policy_weights == ""   # no priors, no file
        assert SearchParams.preset("v28").for_players(n).policy_weights == str(SHIPPED_POLICY)
