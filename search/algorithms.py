"""Every search algorithm, registered once: its name, where its player class lives, and what
callers must know about it.

Every list of algorithms is derived from here: `SearchParams.algorithm`'s choices, the PRI
`Algorithm` option, `palais play`'s seat kinds, and `make_player` (search/factory.py). A new
algorithm is one module with a player class (search/player.py) plus one `register` line below.

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
    help: str = ""

    def player_class(self):
        module, _, name = self.player.partition(":")
        return getattr(import_module(f".{module}", __package__), name)


REGISTRY: dict = {}


def register(name: str, player: str, *, sees_hidden: bool = False, tree_search: bool = False,
             help: str = "") -> Algorithm:
    if name in REGISTRY:
        raise ValueError(f"search algorithm {name!r} is registered twice")
    REGISTRY[name] = Algorithm(name, player, sees_hidden, tree_search, help)
    return REGISTRY[name]


def algorithm(name: str) -> Algorithm | None:
    """The registration of `name`, or None if no algorithm has that name."""
    return REGISTRY.get(name)


register("ismcts", "mcts:MCTSSearch", tree_search=True,
         help="Information-Set MCTS on the seat's view (the engine)")
register("mcts", "mcts:MCTSSearch", sees_hidden=True, tree_search=True,
         help="perfect-information MCTS on the true state (the cheating reference, open analysis)")
register("pimc", "baselines:PIMCSearch", help="flat determinized Monte Carlo")
register("greedy", "baselines:GreedyPlayer", help="one-turn lookahead with the heuristic policy")
register("random", "baselines:RandomPlayer", help="a uniformly random legal action")

ALGORITHMS = tuple(REGISTRY)
# Those that play from the seat's own view: a seat of `palais play`, where no true state is shown.
VIEW_ALGORITHMS = tuple(name for name, registered in REGISTRY.items() if not registered.sees_hidden)
