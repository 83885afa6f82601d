"""Where a search tree's nodes are: the searching seat's own decisions, or the other seats'.

Why this exists: at 4 players the default engine and PIMC (8 worlds, the same evaluation)
score the same share of first places, at 0.1 s and at 1 s a turn (docs/search.md). This
script measures how far each one's tree reaches past the searching seat's own turn.

For each player count it plays one game with the default engine in every seat (--play-iterations
a turn, deal --seed) to collect positions as real play reaches them (cards in hands, a
working economy), takes every --every-th turn start from round 3 on, and searches each one:
- ISMCTS (the default parameters) for --iterations;
- one PIMC world: the seat's view determinized, searched by perfect-information MCTS for
  --iterations / --worlds (a PIMC search gives each world that share of the budget).
It prints, per player count and searcher, the mean over positions of: the share of tree nodes
at which the searching seat decides, the share of the other seats' nodes taken by two
iterations or more, and the decisions walked per iteration; and the mean number of cards in
the other seats' hands. Then how often two searches choose the same action at the turn's
first decision with three options or more (along ISMCTS's line): ISMCTS against ISMCTS with
another seed (the noise floor of one search), and ISMCTS against a whole PIMC search
(--worlds worlds, --iterations in all). The last line is
`own_share_4p=<ISMCTS's share at 4 players> pimc_own_share_4p=<the PIMC world's>
same_seed_agree_4p=<a> pimc_agree_4p=<b>`.
Run: python bench/tree_shape.py [--iterations 30000] [--players 2,3,4] [--every 4] [--worlds 8]
     [--play-iterations 300] [--seed 5]
"""

import argparse
import os
import sys

# bench/search.py is named like the `search` package: keep this folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from engine.rng import Rng
from search.factory import make_player
from search.baselines import PIMCSearch
from search.mcts import MCTSSearch
from search.params import SearchLimits, SearchParams
from search.selfplay import play_game


def game_positions(n_players: int, seed: int, iterations: int, every: int) -> list:
    """Every `every`-th turn start from round 3 on, of one game of the default engine."""
    starts = []
    players = [make_player(SearchParams(seed=seed * 10 + q)) for q in range(n_players)]
    play_game(players, ["ismcts"] * n_players, seed, SearchLimits(iterations=iterations),
              on_turn=lambda state: starts.append(state.copy()))
    return [s for s in starts if s.round >= 3][::every]


def shape(tree, seat: int, iterations: int, node_visits: int) -> tuple:
    """(own share of nodes, revisited share of the other seats' nodes, decisions per iteration)."""
    counts = tree.seat_nodes()
    own = counts["nodes"][seat]
    others = sum(counts["nodes"]) - own
    revisited = sum(counts["revisited"]) - counts["revisited"][seat]
    return (own / max(1, own + others), revisited / others if others else 0.0,
            node_visits / max(1, iterations))


def measure(position, iterations: int, worlds: int, seed: int) -> dict:
    seat = position.to_move
    limits = SearchLimits(iterations=iterations)
    ismcts = MCTSSearch(SearchParams(seed=seed))
    result = ismcts.search(position, seat, limits)
    world = position.view(seat).determinize(seat, Rng(seed))
    pimc = MCTSSearch(SearchParams(algorithm="mcts", seed=seed))
    world_result = pimc.search(world, seat, SearchLimits(iterations=max(1, iterations // worlds)))
    chooser = first_real_choice(position, seat, result.best_turn)
    mine = result if chooser is position else MCTSSearch(SearchParams(seed=seed)).search(chooser, seat, limits)
    other_seed = MCTSSearch(SearchParams(seed=seed + 1000)).search(chooser, seat, limits)
    whole_pimc = PIMCSearch(SearchParams(algorithm="pimc", determinizations=worlds, seed=seed))
    pimc_choice = whole_pimc.search(chooser, seat, limits)
    hands = [sum(h) for q, h in enumerate(position.snapshot().hand) if q != seat]
    return {"ismcts": shape(ismcts.last_tree, seat, result.iterations, result.node_visits),
            "pimc": shape(pimc.last_tree, seat, world_result.iterations, world_result.node_visits),
            "hand": sum(hands) / len(hands),
            "same_seed_agree": mine.best_turn[:1] == other_seed.best_turn[:1],
            "pimc_agree": mine.best_turn[:1] == pimc_choice.best_turn[:1]}


def first_real_choice(position, seat: int, line: list):
    """The first decision of `seat`'s turn with three options or more, along `line` (the
    search's best turn); `position` itself if none comes (or it is one):
    a card window's "continue" or a lone "end" is no test of two searches agreeing."""
    state = position.copy()
    for action in line:
        if len(state.legal_actions()) >= 3:
            break
        state.apply(action)
        if state.is_terminal() or state.is_chance() or state.to_move != seat:
            return position
    return state


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30_000,
                        help="ISMCTS iterations per position (about the first decision of a 1 s turn at 4 players)")
    parser.add_argument("--worlds", type=int, default=SearchParams().determinizations,
                        help="PIMC's worlds: one world is searched with iterations / worlds")
    parser.add_argument("--players", default="2,3,4", help="player counts, comma-separated")
    parser.add_argument("--play-iterations", type=int, default=300, help="iterations a turn of the game that makes the positions")
    parser.add_argument("--every", type=int, default=4, help="take every N-th turn start")
    parser.add_argument("--seed", type=int, default=5, help="the deal of each game")
    args = parser.parse_args()
    try:
        counts = [int(p) for p in args.players.split(",")]
    except ValueError:
        parser.error(f"--players: expected numbers like 2,3,4, got {args.players!r}")
    if (any(n not in (2, 3, 4) for n in counts) or min(args.iterations, args.worlds, args.every,
                                                       args.play_iterations) < 1 or args.seed < 0):
        parser.error("--players takes 2, 3 and 4; --iterations, --worlds, --every and --play-iterations "
                     "at least 1; --seed at least 0")
    last = {}
    for n in counts:
        rows = [measure(p, args.iterations, args.worlds, k + 1)
                for k, p in enumerate(game_positions(n, args.seed, args.play_iterations, args.every))]
        if not rows:
            parser.error(f"the {n}-player game gave no turn start from round 3 on: a smaller --every, or another --seed")
        hand = sum(r["hand"] for r in rows) / len(rows)
        for who in ("ismcts", "pimc"):
            own, revisited, depth = (sum(r[who][i] for r in rows) / len(rows) for i in range(3))
            budget = args.iterations if who == "ismcts" else args.iterations // args.worlds
            print(f"{n} players, {who:6} ({budget} iterations, {len(rows)} positions): "
                  f"own decisions {own:.3f} of the nodes, other seats' nodes revisited {revisited:.3f}, "
                  f"{depth:.2f} decisions an iteration; other seats hold {hand:.1f} cards")
            last[(n, who)] = own
        for what, text in (("same_seed_agree", "ISMCTS and ISMCTS with another seed"),
                           ("pimc_agree", "ISMCTS and PIMC")):
            last[(n, what)] = sum(r[what] for r in rows) / len(rows)
            print(f"{n} players: {text} choose the same action in {last[(n, what)]:.3f} of the positions")
    if 4 in counts:
        print(f"own_share_4p={last[(4, 'ismcts')]:.3f} pimc_own_share_4p={last[(4, 'pimc')]:.3f} "
              f"same_seed_agree_4p={last[(4, 'same_seed_agree')]:.3f} pimc_agree_4p={last[(4, 'pimc_agree')]:.3f}")


if __name__ == "__main__":
    main()
