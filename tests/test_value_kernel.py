"""The value model's kernels (search/value_kernel.h) and its sparse features built once for
every seat (engine/_features.pyx: sparse_features): the AVX2/FMA and portable kernels agree,
the portable one gives the very bits of the dense forward pass it replaced, every seat's
sparse observation is exactly observation_into's, and PALAIS_KERNEL picks the kernel.

tests/data/value_features.npz holds observation vectors of random-play positions and the
numpy forward pass's value of each; `python tests/test_value_kernel.py --regenerate` rewrites
it (only after a deliberate change to the features or the shipped weights).
tests/data/value_before_kernels.npz holds 36 random-play positions of 2-4 players (position
strings) and every seat's value from the C model as it was before the sparse features and
the kernels (commit f41209c, shipped weights dffe97287658; NaN for absent seats): the
portable kernel must give the same bits. It is not regenerated: it records the old code.
tests/data/observations_dense_builder.json holds, for 108 random-play positions, a digest of
every seat's observation as the separate dense builder wrote it before write_features became
sparse_features scattered (commit 9bfadc8); it is not regenerated either.
"""

import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine._features import sparse_observations
from engine.features import FEATURE_SIZE, observation_into
from engine.position import parse_position
from engine.rng import Rng
from engine.state import State
from search import _value
from search.value import SHIPPED_WEIGHTS, arrays_from_bytes, kernel_name, load_value_model, numpy_values

STORED = Path(__file__).parent / "data" / "value_features.npz"
BEFORE = Path(__file__).parent / "data" / "value_before_kernels.npz"
DENSE_BUILDER = Path(__file__).parent / "data" / "observations_dense_builder.json"
ROOT = Path(__file__).resolve().parent.parent
KERNELS = _value.available_kernels()


def random_positions(n, seed, count, every=7):
    """`count` positions of one random game of n players, `every` actions apart."""
    state = State.new_game(n, seed=seed)
    rng = Rng(seed)
    found = []
    while len(found) < count and not state.is_terminal():
        for _ in range(every):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
        found.append(copy.copy(state))
    return found


def many_positions():
    return [s for n in (2, 3, 4) for seed in (1, 2, 3) for s in random_positions(n, 100 * n + seed, 12)]


def observation_of(state, seat):
    out = np.zeros(FEATURE_SIZE, dtype=np.float32)
    observation_into(state, seat, out)
    return out


@pytest.fixture
def kernel():
    """Restores the process's kernel after a test that switches it."""
    before = _value.kernel_name()
    yield
    _value.set_kernel(before)


# ---- the shared-feature builder -----------------------------------------------------------

def test_every_seats_sparse_observation_is_exactly_the_dense_one():
    shared_part = []
    for state in many_positions():
        sparse = sparse_observations(state)
        assert sorted(sparse) == list(range(state.n_players))
        for seat, (indices, values, n_shared) in sparse.items():
            dense = observation_of(state, seat)
            assert indices == sorted(set(indices)), "ascending, no entry twice"
            assert len(indices) == np.count_nonzero(dense), "exactly the nonzero entries"
            rebuilt = np.zeros(FEATURE_SIZE, dtype=np.float32)
            rebuilt[indices] = values
            assert np.array_equal(rebuilt, dense)          # the same floats, bit for bit
            shared_part.append(n_shared / len(indices))
    assert np.median(shared_part) > 0.5, "most of a seat's entries are built once for all"


def test_every_observation_is_the_old_dense_builders_bit_for_bit():
    rows = json.loads(DENSE_BUILDER.read_text())["rows"]
    assert len(rows) == 108
    seen = 0
    for row in rows:
        state = State.from_snapshot(parse_position(row["position"]))
        for seat in range(state.n_players):
            for kind, observed in (("full", state), ("view", state.view(seat))):
                digest = hashlib.sha256(observation_of(observed, seat).tobytes()).hexdigest()[:16]
                assert digest == row["sha256"][f"{kind}{seat + 1}"], (row["position"], kind, seat)
                seen += 1
    assert seen == 2 * sum(State.from_snapshot(parse_position(r["position"])).n_players for r in rows)


def test_a_seats_view_holds_only_that_seats_observation():
    for state in many_positions()[::5]:
        for seat in range(state.n_players):
            view = state.view(seat)
            sparse = sparse_observations(view)
            assert list(sparse) == [seat]
            indices, values, _ = sparse[seat]
            rebuilt = np.zeros(FEATURE_SIZE, dtype=np.float32)
            rebuilt[indices] = values
            assert np.array_equal(rebuilt, observation_of(view, seat))


# ---- the kernels ------------------------------------------------------------------------

