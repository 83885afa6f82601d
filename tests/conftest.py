"""Shared test set-up: deterministic Hypothesis runs and draw secrets, and the build under test in the header."""

import os

from hypothesis import settings

# The same examples on every run and machine (DESIGN.md: determinism); no example database
# so a run never depends on an earlier one. HYPOTHESIS_PROFILE=explore searches afresh.
settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def pytest_report_header(config):
    try:
        from engine import _buildinfo
    except ImportError as exc:
        return f"palais build: extensions not importable ({exc})"
    return (f"palais build: {_buildinfo.BUILD} (boundscheck={_buildinfo.BOUNDSCHECK}, "
            f"wraparound={_buildinfo.WRAPAROUND})")


# ---------------------------------------------------------------------------------------
# Both rules implementations. Every rule test takes `impl` and so runs twice: against the
# fast Cython state and against the plain-Python reference twin (RULES.md is the authority
# for both; tests/test_differential.py checks they also agree with each other).

import pytest

from engine.reference import ReferenceState
from engine.state import State


@pytest.fixture(params=[State, ReferenceState], ids=["cython", "reference"])
def impl(request):
    return request.param


# ---------------------------------------------------------------------------------------
# Draw secrets (engine/chance.py) come from the operating system's generator: in a test
# process they come from a seeded stand-in instead, a new one at each call but the same
# sequence in every test, so a game a test plays reproduces. Child processes (engines,
# `palais serve`) keep real secrets.

import hashlib


class _SeededSecrets:
    def __init__(self):
        self.calls = 0

    def token_bytes(self, n):
        self.calls += 1
        return hashlib.sha256(f"test secret {self.calls}".encode()).digest()[:n]


@pytest.fixture(autouse=True)
def _seeded_draw_secrets(monkeypatch):
    import engine.chance
    monkeypatch.setattr(engine.chance, "secrets", _SeededSecrets())


@pytest.fixture(scope="session")
def postgres_server():
    """A private PostgreSQL server for this test process (tests/postgres_cluster.py): its DSN.
    Skipped with the reason where PostgreSQL or psycopg is missing."""
    from postgres_cluster import missing_reason, private_cluster
    why = missing_reason()
    if why is not None:
        if os.environ.get("PALAIS_POSTGRES_TESTS") == "required":      # CI: a skip would hide a fault
            pytest.fail(f"PALAIS_POSTGRES_TESTS=required, but {why}")
        pytest.skip(why)
    with private_cluster() as dsn:
        yield dsn


@pytest.fixture(params=["sqlite", "postgres"])
def store_db(request, tmp_path):
    """The --db of each backend, empty: an SQLite file, or the private PostgreSQL database
    (emptied before the test). The same store tests run against both."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    from postgres_cluster import reset
    dsn = request.getfixturevalue("postgres_server")
    reset(dsn)
    return dsn


# ---------------------------------------------------------------------------------------
# The longest test files first. `-n 2 --dist loadfile` (pyproject.toml) hands whole files to
# the workers in collection order, which is alphabetical, and that put the browser files
# (test_web_*, minutes each) last: one worker then ran the last of them while the other sat
# idle. Handing the longest out first lets the many short files even out the end. The list
# is of files that took over 60 s of a suite run (`pytest -n 2 --durations=0`, summed per
# file); a name no longer there is ignored, and only the order changes, never what runs.
LONGEST_FIRST = ("test_web_browser.py", "test_review.py", "test_tournament.py", "test_web_board.py",
                 "test_tournament_ray.py", "test_sandbox.py", "test_differential.py", "test_web_guide.py",
                 "test_web_panels.py", "test_wheel.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))     # stable: a file's order kept
