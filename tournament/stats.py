"""Tournament statistics: Elo, LOS, pentanomial pairs and SPRT for two players; average rank,
win share, openskill ratings and head-to-head tables for more.

Results are per game: each engine's return (1/k for each of k winners) and rank. Two-player
figures are for engine A against engine B over the games they played together; the paired
statistics use the seat-swapped games of one deal (a "pair") as one observation, which
cancels most of the luck of the deal.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from search.stats import (MIN_OBSERVATIONS, SPRT, elo_interval, elo_of, score_of, t95,  # noqa: F401
                          wilson)  # (the shared outcome statistics: the SPRT serves `palais train --generations` too)


@dataclass
class PairStats:
    """A against B. Scores are A's."""
    games: int
    wins: float                     # games A won (shared wins count half)
    draws: int
    losses: float
    score: float                    # mean score per game
    elo: float
    elo_low: float | None           # 95% interval, from the paired (pentanomial) variance;
    elo_high: float | None          # None when too few observations or no spread (above)
    los: float | None               # likelihood of superiority; None likewise
    pentanomial: list               # pairs scoring 0, 0.5, 1, 1.5, 2 (A's points in a pair)
    pairs: int


def head_to_head(games, a: str, b: str):
    """(A's score per game, A's score per pair) over the two-player games of A and B."""
    per_game = []
    by_pair = defaultdict(list)
    for g in games:
        if sorted(g["names"]) != sorted([a, b]) or len(g["names"]) != 2:
            continue
        seat = g["names"].index(a)
        per_game.append(g["returns"][seat])
        by_pair[(g["deal_seed"], g.get("group", 0))].append(g["returns"][seat])
    pairs = [sum(v) for v in by_pair.values() if len(v) == 2]
    return per_game, pairs


def two_player(games, a: str, b: str) -> PairStats:
    per_game, pairs = head_to_head(games, a, b)
    n = len(per_game)
    wins = sum(1 for x in per_game if x == 1.0)
    draws = sum(1 for x in per_game if x == 0.5)
    losses = n - wins - draws
    score = sum(per_game) / n if n else 0.5
    penta = [sum(1 for p in pairs if abs(p - k / 2) < 1e-9) for k in range(5)]
    observations = np.array(pairs) / 2.0 if len(pairs) >= 2 else np.array(per_game)
    low_elo, high_elo, los = elo_interval(observations, score)
    return PairStats(n, wins, draws, losses, score, elo_of(score), low_elo, high_elo,
                     los, penta, len(pairs))


def multiplayer(games, names) -> dict:
    """Per engine: games, average rank, win share, openskill rating (mu, sigma), and the
    head-to-head table (how often it ranked above each other engine in the same game)."""
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    played = defaultdict(int)
    rank_sum = defaultdict(float)
    win_sum = defaultdict(float)
    above = defaultdict(lambda: defaultdict(float))
    meetings = defaultdict(lambda: defaultdict(int))
    for g in sorted(games, key=lambda g: g["index"]):
        seats = g["names"]
        for q, name in enumerate(seats):
            played[name] += 1
            rank_sum[name] += g["ranks"][q]
            win_sum[name] += g["returns"][q]
            for r, other in enumerate(seats):
                if other != name:
                    meetings[name][other] += 1
                    if g["ranks"][q] < g["ranks"][r]:
                        above[name][other] += 1
                    elif g["ranks"][q] == g["ranks"][r]:
                        above[name][other] += 0.5
        teams = [[ratings[name]] for name in seats]
        new = model.rate(teams, ranks=list(g["ranks"]))
        for name, team in zip(seats, new):
            ratings[name] = team[0]
    out = {}
    for name in names:
        n = played[name]
        out[name] = {
            "games": n,
            "avg_rank": rank_sum[name] / n if n else None,
            "win_share": win_sum[name] / n if n else None,
            "mu": ratings[name].mu, "sigma": ratings[name].sigma,
            "head_to_head": {other: above[name][other] / meetings[name][other]
                             for other in meetings[name]},
        }
    return out


LOW_VP = 20          # a seat ending under this many VP has stopped playing (the collapse issue's measure)


@dataclass
class SeatOutcomes:
    """How one side fared over its seats: the win share and how it won and lost.

    A side *collapses* in a game when it ends with less than half the winner's VP: the mark of
    a player that stopped playing once it could no longer win. `low_scores` counts the
    seat-games it ended under LOW_VP, the other mark of it in 4-player games."""

    seats: int                 # seat-games counted (one per game and seat of the side)
    won: float                 # wins, a shared win counting as a fraction
    collapses: int
    win_margins: list          # VP over the best other seat, in the seat-games it won
    loss_margins: list         # VP behind the best other seat (negative), in the others
    mean_vp: float
    low_scores: int = 0        # seat-games ended under LOW_VP
    gold: list = field(default_factory=list)   # gold left unspent at the end, per seat-game that recorded it

    @property
    def mean_gold(self) -> float | None:
        """The mean gold this side left unspent at the end (None: no game recorded it)."""
        return float(np.mean(self.gold)) if self.gold else None

    @property
    def win_share(self) -> float:
        return self.won / self.seats if self.seats else 0.0

    @property
    def collapse_share(self) -> float:
        return self.collapses / self.seats if self.seats else 0.0

    def line(self) -> str:
        lo, hi = wilson(self.won, self.seats)
        win_m = f"{np.mean(self.win_margins):+.1f}" if self.win_margins else "n/a"
        loss_m = f"{np.mean(self.loss_margins):+.1f}" if self.loss_margins else "n/a"
        return (f"wins {self.win_share:.3f} [{lo:.3f}, {hi:.3f}] over {self.seats}, mean VP {self.mean_vp:.1f}, "
                f"collapses {self.collapse_share:.3f} ({self.collapses}), under {LOW_VP} VP "
                f"{self.low_scores / self.seats if self.seats else 0.0:.3f} ({self.low_scores}), "
                f"margin in wins {win_m}, in losses {loss_m}"
                + (f", unspent gold {self.mean_gold:.1f} (over {len(self.gold)})" if self.gold else ""))


def seat_outcomes(rows) -> SeatOutcomes:
    """rows: (return of the seat, final scores of every seat, the seat[, final gold of every
    seat or None]) per seat-game; the gold, where given, is averaged over the rows that have it."""
    won, collapses, low, wins, losses, vp, gold = 0.0, 0, 0, [], [], [], []
    for ret, scores, seat, *rest in rows:
        if rest and rest[0] is not None:
            gold.append(rest[0][seat])
        won += ret
        mine = scores[seat]
        best_other = max(s for q, s in enumerate(scores) if q != seat)
        collapses += mine < max(scores) / 2
        low += mine < LOW_VP
        (wins if ret > 0 else losses).append(mine - best_other)
        vp.append(mine)
    return SeatOutcomes(len(vp), won, collapses, wins, losses, float(np.mean(vp)) if vp else 0.0, low, gold)
