"""Who may talk to the server: the Host a request names and the Origin a browser sends.

The server answers only requests whose Host is one of its own names: the loopback names
(`localhost`, `127.0.0.1`, `[::1]`), the address given with `--host` (unless it is a
wildcard such as 0.0.0.0) and every `--allow-host NAME`; with no port, or with the
server's own. The name must match exactly: `127.attacker.example` or `127.0.0.1.nip.io`
are names an attacker's DNS can point at 127.0.0.1 (DNS rebinding), so a page served from
them would otherwise reach the API as if it were the server's own.

A browser's request that changes something, and every WebSocket, must come from the
server's own page: its Origin must name one of the same names, with the server's port.
Programs that send no Origin (curl, the tests) are let through; browsers always send one.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from common.numbers import natural

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARDS = ("", "0.0.0.0", "[::]")                 # listen on every address: not a name
DEFAULT_PORTS = {"http": 80, "https": 443}
_LABEL = r"(?!-)[a-z0-9-]{1,63}(?<!-)"
_DNS_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*")


def normal_name(text: str) -> str | None:
    """A host name or address as a Host header carries it (lower case, an IPv6 address in
    brackets), or None if `text` is neither a DNS name nor an IP address."""
    name = text.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return name if len(name) <= 253 and _DNS_NAME.fullmatch(name) else None
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def split_host(text: str):
    """(name, port or None) of a Host header value ("127.0.0.1:8000", "[::1]", ...), the
    name in lower case; None when it is not of that form."""
    text = (text or "").lower()
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            return None
        name, rest = text[:close + 1], text[close + 1:]
    else:
        name, colon, port = text.partition(":")
        rest = colon + port
    if not name:
        return None
    if not rest:
        return name, None
    port = natural(rest[1:]) if rest.startswith(":") else None
    return (name, port) if port is not None and port <= 65535 else None


@dataclass(frozen=True)
class HostPolicy:
    """The names this server answers to; `port` is the one it listens on, used when a
    request does not say which port it reached (a test client, a unix socket)."""
    names: frozenset
    port: int

    @classmethod
    def of(cls, bound_to: str, allowed=(), port: int = 8000) -> "HostPolicy":
        names = set(LOOPBACK_NAMES)
        for text in (bound_to, *allowed):
            name = normal_name(text) if text.strip() else ""
            if name and name not in WILDCARDS:
                names.add(name)
        return cls(frozenset(names), port)

    def host_allowed(self, host_header: str, port: int | None = None) -> bool:
        """The Host names one of the server's names, with no port or the server's own."""
        parts = split_host(host_header)
        return parts is not None and parts[0] in self.names \
            and parts[1] in (None, port or self.port)

    def origin_allowed(self, origin: str | None, port: int | None = None) -> bool:
        """No Origin (not a browser), or the origin of a page of this server: http(s), one
        of its names, its port (an Origin without one means the scheme's default)."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin.strip())
        except ValueError:
            return False
        if parts.scheme not in DEFAULT_PORTS or parts.path or parts.query or parts.fragment \
                or "@" in parts.netloc:
            return False
        host = split_host(parts.netloc)
        if host is None or host[0] not in self.names:
            return False
        return (host[1] if host[1] is not None else DEFAULT_PORTS[parts.scheme]) == (port or self.port)

    def shown_names(self) -> str:
        return ", ".join(sorted(self.names))
