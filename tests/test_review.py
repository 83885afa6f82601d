"""A review that tells the truth (issue 24): fair values, a loss that means something at every
stage, accuracy, one observer's chart, and hints that agree with the review.

tests/data/review-*.rec are every game of one rule, declared before the games were seen and
made by bench/review_games.py: ismcts (2000 iterations a turn) against the random and the greedy
player, seeds 21 to 26, both seat orders (`palais play --seat A --seat B --seed N --secret-file -
--engine-iterations 2000 --save tests/data/review-A-B-N.rec`). None is left out.
"""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.position import position_to_string
from engine.state import State
from play.analyse import Analyser, TurnAnalysis, seat_summary, split_turns
from play.cli import main as palais
from play.game import read_game
from play.hints import find_hints
from search.analysis import analyse_turn, finish_setup, turn_end_key
from search.mcts import MCTSSearch
from search.measure import BLUNDER, MISTAKE, game_accuracy, turn_accuracy, turn_loss, volatility_weights, vp_share
from search.params import SearchLimits, SearchParams
from search.positions import midgame

from helpers import ServerSession, bench_script


@pytest.fixture(autouse=True)
def _portable_kernel():
    """Every review here runs the portable value kernel, which gives the same bits on every
    machine: the stored games' verdicts and the shipped example were made with it. The AVX2
    kernel's values differ in the last bits (about 1e-7), enough to tip a near-tie between
    candidates and so a verdict (docs/search.md, "Kernels"). Forked analysis processes
    inherit the choice."""
    from search import _value
    was = _value.kernel_name()
    _value.set_kernel("portable")
    yield
    _value.set_kernel(was)

DATA = Path(__file__).parent / "data"
EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"
RULE = bench_script("review_games")
GAMES = [DATA / name for _seats, _seed, name in RULE.games()]      # every game of the rule
REVIEW_ITERATIONS = 3000          # below this the fair values are too noisy to judge a game
# The judge these tests were calibrated with: the engine of the session that declared the rule
# (UCB1, the v26 static evaluation). Today's default, PUCT on the learned policy, is a far
# stronger judge: it also marks the v26 engine's own turns, and in 5 of the 24 games the
# weaker side then errs less than 3x as often (issue 27's note).
JUDGE = "preset=v27"


def review(path, seed=0, iterations=REVIEW_ITERATIONS):
    out = CliRunner().invoke(palais, ["analyse", str(path), "--iterations", str(iterations),
                                      "--seed", str(seed), "--processes", "2", "--json",
                                      "--engine", JUDGE])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


_reviews = {}


def cached_review(path, seed=0):
    if (path, seed) not in _reviews:
        _reviews[(path, seed)] = review(path, seed)
    return _reviews[(path, seed)]


# ---- the measure -----------------------------------------------------------------------------

def test_the_loss_is_the_win_lost_while_open_and_the_vp_share_lost_once_decided():
    assert turn_loss(2, 0.6, 0.45, 0.5, 0.5) == pytest.approx(0.15)        # open: the win
    assert turn_loss(4, 0.25, 0.15, 0.25, 0.25) == pytest.approx(0.20)     # on a 2-player scale
    # decided: the share of the VP, 1 VP counting 1/30 when every seat expects 30
    assert turn_loss(2, 0.0, 0.0, vp_share([31, 30], 0), vp_share([30, 30], 0)) == pytest.approx(1 / 30, rel=0.02)
    assert turn_loss(3, 1.0, 1.0, vp_share([31, 30, 30], 0), 1 / 3) == pytest.approx(1 / 30, rel=0.02)
    assert turn_loss(2, 0.99, 0.40, 0.5, 0.5) > 0.5                        # a won game thrown away
    assert turn_loss(3, 0.3, 0.4, 0.2, 0.3) == 0.0                         # better than the best
    assert vp_share([40, 55, 5], 1) == 0.55 and vp_share([0, 0], 1) == 0.5


