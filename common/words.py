"""Counts and lists in words for what people read: "1 noble", "2 nobles", "A, B and C".

Every command that prints a count to a person says it through `plural`, so no output ever
reads "1 mistakes".
"""

from __future__ import annotations


def plural(n: int, word: str, words: str | None = None) -> str:
    """`n` and `word`, in the plural unless n is 1 (`words` for a plural that is not word+s)."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {words or word + 's'}"


def and_list(items, comma: str = ", ", joined: str = "{items} and {last}") -> str:
    """"A", "A and B", "A, B and C" (another language gives its own `comma` and `joined`)."""
    items = [str(x) for x in items]
    if len(items) == 1:
        return items[0]
    return joined.format(items=comma.join(items[:-1]), last=items[-1])
