"""The project's injected random generator: SplitMix64, the same stream in Python and Cython.

Every random choice (deals, layouts, determinizations, random players) takes one of these, so
a seed reproduces a game. The Cython state implements the identical stream in C
(`engine/_state.pyx`), which lets the differential tests compare determinizations exactly.
"""

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(x: int) -> int:
    """The SplitMix64 finaliser: a fast, well-distributed 64-bit mixing function."""
    x &= MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


class Rng:
    """A seeded SplitMix64 generator. `below(n)` is uniform enough for games (modulo bias < 2^-50)."""

    __slots__ = ("state",)

    def __init__(self, seed: int = 0):
        self.state = seed & MASK64

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("Rng.below needs n >= 1")
        return self.next_u64() % n

    def random(self) -> float:
        """A float in [0, 1) with 53 random bits."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))

    def shuffle(self, items: list) -> None:
        """Fisher-Yates, from the last element down (the order the C code uses too)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items):
        return items[self.below(len(items))]