def test_a_few_vp_of_a_runaway_lead_are_no_mistake_and_vp_thrown_away_behind_are():
    """The engine, 150 VP ahead, was marked with a blunder for 6 VP (within a decided game's
    valuation noise at that score); a seat far behind that throws away 20 of its 30 VP blunders."""
    assert turn_loss(2, 1.0, 1.0, vp_share([156, 6], 0), vp_share([150, 6], 0)) < 0.01
    assert turn_loss(2, 0.0, 0.0, vp_share([30, 100], 0), vp_share([10, 100], 0)) >= BLUNDER
    assert turn_loss(4, 1.0, 0.999, vp_share([120, 5, 5, 5], 0), vp_share([105, 5, 5, 5], 0)) < MISTAKE
    assert turn_accuracy(0.0) == 100.0 and 60 < turn_accuracy(0.10) < 65
    assert game_accuracy([0.0] * 10) == 100.0
    assert game_accuracy([0.0] * 9 + [0.5]) < sum(turn_accuracy(x) for x in [0.0] * 9 + [0.5]) / 10
    assert game_accuracy([]) is None


def test_turns_where_the_game_turned_weigh_more_in_a_seats_accuracy_than_quiet_ones():
    """lichess's volatility weights: the spread of the win probability (in percent) over a
    window ending after the turn, clamped to 0.5..12; a window of a tenth of the turns, 2..8."""
    quiet = volatility_weights([0.5] * 21)
    assert quiet == [0.5] * 20
    jump = volatility_weights([0.5] * 10 + [0.9] * 11)       # the game turns at the 10th turn
    assert jump[9] == 12.0 and jump[11] == 0.5 and jump[0] == 0.5
    assert len(volatility_weights([0.3, 0.4])) == 1 and volatility_weights([0.5]) == []
    # One blunder among nine perfect turns costs more where the game turned than where it was quiet.
    losses = [0.0] * 9 + [0.3]
    assert game_accuracy(losses, [0.5] * 9 + [12.0]) < game_accuracy(losses) < game_accuracy(losses, [12.0] * 9 + [0.5])
    assert game_accuracy(losses, [1.0] * 10) == pytest.approx(game_accuracy(losses))
    with pytest.raises(ValueError):
        game_accuracy(losses, [1.0])


def test_a_seats_accuracy_weighs_its_turns_by_how_much_the_chart_moved_around_them():
    def turn(seat, loss, after):
        return TurnAnalysis(0, 1, seat, [], 0.5, [], 0.5, loss, "blunder" if loss >= BLUNDER else "",
                            [after, 1 - after], "")
    # Seat 1 blunders while the game swings; seat 2 blunders as badly once it is decided.
    analyses = [turn(0, 0.0, 0.5), turn(1, 0.0, 0.5), turn(0, 0.3, 0.95), turn(1, 0.0, 0.95)]
    analyses += [turn(q % 2, 0.0, 0.95) for q in range(14)] + [turn(1, 0.3, 0.95), turn(0, 0.0, 0.95)]
    first, second = seat_summary(analyses, 0), seat_summary(analyses, 1)
    assert first["mistakes"] + first["blunders"] == second["mistakes"] + second["blunders"] == 1
    assert first["accuracy"] < second["accuracy"]


# ---- fair values -----------------------------------------------------------------------------

def test_the_played_turn_that_is_the_best_candidate_loses_exactly_zero():
    state = midgame(3, 103, 5)
    seat = state.to_move
    limits = SearchLimits(iterations=1500)
    review = Analyser(limits, seed=4)
    best = analyse_turn(state, limits, top=3, seed=4, params=review.judge(3)).candidates[0]
    verdict = review.turn(1, state, seat, best.turn)
    assert verdict.loss == 0.0 and verdict.verdict == ""
    assert verdict.played_win == verdict.best_win == best.win_prob[seat]
    assert verdict.played_score == best.expected_score[seat]


