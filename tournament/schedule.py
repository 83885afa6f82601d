"""Which games a tournament plays: engines grouped into games, seats rotated over each deal.

For every deal seed, every group of engines plays the deal once per rotation of the seats,
so each engine sits in every seat over the same cards (the analogue of chess's paired
openings). Groups: round-robin takes every combination of `players` engines; gauntlet puts
the first engine in every game against each combination of the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from engine.errors import PalaisError

SCHEDULES = ("gauntlet", "round-robin")


@dataclass(frozen=True)
class Job:
    index: int          # position in the plan: stable across runs, the key for --resume
    deal_seed: int
    seats: tuple        # engine index per seat
    group: int          # which group of engines (games of one group and deal form a set)


def groups(n_engines: int, players: int, schedule: str) -> list:
    if schedule not in SCHEDULES:
        raise PalaisError(f"schedule {schedule!r} is not one of {', '.join(SCHEDULES)}")
    if schedule == "gauntlet":
        if n_engines < players:
            raise PalaisError(f"a gauntlet of {players}-player games needs at least {players} engines")
        return [(0,) + rest for rest in combinations(range(1, n_engines), players - 1)]
    if n_engines < players:
        raise PalaisError(f"{players}-player games need at least {players} engines, got {n_engines}")
    return list(combinations(range(n_engines), players))


def plan(n_engines: int, players: int, deals: int, schedule: str = "gauntlet", first_seed: int = 1) -> list:
    """Every game of the tournament, in the order they are played."""
    if deals < 1:
        raise PalaisError("a tournament needs at least one deal")
    jobs = []
    for d in range(deals):
        for g, group in enumerate(groups(n_engines, players, schedule)):
            for r in range(players):
                seats = group[r:] + group[:r]
                jobs.append(Job(len(jobs), first_seed + d, seats, g))
    return jobs
