"""The tree's use of priors (issue 27 item 3): PUCT selection and the Gumbel root with
sequential halving, checked against Python references of the formulas docs/search.md gives,
and their knobs at every end (SearchParams, bench/tune.py's NAME=VALUE, PRI)."""

import math
import random
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from engine.errors import PalaisError
from engine.rng import Rng
from engine.state import State
from search._ismcts import TreeSearch, puct_pick
from search.mcts import MCTSSearch, new_tree
from search.params import SearchLimits, SearchParams, parse_params
from search.positions import midgame

from helpers import ServerSession

C_VISIT, C_SCALE, FPU_NO_VISIT = 50.0, 1.0, 0.5


# ----------------------------------------------------------------------------- PUCT
def puct_reference(visits, avail, rewards, priors, legal_mask, c):
    """The edges (indices) maximising docs/search.md's PUCT formula; avail counts this iteration."""
    legal = [i for i, ok in enumerate(legal_mask) if ok]
    visited = [i for i in legal if visits[i] > 0]
    pooled = sum(visits[i] for i in visited)
    fpu = sum(float(np.float32(rewards[i])) for i in visited) / pooled if pooled else FPU_NO_VISIT
    psum = sum(float(np.float32(priors[i])) for i in legal)
    scores = {}
    for i in legal:
        q = float(np.float32(rewards[i])) / visits[i] if visits[i] else fpu
        p = float(np.float32(priors[i])) / psum
        scores[i] = q + c * p * math.sqrt(avail[i] + 1) / (1 + visits[i])
    best = max(scores.values())
    return {i for i, v in scores.items() if v == best}


def crafted_edges(rnd, n, uniform=True):
    actions = sorted(rnd.sample(range(200), n))
    visits = [rnd.choice([0, 0, 1, 2, 5, 17, 40, 200]) for _ in range(n)]
    avail = [v + rnd.randrange(0, 60) for v in visits]
    rewards = [v * rnd.random() for v in visits]
    priors = [1.0 / n] * n if uniform else list(np.random.default_rng(rnd.randrange(1 << 30)).dirichlet([0.5] * n))
    return actions, visits, avail, rewards, priors


@pytest.mark.parametrize("uniform", [True, False])
def test_puct_selects_as_the_documented_formula_on_crafted_edge_statistics(uniform):
    rnd = random.Random(27)
    for case in range(400):
        n = rnd.randrange(1, 20)
        actions, visits, avail, rewards, priors = crafted_edges(rnd, n, uniform)
        mask = [rnd.random() < 0.8 for _ in range(n)]
        if not any(mask):
            mask[rnd.randrange(n)] = True
        legal = [a for a, ok in zip(actions, mask) if ok]
        c = rnd.choice([0.0, 0.3, 1.0, 2.5, 10.0])
        chosen, avail_after = puct_pick(1, actions, visits, avail, rewards, priors, legal, c, seed=case + 1)
        expected = puct_reference(visits, avail, rewards, priors, mask, c)
        assert actions.index(chosen) in expected, (case, chosen, expected)
        # every legal edge's availability counts the iteration, no other's
        assert avail_after == [a + ok for a, ok in zip(avail, mask)]


def test_puct_tries_the_rollout_policys_choice_first_while_it_is_unvisited():
    actions, visits, avail = [3, 5, 9], [10, 0, 0], [10, 10, 10]
    rewards, priors = [9.0, 0.0, 0.0], [1 / 3] * 3
    # the formula takes the visited edge (Q 0.9 + small bonus against fpu 0.9 + bigger bonus: action 5 or 9)
    assert puct_pick(0, actions, visits, avail, rewards, priors, actions, 1.0, preferred=9)[0] == 9
    assert puct_pick(0, actions, visits, avail, rewards, priors, actions, 1.0, preferred=5)[0] == 5
    # a visited preferred action, or one not legal now, gets no such turn
    chosen = puct_pick(0, actions, visits, avail, rewards, priors, actions, 0.0, preferred=3)[0]
    assert chosen in (3, 5, 9) and chosen == puct_pick(0, actions, visits, avail, rewards, priors, actions, 0.0)[0]
    assert puct_pick(0, actions, visits, avail, rewards, priors, [3, 5], 1.0, preferred=9)[0] in (3, 5)


