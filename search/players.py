"""Every search and baseline behind one name: `make_player(params)`.

A player has `search(state, seat=None, limits=None, callback=None, top_k=5)` returning a
SearchResult, and `stop()`, which never blocks. All but "mcts" see only the seat's view (a
full state is turned into the view first); "mcts" searches the true state it is given (the
cheating reference, or analysis with all cards open).
"""

from .baselines import GreedyPlayer, PIMCSearch, RandomPlayer
from .mcts import MCTSSearch
from .parallel import RootParallelSearch
from .params import SearchParams

PLAYERS = {
    "ismcts": MCTSSearch,
    "mcts": MCTSSearch,
    "pimc": PIMCSearch,
    "greedy": GreedyPlayer,
    "random": RandomPlayer,
}


def make_player(params: SearchParams):
    """The player `params.algorithm` names; ismcts/mcts with processes > 1 search root-parallel
    (call close() on it when done, or use it as a context manager)."""
    if params.processes > 1 and params.algorithm in ("ismcts", "mcts"):
        return RootParallelSearch(params, params.processes)
    return PLAYERS[params.algorithm](params)
