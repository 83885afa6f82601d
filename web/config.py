"""What one `palais serve` is allowed to do: its address, the engines offered, its limits.

Made once from the command line (web/cli.py) or by a test, and read by every part of the
server; nothing the page sends can change it (an engine command in particular only ever
comes from here).
"""

from __future__ import annotations

import ipaddress
import random
import time
from dataclasses import dataclass, field

from play.analyse import default_processes
from play.i18n import LANGUAGES
from protocol.sandbox import OFF, SandboxPolicy
from search.algorithms import VIEW_ALGORITHMS

BUILTIN_PLAYERS = VIEW_ALGORITHMS          # those that search the seat's view: always offered
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    allow_hosts: tuple = ()                 # more names the server answers to (--allow-host)
    engines: tuple = ()                     # tournament.engines.EngineSpec, from --engine
    max_games: int = 16                     # live games at once (--max-games)
    db: str | None = None                   # the SQLite file or PostgreSQL DSN (--db); None or ":memory:": memory only
    db_password: str | None = None          # PostgreSQL's password, from --db-password-file (never in the DSN)
    keep_days: int = 30                     # a stored game unused this long is pruned (--keep-days)
    idle_minutes: int = 120                 # a game unused this long is ended (--idle-minutes)
    sweep_interval_s: float = 60.0          # how often the server looks for such games
    clock: object = time.monotonic          # seconds, for idle times (a test's own clock)
    max_upload_bytes: int = 256 * 1024      # a record upload, and any JSON body
    max_uploads_per_hour: int = 120         # records loaded, the whole server (web/api/records.py)
    max_message_bytes: int = 4096           # a WebSocket message from the page
    request_timeout_s: float = 10.0         # an HTTP request must arrive whole within this (web/timeouts.py)
    keep_alive_s: int = 5                   # an idle keep-alive connection is closed after this
    max_header_bytes: int = 16 * 1024       # the request line and headers of one request
    max_connections: int = 512              # open connections or requests at once; past it, 503
    # WebSockets, counted apart so they can never take every connection: at most this many
    # open at once (half of max_connections, so requests always have room), per game this
    # many for spectators (no seat key), and per seat this many (a person's tabs and devices).
    max_sockets: int = 256
    max_spectator_sockets: int = 32
    max_seat_sockets: int = 8
    # Behind a reverse proxy named by --trusted-proxy, each client's address is known from the
    # proxy's X-Forwarded-For (web/clients.py), and these count per address too.
    trusted_proxies: frozenset = frozenset()
    max_address_sockets: int = 16
    max_address_uploads_per_hour: int = 20
    max_db_mb: int = 1024                   # the stored games' size; past it uploads are pruned (--max-db-mb)
    engine_restarts: int = 2                # a failed engine is restarted this often per game
    engine_start_timeout_s: float = 60.0    # a PRI engine's time to start (handshake, isready)
    engine_overrun_s: float = 10.0          # how long past its budget a PRI engine may answer
    sandbox: SandboxPolicy = OFF            # how PRI engine seats start (--sandbox; protocol/sandbox.py)
    budget_ms_min: int = 50
    budget_ms_max: int = 60_000
    budget_ms_default: int = 1000
    hint_iterations: int = 20_000           # the search behind one hint (as `palais hint`)
    analysis_iterations: int = 2_000        # per search of a review analysis without a budget
    analysis_budget_ms_max: int = 10_000    # the most time per turn an analysis may ask for
    analysis_slots: int = 1                 # analyses at once (web/analyses.py)
    analysis_queue: int = 2                 # analyses waiting for a slot; past that, 503 (--analysis-queue)
    analysis_processes: int = field(default_factory=default_processes)   # of the running one (--analysis-processes)
    languages: tuple = LANGUAGES            # of the page and the explanations (play/i18n.py)
    seeds: random.Random = field(default_factory=random.Random)   # a seed for games given none

    def engine(self, name: str):
        """The EngineSpec named `name`, or None."""
        return next((spec for spec in self.engines if spec.name == name), None)

    def player_names(self) -> list:
        return list(BUILTIN_PLAYERS) + [spec.name for spec in self.engines]


def is_loopback(host: str) -> bool:
    """Whether listening on `host` keeps other machines out: localhost or a loopback address."""
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