def test_a_turn_decided_for_its_mover_is_judged_on_shares_from_rollouts_to_the_end():
    """The greedy seat at 2 VP of 105 in a stored 3-player game: its win probability is 0
    whatever it plays, so its loss is the VP share it gave up, valued by rollouts to the
    game's end (the engine's cut-off evaluation barely tells such lines apart)."""
    from engine.views import view_for
    from search.analysis import share_valuer
    from search.measure import OPEN_MARGIN
    rec, start = read_game(str(DATA / "review-3p-pimc-greedy-ismcts-33.rec"), None)
    state, seat, line, whole = split_turns(start, rec.actions)[34]
    limits = SearchLimits(iterations=1500)
    review = Analyser(limits, seed=0)
    verdict = review.turn(35, state, seat, line, whole)
    assert max(verdict.best_win, verdict.played_win) < OPEN_MARGIN and verdict.best != line
    shares = share_valuer(analyse_turn(view_for(state, seat), limits, top=3, seed=0,
                                       params=review.judge(3)).valuer)
    assert (shares.params.leaf_eval, shares.params.rollout_turns) == ("heuristic", -1)
    assert verdict.played_share == vp_share(shares.values(line)[1], seat)
    assert verdict.best_share == vp_share(shares.values(verdict.best)[1], seat)
    assert verdict.loss == pytest.approx(turn_loss(3, verdict.best_win, verdict.played_win,
                                                   verdict.best_share, verdict.played_share))


def test_a_seat_that_can_no_longer_win_is_told_which_turn_scores_most_by_rollouts_to_the_end():
    """The same greedy seat: every candidate loses, so the hint values them again by rollouts
    to the end (share_valuer) and ranks them by the seat's share of the VP; the review's best
    line is that hint's first, asked of the review's judge."""
    from engine.views import view_for
    from search.analysis import lost_whatever, share_valuer
    rec, start = read_game(str(DATA / "review-3p-pimc-greedy-ismcts-33.rec"), None)
    state, seat, line, whole = split_turns(start, rec.actions)[34]
    limits = SearchLimits(iterations=1500)
    review = Analyser(limits, seed=0)
    analysis = analyse_turn(view_for(state, seat), limits, top=3, seed=0, params=review.judge(3))
    assert lost_whatever(analysis.candidates, seat)
    assert (analysis.valuer.params.leaf_eval, analysis.valuer.params.rollout_turns) == ("heuristic", -1)
    assert share_valuer(analysis.valuer) is analysis.valuer
    shares = [vp_share(c.expected_score, seat) for c in analysis.candidates]
    assert shares == sorted(shares, reverse=True) and shares[0] > shares[-1]
    for c in analysis.candidates:
        assert (c.win_prob, c.expected_score) == tuple(map(list, analysis.valuer.values(c.turn)))
    verdict = review.turn(35, state, seat, line, whole)
    assert verdict.best == analysis.candidates[0].turn


def test_at_the_setup_of_a_new_game_every_seats_win_probabilities_add_up_to_one():
    for n in (2, 3, 4):
        state = State.new_game(n, seed=n)
        report = find_hints(state, SearchLimits(iterations=1000), top=3, seed=1)
        for hint in report.hints:
            assert sum(hint.win_by_seat) == pytest.approx(1.0, abs=0.03)
            assert 0.0 <= hint.win < 1.0
        point = Analyser(SearchLimits(iterations=1000)).chart_point(state, -1, 500)
        assert sum(point) == pytest.approx(1.0, abs=0.03)
        assert max(point) - min(point) < 0.25          # nobody is far ahead before a move


def test_the_hint_the_pri_hint_and_the_review_agree_on_the_best_turn():
    rec, start = read_game(str(GAMES[0]), None)
    limits = SearchLimits(iterations=800)
    session = ServerSession()
    for state, seat, line, _whole in split_turns(start, rec.actions)[2:14:4]:
        view = state.view(seat)
        hint = find_hints(state, limits, top=3, seed=5).hints[0]
        verdict = Analyser(limits, seed=5).turn(1, state, seat, line)
        assert turn_end_key(view, hint.turn, seat) == turn_end_key(view, verdict.best, seat)
        assert hint.win == verdict.best_win
        session.send("setoption name Seed value 5", f"position pos {position_to_string(state)}",
                     "hint top 3 iterations 800")
        first = next(l for l in session.new_lines() if re.match(r"info string hint 1: ", l))
        assert first.split(": ", 1)[1].split(" | ")[0] == hint.tokens
        assert f"win {hint.win:.0%}" in first


