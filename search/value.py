"""The learned value model's weights file: reading and checking it, writing it, and the one
forward pass in numpy that the C model (search/_value.pyx) must agree with.

A weights file is an uncompressed or compressed numpy .npz holding exactly these float32
arrays (docs/train.md):
  w1 (FEATURE_SIZE, h1)  b1 (h1,)  w2 (h1, h2)  b2 (h2,)  w3 (h2,)  b3 (1,)
with 1 <= h1, h2 <= MAX_HIDDEN. Every value must be finite, the file at most MAX_WEIGHTS_BYTES
and its arrays at most MAX_UNPACKED_BYTES once unpacked; anything else is refused with a
PalaisError naming the file. Nothing in the file is executed (no pickles). The model's
identity is the short sha256 of the file's bytes (`id name`, bench output).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from common.atomic_write import write_bytes_atomic
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE

from ._value import ValueModel
from .kernel import kernel_name
from .params import SHIPPED_VALUE, shipped_value_path
from .weights_file import check_names_and_types, check_shapes_and_values, digest_of, load_once, npz_arrays
from .weights_file import npz_bytes as weights_npz_bytes

SHIPPED_WEIGHTS = SHIPPED_VALUE          # the 2- and 3-player file (search/params.py: by player count)
PLAYER_COUNTS = (2, 3, 4)
MAX_HIDDEN = 256                       # search/_value.pxd's MAX_HIDDEN
MAX_WEIGHTS_BYTES = 2 * 1024 * 1024
MAX_UNPACKED_BYTES = 4 * 1024 * 1024
ARRAY_NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")

_loaded: dict = {}                     # (path, inode, size, mtime_ns) -> ValueModel: one load per process


def weights_path(value_weights: str, n_players: int | None = None) -> Path:
    """The file the value_weights knob names ("" = the shipped weights of an `n_players` game)."""
    return Path(value_weights) if value_weights else shipped_value_path(n_players)


def expected_shapes(h1: int, h2: int) -> dict:
    return {"w1": (FEATURE_SIZE, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "w3": (h2,), "b3": (1,)}


def check_arrays(arrays: dict, label: str) -> dict:
    """`arrays` if they are a value model's weights, else PalaisError("label: why")."""
    check_names_and_types(arrays, ARRAY_NAMES, label)
    b1, b2 = arrays["b1"], arrays["b2"]
    if b1.ndim != 1 or b2.ndim != 1:
        raise PalaisError(f"{label}: b1 and b2 must be vectors")
    h1, h2 = b1.shape[0], b2.shape[0]
    if not (1 <= h1 <= MAX_HIDDEN and 1 <= h2 <= MAX_HIDDEN):
        raise PalaisError(f"{label}: hidden layers of {h1} and {h2} units; each must be 1..{MAX_HIDDEN}")
    check_shapes_and_values(arrays, expected_shapes(h1, h2), label)
    return arrays


def arrays_from_bytes(data: bytes, label: str) -> dict:
    """The checked arrays of a weights file's bytes."""
    return check_arrays(npz_arrays(data, label, MAX_UNPACKED_BYTES), label)


def load_value_model(value_weights: str = "", n_players: int | None = None) -> ValueModel:
    """The ValueModel of the file `value_weights` names ("" = the shipped weights of an
    `n_players` game), checked; loaded once per process and file version. PalaisError naming
    the file if it is unusable."""
    kernel_name()                      # PALAIS_KERNEL must be usable before a value search
    path = weights_path(value_weights, n_players)

    def build(data):
        arrays = arrays_from_bytes(data, f"value weights {path}")
        return ValueModel(*(arrays[name] for name in ARRAY_NAMES), digest=digest_of(data), source=str(path))
    return load_once(_loaded, path, "value weights file", MAX_WEIGHTS_BYTES, build)


def value_identity(value_weights: str = "") -> str:
    """What `id name` shows of the weights: a file's digest, or for the shipped weights ("")
    the digest of each player count's file, 2/3/4 players, joined by "/"."""
    if value_weights:
        return load_value_model(value_weights).digest
    return "/".join(load_value_model("", n).digest for n in PLAYER_COUNTS)


def save_weights(path, arrays: dict) -> str:
    """Write `arrays` (checked first) as a weights file in one step; returns its digest."""
    arrays = check_arrays({name: np.asarray(arrays[name]) for name in ARRAY_NAMES}, f"weights for {path}")
    data = npz_bytes(arrays)
    write_bytes_atomic(path, data)
    return digest_of(data)


def npz_bytes(arrays: dict) -> bytes:
    """The weights file's bytes of `arrays` (search/weights_file.py: the same arrays, the same bytes)."""
    return weights_npz_bytes(arrays, ARRAY_NAMES)


def numpy_values(arrays: dict, features: np.ndarray) -> np.ndarray:
    """The forward pass in numpy, float32 throughout: one value in (0, 1) per row of
    `features` (the reference the C model is tested against, and training's model)."""
    h = np.maximum(features @ arrays["w1"] + arrays["b1"], 0)
    h = np.maximum(h @ arrays["w2"] + arrays["b2"], 0)
    out = h @ arrays["w3"] + arrays["b3"][0]
    return 1.0 / (1.0 + np.exp(-out.astype(np.float64)))
