"""The learned value model's weights file: reading and checking it, writing it, and the one
forward pass in numpy that the C model (search/_value.pyx) must agree with.

A weights file is an uncompressed or compressed numpy .npz holding exactly these float32
arrays (docs/train.md, format 1: one seat's share from its own view):
  w1 (FEATURE_SIZE, h1)  b1 (h1,)  w2 (h1, h2)  b2 (h2,)  w3 (h2,)  b3 (1,)
with 1 <= h1, h2 <= MAX_HIDDEN; or, format 2 (a vector head: every seat's share and score
from one seat's view, for one player count n), the same first layers and
  w3 (h2, 2n)  b3 (2n,)  format (1,) = [2]  players (1,) = [n]   (format, players: integers)
whose outputs are the n seats' share logits (softmax) then their scores / SCORE_SCALE, seats
in turn order from the viewer. Every value must be finite, the file at most MAX_WEIGHTS_BYTES
and its arrays at most MAX_UNPACKED_BYTES once unpacked; anything else is refused with a
PalaisError naming the file. Nothing in the file is executed (no pickles). The model's
identity is the short sha256 of the file's bytes (`id name`, bench output).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from common.atomic_write import write_bytes_atomic
from engine.constants import PLAYER_COUNTS
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE

from ._value import ValueModel
from .kernel import kernel_name
from .params import SHIPPED_VALUE, shipped_value_path
from .weights_file import check_names_and_types, check_shapes_and_values, digest_of, load_once, npz_arrays
from .weights_file import npz_bytes as weights_npz_bytes

SHIPPED_WEIGHTS = SHIPPED_VALUE          # value.npz, the presets' file (search/params.py: by player count)
MAX_HIDDEN = 256                       # search/_value.pxd's MAX_HIDDEN
MAX_WEIGHTS_BYTES = 2 * 1024 * 1024
MAX_UNPACKED_BYTES = 4 * 1024 * 1024
ARRAY_NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")
HEADER_NAMES = ("format", "players")   # a vector head's file only (format 2)
VECTOR_NAMES = ARRAY_NAMES + HEADER_NAMES
VECTOR_FORMAT = 2
SCORE_SCALE = 100.0                    # a vector head's score outputs are VP / 100 (_value.pxd)

_loaded: dict = {}                     # (path, inode, size, mtime_ns) -> ValueModel: one load per process


def weights_path(value_weights: str, n_players: int | None = None) -> Path:
    """The file the value_weights knob names ("" = the shipped weights of an `n_players` game)."""
    return Path(value_weights) if value_weights else shipped_value_path(n_players)


def expected_shapes(h1: int, h2: int, players: int = 0) -> dict:
    """The arrays' shapes: the one-seat head's (players 0) or a vector head's for `players`."""
    head = {"w3": (h2,), "b3": (1,)} if not players else {"w3": (h2, 2 * players), "b3": (2 * players,)}
    return {"w1": (FEATURE_SIZE, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), **head}


def is_vector(arrays: dict) -> bool:
    """The arrays claim to be a vector head's (format 2): they hold a format or players array."""
    return any(name in arrays for name in HEADER_NAMES)


def players_of(arrays: dict) -> int:
    """A vector head's player count (checked arrays), 0 for the one-seat head."""
    return int(arrays["players"][0]) if is_vector(arrays) else 0


def header_int(arrays: dict, name: str, label: str) -> int:
    """The one integer a vector head's header array `name` holds."""
    array = arrays[name]
    if array.shape != (1,):
        raise PalaisError(f"{label}: array {name} has shape {array.shape}, expected (1,)")
    return int(array[0])


def check_arrays(arrays: dict, label: str) -> dict:
    """`arrays` if they are a value model's weights (format 1, or a vector head's format 2),
    else PalaisError("label: why")."""
    vector = is_vector(arrays)
    check_names_and_types(arrays, VECTOR_NAMES if vector else ARRAY_NAMES, label,
                          ints=HEADER_NAMES if vector else ())
    players = 0
    if vector:
        version = header_int(arrays, "format", label)
        if version != VECTOR_FORMAT:
            raise PalaisError(f"{label}: weights format {version} is unknown (this engine reads format 1, "
                              f"the six arrays without a format array, and format {VECTOR_FORMAT}, a vector head)")
        players = header_int(arrays, "players", label)
        if players not in PLAYER_COUNTS:
            raise PalaisError(f"{label}: a vector head for {players} players; "
                              f"the player count must be one of {', '.join(map(str, PLAYER_COUNTS))}")
    b1, b2 = arrays["b1"], arrays["b2"]
    if b1.ndim != 1 or b2.ndim != 1:
        raise PalaisError(f"{label}: b1 and b2 must be vectors")
    h1, h2 = b1.shape[0], b2.shape[0]
    if not (1 <= h1 <= MAX_HIDDEN and 1 <= h2 <= MAX_HIDDEN):
        raise PalaisError(f"{label}: hidden layers of {h1} and {h2} units; each must be 1..{MAX_HIDDEN}")
    check_shapes_and_values(arrays, expected_shapes(h1, h2, players), label)
    return arrays


