"""A private PostgreSQL cluster for the tests of web/postgres_store.py: initdb in a temporary
folder, a server listening only on a Unix socket in that folder (no TCP port, so parallel
test workers never meet), `trust` authentication for that socket alone, stopped and removed
at the end. initdb and pg_ctl refuse to run as root, so as root they run as the `postgres`
user (`runuser -u postgres`, as CI does). `missing_reason()` says why the tests must skip
where PostgreSQL or psycopg is not installed (CI installs both: .ci/run).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile

PORT = 5432                       # only names the socket file in the private folder


def _bin() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


def missing_reason() -> str | None:
    if _bin() is None:
        return "PostgreSQL is not installed (apt-get install postgresql); CI installs it"
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root with no `postgres` user to run initdb as"
    return None


def _as_owner(command: list) -> list:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def private_cluster():
    """Yields a DSN of a fresh empty database `palais` on a private server."""
    bindir = _bin()
    folder = tempfile.mkdtemp(prefix="palais-pg-")
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        os.chmod(folder, 0o755)
        shutil.chown(folder, "postgres", "postgres")
    run = lambda *command: subprocess.run(_as_owner(list(command)), check=True, capture_output=True, text=True)
    try:
        run(f"{bindir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        run(f"{bindir}/pg_ctl", "-D", data, "-w", "-l", os.path.join(folder, "log"), "-o",
            f"-k {folder} -p {PORT} -c listen_addresses='' -c fsync=off", "start")
        try:
            run(f"{bindir}/createdb", "-h", folder, "-p", str(PORT), "-U", "postgres", "palais")
            yield f"postgresql://postgres@/palais?host={folder}&port={PORT}"
        finally:
            subprocess.run(_as_owner([f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"]),
                           capture_output=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def reset(dsn: str) -> None:
    """An empty database again (every table dropped), between tests."""
    import psycopg
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")
