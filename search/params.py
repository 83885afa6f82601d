"""The knobs of every search, in one place: one declaration per parameter (SearchParams' fields
with their Knob: type, default, range or choices, PRI option name, help), and the limits.

A search is reproducible: the same params (seed included), position and iteration limit give
the same result on one machine. Time limits depend on the machine's speed, by nature.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from common.memory import available_memory_bytes
from common.numbers import MAX_DIGITS, decimal, integer, shown
from engine.errors import PalaisError

from .algorithms import ALGORITHMS

ROLLOUT_POLICIES = ("heuristic", "uniform")
REWARDS = ("win", "margin", "dynamic", "adaptive")
FIRST_PLAYS = ("random", "policy")
SELECTIONS = ("uct", "puct", "gumbel")
# policy_weights: this word means 1/n priors from no file ("" is the shipped weights file).
UNIFORM_PRIORS = "uniform"
# The selection values under which a search uses priors (and may load policy weights).
USES_PRIORS = ("puct", "gumbel")
LEAF_EVALS = ("auto", "heuristic", "value")
STATIC_EVALS = ("playout", "v26")         # search/_policy.pyx STATIC_EVALS, the same order
# The shipped value weights (search/data/, docs/train.md): value_weights "" means the file for
# the game's player count. value-2p.npz (5c15de319da1) and value-3p.npz (ebe7702cc36e) are the
# bests of training in generations at 2 and 3 players (docs/train.md); value-4p.npz
# (439423d8cf61), fitted on self-play of the PUCT engine, is 4 players'; value.npz
# (6f474a8b4123) is the file before them, which the presets v26 .. v28 name at every count.
# Every file is free of subnormal values (docs/search.md, "Subnormals").
SHIPPED_DATA = Path(__file__).resolve().parent / "data"
SHIPPED_VALUE = SHIPPED_DATA / "value.npz"
SHIPPED_VALUE_BY_PLAYERS = {2: SHIPPED_DATA / "value-2p.npz", 3: SHIPPED_DATA / "value-3p.npz",
                            4: SHIPPED_DATA / "value-4p.npz"}
# The shipped policy head (docs/train.md, "The shipped policy"): policy_weights "" means the
# file for the game's player count, policy.npz where none of its own is shipped.
SHIPPED_POLICY = SHIPPED_DATA / "policy.npz"
SHIPPED_POLICY_BY_PLAYERS = {2: SHIPPED_DATA / "policy-2p.npz", 3: SHIPPED_DATA / "policy-3p.npz"}


def shipped_value_path(n_players: int | None = None) -> Path:
    """The shipped value weights of an `n_players` game (None: value.npz, the presets' file)."""
    return SHIPPED_VALUE_BY_PLAYERS.get(n_players, SHIPPED_VALUE)


def shipped_policy_path(n_players: int | None = None) -> Path:
    """The shipped policy weights of an `n_players` game (None: policy.npz)."""
    return SHIPPED_POLICY_BY_PLAYERS.get(n_players, SHIPPED_POLICY)


# leaf_eval=auto: the player counts at which the shipped value model was measured to beat
# full heuristic rollouts (docs/train.md: 2, 3 and 4 players since the weights trained on
# 3,100 self-play games; the earlier ones, on 900, only scored the equal share with 4); and
# the rounds a rollout plays before the value evaluates with value_turns 0: two rounds, so
# the searching seat's next turn is played out at every player count (4 turns with 2
# players, like the default value_turns 4, which with 4 players cuts the rollout as the
# seat's next turn begins: docs/search.md, "The value's horizon").
AUTO_VALUE_PLAYERS = (2, 3, 4)
VALUE_ROUNDS = 2


def value_rollout_turns(n_players: int) -> int:
    """The turns a rollout plays before the value evaluates with value_turns 0: VALUE_ROUNDS rounds."""
    return VALUE_ROUNDS * n_players


# The leaf_eval values under which a search may load and use the value model.
USES_VALUE = ("value", "auto")
MAX_PATH_CHARS = 4096


@dataclass(frozen=True)
class Knob:
    """One search parameter as every front end sees it: the SearchParams field `name`, its
    type (that of the default), its range (low/high, None: open; low_open: low itself is
    refused) or choices, its PRI option name (None: not a PRI option) and one line of help.
    `read` turns text into a value; `problem` says why a value is refused (None if it is not)."""

    name: str
    default: object
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple = ()
    pri: str | None = None
    words: tuple = ()          # (word, value) pairs: a word that reads as a value ("auto" -> 0)

    @property
    def kind(self) -> type:
        return type(self.default)

    def range_text(self) -> str:
        low, high = self.low, self.high
        if not self.low_open and high is not None:
            return f"{low}..{high}"
        if not self.low_open:
            return f"{low}.."
        return f"({low}, {'inf)' if high is None else f'{high}]'}"

    def read(self, text: str):
        """The value `text` spells (not checked against the range); ValueError(why) if none."""
        if text is None:
            raise ValueError("needs a value")
        text = str(text).strip()
        for word, value in self.words:
            if text.lower() == word:
                return value
        if self.kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"expected true or false, got {text!r}")
            return text.lower() in ("true", "1")
        if self.kind is int:           # ASCII digits only (common/numbers.py), as every reader
            value = integer(text)
            if value is None:
                raise ValueError(f"expected a whole number, got {shown(text)}")
            if abs(value) >= 10 ** MAX_DIGITS:         # too long to be in any range
                raise ValueError(f"{shown(text)} is out of range (more than {MAX_DIGITS} digits)")
            return value
        if self.kind is float:
            value = decimal(text)
            if value is None:
                raise ValueError(f"expected a number, got {shown(text)}")
            return value
        return text

    def problem(self, value) -> str | None:
        """Why `value` is not a value of this knob, or None."""
        if self.choices:
            return None if value in self.choices else f"{value!r} is not one of {', '.join(self.choices)}"
        if self.kind is bool:
            return None if isinstance(value, bool) else f"expected true or false, got {value!r}"
        if self.kind is str:         # a file name: the file itself is checked where it is read
            if not isinstance(value, str):
                return f"expected text, got {value!r}"
            return None if len(value) <= MAX_PATH_CHARS and "\0" not in value else "not a usable file name"
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return f"expected a number, got {value!r}"
        if self.kind is int and not isinstance(value, numbers.Integral):
            return f"expected a whole number, got {value!r}"
        above_low = self.low is None or (value > self.low if self.low_open else value >= self.low)
        if not (above_low and (self.high is None or value <= self.high)):    # NaN is refused too
            return f"{value!r} is outside {self.range_text()}"
        return None


