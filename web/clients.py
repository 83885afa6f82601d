"""Who a request comes from, where that can be known: the client's address as a trusted
reverse proxy reports it in `X-Forwarded-For` (`palais serve --trusted-proxy ADDR`).

On 127.0.0.1 every program of the machine is one address, and behind a proxy every client
is the proxy's, so a peer's own address says nothing about who is asking: a limit per
address would lock everyone out at once. Only when the peer is a proxy the operator named
is its `X-Forwarded-For` read, and then per-address limits apply (web/api/seats.py's
sockets, web/api/records.py's uploads). The header is read from the right: the first
address not itself a trusted proxy is the client's (anything left of it came from the
client and may be forged).
"""

from __future__ import annotations

import ipaddress

from engine.errors import PalaisError

MAX_FORWARDED_HOPS = 16            # addresses of X-Forwarded-For looked at, from the right


def proxy_addresses(texts) -> frozenset:
    """The --trusted-proxy values as canonical addresses; a PalaisError names a bad one."""
    out = set()
    for text in texts:
        try:
            out.add(str(ipaddress.ip_address(text.strip().strip("[]"))))
        except ValueError:
            raise PalaisError(f"--trusted-proxy {text[:60]!r}: expected an IP address such as "
                              f"127.0.0.1 or ::1 (the proxy's address as this server sees it)") from None
    return frozenset(out)


def canonical(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip().strip("[]")))
    except ValueError:
        return None


def client_address(scope, trusted: frozenset) -> str | None:
    """The client's address of an ASGI request or socket when a trusted proxy forwarded it,
    else None (no per-address limit can be fair then)."""
    if not trusted:
        return None
    peer = scope.get("client")
    if not peer or canonical(str(peer[0])) not in trusted:
        return None
    forwarded = [value.decode("latin-1") for name, value in scope.get("headers", [])
                 if name.lower() == b"x-forwarded-for"]
    hops = [hop for value in forwarded for hop in value.split(",")][-MAX_FORWARDED_HOPS:]
    for hop in reversed(hops):
        address = canonical(hop)
        if address is None:
            return None                   # a mangled hop: nothing to its left can be trusted
        if address not in trusted:
            return address
    return None
