"""Seat numbers as people and the JSON read them: the one place they change base.

Inside the code a seat is 0-based (0..n-1), with None (or -1 in the rules core's own fields)
for no seat, as the rules core counts them. What people read and what the JSON of the web API
and of `palais analyse --json` says numbers seats 1..n, with 0 for no seat (a spectator,
or no one to move once the game is over). Every JSON field that carries a seat goes
through `seat_number` on the way out and `seat_of_number` on the way back in
(tests/test_seat_numbers.py looks for any other `seat + 1`; the page's own pair is
web/static/seats.js). Sentences written for people ("seat 2 is to move") say `q + 1` where
they are written.
"""

from __future__ import annotations


def seat_number(q: int | None) -> int:
    """A 0-based seat (None or a negative number: no seat) as the JSON numbers it: 1..n, 0 for none."""
    return 0 if q is None or q < 0 else q + 1


def seat_of_number(number: int) -> int | None:
    """The 0-based seat of a JSON seat number (1..n), None for 0 (no seat)."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise ValueError(f"a seat number is 1..n, or 0 for no seat, not {number!r}")
    return None if number == 0 else number - 1
