"""Seat credentials: who may see a seat's hand and act for it (docs/web.md, "Seats and links").

A new game gives each person's seat a secret key (`secrets`, 192 bits) and its creator an
owner key (to delete the game or ask for a rematch). The page holds them in its address
(`#game=ID&key=KEY`, a fragment no browser sends to a server) and sends them in the
`X-Palais-Key` header, or in the first message of a WebSocket. The server keeps only their
SHA-256 and compares in constant time; a request with no key is a spectator's, and one
with a key of no seat (nor the owner's) is refused (web/api/common.py's `access`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

KEY_BYTES = 24                       # 192 bits
KEY_HEADER = "x-palais-key"
MAX_KEY = 128                        # longer than any key: not looked at


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


class SeatKeys:
    """The hashed keys of one game: per seat (0-based) a hash or None (an engine's seat,
    which no one may hold), and the owner's."""

    def __init__(self, seats, owner: str):
        self.seats = list(seats)
        self.owner = owner

    @classmethod
    def new(cls, people) -> tuple:
        """(SeatKeys, the keys per seat (None for an engine seat), the owner key) for a game
        whose seats `people` (a list of bools) are played by people."""
        keys = [new_key() if person else None for person in people]
        owner = new_key()
        return cls([None if k is None else key_hash(k) for k in keys], key_hash(owner)), keys, owner

    def seat_of(self, key) -> int | None:
        """The seat (0-based) whose key `key` is, or None (a spectator). Every seat's hash is
        compared, in constant time, whatever the key."""
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
            return None
        given = key_hash(key)
        found = None
        for q, stored in enumerate(self.seats):
            if hmac.compare_digest(given, stored or "-" * len(given)) and stored is not None:
                found = q
        return found

    def is_owner(self, key) -> bool:
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
            return False
        return hmac.compare_digest(key_hash(key), self.owner)

    def to_json(self) -> dict:
        return {"seats": self.seats, "owner": self.owner}

    @classmethod
    def from_json(cls, data: dict) -> "SeatKeys":
        return cls(data["seats"], data["owner"])
