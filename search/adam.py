"""Adam with L2 weight decay on named float32 arrays: the one optimiser both learned models'
fits use (search/train.py for the value, search/policy_fit.py for the policy head)."""

from __future__ import annotations

import numpy as np

from engine.errors import PalaisError

from .weights_file import flush_subnormals

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


def check_settings(epochs: int, batch: int, learning_rate: float, weight_decay: float) -> None:
    """PalaisError naming the first of a fit's optimiser settings out of its range."""
    if not 1 <= epochs <= 10_000:
        raise PalaisError(f"epochs: {epochs} is outside 1..10000")
    if not 1 <= batch <= 65536:
        raise PalaisError(f"batch: {batch} is outside 1..65536")
    if not 0 < learning_rate <= 1:
        raise PalaisError(f"learning rate: {learning_rate} is outside (0, 1]")
    if not 0 <= weight_decay <= 1:
        raise PalaisError(f"weight decay: {weight_decay} is outside 0..1")


class Adam:
    """Adam's moments for the arrays of `weights`; `decayed` names those the L2 penalty
    (weight_decay * w, added to the gradient) applies to."""

    def __init__(self, weights: dict, learning_rate: float, weight_decay: float, decayed):
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.decayed = set(decayed)
        self.m = {k: np.zeros_like(v) for k, v in weights.items()}
        self.v = {k: np.zeros_like(v) for k, v in weights.items()}
        self.steps = 0

    def update(self, weights: dict, grads: dict) -> None:
        """One step on every array of `weights` (changed in place), float32 kept, values below
        float32's normal range made zero."""
        self.steps += 1
        for k in weights:
            g = grads[k] + (self.weight_decay * weights[k] if k in self.decayed else 0)
            self.m[k] = BETA1 * self.m[k] + (1 - BETA1) * g
            self.v[k] = BETA2 * self.v[k] + (1 - BETA2) * g * g
            mhat = self.m[k] / (1 - BETA1 ** self.steps)
            vhat = self.v[k] / (1 - BETA2 ** self.steps)
            # the decay shrinks rarely seen inputs' weights towards zero: none may stay below
            # float32's normal range (weights_file.flush_subnormals)
            weights[k] = flush_subnormals(
                (weights[k] - self.learning_rate * mhat / (np.sqrt(vhat) + EPS)).astype(np.float32))