@pytest.mark.slow
def test_the_analysis_does_not_depend_on_the_number_of_processes():
    rec, start = read_game(str(GAMES[1]), None)
    from play.analyse import analyse_game
    analyser = Analyser(SearchLimits(iterations=200), seed=2)
    one = analyse_game(rec, start, analyser, processes=1)
    seen = []
    two = analyse_game(rec, start, analyser, processes=2, on_turn=lambda i, n: seen.append((i, n)))
    assert [t.to_dict() for t in one] == [t.to_dict() for t in two]
    assert seen == [(i, len(one)) for i in range(1, len(one) + 1)]


# ---- the setup -------------------------------------------------------------------------------

def test_a_setup_placement_is_valued_after_the_later_seats_place_as_the_engine_would():
    state = State.new_game(3, seed=7)
    # 1,000 iterations: enough for the best line to hold all 5 of seat 1's placements (with the
    # playout static evaluation, 300 and 600 gave a line of 4)
    analysis = analyse_turn(state, SearchLimits(iterations=1000), top=1, seed=3)
    best = analysis.candidates[0]
    after = state.view(0)
    for action in best.turn:
        after.apply(action)
    assert after.round == 0 and after.to_move == 1            # seats 2 and 3 still place
    placed = finish_setup(after, analysis.valuer.params, analysis.valuer.iterations)
    assert placed.round >= 1 and placed is not after and after.to_move == 1
    valued = MCTSSearch(analysis.valuer.params).search(
        placed, 0, SearchLimits(iterations=analysis.valuer.iterations), top_k=1)
    assert best.win_prob == list(valued.stats["root_win"])
    midgame_state = midgame(2, 5, 4)
    assert finish_setup(midgame_state, analysis.valuer.params, 100) is midgame_state


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_along_the_setup_the_seats_best_claims_add_up_to_about_one(n):
    """Each seat's first hint at its setup turn, each seat playing it: the claims of one line
    of play add up to about 1 (3 players: 1.19 and 1.15 before the later seats were made to
    place as the engine would, 1.03 and 1.01 after; 4 players: 1.25, 1.18 -> 1.11, 1.06)."""
    bound = {2: 1.05, 3: 1.05, 4: 1.12}[n]
    for seed in (1, 2):
        state = State.new_game(n, seed=seed)
        claims = []
        while state.round == 0:
            hint = find_hints(state, SearchLimits(iterations=10_000), top=1, seed=0,
                              params=SearchParams.preset("v27")).hints[0]
            claims.append(hint.win)
            for action in hint.turn:
                state.apply(action)
        assert len(claims) == n and sum(claims) <= bound, (seed, claims)


# ---- whole games -----------------------------------------------------------------------------

def test_the_stored_review_games_are_every_game_of_the_rule_and_nothing_else():
    assert sorted(DATA.glob("review-*.rec")) == sorted(DATA / name for _s, _n, name in RULE.all_games())
    assert len(GAMES) == len(RULE.OPPONENTS) * len(RULE.SEEDS) * 2 == 24
    for (seats, seed, _name), path in zip(RULE.games(), GAMES):
        text = path.read_text()
        names = ",".join(seat.partition(":")[0] for seat in seats)   # a seat's parameters are not its name
        assert f'[Names "{names}"]' in text and f'[Seed "{seed}"]' in text
        assert f'[DrawSecret "{RULE.SECRET}"]' in text and "[Scores " in text     # played out


@pytest.mark.parametrize("players, count", [(3, 12), (4, 8)])
def test_the_rule_at_three_and_four_players_rotates_every_seat_over_its_seeds(players, count):
    games = RULE.games(players)
    assert len(games) == count and len({name for _s, _n, name in games}) == count
    for seed in RULE.MULTI_SEEDS[players]:
        rotations = [seats for seats, n, _name in games if n == seed]
        assert len(rotations) == players
        for q in range(players):             # each player sits in each seat once per seed
            assert sorted(seats[q] for seats in rotations) == sorted(RULE.MULTI_SEATS[players])
    for seats, seed, name in games:
        text = (DATA / name).read_text()
        names = ",".join(seat.partition(":")[0] for seat in seats)    # a seat's parameters are not its name
        assert f'[Players "{players}"]' in text and f'[Names "{names}"]' in text
        assert f'[Seed "{seed}"]' in text and f'[DrawSecret "{RULE.SECRET}"]' in text and "[Scores " in text


