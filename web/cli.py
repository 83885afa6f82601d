"""The `palais` command with `palais serve`: every command of play/cli.py plus the web GUI.

`serve` lives here, on the floor above play/, so nothing below imports the web package;
the `palais` entry point is this group.
"""

from __future__ import annotations

import sys

import click

from common.version import version_option
from engine.errors import PalaisError
from play.cli import main as play_commands
from protocol.sandbox import OFF, SandboxPolicy
from protocol.sandbox_options import announce, sandbox_options
from search.kernel import kernel_report

from .config import BUILTIN_PLAYERS, ServerConfig, is_loopback
from .postgres_store import is_postgres
from .security import WILDCARDS, HostPolicy, normal_name

main = click.Group(name="palais", commands=dict(play_commands.commands),
                   help=play_commands.help + " `palais serve` opens the game in a browser.",
                   context_settings={"help_option_names": ["-h", "--help"]})
main = version_option("palais", details=kernel_report)(main)


def allowed_hosts(texts) -> tuple:
    """The --allow-host names, each a DNS name or an IP address (no port, no scheme)."""
    names = []
    for text in texts:
        name = normal_name(text)
        if name is None or name in WILDCARDS:
            raise PalaisError(f"--allow-host {text[:60]!r}: expected a host name such as "
                              f"box.lan or an IP address, without a port or scheme")
        names.append(name)
    return tuple(names)


def server_config(host, port, engine_texts, max_games, allow_hosts=(), idle_minutes=120,
                  db=None, keep_days=30, sandbox: SandboxPolicy = OFF, max_db_mb=1024,
                  trusted_proxies=(), analysis=None, db_password_file=None) -> ServerConfig:
    """The configuration the options ask for; a PalaisError names what is wrong."""
    from tournament.engines import check_engines, parse_engine

    from .clients import proxy_addresses
    specs = [parse_engine(text) for text in engine_texts]
    check_engines(specs, local=True)
    for spec in specs:
        if spec.name in BUILTIN_PLAYERS:
            raise PalaisError(f"--engine name={spec.name}: that name is a built-in player's "
                              f"({', '.join(BUILTIN_PLAYERS)}); choose another")
    db = db if db is not None else default_db()
    password = None
    if is_postgres(db):
        password = database_password(db, db_password_file)
    elif db_password_file is not None:
        raise PalaisError("--db-password-file is for a PostgreSQL --db (postgresql://...)")
    elif db != ":memory:":                  # the games' secrets: never in an engine's view
        sandbox = sandbox.hiding(db, db + "-wal", db + "-journal", db + "-shm")
    return ServerConfig(host=host, port=port, engines=tuple(specs), max_games=max_games,
                        allow_hosts=allowed_hosts(allow_hosts), idle_minutes=idle_minutes,
                        db=db, keep_days=keep_days, sandbox=sandbox, max_db_mb=max_db_mb,
                        trusted_proxies=proxy_addresses(trusted_proxies), db_password=password,
                        **(analysis or {}))


def database_password(dsn: str, password_file) -> str | None:
    """PostgreSQL's password from --db-password-file (its first line), or None (then libpq's
    PGPASSWORD or ~/.pgpass, or no password). A password written in the DSN is refused: the
    command line shows in every process list."""
    from .postgres_store import shown_dsn
    if shown_dsn(dsn) != dsn:
        raise PalaisError("--db: the DSN holds a password, which every process list would show; "
                          "put it in a file (--db-password-file FILE), in PGPASSWORD or in ~/.pgpass")
    if password_file is None:
        return None
    from common.files import read_text_file
    lines = read_text_file(password_file, "--db-password-file", limit=4096).splitlines()
    if not lines or not lines[0]:
        raise PalaisError(f"--db-password-file {password_file}: the file is empty")
    return lines[0]


