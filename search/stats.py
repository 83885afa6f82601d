"""Statistics of game outcomes that every harness playing games shares: the Wilson interval
of a win share and its Elo, the t interval of a paired score, and the SPRT. The tournament
(tournament/stats.py), the benches, the evaluation step of `palais train` (search/train.py)
and its generations' gate (search/generations.py) all use these, so they live on the lowest
floor that plays games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def elo_of(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_of(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# Fewest seat-swapped pairs (or unpaired games) whose spread the Elo interval and LOS are
# computed from; below it, or when every observation is the same (no spread to measure),
# both are None ("n/a"): a zero-width interval from 4 games would claim a precision the
# sample does not have.
MIN_OBSERVATIONS = 3

# Two-sided 95% quantiles of Student's t by degrees of freedom (the next lower row is used,
# which errs wide); the interval is a t interval, honest for a few pairs, normal for many.
_T95 = ((1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (5, 2.571), (6, 2.447), (7, 2.365),
        (8, 2.306), (9, 2.262), (10, 2.228), (12, 2.179), (15, 2.131), (20, 2.086),
        (25, 2.060), (30, 2.042), (40, 2.021), (60, 2.000), (120, 1.980), (10**9, 1.960))


def t95(df: int) -> float:
    """The 95% two-sided Student t quantile for `df` degrees of freedom (rounded down to a
    tabulated row, so the interval is never narrower than the exact one)."""
    return [t for d, t in _T95 if d <= max(df, 1)][-1]


def elo_interval(observations, score: float):
    """(low Elo, high Elo, LOS) of a mean score `score` from its observations (each 0..1: a
    pair's mean score, or a game's): the 95% t interval of the mean, mapped to Elo; three
    None when too few observations or no spread (MIN_OBSERVATIONS)."""
    observations = np.asarray(observations, dtype=float)
    if len(observations) < MIN_OBSERVATIONS or observations.std() <= 0:
        return None, None, None
    stderr = observations.std(ddof=1) / math.sqrt(len(observations))
    half = t95(len(observations) - 1) * stderr
    los = 0.5 * (1.0 + math.erf((score - 0.5) / (stderr * math.sqrt(2.0))))
    return elo_of(score - half), elo_of(score + half), los


@dataclass
class SPRT:
    """Sequential probability ratio test on the paired scores (normal approximation to the
    pentanomial GSPRT, as fishtest does): H0 elo = elo0 against H1 elo = elo1."""
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self):
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, pair_scores) -> float:
        """The log-likelihood ratio from A's pair scores (each 0..2)."""
        if len(pair_scores) < 2:
            return 0.0
        x = np.array(pair_scores) / 2.0
        var = x.var(ddof=1)
        if var <= 0:
            var = 1e-3
        s0, s1 = score_of(self.elo0), score_of(self.elo1)
        return len(x) * (s1 - s0) * (2 * x.mean() - s0 - s1) / (2 * var)

    def decision(self, pair_scores):
        """('H0' | 'H1' | None, llr)."""
        llr = self.llr(pair_scores)
        low, high = self.bounds
        if llr >= high:
            return "H1", llr
        if llr <= low:
            return "H0", llr
        return None, llr
