"""Learning the value model and the policy head from self-play (`palais train`,
docs/train.md): games, a fit of each, a match of each against what it would replace, and a
training curve (the policy's fit itself is search/policy_fit.py).

A run lives in one folder:
  run.json       the options that fix the games (seed, players, iterations, positions per
                 game); a restart with other options is refused
  samples.f32    rows of FEATURE_SIZE + 1 float32: a seat's observation, then its outcome
                 (1/k for each of k winners); appended game by game
  policy.f32     the policy head's rows (search/policy_fit.py): at sampled searched
                 decisions, the mover's inputs and the root's visit distribution
  games.jsonl    one line per finished game (its index, deal, rows, policy_rows, returns),
                 written after its rows, so a restart truncates rows no line accounts for
                 and skips every game with a line (a line without policy_rows, from a run
                 made before the policy head, accounts for none)
  candidate.npz  the value weights of the last fit (a vector head's with --head vector: every
                 seat's share and score from one seat's view, docs/train.md); curve.json its
                 loss per epoch
  policy-candidate.npz, policy-curve.json   the same for the policy head
One model may be fitted on the rows of several runs (`training_rows`), e.g. one run per
player count, so that the same weights serve 2, 3 and 4 players.
Every random choice comes from the run's seed: the same options give the same games and the
same weights (numpy only, float32, one thread's worth of arithmetic order per machine).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from common.atomic_write import write_text_atomic
from common.json_lines import mend, read_json_lines
from common.plots import pyplot, save_figure
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE, observation
from jobs.backends import open_backend

from .adam import Adam, check_settings
from .params import PRESETS, UNIFORM_PRIORS, SearchLimits, SearchParams
from .factory import make_player
from .selfplay import play_game
from .stats import elo_of, wilson
from .policy import save_policy_weights
from .policy_fit import POLICY_ROW, CappedRecorder
from .value import (ARRAY_NAMES, MAX_HIDDEN, SCORE_SCALE, numpy_values, numpy_vector, save_weights,
                    vector_arrays)

ROW = FEATURE_SIZE + 1
VALIDATION_EVERY = 10          # every 10th game's rows are held out to measure the fit


@dataclass(frozen=True)
class GameOptions:
    """What fixes a run's games (run.json)."""
    seed: int = 1
    players: int = 2
    iterations: int = 200
    positions: int = 8          # positions sampled per game (each gives one row per seat)
    search: tuple = ()          # (name, value) pairs on top of the default search in every seat
                                # (a generation's best: search/generations.py); () the default
    fast_share: float = 0.0     # playout-cap randomisation: the share of searches that are fast,
    fast_iterations: int = 0    # at most this many iterations, and not policy targets

    def to_json(self) -> dict:
        """run.json's content: the options, each of the later ones (`search`, the playout cap)
        only when it is not the default (so the runs made before them keep their run.json)."""
        found = asdict(self)
        for name in OPTIONAL_GAME_OPTIONS:
            if found[name] == getattr(GameOptions, name):
                del found[name]
        if self.search:
            found["search"] = dict(self.search)
        return found

    @classmethod
    def from_json(cls, found: dict) -> "GameOptions":
        found = dict(found)
        search = found.pop("search", {})
        if not isinstance(search, dict):
            raise TypeError("search: not a table of search parameters")
        return cls(**found, search=tuple(sorted(search.items())))

    def check(self) -> "GameOptions":
        if not 2 <= self.players <= 4:
            raise PalaisError(f"players: {self.players} is outside 2..4")
        if not 1 <= self.iterations <= 1_000_000:
            raise PalaisError(f"iterations: {self.iterations} is outside 1..1000000")
        if not 1 <= self.positions <= 1000:
            raise PalaisError(f"positions: {self.positions} is outside 1..1000")
        if not 0 <= self.seed < 2 ** 62:
            raise PalaisError(f"seed: {self.seed} is outside 0..2**62-1")
        if not 0 <= self.fast_share < 1:
            raise PalaisError(f"fast share: {self.fast_share} is outside 0..1 (1 excluded: some "
                              f"searches must be full ones, the policy's targets)")
        if self.fast_share and not 1 <= self.fast_iterations < self.iterations:
            raise PalaisError(f"fast iterations: {self.fast_iterations} is outside 1..{self.iterations - 1} "
                              f"(a fast search is shorter than a full one, --iterations)")
        return self


