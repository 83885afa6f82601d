"""The learned policy head (search/_prior.pyx, search/policy.py): its priors over a decision's
legal actions are a distribution over exactly those actions, the C forward pass agrees with
the numpy one under both value kernels at 2, 3 and 4 players, from full states and the
mover's views, and a hostile weights file is refused with one line naming it.
"""

import io
import zipfile

import numpy as np
import pytest

from helpers import SHIPPED_POLICY_DIGESTS
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE, observation
from engine.rng import Rng
from engine.state import State
from search import _prior, _value
from search.policy import (ARRAY_NAMES, MAX_WEIGHTS_BYTES, PolicyModel, dense_action_features,
                           expected_shapes, load_policy_model, numpy_priors, save_policy_weights,
                           training_inputs, uniform_arrays)

KERNELS = _value.available_kernels()


def random_weights(seed=1, hidden=24, scale=0.3):
    rng = np.random.default_rng(seed)
    return {name: (rng.standard_normal(shape) * scale).astype(np.float32)
            for name, shape in expected_shapes(hidden).items()}


def model_of(arrays):
    return PolicyModel(*(arrays[name] for name in ARRAY_NAMES))


def decisions(n, seed, every=3, count=25):
    """`count` decision points of one random game of n players, about `every` actions apart."""
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    found, step = [], 0
    while len(found) < count and not state.is_terminal():
        legal = state.legal_actions()
        if not state.is_chance() and step % every == 0:
            found.append(state.copy())
        state.apply(legal[rng.below(len(legal))])
        step += 1
    return found


