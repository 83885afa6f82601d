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
