"""What the static evaluation credits a recruitment with, against what it is worth (issue 27,
item 4): the evidence behind search/_policy.pyx estimate_scores' view of a recruit.

Positions: every recruit decision (a tile affordable in step 4) of a few 4-player games of
the v26 search preset at a small budget (one search a turn, its line walked), plus the first one
reached from tests/data/hoard-4p.pos. At each, the tile the rollout policy would take:
- credit: the static evaluation's expected score for the recruiting seat after the recruit,
  minus before it;
- worth: the seat's final score after the recruit, minus after `end` (no recruit this turn),
  each the mean of full heuristic playouts from the same seeds (so both sides get the same
  cards and choices where the games agree).
Prints, for the static evaluation `--model` (search/_policy.pyx STATIC_EVALS; default: the
search default), the mean credit and worth, how far apart they are on average, their
correlation, the share of recruits credited with no gain and the share credited with at least
half their worth; the last line is exactly
`credit=<c> worth=<w> error=<e> corr=<r> no_gain=<z> half=<h> n=<n>`.
With --write FILE the decisions and their measured worth are written to FILE (JSON): the
stored expectation of tests/test_static_eval.py (tests/data/recruit-credit-4p.json, made with
the defaults below); with --read FILE they are read from it instead of played again.
Run: python bench/recruit_credit.py [--games 3] [--iterations 1000] [--playouts 96] [--players 4]
     [--model playout|v26] [--write FILE | --read FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from engine.chance import ChanceStream  # noqa: E402
from engine.constants import A_END, A_RECRUIT, S_RECRUIT  # noqa: E402
from common.atomic_write import write_text_atomic  # noqa: E402
from common.files import read_text_file  # noqa: E402
from engine.errors import PalaisError  # noqa: E402
from engine.position import position_to_string, state_from_position  # noqa: E402
from engine.rng import Rng  # noqa: E402
from engine.state import State  # noqa: E402
from search._policy import estimated_scores, mean_playout_scores, policy_playout  # noqa: E402
from search.mcts import MCTSSearch  # noqa: E402
from search.params import STATIC_EVALS, SearchLimits, SearchParams  # noqa: E402

HOARD = Path(__file__).resolve().parent.parent / "tests" / "data" / "hoard-4p.pos"


def recruits(state) -> list:
    return [a for a in state.legal_actions() if A_RECRUIT <= a < A_RECRUIT + 36]


def policy_recruit(state) -> int:
    """The tile search/_policy.pyx choose_recruit takes: the most points, privileges weighed."""
    comps, snap = state.components, state.snapshot()

    def value(action):
        tile = comps.tiles[snap.tile_at[action - A_RECRUIT]]
        bonus = 0
        if tile.privilege_name == "INCOME":
            bonus = 15 * tile.amount
        elif tile.privilege_name == "SUPPLY":
            bonus = 5 * tile.amount
        elif tile.privilege:
            bonus = 20
        return 10 * tile.vp + bonus
    return max(recruits(state), key=lambda a: (value(a), -a))


def decisions(games: int, iterations: int, players: int) -> list:
    """Copies of the states at every recruit decision of `games` games of the v26 search (one
    search a turn, its line walked; pinned, so the positions stay those of the stored file
    whatever today's default), deals 1..games."""
    found = []
    for deal in range(1, games + 1):
        state = State.new_game(players, seed=deal)
        chance = ChanceStream.arena(deal)
        searchers = [MCTSSearch(SearchParams.preset("v26", seed=deal * 10 + q)) for q in range(players)]
        while not state.is_terminal():
            if state.is_chance():
                state.apply(chance.draw(state))
                continue
            seat = state.to_move
            line = searchers[seat].search(state.view(seat), seat, SearchLimits(iterations=iterations)).best_turn
            for action in line or [state.legal_actions()[0]]:
                if state.is_terminal() or state.to_move != seat or state.is_chance() \
                        or action not in state.legal_actions():
                    break
                if state.stage == S_RECRUIT and recruits(state):
                    found.append(state.copy())
                state.apply(action)
    return found


def hoard_decision(players: int):
    """The first recruit decision the rollout policy reaches from the hoarding position."""
    if players != 4:
        return None
    state = state_from_position(HOARD.read_text().strip())
    for _ in range(40):
        probe = state.copy()
        # play the policy one round at a time, then look inside the next turns for a recruit
        policy_playout(probe, ["heuristic"] * 4, Rng(1), until_round=state.round + 1)
        if probe.is_terminal():
            return None
        if probe.stage == S_RECRUIT and recruits(probe):
            return probe
        state = probe
    return None


def credit(state, action: int, model: str = "playout") -> float:
    """What the static evaluation `model` credits the seat to move with for `action`."""
    seat = state.to_move
    took = state.copy()
    took.apply(action)
    return estimated_scores(took, model)[seat] - estimated_scores(state, model)[seat]


def worth(state, action: int, playouts: int) -> float:
    """The seat's mean final score after `action`, minus after `end`, in heuristic playouts."""
    seat = state.to_move
    took, passed = state.copy(), state.copy()
    took.apply(action)
    passed.apply(A_END)
    return mean_playout_scores(took, playouts, 1)[seat] - mean_playout_scores(passed, playouts, 1)[seat]


def summary(pairs) -> dict:
    """Mean credit and worth, mean |credit - worth|, their correlation, the share credited
    with no gain and with at least half the worth, over (credit, worth) pairs."""
    n = len(pairs)
    mc, mw = sum(c for c, _ in pairs) / n, sum(w for _, w in pairs) / n
    cov = sum((c - mc) * (w - mw) for c, w in pairs)
    var = math.sqrt(sum((c - mc) ** 2 for c, _ in pairs) * sum((w - mw) ** 2 for _, w in pairs))
    return {"credit": mc, "worth": mw, "error": sum(abs(c - w) for c, w in pairs) / n,
            "corr": cov / var if var else 0.0, "no_gain": sum(c <= 0 for c, _ in pairs) / n,
            "half": sum(c >= 0.5 * w for c, w in pairs) / n, "n": n}


def read_decisions(path: str) -> list:
    """[(state, action, worth)] from a --write FILE; PalaisError naming the file if unusable."""
    text = read_text_file(path, "recruit-credit file")     # its own one-line error
    try:
        stored = json.loads(text)
        return [(state_from_position(d["position"]), int(d["action"]), float(d["worth"]))
                for d in stored["decisions"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise PalaisError(f"{path}: not a bench/recruit_credit.py file ({exc})") from None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--playouts", type=int, default=96)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--model", default=SearchParams().static_eval, choices=STATIC_EVALS)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--write", metavar="FILE", help="store the decisions and their worth in FILE")
    where.add_argument("--read", metavar="FILE", help="read the decisions and their worth from FILE")
    args = parser.parse_args()
    for name in ("games", "iterations", "playouts"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.read:
        try:
            measured = read_decisions(args.read)
        except (PalaisError, OSError) as exc:
            parser.error(str(exc))
        source = f"from {args.read}"
    else:
        states = decisions(args.games, args.iterations, args.players)
        hoard = hoard_decision(args.players)
        if hoard is not None:
            states.append(hoard)
        measured = [(s, policy_recruit(s), worth(s, policy_recruit(s), args.playouts)) for s in states]
        source = (f"{args.players} players, {args.games} games at {args.iterations} iterations a turn, "
                  f"{args.playouts} playouts a side")
    if not measured:
        sys.exit("no recruit decision found")
    if args.write:
        write_text_atomic(args.write, json.dumps({"made_by": "bench/recruit_credit.py", "settings": {
            "players": args.players, "games": args.games, "iterations": args.iterations,
            "playouts": args.playouts}, "decisions": [
                {"position": position_to_string(s.snapshot()), "action": a, "worth": round(w, 4)}
                for s, a, w in measured]}, indent=0) + "\n")
    m = summary([(credit(s, a, args.model), w) for s, a, w in measured])
    print(f"{m['n']} recruit decisions ({source}), static evaluation {args.model}")
    print(f"mean credit {m['credit']:.2f} VP, mean worth {m['worth']:.2f} VP, off by {m['error']:.2f} VP on "
          f"average, correlation {m['corr']:.2f}; credited with no gain: {m['no_gain']:.2f}; with at least "
          f"half the worth: {m['half']:.2f}")
    print(" ".join(f"{k}={m[k]:.3f}" for k in ("credit", "worth", "error", "corr", "no_gain", "half"))
          + f" n={m['n']}")


if __name__ == "__main__":
    main()