@pytest.fixture
def kernel():
    before = _value.kernel_name()
    yield
    _value.set_kernel(before)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_priors_are_a_distribution_over_the_legal_actions_only(n):
    model = model_of(random_weights(n))
    for state in decisions(n, 10 + n):
        legal = state.legal_actions()
        priors = model.priors(state)
        assert len(priors) == len(legal)
        assert all(p >= 0 for p in priors)
        assert sum(priors) == pytest.approx(1.0, abs=1e-5)
        # a part of the legal list: its own distribution, in the order asked
        part = legal[::-1][:max(1, len(legal) // 2)]
        sub = model.priors(state, part)
        assert sum(sub) == pytest.approx(1.0, abs=1e-5)
        whole = dict(zip(legal, priors))      # the same logits: the same ratios (where not floored)
        ratio = [sub[i] / whole[a] for i, a in enumerate(part) if min(sub[i], whole[a]) > 1e-4]
        assert not ratio or np.allclose(ratio, ratio[0], rtol=1e-4)


def test_an_illegal_or_bad_action_is_refused_clearly():
    model = model_of(random_weights())
    state = decisions(2, 3, count=1)[0]
    legal = state.legal_actions()
    illegal = next(a for a in range(175) if a not in legal)
    for actions, why in [([illegal], f"action {illegal} is not legal here"),
                         ([175], "action 175 is not legal"), ([-1], "action -1 is not legal"),
                         ([10 ** 30], "is not legal"), (["a"], "'a' is not an integer"),
                         ([1.5], "is not an integer"), ([legal[0], legal[0]], "asked for twice"),
                         ([], "no actions")]:
        with pytest.raises(ValueError, match=why):
            model.priors(state, actions)
    assert model.priors(state, [np.int64(legal[0])]) == [1.0]


def test_no_decision_or_another_seats_view_is_refused():
    model = model_of(random_weights())
    state = decisions(3, 4, count=1)[0]
    other = state.view((state.to_move + 1) % 3)
    with pytest.raises(ValueError, match="view; the mover is seat"):
        model.priors(other)
    over = State.new_game(2, seed=1)
    rng = Rng(1)
    while not over.is_terminal():
        legal = over.legal_actions()
        over.apply(legal[rng.below(len(legal))])
    with pytest.raises(ValueError, match="no decision"):
        model.priors(over)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_c_agrees_with_numpy_under_every_kernel_from_full_states_and_views(n, kernel):
    arrays = random_weights(5 + n)
    model = model_of(arrays)
    for name in KERNELS:
        _value.set_kernel(name)
        assert _prior.follow_value_kernel() == name           # the head runs the value's kernel
        for state in decisions(n, 20 + n):
            for position in (state, state.view(state.to_move)):
                actions, reference = numpy_priors(arrays, position)
                assert actions == position.legal_actions()
                assert np.allclose(model.priors(position), reference, rtol=0, atol=1e-5), (name, position.stage)


def test_the_head_reads_the_movers_observation_and_the_actions_features():
    state = next(s for s in decisions(4, 8, count=60) if len(s.legal_actions()) > 3)
    x, actions, idx, val = training_inputs(state)
    assert np.array_equal(x, observation(state, state.to_move)) and x.shape == (FEATURE_SIZE,)
    features = dense_action_features(idx, val)
    assert features.shape == (len(actions), _prior.N_ACTION_FEATURES)
    for row, action in zip(features, actions):
        assert row[action] == 1.0                        # the one-hot of the action id
    # the mover's view reads the same
    assert all(np.array_equal(a, b) for a, b in zip(training_inputs(state.view(state.to_move)), (x, actions, idx, val))
               if isinstance(a, np.ndarray))


def test_zero_weights_and_an_empty_model_give_uniform_priors():
    state = next(s for s in decisions(2, 9) if len(s.legal_actions()) > 2)
    n = len(state.legal_actions())
    assert np.allclose(model_of(uniform_arrays(4)).priors(state), 1.0 / n)
    assert np.allclose(PolicyModel().priors(state), 1.0 / n)


def test_the_weights_file_round_trips_and_its_digest_is_its_bytes(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert save_policy_weights(a, random_weights(1)) == save_policy_weights(b, random_weights(1))
    model = load_policy_model(str(a))
    assert model.source == str(a) and len(model.digest) == 12 and model.hidden == 24
    state = decisions(2, 2, count=1)[0]
    assert model.priors(state) == model_of(random_weights(1)).priors(state)
    assert save_policy_weights(b, random_weights(2)) != model.digest
    assert load_policy_model(str(b)).digest != model.digest


def npz_of(arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def changed(**changes):
    arrays = random_weights()
    arrays.update(changes)
    return {k: v for k, v in arrays.items() if v is not None}


H = 24
AF = _prior.N_ACTION_FEATURES


@pytest.mark.parametrize("arrays, why", [
    (changed(c=None), "expected the arrays"),
    (changed(w2=np.zeros(1, np.float32)), "expected the arrays"),
    (changed(w1=np.zeros((FEATURE_SIZE, H), np.float64)), "w1 is float64, expected float32"),
    (changed(w1=np.zeros((FEATURE_SIZE - 1, H), np.float32)), "w1 has shape"),
    (changed(u=np.zeros((AF - 1, H), np.float32), c=np.zeros(AF - 1, np.float32)),
     f"{AF - 1} action features, this engine has {AF}"),
    (changed(u=np.zeros((AF, H + 1), np.float32)), "u has shape"),
    (changed(b1=np.zeros((H, 1), np.float32)), "b1 must be a vector"),
    (changed(b1=np.zeros(300, np.float32)), "must be 1..256"),
    (changed(b1=np.zeros(0, np.float32)), "must be 1..256"),
    (changed(u=np.full((AF, H), np.nan, np.float32)), "u holds a value that is not finite"),
    (changed(c=np.full(AF, np.inf, np.float32)), "c holds a value that is not finite"),
    (changed(w1=np.array([object()] * 3)), "array w1 is unreadable"),
])
def test_bad_policy_weights_are_refused_naming_the_file(tmp_path, arrays, why):
    path = tmp_path / "bad.npz"
    path.write_bytes(npz_of(arrays))
    with pytest.raises(PalaisError) as caught:
        load_policy_model(str(path))
    message = str(caught.value)
    assert str(path) in message and why in message and "\n" not in message


def test_files_that_are_not_policy_weights_are_refused(tmp_path):
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("w1.npy", b"\0" * (64 * 1024 * 1024))
    cases = {"missing.npz": (None, "policy weights file"), "text.npz": (b"not a zip", "not a numpy .npz"),
             "empty.npz": (b"", "not a numpy .npz"),
             "big.npz": (b"\0" * (MAX_WEIGHTS_BYTES + 1), "more than the 2 MiB"),
             "bomb.npz": (bomb.getvalue(), "unpacks to")}
    for name, (data, why) in cases.items():
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        with pytest.raises(PalaisError) as caught:
            load_policy_model(str(path))
        assert str(path) in str(caught.value) and "\n" not in str(caught.value)
        assert why in str(caught.value), (name, str(caught.value))
    shipped = load_policy_model("")            # "" is the shipped file (docs/train.md gives its digest)
    assert shipped.source.endswith("policy.npz") and shipped.digest == "2d082668e326"
    assert [load_policy_model("", n).digest for n in (2, 3, 4)] == list(SHIPPED_POLICY_DIGESTS)


def test_the_constructor_refuses_wrong_shapes_itself():
    arrays = random_weights()
    with pytest.raises(ValueError, match="wrong shapes"):
        PolicyModel(arrays["w1"], arrays["b1"], arrays["u"][:-1], arrays["c"])


def test_ns_per_priors_is_a_positive_time():
    state = decisions(4, 1, count=1)[0]
    assert model_of(random_weights()).ns_per_priors(state, 50) > 0


# ---- the head in the tree (selection=puct, search/priors.py) ------------------------------

def puct_search(policy_weights, n=3, iterations=400):
    from search.mcts import MCTSSearch
    from search.params import SearchLimits, SearchParams
    state = decisions(n, 6, every=7, count=4)[-1]
    result = MCTSSearch(SearchParams(seed=2, selection="puct", policy_weights=policy_weights)).search(
        state, limits=SearchLimits(iterations=iterations))
    return result.root_visits


def test_a_puct_search_reads_the_learned_priors(tmp_path):
    path = tmp_path / "p.npz"
    save_policy_weights(path, random_weights(4, scale=1.0))
    learned = puct_search(str(path))
    assert learned == puct_search(str(path))                 # deterministic
    assert learned != puct_search("uniform")
    save_policy_weights(tmp_path / "zero.npz", uniform_arrays(8))
    assert puct_search(str(tmp_path / "zero.npz")) == puct_search("uniform")   # equal priors: the same tree


def test_a_puct_search_with_a_bad_policy_file_is_one_line_naming_it(tmp_path):
    path = tmp_path / "bad.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(PalaisError, match=f"policy weights {path}: not a numpy .npz file"):
        puct_search(str(path))


def test_no_legal_action_gets_a_prior_of_zero_even_from_extreme_weights():
    model = model_of(random_weights(7, scale=200.0))
    floored = 0
    for n in (2, 4):
        for state in decisions(n, 30 + n):
            priors = model.priors(state)
            assert min(priors) > 0 and sum(priors) == pytest.approx(1.0, abs=1e-5)
            floored += min(priors) < 1e-5
    assert floored                       # the softmax alone would have given some a 0


@pytest.mark.parametrize("n", [2, 4])
def test_the_tree_stores_the_heads_priors_for_a_nodes_legal_actions(tmp_path, n):
    from search.mcts import MCTSSearch
    from search.params import SearchLimits, SearchParams
    path = tmp_path / "p.npz"
    save_policy_weights(path, random_weights(11, scale=1.0))
    model = load_policy_model(str(path))
    for state in decisions(n, 40 + n, every=11, count=6):
        if len(state.legal_actions()) < 2:
            continue
        view = state.view(state.to_move)
        searcher = MCTSSearch(SearchParams(seed=1, selection="puct", policy_weights=str(path)))
        searcher.search(view, limits=SearchLimits(iterations=50))
        tree = searcher.last_tree
        stored = tree.priors_of(tree.key_for(view))
        assert [e.action for e in tree.node_edges(tree.key_for(view))] == view.legal_actions()
        assert np.allclose(stored, model.priors(view), rtol=0, atol=1e-6)
        assert sum(stored) == pytest.approx(1.0, abs=1e-5) and min(stored) > 0
