"""The learned policy head's weights file: reading and checking it, writing it, and the one
forward pass in numpy that the C head (search/_prior.pyx) must agree with.

A weights file is a numpy .npz holding exactly these float32 arrays (docs/train.md):
  w1 (FEATURE_SIZE, H)  b1 (H,)  u (ACTION_FEATURES, H)  c (ACTION_FEATURES,)
with 1 <= H <= MAX_HIDDEN and ACTION_FEATURES the rows of the C action-feature table. Every
value must be finite, the file at most MAX_WEIGHTS_BYTES and its arrays at most
MAX_UNPACKED_BYTES once unpacked; anything else is refused with a PalaisError naming the
file. Nothing in the file is executed (no pickles). The model's identity is the short sha256
of the file's bytes (search/weights_file.py, as the value model's).

The policy: h = ReLU(x W1 + b1) for x the mover's observation; for each legal action a with
sparse features (idx_j, val_j), logit(a) = sum_j val_j (c[idx_j] + u[idx_j] . h); the priors
are the softmax of the logits over the legal actions, each floored at PRIOR_FLOOR (1e-6) and
renormalised, so that no legal action has a prior of 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from common.atomic_write import write_bytes_atomic
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE

from ._prior import ACTION_ENTRIES, N_ACTION_FEATURES, PolicyModel, follow_value_kernel, training_inputs
from .kernel import kernel_name
from .params import SHIPPED_POLICY, shipped_policy_path
from .weights_file import (check_names_and_types, check_shapes_and_values, digest_of, load_once,
                           npz_arrays, npz_bytes)

MAX_HIDDEN = 256                       # search/_value.pxd's MAX_HIDDEN
MAX_WEIGHTS_BYTES = 2 * 1024 * 1024
MAX_UNPACKED_BYTES = 4 * 1024 * 1024
ARRAY_NAMES = ("w1", "b1", "u", "c")

_loaded: dict = {}                     # (path, inode, size, mtime_ns) -> PolicyModel


def policy_path(policy_weights: str, n_players: int | None = None) -> Path:
    """The file the policy_weights knob names ("" = the shipped weights of an `n_players`
    game; None: policy.npz)."""
    return Path(policy_weights) if policy_weights else shipped_policy_path(n_players)


def expected_shapes(hidden: int) -> dict:
    return {"w1": (FEATURE_SIZE, hidden), "b1": (hidden,), "u": (N_ACTION_FEATURES, hidden),
            "c": (N_ACTION_FEATURES,)}


def check_arrays(arrays: dict, label: str) -> dict:
    """`arrays` if they are a policy head's weights, else PalaisError("label: why")."""
    check_names_and_types(arrays, ARRAY_NAMES, label)
    if arrays["b1"].ndim != 1:
        raise PalaisError(f"{label}: b1 must be a vector")
    hidden = arrays["b1"].shape[0]
    if not 1 <= hidden <= MAX_HIDDEN:
        raise PalaisError(f"{label}: a hidden layer of {hidden} units; it must be 1..{MAX_HIDDEN}")
    if arrays["c"].ndim == 1 and arrays["c"].shape[0] != N_ACTION_FEATURES:
        raise PalaisError(f"{label}: {arrays['c'].shape[0]} action features, this engine has "
                          f"{N_ACTION_FEATURES} (weights for another version of the table)")
    check_shapes_and_values(arrays, expected_shapes(hidden), label)
    return arrays


def arrays_from_bytes(data: bytes, label: str) -> dict:
    """The checked arrays of a policy weights file's bytes."""
    return check_arrays(npz_arrays(data, label, MAX_UNPACKED_BYTES), label)


def load_policy_model(policy_weights: str = "", n_players: int | None = None) -> PolicyModel:
    """The PolicyModel of the file `policy_weights` names ("" = the shipped file of an
    `n_players` game), checked; loaded once per process and file version. PalaisError naming
    the file if it is absent or unusable."""
    kernel_name()                      # PALAIS_KERNEL must be usable (the head uses its kernel)
    follow_value_kernel()
    path = policy_path(policy_weights, n_players)

    def build(data):
        arrays = arrays_from_bytes(data, f"policy weights {path}")
        return PolicyModel(*(arrays[name] for name in ARRAY_NAMES), digest=digest_of(data), source=str(path))
    return load_once(_loaded, path, "policy weights file", MAX_WEIGHTS_BYTES, build)


def save_policy_weights(path, arrays: dict) -> str:
    """Write `arrays` (checked first) as a policy weights file in one step; returns its digest."""
    arrays = check_arrays({name: np.asarray(arrays[name]) for name in ARRAY_NAMES},
                          f"policy weights for {path}")
    data = npz_bytes(arrays, ARRAY_NAMES)
    write_bytes_atomic(path, data)
    return digest_of(data)


def dense_action_features(idx: np.ndarray, val: np.ndarray) -> np.ndarray:
    """The (n, ACTION_FEATURES) matrix of n actions' sparse features (training_inputs' idx,
    val; unused entries have val 0)."""
    out = np.zeros((len(idx), N_ACTION_FEATURES), np.float32)
    rows = np.repeat(np.arange(len(idx)), idx.shape[1])
    np.add.at(out, (rows, idx.reshape(-1)), val.reshape(-1))
    return out


def numpy_logits(arrays: dict, x: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The logits of the actions whose feature rows are `features` (n, ACTION_FEATURES), for
    one observation x (FEATURE_SIZE,), float32."""
    h = np.maximum(x @ arrays["w1"] + arrays["b1"], 0)
    return features @ arrays["c"] + (features @ arrays["u"]) @ h


PRIOR_FLOOR = 1e-6                     # search/_prior.pyx's: no legal action's prior is 0


def softmax(logits: np.ndarray) -> np.ndarray:
    """The priors of `logits` as the C head makes them: a softmax, floored at PRIOR_FLOOR."""
    z = np.exp(logits.astype(np.float64) - logits.max())
    z = np.maximum(z / z.sum(), PRIOR_FLOOR)
    return z / z.sum()


def numpy_priors(arrays: dict, state, actions=None) -> tuple[list, np.ndarray]:
    """(actions, priors) at `state` by the numpy forward pass over the C head's own inputs
    (training_inputs): the reference the C head is tested against."""
    x, actions, idx, val = training_inputs(state, actions)
    return actions, softmax(numpy_logits(arrays, x, dense_action_features(idx, val)))


def uniform_arrays(hidden: int = 1) -> dict:
    """Weights that give every legal action the same prior (all zero)."""
    return {name: np.zeros(shape, np.float32) for name, shape in expected_shapes(hidden).items()}


__all__ = ["ACTION_ENTRIES", "ARRAY_NAMES", "PolicyModel", "SHIPPED_POLICY", "check_arrays",
           "load_policy_model", "numpy_priors", "save_policy_weights", "training_inputs"]
