"""Every search algorithm, registered once: its name, where its player class lives, and what
callers must know about it.

Every list of algorithms is derived from here: `SearchParams.algorithm`'s choices, the PRI
`Algorithm` option, `palais play`'s seat kinds, the page's built-in players, `make_player`
(search/factory.py), docs/search.md's table (from `help`) and the English of the page's
player menu (from `label` and `summary`, written into web/locale/en by `python -m web.i18n
update`). A new algorithm is one module with a player class (search/player.py) plus one
`register` below (and the French and Chinese of its label and summary in web/locale).

The class is named as "module:Class" inside the search package and imported only when a
player is made, so this module (and search/params.py, which reads the names) stays free of
the compiled search code.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class Algorithm:
    name: str
    player: str                  # "module:Class" in the search package; the class takes (params)
    sees_hidden: bool = False    # searches the true state it is given (needs it: no palais play seat)
    tree_search: bool = False    # keeps a tree: runs root-parallel with processes > 1 and may
                                 # search decision by decision (decision_share > 0)
    help: str = ""               # what it is, for people (docs/search.md's table)
    label: str = ""              # the page's English name and one line for a player choosing it
    summary: str = ""            # (web/i18n.py english_labels: "player:NAME", "player-help:NAME")

    def player_class(self):
        module, _, name = self.player.partition(":")
        return getattr(import_module(f".{module}", __package__), name)


REGISTRY: dict = {}


def register(name: str, player: str, *, sees_hidden: bool = False, tree_search: bool = False,
             help: str = "", label: str = "", summary: str = "") -> Algorithm:
    """One algorithm. One that searches the seat's own view (not `sees_hidden`) is a built-in
    player of `palais play` and the page, and needs the `label` and `summary` the page shows."""
    if name in REGISTRY:
        raise ValueError(f"search algorithm {name!r} is registered twice")
    if not sees_hidden and not (label and summary):
        raise ValueError(f"search algorithm {name!r}: a player of the seat's view needs a label and a summary")
    REGISTRY[name] = Algorithm(name, player, sees_hidden, tree_search, help, label, summary)
    return REGISTRY[name]


def algorithm(name: str) -> Algorithm | None:
    """The registration of `name`, or None if no algorithm has that name."""
    return REGISTRY.get(name)


# `help` is the algorithm's row in docs/search.md's table ("Algorithms"), written from here by
# `python tests/doc_tables.py --regenerate` (tests/test_doc_tables.py fails while it differs).
register("ismcts", "mcts:MCTSSearch", tree_search=True, label="ISMCTS engine",
         summary="Information-set Monte Carlo tree search on the seat's own view: the engine.",
         help="Information-Set MCTS (single observer, after Cowling, Powley & Whitehouse 2012). "
              "Each iteration deals the unknown cards afresh from the seat's view (`determinize`). "
              "Nodes are keyed by the acting seat's information-set key (`info_key`), so different "
              "orders of stairway moves that reach the same position share a node. Edges keep their "
              "own visit and availability counts apart from the node's. UCB1 uses the mean reward of "
              "the acting seat's component of the reward vector (max^n).")
register("mcts", "mcts:MCTSSearch", sees_hidden=True, tree_search=True,
         help="The same loop on the true state, with no determinization: perfect-information MCTS. "
              "Use it for analysis with all cards open, and as the \"cheating\" reference.")
register("pimc", "baselines:PIMCSearch", label="PIMC engine",
         summary="Flat Monte Carlo over sampled deals of the hidden cards.",
         help="Flat determinized Monte Carlo. `determinizations` worlds share the budget; each is "
              "searched with perfect-information MCTS, and the root statistics are added up by action.")
register("greedy", "baselines:GreedyPlayer", label="Greedy player",
         summary="Looks one turn ahead with the heuristic policy.",
         help="One-turn lookahead. For each legal action it finishes the turn with the heuristic "
              "policy and keeps the action with the best estimated score margin.")
register("random", "baselines:RandomPlayer", help="A uniformly random legal action.",
         label="Random player", summary="A uniformly random legal action.")

ALGORITHMS = tuple(REGISTRY)
# Those that play from the seat's own view: a seat of `palais play`, where no true state is shown.
VIEW_ALGORITHMS = tuple(name for name, registered in REGISTRY.items() if not registered.sees_hidden)
