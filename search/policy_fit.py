"""The policy head's training data and fit (expert iteration, docs/train.md): at the decisions
a self-play search was made for, the mover's inputs to the head (search/_prior.pyx's
training_inputs, the C code the search runs) and the root's visit distribution; and a fit of
the head's weights by Adam on the cross-entropy against those distributions, seeded, with
every VALIDATION_EVERY-th game held out and the epoch of the lowest held-out loss kept.

A row of policy.f32 (float32, POLICY_ROW entries): the mover's observation (FEATURE_SIZE),
the number n of legal actions, then SLOTS slots of (action, visit share, the edge's mean
reward for the mover, ACTION_ENTRIES feature indices, ACTION_ENTRIES feature values), the
first n used, the rest zero.

The fit's target is the visit distribution (target "visits", the default) or, with target
"q", softmax(q_scale x the edges' mean rewards) per row: the search's values rather than its
visits, which UCB1 spreads nearly evenly at self-play's budgets (docs/train.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.errors import PalaisError
from engine.features import FEATURE_SIZE

from ._prior import ACTION_ENTRIES, N_ACTION_FEATURES, training_inputs
from .adam import Adam, check_settings
from .params import SearchLimits
from .policy import ARRAY_NAMES, MAX_HIDDEN, dense_action_features, expected_shapes

SLOTS = 40                      # the most legal actions of a decision (37: 36 recruits and END)
SLOT = 3 + 2 * ACTION_ENTRIES
IDX = 3                         # where a slot's feature indices start (then its values)
POLICY_ROW = FEATURE_SIZE + 1 + SLOTS * SLOT
VALIDATION_EVERY = 10           # search/train.py's: the same games are held out for both heads
TARGETS = ("visits", "q")


def policy_row(position, visits: dict, values: dict | None = None):
    """The row of one searched decision: `position` (the mover's view or a full state), the
    root's {action: visits} and {action: mean reward for the mover}; None when there is
    nothing to learn (one legal action, no visits, or more legal actions than SLOTS)."""
    x, actions, idx, val = training_inputs(position)
    counts = np.array([visits.get(a, 0) for a in actions], np.float64)
    if len(actions) < 2 or len(actions) > SLOTS or counts.sum() <= 0:
        return None
    row = np.zeros(POLICY_ROW, np.float32)
    row[:FEATURE_SIZE] = x
    row[FEATURE_SIZE] = len(actions)
    slots = row[FEATURE_SIZE + 1:].reshape(SLOTS, SLOT)
    slots[:len(actions), 0] = actions
    slots[:len(actions), 1] = counts / counts.sum()
    slots[:len(actions), 2] = [(values or {}).get(a, 0.0) for a in actions]
    slots[:len(actions), IDX:IDX + ACTION_ENTRIES] = idx
    slots[:len(actions), IDX + ACTION_ENTRIES:] = val
    return row


class VisitRecorder:
    """A player that passes every search on to `inner` and appends to `rows` the policy row of
    each decision it searched (the searched position and the root's visits); everything
    else is `inner`'s."""

    def __init__(self, inner, rows: list):
        self.inner = inner
        self.rows = rows

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def search(self, state, seat=None, limits=None, **extra):
        result = self.inner.search(state, seat, limits, **extra)
        if not state.is_chance() and not state.is_terminal() and state.to_move == result.seat:
            row = policy_row(state, result.root_visits, result.root_values)
            if row is not None:
                self.rows.append(row)
        return result


class CappedRecorder(VisitRecorder):
    """Playout-cap randomisation (KataGo): each search is, with probability `fast_share`
    (drawn from `rng`), a fast one of at most `fast_iterations`, whose visits are too few to
    be a policy target and are not recorded; the others are full searches, recorded as
    VisitRecorder does. The game's positions still serve the value (its outcome is known)."""

    def __init__(self, inner, rows: list, fast_share: float, fast_iterations: int, rng):
        super().__init__(inner, rows)
        self.fast_share = fast_share
        self.fast_iterations = fast_iterations
        self.rng = rng

    def search(self, state, seat=None, limits=None, **extra):
        if self.fast_share > 0 and self.rng.random() < self.fast_share:
            cap = self.fast_iterations if limits is None or limits.iterations is None \
                else min(limits.iterations, self.fast_iterations)
            fast = replace(limits, iterations=cap) if limits is not None else SearchLimits(iterations=cap)
            return self.inner.search(state, seat, fast, **extra)
        return super().search(state, seat, limits, **extra)


@dataclass
class PolicyData:
    """Rows unpacked for the fit: observations, and the legal (row, action) pairs in row order
    with their sparse features, targets, and where each row's pairs start. The dense feature
    rows (pairs x ACTION_FEATURES) are made only for a batch (take), not for every row."""
    x: np.ndarray            # (rows, FEATURE_SIZE)
    idx: np.ndarray          # (pairs, ACTION_ENTRIES) feature indices
    val: np.ndarray          # (pairs, ACTION_ENTRIES) their values (0: unused)
    targets: np.ndarray      # (pairs,)
    starts: np.ndarray       # (rows + 1,): row r's pairs are starts[r]:starts[r+1]
    values: np.ndarray | None = None     # (pairs,) the edges' mean rewards for the mover
    features: np.ndarray | None = None   # (pairs, ACTION_FEATURES), in a batch

    def __len__(self):
        return len(self.x)

    def dense(self) -> np.ndarray:
        return self.features if self.features is not None else dense_action_features(self.idx, self.val)

    def take(self, rows: np.ndarray) -> "PolicyData":
        """The rows `rows`, with their dense feature rows (a batch)."""
        return self.subset(rows, dense=True)

    def subset(self, rows: np.ndarray, dense: bool = False) -> "PolicyData":
        """The rows `rows`, sparse as unpack gives them unless `dense`."""
        pairs = np.concatenate([np.arange(self.starts[r], self.starts[r + 1]) for r in rows]) \
            if len(rows) else np.zeros(0, int)
        counts = self.starts[rows + 1] - self.starts[rows]
        idx, val = self.idx[pairs], self.val[pairs]
        return PolicyData(self.x[rows], idx, val, self.targets[pairs], np.concatenate([[0], np.cumsum(counts)]),
                          None if self.values is None else self.values[pairs],
                          dense_action_features(idx, val) if dense else None)

    def with_value_targets(self, scale: float) -> "PolicyData":
        """The same rows with targets softmax(scale x value) per row (target "q")."""
        z = scale * self.values.astype(np.float64)
        row = np.repeat(np.arange(len(self)), np.diff(self.starts))
        heads = self.starts[:-1]
        z = np.exp(z - np.maximum.reduceat(z, heads)[row]) if len(z) else z
        targets = (z / np.add.reduceat(z, heads)[row]).astype(np.float32) if len(z) else self.targets
        return PolicyData(self.x, self.idx, self.val, targets, self.starts, self.values, self.features)

    def chunks(self, size: int = 4096):
        """The data in batches of `size` rows, in order (to measure a loss in bounded memory)."""
        for start in range(0, len(self), size):
            yield self.take(np.arange(start, min(start + size, len(self))))


def unpack(rows: np.ndarray) -> PolicyData:
    """PolicyData of policy.f32 rows."""
    rows = rows.reshape(-1, POLICY_ROW)
    n = rows[:, FEATURE_SIZE].astype(int)
    if len(rows) and (n.min() < 1 or n.max() > SLOTS):
        raise PalaisError("policy rows damaged: a row's action count is outside 1..40")
    slots = rows[:, FEATURE_SIZE + 1:].reshape(len(rows), SLOTS, SLOT)
    used = np.arange(SLOTS)[None, :] < n[:, None]
    pairs = slots[used]
    idx = pairs[:, IDX:IDX + ACTION_ENTRIES].astype(np.int32)
    if len(pairs) and (idx.min() < 0 or idx.max() >= N_ACTION_FEATURES):
        raise PalaisError("policy rows damaged: an action feature outside the table")
    if not np.all(np.isfinite(pairs[:, 1:3])):
        raise PalaisError("policy rows damaged: a target that is not finite")
    return PolicyData(np.ascontiguousarray(rows[:, :FEATURE_SIZE]), idx,
                      np.ascontiguousarray(pairs[:, IDX + ACTION_ENTRIES:]),
                      pairs[:, 1].astype(np.float32), np.concatenate([[0], np.cumsum(n)]),
                      pairs[:, 2].astype(np.float32))


@dataclass(frozen=True)
class PolicyFitOptions:
    hidden: int = 32
    epochs: int = 20
    batch: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    seed: int = 1
    target: str = "visits"      # or "q": softmax(q_scale x the edges' mean rewards)
    q_scale: float = 20.0

    def check(self) -> "PolicyFitOptions":
        if not 1 <= self.hidden <= MAX_HIDDEN:
            raise PalaisError(f"policy hidden: {self.hidden} is outside 1..{MAX_HIDDEN}")
        if self.target not in TARGETS:
            raise PalaisError(f"policy target: {self.target!r} is not one of {', '.join(TARGETS)}")
        if not 0 < self.q_scale <= 1000:
            raise PalaisError(f"policy q scale: {self.q_scale} is outside (0, 1000]")
        check_settings(self.epochs, self.batch, self.learning_rate, self.weight_decay)
        return self


def initial_policy(hidden: int, rng) -> dict:
    """He-initialised W1, small u, zero biases: at first every action's prior is about equal."""
    shapes = expected_shapes(hidden)
    return {"w1": (rng.standard_normal(shapes["w1"]) * np.sqrt(2.0 / FEATURE_SIZE)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "u": (rng.standard_normal(shapes["u"]) * 0.01).astype(np.float32),
            "c": np.zeros(N_ACTION_FEATURES, np.float32)}


def forward(w: dict, data: PolicyData):
    """(z1, h, action embeddings A u, row of each pair, segment starts, priors) of a batch."""
    z1 = data.x @ w["w1"] + w["b1"]
    h = np.maximum(z1, 0)
    features = data.dense()
    au = features @ w["u"]
    row = np.repeat(np.arange(len(data)), np.diff(data.starts))
    logits = features @ w["c"] + np.einsum("ij,ij->i", au, h[row])
    heads = data.starts[:-1]
    top = np.maximum.reduceat(logits, heads)
    e = np.exp((logits - top[row]).astype(np.float64))
    priors = e / np.add.reduceat(e, heads)[row]
    return z1, h, au, row, heads, priors


def cross_entropy(w: dict, data: PolicyData) -> float:
    """Mean over rows of -sum_a target(a) log prior(a)."""
    if len(data) == 0:
        return float("nan")
    total = 0.0
    for part in data.chunks():
        priors = forward(w, part)[-1]
        total += float(-(part.targets * np.log(np.maximum(priors, 1e-12))).sum())
    return total / len(data)


def policy_gradients(w: dict, data: PolicyData) -> dict:
    """Gradients of the mean cross-entropy over a batch."""
    z1, h, au, row, heads, priors = forward(w, data)
    g = ((priors - data.targets) / len(data)).astype(np.float32)
    dh = np.add.reduceat(g[:, None] * au, heads, axis=0) * (z1 > 0)
    features = data.dense()
    return {"w1": data.x.T @ dh, "b1": dh.sum(axis=0), "u": features.T @ (g[:, None] * h[row]),
            "c": features.T @ g}


def fit_policy(data: PolicyData, games: np.ndarray, options: PolicyFitOptions, progress=None):
    """The head's weights fitted to `data` (row r from game games[r]): Adam on the
    cross-entropy, every VALIDATION_EVERY-th game held out and the epoch with the lowest
    held-out loss kept (the last one if nothing is held out). Returns (arrays, curve:
    [{"epoch", "train", "validation", "kept"}])."""
    options = options.check()
    if len(data) == 0:
        raise PalaisError("no policy rows: play some games first (runs made before the policy "
                          "head hold none)")
    if options.target == "q":
        data = data.with_value_targets(options.q_scale)
    rng = np.random.default_rng(options.seed)
    held = games % VALIDATION_EVERY == VALIDATION_EVERY - 1
    if held.all() or not held.any():
        held = np.zeros(len(data), bool)
    train, validation = data.subset(np.flatnonzero(~held)), data.subset(np.flatnonzero(held))
    w = initial_policy(options.hidden, rng)
    adam = Adam(w, options.learning_rate, options.weight_decay, ("w1", "u"))
    curve, best, best_loss = [], None, None
    for epoch in range(1, options.epochs + 1):
        order = rng.permutation(len(train))
        for start in range(0, len(order), options.batch):
            adam.update(w, policy_gradients(w, train.take(order[start:start + options.batch])))
        point = {"epoch": epoch, "train": cross_entropy(w, train),
                 "validation": cross_entropy(w, validation) if len(validation) else None}
        point["kept"] = point["validation"] is None or best_loss is None or point["validation"] < best_loss
        if point["kept"]:
            best, best_loss = {k: v.copy() for k, v in w.items()}, point["validation"]
            for earlier in curve:
                earlier["kept"] = False
        curve.append(point)
        if progress is not None:
            progress(point)
    return {k: best[k] for k in ARRAY_NAMES}, curve
