"""What every player answers to, so callers use any of them without checking what it has.

A player (made by search/factory.py's `make_player`, listed in search/algorithms.py) has:
- `search(state, seat=None, limits=None, callback=None, top_k=5)` -> SearchResult;
- `stop()`: ask a running search to end; never blocks, ignored when no search runs;
- `prepare()`: be ready to search at once (start any processes); may block while they start;
- `close()`: release what the player holds (processes); a closed player is not used again.
`BasePlayer` gives the no-op `prepare` and `close` and the context manager.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Player(Protocol):
    def search(self, state, seat=None, limits=None, callback=None, top_k=5): ...

    def stop(self) -> None: ...

    def prepare(self) -> None: ...

    def close(self) -> None: ...


class BasePlayer:
    """A player that holds nothing to start or release."""

    def prepare(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