def test_the_portable_kernel_gives_the_dense_forward_pass_bit_for_bit(kernel):
    model = load_value_model("")
    _value.set_kernel("portable")
    for state in many_positions():
        dense = [model.dense_value(state, p) for p in range(state.n_players)]
        assert [model.value(state, p) for p in range(state.n_players)] == dense
        total = sum(dense)
        assert model.rewards(state) == [v / total for v in dense]
    for state in many_positions()[::4]:                 # a seat's view: only that seat is valued
        for seat in range(state.n_players):
            view = state.view(seat)
            dense = [model.dense_value(view, p) for p in range(state.n_players)]
            assert [model.value(view, p) for p in range(state.n_players)] == dense
            assert dense.count(0.5) >= state.n_players - 1
            assert model.rewards(view) == [v / sum(dense) for v in dense]


@pytest.mark.parametrize("name", KERNELS)
def test_the_values_of_the_model_before_the_kernels(kernel, name):
    stored = np.load(BEFORE)
    model = load_value_model("")
    _value.set_kernel(name)
    for text, before in zip(stored["positions"], stored["value"]):
        state = State.from_snapshot(parse_position(str(text)))
        got = np.array([model.value(state, p) for p in range(state.n_players)])
        if name == "portable":
            assert np.array_equal(got, before[:state.n_players])      # bit for bit
        else:
            assert np.allclose(got, before[:state.n_players], rtol=0, atol=1e-5)
        assert np.isnan(before[state.n_players:]).all()