def default_db() -> str:
    """The database in the user's data directory (platformdirs), made if missing."""
    from pathlib import Path

    import platformdirs
    folder = Path(platformdirs.user_data_dir("palais", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / "games.sqlite3")


def url_of(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def urls_of(host: str, port: int) -> list:
    """Every address a browser can open this server at: for a wildcard host (0.0.0.0, ::),
    this machine's own addresses, loopback first; else the one of `host`."""
    if host not in ("0.0.0.0", "", "::"):
        return [url_of(host, port)]
    from .addresses import local_addresses
    return [url_of(address, port) for address in local_addresses(ipv6=host == "::")]


def port_free(host: str, port: int) -> str | None:
    """None if the server can listen on host:port, else why not (one line)."""
    import socket
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on. Anything but a loopback address lets other "
                   "machines in (a warning says so).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@click.option("--engine", "engine_texts", multiple=True, metavar="SPEC",
              help="A PRI engine the page may seat, as `palais-tournament --engine`: "
                   "'name=NAME cmd=\"COMMAND ARGS\" option.Name=value'. Repeatable; the built-in "
                   f"players ({', '.join(BUILTIN_PLAYERS)}) are always offered.")
@click.option("--max-games", type=click.IntRange(1, 1000), default=16, show_default=True,
              help="Live games at once (in memory, with their engines); past that a new game "
                   "replaces the finished game unused longest, and with none such it is refused.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also answer requests for this host name or address (as typed in the "
                   "browser's address bar, no port), besides localhost, 127.0.0.1, [::1] and "
                   "--host. Repeatable. Any other name is refused (a DNS rebinding guard).")
@click.option("--idle-minutes", type=click.IntRange(1, 7 * 24 * 60), default=120, show_default=True,
              help="A game nobody has used for this long (no move, no request) is ended and "
                   "its place freed; its engines stop and the page is told.")
@click.option("--db", "db", metavar="PATH|DSN", default=None,
              help="The SQLite file that keeps every game, so that games survive a restart "
                   "(default: games.sqlite3 in your data directory); ':memory:' keeps them in "
                   "memory only; a postgresql://USER@HOST/DATABASE address keeps them in "
                   "PostgreSQL (the 'postgres' extra; no password in it: see "
                   "--db-password-file).")
@click.option("--db-password-file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="PostgreSQL's password: the first line of FILE (else PGPASSWORD or "
                   "~/.pgpass, as libpq reads them).")
@click.option("--keep-days", type=click.IntRange(1, 3650), default=30, show_default=True,
              help="A stored game nobody has touched for this many days is deleted from --db.")
@click.option("--max-db-mb", type=click.IntRange(1, 1024 * 1024), default=1024, show_default=True,
              help="The most the stored games may take in --db: past it the finished games "
                   "nobody has open are deleted, uploaded ones first and the least recently "
                   "used first; if that is not enough, new games are refused.")
@click.option("--trusted-proxy", "trusted_proxies", multiple=True, metavar="ADDR",
              help="A reverse proxy's address (as this server sees it, e.g. 127.0.0.1): its "
                   "X-Forwarded-For names each client, and limits then count per client address "
                   "too. Repeatable.")
@click.option("--analysis-processes", type=click.IntRange(1, 256), default=None,
              help="Worker processes of a review analysis  [default: one per core]. One "
                   "analysis runs at a time for the whole server.")
@click.option("--analysis-queue", type=click.IntRange(0, 64), default=2, show_default=True,
              help="Analyses that may wait for the running one; past that a new one is "
                   "refused (503, try again later).")
@click.option("--analysis-max-ms", type=click.IntRange(50, 600_000), default=10_000, show_default=True,
              help="The most time per turn a review analysis may ask for.")
@sandbox_options
def serve(host, port, open_browser, engine_texts, max_games, allow_hosts, idle_minutes, db,
          db_password_file, keep_days, max_db_mb, trusted_proxies, analysis_processes,
          analysis_queue, analysis_max_ms, sandbox):
    """Play in a browser: a local web server with the board, hints and review."""
    analysis = {"analysis_queue": analysis_queue, "analysis_budget_ms_max": analysis_max_ms}
    if analysis_processes is not None:
        analysis["analysis_processes"] = analysis_processes
    try:
        config = server_config(host, port, engine_texts, max_games, allow_hosts, idle_minutes,
                               db, keep_days, sandbox, max_db_mb, trusted_proxies, analysis,
                               db_password_file)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    if config.engines:
        announce(config.sandbox)
    import uvicorn

    from .app import create_app, open_store
    busy = port_free(host, port) if port else None
    if busy is not None:
        click.echo(f"Error: cannot listen on {host}:{port}: {busy} (is another palais serve "
                   f"running? choose another --port)", err=True)
        sys.exit(2)
    try:
        store = open_store(config)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    urls = urls_of(host, port)
    url = urls[0]
    if not is_loopback(host):
        click.secho(f"WARNING: --host {host} lets other machines reach this server: anyone who "
                    f"can connect can start games and engine searches on this machine. Use it "
                    f"only on a network you trust.", fg="red", bold=True, err=True)
        names = HostPolicy.of(host, config.allow_hosts, port).shown_names()
        click.echo(f"palais serve: it answers only requests for {names} (the name in the "
                   f"browser's address bar; --allow-host NAME adds one)", err=True)
    click.echo(f"palais serve: open {url} (Ctrl+C stops the server)")
    for other in urls[1:]:
        click.echo(f"palais serve: or, from another machine, {other}")
    if config.db not in (None, ":memory:"):
        click.echo(f"palais serve: games are kept in {getattr(store, 'where', config.db)}", err=True)
    if open_browser:
        import threading
        threading.Timer(1.0, open_in_browser, args=(url,)).start()
    uvicorn.run(create_app(config, store), host=host, port=port, timeout_graceful_shutdown=3,
                **uvicorn_options(config))


def open_in_browser(url: str) -> bool:
    """`--open`: the page in the user's browser; where none can be opened (no display, a
    server reached over ssh) it says so and gives the address to open by hand."""
    import webbrowser
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        click.echo(f"palais serve: could not open a browser here; open {url} in one", err=True)
    return bool(opened)


def uvicorn_options(config) -> dict:
    """How uvicorn serves the app of `config`: `palais serve`, the browser tests and
    bench/web.py all use these."""
    from .timeouts import deadline_protocol
    return {"http": deadline_protocol(config.request_timeout_s),
            "timeout_keep_alive": config.keep_alive_s,
            "h11_max_incomplete_event_size": config.max_header_bytes,
            "limit_concurrency": config.max_connections,
            "ws": websocket_protocol(), "ws_max_size": config.max_message_bytes,
            "log_level": "warning"}


def websocket_protocol() -> str:
    """uvicorn's implementation over the `websockets` package: the sans-I/O one where this
    uvicorn has it (the older one is deprecated there), else the older one."""
    from uvicorn.config import WS_PROTOCOLS
    return "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "websockets"


if __name__ == "__main__":
    sys.exit(main())