def test_puct_renormalises_priors_over_the_legal_edges():
    # priors 0.8 / 0.1 / 0.1; with the 0.8 edge illegal the other two share all the mass
    actions, visits, avail = [1, 2, 3], [0, 4, 4], [4, 4, 4]
    rewards, priors = [0.0, 2.0, 2.0], [0.8, 0.1, 0.1]
    for c in (0.5, 2.0):
        mask = [False, True, True]
        chosen, _ = puct_pick(0, actions, visits, avail, rewards, priors, [2, 3], c, seed=5)
        assert actions.index(chosen) in puct_reference(visits, avail, rewards, priors, mask, c)


def test_a_puct_search_fills_uniform_priors_and_keeps_a_consistent_tree():
    state = midgame(2, 8, 4)
    search = MCTSSearch(SearchParams(selection="puct", policy_weights="uniform", seed=2))
    result = search.search(state, limits=SearchLimits(iterations=1500))
    tree = search.last_tree
    audit = tree.audit()
    assert audit["bad_visits"] == audit["bad_edges"] == audit["unfound"] == 0
    priors = tree.priors_of(tree.key_for(state))
    assert len(priors) == len(state.legal_actions()) and all(p == np.float32(1 / len(priors)) for p in priors)
    root = tree.node_edges(tree.key_for(state))
    assert sum(e.visits for e in root) == result.iterations == 1500
    assert all(e.avail == 1500 for e in root)          # the root's actions are legal in every world
    assert result.best_turn and result.best_turn[0] in state.legal_actions()


def test_the_default_selection_is_puct_and_uct_searches_differently():
    state = midgame(2, 8, 4)

    def visits(**changes):
        search = MCTSSearch(SearchParams(seed=4, **changes))
        search.search(state, limits=SearchLimits(iterations=800))
        return [e.visits for e in search.last_tree.node_edges(search.last_tree.key_for(state))]

    assert SearchParams().selection == "puct"
    assert visits() == visits(selection="puct") != visits(selection="uct")
    assert visits(selection="uct") == visits(selection="uct", prior_c=7.0, gumbel_k=2)   # uct reads neither
    assert visits(selection="puct", prior_c=0.2) != visits(selection="puct", prior_c=5.0)
    assert TreeSearch.bytes_per_node() < TreeSearch.bytes_per_node(True)    # priors only cost puct/gumbel


# ----------------------------------------------------------------------------- Gumbel
def gumbel_scores(survivors, max_n, g):
    """docs/search.md's g + log P + sigma(q), sigma(q) = (C_VISIT + max N) C_SCALE q, from the
    logged edge statistics (action, this search's visits, edge visits, reward sum)."""
    return {a: g[a] + (C_VISIT + max_n) * C_SCALE * (r / n) for a, _v, n, r in survivors}