@pytest.mark.slow
@pytest.mark.parametrize("name", ["review-3p-pimc-greedy-ismcts-33.rec", "review-4p-greedy-ismcts-pimc-greedy-42.rec"])
def test_a_stored_game_at_three_and_four_players_is_what_the_rule_plays(tmp_path, name):
    seats, seed, _name = next(g for g in RULE.all_games() if g[2] == name)
    RULE.play(seats, seed, tmp_path / name)
    assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes()


@pytest.mark.slow
def test_a_stored_review_game_is_what_the_rule_plays(tmp_path):
    seats, seed, name = next(g for g in RULE.games() if g[2] == "review-ismcts-greedy-25.rec")
    RULE.play(seats, seed, tmp_path / name)
    assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes()


def engine_and_other(path):
    """(the engine's, the other side's) summaries in a review of a stored game, and the other's name."""
    data = cached_review(path)
    names = re.search(r'\[Names "([^"]*)"\]', path.read_text()).group(1).split(",")
    engine = names.index("ismcts") + 1
    seats = {s["seat"]: s for s in data["seats"]}
    return seats[engine], seats[3 - engine], names[2 - engine]


def bad(summary) -> int:
    return summary["mistakes"] + summary["blunders"]


@pytest.mark.slow
@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_in_every_game_the_weaker_side_is_less_accurate_and_errs_at_least_three_times_as_often(path):
    """Every game of the rule. The count can be 0 against 0 (a short game in which the greedy
    player's turns all stay below the mistake threshold): the aggregate test below then says
    more than this one."""
    ours, theirs, _name = engine_and_other(path)
    assert theirs["accuracy"] < ours["accuracy"], (ours, theirs)
    assert bad(theirs) >= 3 * bad(ours), (ours, theirs)
    data = cached_review(path)
    assert data["chart"] == "every hand open (the full record)"
    for turn in data["turns"]:
        assert sum(turn["win_after"]) == pytest.approx(1.0, abs=0.03)
        if turn["played"] == turn["best"]:
            assert turn["loss"] == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("opponent", RULE.OPPONENTS)
def test_over_the_rules_games_the_weaker_side_errs_three_times_as_often_and_is_less_accurate(opponent):
    pairs = [engine_and_other(path) for path in GAMES]
    pairs = [(ours, theirs) for ours, theirs, name in pairs if name == opponent]
    assert len(pairs) == 2 * len(RULE.SEEDS)
    ours = sum(bad(o) for o, _t in pairs)
    theirs = sum(bad(t) for _o, t in pairs)
    assert theirs >= 3 * ours and theirs >= len(pairs), (ours, theirs)
    mean = lambda xs: sum(xs) / len(xs)                                   # noqa: E731
    assert mean([t["accuracy"] for _o, t in pairs]) < mean([o["accuracy"] for o, _t in pairs]) - 5


@pytest.mark.slow
@pytest.mark.parametrize("path", GAMES[:2], ids=[p.stem for p in GAMES[:2]])
def test_two_seeds_give_the_same_verdict_on_nine_turns_in_ten(path):
    first, second = cached_review(path, 0)["turns"], cached_review(path, 1)["turns"]
    assert len(first) == len(second)
    same = sum(a["verdict"] == b["verdict"] for a, b in zip(first, second))
    assert same >= 0.9 * len(first), (same, len(first))