OPTIONAL_GAME_OPTIONS = ("search", "fast_share", "fast_iterations")


def keep_options(path: Path, wanted: dict, what: str) -> None:
    """A run folder's options file: written with `wanted` the first time; later, a PalaisError
    naming each option that differs (`what`: "this run was", "these generations were")."""
    if not path.exists():
        write_text_atomic(path, json.dumps(wanted) + "\n")
        return
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise PalaisError(f"{path}: unreadable ({exc})") from None
    if found != wanted:
        changed = ", ".join(f"{k} {found.get(k)!r} (now {v!r})" for k, v in wanted.items() if found.get(k) != v)
        raise PalaisError(f"{path.parent}: {what} made with other options: {changed or found}; "
                          f"continue with the same options or use another folder")


class RunFolder:
    """A run's folder: its options, its games so far, and appending one more."""

    def __init__(self, folder, options: GameOptions, mend_torn: bool = True):
        self.folder = Path(folder)
        self.options = options.check()
        if self.folder.exists() and not self.folder.is_dir():
            raise PalaisError(f"{self.folder}: not a folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.samples = self.folder / "samples.f32"
        self.index = self.folder / "games.jsonl"
        self.policy = self.folder / "policy.f32"
        self._check_options()
        self.games = self._read_index(mend_torn)
        self._truncate_rows()

    @classmethod
    def existing(cls, folder) -> "RunFolder":
        """A run made before, opened with the options its run.json holds (to read its rows)."""
        path = Path(folder) / "run.json"
        if not Path(folder).is_dir():
            raise PalaisError(f"{folder}: not a run folder (no such folder)")
        if not path.exists():
            raise PalaisError(f"{folder}: not a run folder (no run.json)")
        try:
            options = GameOptions.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as exc:
            raise PalaisError(f"{path}: not the options of a run ({exc})") from None
        return cls(folder, options, mend_torn=False)     # another run's file: read, not mended

    def _check_options(self):
        keep_options(self.folder / "run.json", self.options.to_json(), "this run was")

    def _read_index(self, mend_torn: bool) -> list:
        """The game lines; a last line a kill cut short is dropped (its rows are then cut by
        _truncate_rows) and, in a run being continued, the file rewritten without it."""
        def check(game, number):
            if game["index"] != number - 1 or game["rows"] < 0 or policy_rows_of(game) < 0:
                raise ValueError("not this run's next game")
            return game

        lines = read_json_lines(self.index, "a game line of this run", check)
        if lines is None:
            return []
        if mend_torn:
            try:
                mend(self.index, lines)
            except OSError as exc:
                raise PalaisError(f"{self.index}: cannot write: {exc.strerror or exc}") from None
        return lines.values

    def _truncate_rows(self):
        truncate_rows(self.samples, sum(g["rows"] for g in self.games), ROW, self.index.name)
        truncate_rows(self.policy, sum(policy_rows_of(g) for g in self.games), POLICY_ROW,
                      self.index.name)

    def append(self, game: dict, rows: np.ndarray, policy: np.ndarray | None = None) -> None:
        append_rows(self.samples, rows)
        if policy is not None and len(policy):
            append_rows(self.policy, policy)
        append_json_line(self.index, game)
        self.games.append(game)

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(features, targets, game index of each row) of every finished game."""
        total = sum(g["rows"] for g in self.games)
        if total == 0:
            return np.zeros((0, FEATURE_SIZE), np.float32), np.zeros(0, np.float32), np.zeros(0, int)
        data = np.fromfile(self.samples, dtype=np.float32, count=total * ROW).reshape(total, ROW)
        games = np.repeat(np.arange(len(self.games)), [g["rows"] for g in self.games])
        return data[:, :FEATURE_SIZE], data[:, FEATURE_SIZE], games

    def policy_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(policy.f32 rows, game index of each row) of every finished game."""
        counts = [policy_rows_of(g) for g in self.games]
        total = sum(counts)
        if total == 0:
            return np.zeros((0, POLICY_ROW), np.float32), np.zeros(0, int)
        data = np.fromfile(self.policy, dtype=np.float32, count=total * POLICY_ROW)
        return data.reshape(total, POLICY_ROW), np.repeat(np.arange(len(self.games)), counts)


def policy_rows_of(game: dict) -> int:
    """The policy rows a game line accounts for (0 in a run made before the policy head)."""
    rows = game.get("policy_rows", 0)
    return rows if isinstance(rows, int) and not isinstance(rows, bool) else -1


def truncate_rows(path: Path, rows: int, width: int, index_name: str) -> None:
    """Cut `path` to `rows` rows of `width` float32 (the rows of a game cut short before its
    line are dropped); PalaisError if it holds fewer."""
    size = path.stat().st_size if path.exists() else 0
    if size < rows * width * 4:
        raise PalaisError(f"{path}: {size} bytes, fewer than the {rows} rows {index_name} lists")
    if size > rows * width * 4:
        os.truncate(path, rows * width * 4)


def append_json_line(path: Path, value) -> None:
    """One line appended to a JSON-lines file and synced (a kill leaves at most a torn last
    line, which common/json_lines.py drops)."""
    with open(path, "a") as out:
        out.write(json.dumps(value) + "\n")
        out.flush()
        os.fsync(out.fileno())


def append_rows(path: Path, rows: np.ndarray) -> None:
    with open(path, "ab") as out:
        out.write(np.ascontiguousarray(rows, dtype=np.float32).tobytes())
        out.flush()
        os.fsync(out.fileno())


def check_distinct(folders) -> None:
    """Refuses a list of run folders that names one folder twice."""
    seen = set()
    for folder in folders:
        resolved = Path(folder).resolve()
        if resolved in seen:
            raise PalaisError(f"{folder}: this run folder is named twice")
        seen.add(resolved)


def training_rows(runs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of several runs together, as RunFolder.rows gives one run's: the game numbers
    are shifted run by run by multiples of VALIDATION_EVERY, so that each run holds out its
    own every tenth game and no two runs' games share a number."""
    x, y, games = zip(*joined(runs, lambda run: run.rows()))
    return np.concatenate(x), np.concatenate(y), np.concatenate(games)


def vector_targets(run: RunFolder) -> np.ndarray:
    """A vector head's targets for each of the run's rows (RunFolder.rows' order): the row's
    seat is its place among each position's n rows (play_selfplay_game writes one row per
    seat, in seat order); its targets are every seat's return at the end, then every seat's
    final VP / SCORE_SCALE, both in turn order from that seat. (rows, 2 n) float32."""
    n = run.options.players
    parts = []
    for game in run.games:
        returns, scores = game.get("returns"), game.get("scores")
        if not (isinstance(returns, list) and isinstance(scores, list) and len(returns) == len(scores) == n
                and game["rows"] % n == 0):
            raise PalaisError(f"{run.index}: game {game['index']} lacks the returns and scores of its "
                              f"{n} seats that a vector head's targets need")
        seat = np.arange(game["rows"]) % n
        order = (seat[:, None] + np.arange(n)[None, :]) % n        # turn order from the row's seat
        parts.append(np.concatenate([np.asarray(returns, np.float64)[order],
                                     np.asarray(scores, np.float64)[order] / SCORE_SCALE], axis=1))
    return (np.concatenate(parts) if parts else np.zeros((0, 2 * n))).astype(np.float32)


def vector_training_rows(runs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """training_rows for a vector head: (features, targets (rows, 2 n): vector_targets, game
    of each row); every run must be of one player count (the head's)."""
    counts = {run.options.players for run in runs}
    if len(counts) > 1:
        raise PalaisError("a vector head is for one player count: the runs are of "
                          + ", ".join(f"{run.folder} {run.options.players}" for run in runs) + " players")
    x, _, games = training_rows(runs)
    return x, np.concatenate([vector_targets(run) for run in runs]), games


def policy_training_rows(runs: list) -> tuple[np.ndarray, np.ndarray]:
    """The policy rows of several runs together, game numbers shifted as training_rows does."""
    rows, games = zip(*joined(runs, lambda run: run.policy_rows()))
    return np.concatenate(rows), np.concatenate(games)


def joined(runs: list, read) -> list:
    """read(run) for each run, its last part (the game of each row) shifted run by run."""
    check_distinct([run.folder for run in runs])
    parts, offset = [], 0
    for run in runs:
        *data, games = read(run)
        parts.append((*data, games + offset))
        offset += -(-len(run.games) // VALIDATION_EVERY) * VALIDATION_EVERY
    return parts


def deal_of(options: GameOptions, index: int) -> int:
    return options.seed * 1_000_003 + index


def play_selfplay_game(options: GameOptions, index: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """Game `index` of a run: the default search (with options.search) in every seat at
    options.iterations (options.fast_share of the searches at options.fast_iterations, not
    recorded: playout-cap randomisation); a
    sample of options.positions turn starts, each giving every seat's observation (value
    rows), and of options.positions searched decisions, each giving the mover's policy row."""
    deal = deal_of(options, index)
    n = options.players
    searched = []
    caps = np.random.default_rng([options.seed, index, 2])       # which searches are fast
    players = [CappedRecorder(make_player(SearchParams(**dict(options.search), seed=deal * 10 + q)), searched,
                              options.fast_share, options.fast_iterations, caps)
               for q in range(n)]
    seen = []
    outcome = play_game(players, ["ismcts"] * n, deal, SearchLimits(iterations=options.iterations),
                        on_turn=lambda state: seen.append([observation(state, q) for q in range(n)]))
    rng = np.random.default_rng([options.seed, index])
    picked = sorted(rng.choice(len(seen), size=min(options.positions, len(seen)), replace=False))
    rows = np.array([np.append(seen[i][q], np.float32(outcome.returns[q]))
                     for i in picked for q in range(n)], dtype=np.float32).reshape(-1, ROW)
    chosen = np.random.default_rng([options.seed, index, 1]).choice(
        len(searched), size=min(options.positions, len(searched)), replace=False)
    policy = np.array([searched[i] for i in sorted(chosen)], dtype=np.float32).reshape(-1, POLICY_ROW)
    return ({"index": index, "deal": deal, "rows": len(rows), "policy_rows": len(policy),
             "returns": outcome.returns, "scores": outcome.scores}, rows, policy)


def selfplay_job(task: tuple) -> tuple[dict, np.ndarray, np.ndarray]:
    """A backend's job: play_selfplay_game(options, index)."""
    return play_selfplay_game(*task)


def generate(run: RunFolder, games: int, progress=None, backend: str = "local",
             concurrency: int = 1, ray_address: str | None = None) -> int:
    """Play the run's games up to `games` in all (those already in the folder are skipped),
    `concurrency` at once on `backend` (jobs/backends.py: local processes or Ray tasks);
    `progress(done)` after each. A game depends only on the run's options and its index, so
    every backend gives the same games; they are appended in index order (a game that
    finishes early waits for those before it). Returns how many were appended now."""
    played = 0
    start = len(run.games)
    waiting = {}
    with open_backend(backend, selfplay_job, concurrency, ray_address) as games_at:
        for game, rows, policy in games_at.run([(run.options, i) for i in range(start, games)]):
            waiting[game["index"]] = (game, rows, policy)
            while start + played in waiting:
                run.append(*waiting.pop(start + played))
                played += 1
            if progress is not None:
                progress(1)
    return played


@dataclass(frozen=True)
class FitOptions:
    hidden: tuple = (64, 32)
    epochs: int = 20
    batch: int = 256
    learning_rate: float = 3e-4
    weight_decay: float = 1e-2
    seed: int = 1

    def check(self) -> "FitOptions":
        if len(self.hidden) != 2 or not all(1 <= h <= MAX_HIDDEN for h in self.hidden):
            raise PalaisError(f"hidden: expected two layer sizes in 1..{MAX_HIDDEN}, got {self.hidden}")
        check_settings(self.epochs, self.batch, self.learning_rate, self.weight_decay)
        return self


def initial_weights(hidden, rng, outputs: int = 0) -> dict:
    """He-initialised weights (zero biases), float32; `outputs` > 0: a vector head's w3 and
    b3 of that many outputs."""
    h1, h2 = hidden
    def he(fan_in, shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    head = ({"w3": he(h2, (h2,)), "b3": np.zeros(1, np.float32)} if not outputs
            else {"w3": he(h2, (h2, outputs)), "b3": np.zeros(outputs, np.float32)})
    return {"w1": he(FEATURE_SIZE, (FEATURE_SIZE, h1)), "b1": np.zeros(h1, np.float32),
            "w2": he(h1, (h1, h2)), "b2": np.zeros(h2, np.float32), **head}


def log_loss(arrays, x, y) -> float:
    p = np.clip(numpy_values(arrays, x), 1e-7, 1 - 1e-7)
    return float(np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p))))


SCORE_WEIGHT = 1.0      # a vector head's loss: cross-entropy + SCORE_WEIGHT x the scores' squared error


def share_cross_entropy(shares, y) -> np.ndarray:
    """Each row's cross-entropy of a vector head's shares against the seats' returns (the
    first n columns of its targets y)."""
    n = shares.shape[1]
    return -np.sum(y[:, :n] * np.log(np.clip(shares, 1e-7, 1.0)), axis=1)


def vector_loss(arrays, x, y, score_weight: float = SCORE_WEIGHT) -> float:
    """A vector head's loss on rows x with targets y (vector_targets): the cross-entropy of
    its shares against the seats' returns, plus `score_weight` times the mean squared error
    of its scores / SCORE_SCALE against the final VP / SCORE_SCALE."""
    n = y.shape[1] // 2
    shares, scores = numpy_vector(arrays, x)
    squared = np.mean((scores / SCORE_SCALE - y[:, n:]) ** 2, axis=1)
    return float(np.mean(share_cross_entropy(shares, y) + score_weight * squared))


@dataclass(frozen=True)
class Head:
    """What a fit learns: the one-seat head (a seat's share, log loss) or a vector head for
    `players` seats (every seat's share and score from one view, vector_loss, its scores'
    error weighed by `score_weight`: the auxiliary score target, bench/score_target.py)."""
    players: int = 0
    score_weight: float = SCORE_WEIGHT

    def initial(self, hidden, rng) -> dict:
        return initial_weights(hidden, rng, 2 * self.players)

    def loss(self, w, x, y) -> float:
        return vector_loss(w, x, y, self.score_weight) if self.players else log_loss(w, x, y)

    def gradients(self, w, x, y) -> dict:
        return vector_gradients(w, x, y, self.score_weight) if self.players else gradients(w, x, y)

    def file_arrays(self, w) -> dict:
        """The arrays the writer takes (a vector head's with its format-2 header)."""
        return vector_arrays(w, self.players) if self.players else w


SCALAR = Head()


def fit(x: np.ndarray, y: np.ndarray, games: np.ndarray, options: FitOptions, progress=None,
        head: Head = SCALAR):
    """Weights that predict y (a seat's win share; a vector head: vector_targets) from x (its
    observation), by Adam on the head's loss (the one-seat head: the log loss of the sigmoid
    output); every VALIDATION_EVERY-th game held out, and the weights of the epoch with the
    lowest held-out loss kept (early stopping: a few hundred games are soon learnt by heart),
    or the last epoch's if nothing is held out. Returns (arrays, curve: [{"epoch", "train",
    "validation", "kept"}]); a vector head's arrays hold its format-2 header."""
    options = options.check()
    if len(x) == 0:
        raise PalaisError("no training rows: play some games first")
    rng = np.random.default_rng(options.seed)
    held = games % VALIDATION_EVERY == VALIDATION_EVERY - 1
    if held.all() or not held.any():
        held = np.zeros(len(x), bool)
    xt, yt, xv, yv = x[~held], y[~held], x[held], y[held]
    w = head.initial(options.hidden, rng)
    adam = Adam(w, options.learning_rate, options.weight_decay, [k for k in ARRAY_NAMES if k.startswith("w")])
    curve = []
    best, best_loss = None, None
    for epoch in range(1, options.epochs + 1):
        order = rng.permutation(len(xt))
        for start in range(0, len(order), options.batch):
            batch = order[start:start + options.batch]
            adam.update(w, head.gradients(w, xt[batch], yt[batch]))
        point = {"epoch": epoch, "train": head.loss(w, xt, yt),
                 "validation": head.loss(w, xv, yv) if len(xv) else None}
        if point["validation"] is None or best_loss is None or point["validation"] < best_loss:
            best, best_loss = {k: v.copy() for k, v in w.items()}, point["validation"]
            for earlier in curve:
                earlier["kept"] = False
            point["kept"] = True
        else:
            point["kept"] = False
        curve.append(point)
        if progress is not None:
            progress(point)
    return head.file_arrays(best), curve


def gradients(w: dict, x: np.ndarray, y: np.ndarray) -> dict:
    """Gradients of the mean log loss over a batch (the forward pass of search.value)."""
    z1 = x @ w["w1"] + w["b1"]
    a1 = np.maximum(z1, 0)
    z2 = a1 @ w["w2"] + w["b2"]
    a2 = np.maximum(z2, 0)
    p = 1.0 / (1.0 + np.exp(-(a2 @ w["w3"] + w["b3"][0])))
    d3 = ((p - y) / len(x)).astype(np.float32)
    d2 = np.outer(d3, w["w3"]) * (z2 > 0)
    return {"w3": a2.T @ d3, "b3": np.array([d3.sum()], np.float32),
            **hidden_gradients(w, x, z1, a1, d2)}


def hidden_gradients(w: dict, x, z1, a1, d2) -> dict:
    """The first two layers' gradients, from the loss's gradient d2 at the second layer's sums
    (both heads share them)."""
    d1 = (d2 @ w["w2"].T) * (z1 > 0)
    return {"w2": a1.T @ d2, "b2": d2.sum(axis=0), "w1": x.T @ d1, "b1": d1.sum(axis=0)}


def vector_gradients(w: dict, x: np.ndarray, y: np.ndarray, score_weight: float = SCORE_WEIGHT) -> dict:
    """Gradients of the mean vector_loss over a batch (the forward pass of numpy_vector)."""
    n = y.shape[1] // 2
    z1 = x @ w["w1"] + w["b1"]
    a1 = np.maximum(z1, 0)
    z2 = a1 @ w["w2"] + w["b2"]
    a2 = np.maximum(z2, 0)
    out = (a2 @ w["w3"] + w["b3"]).astype(np.float64)
    logits = out[:, :n] - out[:, :n].max(axis=1, keepdims=True)
    shares = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    # d(cross-entropy)/d(logit) = share * (sum of targets) - target (the returns sum to 1)
    d_logits = shares * y[:, :n].sum(axis=1, keepdims=True) - y[:, :n]
    d_scores = score_weight * 2.0 * (out[:, n:] - y[:, n:]) / n
    d3 = (np.concatenate([d_logits, d_scores], axis=1) / len(x)).astype(np.float32)
    d2 = (d3 @ w["w3"].T) * (z2 > 0)
    return {"w3": a2.T @ d3, "b3": d3.sum(axis=0), **hidden_gradients(w, x, z1, a1, d2)}


@dataclass
class Match:
    """New weights against the current evaluation, seats swapped over the same deals."""
    games: int
    score: float
    low: float
    high: float
    elo: float

    def line(self) -> str:
        return (f"new weights score {self.score:.3f} [{self.low:.3f}, {self.high:.3f}] "
                f"over {self.games} games, Elo {self.elo:+.0f}")


def match_game(task: tuple):
    """Game `index` of a match, A's params in seat a_seat and B's in the others: its outcome."""
    index, a, b, deal, a_seat, players, iterations = task
    team = [make_player(SearchParams(**(a if q == a_seat else b), seed=deal * 10 + q))
            for q in range(players)]
    return play_game(team, ["ismcts"] * players, deal, SearchLimits(iterations=iterations))


def match_job(task: tuple) -> tuple[int, float]:
    """A backend's job: match_game(task); (index, A's return)."""
    return task[0], match_game(task).returns[task[4]]


def match(new_weights: str, current: str, deals: int, players: int, iterations: int, seed: int,
          progress=None, backend: str = "local", concurrency: int = 1,
          ray_address: str | None = None) -> Match:
    """The learned preset with `new_weights` in one seat against it with `current` ("heuristic":
    the static evaluation at the same cutoff) in the others, each deal once per seat; the
    games run `concurrency` at once on `backend`, as generate's do."""
    learned = PRESETS["learned"]
    new = {**learned, "value_weights": job_file(new_weights)}
    old = {**learned, **value_params(str(current))}
    return play_match(new, old, deals, players, iterations, seed, progress, backend, concurrency, ray_address)


def job_file(name, *names: str) -> str:
    """A weights file as a game's params name it for a backend's job: by absolute path, so
    that a worker whose working directory is not this process's (a Ray worker, on this
    machine or another) opens the same file. "" (the shipped weights) and the `names` that
    are no file are kept as they are."""
    name = str(name)
    return name if name in ("", *names) else os.path.abspath(name)


def value_params(value: str) -> dict:
    """The search's parameters for a value: "heuristic" the static evaluation at the cutoff,
    else value_weights (a file, by job_file; "" the shipped one)."""
    return {"leaf_eval": "heuristic"} if value == "heuristic" else {"value_weights": job_file(value)}


def policy_opponent(current: str) -> dict:
    """The search the policy candidate must beat: "uniform" the same PUCT search with 1/n
    priors, "uct" the same search with UCB1 selection (no priors), or PUCT with the weights
    file `current` ("" = the shipped one; by job_file)."""
    if current == "uct":
        return {"selection": "uct"}
    return {"selection": "puct", "policy_weights": job_file(current, UNIFORM_PRIORS)}


def policy_match(candidate: str, current: str, deals: int, players: int, iterations: int,
                 seed: int, progress=None, backend: str = "local", concurrency: int = 1,
                 ray_address: str | None = None) -> Match:
    """The default search with PUCT on the candidate policy (selection=puct,
    policy_weights=candidate) in one seat against policy_opponent(current) in the others,
    each deal once per seat, as the value's match."""
    new = {"selection": "puct", "policy_weights": job_file(candidate)}
    return play_match(new, policy_opponent(current), deals, players, iterations, seed, progress,
                      backend, concurrency, ray_address)


def play_match(new: dict, old: dict, deals: int, players: int, iterations: int, seed: int,
               progress=None, backend: str = "local", concurrency: int = 1,
               ray_address: str | None = None) -> Match:
    """The params `new` in one seat against `old` in the others over `deals` deals, each once
    per seat, at `iterations` per search; the games run `concurrency` at once on `backend`."""
    tasks = [(d * players + a_seat, new, old, seed * 7919 + d, a_seat, players, iterations)
             for d in range(deals) for a_seat in range(players)]
    returns = {}
    with open_backend(backend, match_job, concurrency, ray_address) as games_at:
        for i, won in games_at.run(tasks):
            returns[i] = won
            if progress is not None:
                progress(1)
    games = len(tasks)
    won = 0.0
    for i in range(games):          # summed in the tasks' order, however they finished
        won += returns[i]
    low, high = wilson(won, games)
    return Match(games, won / games, low, high, elo_of(won / games) if players == 2 else float("nan"))


def write_fit(folder: Path, arrays: dict, curve: list) -> Path:
    path = Path(folder) / "candidate.npz"
    save_weights(path, arrays)
    write_text_atomic(Path(folder) / "curve.json", json.dumps(curve, indent=1) + "\n")
    return path


def write_policy_fit(folder: Path, arrays: dict, curve: list) -> tuple[Path, str]:
    """The policy candidate and its curve beside the value's; (path, digest)."""
    path = Path(folder) / "policy-candidate.npz"
    digest = save_policy_weights(path, arrays)
    write_text_atomic(Path(folder) / "policy-curve.json", json.dumps(curve, indent=1) + "\n")
    return path, digest


def plot_curve(curve: list, path: str) -> None:
    """A PNG of the training and validation loss per epoch (needs matplotlib)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    epochs = [p["epoch"] for p in curve]
    ax.plot(epochs, [p["train"] for p in curve], label="training")
    if all(p["validation"] is not None for p in curve):
        ax.plot(epochs, [p["validation"] for p in curve], label="validation (held-out games)")
    kept = [p["epoch"] for p in curve if p.get("kept")]
    if kept:
        ax.axvline(kept[0], color="grey", linestyle=":", label=f"kept (epoch {kept[0]})")
    ax.set_xlabel("epoch")
    ax.set_ylabel("log loss")
    ax.set_title("value model: loss per epoch")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
