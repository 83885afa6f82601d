"""Fuzzing position strings and game records (the generator and driver: bench/fuzz.py).

Mutated inputs (truncated, numbers made huge, negative or boundary values, stages and fields
changed, fields swapped, bytes that are not UTF-8, very long runs) are read as a user's
input is read. The only outcomes allowed: a clean PalaisError, or a position that takes a
short ISMCTS search (24 iterations, when a seat is to move and may be searched for: not at a
card draw, not another seat's view) and is then played to its end by a random playout. A
crash of the process, another exception or a playout that never ends fails the test.

10,000 cases with a fixed seed take a few seconds on the fast build; bench/fuzz.py runs as
many as asked for deeper hunts. CI runs this on both builds, so the checked build's
per-action checks (legality, keys, no count below zero) run on every accepted case.
"""

from __future__ import annotations

import pytest

from helpers import bench_script

fuzz = bench_script("fuzz")

CASES = 10_000


@pytest.mark.slow
def test_mutated_positions_and_records_end_in_a_clean_error_or_a_finished_game():
    tally = fuzz.run(CASES, seed=1, search_every=1, search_iterations=24)
    assert tally.cases == CASES
    assert tally.accepted + tally.n_errors == CASES
    assert tally.played == tally.accepted          # every accepted case played to its end
    # the mutations reach the core, and every kind of bad input is met
    assert tally.accepted >= 500 and tally.searched >= 200
    kinds = set(tally.errors)
    for kind in ("PalaisError not UTF-8", "NotationError stage", "NotationError turn",
                 "NotationError gold", "NotationError token", "NotationError Seed"):
        assert kind in kinds, sorted(kinds)


def test_the_unmutated_material_is_accepted_and_played_out():
    # the checks refuse only damage: every position and record of a real game still reads
    material = fuzz.build_material(1)
    for text in material.positions:
        fuzz.drive(fuzz.read_case(text, is_record=False), seed=1, search_iterations=0)
    for text in material.records:
        fuzz.drive(fuzz.read_case(text, is_record=True), seed=1, search_iterations=0)


def test_the_mutations_are_deterministic():
    material = fuzz.build_material(5, games=2)
    first = [fuzz.mutate(m, fuzz.Rng(9)) for m in material.positions[:5]]
    again = [fuzz.mutate(m, fuzz.Rng(9)) for m in material.positions[:5]]
    assert first == again and first != material.positions[:5]
