"""A learned model's weights file, whatever the model (search/value.py, search/policy.py):
reading a numpy .npz from untrusted bytes without executing anything, its digest, writing one
whose bytes depend only on the arrays (with no value below float32's normal range), and
loading a file once per process and version.

Each model checks the arrays' names, types and shapes itself; here only what every weights
file shares: a zip archive, at most a given size unpacked, numpy arrays without pickles.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import numpy as np

from common.files import read_file_bytes
from engine.errors import PalaisError

DIGEST_CHARS = 12


def digest_of(data: bytes) -> str:
    """A weights file's identity: the short sha256 of its bytes."""
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


def check_names_and_types(arrays: dict, names, label: str, ints=()) -> None:
    """PalaisError("label: why") unless `arrays` holds exactly `names`, each float32 but those
    of `ints`, each of an integer type (a file's header: its format, its player count)."""
    found = sorted(arrays)
    if found != sorted(names):
        raise PalaisError(f"{label}: expected the arrays {', '.join(names)}, found {', '.join(found) or 'none'}")
    for name in names:
        if name in ints:
            if not np.issubdtype(arrays[name].dtype, np.integer):
                raise PalaisError(f"{label}: array {name} is {arrays[name].dtype}, expected an integer type")
        elif arrays[name].dtype != np.float32:
            raise PalaisError(f"{label}: array {name} is {arrays[name].dtype}, expected float32")


def check_shapes_and_values(arrays: dict, shapes: dict, label: str) -> None:
    """PalaisError("label: why") unless each arrays[name] has shapes[name] and is finite."""
    for name, shape in shapes.items():
        if arrays[name].shape != shape:
            raise PalaisError(f"{label}: array {name} has shape {arrays[name].shape}, expected {shape}")
        if not np.all(np.isfinite(arrays[name])):
            raise PalaisError(f"{label}: array {name} holds a value that is not finite")


def npz_arrays(data: bytes, label: str, max_unpacked: int) -> dict:
    """{name: array} of a .npz file's bytes, unchecked beyond being one; PalaisError("label:
    why") if it is not a zip, unpacks to more than `max_unpacked` bytes, or holds anything
    numpy will not read without pickles."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise PalaisError(f"{label}: not a numpy .npz file") from None
    if unpacked > max_unpacked:
        raise PalaisError(f"{label}: unpacks to {unpacked} bytes, more than the {max_unpacked} "
                          "a weights file may hold")
    arrays, name = {}, None
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            for name in npz.files:
                arrays[name] = npz[name]
    except Exception as exc:      # numpy's many ways of refusing a crafted archive
        where = f"array {name} is unreadable" if name else "not a readable numpy .npz file"
        raise PalaisError(f"{label}: {where} ({type(exc).__name__}: {exc})") from None
    return arrays


def flush_subnormals(array: np.ndarray) -> np.ndarray:
    """`array` (float32) with every value below float32's normal range (0 < |x| < 1.18e-38)
    made zero: such values put each sum that touches them on the processor's slow path
    (search/fp_mode.h), and they weigh nothing. The trainer's steps and the writer apply it;
    the C models flush what they load as well (search/_value.pyx, copy_floats)."""
    array = np.asarray(array)
    tiny = np.finfo(np.float32).tiny
    below = (array != 0) & (np.abs(array) < tiny)
    return np.where(below, np.float32(0), array).astype(array.dtype) if below.any() else array


def npz_bytes(arrays: dict, names) -> bytes:
    """A compressed .npz of arrays[name] for each of `names`, in that order, with values below
    float32's normal range written as zero (flush_subnormals), whose bytes depend only on the
    arrays (numpy's own savez stamps the time into the archive, which would change the digest
    of equal weights)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            entry = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(entry, "w") as handle:
                np.lib.format.write_array(handle, np.ascontiguousarray(flush_subnormals(arrays[name])),
                                          allow_pickle=False)
    return buffer.getvalue()


def load_once(cache: dict, path: Path, what: str, limit: int, build):
    """build(data) for the bytes of the file at `path` (a `what`, at most `limit` bytes),
    kept in `cache` under the file's identity and version, so each version is read once per
    process."""
    try:
        info = os.stat(path)
        key = (str(path.resolve()), info.st_ino, info.st_size, info.st_mtime_ns)
    except OSError:
        key = None
    if key is not None and key in cache:
        return cache[key]
    model = build(read_file_bytes(path, what, limit=limit))
    if key is not None:
        cache[key] = model
    return model