@pytest.mark.skipif("avx2+fma" not in KERNELS, reason="no AVX2/FMA on this processor or build")
def test_the_avx2_kernel_agrees_with_the_portable_one(kernel):
    model = load_value_model("")
    for state in many_positions():
        _value.set_kernel("portable")
        portable = [model.value(state, p) for p in range(state.n_players)] + model.rewards(state)
        _value.set_kernel("avx2+fma")
        fast = [model.value(state, p) for p in range(state.n_players)] + model.rewards(state)
        assert np.allclose(fast, portable, rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", KERNELS)
def test_each_kernel_gives_the_stored_vectors_numpy_values(kernel, name):
    stored = np.load(STORED)
    model = load_value_model("")
    _value.set_kernel(name)
    got = [model.features_value(x) for x in stored["x"]]
    assert np.allclose(got, stored["value"], rtol=0, atol=1e-5)
    # and the stored values are still what numpy computes with the shipped weights
    arrays = arrays_from_bytes(SHIPPED_WEIGHTS.read_bytes(), "shipped")
    assert np.allclose(numpy_values(arrays, stored["x"]), stored["value"], rtol=0, atol=1e-6)


def test_the_kernels_agree_on_the_stored_vectors(kernel):
    stored = np.load(STORED)
    model = load_value_model("")
    values = {}
    for name in KERNELS:
        _value.set_kernel(name)
        values[name] = np.array([model.features_value(x) for x in stored["x"]])
    for name in KERNELS:
        assert np.allclose(values[name], values["portable"], rtol=0, atol=1e-5)


def test_an_unavailable_kernel_is_refused(kernel):
    with pytest.raises(ValueError, match="not available"):
        _value.set_kernel("sse9")
    assert _value.kernel_name() in KERNELS


# ---- PALAIS_KERNEL ----------------------------------------------------------------------

def run_python(code, kernel_env):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PALAIS_KERNEL", None)
    if kernel_env is not None:
        env["PALAIS_KERNEL"] = kernel_env
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.slow
@pytest.mark.parametrize("setting, expected", [(None, KERNELS[-1]), ("", KERNELS[-1]), ("auto", KERNELS[-1]),
                                               ("portable", "portable")])
def test_palais_kernel_picks_the_kernel(setting, expected):
    run = run_python("from search.value import kernel_name; print(kernel_name())", setting)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{expected}\n"


@pytest.mark.slow
def test_palais_kernel_portable_reaches_palais_version_and_the_handshake():
    code = ("import sys; from click.testing import CliRunner; from web.cli import main;"
            "print(CliRunner().invoke(main, ['--version']).output, end='');"
            "from protocol.server import Server; import io; out = io.StringIO(); s = Server(out);"
            "s.handle('pri'); s.engine.close(); print(out.getvalue(), end='')")
    run = run_python(code, "portable")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[1] == "value kernel: portable"
    assert "info string value kernel portable" in lines


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["avx", "PORTABLE", "x" * 500, "avx2+fma" if "avx2+fma" not in KERNELS else "sse9"])
def test_a_bad_palais_kernel_is_one_clear_line(setting):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PALAIS_KERNEL": setting}
    run = subprocess.run([sys.executable, "-m", "protocol.cli"], input="pri\nquit\n", env=env,
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 1
    assert run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and "PALAIS_KERNEL" in run.stderr
    assert len(run.stderr) < 200
    # a value search refuses it too, and --version names the problem
    run = run_python("from search.value import load_value_model\n"
                     "try:\n    load_value_model('')\nexcept Exception as e:\n    print(type(e).__name__)", setting)
    assert run.stdout == "PalaisError\n"


@pytest.mark.slow
def test_palais_play_with_a_bad_palais_kernel_stops_at_once_with_one_line():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PALAIS_KERNEL": "avx2"}
    run = subprocess.run([sys.executable, "-m", "play.cli", "play", "--seat", "ismcts", "--seat", "random"],
                         input="quit\n", env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert run.stderr.strip() == ("Error: PALAIS_KERNEL='avx2' is not a value kernel: "
                                  "use auto, portable or avx2+fma")


def test_kernel_name_is_the_running_kernel():
    assert kernel_name() == _value.kernel_name() in ("portable", "avx2+fma")


KERNEL_PROGRAM = r"""
#include <stdio.h>
#include "value_kernel.h"
int main(void) {
    static float w1[10 * 40], b1[40], w2[40 * 24], b2[24], w3[24], w6[24 * 6], b6[6];
    float h1[40], h2[40], z[24], out[6];
    int idx[3] = {1, 4, 9}, i;
    float val[3] = {0.5f, 1.0f, 0.25f};
    for (i = 0; i < 10 * 40; i++) w1[i] = (float)(i % 13) / 13.0f - 0.4f;
    for (i = 0; i < 40 * 24; i++) w2[i] = (float)(i % 7) / 7.0f - 0.3f;
    for (i = 0; i < 40; i++) b1[i] = 0.01f * (float)i;
    for (i = 0; i < 40; i++) h1[i] = h2[i] = b1[i];
    for (i = 0; i < 24; i++) { b2[i] = 0.1f; w3[i] = (float)(i % 5) / 5.0f - 0.35f; }
    for (i = 0; i < 24 * 6; i++) w6[i] = (float)(i % 11) / 11.0f - 0.45f;
    for (i = 0; i < 6; i++) b6[i] = 0.05f * (float)i - 0.1f;
    pv_add_rows_portable(h1, 40, w1, idx, val, 3);
    printf("%d %.6f", pv_avx2_supported(), pv_tail_portable(h1, 40, 24, w2, b2, w3, 0.2f));
    pv_layer2_portable(h1, 40, 24, w2, b2, z);            /* a vector head of 6 outputs */
    pv_heads_portable(z, 24, w6, b6, 6, out);
    printf(" %.6f %.6f", out[0], out[5]);
    if (pv_avx2_supported()) {
        pv_add_rows_avx2(h2, 40, w1, idx, val, 3);
        printf(" %.6f", pv_tail_avx2(h2, 40, 24, w2, b2, w3, 0.2f));
        pv_layer2_avx2(h2, 40, 24, w2, b2, z);
        pv_heads_avx2(z, 24, w6, b6, 6, out);
        printf(" %.6f %.6f", out[0], out[5]);
    }
    printf("\n");
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("defines", [[], ["-DPALAIS_NO_AVX2"]])
def test_the_kernel_header_compiles_with_and_without_the_avx2_kernels(tmp_path, defines):
    """Widths that are not multiples of 8 (40, 24) take every loop's tail; PALAIS_NO_AVX2
    compiles what a compiler without the target attributes gets: the portable kernels only."""
    source = tmp_path / "kernel.c"
    source.write_text(KERNEL_PROGRAM)
    program = tmp_path / "kernel"
    build = subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Werror", *defines,
                            f"-I{ROOT / 'search'}", str(source), "-o", str(program)],
                           capture_output=True, text=True, timeout=60)
    assert build.returncode == 0, build.stderr
    words = subprocess.run([str(program)], capture_output=True, text=True, timeout=10).stdout.split()
    supported, values = int(words[0]), [float(w) for w in words[1:]]
    if defines:
        assert supported == 0
    elif "avx2+fma" in KERNELS:        # (a build with PALAIS_NO_AVX2 says nothing of the CPU)
        assert supported == 1
    assert len(values) == 3 * (1 + supported)
    for output in range(3):             # the one-seat head's output, a vector head's first and last
        assert max(values[output::3]) - min(values[output::3]) < 1e-5


def regenerate():
    """Write tests/data/value_features.npz: 24 observation vectors of random-play positions
    (2, 3 and 4 players, every seat) and their numpy values under the shipped weights."""
    vectors = []
    for n in (2, 3, 4):
        for state in random_positions(n, 900 + n, 4, every=11)[:8 // n + 1]:
            vectors += [observation_of(state, seat) for seat in range(n)]
    x = np.stack(vectors[:24])
    arrays = arrays_from_bytes(SHIPPED_WEIGHTS.read_bytes(), "shipped")
    np.savez_compressed(STORED, x=x, value=numpy_values(arrays, x))
    print(f"wrote {STORED}: {len(x)} vectors")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit("usage: python tests/test_value_kernel.py --regenerate")
    regenerate()