def knob(default, help: str, **limits):
    """A SearchParams field declared with its Knob (the name comes from the field)."""
    return field(default=default, metadata={"knob": dict(default=default, help=help, **limits)})


@dataclass(frozen=True)
class SearchParams:
    """Every knob of a search, declared once: the fields below are the table (type, default,
    range or choices, PRI option name, help). The PRI options (protocol/engine.py) and the
    NAME=VALUE parameters of bench/tune.py are derived from it (KNOBS)."""

    algorithm: str = knob("ismcts", "the player (search/algorithms.py)",
                          choices=ALGORITHMS, pri="Algorithm")
    processes: int = knob(1, "ismcts/mcts: root-parallel search over this many processes",
                          low=1, high=64, pri="Processes")
    hash_mb: int = knob(0, "tree memory bound in MiB (like UCI's Hash; a full tree stops growing) | 0 or auto: sized from the search's own budget (search/treesize.py)",
                        low=0, high=65536, pri="Hash", words=(("auto", 0),))
    seed: int = knob(0, "seeds every random choice of the search", low=0, pri="Seed")
    exploration: float = knob(0.7, "UCB1 exploration constant c (rewards are in [0, 1])",
                              low=0, high=10, pri="Exploration")
    rollout_policy: str = knob("heuristic", "heuristic (keeps an economy going) | uniform (stalls: see RULES.md §7)",
                               choices=ROLLOUT_POLICIES, pri="Rollout Policy")
    rollout_turns: int = knob(-1, "-1: to the end of the game with the heuristic evaluation (strongest for it at equal time: docs/search.md), value_turns with the value | N: N turns, then evaluate (leaf_eval)",
                              low=-1, high=1000, pri="Rollout Turns")
    value_turns: int = knob(4, "with the learned value and rollout_turns -1: the turns a rollout plays before the value evaluates; 0 = two rounds (2 turns per player), so the searching seat's next turn is played (4 players: a third less gold left unspent, but fewer first places: docs/search.md)",
                            low=0, high=1000)
    leaf_eval: str = knob("auto", "the evaluation at a rollout cutoff (rollout_turns >= 0): heuristic (the static evaluation's softmax) | value (the learned value model: docs/train.md) | auto (value at the player counts where the shipped weights were measured to beat full rollouts: today 2, 3 and 4; heuristic elsewhere)",
                          choices=LEAF_EVALS, pri="Leaf Eval")
    value_weights: str = knob("", "with leaf_eval=value: the weights file (.npz), \"\" = the shipped one of the game's player count (docs/train.md)",
                              pri="Value Weights")
    eval_temperature: float = knob(8.0, "VP scale of the softmax that turns estimated scores into rewards",
                                   low=0, low_open=True)
    static_eval: str = knob("playout", "the static evaluation (expected final scores: the margin reward, reward=adaptive's switch, a rollout's cutoff with leaf_eval=heuristic): playout (each unit of the economy worth what heuristic playouts measured it to add: search/_policy.pyx) | v26 (the hand-set weights before)",
                            choices=STATIC_EVALS)
    reward: str = knob("adaptive", "win: 1 shared among the winners | margin: blended with the VP margin over the best other seat | dynamic: the margin centred on the static evaluation's expectation | adaptive: win, or margin once the static evaluation says the win is decided",
                       choices=REWARDS)
    margin_weight: float = knob(0.5, "with reward=margin/dynamic: the weight of the margin part",
                                low=0, high=1)
    margin_scale: float = knob(30.0, "with reward=margin/dynamic: the VP margin that earns 3/4 of the margin part",
                               low=0, low_open=True, high=1000)
    first_play: str = knob("policy", "which untried action a node tries first: policy (the rollout policy's choice, then random) | random",
                           choices=FIRST_PLAYS)
    selection: str = knob("puct", "how the tree picks an edge: uct (UCB1 on the edge's mean reward and availability) | puct (the mean reward plus prior_c x the policy's prior, AlphaZero-style) | gumbel (PUCT below a root that samples gumbel_k actions by Gumbel-top-k and shares the budget among them by sequential halving: docs/search.md)",
                          choices=SELECTIONS, pri="Selection")
    prior_c: float = knob(0.5, "with selection=puct/gumbel: the PUCT constant c of Q + c P sqrt(avail) / (1 + N) (rewards are in [0, 1])",
                          low=0, high=100, pri="Prior C")
    policy_weights: str = knob("", "with selection=puct/gumbel: the priors: \"\" = the shipped policy weights of the game's player count (search/data/policy-2p.npz, policy-3p.npz; policy.npz for 4) | uniform (1/n, no file) | a weights file (.npz)",
                               pri="Policy Weights")
    gumbel_k: int = knob(16, "with selection=gumbel: the actions the root samples (Gumbel-top-k; all of them if fewer are legal)",
                         low=1, high=96, pri="Gumbel K")
    gumbel_scale: float = knob(1.0, "with selection=gumbel: the scale of the Gumbel noise on the root's log-priors (0 = none: the k most likely actions, deterministic)",
                               low=0, high=10, pri="Gumbel Scale")
    decision_share: float = knob(0.5, "a turn's budget: 0 = one search, its line played | x = a search at each decision with x of what is left (search/timeman.py)",
                                 low=0, high=1, pri="Decision Share")
    reuse_tree: bool = knob(True, "a search from a position the last search's tree holds goes on with that subtree")
    determinizations: int = knob(8, "pimc: how many worlds share the budget", low=1, high=1024)

    def __post_init__(self):
        for k in KNOBS:
            why = k.problem(getattr(self, k.name))
            if why is not None:
                raise PalaisError(f"{k.name}: {why}")

    def with_(self, **changes) -> "SearchParams":
        return replace(self, **changes)

    def for_players(self, n_players: int) -> "SearchParams":
        """These parameters as a search of an `n_players` game uses them: leaf_eval=auto
        becomes value where the shipped model was measured to win (AUTO_VALUE_PLAYERS), heuristic
        elsewhere; the value cuts rollouts after value_turns turns (0: value_rollout_turns, two
        rounds) unless rollout_turns sets a cutoff (a rollout to the end would never ask it);
        value_weights "" becomes the shipped file of that player count (shipped_value_path), and
        so does policy_weights "" under selection that uses priors (shipped_policy_path)."""
        leaf = self.leaf_eval
        if leaf == "auto":
            leaf = "value" if n_players in AUTO_VALUE_PLAYERS else "heuristic"
        turns = self.rollout_turns
        if leaf == "value" and turns < 0:
            turns = self.value_turns or value_rollout_turns(n_players)
        weights = self.value_weights
        if leaf == "value" and not weights and n_players in SHIPPED_VALUE_BY_PLAYERS:
            weights = str(shipped_value_path(n_players))
        priors = self.policy_weights
        if self.selection in USES_PRIORS and not priors and n_players in SHIPPED_POLICY_BY_PLAYERS:
            priors = str(shipped_policy_path(n_players))
        if ((leaf, turns, weights, priors)
                == (self.leaf_eval, self.rollout_turns, self.value_weights, self.policy_weights)):
            return self
        return replace(self, leaf_eval=leaf, rollout_turns=turns, value_weights=weights, policy_weights=priors)

    @classmethod
    def preset(cls, name: str, **changes) -> "SearchParams":
        """The named set of defaults (PRESETS), with `changes` on top."""
        if name not in PRESETS:
            raise PalaisError(f"search preset {name!r} is not one of {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], **changes})


KNOBS = tuple(Knob(name=f.name, **f.metadata["knob"]) for f in fields(SearchParams))


# Named sets of defaults, so an earlier engine stays reachable for comparisons (bench/tune.py
# `--b preset=classic`): "current" is today's defaults; "classic" the defaults before the
# reward kept direction for a seat that can no longer win (the 0/1 win reward) and before the
# learned value; "heuristic" today's defaults with full heuristic rollouts at every player
# count (no learned value); "learned" the learned value model at a short rollout's cutoff at
# every player count (docs/train.md; `palais-engine --weights`); "v26" the defaults the
# session of issue 27's items 2, 4 and 5 started from (the old value of every default it changed);
# "v27" the defaults the next session (issue 27's items 3 and 4: PUCT, the playout evaluation)
# started from; "v28" the defaults the session after started from (before the 4-player value
# weights). The three keep the 2-3-player value weights at every player count, as they had.
PRESETS = {
    "current": {},
    "classic": {"reward": "win", "margin_scale": 8.0, "reuse_tree": False, "decision_share": 0.0,
                "leaf_eval": "heuristic", "static_eval": "v26", "selection": "uct"},
    "heuristic": {"leaf_eval": "heuristic"},
    "learned": {"leaf_eval": "value"},
    "v26": {"hash_mb": 64, "decision_share": 0.0, "static_eval": "v26", "selection": "uct",
            "value_weights": str(SHIPPED_VALUE)},
    "v27": {"static_eval": "v26", "selection": "uct", "value_weights": str(SHIPPED_VALUE)},
    "v28": {"value_weights": str(SHIPPED_VALUE), "policy_weights": str(SHIPPED_POLICY)},
}


def tree_memory_cap_mb(processes: int = 1) -> int:
    """The most tree memory (`hash_mb`) each of `processes` search processes may take on this
    machine: half its memory, shared among them; at least 1. Every process allocates its own
    tree, and the other half is left to everything else. Its memory is the physical memory,
    or less where a sandbox says so (common/memory.py)."""
    total = available_memory_bytes()
    return max(1, (total // 2 // max(1, processes)) >> 20)


@dataclass(frozen=True)
class SearchLimits:
    """When a search stops: the first limit reached, or stop(). None means no such limit."""

    iterations: int | None = None      # iterations (one determinization + one rollout each)
    visits: int | None = None          # node visits: tree decisions walked, summed over iterations
                                       # (PRI's `go nodes`; not the tree's node count)
    time_ms: float | None = None       # wall time
    infinite: bool = False             # only stop() ends it

    def __post_init__(self):
        for name in ("iterations", "visits", "time_ms"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise PalaisError(f"search limit {name} must be > 0")
        if not self.infinite and self.iterations is None and self.visits is None and self.time_ms is None:
            raise PalaisError("a search needs a limit: iterations, visits, time_ms or infinite")


# Knobs a harness sets itself (each game's seeds, in-process players): not given by NAME=VALUE.
HARNESS_KNOBS = ("seed", "processes")


def parse_params(text: str, *, what: str = "search parameter") -> dict:
    """`reward=margin,exploration=0.5` -> keyword arguments of SearchParams, each read and
    checked by its knob (KNOBS, but for HARNESS_KNOBS); `preset=NAME` starts from a named
    set of defaults (PRESETS) under the other items. The command lines that take search
    parameters (bench/tune.py --a/--b, palais play --seat ismcts:...) read them here."""
    by_name = {k.name: k for k in KNOBS if k.name not in HARNESS_KNOBS}
    out = {}
    for item in (i.strip() for i in text.split(",") if i.strip()):
        name, eq, value = item.partition("=")
        if name == "preset" and eq:
            if value not in PRESETS:
                raise PalaisError(f"{item[:60]!r}: no such preset ({', '.join(PRESETS)})")
            out = {**PRESETS[value], **out}
            continue
        knob = by_name.get(name)
        if not eq or knob is None:
            raise PalaisError(f"{item[:60]!r}: expected NAME=VALUE with NAME a {what} "
                              f"({', '.join(by_name)})")
        try:
            out[name] = knob.read(value)
        except ValueError as exc:
            raise PalaisError(f"{name}: {exc}") from None
        why = knob.problem(out[name])
        if why is not None:
            raise PalaisError(f"{name}: {why}")
    SearchParams(**out)
    return out
