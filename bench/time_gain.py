"""What more search time changes in a decision: why the strength curve flattens (issue 36, item 4).

At 2 players sixteen times the time (4 s against 250 ms a turn) is worth little Elo, and a
search that sees every card gains no more from it (docs/search.md, "Where the gain from time
goes"). This script looks inside single searches for the reason. From turn starts of games of
the default engine (--play-iterations a turn), at each turn's first decision with three options
or more (along a search's line: bench/tree_shape.py's `first_real_choice`), it searches:
- a reference: --reference iterations (a long search, seed 0), the action it chooses;
- at each budget of --budgets, two searches with other seeds (1 and 2).
It prints per budget, over the positions: how often a search chooses the reference's action,
how often its two seeds choose the same action (the noise floor of one search at that budget),
the root's most visited action's share of the root visits, the decisions walked in the tree
per iteration (how deep an iteration goes before its rollout), and the mean absolute distance of the root's win estimate for the seat from the
reference's.

If the budgets of play (30,000 iterations about 250 ms, 480,000 about 4 s at 2 players)
already choose the long search's action nearly as often as a longer budget does, more time
cannot change many decisions: the curve is flat because the search has converged on what its
evaluation prefers, not because the tree stops short.
`--params` (e.g. `prior_c=1.0`) changes every budget's searches but not the reference: a knob
that makes a short search agree more with the long one lets time buy more.

Run: python bench/time_gain.py [--players 2] [--budgets 30000,120000,480000]
     [--reference 1920000] [--games 2] [--every 3] [--play-iterations 300] [--params K=V,...]
The last line is `agree_ref=<a>,<b>,... same_seed=<a>,<b>,...` in the order of --budgets.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

# bench/search.py is named like the `search` package: keep this folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from engine.errors import PalaisError  # noqa: E402
from search.mcts import MCTSSearch  # noqa: E402
from search.params import SearchLimits, SearchParams, parse_params  # noqa: E402


def _tree_shape():
    """bench/tree_shape.py's game positions and first real choice (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("tree_shape", os.path.join(_HERE, "tree_shape.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one_search(state, seat: int, iterations: int, params: SearchParams) -> dict:
    search = MCTSSearch(params)
    result = search.search(state, seat, SearchLimits(iterations=iterations), top_k=1)
    visits = result.root_visits
    top = max(visits.values()) / max(1, sum(visits.values())) if visits else 1.0
    return {"action": result.best_turn[0] if result.best_turn else None, "top": top,
            "walk": result.node_visits / max(1, result.iterations), "win": result.stats["root_win"][seat]}


def measure(position, budgets: list, reference: int, params: SearchParams, shape) -> dict:
    seat = position.to_move
    line = MCTSSearch(SearchParams(seed=0)).search(position, seat, SearchLimits(iterations=budgets[0])).best_turn
    chooser = shape.first_real_choice(position, seat, line)
    ref = one_search(chooser, seat, reference, SearchParams(seed=0))
    rows = {}
    for budget in budgets:
        runs = [one_search(chooser, seat, budget, params.with_(seed=s)) for s in (1, 2)]
        rows[budget] = {"agree_ref": statistics.mean(r["action"] == ref["action"] for r in runs),
                        "same_seed": float(runs[0]["action"] == runs[1]["action"]),
                        "top": statistics.mean(r["top"] for r in runs),
                        "walk": statistics.mean(r["walk"] for r in runs),
                        "win_drift": statistics.mean(abs(r["win"] - ref["win"]) for r in runs)}
    rows["reference"] = ref
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    ap.add_argument("--budgets", default="30000,120000,480000", help="iterations of the searches compared")
    ap.add_argument("--reference", type=int, default=1_920_000, help="iterations of the long search")
    ap.add_argument("--games", type=int, default=2, help="games whose turn starts are taken (deals 5, 6, ...)")
    ap.add_argument("--every", type=int, default=3, help="take every N-th turn start from round 3 on")
    ap.add_argument("--play-iterations", type=int, default=300, help="iterations a turn of those games")
    ap.add_argument("--params", default="", help="knobs of the compared searches (not the reference)")
    args = ap.parse_args(argv)
    try:
        budgets = [int(b) for b in args.budgets.split(",")]
        params = SearchParams(**parse_params(args.params)) if args.params else SearchParams()
    except (ValueError, PalaisError) as error:
        ap.error(str(error))
    if min(budgets + [args.reference, args.games, args.every, args.play_iterations]) < 1:
        ap.error("--budgets, --reference, --games, --every and --play-iterations take numbers of at least 1")
    shape = _tree_shape()
    started = time.perf_counter()
    positions = [p for g in range(args.games)
                 for p in shape.game_positions(args.players, 5 + g, args.play_iterations, args.every)]
    rows = []
    for k, position in enumerate(positions):
        rows.append(measure(position, budgets, args.reference, params, shape))
        print(f"  position {k + 1}/{len(positions)} (round {position.round}): " + ", ".join(
            f"{b}: ref {rows[-1][b]['agree_ref']:.1f} seeds {rows[-1][b]['same_seed']:.0f}" for b in budgets),
            flush=True)
    print(f"{args.players} players, {len(rows)} positions, reference {args.reference} iterations, "
          f"compared with {args.params or 'the defaults'} ({time.perf_counter() - started:.0f} s):")
    print("| iterations | chooses the reference's action | two seeds agree | root's top action's share of visits "
          "| decisions an iteration walks in the tree "
          "| root win estimate's distance from the reference's |")
    print("|---|---|---|---|---|---|")
    for b in budgets:
        m = {key: statistics.mean(r[b][key] for r in rows) for key in rows[0][b]}
        print(f"| {b:,} | {m['agree_ref']:.3f} | {m['same_seed']:.3f} | {m['top']:.3f} | {m['walk']:.2f} "
              f"| {m['win_drift']:.3f} |")
    ref = {key: statistics.mean(float(r["reference"][key]) for r in rows) for key in ("top", "walk")}
    print(f"| {args.reference:,} (reference) | 1 | - | {ref['top']:.3f} | {ref['walk']:.2f} | 0 |")
    print("agree_ref=" + ",".join(f"{statistics.mean(r[b]['agree_ref'] for r in rows):.3f}" for b in budgets)
          + " same_seed=" + ",".join(f"{statistics.mean(r[b]['same_seed'] for r in rows):.3f}" for b in budgets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
