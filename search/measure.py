"""What a played turn cost, in one measure that means something at every stage of a game, and
the accuracy it gives (docs/play.md, "How a review measures a turn").

A win probability cannot tell moves apart once a game is decided (0% -> 0% loses nothing,
however bad the move), and an expected score says little while the game is open. So a turn's
loss blends the two by how open the game still was for the mover:

    dW = max(0, W_best - W_played) * n / 2      win probability lost, on a two-player scale
                                                (n players: an even share 1/n counts as 1/2)
    dS = max(0, S_best - S_played) / SCORE_SCALE  expected VP lost (SCORE_SCALE VP count as 1)
    open = min(1, max(u(W_best), u(W_played)) / OPEN_MARGIN),  u(w) = min(w, 1 - w)
    loss = min(1, open * dW + (1 - open) * dS)

so a turn that throws away a likely win (99% -> 40%) is judged on the win, and a turn of a
decided game (0% -> 0%, or 100% -> 100%) on the score. The accuracy of a turn is lichess's
formula on that loss in percent, and a seat's accuracy over a game the mean of the arithmetic
and the harmonic mean of its turns' accuracies (the harmonic mean weighs the bad turns).
"""

from __future__ import annotations

import math

SCORE_SCALE = 30.0          # VP: losing this many expected VP in a decided game counts as 1
OPEN_MARGIN = 0.10          # a win probability this far from 0 and 1 makes the game fully open
MISTAKE = 0.10              # the default thresholds, on the loss
BLUNDER = 0.20
FLOOR = 10.0                # the least accuracy a turn counts with in the harmonic mean


def openness(win_best: float, win_played: float) -> float:
    """1 while the game is open for the mover, falling to 0 once both outcomes are sure."""
    edge = max(min(win_best, 1.0 - win_best), min(win_played, 1.0 - win_played))
    return max(0.0, min(1.0, edge / OPEN_MARGIN))


def turn_loss(n_players: int, win_best: float, win_played: float,
              score_best: float, score_played: float) -> float:
    """The loss of a played turn against the best one, in [0, 1] (the formula above)."""
    d_win = max(0.0, win_best - win_played) * n_players / 2.0
    d_score = max(0.0, score_best - score_played) / SCORE_SCALE
    weight = openness(win_best, win_played)
    loss = weight * d_win + (1.0 - weight) * d_score
    return max(0.0, min(1.0, loss))


def turn_accuracy(loss: float) -> float:
    """lichess's accuracy of a move (in %) for a loss given as a share: 100 for no loss."""
    if loss <= 0.0:
        return 100.0
    raw = 103.1668 * math.exp(-0.04354 * 100.0 * loss) - 3.1669
    return max(0.0, min(100.0, raw))


def game_accuracy(losses) -> float | None:
    """A seat's accuracy over its turns: the mean of the arithmetic and harmonic means of the
    turns' accuracies (each at least FLOOR, so one bad turn does not sink the whole game); None
    for no turn."""
    accuracies = [max(FLOOR, turn_accuracy(x)) for x in losses]
    if not accuracies:
        return None
    mean = sum(accuracies) / len(accuracies)
    harmonic = len(accuracies) / sum(1.0 / a for a in accuracies)
    return (mean + harmonic) / 2.0


def verdict(loss: float, mistake: float = MISTAKE, blunder: float = BLUNDER) -> str:
    return "blunder" if loss >= blunder else "mistake" if loss >= mistake else ""
