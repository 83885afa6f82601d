"""The PettingZoo environment (research/pettingzoo_env.py): PettingZoo's own API and seed
tests, plus what they do not check: each agent sees only its seat, draws never reach an
agent, seeds reproduce games, and the rewards at the end."""

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the research extra is not installed "
                                         "(pip install -e '.[research]')")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from engine.constants import A_DRAW, N_ACTIONS, N_CARDS  # noqa: E402
from engine.errors import PalaisError  # noqa: E402
from engine.features import observation  # noqa: E402
from engine.state import State  # noqa: E402
from research.pettingzoo_env import agent_name, env  # noqa: E402


def play_random(game, rng_seed, max_steps=None):
    """Play masked uniformly random actions; returns [(agent, observation, reward)] per step."""
    rng = np.random.default_rng(rng_seed)
    seen = []
    for agent in game.agent_iter(max_steps or 2 ** 63):
        obs, reward, terminated, truncated, _ = game.last()
        seen.append((agent, obs["observation"].copy(), reward))
        if terminated or truncated:
            game.step(None)
        else:
            game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


# The dict observation with "action_mask" is PettingZoo's convention for masked actions (its
# own classic games use it); api_test still warns about any observation that is not an array.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_test_passes(n):
    api_test(env(n, seed=n), num_cycles=300)


def test_pettingzoo_seed_test_passes():
    seed_test(lambda: env(3), num_cycles=200)


def test_reset_with_a_seed_reproduces_the_game():
    first, second = env(2), env(2)
    first.reset(seed=11)
    second.reset(seed=11)
    a, b = play_random(first, 5), play_random(second, 5)
    assert len(a) == len(b) and all(
        x[0] == y[0] and np.array_equal(x[1], y[1]) and x[2] == y[2] for x, y in zip(a, b))
    first.reset(seed=11)
    assert np.array_equal(first.observe("seat_1")["observation"], a[0][1])
    first.reset(seed=12)
    assert not np.array_equal(first.observe("seat_1")["observation"], a[0][1])


def test_a_seed_plays_that_deal_and_later_resets_follow_from_it():
    game = env(3, seed=21, first_game=True)
    game.reset()
    assert game.deal_seed == 21
    assert game._state.snapshot() == State.new_game(3, seed=21, first_game=True).snapshot()
    game.reset()
    later = game.deal_seed
    again = env(3, seed=21, first_game=True)
    again.reset()
    again.reset()
    assert later == again.deal_seed != 21


@pytest.mark.parametrize("n", [2, 4])
def test_a_whole_game_ends_with_the_winners_sharing_one(n):
    game = env(n, seed=3)
    game.reset()
    steps = play_random(game, 9)
    assert game.agents == []
    final = {}
    for agent, _, reward in steps:
        final[agent] = reward          # the last reward each agent saw: its final one
    assert set(final) == {agent_name(seat) for seat in range(n)}
    assert sum(final.values()) == pytest.approx(1.0)
    winners = [agent for agent, reward in final.items() if reward > 0]
    assert all(final[agent] == pytest.approx(1 / len(winners)) for agent in winners)


def test_each_agent_observes_only_its_seat_and_acts_only_on_its_turn():
    game = env(3, seed=8)
    game.reset()
    rng = np.random.default_rng(8)
    draws_seen = 0
    for _ in range(400):
        acting = game.agent_selection
        state = game._state
        for seat in range(3):
            agent = agent_name(seat)
            obs = game.observe(agent)
            view = game.seat_view(agent)
            assert view.observer == seat
            assert np.array_equal(obs["observation"], observation(view, seat))
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
            if agent == acting:
                assert sorted(np.flatnonzero(mask)) == sorted(state.legal_actions())
            else:
                assert not mask.any()
        mask = game.observe(acting)["action_mask"]
        assert not mask[A_DRAW:A_DRAW + N_CARDS].any(), "a card draw reached an agent"
        before = sum(state.snapshot().hand_size)
        game.step(int(rng.choice(np.flatnonzero(mask))))
        draws_seen += sum(game._state.snapshot().hand_size) > before
        assert not game._state.is_chance()
    assert draws_seen > 0, "the game drew no card: the test saw no chance event"


def test_bad_actions_and_arguments_are_refused_clearly():
    game = env(2, seed=1)
    game.reset()
    before = game._state.snapshot()
    legal = set(game._state.legal_actions())
    illegal = next(a for a in range(N_ACTIONS) if a not in legal)
    with pytest.raises(PalaisError, match="seat_1: action .* is not legal"):
        game.step(illegal)
    with pytest.raises(PalaisError, match="an action is an integer"):
        game.step("GATE")
    with pytest.raises(PalaisError, match="an action is an integer"):
        game.step(None)
    assert game._state.snapshot() == before
    with pytest.raises(ValueError, match="n_players"):
        env(5)
    with pytest.raises(ValueError, match="render_mode"):
        env(2, render_mode="rgb_array")
    with pytest.raises(ValueError, match="seed"):
        env(2, seed=-1)


def test_render_shows_the_board_without_any_hand():
    game = env(2, seed=2, render_mode="ansi")
    game.reset()
    play_random(game, 2, max_steps=150)
    text = game.render()
    assert "round" in text and "castle" in text
    assert "hand 0 hidden" in text or " hidden" in text
    assert "x1" not in text and "x2" not in text     # no card type of any hand is named


# ---------------------------------------------------------------------------------------
# The examples of docs/research.md run as printed

def doc_examples():
    text = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_random_agents_example_runs(capsys):
    example = next(code for code in doc_examples() if "agent_iter" in code and "ismcts" not in code)
    exec(compile(example, "docs/research.md", "exec"), {})
    assert capsys.readouterr().out.count("reward") == 3


@pytest.mark.slow
def test_the_ismcts_agent_example_runs(capsys):
    example = next(code for code in doc_examples() if "make_player" in code)
    exec(compile(example, "docs/research.md", "exec"), {})
    assert "ISMCTS won" in capsys.readouterr().out