def halving_reference(m, budget):
    """The survivors per phase and each survivor's cumulative visits by each phase's end."""
    phases = math.ceil(math.log2(m))
    alive, target, out = m, 0, []
    while True:
        target += max(1, budget // (phases * alive))
        out.append((alive, target))
        if alive <= 2:
            return phases, out
        alive = (alive + 1) // 2


@pytest.mark.parametrize("state_of,budget", [(lambda: midgame(2, 8, 4), 700),
                                             (lambda: State.new_game(2, seed=3), 1000),
                                             (lambda: midgame(3, 11, 6), 600)])
def test_gumbel_with_every_action_no_noise_and_uniform_priors_is_sequential_halving_on_q(state_of, budget):
    state = state_of()
    legal = state.legal_actions()
    search = MCTSSearch(SearchParams(policy_weights="uniform", selection="gumbel", gumbel_k=96, gumbel_scale=0.0, seed=6))
    result = search.search(state, limits=SearchLimits(iterations=budget))
    tree = search.last_tree
    g = tree.gumbel_state()
    assert g["k"] == len(legal) and g["budget"] == budget
    assert all(v == pytest.approx(math.log(1 / len(legal))) for v in g["g"].values())   # no noise: log P only
    phases, schedule = halving_reference(len(legal), budget)
    assert g["phases"] == phases == len(g["log"]) == len(schedule)
    previous = legal
    for phase, ((alive, target), logged) in enumerate(zip(schedule, g["log"])):
        survivors = logged["survivors"]
        assert len(survivors) == alive and {a for a, *_ in survivors} <= set(previous)
        # every survivor has the same visits of this search at the phase's end
        assert {v for _a, v, _n, _r in survivors} == {target}
        if phase == 0:
            assert sorted(a for a, *_ in survivors) == legal          # phase 1: every root action
        scores = gumbel_scores(survivors, logged["max_n"], g["g"])
        ranked = sorted(scores, key=lambda a: -scores[a])             # stable: the logged order on ties
        keep = 1 if alive <= 2 else (alive + 1) // 2
        if phase + 1 < len(g["log"]):
            assert {a for a, *_ in g["log"][phase + 1]["survivors"]} == set(ranked[:keep])
        previous = ranked[:keep]
    last = g["log"][-1]
    scores = gumbel_scores(last["survivors"], last["max_n"], g["g"])
    assert g["choice"] == max(scores, key=lambda a: scores[a])
    # with no noise and equal priors the score orders by Q: the choice has the best mean reward
    best_q = max(r / n for _a, _v, n, r in last["survivors"])
    assert [r / n for a, _v, n, r in last["survivors"] if a == g["choice"]] == [best_q]
    # the move played is the Gumbel choice, and the schedule's leftover went to it
    assert result.best_turn[0] == g["choice"] == result.candidates[0].turn[0]
    assert sum(g["visits"].values()) == budget
    assert g["visits"][g["choice"]] == schedule[-1][1] + budget - sum_schedule(schedule)
    audit = tree.audit()
    assert audit["bad_visits"] == audit["bad_edges"] == audit["unfound"] == 0
    assert tree.stats()["root_mismatch"] == 0


def sum_schedule(schedule):
    """The iterations the schedule gives out: each phase's survivors' increments."""
    total, before = 0, 0
    for alive, target in schedule:
        total += alive * (target - before)
        before = target
    return total


def test_a_gumbel_search_stopped_before_its_budget_chooses_the_best_current_survivor():
    state = State.new_game(2, seed=3)
    params = SearchParams(policy_weights="uniform", selection="gumbel", gumbel_k=96, gumbel_scale=1.0, seed=9)
    tree = new_tree(params, True, 9, 2, SearchLimits(iterations=5000))
    tree.set_root(state, 0)
    assert tree.gumbel_start(5000)
    tree.run(1500, 0.0, 0)        # 9 actions, 4 phases: 138 each in phase 1 (1242), then 5 survivors
    g = tree.gumbel_state()
    assert g["choice"] is None and len(g["alive"]) == 5 and g["k"] == 9
    edges = {e.action: e for e in tree.node_edges(tree.key_for(state))}
    max_n = max(e.visits for e in edges.values())
    scores = {a: g["g"][a] + (C_VISIT + max_n) * C_SCALE * edges[a].mean_reward(0) for a in g["alive"]}
    assert tree.gumbel_choice() == max(scores, key=lambda a: scores[a])


def test_gumbel_noise_comes_from_the_seeded_search_and_samples_k_actions():
    state = State.new_game(2, seed=3)

    def sampled(seed, scale=1.0, k=4, first_play="random", budget=100):
        tree = new_tree(SearchParams(policy_weights="uniform", selection="gumbel", gumbel_k=k, gumbel_scale=scale, first_play=first_play),
                        True, seed, 2, SearchLimits(iterations=100))
        tree.set_root(state, 0)
        tree.gumbel_start(budget)
        return tree.gumbel_state()["sampled"]

    assert sampled(1) == sampled(1) and len(sampled(1)) == 4
    assert len({tuple(sampled(s)) for s in range(12)}) > 1                  # the noise varies the sample
    assert len({tuple(sampled(s, scale=0.0)) for s in range(6)}) == 1       # none without noise
    assert sampled(1, scale=0.0) == sorted(state.legal_actions())[:4]      # equal priors: the lower actions
    assert len(sampled(1, k=96)) == len(state.legal_actions()) == 9
    assert len(sampled(1, k=96, budget=3)) == 3                            # m = min(k, legal, budget)
    # first_play=policy: the rollout policy's choice is always sampled (here in place of the 4th)
    lowest = sorted(state.legal_actions())[:4]
    with_policy = sampled(1, scale=0.0, first_play="policy")
    assert with_policy[:3] == lowest[:3] and len(with_policy) == 4
    assert with_policy[3] == lowest[3] or with_policy[3] not in lowest
    assert {sampled(s, scale=0.0, k=1, first_play="policy")[0] for s in range(8)} != {lowest[0]}


def test_a_gumbel_root_with_one_action_spends_every_iteration_on_it():
    state = midgame(2, 101, 6)                  # one legal action (the first bench position)
    assert len(state.legal_actions()) == 1
    search = MCTSSearch(SearchParams(policy_weights="uniform", selection="gumbel"))
    result = search.search(state, limits=SearchLimits(iterations=300))
    assert search.last_tree.gumbel_state()["choice"] == result.best_turn[0] == state.legal_actions()[0]


@pytest.mark.parametrize("n,seed,round_", [(2, 6, 2), (3, 9, 4), (4, 104, 5), (4, 3, 6)])
def test_root_legal_actions_are_the_movers_own_information(n, seed, round_):
    # the Gumbel root samples its actions once: they must be legal in every determinization
    state = midgame(n, seed, round_)
    seat = state.to_move
    rng = Rng(seed)
    for _ in range(30):
        assert state.determinize(seat, rng).legal_actions() == state.legal_actions()
    search = MCTSSearch(SearchParams(policy_weights="uniform", selection="gumbel", gumbel_k=3, seed=seed))
    search.search(state, limits=SearchLimits(iterations=400))
    assert search.last_tree.stats()["root_mismatch"] == 0


def test_a_gumbel_search_by_time_plans_from_the_measured_rate():
    state = midgame(2, 8, 4)
    search = MCTSSearch(SearchParams(policy_weights="uniform", selection="gumbel", gumbel_k=4))
    search.search(state, limits=SearchLimits(iterations=3000))      # measures a rate (if >= 20 ms)
    rate = search.iterations_per_s or 20_000
    search.search(state, limits=SearchLimits(time_ms=50))
    assert search.last_tree.gumbel_state()["budget"] == int(50 / 1000 * rate)


# ----------------------------------------------------------------------------- knobs
@pytest.mark.parametrize("text,why", [
    ("selection=ucb", "selection: 'ucb' is not one of uct, puct, gumbel"),
    ("prior_c=-1", "prior_c: -1.0 is outside 0..100"),
    ("prior_c=nan", "prior_c: expected a number, got 'nan'"),
    ("gumbel_k=0", "gumbel_k: 0 is outside 1..96"),
    ("gumbel_k=2.5", "gumbel_k: expected a whole number, got '2.5'"),
    ("gumbel_scale=11", "gumbel_scale: 11.0 is outside 0..10"),
    ("gumbel_scale=inf", "gumbel_scale: "),
])
def test_bad_knob_values_give_one_line_errors(text, why):
    with pytest.raises(PalaisError) as exc:
        parse_params(text)
    assert str(exc.value).startswith(why) and "\n" not in str(exc.value)


def test_policy_weights_without_the_learned_head_is_one_clear_error(tmp_path):
    import importlib.util
    if importlib.util.find_spec("search.policy") is not None:
        pytest.skip("the learned policy head is in this build")
    for weights in ("", str(tmp_path / "p.npz")):
        with pytest.raises(PalaisError, match="no learned policy head"):
            MCTSSearch(SearchParams(selection="puct", policy_weights=weights)).search(
                midgame(2, 8, 4), limits=SearchLimits(iterations=10))
    # uct never loads priors, whatever the file
    MCTSSearch(SearchParams(policy_weights=str(tmp_path / "p.npz"))).search(
        midgame(2, 8, 4), limits=SearchLimits(iterations=10))


@pytest.mark.parametrize("line,error", [
    ("setoption name Selection value PUCT", "option Selection: 'PUCT' is not one of uct, puct, gumbel"),
    ("setoption name Prior C value 101", "option Prior C: 101.0 is outside 0..100"),
    ("setoption name Prior C value", "option Prior C: expected a number, got ''"),
    ("setoption name Gumbel K value 97", "option Gumbel K: 97 is outside 1..96"),
    ("setoption name Gumbel K value -3", "option Gumbel K: -3 is outside 1..96"),
    ("setoption name Gumbel Scale value 1e400", "option Gumbel Scale: "),
])
def test_bad_pri_option_values_give_one_line_errors_and_keep_the_option(line, error):
    s = ServerSession()
    s.send(line, "isready")
    lines = s.new_lines()
    assert len(lines) == 2 and lines[0].startswith("info string error: " + error) and lines[1] == "readyok"
    assert s.server.engine.params() == SearchParams(hash_mb=s.server.engine.params().hash_mb)


def test_a_pri_gumbel_search_answers_its_choice():
    s = ServerSession()
    s.send("setoption name Selection value gumbel", "setoption name Gumbel Scale value 0",
           "setoption name Decision Share value 0", "position start players 2 seed 3",
           "go iterations 600")
    best = [l for l in s.new_lines() if l.startswith("bestmove ")]
    assert len(best) == 1
    from engine.notation import parse_turn
    g = s.server.engine._player.last_tree.gumbel_state()
    assert g["choice"] is not None and parse_turn(best[0][len("bestmove "):])[0] == g["choice"]


ADVERTISED = [("Selection", v) for v in ("uct", "puct", "gumbel")] + [
    ("Prior C", "0"), ("Prior C", "100"), ("Gumbel K", "1"), ("Gumbel K", "96"),
    ("Gumbel Scale", "0"), ("Gumbel Scale", "10"), ("Policy Weights", "uniform"), ("Policy Weights", "<empty>")]


@pytest.mark.slow
def test_every_advertised_value_of_the_new_options_answers_a_bestmove():
    import importlib.util
    learned = importlib.util.find_spec("search.policy") is not None
    SHIPPED_POLICY = Path(__file__).resolve().parent.parent / "search" / "data" / "policy.npz"
    engine = subprocess.Popen([sys.executable, "-m", "protocol.cli"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)
    guard = threading.Timer(240, engine.kill)          # a hang fails the test instead of blocking it
    guard.start()

    def ask(*lines, until):
        for line in lines:
            engine.stdin.write(line + "\n")
        engine.stdin.flush()
        out = []
        while not out or not out[-1].startswith(until):
            out.append(engine.stdout.readline().rstrip("\n"))
            assert out[-1] or engine.poll() is None, out
        return out

    try:
        ask("pri", until="priok")
        for name, value in ADVERTISED:
            others = [] if name == "Selection" else ["setoption name Selection value gumbel"]
            out = ask("newgame", *others, f"setoption name {name} value {value}",
                      "position start players 2 seed 5", "go iterations 300", until="bestmove")
            errors = [l for l in out if l.startswith("info string error")]
            assert out[-1] != "bestmove (none)", (name, value, out)
            if name == "Policy Weights" and value == "<empty>" and not learned:
                # the shipped policy weights need the learned head: one error, the option keeps its value
                assert errors == ["info string error: option Policy Weights: policy weights (the shipped "
                                  "file): this build has no learned policy head (search/policy.py); use "
                                  "policy_weights=uniform"]
            elif name == "Policy Weights" and value == "<empty>" and not SHIPPED_POLICY.exists():
                # the head is built but no weights are shipped until a match says they win
                assert errors == [f"info string error: option Policy Weights: {SHIPPED_POLICY}: "
                                  "no such policy weights file"]
            else:
                assert errors == [], (name, value, errors)
            ask("setoption name Selection value uct", "setoption name Policy Weights value uniform",
                "setoption name Prior C value 1.0", "setoption name Gumbel K value 16",
                "setoption name Gumbel Scale value 1.0", "isready", until="readyok")
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        assert engine.wait(60) == 0
    finally:
        guard.cancel()
        engine.kill()


def test_a_reused_tree_plans_its_gumbel_schedule_over_this_search_only():
    state = midgame(2, 8, 4)
    search = MCTSSearch(SearchParams(policy_weights="uniform", selection="gumbel", gumbel_k=96, gumbel_scale=0.0, seed=3))
    search.search(state, limits=SearchLimits(iterations=400))
    first_tree = search.last_tree
    result = search.search(state, limits=SearchLimits(iterations=300))
    tree = search.last_tree
    assert tree is first_tree                      # the same position: the tree goes on
    g = tree.gumbel_state()
    assert sum(g["visits"].values()) == 300 and g["budget"] == 300
    assert {v for _a, v, _n, _r in g["log"][0]["survivors"]} == {300 // (g["phases"] * g["k"])}
    root = tree.node_edges(tree.key_for(state))
    assert sum(e.visits for e in root) == 700
    assert result.best_turn[0] == g["choice"]
    audit = tree.audit()
    assert audit["bad_visits"] == audit["bad_edges"] == audit["unfound"] == 0


@pytest.mark.slow
def test_bench_tune_refuses_bad_prior_knobs_with_a_usage_error_not_a_traceback():
    import importlib.util
    from pathlib import Path
    tune = Path(__file__).resolve().parent.parent / "bench" / "tune.py"
    cases = [("selection=PUCT", "selection: 'PUCT' is not one of uct, puct, gumbel"),
             ("gumbel_k=1e3", "gumbel_k: expected a whole number, got '1e3'")]
    if importlib.util.find_spec("search.policy") is None:
        cases.append(("selection=puct,policy_weights=", "this build has no learned policy head"))
    for a, message in cases:
        run = subprocess.run([sys.executable, str(tune), "--a", a, "--games", "2", "--iterations", "20",
                              "--workers", "1"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr, (a, run.stderr)
