"""Which Cython build is loaded, and whether its compiled code matches what it claims.

.ci/run tests the fast build with PALAIS_EXPECT_CHECKED=0, then rebuilds with
PALAIS_CHECKED=1 and tests again with PALAIS_EXPECT_CHECKED=1.
"""

import os

import pytest

from engine import _buildinfo


def test_build_flags_are_booleans():
    assert isinstance(_buildinfo.CHECKED, bool)
    assert _buildinfo.BUILD == ("checked" if _buildinfo.CHECKED else "fast")


def test_compiled_directives_match_the_build():
    # The probes measure the compiled code itself, so this fails on a stale build: C
    # generated with one build's directives but compiled with the other's macro.
    assert _buildinfo.BOUNDSCHECK is _buildinfo.CHECKED
    assert _buildinfo.WRAPAROUND is _buildinfo.CHECKED


@pytest.mark.skipif(os.environ.get("PALAIS_EXPECT_CHECKED") not in ("0", "1"),
                    reason="PALAIS_EXPECT_CHECKED is not set")
def test_expected_build_is_loaded():
    expect_checked = os.environ["PALAIS_EXPECT_CHECKED"] == "1"
    assert _buildinfo.CHECKED is expect_checked, (
        f"expected the {'checked' if expect_checked else 'fast'} build, "
        f"but the {_buildinfo.BUILD} build is loaded from {_buildinfo.__file__}")
