"""Who may talk to the server: the Host a request names and the Origin a browser sends.

Bound to a loopback address (the default), the server answers only requests whose Host is
a loopback name, so a web page elsewhere cannot reach it by pointing a name of its own at
127.0.0.1 (DNS rebinding). A browser's request that changes something, and every WebSocket,
must come from the server's own page: its Origin must be the very host:port it asked.
Programs that send no Origin (curl, the tests) are let through; browsers always send one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .config import is_loopback

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


def host_name(host_header: str) -> str:
    """The name part of a Host header ("127.0.0.1:8000" -> "127.0.0.1", "[::1]:80" -> "[::1]")."""
    host = (host_header or "").strip().lower()
    if host.startswith("["):
        return host[:host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if ":" in host else host


def host_allowed(host_header: str, bound_to: str) -> bool:
    if not is_loopback(bound_to):
        return True
    name = host_name(host_header)
    return name in LOOPBACK_NAMES or name.startswith("127.")


def origin_allowed(origin: str | None, host_header: str) -> bool:
    """No Origin (not a browser), or one naming exactly the host:port the request went to."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc) \
        and parts.netloc.lower() == (host_header or "").strip().lower()
