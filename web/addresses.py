"""This machine's own addresses, for `palais serve --host 0.0.0.0` to print every address
another machine can open (web/cli.py). Standard library only: the addresses the host name
resolves to, and the one the system would use to reach the outside (a UDP socket
"connected" to a public address sends nothing)."""

from __future__ import annotations

import ipaddress
import socket


def local_addresses(ipv6: bool = False) -> list:
    """Loopback first, then this machine's other addresses (no duplicates, no link-local)."""
    found = ["127.0.0.1"] + (["::1"] if ipv6 else [])
    families = (socket.AF_INET, socket.AF_INET6) if ipv6 else (socket.AF_INET,)
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            if info[0] in families:
                found.append(info[4][0])
    except OSError:
        pass
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        if family not in families:
            continue
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                found.append(sock.getsockname()[0])
        except OSError:
            pass
    out = []
    for address in found:
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            continue
        if ip.is_link_local or ip.is_unspecified or str(ip) in out:
            continue
        out.append(str(ip))
    return out
