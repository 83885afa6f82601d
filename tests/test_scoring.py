"""engine/scoring.py: the final score source by source adds up to the rules core's scores
(engine/_state.pyx final_scores) over many random finished games of 2, 3 and 4 players,
with other park values and scoring options too, and shares tied park places as RULES.md §7
says."""

import re

import pytest

from engine.components import components_from_dict, default_components
from engine.options import RuleOptions
from engine.random_play import random_action
from engine.rng import Rng
from engine.scoring import SOURCES, breakdown, breakdown_lines, side_points
from engine.state import State


def _components(park):
    data = default_components().to_dict()
    data["park"] = {side: list(points) for side, points in zip(data["park"], park)}
    return components_from_dict(data, "<test>")


def _finished(n, seed, components=None, options=None):
    state = State.new_game(n, seed=seed, components=components, options=options)
    rng = Rng(seed)
    while not state.is_terminal():
        state.apply(random_action(state, rng))
    return state


SETS = [
    (None, None),
    (_components([(10, 3), (5, 5), (7, 0), (1, 0)]), RuleOptions(hand_vp_cap=2, honour_vp=5, round_cap=12)),
    (_components([(9, 1), (8, 4), (3, 2), (12, 6)]), RuleOptions(hand_vp_cap=50, honour_vp=0, round_cap=8)),
]


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("which", range(len(SETS)))
def test_the_parts_add_up_to_the_scores_of_random_finished_games(n, which):
    components, options = SETS[which]
    seen = dict.fromkeys(SOURCES, 0)
    for seed in range(20):
        state = _finished(n, 100 * n + seed, components, options)
        scores = state.scores()
        parts = breakdown(state)
        assert [s.total for s in parts] == scores
        for s in parts:
            assert [source for source, _ in s.parts] == list(SOURCES)
            assert sum(vp for _, vp in s.parts) == s.total
            for source, vp in s.parts:
                seen[source] += vp
        # public facts only: every seat's view and the public view agree
        assert breakdown(state.public_view()) == parts
        assert breakdown(state.view(0)) == parts
    # the games scored nobles and park sides (honours and hands too, where they count)
    assert seen["nobles"] > 0 and all(seen[source] > 0 for source in SOURCES if source.startswith("park"))


def test_tied_park_places_share_their_points_rounded_down():
    # RULES.md §7: two tied for first get (8 + 4) / 2 = 6 each, the next is third and gets
    # nothing; three tied for first get 4 each; two tied for second get 2 each.
    assert side_points([2, 2, 1], (8, 4)) == [6, 6, 0]
    assert side_points([1, 1, 1, 0], (8, 4)) == [4, 4, 4, 0]
    assert side_points([3, 1, 1], (8, 4)) == [8, 2, 2]
    assert side_points([0, 0], (8, 4)) == [0, 0]
    assert side_points([0, 2], (8, 4)) == [0, 8]
    assert side_points([1, 1], (7, 0)) == [3, 3]


def test_the_terminal_lines_name_every_seat_and_its_nonzero_parts():
    state = _finished(2, 5)
    lines = breakdown_lines(state, ["seat 1 (me)", "seat 2 (random)"])
    assert len(lines) == 2 and lines[0].startswith("  seat 1 (me): ")
    assert f"{state.scores()[1]} VP" in lines[1]


def test_palais_play_prints_where_each_seats_points_came_from_at_the_end():
    from click.testing import CliRunner

    from play.cli import main as palais
    result = CliRunner().invoke(palais, ["play", "--seat", "random", "--seat", "greedy", "--rule",
                                         "round_cap=2", "--no-color", "--seed", "4"])
    assert result.exit_code == 0, result.output
    end = result.output[result.output.index("Game over. Final scores:"):]
    totals = [int(x) for x in re.findall(r"(\d+) VP", end.split("\n")[0])]
    assert len(totals) == 2
    lines = end.split("Where the points came from:\n")[1].split("\n")
    assert lines[0].startswith("  seat 1 (random): ") and lines[1].startswith("  seat 2 (greedy): ")
    for line, total in zip(lines[:2], totals):
        assert f": {total} VP (" in line
        parts = line.split("(")[-1].rstrip(")").split(", ")
        assert sum(int(p.split()[-1]) for p in parts if p != "nothing") == total