@pytest.mark.slow
def test_the_shipped_example_analysis_is_the_current_output(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = CliRunner().invoke(palais, ["analyse", str(EXAMPLES / "game-3p.rec"), "--iterations", "4000",
                                      "--processes", "2"])
    assert out.exit_code == 0, out.output
    assert out.output == (EXAMPLES / "game-3p-analysis.txt").read_text()


def test_a_seats_view_record_is_charted_from_that_seats_view(tmp_path):
    from engine.constants import A_DRAW_UNKNOWN
    from engine.record import read_record, record_from_actions, write_record
    rec = read_record(GAMES[2].read_text())
    view = State.new_game(rec.n_players, seed=rec.seed).view(0)
    seen = []
    for action in rec.actions[:120]:
        if view.is_chance() and view.to_move != 0:
            action = A_DRAW_UNKNOWN
        seen.append(action)
        view.apply(action)
    path = tmp_path / "seat1.rec"
    path.write_text(write_record(record_from_actions(rec.n_players, seen, seed=rec.seed, observer=0)))
    out = CliRunner().invoke(palais, ["analyse", str(path), "--iterations", "200", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["chart"] == "seat 1's view"
    assert data["turns"] and {t["seat"] for t in data["turns"]} == {1}
    assert all(abs(sum(t["win_after"]) - 1) < 0.03 for t in data["turns"])


def test_the_judging_engine_is_chosen_by_name_and_a_bad_one_is_one_line():
    bad = CliRunner().invoke(palais, ["analyse", str(GAMES[0]), "--iterations", "10",
                                      "--engine", "selection=bogus"])
    assert bad.exit_code != 0 and "selection" in bad.output and "Traceback" not in bad.output
    assert len(bad.output.strip().splitlines()) == 1, bad.output
    good = CliRunner().invoke(palais, ["analyse", str(GAMES[0]), "--iterations", "10", "--processes", "1",
                                       "--json", "--engine", "preset=v27,exploration=0.5"])
    assert good.exit_code == 0, good.output
    assert json.loads(good.output)["turns"]


def test_a_three_player_review_judges_with_the_reviews_weights_and_a_named_judge_is_kept():
    """search/analysis.py REVIEW_WEIGHTS: the 3-player review keeps the weights it was measured
    truthful with (value.npz, policy.npz), not the engine's own; 2 and 4 players judge with the
    engine's; a judge the user names is used as named."""
    from search.analysis import engine_params
    from search.policy import load_policy_model
    from search.value import load_value_model
    from helpers import SHIPPED_POLICY_DIGESTS, SHIPPED_VALUE_DIGESTS

    def digests(params, n):
        chosen = engine_params(params, 0, n)
        return (load_value_model(chosen.value_weights, n).digest,
                load_policy_model(chosen.policy_weights, n).digest)

    review = Analyser(SearchLimits(iterations=100))
    assert digests(review.judge(3), 3) == ("6f474a8b4123", "2d082668e326")
    assert digests(review.judge(3), 3) != (SHIPPED_VALUE_DIGESTS[1], SHIPPED_POLICY_DIGESTS[1])
    for n in (2, 4):
        assert digests(review.judge(n), n) == (SHIPPED_VALUE_DIGESTS[n - 2], SHIPPED_POLICY_DIGESTS[n - 2])
    named = Analyser(SearchLimits(iterations=100), params=SearchParams(exploration=0.9))
    assert digests(named.judge(3), 3) == (SHIPPED_VALUE_DIGESTS[1], SHIPPED_POLICY_DIGESTS[1])
    assert named.judge(3).exploration == 0.9


def test_the_playouts_bench_measures_chosen_turns_of_any_record_against_the_review(capsys):
    playouts = bench_script("review_playouts")
    record = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "game-3p.rec")
    assert playouts.main(["--record", record, "--turns", "41", "--playouts", "2", "--engine-iterations", "20",
                          "--iterations", "300", "--processes", "1"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("  turn 41 (seat 2): loss judged "))
    judged, observed = (float(v) for v in re.findall(r"(?:judged|playouts) (\d\.\d{3})", line))
    assert 0.0 <= judged <= 1.0 and 0.0 <= observed <= 1.0
    assert "  seat 2: 1 turns, marked by the review " in out
    assert playouts.main(["--record", record, "--turns", "43"]) == 2
    assert "the record has turns 1 to 42" in capsys.readouterr().err
