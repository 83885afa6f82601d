"""Seat numbers change base in one place on each side (issue 41): the JSON numbers seats
1..n (0: no seat), the code indexes them from 0. In Python common/seat_numbers.py converts,
in the page web/static/seats.js; a raw `seat - 1` written anywhere else comes back here as
a failure, with the file and line to route through the pair.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from common.seat_numbers import seat_number, seat_of_number

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "web" / "static"

# What names a seat number in the page: a seat, the winner, a room's majority holder, a
# square's servant, an analysis' observer.
SEAT_WORDS = r"(?:seat|winner|holder|servant|observer)"
# The per-seat lists of the page and of a View, indexed by seat.
PER_SEAT_LISTS = r"(?:SEAT_LETTERS|SEAT_COLOURS|scores|names|kinds|players|seat_labels|seats|engines)"
JS_RAW_CONVERSIONS = [
    # seat - 1, info.seat + 1, place.servant - 1, pickingSeat - 1
    re.compile(rf"\b[\w.]*{SEAT_WORDS}\w*\s*[-+]\s*1\b", re.IGNORECASE),
    # SEAT_LETTERS[s - 1], view.scores[b - 1], (view.names || [])[k - 1]
    re.compile(rf"\b{PER_SEAT_LISTS}\b(?:\s*\|\|\s*\[\]\))?\s*\[\s*\w+\s*-\s*1\s*\]"),
    # tf("Seat {n}", { n: index + 1 })
    re.compile(r"[Ss]eat \{n\}\"\s*,\s*\{\s*n:\s*\w+\s*\+\s*1\b"),
    # (Number(seat) % n) + 1: the next seat, in 1-based arithmetic
    re.compile(r"%\s*[\w.]+\)?\s*\+\s*1\b"),
]

# The JSON is written in these Python files (a "seat" field, the analysis' "observer").
PY_JSON_FILES = sorted([*(ROOT / "web").rglob("*.py"), ROOT / "play" / "analyse.py", ROOT / "play" / "hints.py"])
PY_RAW_CONVERSIONS = [
    # "seat": t.seat + 1, "observer": observer + 1, turn["seat"] - 1
    re.compile(r"[\"'](?:seat|observer|to_move|thinking|mine)[\"']\s*[:\]]\s*[^,}\n]*?[-+]\s*1\b"),
]


def _raw_conversions(files, patterns, skip) -> list[str]:
    found = []
    for path in files:
        if path.resolve() == skip.resolve():
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith(("//", "#")):
                continue
            if any(p.search(line) for p in patterns):
                found.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    return found


def test_the_page_converts_seat_numbers_only_in_seats_js():
    found = _raw_conversions(sorted(STATIC.rglob("*.js")), JS_RAW_CONVERSIONS, STATIC / "seats.js")
    assert not found, "seat numbers converted outside web/static/seats.js (use seatIndex/seatNumber):\n" + "\n".join(found)


def test_the_json_converts_seat_numbers_only_in_common_seat_numbers():
    found = _raw_conversions(PY_JSON_FILES, PY_RAW_CONVERSIONS, ROOT / "common" / "seat_numbers.py")
    assert not found, "JSON seat numbers converted outside common/seat_numbers.py:\n" + "\n".join(found)


@pytest.mark.parametrize("line", [
    "return seat >= 1 && view.kinds[seat - 1] === \"human\";",
    "const inRoom = (room) => servantSpot(room, step.seat - 1, ctx);",
    ".sort((a, b) => view.scores[b - 1] - view.scores[a - 1]);",
    "mover: { picking: SEAT_COLOURS[pickingSeat - 1] },",
    "letter: SEAT_LETTERS[place.servant - 1]",
    "return (view.names || [])[seat - 1] || tf(\"Player {n}\", { n: seat });",
    "kind.setAttribute(\"aria-label\", tf(\"Seat {n}\", { n: index + 1 }));",
    "for (const [seat, key] of Object.entries(keys)) out[(Number(seat) % n) + 1] = key;",
    "\"data-seat\": seat + 1 }",
])
def test_the_page_check_catches_the_conversions_it_replaced(line):
    assert any(p.search(line) for p in JS_RAW_CONVERSIONS)


@pytest.mark.parametrize("line", [
    "const last = log[log.length - 1];",
    "const repeat = i > 0 && word.text === words[i - 1].text;",
    "cell(row, String(i + 1));",
    "update({ lang: state.lang + 1 });",
    "return tf(\"Round {round}: decision {n}\", { ...values, n: last.steps.length + 1 });",
])
def test_the_page_check_lets_other_arithmetic_be(line):
    assert not any(p.search(line) for p in JS_RAW_CONVERSIONS)


@pytest.mark.parametrize("line", [
    "turns.append({\"ply\": t.ply, \"seat\": t.seat + 1, \"round\": t.round,",
    "return {\"turns\": turns, \"observer\": \"full\" if observer < 0 else observer + 1,",
    "turn[\"summary\"] = turn_summary(before, after, turn[\"seat\"] - 1, turn[\"steps\"],",
])
def test_the_json_check_catches_the_conversions_it_replaced(line):
    assert any(p.search(line) for p in PY_RAW_CONVERSIONS)


def test_seat_numbers_round_trip():
    assert [seat_number(q) for q in (None, -1, 0, 1, 3)] == [0, 0, 1, 2, 4]
    assert [seat_of_number(n) for n in (0, 1, 4)] == [None, 0, 3]
    assert all(seat_of_number(seat_number(q)) == q for q in (None, 0, 1, 2, 3))


@pytest.mark.parametrize("bad", [-1, "1", 1.0, True, None])
def test_a_bad_seat_number_is_refused(bad):
    with pytest.raises(ValueError, match="seat number"):
        seat_of_number(bad)