def vector_arrays(arrays: dict, players: int) -> dict:
    """A vector head's arrays for `players`: the six weight arrays of `arrays` and the header
    saying format 2 (what the writer needs to write a format-2 file)."""
    return {**{name: arrays[name] for name in ARRAY_NAMES},
            "format": np.array([VECTOR_FORMAT], np.int32), "players": np.array([players], np.int32)}


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
        return ValueModel(*(arrays[name] for name in ARRAY_NAMES), digest=digest_of(data), source=str(path),
                          players=players_of(arrays))
    return load_once(_loaded, path, "value weights file", MAX_WEIGHTS_BYTES, build)


def check_players(model: ValueModel, n_players: int) -> ValueModel:
    """`model` if it can evaluate an `n_players` game (a one-seat head can any), else
    PalaisError naming its file."""
    if model.players and model.players != n_players:
        raise PalaisError(f"value weights {model.source}: a vector head for {model.players} players "
                          f"cannot evaluate a {n_players}-player game")
    return model


def value_identity(value_weights: str = "") -> str:
    """What `id name` shows of the weights: a file's digest, or for the shipped weights ("")
    the digest of each player count's file, 2/3/4 players, joined by "/"."""
    if value_weights:
        return load_value_model(value_weights).digest
    return "/".join(load_value_model("", n).digest for n in PLAYER_COUNTS)


def save_weights(path, arrays: dict) -> str:
    """Write `arrays` (checked first) as a weights file in one step, format 1 or, if they hold
    the header (vector_arrays), format 2; returns its digest."""
    names = VECTOR_NAMES if is_vector(arrays) else ARRAY_NAMES
    arrays = check_arrays({name: np.asarray(arrays[name]) for name in names if name in arrays},
                          f"weights for {path}")
    data = npz_bytes(arrays)
    write_bytes_atomic(path, data)
    return digest_of(data)


def npz_bytes(arrays: dict) -> bytes:
    """The weights file's bytes of `arrays` (search/weights_file.py: the same arrays, the same
    bytes; a format-1 file's arrays in the order they always had)."""
    return weights_npz_bytes(arrays, VECTOR_NAMES if is_vector(arrays) else ARRAY_NAMES)


def numpy_values(arrays: dict, features: np.ndarray) -> np.ndarray:
    """The forward pass in numpy, float32 throughout: one value in (0, 1) per row of
    `features` (the reference the C model is tested against, and training's model)."""
    h = np.maximum(features @ arrays["w1"] + arrays["b1"], 0)
    h = np.maximum(h @ arrays["w2"] + arrays["b2"], 0)
    out = h @ arrays["w3"] + arrays["b3"][0]
    return 1.0 / (1.0 + np.exp(-out.astype(np.float64)))


def numpy_vector(arrays: dict, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A vector head's forward pass in numpy, float32 to its outputs (the reference the C
    pass is tested against, and training's model): for each row of `features` (a seat's
    observation), (shares, scores), each (rows, n) with the seats in turn order from that
    seat (to_seats puts them in seat order); shares a softmax, scores in VP."""
    n = arrays["b3"].shape[0] // 2          # (the header may be absent: training's weights)
    h = np.maximum(features @ arrays["w1"] + arrays["b1"], 0)
    h = np.maximum(h @ arrays["w2"] + arrays["b2"], 0)
    out = (h @ arrays["w3"] + arrays["b3"]).astype(np.float64)
    return softmax(out[:, :n]), out[:, n:] * SCORE_SCALE


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, from the largest logit."""
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def to_seats(relative: np.ndarray, view: int) -> np.ndarray:
    """Values in turn order from seat `view` (a vector head's order) put in seat order:
    seat (view + k) % n gets relative[..., k]."""
    return np.roll(relative, view, axis=-1)
