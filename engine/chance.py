"""The card draws of a game: one stream keyed by the referee's secret, that every game loop draws from.

Hidden information is a secret of whoever referees. A deal number fixes the public setup (the
tiles and the layout, which every seat sees); the card draws come from HMAC-SHA256 keyed by
a secret that no engine, browser or download receives while the game runs. Knowing the deal
number, the setup and every earlier draw tells nothing about the next draw, so an engine
cannot rebuild the other seats' hands by replaying a seeded generator.

    key(secret, deal)   = HMAC-SHA256(secret, "palais-royal draws, deal <deal>")
    draw number k       = HMAC-SHA256(key, k as 8 bytes, big-endian), read as a 256-bit
                          integer u; the card is the pile's (u mod size)-th, the pile counted
                          in card-type order (the modulo bias is below 2^-248)

The same secret and deal give the same k-th draw from the same pile, so a deal replayed with
the seats swapped gives each player the same luck, and a game resumed after k draws (a
restarted server, `--resume`, a loaded save) goes on with exactly the draws it would have had.
The tournament arbiter, `palais play`, `palais serve` and self-play all draw here; in-process
arenas whose players are our own code and see only their views (self-play, benchmarks, the
PettingZoo environment) key the stream with the public ARENA_SECRET, so a deal number alone
reproduces their games.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .constants import A_DRAW, N_CARDS
from .errors import PalaisError

SECRET_BYTES = 32                       # 256 bits from `secrets`
ARENA_SECRET = b"palais-royal public arena"   # in-process arenas only: not a secret at all


def new_secret() -> bytes:
    """A fresh referee's secret (256 bits from the operating system's generator)."""
    return secrets.token_bytes(SECRET_BYTES)


def secret_from_hex(text: str, where: str = "the draw secret") -> bytes:
    """A secret written as hex (a run folder's file, a saved game's header)."""
    text = text.strip()
    if not 32 <= len(text) <= 128 or len(text) % 2:
        raise PalaisError(f"{where}: expected 32 to 128 hex digits, got {len(text)} characters")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise PalaisError(f"{where}: not hex digits") from None


def commitment(secret: bytes, deal: int) -> str:
    """SHA-256 of the deal's stream key, in hex: published at a game's start, it lets anyone
    check, once the secret is revealed, that the draws were fixed before the game began."""
    return hashlib.sha256(_deal_key(secret, deal)).hexdigest()


def _deal_key(secret: bytes, deal: int) -> bytes:
    return hmac.new(secret, f"palais-royal draws, deal {int(deal)}".encode(), hashlib.sha256).digest()


class ChanceStream:
    """The draws of deal `deal` under `secret`; `drawn` draws already made (a resumed game)."""

    def __init__(self, secret: bytes, deal: int, drawn: int = 0):
        if not isinstance(secret, (bytes, bytearray)) or not secret:
            raise PalaisError("a chance stream needs a secret (bytes)")
        self._key = _deal_key(bytes(secret), deal)
        self.drawn = int(drawn)

    @classmethod
    def arena(cls, deal: int, drawn: int = 0) -> "ChanceStream":
        """The public stream of an in-process arena, reproducible from the deal number alone."""
        return cls(ARENA_SECRET, deal, drawn)

    def draw(self, state) -> int:
        """The draw action for the card draw due in `state`, weighted by the pile's counts."""
        if not state.is_chance():
            raise PalaisError("no card draw is due")
        counts = list(state.deck_counts())
        total = sum(counts)
        if total <= 0:
            raise PalaisError("a card draw is due from an empty pile")
        block = hmac.new(self._key, self.drawn.to_bytes(8, "big"), hashlib.sha256).digest()
        self.drawn += 1
        r = int.from_bytes(block, "big") % total
        for card, count in enumerate(counts):
            if r < count:
                return A_DRAW + card
            r -= count
        raise AssertionError("unreachable")


def draws_made(actions) -> int:
    """How many card draws a list of actions holds (where a resumed game's stream goes on)."""
    return sum(1 for a in actions if A_DRAW <= a < A_DRAW + N_CARDS)
