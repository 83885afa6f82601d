"""What a played turn cost, in one measure that means something at every stage of a game, and
the accuracy it gives (docs/play.md, "How a review measures a turn").

A win probability cannot tell moves apart once a game is decided (0% -> 0% loses nothing,
however bad the move), and a score says little while the game is open. So a turn's loss
blends the two by how open the game still was for the mover:

    dW = max(0, W_best - W_played) * n / 2      win probability lost, on a two-player scale
                                                (n players: an even share 1/n counts as 1/2)
    dQ = max(0, Q_best - Q_played) * n^2 / (n - 1)   share of the game's VP lost, where
         Q = the mover's expected VP / every seat's expected VP summed (1/n if that is 0);
         n^2 / (n - 1) makes a VP count as 1/30 when every seat expects 30 VP
    open = min(1, max(u(W_best), u(W_played)) / OPEN_MARGIN),  u(w) = min(w, 1 - w)
    loss = min(1, open * dW + (1 - open) * dQ)

so a turn that throws away a likely win (99% -> 40%) is judged on the win, and a turn of a
decided game (0% -> 0%, or 100% -> 100%) on its share of the VP: 6 VP of a 200-VP lead are
next to nothing (and within the valuations' noise at that score), 20 VP thrown away by a seat
that would make 30 are a blunder. (Until issue 24's second pass this was the expected VP lost
/ 30 whatever the score: the engine, 150 VP ahead, was marked with blunders for 3-26 VP of
its valuations' noise, while a trailing seat's losses counted no more than a leader's.)

The accuracy of a turn is lichess's formula on that loss in percent, and a seat's accuracy over
a game the mean of the arithmetic and the harmonic mean of its turns' accuracies (the harmonic
mean weighs the bad turns).
"""

from __future__ import annotations

import math

OPEN_MARGIN = 0.10          # a win probability this far from 0 and 1 makes the game fully open
MISTAKE = 0.10              # the default thresholds, on the loss
BLUNDER = 0.20
FLOOR = 10.0                # the least accuracy a turn counts with in the harmonic mean
WINDOW_RANGE = (2, 8)       # volatility_weights: the window, a tenth of the game's turns ...
WEIGHT_RANGE = (0.5, 12.0)  # ... and the weights' bounds (win probability in percent), lichess's


def openness(win_best: float, win_played: float) -> float:
    """1 while the game is open for the mover, falling to 0 once both outcomes are sure."""
    edge = max(min(win_best, 1.0 - win_best), min(win_played, 1.0 - win_played))
    return max(0.0, min(1.0, edge / OPEN_MARGIN))


def vp_share(scores, seat: int) -> float:
    """Q above: `seat`'s share of every seat's expected VP (1/n when nobody expects any)."""
    total = sum(scores)
    return scores[seat] / total if total > 0 else 1.0 / len(scores)


def turn_loss(n_players: int, win_best: float, win_played: float,
              share_best: float, share_played: float) -> float:
    """The loss of a played turn against the best one, in [0, 1] (the formula above); the
    shares are the mover's shares of the game's expected VP (`vp_share`)."""
    d_win = max(0.0, win_best - win_played) * n_players / 2.0
    d_share = max(0.0, share_best - share_played) * n_players ** 2 / (n_players - 1)
    weight = openness(win_best, win_played)
    loss = weight * d_win + (1.0 - weight) * d_share
    return max(0.0, min(1.0, loss))


def turn_accuracy(loss: float) -> float:
    """lichess's accuracy of a move (in %) for a loss given as a share: 100 for no loss."""
    if loss <= 0.0:
        return 100.0
    raw = 103.1668 * math.exp(-0.04354 * 100.0 * loss) - 3.1669
    return max(0.0, min(100.0, raw))


def volatility_weights(series) -> list:
    """lichess's weight of each turn in a game's accuracy: how much the win probability moved
    around it. `series` is one seat's win probability before the first turn and after each
    turn (len = turns + 1); turn i's weight is the standard deviation, in percent, of the
    window of `window` points that ends after it (the first windows are the game's first
    `window` points), clamped to WEIGHT_RANGE; `window` is a tenth of the turns, within
    WINDOW_RANGE. A turn in a quiet stretch, where the game is decided or nothing is at stake,
    weighs little; one where the game turned weighs up to 24 times as much."""
    turns = len(series) - 1
    if turns < 1:
        return []
    window = max(WINDOW_RANGE[0], min(WINDOW_RANGE[1], turns // 10))
    weights = []
    for i in range(turns):
        start = max(0, i + 2 - window)
        points = series[start:start + window]
        mean = sum(points) / len(points)
        spread = 100.0 * math.sqrt(sum((p - mean) ** 2 for p in points) / len(points))
        weights.append(max(WEIGHT_RANGE[0], min(WEIGHT_RANGE[1], spread)))
    return weights


def game_accuracy(losses, weights=None) -> float | None:
    """A seat's accuracy over its turns: the mean of the weighted arithmetic and the weighted
    harmonic means of the turns' accuracies (each at least FLOOR, so one bad turn does not sink
    the whole game), weighted by `weights` (volatility_weights; equal when None); None for no
    turn."""
    accuracies = [max(FLOOR, turn_accuracy(x)) for x in losses]
    if not accuracies:
        return None
    weights = [1.0] * len(accuracies) if weights is None else list(weights)
    if len(weights) != len(accuracies):
        raise ValueError("game_accuracy: one weight per turn")
    total = sum(weights)
    mean = sum(w * a for w, a in zip(weights, accuracies)) / total
    harmonic = total / sum(w / a for w, a in zip(weights, accuracies))
    return (mean + harmonic) / 2.0


def verdict(loss: float, mistake: float = MISTAKE, blunder: float = BLUNDER) -> str:
    return "blunder" if loss >= blunder else "mistake" if loss >= mistake else ""
