"""Every search and baseline behind one name: `make_player(params)`.

The names and their classes are registered in search/algorithms.py; every player answers to
search/player.py's `Player` (search, stop, prepare, close). All but the algorithms registered
with `sees_hidden` ("mcts") see only the seat's view (a full state is turned into the view
first); "mcts" searches the true state it is given (the cheating reference, or analysis with
all cards open).
"""

from .algorithms import REGISTRY
from .parallel import RootParallelSearch
from .params import SearchParams
from .player import BasePlayer, Player

__all__ = ["BasePlayer", "Player", "make_player"]


def make_player(params: SearchParams) -> Player:
    """The player `params.algorithm` names; a tree search with processes > 1 searches
    root-parallel (call close() on it when done, or use it as a context manager)."""
    registered = REGISTRY[params.algorithm]
    if params.processes > 1 and registered.tree_search:
        return RootParallelSearch(params, params.processes)
    return registered.player_class()(params)

