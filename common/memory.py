"""How much memory this process may use: the machine's physical memory, or less where the
sandbox that started it says so. The sandbox (protocol/sandbox.py) sets MEMORY_LIMIT_VARIABLE
to the bytes of its cgroup's limit, and the search sizes its tree within it (search/params.py);
any engine may read it the same way (docs/protocol.md)."""

from __future__ import annotations

import os

MEMORY_LIMIT_VARIABLE = "PALAIS_MEMORY_LIMIT"
UNKNOWN_BYTES = 128 << 30           # where the system does not say: no cap below the range


def available_memory_bytes(environ=None) -> int:
    """The physical memory, capped by MEMORY_LIMIT_VARIABLE (a positive whole number of bytes)."""
    environ = os.environ if environ is None else environ
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = UNKNOWN_BYTES
    limit = environ.get(MEMORY_LIMIT_VARIABLE, "")
    if limit.isdigit() and int(limit) > 0:
        total = min(total, int(limit))
    return total
